"""Aggregate and window functions in words, as a verb ("sums price") or a noun ("the sum of price")."""

from __future__ import annotations

import decimal as _decimal
from collections.abc import Sequence

from substrait import algebra_pb2

from ..expressions.shapes import FRAMELESS, signed_bound
from .basics import (
    A_BIT_EACH,
    CASE_WORDS,
    MAX_ITEMS,
    adds_outside_brackets,
    and_list,
    capped_list,
    flag_meaning,
    ordinal,
)
from .functions import arith_op, case_coalesce, constant_value
from .speaker import Speaker

Expression = algebra_pb2.Expression


_AGGREGATE_VERBS = {
    "sum": "sums {}",
    "sum0": "sums {}",
    "avg": "averages {}",
    "mean": "averages {}",
    "min": "finds the smallest {}",
    "max": "finds the largest {}",
    "count": "counts {}",
    "any_value": "takes a value of {}",  # "any of the sum" read as SQL's ANY
    "first_value": "takes the first {}",
    "last_value": "takes the last {}",
    "row_number": "numbers the rows",
    "rank": "ranks the rows",
    "dense_rank": "ranks the rows (no gaps)",
    "std_dev": "computes the standard deviation of {}",
    "stddev": "computes the standard deviation of {}",
    "variance": "computes the variance of {}",
    "string_agg": "joins the {} texts",
    "list_agg": "collects the {} values",
    "array_agg": "collects the {} values",
    "bit_and": "takes the bitwise and of {}",
    "bit_or": "takes the bitwise or of {}",
    "bit_xor": "takes the bitwise exclusive or of {}",
    "stddev_samp": "computes the sample standard deviation of {}",
    "stddev_pop": "computes the population standard deviation of {}",
    "var": "computes the variance of {}",
    "var_samp": "computes the sample variance of {}",
    "var_pop": "computes the population variance of {}",
    "bool_and": "checks whether {} in every row",
    "bool_or": "checks whether {} in some row",
    "approx_distinct": "estimates the number of distinct {}",
}


_AGGREGATE_NOUNS = {
    "sum": "the sum of {}",
    "sum0": "the sum of {}",
    "avg": "the average {}",
    "mean": "the average {}",
    "min": "the smallest {}",
    "max": "the largest {}",
    "count": "the number of {}",
    "any_value": "a value of {}",
    "first_value": "the first {}",
    "last_value": "the last {}",
    "row_number": "the row number",
    "rank": "the rank",
    "dense_rank": "the dense rank",
    "std_dev": "the standard deviation of {}",
    "stddev": "the standard deviation of {}",
    "variance": "the variance of {}",
    "string_agg": "the {} texts joined",
    "list_agg": "the list of {}",
    "array_agg": "the list of {}",
    "bit_and": "the bitwise and of {}",
    "bit_or": "the bitwise or of {}",
    "bit_xor": "the bitwise exclusive or of {}",
    "stddev_samp": "the sample standard deviation of {}",
    "stddev_pop": "the population standard deviation of {}",
    "var": "the variance of {}",
    "var_samp": "the sample variance of {}",
    "var_pop": "the population variance of {}",
    "bool_and": "whether {} in every row",
    "bool_or": "whether {} in some row",
    "approx_distinct": "the estimated number of distinct {}",
}


_SIDES = ("lower_bound", "upper_bound")  # a window function's frame bounds, first to last


def framed(f, name: str, words: str, key: str | None = None) -> tuple[str, str]:
    """``words`` of window function ``f`` ("the sum of quantity") and its frame in words, said after the
    window's partition and order: "the running sum of quantity" from the partition's first row to the
    current one, else "over this row and the 2 before it" (said alike, a sliding sum read as the
    partition's total). ``key``: the window's first order key in words, which a RANGE frame's offsets
    count in. The whole partition, and a function the frame does not change, need no words ("")."""
    if name in FRAMELESS:
        return words, ""
    try:
        lower, upper = (signed_bound(getattr(f, side)) if f.HasField(side) else None for side in _SIDES)
    except ValueError:  # an offset computed by an expression
        return words, "over a frame whose bounds are computed"
    if (lower, upper) == (None, None) or (name == "first_value" and lower is None):
        return words, ""
    if (lower, upper) == (None, 0) and words.startswith("the ") and name not in _PICKS:
        return "the running " + words[len("the ") :], ""
    if f.bounds_type == 2:  # RANGE: offsets in the order key's values
        ends = [_range_end(b) for b in (lower, upper)]
        return words, f"over the rows whose {key or 'order key'} is {_between(ends)} (in the window's order)"
    return words, f"over {_rows_frame(lower, upper)}"


