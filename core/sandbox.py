"""The research session's sandbox folder: layout, manifest, agent instructions
and the one resolver for user-supplied paths.

Pure Python: no Django imports, so the resolver can be property-tested and
used by the engines' CLI processes.

Every path a person or an engine hands us (viewer URLs, citation paths,
archive member names, git tree entries) goes through ``resolve_in_sandbox``.
Django's ``safe_join`` is not enough: it does not resolve symlinks.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import stat
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import unquote

# Where the app's private state lived inside the sandbox before it moved out
# (``state_dir``). Still refused by every viewer and citation check, and moved
# out by ``move_legacy_state``.
PRIVATE_DIR = ".researchmind"
STATE_SUFFIX = ".state"
MANIFEST_NAME = "_content_manifest.json"
INSTRUCTIONS_NAME = "CLAUDE.md"
MAX_PATH_LENGTH = 1024
MAX_COMPONENT_LENGTH = 255
# Characters: at most 4 bytes each in UTF-8. Not mutated: speed only: a smaller bound encodes more names
_SURELY_SHORT = MAX_COMPONENT_LENGTH // 4  # pragma: no mutate
_CONTROL_RE = re.compile("[\x00-\x1f]")  # one C-speed scan, not a Python test per character


class SandboxError(ValueError):
    """A path was refused: it would leave the sandbox or is not a valid name."""


def check_name(name: str) -> None:
    """Raise ``SandboxError`` unless ``name`` is a path the resolver accepts:
    the one rule every stored name (uploads, archives, repositories) must pass,
    so whatever is stored is reachable by the viewer, downloads and citations."""
    _check_relative(name)


def _check_relative(user_path: str) -> list[str]:
    """Return the path's components, refusing anything that is not a plain
    relative path made of ordinary names."""
    if not isinstance(user_path, str):
        raise SandboxError("The path must be text.")
    if len(user_path) > MAX_PATH_LENGTH:
        raise SandboxError("The path is too long.")
    if "\x00" in user_path:
        raise SandboxError("The path contains a NUL byte.")
    if "\\" in user_path:
        raise SandboxError("The path contains a backslash.")
    # A percent-encoded path is decoded once by the URL layer. What is left is
    # part of a name ("100%2F.txt" is a file a repository may hold); refused
    # only when decoding again would climb out, be absolute or hold a NUL, in
    # case some reader ever does decode twice.
    decoded = unquote(user_path)
    if decoded != user_path and (
        decoded.startswith(("/", "\\")) or "\x00" in decoded or ".." in decoded.replace("\\", "/").split("/")
    ):
        raise SandboxError("The path contains encoded separators.")
    # Unicode look-alikes (fullwidth dots and solidus, one-dot leaders …) fold
    # into "." and "/" under NFKC; refuse rather than guess what was meant.
    folded = unicodedata.normalize("NFKC", user_path)
    if folded != user_path and (folded.count("/") != user_path.count("/") or ".." in folded.split("/")):
        raise SandboxError("The path contains characters that look like separators.")
    if user_path.startswith("/") or (len(user_path) > 1 and user_path[1] == ":"):
        raise SandboxError("The path must be relative to the sandbox.")
    parts = [part for part in user_path.split("/") if part not in ("", ".")]
    if not parts:
        raise SandboxError("The path is empty.")
    # Looked for in each component only when the path holds one at all.
    controls = _CONTROL_RE.search(user_path) is not None
    for part in parts:
        if part == "..":
            raise SandboxError("The path leaves its folder ('..').")
        # A character is at most 4 bytes: a short component is short enough without encoding it.
        maybe_long = len(part) > _SURELY_SHORT  # pragma: no mutate: at the bound, short either way
        if maybe_long and len(part.encode("utf-8", "surrogatepass")) > MAX_COMPONENT_LENGTH:
            raise SandboxError("A path component is too long.")
        if controls and _CONTROL_RE.search(part):
            raise SandboxError("The path contains control characters.")
    return parts


def resolve_in_sandbox(root: str | os.PathLike[str], user_path: str) -> Path:
    """Turn ``user_path`` (relative to the sandbox ``root``) into a real path
    inside the sandbox, or raise ``SandboxError``.

    The returned path is fully resolved (symlinks followed) and is ``root``
    itself or below it. It may not exist; callers check existence.
    """
    parts = _check_relative(user_path)
    real_root = os.path.realpath(root)
    return _inside(real_root, os.path.realpath(os.path.join(real_root, *parts)))


class SandboxResolver:
    """``resolve_in_sandbox`` for many paths of one sandbox at once (a
    verification's cited files): the root's real path and each folder's
    are worked out once, not per path, each from its parent's with one
    ``lstat`` of its own name (a symlink there is resolved in full).
    The same answers and the same refusals, for paths resolved together."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self._root = root
        self._real_root: str | None = None  # on first need, after the first path is checked
        self._folders: dict[tuple[str, ...], str] = {}

    def resolve(self, user_path: str) -> Path:
        return Path(self.real_path(user_path))

    def real_path(self, user_path: str) -> str:
        """``resolve``'s answer as a string: a ``Path`` costs more to make and
        to read back as text than checking the path does."""
        parts = _check_relative(user_path)
        if self._real_root is None:
            self._real_root = os.path.realpath(self._root)
        return _inside_path(self._real_root, self._real(tuple(parts)))

    def real_file(self, user_path: str) -> tuple[str, bool]:
        """``real_path``'s answer, and whether it is a regular file (as
        ``os.path.isfile`` says), from the one ``lstat`` that tells whether
        its last component is a symlink: a verification asks both of every
        cited path, and each look-up walks the whole path again."""
        parts = _check_relative(user_path)
        if self._real_root is None:
            self._real_root = os.path.realpath(self._root)
        folder = tuple(parts[:-1])
        real_folder = self._folders.get(folder)
        if real_folder is None:
            real_folder = self._folders[folder] = self._real(folder)
        candidate = os.path.join(real_folder, parts[-1])
        try:
            mode = os.lstat(candidate).st_mode
        except (OSError, ValueError):
            mode = 0  # nothing there (or unreadable): neither a link nor a file, as islink and isfile say
        if stat.S_ISLNK(mode):
            real = os.path.realpath(candidate)
            return _inside_path(self._real_root, real), os.path.isfile(real)
        return _inside_path(self._real_root, candidate), stat.S_ISREG(mode)

    def _real(self, parts: tuple[str, ...]) -> str:
        """``realpath`` of the root joined with ``parts``, a component at a
        time as ``realpath`` walks them, each folder's answer kept."""
        if not parts:
            return self._real_root  # type: ignore[return-value]
        folder = parts[:-1]
        real_folder = self._folders.get(folder)
        if real_folder is None:
            real_folder = self._folders[folder] = self._real(folder)
        candidate = os.path.join(real_folder, parts[-1])
        return os.path.realpath(candidate) if os.path.islink(candidate) else candidate


def _inside(real_root: str, candidate: str) -> Path:
    return Path(_inside_path(real_root, candidate))


def _inside_path(real_root: str, candidate: str) -> str:
    """``candidate``, or ``SandboxError`` unless it is ``real_root`` or below it."""
    # Most paths are plainly below the root: a prefix test settles them, as
    # ``commonpath`` would when the root is in its canonical form (as
    # ``realpath`` gives it); anything else is left to ``commonpath``.
    if candidate.startswith(real_root + os.sep) and _canonical(real_root):
        return candidate
    try:
        inside = os.path.commonpath([real_root, candidate]) == real_root
    except ValueError:
        inside = False  # pragma: no mutate: commonpath raises only across drives (Windows)
    if not inside:
        raise SandboxError("The path leads outside the sandbox.")
    return candidate


@functools.lru_cache(maxsize=64)  # pragma: no mutate: speed only: roots kept, the same answers
def _canonical(real_root: str) -> bool:
    """Whether ``commonpath`` gives ``real_root`` back unchanged (no "//",
    "." or trailing separator): then a path starting with it and a separator
    has it as their common path."""
    return os.path.commonpath([real_root]) == real_root


def is_private(relative: str) -> bool:
    """Files under the sandbox's private folder are never shown or cited."""
    first = relative.split("/", 1)[0]  # pragma: no mutate: the same first part
    return first == PRIVATE_DIR


def ensure_layout(root: str | os.PathLike[str]) -> Path:
    """Create the sandbox folder. It holds the content, ``CLAUDE.md`` and the
    manifest, nothing else: an engine reads and searches all of it."""
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


def default_state_dir(root: str | os.PathLike[str]) -> Path:
    """The private state folder of a sandbox when none is configured:
    ``<parent>/.state/<sandbox name>``, beside the sandbox, never in it.
    The app configures ``STATE_ROOT/<session id>`` instead (``ResearchSession.state_path``)."""
    path = Path(os.path.abspath(root))
    return path.parent / STATE_SUFFIX / path.name


def move_legacy_state(root: str | os.PathLike[str], state: str | os.PathLike[str]) -> bool:
    """Move what an older version kept in ``<sandbox>/.researchmind/`` (index,
    run logs, staging) into ``state``; True if there was anything to move.
    Entries already present in ``state`` win; the legacy folder is removed."""
    legacy = Path(root) / PRIVATE_DIR
    if legacy.is_symlink() or not legacy.is_dir():
        return False
    target = Path(state)
    target.mkdir(parents=True, exist_ok=True)
    for entry in legacy.iterdir():
        destination = target / entry.name
        if destination.exists() and entry.is_dir() and not entry.is_symlink():
            for child in entry.iterdir():
                if not (destination / child.name).exists():
                    shutil.move(str(child), str(destination / child.name))
        elif not destination.exists():
            shutil.move(str(entry), str(destination))
    shutil.rmtree(legacy, ignore_errors=True)  # pragma: no mutate: removal cannot fail for root
    return True


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")  # pragma: no mutate: UTF-8 in every case here
    os.replace(tmp, path)


def write_manifest(root: str | os.PathLike[str], items: Mapping[str, Mapping[str, object]]) -> Path:
    """Write ``_content_manifest.json``: ``{content_id: {title, source_url,
    kind, added_at}}`` for every ready content item."""
    path = ensure_layout(root) / MANIFEST_NAME
    _atomic_write(path, json.dumps(dict(items), indent=2, sort_keys=True, default=str) + "\n")
    return path


def read_manifest(root: str | os.PathLike[str]) -> dict[str, dict[str, object]]:
    """Read the manifest; a missing or broken manifest reads as empty."""
    try:
        # Not mutated: 'UTF-8' is 'utf-8', and None is UTF-8 here (the manifest is ASCII)
        data = json.loads((Path(root) / MANIFEST_NAME).read_text(encoding="utf-8"))  # pragma: no mutate
    except (OSError, ValueError):
        return {}
    return {str(k): dict(v) for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


INSTRUCTIONS = """\
# Research sandbox: how to answer

You are answering questions about the content in this folder (your working
directory). Each content item lives in its own folder named by its id;
`_content_manifest.json` maps each id to its title and original source URL.

## Contents

{contents}

## Rules
- Answer only from the files here. Search them (Grep, Glob) and read them
  (Read); do not guess and do not use what you remember.
- Start with the direct answer in one or two sentences, then the details.
- Cite every claim inline with `[c1]`, `[c2]` … (several as `[c1][c2]`).
- Name files by their path inside this folder, `<content_id>/<path>`, with
  line ranges, e.g. `{example_id}/notes.md` lines 45-52.
- End the answer with one citations block: an HTML comment holding a JSON
  list, one object per citation, exactly in this form:

```
<!-- CITATIONS: [
  {{"id": "c1", "source_file": "{example_id}/notes.md", "source_type": "file",
   "location": {{"line_start": 45, "line_end": 52, "section": null, "page": null}},
   "excerpt": "the exact text of those lines you relied on (200 characters at most)",
   "relevance": "direct", "confidence": 0.9}}
] -->
```

  `source_file` is the path inside this folder; `line_start`/`line_end` are the
  line numbers Read showed; `excerpt` is copied verbatim from those lines.
  `source_type` is one of file, url, memory, inference; `relevance` one of
  direct, supporting, contextual; `confidence` from 0 to 1.
- Report progress at each phase change with a marker on its own line, e.g.:

```
<!-- PROGRESS: {{"phase": "searching", "step": 2, "total": 5, "detail": "Searching for JWT"}} -->
```

  Phases: planning, searching, analyzing, synthesizing, capturing.
- A document (PDF, Word, OpenDocument, PowerPoint, Excel, notebook, EPUB, HTML
  file) is here as its text, its own name plus `.md`:
  `report.pdf.md` is the text of `report.pdf`. Lines such as `## Page 7`,
  `## Slide 3`, `## Sheet: Budget` or an EPUB's `## <chapter title>` mark
  where each page, slide, sheet or chapter begins. Cite a document's lines like any file's (the app
  shows the reader the page), and name the page in the answer when it helps
  ("report.pdf, p. 7"). A page that starts with "_(OCR text: …)_" was a
  scanned image read by OCR: its words may be misread, so say so when an
  answer rests on them.
- If the content does not answer the question, say so plainly
  ("⚠️ No Definitive Answer Found", Confidence: NONE) and suggest next steps.
"""


def instructions_text(items: Mapping[str, Mapping[str, object]]) -> str:
    """The research instructions for the content ``items`` (the manifest):
    what ``CLAUDE.md`` holds and what the CLI engines append to the system
    prompt. Every syntax the model must reproduce sits in fenced code (Claude
    Code strips HTML comments from CLAUDE.md outside code)."""
    lines = [
        f"- `{cid}/` — {meta.get('title') or 'Untitled'} ({meta.get('kind', 'content')})"
        + (f", from {meta['source_url']}" if meta.get("source_url") else "")
        for cid, meta in items.items()
    ]
    return INSTRUCTIONS.format(
        contents="\n".join(lines) or "(no content yet)",
        example_id=next(iter(items), "3f2a9c1e-0000-0000-0000-000000000000"),
    )


def write_instructions(root: str | os.PathLike[str], items: Mapping[str, Mapping[str, object]]) -> Path:
    """Write ``CLAUDE.md`` listing the content items."""
    path = ensure_layout(root) / INSTRUCTIONS_NAME
    _atomic_write(path, instructions_text(items))
    return path
