"""Build bench/support_set.jsonl: hand-labelled (claim sentence, cited text) pairs.

The cited texts are real lines of third-party packages installed in ``.venv``
(Django, redis-py, urllib3, Celery, pytest, Hypothesis, websockets, Requests,
Python-Markdown, Pygments and their METADATA). The claims and labels were
written by a person reading those lines, not produced by the judge:

- ``supports``: everything the sentence asserts is stated by the cited text
  (a paraphrase, a synonym, a reordering, a unit conversion such as "two
  weeks" for ``60 * 60 * 24 * 7 * 2`` seconds all count);
- ``partial``: the sentence joins facts, at least one stated by the cited
  text and at least one the text does not state (nor contradict);
- ``unsupported``: the text contradicts something the sentence asserts (a
  wrong number or unit, a flipped negation, a sibling name) or does not state
  its main fact at all (another subject using the same words).

Every record keeps the cited text itself, its file (relative to
site-packages), line range and package version, so the set does not change
when packages are upgraded. Passages, not pairs, are split: every third
passage (index % 3 == 2) is held out, so no cited text is in both parts.

    .venv/bin/python bench/build_support_set.py   # rewrites bench/support_set.jsonl
"""

from __future__ import annotations

import json
import sys
from importlib import metadata
from pathlib import Path

