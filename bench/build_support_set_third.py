"""Build bench/support_set_third.jsonl: a third held-out set for the support judge.

bench/support_set_fresh.jsonl's errors were read after it measured the judge,
so it can no longer measure later changes honestly. This set takes passages
from files that neither bench/support_set.jsonl, bench/support_set_fresh.jsonl
nor bench/support_outside.py cite: urllib3's ``Timeout``, Requests'
``HTTPAdapter`` and ``Response.json``/``raise_for_status``, websockets'
``serve`` arguments, Pygments' ``HtmlFormatter`` options,
django.utils.cache, django.utils.html and Channels' ``InMemoryChannelLayer``.
Claims and labels were written by reading the cited lines, before the judge
was run on any of them, under the same definitions as
bench/build_support_set.py (``supports`` / ``partial`` = a sentence joining
facts, some stated / ``unsupported``). Many unsupported claims are traps for
a wrong ``supports``: a sibling parameter given its neighbour's description,
a number or unit next to the stated one, a default the signature gives to
another parameter, and contradictions that keep every word of the lines.
Every record is in the ``third`` split; the schema is the same.

    .venv/bin/python bench/build_support_set_third.py   # rewrites bench/support_set_third.jsonl
    .venv/bin/python bench/eval_support.py --set bench/support_set_third.jsonl
"""

from __future__ import annotations

from pathlib import Path

from build_support_set import records_from, write_set

OUT = Path(__file__).with_name("support_set_third.jsonl")
S, P, U = "supports", "partial", "unsupported"

TIMEOUT = "urllib3/util/timeout.py"
ADAPTERS = "requests/adapters.py"
MODELS = "requests/models.py"
WSS = "websockets/asyncio/server.py"
PYG = "pygments/formatters/html.py"
CACHE = "django/utils/cache.py"
HTML = "django/utils/html.py"
LAYERS = "channels/layers.py"

