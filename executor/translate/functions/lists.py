"""List functions (``functions_list.yaml``, and DataFusion's array functions and ``named_struct``);
lambda arguments arrive as Python callables ``Column -> Column``."""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as S

from viz.types import is_nullable

from ...errors import Unsupported
from ...spark.jvm import sql_type
from .. import records
from ._common import (
    INT_MAX,
    INT_RANGE,
    NOT_CONSTANT,
    Builder,
    Call,
    _arg_kind,
    _arg_type,
    _fail_if,
    _kind,
    _option,
    _spark_type,
    _values,
    base_name,
    held_int,
    holds_struct,
    list_element,
    literal_pattern,
    untyped_null,
)


def _cardinality(call: Call, args: list) -> Column:
    """``cardinality(list)``: a list's elements, a map's entries; null for a null list. DataFusion's counts a
    list of lists through to its innermost level (a null inner list holds none)."""
    x = _values(args)[0]
    depth, _ = _list_depth(_arg_type(call) if call.dialect == "datafusion" else None)
    if depth > 1:
        call.warnings.append(
            "cardinality of a list of lists counts its innermost elements, as DataFusion's engine does (the "
            "spec's counts the outer list's)"
        )
    elements = x
    for _ in range(depth - 1):
        elements = F.flatten(F.filter(elements, lambda y: y.isNotNull()))  # Spark's flatten of a null is null
    return F.when(x.isNull(), F.lit(None)).otherwise(F.size(elements))


def _sorted(x: Column, mode: str) -> Column:
    """``x`` sorted as ``mode`` says (``ASC_NULLS_FIRST`` ...)."""
    sorts = {
        "ASC_NULLS_FIRST": lambda: F.sort_array(x, asc=True),
        "ASC_NULLS_LAST": lambda: F.array_sort(x),
        "DESC_NULLS_FIRST": lambda: F.reverse(F.array_sort(x)),
        "DESC_NULLS_LAST": lambda: F.sort_array(x, asc=False),
    }
    return sorts[mode]()


def _sort_list(call: Call, args: list) -> Column:
    mode = _option(
        call,
        "direction",
        ("ASC_NULLS_FIRST", "ASC_NULLS_LAST", "DESC_NULLS_FIRST", "DESC_NULLS_LAST"),
        "ASC_NULLS_LAST",
    )
    return _sorted(_values(args)[0], mode)


def _array_sort(call: Call, args: list) -> Column:
    """DataFusion's ``array_sort(list[, 'ASC' | 'DESC'[, 'NULLS FIRST' | 'NULLS LAST']])``, either word in
    any case: nulls first in both directions unless told otherwise."""
    vals = _values(args)
    words = call.constants[1 : len(vals)]
    if not all(isinstance(w, str) for w in words):
        raise Unsupported("array_sort: the direction and the place of nulls are taken only as literals")
    given = [w.upper() for w in words]
    direction = given[0] if given else "ASC"
    nulls = given[1] if len(given) > 1 else "NULLS FIRST"
    if direction not in ("ASC", "DESC") or nulls not in ("NULLS FIRST", "NULLS LAST"):
        raise Unsupported(f"array_sort: {', '.join(map(repr, words))} is not a direction and a place of nulls")
    # DataFusion puts nulls inside the elements where it puts null elements; Spark's sort puts them first
    if (direction, nulls) in (("ASC", "NULLS LAST"), ("DESC", "NULLS FIRST")) and _may_hold_nulls(call):
        raise Unsupported(
            f"array_sort {direction} {nulls} of lists or records that may hold nulls: DataFusion orders the nulls "
            "inside each element as it orders null elements, and Spark's sort puts them first"
        )
    return _sorted(vals[0], f"{direction}_{nulls.replace(' ', '_')}")


