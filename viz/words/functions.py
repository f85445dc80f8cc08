"""Scalar functions in words: one table, function name -> words (``FUNCTIONS``); any other function
reads ``name(args)``."""

from __future__ import annotations

import calendar
import datetime as _dt
import decimal as _decimal
import math
import re
import string
from collections.abc import Callable, Sequence

from substrait import algebra_pb2

from ..expressions import and_parts, decimal_value, direct_field
from ..expressions.literals import float_text, integer_value
from ..model import PlanModel
from .basics import (
    A_BIT_EACH,
    EPOCH,
    INTEGER_KINDS,
    MAX_VALUES,
    and_list,
    capped_list,
    counted,
    date_words,
    found_step,
    ordinal,
    said_of,
    text_date,
)
from .speaker import Speaker

Expression = algebra_pb2.Expression


SET_COMPARISON = {1: "equal", 2: "not_equal", 3: "lt", 4: "gt", 5: "lte", 6: "gte"}


def conjuncts(w: Speaker, e: Expression) -> list[Expression]:
    """The conjuncts of a condition: ``and(a, and(b, c))`` -> [a, b, c]."""
    return and_parts(e, w.model.extensions.functions)


def shared_conditions(w: Speaker, e: Expression) -> list[Expression]:
    """``[e]``, or, for an OR whose alternatives all AND some of the same conditions (TPC-H q19's three
    brands, each with the same join key, ship modes and instruction), those conditions and then the OR of
    what each alternative has besides: (a and x) or (a and y) is a and (x or y), in SQL's three-valued
    logic too, and says each shared condition once."""
    functions = w.model.extensions.functions
    alternatives = and_parts(e, functions, "or")
    if len(alternatives) < 2:
        return [e]
    each = [and_parts(a, functions) for a in alternatives]
    keys = [[c.SerializeToString(deterministic=True) for c in cs] for cs in each]
    shared = set(keys[0]).intersection(*keys[1:])
    rests = [[c for c, k in zip(cs, ks) if k not in shared] for cs, ks in zip(each, keys)]
    if not shared or not all(rests):  # nothing shared, or an alternative that is all shared (a or (a and y) is a)
        return [e]
    common = list({k: c for c, k in zip(each[0], keys[0]) if k in shared}.values())

    def called(like: Expression.ScalarFunction, parts: list[Expression]) -> Expression:
        if len(parts) == 1:
            return parts[0]
        args = [algebra_pb2.FunctionArgument(value=p) for p in parts]
        return Expression(
            scalar_function=Expression.ScalarFunction(
                function_reference=like.function_reference, output_type=like.output_type, arguments=args
            )
        )

    left = [called(a.scalar_function, rest) for a, rest in zip(alternatives, rests)]
    return [*common, called(e.scalar_function, left)]


#: Comparisons that are unknown where an argument is null: a condition made of one keeps no such row.
_NULL_REJECTING = frozenset({"equal", "not_equal", "lt", "lte", "gt", "gte"})


def condition_parts(w: Speaker, e: Expression) -> list[Expression]:
    """The conjuncts of a condition that keeps the rows where it is true, without "x is not null" where
    another conjunct compares column x (unknown there, so the row is not kept either way): DuckDB adds
    the test beside every comparison, and the story said each one twice."""
    parts = conjuncts(w, e)
    compared = set()
    for p in parts:
        if p.WhichOneof("rex_type") == "scalar_function" and (
            w.function(p.scalar_function.function_reference) in _NULL_REJECTING
        ):
            compared |= {
                a.SerializeToString(deterministic=True) for a in argument_values(p.scalar_function) if _is_field(a)
            }

    def implied(p: Expression) -> bool:
        if (
            p.WhichOneof("rex_type") != "scalar_function"
            or w.function(p.scalar_function.function_reference) != "is_not_null"
        ):
            return False
        args = argument_values(p.scalar_function)
        return len(args) == 1 and args[0].SerializeToString(deterministic=True) in compared

    return [p for p in parts if not implied(p)] or parts


def is_column_equality(w: Speaker, e: Expression) -> bool:
    """Whether ``e`` says two columns are equal (a join key: ``a = b``)."""
    if e.WhichOneof("rex_type") != "scalar_function":
        return False
    if w.function(e.scalar_function.function_reference) not in ("equal", "is_not_distinct_from"):
        return False
    values = argument_values(e.scalar_function)
    return len(values) == 2 and all(_is_field(v) for v in values)


def argument_values(f) -> list[Expression]:
    return [a.value for a in f.arguments if a.WhichOneof("arg_type") == "value"]


def _is_date(w: Speaker, e: Expression) -> bool:
    """Whether ``e`` is a date: a date literal, a cast or call giving one, or a date column of the record
    read (said "before" and "after", not "below" and "above")."""
    which = e.WhichOneof("rex_type")
    if which == "literal":
        return e.literal.WhichOneof("literal_type") == "date"
    if which == "cast":
        return e.cast.type.WhichOneof("kind") == "date"
    if which == "scalar_function":
        return e.scalar_function.output_type.WhichOneof("kind") == "date"
    index = direct_field(e)
    if index is not None and w.fields and index < len(w.fields):
        t = w.fields[index].type
        return t is not None and t.WhichOneof("kind") == "date"
    return False


def _is_field(e: Expression) -> bool:
    return uncast(e).WhichOneof("rex_type") == "selection"


def _is_outer(e: Expression) -> bool:
    """Whether ``e`` is a column of the query around (an outer reference), perhaps cast."""
    e = uncast(e)
    return e.WhichOneof("rex_type") == "selection" and e.selection.WhichOneof("root_type") == "outer_reference"


COMPARISON_WORDS = {
    "equal": "is",
    "not_equal": "is not",
    "lt": "is below",
    "lte": "is at most",
    "gt": "is above",
    "gte": "is at least",
    "is_distinct_from": "differs from",
    "is_not_distinct_from": "is the same as",
}
_DATE_WORDS = {"lt": "is before", "lte": "is on or before", "gt": "is after", "gte": "is on or after"}
#: The comparison read from the other side (``44 <= x`` is ``x >= 44``).
_MIRRORED = {"lt": "gt", "gt": "lt", "lte": "gte", "gte": "lte"}
_LOWER, _UPPER = frozenset({"gt", "gte"}), frozenset({"lt", "lte"})