# (distribution, file, first line, last line, anchor that must be in the text, pairs)
# pair: (label, category, claim, note)
PASSAGES = [
    ("urllib3", TIMEOUT, 56, 84, ":param total:", [
        (S, "restate", "total combines the connect and read timeouts into one.", "stated"),
        (S, "paraphrase", "When both a connect timeout and a total are given, urllib3 applies the shorter of the two.", "the shorter timeout will be applied"),
        (U, "contradiction", "When both a connect timeout and a total are given, urllib3 applies the longer of the two.", "shorter"),
        (S, "restate", "The total timeout defaults to None.", "Defaults to None."),
        (U, "near_miss", "read is the maximum amount of time in seconds to wait for a connection attempt to a server to succeed.", "that is connect"),
        (U, "unit", "The connect timeout is given in milliseconds.", "seconds"),
        (U, "negation", "Setting read to None does not give an infinite timeout.", "None will set an infinite timeout"),
        (P, "partial", "connect is the time in seconds to wait for a connection attempt, and it defaults to 30 seconds.", "default is the system default; 30 not stated"),
        (S, "paraphrase", "Passing None as connect makes connection attempts wait without limit.", "None will set an infinite timeout for connection attempts"),
    ]),
    ("urllib3", TIMEOUT, 86, 103, "Many factors can affect", [
        (S, "restate", "Python's DNS resolver does not obey the timeout specified on the socket.", "stated"),
        (U, "negation", "Python's DNS resolver obeys the timeout specified on the socket.", "does not obey"),
        (S, "paraphrase", "urllib3's read and total timeouts only measure the time between read operations on the socket.", "stated"),
        (U, "contradiction", "The total timeout measures the total amount of time for the request to return a complete response.", "not the total amount of time"),
        (U, "number", "If a server streams one byte every fifteen seconds, a timeout of 10 seconds will not trigger.", "20 seconds will not; 10 would"),
        (P, "partial", "High CPU load can affect the total request time, and urllib3 retries timed-out reads three times.", "retries not stated"),
    ]),
    ("requests", ADAPTERS, 158, 183, "class HTTPAdapter", [
        (S, "restate", "pool_connections is the number of urllib3 connection pools to cache.", "stated"),
        (U, "near_miss", "pool_maxsize is the number of urllib3 connection pools to cache.", "that is pool_connections"),
        (S, "paraphrase", "By default, Requests does not retry failed connections.", "stated"),
        (U, "contradiction", "max_retries also applies to requests where data has already reached the server.", "never to requests where data has made it to the server"),
        (S, "paraphrase", "For finer control over when a request is retried, pass urllib3's Retry class as max_retries.", "import urllib3's Retry class and pass that instead"),
        (U, "negation", "By default, Requests retries failed connections.", "does not retry"),
        (P, "partial", "HTTPAdapter is usually created by the Session class, and it is not thread-safe.", "thread safety not stated"),
        (U, "near_miss", "pool_block is the maximum number of connections to save in the pool.", "that is pool_maxsize"),
        (P, "partial", "pool_block says whether the connection pool should block for connections, and a blocked request waits up to 30 seconds.", "wait time not stated"),
    ]),
    ("requests", ADAPTERS, 79, 82, "DEFAULT_POOLSIZE = 10", [
        (S, "restate", "DEFAULT_POOLSIZE is 10.", "stated"),
        (U, "number", "DEFAULT_RETRIES is 10.", "0"),
        (S, "restate", "DEFAULT_POOLBLOCK is False.", "stated"),
        (U, "wrong_value", "DEFAULT_POOL_TIMEOUT is 0.", "None"),
    ]),
    ("requests", MODELS, 1140, 1167, "def raise_for_status", [
        (S, "restate", "raise_for_status raises HTTPError if one occurred.", "stated"),
        (S, "paraphrase", "raise_for_status treats status codes from 400 to 499 as client errors.", "400 <= status < 500 -> Client Error"),
        (U, "near_miss", "raise_for_status reports a 503 status code as a client error.", "500-599 is Server Error"),
        (U, "number", "raise_for_status treats status codes from 300 to 399 as client errors.", "400 to 499"),
        (S, "paraphrase", "If a bytes reason is not valid UTF-8, raise_for_status decodes it as iso-8859-1.", "fall back to iso-8859-1"),
        (U, "wrong_value", "If a bytes reason is not valid UTF-8, raise_for_status decodes it as cp1252.", "iso-8859-1"),
        (P, "partial", "raise_for_status raises HTTPError for 5xx responses and also for redirects that were not followed.", "redirects not in the lines"),
        (U, "negation", "raise_for_status does not raise for status codes of 500 and above.", "Server Error raised"),
    ]),
    ("requests", MODELS, 1087, 1120, "def json(self", [
        (S, "restate", "Response.json decodes the JSON response body as a Python object.", "stated"),
        (S, "paraphrase", "Response.json passes its keyword arguments on to json.loads.", "Optional arguments that json.loads takes"),
        (U, "contradiction", "Response.json returns None if the body does not contain valid JSON.", "raises JSONDecodeError"),
        (U, "number", "Response.json only guesses the encoding when the content is longer than 4 bytes.", "len > 3"),
        (S, "paraphrase", "If detecting the encoding fails, Response.json falls back to self.text.", "fall back to self.text"),
        (U, "number", "JSON RFC 4627 section 5 says to expect UTF-8, -16 or -32.", "section 3"),
        (P, "partial", "Response.json can return a dictionary or a list, and it caches the decoded result.", "caching not stated"),
    ]),
    ("websockets", WSS, 618, 647, "server_header: Value of", [
        (S, "restate", "ping_interval is the interval between keepalive pings in seconds.", "stated"),
        (U, "near_miss", "ping_timeout is the interval between keepalive pings in seconds.", "that is ping_interval"),
        (U, "unit", "max_size is the maximum size of incoming messages in kilobytes.", "bytes"),
        (S, "paraphrase", "Passing None as max_size removes the limit on the size of incoming messages.", "None disables the limit"),
        (U, "number", "max_queue defaults to 32 frames.", "16 frames; 32 KiB is write_limit"),
        (S, "restate", "write_limit defaults to 32 KiB.", "stated"),
        (U, "unit", "write_limit defaults to 32 frames.", "KiB"),
        (U, "number", "The low-water mark of max_queue defaults to max_queue // 2.", "// 4"),
        (P, "partial", "close_timeout is the timeout for closing connections in seconds, and it defaults to 10 seconds.", "default not in these lines"),
        (S, "paraphrase", "Setting server_header to None removes the Server header.", "stated"),
        (U, "near_miss", "Setting open_timeout to None removes the Server header.", "that is server_header; open_timeout None disables the timeout"),
        (P, "partial", "max_queue defaults to 16 frames, and frames received beyond it are dropped.", "what happens beyond it not stated"),
    ]),
    ("websockets", WSS, 576, 617, "closes connections with code 1001", [
        (S, "restate", "By default, closing the server closes connections with code 1001.", "stated"),
        (U, "number", "By default, closing the server closes connections with code 1000.", "1001"),
        (S, "paraphrase", "The permessage-deflate extension is enabled by default.", "stated"),
        (U, "negation", "The permessage-deflate extension is disabled by default.", "enabled"),
        (S, "paraphrase", "Set compression to None to disable the permessage-deflate extension.", "stated"),
        (U, "contradiction", "subprotocols lists the supported subprotocols in order of increasing preference.", "decreasing"),
        (U, "near_miss", "process_response intercepts the request during the opening handshake.", "it intercepts the response"),
        (P, "partial", "Returning None from process_request continues the handshake normally, and process_request is called once per connection.", "call count not stated"),
        (S, "restate", "process_request may be a function or a coroutine.", "stated"),
    ]),
    ("Pygments", PYG, 180, 229, "Additional options accepted:", [
        (S, "restate", "The cssclass option of HtmlFormatter defaults to 'highlight'.", "stated"),
        (U, "wrong_value", "The cssclass option of HtmlFormatter defaults to 'highlighttable'.", "'highlight'; highlighttable is the table's class"),
        (S, "paraphrase", "With nowrap set to True, HtmlFormatter does not add pre and div tags around the tokens.", "stated"),
        (U, "near_miss", "With full set to True, HtmlFormatter does not add pre and div tags around the tokens.", "that is nowrap"),
        (U, "negation", "The noclasses option is recommended for larger pieces of code.", "not recommended"),
        (S, "paraphrase", "The style option of HtmlFormatter defaults to 'default'.", "stated"),
        (P, "partial", "classprefix gives a string to prepend to all Pygments-generated CSS class names, and it defaults to 'pyg-'.", "default not stated"),
        (U, "near_miss", "cssstyles sets inline CSS styles for the pre tag.", "that is prestyles; cssstyles is for the div"),
        (S, "paraphrase", "With 'table' line numbers, the wrapping table gets the CSS class 'highlighttable' by default.", "stated"),
        (P, "partial", "nowrap disables most other options, and it is ignored when full is true.", "interaction with full not stated"),
    ]),
    ("Pygments", PYG, 247, 290, "`linenos`", [
        (S, "restate", "The default value of linenos is False, which means no line numbers at all.", "stated"),
        (U, "number", "linenostart defaults to 0.", "1; 0 is linenospecial's default"),
        (S, "restate", "linenospecial defaults to 0.", "stated"),
        (U, "near_miss", "linenostep gives every nth line number the CSS class 'special'.", "that is linenospecial"),
        (U, "negation", "The line numbers of hl_lines depend on linenostart.", "independent of linenostart"),
        (S, "paraphrase", "For compatibility with Pygments 0.7, a linenos of True means the same as 'table'.", "stated"),
        (U, "number", "Inline line numbers are new in Pygments 0.9.", "0.8"),
        (P, "partial", "With linenos set to 'inline', the line numbers are integrated in the pre tag, and they are excluded when the code is copied.", "copying not stated for inline"),
        (U, "unit", "You get the default line spacing with line-height: 125px.", "125%"),
    ]),
    ("Django", CACHE, 37, 48, "def patch_cache_control", [
        (S, "restate", "patch_cache_control turns keyword parameter names to lowercase and converts underscores to hyphens.", "stated"),
        (U, "contradiction", "patch_cache_control converts hyphens to underscores in keyword parameter names.", "underscores to hyphens"),
        (S, "paraphrase", "When a parameter's value is exactly True, patch_cache_control adds only the parameter name to the header.", "stated"),
        (U, "contradiction", "Any true value makes patch_cache_control add only the parameter name to the header.", "exactly True, not just a true value"),
        (S, "paraphrase", "patch_cache_control applies str() to the values of all other parameters.", "stated"),
        (P, "partial", "patch_cache_control adds all keyword arguments to the Cache-Control header and sorts the directives alphabetically.", "sorting not stated"),
        (U, "wrong_value", "patch_cache_control turns keyword parameter names to uppercase.", "lowercase"),
    ]),
    ("Django", CACHE, 274, 300, "def patch_response_headers", [
        (S, "restate", "patch_response_headers adds the Expires and Cache-Control headers to an HttpResponse.", "stated"),
        (S, "paraphrase", "patch_response_headers takes cache_timeout in seconds and uses CACHE_MIDDLEWARE_SECONDS when it is None.", "stated"),
        (U, "unit", "patch_response_headers takes cache_timeout in minutes.", "seconds"),
        (U, "other_subject", "patch_response_headers uses the CACHE_MIDDLEWARE_KEY_PREFIX setting by default.", "CACHE_MIDDLEWARE_SECONDS"),
        (S, "paraphrase", "A negative cache_timeout is treated as 0 by patch_response_headers.", "if < 0: = 0"),
        (U, "contradiction", "patch_response_headers replaces an Expires header that is already set.", "only added if it isn't already set"),
        (S, "restate", "add_never_cache_headers patches Cache-Control with no_cache, no_store, must_revalidate and private.", "stated"),
        (U, "number", "add_never_cache_headers calls patch_response_headers with a cache_timeout of 0.", "-1"),
        (P, "partial", "add_never_cache_headers marks a page as never to be cached and also sets a Pragma: no-cache header.", "Pragma not stated"),
    ]),
    ("Django", CACHE, 303, 339, "def patch_vary_headers", [
        (S, "restate", "If the headers contain an asterisk, patch_vary_headers sets the Vary header to a single asterisk.", "stated"),
        (S, "paraphrase", "patch_vary_headers keeps the headers already in Vary.", "existing headers aren't removed"),
        (U, "contradiction", "patch_vary_headers removes the existing headers in Vary.", "aren't removed"),
        (S, "paraphrase", "patch_vary_headers treats header names as case-insensitive.", "stated in the comment"),
        (U, "contradiction", "has_vary_header compares header names case-sensitively.", "lower() on both"),
        (S, "paraphrase", "has_vary_header returns False when the response has no Vary header.", "stated in code"),
        (U, "wrong_value", "The order of the Vary contents is kept because cache implementations may rely on it to compute a SHA1 hash.", "MD5"),
        (P, "partial", "patch_vary_headers keeps the original order of the Vary headers and sorts the new headers alphabetically.", "new headers are appended, sorting not stated"),
    ]),
    ("Django", CACHE, 106, 119, "def get_max_age", [
        (S, "restate", "get_max_age returns None if the max-age wasn't an integer.", "stated"),
        (U, "contradiction", "get_max_age raises ValueError if the max-age isn't an integer.", "returns None"),
        (S, "paraphrase", "get_max_age returns the max-age of the Cache-Control header as an integer.", "stated"),
        (U, "other_subject", "get_max_age returns the s-maxage of the Cache-Control header.", "max-age"),
        (P, "partial", "get_max_age returns the max-age as an integer and stores it on the response.", "storing not stated"),
    ]),
    ("Django", HTML, 53, 90, "def escape(text)", [
        (S, "restate", "escape encodes ampersands, quotes and angle brackets for use in HTML.", "stated"),
        (S, "paraphrase", "escape always escapes its input, even if it is already escaped, which may double-escape it.", "stated"),
        (U, "contradiction", "escape skips input that is already escaped and marked as such.", "always escape"),
        (U, "near_miss", "conditional_escape may result in double-escaping.", "escape may; conditional_escape is the remedy"),
        (S, "restate", "escapejs hex encodes characters for use in JavaScript strings.", "stated"),
        (U, "number", "escapejs escapes every ASCII character with a value less than 64.", "32"),
        (P, "partial", "escapejs escapes backslashes and quotes, and its output is safe inside HTML attributes.", "attribute safety not stated"),
    ]),
    ("Django", HTML, 120, 145, "def conditional_escape", [
        (S, "restate", "conditional_escape doesn't operate on pre-escaped strings.", "stated"),
        (S, "paraphrase", "format_html passes all its arguments through conditional_escape and calls mark_safe on the result.", "stated"),
        (U, "negation", "format_html does not escape its arguments.", "conditional_escape"),
        (U, "wrong_value", "format_html raises ValueError when neither args nor kwargs are given.", "TypeError"),
        (S, "paraphrase", "format_html raises TypeError when neither args nor kwargs are provided.", "stated in code"),
        (P, "partial", "format_html should be used instead of str.format to build small HTML fragments, and it caches the format strings it parses.", "caching not stated"),
        (S, "paraphrase", "conditional_escape returns text.__html__() when the text has an __html__ method.", "stated in code"),
    ]),
    ("Django", HTML, 502, 513, "def urlize(", [
        (S, "restate", "urlize's nofollow defaults to False.", "signature"),
        (U, "negation", "urlize autoescapes its text by default.", "autoescape=False"),
        (U, "wrong_value", "urlize's trim_url_limit defaults to 0.", "None"),
        (S, "paraphrase", "avoid_wrapping replaces normal spaces with non-breaking spaces.", "stated"),
        (U, "contradiction", "avoid_wrapping replaces non-breaking spaces with normal spaces.", "the other way"),
        (P, "partial", "avoid_wrapping adds non-breaking spaces where there were normal spaces and escapes the result for HTML.", "escaping not stated"),
    ]),
    ("channels", LAYERS, 237, 258, "class InMemoryChannelLayer", [
        (S, "paraphrase", "InMemoryChannelLayer is an in-memory channel layer implementation.", "stated"),
        (S, "restate", "The expiry of InMemoryChannelLayer defaults to 60.", "expiry=60"),
        (S, "restate", "The group_expiry of InMemoryChannelLayer defaults to 86400.", "group_expiry=86400"),
        (S, "restate", "The capacity of InMemoryChannelLayer defaults to 100.", "capacity=100"),
        (U, "number", "The expiry of InMemoryChannelLayer defaults to 86400.", "60; 86400 is group_expiry"),
        (U, "near_miss", "The channel_capacity of InMemoryChannelLayer defaults to 100.", "None; 100 is capacity"),
        (P, "partial", "The expiry of InMemoryChannelLayer defaults to 60, and the layer is only meant for testing.", "testing not stated"),
        (U, "contradiction", "InMemoryChannelLayer keeps its groups in Redis.", "self.groups = {} in memory"),
    ]),
]  # fmt: skip


def build() -> list[dict]:
    return records_from(PASSAGES, prefix="t", split_of=lambda index: "third")


def main() -> None:
    write_set(build(), OUT, len(PASSAGES))


if __name__ == "__main__":
    main()
