"""The built-in engine's evaluation set: questions over real third-party
documentation and code installed in ``.venv`` (read at run time, never copied).

Each answerable question names its gold fact: the file (relative to
site-packages), the lines that state it, and the key phrase(s) a correct lead
sentence contains (any one of them, compared case-insensitively with
whitespace folded). A two-file question has one gold fact per file.
``held_out`` questions (every third) are not looked at while tuning the engine.
Questions numbered from 101 are a second held-out batch (``split == "new"``),
written from the files after the second tuning pass and committed before the
engine was run on them; the tuning loop never prints them. Since the fourth
pass every question up to 200 has been read (they are all tuning data now).
Questions numbered from 201 are a third held-out batch (``split == "third"``),
written from files the passes had not used, after the fourth pass's engine
changes and committed before the engine was first run on them; they were
read after that first run. Questions from 301 are a fourth held-out batch
(``split == "fourth"``), written the same way after the pass's last change.
Questions from 401 are a fifth held-out batch (``split == "fifth"``), written
by an engineer who had never seen the engine's code or outputs, from files in
the eval corpus that no earlier question used (read directly in site-packages),
checked with ``bench/check_eval_set.py`` and committed before the engine was
run on them; the semantic reranker is measured once on them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Gold:
    file: str
    lines: tuple[int, int]
    phrases: tuple[str, ...]


@dataclass(frozen=True)
class Case:
    number: int
    kind: str  # number, name, yesno, howto, why, synonym, twofile, unanswerable
    question: str
    gold: tuple[Gold, ...]

    @property
    def split(self) -> str:
        """The part: tune, held (every third of the first set), new (the second
        held-out batch), third (the third held-out batch), fourth or fifth."""
        if self.number > 400:
            return "fifth"
        if self.number > 300:
            return "fourth"
        if self.number > 200:
            return "third"
        if self.number > 100:
            return "new"
        return "held" if self.number % 3 == 0 else "tune"

    @property
    def held_out(self) -> bool:
        return self.split != "tune"

    @property
    def answerable(self) -> bool:
        return bool(self.gold)


def _case(number: int, kind: str, question: str, *gold: tuple) -> Case:
    return Case(number, kind, question, tuple(Gold(f, lines, tuple(p)) for f, lines, *p in gold))


CASES = [
    _case(
        1,
        "number",
        "What is the default maximum number of examples Hypothesis tries per test?",
        ("hypothesis/_settings.py", (789, 789), "default max examples is ``100``"),
    ),
    _case(
        2,
        "number",
        "How many steps does a Hypothesis stateful test run by default?",
        ("hypothesis/_settings.py", (969, 969), "stateful step count is ``50``"),
    ),
    _case(
        3,
        "number",
        "What is the default deadline for a single Hypothesis test case?",
        ("hypothesis/_settings.py", (1023, 1023), "default deadline is 200 milliseconds"),
    ),
    _case(
        4,
        "number",
        "How long is a Django password reset link valid by default?",
        ("django/conf/global_settings.py", (545, 545), "(default: 3 days)"),
    ),
    _case(
        5,
        "number",
        "How long does Django's session cookie last by default?",
        ("django/conf/global_settings.py", (492, 492), "(default: 2 weeks)"),
    ),
    _case(
        6,
        "number",
        "How many GET/POST parameters does Django read before raising TooManyFieldsSent?",
        ("django/conf/global_settings.py", (326, 326), "DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000"),
    ),
    _case(
        7,
        "number",
        "What is the largest request Django keeps in memory before streaming an upload to the file system?",
        ("django/conf/global_settings.py", (318, 318), "FILE_UPLOAD_MAX_MEMORY_SIZE = 2621440", "2.5 MB"),
    ),
    _case(
        8,
        "number",
        "How many times is a Celery task retried before giving up by default?",
        ("celery/app/task.py", (265, 265), "max_retries = 3"),
    ),
    _case(
        9,
        "number",
        "How long does Celery wait before retrying a task by default?",
        ("celery/app/task.py", (268, 268), "3 minutes by default"),
    ),
    _case(
        10,
        "number",
        "What is the default delivery mode of kombu messages?",
        ("kombu/entity.py", (127, 127), "The default value is 2 (persistent)"),
    ),
    _case(
        11,
        "number",
        "How many frames does the websockets client buffer before applying flow control?",
        ("websockets/asyncio/client.py", (206, 206), "It defaults to 16 frames"),
    ),
    _case(
        12,
        "number",
        "What is the default write buffer limit of a websockets client?",
        ("websockets/asyncio/client.py", (212, 212), "to 32 KiB"),
    ),
    _case(
        13,
        "number",
        "What is the maximum width of click help pages by default?",
        ("click/core.py", (246, 246), "defaults to 80 characters"),
    ),
    _case(
        14,
        "number",
        "Which port does the redis-py basic example connect to?",
        ("redis-8.1.0.dist-info/METADATA", (129, 129), "port=6379", "port 6379"),
    ),
    _case(
        15,
        "name",
        "What encoding does Python-Markdown use for input files by default?",
        ("markdown/core.py", (410, 410), "defaults to `utf-8`", "Defaults to `utf-8`"),
    ),
    _case(
        16,
        "name",
        "What heading style does markdownify produce by default?",
        ("markdownify-1.2.3.dist-info/METADATA", (98, 98), "Defaults to ``UNDERLINED``"),
    ),
    _case(
        17,
        "name",
        "Which symbol does markdownify use for strong emphasis by default?",
        ("markdownify-1.2.3.dist-info/METADATA", (109, 109), "``ASTERISK`` (default)"),
    ),
    _case(
        18,
        "number",
        "What does dj-database-url's conn_max_age default to?",
        ("dj_database_url-3.1.2.dist-info/METADATA", (144, 145), "default of ``0``"),
    ),
    _case(
        19,
        "name",
        "How are websockets reconnection attempts spaced out by default?",
        ("websockets/asyncio/client.py", (200, 200), "exponential backoff with 5s jitter"),
    ),
    _case(
        20,
        "name",
        "Which query dialect does redis-py use by default for search commands?",
        ("redis-8.1.0.dist-info/METADATA", (230, 230), "dialect with version 2", "DIALECT 2"),
    ),
    _case(
        21,
        "yesno",
        "Does Celery support Microsoft Windows?",
        ("celery-5.7.0.dist-info/METADATA", (279, 279), "we don't support Microsoft Windows"),
    ),
    _case(
        22,
        "name",
        "Which message broker transports are feature complete in Celery?",
        (
            "celery-5.7.0.dist-info/METADATA",
            (283, 283),
            "The RabbitMQ, Redis transports are feature complete",
        ),
    ),
    _case(
        23,
        "name",
        "Which redis-py version was the last one to support Python 3.7?",
        (
            "redis-8.1.0.dist-info/METADATA",
            (64, 64),
            "redis-py 5.0 is the last version of redis-py that supports Python 3.7",
        ),
    ),
    _case(
        24,
        "name",
        "Which Redis server versions does redis-py 6.0.0 and later support?",
        ("redis-8.1.0.dist-info/METADATA", (120, 120), "Version 7.2 to current"),
    ),
    _case(
        25,
        "name",
        "Which exception does pytest's importorskip catch by default?",
        ("_pytest/outcomes.py", (220, 220), "Defaults to :class:`ModuleNotFoundError`"),
    ),
    _case(
        26,
        "name",
        "What name does click give a command by default?",
        ("click/decorators.py", (177, 177), "defaults to the name of the function"),
    ),
    _case(
        27,
        "name",
        "What does json_repair's repair_json return for a string that is beyond repair?",
        ("json_repair-0.64.4.dist-info/METADATA", (110, 110), "this will return an empty string"),
    ),
    _case(
        28,
        "yesno",
        "Is a redis-py pipeline wrapped in MULTI/EXEC by default?",
        ("redis-8.1.0.dist-info/METADATA", (186, 186), "wrapped with the MULTI and EXEC statements"),
    ),
    _case(
        29,
        "name",
        "What does Django's slugify do with leading and trailing dashes?",
        (
            "django/utils/text.py",
            (487, 488),
            "strip leading and trailing whitespace, dashes, and underscores",
        ),
    ),
    _case(
        30,
        "name",
        "What is the unit of work in a Celery task queue called?",
        ("celery-5.7.0.dist-info/METADATA", (230, 230), "called a task"),
    ),
    _case(
        31,
        "howto",
        "How do I create a redis-py connection pool and use it?",
        (
            "redis-8.1.0.dist-info/METADATA",
            (169, 169),
            "redis.ConnectionPool(host='localhost', port=6379, db=0)",
        ),
    ),
    _case(
        32,
        "howto",
        "How do I send several Redis commands in one round trip with redis-py?",
        ("redis-8.1.0.dist-info/METADATA", (207, 207), "pipe = r.pipeline()"),
    ),
    _case(
        33,
        "howto",
        "How do I subscribe to a Redis channel with redis-py?",
        ("redis-8.1.0.dist-info/METADATA", (222, 222), "p.subscribe(", "r.pubsub()"),
    ),
    _case(
        34,
        "howto",
        "How do I convert HTML to Markdown with markdownify but drop the links?",
        ("markdownify-1.2.3.dist-info/METADATA", (64, 64), "strip=['a']"),
    ),
    _case(
        35,
        "howto",
        "How do I fix malformed JSON returned by an LLM in Python?",
        (
            "json_repair-0.64.4.dist-info/METADATA",
            (109, 109),
            "repair_json(bad_json_string)",
            "json_repair.loads(",
        ),
    ),
    _case(
        36,
        "howto",
        "How do I configure Django's DATABASES from the DATABASE_URL environment variable?",
        (
            "dj_database_url-3.1.2.dist-info/METADATA",
            (78, 78),
            "DATABASES['default'] = dj_database_url.config(",
            "dj_database_url.config(",
        ),
    ),
    _case(
        37,
        "howto",
        "How do I give a block of thread-sensitive sync_to_async calls its own single-thread executor?",
        ("asgiref-3.13.0.dist-info/METADATA", (112, 112), "ThreadPoolExecutor(max_workers=1)"),
    ),
    _case(
        38,
        "howto",
        "How do I skip a test when an optional dependency is not installed?",
        (
            "_pytest/outcomes.py",
            (205, 206),
            "skip the current test if the module cannot be imported",
            "importorskip",
        ),
    ),
    _case(
        39,
        "howto",
        "How do I make redis-py return str instead of bytes?",
        ("redis-8.1.0.dist-info/METADATA", (136, 136), "decode_responses"),
    ),
    _case(
        40,
        "howto",
        "How do I turn off a Hypothesis health check?",
        ("hypothesis/_settings.py", (999, 999), "settings(suppress_health_check=", "suppress_health_check="),
    ),
    _case(
        41,
        "howto",
        "How can I install redis-py with the faster hiredis parser?",
        ("redis-8.1.0.dist-info/METADATA", (104, 104), 'pip install "redis[hiredis]"'),
    ),
    _case(
        42,
        "howto",
        "How do I limit a Celery task to a hundred runs per minute?",
        ("celery/app/task.py", (272, 272), "'100/m'"),
    ),
    _case(
        43,
        "howto",
        "How do I start a Redis 8 server with Docker?",
        ("redis-8.1.0.dist-info/METADATA", (86, 86), "docker run -p 6379:6379 -it redis:latest"),
    ),
    _case(
        44,
        "why",
        "Why does sync_to_async run synchronous code in one thread by default?",
        ("asgiref-3.13.0.dist-info/METADATA", (83, 83), "for safety reasons"),
    ),
    _case(
        45,
        "why",
        "Why is calling json.loads before json_repair.loads wasteful?",
        (
            "json_repair-0.64.4.dist-info/METADATA",
            (135, 135),
            "already does that strict `json.loads()` check",
        ),
    ),
    _case(
        46,
        "why",
        "Why can't a redis-py PubSub connection run other commands?",
        ("redis-8.1.0.dist-info/METADATA", (192, 192), "execute non-pubsub commands"),
    ),
    _case(
        47,
        "why",
        "Why is it acceptable to suppress Hypothesis health checks?",
        (
            "hypothesis/_settings.py",
            (1002, 1002),
            "Health checks are proactive warnings, not correctness errors",
        ),
    ),
    _case(
        48,
        "why",
        "Why did redis-py stop supporting Python 3.8?",
        (
            "redis-8.1.0.dist-info/METADATA",
            (65, 65),
            "6.1.0 is the last version of redis-py that supports Python 3.8, as it has reached",
        ),
    ),
    _case(
        49,
        "why",
        "Why might a Celery task with acks_late be executed twice?",
        ("celery/app/task.py", (331, 331), "worker crashes mid execution"),
    ),
    _case(
        50,
        "why",
        "Why must special characters in a dj-database-url URL be encoded?",
        ("dj_database_url-3.1.2.dist-info/METADATA", (159, 159), "must be valid URLs"),
    ),
    _case(
        51,
        "synonym",
        "How long do Django password-recovery links stay usable?",
        ("django/conf/global_settings.py", (545, 545), "(default: 3 days)"),
    ),
    _case(
        52,
        "synonym",
        "How many attempts does Celery make to re-run a failing task before it stops?",
        ("celery/app/task.py", (265, 265), "max_retries = 3"),
    ),
    _case(
        53,
        "synonym",
        "What heartbeat period does the websockets client use to keep a connection alive?",
        ("websockets/asyncio/client.py", (69, 69), "ping_interval: float | None = 20"),
    ),
    _case(
        54,
        "synonym",
        "Where does Django put big uploads instead of keeping them in RAM?",
        ("django/conf/global_settings.py", (317, 317), "file system instead of into memory"),
    ),
    _case(
        55,
        "synonym",
        "Can Celery scale out across many machines?",
        ("celery-5.7.0.dist-info/METADATA", (238, 238), "high availability and horizontal scaling"),
    ),
    _case(
        56,
        "synonym",
        "What does markdownify emit for a <br> line break by default?",
        ("markdownify-1.2.3.dist-info/METADATA", (122, 122), "two spaces and a newline"),
    ),
    _case(
        57,
        "synonym",
        "How long may a single Hypothesis example take before it counts as too slow?",
        ("hypothesis/_settings.py", (1023, 1023), "default deadline is 200 milliseconds"),
    ),
    _case(
        58,
        "synonym",
        "What is the default pause before Celery re-executes a task that asked to be retried?",
        ("celery/app/task.py", (268, 268), "3 minutes by default"),
    ),
    _case(
        59,
        "twofile",
        "What are the default ping interval of a websockets client and the default max_retries of a Celery task?",
        ("websockets/asyncio/client.py", (69, 69), "ping_interval: float | None = 20"),
        ("celery/app/task.py", (265, 265), "max_retries = 3"),
    ),
    _case(
        60,
        "twofile",
        "Compare the default retry delay of Celery tasks with how websockets spaces its reconnection attempts.",
        ("celery/app/task.py", (268, 268), "3 minutes by default"),
        ("websockets/asyncio/client.py", (200, 200), "exponential backoff with 5s jitter"),
    ),
    _case(
        61,
        "twofile",
        "What are markdownify's default heading style and Python-Markdown's default file encoding?",
        ("markdownify-1.2.3.dist-info/METADATA", (98, 98), "Defaults to ``UNDERLINED``"),
        ("markdown/core.py", (410, 410), "defaults to `utf-8`", "Defaults to `utf-8`"),
    ),
    _case(
        62,
        "twofile",
        "What do Hypothesis's default deadline and Django's password reset timeout default to?",
        ("hypothesis/_settings.py", (1023, 1023), "default deadline is 200 milliseconds"),
        ("django/conf/global_settings.py", (545, 545), "(default: 3 days)"),
    ),
    _case(63, "unanswerable", "How many GPUs does Celery's beat scheduler require?"),
    _case(64, "unanswerable", "Which Kubernetes version does redis-py require?"),
    _case(65, "unanswerable", "What is the default timeout of markdownify's HTTP downloads?"),
    _case(66, "unanswerable", "How much does a commercial license for json_repair cost?"),
    _case(
        67,
        "unanswerable",
        "How many websockets connections per IP address does the websockets server allow by default?",
    ),
    _case(68, "unanswerable", "In which year was the click library first released?"),
    _case(69, "unanswerable", "What is the default port of the pytest web dashboard?"),
    _case(70, "unanswerable", "How many worker threads does markdownify use to convert a document?"),
    _case(
        71,
        "number",
        "How long does Hypothesis's Redis example database keep examples by default?",
        ("hypothesis/extra/redis.py", (40, 40), "timedelta(days=8)"),
    ),
]

# More tuning questions (numbers not divisible by 3), added in the third pass
# so the engine is tuned on more than the first 42.
CASES += [
    _case(
        73,
        "howto",
        "How do I load many Redis hashes that share the same field names with redis-py?",
        (
            "redis-8.1.0.dist-info/METADATA",
            (280, 280),
            'r.himport_prepare("users", ["name", "email", "age"])',
        ),
    ),
    _case(
        74,
        "why",
        "Why must a redis-py HIMPORT fieldset be prepared again after a reconnect?",
        (
            "redis-8.1.0.dist-info/METADATA",
            (289, 290),
            "lives in the server-side session of the physical connection",
        ),
        (
            "redis/himport.py",
            (5, 6),
            "fieldset is server-side session state bound to a single physical connection",
        ),
    ),
    _case(
        76,
        "synonym",
        "What does Django's Truncator add by default to show that a string was cut short?",
        ("django/utils/text.py", (198, 199), "defaulting to a translatable string of an ellipsis"),
        ("django/utils/text.py", (237, 238), "defaulting to ellipsis"),
    ),
    _case(
        77,
        "number",
        "How many bits of randomness does Django's get_random_string give for 22 characters?",
        ("django/utils/crypto.py", (75, 75), "length: 22, bit length =~ 131 bits"),
    ),
    _case(
        79,
        "yesno",
        "Do ordinary hash commands work on hashes written with redis-py's HIMPORT?",
        ("redis-8.1.0.dist-info/METADATA", (276, 277), "every hash command works on them"),
    ),
    _case(
        80,
        "howto",
        "How do I stop a redis-py pipeline from being wrapped in MULTI/EXEC?",
        ("redis-8.1.0.dist-info/METADATA", (185, 188), "transaction=False"),
    ),
    _case(
        82,
        "name",
        "Which Redis deployments is the redis-py multi-database client designed for?",
        ("redis-8.1.0.dist-info/METADATA", (264, 264), "Redis Software and Redis Cloud Active-Active"),
    ),
    _case(
        83,
        "synonym",
        "Does HGETALL return the fields of a HIMPORT hash in the order they were prepared?",
        ("redis-8.1.0.dist-info/METADATA", (286, 287), "not guaranteed to match the prepare order"),
    ),
    _case(
        85,
        "name",
        "Which language code does a Django project use by default?",
        ("django/conf/global_settings.py", (50, 50), 'LANGUAGE_CODE = "en-us"'),
    ),
    _case(
        86,
        "name",
        "What time zone does Django assume by default?",
        ("django/conf/global_settings.py", (41, 41), 'TIME_ZONE = "America/Chicago"'),
    ),
]

# The second held-out batch: written by reading the files (not by running the
# engine), over the same installed packages, never printed while tuning.
CASES += [
    _case(
        101,
        "number",
        "Which port does Django use to send email by default?",
        ("django/conf/global_settings.py", (206, 207), "EMAIL_PORT = 25"),
    ),
    _case(
        102,
        "synonym",
        "What file permissions does Django give newly uploaded files by default?",
        ("django/conf/global_settings.py", (337, 340), "FILE_UPLOAD_PERMISSIONS = 0o644"),
    ),
    _case(
        103,
        "yesno",
        "Does Django's session cookie expire when the browser is closed by default?",
        ("django/conf/global_settings.py", (507, 508), "SESSION_EXPIRE_AT_BROWSER_CLOSE = False"),
    ),
    _case(
        104,
        "number",
        "Which close code does a websockets server send to its connections when the server is closed?",
        ("websockets/asyncio/server.py", (576, 577), "code 1001"),
    ),
    _case(
        105,
        "yesno",
        "Is permessage-deflate compression enabled by default on a websockets server?",
        ("websockets/asyncio/server.py", (605, 605), "extension is enabled by default"),
    ),
    _case(
        106,
        "name",
        "What message does click's pause function print by default?",
        ("click/termui.py", (1004, 1005), "Press any key to continue"),
    ),
    _case(
        107,
        "name",
        "Which option names show a click command's help page by default?",
        ("click/core.py", (267, 269), "default is ``['--help']``"),
    ),
    _case(
        108,
        "howto",
        "How do I wrap a WSGI application so that it can be served as an ASGI application with asgiref?",
        ("asgiref-3.13.0.dist-info/METADATA", (187, 187), "WsgiToAsgi(wsgi_application)"),
    ),
    _case(
        109,
        "synonym",
        "Does kombu fan out messages on Amazon SQS out of the box?",
        ("kombu-5.7.0.dist-info/METADATA", (201, 203), "Disabled by default"),
    ),
    _case(
        110,
        "name",
        "What do kombu producers send their messages to?",
        ("kombu-5.7.0.dist-info/METADATA", (318, 318), "Producers sends messages to an exchange"),
    ),
    _case(
        111,
        "name",
        "What happens when a task makes a thread-sensitive call after its ThreadSensitiveContext has exited?",
        ("asgiref-3.13.0.dist-info/METADATA", (142, 143), "raises ``RuntimeError``"),
    ),
    _case(
        112,
        "number",
        "How many active connections may a kombu connection pool hold by default?",
        ("kombu/connection.py", (843, 844), "Default is no limit"),
    ),
    _case(
        113,
        "twofile",
        "What is the largest incoming message a websockets server accepts by default, and how much request "
        "data does Django read before raising RequestDataTooBig?",
        ("websockets/asyncio/server.py", (517, 517), "= 2**20"),
        ("django/conf/global_settings.py", (320, 322), "DATA_UPLOAD_MAX_MEMORY_SIZE = 2621440"),
    ),
    _case(
        114,
        "why",
        "Why can kombu Exchange and Queue objects be used in configuration files?",
        ("kombu-5.7.0.dist-info/METADATA", (289, 290), "simply declarations that can be pickled"),
    ),
    _case(
        115,
        "synonym",
        "Where does Django keep streamed uploads temporarily when no folder is configured?",
        ("django/conf/global_settings.py", (332, 334), "operating system's default temporary"),
    ),
    _case(
        116,
        "number",
        "How many external plugins does pytest have?",
        ("pytest-9.2.0.dist-info/METADATA", (157, 157), "1300+"),
    ),
    _case(
        117,
        "why",
        "Why can I use plain assert statements in pytest tests?",
        ("pytest-9.2.0.dist-info/METADATA", (137, 137), "detailed assertion introspection"),
    ),
    _case(
        118,
        "synonym",
        "How many spaces does Python-Markdown treat a tab as by default?",
        ("markdown/core.py", (51, 51), "Default: `4`"),
    ),
    _case(
        119,
        "howto",
        "How do I close a websockets server but keep its connections open until clients disconnect?",
        ("websockets/asyncio/server.py", (579, 579), "close_connections=False"),
    ),
    _case(
        120,
        "howto",
        "How do I make click ignore command line options it does not recognise?",
        ("click/core.py", (264, 266), "ignore_unknown_options"),
    ),
    _case(
        121,
        "twofile",
        "Which Python versions do pytest and asgiref require?",
        ("pytest-9.2.0.dist-info/METADATA", (155, 155), "Python 3.10+"),
        ("asgiref-3.13.0.dist-info/METADATA", (199, 199), "requires Python 3.11 or higher"),
    ),
    _case(
        122,
        "number",
        "How many greetings does the hello command of click's simple example print by default?",
        ("click-8.5.1.dist-info/METADATA", (47, 47), "default=1"),
    ),
    _case(123, "unanswerable", "Which cloud region does dj-database-url connect to by default?"),
    _case(124, "unanswerable", "How many CPU cores does asgiref's WsgiToAsgi adapter reserve?"),
    _case(125, "unanswerable", "How long does click keep its shell history file by default?"),
    _case(126, "unanswerable", "How much memory does django-htmx reserve per request by default?"),
    # The third held-out batch: written by reading these files, before the engine ran on any of them.
    _case(
        201,
        "yesno",
        "Does Django add a trailing slash to URLs by default?",
        ("django/conf/global_settings.py", (241, 242), "APPEND_SLASH = True"),
    ),
    _case(
        202,
        "synonym",
        "On which weekday do calendars in Django start by default?",
        ("django/conf/global_settings.py", (429, 431), "FIRST_DAY_OF_WEEK = 0"),
    ),
    _case(
        203,
        "name",
        "What prefix does Django put in the subject line of emails sent to the site admins?",
        ("django/conf/global_settings.py", (237, 239), 'EMAIL_SUBJECT_PREFIX = "[Django] "'),
    ),
    _case(
        204,
        "name",
        "Which X-Frame-Options header value does Django send by default?",
        ("django/conf/global_settings.py", (453, 454), 'X_FRAME_OPTIONS = "DENY"'),
    ),
    _case(
        205,
        "number",
        "What is the default prefetch multiplier of a Celery worker?",
        ("celery/app/defaults.py", (365, 365), "prefetch_multiplier=Option(4"),
    ),
    _case(
        206,
        "synonym",
        "How long does Celery keep task results before they are deleted by default?",
        ("celery/app/defaults.py", (218, 219), "timedelta(days=1)"),
    ),
    _case(
        207,
        "name",
        "What is the name of the queue Celery sends tasks to by default?",
        ("celery/app/defaults.py", (287, 287), "default_queue=Option('celery')"),
    ),
    _case(
        208,
        "synonym",
        "How long does a websockets client wait for the opening handshake to complete by default?",
        ("websockets/asyncio/client.py", (279, 279), "open_timeout: float | None = 10"),
    ),
    _case(
        209,
        "name",
        "What User-Agent header does a websockets client send by default?",
        ("websockets/asyncio/client.py", (180, 181), "Python/x.y.z websockets/X.Y"),
    ),
    _case(
        210,
        "howto",
        "How do I stop a websockets client from using the system's configured proxy?",
        ("websockets/asyncio/client.py", (183, 184), "to :obj:`None` to disable the proxy"),
    ),
    _case(
        211,
        "yesno",
        "Does click.confirm treat an empty answer as yes by default?",
        ("click/termui.py", (291, 291), "default: bool | None = False"),
    ),
    _case(
        212,
        "howto",
        "How do I open a file manager with a file selected using click?",
        ("click/termui.py", (941, 943), "launch a file manager with the file located", "locate=True"),
    ),
    _case(
        213,
        "name",
        "Which marker text does Python-Markdown's toc extension replace with the table of contents by default?",
        ("markdown/extensions/toc.py", (449, 451), "Default: `[TOC]`"),
    ),
    _case(
        214,
        "number",
        "Down to which heading level does Python-Markdown's table of contents go by default?",
        ("markdown/extensions/toc.py", (491, 491), "Default: `6` (bottom)"),
    ),
    _case(
        215,
        "yesno",
        "Are Python-Markdown footnotes ordered by where they are defined by default?",
        ("markdown/extensions/footnotes.py", (67, 69), "Default: True."),
    ),
    _case(
        216,
        "number",
        "How long does asgiref's ApplicationCommunicator wait for an output message by default?",
        ("asgiref/testing.py", (99, 99), "receive_output(self, timeout=1)"),
    ),
    _case(
        217,
        "synonym",
        "Does Hypothesis test the same examples on every run by default?",
        (
            "hypothesis/_settings.py",
            (811, 811),
            "The default is ``False``. If running on CI, the default is ``True``",
        ),
    ),
    _case(
        218,
        "why",
        "Why does markdownify put nothing around subscript and superscript text by default?",
        ("markdownify-1.2.3.dist-info/METADATA", (112, 113), "because this is non-standard behavior"),
    ),
    _case(
        219,
        "why",
        "Why does a websockets connection refuse to send a dictionary?",
        ("websockets/asyncio/connection.py", (438, 438), "because this is often an error"),
    ),
    _case(
        220,
        "twofile",
        "Which word separator does Python-Markdown's toc extension use in anchors, and what is the name of "
        "Django's session cookie?",
        ("markdown/extensions/toc.py", (485, 485), "Word separator. Default: `-`."),
        ("django/conf/global_settings.py", (491, 491), 'SESSION_COOKIE_NAME = "sessionid"'),
    ),
    _case(
        221,
        "twofile",
        "Which character set does Django use for responses by default, and how many connections does "
        "Celery's broker connection pool hold by default?",
        ("django/conf/global_settings.py", (177, 179), 'DEFAULT_CHARSET = "utf-8"'),
        ("celery/app/defaults.py", (101, 101), "pool_limit=Option(10"),
    ),
    _case(
        222,
        "name",
        "Which response header does django-htmx's HttpResponseClientRedirect set?",
        ("django_htmx/http.py", (45, 45), 'self["HX-Redirect"]'),
    ),
    _case(
        223,
        "howto",
        "How do I make htmx reload the whole page from a Django view with django-htmx?",
        ("django_htmx/http.py", (53, 56), "HttpResponseClientRefresh", 'self["HX-Refresh"] = "true"'),
    ),
    _case(
        224,
        "yesno",
        "Does a kombu Connection use SSL by default?",
        ("kombu/connection.py", (120, 121), "Default is ``False``."),
    ),
    _case(
        225,
        "howto",
        "How do I make a kombu connection connect right away instead of lazily?",
        ("kombu/connection.py", (136, 138), "force it by calling", "conn.connect()"),
    ),
    _case(226, "unanswerable", "Which Redis database number does django-htmx's cache use by default?"),
    _case(227, "unanswerable", "How many seconds does click wait before a prompt times out by default?"),
    _case(
        228, "unanswerable", "Which compression level does Python-Markdown use when writing its output files?"
    ),
    _case(229, "unanswerable", "How many shards does asgiref's ApplicationCommunicator create by default?"),
    # A fourth held-out batch: written by reading these files after the last engine change of the
    # fourth pass, committed before the engine ran on any of them (the third batch had been read).
    _case(
        301,
        "number",
        "How many old tmp_path directories does pytest keep by default?",
        ("_pytest/tmpdir.py", (299, 301), "default=3"),
    ),
    _case(
        302,
        "number",
        "What relative tolerance does pytest.approx use by default?",
        ("_pytest/approx.py", (489, 489), "DEFAULT_RELATIVE_TOLERANCE: float | Decimal = 1e-6"),
    ),
    _case(
        303,
        "name",
        "Which bullet characters does markdownify use for lists by default?",
        ("markdownify-1.2.3.dist-info/METADATA", (104, 104), "Defaults to ``'*+-'``"),
    ),
    _case(
        304,
        "synonym",
        "At what line length does markdownify break paragraphs when wrapping is turned on?",
        ("markdownify-1.2.3.dist-info/METADATA", (172, 173), "Defaults to ``False`` and ``80``"),
    ),
    _case(
        305,
        "yesno",
        "Does dj-database-url require SSL by default?",
        ("dj_database_url/__init__.py", (134, 134), "ssl_require: bool = False"),
    ),
    _case(
        306,
        "yesno",
        "Are kombu exchanges durable by default?",
        ("kombu/entity.py", (107, 109), "Default is :const:`True`."),
    ),
    _case(
        307,
        "name",
        "Which hash algorithm does Django's salted_hmac use by default?",
        ("django/utils/crypto.py", (24, 25), "Default algorithm is SHA1"),
    ),
    _case(
        308,
        "howto",
        "How do I turn an arbitrary string into a safe file name with Django?",
        ("django/utils/text.py", (282, 286), "get_valid_filename"),
    ),
    _case(
        309,
        "synonym",
        "How many redirects does a websockets client follow before giving up?",
        ("websockets/asyncio/client.py", (37, 37), '"WEBSOCKETS_MAX_REDIRECTS", "10"'),
    ),
    _case(
        310,
        "why",
        "Why should I pass an explicit algorithm to Django's salted_hmac?",
        ("django/utils/crypto.py", (28, 29), "The default algorithm will change to SHA256"),
    ),
    _case(
        311,
        "twofile",
        "What is the default absolute tolerance of pytest.approx, and are kombu exchanges deleted "
        "automatically when their queues are done by default?",
        ("_pytest/approx.py", (488, 488), "DEFAULT_ABSOLUTE_TOLERANCE: float | Decimal = 1e-12"),
        ("kombu/entity.py", (111, 112), "Default is :const:`False`."),
    ),
    _case(
        312,
        "howto",
        "How do I remove the HTML tags from a string in Django?",
        ("django/utils/html.py", (216, 217), "strip_tags", "Return the given HTML with all tags stripped"),
    ),
    _case(
        313, "unanswerable", "How many parallel workers does pytest use to clean up old tmp_path directories?"
    ),
    _case(314, "unanswerable", "Which TLS version does dj-database-url enforce by default?"),
    _case(315, "unanswerable", "Into how many languages does markdownify translate headings?"),
    _case(316, "unanswerable", "How many CPU cores does pytest.approx use to compare numbers?"),
    # A fifth held-out batch: written by an engineer who had not seen the engine's code or answers,
    # from files no earlier question used (all inside the eval corpus), committed before the engine
    # ran on any of them.
    _case(
        401,
        "number",
        "What is the longest pause redis-py's backoff waits between retries by default?",
        ("redis/backoff.py", (4, 5), "DEFAULT_CAP = 0.512", "0.512"),
    ),
    _case(
        402,
        "howto",
        "How do I make a redis-py Retry keep retrying without any limit?",
        ("redis/retry.py", (40, 40), "negative to retry forever"),
    ),
    _case(
        403,
        "number",
        "How many application instances does asgiref's StatelessServer keep before it deletes the oldest?",
        ("asgiref/server.py", (46, 46), "max_applications=1000", "1000"),
    ),
    _case(
        404,
        "why",
        "Why would I want asgiref's sync_to_async to run my sync code in the same thread as the outer code?",
        ("asgiref/sync.py", (433, 435), "not threadsafe", "SQLite database connections"),
    ),
    _case(
        405,
        "name",
        "In which folder does pytest keep its cache between runs by default?",
        ("_pytest/cacheprovider.py", (536, 536), '".pytest_cache"', ".pytest_cache"),
    ),
    _case(
        406,
        "name",
        "Which JUnit XML schema does pytest write its report in by default?",
        ("_pytest/junitxml.py", (462, 467), 'default="xunit2"', "xunit2"),
    ),
    _case(
        407,
        "synonym",
        "Does pytest overwrite or append to its log file on each run by default?",
        ("_pytest/logging.py", (299, 305), 'default="w"'),
    ),
    _case(
        408,
        "synonym",
        "What status does a click program exit with when the user passes bad arguments?",
        ("click/exceptions.py", (77, 77), "exit_code: t.ClassVar[int] = 2"),
    ),
    _case(
        409,
        "howto",
        "Where should my click application store its configuration files so that it works on every OS?",
        ("click/utils.py", (472, 473), "get_app_dir"),
    ),
    _case(
        410,
        "name",
        "Which CSS class does Python-Markdown's CodeHilite put on the div around highlighted code by default?",
        ("markdown/extensions/codehilite.py", (304, 306), "Default: `codehilite`"),
    ),
    _case(
        411,
        "synonym",
        "How do I make every single line break in Python-Markdown become a <br>, like on GitHub?",
        ("markdown/extensions/nl2br.py", (17, 18), "treat newlines as hard breaks"),
    ),
    _case(
        412,
        "yesno",
        "Does Python-Markdown's tables extension use the HTML align attribute for column alignment by default?",
        ("markdown/extensions/tables.py", (233, 233), "'use_align_attribute': [False"),
    ),
    _case(
        413,
        "why",
        "Why shouldn't I wait for a Celery task's result inside another task?",
        ("celery/result.py", (198, 200), "may lead to deadlocks"),
    ),
    _case(
        414,
        "yesno",
        "If AsyncResult.get() times out, does Celery stop the task?",
        ("celery/result.py", (213, 214), "isn't terminated even if timeout occurs"),
    ),
    _case(
        415,
        "synonym",
        "How often does Celery's AsyncResult.get check again for the result by default?",
        ("celery/result.py", (191, 191), "interval=0.5"),
    ),
    _case(
        416,
        "yesno",
        "Does day_of_week='*/2' in a Celery crontab mean every other day?",
        ("celery/schedules.py", (392, 393), "every day that is divisible by two"),
    ),
    _case(
        417,
        "name",
        "Which serializer does a kombu Producer use by default?",
        ("kombu/messaging.py", (150, 150), 'Default is `"json"`'),
    ),
    _case(
        418,
        "yesno",
        "Does Django's timesince include seconds in its output?",
        ("django/utils/timesince.py", (34, 35), "Seconds and microseconds are ignored"),
    ),
    _case(
        419,
        "number",
        "How many adjacent time units does Django's timesince show by default?",
        ("django/utils/timesince.py", (28, 28), "depth=2"),
    ),
    _case(
        420,
        "howto",
        "How do I check in Django that a ?next= redirect URL is safe to follow?",
        ("django/utils/http.py", (276, 278), "url_has_allowed_host_and_scheme"),
    ),
    _case(
        421,
        "number",
        "Which close code does websockets use when a message is too large?",
        ("websockets/frames.py", (63, 63), "MESSAGE_TOO_BIG = 1009", "1009"),
    ),
    _case(
        422,
        "synonym",
        "Which websockets exception tells me the other side hung up cleanly?",
        ("websockets/exceptions.py", (160, 165), "ConnectionClosedOK"),
    ),
    _case(
        423,
        "howto",
        "How do I make Hypothesis keep its example database and other data outside the project folder?",
        ("hypothesis/configuration.py", (65, 65), "HYPOTHESIS_STORAGE_DIRECTORY"),
    ),
    _case(
        424,
        "why",
        "Why does Hypothesis write a .gitignore file into its .hypothesis folder?",
        ("hypothesis/configuration.py", (29, 31), "recommend that .hypothesis not be checked"),
    ),
    _case(
        425,
        "twofile",
        "How do I tell browsers never to cache a Django response, and does a kombu Producer compress "
        "messages by default?",
        ("django/utils/cache.py", (293, 295), "add_never_cache_headers"),
        ("kombu/messaging.py", (151, 152), "Default is no compression"),
    ),
    _case(
        426,
        "twofile",
        "Which time format does pytest give log timestamps by default, and which prefix does "
        "Python-Markdown's fenced_code extension put before a code block's language?",
        ("_pytest/logging.py", (51, 51), 'DEFAULT_LOG_DATE_FORMAT = "%H:%M:%S"', "%H:%M:%S"),
        ("markdown/extensions/fenced_code.py", (41, 41), 'Default: "language-"', "language-"),
    ),
    _case(427, "unanswerable", "After how many days does pytest expire the entries of its .pytest_cache?"),
    _case(428, "unanswerable", "Which Pygments style does click use to colour its --help output?"),
    _case(429, "unanswerable", "How many CSS themes does Python-Markdown's tables extension ship with?"),
    _case(
        430,
        "unanswerable",
        "What is the maximum length, in characters, of the string Django's timesince returns?",
    ),
]
