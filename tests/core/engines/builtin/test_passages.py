"""What the built-in engine may quote, on real installed documentation: a
line with no words (a Markdown rule of dashes) is never a claim, so every
citation of an answer carries an excerpt the verifier can check."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_ranking import ask, installed, sandbox

from core.citations.parsing import parse_citations
from core.citations.verification import verify_citations
from core.engines.builtin import run_builtin
from core.engines.builtin.claims import _excerpt_span, _sentences, _units
from core.engines.builtin.passages import doc_passages, source_passages


def test_a_rule_of_dashes_is_never_quoted(tmp_path):
    """redis-py's README sets its version notes between two lines of dashes;
    one was quoted as supporting evidence, with no words for the verifier to find."""
    root = sandbox(tmp_path, installed("redis-8.1.0.dist-info/METADATA"))
    question = "Which redis-py version was the last one to support Python 3.7?"
    _, citations = ask(root, question)
    assert citations
    assert all(re.search(r"\w", c["excerpt"]) for c in citations)
    text = json.loads(list(run_builtin(root, question, session_id="s-1"))[-1])["result"]
    statuses = [v.status for v in verify_citations(root, parse_citations(text).citations)]
    assert statuses and set(statuses) == {"verified"}


def test_an_excerpt_is_never_cut_inside_a_markdown_link():
    """redis-py's "… replicated across multiple [active-active Redis
    Enterprise](https://…)": cut at 200 characters inside the link, the
    excerpt kept a lone "[" the verifier does not find in the file's text."""
    from test_ranking import SITE

    from core.engines.builtin.claims import _excerpt_span

    rel = installed("redis-8.1.0.dist-info/METADATA")[0]
    line = next(
        line
        for line in (SITE / rel).read_text(encoding="utf-8").split("\n")
        if line.startswith("1. You have more than one Redis deployment.")
    )
    start, end = _excerpt_span(line, 0, len(line))
    excerpt = line[start:end]
    assert excerpt.endswith("replicated across multiple")
    assert excerpt.count("[") == excerpt.count("]")


PROSE = [
    "- a list item. Another sentence of it follows here.\n* > quoted item\n\n1. numbered step one.",
    "| a | table row |\n\n   Indented prose, then a very long sentence "
    + "that runs on and on " * 20
    + "until it ends.",
    "- \n* \n> \n\nJust leaders above, then words.",
    "See [the docs](https://example.org/x) for more. Then `code` here.\n\n\n",
]


def test_a_prose_passage_starts_where_its_excerpt_does_and_ends_with_its_sentence():
    """Each prose sentence is a passage from where ``_excerpt_span`` starts it
    (list, quote and table leaders and white space trimmed) to the sentence's
    end less trailing white space, long ones uncut; a sentence of leaders only
    (``_excerpt_span`` gives None) is none."""
    for text in PROSE:
        expected = []
        for ustart, uend in _units(text):
            for start, end in _sentences(text, ustart, uend):
                span = _excerpt_span(text, start, end)
                if span is not None:
                    expected.append(
                        (span[0], len(text[:end].rstrip()) if text[span[0] : end].strip() else end)
                    )
        found = [(p.start, p.end) for p in doc_passages(text) if not p.code]
        assert found == expected


def test_a_source_chunk_without_a_docstring_is_read_as_code_runs():
    """A chunk of a Python file holding no triple quote (and not inside a
    docstring), or of another language whatever it holds, is all code: its
    runs of lines, each setting also on its own."""
    python = "import os\n\nTIMEOUT = 30\nRETRIES = 3\nNAME = 'x'\nPORT = 8080\n\ndef f():\n    return 1\n"
    found = source_passages(python, "python")
    assert found and all(p.code for p in found)
    assert "TIMEOUT = 30" in [python[p.start : p.end] for p in found]
    javascript = 'const doc = """not a docstring""";\nlet x = 1;\n'
    assert [(p.code, javascript[p.start : p.end]) for p in source_passages(javascript, "javascript")] == [
        (True, javascript.rstrip("\n"))
    ]


# The middle of a class docstring in Google style, as a chunk of a long one starts:
# no triple quote, and most lines hold brackets or end in ":" as code does.
GOOGLE_MIDDLE = """\
        >>> import ssl
        >>> Connection('amqp://', ssl={
        ...     'cert_reqs': ssl.CERT_REQUIRED,
        ... })

    Keyword Arguments:
    -----------------
        ssl (bool/dict): Use SSL to connect to the server.
            Default is ``False``.
        transport (Transport): Default transport if not specified in the URL.
        connect_timeout (float): Timeout in seconds for connecting to the
            server. May not be supported by the specified transport.
        heartbeat (float): Heartbeat interval in int/float seconds.
"""


def test_a_chunk_starting_inside_a_google_style_docstring_reads_its_arguments_as_prose():
    """Doctest lines, a section with its underline and "name (type): …" arguments are
    a docstring's shapes, not code: the chunk's sentences are prose to quote."""
    found = source_passages(GOOGLE_MIDDLE, "python")
    prose = [GOOGLE_MIDDLE[p.start : p.end] for p in found if not p.code]
    assert "Default is ``False``." in " ".join(prose)
    code = "if ready:\n    connect(host, port)\nelse:\n    retry(delay=1)\nlog.info('x')\nreturn conn\n"
    assert all(p.code for p in source_passages(code, "python"))
