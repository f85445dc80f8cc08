"""Aggregate functions (``functions_arithmetic*.yaml``'s, ``functions_aggregate_*.yaml``,
``functions_boolean.yaml``'s ``bool_and`` / ``bool_or``, ``functions_string.yaml``'s ``string_agg``,
and DataFusion's names). A window function that is an aggregate over a window is built from this table."""

from __future__ import annotations

import decimal

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as S

from viz.coercion import producer_result
from viz.types import is_nullable

from ...errors import Unsupported
from .. import records
from ..types import to_spark
from ._common import (
    BEYOND_38_DIGITS,
    FLOATS,
    INT_RANGE,
    NOT_CONSTANT,
    WIDE,
    Builder,
    Call,
    _arg_type,
    _enums,
    _fail_if,
    _float_rounding,
    _kind,
    _option,
    _value_kind,
    _values,
    base_name,
    decimal_quotient,
    list_element,
    once,
    signbit,
)


def _one(args: list) -> Column:
    vals = _values(args)
    if not vals:
        raise Unsupported("the aggregate needs an argument")
    return vals[0]


def _sum(call: Call, args: list) -> Column:
    x = _one(args)
    kind = _value_kind(call)
    # a DataFusion plan's sum of decimals stops beyond 38 digits (its engine wraps; Spark's gives null)
    stops = call.dialect == "datafusion" and kind == "decimal"
    if call.distinct:
        if not stops:
            return F.sum_distinct(x)
        s = call.over(F.sum_distinct(x))
        return _fail_if(s.isNull() & (call.over(F.count(x)) > 0), f"sum: {BEYOND_38_DIGITS}", s)
    mode = _option(call, "overflow", ("SILENT", "SATURATE", "ERROR"), "ERROR" if stops else "SILENT")
    if kind in INT_RANGE and mode != "SILENT":
        wide = call.over(F.sum(x.cast(WIDE)))
        lo, hi = INT_RANGE["i64"]
        if mode == "ERROR":
            return _fail_if((wide < lo) | (wide > hi), "sum: i64 overflow", wide).cast("long")
        return F.when(wide > hi, F.lit(hi)).when(wide < lo, F.lit(lo)).otherwise(wide).cast("long")
    if kind == "decimal" and mode == "ERROR":
        s = call.over(F.sum(x))
        return _fail_if(s.isNull() & (call.over(F.count(x)) > 0), f"sum: {BEYOND_38_DIGITS}", s)
    if kind in FLOATS:
        _float_rounding(call)
    return F.sum(x)


def _summed(call: Call, args: list) -> Column:
    """:func:`_sum`, over the call's window when it has one (``sum0`` wraps it in a coalesce)."""
    out = _sum(call, args)
    return out if call.windowed else call.over(out)


def _distribution(call: Call, args: list) -> str:
    enums = _enums(args)
    if enums and enums[0] in ("SAMPLE", "POPULATION"):
        return enums[0]
    name = base_name(call.name)
    if name in ("std_dev", "variance") and not call.options.get("distribution"):
        # the spec's function leaves it to the consumer, and the two give different values: said, not guessed
        # silently (DataFusion's stddev and var are its sample forms by name)
        call.warnings.append(
            f"{name}: the plan gives no distribution (SAMPLE or POPULATION); computed the sample's, as SQL's "
            "STDDEV and VARIANCE do"
        )
    return _option(call, "distribution", ("SAMPLE", "POPULATION"), "SAMPLE")


def _std_var(sample: str, population: str) -> Builder:
    """The variance or standard deviation (``sample`` / ``population``: Spark's names); of DISTINCT values,
    Welford's running mean over the set, as DataFusion computes it (Spark's takes no DISTINCT here)."""

    def build(call: Call, args: list) -> Column:
        x = _one(args).cast("double")
        _float_rounding(call)
        fn = sample if _distribution(call, args) == "SAMPLE" else population
        if not call.distinct:
            return F.call_function(fn, x)
        return _spread_of(call.over(F.collect_set(x)), fn.endswith("_pop"), fn.startswith("stddev"))

    return build