def _comparison_parts(w: Speaker, name: str, f: Expression.ScalarFunction) -> tuple[str, str, str] | None:
    """(subject, the rest, the function read) of a comparison: a constant on the left is read from
    the other side (``44 is at most x`` is "x is at least 44"); two columns compared for (in)equality
    read ``a = b`` and ``a ≠ b`` (IS NOT DISTINCT FROM said to match nulls)."""
    values = argument_values(f)
    if len(values) != 2:
        return None
    left, right = values
    if name in _MIRRORED and _is_constant(w, left) and not _is_constant(w, right):
        left, right, name = right, left, _MIRRORED[name]
    if name in _NULL_NEVER_TRUE and (_is_null_literal(right) or _is_null_literal(left)):
        subject = left if _is_null_literal(right) else right
        return w.expr(subject), f"{_NULL_NEVER_TRUE[name]} null (unknown whatever its value, so never true)", name
    if name in ("equal", "is_not_distinct_from", "not_equal") and _is_field(left) and _is_field(right):
        if _is_outer(left) and not _is_outer(right):
            # "PS_PARTKEY = the outer row's P_PARTKEY": at the head of a list of keys the possessive read as
            # every key's
            left, right = right, left
        nulls = " (a null matching a null)" if name == "is_not_distinct_from" else ""
        return w.expr(left), ("= " if name != "not_equal" else "≠ ") + w.expr(right) + nulls, name
    if name == "not_equal" and not _is_constant(w, left) and not _is_constant(w, right):
        # as two columns: "the first 5 characters of ca_zip are not the first 5 characters of s_zip" read oddly
        return set_apart(w.expr(left)), f"≠ {set_apart(w.expr(right))}", name
    op = _DATE_WORDS.get(name) if (_is_date(w, left) or _is_date(w, right)) else None
    return set_apart(w.expr(left)), f"{op or COMPARISON_WORDS[name]} {set_apart(w.expr(right))}", name


def set_apart(text: str) -> str:
    """A comparison's side in brackets where, outside its own, it has a branch or a condition ("(x ÷ y
    when y is above 0, otherwise null) is above 0.6"): else the comparison reads as one of its branches."""
    depth, quoted = 0, False
    for i, ch in enumerate(text):
        # a text literal's brackets and words are its own ('go when ready', ':('); the apostrophe of
        # "step 79's" opens none
        if ch == "'" and (quoted or i == 0 or text[i - 1] in " ([,"):
            quoted = not quoted
            continue
        if quoted:
            continue
        depth += (ch == "(") - (ch == ")")
        if not depth and ch == " " and text.startswith(_BRANCHING, i):
            return f"({text})"
    return text


_BRANCHING = (" where ", " when ", " otherwise ")


#: Comparisons whose result with a null is null (not IS [NOT] DISTINCT FROM), by their symbol.
_NULL_NEVER_TRUE = {"equal": "=", "not_equal": "≠", "lt": "<", "gt": ">", "lte": "≤", "gte": "≥"}


def uncast(e: Expression) -> Expression:
    """``e`` without the casts around it."""
    while e.WhichOneof("rex_type") == "cast":
        e = e.cast.input
    return e


def never_true(e: Expression) -> str | None:
    """ "null" or "false" where a condition is a null or false literal (a conjunct that keeps no row), else
    None."""
    e = uncast(e)
    if e.WhichOneof("rex_type") != "literal":
        return None
    kind = e.literal.WhichOneof("literal_type")
    return "null" if kind == "null" else "false" if kind == "boolean" and not e.literal.boolean else None


def _is_null_literal(e: Expression) -> bool:
    e = uncast(e)
    return e.WhichOneof("rex_type") == "literal" and e.literal.WhichOneof("literal_type") == "null"


def _comparison(name: str) -> Callable[[Speaker, Expression.ScalarFunction], str | None]:
    def words(w: Speaker, f: Expression.ScalarFunction) -> str | None:
        parts = _comparison_parts(w, name, f)
        return None if parts is None else said_of(parts[0], parts[1])

    return words


def bound_words(w: Speaker, e: Expression) -> tuple[str, str, str] | None:
    """(subject, "lower" or "upper", the rest) when ``e`` bounds a column by a constant from one side
    (``x >= 44``, ``44 > x``); None for anything else."""
    if e.WhichOneof("rex_type") != "scalar_function":
        return None
    name = w.function(e.scalar_function.function_reference)
    if name not in _MIRRORED:
        return None
    values = argument_values(e.scalar_function)
    if len(values) != 2 or _is_constant(w, values[0]) == _is_constant(w, values[1]):
        return None
    parts = _comparison_parts(w, name, e.scalar_function)
    if parts is None:
        return None
    subject, rest, read = parts
    return subject, "lower" if read in _LOWER else "upper", rest


def column_bounds(w: Speaker, a: Expression, b: Expression) -> str | None:
    """Two comparisons bounding one column from both sides by other values, as one: "ss_item_rev is at
    least 0.9 × cs_item_rev and at most 1.1 × cs_item_rev" (TPC-DS q58's ``between`` of columns); None
    for anything else."""
    sides = []
    for e in (a, b):
        if e.WhichOneof("rex_type") != "scalar_function":
            return None
        name, values = w.function(e.scalar_function.function_reference), argument_values(e.scalar_function)
        if name not in _MIRRORED or len(values) != 2 or values[0] == values[1]:
            return None
        sides.append((name, values))
    for subject in sides[0][1]:
        if not _is_field(subject) or all(v != subject for v in sides[1][1]):
            continue
        # each read from the subject's side: "0.9 × x is at most s" is "s is at least 0.9 × x"
        parts = [(n, vs[1]) if vs[0] == subject else (_MIRRORED[n], vs[0]) for n, vs in sides]
        if {n in _LOWER for n, _ in parts} != {True, False}:
            continue
        words = _DATE_WORDS if _is_date(w, subject) else COMPARISON_WORDS
        first, second = (f"{words[n]} {set_apart(w.expr(v))}" for n, v in parts)
        return said_of(w.expr(subject), f"{first} and {second.removeprefix('is ')}")
    return None


_NUMERIC_KINDS = frozenset({"i8", "i16", "i32", "i64", "fp32", "fp64", "decimal"})


