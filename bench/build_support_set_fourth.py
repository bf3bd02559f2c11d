"""Build bench/support_set_fourth.jsonl: a fourth held-out set for the support judge.

bench/support_set_third.jsonl's errors were read to fix the judge, so it can
no longer measure those fixes honestly. This set takes passages from files
that no earlier set (bench/support_set.jsonl, bench/support_set_fresh.jsonl,
bench/support_set_third.jsonl) nor bench/support_outside.py cites, and from
packages none of them used: redis-py's ``Lock``, Werkzeug's
``secure_filename``, ``redirect`` and ``generate_password_hash``, Celery's
``crontab``, kombu's ``Producer.publish``, dateutil's ``relativedelta``,
click's ``FloatRange``, Django's ``HttpResponse.set_cookie`` and
``make_password``, MarkupSafe's ``escape``/``escape_silent``/``soft_str``
and sortedcontainers' ``SortedList.irange``. Claims and labels were written
by reading the cited lines, and the set was committed before the judge was
run on any of it, under the same definitions as bench/build_support_set.py
(``supports`` / ``partial`` = a sentence joining facts, some stated and the
rest neither stated nor contradicted / ``unsupported``). Every record is in
the ``fourth`` split; the schema is the same. The builder refuses a source
file an earlier set cites.

    .venv/bin/python bench/build_support_set_fourth.py   # rewrites bench/support_set_fourth.jsonl
    .venv/bin/python bench/eval_support.py --set bench/support_set_fourth.jsonl
"""

from __future__ import annotations

from pathlib import Path

from build_support_set import cited_sources, records_from, write_set

OUT = Path(__file__).with_name("support_set_fourth.jsonl")
EARLIER = ("support_set.jsonl", "support_set_fresh.jsonl", "support_set_third.jsonl")
S, P, U = "supports", "partial", "unsupported"

LOCK = "redis/lock.py"
WUTILS = "werkzeug/utils.py"
WSEC = "werkzeug/security.py"
CRON = "celery/schedules.py"
KOMBU = "kombu/messaging.py"
RD = "dateutil/relativedelta.py"
CLICK = "click/types.py"
RESP = "django/http/response.py"
HASH = "django/contrib/auth/hashers.py"
MSAFE = "markupsafe/__init__.py"
SL = "sortedcontainers/sortedlist.py"

