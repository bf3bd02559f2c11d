"""The vocabulary and tokens the support judge reads a sentence with: stop
words, negations, opposite words, paraphrases, units, numbers, names and a
light stem. Pure Python: no Django imports."""

from __future__ import annotations

import re
from functools import lru_cache

STOP = frozenset(
    """a an the of to in on at by for with from and or but as is are was were be been being it its this
    that these those there here which who whom whose what when where how why than then so such can could
    may might must shall should will would do does did has have had having into onto over under about after
    before between through during per via also only just very more most less least each every any all some
    other same own both either if else while because since until unless use used uses using one ones
    their them they we you your our he she his her i me my us let lets like get gets set sets make makes
    way ways thing things whichever whatever e.g i.e etc given instead otherwise default defaults pass passing
    passed setting turn turns turned happen happens django python urllib3 pytest celery pygments
    once rather another whether already still give gives gave together however""".split()
)
# Words that flip a statement. In prose only these count; "False", "None",
# "off" and "disabled" are values there ("set it to None to retry on any verb"),
# but against a setting's assignment they state that it is not on.
NEGATIONS = frozenset("not no never nor neither cannot without nothing nobody nowhere unable non".split())
VALUE_NEGATIONS = frozenset("none false off disable disabled disables".split())
NUMBER_WORDS = {
    w: str(n)
    for n, w in enumerate(
        "zero _ two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
    if w != "_"  # "one" is a pronoun far more often than a count
}
UNITS = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1.0),
    **dict.fromkeys(("ms", "millisecond", "milliseconds"), 0.001),
    **dict.fromkeys(("min", "mins", "minute", "minutes"), 60.0),
    **dict.fromkeys(("h", "hour", "hours"), 3600.0),
    **dict.fromkeys(("day", "days"), 86400.0),
    **dict.fromkeys(("week", "weeks"), 604800.0),
}
# Units of size, each read as itself: "32 KiB" is not "32 bytes" nor "32 KB".
SIZES = {
    **dict.fromkeys(("b", "byte", "bytes"), "byte"),
    **dict.fromkeys(("bit", "bits"), "bit"),
    **dict.fromkeys(("kb", "kilobyte", "kilobytes"), "kb"),
    **dict.fromkeys(("kib", "kibibyte", "kibibytes"), "kib"),
    **dict.fromkeys(("mb", "megabyte", "megabytes"), "mb"),
    **dict.fromkeys(("mib", "mebibyte", "mebibytes"), "mib"),
    **dict.fromkeys(("gb", "gigabyte", "gigabytes"), "gb"),
    **dict.fromkeys(("gib", "gibibyte", "gibibytes"), "gib"),
}
# A size in bytes, as code often writes it ("1024 * 1024" for "1 MiB"); "KB" and "MB" are
# used for both the decimal and the binary multiple.
SIZE_BYTES = {
    "kib": (1024,), "mib": (1024**2,), "gib": (1024**3,),
    "kb": (1000, 1024), "mb": (1000**2, 1024**2), "gb": (1000**3, 1024**3),
}  # fmt: skip
WORD_RE = re.compile(r"[a-z0-9]+(?:['_][a-z0-9]+)*")
# Numbers whole ("2.5", "1e-6", "0o644", "1,000"), a unit glued on ("60s"), then words.
TOKEN_RE = re.compile(
    r"0[xo][0-9a-f]+|\d+(?:\.\d+)?e-?\d+|\d+(?:,\d{3})+(?![\d,])|\d+(?:\.\d+)*(?:[a-z]+)?|[a-z][a-z0-9]*(?:_[a-z0-9]+)*"
)
NUMBER_RE = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+){2,}|0[xo][0-9a-f]+|\d+(?:\.\d+)?e-?\d+|\d+(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?)"
)
PRODUCT_RE = re.compile(r"\d+(?:\s*\*\s*\d+)+")
RAW_NAME_RE = re.compile(
    r"`([^`]+)`|\b([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+|\w*[a-z][A-Z]\w*|[A-Za-z]+_\w+|[a-z]\w*(?==\w))\b"
)  # backticked, dotted, camelCase, snake_case, or a keyword given a value ("xx=True")
ASSIGN_RE = re.compile(r"\b([A-Za-z_]\w*)\s*=\s*(True|False|None|\"[^\"]*\"|'[^']*'|[\w.]+)")
CLAUSE_RE = re.compile(
    r";\s+|,\s+(?:and|but|which|while|so|where)\s+|\s+and\s+(?=(?:also|then|is|are|can|may|must|will|"
    r"does|do|has|have|[a-z]+s)\b|`?[A-Za-z]\w*_\w+\b)"  # "... and EMAIL_USE_TLS to True": another setting's fact
)
# Words that exclude each other: one in the sentence and another of its group
# in the lines that state its claim contradict ("appended" against "prepend").
_EXCLUSIVE = [
    "always only", "always never", "before after", "same reverse", "prepend append", "lowercase uppercase capitalized",
    "longer shorter", "larger smaller", "minimum maximum", "enabled disabled", "enable disable", "shown hidden",
    "show hide", "include exclude", "allow deny", "add remove", "open close", "start stop", "sync async",
    "synchronous asynchronous", "local remote", "absolute relative", "public private", "required optional",
    "mutable immutable", "ascending descending", "inclusive exclusive", "immediately lazily", "increase decrease",
    "increment decrement", "low high", "first second third fourth fifth last", "true false", "positive negative", "greater less",
    "earlier later", "older newer", "above below",
    "milliseconds seconds minutes hours days weeks", "bytes kilobytes megabytes gigabytes",
]  # fmt: skip
# Ways docs and code say the same thing in other words or symbols, kept
# small and general: a claim's word is found when another of its group is
# (a symbol only where the text quotes it or uses it as an operator).
_SAME = [
    "larger greater bigger exceed above beyond newer later higher > >= max maximum",
    "require requires required need needs depend depends",
    "below smaller fewer lower under < <= min minimum",
    "empty [] () {} \"\" ''",
    "list []",
    "dict dictionary mapping {}",
    "tuple ()",
    "disk filesystem file_system",
    "off disabled disable",
    "replace replaces alternate alternative override overrides custom substitute",
    "argument arguments arg args parameter parameters param params",
    "keyword kwargs",
    "function func callable",
    "attribute attr",
    "configuration config conf",
    "number num",
    "message msg",
    "character characters char chars length len",
    "whole full entire complete",
    "limit bound",
    "check checked validate validated verify verified",
    "comma ,",
    "colon :",
    "semicolon ;",
    "dash hyphen -",
    "underscore _",
    "backslash \\",
    "backtick `",
    "asterisk *",
    "slash /",
    "times multiplied *",
    "power **",
]
PARAPHRASES: dict[str, tuple[str, ...]] = {}
# A word that says "not" another: "rejects" is "does not accept" (the polarity flips).
_NOT_SAME = {
    "reject": "accept allow",
    "refuse": "accept allow",
    "forbid": "allow permit",
    "disallow": "allow permit",
    "missing": "exist exists",
    "absent": "exist exists present",
}
# A line of code: a compound statement ending with its colon, a simple
# statement, an assignment, a call, a closing bracket; not a line of prose
# that happens to start with "with", "if" or "return" and ends with a full stop.
CODE_LINE_RE = re.compile(
    r"(?!.*[a-z)]\.\s*$)\s*(?:(?:async\s+)?(?:def|class|if|elif|for|while|with|except)\b.*:\s*(?:#.*)?$|else:|try:|"
    r"return\b|raise\b|yield\b|@|>>>|\.\.\. |[\w.\[\]\"']+\s*[-+*/]?=[^=]|[\w.]+\(|[)\]}],?$)"
)
STEM_SUFFIXES = ("ational", "ations", "ation", "ments", "ment", "ings", "ing", "ions", "ion", "ied", "ies",
                  "ed", "es", "ers", "er", "ly", "s")  # fmt: skip