def _spread_of(values: Column, population: bool, root: bool) -> Column:
    """The variance (``root``: its square root) of a list of doubles, by Welford's running mean; null for
    fewer values than the sample's or population's divisor needs."""

    def step(acc: Column, v: Column) -> Column:
        n = acc["n"] + 1
        delta = v - acc["mean"]
        mean = acc["mean"] + delta / n
        return F.struct(n.alias("n"), mean.alias("mean"), (acc["m2"] + delta * (v - mean)).alias("m2"))

    def finish(acc: Column) -> Column:
        lost = 0 if population else 1
        variance = acc["m2"] / (acc["n"] - lost)
        return F.when(acc["n"] > lost, F.sqrt(variance) if root else variance)

    start = F.struct(F.lit(0).alias("n"), F.lit(0.0).alias("mean"), F.lit(0.0).alias("m2"))
    return F.aggregate(values, start, step, finish)


def _count(call: Call, args: list) -> Column:
    vals = _values(args)
    if not vals:
        return F.count(F.lit(1))
    if call.distinct:
        return F.count_distinct(*vals)
    return F.count(vals[0])


def _agg(fn: str, distinct_ok: bool = True, doubles: bool = False) -> Builder:
    """A Spark aggregate taking the value arguments; DISTINCT changes nothing when ``distinct_ok``; with
    ``doubles``, the arguments as doubles, as the function's signature takes them (Spark's regr_avgx of
    decimals is a decimal average of 4 more places, where DataFusion's casts to Float64 first)."""

    def build(call: Call, args: list) -> Column:
        if call.distinct and not distinct_ok:
            raise Unsupported(f"{base_name(call.name)}(DISTINCT ...) is not supported on Spark")
        values = _values(args)
        return F.call_function(fn, *([v.cast("double") for v in values] if doubles else values))

    return build


def _extreme(fn: str) -> Builder:
    """``min`` / ``max``. Of DataFusion's lists of values that may be null, its engine orders a null element
    above every value (Spark's order puts it below): each list is ranked by its elements as (is null,
    value) pairs (:func:`records.nulls_high`)."""
    plain = _agg(fn)

    def build(call: Call, args: list) -> Column:
        arg = _arg_type(call)
        if _kind(arg) in ("fp32", "fp64"):
            # Spark orders -0.0 and 0.0 as equal and keeps the first it meets; IEEE's total order (DataFusion's,
            # DuckDB's) puts -0.0 below 0.0: ranked by (value, not negative), a zero's sign decides
            x = _values(args)[0]
            rank = F.when(x.isNotNull(), F.struct(x, ~signbit(x)))
            return F.call_function(f"{fn}_by", x, rank)
        element = list_element(arg)
        if call.dialect != "datafusion" or element is None:
            return plain(call, args)
        if _kind(element) in ("list", "struct", "map") or is_nullable(element) is False:
            return plain(call, args)
        x = _values(args)[0]
        return F.call_function(f"{fn}_by", x, records.nulls_high(x, S.ArrayType(to_spark(element))))

    return build


def _regr_r2(call: Call, args: list) -> Column:
    """``regr_r2(y, x)``; where y does not vary, DataFusion's is null (Spark's 1.0, the standard's)."""
    if call.distinct:
        raise Unsupported("regr_r2(DISTINCT ...) is not supported on Spark")
    y, x = _values(args)[:2]
    r2 = call.over(F.call_function("regr_r2", y, x))
    if call.dialect != "datafusion":
        return r2
    return F.when(call.over(F.call_function("regr_syy", y, x)) == 0, F.lit(None)).otherwise(r2)


