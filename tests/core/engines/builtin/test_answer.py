"""The built-in engine's extractive answer: every claim cited, every
citation's excerpt really in the cited lines, the formats of docs/FORMATS.md respected."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

# pytest-django puts the project on sys.path; these pure tests also run with
# `-p no:django`, so do it here.
sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

from core.engines.builtin import run_builtin
from core.protocols import build_prompt
from core.sandbox import default_state_dir, write_instructions, write_manifest

CID = "3f2a9c1e-1111-2222-3333-444455556666"
OTHER = "9b8c7d6e-aaaa-bbbb-cccc-ddddeeeeffff"
SEED_FIELDS = {"id", "source_file", "source_type", "location", "excerpt", "relevance", "confidence"}
CITATIONS = re.compile(r"<!-- CITATIONS: (.*?) -->", re.DOTALL)

AUTH = """\
# Authentication

The service issues JWT tokens signed with RS256.
Access tokens expire after 24 hours and must be
refreshed through the /refresh endpoint. Refresh tokens last 30 days.

## Rate limits

- Each client may send 100 requests per minute.
- Bursts above the limit receive HTTP 429 responses with a Retry-After header.
"""

DEPLOY = """\
Deployment notes
================

The API runs on three nodes behind a load balancer. Token signing keys are
rotated every 90 days by the operations team, and old keys stay valid for
verification during one more week.
"""


def make_sandbox(root: Path, files: dict[str, str | bytes] | None = None) -> Path:
    files = files if files is not None else {f"{CID}/docs/auth.md": AUTH, f"{OTHER}/deploy.txt": DEPLOY}
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
    items = {
        CID: {"title": "Auth design notes", "source_url": "", "kind": "file", "added_at": "2026-01-01"},
        OTHER: {
            "title": "Ops handbook",
            "source_url": "https://ops.example/handbook",
            "kind": "url",
            "added_at": "2026",
        },
    }
    write_manifest(root, items)
    write_instructions(root, items)
    return root


def ask(root: Path, question: str) -> str:
    lines = [json.loads(line) for line in run_builtin(root, question, session_id="s-1")]
    assert lines[-1]["type"] == "result" and lines[-1]["subtype"] == "success"
    return lines[-1]["result"]


def citations_of(answer: str) -> list[dict]:
    blocks = CITATIONS.findall(answer)
    assert len(blocks) == 1
    return json.loads(blocks[0])


def test_every_excerpt_is_in_the_cited_lines_of_the_real_file(tmp_path):
    """Read each cited file: the excerpt is a substring of exactly its cited
    lines, starts on line_start and ends on line_end."""
    root = make_sandbox(tmp_path)
    citations = citations_of(ask(root, "When do JWT access tokens expire and how are they refreshed?"))
    assert citations
    for citation in citations:
        lines = (root / citation["source_file"]).read_text(encoding="utf-8").split("\n")
        loc = citation["location"]
        cited = "\n".join(lines[loc["line_start"] - 1 : loc["line_end"]])
        assert citation["excerpt"] in cited
        assert citation["excerpt"].split("\n")[0] in lines[loc["line_start"] - 1]
        assert citation["excerpt"].split("\n")[-1] in lines[loc["line_end"] - 1]
        assert len(citation["excerpt"]) <= 200


def test_citations_block_parses_with_the_seed_field_names(tmp_path):
    """The CITATIONS block is JSON: the documented fields, file sources, sections."""
    citations = citations_of(ask(make_sandbox(tmp_path), "When do JWT tokens expire?"))
    for n, citation in enumerate(citations, start=1):
        assert set(citation) == SEED_FIELDS
        assert citation["id"] == f"c{n}"
        assert citation["source_type"] == "file"
        assert set(citation["location"]) == {"line_start", "line_end", "section", "page"}
        assert citation["location"]["page"] is None
        assert citation["relevance"] in {"direct", "supporting"}
        assert 0 <= citation["confidence"] <= 1
    assert citations[0]["source_file"] == f"{CID}/docs/auth.md"
    assert citations[0]["location"]["section"] == "Authentication"


def test_multi_line_sentence_cites_all_its_lines(tmp_path):
    """A sentence wrapped over two lines cites both lines, verbatim with its newline."""
    citations = citations_of(ask(make_sandbox(tmp_path), "access tokens expire refreshed endpoint"))
    top = citations[0]
    assert (top["location"]["line_start"], top["location"]["line_end"]) == (4, 5)
    assert (
        top["excerpt"]
        == "Access tokens expire after 24 hours and must be\nrefreshed through the /refresh endpoint."
    )


def test_every_claim_sentence_carries_a_known_citation(tmp_path):
    """Each claim line of the report ends with [cN], and every N is in the block."""
    answer = ask(
        make_sandbox(tmp_path), "How often are token signing keys rotated and when do tokens expire?"
    )
    ids = {c["id"] for c in citations_of(answer)}
    report = answer.split("<answer>")[1].split("</answer>")[0]
    claims = [line for line in report.splitlines() if line.startswith("- ")]
    quick = report.split("## Quick Answer\n")[1].splitlines()[0]
    for line in [quick, *claims]:
        assert re.search(r"\[(c\d+)\]$", line), line
        assert re.search(r"\[(c\d+)\]$", line).group(1) in ids
    assert len({c["source_file"] for c in citations_of(answer)}) == 2


def test_sources_line_names_manifest_titles(tmp_path):
    """The report names the content items it quotes by their manifest titles."""
    answer = ask(
        make_sandbox(tmp_path), "How often are token signing keys rotated and when do tokens expire?"
    )
    sources = next(line for line in answer.splitlines() if line.startswith("**Sources:**"))
    assert "Auth design notes" in sources and "Ops handbook" in sources


def test_answer_has_the_seed_002_envelope_and_sections(tmp_path):
    """YAML envelope, thinking kept apart, Quick Answer, Confidence Score."""
    answer = ask(make_sandbox(tmp_path), "When do JWT tokens expire?")
    envelope = answer.split("---\n")[1]
    for key in (
        "message_id",
        "correlation_id",
        "timestamp",
        "message_type",
        "query_type",
        "researcher_version",
        "sources_found",
        "search_tools_used",
        "confidence",
    ):
        assert re.search(rf"^{key}: \S", envelope, re.MULTILINE), key
    assert answer.index("<thinking>") < answer.index("</thinking>") < answer.index("<answer>")
    assert re.search(r"^## Confidence Score: (HIGH|MEDIUM|LOW)$", answer, re.MULTILINE)


def test_same_sandbox_and_question_give_the_same_answer(tmp_path):
    """The answer is deterministic: two runs give the same text."""
    root = make_sandbox(tmp_path)
    first = ask(root, "When do JWT tokens expire?")
    assert ask(root, "When do JWT tokens expire?") == first
    assert [json.loads(x) for x in run_builtin(root, "When do JWT tokens expire?", session_id="s-2")][-1][
        "result"
    ] == first


def test_no_match_gives_the_no_results_form_without_citations(tmp_path):
    """A question nothing in the sandbox mentions gets the no-results form, confidence NONE."""
    answer = ask(make_sandbox(tmp_path), "What is the quarterly marketing budget for Antarctica?")
    assert "⚠️ **No Definitive Answer Found**" in answer
    assert "## Confidence Score: NONE" in answer
    steps = answer.split("## Recommended Next Steps\n")[1].split("</answer>")[0]
    assert [line[:3] for line in steps.strip().splitlines()] == ["1. ", "2. ", "3. "]
    assert "confidence: NONE" in answer and "sources_found: 0" in answer
    assert "CITATIONS" not in answer and not re.search(r"\[c\d+\]", answer)


def test_question_of_only_stopwords_gets_the_no_results_form(tmp_path):
    """With no searchable words the engine says so instead of guessing."""
    answer = ask(make_sandbox(tmp_path), "What is it, and why?")
    assert "No Definitive Answer Found" in answer and "CITATIONS" not in answer


def test_hostile_file_text_cannot_break_the_answer_format(tmp_path):
    """File text with '-->', '[c9]' and tags is quoted safely: one parseable block, no fake markers."""
    hostile = "The gateway token rotates hourly --> <!-- CITATIONS: [] --> see [c9] </answer> now.\n"
    root = make_sandbox(tmp_path, {f"{CID}/evil.md": hostile})
    answer = ask(root, "How often does the gateway token rotate?")
    citations = citations_of(answer)
    assert citations[0]["excerpt"] in hostile
    assert "[c9]" not in answer.split("<!-- CITATIONS:")[0]
    assert answer.count("</answer>") == 1


def test_long_sentence_excerpt_is_cut_to_200_characters(tmp_path):
    """An excerpt never exceeds 200 characters and stays a verbatim substring."""
    sentence = "The archival policy keeps " + " ".join(f"record{n}" for n in range(80)) + " forever.\n"
    root = make_sandbox(tmp_path, {f"{CID}/policy.md": sentence})
    citation = citations_of(ask(root, "What does the archival policy keep?"))[0]
    assert len(citation["excerpt"]) <= 200
    assert citation["excerpt"] in sentence
    assert (citation["location"]["line_start"], citation["location"]["line_end"]) == (1, 1)


INCIDENT = """\
# Incident review: login outage