# Irregular verb forms, read as their base ("sent" as "send", "held" as "hold").
IRREGULAR = dict(
    pair.split(":")
    for pair in """sent:send built:build kept:keep held:hold written:write wrote:write ran:run given:give gave:give
    taken:take took:take found:find made:make bound:bind chosen:choose chose:choose thrown:throw threw:throw
    shown:show known:know knew:know got:get done:do lost:lose brought:bring caught:catch hidden:hide
    broken:break broke:break spent:spend meant:mean""".split()
)


@lru_cache(maxsize=1 << 16)  # texts repeat their words; stemming each once keeps the judge fast
def light_stem(word: str) -> str:
    """A light stem: "validates", "validated" and "validating" read "validat";
    "policy" and "policies" read "policy", "cookie" and "cookies" "cooky"."""
    word = IRREGULAR.get(word, word)
    for suffix in STEM_SUFFIXES:
        if suffix == "s" and word.endswith("ss"):
            break  # "pass", "process", "access": their s is the word's, as in "passes", "processed"
        if word.endswith(suffix) and len(word) - len(suffix) >= (4 if suffix == "ly" else 3):
            word = word[: -len(suffix)] + ("y" if suffix in ("ied", "ies") else "")
            break
    if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "ls":
        word = word[:-1]  # "stopped" -> "stopp" -> "stop"
    if word.endswith("ie") and len(word) > 4:
        return word[:-2] + "y"  # "cookie" meets "cookies" -> "cooky"
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def word_list(text: str) -> list[str]:
    """Lower-cased words; an identifier also yields its parts ("max_age" -> "max", "age";
    "HttpOnly" -> "http", "only")."""
    return [form for raw in _RAW_WORD_RE.findall(text) for form in _word_forms(raw)]


