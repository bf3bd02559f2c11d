"""Answer units read from a document's structure, on Debian's manual pages
rendered as a reader sees them (``man`` at 80 columns, as the quality bench
renders them): a definition-list entry with its term, a later paragraph of
an entry ("The default is 50.") with what it is the default of, an option's
entry as the answer to a how-to, a table row under its section heading, and
a section heading as context, never the first words of a quote."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_ranking import CID, SITE, ask, cited_lines

from bench.quality.builtin_engine import pager_corpus, render_manual
from core.engines.builtin.chunking import chunk_lines
from core.engines.builtin.options import entry_line, named_term, term_line
from core.engines.builtin.outline import Outline
from core.engines.builtin.passages import passages_of
from core.engines.builtin.question import analyze
from core.engines.builtin.reading import chunk_reading
from core.engines.builtin.search import candidates
from core.engines.builtin.tokens import tokens_of
from core.sandbox import write_instructions, write_manifest

PAGES = {
    "curl.1": "/usr/share/man/man1/curl.1.gz",
    "find.1": "/usr/share/man/man1/find.1.gz",
    "less.1": "/usr/share/man/man1/less.1.gz",
    "logrotate.8": "/usr/share/man/man8/logrotate.8.gz",
}


def manual(page: str) -> str:
    if shutil.which("man") is None or not Path(PAGES[page]).is_file():
        pytest.skip(f"needs man and Debian's {page} page (make documents installs them)")
    return render_manual(page)


def manuals(root: Path, *pages: str) -> Path:
    """One content item holding the rendered ``pages`` as ``<page>.txt``."""
    (root / CID).mkdir(parents=True)
    for page in pages:
        (root / CID / f"{page}.txt").write_text(manual(page), encoding="utf-8")
    items = {CID: {"title": "Manuals", "source_url": "", "kind": "archive", "added_at": "2026-01-01"}}
    write_manifest(root, items)
    write_instructions(root, items)
    return root


def lines_from(text: str, first: str, count: int) -> str:
    """``count`` lines of ``text`` from the line that holds ``first``."""
    lines = text.split("\n")
    at = next(n for n, line in enumerate(lines) if first in line)
    return "\n".join(lines[at : at + count])


def test_a_term_is_told_by_the_column_its_description_starts_at():
    """``--parallel-max <num>`` above its description, ``-mount`` beside it in
    the description's column, an exit code's ``6`` before a gap of spaces."""
    curl, find = manual("curl.1"), manual("find.1")
    terms = []
    for text, first in (
        (curl, "       --parallel-max <num>"),
        (find, "       -mount "),
        (curl, "       6      "),
    ):
        outline = Outline(lines_from(text, first, 4))
        terms.append(outline.entry(0).term)
        assert outline.entry(1) is None  # a line of its description is no term
    assert terms == ["--parallel-max <num>", "-mount", "6"]


def test_a_term_running_past_its_descriptions_column_is_read_whole():
    """less(1) writes ``-bn or --buffers=n`` over a description indented less far
    than the term runs: the term is the whole line, not "-bn or" with
    "--buffers=n" read as its description beside it."""
    less = manual("less.1")
    for first, term in (
        ("       -bn or --buffers=n", "-bn or --buffers=n"),
        ("       -zn or --window=n", "-zn or --window=n or -n"),
    ):
        assert Outline(lines_from(less, first, 4)).entry(0).term == term


def test_a_condition_without_its_subject_is_about_its_entrys_term():
    """ "If set to "-" or "/dev/null", a history file is not used." says what
    LESSHISTFILE does when set so: read with its term, as "The default is …" is."""
    chunk = lines_from(manual("less.1"), "       LESSHISTFILE", 8)
    read = chunk_reading("cid/less.1.txt", chunk, None, "")
    condition = next(p for p in read.passages if p.body.startswith("If set to"))
    assert condition.label == "LESSHISTFILE"
    assert tokens_of("history file remember search commands") <= condition.antecedent


def test_a_row_of_a_list_inside_an_entry_sits_in_the_entry():
    """find's ``b'`` (512-byte blocks) is a row of ``-size``'s suffix list."""
    chunk = lines_from(manual("find.1"), "       -size n[cwbkMG]", 8)
    outline = Outline(chunk)
    row = next(n for n, line in enumerate(outline.lines) if "512-byte" in line)
    around = [where.term for kind, where in outline.around(row) if kind == "entry"]
    assert around == ["`b'", "-size n[cwbkMG]"]