def _may_hold_nulls(call: Call) -> bool:
    """Whether the call's first list's elements are lists or records with members that may be null."""
    element = list_element(_arg_type(call))
    kind = _kind(element)
    if kind == "list":
        return is_nullable(element.list.type) is not False
    if kind == "struct":
        return any(is_nullable(m) is not False for m in element.struct.types)
    return False


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


Match = Callable[[Column, Column], Column]


def _matcher(call: Call) -> Match:
    """How DataFusion's element-finding functions (array_position, array_remove, array_replace, ...) match
    an element of the call's first list: a null matches a null, NaN matches NaN, and -0.0 does not match
    0.0 (Spark's equality, which finds 0.0 for -0.0, is right for lists of other elements). An integer
    looked for in a list of floats is the float it is cast to, and the node says so."""
    kind = _kind(list_element(_arg_type(call)))
    if kind not in ("fp32", "fp64"):
        return lambda x, v: x.eqNullSafe(v)
    floating = "float" if kind == "fp32" else "double"
    other = _arg_type(call, 1)
    other_kind = _kind(list_element(other)) if _kind(other) == "list" else _kind(other)
    if other_kind in INT_RANGE:
        call.warnings.append(
            f"{base_name(call.name)}: an {other_kind} it looks for is matched as an {kind}, the type of the list's "
            "elements, as DataFusion's engine casts it"
        )

    def match(x: Column, v: Column) -> Column:
        # equal zeros told apart by their text, "-0.0" or "0.0" (Spark's own functions mostly drop the sign),
        # the value as the list's element first (an integer 0 is the 0.0 DataFusion casts it to)
        same_text = x.cast("string") == v.cast(floating).cast("string")
        return x.eqNullSafe(v) & (F.coalesce(x != 0, F.lit(True)) | same_text)

    return match


def _array_position(call: Call, args: list) -> Column:
    """DataFusion's ``array_position(list, element[, start])``: the 1-based position of the first element
    matching ``element`` (:func:`_matcher`; a null finds a null) at ``start`` or after, null when none;
    a start below 1 or past one after the end stops, as DataFusion's engine does."""
    vals = _values(args)
    lst, needle = vals[:2]
    start = vals[2] if len(vals) > 2 else None
    found = _positions(lst, needle, _matcher(call), start)
    first = F.when(F.size(found) > 0, found[0])
    if len(vals) < 3:
        return first
    out_of_bounds = lst.isNotNull() & (start.isNull() | (start < 1) | (start > F.size(lst) + 1))
    return _fail_if(out_of_bounds, "array_position: start_from out of bounds", first)


def _array_has(call: Call, args: list) -> Column:
    """DataFusion's ``array_has(list, element)``: false where the list holds nulls but not the element
    (Spark's ``array_contains`` gives null), null for a null list or element. Not a per-element test: an
    element that is a subquery's value cannot be used inside one (Spark refuses subqueries in lambdas)."""
    haystack, needle = _values(args)[:2]
    if untyped_null(call, 1, needle):  # which Spark's array_contains refuses
        return F.lit(None).cast("boolean")
    found = F.coalesce(F.array_contains(haystack, needle), F.lit(False))
    return F.when(haystack.isNull() | needle.isNull(), F.lit(None)).otherwise(found)


def _array_concat(call: Call, args: list) -> Column:
    """DataFusion's ``array_concat(list, ...)``: a null list is left out (Spark's ``concat`` gives null),
    and only lists that are all null give null."""
    lists = _values(args)
    depths = [_list_depth(t)[0] for t in call.arg_types[: len(lists)]]
    deepest = max(depths, default=0)
    if len(set(depths)) > 1 and min(depths) == deepest - 1:
        # a list one level shallower is one element of the deeper lists (a null one too), as DataFusion takes it
        lists = [F.array(v) if d < deepest else v for v, d in zip(lists, depths)]
    some = F.coalesce(*lists)
    empty = _emptied(some)
    return F.when(some.isNull(), F.lit(None)).otherwise(F.concat(*[F.coalesce(v, empty) for v in lists]))