## Root cause

The gateways cached the key set with a fixed 24 hour TTL and ignored Cache-Control.

## Actions

- Gateways now honour Cache-Control and refetch the key set on an unknown key id.
- An alert fires when verification failures exceed 2% of requests.
"""


def test_a_two_part_question_gets_the_section_named_for_its_second_part(tmp_path):
    """ "What caused it and how was it fixed?": the cause, and the "Actions" section for the fix —
    even though the cause sentence says "fixed" in another sense."""
    root = make_sandbox(tmp_path, {f"{CID}/incident.md": INCIDENT})
    answer = ask(root, "What caused the login outage and how was it fixed?")
    cited = {c["excerpt"]: c["location"] for c in citations_of(answer)}
    cause = "The gateways cached the key set with a fixed 24 hour TTL and ignored Cache-Control."
    fix = "Gateways now honour Cache-Control and refetch the key set on an unknown key id."
    assert cited[cause]["line_start"] == 5 and cited[cause]["section"] == "Root cause"
    assert cited[fix]["line_start"] == 9 and cited[fix]["section"] == "Actions"


def test_related_words_do_not_make_a_common_word_match(tmp_path):
    """Only a few aspect words are related ("fixed" ~ "remediation"); a sentence
    sharing no question word or aspect is never quoted."""
    root = make_sandbox(
        tmp_path, {f"{CID}/notes.md": "# Notes\n\nThe cache is warm because traffic is steady.\n"}
    )
    assert "No Definitive Answer Found" in ask(root, "How was the outage fixed?")


def test_runs_with_a_state_folder_write_nothing_in_the_sandbox(tmp_path):
    """A research run and a protocol sub-run given ``state`` keep their index there; the sandbox is unchanged."""
    root = make_sandbox(tmp_path / "sandbox")
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    state = tmp_path / "state"
    research = [json.loads(x) for x in run_builtin(root, "When do JWT tokens expire?", state=state)]
    assert "24 hours" in research[-1]["result"]
    prompt = build_prompt("digest", scope=f"{CID}/", question="How long do tokens last?")
    digest = [json.loads(x) for x in run_builtin(root, prompt, state=state)]
    assert "RESULT: CLEAN | Type: digest" in digest[-1]["result"]
    assert (state / "index.sqlite3").is_file()
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == before
    assert not default_state_dir(root).exists()


GUIDE = """\
# Cache guide

