"""The manual entry of an option, key or directive a question names, looked up
by its name as written: a candidate however few of the question's words it
repeats ("Can the -L option of less be set …?": ``-L`` is one letter, no search
term; "logrotate's size directive": the term line "size size").

Pure Python: no Django imports.
"""

from __future__ import annotations

from .options import entry_line, named_term, option_asked, term_line
from .query import words
from .question import Question

# At most this many chunks are added for each option a question asks about (a
# manual and its copies), and this many matching chunks are looked through for them.
ENTRY_CHUNKS = 2
ENTRY_ROWS = 200


def asked_entries(conn, q: Question, scope: str, scope_params: list[str]) -> list[int]:
    """The chunks opening the definition-list entry of what the question asks about
    by name: a command-line option ("the -L option", "What does --partial do?"), a key
    (``Storage=``) or a directive named by one word ("logrotate's size directive"),
    found by its words and its spelling as written, case included (``options.entry_line``,
    ``options.term_line``).
    A file's first such line is the entry; a later one is a table of what supports it
    (find's "-newer Supported.") or another option's form ("-zn or --window=n or -n")."""
    written, _ = option_asked(q.text, keys_anywhere=False)
    # (name, its spelling as written: a chunk must hold it, case counting; the entry's line)
    asked = [(o, [o], entry_line(o)) for o in sorted(written) if o.startswith("-")]
    asked += [(k, [k], term_line(k)) for k in sorted(k.rstrip("=") for k in written if k[0] != "-")]
    named = named_term(q.text)
    if named:  # "logrotate's size directive": the term "size size", whatever its case
        asked.append((named, [], term_line(named, ignore_case=True)))
    found: list[int] = []
    for name, spelt, line in asked:
        tokens = words(name)
        if not tokens:
            continue
        holds = " AND instr(text, ?) > 0" if spelt else ""
        rows = conn.execute(
            f"""
            SELECT m.rowid, m.text, c.file_id FROM (SELECT rowid, text FROM chunks_fts
              WHERE chunks_fts MATCH ?{scope}{holds} ORDER BY rowid LIMIT ?) AS m
            JOIN chunks c ON c.id = m.rowid ORDER BY m.rowid
            """,  # noqa: S608 - only placeholders
            ('"' + " ".join(tokens) + '"', *scope_params, *spelt, ENTRY_ROWS),
        ).fetchall()
        files: dict[int, int] = {}
        for rowid, text, file_id in rows:
            if file_id not in files and line.search(text):
                files[file_id] = rowid
        found += list(files.values())[:ENTRY_CHUNKS]
    return found