def constant_value(w: Speaker, e: Expression, depth: int = 0) -> _decimal.Decimal | None:
    """The value of a numeric constant: an integer or decimal literal, a numeric cast of one, or
    ``+ − ×`` of two (DataFusion writes ``2000 + 1`` as it was written); None for anything else."""
    which = e.WhichOneof("rex_type")
    if depth > 20:
        return None
    if which == "literal":
        kind = e.literal.WhichOneof("literal_type")
        if kind in ("i8", "i16", "i32", "i64"):
            return _decimal.Decimal(integer_value(e.literal, w.model.conventions.dialect))
        if kind in ("fp32", "fp64"):  # as written (0.06, not the nearest binary fraction)
            value = float(getattr(e.literal, kind))
            return _decimal.Decimal(float_text(kind, value)) if math.isfinite(value) else None
        if kind == "decimal":
            try:
                return decimal_value(e.literal.decimal)
            except Exception:  # a malformed decimal: not a constant to fold
                return None
        return None
    if which == "cast":
        kind = e.cast.type.WhichOneof("kind")
        value = constant_value(w, e.cast.input, depth + 1) if kind in _NUMERIC_KINDS else None
        if value is None or kind in ("fp32", "fp64"):
            return value
        places = e.cast.type.decimal.scale if kind == "decimal" else 0
        # a cast that rounds or cuts (2.7 to an integer) gives what the engine's rule says: not folded here
        return None if beyond_places(value, places) else value
    if which == "scalar_function":
        name = w.function(e.scalar_function.function_reference)
        values = argument_values(e.scalar_function)
        if name not in ("add", "subtract", "multiply") or len(values) != 2:
            return None
        a, b = (constant_value(w, v, depth + 1) for v in values)
        if a is None or b is None:
            return None
        with _decimal.localcontext(_decimal.Context(prec=60)):
            return a + b if name == "add" else a - b if name == "subtract" else a * b
    return None


def beyond_places(value: _decimal.Decimal, places: int) -> bool:
    """Whether ``value`` has digits beyond ``places`` decimal places (exactly, however many digits)."""
    if not value.is_finite():
        return False
    with _decimal.localcontext(_decimal.Context(prec=max(value.adjusted() + 1, 1) + max(places, 0) + 2)):
        return value != value.quantize(_decimal.Decimal(1).scaleb(-places), _decimal.ROUND_DOWN)


def _is_constant(w: Speaker, e: Expression) -> bool:
    """A value that is the same for every row: a literal (of any kind, under casts), a numeric
    constant expression, or a date literal moved by an interval (TPC-DS q21's date − 30 days)."""
    plain = uncast(e)
    if plain.WhichOneof("rex_type") == "literal" or constant_value(w, e) is not None:
        return True
    if plain.WhichOneof("rex_type") != "scalar_function":
        return False
    f = plain.scalar_function
    name = w.function(f.function_reference)
    if name in _ARITHMETIC and all(_is_constant(w, v) for v in argument_values(f)):
        return True  # 2.0 ÷ 3.0, which constant_value leaves unfolded (a quotient need not be exact)
    return _shifted_date(argument_values(f), name) is not None


#: Arithmetic whose result is constant where its arguments are.
_ARITHMETIC = frozenset({"add", "subtract", "multiply", "divide", "negate"})


def _logical(word: str) -> Callable[[Speaker, Expression.ScalarFunction], str | None]:
    def words(w: Speaker, f: Expression.ScalarFunction) -> str | None:
        if not argument_values(f):
            return None
        if word == "and":
            return and_list(w.conditions(Expression(scalar_function=f)))
        whole = Expression(scalar_function=f)
        if len(shared_conditions(w, whole)) > 1:  # "a and (either x, or y)"
            return and_list(w.conditions(whole))
        # or(or(a, b), c), as producers nest it, is one list of alternatives: not "either either a, or b, or c"
        values = and_parts(whole, w.model.extensions.functions, "or")
        same = _one_of(w, values)
        if same is not None:
            return same
        parts = _alternatives(w, values)
        if len(parts) == 1:
            return parts[0]
        if len(parts) > MAX_VALUES and not w.whole:  # a condition names every alternative
            return " or ".join(parts[:MAX_VALUES]) + f" or {counted(len(parts) - MAX_VALUES, 'more alternative')}"
        if len(parts) > 1 and any(" and " in p or " or " in p for p in parts):
            # "a and b or c and d" reads either way, as "x is one of 1 or 2 or y is 3" does: the alternatives set
            # apart, numbered where one is a list
            if any(", " in p for p in parts):
                # numbered, or lettered around alternatives numbered inside: not (1) … (1) … (2) … (2)
                nested = any("either (1) " in p for p in parts) and len(parts) <= len(string.ascii_lowercase)
                marks = string.ascii_lowercase if nested else [str(i) for i in range(1, len(parts) + 1)]
                return "either " + ", or ".join(f"({m}) {p}" for m, p in zip(marks, parts))
            return "either " + ", or ".join(parts)
        return "(" + " or ".join(parts) + ")" if len(parts) > 1 else parts[0]

    return words


def _alternatives(w: Speaker, values: list[Expression]) -> list[str]:
    """An OR's alternatives in words, equalities of one column in a row said as one ("ca_state is one of
    'CA', 'WA' or 'GA'": an optimizer writes IN as ORs, beside the query's other alternatives)."""
    out, i = [], 0
    while i < len(values):
        end = i + 1
        while end < len(values) and same_subject(w, values[i : end + 1], "equal")[0] is not None:
            end += 1
        run = values[i:end]
        out.append(_one_of(w, run) if len(run) > 1 else w.predicate(run[0]))
        i = end
    return out


def _one_of(w: Speaker, values: list[Expression]) -> str | None:
    """``or(equal(x, 1), equal(x, 2), ...)`` as "x is 1 or 2", "x is one of 1, 2 or 3" (None when it is
    not that)."""
    subject, options = same_subject(w, values, "equal")
    if subject is None:
        return None
    return said_of(w.expr(subject), f"is {options_words(options)}")