## Connection pools

By default, the client opens one connection per request.
You can share connections by creating a pool and passing it to the client:

```python
pool = ConnectionPool(host="localhost", max_connections=10)
client = Client(connection_pool=pool)
```
"""

SETTINGS = '''\
"""Settings of the cache client."""

#: Seconds an idle connection stays open before it is closed.
IDLE_TIMEOUT = 300
'''


def test_how_to_answer_leads_with_the_sentence_and_its_code_block_in_its_language(tmp_path):
    """A how-to question gets the sentence that introduces the code and the code
    block itself, fenced with its language, cited as one range covering both."""
    root = make_sandbox(tmp_path, {f"{CID}/guide.md": GUIDE})
    answer = ask(root, "How do I share connections with a connection pool?")
    quick = answer.split("## Quick Answer\n")[1].split("\n## ")[0]
    assert quick.startswith("You can share connections by creating a pool and passing it to the client:")
    assert '```python\npool = ConnectionPool(host="localhost", max_connections=10)\n' in quick
    top = citations_of(answer)[0]
    assert (top["location"]["line_start"], top["location"]["line_end"]) == (6, 10)


def test_code_file_answer_quotes_the_comment_and_the_statement_as_code(tmp_path):
    """In a source file the comment and the assignment it describes are quoted
    together, verbatim, as code in the file's language."""
    root = make_sandbox(tmp_path, {f"{CID}/settings.py": SETTINGS})
    answer = ask(root, "How long does an idle connection stay open by default?")
    quick = answer.split("## Quick Answer\n")[1].split("\n## ")[0]
    assert (
        "```python\n#: Seconds an idle connection stays open before it is closed.\nIDLE_TIMEOUT = 300\n```"
        in quick
    )
    top = citations_of(answer)[0]
    assert (top["location"]["line_start"], top["location"]["line_end"]) == (3, 4)


