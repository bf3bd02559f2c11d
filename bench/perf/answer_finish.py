"""The whole finish of an answer with many citations, on real text, against ripgrep.

Issue #37: parse, verify, judge, store and render an answer carrying 1,000
``[cN]`` citations over ≥ 50 MB of real files (``bench.perf.text_corpus``), as
``manage.py replay T.jsonl --sandbox DIR`` runs it, then the stored answer's
page, in at most the CPU of one ``rg -F -n -f PATTERNS FILES`` over the cited
files (the yardstick of ``bench.perf.verify_real``).

The transcript is what Claude Code prints without partial messages (system
init, the assistant's message, the result line); its answer has a sentence
per citation, made of the words of the line it quotes, and a CITATIONS block
(SPEC §6) quoting two real lines per citation in the mix of
``bench.perf.verify_real.make_citations``. The sandbox folder has a manifest,
so the citations link to content items as a real session's do.

The figure judged is the finish as a live run has it: the in-process replay
without its copy of the sandbox (a live run's sandbox is already there), plus
the page. Timed in interleaved rounds, median CPU (this process's and its
children's):

- one ``rg -F -n -f`` over the cited files (the yardstick);
- ``replay`` in-process (``call_command``) and the question page (Django's
  test client, logged in as the owner), with the breakdown below;
- ``manage.py replay`` as a child process, and ``manage.py replay --help`` (the
  interpreter's and Django's start-up, which the in-process figure leaves out).

Breakdown of the in-process replay: parse (citations and claim sentences),
verify (``verify_citations``, owned by core/citations/verification/), quote
(the verified lines read whole), judge (the lexical support judge), html (the
answer rendered into its stored HTML), store (the rest of saving the outcome
and the rows), copy (the sandbox copied into the new session), run (the
stream, its events, the summary: the rest). A first replay and page, untimed,
warm the page cache, the URL resolver, the templates and lazy imports.

Each round's outcome is printed as digests (``fingerprint``) of the stored
citation rows, the stored HTML and the page's answer card, with what differs
from run to run made neutral: a change that should not change what is stored
or shown must print the same line as the code before it.

Run: ``make bench-ripgrep && .venv/bin/python -m bench.perf.answer_finish [--mb 55] [--citations 1000] [--rounds 3]
[--in-process]`` (``--in-process``: without the two child processes, which take most of the bench's time).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parents[2]
TMP = Path(tempfile.mkdtemp(prefix="rm-bench-finish-"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchmind.settings")
os.environ["DATA_DIR"] = str(TMP / "data")
os.environ["ALLOWED_HOSTS"] = "testserver,127.0.0.1,localhost"
os.environ.pop("DATABASE_URL", None)
os.environ.pop("REDIS_URL", None)

django.setup()
from django.contrib.auth import get_user_model  # noqa: E402 (after django.setup())
from django.core.management import call_command  # noqa: E402 (after django.setup())
from django.test import Client  # noqa: E402 (after django.setup())

from bench.perf import text_corpus  # noqa: E402
from bench.perf.verify_real import cpu_with_children, make_citations, ripgrep_once  # noqa: E402
from citations import services as citation_services  # noqa: E402 (after django.setup())
from core import sandbox as sandbox_mod  # noqa: E402
from core.citations.parsing import ParsedCitation  # noqa: E402
from researchmind import services  # noqa: E402 (after django.setup())
from researchmind.models import Question, ResearchSession  # noqa: E402 (after django.setup())
from researchmind.runs import run as run_mod  # noqa: E402 (after django.setup())

WORD = re.compile(r"[^\W_]{2,}")


def claim_for(citation: ParsedCitation) -> str:
    """A sentence made of the words of the line a citation quotes, so the judge has work to do."""
    words = WORD.findall((citation.excerpt or "").split("\n", 1)[0])[:12] or ["nothing", "quoted"]
    return f"{' '.join(words).capitalize()} [{citation.cid}]."


def answer_text(citations: list[ParsedCitation]) -> str:
    """Paragraphs of five cited sentences, then the CITATIONS block."""
    sentences = [claim_for(c) for c in citations]
    paragraphs = [" ".join(sentences[i : i + 5]) for i in range(0, len(sentences), 5)]
    block = [
        {
            "id": c.cid,
            "source_file": c.source_path,
            "source_type": "file",
            "location": {"line_start": c.line_start, "line_end": c.line_end},
            "excerpt": c.excerpt,
            "relevance": "direct",
            "confidence": 0.9,
        }
        for c in citations
    ]
    return "\n\n".join(paragraphs) + "\n\n<!-- CITATIONS: " + json.dumps(block, ensure_ascii=False) + " -->"


def write_transcript(path: Path, answer: str) -> None:
    """What ``claude -p --output-format stream-json`` prints for a one-turn answer."""
    session = "bench-finish"
    lines = [
        {"type": "system", "subtype": "init", "cwd": "/sandbox", "session_id": session, "tools": ["Read"]},
        {
            "type": "assistant",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": answer}],
            },
            "session_id": session,
        },
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "num_turns": 1,
            "duration_ms": 1000,
            "total_cost_usd": 0.1,
            "result": answer,
            "session_id": session,
        },
    ]
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")


class Stages:
    """CPU seconds spent in named functions, each wrapped where it is called from."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = defaultdict(float)
        self.running: set[str] = set()

    def wrap(self, owner, name: str, stage: str) -> None:
        original = getattr(owner, name)

        def timed(*args, **kwargs):
            if stage in self.running:  # a recursive call (copytree) is timed by the outer one
                return original(*args, **kwargs)
            self.running.add(stage)
            started = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                self.cpu[stage] += time.process_time() - started
                self.running.discard(stage)

        setattr(owner, name, timed)

    def take(self) -> dict[str, float]:
        taken, self.cpu = dict(self.cpu), defaultdict(float)
        return taken