def same_subject(w: Speaker, values: Sequence[Expression], name: str) -> tuple[Expression | None, list[str]]:
    """When every one of ``values`` (two or more) compares one column, or one expression of columns (TPC-H
    q22's first 2 characters of c_phone), with a constant by function ``name``: that column and the
    constants in words; else (None, [])."""
    subject, options = None, []
    for v in values:
        if v.WhichOneof("rex_type") != "scalar_function" or w.function(v.scalar_function.function_reference) != name:
            return None, []
        args = argument_values(v.scalar_function)
        if len(args) != 2 or _is_constant(w, args[0]) or not _is_constant(w, args[1]):
            return None, []
        if subject is None:
            subject = args[0]
        elif subject != args[0]:
            return None, []
        options.append(w.expr(args[1]))
    return (subject, options) if len(options) >= 2 else (None, [])


def options_words(options: Sequence[str]) -> str:
    """Alternatives after "is": "'MAIL'", "'MAIL' or 'SHIP'", "one of 1, 2 or 3"; each said once (TPC-DS
    writes IN ('TN', 'TN', ...))."""
    options = list(dict.fromkeys(options))
    if len(options) <= 2:
        return " or ".join(options)
    return f"one of {capped_list(options, MAX_VALUES, 'others', 'or')}"


def none_of(options: Sequence[str]) -> str:
    """Values excluded, after "is": "neither 'A' nor 'B'", "none of 1, 2 or 3"."""
    options = list(dict.fromkeys(options))
    if len(options) == 1:
        return f"not {options[0]}"
    if len(options) == 2:
        return f"neither {options[0]} nor {options[1]}"
    return f"none of {capped_list(options, MAX_VALUES, 'others', 'or')}"


def _not(w: Speaker, f: Expression.ScalarFunction) -> str | None:
    values = argument_values(f)
    if len(values) != 1:
        return None
    inner = values[0]
    if inner.WhichOneof("rex_type") == "scalar_function":
        name = w.function(inner.scalar_function.function_reference)
        args = argument_values(inner.scalar_function)
        if name == "like" and len(args) >= 2:
            return said_of(w.expr(args[0]), f"does not {_like_words(args[1])}")
        if name == "is_null" and len(args) == 1:
            return _is_null(w, inner.scalar_function, negated=True)
    if inner.WhichOneof("rex_type") == "singular_or_list":
        sol = inner.singular_or_list
        never = (
            " (never true: with a null among them it is null at best)"
            if any(map(_is_null_literal, sol.options))
            else ""
        )
        return said_of(w.expr(sol.value), f"is {none_of([w.expr(o) for o in sol.options])}{never}")
    if inner.WhichOneof("rex_type") == "subquery" and inner.subquery.WhichOneof("subquery_type") == "set_predicate":
        at = w._at(inner.subquery.set_predicate.tuples)
        return f"no matching row exists in the subquery{at}" if at else "no matching row exists"
    if inner.WhichOneof("rex_type") == "subquery" and inner.subquery.WhichOneof("subquery_type") == "in_predicate":
        needles = ", ".join(w.expr(n) for n in inner.subquery.in_predicate.needles)
        at = w._at(inner.subquery.in_predicate.haystack)
        if at:
            return f"{needles} does not appear in the results of the subquery{at}"
        return f"{needles} does not appear in a subquery's results"
    return f"not ({w.expr(inner)})"


def _is_null(w: Speaker, f: Expression.ScalarFunction, negated: bool = False) -> str | None:
    values = argument_values(f)
    if len(values) != 1:
        return None
    v = values[0]
    if v.WhichOneof("rex_type") == "scalar_function" and w.function(v.scalar_function.function_reference) == "index_in":
        args = argument_values(v.scalar_function)
        if len(args) == 2:  # index_in(needle, haystack) is null: the needle is not in the list
            return said_of(w.expr(args[0]), f"is {'' if negated else 'not '}in {w.expr(args[1])}")
    index = direct_field(v)
    fields = w.fields or ()
    step = found_step(fields[index].name) if index is not None and 0 <= index < len(fields) else None
    if step is not None:  # null exactly where the join found no match
        return f"{step} found a match" if negated else f"{step} found no match"
    return said_of(w.expr(v), f"is {'not ' if negated else ''}null")


def _is_not_null(w: Speaker, f: Expression.ScalarFunction) -> str | None:
    return _is_null(w, f, negated=True)


def _like_words(pattern: Expression) -> str:
    """``match 'x%'`` in words: "start with 'x'", "end with", "contain", or "match 'a_b'"."""
    pattern = uncast(pattern)
    if pattern.WhichOneof("rex_type") == "literal" and pattern.literal.WhichOneof("literal_type") in (
        "string",
        "var_char",
        "fixed_char",
    ):
        lit = pattern.literal
        text = (
            lit.var_char.value
            if lit.WhichOneof("literal_type") == "var_char"
            else getattr(lit, lit.WhichOneof("literal_type"))
        )
        core = text.strip("%")
        if "%" not in core and "_" not in core and core:
            if text.startswith("%") and text.endswith("%") and len(text) > 1:
                return f"contain '{core}'"
            if text.endswith("%"):
                return f"start with '{core}'"
            if text.startswith("%"):
                return f"end with '{core}'"
        return f"match the pattern '{text}'"
    return "match a pattern"


def _like(w: Speaker, f: Expression.ScalarFunction) -> str | None:
    values = argument_values(f)
    if len(values) < 2:
        return None
    words = _like_words(values[1]).replace("start with", "starts with").replace("end with", "ends with")
    words = words.replace("contain ", "contains ").replace("match ", "matches ", 1)
    return said_of(w.expr(values[0]), words)


def _between(w: Speaker, f: Expression.ScalarFunction) -> str | None:
    values = argument_values(f)
    if len(values) != 3:
        return None
    return said_of(w.expr(values[0]), f"is between {w.expr(values[1])} and {w.expr(values[2])}")


_ARITHMETIC = {"add": "+", "subtract": "−", "multiply": "×", "divide": "÷", "modulus": "mod", "power": "^"}
_PRECEDENCE = {"+": 1, "−": 1, "×": 2, "÷": 2, "mod": 2, "^": 3}
#: Operators whose right operand of the same precedence needs brackets: a − (b − c), a mod (b × c).
_NOT_ASSOCIATIVE = ("−", "÷", "mod", "^")


