"""The support judge's word handling: stems, identifier parts, numbers."""

from __future__ import annotations

from citations.verification.support_terms import eval_product, light_stem, word_list


def test_stems_parts_and_products() -> None:
    assert {light_stem(w) for w in ("validates", "validated", "validating")} == {"validat"}
    assert word_list("max_age HttpOnly") == ["max_age", "max", "age", "httponly", "http", "only"]
    assert eval_product("60 * 60 * 24") == 86400