def test_a_later_paragraph_of_an_entry_is_read_with_its_term_and_first_paragraph():
    """ "The default is 50." is three paragraphs below ``--parallel-max``'s
    first one, which says what it is the default of (the maximum of transfers)."""
    chunk = lines_from(manual("curl.1"), "       --parallel-max <num>", 16)
    read = chunk_reading("cid/curl.1.txt", chunk, None, "")
    default = next(p for p in read.passages if p.body == "The default is 50.")
    assert default.label == "--parallel-max <num>"
    assert tokens_of("maximum transfers simultaneously") <= default.antecedent
    plain = next(p for p in read.passages if p.body.startswith("If --parallel-max is provided"))
    assert not plain.label and not tokens_of("simultaneously") & plain.antecedent


def test_an_entry_begun_in_the_chunk_before_still_names_the_term():
    """The chunk starts inside the entry: its term and first paragraph are in
    the end of the chunk before it."""
    entry = lines_from(manual("curl.1"), "       --parallel-max <num>", 16).split("\n")
    read = chunk_reading("cid/curl.1.txt", "\n".join(entry[8:]), None, "\n".join(entry[:8]))
    default = next(p for p in read.passages if p.body == "The default is 50.")
    assert default.label == "--parallel-max <num>"
    assert tokens_of("maximum transfers") <= default.antecedent


def test_a_manual_section_heading_heads_the_chunks_under_it():
    """``EXIT CODES`` names every chunk of the exit-code table (so "exit code 6"
    finds the row far below the heading); find's ``ACTIONS`` is a subsection."""
    chunks = chunk_lines(manual("curl.1"))
    row = next(c for c in chunks if "6      Could not resolve host" in c.text)
    assert row.heading == "EXIT CODES"
    chunks = chunk_lines(manual("find.1"))
    delete = next(c for c in chunks if "       -delete\n" in c.text)
    assert delete.heading == "EXPRESSION › ACTIONS"


def test_an_elliptic_default_leads_with_its_option(tmp_path):
    root = manuals(tmp_path, "curl.1", "find.1")
    quick, citations = ask(root, "How many parallel transfers does curl do at most by default?")
    assert quick.startswith("`--parallel-max <num>` — The default is 50.")
    assert citations[0]["source_file"].endswith("curl.1.txt")


def test_an_option_entry_answers_a_how_to(tmp_path):
    root = manuals(tmp_path, "curl.1", "find.1")
    quick, _ = ask(root, "How do I make curl skip TLS certificate verification?")
    assert quick.startswith("-k, --insecure")
    assert "skip the verification step" in quick


def test_a_section_heading_is_not_the_start_of_the_quote(tmp_path):
    """find's ``ACTIONS`` heading sits right above ``-delete`` with no blank line between."""
    root = manuals(tmp_path, "curl.1", "find.1")
    quick, _ = ask(root, "How do I get find to remove the files it finds?")
    assert quick.startswith("-delete Delete files or directories")


def test_a_table_row_is_found_under_its_heading(tmp_path):
    """The row "6  Could not resolve host." says neither "exit" nor "code":
    its section heading, 20 lines above, does; a sentence elsewhere naming
    "exit code 63" does not answer."""
    root = manuals(tmp_path, "curl.1", "find.1")
    quick, citations = ask(root, "What does curl exit code 6 mean?")
    assert quick.startswith("6 Could not resolve host.")
    assert "exit code 63" not in quick
    assert "6      Could not resolve host." in cited_lines(root, citations[0])