def _as_result_lists(call: Call, args: list) -> list[Column]:
    """The two lists of DataFusion's ``array_union``/``array_intersect``/``array_except`` in the call's
    declared list type, where theirs differ (decimals of two scales): DataFusion's engine coerces them
    so, and Spark's functions take two lists of one type. Lists of records are left as they are (a cast
    to a Substrait struct type would rename their members)."""
    lists = _values(args)[:2]
    target = _spark_type(call.output_type)
    if not isinstance(target, S.ArrayType) or holds_struct(target):
        return lists
    own = [_spark_type(t) for t in call.arg_types[:2]]
    if all(t is not None and t.simpleString() == target.simpleString() for t in own):
        return lists
    wanted = target.simpleString()
    call.warnings.append(
        f"{base_name(call.name)}: its lists ({', '.join(t.simpleString() if t else 'unknown' for t in own)}) are "
        f"taken as {wanted}, the result's declared type, as DataFusion's engine coerces them"
    )
    return [v.cast(sql_type(target)) for v in lists]


def _named_struct(call: Call, args: list) -> Column:
    """DataFusion's ``named_struct('name', value, ...)``; the names are literals."""
    vals = _values(args)
    names = call.constants[0::2]
    if len(vals) % 2 or not all(isinstance(n, str) for n in names) or NOT_CONSTANT in names:
        raise Unsupported("named_struct takes pairs of a literal name and a value")
    return F.struct(*[v.alias(n) for n, v in zip(names, vals[1::2])])


def _array_element(call: Call, args: list) -> Column:
    """DataFusion's ``array_element(list, i)``: 1-based, from the end where ``i`` is negative, null at 0
    and past either end (Spark's ``element_at`` stops at 0)."""
    lst, index = _values(args)[:2]
    element = F.when(index == 0, F.lit(None)).otherwise(F.call_function("try_element_at", lst, index.cast("int")))
    return _fail_if(F.abs(index.cast("decimal(20,0)")) > INT_MAX, "array_element: invalid index", element)


def _without_nulls(lst: Column) -> Column:
    return F.filter(lst, lambda x: x.isNotNull())


def _flatten(call: Call, args: list) -> Column:
    """DataFusion's ``flatten(list of lists)``: one level, a null inner list left out (Spark's ``flatten``
    gives null); a list of values is as it is (Spark's takes only lists of lists)."""
    lst = _values(args)[0]
    if _list_depth(_arg_type(call))[0] == 1:
        return lst
    return F.flatten(_without_nulls(lst))


def _list_depth(t) -> tuple[int, str | None]:
    """How many lists deep a Substrait type is, and the kind of what is innermost."""
    depth = 0
    while t is not None and t.WhichOneof("kind") == "list":
        depth, t = depth + 1, t.list.type
    return depth, None if t is None else t.WhichOneof("kind")


#: Kinds whose text Spark's cast writes as DataFusion writes it (a float's and a time's differ).
_AS_DATAFUSION_WRITES = frozenset({"i8", "i16", "i32", "i64", "string", "varchar", "fixed_char", "bool", "date"})


def _array_to_string(call: Call, args: list) -> Column:
    """DataFusion's ``array_to_string(list, separator[, null_text])``: the values' text joined, nulls left
    out (or written as ``null_text``), a list of lists taken through every level."""
    vals = _values(args)
    lst, sep = vals[:2]
    depth, inner = _list_depth(_arg_type(call))
    if inner not in _AS_DATAFUSION_WRITES:
        raise Unsupported(
            f"array_to_string of a list of {inner or 'values of unknown type'}: only integers, "
            "text, booleans and dates are written as DataFusion writes them"
        )

    def joined(lst: Column, null_text: Column | None) -> Column:
        # a null list inside is left out, or with a null text written as one null value
        for _ in range(depth - 1):
            lst = F.flatten(_without_nulls(lst) if null_text is None else F.transform(lst, _one_null_if_null))
        texts = F.transform(lst, lambda x: x.cast("string"))
        return F.call_function("array_join", texts, sep, *([] if null_text is None else [null_text]))

    if len(vals) < 3:
        return joined(lst, None)
    return F.when(vals[2].isNull(), joined(lst, None)).otherwise(joined(lst, vals[2]))  # a null one is none


