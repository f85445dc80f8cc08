"""List functions (``functions_list.yaml``, and DataFusion's array functions and ``named_struct``);
lambda arguments arrive as Python callables ``Column -> Column``."""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F

from ...errors import Unsupported
from ._common import NOT_CONSTANT, Builder, Call, _option, _values, base_name


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


def _array_has(call: Call, args: list) -> Column:
    """DataFusion's ``array_has(list, element)``: false where the list holds nulls but not the element
    (Spark's ``array_contains`` gives null), null for a null list or element."""
    haystack, needle = _values(args)[:2]
    found = F.exists(haystack, lambda x: x.eqNullSafe(needle))
    return F.when(haystack.isNull() | needle.isNull(), F.lit(None)).otherwise(found)


def _array_concat(call: Call, args: list) -> Column:
    """DataFusion's ``array_concat(list, ...)``: a null list is left out (Spark's ``concat`` gives null),
    and only lists that are all null give null."""
    lists = _values(args)
    some = F.coalesce(*lists)
    empty = F.filter(some, lambda x: F.lit(False))  # an empty list of the lists' type
    return F.when(some.isNull(), F.lit(None)).otherwise(F.concat(*[F.coalesce(v, empty) for v in lists]))


def _named_struct(call: Call, args: list) -> Column:
    """DataFusion's ``named_struct('name', value, ...)``; the names are literals."""
    vals = _values(args)
    names = call.constants[0::2]
    if len(vals) % 2 or not all(isinstance(n, str) for n in names) or NOT_CONSTANT in names:
        raise Unsupported("named_struct takes pairs of a literal name and a value")
    return F.struct(*[v.alias(n) for n, v in zip(names, vals[1::2])])


SCALAR: dict[str, Builder] = {
    "cardinality": _cardinality,
    "sort": _sort_list,
    "index_in": _index_in,
    "array_position": _array_position,
    "make_array": lambda call, args: F.array(*_values(args)),
    "array_has": _array_has,
    "array_concat": _array_concat,
    "named_struct": _named_struct,
    "transform": _lambda_fn(lambda lst, fn: F.transform(lst, fn)),
    "filter": _lambda_fn(lambda lst, fn: F.filter(lst, fn)),
    "any_match": _lambda_fn(lambda lst, fn: F.exists(lst, fn)),
    "all_match": _lambda_fn(lambda lst, fn: F.forall(lst, fn)),
}
