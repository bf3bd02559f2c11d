"""Viewer benchmark: open a 10-line cited range of a 100,000-line file with
``open_window`` vs Pygments highlighting the same shown window alone.

Target: the window opens in ≤ 150 ms. The contender reads the file, finds the
lines ``open_window`` shows (the range and its context), counts the file's
lines and highlights only those shown lines with Pygments: what a viewer
does at the least. Its ratio, measured in the same process, is the stable
number on shared machines. Highlighting the whole file, which no viewer does,
is printed as an extra row.

    .venv/bin/python -m bench.perf.viewer [--lines 100000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_for_filename

from core.viewer import open_window

BAR_MS = 150.0

PYTHON_BLOCK = '''\
def handler_{n}(request, token="abc{n}"):
    """Check the token of request {n} and return its user."""
    if not token.startswith("abc"):
        raise ValueError(f"bad token {{token!r}}")  # refuse
    return {{"user": {n}, "ok": True}}

'''
MARKDOWN_BLOCK = """\
## Section {n}

Tokens expire after **{n} minutes**; see `auth/{n}.md` and [docs](https://example.com/{n}).

- item {n}
"""


def make_file(folder: Path, name: str, block: str, lines: int) -> Path:
    per_block = block.count("\n")
    text = "".join(block.format(n=n) for n in range(lines // per_block + 1))
    text = "\n".join(text.split("\n")[:lines]) + "\n"
    path = folder / "c0ffee00" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def best_and_median(func: Callable[[], object], repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append((time.perf_counter() - start) * 1000)
    return min(times), statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, block in (("big.py", PYTHON_BLOCK), ("big.md", MARKDOWN_BLOCK)):
            path = make_file(root, name, block, args.lines)
            middle = args.lines // 2
            window = open_window(root, f"c0ffee00/{name}", line_start=middle, line_end=middle + 9)
            assert window.total_lines == args.lines, window.total_lines
            assert sum(line.highlighted for line in window.lines) == 10

            def open_range(name: str = name, middle: int = middle) -> object:
                return open_window(root, f"c0ffee00/{name}", line_start=middle, line_end=middle + 9)

            first, last = window.first, window.last

            def window_only(path: Path = path, first: int = first, last: int = last) -> object:
                lines = path.read_text(encoding="utf-8").split("\n")
                shown = "\n".join(lines[first - 1 : last]) + "\n"
                return len(lines), highlight(
                    shown, get_lexer_for_filename(path.name), HtmlFormatter(nowrap=True)
                )

            def whole_file(path: Path = path) -> object:
                text = path.read_text(encoding="utf-8")
                return highlight(text, get_lexer_for_filename(path.name), HtmlFormatter(nowrap=True))

            w_best, w_med = best_and_median(open_range, args.repeat)
            s_best, s_med = best_and_median(window_only, args.repeat)
            f_best, f_med = best_and_median(whole_file, max(1, args.repeat // 2))
            passed = w_med <= BAR_MS
            ok &= passed
            print(
                f"{name:7} {args.lines:,} lines ({path.stat().st_size / 1e6:.1f} MB), "
                f"{last - first + 1} lines shown: open_window median {w_med:.1f} ms (best {w_best:.1f}) | "
                f"Pygments on the shown window alone median {s_med:.1f} ms (best {s_best:.1f}) | "
                f"ratio {w_med / s_med:.2f} × | bar ≤ {BAR_MS:.0f} ms: {'PASS' if passed else 'FAIL'}"
            )
            print(
                f"        extra row, not a fair contender: whole-file Pygments median {f_med:.0f} ms "
                f"(best {f_best:.0f}), open_window {w_med / f_med:.4f} × that"
            )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
