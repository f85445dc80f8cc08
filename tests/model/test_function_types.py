"""The extension registry behind derived function types, filled one function name at a time, against
substrait-python's registry of every file built at once (the oracle): the same URNs, the same functions,
and the same overload and output type for the same call.
"""

from __future__ import annotations

import functools

from substrait.type_pb2 import Type

from viz import function_types as F

N, R = Type.NULLABILITY_NULLABLE, Type.NULLABILITY_REQUIRED


@functools.lru_cache(maxsize=1)
def _whole():
    """substrait-python's own registry of every standard YAML, then ours."""
    from substrait.extension_registry import ExtensionRegistry

    reg = ExtensionRegistry(load_default_extensions=True)
    reg.register_extension_dict(F._documents()[-1])
    return reg


def _signatures() -> list[list[Type]]:
    kinds = [
        Type(i64=Type.I64(nullability=N)),
        Type(fp64=Type.FP64(nullability=R)),
        Type(string=Type.String(nullability=R)),
        Type(decimal=Type.Decimal(precision=15, scale=2, nullability=N)),
        Type(bool=Type.Boolean(nullability=N)),
        Type(date=Type.Date(nullability=R)),
    ]
    return [[]] + [[k] for k in kinds] + [[k, k] for k in kinds]


def test_the_lazy_registry_has_every_urn_before_any_function():
    fresh = F._Registry()
    assert fresh.registry.urns() == _whole().urns()
    assert list(fresh.registry.iter_functions()) == []


def test_asked_for_names_resolve_as_in_the_whole_registry():
    whole = _whole()
    names = sorted({name for _, name, _ in whole.iter_functions()})
    assert len(names) > 100
    lazy = F._Registry()
    lazy.having(names[:5])
    assert {n for _, n, _ in lazy.registry.iter_functions()} == set(names[:5])  # only what was asked for
    reg = lazy.having(names)
    assert sorted(map(repr, reg.iter_functions())) == sorted(map(repr, whole.iter_functions()))
    order = F._search_order("")
    for name in names:
        for signature in _signatures():
            assert _found(reg, name, signature, order) == _found(whole, name, signature, order), (name, signature)


def _found(reg, name: str, signature: list[Type], order: list[str]) -> tuple:
    """What ``find_function`` answers (the overload, its file and the output type), or what it raises."""
    try:
        found = reg.find_function(name, signature, order)
    except Exception as exc:  # noqa: BLE001 - the library's own errors (a user-defined type) are compared too
        return ("raises", type(exc).__name__)
    return None if found is None else (repr(found[0]), found[0].urn, found[1].SerializeToString())


def test_derive_asks_the_registry_for_the_name_and_its_alias():
    derived = F.derive("stddev", "", [Type(fp64=Type.FP64(nullability=N))])  # std_dev in the YAMLs
    assert derived.type is not None and "std_dev" in derived.how
    assert {"stddev", "std_dev"} <= F._lazy().names


def test_an_argument_type_with_no_kind_is_unknown_not_an_error():
    """A mutated DuckDB plan (found by tests/model/test_fuzz.py) declares a column's type as ``{}``: the
    registry raised TypeError matching ``gt`` on it; the argument's type is unknown instead."""
    derived = F.derive("gt", "", [Type(), Type(i64=Type.I64(nullability=N))])
    assert derived.type is None and derived.how == "the type of argument 0 is unknown"


def test_producer_overloads_type_datafusions_median_and_nth_value():
    """DataFusion writes median without the standard's precision argument and nth_value with an i64
    offset; its engine (DataFusion 55, checked) types median of an integer as a double, of a decimal as
    that decimal, and nth_value as its value's type."""
    dec = Type(decimal=Type.Decimal(precision=10, scale=2, nullability=N))
    i64 = Type(i64=Type.I64(nullability=Type.NULLABILITY_REQUIRED))
    text = Type(string=Type.String(nullability=Type.NULLABILITY_REQUIRED))
    median_dec = F.derive("median", "", [dec]).type
    assert (median_dec.decimal.precision, median_dec.decimal.scale) == (10, 2)
    assert median_dec.decimal.nullability == N
    assert F.derive("median", "", [i64]).type.WhichOneof("kind") == "fp64"
    nth = F.derive("nth_value", "", [text, i64])
    assert nth.type.WhichOneof("kind") == "string" and nth.type.string.nullability == N
    assert "producer's overload" in nth.how


def test_a_return_declared_nullable_is_nullable_whatever_its_variable_binds():
    """``lag(any1, i32) -> any1?``: the first row of a partition has no row before it, so the column is
    nullable even over a required one (the registry keeps the bound type's nullability)."""
    text = Type(string=Type.String(nullability=R))
    offset = Type(i32=Type.I32(nullability=R))
    assert F.derive("lag", "", [text, offset]).type.string.nullability == N
    assert F.derive("add", "", [offset, offset]).type.i32.nullability == R  # i32 (MIRROR): stays required
