"""Whether the built-in engine's lead is presented as the answer (``decide.answers``)
and how sure it says it is: decided from evidence (what the lead holds of the
question, the kind of answer asked for, the words the content has at all), on
small real files run through the whole engine."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_answer import CID, ask, make_sandbox
from test_ranking import ask as ask_quick
from test_ranking import installed, sandbox

from core.engines.builtin.answer import confidence_of
from core.engines.builtin.claims import Claim
from core.engines.builtin.decide import MAX_PER_FILE, names_in, pick
from core.engines.builtin.options import AskedOptions, defined_key, entry_options, option_asked, options_in
from core.engines.builtin.question import analyze
from core.engines.builtin.rank import lead_with_number

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
    assert "No Definitive Answer Found" not in answer
    assert "--cookie-jar" in quick_answer(answer)


def _lead(sentence: str, *, term: str = "") -> Claim:
    return Claim(f"{CID}/curl.1.txt", None, 1, 1, "x", sentence, 1.0, 1.3, term=term)


WEAK = Claim(f"{CID}/curl.1.txt", None, 9, 9, "y", "Other text.", 0.3, 0.6)


def test_an_option_entry_names_its_options_and_no_word_of_its_description():
    """``-m, --max-time <seconds> Maximum time …`` is the entry of -m and
    --max-time; "When -L, --location is used …" is no entry; an elliptic
    sentence is the entry of its term."""
    assert entry_options(_lead("-m, --max-time <fractional seconds> Maximum time in seconds")) == {
        "-m",
        "--max-time",
    }
    assert entry_options(_lead("-ipath pattern Like -path. but the match is case insensitive.")) == {"-ipath"}
    assert entry_options(_lead("When -L, --location is used, the limit is 50.")) == frozenset()
    assert entry_options(_lead("The default is 50.", term="--parallel-max <num>")) == {"--parallel-max"}
    assert entry_options(_lead("--partial-dir=DIR, -P put a partially transferred file into DIR")) == {
        "--partial-dir",
        "-P",
    }
    assert options_in("How do I keep e-mail and non-RFC names with -xdev?") == {"-xdev"}


def test_high_confidence_for_an_option_needs_its_entry_not_another_option_naming_it():
    """A manual's ``--retry-delay`` entry names "retry", "delay" and "--retry":
    every key term of "What does --retry do?", yet another option's text. It is
    MEDIUM at most, and says why; the ``--retry`` entry itself, or a sentence
    naming --retry that is no other option's entry, may be HIGH."""
    question = "What does curl's --retry option do?"
    other = _lead("--retry-delay <seconds> Make curl sleep this amount of time before each --retry.")
    level, reason = confidence_of([other, WEAK], "fact", question)
    assert level == "MEDIUM" and "it is the entry for --retry-delay, not --retry" in reason
    level, reason = confidence_of([_lead("If this option is used, curl waits."), WEAK], "fact", question)
    assert level == "MEDIUM" and "it does not name --retry" in reason
    own = _lead("--retry <num> If a transient error is returned, curl will retry this number of times.")
    assert confidence_of([own, WEAK], "fact", question)[0] == "HIGH"
    assert confidence_of([_lead("When --retry is used, curl retries."), WEAK], "fact", question)[0] == "HIGH"
    assert confidence_of([other, WEAK], "fact", "What does curl's retry delay do?")[0] == "HIGH"


def test_high_confidence_without_a_dashed_option_is_not_given_to_a_sibling_entry():
    """ "What does the retry option do?" names no option with its dashes; the
    entry of ``--retry-delay`` shares "retry" with it but is about a delay: MEDIUM.
    An entry whose whole name is asked ("retry delay"), or one sharing no word
    with the question (a user's own wording), is judged as before."""
    sibling = _lead("--retry-delay <seconds> Make curl sleep this amount of time before each retry.")
    level, reason = confidence_of([sibling, WEAK], "fact", "What does curl's retry option do?")
    assert level == "MEDIUM" and "it is the entry for --retry-delay, not what was asked" in reason
    assert confidence_of([sibling, WEAK], "fact", "What does curl's retry delay option do?")[0] == "HIGH"
    timeout = _lead("--expect100-timeout <seconds> Maximum time curl waits for a 100-continue response.")
    assert (
        confidence_of([timeout, WEAK], "fact", "How long does curl wait for a 100-continue response?")[0]
        == "HIGH"
    )


def test_an_ly_word_whose_base_the_content_holds_is_not_reported_as_found_nowhere(tmp_path):
    """ "slowly" is "slow" (the manual says "slower"): a declined question names
    as found nowhere only the word that is ("expire"), not a user's adverb whose
    four-letter base the content holds."""
    root = make_sandbox(tmp_path, {f"{CID}/fetchit.1.txt": TRANSFER_MANUAL})
    answer = ask(root, "Why do fetchit cookies expire slowly?")
    assert 'no indexed file mentions "expire".' in answer


