"""Whether the built-in engine's lead is presented as the answer (``decide.answers``)
and how sure it says it is: decided from evidence (what the lead holds of the
question, the kind of answer asked for, the words the content has at all), on
small real files run through the whole engine."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_answer import CID, ask, make_sandbox

# A manual page as ``man`` renders it: each option on its line, its description indented below.
TRANSFER_MANUAL = """\
NAME
       fetchit - transfer a URL

OPTIONS
       Options start with one or two dashes.

       -c, --cookie-jar <filename>
              Specify to which file you want fetchit to write all cookies
              after a completed operation. If no cookies are known, no data
              will be written.

       -x, --proxy <host[:port]>
              Use the specified proxy. The proxy string can be specified with
              a protocol prefix.

       -Y, --speed-limit <speed>
              If a transfer is slower than this given speed (in bytes per
              second) for speed-time seconds it gets aborted.

       -b, --cookie <data|filename>
              Pass the data to the HTTP server in the Cookie header.
"""


def quick_answer(answer: str) -> str:
    return answer.split("## Quick Answer\n")[1].split("\n## ")[0]


def test_a_how_to_is_answered_by_a_manual_option_entry_despite_a_word_found_nowhere(tmp_path):
    """A manual gives a procedure as an option's entry, not as code: "how do I
    make fetchit stash the cookies into a file?" ("stash" is nowhere) is
    answered by the ``--cookie-jar`` entry, not declined for want of a code block."""
    root = make_sandbox(tmp_path, {f"{CID}/fetchit.1.txt": TRANSFER_MANUAL})
    answer = ask(root, "How can I make fetchit stash the cookies into a file?")
    assert "No Definitive Answer Found" not in answer, answer[answer.find("## Quick"):][:900]
    assert "--cookie-jar" in quick_answer(answer)
