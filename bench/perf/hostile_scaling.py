"""How each reader of engine output scales on hostile shapes: time at a small
and a 10x larger input, and their ratio (about 10 if linear, about 100 if
quadratic). Issue #17: one answer line of 40,000 spaces once took 36.7 s.

    .venv/bin/python -m bench.perf.hostile_scaling [SMALL] [LARGE]   # default 20000 200000

Prints every shape x reader pair whose larger run took over 50 ms, then the
worst ratio."""

import sys
import time

from core.citations.parsing import parse_citations
from core.citations.rendering import render_answer
from core.protocols import parse_answer, parse_result
from core.protocols.summary_line import RESULT_LINE
from core.stream.markers import strip_markers

INPUTS = {
    "spaces": lambda n: " " * n,
    "spaces_then_x": lambda n: "x" + " " * n + "y\n",
    "newlines": lambda n: "\n" * n,
    "blank_lines_spaces": lambda n: " \n" * (n // 2),
    "nested_list": lambda n: "".join("  " * (i % 50) + "- item\n" for i in range(n // 60)),
    "unclosed_fences": lambda n: "```\n" * (n // 4),
    "unclosed_comment": lambda n: "<!-- CITATIONS: [" + "{" * (n // 2),
    "heading_spaces": lambda n: "# a" + " " * n + "b\n",
    "confidence_spaces": lambda n: "Confidence:" + " " * n + "x y\nz",
    "hashes": lambda n: "#" * n,
    "brackets": lambda n: "[c1]" * (n // 4),
    "backticks": lambda n: "`a/" * (n // 3),
    "stars": lambda n: "*" * n,
    "pipes": lambda n: "|" * n + "\n" + "|---" * (n // 4) + "\n",
    "colon_path": lambda n: "a" * n + ".py:",
    "source_heading": lambda n: "## Source 1" + " " * n + "\n",
    "next_steps": lambda n: " " * n + "x",
    "unclosed_labelled_fences": lambda n: "## Source 1: T\n" + "```a\n" * (n // 5),
    "metadata_spaces": lambda n: "RESULT: CLEAN | Type: digest\n- Protocol:" + " " * n + "x\n",
    "finding_ids": lambda n: "| ID | Severity |\n|---|---|\n| F1 | major |\n" + " " * n + "F1x\n",
    "deep_quote": lambda n: ">" * n + " x\n",
    "many_short_lines": lambda n: "- a\n" * (n // 4),
}
READERS = {
    "parse_answer": parse_answer,
    "parse_result": parse_result,
    "parse_citations": parse_citations,
    "strip_markers": strip_markers,
    "render": lambda t: render_answer(t, {}, link_for=lambda v: None),
    "result_line": lambda t: RESULT_LINE.search(t),
}


def main() -> None:
    small, big = (
        int(sys.argv[1]) if len(sys.argv) > 1 else 20000,
        int(sys.argv[2]) if len(sys.argv) > 2 else 200000,
    )
    worst = (0.0, "", "")
    for iname, make in INPUTS.items():
        for fname, f in READERS.items():
            ts = []
            for n in (small, big):
                text = make(n)
                t0 = time.perf_counter()
                f(text)
                ts.append(time.perf_counter() - t0)
            ratio = ts[1] / max(ts[0], 1e-4)
            worst = max(worst, (ratio, iname, fname)) if ts[1] > 0.05 else worst
            if ts[1] > 0.05:
                print(
                    f"{iname:26} {fname:16} {ts[0] * 1000:8.1f} ms {ts[1] * 1000:9.1f} ms  ratio {ratio:6.1f}"
                )
    print(f"worst ratio over 50 ms: {worst[0]:.1f} ({worst[1]}, {worst[2]})")


if __name__ == "__main__":
    main()