# Sibling options: the entries of --retry-delay and --retry-max-time say "retry" more
# often than --retry's own, and their examples name --retry too.
RETRY_MANUAL = """\
NAME
       fetchit - transfer a URL

OPTIONS
       --retry-delay <seconds>
              Make fetchit sleep this amount of time before each retry when a
              transfer has failed with a transient error. This option is only
              interesting if --retry is also used.

              Example:
               fetchit --retry-delay 5 --retry 7 https://example.com

       --retry-max-time <seconds>
              The retry timer is reset before the first transfer attempt.
              Retries will be done as usual as long as the timer has not
              reached this given limit.

              Example:
               fetchit --retry-max-time 30 --retry 10 https://example.com

       --retry <num>
              If a transient error is returned when fetchit tries to perform a
              transfer, it will retry this number of times before giving up.

       -m, --max-time <fractional seconds>
              Maximum time in seconds that you allow each transfer to take.
"""


def test_the_option_a_question_is_about_is_its_subject_not_its_context():
    """ "What does --retry do?" and "curl's retry option" ask about an option;
    "… with --location?" and "an alternate name for -xdev" only name one."""
    assert option_asked("What does fetchit's --retry option do?") == ({"--retry"}, frozenset())
    assert option_asked("What does -prune do?") == ({"-prune"}, frozenset())
    assert option_asked("What is --max-time for?") == ({"--max-time"}, frozenset())
    assert option_asked("What does fetchit's retry delay option do?") == (frozenset(), {"retr", "dela"})
    for context in (
        "How many redirects does curl follow at most by default with --location?",
        "Which find option is an alternate name for -xdev?",
        "Does find's -maxdepth 0 apply tests to the starting-points only?",
    ):
        assert option_asked(context) == (frozenset(), frozenset()), context


def test_a_question_about_an_option_leads_with_its_entry_not_a_siblings(tmp_path):
    """The ``--retry`` entry answers "What does --retry do?", however many more of
    the question's words the entries of ``--retry-delay`` and ``--retry-max-time``
    (and their examples) repeat; named without dashes, the whole name decides."""
    root = make_sandbox(tmp_path, {f"{CID}/fetchit.1.txt": RETRY_MANUAL})
    for question in ("What does fetchit's --retry option do?", "What does fetchit's retry option do?"):
        lead = quick_answer(ask(root, question)).split("\n")[0]
        assert "it will retry this number of times" in lead, (question, lead)
    lead = quick_answer(ask(root, "What does fetchit's max time option limit?")).split("\n")[0]
    assert "Maximum time in seconds that you allow each transfer to take" in lead, lead


# A manual that lists its options twice: once a line each in its OPTION SUMMARY, once
# with what they do under OPTIONS.
SUMMARY_MANUAL = """\
NAME
       mirrorit - a file-copying tool

SYNOPSIS
       mirrorit [OPTION...] SRC... DEST

OPTION SUMMARY
       --verbose, -v            increase verbosity
       --delay-updates          put all updated files into place at end
       --partial                keep partially transferred files
       --bwlimit=RATE           limit socket I/O bandwidth

OPTIONS
       --verbose, -v
              This option increases the amount of information you are given
              during the transfer.

       --delay-updates
              This option puts the temporary file from each updated file into
              a holding directory until the end of the transfer, at which time
              all the files are renamed into place in rapid succession.

       --partial
              By default, mirrorit will delete any partially transferred file if
              the transfer is interrupted. This option keeps it.
"""


def test_a_manuals_option_summary_restates_the_question_and_its_entry_answers(tmp_path):
    """The summary line "--delay-updates  put all updated files into place at end"
    holds every word of the question in one short line; the entry under OPTIONS says
    how, and leads. A SYNOPSIS is context the same way."""
    root = make_sandbox(tmp_path, {f"{CID}/mirrorit.1.txt": SUMMARY_MANUAL})
    lead = quick_answer(ask(root, "How do I make mirrorit put all updated files into place at the end?"))
    assert "holding directory until the end of the transfer" in lead.split("\n")[0], lead
    lead = quick_answer(ask(root, "Does mirrorit keep partially transferred files?"))
    assert "delete any partially transferred file" in lead.split("\n")[0], lead


# A configuration manual's keywords, each with what it is and, later in its entry, what it takes.
KEYWORD_MANUAL = """\
NAME
     relay_config - relay client configuration file

DESCRIPTION
     VerbosityLevel
             Gives the verbosity level that is used when logging messages from
             relay(1).  The possible values are: QUIET, FATAL, ERROR, INFO,
             VERBOSE and DEBUG.  The default is INFO.

     DigestHash
             Specifies the hash algorithm used when displaying key digests.
             Valid options are: md5 and sha256 (the default).

     BackupSuffix
             Backup before replacing, override the usual suffix.  Default
             suffix is ~, unless overridden by the environment.
"""


