"""The stylesheet's colours: every text/background pair the pages use meets
WCAG AA (4.5:1), including badges and Pygments tokens on the highlight."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CSS = (Path(__file__).resolve().parents[4] / "static/css/app.css").read_text(encoding="utf-8")
# The dark palette redefines the variables inside one media block; the rest is light.
DARK_CSS = CSS[CSS.index("@media (prefers-color-scheme: dark)") :]
DARK_CSS = DARK_CSS[: DARK_CSS.index("\n}\n") + 3]
LIGHT_CSS = CSS.replace(DARK_CSS, "")
VAR = r"--([a-z-]+):\s*(#[0-9a-fA-F]{6})"
VARS = dict(re.findall(VAR, LIGHT_CSS))
DARK = VARS | dict(re.findall(VAR, DARK_CSS))
SCHEMES = {"light": VARS, "dark": DARK}


def luminance(hex_colour: str) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


PAIRS = [
    ("text", "surface"), ("text", "bg"), ("muted", "surface"), ("muted", "bg"),
    ("link", "surface"), ("link", "info-bg"), ("link-visited", "surface"),
    ("primary-text", "primary"), ("danger", "surface"), ("danger", "bad-bg"),
    ("ok-text", "ok-bg"), ("info-text", "info-bg"), ("warn-text", "warn-bg"),
    ("bad-text", "bad-bg"), ("muted-text", "muted-bg"), ("muted-text", "surface"),
    ("warn-text", "hl-bg"), ("text", "hl-bg"), ("text", "target-bg"), ("ok-text", "surface"),
]  # fmt: skip


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize(("fg", "bg"), PAIRS)
def test_variable_pairs_meet_aa(fg: str, bg: str, scheme: str) -> None:
    """Text, links, buttons and badge tones are readable on their backgrounds,
    in the light and the dark palette."""
    v = SCHEMES[scheme]
    assert contrast(v[fg], v[bg]) >= 4.5, (scheme, fg, bg, round(contrast(v[fg], v[bg]), 2))


def test_dark_palette_redefines_every_colour_variable() -> None:
    """No light colour is left behind in dark mode (it would be light on dark or dark on dark)."""
    dark = dict(re.findall(VAR, DARK_CSS))
    assert set(VARS) <= set(dark), set(VARS) - set(dark)
    assert "color-scheme: dark" in DARK_CSS


def test_every_verification_state_has_a_badge_colour() -> None:
    """Each verification state is styled: green, blue, amber, red or grey."""
    for state in (
        "verified", "url_matched", "relocated", "located", "excerpt_mismatch",
        "line_out_of_range", "missing_file", "outside_sandbox", "unverifiable", "pending", "stale",
    ):  # fmt: skip
        assert f".verify-{state}" in CSS


TOKEN = r"\.highlight \.[a-z0-9]+[^{]*\{[^}]*?color: (#[0-9a-fA-F]{6})"
TOKEN_COLOURS = sorted(set(re.findall(TOKEN, LIGHT_CSS)))
DARK_TOKEN_COLOURS = sorted(set(re.findall(TOKEN, DARK_CSS)))


@pytest.mark.parametrize("colour", TOKEN_COLOURS)
def test_pygments_token_colours_meet_aa(colour: str) -> None:
    """Code stays readable on white, on code blocks and on highlighted lines."""
    for background in ("#ffffff", VARS["bg"], VARS["hl-bg"], VARS["target-bg"]):
        assert contrast(colour, background) >= 4.5, (colour, background)


@pytest.mark.parametrize("colour", DARK_TOKEN_COLOURS)
def test_dark_pygments_token_colours_meet_aa(colour: str) -> None:
    for background in (DARK["code-bg"], DARK["bg"], DARK["surface"], DARK["hl-bg"], DARK["target-bg"]):
        assert contrast(colour, background) >= 4.5, (colour, background)


def test_focus_is_always_visible() -> None:
    """Keyboard focus has a visible outline."""
    assert re.search(r":focus-visible\s*\{[^}]*outline: 3px solid", CSS)