def _one_null_if_null(inner: Column) -> Column:
    """A list, or for a null list a list of one null of its element type."""
    return F.when(inner.isNull(), F.transform(F.array(F.lit(1)), lambda _: F.element_at(inner, 1))).otherwise(inner)


def _string_to_array(call: Call, args: list) -> Column:
    """DataFusion's ``string_to_array(text, delimiter[, null_text])``: split at each delimiter (a text, not a
    pattern); a null delimiter splits into characters, an empty one gives the whole text; the empty text
    gives an empty list; a piece equal to ``null_text`` is null."""
    vals = _values(args)
    s, sep = vals[:2]
    pieces = (
        F.when(s == "", F.array().cast("array<string>"))
        .when(sep.isNull(), F.call_function("split", s, F.lit("(?s)(?<=.)(?!\\z)"), F.lit(-1)))
        .when(sep == "", F.array(s))
        .otherwise(F.call_function("split", s, literal_pattern(sep), F.lit(-1)))
    )
    if len(vals) > 2:
        pieces = F.transform(pieces, lambda p: F.when(p == vals[2], F.lit(None)).otherwise(p))
    return pieces


def _emptied(lst: Column) -> Column:
    """An empty list of ``lst``'s type."""
    return F.filter(lst, lambda x: F.lit(False))


def _empty_like(value: Column) -> Column:
    """An empty list of ``value``'s type."""
    return _emptied(F.array(value))


def _array_append(call: Call, args: list) -> Column:
    """DataFusion's ``array_append(list, value)``: to a null list too (Spark's gives null)."""
    lst, value = _values(args)[:2]
    return F.array_append(F.coalesce(lst, _empty_like(value)), value)


def _array_prepend(call: Call, args: list) -> Column:
    """DataFusion's ``array_prepend(value, list)``: to a null list too (Spark's gives null)."""
    value, lst = _values(args)[:2]
    return F.array_prepend(F.coalesce(lst, _empty_like(value)), value)


def _array_remove(call: Call, args: list) -> Column:
    """DataFusion's ``array_remove(list, value)``: the first element matching ``value`` (:func:`_matcher`)
    left out (Spark's leaves out every one); null for a null value."""
    lst, value = _values(args)[:2]
    hit = _among_first(lst, value, F.lit(1), _matcher(call))
    return F.when(value.isNull(), F.lit(None)).otherwise(F.filter(lst, lambda x, i: ~hit(x, i)))


def _array_repeat(call: Call, args: list) -> Column:
    """DataFusion's ``array_repeat(value, count)``: a count below 1 gives an empty list (one beyond an int
    is held to it: Spark's cast would wrap it)."""
    value, count = _values(args)[:2]
    return F.array_repeat(value, held_int(count))


def _get_field(call: Call, args: list) -> Column:
    """DataFusion's ``get_field(struct, 'name', ...)``: the member of that name (a literal), and of that
    the member of the next name (its optimizer joins nested reads into one path)."""
    value = _values(args)[0]
    names = call.constants[1:]
    if not names or not all(isinstance(n, str) for n in names):
        raise Unsupported("get_field: the members' names are taken only as literals")
    kinds = call.spark_types([value]) if call.spark_types is not None else None
    kind = kinds[0] if kinds else None
    for name in names:
        if not isinstance(kind, S.StructType):
            value, kind = value.getField(name), None
            continue
        value = records.member(value, kind, name)
        kind = next((f.dataType for f in kind.fields if f.name == name), None)
    return value


