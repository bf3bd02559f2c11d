"""The built-in engine leads with the sentence that answers, on real
third-party documentation and code installed in the virtualenv: the question's
words looked up by inflection (never by a stem another word shares), chunks
that hold every key term among the candidates, a default or a setting stated
outranking a mention, and a how-to sentence quoted with the code it introduces."""

from __future__ import annotations

import json
import re
import shutil
import sys
import sysconfig
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

import pytest

from core.engines.builtin import build_index, run_builtin
from core.engines.builtin.claims import Claim, _excerpt_span
from core.engines.builtin.decide import answers
from core.engines.builtin.passages import passages_of
from core.engines.builtin.projects import project_named
from core.engines.builtin.query import inflections, light_stem, words
from core.engines.builtin.question import analyze
from core.engines.builtin.rank import restates
from core.engines.builtin.releases import release_heading, with_release
from core.engines.builtin.tokens import Matcher, tokens_of
from core.sandbox import write_instructions, write_manifest

SITE = Path(sysconfig.get_paths()["purelib"])
CID = "3f2a9c1e-1111-2222-3333-444455556666"
CITATIONS = re.compile(r"<!-- CITATIONS: (.*?) -->", re.DOTALL)


def installed(*paths: str) -> list[str]:
    missing = [p for p in paths if not (SITE / p).exists()]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")
    return list(paths)


