"""Protocol-conformant results from the built-in engine (docs/FORMATS.md, Structured Agent Result Protocol).

When the prompt is one of the protocol's prompt templates (as
``core.protocols.build_prompt`` writes them) the engine answers in
the Structured Agent Result Protocol instead of a research report: the
RESULT line with its type's metrics, the metadata block, then the detail
section. Retrieval is limited to the scope folders the prompt names.

Honesty rules: a checklist item passes only with a verbatim excerpt that
holds its words and numbers; a contradiction is reported only with both
excerpts; everything quoted is cited ``[cN]`` with a CITATIONS block.

Pure Python: no Django imports.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from core import sandbox
from core.citations.markers import citation_id, marker
from core.protocols import FANOUT_RESULT_TYPES

from .answer import overall_confidence
from .claims import Claim, select_claims
from .consistency import contradictions
from .query import question_terms
from .scoped import scoped_chunks, scoped_files, scoped_hits, sentences

TEMPLATE_MARK = "Format your response using the Structured Agent Result Protocol."
SUPPORTED = tuple(FANOUT_RESULT_TYPES)
AGENT = "researchmind-builtin"
PASS_COVERAGE = 0.6
_TYPE = re.compile(r"^Line 1 \(required\): RESULT: .*?\| Type: ([a-z-]+)\b", re.MULTILINE)
_CHECK_ITEM = re.compile(r"^\s*\d+\.\s+(.+?)\s*$")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_FOLDER = re.compile(r"([^\s,;()]+)/(?=[\s,;)]|$)")


@dataclass(frozen=True, slots=True)
class ProtocolTask:
    result_type: str
    question: str
    scope: str
    folders: tuple[str, ...]
    checklist: tuple[str, ...] = ()


def parse_task(prompt: str) -> ProtocolTask | None:
    """The task a protocol template prompt sets, or None for any other prompt."""
    at = prompt.find(TEMPLATE_MARK)
    kind = _TYPE.search(prompt, at) if at >= 0 else None
    if kind is None or kind.group(1) not in SUPPORTED:
        return None
    lines = prompt[:at].splitlines()
    scope_at = max((i for i, line in enumerate(lines) if line.startswith("Scope: ")), default=None)
    if scope_at is None:
        return None
    scope = lines[scope_at].removeprefix("Scope: ").strip()
    folders = tuple(
        dict.fromkeys(f for f in _FOLDER.findall(scope) if ".." not in f and not f.startswith("."))
    )
    checklist: list[str] = []
    if "Checklist:" in lines[scope_at:]:
        for line in lines[lines.index("Checklist:", scope_at) + 1 :]:
            item = _CHECK_ITEM.match(line)
            if not item:
                break
            checklist.append(item.group(1))
    question = " ".join(" ".join(lines[:scope_at]).split())
    return ProtocolTask(kind.group(1), question, scope, folders, tuple(checklist))


@dataclass(slots=True)
class ProtocolAnswer:
    """The result text (without citations) and the claims it cites, in [cN] order."""

    text: str
    cited: list[Claim] = field(default_factory=list)
    status: str = "CLEAN"

    def cite(self, claim: Claim) -> str:
        for n, known in enumerate(self.cited, start=1):
            if (known.path, known.line_start, known.excerpt) == (claim.path, claim.line_start, claim.excerpt):
                return marker(citation_id(n))
        self.cited.append(claim)
        return marker(citation_id(len(self.cited)))


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _quote(claim: Claim) -> str:
    return "“" + _cell(claim.sentence).replace("<", "&lt;") + "”"


def _where(claim: Claim) -> str:
    lines = f"{claim.line_start}" + (f"-{claim.line_end}" if claim.line_end != claim.line_start else "")
    return f"{claim.path}:{lines}"


def _metadata(task: ProtocolTask, files: list[str], confidence: str, coverage: str = "100%") -> list[str]:
    return [
        "",
        "Protocol: v1",
        f"Agent: {AGENT}",
        f"Assigned: {_cell(task.question)[:200]}",
        f"Scope: {_cell(task.scope)}",
        f"Coverage: {coverage} ({len(files)} file{'s' * (len(files) != 1)} in scope)",
        f"Confidence: {confidence}",
        "",
    ]


def _scope_metric(task: ProtocolTask) -> str:
    if task.result_type == "digest":
        return f"Doc: {_cell(task.scope)}"
    if task.result_type == "consistency":
        pair = task.folders if len(task.folders) == 2 else (task.scope, "?")
        return f"Pair: {pair[0]}/{pair[1]}"
    return f"Items: {len(task.checklist)}"


def incomplete(task: ProtocolTask, status: str, reason: str) -> ProtocolAnswer:
    """A PARTIAL or ERROR result: what was asked and why it could not be done."""
    metric = _scope_metric(task)
    head = f"RESULT: {status} | Type: {task.result_type} | {metric} | Coverage: 0% | Reason: {_cell(reason)}"
    return ProtocolAnswer("\n".join([head, *_metadata(task, [], "low", "0%"), reason]) + "\n", status=status)


def _sandbox_folder(root: Path, folder: str) -> bool:
    """Whether ``folder`` is a folder inside the sandbox ``root`` (by the one resolver)."""
    try:
        return sandbox.resolve_in_sandbox(root, folder).is_dir()
    except sandbox.SandboxError:
        return False


def compose(root: Path, task: ProtocolTask, *, state: str | os.PathLike[str] | None = None) -> ProtocolAnswer:
    """The protocol result of ``task`` from the sandbox ``root``, read through
    the index in the state folder ``state``."""
    # Resolved only inside the sandbox: an absolute, ``..`` or linked-out
    # folder is missing like one that does not exist, whatever is on the server.
    missing = [f for f in task.folders if not _sandbox_folder(root, f)]
    if not task.folders or missing:
        names = ", ".join(f"{f}/" for f in missing) or task.scope
        return incomplete(task, "ERROR", f"The scope folder {names} is not in the sandbox.")
    files = scoped_files(root, list(task.folders), state=state)
    if not files:
        return incomplete(task, "PARTIAL", "The scope holds no readable text files.")
    if task.result_type == "verification" and not task.checklist:
        return incomplete(task, "ERROR", "The verification prompt has no checklist.")
    if task.result_type == "consistency" and len(task.folders) != 2:
        return incomplete(task, "ERROR", "A consistency check needs exactly two scope folders.")
    return {"digest": _digest, "verification": _verification, "consistency": _consistency}[task.result_type](
        root, task, files, state
    )


def _digest(
    root: Path, task: ProtocolTask, files: list[str], state: str | os.PathLike[str] | None
) -> ProtocolAnswer:
    folders = list(task.folders)
    terms = question_terms(task.question)
    claims = select_claims(terms, scoped_hits(root, task.question, folders, state=state))
    chunks = scoped_chunks(root, folders, state=state)
    sections = list(dict.fromkeys((c.path, c.heading) for c in chunks if c.heading))
    found = sorted({t for c in claims for t in c.terms})
    refs = sorted({m for c in chunks for m in re.findall(r"https?://[^\s)>\]]+", c.text)})
    answer = ProtocolAnswer("")
    summary = [f"- {_quote(c)} {answer.cite(c)}" for c in claims]
    confidence = overall_confidence(claims).lower() if claims else "low"
    head = (
        f"RESULT: CLEAN | Type: digest | Doc: {_cell(task.scope)} | Sections: {len(sections)} "
        f"| Entities: {len(found)} | Cross-refs: {len(refs)}"
    )
    body = [head, *_metadata(task, files, confidence), "## Summary", ""]
    body += summary or [f"No passage in this scope mentions {', '.join(terms) or 'the question'}."]
    body += ["", "## Section inventory", ""]
    body += [f"- {_cell(heading)} — {path}" for path, heading in sections] or [
        f"- (no headings) — {', '.join(files)}"
    ]
    body += ["", "## Key terms", "", ", ".join(found) or "(none of the question's terms)"]
    body += ["", "## Cross-references", ""] + ([f"- {ref}" for ref in refs] or ["None."])
    answer.text = "\n".join(body) + "\n"
    return answer


def _evidence(
    root: Path, folders: list[str], item: str, state: str | os.PathLike[str] | None
) -> tuple[Claim | None, Claim | None]:
    """(a passage that verifies ``item``, else the closest one that does not)."""
    claims = select_claims(question_terms(item), scoped_hits(root, item, folders, state=state))
    numbers = set(_NUMBER.findall(item))
    for claim in claims:
        if claim.coverage >= PASS_COVERAGE and numbers <= set(_NUMBER.findall(claim.excerpt)):
            return claim, None
    close = next((c for c in claims if c.coverage >= PASS_COVERAGE / 1.2), None)
    return None, close


def _verification(
    root: Path, task: ProtocolTask, files: list[str], state: str | os.PathLike[str] | None
) -> ProtocolAnswer:
    answer = ProtocolAnswer("")
    rows, findings, details = [], [], []
    for number, item in enumerate(task.checklist, start=1):
        passed, close = _evidence(root, list(task.folders), item, state)
        if passed is not None:
            rows.append(
                f"| {number}. {_cell(item)} | applied | PASS: {_quote(passed)} {answer.cite(passed)} |"
            )
            continue
        fid = f"F{len(findings) + 1}"
        if close is not None:
            note = f"FAIL: the closest passage says {_quote(close)} {answer.cite(close)}"
            findings.append(
                f"| {fid} | major | contradiction | {_where(close)} | checklist item {number} "
                f"| The content does not confirm: {_cell(item)} | Check the item against the cited passage. |"
            )
            details.append(
                f"### {fid}\n\nChecklist item {number}: {_cell(item)}\n\n{note.removeprefix('FAIL: ')}"
            )
        else:
            note = "FAIL: not found in the scope"
            findings.append(
                f"| {fid} | major | missing-coverage | {_cell(task.scope)} | -- "
                f"| Not found: {_cell(item)} | Add content that covers it, or drop the item. |"
            )
        rows.append(f"| {number}. {_cell(item)} | missing | {note} |")
    missing = len(findings)
    answer.status = "FINDINGS" if missing else "CLEAN"
    head = (
        f"RESULT: {answer.status} | Type: verification | Items: {len(task.checklist)} "
        f"| Applied: {len(task.checklist) - missing} | Partial: 0 | Missing: {missing}"
    )
    body = [head, *_metadata(task, files, "medium" if missing else "high"), "## Checklist", ""]
    body += ["| Item | Status | Notes |", "|---|---|---|", *rows]
    if findings:
        body += [
            "",
            "## Findings",
            "",
            "| ID | Severity | Type | Location | Counter-location | Description | Suggestion |",
        ]
        body += ["|---|---|---|---|---|---|---|", *findings]
        body += ["", *details] if details else []
    answer.text = "\n".join(body) + "\n"
    return answer


def _consistency(
    root: Path, task: ProtocolTask, files: list[str], state: str | os.PathLike[str] | None
) -> ProtocolAnswer:
    left_folder, right_folder = task.folders
    left = [s for hit in scoped_chunks(root, [left_folder], state=state) for s in sentences(hit)]
    right = [s for hit in scoped_chunks(root, [right_folder], state=state) for s in sentences(hit)]
    found = contradictions(left, right)
    answer = ProtocolAnswer("", status="FINDINGS" if found else "CLEAN")
    rows, details = [], []
    for n, c in enumerate(found, start=1):
        a, b = c.left.claim, c.right.claim
        rows.append(
            f"| F{n} | major | contradiction | {_where(a)} | {_where(b)} "
            f"| The two items give different {c.unit} values for the same statement. "
            f"| Decide which is right and correct the other. |"
        )
        details.append(
            f"### F{n}\n\n{left_folder}/ says {_quote(a)} {answer.cite(a)}\n\n"
            f"{right_folder}/ says {_quote(b)} {answer.cite(b)}"
        )
    head = (
        f"RESULT: {answer.status} | Type: consistency | Pair: {left_folder}/{right_folder} "
        f"| Findings: {len(found)} | Critical: 0 | Major: {len(found)} | Minor: 0"
    )
    body = [head, *_metadata(task, files, "medium")]
    if rows:
        body += ["| ID | Severity | Type | Location | Counter-location | Description | Suggestion |"]
        body += ["|---|---|---|---|---|---|---|", *rows, "", *details]
    else:
        n_left = sum(1 for s in left if _NUMBER.search(s.sentence))
        n_right = sum(1 for s in right if _NUMBER.search(s.sentence))
        body += [f"No contradictions found: compared {n_left} and {n_right} statements with quantities."]
    answer.text = "\n".join(body) + "\n"
    return answer