def _arithmetic(name: str) -> Callable[[Speaker, Expression.ScalarFunction], str | None]:
    op = _ARITHMETIC[name]

    def words(w: Speaker, f: Expression.ScalarFunction) -> str | None:
        values = argument_values(f)
        if len(values) != 2:
            return None
        folded = constant_value(w, Expression(scalar_function=f)) if name in ("add", "subtract", "multiply") else None
        if folded is not None:
            return str(folded)
        day = _shifted_date(values, name)
        if day is not None:
            return date_words(day)
        parts = []
        days = _days_added(w, values, name)
        for i, v in enumerate(values):
            text = days if i == 1 and days is not None else w.expr(v)
            inner = arith_op(w, v)
            if (
                inner is not None
                and (
                    _PRECEDENCE[inner] < _PRECEDENCE[op]
                    or (i == 1 and _PRECEDENCE[inner] == _PRECEDENCE[op] and op in _NOT_ASSOCIATIVE)
                )
            ) or (inner is None and _loose(text, op, right=i == 1)):  # "(the sum of x where y is 'A') ÷ ..."
                text = f"({text})"
            elif i == 0 and _open_phrase(text):  # "(the absolute value of (a − b)) ÷ b", not of the quotient
                text = f"({text})"
            elif i == 1 and text.startswith(("-", "−")):  # "quantity − (−3)", not "quantity − -3"
                text = f"({text})"
            parts.append(text)
        said = f"{parts[0]} {op} {parts[1]}"
        # a division of whole numbers keeps a whole number (functions_arithmetic.yaml: "rounded towards 0");
        # said before it, as "(rounded toward 0)" after it read as its divisor's
        whole = name == "divide" and f.output_type.WhichOneof("kind") in INTEGER_KINDS
        return f"the whole part of ({said})" if whole else said

    return words


#: Words that, outside brackets, would run on into what follows an operand (a condition, a CASE's branches).
_RUNS_ON = (" where ", " when ", " otherwise ", " and ", " or ")


def _loose(text: str, op: str, right: bool) -> bool:
    """Whether an operand said as ``text`` (a column named by its expression in words: "the sum of x when
    y is 'A', otherwise 0") needs brackets beside ``op``: outside its own brackets it has a condition or a
    branch, or an operator that binds less tightly (or as tightly, right of a − or ÷)."""
    if text.endswith(_IF_NULL):  # "x − (y (0 if null))": the fallback is y's, not the difference's
        return True
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth or ch != " ":
            continue
        if any(text.startswith(w, i) for w in _RUNS_ON):
            return True
        word = text[i + 1 : text.find(" ", i + 1)] if text.find(" ", i + 1) > 0 else ""
        if word in _PRECEDENCE and (
            _PRECEDENCE[word] < _PRECEDENCE[op]
            or (right and _PRECEDENCE[word] == _PRECEDENCE[op] and op in _NOT_ASSOCIATIVE)
        ):
            return True
    return False


def _open_phrase(text: str) -> bool:
    """Whether ``text`` is a noun phrase ("the … of …") whose object is more than a name: a bracket, another
    phrase or an operation ("the absolute value of (a − b)", "the average of the sum of x", "the sum of a ×
    b"). An operator after it reads as part of its object."""
    if not text.startswith("the "):
        return False
    depth, of = 0, -1
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and text.startswith(" of ", i):
            if of >= 0:
                return True  # a phrase of a phrase
            of = i + len(" of ")
    if of < 0:
        return False
    rest = text[of:]
    return rest.startswith("(") or any(f" {op} " in _outside_brackets(rest) for op in _PRECEDENCE)


def _outside_brackets(text: str) -> str:
    """``text`` without its brackets and what they hold."""
    out, depth = [], 0
    for ch in text:
        depth += ch == "("
        if not depth:
            out.append(ch)
        depth -= ch == ")" and depth > 0
    return "".join(out)


def _shifted_date(values: Sequence[Expression], name: str) -> _dt.date | None:
    """A date literal plus or minus an interval literal of whole months and days (``DATE '1994-01-01' +
    INTERVAL '1' YEAR``), as the date it gives; None for anything else."""
    if name not in ("add", "subtract") or len(values) != 2:
        return None
    start, interval = _date_constant(values[0]), values[1]
    while interval.WhichOneof("rex_type") == "cast":
        interval = interval.cast.input
    span = _months_days(interval.literal) if interval.WhichOneof("rex_type") == "literal" else None
    if start is None or span is None:
        return None
    months, days = span if name == "add" else (-span[0], -span[1])
    try:
        year, month = divmod(start.year * 12 + start.month - 1 + months, 12)
        last = calendar.monthrange(year, month + 1)[1]  # 31 January + 1 month: 28 or 29 February
        return _dt.date(year, month + 1, min(start.day, last)) + _dt.timedelta(days=days)
    except (OverflowError, ValueError):
        return None


def _days_added(w: Speaker, values: Sequence[Expression], name: str) -> str | None:
    """What a date plus or minus a constant of whole days adds, in days ("30 days"): a whole number (a
    date plus an integer is that many days, as in DataFusion and PostgreSQL) or an interval of days and
    seconds that are whole days (DataFusion's optimizer writes 30 days as 2,592,000 seconds; a date has
    no time of day for them to change). None for anything else."""
    if name not in ("add", "subtract") or len(values) != 2 or not _is_date(w, values[0]):
        return None
    right = uncast(values[1])
    if right.WhichOneof("rex_type") != "literal":
        return None
    which = right.literal.WhichOneof("literal_type")
    if which in INTEGER_KINDS:
        return counted(getattr(right.literal, which), "day")
    span = _months_days(right.literal, seconds_of_days=True) if which != "interval_year_to_month" else None
    return counted(span[1], "day") if span is not None and not span[0] else None


def _date_constant(e: Expression) -> _dt.date | None:
    """A date literal, or a text literal cast to a date (``CAST('1994-01-01' AS DATE)``, as DataFusion
    writes ``DATE '1994-01-01'``), as a date; None for anything else."""
    to_date = False
    while e.WhichOneof("rex_type") == "cast":
        to_date = to_date or e.cast.type.WhichOneof("kind") == "date"
        e = e.cast.input
    if e.WhichOneof("rex_type") != "literal":
        return None
    which = e.literal.WhichOneof("literal_type")
    try:
        if which == "date":
            return EPOCH + _dt.timedelta(days=e.literal.date)
        if to_date and which in ("string", "var_char", "fixed_char"):
            text = e.literal.var_char.value if which == "var_char" else getattr(e.literal, which)
            return text_date(text)
    except (OverflowError, ValueError):
        return None
    return None