def sandbox(root: Path, paths: list[str]) -> Path:
    """One content item holding the real files (or folders) ``paths`` of site-packages."""
    for rel in paths:
        target = root / CID / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if (SITE / rel).is_dir():
            shutil.copytree(SITE / rel, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(SITE / rel, target)
    items = {CID: {"title": "Packages", "source_url": "", "kind": "archive", "added_at": "2026-01-01"}}
    write_manifest(root, items)
    write_instructions(root, items)
    return root


def ask(root: Path, question: str) -> tuple[str, list[dict]]:
    """The Quick Answer and the citations."""
    lines = [json.loads(line) for line in run_builtin(root, question, session_id="s-1")]
    result = lines[-1]["result"]
    quick = result.split("## Quick Answer\n")[1].split("\n## ")[0]
    blocks = CITATIONS.findall(result)
    return quick, json.loads(blocks[0]) if blocks else []


def cited_lines(root: Path, citation: dict) -> str:
    lines = (root / citation["source_file"]).read_text(encoding="utf-8").split("\n")
    loc = citation["location"]
    return "\n".join(lines[loc["line_start"] - 1 : loc["line_end"]])


def test_question_words_meet_their_inflections_not_a_shared_stem():
    """'broker' is not searched as 'broken'/'error' (the stems meet, the words
    do not); 'retried' and 'kept' are inflections of the words documents use,
    're-run' is also searched written as one."""
    broker = analyze("Which broker transports are feature complete in Celery?")
    assert "broker" not in broker.expansions
    assert "broke" not in inflections("broker")
    assert "retry" in inflections("retried") and light_stem("retried") == light_stem("retries")
    assert "keep" in inflections("kept")
    rerun = analyze("How many attempts does Celery make to re-run a failing task?")
    assert "rerun" in rerun.joined


def test_a_plural_in_ies_meets_its_singular():
    """'cookies' in a question matches 'cookie' in a passage (and 'policies' 'policy'):
    both lose their ending to the same stem."""
    assert [light_stem(w) for w in ("cookie", "cookies", "policy", "policies", "tie", "ties")] == [
        "cook",
        "cook",
        "polic",
        "polic",
        "tie",
        "tie",
    ]
    matcher = Matcher("cookies", analyze("How are session cookies signed?"))
    assert matcher(tokens_of("The session cookie is signed with the SECRET_KEY.")) == 1.0


def test_a_word_in_ying_meets_the_word_in_y():
    """ "retrying" in a question matches "a retry of the task": both lose their "y"
    as "retries" and "retried" do (it read "retry" against the text's "retr")."""
    assert {light_stem(w) for w in ("retrying", "retry", "retries", "retried")} == {"retr"}
    assert light_stem("copying") == light_stem("copy") and light_stem("saying") == "say"
    matcher = Matcher("retrying", analyze("How long does Celery wait before retrying a task?"))
    assert matcher(tokens_of("Default time in seconds before a retry of the task should be executed.")) == 1.0


def test_a_two_letter_word_is_a_key_term_unless_part_of_a_hyphenated_name():
    """'IP' says what the question is about; the 'py' of redis-py does not."""
    assert "ip" in analyze("How many connections per IP address does the server allow?").key
    assert "py" not in analyze("Which port does the redis-py example connect to?").key


def test_the_chunk_that_holds_every_key_term_is_found_among_many_that_hold_one(tmp_path):
    """Celery's README sentence naming the complete broker transports is found
    although hundreds of kombu transport chunks hold 'broker' or 'transport'."""
    root = sandbox(tmp_path, installed("celery-5.7.0.dist-info/METADATA", "celery/app", "kombu/transport"))
    quick, citations = ask(root, "Which broker transports does Celery consider feature complete?")
    assert quick.startswith("The RabbitMQ, Redis transports are feature complete")
    assert citations[0]["source_file"].endswith("celery-5.7.0.dist-info/METADATA")
    assert "The RabbitMQ, Redis transports are feature complete" in cited_lines(root, citations[0])


def test_a_question_about_a_default_leads_with_the_sentence_that_states_it(tmp_path):
    """'This defaults to 80 characters', with the parameter entry it ends,
    outranks a comment that mentions the maximum width; '``ASTERISK`` (default)' outranks the sentence that only
    names the option."""
    root = sandbox(tmp_path, installed("click/core.py", "click/formatting.py"))
    quick, citations = ask(root, "What does the max content width of click default to?")
    # the parameter's whole entry: its name, then the sentence stating the default
    assert quick.startswith(":param max_content_width: the maximum width for content rendered by Click")
    assert "This defaults to 80 characters if not overridden. [c1]" in quick.split("\n")[0]
    assert "This defaults to 80 characters if not overridden." in " ".join(
        cited_lines(root, citations[0]).split()
    )

    root = sandbox(
        tmp_path / "md", installed("markdownify-1.2.3.dist-info/METADATA", "markdownify/__init__.py")
    )
    quick, _ = ask(root, "Which symbol does markdownify use for strong text by default?")
    assert "``ASTERISK`` (default)" in quick.split("\n")[0]


def test_a_setting_in_a_block_of_settings_is_quoted_on_its_own_line(tmp_path):
    """Django's CSRF cookie age sits in a block of CSRF settings: the answer
    quotes that one line, cited as that one line, not the session cookie's
    '(default: 2 weeks)' that states a duration about something else."""
    root = sandbox(tmp_path, installed("django/conf/global_settings.py"))
    quick, citations = ask(root, "How long does the CSRF cookie last by default?")
    assert "```python\nCSRF_COOKIE_AGE = 60 * 60 * 24 * 7 * 52\n```" in quick
    top = citations[0]
    assert cited_lines(root, top) == "CSRF_COOKIE_AGE = 60 * 60 * 24 * 7 * 52"
    assert top["location"]["line_start"] == top["location"]["line_end"]


def test_a_how_to_brings_the_code_block_a_sentence_further_on_across_a_chunk_end(tmp_path):
    """redis-py's README says how to get hiredis in two sentences, then the
    ``pip install "redis[hiredis]"`` block, which starts the next chunk: the
    lead quotes the sentences and the block, cited over exactly those lines."""
    root = sandbox(
        tmp_path, installed("redis-8.1.0.dist-info/METADATA", "redis/client.py", "redis/connection.py")
    )
    quick, citations = ask(root, "How do I get the compiled hiredis response parser for redis-py?")
    assert '```bash\n$ pip install "redis[hiredis]"\n```' in quick
    top = citations[0]
    cited = cited_lines(root, top)
    assert cited.split("\n")[0].startswith("By default, if hiredis >= 1.0 is available")
    assert cited.split("\n")[-1] == '$ pip install "redis[hiredis]"'
    assert top["location"]["line_end"] - top["location"]["line_start"] == 3


def test_an_excerpt_cut_never_ends_on_a_lone_list_marker():
    """Hypothesis' engine source has a ``+`` that starts a continued line; a
    200-character excerpt cut right after it would end on what a reader (and
    the citation verifier) takes for a bullet, so the cut stops a line earlier."""
    source = (SITE / installed("hypothesis/internal/conjecture/engine.py")[0]).read_text(encoding="utf-8")
    start = source.index("# In a stateful test, surface the steps leading up to the")
    end = source.index("if self.settings.backend", start)
    span = _excerpt_span(source, start, end)
    assert span is not None
    excerpt = source[span[0] : span[1]]
    assert excerpt.split("\n")[-1].strip() not in ("+", "-", "*")
    assert excerpt.endswith('"Steps leading up to this error:\\n"')


def test_the_project_a_question_names_is_known_by_its_top_folder():
    """'redis-py' names redis-py's README and its ``redis`` package, not
    Celery's ``celery/backends/redis.py``; '_pytest' is pytest."""
    asked = set(words("Why can a redis-py PubSub connection not execute other commands?"))
    assert project_named(f"{CID}/redis-8.1.0.dist-info/METADATA", asked)
    assert project_named(f"{CID}/redis/client.py", asked)
    assert not project_named(f"{CID}/celery/backends/redis.py", asked)
    assert project_named(f"{CID}/_pytest/outcomes.py", set(words("What does pytest's importorskip catch?")))


def test_a_why_question_leads_with_the_reason_from_the_named_projects_docs(tmp_path):
    """Among redis-py's README and sources and Celery's Redis backend, the
    reason a PubSub connection runs no other command is the README's sentence."""
    root = sandbox(
        tmp_path,
        installed(
            "redis-8.1.0.dist-info/METADATA", "celery/backends", "redis/client.py", "redis/asyncio/client.py"
        ),
    )
    quick, citations = ask(root, "Why can a redis-py PubSub connection not execute other commands?")
    assert "PubSub is implemented as a separate class as it places the underlying connection" in quick
    assert citations[0]["source_file"].endswith("redis-8.1.0.dist-info/METADATA")


def test_confidence_is_high_for_a_clear_answer_and_low_for_a_weak_one(tmp_path):
    """On Django's settings, the password reset timeout's own line answers with
    HIGH and says why; a vague question about click's terminal gets LOW."""
    root = sandbox(tmp_path, installed("django/conf/global_settings.py"))
    result = json.loads(
        list(run_builtin(root, "How long is a password reset link valid?", session_id="s"))[-1]
    )
    assert (
        "## Confidence Score: HIGH\n**Reasoning**: The quoted passage has every key word of the question"
        in result["result"]
    )
    assert "no other passage is a close match" in result["result"]
    root = sandbox(tmp_path / "click", installed("click/core.py", "click/formatting.py"))
    result = json.loads(list(run_builtin(root, "How is the terminal handled?", session_id="s"))[-1])
    assert "## Confidence Score: LOW\n" in result["result"] and "the evidence is weak" in result["result"]


def test_a_chunk_that_starts_inside_a_docstring_reads_it_as_prose(tmp_path):
    """kombu's ``Exchange`` docstring is cut by a chunk boundary: the chunk
    after it starts inside the docstring, yet its lines are read as prose, and
    'The default value is 2 (persistent).' is known to be about
    ``delivery_mode``, the parameter it hangs from in the chunk before."""
    path = installed("kombu/entity.py")[0]
    source = (SITE / path).read_text(encoding="utf-8")
    lines = source.split("\n")
    first = next(i for i, line in enumerate(lines) if line.strip() == '* 2 or "persistent" (*default*)')
    chunk = "\n".join(lines[first : first + 20])
    shown = [(p.code, chunk[p.start : p.end]) for p in passages_of(f"{CID}/{path}", chunk)]
    assert (False, "The default value is 2 (persistent).") in shown
    root = sandbox(tmp_path, [path])
    quick, citations = ask(root, "What is the default delivery mode of kombu messages?")
    # with the term of the entry it hangs from, as a label outside the quote
    assert quick.startswith("`delivery_mode (enum)` — The default value is 2 (persistent). [c1]")
    assert cited_lines(root, citations[0]).strip() == "The default value is 2 (persistent)."


def test_a_lead_from_another_project_than_the_one_named_is_not_an_answer():
    """The question names its project ('markdownify'); the best passage comes
    from another one: declined, whatever its words."""
    q = analyze("What is the default timeout of markdownify's HTTP downloads?")
    lead = Claim(f"{CID}/redis/http/http_client.py", None, 21, 22, "DEFAULT_TIMEOUT = 30.0", "", 0.9, 1.5)
    assert answers(q, [lead], [])
    assert not answers(q, [replace(lead, off_project=True)], [])


def test_a_how_many_or_which_year_lead_must_state_a_number():
    """'In which year…' wants a year, 'how many' a number: a lead without one is no answer."""
    year = analyze("In which year was the click library first released?")
    assert (year.kind, year.wants) == ("amount", "year")
    lead = Claim(
        f"{CID}/click/core.py", None, 869, 869, "x", "the first argument is a click command.", 0.9, 1.0
    )
    assert not answers(year, [replace(lead, answers_kind=False)], [])
    assert answers(year, [lead], [])


def test_a_code_example_in_a_docstring_is_code_and_a_how_to_quotes_it(tmp_path):
    """Hypothesis documents ``suppress_health_check`` in a docstring whose
    example is an indented block after "For example:": it is read as code (a
    ``.. seealso::`` paragraph is not), and the how-to answer quotes it as code."""
    path = installed("hypothesis/_settings.py")[0]
    source = (SITE / path).read_text(encoding="utf-8")
    start = source.index("    def suppress_health_check(self)")
    chunk = source[start : source.index("    def deadline(self)", start)]
    passages = [(p.code, chunk[p.start : p.end].strip()) for p in passages_of(f"{CID}/{path}", chunk)]
    assert any(code and text.startswith("# these two are equivalent") for code, text in passages)
    assert (False, "See also the :doc:`/how-to/suppress-healthchecks` how-to.") in passages
    root = sandbox(tmp_path, [path])
    quick, citations = ask(root, "How do I suppress a Hypothesis health check?")
    assert (
        "```python\n# these two are equivalent\nsettings(suppress_health_check=[HealthCheck.filter_too_much])"
        in quick
    )
    assert "settings(suppress_health_check=" in cited_lines(root, citations[0])


def test_a_default_is_found_in_a_large_package_by_the_word_default(tmp_path):
    """In all of Hypothesis (hundreds of chunks hold 'examples' and 'test'),
    the sentence stating the default number of examples is found and leads."""
    root = sandbox(tmp_path, installed("hypothesis"))
    quick, citations = ask(root, "What is the default max examples of Hypothesis?")
    assert quick.startswith("The default max examples is ``100``. [c1]")
    assert citations[0]["source_file"].endswith("hypothesis/_settings.py")
    assert cited_lines(root, citations[0]).strip() == "The default max examples is ``100``."


def test_each_parameter_of_a_docstring_argument_list_is_its_own_passage():
    """kombu's ``Producer.publish`` lists its arguments one per line, in lower
    case after the name: each entry is a passage of its own, not one run-on
    'sentence' from 'Default is none.' to the next parameters."""
    path = installed("kombu/messaging.py")[0]
    source = (SITE / path).read_text(encoding="utf-8")
    start = source.index('        """Publish message to the specified exchange.')
    chunk = source[start - 200 : source.index('"""', start + 20) + 3]
    shown = [
        " ".join(chunk[p.start : p.end].split()) for p in passages_of(f"{CID}/{path}", chunk) if not p.code
    ]
    at = shown.index("compression (str): Compression method to use.")
    assert shown[at + 1] == "Default is none."
    assert "headers (Dict): Mapping of arbitrary headers to pass along with the message body." in shown
    assert not any("Default is none. headers" in text for text in shown)


def test_a_question_in_two_parts_is_split_only_between_two_questions():
    from core.engines.builtin.question import parts_of

    assert parts_of(
        "What are markdownify's default heading style and Python-Markdown's default file encoding?"
    ) == [
        "What are markdownify's default heading style?",
        "Python-Markdown's default file encoding?",
    ]
    # after a comma, a second question may start with its yes/no verb
    assert parts_of(
        "How do I tell browsers never to cache a Django response, and does a kombu Producer compress messages?"
    ) == [
        "How do I tell browsers never to cache a Django response?",
        "does a kombu Producer compress messages?",
    ]
    for one in (
        "Which settings do pytest and asgiref read, and does it matter?",  # "it matter": one key term
        "Which Python versions do pytest and asgiref require?",
        "How can I install redis-py with the faster hiredis parser?",
        "How long do refresh tokens live, and what happens when one is reused?",  # "happens" is no key term
    ):
        assert parts_of(one) == [one]


def test_a_temporal_since_is_not_a_reason(tmp_path):
    """ "… a discard (or prepare) has occurred since, so …" tells when, not why;
    "Because a fieldset is server-side session state …" is the reason."""
    root = sandbox(tmp_path, installed("redis"))
    quick, _ = ask(root, "Why must a redis-py HIMPORT fieldset be prepared again after a reconnect?")
    assert "has occurred since" not in quick
    assert quick.startswith(
        ("Because a fieldset is server-side session state", "A prepared fieldset lives in")
    )


# -- the verb a question ends with ---------------------------------------------------


@pytest.mark.parametrize(
    ("question", "verb"),
    [
        ("How long does an access token live?", "live"),
        ("When did the nightly backup job fail?", "fail"),
        ("Why does the worker crash?", ""),  # the subject would keep one key term
        ("How long do refresh tokens live, and what happens when one is reused?", ""),
        ("What is the default timeout?", ""),  # no auxiliary before a subject
    ],
)
def test_the_verb_a_question_ends_with(question, verb):
    assert analyze(question).verb == verb


def test_the_subject_outweighs_the_verb_a_person_words_differently(tmp_path, monkeypatch):
    """ "How long does an access token live?" over notes saying the access token
    "expires" and the refresh token "lives": the lead is about the subject asked,
    not the sentence that shares the question's verb."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_answer import ask, make_sandbox

    from core.engines.builtin import rank

    notes = (
        "# Token lifetimes\n\n"
        "An access token expires 15 minutes after it is issued.\n\n"
        "A refresh token lives for 30 days and is stored only as a SHA-256 hash.\n"
    )
    root = make_sandbox(tmp_path / "s", {f"{CID}/notes.md": notes})

    def lead() -> str:
        answer = ask(root, "How long does an access token live?")
        return answer.split("<answer>", 1)[1].split("[c1]", 1)[0]

    assert "expires 15 minutes" in lead()
    monkeypatch.setattr(rank, "VERB_WEIGHT", 1.0)
    assert "expires 15 minutes" not in lead()  # the verb weighed as the subject: the refresh token's line


# -- release notes -------------------------------------------------------------------

NEWS = """\
                      NEWS about fetchy

\tMajor changes between "fetchy" versions 3.1 and 3.2

* Add --with-proxy option to configure, to build a version of fetchy that limits the size of its requests.

* Fix a crash when the input size is zero.

\tMajor changes between "fetchy" versions 3.0 and 3.1

* Read a netrc file for passwords.

* Retry a transfer that stalls.

* Show a progress bar on a terminal.

* Keep the modification time of a downloaded file.

* Add the --max-size option.

* Read large files faster.
"""


def one_file(tmp_path: Path, name: str, text: str) -> Path:
    """A sandbox of one pasted content item holding the file ``name``."""
    root = tmp_path / "box"
    (root / CID).mkdir(parents=True)
    (root / CID / name).write_text(text, encoding="utf-8")
    items = {CID: {"title": "notes", "source_url": "", "kind": "paste", "added_at": "2026-01-01"}}
    write_manifest(root, items)
    write_instructions(root, items)
    return root


def _notes(tmp_path: Path) -> Path:
    return one_file(tmp_path, "NEWS", NEWS)


def test_release_notes_naming_the_option_as_written_answer_which_version_added_it(tmp_path):
    """ "Add the --max-size option." answers which version added ``--max-size``, not
    a note holding the question's other words ("option", "version", "size") apart."""
    quick, citations = ask(_notes(tmp_path), "In which fetchy version was the --max-size option added?")
    assert "Add the --max-size option." in quick
    assert citations[0]["location"]["line_start"] == 19
    # the release it is under is what was asked: shown with the lead, as an entry's term is
    assert quick.startswith(
        '`Major changes between "fetchy" versions 3.0 and 3.1` — Add the --max-size option.'
    )


def test_a_question_about_a_change_is_shown_its_release_and_others_are_not(tmp_path):
    """Only "which version added/removed/changed …?" shows the lead's release heading:
    "Which Python versions does fetchy require?" asks for versions, not a release."""
    root = _notes(tmp_path)
    build_index(root, state=tmp_path / "state")
    lead = Claim(
        f"{CID}/NEWS", None, 19, 19, "Add the --max-size option.", "Add the --max-size option.", 0.7, 1.0
    )
    shown = with_release(
        root, "Which fetchy release removed the --max-size option?", [lead], tmp_path / "state"
    )
    assert shown[0].term == 'Major changes between "fetchy" versions 3.0 and 3.1'
    assert with_release(root, "Which Python versions does fetchy require?", [lead], tmp_path / "state") == [
        lead
    ]


@pytest.mark.parametrize(
    ("text", "heading"),
    [
        ("5.7.0 (2024-01-02)\n------------------\n\n- Add the ``retry`` flag.\n", "5.7.0 (2024-01-02)"),
        ("## v2.1 - 2025-03-01\n\n* Add the --max-size option.\n", "v2.1 - 2025-03-01"),
        (
            "apt (2.9.5) unstable; urgency=medium\n\n  * Add the --max-size option.\n",
            "apt (2.9.5) unstable; urgency=medium",
        ),
        # a list item or a sentence naming a version is no heading
        ("* Build version 3.1 with proxies.\n\n* Add the --max-size option.\n", ""),
        ("Since version 3.1 the tool reads netrc.\n\n* Add the --max-size option.\n", ""),
        ("Notes\n\n* Add the --max-size option.\n", ""),
    ],
)
def test_the_release_heading_above_a_note(text, heading):
    last = text.rstrip("\n").count("\n") + 1
    assert release_heading(text, 1, last) == heading


KEYWORDS = '''\
class Highlighter:
    """
    Highlight source code.

    Keyword arguments:
        lang (str): String name of the lexer to use. Default: `None`.
        formatter (str): The name of a formatter used for the blocks. Default: `html`.
        css_class (str): The class put on the wrapping div. Default: 'highlight'.
        lang_prefix (str): Prefix prepended to the language. Default: "language-".
    """
'''


def test_a_default_on_the_line_of_its_argument_is_shown_with_that_argument(tmp_path):
    """ "Default: 'highlight'." after "css_class (str): …" on one line is the default of
    ``css_class``, not of the section "Keyword arguments" it sits in; a quoted name is a name."""
    root = one_file(tmp_path, "highlighter.py", KEYWORDS)
    quick, _ = ask(root, "Which CSS class does the Highlighter put on the wrapping div by default?")
    assert quick.startswith("`css_class (str)` — Default: 'highlight'.")


PAGER = """\
OPTIONS
       -i or --ignore-case
              Causes searches to ignore case; that is, uppercase and lowercase
              are considered identical.  This option is ignored if any
              uppercase letters appear in the search pattern: then that
              search does not ignore case.

       -I or --IGNORE-CASE
              Like -i, but searches ignore case even if the pattern contains
              uppercase letters.

       --mouse
              Enables mouse input: scrolling the mouse wheel down moves
              forward in the file, scrolling the mouse wheel up moves backwards
              in the file, and clicking the mouse sets the "#" mark to the line
              where the mouse is clicked.

       --MOUSE
              Like --mouse, except the direction scrolled on mouse wheel
              movement is reversed.
"""


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("Which pager option makes searches ignore case unless the pattern has uppercase letters?", "-i or"),
        ("How can I scroll with my mouse wheel in the pager?", "--mouse Enables"),
    ],
)
def test_the_option_a_variant_is_like_leads_over_the_variant(tmp_path, question, lead):
    """ "Like --mouse, except …" restates the option it varies and adds a difference:
    the option's own entry, which states what was asked, leads."""
    root = one_file(tmp_path, "pager.1.txt", PAGER)
    quick, _ = ask(root, question)
    assert quick.startswith(lead)