def _array_extreme(call: Call, args: list, extreme: Callable[[Column], Column]) -> Column:
    """DataFusion's ``array_max`` / ``array_min``: of lists, their null members ranked above every value
    (as its ``max`` and ``min`` rank them; Spark ranks them lowest); of records, member by member with a
    null member on either side taken as equal, the first of equals kept (:func:`_record_extreme`)."""
    lst = _values(args)[0]
    kinds = call.spark_types([lst]) if call.spark_types is not None else None
    element = kinds[0].elementType if kinds and isinstance(kinds[0], S.ArrayType) else None
    if isinstance(element, S.StructType):
        return _record_extreme(lst, element, largest=extreme is F.array_max)
    if not isinstance(element, S.ArrayType):
        return extreme(lst)
    keyed = F.transform(
        lst,
        lambda x: F.when(x.isNull(), F.lit(None)).otherwise(
            F.struct(records.nulls_high(x, element).alias("key"), x.alias("value"))
        ),
    )
    return extreme(keyed)["value"]


def _record_extreme(lst: Column, record: S.StructType, largest: bool) -> Column:
    """The largest (or smallest) record of ``lst`` as DataFusion's ``array_max`` finds it: one replaces the
    one found so far only where it compares beyond it, members compared in turn and a null member on
    either side passed over as equal; null records left out."""

    def beyond(x: Column, found: Column) -> Column:
        out = F.lit(False)
        for i in reversed(range(len(record.fields))):
            a, b = records.member_at(x, record, i), records.member_at(found, record, i)
            out = (
                F.when(a.isNull() | b.isNull(), out)
                .when(a > b, F.lit(largest))
                .when(a < b, F.lit(not largest))
                .otherwise(out)
            )
        return out

    def step(found: Column, x: Column) -> Column:
        return F.when(x.isNull(), found).when(found.isNull() | beyond(x, found), x).otherwise(found)

    return F.aggregate(lst, F.lit(None).cast(record), step)


def _array_slice(call: Call, args: list) -> Column:
    """DataFusion's ``array_slice(list, begin, end)``: elements ``begin`` to ``end``, both 1-based and kept,
    counted from the end where negative; a begin of 0 is the first; nothing where the end comes first. A
    stride is taken only as 1."""
    vals = _values(args)
    lst, begin, end = vals[:3]
    if len(vals) > 3 and (len(call.constants) < 4 or call.constants[3] != 1):
        raise Unsupported("array_slice: a stride other than the literal 1 is not mapped")
    size = F.size(lst)
    first = F.greatest(F.when(begin < 0, size + begin + 1).otherwise(begin), F.lit(1))
    last = F.least(F.when(end < 0, size + end + 1).otherwise(end), size)
    sliced = F.slice(lst, first.cast("int"), F.greatest(last - first + 1, F.lit(0)).cast("int"))
    return F.when(lst.isNull() | begin.isNull() | end.isNull(), F.lit(None)).otherwise(sliced)


def _shares(a: Column, b: Column, match: Match) -> Column:
    """Whether lists ``a`` and ``b`` share an element (as ``match`` matches them)."""
    return F.exists(a, lambda x: F.exists(b, lambda y: match(x, y)))


def _array_has_any(call: Call, args: list) -> Column:
    """DataFusion's ``array_has_any`` and ``arrays_overlap``: whether the lists share an element, a null
    equal to a null (Spark's ``arrays_overlap`` gives null where only nulls could be shared); null for a
    null list."""
    a, b = _values(args)[:2]
    match = _matcher(call)
    return F.when(a.isNull() | b.isNull(), F.lit(None)).otherwise(_shares(a, b, match))


def _array_has_all(call: Call, args: list) -> Column:
    """DataFusion's ``array_has_all(list, sub)``: whether every element of ``sub`` is in ``list``, a null
    equal to a null; null for a null list."""
    a, b = _values(args)[:2]
    match = _matcher(call)
    held = F.forall(b, lambda y: F.exists(a, lambda x: match(x, y)))
    return F.when(a.isNull() | b.isNull(), F.lit(None)).otherwise(held)