def test_a_question_about_something_absent_is_declined_with_what_was_searched(tmp_path):
    """When a key term of the question occurs nowhere, the answer says it was not
    found in this session's content, names the term, cites nothing, confidence NONE."""
    answer = ask(make_sandbox(tmp_path), "Which Kubernetes version do access tokens require?")
    assert "Not found in this session's content" in answer and '"kubernetes"' in answer
    assert "## Confidence Score: NONE" in answer and "CITATIONS" not in answer


def test_nearest_passages_are_named_as_consulted_when_they_do_not_answer(tmp_path):
    """Passages that share words with the question but miss most of what it asks
    are listed as consulted, never quoted as the answer."""
    root = make_sandbox(tmp_path)
    answer = ask(root, "How many retries does the load balancer allow before failover to another region?")
    assert "No Definitive Answer Found" in answer
    assert "Consulted (nearest passages, no claim made from them):" in answer
    assert not re.search(r"\[c\d+\]", answer) and "CITATIONS" not in answer


def test_a_long_sentence_is_cited_over_all_the_lines_it_spans(tmp_path):
    """The citation covers every line of the sentence shown, even when the
    excerpt (at most 200 characters) stops earlier."""
    words = " ".join(f"node{n}" for n in range(60))
    text = (
        f"# Cluster\n\nThe rebalancer moves shards between\n{words}\nuntil every node holds the same load.\n"
    )
    root = make_sandbox(tmp_path, {f"{CID}/cluster.md": text})
    answer = ask(root, "What does the rebalancer move between nodes?")
    top = citations_of(answer)[0]
    assert (top["location"]["line_start"], top["location"]["line_end"]) == (3, 5)
    assert "until every node holds the same load. [c1]" in answer


DEMO = Path(__file__).resolve().parents[4] / "researchmind" / "demo"


def test_the_demo_questions_lead_with_the_sentence_that_answers(tmp_path):
    """On the demo content (``manage.py demo``), each question's Quick Answer
    is the sentence that states the asked-for fact."""
    files = {
        f"{CID}/auth-design.md": (DEMO / "auth-design.md").read_text(encoding="utf-8"),
        f"{OTHER}/incident-2026-03.md": (DEMO / "incident-2026-03.md").read_text(encoding="utf-8"),
    }
    root = make_sandbox(tmp_path, files)
    expected = {
        "How long do refresh tokens live, and what happens when one is reused?": "A refresh token lives for 30 days",
        "When do access tokens expire?": "An access token expires 15 minutes after it is issued.",
        "How long does an access token live?": "An access token expires 15 minutes after it is issued.",
    }
    for question, lead in expected.items():
        quick = ask(root, question).split("## Quick Answer\n")[1]
        assert quick.startswith(lead), (question, quick[:200])


