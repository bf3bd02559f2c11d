"""Build bench/support_set_fresh.jsonl: a second, fresh held-out set for the support judge.

bench/support_set.jsonl's held-out part was read once after tuning, so it
can no longer measure later changes honestly. This set takes passages from
files none of its 57 passages (nor bench/support_outside.py) come from:
django.utils.http, django.utils.crypto, django.utils.timesince,
django.core.mail, django.core.validators, click.termui's ``prompt`` and
``confirm``, redis-py ``expire``/``getex``/``incrby``/``ltrim``,
Python-Markdown's toc extension and kombu's ``Connection``. Claims and labels
were written by reading the cited lines, before the judge was run on any of
them, under the same definitions as bench/build_support_set.py (``supports``
/ ``partial`` = a sentence joining facts, some stated / ``unsupported``).
Every record is in the ``fresh`` split; the schema is the same.

    .venv/bin/python bench/build_support_set_fresh.py   # rewrites bench/support_set_fresh.jsonl
    .venv/bin/python bench/eval_support.py --set bench/support_set_fresh.jsonl
"""

from __future__ import annotations

from pathlib import Path

from build_support_set import records_from, write_set

OUT = Path(__file__).with_name("support_set_fresh.jsonl")
S, P, U = "supports", "partial", "unsupported"

HTTP = "django/utils/http.py"
CRYPTO = "django/utils/crypto.py"
TIMESINCE = "django/utils/timesince.py"
TERMUI = "click/termui.py"
REDIS = "redis/commands/core.py"
TOC = "markdown/extensions/toc.py"
KOMBU = "kombu/connection.py"