def test_a_question_for_a_list_of_values_wants_an_enumeration():
    """ "Which values can X take?", "Which signals can --totals be given?", "In
    what units …?" ask for a list; "What does this do?" and "What exit status
    …?" do not."""
    for question in (
        "Which values can relay's VerbosityLevel take?",
        "Which signals can tar's --totals be given?",
        "In what units can wget's --limit-rate amount be given?",
        "Which ignore files does tar's --exclude-vcs-ignores read?",
    ):
        assert analyze(question).wants == "list", question
    for question in (
        "What does this do?",
        "What exit status does grep return when no lines were selected?",
        "Which class is used?",
        "What does curl's --retry option do?",
    ):
        assert analyze(question).wants != "list", question


def test_the_sentence_of_an_entry_that_lists_the_values_leads_not_its_first(tmp_path):
    """The entry's first sentence names the keyword; the later one lists what it
    takes: that one answers, shown with the keyword."""
    root = make_sandbox(tmp_path, {f"{CID}/relay_config.5.txt": KEYWORD_MANUAL})
    lead = quick_answer(ask(root, "Which values can relay's VerbosityLevel take?")).split("\n")[0]
    assert "QUIET, FATAL, ERROR, INFO" in lead and "VerbosityLevel" in lead, lead
    lead = quick_answer(ask(root, "Which hash algorithms can relay's DigestHash use?")).split("\n")[0]
    assert "md5 and sha256" in lead, lead


ENTRY_MANUAL = """\
NAME
     relay_config - relay client configuration file

DESCRIPTION
     CanonicalizeHostname
             Controls whether explicit hostname canonicalization is performed.
             If set to yes then, for connections that do not use a proxy,
             relay will attempt to canonicalize the hostname by making
             connection attempts with each of the CanonicalDomains suffixes.

     ConnectionAttempts
             Specifies the number of tries (one per second) to make before
             exiting.  The argument must be an integer.  The default is 1.

     --exclude-dir=GLOB
             Skip any command-line directory with a suffix matching GLOB.
             When searching recursively, skip any subdirectory whose base
             name matches the pattern GLOB.
"""


def test_the_default_stated_in_an_entrys_first_paragraph_is_about_its_term(tmp_path):
    """ "The default is 1." ends ConnectionAttempts' first paragraph: it answers
    "how many connection attempts …?" (shown with the keyword), over a sentence
    of another entry that repeats the question's words."""
    root = make_sandbox(tmp_path, {f"{CID}/relay_config.5.txt": ENTRY_MANUAL})
    lead = quick_answer(ask(root, "How many connection attempts does relay make by default?")).split("\n")[0]
    assert "The default is 1." in lead and "ConnectionAttempts" in lead, lead


def test_a_question_for_an_options_name_leads_with_the_entry_naming_it(tmp_path):
    """ "Which option skips …?" asks for a name: the entry's opening passage,
    which holds it, leads over its second sentence, which repeats more words."""
    root = make_sandbox(tmp_path, {f"{CID}/relay_config.5.txt": ENTRY_MANUAL})
    question = "Which relay option skips directories whose names match a pattern when searching recursively?"
    lead = quick_answer(ask(root, question)).split("\n")[0]
    assert lead.startswith("--exclude-dir=GLOB Skip any command-line directory with a suffix"), lead


def test_a_files_path_is_a_value_a_which_file_question_asks_for():
    """ "Which state file does relay use by default?" asks for a name: a path
    states one ("/var/lib/relay/status"), as a number or a backquoted literal does."""
    from core.engines.builtin.kinds import NAME

    assert analyze("Which state file does relay use by default?").wants == "name"
    assert NAME.search("The default state file is /var/lib/relay/status.")
    assert NAME.search("Its cache lives in ~/.cache/relay by default.")
    assert not NAME.search("Tells relay to use an alternate state file, and/or a lock.")


def test_a_lead_without_the_name_a_question_asks_about_declines(tmp_path):
    """ "Which TLS version …?" of a package whose only "version" is its release
    number: the lead holds "version" and the package's name but not "TLS", and
    little else of the question; it is about something else, so the answer
    declines and names it as consulted, instead of quoting it at LOW."""
    files = {
        f"{CID}/dburl/METADATA": "Name: dburl\nVersion: 3.1.2\nSummary: Use database URLs in your application.\n",
        f"{CID}/dburl/NOTES.md": "# Notes\n\nTLS connections are set up by the database server, not here.\n",
        f"{CID}/dburl/parse.py": "def parse(url):\n    # the parser's rules enforce a scheme\n    return url\n",
    }
    answer = ask(make_sandbox(tmp_path / "unsaid", files), "Which TLS version does dburl enforce by default?")
    assert "No Definitive Answer Found" in answer
    assert "METADATA, lines 1 to" in answer  # shown as consulted
    # the same content stating it is answered
    files[f"{CID}/dburl/NOTES.md"] = "# Notes\n\ndburl enforces TLS version 1.2 by default.\n"
    answer = ask(make_sandbox(tmp_path / "said", files), "Which TLS version does dburl enforce by default?")
    assert "No Definitive Answer Found" not in answer
    assert "TLS version 1.2" in quick_answer(answer)


