"""List functions (``functions_list.yaml``, and DataFusion's ``array_position``); lambda arguments
arrive as Python callables ``Column -> Column``."""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F

from ...errors import Unsupported
from ._common import Builder, Call, _option, _values, base_name


def _cardinality(call: Call, args: list) -> Column:
    x = _values(args)[0]
    return F.when(x.isNull(), F.lit(None)).otherwise(F.size(x))


def _sort_list(call: Call, args: list) -> Column:
    x = _values(args)[0]
    mode = _option(
        call,
        "direction",
        ("ASC_NULLS_FIRST", "ASC_NULLS_LAST", "DESC_NULLS_FIRST", "DESC_NULLS_LAST"),
        "ASC_NULLS_LAST",
    )
    sorts = {
        "ASC_NULLS_FIRST": lambda: F.sort_array(x, asc=True),
        "ASC_NULLS_LAST": lambda: F.array_sort(x),
        "DESC_NULLS_FIRST": lambda: F.reverse(F.array_sort(x)),
        "DESC_NULLS_LAST": lambda: F.sort_array(x, asc=False),
    }
    return sorts[mode]()


def _lambda_fn(spark_fn: Callable[[Column, Callable], Column]) -> Builder:
    def build(call: Call, args: list) -> Column:
        lst = _values(args)[0]
        fns = [a for a in args if callable(a) and not isinstance(a, (Column, str))]
        if not fns:
            raise Unsupported(f"{base_name(call.name)} needs a lambda argument")
        return spark_fn(lst, fns[0])

    return build


def _index_in(call: Call, args: list) -> Column:
    needle, haystack = _values(args)[:2]
    pos = F.array_position(haystack, needle)
    return F.when(pos == 0, F.lit(None)).otherwise(pos - 1)


def _array_position(call: Call, args: list) -> Column:
    """DataFusion's array_position(list, element): the 1-based position of element, null when absent."""
    haystack, needle = _values(args)[:2]
    pos = F.array_position(haystack, needle)
    return F.when(pos == 0, F.lit(None)).otherwise(pos)


SCALAR: dict[str, Builder] = {
    "cardinality": _cardinality,
    "sort": _sort_list,
    "index_in": _index_in,
    "array_position": _array_position,
    "transform": _lambda_fn(lambda lst, fn: F.transform(lst, fn)),
    "filter": _lambda_fn(lambda lst, fn: F.filter(lst, fn)),
    "any_match": _lambda_fn(lambda lst, fn: F.exists(lst, fn)),
    "all_match": _lambda_fn(lambda lst, fn: F.forall(lst, fn)),
}
