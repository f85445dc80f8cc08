"""Substrait extension functions as PySpark ``Column`` builders.

A function is resolved by the name before ``:`` (``add:i32_i32`` -> ``add``), then through
``ALIASES`` (names real producers write: DataFusion's ``date_part``, DuckDB's ``~~``, ...), then in
one of three tables (``SCALAR``, ``AGGREGATE``, ``WINDOW``): name -> builder(call, args) -> Column.
The builders live in one module per Substrait extension family (``arithmetic`` (with logarithmic and
rounding), ``comparison``, ``boolean``, ``strings``, ``datetimes``, ``lists``, ``aggregates``,
``windows``; ``_common`` holds ``Call`` and the helpers they share); each module's table is merged
here into the one table per kind, and a name registered twice fails at import.

Arguments are Spark columns, or ``str`` for an enum argument (``"YEAR"`` for extract), or a Python
callable ``Column -> Column`` for a lambda (``transform``, ``filter``, ``any_match``, ``all_match``).

Where Spark's semantics differ from Substrait's, the builders follow Substrait: integer division
truncates, overflow follows the ``overflow`` option (Spark silently wraps), float division by zero
gives +-inf/NaN (Spark gives null), NaN compares unequal to everything, logarithms of 0 and of
negative numbers follow ``on_log_zero`` / ``on_domain_error``. An option Spark cannot honour adds a
message to ``call.warnings``. When the call's output type is known the result is cast to it.
"""

from __future__ import annotations

from pyspark.sql import Column

from ...errors import Unsupported
from ...spark.jvm import sql_type
from . import aggregates, arithmetic, boolean, comparison, datetimes, lists, strings, windows
from ._common import (  # noqa: F401  NOT_CONSTANT, INT_RANGE: for executor.translate.expr
    INT_RANGE,
    NOT_CONSTANT,
    Builder,
    Call,
    _spark_type,
    base_name,
    holds_struct,
    lambdas_refused,
)


def _merge(kind: str, *tables: dict[str, Builder]) -> dict[str, Builder]:
    """One dispatch table from the families' tables; a name may be registered only once."""
    merged: dict[str, Builder] = {}
    for table in tables:
        twice = sorted(merged.keys() & table.keys())
        if twice:
            raise AssertionError(f"{kind} functions registered twice: {', '.join(twice)}")
        merged.update(table)
    return merged


SCALAR = _merge(
    "scalar", arithmetic.SCALAR, comparison.SCALAR, boolean.SCALAR, strings.SCALAR, datetimes.SCALAR, lists.SCALAR
)
AGGREGATE = _merge("aggregate", aggregates.AGGREGATE)
WINDOW = _merge("window", windows.WINDOW)
_merge("scalar, aggregate or window", SCALAR, AGGREGATE, WINDOW)  # and no name is in two kinds' tables


# Names real producers write, resolved to the standard names in the tables.
ALIASES: dict[str, str] = {
    "~~": "like",
    "!~~": "not_like",
    "~~*": "ilike",  # DuckDB's ILIKE
    "!~~*": "not_ilike",
    "count_star": "count",
    "sum_no_overflow": "sum",
    "character_length": "char_length",
    "bitwise_shift_left": "shift_left",
    "bitwise_shift_right": "shift_right",
    "length": "char_length",
    "substr": "substring",
    "date_part": "extract",
    "datepart": "extract",
    "btrim": "trim",
    "isnan": "is_nan",
    "approx_distinct": "approx_count_distinct",
    "mod": "modulus",
    "nvl": "coalesce",
    "signum": "sign",
    "ifnull": "coalesce",
    "pow": "power",
    "stddev": "std_dev",
    "stddev_samp": "std_dev",
    "var_samp": "variance",
    "var": "variance",
    "to_char": "strftime",
    "starts_with": "starts_with",
    "prefix": "starts_with",
    "suffix": "ends_with",
    "strpos": "strpos",
    "instr": "strpos",
    "position": "strpos",
    "regexp_like": "regexp_like",
    "list_sort": "sort",
    "neq": "not_equal",
    "eq": "equal",
    "list_position": "array_position",
    "array_indexof": "array_position",
    "list_indexof": "array_position",
}

# Standard names deliberately left unmapped, with the reason (shown by ``supported``).
NOT_MAPPED: dict[str, str] = {
    "regexp_strpos": "Spark has no regex position function with an occurrence argument",
    "regexp_match_substring_all": "not mapped yet",
    "round_temporal": "Spark has no temporal rounding with an origin",
    "round_calendar": "Spark has no calendar rounding",
    "quantile": "Spark's percentile functions take different arguments",
}

_TABLES: dict[str, dict[str, Builder]] = {"scalar": SCALAR, "aggregate": AGGREGATE, "window": WINDOW}