SHADOW = """\
FIELDS
       lock date
           The date the account was locked, in days since Jan 1, 1970.

           Note that a locked account differs from an expired account. A
           locked account keeps its files but cannot log in; an expired
           account is also removed from every group at the next audit.

           An empty field means that the account was never locked.
"""


def test_a_sentence_restating_the_question_is_quoted_with_the_rest_of_its_paragraph(tmp_path):
    """ "Note that a locked account differs from an expired account." holds every word
    of "How does a locked account differ from an expired account?" and says nothing
    more: the rest of its paragraph, which says how, is quoted with it."""
    root = one_file(tmp_path, "shadow.5.txt", SHADOW)
    quick, citations = ask(root, "How does a locked account differ from an expired account?")
    assert quick.startswith(
        "Note that a locked account differs from an expired account. A locked account keeps"
    )
    assert "removed from every group at the next audit." in quick
    assert (citations[0]["location"]["line_start"], citations[0]["location"]["line_end"]) == (5, 7)
    # a yes/no question's restatement is its answer, quoted alone
    assert not restates(
        analyze("Are locked accounts removed by default?"), "Locked accounts are removed by default."
    )


def test_code_of_another_project_calling_the_one_asked_about_says_nothing_of_its_defaults(tmp_path):
    """ "How many seconds does widget wait before a prompt times out?" is not answered
    from another project's ``@widget.option('--timeout', default=1.0)``: that code uses
    widget, it does not say how widget behaves (and widget's own files never say)."""
    root = tmp_path / "box"
    files = {
        "widget/termui.py": (
            "def prompt(text, default=None, hide_input=False):\n"
            '    """Prompts a user for input. This is a convenience function that can\n'
            '    be used to prompt a user for input later."""\n'
            "    return input(text)\n"
        ),
        "monitor/bin/control.py": (
            "@widget.command()\n"
            "@widget.option('-t', '--timeout', type=float, default=1.0,\n"
            "               help='Timeout in seconds waiting for a reply to the prompt')\n"
            "def inspect(timeout):\n"
            "    return wait(timeout)\n"
        ),
    }
    for name, text in files.items():
        (root / CID / name).parent.mkdir(parents=True, exist_ok=True)
        (root / CID / name).write_text(text, encoding="utf-8")
    items = {CID: {"title": "packages", "source_url": "", "kind": "archive", "added_at": "2026-01-01"}}
    write_manifest(root, items)
    write_instructions(root, items)
    lines = [
        json.loads(line)
        for line in run_builtin(
            root, "How many seconds does widget wait before a prompt times out by default?", session_id="s-1"
        )
    ]
    result = lines[-1]["result"]
    assert "No Definitive Answer Found" in result
    assert "default=1.0" not in result.split("Searches performed")[0]
