"""The support judge's word handling: stems, identifier parts, numbers."""

from __future__ import annotations

from core.citations.support import terms as support_terms
from core.citations.support.judge import judge_support
from core.citations.support.terms import (
    as_number,
    claim_numbers,
    eval_product,
    is_negated,
    light_stem,
    run_bounds,
    word_list,
)
from core.citations.support.text import CitedText, Span
from tests.core.citations.builders import installed_file


def test_stems_parts_and_products() -> None:
    assert {light_stem(w) for w in ("validates", "validated", "validating")} == {"validat"}
    assert word_list("max_age HttpOnly") == ["max_age", "max", "age", "httponly", "http", "only"]
    assert eval_product("60 * 60 * 24") == 86400


def test_a_plural_in_ies_meets_its_singular_in_ie_or_y() -> None:
    """ "cookies" and "cookie" share a stem, as "policies" and "policy" do; "ties" stays "tie"."""
    pairs = [("cookie", "cookies"), ("calorie", "calories"), ("policy", "policies"), ("tie", "ties")]
    assert [(light_stem(a), light_stem(b)) for a, b in pairs] == [
        ("cooky", "cooky"),
        ("calory", "calory"),
        ("policy", "policy"),
        ("tie", "tie"),
    ]
    cited = installed_file("django", "contrib/messages/storage/cookie.py").read_text(encoding="utf-8")
    assert "    Store messages in a cookie.\n" in cited
    verdict = judge_support("Messages are stored in cookies.", "Store messages in a cookie.")
    assert verdict.label == "supports", verdict


def test_the_paraphrase_table_is_what_its_groups_say() -> None:
    """Built again from its groups, the table is the same: each word's stem maps to the
    other words of its groups (a group's symbols are no key), and nothing else."""
    built = dict(support_terms.PARAPHRASES)
    try:
        support_terms.PARAPHRASES.clear()
        support_terms._build_paraphrases()
        assert support_terms.PARAPHRASES == built
    finally:
        support_terms.PARAPHRASES.clear()
        support_terms.PARAPHRASES.update(built)
    expected: dict[str, tuple[str, ...]] = {}
    for group in support_terms._SAME:
        members = group.split()
        for word in members:
            if word[0].isalnum():
                others = tuple(m for m in members if m != word)
                expected[light_stem(word)] = expected.get(light_stem(word), ()) + others
    assert built == expected
    # The words of "larger greater bigger ... > >= max maximum" stand for each other:
    assert built[light_stem("larger")] == tuple(
        "greater bigger exceed above beyond newer later higher > >= max maximum".split()
    )
    assert {"require", "depend"} <= set(built[light_stem("needs")])
    assert ">" not in built and "[]" not in built  # symbols are alternatives, never keys


def test_numbers_lose_their_thousands_commas_and_hex_stays_as_written() -> None:
    assert as_number("1,024") == "1024"
    assert as_number("10,000,000") == "1e+07"
    assert as_number("0x1F") == "0x1F"
    assert as_number("2.50") == "2.5"


def test_the_numbers_of_a_cited_text_with_the_words_around_them() -> None:
    """Each number with the three words before it (a list's numbers share the words before
    the list) and the word or unit after it; a product such as 60 * 60 * 24 is left out."""
    assert CitedText("Sessions last 2 weeks by default.")._pairs() == [("2", ["sessions", "last"], "weeks")]
    assert CitedText("Max size is 2.5MB or 10 kb here")._pairs() == [
        ("2.5", ["max", "size", "is"], "mb"),
        ("10", ["max", "size", "is"], "kb"),
    ]
    assert CitedText("Codes 301, 302 or 307 redirect")._pairs() == [
        ("301", ["codes"], "redirect"),
        ("302", ["codes"], "redirect"),
        ("307", ["codes"], "redirect"),
    ]
    assert CitedText("It is 0x1F wide")._pairs() == [("0x1f", ["it", "is"], "wide")]
    assert CitedText("a b c d 7 items")._pairs() == [("7", ["b", "c", "d"], "items")]
    assert CitedText("The window is 60 * 60 * 24 seconds")._pairs() == []
    assert CitedText("7")._pairs() == [("7", [], "")]


def test_a_competing_number_sits_before_the_same_unit_or_after_the_same_word() -> None:
    text = CitedText("The timeout is 30 seconds, and up to 5 retries.")
    assert text.competing_number("", "seconds") is True
    assert text.competing_number("", "secs") is True  # the same unit
    assert text.competing_number("", "second") is True  # the same stem
    assert text.competing_number("up", "") is True
    assert text.competing_number("", "apples") is False
    assert text.competing_number("down", "") is False
    assert text.competing_number("", "") is False
    assert CitedText("no numbers here at all").competing_number("here", "at") is False
    assert CitedText("size 2.5MB").competing_number("", "mb") is True
    assert CitedText("size 2.5MB").competing_number("", "kb") is False
    assert CitedText("last 7").competing_number("", "days") is False
    assert CitedText("7 a b c d").competing_number("d", "") is False