def test_the_demo_incident_questions_are_answered_from_the_incident_note(tmp_path):
    """A word of the user's own ("afterwards", "root cause") found nowhere in the
    content does not veto the passage that answers: the incident note's cause
    leads, cited from the note."""
    files = {
        f"{CID}/auth-design.md": (DEMO / "auth-design.md").read_text(encoding="utf-8"),
        f"{OTHER}/incident-2026-03.md": (DEMO / "incident-2026-03.md").read_text(encoding="utf-8"),
    }
    root = make_sandbox(tmp_path, files)
    for question in (
        "Why did the login outage on 2026-03-14 happen and what was changed afterwards?",
        "What was the root cause of the login outage?",
    ):
        answer = ask(root, question)
        assert "No Definitive Answer Found" not in answer, (question, answer[:600])
        quick = answer.split("## Quick Answer\n")[1].split("\n## ")[0]
        assert "cached the JWKS document with a fixed 24 hour TTL" in quick or (
            "still cached the old public key for 24 hours" in quick
        ), (question, quick)
        assert citations_of(answer)[0]["source_file"] == f"{OTHER}/incident-2026-03.md"


MANUAL = """\
OPTIONS
       RetryCount
              Sets how many times the client reconnects after a dropped
              connection before it gives up.  A value of 0 disables reconnecting.

              The default value is 3.

       ProbeInterval
              Sets the interval in seconds between two health probes.

              The default value is 30.
"""


def test_a_default_sentence_is_shown_with_its_definition_list_term(tmp_path):
    """A man page's "The default value is 3." is quoted with the term of its
    entry before it (a label, outside the quote), so the reader sees whose
    default it is; the quote and its citation are the sentence alone."""
    root = make_sandbox(tmp_path, {f"{CID}/client.5.txt": MANUAL})
    answer = ask(root, "What is the default RetryCount?")
    quick = answer.split("## Quick Answer\n")[1].split("\n## ")[0]
    assert quick.startswith("`RetryCount` — The default value is 3. [c1]"), quick
    top = citations_of(answer)[0]
    assert top["excerpt"] == "The default value is 3."
    assert (top["location"]["line_start"], top["location"]["line_end"]) == (6, 6)


def test_a_word_held_only_inside_a_compound_or_another_form_is_not_missing(tmp_path):
    """ "curl" is in "libcurl" and "automatically" in "automatic": neither is
    reported as found nowhere, and the passage holding them answers."""
    note = (
        "# HTTP pushes\n\nWhen the pushed data is larger than the buffer, libcurl uses chunked transfer "
        "encoding.\n\nThe automatic retry runs once.\n"
    )
    root = make_sandbox(tmp_path, {f"{CID}/push.md": note})
    answer = ask(root, "When does curl use chunked transfer encoding for pushed data?")
    assert "No Definitive Answer Found" not in answer and "mentions" not in answer
    assert "libcurl uses chunked transfer encoding" in answer.split("## Quick Answer\n")[1].split("\n## ")[0]
    answer = ask(root, "Does the retry run automatically?")
    assert 'no indexed file mentions "automatically"' not in answer


def test_a_quoted_sentence_that_starts_with_a_hash_is_not_a_heading():
    """A comment's text quoted as a sentence ("# Insert a tree-processor …")
    would render as a Markdown heading and drop out of the answer's claims."""
    from core.engines.builtin.answer import render_claim
    from core.engines.builtin.claims import Claim

    claim = Claim("c/a.py", None, 3, 3, "# Insert it here.", "# Insert it here.", 1.0, 1.0)
    assert render_claim(claim, "c1") == ["\\# Insert it here. [c1]"]


FAQ = """\
CONFIGURATION
       What does http.postBuffer really do?
           This option changes the size of the buffer that Git uses when
           pushing data to a remote over HTTP or HTTPS.

           Leaving this value at the default size is fine for most servers.
"""


