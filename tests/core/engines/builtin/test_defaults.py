"""Defaults the way code and its docstrings state them, on real third-party
code installed in the virtualenv: a parameter's default that only its
signature holds, a parameter left unset there whose documentation names the
real default, the middle of a long docstring read as prose, a statement of a
default over a mention of one, and a project's own files counted as about it."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_ranking import SITE, ask, installed, sandbox

from core.engines.builtin.chunking import chunk_lines
from core.engines.builtin.passages import passages_of
from core.engines.builtin.reading import _named_label


def test_a_default_only_a_signature_states_leads(tmp_path):
    """``ping_interval: float | None = 20,`` and ``expire_after: timedelta =
    timedelta(days=8),``: no sentence states these defaults; the signature line
    does, and the prose about the same name says what it is."""
    root = sandbox(
        tmp_path,
        installed(
            "websockets/asyncio/client.py", "websockets/legacy/protocol.py", "hypothesis/extra/redis.py"
        ),
    )
    quick, citations = ask(root, "What is the default ping interval of a websockets client?")
    assert "ping_interval: float | None = 20," in quick
    assert citations[0]["source_file"].endswith("websockets/asyncio/client.py")
    quick, _ = ask(root, "How long does Hypothesis's Redis example database keep examples by default?")
    assert "timedelta(days=8)" in quick


def test_a_parameter_left_unset_in_its_signature_defers_to_its_documentation(tmp_path):
    """``exc_type: type[ImportError] | None = None,`` says nothing about the
    default; "Defaults to :class:`ModuleNotFoundError` when not given" does."""
    root = sandbox(tmp_path, installed("_pytest/outcomes.py", "_pytest/raises.py"))
    quick, _ = ask(root, "Which exception does pytest's importorskip skip on by default?")
    assert "Defaults to :class:`ModuleNotFoundError`" in quick


def test_the_middle_of_a_long_docstring_is_prose_not_code():
    """A 40-line chunk inside ``connect``'s long Args list holds no triple
    quote: its lines are read as documentation, each argument its own passage."""
    rel = installed("websockets/trio/client.py")[0]
    text = (SITE / rel).read_text(encoding="utf-8")
    chunk = next(c for c in chunk_lines(text) if "ping_interval: Interval between keepalive" in c.text)
    assert '"""' not in chunk.text and "'''" not in chunk.text
    found = passages_of(rel, chunk.text)
    shown = [chunk.text[p.start : p.end] for p in found if not p.code]
    assert any(s.startswith("ping_interval: Interval between keepalive pings in seconds.") for s in shown)
    assert not any(p.code for p in found)


def test_code_with_no_triple_quote_stays_code():
    rel = installed("click/core.py")[0]
    text = (SITE / rel).read_text(encoding="utf-8")
    chunks = [c for c in chunk_lines(text) if '"""' not in c.text and "'''" not in c.text]
    code = next(c for c in chunks if "def " in c.text and c.text.count("\n") > 20)
    assert all(p.code for p in passages_of(rel, code.text))


def test_a_default_stated_outranks_a_default_mentioned(tmp_path):
    """ "The name of the command defaults to the name of the function" answers;
    "… the same as the default value" mentions a default. Every passage of
    click/ is about click, whether or not it says "click"."""
    root = sandbox(tmp_path, installed("click"))
    quick, _ = ask(root, "What name does click give a command by default?")
    assert quick.startswith("The name of the command defaults to the name of the function")


def test_an_argument_entry_is_not_about_the_entries_before_it(tmp_path):
    """In ``connect``'s Args list, "Default is exponential backoff …" belongs to
    ``reconnect_delays``; the ``ping_interval`` entry above it is another
    argument's, so it is not an answer about the ping interval. The signature
    line states the default (``= 20``) without the word "default"."""
    root = sandbox(
        tmp_path,
        installed("websockets/trio/client.py", "websockets/asyncio/client.py", "websockets/sync/client.py"),
    )
    quick, _ = ask(root, "What is the default ping interval of a websockets client?")
    assert quick.lstrip().startswith("```python\nping_interval: float | None = 20,")


def test_a_question_asking_two_things_is_answered_part_by_part(tmp_path):
    root = sandbox(
        tmp_path,
        installed("websockets/trio/client.py", "websockets/asyncio/client.py", "celery/app/task.py"),
    )
    question = "What are the default ping interval of a websockets client and the default max_retries of a Celery task?"
    quick, citations = ask(root, question)
    assert "ping_interval: float | None = 20," in quick
    assert any(
        c["source_file"].endswith("celery/app/task.py") and "max_retries = 3" in c["excerpt"]
        for c in citations
    )