def test_a_number_is_said_with_the_same_word_after_it() -> None:
    text = CitedText("It weighs 2.5 MB.")
    assert text.says_number("2.5", "mb") is True
    assert text.says_number("2.5", "kb") is False
    assert text.says_number("2.5", "") is False
    assert text.says_number("3", "mb") is False


def test_a_name_is_in_a_text_whole_without_underscores_or_by_its_last_dotted_part() -> None:
    text = Span("def page(self): return pagesize; ab abc words")
    assert text.has_name("page_size") is True  # "pagesize" without its underscore
    assert text.has_name("Zz.Yy.page") is True  # its last part, a word of the text
    assert text.has_name("Zz.abc") is True
    assert text.has_name("Zz.ab") is False  # a last part of two letters names nothing
    assert text.has_name("Zz.qqq") is False
    assert text.has_name("nope") is False


def test_a_symbol_or_an_empty_literal_is_stated_only_standing_alone_or_quoted() -> None:
    for literal in ("()", "{}", '""', "''", "[]"):
        assert Span(f"it returns {literal}.")._has(literal) is True, literal
    assert Span("x() y")._has("()") is False  # a call, not an empty tuple
    assert Span("a >= b")._has(">=") is True
    assert Span("use `>=` here")._has(">=") is True
    assert Span("aX>=Xb")._has(">=") is False
    assert Span("x<y")._has("<") is False


def test_a_near_miss_is_a_longer_word_close_to_the_name_but_not_it() -> None:
    text = CitedText("words: timeout limits colour cafe bus")
    assert text.near_miss("timeoux") == "timeout"
    assert text.near_miss("color") == "colour"
    assert text.near_miss("cafx") == "cafe"
    assert text.near_miss("bxus") is None  # "bus" is too short to be one
    assert text.near_miss("limit") is None  # inside "limits": the same word


def test_the_bounds_of_a_list_of_numbers() -> None:
    codes = ["codes", "301", "302", "or", "307", "redirect"]
    assert [run_bounds(codes, i) for i in (1, 2, 4)] == [(1, 4)] * 3
    assert run_bounds(["2", "and", "3"], 0) == (0, 2)
    assert run_bounds(["two", "or", "three", "items"], 2) == (0, 2)
    assert run_bounds(["1", "and", "2", "and", "3", "b"], 2) == (0, 4)
    assert run_bounds(["5", "10ms", "x"], 0) == (0, 1)
    assert run_bounds(["a", "or", "2"], 2) == (2, 2)
    assert run_bounds(["1", "or"], 0) == (0, 0)
    assert run_bounds(["x", "5"], 1) == (1, 1)
    assert run_bounds(["or", "5"], 1) == (1, 1)
    assert run_bounds(["3", "or", "x", "4"], 0) == (0, 0)


def test_an_odd_number_of_negations_negates() -> None:
    assert is_negated(["is", "not", "disabled"]) is True
    assert is_negated(["is", "not", "disabled"], values=True) is False
    assert is_negated(["not", "only"]) is False
    assert is_negated(["not", "just"]) is False
    assert is_negated(["x", "not"]) is True
    assert is_negated(["isn't", "a", "number", "or", "isn't", "in", "range"]) is True
    assert is_negated(["neither", "x", "nor", "y"]) is True
    assert is_negated(["no", "x", "nor", "no"]) is True
    assert is_negated(["not", "not"]) is False
    assert is_negated(["never"]) is True
    assert is_negated(["none"]) is False
    assert is_negated(["none"], values=True) is True


def test_the_numbers_of_a_claim_with_their_words_and_forms() -> None:
    assert claim_numbers("Sessions expire after 2 weeks.") == [
        ("2", "expire", "weeks", {"2", "1.2096e+06", "1.2096e+09"}, {"sess", "expir", "aft", "2", "week"})
    ]
    assert claim_numbers("It retries 3 or 4 times") == [
        ("3", "retries", "times", {"3"}, {"it", "retry", "3", "or"}),
        ("4", "retries", "times", {"4"}, {"or", "4", "tim"}),
    ]
    assert claim_numbers("one week later") == [
        ("1", "", "week", {"1", "604800", "6.048e+08"}, {"one", "week", "lat"})
    ]
    assert claim_numbers("max 10ms then 0x1F") == [
        ("10", "max", "ms", {"10", "0.01"}, {"max", "10m", "then"}),
        ("0x1f", "max", "", {"0x1f"}, {"then", "0x1f"}),
    ]
    assert claim_numbers("ten minutes timeout") == [
        ("10", "", "minutes", {"10", "600", "600000"}, {"ten", "minut", "timeout"})
    ]
