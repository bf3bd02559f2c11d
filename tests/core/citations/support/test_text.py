"""How the support judge cuts real cited text into statements (``text.segments``
and ``CitedText``): the sentences, settings and code lines it reads, their polarity, unit
and subject, on lines of installed packages."""

from __future__ import annotations

from itertools import pairwise

from core.citations.support.text import CitedText, Span, segments
from tests.core.citations.builders import installed_file


def cited(package: str, relative: str, first: int, last: int) -> str:
    """Lines ``first``..``last`` (1-based, inclusive) of an installed file."""
    lines = installed_file(package, relative).read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[first - 1 : last])


def test_a_settings_comment_is_read_as_a_sentence_about_its_setting_and_with_it():
    """A settings comment over a non-boolean value is its own sentence about the setting,
    and the comment with its assignment is one more segment in the same unit."""
    text = cited("django", "conf/global_settings.py", 316, 318)
    found = segments(text)
    assert [(s.raw, s.negated, s.setting, s.unit, s.subject) for s in found] == [
        (
            "Maximum size, in bytes, of a request before it will be streamed to the file system"
            " instead of into memory.",
            False,
            False,
            1,
            "file_upload_max_memory_size",
        ),
        (text, None, True, 1, "file_upload_max_memory_size"),
    ]
    assert CitedText(text).assigned == {"file_upload_max_memory_size": "2.62144e+06"}


def test_spans_joined_read_as_the_text_they_join_read_once():
    """A window joins its statements' spans without reading them again: the joined
    span has the words, stems, folded text and code names of the joined text read anew."""
    text = cited("django", "utils/text.py", 468, 489)
    found = segments(text)
    assert len(found) > 3
    for first, second in pairwise(found):
        parts = [Span(first.raw), Span(second.raw)]
        joined, fresh = Span.joined(parts), Span("\n".join(p.raw for p in parts))
        assert (joined.raw, joined.low, joined.flat, joined.words) == (
            fresh.raw,
            fresh.low,
            fresh.flat,
            fresh.words,
        )
        assert (joined.word_set, joined.stems, joined.prefixes) == (
            fresh.word_set,
            fresh.stems,
            fresh.prefixes,
        )
        assert joined.code_names() == fresh.code_names()


REDIS_LAYER = cited("channels_redis", "core.py", 95, 135)


def test_a_word_is_found_by_the_first_six_letters_of_its_stem():
    """The lines say "Configure" and "information": "configs" (a six-letter stem) and
    "informative" (a longer one) share the first six letters of their stems, so both are
    found, though neither is in the text."""
    span = Span(REDIS_LAYER)
    assert "configs" not in span.flat and "informative" not in span.flat
    assert span.has_word("configs")
    assert span.has_word("informative")


def test_a_three_letter_word_is_not_found_inside_a_longer_one():
    """ "age" is inside "messages" and "con" inside "encryption", but neither is a word of
    the lines; "use" is one ("As we use a sorted set")."""
    span = Span(REDIS_LAYER)
    assert "age" in span.flat and "con" in span.flat
    assert not span.has_word("age")
    assert not span.has_word("con")
    assert span.has_word("use")


def test_the_values_a_passage_assigns_are_its_literals_not_its_calls():
    """Booleans, strings and numbers a passage assigns are read as values, lower-cased
    and unquoted; ``loader = XMLString(...)`` assigns a call's result, no value."""
    settings = CitedText(cited("django", "conf/global_settings.py", 496, 501))
    assert settings.assigned == {
        "session_cookie_secure": "false",
        "session_cookie_path": "/",
        "session_cookie_httponly": "true",
    }
    options = CitedText(cited("redis", "commands/core.py", 2598, 2608))
    assert options.assigned == {"nx": "nx", "xx": "xx"}
    template = CitedText(cited("twisted", "web/_template_util.py", 655, 665))
    assert template.assigned == {
        "t": "http://twistedmatrix.com/ns/twisted.web.template/0.1",
        "type": "text/css",
    }


def test_a_signatures_string_default_is_read_unquoted():
    """``mask: str = "**"`` in a signature assigns ``**`` to mask (the annotation's own
    "str = ..." is read too, after it); a default spelled with capitals keeps its letters."""
    text = CitedText(cited("kombu", "transport/azurestoragequeues.py", 264, 270))
    assert text.assigned == {"include_password": "false", "mask": "**", "bool": "false", "str": "**"}
    assert CitedText('def plot(self, axis: str = "X", order: str = "XYZ"):').assigned["axis"] == "x"


def test_a_passage_defines_the_first_def_or_class_it_opens_anywhere():
    """A decorated def is defined though its line is not the first; its parameters are read
    lower-cased; a class without parentheses has none."""
    assert CitedText(cited("django", "utils/text.py", 481, 489)).defines == (
        "slugify",
        "(value, allow_unicode=false)",
    )
    assert CitedText(cited("whitenoise", "base.py", 21, 30)).defines == ("whitenoise", "")


def test_the_code_names_a_passage_uses_are_read_bare_and_lower_cased():
    """ "a `get()` method" names get; ``X_FRAME_OPTIONS`` is x_frame_options, its first
    letter kept."""
    assert Span(cited("django", "shortcuts.py", 66, 72)).code_names() == {
        "filter",
        "get",
        "get_list_or_404",
        "get_object_or_404",
    }
    assert Span(cited("django", "conf/global_settings.py", 453, 454)).code_names() == {"x_frame_options"}


