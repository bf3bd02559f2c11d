"""The support judge's word handling: stems, identifier parts, numbers."""

from __future__ import annotations

from core.citations.support import terms as support_terms
from core.citations.support.judge import Support, judge_support
from core.citations.support.rules.claim import Claim
from core.citations.support.rules.doubt_polarity import _negates, _negates_term
from core.citations.support.terms import (
    TOKEN_RE,
    as_number,
    claim_numbers,
    eval_product,
    is_negated,
    light_stem,
    names_in,
    numbers_in,
    polar_words,
    run_bounds,
    word_list,
)
from core.citations.support.text import CitedText, Span, _item_name
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
    # a product is read as its value ("60 * 60 * 24" for a day in seconds)
    assert CitedText("The window is 60 * 60 * 24 seconds")._pairs() == [
        ("86400", ["the", "window", "is"], "seconds")
    ]
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


def test_a_number_in_other_decimal_digits_is_a_number_and_words_are_not():
    """Words are passed over before any number pattern is tried; a number written in
    another script's decimal digits ("٣") is still one, "x²" is not, "one minute" is."""
    found = claim_numbers("Retries ٣ times, then waits x² seconds or one minute")
    assert [(value, before, after, forms) for value, before, after, forms, _ in found] == [
        ("3", "retries", "times", {"3"}),
        ("1", "seconds", "minute", {"1", "60", "60000"}),
    ]
    assert claim_numbers("Only words here, none of them counts") == []


# The support judge's word and number helpers (``terms``) on real sentences:
# the numbers a sentence gives with the words around them.


def test_a_list_of_numbers_shares_the_words_around_the_list():
    """ "301, 302, 303, 307 or 308 redirects": every number is before "redirects"."""
    found = claim_numbers("Allowed hosts: 301, 302, 303, 307 or 308 redirects.")
    assert [(value, before, after) for value, before, after, _, _ in found] == [
        ("301", "hosts", "redirects"),
        ("302", "hosts", "redirects"),
        ("303", "hosts", "redirects"),
        ("307", "hosts", "redirects"),
        ("308", "hosts", "redirects"),
    ]


def test_the_words_around_each_number_are_those_between_its_neighbours():
    """Each number is said of the words between the number before it and the number after
    it; a product (``60 * 60 * 24 * 14``) is no number of the sentence and leaves no word."""
    found = claim_numbers("Markdown indents code by 4 spaces, 2 more than 2.")
    assert [stems for *_, stems in found] == [
        {"markdown", "indent", "cod", "by", "4", "spac"},
        {"spac", "2", "mor", "than"},
        {"mor", "than", "2"},
    ]
    (product,) = claim_numbers("The cookie lasts 60 * 60 * 24 * 14 seconds, that is 14 days.")
    assert product[:3] == ("14", "seconds", "days")
    assert product[4] == {"the", "cooky", "last", "second", "that", "is", "14", "day"}


def test_a_name_s_parts_are_words_around_its_number():
    """ "max_age" is said as "max" and "age" (the name whole is not among the words)."""
    assert claim_numbers("A max_age of 60 seconds") == [
        ("60", "max_age", "seconds", {"60", "60000"}, {"a", "max", "age", "of", "60", "second"})
    ]


def test_a_count_word_at_the_end_of_a_sentence_is_no_number():
    """ "one" is a count only before a unit ("one week"); last in a sentence it is none."""
    assert claim_numbers("It keeps only one.") == []
    assert claim_numbers("It keeps one week.")[0][:3] == ("1", "keeps", "week")


def test_a_hexadecimal_number_before_a_unit_is_not_converted():
    """ "0x10 seconds" keeps its hexadecimal spelling: no duration is read from it."""
    assert claim_numbers("The timer fires after 0x10 seconds.")[0][:4] == (
        "0x10",
        "fires",
        "seconds",
        {"0x10"},
    )


def test_a_list_of_numbers_runs_to_the_ends_of_the_sentence():
    """A list that opens the sentence starts at its first token; one that ends it ends at its last."""
    assert run_bounds(TOKEN_RE.findall("301, 302 or 307 are redirects"), 1) == (0, 3)
    assert run_bounds(TOKEN_RE.findall("it answers 301 or 302"), 2) == (2, 4)
    assert run_bounds(TOKEN_RE.findall("it answers 301, 302"), 2) == (2, 3)


def test_the_names_a_sentence_uses_are_no_numbers_and_no_calls():
    """ "`get()`" names get; a backticked number ("`2.5`", "`42`") is no name."""
    assert names_in("Set `timeout` to `2.5` or `42`, and call `get()`.") == {"timeout", "get"}


def test_the_numbers_a_text_states_keep_their_octal_spelling():
    """``0o644`` is read as written (lower case), not as 644 nor left out."""
    assert numbers_in("FILE_UPLOAD_PERMISSIONS = 0o644") == {"0o644"}


def test_a_word_glued_to_0x_or_0o_is_no_number_with_a_unit():
    """ "0xzz" and "0ops" are no hexadecimal or octal numbers, nor a 0 followed by a unit."""
    assert claim_numbers("It logged 0xzz as the address.") == []
    assert claim_numbers("The 0ops flag is set.") == []


# Numbers of more than six significant digits keep every digit: the judge read
# 1209601 as 1209600 (six significant digits, "1.2096e+06") and so said Django's two-week
# cookie age of ``60 * 60 * 24 * 7 * 2`` seconds supports "1209601 seconds".