# (distribution, file, first line, last line, anchor that must be in the text, pairs)
# pair: (label, category, claim, note)
PASSAGES = [
    ("Django", CRYPTO, 22, 32, "def salted_hmac", [
        (S, "restate", "salted_hmac uses SHA1 by default.", "Default algorithm is SHA1"),
        (S, "paraphrase", "If no secret is passed, salted_hmac uses settings.SECRET_KEY.", "secret defaults to settings.SECRET_KEY"),
        (U, "wrong_value", "The default algorithm of salted_hmac will change to SHA512 in Django 2028.", "SHA256"),
        (U, "number", "The default algorithm of salted_hmac will change to SHA256 in Django 2027.", "2028"),
        (U, "negation", "salted_hmac does not accept algorithms other than SHA1.", "any algorithm name supported by hashlib"),
        (P, "partial", "salted_hmac derives its key from key_salt and the secret, and its result is always 20 bytes long.", "length not stated"),
        (S, "paraphrase", "Passing an explicit algorithm to salted_hmac silences the deprecation warning.", "provide an explicit algorithm to silence the warning"),
    ]),
    ("Django", CRYPTO, 63, 77, "def get_random_string", [
        (S, "restate", "get_random_string returns a securely generated random string.", "stated"),
        (S, "paraphrase", "With the default characters, a 12-character string from get_random_string carries about 71 bits.", "length 12 -> ~71 bits"),
        (U, "number", "With the default allowed_chars, a length of 22 gives about 128 bits.", "131 bits"),
        (S, "paraphrase", "The default allowed_chars of get_random_string are 26 lowercase letters, 26 uppercase letters and 10 digits.", "26+26+10 and RANDOM_STRING_CHARS"),
        (U, "contradiction", "The default allowed_chars of get_random_string include punctuation.", "letters and digits only"),
        (P, "partial", "get_random_string picks each character with secrets.choice and is meant for password reset tokens.", "use for tokens not stated"),
        (U, "unit", "With the default characters, a length of 12 gives about 71 bytes of randomness.", "bits"),
    ]),
    ("Django", HTTP, 88, 99, "def http_date", [
        (S, "restate", "http_date formats the time in the RFC 5322 date format as specified by RFC 9110 Section 5.6.7.", "stated"),
        (S, "paraphrase", "When epoch_seconds is None, http_date uses the current time.", "defaults to the current time"),
        (U, "unit", "http_date expects epoch_seconds in milliseconds since the epoch.", "seconds"),
        (U, "number", "http_date follows the date format of RFC 9110 Section 5.6.9.", "5.6.7"),
        (S, "paraphrase", "The string returned by http_date ends with GMT.", "'Wdy, DD Mon YYYY HH:MM:SS GMT'"),
        (P, "partial", "http_date takes seconds since the epoch and is what Django uses for the Expires header.", "Expires not stated"),
        (U, "wrong_value", "http_date outputs a string in the format 'YYYY-MM-DD HH:MM:SS'.", "'Wdy, DD Mon YYYY HH:MM:SS GMT'"),
    ]),
    ("Django", HTTP, 102, 130, "def parse_http_date", [
        (S, "restate", "parse_http_date accepts the three date formats allowed by RFC 9110.", "stated"),
        (S, "paraphrase", "parse_http_date returns an integer number of seconds since the epoch, in UTC.", "stated"),
        (U, "negation", "parse_http_date does not support RFC 850 dates.", "RFC 9110 makes it mandatory; they roll their own"),
        (U, "number", "A two-digit year more than 40 years in the future is read as a past year.", "50"),
        (S, "paraphrase", "parse_http_date treats a two-digit year that would be over 50 years in the future as a year in the past.", "stated in the comment and code"),
        (U, "near_miss", "email.utils.parsedate() handles RFC 850 dates, which is why parse_http_date uses it.", "it does RFC 1123; RFC 850 forced own parsing"),
        (P, "partial", "parse_http_date raises ValueError for a date in none of its formats, and Django uses it to read the If-Modified-Since header.", "If-Modified-Since not stated"),
        (U, "contradiction", "parse_http_date accepts only the first of the three RFC formats.", "all three are accepted"),
    ]),
    ("Django", HTTP, 142, 149, "def parse_http_date_safe", [
        (S, "restate", "parse_http_date_safe returns None if the input is invalid.", "stated"),
        (U, "contradiction", "parse_http_date_safe raises an exception when the date is invalid.", "except Exception: pass"),
        (P, "partial", "parse_http_date_safe returns None for invalid input and logs a warning.", "logging not stated"),
        (S, "paraphrase", "Apart from returning None on invalid input, parse_http_date_safe is the same as parse_http_date.", "Same as parse_http_date"),
    ]),
    ("Django", HTTP, 155, 165, "def base36_to_int", [
        (S, "restate", "base36_to_int raises ValueError if the input won't fit into an int.", "stated"),
        (S, "paraphrase", "base36_to_int rejects base36 strings longer than 13 digits to avoid overconsuming server resources.", "stated"),
        (U, "number", "base36_to_int rejects base36 strings longer than 16 digits.", "13"),
        (S, "paraphrase", "Thirteen base36 digits are enough to encode any 64-bit integer.", "stated"),
        (U, "number", "Thirteen base36 digits are enough to encode any 128-bit integer.", "64-bit"),
        (U, "other_subject", "int_to_base36 raises 'Base36 input too large' for strings longer than 13 digits.", "that is base36_to_int"),
        (P, "partial", "base36_to_int rejects inputs longer than 13 characters and lowercases the string before converting it.", "lowercasing not stated"),
    ]),
    ("Django", HTTP, 168, 179, "def int_to_base36", [
        (S, "restate", "int_to_base36 raises ValueError for a negative input.", "Negative base36 conversion input"),
        (S, "paraphrase", "int_to_base36 returns integers below 36 as a single character.", "char_set[i]"),
        (U, "negation", "int_to_base36 accepts negative integers.", "raises ValueError"),
        (U, "wrong_value", "int_to_base36 writes digits above 9 as uppercase letters A to Z.", "lowercase char_set"),
        (P, "partial", "int_to_base36 converts an integer to a base36 string and is used in password reset tokens.", "use not stated"),
        (U, "number", "int_to_base36 returns any integer below 64 as a single character.", "below 36"),
    ]),
    ("Django", HTTP, 256, 272, "def is_same_domain", [
        (S, "restate", "is_same_domain returns True if the host is an exact match or matches the wildcard pattern.", "stated"),
        (S, "paraphrase", "A pattern beginning with a period, such as .example.com, matches example.com and all of its subdomains.", "stated"),
        (U, "negation", "The pattern .example.com does not match example.com itself.", "it matches example.com"),
        (S, "paraphrase", "is_same_domain returns False when the pattern is empty.", "if not pattern: return False"),
        (U, "contradiction", "Patterns that do not begin with a period are matched as regular expressions.", "exact string match"),
        (P, "partial", "is_same_domain lowercases the pattern and strips any port from the host.", "port not stated"),
        (U, "contradiction", "foo.example.com matches the pattern example.com.", "without the period it is an exact match"),
    ]),
    ("Django", HTTP, 276, 288, "def url_has_allowed_host_and_scheme", [
        (S, "restate", "url_has_allowed_host_and_scheme always returns False on an empty url.", "stated"),
        (S, "paraphrase", "With require_https set to True, only https is considered a valid scheme.", "stated"),
        (U, "negation", "require_https defaults to True.", "default False"),
        (S, "paraphrase", "By default url_has_allowed_host_and_scheme accepts both http and https.", "'http' and 'https' with the default"),
        (U, "contradiction", "A True result from url_has_allowed_host_and_scheme guarantees that the URL is safe.", "doesn't entail that a URL is safe"),
        (P, "partial", "url_has_allowed_host_and_scheme checks the host and scheme and also percent-encodes the path.", "encoding not done here"),
        (U, "wrong_value", "The docstring recommends django.utils.encoding.uri_to_iri() on the path of untrusted URLs.", "iri_to_uri"),
        (P, "partial", "url_has_allowed_host_and_scheme returns False for an empty url and treats allowed_hosts=None as an empty set.", "None handling is below these lines"),
    ]),
    ("click", TERMUI, 168, 207, "def prompt(", [
        (S, "restate", "The prompt_suffix of click.prompt defaults to ': '.", "stated"),
        (S, "paraphrase", "If the user sends an interrupt signal, click.prompt raises Abort.", "stated"),
        (S, "paraphrase", "Without a default, click.prompt keeps prompting until the input is aborted.", "stated"),
        (U, "negation", "click.prompt hides the input by default.", "hide_input: bool = False"),
        (U, "near_miss", "value_proc is a suffix that is added to the prompt.", "that is prompt_suffix"),
        (P, "partial", "With hide_input=True, click.prompt hides the input and echoes an asterisk for each character.", "asterisks not stated"),
        (S, "paraphrase", "With err=True, click.prompt writes to stderr instead of stdout.", "stated"),
        (U, "wrong_value", "With a Choice of day or week and text 'Group by', the prompt is 'Group by [day|week]: '.", "(day, week)"),
    ]),
    ("click", TERMUI, 289, 314, "def confirm(", [
        (S, "restate", "The default of click.confirm is False.", "default: bool | None = False"),
        (S, "paraphrase", "If default is None, click.confirm repeats the question until input is given.", "stated"),
        (U, "contradiction", "With abort=True, a positive answer to click.confirm raises Abort.", "a negative answer"),
        (U, "number", "Since click 8.0, confirm no longer appends a space to the prompt.", "8.3.1"),
        (P, "partial", "click.confirm asks a yes/no question and accepts 'y' or 'yes' as an answer.", "accepted answers not stated"),
        (S, "paraphrase", "An interrupt signal during click.confirm raises Abort.", "stated"),
        (U, "near_miss", "show_default is a suffix that should be added to the prompt.", "that is prompt_suffix"),
    ]),
    ("redis", REDIS, 3003, 3024, "def expire(", [
        (S, "restate", "expire sets an expire flag on key name for time seconds.", "stated"),
        (S, "paraphrase", "The time given to expire can be an integer or a Python timedelta.", "stated"),
        (S, "paraphrase", "With NX, expire sets the expiry only when the key has no expiry.", "stated"),
        (U, "near_miss", "With XX, expire sets the expiry only when the key has no expiry.", "that is NX"),
        (U, "near_miss", "GT sets the expiry only when the new expiry is less than the current one.", "that is LT"),
        (U, "unit", "expire takes its time in milliseconds.", "seconds"),
        (P, "partial", "expire supports the NX, XX, GT and LT options, which need Redis 7.0 or later.", "version not stated"),
    ]),
    ("redis", REDIS, 3245, 3273, "def getex(", [
        (S, "restate", "GETEX gets the value of a key and optionally sets its expiration.", "stated"),
        (S, "paraphrase", "Unlike GET, GETEX is a write command.", "similar to GET, but is a write command"),
        (U, "contradiction", "GETEX is a read-only command like GET.", "a write command"),
        (U, "unit", "getex's px sets the expire flag for px seconds.", "milliseconds"),
        (S, "paraphrase", "getex's persist removes the time to live of the key.", "stated"),
        (U, "near_miss", "getex's exat sets the expiry in milliseconds, specified in unix time.", "that is pxat; exat is seconds"),
        (P, "partial", "getex takes its time parameters as timedelta or integers and returns None when the key does not exist.", "missing key not stated"),
    ]),
    ("redis", REDIS, 3374, 3383, "def incrby(", [
        (S, "restate", "incrby increments the value of key by amount.", "stated"),
        (S, "paraphrase", "If the key does not exist, incrby initializes its value to amount.", "stated"),
        (U, "number", "The amount of incrby defaults to 0.", "1"),
        (S, "paraphrase", "incr is an alias of incrby.", "incr = incrby"),
        (U, "contradiction", "incrby raises an error when the key does not exist.", "initialized as amount"),
        (P, "partial", "incrby adds amount to the stored value and fails if that value is not an integer.", "error not stated"),
    ]),
    ("redis", REDIS, 5198, 5206, "def ltrim(", [
        (S, "restate", "ltrim trims the list name, removing all values not within the slice between start and end.", "stated"),
        (S, "paraphrase", "ltrim's start and end may be negative, like in Python slicing.", "stated"),
        (U, "negation", "ltrim's start and end cannot be negative numbers.", "they can"),
        (U, "contradiction", "ltrim removes the values between start and end and keeps the rest.", "it keeps the slice"),
        (P, "partial", "ltrim keeps only the values between start and end and deletes the key when nothing is left.", "deletion not stated"),
    ]),
    ("Markdown", TOC, 447, 467, "'marker': [", [
        (S, "restate", "The toc marker defaults to [TOC].", "stated"),
        (S, "paraphrase", "Setting the toc marker to an empty string disables it.", "stated"),
        (U, "near_miss", "title_class defaults to 'toc'.", "toctitle; toc is toc_class"),
        (S, "paraphrase", "The toc title is an empty string by default.", "stated"),
        (U, "negation", "anchorlink is True by default.", "False"),
        (P, "partial", "anchorlink makes each header a link to itself and adds a pilcrow sign after it.", "pilcrow not stated"),
    ]),
    ("Markdown", TOC, 468, 492, "'permalink': [", [
        (S, "restate", "permalink_title defaults to 'Permanent link'.", "stated"),
        (S, "paraphrase", "By default permalinks are placed at the end of the header rather than the start.", "permalink_leading False"),
        (U, "number", "baselevel defaults to 2.", "1"),
        (U, "wrong_value", "The default word separator is '_'.", "'-'"),
        (S, "restate", "toc_depth defaults to 6.", "stated"),
        (U, "wrong_value", "permalink_class defaults to 'toclink'.", "headerlink"),
        (P, "partial", "toc_depth can be a range such as '2-5', and headers outside it are removed from the document.", "removal not stated"),
        (U, "number", "The toc_depth string '2-5' makes 2 the top level and 6 the bottom level.", "5 is the bottom"),
    ]),
    ("kombu", KOMBU, 109, 132, "SSL currently only works", [
        (S, "restate", "SSL currently only works with the py-amqp, qpid and redis transports.", "stated"),
        (S, "paraphrase", "For transports without SSL support, kombu suggests using stunnel.", "stated"),
        (U, "other_subject", "SSL works with kombu's librabbitmq transport.", "not listed"),
        (P, "partial", "SSL only works with the py-amqp, qpid and redis transports, and the redis transport needs a rediss:// URL for it.", "rediss:// not stated"),
        (S, "paraphrase", "The ssl argument of Connection is False by default.", "Default is False"),
        (U, "unit", "Connection's connect_timeout is given in milliseconds.", "seconds"),
        (U, "unit", "With heartbeats enabled, heartbeat_check must be called about once per minute.", "once per second"),
        (P, "partial", "Connection takes a heartbeat interval in seconds, and heartbeats default to 60 seconds.", "default not stated"),
        (U, "near_miss", "transport_options is the default transport if none is specified in the URL.", "that is transport"),
    ]),
    ("kombu", KOMBU, 134, 145, "established lazily", [
        (S, "restate", "A kombu Connection is established lazily when needed.", "stated"),
        (S, "paraphrase", "To force a kombu connection to be established, call connect().", "stated"),
        (U, "contradiction", "A kombu Connection connects to the broker as soon as it is created.", "lazily"),
        (P, "partial", "kombu connections are established lazily and are taken from a pool by default.", "pool not stated"),
        (S, "paraphrase", "A kombu connection is closed by calling release().", "conn.release()"),
        (U, "near_miss", "A kombu connection is closed by calling connect().", "release()"),
    ]),
    ("Django", TIMESINCE, 28, 50, "def timesince", [
        (S, "restate", "If d occurs after now, timesince returns '0 minutes'.", "stated"),
        (S, "paraphrase", "timesince ignores seconds and microseconds.", "stated"),
        (U, "contradiction", "timesince reports differences down to the second.", "seconds are ignored"),
        (S, "paraphrase", "By default timesince shows at most two adjacent units.", "depth=2"),
        (U, "number", "Between 2007/08/10 and 2008/09/10 the delta is 395 days.", "397"),
        (U, "negation", "'2 weeks, 3 hours' is a possible output of timesince.", "it is not"),
        (P, "partial", "timesince shows up to two adjacent units and rounds the last one up.", "rounding not stated"),
        (U, "near_miss", "time_strings controls the number of adjacent time units returned.", "that is depth"),
    ]),
    ("Django", TIMESINCE, 7, 23, "TIME_CHUNKS = [", [
        (S, "restate", "TIME_CHUNKS counts a week as 60 * 60 * 24 * 7 seconds.", "stated"),
        (S, "paraphrase", "TIME_CHUNKS counts a day as 86400 seconds.", "60 * 60 * 24"),
        (U, "number", "TIME_CHUNKS counts an hour as 3000 seconds.", "60 * 60"),
        (S, "paraphrase", "TIME_STRINGS holds strings for years, months, weeks, days, hours and minutes.", "stated"),
        (U, "other_subject", "TIME_STRINGS has an entry for seconds.", "no seconds"),
        (P, "partial", "TIME_CHUNKS covers weeks, days, hours and minutes, and a year is counted as 365.25 days.", "years not here"),
    ]),
    ("Django", "django/core/mail/__init__.py", 113, 134, "def send_mail(", [
        (S, "restate", "If from_email is None, send_mail uses the DEFAULT_FROM_EMAIL setting.", "stated"),
        (S, "paraphrase", "Every recipient of send_mail sees the other recipients in the To field.", "stated"),
        (U, "contradiction", "Recipients of send_mail cannot see each other's addresses.", "they see them in To"),
        (U, "other_subject", "If from_email is None, send_mail uses the SERVER_EMAIL setting.", "DEFAULT_FROM_EMAIL"),
        (S, "paraphrase", "New code that needs more than send_mail should use the EmailMessage class directly.", "stated"),
        (U, "negation", "send_mail's fail_silently defaults to True.", "False"),
        (P, "partial", "The API of send_mail is frozen, and it returns the number of messages sent.", "return not stated"),
    ]),
    ("Django", "django/core/validators.py", 414, 429, "class MaxValueValidator", [
        (S, "restate", "MaxValueValidator uses the code 'max_value'.", "stated"),
        (S, "paraphrase", "MinValueValidator rejects a value smaller than its limit.", "compare a < b"),
        (U, "near_miss", "MinValueValidator's message is 'Ensure this value is less than or equal to %(limit_value)s.'", "that is MaxValueValidator's"),
        (U, "near_miss", "MaxValueValidator's error code is 'min_value'.", "max_value"),
        (P, "partial", "MaxValueValidator's message says the value must be less than or equal to the limit, and the limit may be a callable.", "callable not in these lines"),
        (S, "paraphrase", "A value greater than the limit fails MaxValueValidator.", "compare a > b"),
    ]),
]  # fmt: skip


def build() -> list[dict]:
    return records_from(PASSAGES, prefix="f", split_of=lambda index: "fresh")


def main() -> None:
    write_set(build(), OUT, len(PASSAGES))


if __name__ == "__main__":
    main()