def test_a_table_row_is_read_with_its_header():
    """orjson's README: the row "| json | 3.01 | 24.42 | 54.4 |" says what it
    measures only in the header row two lines above it."""
    readme = next(SITE.glob("orjson-*.dist-info/METADATA"), None)
    if readme is None:
        pytest.skip("needs orjson installed")
    chunk = lines_from(readme.read_text(encoding="utf-8"), "| Library   |   compact (ms)", 4)
    read = chunk_reading("cid/orjson/METADATA", chunk, None, "")
    row = next(p for p in read.passages if p.body.startswith("json "))
    assert any(tokens_of("compact pretty") <= part for part in row.context)
    header = next(p for p in read.passages if p.body.startswith("Library"))
    assert not any(tokens_of("compact pretty") <= part for part in header.context[1:])


def test_a_manual_section_heading_is_never_a_quote_of_its_own():
    """``ENVIRONMENT VARIABLES`` is long enough to be a passage; it says what
    follows is about, not an answer."""
    chunk = lines_from(manual("find.1"), "ENVIRONMENT VARIABLES", 6)
    read = chunk_reading("cid/find.1.txt", chunk, None, "")
    assert read.passages
    assert all("ENVIRONMENT VARIABLES" not in p.body for p in read.passages)


def test_a_manual_entrys_opening_quotes_its_whole_short_first_paragraph():
    """less(1)'s ``-g or --hilite-search`` says what -g does in its first
    paragraph's second sentence: the entry's opening passage is its term and
    whole first paragraph (its sentences are passages of their own as well).
    An argument list's entries run on without a blank line: ``:param name:``
    is not quoted with ``:param cls:``."""
    chunk = lines_from(manual("less.1"), "       -g or --hilite-search", 8)
    read = chunk_reading("cid/less.1.txt", chunk, None, "")
    opening = next(p for p in read.passages if p.defines == "-g or --hilite-search")
    assert opening.body.startswith("-g or --hilite-search")
    assert "The -g option changes this behavior" in opening.body
    assert opening.body.rstrip().endswith("the default.")
    assert any(p.body.startswith("The -g option changes") for p in read.passages)
    docstring = (
        '    """Make a command.\n\n'
        "    :param name: The name of the command. Defaults to the function's name.\n"
        "    :param cls: The command class to create.\n"
        '    """\n'
    )
    read = chunk_reading("cid/decorators.py", docstring, None, "")
    assert not any(":param name:" in p.body and ":param cls:" in p.body for p in read.passages)


def test_an_option_the_question_names_brings_its_entry(tmp_path):
    """The option "-L" is no search term (one letter) and its entry says little else of the
    question, so no search by its words finds it: the option as written does."""
    if shutil.which("man") is None or not Path("/usr/share/doc/less/NEWS.gz").is_file():
        pytest.skip("needs man and Debian's less (make documents installs it)")
    root = tmp_path / "sandbox"
    (root / CID).mkdir(parents=True)
    (tmp_path / "source").mkdir()
    for name, path in pager_corpus(tmp_path / "source"):  # less(1), lesskey(1) and less's NEWS
        (root / CID / name).write_bytes(path.read_bytes())
    items = {CID: {"title": "A pager", "source_url": "", "kind": "archive", "added_at": "2026-01-01"}}
    write_manifest(root, items)
    write_instructions(root, items)
    quick, citations = ask(root, "Can the -L option of less be set from within less?")
    assert quick.startswith("-L or --no-lessopen")
    assert "This option can be set from within" in cited_lines(root, citations[0]).replace("\n", " ")
    # within a folder the entry is looked up there too (the scope's condition on the chunks)
    q = analyze("Can the -L option of less be set from within less?")
    scoped = candidates(root, q, 30, folders=(f"{CID}/",))
    assert any(h.path.endswith("less.1.txt") and "-L or --no-lessopen" in h.text for h in scoped)
    assert candidates(root, q, 30, folders=(f"{CID}/elsewhere/",)) == []


