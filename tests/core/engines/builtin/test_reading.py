"""A chunk is read once whatever the question: the passages, words and
context ranking reads are the chunk's own, and only what the question adds
(its joined identifiers, the aspects a heading is named for) is read per question."""

from __future__ import annotations

import re

from core.engines.builtin.question import analyze
from core.engines.builtin.reading import _mentions, chunk_reading, read_chunk
from core.engines.builtin.search import Hit
from core.engines.builtin.tokens import tokens_of

SOURCE = '''class RedisExampleDatabase(ExampleDatabase):
    """Store examples in Redis.

    The ping_interval is how often a ping is sent.
    It defaults to 20 seconds.
    """

    def __init__(self, ping_interval: float | None = 20, expire_after=None):
        self.ping_interval = ping_interval
'''


def hit(text: str = SOURCE, heading: str | None = None) -> Hit:
    return Hit("cid/hypothesis/database.py", 10, 18, heading, text, 1.0, 200, before="# earlier lines\n")


def test_a_chunk_read_for_two_questions_is_read_once():
    """The second question gets the very same passages, words and context as
    the first: the chunk was cut and tokenised once."""
    chunk = hit()
    first = read_chunk(analyze("What is the default ping interval of the Redis database?"), chunk)
    second = read_chunk(analyze("How often does the Redis example database send a ping?"), chunk)
    assert first and len(first) == len(second)
    for a, b in zip(first, second, strict=True):
        assert a[0] == b[0] and a[1] == b[1]  # passage and body
        assert a[2] is b[2]  # its tokens, not tokenised again
        assert all(x is y for x, y in zip(a[4], b[4], strict=True))  # its context parts
    assert chunk_reading.cache_info().hits >= 1


def test_what_the_question_adds_is_read_per_question():
    """The joined identifiers a passage holds are the asking question's: "ping
    interval" is ``pinginterval`` in a passage naming ``ping_interval``'s
    words only when that question asks."""
    chunk = hit("The PingInterval option sets how often a ping is sent.\n")
    asked = read_chunk(analyze("What does the ping interval option set?"), chunk)
    other = read_chunk(analyze("What does the timeout option set?"), chunk)
    assert any("pinginterval" in entry[3] for entry in asked)
    assert all(not entry[3] for entry in other)


def test_a_heading_named_for_an_aspect_asked_about_is_read_per_question():
    chunk = hit("We restarted the broker and the queue drained.\n", heading="Incident # Actions")
    fixed = read_chunk(analyze("How was the outage fixed?"), chunk)
    caused = read_chunk(analyze("Which queue drained?"), chunk)
    assert fixed and all(entry[9] == frozenset({"fix"}) for entry in fixed)
    assert caused and all(entry[9] == frozenset() for entry in caused)


def test_a_changed_chunk_is_read_again():
    """The kept reading is keyed by the chunk's text: an edited file is never ranked from its old words."""
    before = read_chunk(analyze("How often is a ping sent?"), hit())
    after = read_chunk(
        analyze("How often is a ping sent?"), hit(SOURCE.replace("ping is sent", "pong is sent"))
    )
    assert any("pong" in entry[2] for entry in after)
    assert not any("pong" in entry[2] for entry in before)


def test_a_name_is_mentioned_as_a_whole_word_as_the_pattern_would_find_it():
    """``_mentions`` agrees with ``\\bname\\b`` searched from ``start`` to ``end``,
    the character before ``start`` looked at too."""
    text = "xping_interval ping_interval ping_intervals é_ping_interval ping_interval_ms (ping_interval)"
    names = ["ping_interval", "ping", "interval", "_ping_interval", "ms", "x"]
    spans = [
        (0, len(text)),
        (1, 14),
        (15, 28),
        (14, 29),
        (29, 44),
        (44, 60),
        (60, 77),
        (80, len(text)),
        (3, 3),
    ]
    for name in names:
        pattern = re.compile(r"\b" + re.escape(name) + r"\b")
        for start, end in spans:
            assert _mentions(text, name, start, end) == bool(pattern.search(text, start, end)), (
                name,
                start,
                end,
            )


PROSE = """Intro paragraph. It has two sentences, and a CamelCaseName.

- A list item: see [the docs](https://example.org/FooBar). Then more text.
- Another item.Joined words.NoSpace here (e.g. Foo) and x.y.z values follow.

   An indented paragraph with ``code_name`` and e.g. abbreviations. Last one?
1. A numbered step. Another sentence of it.
"""


def test_a_paragraph_is_read_as_its_own_text():
    """A paragraph's words, read from its sentences' and the text between
    them, are those of its own text, links, CamelCase names and leaders too."""
    reading = chunk_reading("cid/docs/readme.md", PROSE, None, "")
    units = [p for p in reading.passages if p.passage.unit != (0, 0)]
    assert len(units) >= 5
    for p in units:
        assert p.context[0] == tokens_of(PROSE[slice(*p.passage.unit)])


def test_a_paragraph_of_one_sentence_shares_that_sentence_token_set():
    """A list item or a table row of one sentence has that sentence's words:
    the very token set the sentence is read into, not an equal copy, so
    ranking (which reads each token set once per question) reads it once."""
    text = "- The first item says one thing.\n- The second item says another.\n| a row | of a table |\n"
    reading = chunk_reading("cid/docs/list.md", text, None, "")
    assert len(reading.passages) == 3
    for p in reading.passages:
        assert p.context[0] is p.tokens
        assert p.context[0] == tokens_of(text[slice(*p.passage.unit)])