_RAW_WORD_RE = re.compile(r"[A-Za-z0-9]+(?:['_][A-Za-z0-9]+)*")
_PART_RE = re.compile(r"_|(?<=[a-z0-9])(?=[A-Z])")


@lru_cache(maxsize=1 << 16)
def _word_forms(raw: str) -> tuple[str, ...]:
    low = raw.lower().removesuffix("'s")
    parts = [p for p in _PART_RE.split(raw) if p]
    return (low, *(p.lower() for p in parts)) if len(parts) > 1 else (low,)


def as_number(text: str) -> str:
    text = text.replace(",", "")
    if text.startswith(("0x", "0o")):  # pragma: no mutate: float() refuses 0x and 0o either way
        return text
    try:
        value = float(text)
    except ValueError:
        return text
    # Six significant digits where they are exact ("1.2096e+06"); a number that needs more is
    # written in full, not rounded onto another ("1209601" is not 1209600).
    short = f"{value:g}"
    return short if float(short) == value else f"{value:.15g}"


def eval_product(product: str) -> int:
    """The value of ``60 * 60 * 24``."""
    value = 1
    for factor in product.split("*"):
        value *= int(factor)
    return value


def numbers_in(text: str) -> set[str]:
    """The numbers a text states: a product such as ``60 * 60 * 24 * 7`` counts as its value, not its factors."""
    found = {as_number(str(eval_product(product))) for product in PRODUCT_RE.findall(text)}
    text = PRODUCT_RE.sub(" ", text)  # pragma: no mutate: 'XX XX' holds no digit and no number word
    found |= {as_number(n) for n in NUMBER_RE.findall(text.lower())}
    return found | {NUMBER_WORDS[w] for w in WORD_RE.findall(text.lower()) if w in NUMBER_WORDS}


# A number with its unit or word stuck to it ("5s", "2.5mb"), split into the two.
_NUMBER_WITH_WORD_RE = re.compile(r"(\d+(?:\.\d+)*)([a-z]+)")


def _is_number_token(token: str) -> bool:
    return bool(NUMBER_RE.fullmatch(token) or _NUMBER_WITH_WORD_RE.fullmatch(token) or token in NUMBER_WORDS)


def run_bounds(tokens: list[str], i: int) -> tuple[int, int]:
    """The first and last token of the list of numbers ``tokens[i]`` is in
    ("301, 302, 303, 307 or 308", "2, 3 or 4 elements"): its members share
    the words before the first and after the last."""
    start = end = i
    while start > 0 and (
        _is_number_token(tokens[start - 1])
        or (start > 1 and tokens[start - 1] in ("or", "and") and _is_number_token(tokens[start - 2]))
    ):
        # Not mutated: stepping back by one lands on 'or'/'and', and the number before is taken next: the same
        # start
        start -= 1 if _is_number_token(tokens[start - 1]) else 2  # pragma: no mutate
    while end + 1 < len(tokens) and (
        _is_number_token(tokens[end + 1])
        or (end + 2 < len(tokens) and tokens[end + 1] in ("or", "and") and _is_number_token(tokens[end + 2]))
    ):
        # Not mutated: stepping on by one lands on 'or'/'and', and the number after is taken next: the same
        # end
        end += 1 if _is_number_token(tokens[end + 1]) else 2  # pragma: no mutate
    return start, end


_COMPOUND_NUMBER_RE = re.compile(r"\b(?:" + "|".join(NUMBER_WORDS) + r")-(?=[a-z])")