def test_an_entry_line_is_the_option_as_written_opening_a_line():
    line = entry_line("-L")
    assert line.search("       -L or --no-lessopen")
    assert line.search("-a, -L, --all")
    assert not line.search("  -l or --long-prompt")  # another option: case counts
    assert not line.search("  If -L is given, the preprocessor is not run.")
    assert entry_line("--max-time").search("       -m, --max-time <seconds>")
    assert not entry_line("--max").search("       -m, --max-time <seconds>")


def test_what_holds_when_no_value_is_given_is_the_default(tmp_path):
    """ "… when no suffix is given?" asks for the default as "… if -f is not given?"
    does: the list row saying "(this is the default if no suffix is used)" leads
    over the entry's opening, which lists the suffixes."""
    assert analyze("What unit does find's -size use when no suffix is given?").default
    assert analyze("Which file does less read if no name is specified?").default
    assert not analyze("How do I make find print nothing when no file matches?").default
    root = manuals(tmp_path, "curl.1", "find.1")
    quick, citations = ask(root, "What unit does find's -size use when no suffix is given?")
    assert "512-byte blocks" in quick
    assert "this is the default if no suffix is" in cited_lines(root, citations[0])


def test_a_directive_the_question_names_in_words_is_answered_from_its_entry(tmp_path):
    """ "logrotate's size directive": the entry "size size" is looked up and answers,
    though the manual never says "units" (a word of the user's found nowhere)."""
    root = manuals(tmp_path, "logrotate.8", "curl.1")
    quick, citations = ask(root, "In which units can logrotate's size directive be given?")
    assert "megabytes" in quick.split("\n\n")[0]
    assert citations[0]["source_file"].endswith("logrotate.8.txt")
    assert named_term("In which units can logrotate's size directive be given?") == "size"
    assert named_term("What does curl's retry delay option do?") == ""  # several words
    assert named_term("What does the --retry option do?") == ""  # an option written: its own lookup
    line = term_line("size", ignore_case=True)
    assert line.search("       size size\n              Log files are rotated only if")
    assert not line.search("              100M and size 100G are all valid.\n              This")
    assert term_line("Storage").search("       Storage=\n           Controls where to store")


def test_a_table_row_opening_with_an_operator_keeps_it():
    """ "| >= 6.0.0 | Version 7.2 to current |": the row's ">=" is a comparison, not the
    ">" of a Markdown quote, and is quoted as the file has it."""
    text = (
        "| Library version | Supported redis versions |\n"
        "|-----------------|-------------------|\n"
        "| >= 5.0.0 | Version 5.0 to 7.4 |\n"
        "| >= 6.0.0 | Version 7.2 to current |\n"
    )
    shown = [" ".join(text[p.start : p.end].split()) for p in passages_of("README.md", text)]
    assert ">= 6.0.0 | Version 7.2 to current |" in shown
    quoted = "> A quoted note.\n"
    assert [quoted[p.start : p.end] for p in passages_of("README.md", quoted)] == ["A quoted note."]


def test_a_table_row_is_shown_with_its_header():
    """A row says what its cells are only under its header: it is shown with it."""
    text = (
        "| Library version | Supported redis versions |\n"
        "|-----------------|-------------------|\n"
        "| >= 6.0.0 | Version 7.2 to current |\n"
    )
    reading = chunk_reading("README.md", text, None, "")
    rows = [p for p in reading.passages if ">= 6.0.0" in text[p.passage.start : p.passage.end]]
    assert [p.label for p in rows] == ["Library version | Supported redis versions"]
