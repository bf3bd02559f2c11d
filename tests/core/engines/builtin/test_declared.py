"""Settings declared in code, functions described by their docstrings, names
read out of CamelCase identifiers, project names that say little, and a
"which X" question whose lead is not about X — on real third-party code
installed in the virtualenv (these cases were read on the eval's third batch
after its first run)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_ranking import CID, SITE, ask, cited_lines, installed, sandbox

from core.engines.builtin.claims import Claim
from core.engines.builtin.decide import answers
from core.engines.builtin.kinds import kind_fit, parameter_defaults
from core.engines.builtin.passages import Passage, passages_of
from core.engines.builtin.question import analyze
from core.engines.builtin.rank import rank_passages
from core.engines.builtin.reading import chunk_reading
from core.engines.builtin.search import Hit
from core.engines.builtin.tokens import tokens_of


def test_a_setting_declared_with_its_default_is_a_passage_of_its_own():
    """``prefetch_multiplier=Option(4, type='int'),`` inside celery's
    ``Namespace(…)`` states a default: it is quoted on its own line."""
    text = (
        "    worker=Namespace(\n"
        "        pool_restarts=Option(False, type='bool'),\n"
        "        proc_alive_timeout=Option(4.0, type='float'),\n"
        "        prefetch_multiplier=Option(4, type='int'),\n"
        "        eta_task_limit=Option(None, type='int'),\n"
        "    ),\n"
    )
    found = [text[p.start : p.end].strip() for p in passages_of(f"{CID}/celery/app/defaults.py", text)]
    assert "prefetch_multiplier=Option(4, type='int')," in found
    assert "eta_task_limit=Option(None, type='int')," not in found


def test_celerys_declared_default_leads(tmp_path):
    """Before, a worker's ``prefetch_multiplier=None`` keyword in a call led."""
    root = sandbox(tmp_path, installed("celery/app/defaults.py", "celery/worker/worker.py"))
    _, citations = ask(root, "What is the default prefetch multiplier of a Celery worker?")
    assert citations[0]["source_file"].endswith("celery/app/defaults.py")
    assert "prefetch_multiplier=Option(4, type='int')" in cited_lines(root, citations[0])


def test_a_camel_case_identifier_gives_its_words():
    """``HttpResponseClientRefresh`` holds client and refresh; the whole name stays a token."""
    tokens = tokens_of("class HttpResponseClientRefresh(HttpResponse):")
    assert {"client", "refresh", "httpresponseclientrefresh"} <= tokens


def test_python_in_a_projects_name_is_not_a_key_term():
    """'Python-Markdown' is the package ``markdown``: its files seldom say "python"."""
    q = analyze("How many spaces does Python-Markdown treat a tab as by default?")
    assert "python" not in q.key
    assert "markdown" in q.key
    assert "python" in analyze("Which Python versions do pytest and asgiref require?").key


def test_a_function_line_is_about_what_its_docstring_says():
    """``async def receive_output(self, timeout=1):`` states the default; its
    docstring ("Receives a single message from the application …") says what
    the line is about, and the class line above names ApplicationCommunicator."""
    path = installed("asgiref/testing.py")[0]
    lines = (SITE / path).read_text(encoding="utf-8").split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("class ApplicationCommunicator"))
    end = next(i for i, line in enumerate(lines) if "def receive_output" in line) + 8
    hit = Hit(f"{CID}/{path}", start + 1, end, None, "\n".join(lines[start:end]), 1.0, len(lines))
    q = analyze("How long does asgiref's ApplicationCommunicator wait for an output message by default?")
    claims = rank_passages(q, [hit])
    line = next(c for c in claims if c.code and "def receive_output(self, timeout=1)" in c.code)
    assert "message" not in line.missing
    assert "applicationcommunicator" not in line.missing


def test_a_which_question_whose_lead_is_not_about_what_it_names_is_declined():
    """'Which compression level …?' led by a sentence about output files (no
    level, half the question) is declined; a lead that covers most of the
    question without the head word ("Which Python versions …" → "requires
    Python 3.11") still answers."""
    q = analyze("Which compression level does Python-Markdown use when writing its output files?")
    assert (q.measured, q.counts) == ("level", False)
    lead = Claim(f"{CID}/markdown/core.py", None, 428, 428, "x", "", 0.52, 0.9)
    assert not answers(q, [replace(lead, missing=("compression", "level"))], [])
    versions = analyze("Which Python versions do pytest and asgiref require?")
    assert versions.measured == "versions"
    assert answers(versions, [replace(lead, coverage=0.62, missing=("versions", "pytest"))], [])