def test_settings_comments_are_read_with_their_values_one_unit_per_setting():
    """Each setting with its comment is one unit; a comment over a string or number is read
    sentence by sentence about its setting (its scope: the setting line with the sentence),
    a True/False value gives its comment's polarity (False negates it). No def is above."""
    text = cited("django", "conf/global_settings.py", 490, 504)
    found = segments(text)
    assert [(s.unit, s.negated, s.setting, s.subject) for s in found] == [
        (1, False, False, "session_cookie_name"),
        (1, False, False, "session_cookie_name"),
        (1, None, True, "session_cookie_name"),
        (2, False, False, "session_cookie_age"),
        (2, None, True, "session_cookie_age"),
        (3, False, False, "session_cookie_domain"),
        (3, None, True, "session_cookie_domain"),
        (4, True, True, "session_cookie_secure"),
        (5, False, False, "session_cookie_path"),
        (5, None, True, "session_cookie_path"),
        (6, False, True, "session_cookie_httponly"),
        (7, None, False, "session_cookie_samesite"),
        (7, False, False, "session_cookie_samesite"),
        (7, None, True, "session_cookie_samesite"),
    ]
    assert {(s.heading, s.owner) for s in found} == {("\n", "")}
    assert [s.raw for s in found[:2]] == ["Cookie name.", "This can be whatever you want."]
    assert found[1].scope.raw == 'SESSION_COOKIE_NAME = "sessionid"\nThis can be whatever you want.'
    assert all(s.scope is s for s in found if s.setting)


def test_a_def_under_its_class_line_is_read_as_the_class_s():
    """Cited from the blank line above ``class Page``: the class line is under its own
    heading, the ``def __init__`` lines under theirs, and the windows of ``__init__``'s
    lines are headed by the class line too (its parameters are the class's)."""
    text = cited("django", "core/paginator.py", 301, 306)
    found = segments(text)
    assert [(s.heading, s.owner) for s in found] == [
        ("class Page(collections.abc.Sequence)\n", "page"),
        *[("def __init__(self, object_list, number, paginator)\n", "__init__")] * 4,
    ]
    windows = CitedText(text).windows
    assert windows[0].raw == "class Page(collections.abc.Sequence)\n\nclass Page(collections.abc.Sequence):"
    assert windows[1].raw == "\n".join(
        [
            "class Page(collections.abc.Sequence):",
            "def __init__(self, object_list, number, paginator)",
            "",
            "    def __init__(self, object_list, number, paginator):",
            "        self.object_list = object_list",
            "        self.number = number",
            "        self.paginator = paginator",
        ]
    )


def test_a_code_line_is_negated_by_an_odd_count_of_not_and_no():
    """One "not" negates a code line, two cancel out, three negate it again; the
    capitalised "Not" of a message is no negation."""
    one = segments(cited("django", "core/paginator.py", 315, 316))
    two = segments(cited("django", "utils/text.py", 476, 477))
    three = segments(cited("django", "core/management/commands/makemessages.py", 364, 365))
    assert [(s.code, s.negated) for s in one + two + three] == [
        (True, True),
        (True, False),
        (True, False),
        (True, False),
        (True, True),
        (True, False),
    ]


def test_a_setting_without_a_comment_is_a_unit_of_its_own():
    """``LOCALE_PATHS = []`` under ``USE_I18N = True`` and its comment is the next unit,
    with no polarity (its value is no boolean)."""
    found = segments(cited("django", "conf/global_settings.py", 159, 162))
    assert [(s.unit, s.negated, s.setting, s.raw.splitlines()[-1]) for s in found] == [
        (1, False, True, "USE_I18N = True"),
        (2, None, True, "LOCALE_PATHS = []"),
    ]


def test_a_double_backticked_name_after_a_full_sentence_heads_what_follows():
    """ "Else, the connection is aborted." ends a sentence, so the next line's
    ````process_request```` starts a statement under a heading of its own."""
    found = segments(cited("websockets", "asyncio/server.py", 608, 617))
    assert [s.heading for s in found] == [
        *["\nprocess_request:"] * 4,
        "\n``process_request``",
        *["\nprocess_response:"] * 4,
        "\n``process_response``",
    ]
    assert [s.unit for s in found] == list(range(1, 11))


def test_a_comment_written_against_its_hash_keeps_its_first_letter():
    """ "#X-Forwarded-Host ..." without a space after the "#" reads "X-Forwarded-Host ..."."""
    found = segments('#X-Forwarded-Host is read only behind a proxy.\nUSE_X_FORWARDED_HOST = "yes"')
    assert found[0].raw == "X-Forwarded-Host is read only behind a proxy."


def test_only_the_nearest_class_line_joins_an_init_heading():
    """Under ``class EmptyPage`` and ``class BasePaginator``, BasePaginator's ``def __init__``
    is read with its own class line only."""
    text = CitedText(cited("django", "core/paginator.py", 22, 45))
    init = next(s for s in text.segments if s.heading.startswith("def __init__"))
    heading = text._with_class(init)
    assert heading.startswith("class BasePaginator:\n")
    assert heading.endswith("\n" + init.heading)
    assert "EmptyPage" not in heading