def _months_days(lit: Expression.Literal, seconds_of_days: bool = False) -> tuple[int, int] | None:
    """An interval literal as (months, days) when it has no seconds (``seconds_of_days``: or only seconds
    that make whole days, counted as days); None otherwise."""
    which = lit.WhichOneof("literal_type")
    ym = dts = None
    if which == "interval_year_to_month":
        ym = lit.interval_year_to_month
    elif which == "interval_day_to_second":
        dts = lit.interval_day_to_second
    elif which == "interval_compound":
        ym, dts = lit.interval_compound.interval_year_to_month, lit.interval_compound.interval_day_to_second
    else:
        return None
    extra_days = 0
    if dts is not None and (dts.seconds or dts.subseconds):
        if not seconds_of_days or dts.subseconds or dts.seconds % 86400:
            return None
        extra_days = dts.seconds // 86400
    return ((ym.years * 12 + ym.months) if ym is not None else 0, (dts.days if dts is not None else 0) + extra_days)


def arith_op(w: Speaker, e: Expression) -> str | None:
    while e.WhichOneof("rex_type") == "cast":
        e = e.cast.input
    if e.WhichOneof("rex_type") != "scalar_function":
        return None
    return _ARITHMETIC.get(w.function(e.scalar_function.function_reference))


def _negate(w: Speaker, f: Expression.ScalarFunction) -> str | None:
    values = argument_values(f)
    if len(values) != 1:
        return None
    text = w.expr(values[0])
    # −(o_totalprice + 1), not −o_totalprice + 1; −(−3)
    loose = arith_op(w, values[0]) is not None or _loose(text, "×", right=True) or text.startswith(("-", "−"))
    return f"−({text})" if loose else f"−{text}"


def _extract(w: Speaker, f: Expression.ScalarFunction) -> str | None:
    args = w.args(f.arguments)
    if len(args) >= 2:
        return f"the {args[0].lower()} of {args[-1]}"
    return None


def _date_part(w: Speaker, f: Expression.ScalarFunction) -> str | None:
    """DataFusion's ``date_part('YEAR', x)``: "the year of x"; of a span (a timestamp minus another),
    "the whole hours in (a − b)", the count DataFusion gives."""
    values = argument_values(f)
    if len(values) != 2 or values[0].literal.WhichOneof("literal_type") != "string":
        return None
    unit = values[0].literal.string.lower()
    if _result_kind(values[1]) in ("interval_day", "interval_compound"):  # a span's whole units, not a field
        return f"the whole {unit}s in {_whole(w.expr(values[1]))}"
    return f"the {unit} of {w.expr(values[1])}"


def _result_kind(e: Expression) -> str | None:
    """The type kind a function's or a cast's result declares (None for other expressions)."""
    which = e.WhichOneof("rex_type")
    if which == "scalar_function":
        return e.scalar_function.output_type.WhichOneof("kind")
    return e.cast.type.WhichOneof("kind") if which == "cast" else None


def _whole(text: str) -> str:
    """An argument that is a phrase, in brackets: "the absolute value of (a − b)"."""
    quoted = text.startswith("'") and text.endswith("'") and text.count("'") == 2  # a text literal: '  '
    return f"({text})" if " " in text and not quoted else text


def _integer(w: Speaker, e: Expression) -> int | None:
    value = constant_value(w, e)
    return int(value) if value is not None and value == int(value) else None


def _substring(w: Speaker, f: Expression.ScalarFunction) -> str | None:
    """``substring(x, 1, 5)``: "the first 5 characters of x"; from another place, "3 characters of x
    from the 2nd"; without a length, "x from its 2nd character"."""
    values = argument_values(f)
    if len(values) not in (2, 3):
        return None
    of, start = _whole(w.expr(values[0])), _integer(w, values[1])
    length = _integer(w, values[2]) if len(values) == 3 else None
    if start is None or (len(values) == 3 and length is None):
        return None
    if length is None:
        return f"{of} from its {ordinal(start)} character"
    if start == 1:
        return f"the first {'character' if length == 1 else counted(length, 'character')} of {of}"
    return f"{counted(length, 'character')} of {of} from the {ordinal(start)}"


def _said(template: str) -> Callable[[Speaker, Expression.ScalarFunction], str | None]:
    """A function said by ``template``, one ``{}`` for each of its arguments in order ("the absolute value of
    {}", "{} joined by {}") or ``{0}``, ``{1}`` by place ("the first {1} characters of {0}"), a phrase in
    brackets."""
    fields = [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]
    arity = len(fields) if all(name == "" for name in fields) else len(set(fields))

    def words(w: Speaker, f: Expression.ScalarFunction) -> str | None:
        values = argument_values(f)
        return template.format(*[_whole(w.expr(v)) for v in values]) if len(values) == arity else None

    return words


def _trim(where: str) -> Callable[[Speaker, Expression.ScalarFunction], str | None]:
    """``btrim(s)``, ``ltrim(s, 'xy')``: "s without spaces at both ends", "s without 'xy''s characters at
    its start"."""

    def words(w: Speaker, f: Expression.ScalarFunction) -> str | None:
        values = argument_values(f)
        if len(values) not in (1, 2):
            return None
        what = "spaces" if len(values) == 1 else f"the characters of {_whole(w.expr(values[1]))}"
        return f"{_whole(w.expr(values[0]))} without {what} at {where}"

    return words


def _pad(side: str) -> Callable[[Speaker, Expression.ScalarFunction], str | None]:
    """``lpad(s, 10, '*')``: "s padded on the left with '*' to 10 characters" (spaces when not given)."""

    def words(w: Speaker, f: Expression.ScalarFunction) -> str | None:
        values = argument_values(f)
        if len(values) not in (2, 3):
            return None
        fill = _whole(w.expr(values[2])) if len(values) == 3 else "spaces"
        return f"{_whole(w.expr(values[0]))} padded on the {side} with {fill} to {_whole(w.expr(values[1]))} characters"

    return words


def _ilike(w: Speaker, f: Expression.ScalarFunction) -> str | None:
    """``ilike(s, p)``: LIKE ignoring case."""
    words = _like(w, f)
    return f"{words} (ignoring case)" if words is not None else None