#: Window functions whose value is one row of the frame: a "running" one reads wrongly.
_PICKS = frozenset({"first_value", "last_value", "nth_value", "any_value"})


def _rows_frame(lower: int | None, upper: int | None) -> str:
    def some(n: int, where: str) -> str:
        return f"the one {where} it" if n == 1 else f"the {n:,} {where} it"

    if lower is not None and upper is not None and lower <= 0 <= upper:
        parts = ([some(-lower, "before")] if lower < 0 else []) + ([some(upper, "after")] if upper > 0 else [])
        return "this row alone" if not parts else and_list(["this row", *parts])
    if lower == 0 and upper is None:
        return "this row and every row after it"
    if lower is None and upper == 0:
        return "the rows up to this one"

    def end(n: int | None, last: bool) -> str:
        if n is None:
            return "the partition's last" if last else "the partition's first"
        return (
            "this one"
            if n == 0
            else f"{abs(n):,} {'row' if abs(n) == 1 else 'rows'} {'before' if n < 0 else 'after'} this one"
        )

    return f"the rows from {end(lower, False)} to {end(upper, True)}"


def _range_end(n: int | None) -> str | None:
    if n is None:
        return None
    return "this row's" if n == 0 else f"{abs(n):,} {'before' if n < 0 else 'after'} this row's"


def _between(ends: list[str | None]) -> str:
    lo, hi = ends
    if lo is None:
        return f"up to {hi}"
    if hi is None:
        return f"from {lo} on"
    return f"from {lo} to {hi}"


def _only_where(w: Speaker, name: str, values: Sequence[Expression]) -> tuple[Expression | None, str, str] | None:
    """An aggregate of one ``CASE WHEN c THEN x END`` whose other rows add nothing (no ELSE, a null one,
    or 0 for a sum): (x, c in words, what a group without such a row gives where the words say otherwise),
    x None when the aggregate counts the rows where c; None when it is not that shape. A sum of nothing is
    null and a count of nothing 0, so "sums x where c" of ELSE 0 gives 0 there, and "counts the rows
    where c" of a sum of 1 without ELSE null."""
    if len(values) != 1 or values[0].WhichOneof("rex_type") != "if_then":
        return None
    e = values[0].if_then
    if len(e.ifs) != 1 or case_coalesce(w, e) is not None:  # a coalesce: each row's value, not a condition
        return None
    value, other = e.ifs[0].then, getattr(e, "else") if e.HasField("else") else None
    inner = other
    while inner is not None and inner.WhichOneof("rex_type") == "cast":
        inner = inner.cast.input
    nothing = inner is None or (inner.WhichOneof("rex_type") == "literal" and inner.literal.HasField("null"))
    adds_nothing = nothing or (name in ("sum", "sum0") and constant_value(w, other) == 0)
    if not adds_nothing:
        return None
    where = w.condition(getattr(e.ifs[0], "if"))
    if (name in ("sum", "sum0") and constant_value(w, value) == 1) or (
        name == "count" and constant_value(w, value) is not None
    ):
        return None, where, " (null if no row matches)" if name == "sum" and nothing else ""
    return value, where, " (0 if no row matches)" if name == "sum0" or not nothing else ""


def _uncast(e: Expression) -> Expression:
    while e.WhichOneof("rex_type") == "cast":
        e = e.cast.input
    return e


def _never_null(e: Expression) -> bool:
    """A value no row makes null: a literal that is not null, or a CASE of such values with an ELSE."""
    e = _uncast(e)
    which = e.WhichOneof("rex_type")
    if which == "literal":
        return not e.literal.HasField("null")
    if which == "if_then" and e.if_then.HasField("else"):
        return all(_never_null(c.then) for c in e.if_then.ifs) and _never_null(getattr(e.if_then, "else"))
    return False