def _avg(call: Call, args: list) -> Column:
    """The mean; of decimals from a DataFusion plan, of the type the model gives it
    (``viz.coercion.producer_result``), cut toward zero as its engine cuts it (Spark's ``avg`` rounds
    half up): the sum is ``decimal(p+10,s)``, the count a ``decimal(20,0)`` to divide by."""
    x = _one(args)
    arg = _arg_type(call)
    total, count = (F.sum_distinct(x), F.count_distinct(x)) if call.distinct else (F.sum(x), F.count(x))
    mean = producer_result(call.dialect, "avg", [arg]) if call.dialect and arg is not None else None
    if mean is not None:
        p, s = arg.decimal.precision, arg.decimal.scale
        out = (mean[0].decimal.precision, mean[0].decimal.scale)

        def mean_of(parts: Column) -> Column:
            value = decimal_quotient(
                parts["total"], parts["count"], (min(38, p + 10), s), (20, 0), out, True, call.warnings
            )
            # DataFusion's engine stops where the sum or the mean is beyond its decimal; Spark's is null there
            return _fail_if(value.isNull() & (parts["count"] > 0), f"avg: {BEYOND_38_DIGITS}", value)

        # the quotient uses each several times: one copy of each, and of the argument in each
        return once(F.struct(call.over(total).alias("total"), call.over(count).alias("count")), mean_of)
    if _kind(arg) == "decimal" and _kind(call.output_type) in ("fp32", "fp64"):
        # a mean of decimals the plan types as a float (DuckDB's): the exact sum over the count, in
        # floating point, not Spark's decimal mean (rounded to its scale) made a float afterwards
        return call.over(total).cast("double") / call.over(count)
    if call.distinct:
        return call.over(total) / call.over(count)
    return F.avg(x)


def _product(call: Call, args: list) -> Column:
    """The product of the values, a float (Spark's ``product``, which its SQL does not name)."""
    if call.distinct:
        raise Unsupported("product(DISTINCT ...) is not supported on Spark")
    return F.product(_one(args).cast("double"))


def _any_value(call: Call, args: list) -> Column:
    ignore = _option(call, "ignore_nulls", ("TRUE", "FALSE"), "TRUE") == "TRUE"
    return F.any_value(_one(args), F.lit(ignore))


def string_agg_separator(call: Call, vals: list[Column]) -> Column:
    """``string_agg``'s separator, refused unless it is a constant: Spark's ``listagg`` takes one only,
    and DataFusion's engine refuses another (a column would be read from one row of each group)."""
    if len(vals) < 2:
        return F.lit(",")
    if len(call.constants) < 2 or call.constants[1] is NOT_CONSTANT:
        raise Unsupported("string_agg with a separator that is not a literal: DataFusion and Spark take a literal only")
    return vals[1]


def _string_agg(call: Call, args: list) -> Column:
    vals = _values(args)
    sep = string_agg_separator(call, vals)
    if call.distinct:  # in no order the plan can ask for: sorted, so that a run gives the same text each time
        if len(call.constants) > 1 and not isinstance(call.constants[1], str):
            raise Unsupported("string_agg(DISTINCT ...) with a separator that is not text is not supported on Spark")
        call.warnings.append("string_agg(DISTINCT ...): the plan asks for no order of the values; the run sorts them")
        return joined(F.array_sort(F.collect_set(vals[0])), sep)
    return F.call_function("listagg", vals[0], sep)


def joined(values: Column, separator: Column) -> Column:
    """``string_agg``'s text of a list of values: its values that are not null joined by ``separator``,
    null where there is none (Spark's ``array_join`` gives '')."""
    return F.when(F.exists(values, lambda v: v.isNotNull()), F.call_function("array_join", values, separator))


def listed(call: Call, value: Column, condition: Column | None = None) -> Column:
    """The values of the rows (those that pass ``condition``, a measure's filter), nulls among them, as
    a list (Spark's ``collect_list`` leaves nulls out)."""
    element = F.struct(value.alias("v"))
    collected = F.collect_list(element if condition is None else F.when(condition, element))
    return F.transform(call.over(collected), lambda p: p["v"])