def _date_trunc(w: Speaker, f: Expression.ScalarFunction) -> str | None:
    """``date_trunc('month', d)``: "d cut to its month"."""
    values = argument_values(f)
    if len(values) != 2 or values[0].WhichOneof("rex_type") != "literal":
        return None
    unit = values[0].literal.string or values[0].literal.var_char.value
    return f"{_whole(w.expr(values[1]))} cut to its {unit.lower()}" if unit else None


def _round(w: Speaker, f: Expression.ScalarFunction) -> str | None:
    """``round(x, 2)``: "x rounded to 2 decimal places"; ``round(x)``: "x rounded to a whole number"."""
    values = argument_values(f)
    places = _integer(w, values[1]) if len(values) == 2 else 0 if len(values) == 1 else None
    if places is None or places < 0:
        return None
    to = "a whole number" if places == 0 else counted(places, "decimal place")
    return f"{_whole(w.expr(values[0]))} rounded to {to}"


#: A text literal as the words say it: 'it''s'.
_TEXT_LITERAL = re.compile(r"'(?:[^']|'')*'")


def _concat(w: Speaker, f: Expression.ScalarFunction) -> str | None:
    """``concat('store', s_store_id)``: "'store' followed by s_store_id"; texts side by side as one
    ('DHL' || ',' || 'BARIAN': 'DHL,BARIAN')."""
    parts: list[str] = []
    for v in argument_values(f):
        text = w.expr(v)
        if parts and _TEXT_LITERAL.fullmatch(text) and _TEXT_LITERAL.fullmatch(parts[-1]):
            parts[-1] = parts[-1][:-1] + text[1:]
        else:
            parts.append(text)
    if len(parts) == 1 and len(argument_values(f)) > 1:
        return parts[0]
    return " followed by ".join(_whole(p) for p in parts) if len(parts) > 1 else None


_IF_NULL = " if null)"


def _coalesce(w: Speaker, f: Expression.ScalarFunction) -> str | None:
    """``coalesce(sr_return_amt, 0)``: "sr_return_amt (0 if null)", a fallback of one word said after the
    value, a phrase in brackets ("(the sum of x) (0 if null)": the sum's fallback, not its rows'); of more
    values, or a longer fallback, "the first non-null of a, b and c"."""
    said = [w.expr(v) for v in argument_values(f)]
    if len(said) == 2 and " " not in said[1] and said[1] != "null":
        return f"{_whole(said[0])} ({said[1]}{_IF_NULL}"
    return "the first non-null of " + capped_list(said, 4, "others")


def case_coalesce(w: Speaker, e: Expression.IfThen) -> str | None:
    """``CASE WHEN x IS NOT NULL THEN x ELSE 0 END`` as the coalesce it is: "x (0 if null)" (TPC-DS q80 writes
    both, and "sums x where x is not null (0 if no row matches)" read as a filter); None for another CASE or
    a fallback of more than a word."""
    if len(e.ifs) != 1 or not e.HasField("else"):
        return None
    test, then = getattr(e.ifs[0], "if"), e.ifs[0].then
    if test.WhichOneof("rex_type") != "scalar_function":
        return None
    f = test.scalar_function
    values = argument_values(f)
    if w.function(f.function_reference) != "is_not_null" or len(values) != 1:
        return None
    if values[0].SerializeToString(deterministic=True) != then.SerializeToString(deterministic=True):
        return None
    fallback = w.expr(getattr(e, "else"))
    if " " in fallback or fallback == "null":
        return None
    return f"{_whole(w.expr(then))} ({fallback}{_IF_NULL}"


def _index_in(w: Speaker, f: Expression.ScalarFunction) -> str | None:
    values = argument_values(f)
    return f"the position of {w.expr(values[0])} in {w.expr(values[1])}" if len(values) == 2 else None


#: DataFusion's grouping-id column in an audience's words (the words name the record's columns so).
GROUPING_ID_WORDS = "the grouping set's id"


def _grouping_flag(w: Speaker, f: Expression.ScalarFunction) -> str | None:
    """DataFusion's GROUPING(x): ``bitwise_shift_right(bitwise_and(__grouping_id, 2^k), k)`` (or
    ``bitwise_and(__grouping_id, 1)``), the bit of the aggregate's grouping id that is 1 where the
    grouping set leaves key x out (the first key the highest bit), as "x's rollup flag"; None for
    anything else, or when the plan's aggregates do not agree on their keys."""
    values = argument_values(f)
    if len(values) != 2:
        return None
    shift = constant_value(w, values[1])
    if w.function(f.function_reference) == "bitwise_shift_right":
        inner = values[0]
        if inner.WhichOneof("rex_type") != "scalar_function" or shift is None:
            return None
        if w.function(inner.scalar_function.function_reference) != "bitwise_and":
            return None
        values = argument_values(inner.scalar_function)
        if len(values) != 2:
            return None
    else:
        shift = _decimal.Decimal(0)
    index, mask = direct_field(values[0]), constant_value(w, values[1])
    if index is None or mask is None or not w.fields or not 0 <= index < len(w.fields):
        return None
    from ..schema import GROUPING_ID  # the schema pass reads words: imported when asked

    if w.fields[index].name not in (GROUPING_ID, GROUPING_ID_WORDS):
        return None
    keys = _grouping_keys(w.model)
    whole_bits = mask == int(mask) and 0 < mask < 2 ** len(keys or ()) and int(mask) & (int(mask) + 1) == 0
    if shift == 0 and mask != 1 and keys and whole_bits:
        # GROUPING(a, b) of the last keys: the mask of their bits, the first key's the highest (the value
        # GROUPING gives); a mask of other bits would not be that value
        bits = [b for b in range(len(keys) - 1, -1, -1) if int(mask) >> b & 1]
        names = [keys[len(keys) - 1 - b] for b in bits]
        return f"the rollup flags of {and_list(names)} {A_BIT_EACH}" if len(bits) > 1 else None
    if mask != 2**shift:
        return None
    bit = int(shift)
    return f"{keys[len(keys) - 1 - bit]}'s rollup flag" if keys and bit < len(keys) else None