def _array_positions(call: Call, args: list) -> Column:
    """DataFusion's ``array_positions(list, value)``: the 1-based positions of ``value`` (a null finds
    the nulls)."""
    lst, value = _values(args)[:2]
    return _positions(lst, value, _matcher(call))


def _positions(lst: Column, value: Column, match: Match, start: Column | None = None) -> Column:
    """The 1-based positions (longs) of ``lst``'s elements matching ``value``, from ``start`` on if given."""

    def at(x: Column, i: Column) -> Column:
        hit = match(x, value) if start is None else (i + 1 >= start) & match(x, value)
        return F.when(hit, (i + 1).cast("long"))

    return F.filter(F.transform(lst, at), lambda p: p.isNotNull())


def _among_first(lst: Column, old: Column, count: Column | None, match: Match) -> Match:
    """Whether element ``x`` at index ``i`` of ``lst`` is one of its first ``count`` elements matching
    ``old`` (any of them when ``count`` is None)."""

    def hit(x: Column, i: Column) -> Column:
        equal = match(x, old)
        if count is None:
            return equal
        before = F.size(F.filter(F.slice(lst, F.lit(1), i), lambda y: match(y, old)))
        return equal & (before < count)

    return hit


def _replaced(call: Call, lst: Column, old: Column, new: Column, count: Column | None) -> Column:
    """``lst`` with its first ``count`` elements matching ``old`` (:func:`_matcher`; every one when
    ``count`` is None) replaced by ``new``."""
    hit = _among_first(lst, old, count, _matcher(call))
    return F.transform(lst, lambda x, i: F.when(hit(x, i), new).otherwise(x))


def _array_remove_n(call: Call, args: list) -> Column:
    """DataFusion's ``array_remove_all(list, value)`` and ``array_remove_n(list, value, n)``: every
    element equal to ``value``, or the first ``n``, left out; null for a null value or ``n``."""
    vals = _values(args)
    lst, value = vals[:2]
    count = vals[2] if len(vals) > 2 else None
    hit = _among_first(lst, value, count, _matcher(call))
    missing = value.isNull() if count is None else value.isNull() | count.isNull()
    return F.when(missing, F.lit(None)).otherwise(F.filter(lst, lambda x, i: ~hit(x, i)))


def _arrays_zip(call: Call, args: list) -> Column:
    """DataFusion's ``arrays_zip(list, ...)``: a list of structs whose members ``1``, ``2``, ... are the
    lists' elements at each place, null past a shorter list's end."""
    lists = _values(args)
    longest = F.greatest(*[F.coalesce(F.size(x), F.lit(0)) for x in lists]) if len(lists) > 1 else F.size(lists[0])
    places = F.sequence(F.lit(1), F.greatest(longest, F.lit(1)))  # one place at least: sequence(1, 0) counts down
    zipped = F.transform(
        places,
        lambda i: F.struct(*[F.call_function("try_element_at", x, i).alias(str(k)) for k, x in enumerate(lists, 1)]),
    )
    return F.slice(zipped, F.lit(1), F.greatest(longest, F.lit(0)))


def _array_replace(call: Call, args: list) -> Column:
    """DataFusion's ``array_replace(list, old, new)``: the first element equal to ``old`` replaced."""
    lst, old, new = _values(args)[:3]
    return _replaced(call, lst, old, new, F.lit(1))


def _array_replace_n(call: Call, args: list) -> Column:
    """DataFusion's ``array_replace_n(list, old, new, n)``: the first ``n`` elements equal to ``old``
    replaced (none for ``n`` below 1); null for a null ``n``."""
    lst, old, new, n = _values(args)[:4]
    return F.when(n.isNull(), F.lit(None)).otherwise(_replaced(call, lst, old, new, n))