# Per request or per run, not the outcome: the form's CSRF token (masked anew each time).
_CSRF_RE = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')
_FEEDBACK_RE = re.compile(r"/citations/(\d+)/feedback/")


def fingerprint(question: Question, page_html: str) -> str:
    """Digests of what the finish produced, the same from run to run of the same code: the
    stored citation rows, the stored HTML and the page's answer card, with what differs
    per run (the session's id, the question's and rows' keys, the time, CSRF tokens) made
    neutral. Before and after a change they must not differ."""
    rows = list(
        question.citations.order_by("position").values_list(
            *(
                f.attname
                for f in question.citations.model._meta.concrete_fields
                if f.attname not in ("id", "question_id", "verified_at")
            )
        )
    )
    first = question.citations.order_by("pk").values_list("pk", flat=True).first() or 0

    def neutral(text: str) -> str:
        text = text.replace(str(question.session_id), "SESSION").replace(f"cite={question.pk}-", "cite=Q-")
        text = text.replace(f"/questions/{question.pk}/", "/questions/Q/")
        text = _FEEDBACK_RE.sub(lambda m: f"/citations/+{int(m[1]) - first}/feedback/", text)
        return _CSRF_RE.sub('name="csrfmiddlewaretoken"', text)

    card = page_html.split('<section class="card answer-card"', 1)[-1].split(
        '<section class="card progress-card"', 1
    )[0]
    digest = [
        hashlib.sha256(repr(rows).encode()).hexdigest()[:12],
        hashlib.sha256(neutral(question.html_cache or "").encode()).hexdigest()[:12],
        hashlib.sha256(neutral(card).encode()).hexdigest()[:12],
    ]
    return "rows {} · stored HTML {} · page's answer card {}".format(*digest)


def manage(*args: str) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        check=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mb", type=float, default=55)
    parser.add_argument("--citations", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="profile one replay and page, then stop")
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="leave out the child processes (manage.py replay and --help): the finish's figure is the same",
    )
    args = parser.parse_args()
    if not shutil.which("rg"):
        raise SystemExit("ripgrep is missing: make bench-ripgrep")
    try:
        run(args)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