def claim_numbers(text: str) -> list[tuple[str, str, str, set[str], set[str]]]:
    """(number, word before, word after, the values it may appear as, the stems
    around it) for each number of a claim; a duration may appear converted to
    seconds or milliseconds ("ten minutes" as 600). The stems around a number
    are those between the numbers before and after it: what it may be said of."""
    low = _COMPOUND_NUMBER_RE.sub(" ", text.lower())  # "a two-digit year": a kind of year, not a count
    tokens = TOKEN_RE.findall(PRODUCT_RE.sub(" ", low))  # pragma: no mutate: lower-cased: no 'XX'
    found = []
    for i, token in enumerate(tokens):
        if not token[0].isdecimal() and token not in NUMBER_WORDS and token not in ("one",):
            continue  # a word (most of a sentence's tokens): every number pattern opens with \d
        raw = NUMBER_WORDS.get(token) or (token if NUMBER_RE.fullmatch(token) else None)
        if token in ("one",) and i + 1 < len(tokens) and tokens[i + 1] in UNITS:  # "one week" is a count
            raw = "1"
        split = _NUMBER_WITH_WORD_RE.fullmatch(token)
        if split and not raw and not token.startswith(("0x", "0o")):
            raw, after = split[1], split[2]
        elif raw is None:
            continue  # a word: no list of numbers to bound (most of a sentence's tokens)
        else:
            end = run_bounds(tokens, i)[1]  # a list of numbers: each is said of the word after the list
            after = tokens[end + 1] if end + 1 < len(tokens) else ""
        if token in NUMBER_WORDS and tokens[i - 2 : i] == ["of", "the"] and i + 1 == len(tokens):
            # "the shorter of the two": the two things just named, not a count to find. Not mutated: that
            # number word is the last token, so nothing is left: break is continue
            continue  # pragma: no mutate
        value = as_number(raw)
        forms = {value}
        if after in UNITS and not raw.startswith("0x"):
            seconds = float(value) * UNITS[after]
            forms |= {as_number(f"{seconds:.15g}"), as_number(f"{seconds * 1000:.15g}")}
        elif SIZES.get(after) in SIZE_BYTES and not raw.startswith("0x"):
            forms |= {as_number(f"{float(value) * m:.15g}") for m in SIZE_BYTES[SIZES[after]]}
        before = next((t for t in reversed(tokens[:i]) if t not in STOP and not t[0].isdigit()), "")
        found.append([value, before, after, forms, i])
    positions = [f[4] for f in found]
    for k, entry in enumerate(found):
        start = positions[k - 1] + 1 if k else 0
        end = positions[k + 1] if k + 1 < len(found) else len(tokens)
        entry[4] = {light_stem(p) for t in tokens[start:end] for p in t.split("_")}
    return [tuple(f) for f in found]


def is_negated(words: list[str], values: bool = False) -> bool:
    """Odd number of negating words: "is not disabled" states the thing
    ("not only" negates nothing; ``values`` also counts "None", "False", "disabled").
    One negation repeated over alternatives counts once: "isn't a number or
    isn't in range", "neither X nor Y"."""
    flips = 0
    for i, w in enumerate(words):
        negating = (w in NEGATIONS or w.endswith("n't") or (values and w in VALUE_NEGATIONS)) and not (
            w == "not" and i + 1 < len(words) and words[i + 1] in ("only", "just")
        )
        repeated = flips and (w == "nor" or (i and words[i - 1] in ("or", "nor")))
        flips += negating and not repeated  # pragma: no mutate: -1 % 2 == 1: the same parity and truth
    return flips % 2 == 1


# A quoted literal ('That page number is not an integer') or an aside in
# parentheses ("(so that people can't spoof it)"): their "not" is not the statement's.
_ASIDE_RE = re.compile(r"(?<![\w'])'[^'\s][^'\n]*?'(?![\w'])|\"[^\"\n]+\"|\([^()]*\)")


def polar_words(text: str) -> list[str]:
    """The words a statement's polarity is read from: quoted literals and asides left out."""
    return WORD_RE.findall(_ASIDE_RE.sub(" ", text.replace("\u2019", "'")).lower())


def names_in(raw: str) -> set[str]:
    """Identifiers and code names the sentence uses (backticked, dotted,
    camelCase or snake_case), lower-cased."""
    names = set()
    for quoted, bare in RAW_NAME_RE.findall(raw):
        name = (quoted or bare).strip("()").lower()
        if name and not name.isdigit() and not NUMBER_RE.fullmatch(name):
            names.add(name)
    return names


def _build_paraphrases() -> None:
    for group in _SAME:
        members = group.split()
        for word in members:
            if word[0].isalnum():
                alternatives = tuple(m for m in members if m != word)
                PARAPHRASES[light_stem(word)] = PARAPHRASES.get(light_stem(word), ()) + alternatives


_build_paraphrases()
NOT_PARAPHRASES = {light_stem(w): tuple(alts.split()) for w, alts in _NOT_SAME.items()}
OPPOSITES: dict[str, tuple[str, ...]] = {}
for _group in _EXCLUSIVE:
    for _word in _group.split():
        OPPOSITES[light_stem(_word)] = OPPOSITES.get(light_stem(_word), ()) + tuple(
            w for w in _group.split() if w != _word
        )