def test_a_quoted_string_in_code_names_a_value():
    """'What is the name of the queue …?' wants a name: in code a quoted string
    is one (``default_queue=Option('celery')``); prose needs a code span or a Name."""
    q = analyze("What is the name of the queue Celery sends tasks to by default?")
    code = "default_queue=Option('celery'),"
    ok, bonus = kind_fit(q, Passage(0, len(code), True, "python"), code, None, code)
    assert ok and bonus > 0
    prose = "tasks go to the queue named after the app."
    ok, _ = kind_fit(q, Passage(0, len(prose), False, ""), prose, None, prose)
    assert not ok


def test_a_def_line_states_the_default_its_docstring_explains(tmp_path):
    """``def timesince(d, now=None, reversed=False, time_strings=None, depth=2):``
    gives ``depth`` its default; the docstring says what ``depth`` is ("the number
    of adjacent time units returned"), so the line answers how many units are
    shown by default. Before, a docstring sentence stating no number led and the
    question was declined."""
    root = sandbox(tmp_path, installed("django/utils/timesince.py"))
    _, citations = ask(root, "How many adjacent time units does Django's timesince show by default?")
    assert citations, "declined"
    assert "depth=2" in cited_lines(root, citations[0])


def test_only_literal_defaults_of_a_one_line_def_are_read():
    """``None`` leaves a parameter unset; a line that is no ``def`` gives none."""
    assert parameter_defaults("def timesince(d, now=None, reversed=False, time_strings=None, depth=2):") == [
        "reversed",
        "depth",
    ]
    assert parameter_defaults("    async def get(self, timeout: float = 0.5, key: str = 'a'):") == [
        "timeout",
        "key",
    ]
    assert parameter_defaults("timesince(d, depth=2)") == []


def test_a_docstrings_summary_is_quoted_with_the_name_it_describes(tmp_path):
    """ "Which exception is raised when …?" is answered by an exception class's
    docstring ("Raised when trying to read from a stream that has been closed …"),
    which never names the class: the quote starts at the ``class`` line and the
    answer shows the name, so the name the question asks for is stated and cited."""
    source = tmp_path / "src"
    (source / CID / "streamlib").mkdir(parents=True)
    (source / CID / "streamlib" / "errors.py").write_text(
        "class BrokenResourceError(Exception):\n"
        '    """\n'
        "    Raised when trying to use a resource that has been rendered unusable due to external causes.\n"
        '    """\n'
        "\n\n"
        "class EndOfStream(Exception):\n"
        '    """\n'
        "    Raised when trying to read from a stream that has been closed from the other end.\n"
        '    """\n',
        encoding="utf-8",
    )
    quick, citations = ask(
        source, "Which streamlib exception is raised when reading from a stream the other end has closed?"
    )
    assert quick.startswith("`EndOfStream` — Raised when trying to read from a stream")
    assert (citations[0]["location"]["line_start"], citations[0]["location"]["line_end"]) == (7, 9)
    assert cited_lines(source, citations[0]).startswith("class EndOfStream(Exception):")


def test_an_options_declaring_call_states_its_default():
    """``parser.addini("junit_family", "Emit XML for schema: …", default="xunit2")``
    spread over lines, as pytest declares its options, is one declaration, not a
    long block of code: it leads the question asking that option's default over a
    short method about writing the report. Before, the penalty for long code in a
    "which/how many" answer put it behind."""
    declared = (
        "def pytest_addoption(parser):\n"
        "    parser.addini(\n"
        '        "junit_family",\n'
        '        "Emit XML for schema: one of legacy|xunit1|xunit2",\n'
        "        type=_JunitFamily,\n"
        '        default="xunit2",\n'
        "    )"
    )
    method = "def write_report(self, report):\n    self.xml.write(report)  # each test report, for JUnit"
    hits = [
        Hit(f"{CID}/reportlib/junit.py", 1, 7, None, declared, 1.0, 20),
        Hit(f"{CID}/reportlib/writer.py", 1, 2, None, method, 1.0, 20),
    ]
    claims = rank_passages(
        analyze("Which JUnit XML schema does reportlib write its report in by default?"), hits
    )
    assert claims[0].path.endswith("junit.py")
    assert 'default="xunit2"' in (claims[0].code or "")


def test_a_docstring_under_a_signature_over_several_lines_is_quoted_from_its_def():
    """``def run(`` … ``) -> T_Retval:`` then "Call a coroutine function from a worker
    thread.": the summary is shown with ``run()`` and quoted from the ``def`` line,
    as under a one-line signature."""
    text = (
        "def run(\n"
        "    func: Callable[..., Awaitable[T_Retval]],\n"
        "    *args: object,\n"
        ") -> T_Retval:\n"
        '    """\n'
        "    Call a coroutine function from a worker thread.\n"
        '    """\n'
        "    return _run(\n"
        "        func,\n"
        "    )\n"
    )
    reading = chunk_reading(f"{CID}/lib/from_thread.py", text, None, "")
    summary = next(p for p in reading.passages if p.body.startswith("Call a coroutine"))
    assert summary.label == "run()"
    assert summary.passage.quote_from == 0