def test_a_default_in_a_signature_over_several_lines_with_its_body_after_it_leads(tmp_path):
    """anyio's ``create_memory_object_stream.__new__`` writes ``cls, max_buffer_size:
    float = 0, item_type: object = None`` on one line of a signature over three,
    with no docstring between it and the body: the signature alone is the passage
    that states the default, not the fourteen lines it opens nor the ``:param``
    line that says what the parameter is."""
    root = sandbox(tmp_path, installed("anyio/_core/_streams.py"))
    quick, citations = ask(
        root, "What is the default max_buffer_size of anyio's create_memory_object_stream?"
    )
    assert "max_buffer_size: float = 0" in quick
    cited = citations[0]
    assert cited["source_file"].endswith("anyio/_core/_streams.py")
    assert cited["location"]["line_end"] - cited["location"]["line_start"] <= 3
    assert "if max_buffer_size" not in quick.split("\n\n")[0]


def test_a_signature_states_a_default_only_of_the_parameter_asked_about():
    """A signature over several lines giving literals to other parameters
    (``timeout=None, propagate=True, interval=0.5``) states no default of a
    parameter the question does not name."""
    from core.engines.builtin.kinds import states_literal
    from core.engines.builtin.passages import Passage
    from core.engines.builtin.question import analyze

    text = (
        "def join(self, timeout=None, propagate=True, interval=0.5,\n         callback=None, no_ack=True):\n"
    )
    body = text.rstrip("\n")
    passage = Passage(0, len(body), True, "python")
    assert states_literal(passage, body, text, analyze("What is the default interval of celery's join?"))
    assert not states_literal(
        passage, body, text, analyze("How long does celery wait before retrying a task by default?")
    )


def test_a_default_stated_across_a_wrapped_line_is_stated(tmp_path):
    """anyio's ``TextReceiveStream`` docstring wraps "(defaults\\n        to ``utf-8``)":
    the encoding's entry states its default as much as the next entry's unwrapped
    "(defaults to ``strict``)" states the error handler's."""
    from core.engines.builtin.kinds import STATES_DEFAULT

    assert STATES_DEFAULT.search("to strings (defaults\n        to ``utf-8``)")
    root = sandbox(tmp_path, installed("anyio/streams/text.py"))
    quick, _ = ask(root, "What encoding does anyio's TextReceiveStream use by default?")
    assert quick.split("\n\n")[0].count("utf-8") and "strict" not in quick.split("\n\n")[0]


def test_a_docstrings_sentence_is_shown_with_the_name_its_def_or_class_defines(tmp_path):
    """A sentence under a ``def`` or ``class`` line is shown with the name it
    defines: not the outline's "def" nor a signature cut at its first ": "
    (``def makepyfile(self, *args``), and nothing for ``__init__``."""
    root = sandbox(tmp_path, installed("hypothesis/_settings.py", "anyio/_core/_tempfile.py"))
    quick, _ = ask(root, "What is the default deadline for a single Hypothesis test case?")
    assert quick.startswith("`deadline()` — The default deadline is 200 milliseconds.")
    quick, _ = ask(root, "In which mode does anyio's TemporaryFile open its file by default?")
    assert '`TemporaryFile` — :param mode: The mode in which the file is opened. Defaults to "w+b".' in quick
    assert _named_label("    def __init__(self, **kwargs):") == ""  # a special method's: no name
    assert _named_label("    async def wait(self) -> None:") == "wait()"
    assert _named_label("       ServerAliveCountMax") is None  # a manual's term stays the term


def test_a_default_and_the_default_that_holds_instead_are_quoted_together(tmp_path):
    """ "The default is ``False``. If running on CI, the default is ``True`` instead.":
    the first sentence alone misstates the default on CI, so both are one passage;
    a sentence after a default that states none stays a passage of its own."""
    doc = '''def derandomize(self):
    """Whether to use a fixed seed.

    The default is ``False``. If running on CI, the default is ``True`` instead.
    The default is 3. See the profiles for more.
    """
'''
    bodies = [doc[p.start : p.end] for p in passages_of("pkg/settings.py", doc) if not p.code]
    assert "The default is ``False``. If running on CI, the default is ``True`` instead." in bodies
    assert "The default is 3." in bodies and "See the profiles for more." in bodies
    root = sandbox(tmp_path, installed("hypothesis/_settings.py"))
    quick, _ = ask(root, "Does Hypothesis test the same examples on every run by default?")
    assert (
        "The default is ``False``. If running on CI, the default is ``True`` instead." in quick.split("\n")[0]
    )
