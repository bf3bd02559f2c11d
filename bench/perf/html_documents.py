"""HTML files and EPUB books against the web ingest's bare HTML → Markdown
conversion of the same bytes: what turning them into a rendition with a
locator map (headings tracked per line; for an EPUB the zip, the package,
the table of contents and the section per chapter) adds on top.

    .venv/bin/python -m bench.perf.html_documents [--rounds 3] [HTML …]

Default: the HTML manuals of four Debian packages (``DEBIAN_HTML``); give
other files to measure them instead (all of /usr/share/doc here is 45 MB in
4,147 files, minutes per round on the shared machine). The EPUB is made here from the same files
(one chapter each, with an EPUB 3 table of contents) and converted whole.
Each round times all three; the best round of each is compared. A file
nested too deep for markdownify (which the ingest refuses with a message)
is left out and named.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import zipfile
from pathlib import Path

from core.ingest import Limits
from core.ingest.documents import convert_document
from core.ingest.web import html_to_markdown

# Manuals Debian ships as HTML: libffi's (libffi-dev, which `make test` installs), socat's,
# Python's packaging policy, base-passwd's users and groups.
DEBIAN_HTML = [Path("/usr/share/doc") / name for name in ("libffi8/html", "socat", "python3", "base-passwd")]


def bare(paths: list[Path]) -> int:
    size = 0
    for path in paths:
        _title, markdown = html_to_markdown(path.read_bytes(), base_url=path.name)
        size += len(markdown)
    return size


def _serialised(rendition, name: str) -> None:
    rendition.text.encode("utf-8")
    json.dumps(rendition.locator_map(original=name, rendition=f"{name}.md"), separators=(",", ":"))


def html_files(paths: list[Path]) -> int:
    size = 0
    for path in paths:
        rendition = convert_document(path, path.name, "html", limits=Limits())
        _serialised(rendition, path.name)
        size += len(rendition.text)
    return size


def bind(paths: list[Path], target: Path) -> Path:
    """One EPUB whose chapters are ``paths``, in order."""
    ids = [f"c{n}" for n in range(len(paths))]
    manifest = (
        "".join(f'<item id="{i}" href="{i}.xhtml" media-type="application/xhtml+xml"/>' for i in ids)
        + '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>'
    )
    spine = "".join(f'<itemref idref="{i}"/>' for i in ids)
    links = "".join(
        f'<li><a href="{i}.xhtml">{p.parent.name}/{p.name}</a></li>' for i, p in zip(ids, paths, strict=True)
    )
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        book.writestr(
            "META-INF/container.xml",
            '<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
            '<rootfile full-path="content.opf"/></rootfiles></container>',
        )
        book.writestr(
            "content.opf",
            '<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata/>'
            f"<manifest>{manifest}</manifest><spine>{spine}</spine></package>",
        )
        book.writestr(
            "nav.xhtml",
            '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><body>'
            f'<nav epub:type="toc"><ol>{links}</ol></nav></body></html>',
        )
        for i, path in zip(ids, paths, strict=True):
            book.writestr(f"{i}.xhtml", path.read_bytes())
    return target


def epub(paths: list[Path], book: Path) -> int:
    rendition = convert_document(book, book.name, "epub", limits=Limits(max_ratio=10_000))
    _serialised(rendition, book.name)
    return len(rendition.text)


def best(work, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("html", nargs="*")
    args = parser.parse_args()
    paths = [Path(p) for p in args.html] or sorted(
        p
        for folder in DEBIAN_HTML
        for p in folder.rglob("*.htm*")
        if p.suffix in (".html", ".htm") and p.is_file()
    )
    readable, refused = [], []
    for path in paths:
        try:
            html_to_markdown(path.read_bytes(), base_url=path.name)
            readable.append(path)
        except RecursionError:  # nested deeper than markdownify recurses: refused with a message on ingest
            refused.append(path)
    paths = readable
    megabytes = sum(p.stat().st_size for p in paths) / 1e6
    with tempfile.TemporaryDirectory() as tmp:
        book = bind(paths, Path(tmp) / "debian-docs.epub")
        bare_seconds = best(lambda: bare(paths), args.rounds)
        files_seconds = best(lambda: html_files(paths), args.rounds)
        epub_seconds = best(lambda: epub(paths, book), args.rounds)
    print(
        f"{len(paths)} HTML files, {megabytes:.1f} MB ({len(refused)} left out, nested too deep: "
        f"{', '.join(p.name for p in refused) or 'none'})"
    )
    print(f"bare HTML -> Markdown (web ingest): {bare_seconds:.2f} s")
    print(
        f"HTML files as renditions + map:     {files_seconds:.2f} s, ratio {bare_seconds / files_seconds:.2f}x"
    )
    print(
        f"one EPUB of them, rendition + map:  {epub_seconds:.2f} s, ratio {bare_seconds / epub_seconds:.2f}x"
    )


if __name__ == "__main__":
    main()