# A server's configuration manual: each setting on its line, what it does indented below.
BROKER_MANUAL = """\
NAME
       broker.conf - the configuration file for broker

GENERAL OPTIONS
       autosave_interval seconds
           The number of seconds that broker will wait between each time it
           saves the in-memory database to disk. Defaults to 1800 seconds.

       set_tcp_nodelay [ true | false ]
           If set to true, the TCP_NODELAY option will be set on client
           sockets to disable Nagle's algorithm. This has the effect of
           reducing latency of some messages at potentially increasing the
           number of TCP packets being sent. Defaults to false.

       sys_interval seconds
           The integer number of seconds between updates of the status
           hierarchy. If unset, defaults to 10 seconds.
"""


def test_a_how_to_is_answered_by_a_configuration_settings_entry(tmp_path):
    """A configuration manual gives a procedure as a setting's entry, as a
    command's manual does as an option's: "how do I cut down the latency …?"
    ("cut" is nowhere) is answered by the ``set_tcp_nodelay`` entry, not
    declined for want of a code block."""
    root = make_sandbox(tmp_path, {f"{CID}/broker.conf.5.txt": BROKER_MANUAL})
    answer = ask(root, "How do I cut down the latency of small messages in broker?")
    assert "No Definitive Answer Found" not in answer
    assert "set_tcp_nodelay" in quick_answer(answer)


def test_a_configuration_key_is_what_its_entry_defines():
    assert defined_key("set_tcp_nodelay [ true | false ]") == "set_tcp_nodelay"
    assert defined_key("Storage=") == "Storage"
    assert defined_key("RateLimitIntervalSec=, RateLimitBurst=") == "RateLimitIntervalSec"
    assert defined_key("ConnectionAttempts") == "ConnectionAttempts"
    # a plain word, an option and a sentence define no key
    assert (
        defined_key("port port number") == defined_key("-k, --insecure") == defined_key("This option") == ""
    )


# mosquitto.conf(5), its acl_file entry's end and the allow_anonymous entry, as ``man`` renders them.
ANONYMOUS_ENTRY = """\
GENERAL OPTIONS

           Example:

           pattern write sensor/%u/data

           Allow access for bridge connection messages:

           pattern write $SYS/broker/connection/%c/state

           If the first character of a line of the ACL file is a # it is
           treated as a comment.

           If per_listener_settings is true, this option applies to the
           current listener being configured only. If per_listener_settings is
           false, this option applies to all listeners.

           Reloaded on reload signal. The currently loaded ACLs will be freed
           and reloaded. Existing subscriptions will be affected after the
           reload.

           See also https://mosquitto.org/documentation/dynamic-security/

       allow_anonymous [ true | false ]
           Boolean value that determines whether clients that connect without
           providing a username are allowed to connect. If set to false then
           another means of connection should be created to control
           authenticated client access.

           Defaults to false, unless no listeners are defined in the
           configuration file, in which case it set to true, but connections
           are only allowed from the local machine.

           If per_listener_settings is true, this option applies to the
           current listener being configured only. If per_listener_settings is
           false, this option applies to all listeners.

               Important
               In version 1.6.x and earlier, this option defaulted to true
               unless there was another security option set.
           Reloaded on reload signal.

"""


def test_a_question_about_a_configuration_key_leads_with_its_entry(tmp_path):
    """ "What does mosquitto's allow_anonymous option control?" is answered by the
    key's own entry, opened by its term, not by a later paragraph of it that
    says "option" (as a dashed option's entry leads for its option)."""
    root = make_sandbox(tmp_path, {f"{CID}/mosquitto.conf.5.txt": ANONYMOUS_ENTRY})
    lead = quick_answer(ask(root, "What does mosquitto's allow_anonymous option control?")).split("\n")[0]
    assert lead.startswith("allow_anonymous [ true | false ] Boolean value that determines whether clients")