def array_agg_of(call: Call, values: Column, ordered: bool = False) -> Column:
    """DataFusion's ``array_agg`` from its ``values`` (a list, nulls kept; ``ordered``: in the order the
    call asks for): null over no rows; distinct values each where it first is, or sorted where the call
    asks for no order."""
    if call.distinct and ordered:
        values = F.array_distinct(values)
    elif call.distinct:
        call.warnings.append("array_agg(DISTINCT ...): the plan asks for no order of the values; the run sorts them")
        values = F.array_sort(F.array_distinct(values))
    return F.when(F.size(values) == 0, F.lit(None)).otherwise(values)


def _array_agg(call: Call, args: list) -> Column:
    return array_agg_of(call, listed(call, _one(args)))


def percentile(call: Call, value: Column, descending: bool = False) -> Column:
    """DataFusion's ``percentile_cont(x, fraction)`` (WITHIN GROUP (ORDER BY x [DESC])), interpolated
    between the values as Spark's ``percentile`` is; its ``approx_percentile_cont`` and ``approx_median``
    (estimates) as Spark's estimate, said."""
    name = base_name(call.name)
    fraction = 0.5 if name == "approx_median" else call.constants[1] if len(call.constants) > 1 else None
    if not isinstance(fraction, (int, float)) or not 0 <= fraction <= 1:
        raise Unsupported(f"{name}: the fraction is taken only as a literal from 0 to 1")
    fraction = 1 - fraction if descending else fraction
    if call.distinct and name != "percentile_cont":
        raise Unsupported(f"{name}(DISTINCT ...) is not supported on Spark")
    if call.distinct:  # interpolated between the distinct values, sorted, as Spark's percentile interpolates
        ordered = F.array_sort(call.over(F.collect_set(value.cast("double"))))
        at = (F.size(ordered) - 1) * F.lit(float(fraction))
        low = F.element_at(ordered, (F.floor(at) + 1).cast("int"))
        high = F.element_at(ordered, (F.ceil(at) + 1).cast("int"))
        return F.when(F.size(ordered) > 0, low + (high - low) * (at - F.floor(at)))
    if name == "percentile_cont":
        return call.over(F.percentile(value.cast("double"), F.lit(float(fraction))))
    call.warnings.append(
        f"{name} is an estimate: Spark's (Greenwald-Khanna, one of the values) may differ from DataFusion's "
        "(a t-digest, interpolated)"
    )
    return call.over(F.percentile_approx(value.cast("double"), F.lit(float(fraction)), F.lit(10_000)))


#: The relative error asked of Spark's distinct-count estimate: a HyperLogLog++ of 2^14 registers, as many
#: as DataFusion's ``approx_distinct`` keeps (Spark's own default keeps 2^9, a few percent off).
DISTINCT_ESTIMATE_RSD = 0.01


def _approx_count_distinct(call: Call, args: list) -> Column:
    """``approx_count_distinct`` / DataFusion's ``approx_distinct``: Spark's HyperLogLog++ estimate, said."""
    call.warnings.append(
        f"{base_name(call.name)} is an estimate: Spark's (HyperLogLog++ of 2^14 registers, about 1% off) may "
        "differ from another engine's"
    )
    return F.approx_count_distinct(_one(args), DISTINCT_ESTIMATE_RSD)