def run(args) -> None:
    call_command("migrate", verbosity=0)
    source = TMP / "sandbox"
    source.mkdir()
    files = text_corpus.build(source, args.mb)
    sandbox_mod.write_manifest(
        source, {folder.name: {"title": folder.name[:8], "kind": "file"} for folder in source.iterdir()}
    )
    size = sum((source / rel).stat().st_size for rel in files)
    citations = make_citations(source, files, args.citations)
    cited = {c.source_path for c in citations}
    cited_mb = sum((source / rel).stat().st_size for rel in cited) / 1e6
    transcript = TMP / "answer.jsonl"
    answer = answer_text(citations)
    write_transcript(transcript, answer)
    print(
        f"corpus: {len(files)} files, {size / 1e6:.1f} MB; {len(citations)} citations over {len(cited)} files"
    )
    print(f"({cited_mb:.1f} MB cited); answer {len(answer.encode()) / 1e6:.2f} MB with its CITATIONS block")

    stages = Stages()
    stages.wrap(citation_services, "parse_citations", "parse")
    stages.wrap(citation_services, "claim_sentences", "parse")
    stages.wrap(citation_services, "verify_citations", "verify")
    stages.wrap(citation_services, "whole_quotes", "quote")
    stages.wrap(citation_services, "judge_citation", "judge")
    stages.wrap(citation_services, "store_answer_html", "html")
    stages.wrap(run_mod, "finish_question", "finish")
    stages.wrap(shutil, "copytree", "copy")  # only replay copies a tree here: its sandbox
    patterns = TMP / "patterns.txt"
    client = Client()
    client.force_login(get_user_model().objects.get_or_create(username="replay")[0])  # replay's own user
    replayed: list[Question] = []
    outcome: list[str] = []
    pages: list[str] = []

    def replay_in_process() -> None:
        call_command("replay", str(transcript), sandbox=str(source), stdout=io.StringIO())
        replayed.append(Question.objects.order_by("-pk").first())

    def describe(question: Question) -> list[str]:
        rows = question.citations.all()
        return [
            f"question {question.status}, {rows.count()} citations stored",
            f"verification: {dict(Counter(rows.values_list('verification', flat=True)))}",
            f"support: {dict(Counter(rows.values_list('support', flat=True)))}",
        ]

    def page() -> None:
        question = replayed[-1]
        response = client.get(f"/sessions/{question.session_id}/questions/{question.pk}/")
        assert response.status_code == 200, response.status_code
        pages.append(response.content.decode())

    def forget_sessions() -> None:
        """A replay adds the manifest's content items under their own ids: the last one goes first."""
        for session in ResearchSession.objects.all():
            services.session_delete(session)

    contenders = {
        "rg -F -n -f, one process": lambda: ripgrep_once(source, citations, patterns),
        "replay, in-process": replay_in_process,
        "question page": page,
        "manage.py replay, child": lambda: manage("replay", str(transcript), "--sandbox", str(source)),
        "manage.py replay --help": lambda: manage("replay", "--help"),
    }
    if args.in_process:
        del contenders["manage.py replay, child"], contenders["manage.py replay --help"]
    ripgrep_once(source, citations, patterns)  # warms the page cache
    forget_sessions()
    replay_in_process()  # and the first request's URL resolver, templates and imports
    page()
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        forget_sessions()
        profiler.runcall(lambda: (replay_in_process(), page()))
        pstats.Stats(profiler).sort_stats("tottime").print_stats(40)
        return
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    parts: list[dict[str, float]] = []
    prints: set[str] = set()
    for _ in range(args.rounds):
        for name, func in contenders.items():
            if name == "manage.py replay, child":
                outcome[:] = describe(replayed[-1])
            if name in ("replay, in-process", "manage.py replay, child"):
                forget_sessions()
            stages.take()
            samples[name].append(cpu_with_children(func))
            if name == "replay, in-process":
                taken = stages.take()
                taken["run"] = samples[name][-1] - taken["finish"] - taken["copy"]
                taken["store"] = taken.pop("finish") - sum(
                    taken[k] for k in ("parse", "verify", "quote", "judge", "html")
                )
                parts.append(taken)
            if name == "question page":
                prints.add(fingerprint(Question.objects.get(pk=replayed[-1].pk), pages[-1]))
    cpu = {name: statistics.median(runs) for name, runs in samples.items()}
    print(*(outcome or describe(replayed[-1])), sep="\n")
    # One line when every round gave the same; compare it with the line of the code before a change.
    print(*(f"digests: {line}" for line in sorted(prints)), sep="\n")
    print(f"\nmedian CPU of {args.rounds} rounds (ms), load {Path('/proc/loadavg').read_text().split()[:3]}")
    for name in contenders:
        print(f"  {name:28s} {cpu[name] * 1000:9.1f}")
    print("breakdown of the in-process replay and the page (median ms):")
    breakdown = {key: statistics.median(p[key] for p in parts) for key in parts[0]}
    breakdown["render (page)"] = cpu["question page"]
    for key in ("parse", "verify", "quote", "judge", "store", "html", "render (page)", "copy", "run"):
        print(f"  {key:28s} {breakdown[key] * 1000:9.1f}")
    yardstick = cpu["rg -F -n -f, one process"]
    # The answer's finish as a live run has it: the replay's copy of the sandbox is the replay's own.
    finish = sum(breakdown[key] for key in ("parse", "verify", "quote", "judge", "store", "html", "run"))
    finish += breakdown["render (page)"]
    whole = cpu["replay, in-process"] + cpu["question page"]
    print(f"finish (all but the copy) + page: {finish / yardstick:6.2f}x one rg -F -n -f")
    print(f"  the same without verification:  {(finish - breakdown['verify']) / yardstick:6.2f}x")
    print(f"replay in-process + page:         {whole / yardstick:6.2f}x (with the sandbox copy)")
    if not args.in_process:
        child = cpu["manage.py replay, child"] + cpu["question page"]
        print(
            f"manage.py replay (child) + page:  {child / yardstick:6.2f}x (with Python's and Django's start-up)"
        )
    print(
        f"#37 (<= 1x one rg -F -n -f, CPU): {finish / yardstick:.2f}x {'OK' if finish <= yardstick else 'OVER'}"
    )


if __name__ == "__main__":
    main()