# journald.conf(5), its Storage= entry, as ``man`` renders it.
STORAGE_ENTRY = """\
OPTIONS
       All options are configured in the [Journal] section:

       Storage=
           Controls where to store journal data. One of "volatile",
           "persistent", "auto" and "none". If "volatile", journal log data
           will be stored only in memory, i.e. below the /run/log/journal
           hierarchy (which is created if needed). If "persistent", data will
           be stored preferably on disk, i.e. below the /var/log/journal
           hierarchy (which is created if needed), with a fallback to
           /run/log/journal (which is created if needed), during early boot
           and if the disk is not writable.  "auto" behaves like "persistent"
           if the /var/log/journal directory exists, and "volatile" otherwise
           (the existence of the directory controls the storage mode).  "none"
           turns off all storage, all log data received will be dropped (but
           forwarding to other targets, such as the console, the kernel log
           buffer, or a syslog socket will still work). Defaults to "auto" in
           the default journal namespace, and "persistent" in all others.

           Note that journald will initially use volatile storage, until a
           call to journalctl --flush (or sending SIGUSR1 to journald) will
           cause it to switch to persistent logging (under the conditions
           mentioned above). This is done automatically on boot via
           "systemd-journal-flush.service".

           Note that when this option is changed to "volatile", existing
           persistent data is not removed. In the other direction,
           journalctl(1) with the --flush option may be used to move volatile
           data to persistent storage.

           When journal namespacing (see LogNamespace= in systemd.exec(5)) is
           used, setting Storage= to "volatile" or "auto" will not have an
           effect on the creation of the per-namespace logs directory in
           /var/log/journal/, as the systemd-journald@.service service file by
           default carries LogsDirectory=. To turn that off, add a unit file
           drop-in file that sets LogsDirectory= to an empty string.

"""


def test_a_default_asked_of_a_written_key_is_its_entrys_sentence_stating_it(tmp_path):
    """ "What is journald's default Storage= setting?" names the key as the question's
    subject; its entry's sentence stating the default leads, not the entry's opening
    (no default in it) nor a later paragraph that says "Storage=" and "by default"."""
    root = make_sandbox(tmp_path, {f"{CID}/journald.conf.5.txt": STORAGE_ENTRY})
    lead = quick_answer(ask(root, "What is journald's default Storage= setting?")).split("\n")[0]
    assert 'Defaults to "auto" in the default journal namespace' in lead


def test_which_x_declines_when_no_file_mentions_an_x(tmp_path):
    """ "Which dashboard does broker set on client sockets?": no indexed file
    mentions a dashboard, so none can name one; the answer declines, however
    much else of the question a passage holds (``set_tcp_nodelay``'s entry:
    "set", "client", "sockets")."""
    root = make_sandbox(tmp_path, {f"{CID}/broker.conf.5.txt": BROKER_MANUAL})
    answer = ask(root, "Which dashboard does broker set on client sockets?")
    assert "No Definitive Answer Found" in answer
    assert '"dashboard"' in answer  # said to be found nowhere


# A compressor's manual: one algorithm, a compression one, and a word about headings.
PACKER_MANUAL = """\
NAME
       packer - compress or expand files

DESCRIPTION
       Packer reduces the size of the named files. Its compression
       algorithm is Lempel-Ziv coding (LZ77), as in zip and gzip.

       -9, --best
              Compress as hard as packer can, which is slower.

       --headings
              Convert the archive's headings to 3 levels of titles.
"""


def test_a_question_opening_with_a_preposition_still_counts_what_it_asks_for():
    """ "Into how many languages …", "After how many days …": the counted noun
    is found behind the preposition, and the question is a count; "In which
    units can …" is not narrowed (its answer names a unit, not "units")."""
    q = analyze("Into how many languages does packer translate headings?")
    assert (q.measured, q.counts) == ("languages", True)
    assert analyze("After how many days does packer expire its cache?").counts
    assert analyze("In which units can packer's size be given?").measured == ""


def test_which_kind_of_x_is_read_from_the_word_before_it():
    """ "Which encryption algorithm …": the algorithm asked for is an
    encryption one; "which xargs option" names no kind (no key term before)."""
    q = analyze("Which encryption algorithm does packer use to protect archives?")
    assert (q.measured, q.qualifier) == ("algorithm", "encryption")
    assert analyze("Which option sets the User-Agent?").qualifier == ""


def test_a_contractions_leftover_is_no_key_term():
    """ "isn't" reads as "isn" and "t": neither is a word the content must hold."""
    q = analyze("How do I make packer not complain when a file isn't there?")
    assert "isn" not in q.key and "isn" not in q.terms


def test_which_x_declines_a_lead_about_another_kind_of_x(tmp_path):
    """The manual names a compression algorithm, not an encryption one: asked
    which encryption algorithm packer uses, the engine declines; asked which
    compression algorithm, it answers from the same sentence. Asked into how
    many languages it translates headings, the "3 levels" entry counts no
    languages: declined."""
    root = make_sandbox(tmp_path, {f"{CID}/packer.1.txt": PACKER_MANUAL})
    declined = ask(root, "Which encryption algorithm does packer use to protect archives?")
    assert "No Definitive Answer Found" in declined
    answered = ask(root, "Which compression algorithm does packer use?")
    assert "No Definitive Answer Found" not in answered
    assert "Lempel-Ziv" in quick_answer(answered)
    assert "No Definitive Answer Found" in ask(
        root, "Into how many languages does packer translate headings?"
    )