def aggregate_words(w: Speaker, name: str, arguments, distinct: bool, noun: bool = False, sorts=(), options=()) -> str:
    """``sums quantity × price``, ``counts rows``, ``counts distinct customers``; with ``noun``:
    ``the sum of quantity × price``, ``the number of rows``. ``sorts``: the aggregate's own order
    (a percentile's ``WITHIN GROUP (ORDER BY x DESC)``, the order of ``string_agg(x, ',' ORDER BY y)``'s
    texts: "in order of y"). ``options``: the function's (a standard deviation's distribution)."""
    name, arguments = _spread(name, arguments, options)
    values = [a.value for a in arguments if a.WhichOneof("arg_type") == "value"]
    percentile = _percentile_words(w, name, values, sorts, noun)
    if percentile is not None:
        return percentile
    said = _unordered_words(w, name, arguments, values, distinct, noun)
    if not sorts:
        return said
    return f"{said} in order of {capped_list([w.order_key(s) for s in sorts], MAX_ITEMS)}"


#: A standard deviation or variance by the distribution a plan asks for (an option, or an enum argument).
_SPREADS = {
    "std_dev": ("stddev_samp", "stddev_pop"),
    "stddev": ("stddev_samp", "stddev_pop"),
    "variance": ("var_samp", "var_pop"),
    "var": ("var_samp", "var_pop"),
}


def _spread(name: str, arguments, options) -> tuple[str, list]:
    """``name`` as the sample's or population's form where the plan says which (``std_dev`` with
    ``distribution`` SAMPLE is ``stddev_samp``), and the arguments without that enum; else as given."""
    arguments = list(arguments)
    if name not in _SPREADS:
        return name, arguments
    asked = [p.upper() for o in options if o.name == "distribution" for p in o.preference]
    enums = [a for a in arguments if a.WhichOneof("arg_type") == "enum" and a.enum.upper() in _DISTRIBUTIONS]
    asked = [a.enum.upper() for a in enums] + asked
    rest = [a for a in arguments if a not in enums]
    for p in asked:
        if p in _DISTRIBUTIONS:
            return _SPREADS[name][_DISTRIBUTIONS.index(p)], rest
    # DataFusion's own names are its sample forms (stddev_samp's alias); the standard's leave it to the engine
    return (_SPREADS[name][0] if name in ("stddev", "var") else name), rest


_DISTRIBUTIONS = ("SAMPLE", "POPULATION")


def _unordered_words(w: Speaker, name: str, arguments, values: Sequence, distinct: bool, noun: bool) -> str:
    """:func:`aggregate_words` without the aggregate's own order."""
    at_offset = _window_words(w, name, values)
    if at_offset is not None:
        return at_offset
    only = None if distinct else _only_where(w, name, values)
    if only is not None:  # sum(CASE WHEN c THEN x ELSE 0 END): "sums x where c"
        value, where, none = only
        if value is None:  # sum(CASE WHEN c THEN 1 ELSE 0 END), count(CASE WHEN c THEN 1 END)
            return f"{'the number of' if noun else 'counts the'} rows where {where}{none}"
        said = aggregate_words(w, name, [algebra_pb2.FunctionArgument(value=value)], distinct, noun)
        return f"{said} where {where}{none}"
    cased = False  # a count of a CASE that is never null: TPC-DS q72's no_promo and promo both count every row
    if name == "count" and values and all(_never_null(v) for v in values):
        args = []  # count(1): DataFusion's count(*); count(CASE WHEN c THEN 1 ELSE 0 END) counts every row too
        cased = any(_uncast(v).WhichOneof("rex_type") == "if_then" for v in values)
    else:
        args = [a for a in w.args(arguments)]
        if noun and len(values) == 1 and (arith_op(w, values[0]) in ("+", "−") or adds_outside_brackets(args[0])):
            # "2 × the sum of (a + b)", not "the sum of a + b"; a column named so too (a union's)
            args = [f"({args[0]})"]
        # a CASE's words in brackets: "sums x when c, otherwise y as total" read as a conditional sum
        args = [f"({a})" if CASE_WORDS in a else a for a in args]
    if name == "grouping" and args:  # GROUPING(a, b) where a producer keeps it an aggregate
        flags = f"{args[0]}'s rollup flag" if len(args) == 1 else f"the rollup flags of {and_list(args)} {A_BIT_EACH}"
        if noun:
            return flags
        # said once, where it is made: what the flag is
        said = f" {flag_meaning(args[0])}" if len(args) == 1 else ""
        return f"computes {flags}{said}"
    if name == "string_agg" and len(args) == 2:  # its separator said as one, not as a second value
        joined = f"{'distinct ' if distinct else ''}{args[0]}"
        between = "nothing" if args[1] == "null" else args[1]  # DataFusion joins with no separator then
        return f"the {joined} texts joined by {between}" if noun else f"joins the {joined} texts with {between} between"
    what = ", ".join(args) if args else ("rows" if name == "count" else "")
    if cased:  # said why, where the CASE's name promises a condition
        what = f"{'rows' if noun else 'every row'} (its CASE is never null)"
    if distinct:
        what = f"distinct {what}"
    template = (_AGGREGATE_NOUNS if noun else _AGGREGATE_VERBS).get(name)
    if template is None:
        return f"{name}({what})" if noun else f"computes {name}({what})"
    picks = template.split()[-2:-1] in (["largest"], ["smallest"], ["first"], ["last"])
    if (noun or picks) and what.startswith("the ") and not template.endswith("of {}"):
        # "the average of the sum of x", "finds the largest of the sum of x", not "the largest the sum"
        template = template.replace("{}", "of {}")
    return template.format(what)