SITE = Path(sys.prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
OUT = Path(__file__).with_name("support_set.jsonl")
S, P, U = "supports", "partial", "unsupported"

GS = "django/conf/global_settings.py"
PAG = "django/core/paginator.py"
RETRY = "urllib3/util/retry.py"
HYP = "hypothesis/_settings.py"
WSC = "websockets/asyncio/client.py"
REDIS = "redis/commands/core.py"

# (distribution, file, first line, last line, anchor that must be in the text, pairs)
# pair: (label, category, claim, note)
PASSAGES = [
    ("Django", GS, 316, 318, "FILE_UPLOAD_MAX_MEMORY_SIZE = 2621440", [
        (S, "restate", "Django streams a request to the file system once it exceeds FILE_UPLOAD_MAX_MEMORY_SIZE, 2621440 bytes by default.", "both facts on the lines"),
        (S, "paraphrase", "By default an upload larger than 2.5 MB is written to disk rather than held in memory.", "disk = file system; 2.5 MB in the comment"),
        (U, "number", "FILE_UPLOAD_MAX_MEMORY_SIZE defaults to 5 MB.", "it is 2.5 MB"),
        (U, "near_miss", "DATA_UPLOAD_MAX_MEMORY_SIZE decides when an upload is streamed to the file system.", "sibling setting; the text is about FILE_UPLOAD_MAX_MEMORY_SIZE"),
        (P, "partial", "FILE_UPLOAD_MAX_MEMORY_SIZE defaults to 2.5 MB, and smaller files are kept in memory by MemoryFileUploadHandler.", "the handler is not named here"),
        (U, "unit", "FILE_UPLOAD_MAX_MEMORY_SIZE is measured in kilobytes.", "the text says bytes"),
    ]),
    ("Django", GS, 320, 330, "DATA_UPLOAD_MAX_NUMBER_FILES = 100", [
        (S, "restate", "Django raises RequestDataTooBig when request data other than file uploads exceeds DATA_UPLOAD_MAX_MEMORY_SIZE.", "excluding file uploads"),
        (S, "paraphrase", "At most 1000 GET/POST parameters are read before TooManyFieldsSent is raised.", "DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000"),
        (U, "number", "DATA_UPLOAD_MAX_NUMBER_FIELDS defaults to 100.", "100 is the files limit; fields is 1000"),
        (U, "near_miss", "DATA_UPLOAD_MAX_NUMBER_FILES limits how many GET/POST parameters are read.", "that is DATA_UPLOAD_MAX_NUMBER_FIELDS"),
        (S, "paraphrase", "A multipart upload may carry up to 100 files before Django raises TooManyFilesSent.", "stated"),
        (P, "partial", "DATA_UPLOAD_MAX_NUMBER_FILES defaults to 100 and can be set to None to turn the check off.", "None is not mentioned"),
        (U, "negation", "The DATA_UPLOAD_MAX_MEMORY_SIZE limit counts file uploads too.", "the text says excluding file uploads"),
    ]),
    ("Django", GS, 492, 493, "SESSION_COOKIE_AGE", [
        (S, "paraphrase", "The session cookie's age defaults to two weeks.", "default: 2 weeks"),
        (S, "restate", "SESSION_COOKIE_AGE is given in seconds and its default is 2 weeks.", "stated"),
        (U, "number", "The default session cookie age is one week.", "two weeks"),
        (U, "near_miss", "CSRF_COOKIE_AGE defaults to two weeks.", "the text is SESSION_COOKIE_AGE"),
        (P, "partial", "Session cookies last two weeks by default and are renewed on every request.", "renewal is not stated here"),
        (U, "unit", "SESSION_COOKIE_AGE is expressed in minutes.", "seconds"),
    ]),
    ("Django", GS, 494, 508, "SESSION_COOKIE_HTTPONLY = True", [
        (S, "restate", "By default the session cookie uses the HttpOnly flag.", "SESSION_COOKIE_HTTPONLY = True"),
        (S, "restate", "SESSION_COOKIE_SAMESITE defaults to 'Lax'.", "stated"),
        (U, "negation", "The session cookie is marked secure (HTTPS only) by default.", "SESSION_COOKIE_SECURE = False"),
        (U, "negation", "By default Django saves the session data on every request.", "SESSION_SAVE_EVERY_REQUEST = False"),
        (S, "negation_ok", "Session cookies do not expire when the browser is closed unless SESSION_EXPIRE_AT_BROWSER_CLOSE is changed.", "default False"),
        (U, "wrong_value", "SESSION_COOKIE_SAMESITE accepts 'Lax', 'Strict' or 'Relaxed'.", "no 'Relaxed'; 'None' or False"),
        (P, "partial", "The session cookie path defaults to '/', and changing it requires restarting the server.", "restart not stated"),
    ]),
    ("Django", GS, 522, 529, "CACHE_MIDDLEWARE_SECONDS = 600", [
        (S, "restate", "The default cache backend is LocMemCache.", "stated"),
        (S, "unit", "CACHE_MIDDLEWARE_SECONDS defaults to 600, that is ten minutes.", "600 s = 10 min"),
        (U, "number", "CACHE_MIDDLEWARE_SECONDS defaults to 300.", "600"),
        (U, "other_subject", "The default cache backend is the database cache.", "locmem"),
        (U, "near_miss", "The default cache backend is FileBasedCache.", "LocMemCache"),
        (P, "partial", "The default cache uses LocMemCache, which is not shared between processes.", "per-process not stated"),
        (S, "paraphrase", "CACHE_MIDDLEWARE_ALIAS names the 'default' cache unless configured otherwise.", "stated"),
    ]),
    ("Django", GS, 545, 556, "PASSWORD_RESET_TIMEOUT", [
        (S, "paraphrase", "Password reset links stay valid for three days by default.", "default: 3 days"),
        (U, "number", "Password reset links expire after 24 hours by default.", "3 days; 24 is part of the product"),
        (S, "paraphrase", "The first entry of PASSWORD_HASHERS is the preferred algorithm, and passwords stored with other algorithms are converted on login.", "stated"),
        (S, "restate", "PBKDF2PasswordHasher is listed first in the default PASSWORD_HASHERS.", "first entry"),
        (U, "near_miss", "Argon2PasswordHasher is the preferred hasher by default.", "it is third; PBKDF2 is first"),
        (U, "negation", "Passwords hashed with other algorithms are never converted automatically.", "they are converted upon login"),
        (P, "partial", "Django prefers PBKDF2 by default and runs 1,000,000 iterations.", "iterations not stated"),
        (U, "unit", "PASSWORD_RESET_TIMEOUT is expressed in days.", "seconds"),
    ]),
    ("Django", GS, 575, 584, "CSRF_COOKIE_NAME", [
        (S, "restate", "The CSRF cookie is named 'csrftoken' by default.", "stated"),
        (S, "unit", "By default the CSRF cookie lasts 52 weeks.", "60*60*24*7*52"),
        (U, "negation", "CSRF_COOKIE_HTTPONLY is True by default.", "False"),
        (U, "near_miss", "The CSRF header Django reads by default is X-CSRF-Token.", "HTTP_X_CSRFTOKEN, i.e. X-CSRFToken"),
        (P, "partial", "CSRF_COOKIE_SAMESITE defaults to 'Lax', like the session cookie's.", "session cookie not in these lines"),
        (U, "other_subject", "The CSRF cookie is named 'sessionid' by default.", "csrftoken"),
        (S, "paraphrase", "CSRF_TRUSTED_ORIGINS is an empty list by default.", "[]"),
    ]),
    ("Django", PAG, 132, 144, "def _validate_number", [
        (S, "paraphrase", "Page numbers are 1-based, and a number below 1 raises EmptyPage.", "stated in docstring and code"),
        (S, "paraphrase", "A float page number with a fractional part raises PageNotAnInteger.", "float not is_integer -> ValueError -> PageNotAnInteger"),
        (U, "number", "A page number of 0 is accepted and returns the first page.", "below 1 raises EmptyPage"),
        (U, "near_miss", "A page number greater than the page count raises PageNotAnInteger.", "it raises EmptyPage"),
        (P, "partial", "A number beyond the last page raises EmptyPage, which the paginator then logs as a warning.", "logging not stated"),
        (S, "restate", "Numbers larger than num_pages raise EmptyPage with the 'no_results' message.", "stated"),
        (U, "negation", "_validate_number does not convert its argument with int().", "number = int(number)"),
    ]),
    ("Django", PAG, 155, 166, "def get_page", [
        (S, "paraphrase", "get_page returns the first page when the argument is not an integer.", "PageNotAnInteger -> 1"),
        (S, "paraphrase", "Paginator.get_page falls back to the last page when the number is out of range.", "EmptyPage -> num_pages"),
        (U, "near_miss", "Paginator.page returns the last page for an out-of-range number.", "that is get_page; page() raises"),
        (U, "contradiction", "get_page raises EmptyPage for a number past the last page.", "it catches it"),
        (P, "partial", "get_page always returns a valid page and caches it for later calls.", "caching not stated"),
        (U, "number", "get_page returns page 0 when the argument isn't a number.", "page 1"),
    ]),
    ("Django", PAG, 168, 175, "def page(self, number)", [
        (S, "paraphrase", "Paginator.page validates the 1-based number before slicing the object list.", "validate_number then slice"),
        (S, "paraphrase", "A page extends to the end of the list when the items left after it would not exceed orphans.", "top + orphans >= count -> top = count"),
        (U, "contradiction", "Paginator.page returns None for an invalid page number.", "validate_number raises"),
        (P, "partial", "page() returns a Page object and evaluates the whole queryset first.", "whole evaluation not stated (it slices)"),
        (U, "other_subject", "get_elided_page_range returns a Page object for the given number.", "these lines are page()"),
    ]),
    ("Django", PAG, 92, 104, "_get_elided_page_range", [
        (S, "restate", "With 50 pages and page 43 current, the default elided range is 1, 2, …, 40 to 46, …, 49, 50.", "the example"),
        (S, "paraphrase", "By default three pages are shown on each side of the current page and two at each end.", "on_each_side=3, on_ends=2"),
        (U, "number", "By default two pages are shown on each side of the current page.", "on_each_side=3"),
        (U, "number", "The elided page range is 0-based.", "1-based"),
        (P, "partial", "The elided range is 1-based and is cached on the paginator.", "caching not stated"),
        (U, "number", "For a paginator with 100 pages, page 43 gives 1, 2, …, 40 to 46, …, 99, 100.", "the example has 50 pages"),
    ]),
    ("Django", PAG, 34, 38, "default_error_messages", [
        (S, "restate", "The 'invalid_page' error message reads 'That page number is not an integer'.", "stated"),
        (S, "paraphrase", "A page number under 1 produces the message 'That page number is less than 1'.", "min_page"),
        (U, "near_miss", "The 'min_page' message says the page contains no results.", "that is no_results"),
        (U, "wrong_value", "The no_results message reads 'That page number is greater than the last page'.", "'That page contains no results'"),
        (P, "partial", "Paginators have default messages for invalid, too small and empty pages, and they can be overridden with error_messages.", "the override is not in these lines"),
    ]),
    ("Django", "django/core/signing.py", 1, 35, "There are 65 url-safe characters", [
        (S, "paraphrase", "A signed value has two components separated by a colon: URL-safe base64 JSON and a base64 HMAC/SHA-256 hash.", "stated"),
        (S, "restate", "signing.loads raises BadSignature when the signature does not match.", "stated"),
        (S, "paraphrase", "Passing compress=True compresses the JSON only when that makes the result shorter.", "only applies compression if shorter"),
        (U, "contradiction", "Passing compress=True always compresses the JSON.", "only when it helps"),
        (U, "number", "The hash component uses HMAC with SHA-1.", "SHA-256"),
        (S, "paraphrase", "A compressed signed string starts with a '.' before its base64 JSON.", "prefixed '.'"),
        (U, "number", "There are 64 url-safe characters, and these functions use all of them.", "65"),
        (U, "other_subject", "signing.dumps encrypts the payload so that it cannot be read.", "it is base64 JSON, signed, not encrypted"),
        (P, "partial", "signing.loads checks the signature and also enforces max_age.", "max_age not mentioned"),
    ]),
    ("Django", "django/core/signing.py", 195, 207, "def loads(", [
        (S, "restate", "signing.loads is the reverse of dumps() and raises BadSignature if the signature fails.", "stated"),
        (S, "paraphrase", "loads() uses the salt 'django.core.signing' unless another one is given.", "default argument"),
        (U, "negation", "loads() has no max_age argument.", "it has max_age=None"),
        (U, "number", "By default loads() rejects signatures older than 300 seconds.", "max_age=None"),
        (P, "partial", "loads() accepts fallback_keys, which are tried after SECRET_KEY_FALLBACKS.", "order not stated"),
        (U, "near_miss", "signing.dumps raises BadSignature if the signature fails.", "that is loads"),
    ]),
    ("Django", "django/contrib/auth/password_validation.py", 99, 121, "class MinimumLengthValidator", [
        (S, "paraphrase", "MinimumLengthValidator requires at least 8 characters by default.", "min_length=8"),
        (S, "restate", "A too-short password fails with the code 'password_too_short'.", "stated"),
        (U, "number", "MinimumLengthValidator requires at least 12 characters by default.", "8"),
        (U, "near_miss", "MaximumLengthValidator rejects passwords shorter than min_length.", "MinimumLengthValidator"),
        (P, "partial", "MinimumLengthValidator defaults to 8 characters and also rejects entirely numeric passwords.", "numeric check not here"),
        (U, "negation", "MinimumLengthValidator does not raise ValidationError for short passwords; it only warns.", "it raises"),
        (S, "paraphrase", "The error message tells the user the password must contain at least min_length characters.", "message"),
    ]),
    ("Django", "django/contrib/auth/password_validation.py", 163, 181, "class UserAttributeSimilarityValidator", [
        (S, "paraphrase", "UserAttributeSimilarityValidator compares the password with username, first_name, last_name and email by default.", "DEFAULT_USER_ATTRIBUTES"),
        (S, "restate", "max_similarity defaults to 0.7 and may not be set below 0.1.", "stated"),
        (U, "number", "max_similarity defaults to 0.5.", "0.7"),
        (U, "contradiction", "Attributes that don't exist on the user raise an error.", "they are ignored"),
        (S, "paraphrase", "The password is checked against parts of an email address as well as the whole address.", "components"),
        (P, "partial", "UserAttributeSimilarityValidator checks the username by default and measures similarity with difflib's SequenceMatcher.", "SequenceMatcher not in these lines"),
        (U, "other_subject", "CommonPasswordValidator compares the password with the user's attributes.", "another validator"),
    ]),
    ("Django", "django/utils/text.py", 483, 489, "def slugify", [
        (S, "paraphrase", "slugify converts the value to lowercase and turns spaces into dashes.", "stated"),
        (S, "paraphrase", "Unless allow_unicode is true, slugify converts the value to ASCII.", "stated"),
        (U, "contradiction", "slugify removes every underscore from the value.", "underscores are kept, only stripped at the ends"),
        (U, "contradiction", "slugify converts the value to uppercase.", "lowercase"),
        (P, "partial", "slugify strips leading and trailing dashes and truncates the slug to 50 characters.", "no truncation stated"),
        (U, "other_subject", "get_valid_filename converts spaces to dashes.", "the lines are slugify"),
        (S, "paraphrase", "Repeated dashes collapse into a single dash in slugify's output.", "stated"),
    ]),
    ("Django", "django/utils/text.py", 282, 290, "def get_valid_filename", [
        (S, "paraphrase", "get_valid_filename replaces spaces with underscores and drops characters other than alphanumerics, dashes, underscores and dots.", "stated"),
        (S, "restate", "get_valid_filename(\"john's portrait in 2004.jpg\") returns 'johns_portrait_in_2004.jpg'.", "doctest"),
        (U, "contradiction", "get_valid_filename replaces spaces with dashes.", "underscores"),
        (U, "contradiction", "get_valid_filename keeps apostrophes.", "removed, see the doctest"),
        (P, "partial", "get_valid_filename removes leading and trailing spaces and raises SuspiciousFileOperation for '..'.", "the exception is not in these lines"),
        (U, "near_miss", "slugify(\"john's portrait in 2004.jpg\") returns 'johns_portrait_in_2004.jpg'.", "that is get_valid_filename"),
    ]),
    ("Django", "django/core/cache/backends/base.py", 29, 30, "MEMCACHE_MAX_KEY_LENGTH = 250", [
        (S, "paraphrase", "Memcached rejects keys longer than 250 characters.", "does not accept keys longer than this"),
        (U, "number", "Memcached accepts keys of up to 512 characters.", "250"),
        (U, "negation", "Memcached does not accept keys shorter than 250 characters.", "longer"),
        (P, "partial", "Django warns about cache keys longer than 250 characters and about keys with control characters.", "warning and control characters not here"),
    ]),
    ("Django", "django/core/cache/backends/base.py", 33, 40, "def default_key_func", [
        (S, "paraphrase", "By default, cache keys are built by prepending the key_prefix.", "stated"),
        (S, "paraphrase", "KEY_FUNCTION lets you replace the default key-making function.", "alternate function"),
        (U, "contradiction", "By default, the key_prefix is appended to the key.", "prepended"),
        (P, "partial", "The default key function prepends the key prefix and the version number to the key.", "the version is a parameter, its use is not stated"),
        (U, "near_miss", "KEY_PREFIX can be used to specify an alternate key-making function.", "KEY_FUNCTION"),
    ]),
    ("redis", REDIS, 4356, 4371, "``keepttl``", [
        (S, "paraphrase", "In redis-py's set(), ex sets the expiry in seconds and px in milliseconds.", "stated"),
        (U, "unit", "In set(), px sets the expiry in seconds.", "milliseconds"),
        (S, "paraphrase", "With nx=True, set() only writes the value if the key does not exist.", "stated"),
        (U, "near_miss", "With xx=True, set() only writes the value if the key does not exist.", "that is nx; xx is 'already exists'"),
        (S, "paraphrase", "keepttl=True keeps the key's existing time to live and needs Redis 6.0.", "retain the TTL, 6.0"),
        (U, "number", "The get option of set() needs Redis 6.0.", "6.2"),
        (P, "partial", "get=True returns the old value and raises an error if the old value is not a string.", "the error is not stated"),
        (S, "paraphrase", "Passing get=True returns the previous value, or None when the key was missing.", "stated"),
    ]),
    ("redis", REDIS, 4379, 4397, "``ifdeq``", [
        (S, "paraphrase", "ifeq sets the value only if the current value exactly matches the argument, and does not create a missing key.", "won't be created"),
        (S, "paraphrase", "ifne creates the key when it does not exist.", "it will be created"),
        (U, "contradiction", "ifeq creates the key when it does not exist.", "it won't"),
        (U, "number", "The ifeq option requires Redis 7.4 or greater.", "8.4"),
        (S, "restate", "ifdeq compares the XXH3 hex digest of the current value with the argument.", "stated"),
        (U, "near_miss", "ifdeq compares the SHA-1 digest of the current value with the argument.", "XXH3"),
        (P, "partial", "ifdne needs Redis 8.4 or later and has been stable since redis-py 7.1.", "stability not in these lines (and it is experimental)"),
    ]),
    ("urllib3", RETRY, 72, 96, ":param int total:", [
        (S, "restate", "Setting total to 0 makes urllib3 fail on the first retry.", "stated"),
        (S, "paraphrase", "total takes precedence over the other retry counts.", "stated"),
        (U, "contradiction", "The connect count takes precedence over total.", "total takes precedence"),
        (S, "paraphrase", "Read errors happen after the request reached the server, so retrying them may have side effects.", "stated"),
        (U, "contradiction", "Connection errors are raised after the request is sent to the server.", "before"),
        (P, "partial", "read sets how many times read errors are retried and defaults to 3.", "default not stated"),
        (S, "restate", "Passing total=False disables retries and implies raise_on_redirect=False.", "stated"),
    ]),
    ("urllib3", RETRY, 98, 107, ":param int redirect:", [
        (S, "paraphrase", "urllib3 treats responses with status 301, 302, 303, 307 or 308 as redirects.", "stated"),
        (U, "number", "A 304 response counts as a redirect for Retry.", "not in the list"),
        (S, "paraphrase", "Limiting redirect avoids infinite redirect loops.", "stated"),
        (U, "contradiction", "Setting redirect to 0 follows redirects indefinitely.", "0 fails on the first redirect"),
        (P, "partial", "redirect limits how many redirects are followed and defaults to 10.", "default not stated"),
    ]),
    ("urllib3", RETRY, 145, 160, ":param float backoff_factor:", [
        (S, "restate", "With a backoff_factor of 0.1, urllib3 sleeps 0.0s, 0.2s, 0.4s, 0.8s between retries.", "the example"),
        (U, "number", "With a backoff_factor of 0.1, the sleeps are 0.1s, 0.2s and 0.3s.", "0.0, 0.2, 0.4, 0.8"),
        (S, "paraphrase", "Backoff is turned off by default.", "factor set to 0"),
        (U, "contradiction", "Backoff is enabled by default with a factor of 0.5.", "disabled"),
        (S, "paraphrase", "The backoff sleep is backoff_factor times 2 to the power of the number of previous retries.", "formula"),
        (P, "partial", "No backoff lasts longer than backoff_max, which defaults to 120 seconds.", "the default is not in these lines"),
        (U, "contradiction", "backoff_jitter shortens the sleep by a random amount.", "extended"),
    ]),
    ("urllib3", RETRY, 129, 143, ":param Collection allowed_methods:", [
        (S, "paraphrase", "By default urllib3 only retries idempotent methods.", "stated"),
        (S, "paraphrase", "Setting allowed_methods to None retries any verb.", "stated"),
        (U, "contradiction", "By default urllib3 retries every HTTP method, including POST.", "idempotent only"),
        (S, "paraphrase", "A status retry needs both the request method in allowed_methods and the response code in status_forcelist.", "stated"),
        (U, "number", "status_forcelist defaults to 500, 502, 503 and 504.", "disabled with None"),
        (P, "partial", "status_forcelist is a set of status codes to force a retry on, and Retry-After headers are honoured for them.", "Retry-After not here"),
    ]),
    ("celery", "celery/app/task.py", 816, 836, "def retry(", [
        (S, "paraphrase", "Task.retry puts the task back at the end of the queue.", "back of the queue"),
        (S, "paraphrase", "A task never returns after calling retry, because retry raises an exception.", "note"),
        (U, "contradiction", "Calling self.retry returns normally, so the rest of the block still runs.", "raises"),
        (S, "restate", "The example retries the tweet in 5 minutes with countdown=60 * 5.", "stated"),
        (U, "number", "The example retries the tweet after 10 minutes.", "5 minutes"),
        (P, "partial", "retry puts the task at the back of the queue and resets its retry counter.", "reset not stated"),
    ]),
    ("celery", "celery/app/task.py", 851, 867, "max_retries (int)", [
        (S, "restate", "countdown is the delay in seconds before the retry.", "stated"),
        (U, "unit", "countdown is given in milliseconds.", "seconds"),
        (S, "paraphrase", "max_retries passed to retry() overrides the limit for that execution only and does not carry over to later attempts.", "don't propagate"),
        (U, "negation", "Changes to max_retries in retry() propagate to subsequent retry attempts.", "they don't"),
        (S, "paraphrase", "For infinite retries you must first set the task's max_retries attribute to None.", "stated"),
        (U, "contradiction", "Passing max_retries=None to retry() gives infinite retries.", "None means use the default"),
        (P, "partial", "throw=False stops retry from raising the Retry exception and schedules the retry with a 60-second delay.", "the delay is not stated"),
        (S, "paraphrase", "With throw=False the task is marked failed if it raises an exception, or successful if it returns after the retry call.", "stated"),
    ]),
    ("pytest", "_pytest/approx.py", 780, 811, "Assert that two numbers", [
        (S, "paraphrase", "pytest.approx compares floating-point numbers within a tolerance, so 0.1 + 0.2 == approx(0.3) is True.", "stated"),
        (U, "contradiction", "In Python, 0.1 + 0.2 == 0.3 evaluates to True.", "False"),
        (S, "paraphrase", "Absolute comparisons such as abs(a - b) < 1e-6 are discouraged because no single tolerance suits every magnitude.", "stated"),
        (P, "partial", "approx compares numbers within a tolerance and can also compare strings.", "strings not mentioned"),
        (U, "contradiction", "A tolerance of 1e-6 suits very big numbers.", "too small for very big numbers"),
    ]),
    ("pytest", "_pytest/approx.py", 829, 848, "Only ordered sequences are supported", [
        (S, "paraphrase", "approx only supports ordered sequences, so sets are not supported.", "stated"),
        (U, "negation", "approx can compare sets.", "not supported"),
        (S, "paraphrase", "By default approx uses a relative tolerance of 1e-6, one part in a million.", "stated"),
        (U, "number", "The default relative tolerance of approx is 1e-12.", "1e-12 is the absolute tolerance"),
        (S, "paraphrase", "approx also applies an absolute tolerance of 1e-12 so that values near 0.0 compare sensibly.", "stated"),
        (S, "paraphrase", "Dictionaries compare equal when they have the same keys and their values match within tolerance.", "stated"),
        (P, "partial", "approx compares dictionary values and compares nested dictionaries recursively.", "nesting not stated"),
    ]),
    ("hypothesis", HYP, 757, 795, "def max_examples", [
        (S, "restate", "Hypothesis's max_examples defaults to 100.", "stated"),
        (U, "number", "max_examples defaults to 200.", "100"),
        (S, "paraphrase", "Hypothesis may call the test fewer times than max_examples if it finds a bug early.", "stated"),
        (U, "contradiction", "Hypothesis always runs exactly max_examples test cases.", "fewer or more"),
        (S, "paraphrase", "For more than 100k test cases per test, Hypothesis suggests its coverage-guided fuzzing integration.", "stated"),
        (P, "partial", "max_examples defaults to 100 and is raised to 1000 on CI.", "CI not stated"),
        (U, "near_miss", "stateful_step_count defaults to 100.", "the lines are max_examples"),
    ]),
    ("hypothesis", HYP, 799, 812, "def derandomize", [
        (S, "paraphrase", "With derandomize=True, Hypothesis seeds its random generator from a hash of the test function.", "stated"),
        (S, "paraphrase", "derandomize defaults to False except on CI, where it defaults to True.", "stated"),
        (U, "contradiction", "derandomize is False by default even on CI.", "True on CI"),
        (U, "contradiction", "derandomize seeds the random generator from the current time.", "hash of the test function"),
        (P, "partial", "Derandomized runs repeat the same test cases until Hypothesis, Python or the test changes, and they skip the example database.", "database not stated"),
    ]),
    ("hypothesis", HYP, 961, 969, "def stateful_step_count", [
        (S, "paraphrase", "stateful_step_count caps how many steps a stateful test case runs; the default is 50.", "stated"),
        (U, "number", "The default stateful step count is 100.", "50"),
        (S, "paraphrase", "stateful_step_count is effectively multiplied by max_examples.", "multiplicative"),
        (U, "contradiction", "stateful_step_count is independent of max_examples.", "multiplicative"),
        (P, "partial", "stateful_step_count defaults to 50 and also limits @invariant checks.", "invariants not stated"),
    ]),
    ("hypothesis", HYP, 1014, 1024, "def deadline", [
        (S, "restate", "Hypothesis's default deadline is 200 milliseconds per test case.", "stated"),
        (U, "unit", "The default deadline is 200 seconds.", "milliseconds"),
        (S, "paraphrase", "On CI the deadline is disabled by default.", "None on CI"),
        (U, "number", "On CI the deadline doubles to 400 milliseconds.", "None"),
        (S, "paraphrase", "Passing None as the deadline turns it off entirely.", "stated"),
        (P, "partial", "deadline accepts an int, float or timedelta and raises DeadlineExceeded when a test case runs too long.", "exception not named"),
        (U, "contradiction", "The deadline is always enforced strictly.", "soft limit in some cases"),
    ]),
    ("hypothesis", HYP, 974, 983, "def report_multiple_bugs", [
        (S, "restate", "report_multiple_bugs is True by default.", "stated"),
        (U, "negation", "report_multiple_bugs is off by default.", "True"),
        (S, "paraphrase", "When report_multiple_bugs is disabled, only the exception of the smallest failing test case is raised.", "stated"),
        (P, "partial", "Reporting all bugs at once can clash with debuggers and slows down shrinking.", "shrinking not stated"),
    ]),
    ("websockets", WSC, 191, 209, "reconnect_delays", [
        (S, "paraphrase", "open_timeout is the timeout in seconds for opening the connection, and None disables it.", "stated"),
        (S, "restate", "Reconnection uses exponential backoff with 5s jitter, capped at 60s.", "stated"),
        (U, "number", "Reconnection delays are capped at 30 seconds.", "60s"),
        (U, "number", "max_queue defaults to 32 frames.", "16"),
        (S, "paraphrase", "The low-water mark of max_queue defaults to a quarter of max_queue.", "max_queue // 4"),
        (U, "near_miss", "ping_interval sets the timeout for keepalive pings.", "that is ping_timeout"),
        (P, "partial", "max_size limits incoming messages in bytes and defaults to 1 MiB.", "default not in these lines"),
        (S, "paraphrase", "Setting max_size to None removes the limit on incoming messages.", "stated"),
    ]),
    ("websockets", WSC, 132, 166, "Connect to the WebSocket server", [
        (S, "paraphrase", "Used as an async context manager, connect closes the connection when the context exits.", "stated"),
        (S, "paraphrase", "When connect is used as an infinite async iterator, transient errors are retried with exponential backoff.", "stated"),
        (U, "contradiction", "When iterating over connect, fatal errors are retried too.", "raised"),
        (S, "paraphrase", "If you await connect directly, you are responsible for closing the connection.", "stated"),
        (P, "partial", "connect yields a ClientConnection and supports HTTP/2.", "HTTP/2 not stated"),
    ]),
    ("websockets", WSC, 175, 186, "compression:", [
        (S, "paraphrase", "permessage-deflate compression is on by default; set compression to None to turn it off.", "stated"),
        (U, "negation", "Compression is disabled by default in websockets.", "enabled"),
        (S, "restate", "The User-Agent header defaults to 'Python/x.y.z websockets/X.Y', and None removes it.", "stated"),
        (U, "contradiction", "Setting user_agent_header to an empty string removes the header.", "None removes it"),
        (S, "paraphrase", "A configured proxy is used by default unless proxy is None.", "stated"),
        (P, "partial", "Proxies are used by default, and SOCKS proxies need the python-socks package.", "python-socks not stated"),
    ]),
    ("requests", "requests/api.py", 24, 57, "def request(", [
        (S, "paraphrase", "requests.request accepts GET, OPTIONS, HEAD, POST, PUT, PATCH and DELETE as the method.", "stated"),
        (S, "restate", "allow_redirects defaults to True.", "stated"),
        (S, "paraphrase", "verify may be a boolean or a path to a CA bundle, and defaults to True.", "stated"),
        (U, "negation", "verify defaults to False.", "True"),
        (S, "paraphrase", "timeout may be a float or a (connect, read) tuple.", "stated"),
        (U, "unit", "The timeout is given in milliseconds.", "seconds"),
        (P, "partial", "files takes a dict of file-like objects for multipart uploads, which requests streams in 8 KB chunks.", "chunking not stated"),
        (U, "contradiction", "With stream=False the response content is downloaded lazily.", "immediately"),
        (S, "paraphrase", "A file tuple can have 2, 3 or 4 elements, the fourth being custom headers.", "stated"),
    ]),
    ("Markdown", "markdown/core.py", 100, 106, "tab_length (int)", [
        (S, "paraphrase", "Python-Markdown outputs XHTML style tags by default.", "stated"),
        (S, "restate", "tab_length defaults to 4.", "stated"),
        (U, "number", "tab_length defaults to 8.", "4"),
        (U, "contradiction", "The default output format of Python-Markdown is html.", "xhtml"),
        (P, "partial", "output_format supports xhtml and html, and html5 is an alias for html.", "html5 not stated"),
    ]),
    ("Markdown", "markdown/core.py", 109, 115, "ESCAPED_CHARS", [
        (S, "paraphrase", "Markdown's ESCAPED_CHARS include the backslash, backtick, asterisk and underscore.", "listed"),
        (S, "paraphrase", "tab_length is read from the keyword arguments and falls back to 4.", "kwargs.get('tab_length', 4)"),
        (U, "contradiction", "The tilde is one of Markdown's ESCAPED_CHARS.", "not listed"),
        (P, "partial", "ESCAPED_CHARS lists the characters that get backslash escapes, and extensions may add to it.", "extensions not stated"),
    ]),
    ("Pygments", "pygments/__init__.py", 35, 40, "def lex(", [
        (S, "paraphrase", "pygments.lex returns an iterable of tokens by calling lexer.get_tokens().", "stated"),
        (U, "contradiction", "pygments.lex accepts a lexer class as well as an instance.", "must be an instance"),
        (P, "partial", "lex() tokenizes code with a Lexer instance and strips trailing whitespace first.", "stripping not stated"),
    ]),
    ("Pygments", "pygments/__init__.py", 52, 60, "def format(", [
        (S, "paraphrase", "pygments.format writes to outfile when it is a file object with a write method, and otherwise returns a string.", "stated"),
        (U, "contradiction", "pygments.format always returns a string, even when outfile is given.", "writes to outfile"),
        (S, "paraphrase", "format() takes an iterable of tokens and a Formatter instance.", "stated"),
    ]),
    ("Pygments", "pygments/__init__.py", 77, 81, "def highlight(", [
        (S, "paraphrase", "highlight combines lex and format in one function.", "stated"),
        (U, "contradiction", "highlight is a low-level function that only lexes the code.", "most high-level; combines both"),
        (P, "partial", "highlight combines lex and format and guesses the lexer when none is given.", "guessing not stated"),
        (U, "near_miss", "pygments.lex combines lexing and formatting in one function.", "that is highlight"),
    ]),
    ("requests", "requests-2.34.2.dist-info/METADATA", 84, 100, "Supported Features", [
        (S, "paraphrase", "Requests supports keep-alive and connection pooling.", "listed"),
        (S, "paraphrase", "Requests automatically honours .netrc files.", "listed"),
        (U, "negation", "Requests does not support SOCKS proxies.", "SOCKS Proxy Support is listed"),
        (P, "partial", "Requests supports chunked HTTP requests and HTTP/2.", "HTTP/2 not listed"),
        (S, "paraphrase", "Requests offers sessions that persist cookies.", "Sessions with Cookie Persistence"),
        (U, "other_subject", "Requests supports NTLM authentication out of the box.", "Basic & Digest only"),
    ]),
    ("websockets", "websockets-17.4.dist-info/METADATA", 4, 4, "Summary:", [
        (S, "paraphrase", "websockets implements the WebSocket Protocol, RFC 6455 and RFC 7692.", "stated"),
        (U, "number", "websockets implements RFC 6455 and RFC 8441.", "7692"),
    ]),
    ("redis", "redis-8.1.0.dist-info/METADATA", 29, 29, "Requires-Python", [
        (S, "paraphrase", "redis-py requires Python 3.10 or newer.", ">=3.10"),
        (U, "number", "redis-py supports Python 3.9.", ">=3.10"),
    ]),
    ("celery", "celery-5.7.0.dist-info/METADATA", 4, 4, "Summary:", [
        (S, "paraphrase", "Celery describes itself as a distributed task queue.", "stated"),
        (U, "other_subject", "Celery describes itself as a distributed message broker.", "task queue"),
    ]),
    ("Django", GS, 429, 444, "FIRST_DAY_OF_WEEK = 0", [
        (S, "paraphrase", "FIRST_DAY_OF_WEEK defaults to 0, which means Sunday.", "stated"),
        (U, "contradiction", "FIRST_DAY_OF_WEEK defaults to Monday.", "0 = Sunday"),
        (S, "paraphrase", "The thousand separator is a comma by default but is not used unless USE_THOUSAND_SEPARATOR is enabled.", "stated"),
        (U, "number", "NUMBER_GROUPING defaults to 3, splitting numbers by thousands.", "0"),
        (S, "restate", "DECIMAL_SEPARATOR defaults to '.'.", "stated"),
        (P, "partial", "USE_THOUSAND_SEPARATOR is False by default, and formats are localized when USE_L10N is on.", "USE_L10N not here"),
    ]),
    ("Django", GS, 33, 44, "ALLOWED_HOSTS = []", [
        (S, "paraphrase", "In ALLOWED_HOSTS, '.example.com' matches example.com and all of its subdomains.", "stated"),
        (S, "restate", "TIME_ZONE defaults to 'America/Chicago'.", "stated"),
        (U, "wrong_value", "TIME_ZONE defaults to 'UTC'.", "America/Chicago"),
        (S, "paraphrase", "USE_TZ is True by default, so Django uses timezone-aware datetimes.", "stated"),
        (U, "contradiction", "With USE_TZ enabled, TIME_ZONE is ignored.", "it is the default user time zone"),
        (P, "partial", "ALLOWED_HOSTS is empty by default, and with DEBUG on Django allows localhost.", "DEBUG behaviour not here"),
        (U, "near_miss", "In ALLOWED_HOSTS, '*.example.com' matches example.com and all subdomains.", "the pattern is '.example.com'"),
    ]),
    ("Django", GS, 17, 22, "DEBUG_PROPAGATE_EXCEPTIONS", [
        (S, "restate", "DEBUG is False by default.", "stated"),
        (S, "paraphrase", "DEBUG_PROPAGATE_EXCEPTIONS lets raw exceptions propagate and should never be used on a live site.", "stated"),
        (U, "negation", "DEBUG_PROPAGATE_EXCEPTIONS is recommended on live sites.", "never"),
        (U, "contradiction", "DEBUG_PROPAGATE_EXCEPTIONS is True by default.", "False"),
        (P, "partial", "DEBUG defaults to False and shows detailed error pages when turned on.", "error pages not here"),
    ]),
    ("Django", GS, 156, 157, "LANGUAGES_BIDI", [
        (S, "paraphrase", "Hebrew, Arabic, Persian and Urdu are among the right-to-left languages in LANGUAGES_BIDI.", "he, ar, fa, ur"),
        (U, "other_subject", "LANGUAGES_BIDI includes Yiddish ('yi').", "not listed"),
        (S, "paraphrase", "LANGUAGES_BIDI lists seven language codes.", "he ar ar-dz ckb fa ug ur"),
        (U, "number", "LANGUAGES_BIDI lists five language codes.", "seven"),
    ]),
    ("Django", GS, 337, 345, "FILE_UPLOAD_PERMISSIONS = 0o644", [
        (S, "paraphrase", "Newly uploaded files get mode 0o644 by default.", "stated"),
        (U, "number", "Newly uploaded files get mode 0o600 by default.", "0o644"),
        (S, "restate", "FILE_UPLOAD_DIRECTORY_PERMISSIONS is None by default.", "stated"),
        (U, "number", "FILE_UPLOAD_DIRECTORY_PERMISSIONS defaults to 0o755.", "None"),
        (P, "partial", "FILE_UPLOAD_PERMISSIONS is passed to os.chmod, and the umask applies when it is None.", "umask not stated"),
    ]),
    ("Django", GS, 466, 473, "SECURE_PROXY_SSL_HEADER", [
        (S, "paraphrase", "SECURE_PROXY_SSL_HEADER is a (header_name, header_value) tuple; requests carrying it make request.is_secure() return True.", "stated"),
        (S, "paraphrase", "Only set SECURE_PROXY_SSL_HEADER if the proxy ignores user-submitted headers with the same name.", "stated"),
        (U, "contradiction", "SECURE_PROXY_SSL_HEADER is safe to set behind any proxy.", "only if the proxy strips the header"),
        (U, "near_miss", "USE_X_FORWARDED_HOST makes request.is_secure() return True.", "that is SECURE_PROXY_SSL_HEADER"),
        (P, "partial", "SECURE_PROXY_SSL_HEADER is None by default, and SECURE_SSL_REDIRECT then redirects HTTP requests to HTTPS.", "SECURE_SSL_REDIRECT not here"),
    ]),
    ("Django", GS, 479, 482, "MIDDLEWARE = []", [
        (S, "paraphrase", "Middleware runs in the given order for requests and in reverse order for responses.", "stated"),
        (U, "contradiction", "Middleware runs in the same order for requests and responses.", "reverse for responses"),
        (U, "negation", "The order of MIDDLEWARE does not matter.", "Order is important"),
        (P, "partial", "MIDDLEWARE is an empty list by default, and startproject puts SecurityMiddleware first.", "startproject not here"),
    ]),
    ("Django", GS, 201, 207, "EMAIL_PORT = 25", [
        (S, "paraphrase", "By default Django sends email through localhost on port 25.", "stated"),
        (U, "number", "EMAIL_PORT defaults to 587.", "25"),
        (P, "partial", "EMAIL_HOST defaults to localhost and EMAIL_USE_TLS to True.", "EMAIL_USE_TLS not in these lines"),
    ]),
    ("Django", GS, 535, 543, "LOGIN_URL", [
        (S, "restate", "LOGIN_URL defaults to /accounts/login/.", "stated"),
        (S, "paraphrase", "After logging in, users are redirected to /accounts/profile/ unless LOGIN_REDIRECT_URL is changed.", "stated"),
        (U, "wrong_value", "LOGOUT_REDIRECT_URL defaults to /accounts/login/.", "None"),
        (U, "near_miss", "LOGIN_REDIRECT_URL defaults to /accounts/login/.", "that is LOGIN_URL"),
        (S, "paraphrase", "Django authenticates users with ModelBackend by default.", "AUTHENTICATION_BACKENDS"),
        (P, "partial", "AUTH_USER_MODEL defaults to auth.User and can be changed at any time after the first migration.", "changing it is not discussed here"),
    ]),
]  # fmt: skip


def version_of(distribution: str) -> str:
    return metadata.version(distribution)


def records_from(passages, *, prefix: str, split_of) -> list[dict]:
    """One record per (claim, cited passage) pair; each passage's lines are read
    from site-packages and must still hold its anchor. ``split_of(index)`` names
    the passage's split. Shared by every support set's builder."""
    records = []
    for index, (dist, source, first, last, anchor, pairs) in enumerate(passages):
        lines = (SITE / source).read_text(encoding="utf-8").splitlines()
        cited = "\n".join(lines[first - 1 : last])
        if anchor not in cited:
            raise SystemExit(f"{source}:{first}-{last} no longer holds {anchor!r}; fix the line range.")
        for number, (label, category, claim, note) in enumerate(pairs, 1):
            records.append(
                {
                    "id": f"{prefix}{index:02d}-{number}",
                    "split": split_of(index),
                    "package": dist,
                    "version": version_of(dist),
                    "source": source,
                    "line_start": first,
                    "line_end": last,
                    "cited": cited,
                    "claim": claim,
                    "label": label,
                    "category": category,
                    "note": note,
                }
            )
    return records


def cited_sources(names: tuple[str, ...]) -> set[str]:
    """The source files the sets ``names`` (beside this script) cite: a newer
    held-out set must not reuse them."""
    here = Path(__file__).parent
    return {
        json.loads(line)["source"]
        for name in names
        for line in (here / name).read_text(encoding="utf-8").splitlines()
        if line.strip()
    }


def write_set(records: list[dict], out: Path, passages: int) -> None:
    with out.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"{len(records)} pairs from {passages} passages -> {out}")


def build() -> list[dict]:
    return records_from(
        PASSAGES, prefix="p", split_of=lambda index: "held_out" if index % 3 == 2 else "tuning"
    )


def main() -> None:
    write_set(build(), OUT, len(PASSAGES))


if __name__ == "__main__":
    main()