# login.defs(5) as ``man`` renders it: keys in capitals, each entry's default in a later, wrapped sentence.
ACCOUNTS_MANUAL = """\
DESCRIPTION
       -K, --key KEY=VALUE
           Overrides /etc/login.defs defaults (UID_MIN, UID_MAX, UMASK,
           PASS_MAX_DAYS and others).

       PASS_MAX_DAYS (number)
           The maximum number of days a password may be used. If the password
           is older than this, a password change will be forced. If not
           specified, -1 will be assumed (which disables the restriction).

       PASS_MIN_DAYS (number)
           The minimum number of days allowed between password changes. Any
           password changes attempted sooner than this will be rejected. If
           not specified, 0 will be assumed (which disables the restriction).

       PASS_MAX_DAYS and PASS_MIN_DAYS are only used at the time of account
       creation. Any changes to these settings won't affect existing accounts.
"""


def test_a_key_written_anywhere_in_a_question_is_its_entrys_and_its_default_sentence_answers(tmp_path):
    """ "What is the default value of PASS_MIN_DAYS?" writes the key without
    "setting": its entry is what is asked, not a line listing keys whose words
    it shares (PASS_MAX_DAYS); the entry's sentence stating the default, wrapped
    over two lines ("If\\n not specified, 0 will be assumed"), leads, shown with
    its entry's term. Whether changes to the key affect accounts is no question
    about its entry: the paragraph saying so leads."""
    root = make_sandbox(tmp_path, {f"{CID}/login.defs.5.txt": ACCOUNTS_MANUAL})
    lead = quick_answer(ask(root, "What is the default value of PASS_MIN_DAYS?"))
    assert "0 will be assumed" in lead and "PASS_MIN_DAYS" in lead
    lead = quick_answer(ask(root, "What does PASS_MAX_DAYS default to when it is not specified?"))
    assert "-1 will be assumed" in lead
    lead = quick_answer(ask(root, "Do changes to PASS_MAX_DAYS affect existing accounts?"))
    assert "Any changes to these settings won't affect existing accounts" in lead


# shadow(5) as ``man`` renders it: fields named in words, each a definition-list entry.
FIELDS_MANUAL = """\
DESCRIPTION
       maximum password age
           The maximum password age is the number of days after which the user
           will have to change her password.

           An empty field means that there are no maximum password age, no
           password warning period, and no password inactivity period.

       password warning period
           The number of days before a password is going to expire during
           which the user should be warned.

           An empty field and value 0 mean that there are no password warning
           period.
"""


def test_an_entry_whose_term_the_question_writes_in_words_is_asked_about(tmp_path):
    """ "What is the password warning period?" writes the term of an entry: its
    opening defines it, though another entry's sentence repeats the words.
    "What does an empty maximum password age field mean?" asks more than the
    opening holds: the entry's later paragraph about an empty field leads. A
    term of one word, or one whose words the question does not write together,
    is asked about by no phrase."""
    root = make_sandbox(tmp_path, {f"{CID}/shadow.5.txt": FIELDS_MANUAL})
    lead = quick_answer(ask(root, "What is the password warning period?"))
    assert "The number of days before a password is going to expire" in lead
    lead = quick_answer(ask(root, "What does an empty maximum password age field mean?"))
    assert "An empty field means that there are no maximum password age" in lead
    asked = AskedOptions.of(
        "What is the password warning period?", key=tuple(analyze("What is the password warning period?").key)
    )
    assert asked.term_phrased("password warning period")
    assert not asked.term_phrased("password")
    assert not asked.term_phrased("warning password period")


PAGER_MANUAL = """\
OPTIONS
       --file-size
              If --file-size is specified, pager will determine the size of the
              file immediately after opening the file.
"""
PAGER_NEWS = """\
        Major changes between "pager" versions 581 and 590

* Add the --file-size option.

* Fix bug which caused failure to respond to window resize.
"""


def test_which_version_added_an_option_is_not_answered_by_its_entry(tmp_path):
    """The entry of ``--file-size`` says what it does, not when it came: asked
    which version added it, the release notes' line leads; asked what it does,
    the entry does."""
    root = make_sandbox(tmp_path, {f"{CID}/pager.1.txt": PAGER_MANUAL, f"{CID}/NEWS": PAGER_NEWS})
    lead = quick_answer(ask(root, "In which pager version was the --file-size option added?"))
    assert "Add the --file-size option." in lead
    lead = quick_answer(ask(root, "What does the --file-size option do?"))
    assert "will determine the size of the" in lead