def _array_replace_all(call: Call, args: list) -> Column:
    """DataFusion's ``array_replace_all(list, old, new)``: every element equal to ``old`` replaced."""
    lst, old, new = _values(args)[:3]
    return _replaced(call, lst, old, new, None)


def _all_but_one(first: int) -> Builder:
    """DataFusion's ``array_pop_front`` (``first`` 2) and ``array_pop_back`` (``first`` 1): the list without
    its first or its last element."""

    def build(call: Call, args: list) -> Column:
        lst = _values(args)[0]
        return F.slice(lst, F.lit(first), F.greatest(F.size(lst) - 1, F.lit(0)))

    return build


def _array_length(call: Call, args: list) -> Column:
    """DataFusion's ``array_length(list)``: how many elements, null for a null list (Spark's size: -1).
    A dimension other than the literal 1 is not mapped."""
    vals = _values(args)
    if len(vals) > 1 and (len(call.constants) < 2 or call.constants[1] != 1):
        raise Unsupported("array_length: a dimension other than the literal 1 is not mapped")
    lst = vals[0]
    return F.when(lst.isNotNull(), F.size(lst).cast("long"))


def _array_ndims(call: Call, args: list) -> Column:
    """DataFusion's ``array_ndims(list)``: how many lists deep its type is; null for a null list."""
    depth, _ = _list_depth(_arg_type(call))
    if not depth:
        raise Unsupported("array_ndims of a value whose type is not known to be a list")
    return F.when(_values(args)[0].isNotNull(), F.lit(depth).cast("long"))


def _array_any_value(call: Call, args: list) -> Column:
    """DataFusion's ``array_any_value(list)``: its first element that is not null."""
    return F.call_function("try_element_at", _without_nulls(_values(args)[0]), F.lit(1))


def _array_resize(call: Call, args: list) -> Column:
    """DataFusion's ``array_resize(list, size[, value])``: cut to ``size`` elements, or filled up to it with
    ``value`` (null when not given); a negative size is an error."""
    vals = _values(args)
    lst, size = vals[:2]
    fill = vals[2] if len(vals) > 2 else F.lit(None)
    n = held_int(size)
    resized = F.transform(
        F.array_repeat(F.lit(0), n),
        lambda _, i: F.when(i < F.size(lst), F.call_function("try_element_at", lst, i + 1)).otherwise(fill),
    )
    made = F.when(lst.isNull() | size.isNull(), F.lit(None)).otherwise(resized)
    return _fail_if(size < 0, "array_resize: the size must not be negative", made)


def _series(inclusive: bool) -> Builder:
    """DataFusion's ``range`` (``inclusive`` False) and ``generate_series`` of whole numbers: ``start`` (0
    when only the end is given), then every ``step`` (1 when not given) before ``stop`` or up to it; empty
    where the step points away from ``stop``; null where an argument is; a step of 0 is an error."""
    name = "generate_series" if inclusive else "range"

    def build(call: Call, args: list) -> Column:
        vals = _values(args)
        kinds = [_arg_kind(call, i) for i in range(len(vals))]
        if not all(k in INT_RANGE for k in kinds):
            raise Unsupported(f"{name} of {', '.join(k or 'unknown' for k in kinds)}: only whole numbers are mapped")
        vals = [v.cast("long") for v in vals]
        one = F.lit(1).cast("long")
        if len(vals) == 1:
            start, stop, step = F.lit(0).cast("long"), vals[0], one
        else:
            start, stop, step = vals[0], vals[1], vals[2] if len(vals) > 2 else one
        # the count in decimals, which hold any span of two longs
        span, by = (stop.cast("decimal(21,0)") - start.cast("decimal(21,0)")), step.cast("decimal(21,0)")
        whole = F.call_function("div", F.abs(span), F.abs(by))
        if inclusive:
            count = whole + 1
        else:
            count = whole + F.when(F.abs(span) % F.abs(by) == 0, 0).otherwise(1)
        away = F.signum(span) * F.signum(by) < 0 if inclusive else F.signum(span) * F.signum(by) <= 0
        last = start + ((F.least(count, F.lit(INT_MAX)) - 1) * by).cast("long")
        return (
            F.when(start.isNull() | stop.isNull() | step.isNull(), F.lit(None))
            .when(step == 0, F.raise_error(F.lit(f"{name}: the step must not be 0")))
            .when(away, F.array().cast("array<bigint>"))
            .otherwise(F.sequence(start, last, step))
        )

    return build


