"""Build bench/support_set_fifth.jsonl: a fifth held-out set for the support judge.

The earlier sets (bench/support_set.jsonl, bench/support_set_fresh.jsonl,
bench/support_set_third.jsonl, bench/support_set_fourth.jsonl) have been read
while the judge was changed, so they can no longer measure it honestly. This
set takes passages from files that none of them nor bench/support_outside.py
cites, from packages none of them used: WhiteNoise's constructor and Django
middleware, channels_redis's ``RedisChannelLayer``, python-slugify's
``slugify``, dj-database-url's ``config``/``parse``, Daphne's command-line
options, django-htmx's response classes, pyrate-limiter's ``Duration``,
``RateItem`` and ``Rate``, platformdirs' Unix directories, msgpack's README
(METADATA), AnyIO's ``to_thread.run_sync`` and packaging's ``Version``
properties. Prose (docstrings, README) and code (signatures with defaults,
constants, argparse defaults, raise statements) are mixed.

Claims and labels were written by reading the cited lines only, without
reading the judge's code, its tests or its error listings, and the set was
committed before the judge was run on any of it. The labels follow the
definitions of bench/build_support_set.py: ``supports`` (everything asserted
is stated, paraphrases and unit conversions included) / ``partial`` (a
sentence joining facts, some stated and the rest neither stated nor
contradicted) / ``unsupported`` (a contradiction, or the main fact is not in
the lines). The mistakes imitate an answering model's: a wrong number, unit
or default, a flipped negation, a sibling parameter's description given to
another name, a reversed order or direction, a wrong exception class, a fact
about a function that the lines only call. Every record is in the ``fifth``
split; the schema is the same as the earlier sets'. The builder refuses a
source file an earlier set or bench/support_outside.py cites.

    .venv/bin/python bench/build_support_set_fifth.py   # rewrites bench/support_set_fifth.jsonl
    .venv/bin/python bench/eval_support.py --set bench/support_set_fifth.jsonl
"""

from __future__ import annotations

from pathlib import Path

from build_support_set import cited_sources, records_from, write_set

OUT = Path(__file__).with_name("support_set_fifth.jsonl")
EARLIER = (
    "support_set.jsonl",
    "support_set_fresh.jsonl",
    "support_set_third.jsonl",
    "support_set_fourth.jsonl",
)
# What bench/support_outside.py reads: click's Option/Context, asgiref's
# SyncToAsync and the METADATA of markdownify, kombu, asgiref and sqlparse.
OUTSIDE_FILES = ("click/core.py", "asgiref/sync.py")
OUTSIDE_METADATA = ("markdownify-", "kombu-", "asgiref-", "sqlparse-")
S, P, U = "supports", "partial", "unsupported"

WN = "whitenoise/base.py"
WNMW = "whitenoise/middleware.py"
CR = "channels_redis/core.py"
SLUG = "slugify/slugify.py"
DBURL = "dj_database_url/__init__.py"
DAPHNE = "daphne/cli.py"
HTMX = "django_htmx/http.py"
RATE = "pyrate_limiter/abstracts/rate.py"
PDIRS = "platformdirs/unix.py"
MSGPACK = "msgpack-1.2.4.dist-info/METADATA"
ANYIO = "anyio/to_thread.py"
VER = "packaging/version.py"