def test_an_option_the_question_writes_that_no_file_holds_declines(tmp_path):
    """ "--spellcheck" is a name, as "Kubernetes" is: no file mentions it, so
    the release-notes line about another option added is not the answer."""
    root = make_sandbox(tmp_path, {f"{CID}/pager.1.txt": PAGER_MANUAL, f"{CID}/NEWS": PAGER_NEWS})
    assert "No Definitive Answer Found" in ask(root, "Which pager version added the --spellcheck option?")
    assert "No Definitive Answer Found" not in ask(root, "Which pager version added the --file-size option?")
    assert {"--spellcheck", "spellcheck"} <= names_in("Which pager version added the --spellcheck option?")


def test_what_something_does_by_default_asks_for_a_behaviour_not_a_value():
    """ "What does less do with long lines by default?" wants what it does ("The
    default is to wrap long lines"), not a value a name or number states; and it
    names no X whose head noun a lead must hold ("does less" is no X)."""
    q = analyze("What does less do with long lines by default?")
    assert (q.kind, q.default, q.measured) == ("fact", True, "")
    assert analyze("What is the default tab stop spacing in less?").kind == "amount"
    assert analyze("Which compression level does gzip use?").measured == "level"


def test_what_holds_when_nothing_is_given_is_a_default_asked_for(tmp_path):
    """ "What does PASS_MAX_DAYS use when it is not specified?" asks for its
    default as surely as "What is its default?": the entry's sentence stating
    what is assumed leads."""
    for text in (
        "What umask does login.defs use when UMASK is not specified?",
        "Which weekday does logrotate's weekly directive use when its argument is omitted?",
        "What inactivity period does useradd use if -f is not given?",
    ):
        assert analyze(text).default, text
    assert not analyze("What happens when LESSHISTFILE is set to /dev/null?").default
    root = make_sandbox(tmp_path, {f"{CID}/login.defs.5.txt": ACCOUNTS_MANUAL})
    lead = quick_answer(
        ask(root, "How many days may a password be used with PASS_MAX_DAYS when it is not specified?")
    )
    assert "-1 will be assumed" in lead


def test_what_is_the_x_of_names_what_is_asked_for_and_its_kind(tmp_path):
    """ "What is the default font size of less?" asks for a size, of fonts: a
    lead about another size (the screen's) that says nothing of fonts declines."""
    q = analyze("What is the default font size of pager?")
    assert (q.measured, q.qualifier) == ("size", "font")
    assert (
        analyze("What is the maximum length, in characters, of the string pager returns?").measured
        == "length"
    )
    root = make_sandbox(
        tmp_path,
        {
            f"{CID}/pager.1.txt": "COMMANDS\n       d      Scroll forward N lines, default one half of the screen size.\n"
        },
    )
    assert "No Definitive Answer Found" in ask(root, "What is the default font size of pager?")
    assert "No Definitive Answer Found" not in ask(root, "What is the default scroll size of pager?")


def test_a_passage_nearly_as_strong_as_the_lead_is_quoted_past_its_files_three():
    """A manual is one file: its fourth passage, nearly as strong as the lead
    (the entry that states the fact), is quoted; a weak fourth one is not, and a
    passage of another file takes its place."""

    def claim(path: str, line: int, score: float) -> Claim:
        return Claim(f"{CID}/{path}", None, line, line, f"x{line}", f"Sentence {line}.", 0.8, score)

    same = [claim("curl.1.txt", n * 10, s) for n, s in enumerate((1.0, 0.97, 0.95, 0.9), start=1)]
    picked = pick([*same, claim("find.1.txt", 5, 0.7)])
    assert [c.line_start for c in picked if c.path.endswith("curl.1.txt")] == [10, 20, 30, 40]
    weak = [*same[:MAX_PER_FILE], claim("curl.1.txt", 40, 0.65), claim("find.1.txt", 5, 0.64)]
    picked = pick(weak)
    assert [c.line_start for c in picked if c.path.endswith("curl.1.txt")] == [10, 20, 30]
    assert picked[-1].path.endswith("find.1.txt")


def test_a_default_asked_is_high_only_from_a_lead_that_states_one():
    """ "What is the default max_buffer_size …?" led by the parameter's entry, which
    says what the buffer is but not its default, is no HIGH answer; a lead saying
    what holds by default ("(which is the default)", "If not specified, -1 will be
    assumed", ``max_buffer_size: float = 0,``) may be."""
    question = "What is the default max_buffer_size of create_memory_object_stream?"
    entry = _lead(":param max_buffer_size: number of items held in the buffer until send() starts blocking")
    assert confidence_of([entry, WEAK], "amount", question)[0] == "MEDIUM"
    assert confidence_of([entry, WEAK], "amount", "What is max_buffer_size for?")[0] == "HIGH"
    for sentence in (
        "Setting it to 0 holds no items (which is the default).",
        "If not specified, 0 is assumed.",
    ):
        assert confidence_of([_lead(sentence), WEAK], "amount", question)[0] == "HIGH"
    code = replace(_lead(""), code="max_buffer_size: float = 0,")
    assert confidence_of([code, WEAK], "amount", question)[0] == "HIGH"