def _median(call: Call, args: list) -> Column:
    """``median(x)``. Of decimals, DataFusion's is one of them: the middle value, or the two middle values'
    mean in their own scale, cut toward zero (1.01 and 1.04 give 1.02); Spark's is a double (1.025)."""
    if call.distinct:
        raise Unsupported("median(DISTINCT ...) is not supported on Spark")
    x = _one(args)
    t = _arg_type(call)
    if _kind(t) != "decimal" and call.window is None:
        return F.median(x)
    # over a window, from its values: Spark's median takes no window frame
    ordered = F.array_sort(call.over(F.collect_list(x)))
    n = F.size(ordered)
    low = F.element_at(ordered, F.floor((n + 1) / 2).cast("int"))
    high = F.element_at(ordered, (F.floor(n / 2) + 1).cast("int"))
    if _kind(t) != "decimal":
        return F.when(n > 0, (low.cast("double") + high.cast("double")) / 2)
    precision, scale = t.decimal.precision, t.decimal.scale
    declared = f"decimal({precision},{scale})"
    if scale > MEDIAN_DIGITS:
        raise Unsupported(
            f"median of a decimal of {scale} places: Spark keeps the mean of two middle values exact to "
            f"{MEDIAN_DIGITS} digits"
        )
    # (low + high) * 0.5 is exact in Spark's decimals only of operands of at most 35 digits (its results
    # reserve digits at 38, and cut the last places); a middle value of more stops the run
    narrow = f"decimal({min(precision, MEDIAN_DIGITS)},{scale})"
    lo, hi = low.cast(narrow), high.cast(narrow)
    half = (lo + hi) * F.lit(decimal.Decimal("0.5")).cast("decimal(1,1)")  # Spark Connect types it decimal(10,1)
    mean = F.when(half >= 0, F.floor(half, scale)).otherwise(F.ceil(half, scale))  # cut toward zero
    beyond = lo.isNull() | hi.isNull()
    even = _fail_if(
        beyond, f"median: a middle value of more than {MEDIAN_DIGITS} digits, beyond Spark's exact means", mean
    )
    return F.when(n % 2 == 1, low).when(n > 0, even.cast(declared))


#: The most digits of a decimal whose two middle values' mean Spark computes exactly.
MEDIAN_DIGITS = 35


def _grouping(call: Call, args: list) -> Column:
    # A constant of each grouping set: the aggregate relation computes it (executor.translate.aggregation.aggregate).
    raise Unsupported("GROUPING() is a measure of an aggregate with grouping sets; it has no meaning elsewhere")


AGGREGATE: dict[str, Builder] = {
    "grouping": _grouping,
    "sum": _sum,
    "sum0": lambda call, args: F.coalesce(_summed(call, args), F.lit(0)),
    "avg": _avg,
    "min": _extreme("min"),
    "max": _extreme("max"),
    "count": _count,
    "any_value": _any_value,
    "first": _agg("first"),
    "last": _agg("last"),
    "std_dev": _std_var("stddev_samp", "stddev_pop"),
    "variance": _std_var("var_samp", "var_pop"),
    "stddev_pop": _std_var("stddev_pop", "stddev_pop"),  # DataFusion's names for the population forms
    "var_pop": _std_var("var_pop", "var_pop"),
    "approx_count_distinct": _approx_count_distinct,
    "bool_and": _agg("bool_and"),
    "bool_or": _agg("bool_or"),
    "median": _median,
    "mode": _agg("mode"),
    "product": _product,
    "string_agg": _string_agg,
    "list_agg": _agg("collect_list", distinct_ok=False),
    "array_agg": _array_agg,
    "percentile_cont": lambda call, args: percentile(call, _one(args)),
    "approx_percentile_cont": lambda call, args: percentile(call, _one(args)),
    "approx_median": lambda call, args: percentile(call, _one(args)),
    "bit_and": _agg("bit_and"),
    "bit_or": _agg("bit_or"),
    "bit_xor": _agg("bit_xor", distinct_ok=False),  # DISTINCT changes an exclusive or
    "corr": _agg("corr", distinct_ok=False),
    "covar_samp": _agg("covar_samp", distinct_ok=False),
    "covar_pop": _agg("covar_pop", distinct_ok=False),
    # DataFusion's linear regressions of y on x, each Spark's of the same name and argument order
    **{
        f"regr_{what}": _agg(f"regr_{what}", distinct_ok=False, doubles=what != "count")
        for what in ("slope", "intercept", "count", "avgx", "avgy", "sxx", "syy", "sxy")
    },
    "regr_r2": _regr_r2,
}
