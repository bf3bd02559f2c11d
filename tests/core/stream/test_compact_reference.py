"""``compact`` takes short ASCII strings, ints and None inside containers as they
are instead of recursing into them: its result must stay exactly what the plain
recursive definition gives, for any JSON-like value."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core.stream.events import clean_text, clip, compact


def reference(value: Any, *, max_str: int = 500, depth: int = 0) -> Any:
    """The plain recursive definition (one call per value)."""
    kind = type(value)
    if kind is str:
        if len(value) > max_str:
            value = f"{value[:max_str]}…[{len(value):,} chars]"
        return clean_text(value)
    if value is None or kind is bool or kind is int:
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    if depth >= 5:
        return "…"
    if kind is dict:
        out: dict[str, Any] = {}
        for n, (key, item) in enumerate(value.items()):
            if n >= 50:
                out["…"] = f"{len(value) - 50} more keys"
                break
            out[clean_text(str(key)[:100])] = reference(item, max_str=max_str, depth=depth + 1)
        return out
    if kind is list or kind is tuple:
        items = [reference(item, max_str=max_str, depth=depth + 1) for item in value[:50]]
        if len(value) > 50:
            items.append(f"… {len(value) - 50} more items")
        return items
    for base in (bool, int, float, str, dict, list):
        if isinstance(value, base):
            return reference(base(value), max_str=max_str, depth=depth)
    return clip(repr(value), max_str)


texts = st.one_of(
    st.text(max_size=30),
    st.text(alphabet=st.sampled_from("ab \x00é\ud800…"), max_size=12),
    st.integers(0, 3).map(lambda n: "x" * (8 + n)),  # around a small max_str
    st.integers(95, 105).map(lambda n: "k" * n),  # around the key limit
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    texts,
)
keys = st.one_of(texts, st.integers(-5, 5), st.sampled_from(["…", "a\x00", "\ud800"]))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6),
        st.lists(inner, max_size=6).map(tuple),
        st.dictionaries(keys, inner, max_size=6),
    ),
    max_leaves=40,
)


@settings(max_examples=400)
@given(values, st.sampled_from([10, 500]), st.integers(0, 6))
def test_compact_is_the_plain_recursive_definition(value, max_str, depth):
    """Same value, same key order, for any nesting, limit and starting depth."""
    got = compact(value, max_str=max_str, depth=depth)
    want = reference(value, max_str=max_str, depth=depth)
    assert repr(got) == repr(want)  # repr: NaN-free here, and key order counts


def test_compact_trims_long_containers_like_the_definition():
    """Past 50 keys or items the same marker ends the copy; a "…" key is overwritten in place."""
    many = {f"k{n}": n for n in range(60)}
    many["…"] = "own"
    listed = ["x"] * 70
    for value in (many, listed, {"…": 1, **{str(n): n for n in range(55)}}, {"a": listed, "b": many}):
        assert repr(compact(value)) == repr(reference(value))
