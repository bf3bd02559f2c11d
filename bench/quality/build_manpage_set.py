"""Build the support judge's held-out set on manual pages, a domain its rules were
not written from (every earlier set cites Python packages' source and docs):
``bench/quality/sets/support_set_manpages.jsonl``.

The cited texts are lines of manual pages as ``man`` renders them here
(``MANWIDTH=110 man --nh --nj -P cat SECTION PAGE``: no hyphenation, no
justification); the claims and labels below were written by reading those
lines, before the judge was run on any of them, with the labels of
``bench.quality.build_support_set`` (``supports``, ``partial``, ``unsupported``).
Every record keeps the cited text, so the set does not change with the pages.

    .venv/bin/python -m bench.quality.build_manpage_set      # rewrites the set
    .venv/bin/python -m bench.quality.support_judge --set manpages
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

OUT = Path(__file__).with_name("sets") / "support_set_manpages.jsonl"

# (page, section, package version, first line, last line, anchor, pairs); each pair is
# (label, category, claim, note). Lines are 1-based in the rendered page.
# fmt: off
PASSAGES = [
    ("adduser.conf", "5", "adduser 3.134", 18, 21, "DIR_MODE", [
        ("supports", "restate", "DIR_MODE sets the permissions mode of non-system users' home directories and defaults to 0700.", "both facts on the lines"),
        ("supports", "paraphrase", "By default adduser creates home directories for regular users with mode 0700.", "non-system users = regular users"),
        ("unsupported", "wrong number", "DIR_MODE defaults to 0755.", "0755 is SYS_DIR_MODE's, not here"),
        ("partial", "partial", "DIR_MODE defaults to 0700, and changing it requires restarting adduser.", "restart not stated"),
        ("unsupported", "other subject", "DIR_MODE sets the permissions of system users' home directories.", "non-system users only"),
    ]),
    ("adduser.conf", "5", "adduser 3.134", 23, 25, "DHOME", [
        ("supports", "restate", "New home directories are created in /home unless DHOME says otherwise.", "Defaults to /home"),
        ("supports", "restate", "The default login shell for new users is /bin/bash.", "DSHELL"),
        ("unsupported", "wrong value", "DSHELL defaults to /bin/sh.", "it is /bin/bash"),
        ("unsupported", "sibling name", "DHOME sets the login shell given to new users.", "that is DSHELL"),
        ("partial", "partial", "DSHELL defaults to /bin/bash and can be overridden with adduser's --shell option.", "--shell not on these lines"),
    ]),
    ("adduser.conf", "5", "adduser 3.134", 35, 46, "FIRST_UID", [
        ("supports", "restate", "UIDs for non-system users are allocated from 1000 to 59999 by default.", "FIRST_UID and LAST_UID"),
        ("supports", "paraphrase", "System users get UIDs between 100 and 999 unless configured otherwise.", "Defaults to 100 - 999"),
        ("unsupported", "wrong number", "By default, non-system users get UIDs from 1000 to 65535.", "59999"),
        ("unsupported", "other subject", "System groups are allocated GIDs from 1000 to 59999.", "that range is for non-system groups"),
        ("supports", "paraphrase", "Some system software assumes that UIDs below 100 are not allocated.", "base-passwd note"),
        ("partial", "partial", "Non-system GIDs default to 1000 - 59999, and adduser refuses to reuse a freed GID.", "reuse not stated"),
        ("unsupported", "flipped negation", "System software may assume that UIDs below 100 are already allocated.", "unallocated"),
    ]),
    ("adduser.conf", "5", "adduser 3.134", 61, 64, "LETTERHOMES", [
        ("supports", "restate", "With LETTERHOMES=yes a home directory like /home/u/user is created.", "the example"),
        ("supports", "paraphrase", "LETTERHOMES is off by default and is deprecated.", "Defaults to no; deprecated"),
        ("unsupported", "flipped negation", "LETTERHOMES is enabled by default.", "Defaults to no"),
        ("partial", "partial", "LETTERHOMES inserts the login name's first letter as an extra directory, and it applies to system users too.", "system users not stated"),
    ]),
    ("adduser.conf", "5", "adduser 3.134", 66, 71, "NAME_REGEX", [
        ("supports", "restate", "adduser refuses a non-system user name that does not match NAME_REGEX unless --allow-bad-names is set.", "on the lines"),
        ("supports", "paraphrase", "Passing --allow-bad-names makes adduser apply weaker name checks.", "weaker checks are performed"),
        ("unsupported", "wrong value", "NAME_REGEX defaults to ^[a-z_][-a-z0-9_]*$.", "that is SYS_NAME_REGEX's default; here ^[a-z][-a-z0-9_]*$"),
        ("unsupported", "other subject", "NAME_REGEX checks the names of system users.", "non-system"),
        ("partial", "partial", "Non-system user names are checked against NAME_REGEX, and names longer than 32 characters are rejected.", "length not stated"),
    ]),
    ("logrotate", "8", "logrotate 3.21.0", 162, 166, "rotate count", [
        ("supports", "restate", "With rotate 0, logrotate removes old versions instead of rotating them.", "If count is 0"),
        ("supports", "paraphrase", "Setting rotate to -1 keeps old logs forever unless maxage removes them.", "not removed at all, except maxage"),
        ("supports", "restate", "The rotate directive defaults to 0.", "Default is 0"),
        ("unsupported", "wrong number", "The rotate directive defaults to 4.", "Default is 0"),
        ("unsupported", "flipped negation", "With rotate -1, old logs are removed after the first rotation.", "not removed at all"),
        ("partial", "partial", "Logs are rotated count times before removal, and each rotation is compressed with gzip by default.", "compression not stated here"),
    ]),
    ("logrotate", "8", "logrotate 3.21.0", 168, 173, "olddir directory", [
        ("supports", "restate", "The olddir directory must be on the same physical device as the log unless copy, copytruncate or renamecopy is used.", "on the lines"),
        ("supports", "paraphrase", "A relative olddir is taken relative to the directory that holds the log file.", "assumed relative"),
        ("unsupported", "flipped negation", "The olddir directory may be on any device, whatever options are used.", "same physical device"),
        ("unsupported", "sibling name", "The noolddir option moves logs into the directory for rotation.", "noolddir overrides olddir"),
        ("partial", "partial", "With olddir all old versions end up in that directory, which logrotate creates if it is missing.", "creation not stated (createolddir)"),
    ]),
    ("logrotate", "8", "logrotate 3.21.0", 188, 190, "hourly", [
        ("supports", "paraphrase", "Hourly rotation only really happens if logrotate itself is run every hour.", "must run logrotate hourly"),
        ("supports", "restate", "logrotate is usually run daily by cron or by logrotate.timer.", "on the lines"),
        ("unsupported", "wrong value", "logrotate is usually run hourly by cron.", "daily"),
        ("partial", "partial", "The hourly directive rotates logs every hour, and it needs logrotate 3.8 or later.", "version not stated"),
    ]),
    ("logrotate", "8", "logrotate 3.21.0", 194, 198, "weekly [weekday]", [
        ("supports", "restate", "For weekly, 0 means Sunday and 6 means Saturday.", "on the lines"),
        ("supports", "paraphrase", "weekly with no weekday argument behaves as weekly 0.", "Defaults to 0 if omitted"),
        ("supports", "paraphrase", "weekly 7 rotates every seven days regardless of the weekday.", "special value 7"),
        ("unsupported", "wrong number", "For the weekly directive, 1 means Sunday.", "0 means Sunday; 1 is Monday"),
        ("unsupported", "wrong number", "weekly rotates logs once the date has advanced by at least 14 days.", "7 days"),
        ("partial", "partial", "weekly 7 rotates every 7 days, and weekly 8 rotates every 8 days.", "8 not stated"),
    ]),
    ("logrotate", "8", "logrotate 3.21.0", 206, 212, "size size", [
        ("supports", "restate", "size 100k rotates a log once it grows bigger than 100 kilobytes.", "k = kilobytes"),
        ("supports", "paraphrase", "The size directive cannot be combined with the time interval options.", "mutually exclusive"),
        ("unsupported", "wrong unit", "In the size directive, M means kilobytes.", "M is megabytes"),
        ("unsupported", "flipped negation", "size takes the last rotation time into account.", "without regard for the last rotation time"),
        ("partial", "partial", "size accepts the suffixes k, M and G, and T for terabytes.", "T not stated"),
    ]),
    ("logrotate", "8", "logrotate 3.21.0", 215, 230, "missingok", [
        ("supports", "restate", "With missingok, a missing log file is skipped without an error message.", "on the lines"),
        ("supports", "restate", "nomissingok is the default: a missing log file is reported as an error.", "This is the default"),
        ("supports", "paraphrase", "logrotate rotates empty logs by default, because ifempty is the default.", "ifempty is the default"),
        ("unsupported", "flipped negation", "notifempty makes logrotate rotate a log even when it is empty.", "do not rotate"),
        ("unsupported", "other subject", "missingok is the default behaviour for missing logs.", "nomissingok is"),
        ("partial", "partial", "notifempty skips empty logs, and it also skips logs smaller than 1 kilobyte.", "size not stated"),
    ]),
    ("logrotate", "8", "logrotate 3.21.0", 232, 238, "minage count", [
        ("supports", "restate", "maxage removes rotated logs older than the given number of days.", "on the lines"),
        ("supports", "paraphrase", "minage stops logrotate from rotating logs younger than the given number of days.", "less than <count> days old"),
        ("unsupported", "sibling name", "minage removes rotated logs older than the given number of days.", "that is maxage"),
        ("unsupported", "flipped negation", "The age for maxage is checked even when the log is not rotated.", "only if the logfile is to be rotated"),
        ("partial", "partial", "maxage counts in days, and the files it removes are mailed to root by default.", "root not stated"),
    ]),
]
# fmt: on


def render(page: str, section: str) -> list[str]:
    env = dict(os.environ, MANWIDTH="110")
    out = subprocess.run(
        ["man", "--nh", "--nj", "-P", "cat", section, page],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.split("\n")


def main() -> None:
    records = []
    pages: dict[tuple[str, str], list[str]] = {}
    for n, (page, section, version, first, last, anchor, pairs) in enumerate(PASSAGES):
        lines = pages.setdefault((page, section), render(page, section))
        cited = "\n".join(lines[first - 1 : last])
        if anchor not in cited:
            raise SystemExit(
                f"{page}({section}) lines {first}-{last} no longer hold {anchor!r}: render the page again"
            )
        for m, (label, category, claim, note) in enumerate(pairs, start=1):
            records.append({
                "id": f"m{n:02d}-{m}", "split": "manpages", "package": version.split()[0], "version": version.split()[1],
                "source": f"man {section} {page}", "line_start": first, "line_end": last, "cited": cited,
                "claim": claim, "label": label, "category": category, "note": note,
            })  # fmt: skip
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    print(f"{len(records)} pairs over {len(PASSAGES)} passages -> {OUT}")


if __name__ == "__main__":
    main()