def cookie_age() -> str:
    """The comment and setting of global_settings.py that give the session cookie's age."""
    lines = installed_file("django", "conf/global_settings.py").read_text(encoding="utf-8").splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith("SESSION_COOKIE_AGE ="))
    return "\n".join(lines[at - 1 : at + 1])


def test_a_number_is_not_rounded_onto_another() -> None:
    assert as_number("1209601") == "1209601"
    assert as_number("1,209,601") == "1209601"
    assert as_number("1209600") == "1.2096e+06"  # exact in six digits: written as before
    assert as_number("0.1") == "0.1"


def test_a_duration_converted_to_seconds_keeps_every_digit() -> None:
    ((value, _, _, forms, _),) = claim_numbers("1209601 seconds")
    assert value == "1209601"
    assert forms == {"1209601", "1209601000"}


def test_a_number_one_off_the_setting_is_not_supported() -> None:
    cited = cookie_age()
    assert (
        cited == "# Age of cookie, in seconds (default: 2 weeks).\nSESSION_COOKIE_AGE = 60 * 60 * 24 * 7 * 2"
    )
    assert judge_support("SESSION_COOKIE_AGE defaults to 1209601 seconds.", cited) == Support(
        "unsupported", "The cited text sets session_cookie_age to 1.2096e+06."
    )
    assert judge_support("SESSION_COOKIE_AGE defaults to 1209600 seconds.", cited).label == "supports"


# How the support judge reads words: which count as a negation and how many flip a
# statement, what is left of a statement once its quoted literals and asides are cut,
# the word a negation bears on, the name an item heading is about, and a hex literal
# read as one number.


def test_a_contracted_negation_negates() -> None:
    assert _negates("The value isn't validated.")
    assert not _negates("The value is validated.")


def test_not_only_negates_nothing_and_three_negations_flip_a_statement() -> None:
    assert not is_negated("it is not only fast".split())
    assert is_negated("not x no y never".split())
    assert not is_negated("not x no y".split())


def test_quoted_literals_and_asides_leave_no_words_behind() -> None:
    assert polar_words("Use 'x' or (maybe) 'y' here") == ["use", "or", "here"]


def test_the_word_a_negation_bears_on_is_its_first_content_word_within_four() -> None:
    """Stop words and words of two letters are passed over ("not ok validated" negates
    "validated"), three-letter words are not ("not run"); nothing after the negation, or
    only stop words in its four words, negates none of the sentence's words or names."""
    claim = Claim.read("The `x` flag keys are validated to run.", CitedText("keys"))
    assert claim.terms == ["flag", "keys", "validated", "run"] and claim.names == {"x"}
    assert _negates_term(claim, "not ok validated".split(), 0)
    assert _negates_term(claim, "not run".split(), 0)
    assert not _negates_term(claim, "not to be used with keys".split(), 0)
    assert not _negates_term(claim, ["not"], 0)


def test_the_name_an_item_heading_is_about() -> None:
    assert _item_name("``depth`` ") == "depth"
    assert _item_name("Timeout (float):") == "timeout"
    assert _item_name(":param N: the number of retries") == "n"


def test_a_hex_literal_of_letters_is_one_number() -> None:
    """ "0xff" is the number 0xff, not 0 followed by the word "xff"."""
    assert CitedText("The mask is 0xff here.")._pairs() == [("0xff", ["the", "mask", "is"], "xff")]


def test_a_numbers_unit_and_words_are_its_own_statements() -> None:
    """A word after a comma or a comment is not a number's unit, and a comment labelling one
    line is not the words before the next line's number (Django's ``TIME_CHUNKS``)."""
    chunks = CitedText(
        "TIME_CHUNKS = [\n    60 * 60 * 24 * 7,  # week\n    60 * 60 * 24,  # day\n    60 * 60,  # hour\n]"
    )
    assert chunks._pairs() == [
        ("604800", ["time_chunks"], ""),
        ("86400", [], ""),
        ("3600", [], ""),
    ]
    assert not chunks.rebinds("86400", "day", "seconds")
    assert CitedText("The limit is 5, the timeout 10 seconds")._pairs() == [
        ("5", ["the", "limit", "is"], ""),
        ("10", ["the", "timeout"], "seconds"),
    ]
    assert CitedText("a buffer of 32\u00a0KiB")._pairs() == [("32", ["a", "buffer", "of"], "kib")]


def test_a_size_may_be_given_in_bytes_and_a_number_word_may_name_a_kind() -> None:
    (one_mib,) = claim_numbers("Messages are limited to 1 MiB by default.")
    assert one_mib[0] == "1" and "1048576" in one_mib[3]
    (one_mb,) = claim_numbers("Messages are limited to 1 MB.")
    assert {"1e+06", "1048576"} <= one_mb[3]
    # "a two-digit year" is a kind of year, not a count of two to find
    assert [n[0] for n in claim_numbers("A two-digit year over 50 years ahead is in the past.")] == ["50"]
    assert [n[0] for n in claim_numbers("It retries two times.")] == ["2"]


def test_a_words_own_double_s_is_not_a_plural() -> None:
    assert light_stem("pass") == light_stem("passes") == light_stem("passed") == "pass"
    assert light_stem("process") == light_stem("processes") == "process"
    assert light_stem("caches") == light_stem("cache")