def _grouping_keys(model: PlanModel) -> list[str] | None:
    """The key columns' names of the plan's aggregates that write DataFusion's grouping id, when they
    all have the same ones (else None: which aggregate a grouping id comes from is not traced here)."""
    from ..schema import aggregate_layout

    found: set[tuple[str, ...]] = set()
    for node in model.nodes():
        if node.kind != "aggregate" or node.schema is None or node.node.body is None:
            continue
        layout = aggregate_layout(node.node.body, model.conventions)
        if layout.grouping_column == "datafusion":
            found.add(tuple(f.name for f in node.schema[: len(layout.keys)]))
    return list(found.pop()) if len(found) == 1 else None


def _make_array(w: Speaker, f: Expression.ScalarFunction) -> str | None:
    """DataFusion's ``make_array(a, b)``: "the list [a, b]"."""
    return "the list [" + capped_list([w.expr(v) for v in argument_values(f)], 6, "others") + "]"


def _struct(w: Speaker, f: Expression.ScalarFunction) -> str | None:
    """``named_struct('year', y, 'maker', m)``: "a record with year = y and maker = m"; ``struct(a, b)``: "a
    record of a and b"."""
    values = argument_values(f)
    if w.function(f.function_reference) == "struct":
        return "a record of " + capped_list([w.expr(v) for v in values], 6, "others")
    names = [v.literal.string if v.literal.WhichOneof("literal_type") == "string" else None for v in values[0::2]]
    if len(values) % 2 or None in names:
        return None
    parts = [f"{name} = {w.expr(v)}" for name, v in zip(names, values[1::2])]
    return "a record with " + capped_list(parts, 6, "others")


def _map(w: Speaker, f: Expression.ScalarFunction) -> str | None:
    """``map(keys, values)``: "the map of keys to values"."""
    values = argument_values(f)
    return f"the map of {w.expr(values[0])} to {w.expr(values[1])}" if len(values) == 2 else None


def _get_field(w: Speaker, f: Expression.ScalarFunction) -> str | None:
    """``get_field(s, 'year')``: "the year of s"."""
    values = argument_values(f)
    if len(values) != 2 or values[1].literal.WhichOneof("literal_type") != "string":
        return None
    return f"the {values[1].literal.string} of {_whole(w.expr(values[0]))}"


#: Functions whose words are a condition ("x is above 10", "p_name contains 'green'"), said as a noun with
#: "whether" before them.
PREDICATES = frozenset(
    {
        *COMPARISON_WORDS,
        *("and", "or", "not", "is_null", "is_not_null", "like", "ilike", "between", "starts_with", "ends_with"),
        *("contains", "is_true", "is_false", "is_not_true", "is_not_false", "is_unknown", "is_not_unknown"),
        *("is_nan", "is_finite", "is_infinite"),
    }
)

#: Functions whose words begin with their first argument ("x is above 10", "x and y").
LEADS_WITH_FIRST = {*COMPARISON_WORDS, *_ARITHMETIC, "and", "or", "not", "is_null", "is_not_null", "like", "between"}

FUNCTIONS: dict[str, Callable[[Speaker, Expression.ScalarFunction], str | None]] = {
    **{name: _comparison(name) for name in COMPARISON_WORDS},
    **{name: _arithmetic(name) for name in _ARITHMETIC},
    "and": _logical("and"),
    "or": _logical("or"),
    "not": _not,
    "is_null": _is_null,
    "is_not_null": _is_not_null,
    "like": _like,
    "between": _between,
    "negate": _negate,
    "extract": _extract,
    "date_part": _date_part,
    "substring": _substring,
    "substr": _substring,
    "abs": _said("the absolute value of {}"),
    "upper": _said("{} in upper case"),
    "lower": _said("{} in lower case"),
    "round": _round,
    "concat": _concat,
    "str_concat": _concat,
    "coalesce": _coalesce,
    "index_in": _index_in,
    "bitwise_and": _grouping_flag,
    "bitwise_shift_right": _grouping_flag,
    # lists, maps and records (DataFusion's functions)
    "make_array": _make_array,
    "named_struct": _struct,
    "struct": _struct,
    "map": _map,
    "get_field": _get_field,
    "array_sort": _said("{} sorted"),
    "array_distinct": _said("{} without repeats"),
    "array_reverse": _said("{} reversed"),
    "array_length": _said("the number of items in {}"),
    "cardinality": _said("the number of items in {}"),
    "flatten": _said("{} flattened"),
    "map_keys": _said("the keys of {}"),
    "map_values": _said("the values of {}"),
    "array_element": _said("{} at position {}"),
    "array_to_string": _said("{} joined by {}"),
    "string_to_array": _said("{} split at {}"),
    "array_concat": _said("{} followed by {}"),
    # text
    "replace": _said("{} with {} replaced by {}"),
    "nullif": _said("{} (null where it is {})"),
    **dict.fromkeys(("strpos", "instr"), _said("the position of {1} in {0}")),
    **dict.fromkeys(("character_length", "char_length", "length"), _said("the number of characters in {}")),
    "btrim": _trim("both ends"),
    "trim": _trim("both ends"),
    "ltrim": _trim("its start"),
    "rtrim": _trim("its end"),
    "lpad": _pad("left"),
    "rpad": _pad("right"),
    "left": _said("the first {1} characters of {0}"),
    "right": _said("the last {1} characters of {0}"),
    "starts_with": _said("{} starts with {}"),
    "ends_with": _said("{} ends with {}"),
    "contains": _said("{} contains {}"),
    "ilike": _ilike,
    "reverse": _said("{} reversed"),
    "repeat": _said("{} repeated {} times"),
    # truth values
    "is_true": _said("{} is true"),
    "is_false": _said("{} is false"),
    "is_not_true": _said("{} is not true"),
    "is_not_false": _said("{} is not false"),
    "is_unknown": _said("{} is unknown"),
    "is_not_unknown": _said("{} is known"),
    # numbers and times
    "ceil": _said("{} rounded up"),
    "floor": _said("{} rounded down"),
    "sqrt": _said("the square root of {}"),
    "ln": _said("the natural logarithm of {}"),
    "log10": _said("the base-10 logarithm of {}"),
    "exp": _said("e to the power {}"),
    "sign": _said("the sign of {}"),
    "signum": _said("the sign of {}"),
    "date_trunc": _date_trunc,
}