SCALAR: dict[str, Builder] = {
    "cardinality": _cardinality,
    "sort": _sort_list,
    "index_in": _index_in,
    "array_position": _array_position,
    "make_array": lambda call, args: F.array(*_values(args)),
    "array_has": _array_has,
    "array_concat": _array_concat,
    "named_struct": _named_struct,
    "array_element": _array_element,
    "flatten": _flatten,
    "array_to_string": _array_to_string,
    "string_to_array": _string_to_array,
    "array_append": _array_append,
    "array_prepend": _array_prepend,
    "array_remove": _array_remove,
    "array_distinct": lambda call, args: F.array_distinct(_values(args)[0]),
    "array_max": lambda call, args: _array_extreme(call, args, F.array_max),
    "array_min": lambda call, args: _array_extreme(call, args, F.array_min),
    "array_reverse": lambda call, args: F.reverse(_values(args)[0]),
    "array_repeat": _array_repeat,
    # DataFusion's array_empty; Spark's size of a null list is -1
    "empty": lambda call, args: F.when(_values(args)[0].isNotNull(), F.size(_values(args)[0]) == 0),
    "array_slice": _array_slice,
    "array_sort": _array_sort,
    "array_union": lambda call, args: F.array_union(*_as_result_lists(call, args)),
    "array_intersect": lambda call, args: F.array_intersect(*_as_result_lists(call, args)),
    "array_except": lambda call, args: F.array_except(*_as_result_lists(call, args)),
    "array_has_any": _array_has_any,
    "arrays_overlap": _array_has_any,
    "array_has_all": _array_has_all,
    "array_positions": _array_positions,
    "array_replace": _array_replace,
    "array_replace_n": _array_replace_n,
    "array_replace_all": _array_replace_all,
    "array_pop_front": _all_but_one(2),
    "array_pop_back": _all_but_one(1),
    "array_length": _array_length,
    "array_ndims": _array_ndims,
    "array_any_value": _array_any_value,
    "array_resize": _array_resize,
    "array_remove_all": _array_remove_n,
    "array_remove_n": _array_remove_n,
    "arrays_zip": _arrays_zip,
    # DataFusion's maps: Spark's own functions (a duplicate or null key is an error in both)
    "map": lambda call, args: F.map_from_arrays(*_values(args)[:2]),
    "map_keys": lambda call, args: F.map_keys(_values(args)[0]),
    "map_values": lambda call, args: F.map_values(_values(args)[0]),
    "map_entries": lambda call, args: F.map_entries(_values(args)[0]),
    # a list of the key's value, of null where the map has no such key
    "map_extract": lambda call, args: F.array(F.call_function("try_element_at", *_values(args)[:2])),
    "range": _series(inclusive=False),
    "generate_series": _series(inclusive=True),
    "get_field": _get_field,
    # DataFusion names the members of a struct it is not told names for c0, c1, ...
    "struct": lambda call, args: F.struct(*[v.alias(f"c{i}") for i, v in enumerate(_values(args))]),
    "transform": _lambda_fn(lambda lst, fn: F.transform(lst, fn)),
    "filter": _lambda_fn(lambda lst, fn: F.filter(lst, fn)),
    "any_match": _lambda_fn(lambda lst, fn: F.exists(lst, fn)),
    "all_match": _lambda_fn(lambda lst, fn: F.forall(lst, fn)),
}