# (distribution, file, first line, last line, anchor that must be in the text, pairs)
# pair: (label, category, claim, note)
PASSAGES = [
    ("redis", LOCK, 90, 144, "``timeout`` indicates a maximum life", [
        (S, "restate", "timeout is the maximum life of the lock in seconds.", "stated"),
        (S, "paraphrase", "Without a timeout, the lock stays locked until release() is called.", "By default, it will remain locked until release() is called"),
        (U, "near_miss", "sleep is the maximum amount of time in seconds to spend trying to acquire the lock.", "that is blocking_timeout"),
        (S, "restate", "blocking defaults to True.", "Defaults to True."),
        (U, "wrong_value", "blocking defaults to False.", "True"),
        (S, "paraphrase", "A blocking_timeout of None means acquire keeps trying forever.", "A value of None indicates continue trying forever"),
        (U, "negation", "By default, the lock token is not placed in thread-local storage.", "by default it is"),
        (U, "unit", "sleep is the time to sleep in milliseconds per loop iteration.", "seconds"),
        (P, "partial", "raise_on_release_error defaults to True, and the lock is released automatically after 10 seconds.", "automatic release not stated"),
        (S, "paraphrase", "If raise_on_release_error is False, the exception is suppressed and a warning is logged.", "stated"),
        (U, "contradiction", "If raise_on_release_error is False, the exception is raised and no warning is logged.", "suppressed, warning logged"),
        (P, "partial", "A blocking argument passed to acquire overrides the blocking value, and acquire retries five times.", "retry count not stated"),
        (U, "near_miss", "thread_local indicates whether to raise an exception when the lock is no longer owned when exiting the context manager.", "that is raise_on_release_error"),
    ]),
    ("Werkzeug", WUTILS, 188, 208, "def secure_filename", [
        (S, "restate", "secure_filename may return an empty string if nothing in the filename could be safely preserved.", "stated"),
        (S, "paraphrase", "secure_filename replaces whitespace with underscores.", "whitespace are replaced with _"),
        (U, "contradiction", "secure_filename replaces underscores with whitespace.", "the other way"),
        (U, "negation", "secure_filename checks whether the file exists.", "it does not validate if the file does or does not exist"),
        (S, "paraphrase", "On Windows, device names such as CON and NUL get an underscore prefix.", "prefixed with _"),
        (U, "contradiction", "On Windows, device names such as CON and NUL are removed from the filename.", "prefixed, not removed"),
        (S, "paraphrase", "Unicode characters are decomposed according to NFKD and replaced with ASCII equivalents.", "stated"),
        (U, "wrong_value", "Unicode characters are normalised according to NFC.", "NFKD"),
        (P, "partial", "secure_filename was added in version 0.5, and it limits filenames to 255 characters.", "length limit not stated"),
        (U, "number", "secure_filename was added in version 0.6.", "0.5"),
    ]),
    ("Werkzeug", WUTILS, 235, 256, "def redirect(", [
        (S, "restate", "redirect's default status code is 302.", "defaults to 302"),
        (U, "number", "redirect's default status code is 301.", "302"),
        (S, "paraphrase", "redirect does not support status code 300 because it is not a real redirect.", "stated"),
        (U, "number", "redirect supports status code 304.", "304 is not supported"),
        (S, "restate", "redirect supports the codes 307 and 308.", "in the list"),
        (P, "partial", "redirect supports code 303, and it sets a Cache-Control header on the response.", "header not stated"),
        (S, "paraphrase", "If no Response class is given, redirect uses werkzeug.wrappers.Response.", "The default is werkzeug.wrappers.Response if unspecified"),
        (U, "number", "The Response class can be passed in since version 0.6.", "0.10; 0.6 is the unicode location"),
        (U, "near_miss", "The location parameter is the redirect status code.", "that is code"),
    ]),
    ("Werkzeug", WSEC, 88, 121, "def generate_password_hash(", [
        (S, "restate", "scrypt is the default method of generate_password_hash.", "scrypt, the default"),
        (U, "near_miss", "pbkdf2 is the default method of generate_password_hash.", "scrypt is"),
        (S, "restate", "The default parameters for scrypt are scrypt:32768:8:1.", "stated"),
        (U, "number", "The default parameters for scrypt are scrypt:16384:8:1.", "32768"),
        (S, "paraphrase", "pbkdf2 is less secure than scrypt.", "pbkdf2, less secure"),
        (U, "unit", "salt_length is the number of bytes to generate for the salt.", "characters"),
        (S, "restate", "salt_length defaults to 16.", "signature"),
        (U, "number", "salt_length defaults to 8.", "16"),
        (S, "restate", "Scrypt support was added in Werkzeug 2.3.", "versionchanged 2.3"),
        (P, "partial", "Scrypt support was added in 2.3, and scrypt's default parameters are measured on each machine.", "second part not stated"),
        (U, "negation", "Plain hashes are still supported in Werkzeug 3.0.", "will not be supported in 3.0"),
    ]),
    ("celery", CRON, 354, 411, "class crontab", [
        (S, "restate", "A crontab can be used as the run_every value of a periodic task entry.", "stated"),
        (S, "restate", "The hour attribute takes integers from 0-23.", "stated"),
        (U, "number", "The minute attribute takes integers from 0-60.", "0-59"),
        (S, "paraphrase", "In day_of_week, Sunday is 0 and Saturday is 6.", "Sunday = 0 and Saturday = 6"),
        (U, "contradiction", "In day_of_week, Saturday is 0 and Sunday is 6.", "the other way"),
        (S, "paraphrase", "hour='*/3' runs the task every three hours.", "for every three hours"),
        (U, "contradiction", "day_of_week='*/2' means every two days.", "does not literally mean every two days"),
        (S, "paraphrase", "day_of_week='mon-fri' schedules the task on weekdays only.", "for weekdays only"),
        (U, "number", "day_of_month takes integers from 0-31.", "1-31"),
        (S, "restate", "month_of_year='2-12/2' means every even numbered month.", "stated"),
        (U, "near_miss", "day_of_month='2-30/2' means every even numbered month.", "every even numbered day"),
        (P, "partial", "day_of_month='1-7,15-21' covers the first and third weeks of the month, and crontab uses UTC by default.", "time zone not stated"),
        (P, "partial", "month_of_year takes integers from 1-12, and the year attribute takes integers from 1970 on.", "no year attribute here"),
    ]),
    ("kombu", KOMBU, 284, 324, "def publish(self, body", [
        (S, "restate", "priority is a number between 0 and 9.", "stated"),
        (U, "number", "priority is a number between 0 and 10.", "0 and 9"),
        (S, "restate", "mandatory is currently not supported.", "stated"),
        (U, "negation", "publish supports the immediate flag.", "Currently not supported"),
        (S, "paraphrase", "By default, publish auto-detects the serializer.", "Default is auto-detect"),
        (S, "paraphrase", "By default, published messages do not expire.", "Default is no expiration"),
        (U, "unit", "expiration is a TTL given in milliseconds.", "seconds (the code converts it to ms)"),
        (U, "wrong_value", "The default compression of publish is gzip.", "none"),
        (S, "restate", "An exchange passed to publish must have been declared.", "Note that this exchange must have been declared"),
        (P, "partial", "With retry, publish retries if the connection is lost, and it gives up after three attempts.", "attempt count not stated"),
        (U, "near_miss", "confirm_timeout is the maximum time to wait for the message to publish.", "that is timeout; confirm_timeout waits for the confirmation"),
        (S, "restate", "The entities in declare are declared using maybe_declare.", "stated"),
        (P, "partial", "priority defaults to 0, and messages with priority 9 are delivered first.", "delivery order not stated"),
    ]),
    ("python-dateutil", RD, 18, 69, "class relativedelta", [
        (S, "restate", "There are two different ways to build a relativedelta instance.", "stated"),
        (S, "paraphrase", "Singular arguments such as year and month replace the corresponding value in the original datetime.", "absolute information REPLACES"),
        (U, "contradiction", "Adding a relativedelta with absolute information performs an arithmetic operation on the original datetime.", "does not perform"),
        (S, "paraphrase", "Relative arguments such as years and months may be negative.", "may be negative"),
        (U, "contradiction", "The arguments with relative information are singular.", "plural"),
        (S, "restate", "relativedelta does not implement the same algorithm as mx.DateTime.", "stated"),
        (U, "negation", "relativedelta implements the same algorithm as mx.DateTime.", "does NOT"),
        (S, "restate", "Not specifying N for a weekday instance is the same as specifying +1.", "stated"),
        (U, "number", "Not specifying N for a weekday instance is the same as specifying 0.", "+1"),
        (S, "paraphrase", "When weekday is given as an integer, 0 is Monday.", "0=MO"),
        (U, "number", "leapdays only adds its days if the date found is after February 29.", "post 28 of february"),
        (P, "partial", "leapdays adds days when the year is a leap year, and yearday counts from zero.", "yearday's origin not stated"),
        (P, "partial", "yearday and nlyearday are converted to day, month and leapdays information, and they are ignored when day is given.", "second part not stated"),
    ]),
    ("python-dateutil", RD, 70, 103, "The order of attributes considered", [
        (S, "paraphrase", "For each argument, the absolute form is applied before the relative form.", "absolute first, then relative"),
        (U, "contradiction", "For each argument, the relative form is applied before the absolute form.", "the other way"),
        (S, "paraphrase", "Weekday is applied last.", "Finally, weekday is applied"),
        (U, "contradiction", "Weekday is applied first.", "last"),
        (S, "paraphrase", "Months are considered before days when a relativedelta is added to a datetime.", "2. Month, 3. Day"),
        (U, "contradiction", "Seconds are considered before minutes when a relativedelta is added to a datetime.", "5. Minutes, 6. Seconds"),
        (S, "restate", "In the example, the day is first set to 1, then 25 hours are added.", "stated"),
        (U, "number", "In the example, the day is first set to 1, then 24 hours are added.", "25"),
        (S, "restate", "In the example, the weekday has no effect because the 2nd is already a Monday.", "stated"),
        (P, "partial", "The plural is relative and the singular absolute, and mixing both in one call raises ValueError.", "ValueError not stated"),
    ]),
    ("click", CLICK, 776, 807, "class FloatRange", [
        (S, "restate", "If min is not passed, FloatRange accepts any value in that direction.", "stated"),
        (S, "paraphrase", "With min_open enabled, the minimum boundary is not included in the range.", "corresponding boundary is not included"),
        (U, "negation", "With max_open enabled, the maximum boundary is included in the range.", "not included"),
        (S, "restate", "With clamp enabled, a value outside the range is clamped to the boundary instead of failing.", "stated"),
        (U, "contradiction", "With clamp enabled, a value outside the range fails instead of being clamped to the boundary.", "the other way"),
        (S, "paraphrase", "Clamping is not supported when either boundary is open.", "stated"),
        (U, "negation", "FloatRange supports clamping with open bounds.", "not supported"),
        (S, "paraphrase", "Combining clamp with min_open raises TypeError.", "code"),
        (U, "wrong_value", "Combining clamp with max_open raises ValueError.", "TypeError"),
        (S, "restate", "The min_open and max_open parameters were added in 8.0.", "stated"),
        (U, "number", "The min_open and max_open parameters were added in 7.0.", "8.0"),
        (P, "partial", "clamp defaults to False, and clamped values are logged as warnings.", "logging not stated"),
        (P, "partial", "FloatRange restricts a click.FLOAT value to a range of accepted values, and it rounds values to two decimal places.", "rounding not stated"),
    ]),
    ("Django", RESP, 221, 271, "def set_cookie(", [
        (S, "restate", "set_cookie's path defaults to '/'.", "signature"),
        (U, "wrong_value", "set_cookie's httponly defaults to True.", "False"),
        (S, "paraphrase", "max_age can be an int or float of seconds, or a timedelta.", "stated"),
        (U, "unit", "max_age given as an int is a number of milliseconds.", "seconds"),
        (S, "paraphrase", "A naive datetime passed as expires is taken to be in UTC.", "a naive datetime.datetime object in UTC"),
        (U, "contradiction", "A naive datetime passed as expires is taken to be in the current time zone.", "UTC"),
        (S, "paraphrase", "Passing a datetime as expires together with max_age raises ValueError.", "code"),
        (U, "wrong_value", "Passing a datetime as expires together with max_age raises TypeError.", "ValueError"),
        (S, "paraphrase", "When expires is a datetime, set_cookie adds one second to the delta so the date matches exactly.", "comment and code"),
        (U, "number", "When expires is a datetime, set_cookie adds two seconds to the delta.", "one second"),
        (S, "paraphrase", "When max_age is given without expires, set_cookie also sets expires because IE requires it.", "comment and code"),
        (P, "partial", "secure defaults to False, and a secure cookie is only sent over HTTPS.", "what secure means is not stated"),
        (P, "partial", "set_cookie converts a timedelta max_age to seconds, and it URL-encodes the cookie value.", "encoding not stated"),
    ]),
    ("Django", HASH, 100, 118, "def make_password", [
        (S, "paraphrase", "make_password generates a new random salt.", "stated"),
        (S, "paraphrase", "If password is None, make_password returns UNUSABLE_PASSWORD_PREFIX followed by a random string.", "a concatenation of UNUSABLE_PASSWORD_PREFIX and a random string"),
        (U, "negation", "A password of None gives a hash that allows logins.", "disallows logins"),
        (U, "wrong_value", "make_password raises ValueError for a password that is neither a string nor bytes.", "TypeError"),
        (S, "paraphrase", "make_password raises TypeError when the password is neither bytes nor a string.", "code"),
        (U, "other_subject", "check_password turns a plaintext password into a hash for database storage.", "that is make_password; check_password is not in the lines"),
        (S, "paraphrase", "make_password uses the default hasher unless another is given.", "hasher=\"default\""),
        (P, "partial", "make_password turns a plaintext password into a hash for database storage, and the hash is 128 characters long.", "length not stated"),
        (U, "contradiction", "make_password reuses the salt of the previous hash.", "generates a new random salt"),
    ]),
    ("MarkupSafe", MSAFE, 24, 81, "def escape(s", [
        (S, "restate", "escape replaces the characters &, <, >, ' and \" with HTML-safe sequences.", "stated"),
        (U, "contradiction", "escape replaces & and < but leaves > unchanged.", "> is replaced"),
        (S, "paraphrase", "If the object has an __html__ method, escape calls it and assumes the result is already safe for HTML.", "stated"),
        (U, "negation", "escape does not call an object's __html__ method.", "it is called"),
        (S, "restate", "escape_silent treats None as the empty string.", "stated"),
        (U, "near_miss", "escape treats None as the empty string.", "that is escape_silent; escape(None) is Markup('None')"),
        (S, "restate", "escape(None) returns Markup('None').", "doctest"),
        (S, "paraphrase", "soft_str keeps a Markup string marked as safe, so it won't be escaped again.", "stated"),
        (U, "contradiction", "soft_str converts a Markup string back to a basic string.", "rather than converting it back"),
        (P, "partial", "escape returns a Markup string, and it is implemented in C for speed.", "implementation not stated"),
    ]),
    ("sortedcontainers", SL, 1072, 1097, "def irange(self, minimum", [
        (S, "restate", "Both minimum and maximum default to None.", "stated"),
        (S, "paraphrase", "By default, irange includes both the minimum and the maximum.", "inclusive of both"),
        (U, "contradiction", "By default, irange excludes the maximum.", "(True, True)"),
        (S, "restate", "reverse defaults to False.", "stated"),
        (U, "wrong_value", "reverse defaults to True.", "False"),
        (S, "restate", "The inclusive argument is a pair of booleans.", "stated"),
        (S, "paraphrase", "With reverse set to True, irange yields the values in reverse order.", "stated"),
        (U, "near_miss", "The inclusive argument makes irange yield values in reverse order.", "that is reverse"),
        (U, "number", "For SortedList('abcdefghij'), irange('c', 'f') yields three values.", "four: c, d, e, f"),
        (P, "partial", "irange creates an iterator of values between minimum and maximum, and it raises ValueError when minimum is greater than maximum.", "error not stated"),
    ]),
]  # fmt: skip


def build() -> list[dict]:
    reused = {source for _, source, *_ in PASSAGES} & cited_sources(EARLIER)
    if reused:
        raise SystemExit(f"an earlier set already cites {sorted(reused)}")
    return records_from(PASSAGES, prefix="f", split_of=lambda index: "fourth")


def main() -> None:
    write_set(build(), OUT, len(PASSAGES))


if __name__ == "__main__":
    main()
