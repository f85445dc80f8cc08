"""Counting, listing and dates in words, and the limits on how much a sentence says."""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Sequence

from substrait import algebra_pb2

Expression = algebra_pb2.Expression


#: Long lists (columns, conditions, values) show this many items, then "and N more".
MAX_ITEMS = 3
#: A list of values a column is compared with (IN, OR of equalities) shows this many.
MAX_VALUES = 12
#: Any one rendered expression longer than this is cut with "…".
MAX_TEXT = 240
EPOCH = _dt.date(1970, 1, 1)
#: The type kinds of whole numbers.
INTEGER_KINDS = frozenset({"i8", "i16", "i32", "i64"})

# ---------------------------------------------------------------------------------------------
# Small text helpers
# ---------------------------------------------------------------------------------------------


#: A column that is true where an outer join found a match and null where it found none (a constant
#: true on the join's padded side: DataFusion's decorrelated count), named after the join's step.
_FOUND = re.compile(r"whether (.+) found a match")


def found_name(step: str) -> str:
    return f"whether {step} found a match"


#: How a mark join's mark is said, after the step that makes it ("step 23's match").
MATCH = "'s match"


def as_predicate(name: str) -> str:
    """A boolean column's name as a condition: a mark join's mark, "step 23's match", as "step 23 found a
    match" ("where step 23's match or step 30's match" named two things, not a condition); any other name
    as it is."""
    return f"{name.removesuffix(MATCH)} found a match" if name.endswith(MATCH) else name


#: A column told apart by the step that makes it or reads it ("step 26's d_year").
_STEPS_OWN = re.compile(r"step (\d+)'s (.+)")


def step_owned(name: str) -> tuple[str, str] | None:
    """The step number and the column's own name of a name :data:`_STEPS_OWN` tells apart
    ("step 26's d_year": ("26", "d_year")), else None."""
    m = _STEPS_OWN.fullmatch(name)
    return (m.group(1), m.group(2)) if m else None


def found_step(name: str) -> str | None:
    """The step of a column named by :func:`found_name`, else None."""
    m = _FOUND.fullmatch(name)
    return m.group(1) if m else None


def counted(n: int | str, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else (plural or word + 's')}"


#: The verbs a condition's words begin with, as said of more than one thing.
_PLURAL_VERBS = {
    "is": "are",
    "does": "do",
    "contains": "contain",
    "starts": "start",
    "ends": "end",
    "matches": "match",
    "differs": "differ",
}


#: What a CASE's words hold ("x when c, otherwise y"): a name with it is bracketed in a list or as an operand.
CASE_WORDS = ", otherwise "


def bracketed(text: str) -> bool:
    """Whether ``text`` is one bracket from its first character to its last: "(a − b)", not "(a) − (b)"."""
    if not text.startswith("(") or not text.endswith(")"):
        return False
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            return i == len(text) - 1
    return False


def adds_outside_brackets(text: str) -> bool:
    """Whether ``text`` adds or subtracts outside any bracket: "a − (b (0 if null))", not "(a − b) × 2"."""
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and text.startswith((" + ", " − "), i):
            return True
    return False


#: How GROUPING of several keys is made of their rollup flags (DataFusion's grouping id too).
A_BIT_EACH = "(a bit each, the first the highest)"


def flag_meaning(key: str) -> str:
    """What a rollup flag of ``key`` holds, said where the flag is made."""
    return f"(1 on the rows that total over every {key}, else 0)"


def said_of(subject: str, words: str) -> str:
    """``subject words``, the verb ``words`` begins with agreeing with a column named in the plural
    ("suppliers are above 3", "categories do not contain 'x'", but "status is 'F'")."""
    verb, space, rest = words.partition(" ")
    if verb in _PLURAL_VERBS and _plural(subject):
        words = _PLURAL_VERBS[verb] + space + rest
    return f"{subject} {words}"


#: Words that make a name one measure of what follows them ("avg_monthly_sales": an average).
_ONE_MEASURE = frozenset(
    {"avg", "average", "mean", "median", "sum", "total", "min", "max", "count", "cnt", "num", "number", "std", "var"}
)


_SOME_CHARACTERS = re.compile(r"(the (first|last) )?\d+ characters of ")


def _plural(name: str) -> bool:
    """Whether a column's name reads as a plural noun: its last word of four letters or more ends in an
    s that is not of -ss, -us or -is (``suppliers``, ``web_sales``; not ``status``, ``c_address``, ``axis``),
    and no word before it makes it one measure (``avg_monthly_sales``, ``total_sales``). Characters of a
    text are several: "the first 2 characters of c_phone are one of …"."""
    if _SOME_CHARACTERS.match(name):
        return True
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
        return False
    *before, last = name.lower().split("_")
    if _ONE_MEASURE.intersection(before):
        return False
    return len(last) >= 4 and last.endswith("s") and not last.endswith(("ss", "us", "is"))


def ordinal(n: int) -> str:
    """ "1st", "2nd", "3rd", "11th", "21st"."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def and_list(items: Sequence[str], word: str = "and") -> str:
    items = [i for i in items if i]
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + f" {word} " + items[-1]


def capped_list(items: Sequence[str], limit: int, noun: str = "more", word: str = "and") -> str:
    """``a, b and c`` or ``a, b, c and 4 more`` (``and 2 others``); never "and 1 more", which would hide
    what it could say; ``word="or"`` for alternatives."""
    items = list(items)
    if len(items) <= limit + 1:
        return and_list(items, word)
    return ", ".join(items[:limit]) + f" {word} {len(items) - limit} {noun}"


_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


_DATE_TEXT = re.compile(r"\s*(\d{4})-(\d{1,2})-(\d{1,2})\s*")


def text_date(text: str) -> _dt.date | None:
    """The date a text cast to a date gives, as the engines read it: ``1995-03-15`` or, unpadded,
    ``2001-5-1`` (TPC-DS q95 writes '2001-5-01'); None for other text or no such day."""
    m = _DATE_TEXT.fullmatch(text)
    try:
        return _dt.date(int(m[1]), int(m[2]), int(m[3])) if m else None
    except ValueError:
        return None


def date_words(day: _dt.date) -> str:
    """A date as people write it: 15 March 1995 (no locale: the month names are English, as the rest)."""
    return f"{day.day} {_MONTHS[day.month - 1]} {day.year}"


def cut(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` cut to ``limit`` characters with "…", between words where one ends in the second half (a
    word cut in two, "inp…", reads as a typo)."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = head.rfind(" ")
    if space >= limit // 2:
        head = head[:space].rstrip(" ,;(")
    head = head.rstrip()
    return head if head.endswith("…") else head + "…"
