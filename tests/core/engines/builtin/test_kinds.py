"""What a passage states against what the question asks, on real third-party
documentation and code installed in the virtualenv: a yes/no question about a
default, a keyword argument passed in an example (no default), a setting whose
name is what is asked, a reST literal block across blank lines, "thanks to" as a
reason, and the project a question names when one project's name holds another's."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_ranking import CID, SITE, ask, installed, sandbox

from core.engines.builtin.claims import Claim
from core.engines.builtin.decide import answers
from core.engines.builtin.kinds import defined_name_share, identifier_share, in_call, kind_fit
from core.engines.builtin.passages import Passage, passages_of
from core.engines.builtin.projects import named_paths
from core.engines.builtin.question import analyze, spellings
from core.engines.builtin.search import Hit


def test_a_yes_no_question_about_a_default_asks_yes_or_no():
    """'Is X enabled by default?' wants a flag or a sentence, not a number;
    'how many … by default' still wants a number."""
    assert analyze("Is the CSRF cookie HttpOnly by default in Django?").kind == "yesno"
    assert analyze("Does kombu fan out messages on SQS out of the box?").kind == "yesno"
    many = analyze("How many retries does Celery make by default?")
    assert (many.kind, many.wants) == ("amount", "count")


def test_out_of_the_box_asks_for_the_default_and_a_verb_particle_is_one_identifier():
    """'out of the box' is 'by default'; 'fan out' is also looked for as ``fanout``."""
    q = analyze("Does kombu fan out messages on SQS out of the box?")
    assert q.default
    assert "fanout" in q.joined
    assert q.text == "Does kombu fan out messages on SQS out of the box?"


def test_a_yes_no_question_about_a_setting_leads_with_the_setting(tmp_path):
    """Before, 'does … by default?' was read as asking for an amount, and a
    ``NAME = False`` line states no number: the question was declined."""
    root = sandbox(tmp_path, installed("django/conf/global_settings.py"))
    quick, citations = ask(root, "Is the CSRF cookie HttpOnly by default in Django?")
    assert "CSRF_COOKIE_HTTPONLY = False" in quick
    assert citations[0]["source_file"].endswith("django/conf/global_settings.py")


def test_a_keyword_argument_in_a_call_is_not_a_default():
    """``config(conn_max_age=600,`` passes a value; ``def config(conn_max_age: int | None = 0,`` defines one."""
    call = "DATABASES['default'] = dj_database_url.config(\n    conn_max_age=600,\n)"
    assert in_call(call, call.index("conn_max_age"))
    signature = "def config(\n    env: str = DEFAULT_ENV,\n    conn_max_age: int | None = 0,\n) -> dict:"
    assert not in_call(signature, signature.index("conn_max_age"))
    assert not in_call("TIME_ZONE = 'America/Chicago'", 0)
    nested = "x = f(g(1), h(2))\ndef parse(\n    url: str,\n    ssl_require: bool = False,"
    assert not in_call(nested, nested.index("ssl_require"))


def test_the_sentence_stating_a_default_outranks_an_example_passing_a_value(tmp_path):
    """dj-database-url's README shows ``conn_max_age=600`` in its examples; the
    default is "If you do not provide a value, it will follow Django's default of ``0``"."""
    root = sandbox(tmp_path, installed("dj_database_url-3.1.2.dist-info/METADATA", "dj_database_url"))
    quick, citations = ask(root, "What does dj-database-url's conn_max_age default to?")
    assert "default of ``0``" in quick.split("\n\n")[0]
    assert citations[0]["source_file"].endswith("METADATA")


def test_a_literal_block_goes_on_across_blank_lines():
    """After ``.. code-block:: python`` the block is ``import dj_database_url``, a
    blank line, then the call: all of it is code, none of it prose."""
    text = (SITE / installed("dj_database_url-3.1.2.dist-info/METADATA")[0]).read_text(encoding="utf-8")
    start = text.index("- Configure your database in ``settings.py``")
    chunk = text[start : text.index("2. If ``DATABASES`` is not defined", start)]
    found = passages_of(f"{CID}/dj_database_url-3.1.2.dist-info/METADATA", chunk)
    call = next(p for p in found if "conn_max_age=600" in chunk[p.start : p.end])
    assert call.code
    assert not any("conn_max_age" in chunk[p.start : p.end] for p in found if not p.code)


def test_an_octal_setting_states_its_default(tmp_path):
    """``FILE_UPLOAD_PERMISSIONS = 0o644`` is a literal: it outranks the
    directory setting left ``None`` whose comment says more of the question's words."""
    root = sandbox(tmp_path, installed("django/conf/global_settings.py"))
    quick, _ = ask(root, "What file permissions does Django give newly uploaded files by default?")
    assert "FILE_UPLOAD_PERMISSIONS = 0o644" in quick


def test_the_name_a_line_defines_is_scored_by_how_much_of_it_is_asked():
    """``TIME_ZONE`` is all asked in 'time zone'; ``URLIZE_ASSUME_HTTPS`` a third;
    the comment above a setting is not part of its name."""
    q = analyze("What time zone does Django assume by default?")
    assert (
        defined_name_share('# Local time zone for this installation.\nTIME_ZONE = "America/Chicago"', q)
        == 1.0
    )
    assert 0 < defined_name_share("URLIZE_ASSUME_HTTPS = False", q) < 0.5
    assert defined_name_share("The time zone Django assumes.", q) == 0.0


def test_thanks_to_gives_the_reason(tmp_path):
    """ "Thanks to ``pytest``'s detailed assertion introspection, you can simply
    use plain ``assert`` statements" is why plain asserts work."""
    root = sandbox(tmp_path, installed("pytest-9.2.0.dist-info/METADATA", "_pytest/assertion"))
    quick, _ = ask(root, "Why can I use plain assert statements in pytest tests?")
    assert "detailed assertion introspection" in quick.split("\n\n")[0]


def test_a_project_whose_name_holds_another_is_the_one_named():
    """'django-htmx' names django_htmx, not Django; 'Django's DATABASES' names Django."""
    hits = [
        Hit(f"{CID}/django/conf/global_settings.py", 1, 10, None, "", 1.0, 700),
        Hit(f"{CID}/django_htmx/middleware.py", 1, 10, None, "", 1.0, 120),
    ]
    assert named_paths("How much memory does django-htmx reserve per request?", hits) == {hits[1].path}
    assert named_paths("How does Django read its DATABASES setting?", hits) == {hits[0].path}


def test_a_passage_that_names_the_project_asked_about_is_about_it(tmp_path):
    """ "Django's DATABASES from DATABASE_URL" is answered by dj-database-url's
    README, which says Django: before, it counted as another project's and was declined."""
    root = sandbox(
        tmp_path, installed("dj_database_url-3.1.2.dist-info/METADATA", "django/conf/global_settings.py")
    )
    quick, citations = ask(
        root, "How do I configure Django's DATABASES from the DATABASE_URL environment variable?"
    )
    assert "No Definitive Answer" not in quick
    assert citations[0]["source_file"].endswith("dj_database_url-3.1.2.dist-info/METADATA")


def test_a_how_many_lead_must_be_about_what_is_counted():
    """'How much memory …?' led by a number about requests (memory missing) is
    no answer; the counted noun is the head before "of" or the verb."""
    q = analyze("How much memory does django-htmx reserve per request by default?")
    assert q.measured == "memory"
    assert analyze("How many bits of randomness does get_random_string give?").measured == "bits"
    assert analyze("How many active connections may a kombu pool hold?").measured == "connections"
    lead = Claim(f"{CID}/django_htmx/middleware.py", None, 94, 94, "x", "", 0.6, 0.8, answers_kind=True)
    assert answers(q, [lead], [])
    assert not answers(q, [replace(lead, missing=("memory",))], [])


def test_a_how_to_scores_the_option_named_for_what_it_asks():
    """``:param ignore_unknown_options:`` documents an option named for "ignore
    … options"; a parameter mentioned in passing (``Redis(connection_pool=pool)``)
    or a line that starts with a word and a colon documents none."""
    q = analyze("How do I make click ignore command line options it does not recognise?")
    assert identifier_share(":param ignore_unknown_options: instructs click to ignore options", q) > 0.5
    assert identifier_share("limit (int): Maximum number of active connections.", q) == 0.0
    assert identifier_share("the plain ``Redis(connection_pool=pool)`` constructor", q) == 0.0
    assert identifier_share("line: only short-option clusters", q) == 0.0


def test_british_and_american_spellings_meet():
    """'recognise' finds click's "recognized"; 'behaviour' "behavior"; 'cancelled' "canceled"."""
    assert "recognize" in analyze("Which options does click not recognise?").expansions["recognise"]
    assert spellings("behaviour") == {"behavior"}
    assert spellings("cancelled") == {"canceled"}
    assert spellings("canceled") == {"cancelled"}
    assert spellings("default") == frozenset()


def test_a_question_asking_what_can_be_done_is_answered_by_what_may_be():
    """ "Can I call a pluggy hook with positional arguments?" is answered by "Only
    accepts keyword arguments …" (what may be done), over a passage that only
    describes the call; a yes/no question asking something else is not."""
    q = analyze("Can I call a pluggy hook with positional arguments?")
    says = "Only accepts keyword arguments, which should match the hook specification."
    describes = "before(hook_name, hook_impls, kwargs) will be called ahead of all hook calls."
    prose = Passage(0, len(says), False)
    assert kind_fit(q, prose, says, None, says) == (True, 0.1)
    assert kind_fit(q, prose, describes, None, describes) == (True, 0.0)
    assert (
        kind_fit(analyze("In pluggy, can a hook be both historic and firstresult?"), prose, says, None, says)[
            1
        ]
        == 0.1
    )
    assert (
        kind_fit(analyze("Does pluggy call hooks with keyword arguments?"), prose, says, None, says)[1] == 0.0
    )


@pytest.mark.parametrize(
    ("body", "names"),
    [
        ("Default: 'highlight'.", True),
        ('The mode defaults to "w+b".', True),
        ("Shows cached values matching the glob pattern (default: '*').", False),  # a pattern, no name
        ("Set the class of the 'wrapper' div.", False),  # quoted, but no default it is
    ],
)
def test_a_quoted_default_in_prose_names_the_value_asked_for(body, names):
    q = analyze("Which CSS class does the highlighter use by default?")
    assert q.kind == "amount" and q.wants == "name"
    ok, _ = kind_fit(q, Passage(0, len(body), False, "", (0, len(body))), body, None, body)
    assert ok is names