def test_a_question_opening_with_its_setting_is_read_by_what_follows():
    """ "In anyio, how do I …?" is a how-to and "With pluggy, does …?" a yes/no
    question, as they are without the opening clause; "In which units …?" and
    "When was …?" have no such clause."""
    assert analyze("In anyio, how do I start a task and wait until it is ready?").kind == "howto"
    assert analyze("With pluggy, does the last plugin registered run first?").kind == "yesno"
    assert analyze("If AsyncResult.get() times out, does Celery stop the task?").kind == "yesno"
    assert analyze("In which units can the amount be given?").kind == "fact"
    assert analyze("When was the first release of Django?").kind == "amount"


# A pager's manual: its commands are entries too, each a key and what it does.
KEYS_MANUAL = """\
NAME
       peek - a file viewer

COMMANDS
       SPACE or ^V or f or ^F
              Scroll forward one window.

       F      Scroll forward, and keep trying to read when the end of file is
              reached. Normally this command would be used when already at the
              end of the file.

       g or < or ESC-<
              Go to line 1 in the file.

       m      Followed by any lowercase letter, marks the first displayed line
              with that letter.
"""


def test_a_how_to_is_answered_by_a_manual_entry_whose_term_is_a_plain_key(tmp_path):
    """A manual's commands are entries whose term is a key, not an option or a
    setting (``F``): "how do I watch a file grow in peek?" ("watch" and "grow"
    are nowhere) is answered by that entry, not declined for want of a code block."""
    root = make_sandbox(tmp_path, {f"{CID}/peek.1.txt": KEYS_MANUAL})
    answer = ask(root, "How do I keep reading a log file at its end in peek as it is reached, like tail -f?")
    assert "No Definitive Answer Found" not in answer
    assert "keep trying to read when the end of file" in quick_answer(answer)


def _ranked(path: str, score: float, coverage: float, missing: tuple[str, ...], states_number: bool) -> Claim:
    return Claim(path, None, 1, 1, "x", "x", coverage, score, missing=missing, answers_kind=states_number)


def test_a_number_nearly_as_strong_leads_a_how_many_when_it_misses_only_the_users_words():
    """ "How many redirects does a client follow before giving up?": the best passage
    ("… a redirect that can be followed") states no number; the line setting
    ``MAX_REDIRECTS = 10`` scores nearly as well but misses "follow": a word of the
    user's, not a name the question writes, so the number leads. One missing a name
    the question writes ("AsyncResult") does not."""
    q = analyze("How many redirects does a wire client follow before giving up?")
    best = _ranked("sync.py", 0.690, 0.61, ("giving",), False)
    number = _ranked("client.py", 0.689, 0.43, ("follow", "giving"), True)
    assert lead_with_number(q, [best, number])[0] is number
    q = analyze("How often does the wire AsyncResult.get poll for the result by default?")
    best = _ranked("abortable.py", 0.948, 1.0, (), False)
    number = _ranked("task.py", 0.914, 0.75, ("asyncresult",), True)
    assert lead_with_number(q, [best, number])[0] is best
    # about as much about the question: the number leads whatever it misses
    number = _ranked("task.py", 0.914, 0.95, ("asyncresult",), True)
    assert lead_with_number(q, [best, number])[0] is number


def test_a_bare_directive_line_heads_its_text_and_is_not_the_answer(tmp_path):
    """ ".. attribute:: day_of_week" in celery's crontab docstring names what the
    lines under it are about, as a heading does: it restates the question and says
    nothing, so it does not lead (it did, at MEDIUM)."""
    root = sandbox(tmp_path, installed("celery/schedules.py"))
    quick, citations = ask_quick(root, "Does day_of_week='*/2' in a Celery crontab mean every other day?")
    assert citations
    assert ".. attribute::" not in quick.split("[c1]")[0]


def test_at_what_length_asks_for_an_amount(tmp_path):
    """ "At what line length does … wrap?" asks for a number as "What is the maximum
    length …?" does: the entry stating "Defaults to ``False`` and ``80``" leads over a
    sentence about line breaks that repeats more of the question's words."""
    assert analyze("At what line length does pager wrap paragraphs?").kind == "amount"
    assert analyze("Which column width does pager use?").wants == "count"
    assert analyze("What does pager do with long lines?").kind != "amount"
    root = sandbox(tmp_path, installed("markdownify-1.2.3.dist-info", "markdownify", "markdown"))
    quick, _ = ask_quick(
        root, "At what line length does markdownify break paragraphs when wrapping is turned on?"
    )
    assert "``80``" in quick.split("\n\n")[0]