def resolve(name: str) -> str:
    base = base_name(name)
    return ALIASES.get(base, base)


#: Window functions that are aggregates too (DataFusion's DISTINCT ON): the first or last value in the
#: aggregate's own order, built from it by ``executor.translate.expr.ExprTranslator.aggregate``.
ORDERED_AGGREGATES = frozenset({"first_value", "last_value"})


#: Scalar functions that are casts to the call's output type (DataFusion's ``arrow_cast(value, 'Int16')``),
#: built by ``executor.translate.expr.ExprTranslator.cast`` as a cast that fails where the value does not fit.
CASTS = frozenset({"arrow_cast"})

#: Scalar functions that join their arguments' text: a DataFusion plan's numbers and times among them are
#: written as its engine writes them (``executor.translate.expr.ExprTranslator._as_texts``).
JOINS_TEXT = frozenset({"concat", "str_concat", "concat_ws"})


def supported(name: str, kind: str) -> str | None:
    """None when ``name`` is mapped for ``kind`` ("scalar" | "aggregate" | "window"), else the reason."""
    table = _TABLES.get(kind)
    if table is None:
        return f"unknown function kind `{kind}`"
    resolved = resolve(name)
    if kind == "scalar" and resolved in CASTS:
        return None
    if resolved in table or (kind == "window" and resolved in AGGREGATE):
        return None
    if kind == "aggregate" and resolved in ORDERED_AGGREGATES:
        return None
    if resolved in NOT_MAPPED:
        return f"`{base_name(name)}`: {NOT_MAPPED[resolved]}"
    return f"no Spark mapping for {kind} function `{base_name(name)}`"


def _builder(call: Call, kind: str) -> Builder:
    table = _TABLES[kind]
    resolved = resolve(call.name)
    builder = table.get(resolved)
    if builder is None and kind == "window":
        builder = AGGREGATE.get(resolved)
    if builder is None:
        reason = NOT_MAPPED.get(resolved)
        extra = f" ({reason})" if reason else ""
        raise Unsupported(
            f"no Spark mapping for `{base_name(call.name)}`{extra}; mapped {kind} functions: {', '.join(sorted(table))}"
        )
    return builder


#: Functions whose result is a boolean whatever type a producer declares for it (DuckDB declares
#: comparisons and `and` with the type of their arguments: i64, date, string...).
PREDICATES = frozenset(
    {
        "equal",
        "not_equal",
        "lt",
        "gt",
        "lte",
        "gte",
        "between",
        "is_null",
        "is_not_null",
        "is_nan",
        "is_finite",
        "is_infinite",
        "is_true",
        "is_false",
        "is_not_true",
        "is_not_false",
        "is_distinct_from",
        "is_not_distinct_from",
        "and",
        "or",
        "not",
        "xor",
        "and_not",
        "like",
        "ilike",
        "not_like",
        "not_ilike",
        "starts_with",
        "ends_with",
        "contains",
        "any_match",
        "all_match",
    }
)


def as_declared(call: Call, col: Column) -> Column:
    """``col`` cast to the call's declared output type, where one is known and the cast keeps its meaning."""
    target = _spark_type(call.output_type)
    if target is None:
        return col
    if holds_struct(target):
        # a Substrait struct type has no field names: a cast to it would name the fields the builder
        # gave (named_struct's) f0, f1...; the builder's values are of the plan's types already
        return col
    if resolve(call.name) in PREDICATES:
        # Spark's predicates are boolean already. A cast to boolean would hide ``a = outer(b)`` from
        # Catalyst's decorrelation (it looks for the bare equality), so a correlated subquery would
        # get a domain join where SQL gets a plain aggregate-and-join.
        if type(target).__name__ != "BooleanType":
            call.warnings.append(
                f"`{base_name(call.name)}` declares a {target.simpleString()} result; a predicate's result is "
                "kept boolean"
            )
        return col
    return col.cast(sql_type(target))


def _build(call: Call, args: list, kind: str) -> Column:
    builder = _builder(call, kind)
    try:
        with lambdas_refused(call.holds_subquery):
            return as_declared(call, builder(call, list(args)))
    except (ValueError, IndexError, TypeError) as exc:
        raise Unsupported(f"`{base_name(call.name)}` with these arguments: {exc}") from None


def scalar(call: Call, args: list) -> Column:
    return _build(call, args, "scalar")


def aggregate(call: Call, args: list) -> Column:
    return _build(call, args, "aggregate")


def window(call: Call, args: list) -> Column:
    return _build(call, args, "window")


__all__ = ["Call", "scalar", "aggregate", "window", "supported", "base_name", "ALIASES", "NOT_MAPPED"]