def _window_words(w: Speaker, name: str, values: Sequence[Expression]) -> str | None:
    """Window functions that read a row at an offset or bucket the rows, as nouns: "the previous row's
    price", "price 3 rows ahead (else 0)", "the 2nd price", "the bucket number (of 4 equal buckets)";
    None for another function or a shape not said so."""
    if name in ("lag", "lead") and values:
        what = w.expr(values[0])
        n = constant_value(w, values[1]) if len(values) > 1 else 1
        if n is None or n != int(n) or n < 0:
            return None
        n = int(n)
        if n == 0:
            text = f"this row's {what}"
        elif n == 1:
            text = f"the {'previous' if name == 'lag' else 'next'} row's {what}"
        else:
            text = f"{what} {n:,} rows {'back' if name == 'lag' else 'ahead'}"
        return text + (f" (else {w.expr(values[2])})" if len(values) > 2 else "")
    if name == "nth_value" and len(values) > 1:
        n = constant_value(w, values[1])
        return f"the {ordinal(int(n))} {w.expr(values[0])}" if n is not None and n == int(n) and n > 0 else None
    if name == "ntile" and values:
        n = constant_value(w, values[0])
        return f"the bucket number (of {int(n):,} equal buckets)" if n is not None and n == int(n) else None
    if name == "percent_rank" and not values:
        return "the percent rank"
    if name == "cume_dist" and not values:
        return "the share of rows up to this one (cumulative distribution)"
    return None


#: Percentiles: whether each is an estimate.
_PERCENTILES = {"percentile_cont": False, "approx_percentile_cont": True, "median": False, "approx_median": True}


def _percentile_words(w: Speaker, name: str, values: Sequence[Expression], sorts, noun: bool) -> str | None:
    """``the 90th percentile of price``, ``estimates the median quantity``; None for another aggregate,
    or a fraction that is not a constant."""
    if name not in _PERCENTILES or not values:
        return None
    what = w.expr(values[0])
    if "median" in name:
        fraction = _decimal.Decimal("0.5")
    else:
        fraction = constant_value(w, values[1]) if len(values) > 1 else None
        if fraction is None or not 0 <= fraction <= 1:
            return None
        if sorts and sorts[0].direction in (3, 4):  # DESC NULLS FIRST / LAST: counted from the other end
            fraction = 1 - fraction
    percent = fraction * 100
    which = "median" if percent == 50 else f"{_ordinal_number(percent)} percentile"
    estimate = _PERCENTILES[name]
    if noun:
        return f"{'an estimate of ' if estimate else ''}the {which} of {what}"
    return f"{'estimates' if estimate else 'finds'} the {which} of {what}"


def _ordinal_number(n: _decimal.Decimal) -> str:
    """90 -> ``90th``, 33.3 -> ``33.3rd``."""
    if n == n.to_integral_value():
        return ordinal(int(n))
    text = f"{n.normalize():f}"
    return text + ordinal(int(text[-1]))[len(text[-1]) :]
