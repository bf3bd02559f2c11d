"""The support judge's word handling: stems, identifier parts, numbers."""

from __future__ import annotations

from citations.verification import support_terms
from citations.verification.support_terms import as_number, eval_product, light_stem, word_list


def test_stems_parts_and_products() -> None:
    assert {light_stem(w) for w in ("validates", "validated", "validating")} == {"validat"}
    assert word_list("max_age HttpOnly") == ["max_age", "max", "age", "httponly", "http", "only"]
    assert eval_product("60 * 60 * 24") == 86400


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