# (distribution, file, first line, last line, anchor that must be in the text, pairs)
# pair: (label, category, claim, note)
PASSAGES = [
    ("whitenoise", WN, 21, 67, "max_age: int | None = 60", [
        (S, "restate", "WhiteNoise's max_age defaults to 60 seconds.", "max_age = 60  # seconds"),
        (U, "number", "WhiteNoise sends a max age of 600 seconds by default.", "60"),
        (U, "unit", "WhiteNoise's max_age argument is given in minutes.", "the comment says seconds"),
        (S, "unit", "WhiteNoise.FOREVER is ten years expressed in seconds.", "10 * 365 * 24 * 60 * 60"),
        (S, "paraphrase", "The ten-year FOREVER value follows what nginx sets for 'expires max;'.", "stated in the comment"),
        (S, "paraphrase", "With autorefresh on, WhiteNoise re-checks the filesystem on every request so that changes are picked up.", "stated"),
        (U, "negation", "WhiteNoise's autorefresh mode is supported in production.", "development only, not supported in production"),
        (S, "restate", "By default WhiteNoise sets 'Access-Control-Allow-Origin: *' on all files.", "allow_all_origins = True"),
        (U, "wrong_value", "allow_all_origins defaults to False in WhiteNoise.", "True"),
        (S, "paraphrase", "Passing index_file=True makes WhiteNoise use 'index.html' as the index file.", "if index_file is True: 'index.html'"),
        (U, "near_miss", "Passing immutable_file_test=True makes WhiteNoise use 'index.html' as the index file.", "that is index_file"),
        (S, "paraphrase", "A string immutable_file_test is compiled as a regular expression and searched in the file's URL.", "re.compile; regex.search(url)"),
        (U, "contradiction", "A string immutable_file_test is matched against the file's path on disk rather than its URL.", "it searches the url"),
        (P, "partial", "WhiteNoise's charset defaults to utf-8, and it serves a pre-compressed gzip file when the client accepts it.", "compression is not in these lines"),
    ]),
    ("whitenoise", WNMW, 31, 90, "WHITENOISE_MAX_AGE", [
        (S, "paraphrase", "WhiteNoiseMiddleware wraps WhiteNoise so that it works as Django middleware rather than WSGI middleware.", "docstring"),
        (S, "restate", "If WHITENOISE_AUTOREFRESH is not set, the middleware uses the DEBUG setting for autorefresh.", "except AttributeError: autorefresh = settings.DEBUG"),
        (S, "paraphrase", "Without WHITENOISE_MAX_AGE, the middleware uses a max age of 0 when DEBUG is on and 60 otherwise.", "stated"),
        (U, "reversed", "Without WHITENOISE_MAX_AGE, the middleware uses a max age of 60 when DEBUG is on and 0 otherwise.", "the other way round"),
        (S, "restate", "WHITENOISE_USE_FINDERS defaults to the value of DEBUG.", "self.use_finders = settings.DEBUG"),
        (U, "near_miss", "WHITENOISE_INDEX_FILE defaults to the value of DEBUG.", "index_file = None"),
        (S, "restate", "If WHITENOISE_CHARSET is not configured, the middleware uses utf-8.", "stated"),
        (U, "wrong_value", "WHITENOISE_CHARSET defaults to latin-1.", "utf-8"),
        (U, "negation", "WHITENOISE_ALLOW_ALL_ORIGINS is off unless you turn it on.", "defaults to True"),
        (S, "restate", "WhiteNoiseMiddleware calls the WhiteNoise constructor with application=None.", "super().__init__(application=None, ...)"),
        (U, "calls_only", "WhiteNoiseMiddleware compiles WHITENOISE_IMMUTABLE_FILE_TEST into a regular expression itself.", "it only passes the value to super().__init__"),
        (P, "partial", "WHITENOISE_MIMETYPES defaults to None, in which case types are guessed with Python's mimetypes module.", "how types are guessed is not stated"),
        (P, "partial", "WHITENOISE_ADD_HEADERS_FUNCTION defaults to None, and the function receives the headers, path and URL of each file.", "its arguments are not in these lines"),
    ]),
    ("channels-redis", CR, 95, 135, "group_expiry=86400", [
        (S, "restate", "RedisChannelLayer uses the prefix 'asgi' by default.", "prefix='asgi'"),
        (S, "restate", "RedisChannelLayer's capacity defaults to 100.", "capacity=100"),
        (U, "near_miss", "RedisChannelLayer's expiry defaults to 86400.", "expiry=60; 86400 is group_expiry"),
        (S, "restate", "group_expiry defaults to 86400 and expiry to 60.", "both in the signature"),
        (S, "restate", "RedisChannelLayer serializes messages with msgpack by default.", "serializer_format='msgpack'"),
        (U, "wrong_value", "RedisChannelLayer's default serializer format is JSON.", "msgpack"),
        (S, "paraphrase", "RedisChannelLayer supports sharding across several Redis installations and encrypting messages.", "docstring"),
        (U, "negation", "RedisChannelLayer does not support message encryption.", "encryption is provided"),
        (S, "paraphrase", "The constructor asserts that the prefix is a str.", "assert isinstance(self.prefix, str)"),
        (S, "restate", "RedisChannelLayer's brpop_timeout is 5.", "class attribute"),
        (U, "number", "random_prefix_length defaults to 16.", "12"),
        (P, "partial", "random_prefix_length defaults to 12, and the random prefix is made of hexadecimal digits.", "the prefix's alphabet is not stated"),
        (P, "partial", "channel_capacity defaults to None, and its keys are glob patterns matched with fnmatch.", "matching is not in these lines"),
        (U, "calls_only", "compile_capacities turns glob patterns into compiled regular expressions.", "the lines only call compile_capacities"),
    ]),
    ("python-slugify", SLUG, 230, 274, "def slugify(", [
        (S, "restate", "slugify uses the legacy algorithm by default.", "algorithm='legacy' (the default)"),
        (U, "wrong_value", "slugify's algorithm argument defaults to 'modern'.", "'legacy'"),
        (S, "paraphrase", "Passing an algorithm other than 'legacy' or 'modern' raises ValueError.", "raise ValueError"),
        (U, "exception", "slugify raises TypeError for an unknown algorithm.", "ValueError"),
        (S, "restate", "slugify's max_length defaults to 0 and lowercase defaults to True.", "both in the signature"),
        (U, "negation", "slugify keeps the original letter case by default.", "lowercase=True"),
        (S, "paraphrase", "With allow_unicode, slugify normalizes with NFKC instead of transliterating.", "NFKC without transliteration"),
        (U, "wrong_value", "allow_unicode normalizes text with NFKD.", "NFKC"),
        (S, "paraphrase", "replacement_stage, backend and algorithm can only be passed as keyword arguments.", "after *; all new controls are keyword-only"),
        (S, "paraphrase", "backend='auto' prefers Unidecode when it is installed and otherwise falls back to text-unidecode.", "stated"),
        (U, "reversed", "backend='auto' prefers text-unidecode and falls back to Unidecode.", "the other way"),
        (U, "negation", "An explicitly chosen backend falls back to another one when it is not installed.", "explicit choices do not fall back"),
        (U, "near_miss", "In slugify, stopwords is a pattern matching disallowed characters.", "that is regex_pattern"),
        (P, "partial", "slugify decodes bytes input as UTF-8 and uses '-' as its default separator.", "DEFAULT_SEPARATOR's value is not in these lines"),
        (P, "partial", "The modern algorithm validates argument types up front and is about twice as fast as the legacy one.", "speed not stated"),
    ]),
    ("dj-database-url", DBURL, 127, 186, "conn_max_age: int | None = 0", [
        (S, "restate", "dj_database_url.config returns a configured DATABASE dictionary from DATABASE_URL.", "docstring"),
        (S, "restate", "conn_max_age defaults to 0 in both config and parse.", "both signatures"),
        (U, "number", "conn_max_age defaults to 600 in dj_database_url.config.", "0"),
        (S, "paraphrase", "If the environment variable is missing and no default is given, config logs a warning that no databases are set up.", "logging.warning"),
        (U, "contradiction", "config raises an exception when the database environment variable is missing.", "it logs a warning and returns {}"),
        (S, "paraphrase", "config returns an empty dictionary when there is no database URL.", "return {}"),
        (S, "restate", "conn_health_checks and disable_server_side_cursors both default to False.", "signature"),
        (U, "wrong_value", "ssl_require defaults to True.", "False"),
        (S, "paraphrase", "parse handles 'sqlite://:memory:' specially and returns ':memory:' as the NAME.", "special case"),
        (S, "paraphrase", "The in-memory SQLite URL is special-cased because urlparse would try to read 'memory' as a port number.", "comment"),
        (U, "wrong_value", "The in-memory SQLite URL is special-cased because urlparse would read 'memory' as a host name.", "port number"),
        (S, "paraphrase", "config passes engine, conn_max_age, conn_health_checks, disable_server_side_cursors, ssl_require and test_options on to parse.", "return parse(s, engine, ...)"),
        (U, "not_stated", "parse raises UnknownSchemeError when the URL's scheme is not known.", "true of the package, but the raise is after these lines"),
        (P, "partial", "conn_max_age defaults to 0, which closes the database connection at the end of each request.", "its meaning is not stated here"),
    ]),
    ("daphne", DAPHNE, 28, 65, "--websocket_connect_timeout", [
        (S, "paraphrase", "Daphne's --websocket_timeout defaults to 86400, and -1 means no limit.", "default=86400; -1 for infinite"),
        (S, "paraphrase", "--websocket_connect_timeout is the maximum time a connection may take to handshake, 5 by default.", "stated"),
        (U, "number", "--websocket_connect_timeout defaults to 10.", "5"),
        (U, "near_miss", "--websocket_timeout is the maximum time a connection may take to handshake.", "that is --websocket_connect_timeout"),
        (S, "paraphrase", "The -b/--bind option sets the host or address to bind to.", "stated"),
        (S, "paraphrase", "-u lets Daphne bind to a UNIX socket instead of a TCP host and port.", "stated"),
        (U, "near_miss", "Daphne's --fd option takes the path of a named UNIX socket to bind to.", "a file descriptor, rather than a named unix socket"),
        (U, "wrong_value", "Daphne's --port argument defaults to 8000 in its argument parser.", "default=None"),
        (S, "paraphrase", "-e/--endpoint may be repeated, and its raw server strings are passed directly to Twisted.", "action='append'; stated"),
        (U, "type", "--websocket_timeout accepts a float.", "type=int"),
        (P, "partial", "-v/--verbosity defaults to 1, and verbosity 2 also logs every WebSocket frame.", "what each level logs is not stated"),
        (P, "partial", "--unix-socket binds to a UNIX socket rather than TCP, and Daphne deletes a stale socket file before binding.", "deletion not stated"),
    ]),
    ("daphne", DAPHNE, 93, 131, "--ping-interval", [
        (S, "paraphrase", "By default a WebSocket must be idle for 20 seconds before Daphne sends a keepalive ping.", "--ping-interval default=20"),
        (S, "paraphrase", "If a keepalive ping gets no response, the WebSocket is closed after --ping-timeout, 30 seconds by default.", "stated"),
        (U, "near_miss", "--ping-interval defaults to 30 seconds.", "20; 30 is --ping-timeout"),
        (U, "near_miss", "--ping-timeout is the number of seconds a WebSocket must be idle before a keepalive ping is sent.", "that is --ping-interval"),
        (S, "unit", "Daphne limits incoming WebSocket messages to 1 MiB by default.", "1024 * 1024 bytes"),
        (U, "unit", "--websocket-max-message-size is measured in kilobytes.", "bytes"),
        (S, "paraphrase", "Setting --websocket-max-frame-size to 0 disables the frame limit, which is not recommended.", "stated"),
        (U, "contradiction", "Setting --websocket-max-message-size to 0 makes Daphne reject every message.", "0 disables the limit"),
        (S, "paraphrase", "An ASGI application gets 10 seconds to exit after the client disconnects before it is killed.", "--application-close-timeout"),
        (U, "number", "--application-close-timeout defaults to 5 seconds.", "10"),
        (S, "restate", "Daphne's default log format is '%(asctime)-15s %(levelname)-8s %(message)s'.", "--log-fmt"),
        (P, "partial", "--application-close-timeout defaults to 10 seconds, and the application is first sent a disconnect event.", "the event is not stated"),
        (P, "partial", "The maximum frame size defaults to 1 MiB, and a larger frame closes the connection with code 1009.", "close code not stated"),
    ]),
    ("django-htmx", HTMX, 13, 72, "HTMX_STOP_POLLING = 286", [
        (S, "restate", "HttpResponseStopPolling uses status code 286.", "HTMX_STOP_POLLING"),
        (U, "number", "django-htmx's HTMX_STOP_POLLING status code is 204.", "286"),
        (S, "restate", "HttpResponseStopPolling's reason phrase is 'Stop Polling'.", "stated"),
        (S, "paraphrase", "HttpResponseClientRedirect returns status 200 and moves the target from the Location header to HX-Redirect.", "stated"),
        (U, "contradiction", "HttpResponseClientRedirect responds with status 302 and a Location header.", "200, Location deleted"),
        (S, "paraphrase", "HttpResponseClientRedirect raises ValueError when preserve_request is passed.", "raise ValueError"),
        (U, "negation", "HttpResponseClientRedirect supports the preserve_request argument.", "not supported"),
        (S, "restate", "HttpResponseClientRefresh sets the HX-Refresh header to 'true'.", "stated"),
        (U, "near_miss", "HttpResponseClientRefresh sets the HX-Redirect header.", "HX-Refresh"),
        (U, "signature", "HttpResponseClientRefresh takes the URL to refresh as its first argument.", "__init__(self) takes no argument"),
        (S, "paraphrase", "SwapMethod allows 'innerHTML', 'outerHTML', 'delete' and 'none', among others.", "listed"),
        (U, "wrong_value", "SwapMethod includes 'replace'.", "not in the list"),
        (P, "partial", "HttpResponseLocation uses status 200 and accepts a swap argument, which it sends as JSON in the HX-Location header.", "the header is set after these lines"),
        (P, "partial", "HttpResponseClientRedirect exposes the target as its url property, and htmx then does a full page load.", "client behaviour not stated"),
    ]),
    ("pyrate_limiter", RATE, 7, 52, "class Duration(Enum)", [
        (S, "restate", "Duration.SECOND is 1000.", "stated"),
        (S, "unit", "Duration.DAY equals 86,400,000.", "1000 * 60 * 60 * 24"),
        (U, "number", "Duration.MINUTE equals 6,000.", "60,000"),
        (S, "paraphrase", "Duration.WEEK is seven times Duration.DAY.", "1000 * 60 * 60 * 24 * 7"),
        (U, "not_stated", "pyrate_limiter's Duration has a MONTH member.", "only SECOND to WEEK"),
        (S, "paraphrase", "Multiplying a Duration by a number gives an int.", "__mul__ returns int(...)"),
        (S, "paraphrase", "Duration.readable prints a value below one second with an 'ms' suffix.", "no unit matches -> f'{value}ms'"),
        (U, "number", "Duration.readable formats values with two decimal places.", "0.1f: one decimal"),
        (S, "paraphrase", "readable uses the largest unit the value reaches, trying weeks first and seconds last.", "notes order"),
        (U, "reversed", "readable tries seconds first and weeks last.", "weeks first"),
        (U, "contradiction", "Adding two Durations returns a new Duration.", "__add__ returns an int"),
        (P, "partial", "Duration.HOUR equals 3,600,000, and the limiter's clocks return timestamps in milliseconds.", "clocks are not in these lines"),
        (P, "partial", "Durations can be multiplied by floats, and a Rate's interval is usually given as a Duration.", "Rate is not in these lines"),
    ]),
    ("pyrate_limiter", RATE, 55, 107, "class Rate:", [
        (S, "restate", "A RateItem's weight defaults to 1.", "weight: int = 1"),
        (U, "number", "A RateItem's weight defaults to 0.", "1"),
        (S, "restate", "A Rate's interval is given in milliseconds.", "docstring"),
        (U, "unit", "A Rate's interval is given in seconds.", "milliseconds"),
        (S, "paraphrase", "If burst is not given, it defaults to the limit.", "limit if burst is None"),
        (U, "wrong_value", "Rate's burst defaults to 1.", "defaults to limit"),
        (S, "paraphrase", "Only GCRA and TokenBucket read burst; the window algorithms admit up to limit per window anyway.", "stated"),
        (U, "reversed", "The window algorithms read burst, while GCRA and TokenBucket ignore it.", "the other way"),
        (S, "restate", "burst=1 makes the output perfectly smooth.", "stated"),
        (U, "contradiction", "A Rate may be created with a burst of 0.", "assert self.burst >= 1"),
        (S, "paraphrase", "str() of a Rate shows the burst only when it differs from the limit.", "suffix"),
        (P, "partial", "Rate asserts that burst is at least 1, and the limiter raises BucketFullException when a rate is exceeded.", "the exception is not in these lines"),
        (P, "partial", "Rate's interval may be an int or a Duration, and LeakyBucket is the default algorithm.", "algorithm default not stated"),
    ]),
    ("platformdirs", PDIRS, 50, 97, "~/.local/share", [
        (S, "restate", "On Unix, user_data_dir is ~/.local/share/$appname/$version or $XDG_DATA_HOME/$appname/$version.", "docstring"),
        (S, "restate", "On Unix, user_cache_dir is ~/.cache/$appname/$version by default.", "docstring and code"),
        (U, "near_miss", "On Unix, site_cache_dir is ~/.cache/$appname/$version.", "/var/cache"),
        (S, "paraphrase", "The state directory shared by users is /var/lib/$appname/$version.", "site_state_dir"),
        (U, "wrong_value", "site_state_dir is /var/state/$appname/$version.", "/var/lib"),
        (S, "paraphrase", "The site data directories are /usr/local/share and /usr/share, in that order.", "list order"),
        (U, "reversed", "platformdirs lists /usr/share before /usr/local/share in the site data directories.", "/usr/local/share first"),
        (S, "restate", "The site config directories are under /etc/xdg.", "stated"),
        (S, "paraphrase", "When opinion is set, user_log_dir is a 'log' folder inside user_state_dir.", "stated"),
        (U, "negation", "user_log_dir is always a 'log' folder inside the state directory, whatever the opinion setting.", "same as user_state_dir if not opinionated"),
        (S, "paraphrase", "_use_site is true only when use_site_for_root is set and the effective user id is 0.", "use_site_for_root and geteuid() == 0"),
        (U, "dropped_condition", "_use_site is true whenever use_site_for_root is set.", "also requires geteuid() == 0"),
        (P, "partial", "user_cache_dir is ~/.cache/$appname/$version, and the directory is created with mode 0700.", "the mode is not stated"),
        (P, "partial", "On Unix, user_data_dir lives under ~/.local/share and user_config_dir under ~/.config.", "user_config_dir is not in these lines"),
    ]),
    ("msgpack", MSGPACK, 209, 268, "strict_map_key", [
        (S, "restate", "max_buffer_size defaults to 100*1024*1024 and limits the internal buffer size.", "stated"),
        (S, "unit", "Since msgpack 1.0 the default max_buffer_size is 100 MiB.", "changed from 0 to 100 MiB"),
        (U, "number", "msgpack's max_buffer_size defaults to 10 MiB.", "100 MiB"),
        (S, "paraphrase", "strict_map_key defaults to True and restricts map keys to bytes and str.", "stated"),
        (U, "near_miss", "max_buffer_size restricts map keys to bytes and str.", "that is strict_map_key"),
        (U, "negation", "The MessagePack spec itself restricts map keys to bytes and str.", "the spec doesn't limit key types"),
        (S, "paraphrase", "Passing use_list=False can help performance because a tuple is lighter than a list.", "performance tips"),
        (S, "restate", "Since msgpack 1.0, Packer uses use_bin_type=True by default.", "stated"),
        (U, "reversed", "Since msgpack 1.0, Unpacker uses raw=True by default.", "raw=False"),
        (S, "paraphrase", "The PyPI package was renamed from msgpack-python to msgpack in version 0.5.", "stated"),
        (U, "number", "The PyPI package was renamed from msgpack-python to msgpack in version 1.0.", "0.5"),
        (S, "restate", "msgpack 1.0.6 dropped official support for Python 2.7.", "stated"),
        (U, "negation", "msgpack 1.0's extension module still supports Python 2.", "it no longer does"),
        (P, "partial", "You can call gc.disable() while unpacking a large message, and msgpack turns the GC back on afterwards.", "re-enabling not stated"),
        (P, "partial", "The encoding option was removed in msgpack 1.0, and invalid UTF-8 now raises UnicodeDecodeError.", "the error is not stated"),
    ]),
    ("anyio", ANYIO, 27, 80, "async def run_sync(", [
        (S, "restate", "anyio.to_thread.run_sync calls the function with the given arguments in a worker thread.", "docstring"),
        (S, "paraphrase", "With abandon_on_cancel, a cancelled task leaves the thread running, and its result or exception is ignored.", "stated"),
        (U, "contradiction", "With abandon_on_cancel enabled, cancelling the waiting task stops the worker thread.", "the thread still runs its course"),
        (S, "restate", "abandon_on_cancel defaults to False.", "signature"),
        (S, "paraphrase", "cancellable is a deprecated alias of abandon_on_cancel and wins if both are passed.", "will override"),
        (U, "reversed", "abandon_on_cancel overrides cancellable when both are passed.", "cancellable overrides"),
        (S, "paraphrase", "Passing cancellable= emits a DeprecationWarning saying it is deprecated since AnyIO 4.1.0.", "warn(..., DeprecationWarning)"),
        (U, "number", "The cancellable argument has been deprecated since AnyIO 4.0.0.", "4.1.0"),
        (S, "paraphrase", "When no limiter is passed, run_sync uses the default capacity limiter.", "if omitted, the default limiter is used"),
        (U, "near_miss", "run_sync raises NoEventLoopError when the host task is cancelled.", "it is raised when no supported event loop is running"),
        (S, "restate", "current_default_thread_limiter returns the capacity limiter used by default to limit the number of concurrent threads.", "docstring"),
        (U, "signature", "current_default_thread_limiter takes a new limiter to install as the default.", "it takes no argument"),
        (P, "partial", "current_default_thread_limiter returns a capacity limiter, which allows 40 threads by default.", "the number is not stated"),
        (P, "partial", "run_sync runs the callable in a worker thread and copies the caller's context variables into it.", "contextvars not stated"),
    ]),
    ("packaging", VER, 1036, 1073, "def is_prerelease", [
        (S, "restate", "Version('1.2.3rc1').is_prerelease is True.", "doctest"),
        (S, "paraphrase", "Development releases such as 1.2.3dev1 count as pre-releases.", "doctest and _dev is not None"),
        (U, "negation", "packaging does not count development releases as pre-releases.", "they are"),
        (S, "restate", "Version('1.2.3.post1').is_postrelease is True.", "doctest"),
        (U, "near_miss", "Version('1.2.3.dev1').is_postrelease is True.", "that is is_devrelease"),
        (S, "paraphrase", "is_devrelease is True when the version has a dev segment.", "self.dev is not None"),
        (S, "paraphrase", "A plain release such as 1.2.3 is neither a pre-release, a post-release nor a development release.", "three doctests"),
        (U, "type", "Version.is_prerelease returns the pre-release segment as a string.", "it returns a bool"),
        (U, "wrong_value", "Version('1.2.3b1').is_prerelease is False.", "True"),
        (P, "partial", "Version('1.2.3.post1') is a post-release, and post-releases sort after the release they follow.", "ordering not stated"),
        (P, "partial", "Version('1.2.3b1') is a pre-release, and pip skips pre-releases unless --pre is given.", "pip not mentioned"),
    ]),
    ("packaging", VER, 1075, 1110, "def major", [
        (S, "restate", "Version('1.2.3').major is 1.", "doctest"),
        (S, "paraphrase", "Version('1').minor is 0 because the release has no second item.", "or 0 if unavailable"),
        (U, "number", "Version('1.2.3').micro is 2.", "3"),
        (S, "restate", "The major, minor and micro properties were added in packaging 20.0.", "versionadded:: 20.0"),
        (U, "number", "Version.micro was added in packaging 21.0.", "20.0"),
        (U, "near_miss", "Version.minor is the third item of the release.", "second; micro is the third"),
        (S, "paraphrase", "micro returns 0 when the release has fewer than three items.", "len(self.release) >= 3 else 0"),
        (U, "contradiction", "Version('1').minor raises IndexError.", "returns 0"),
        (S, "restate", "major, minor and micro all return an int.", "-> int"),
        (P, "partial", "Version('1').micro is 0, and Version also offers a patch property as an alias of micro.", "no alias in these lines"),
        (P, "partial", "Version('1.2.3').major is 1, and the value is cached after the first access.", "caching not stated"),
    ]),
]  # fmt: skip


def outside(source: str) -> bool:
    """Whether bench/support_outside.py reads this file."""
    if source in OUTSIDE_FILES:
        return True
    return source.endswith(".dist-info/METADATA") and source.startswith(OUTSIDE_METADATA)


def build() -> list[dict]:
    sources = {source for _, source, *_ in PASSAGES}
    reused = sources & cited_sources(EARLIER)
    if reused:
        raise SystemExit(f"an earlier set already cites {sorted(reused)}")
    named = sorted(source for source in sources if outside(source))
    if named:
        raise SystemExit(f"bench/support_outside.py already reads {named}")
    for _, source, first, last, *_ in PASSAGES:
        if not 15 <= last - first + 1 <= 60:
            raise SystemExit(f"{source}:{first}-{last} is not 15-60 lines long")
    return records_from(PASSAGES, prefix="v", split_of=lambda index: "fifth")


def main() -> None:
    write_set(build(), OUT, len(PASSAGES))


if __name__ == "__main__":
    main()