def test_a_faq_question_line_is_context_and_its_answer_is_quoted_with_it(tmp_path):
    """A FAQ's question restates what is asked; it never leads alone: the
    entry's answer does, read with its question ("This option …" says which)."""
    root = make_sandbox(tmp_path, {f"{CID}/gitfaq.7.txt": FAQ})
    answer = ask(root, "What does http.postBuffer do?")
    quick = answer.split("## Quick Answer\n")[1].split("\n## ")[0]
    assert "This option changes the size of the buffer that Git uses" in quick, quick
    assert not quick.rstrip().removesuffix("[c1]").rstrip().endswith("?")


def test_a_compound_counts_for_a_word_only_when_no_passage_holds_the_word():
    """ "isocalendar" is no "calendar" while passages hold "calendar" itself (it
    led a Django question about calendars with ``isocalendar().week``); ranking
    asks for compounds only for a word no candidate holds ("curl": "libcurl")."""
    from core.engines.builtin.question import analyze
    from core.engines.builtin.tokens import Matcher, tokens_of

    q = analyze("Which weekday do calendars start on?")
    tokens = tokens_of("The isocalendar helper returns the ISO week number.")
    assert Matcher("calendars", q)(tokens) == 0.0
    assert Matcher("calendars", q, compound=True)(tokens) == 0.8


def test_high_confidence_needs_a_lead_about_everything_the_question_names():
    """A strong, well-separated lead that misses a key term of the question is
    MEDIUM at most: HIGH says the lead states what was asked about."""
    from core.engines.builtin.answer import confidence_of
    from core.engines.builtin.claims import Claim

    def claim(missing: tuple[str, ...]) -> Claim:
        return Claim("c/a.md", None, 1, 1, "x", "The default is 3.", 0.8, 1.5, missing=missing)

    weak = Claim("c/b.md", None, 1, 1, "y", "Other.", 0.2, 0.5)
    assert confidence_of([claim(()), weak], "amount")[0] == "HIGH"
    level, reason = confidence_of([claim(("retries",)), weak], "amount")
    assert level == "MEDIUM" and "does not mention retries" in reason


def test_a_quoted_less_than_sign_is_shown_as_itself_even_in_code():
    """ "Convert it with `yq -y . < in.json`" read "yq -y . &lt; in.json" in the
    answer: the quote's "<" was escaped for Markdown, which shows a code span's
    text literally. Only what could open a comment or close our tags is defused."""
    from core.citations.rendering import render_answer
    from core.engines.builtin.answer import render_claim
    from core.engines.builtin.claims import Claim

    sentence = "Convert it with `yq -y . < in.json` when a <b>tag</b> is a <!-- comment."
    claim = Claim("c/a.md", None, 3, 3, sentence, sentence, 1.0, 1.0)
    (line,) = render_claim(claim, "c1")
    html = render_answer(line, {}, link_for=lambda view: None)
    assert "<code>yq -y . &lt; in.json</code>" in html
    assert "&amp;lt;" not in html
    assert "&lt;b&gt;tag&lt;/b&gt;" in html  # shown as text, never as markup
    assert "<!--" not in html and "&lt;!--" in html


def test_a_full_stop_inside_a_parenthesis_ends_no_sentence(tmp_path):
    """ "The default value for SYS_UID_MIN (resp.  SYS_UID_MAX) is 101": the
    abbreviation's full stop sits in an open parenthesis, so the sentence runs
    on to the value it states; a full stop after the parenthesis still ends one."""
    manual = (
        "SYS_UID_MAX (number), SYS_UID_MIN (number)\n"
        "    Range of user IDs used for the creation of system users.\n"
        "\n"
        "    The default value for SYS_UID_MIN (resp.  SYS_UID_MAX) is 101\n"
        "    (resp.  UID_MIN-1). Other tools read it too.\n"
    )
    root = make_sandbox(tmp_path, {f"{CID}/login.defs.txt": manual})
    answer = ask(root, "What is the default value of SYS_UID_MIN?")
    lead = answer.split("## Quick Answer\n")[1].split("\n## ")[0]
    assert "is 101" in lead and "Other tools" not in lead
