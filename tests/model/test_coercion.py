"""viz.coercion, each dialect's implicit casts: one table of cases, checked as data without an engine,
then case by case against the live engines: DataFusion 55's analyzer (the casts it inserts, read from
its analyzed plan) and Spark's (its analyzed plan, in the executor's session: ANSI off).

A case's expectation is the targets, one per value, ``-`` where the value keeps its type, or None
where the dialect casts nothing (one type already, or no rule: the engine refuses the call); for
arithmetic also the result type, DataFusion's then Spark's.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import pytest
from substrait.type_pb2 import Type

from viz import coercion as C
from viz import types as T

SKIP = "skip"  # the dialect cannot express the case (Spark has no unsigned integers, no u!fp16)
USER_TYPES = {1: "null", 2: "fp16"}  # the anchors DataFusion's producer declares its own types under
TABLE = "coercion_probe"

_N = T.NULLABLE


def _typed(kind: str, **fields) -> Type:
    return Type(**{kind: getattr(Type, _MESSAGES[kind])(nullability=_N, **fields)})


_MESSAGES = {
    "i8": "I8",
    "i16": "I16",
    "i32": "I32",
    "i64": "I64",
    "fp32": "FP32",
    "fp64": "FP64",
    "bool": "Boolean",
    "string": "String",
    "date": "Date",
    "decimal": "Decimal",
    "precision_timestamp": "PrecisionTimestamp",
    "precision_timestamp_tz": "PrecisionTimestampTZ",
    "user_defined": "UserDefined",
}


class Kind(NamedTuple):
    type: Type  # as DataFusion's producer writes it
    arrow: tuple  # the column's Arrow type: a pyarrow type factory and its arguments
    spark: str | None  # Spark SQL's name for it; None: Spark has none
    cast: str = ""  # a typed NULL in SQL, for VALUES rows


KINDS: dict[str, Kind] = {
    "i8": Kind(_typed("i8"), ("int8",), "tinyint"),
    "i16": Kind(_typed("i16"), ("int16",), "smallint"),
    "i32": Kind(_typed("i32"), ("int32",), "int", "CAST(NULL AS INT)"),
    "i64": Kind(_typed("i64"), ("int64",), "bigint", "CAST(NULL AS BIGINT)"),
    "u8": Kind(_typed("i8", type_variation_reference=1), ("uint8",), None),
    "u32": Kind(_typed("i32", type_variation_reference=1), ("uint32",), None),
    "u64": Kind(_typed("i64", type_variation_reference=1), ("uint64",), None),
    "fp16": Kind(_typed("user_defined", type_reference=2), ("float16",), None),
    "fp32": Kind(_typed("fp32"), ("float32",), "float"),
    "fp64": Kind(_typed("fp64"), ("float64",), "double", "CAST(NULL AS DOUBLE)"),
    "d15_2": Kind(
        _typed("decimal", precision=15, scale=2), ("decimal128", 15, 2), "decimal(15,2)", "CAST(NULL AS DECIMAL(15,2))"
    ),
    "d10_0": Kind(_typed("decimal", precision=10, scale=0), ("decimal128", 10, 0), "decimal(10,0)"),
    "d38_10": Kind(_typed("decimal", precision=38, scale=10), ("decimal128", 38, 10), "decimal(38,10)"),
    "d7_7": Kind(_typed("decimal", precision=7, scale=7), ("decimal128", 7, 7), "decimal(7,7)"),
    "string": Kind(_typed("string"), ("string",), "string", "CAST(NULL AS STRING)"),
    "sview": Kind(_typed("string", type_variation_reference=2), ("string_view",), None),
    "date": Kind(_typed("date"), ("date32",), "date", "CAST(NULL AS DATE)"),
    "ts3": Kind(_typed("precision_timestamp", precision=3), ("timestamp", "ms"), None),
    "ts6": Kind(_typed("precision_timestamp", precision=6), ("timestamp", "us"), "timestamp_ntz"),
    "ts9": Kind(_typed("precision_timestamp", precision=9), ("timestamp", "ns"), None),
    "tstz6": Kind(_typed("precision_timestamp_tz", precision=6), ("timestamp", "us", "UTC"), "timestamp"),
    "bool": Kind(_typed("bool"), ("bool_",), "boolean"),
    "null": Kind(_typed("user_defined", type_reference=1), ("null",), "void", "NULL"),
}


class Case(NamedTuple):
    what: str  # a Substrait function name, or unify:<context> (unify:case-no-else: a CASE without ELSE)
    args: tuple[str, ...]  # KINDS names
    datafusion: str | None  # the targets, space-separated, "-" where unchanged; None: no cast
    spark: str | None
    result: tuple[str, str] | None = None  # arithmetic: DataFusion's result type, Spark's

    @property
    def id(self) -> str:
        return f"{self.what}({','.join(self.args)})"


D30_15 = "decimal<30,15>"
P9, P9TZ = "precision_timestamp<9>", "precision_timestamp_tz<9>"

CASES = [
    # -- comparisons
    Case("lte", ("d15_2", "fp64"), f"{D30_15} {D30_15}", "fp64 -"),
    Case("lt", ("d15_2", "fp32"), "decimal<20,7> decimal<20,7>", "fp64 fp64"),
    Case("lt", ("d15_2", "fp16"), "decimal<16,3> decimal<16,3>", SKIP),
    Case("gt", ("d15_2", "i32"), "- decimal<15,2>", "- decimal<15,2>"),
    Case("gte", ("d15_2", "i64"), "decimal<22,2> decimal<22,2>", "decimal<22,2> decimal<22,2>"),
    Case("equal", ("d15_2", "i8"), "- decimal<15,2>", "- decimal<15,2>"),
    Case("lt", ("d15_2", "u64"), "decimal<22,2> decimal<22,2>", SKIP),
    Case("not_equal", ("d15_2", "d10_0"), "- decimal<15,2>", "- decimal<15,2>"),
    Case("lt", ("d15_2", "d38_10"), "decimal<38,10> -", "decimal<38,10> -"),
    Case("lt", ("d7_7", "d38_10"), "decimal<38,10> -", "decimal<38,10> -"),
    Case("lt", ("d38_10", "fp64"), "decimal<38,15> decimal<38,15>", "fp64 -"),
    Case("lt", ("d38_10", "i64"), "- decimal<38,10>", "- decimal<38,10>"),
    Case("lte", ("d15_2", "d15_2"), None, None),
    Case("is_distinct_from", ("d15_2", "fp64"), f"{D30_15} {D30_15}", "fp64 -"),
    Case("lt", ("i32", "fp32"), "fp32 -", "fp32 -"),
    Case("lt", ("i64", "fp32"), "fp32 -", "fp32 -"),
    Case("equal", ("i64", "fp64"), "fp64 -", "fp64 -"),
    Case("lt", ("fp32", "fp64"), "fp64 -", "fp64 -"),
    Case("lt", ("fp16", "fp64"), "fp64 -", SKIP),
    Case("lt", ("i8", "i16"), "i16 -", "i16 -"),
    Case("equal", ("i32", "i64"), "i64 -", "i64 -"),
    Case("lt", ("u32", "i32"), "i64 i64", SKIP),
    Case("lt", ("u64", "i64"), "decimal<20,0> decimal<20,0>", SKIP),
    Case("lt", ("u8", "i8"), "i16 i16", SKIP),
    Case("lt", ("u8", "u32"), "u32 -", SKIP),
    Case("lt", ("string", "date"), "date -", "date -"),
    Case("equal", ("string", "i32"), "i32 -", "i32 -"),
    Case("lt", ("string", "i64"), "i64 -", "i64 -"),
    Case("lt", ("string", "fp64"), "fp64 -", "fp64 -"),
    Case("lt", ("string", "d15_2"), "decimal<15,2> -", "fp64 fp64"),
    Case("lt", ("string", "d10_0"), "decimal<10,0> -", "decimal<10,0> -"),
    Case("lt", ("string", "ts6"), f"{P9} {P9}", "precision_timestamp<6> -"),
    Case("lt", ("string", "tstz6"), f"{P9TZ} {P9TZ}", "precision_timestamp_tz<6> -"),
    Case("equal", ("string", "bool"), None, "boolean -"),
    Case("lte", ("string", "sview"), None, SKIP),
    Case("lt", ("date", "ts6"), f"{P9} {P9}", "precision_timestamp<6> -"),
    Case("lt", ("date", "tstz6"), f"{P9} {P9}", "precision_timestamp_tz<6> -"),
    Case("lt", ("ts6", "tstz6"), "precision_timestamp_tz<6> -", "precision_timestamp_tz<6> -"),
    Case("lt", ("ts3", "ts9"), f"{P9} -", SKIP),
    Case("lt", ("null", "i32"), "i32 -", "i32 -"),
    Case("lt", ("bool", "i32"), None, None),
    Case("lt", ("date", "i32"), "- date", None),
    # -- BETWEEN (Spark: two comparisons, each coerced by itself)
    Case("between", ("d15_2", "fp64", "fp64"), f"{D30_15} {D30_15} {D30_15}", "fp64 - -"),
    Case("between", ("d15_2", "i64", "fp64"), "decimal<35,15> decimal<35,15> decimal<35,15>", None),
    Case("between", ("string", "i32", "fp64"), "fp64 fp64 -", None),
    Case("between", ("i64", "d15_2", "d15_2"), *["decimal<22,2> decimal<22,2> decimal<22,2>"] * 2),
    # -- arithmetic
    Case("add", ("d15_2", "fp64"), "fp64 -", "fp64 -", ("fp64", "fp64")),
    Case("add", ("d15_2", "fp32"), "fp32 -", "fp64 fp64", ("fp32", "fp64")),
    Case("multiply", ("d15_2", "fp64"), "fp64 -", "fp64 -", ("fp64", "fp64")),
    Case("add", ("d15_2", "i8"), "- decimal<3,0>", "- decimal<3,0>", ("decimal<16,2>", "decimal<16,2>")),
    Case("add", ("d15_2", "i32"), "- decimal<10,0>", "- decimal<10,0>", ("decimal<16,2>", "decimal<16,2>")),
    Case("add", ("d15_2", "i64"), "- decimal<20,0>", "- decimal<20,0>", ("decimal<23,2>", "decimal<23,2>")),
    Case("subtract", ("i64", "d15_2"), "decimal<20,0> -", "decimal<20,0> -", ("decimal<23,2>", "decimal<23,2>")),
    Case("divide", ("d15_2", "i64"), "- decimal<20,0>", "- decimal<20,0>", ("decimal<19,6>", "decimal<36,23>")),
    Case("modulus", ("d15_2", "i32"), "- decimal<10,0>", "- decimal<10,0>", ("decimal<12,2>", "decimal<12,2>")),
    Case("multiply", ("d38_10", "i64"), "- decimal<20,0>", "- decimal<20,0>", ("decimal<38,10>", "decimal<38,6>")),
    Case("add", ("d15_2", "d38_10"), None, None, ("decimal<38,10>", "decimal<38,9>")),
    Case("divide", ("d15_2", "d15_2"), None, None, ("decimal<21,6>", "decimal<33,18>")),
    Case("divide", ("d38_10", "d15_2"), None, None, ("decimal<38,14>", "decimal<38,8>")),
    Case("multiply", ("d38_10", "d15_2"), None, None, ("decimal<38,12>", "decimal<38,6>")),
    Case("modulus", ("d38_10", "d7_7"), None, None, ("decimal<10,10>", "decimal<10,10>")),
    Case("add", ("i32", "fp32"), "fp32 -", "fp32 -", ("fp32", "fp32")),
    Case("add", ("i64", "fp32"), "fp32 -", "fp32 -", ("fp32", "fp32")),
    Case("divide", ("i64", "fp64"), "fp64 -", "fp64 -", ("fp64", "fp64")),
    Case("add", ("fp32", "fp64"), "fp64 -", "fp64 -", ("fp64", "fp64")),
    Case("add", ("i8", "i16"), "i16 -", "i16 -", ("i16", "i16")),
    Case("multiply", ("i32", "i64"), "i64 -", "i64 -", ("i64", "i64")),
    Case("divide", ("i32", "i64"), "i64 -", "i64 -", ("i64", "i64")),
    Case("modulus", ("i32", "i64"), "i64 -", "i64 -", ("i64", "i64")),
    Case("add", ("u32", "i32"), "i64 i64", SKIP, ("i64", SKIP)),
    Case("add", ("u64", "i64"), "decimal<20,0> decimal<20,0>", SKIP, ("decimal<21,0>", SKIP)),
    Case("add", ("null", "i32"), "i32 -", "i32 -", ("i32", "i32")),
    Case("add", ("null", "d15_2"), "decimal<15,2> -", "decimal<15,2> -", ("decimal<16,2>", "decimal<16,2>")),
    Case("add", ("string", "i32"), None, "fp64 fp64", (None, "fp64")),
    Case("add", ("string", "d15_2"), None, "fp64 fp64", (None, "fp64")),
    Case("add", ("bool", "i32"), None, None, (None, None)),
    # -- other functions
    Case("coalesce", ("d15_2", "fp64"), f"{D30_15} {D30_15}", "fp64 -"),
    Case("coalesce", ("i32", "fp64"), "fp64 -", "fp64 -"),
    Case("coalesce", ("string", "i32"), "i32 -", "- string"),
    Case("coalesce", ("string", "date"), None, "- string"),
    Case("coalesce", ("null", "i32"), "i32 -", "i32 -"),
    Case("coalesce", ("date", "tstz6"), f"{P9} {P9}", "precision_timestamp_tz<6> -"),
    Case("coalesce", ("i64", "fp64", "d15_2"), f"{D30_15} {D30_15} {D30_15}", "fp64 - fp64"),
    Case("coalesce", ("d15_2", "i64", "fp64"), "decimal<35,15> decimal<35,15> decimal<35,15>", "fp64 fp64 -"),
    Case("greatest", ("d15_2", "fp64"), f"{D30_15} {D30_15}", "fp64 -"),
    Case("greatest", ("string", "i32"), "i32 -", None),
    Case("greatest", ("string", "date"), "date -", None),
    Case("least", ("i32", "i64"), "i64 -", "i64 -"),
    Case("nullif", ("d15_2", "fp64"), f"{D30_15} {D30_15}", None),
    Case("nullif", ("string", "i32"), "i32 -", None),
    Case("str_concat", ("string", "i32"), "- string", "- string"),
    Case("str_concat", ("i32", "string"), "string -", "string -"),
    Case("str_concat", ("string", "d15_2"), "- string", "- string"),
    Case("str_concat", ("string", "bool"), "- string", "- string"),
    Case("str_concat", ("i64", "i32"), None, "string string"),
    Case("stddev", ("i32",), "fp64", "fp64"),
    Case("stddev", ("d15_2",), "fp64", "fp64"),
    Case("stddev", ("fp32",), "fp64", "fp64"),
    Case("stddev", ("fp64",), None, None),
    # -- CASE: the THEN values, then the ELSE value
    Case("unify:case", ("i64", "fp64"), "fp64 -", "fp64 -"),
    Case("unify:case", ("i64", "fp32"), "fp32 -", "fp32 -"),
    Case("unify:case", ("d15_2", "fp64"), f"{D30_15} {D30_15}", "fp64 -"),
    Case("unify:case", ("d15_2", "i64"), "decimal<22,2> decimal<22,2>", "decimal<22,2> decimal<22,2>"),
    Case("unify:case", ("d15_2", "d38_10"), "decimal<38,10> -", "decimal<38,10> -"),
    Case("unify:case", ("d15_2", "d7_7"), "decimal<20,7> decimal<20,7>", "decimal<20,7> decimal<20,7>"),
    Case("unify:case", ("string", "i32"), "- string", "- string"),
    Case("unify:case", ("string", "d15_2"), "- string", "- string"),
    Case("unify:case", ("null", "i32"), "i32 -", "i32 -"),
    Case("unify:case", ("date", "ts6"), f"{P9} {P9}", "precision_timestamp<6> -"),
    Case("unify:case", ("string", "date"), "date -", "- string"),
    Case("unify:case", ("string", "bool"), None, None),
    Case("unify:case", ("i64", "fp64", "d15_2"), "decimal<35,15> decimal<35,15> decimal<35,15>", "fp64 - fp64"),
    Case("unify:case-no-else", ("i64", "fp64", "d15_2"), f"{D30_15} {D30_15} {D30_15}", "fp64 - fp64"),
    Case("unify:case", ("i8", "i16", "u32"), "i64 i64 i64", SKIP),
    Case("unify:case", ("string", "sview"), None, SKIP),
    # -- IN lists: the value, then the options
    Case("unify:in", ("i32", "i64", "fp64"), "fp64 fp64 -", "fp64 fp64 -"),
    Case("unify:in", ("d15_2", "fp64", "i64"), "decimal<35,15> decimal<35,15> decimal<35,15>", "fp64 - fp64"),
    Case("unify:in", ("string", "i32", "i64"), "i64 i64 -", "- string string"),
    Case("unify:in", ("i32", "string"), "- i32", "string -"),
    Case("unify:in", ("string", "date"), "date -", "- string"),
    Case("unify:in", ("d15_2", "i64"), "decimal<22,2> decimal<22,2>", "decimal<22,2> decimal<22,2>"),
    # -- set operations: one column of each input
    Case("unify:union", ("i32", "fp64"), "fp64 -", "fp64 -"),
    Case("unify:union", ("d15_2", "fp64"), f"{D30_15} {D30_15}", "fp64 -"),
    Case("unify:union", ("d15_2", "i64"), "decimal<22,2> decimal<22,2>", "decimal<22,2> decimal<22,2>"),
    Case("unify:union", ("string", "i32"), "- string", "- string"),
    Case("unify:union", ("string", "date"), "date -", "- string"),
    Case("unify:union", ("null", "i32"), "i32 -", "i32 -"),
    Case("unify:union", ("i64", "fp64", "d15_2"), f"{D30_15} {D30_15} {D30_15}", "fp64 - fp64"),
    Case("unify:union", ("i8", "u32"), "i64 i64", SKIP),
    # -- VALUES: one column of each row
    Case("unify:values", ("i64", "fp64"), "fp64 -", "fp64 -"),
    Case("unify:values", ("d15_2", "fp64"), f"{D30_15} {D30_15}", "fp64 -"),
    Case("unify:values", ("d15_2", "i32"), "- decimal<15,2>", "- decimal<15,2>"),
    Case("unify:values", ("string", "i64"), "i64 -", None),
    Case("unify:values", ("string", "date"), None, None),
    Case("unify:values", ("null", "i32"), "i32 -", "i32 -"),
]


# ---- the module, without an engine ---------------------------------------------------------


def _text(t: Type | None) -> str:
    """A target as the cases write it: ``-`` when unchanged, DataFusion's variations spelled out."""
    if t is None:
        return "-"
    kind = t.WhichOneof("kind")
    body = getattr(t, kind)
    if kind in ("i8", "i16", "i32", "i64") and body.type_variation_reference == 1:
        return "u" + kind[1:]
    if kind == "decimal" and body.type_variation_reference == 1:
        return f"decimal256<{body.precision},{body.scale}>"
    if kind == "user_defined" and USER_TYPES.get(body.type_reference) == "null":
        return "null"
    return T.render(T.with_nullability(t, False), user_types=USER_TYPES)


def _predict(case: Case, dialect: str) -> C.Coercion | None:
    types = [KINDS[a].type for a in case.args]
    if case.what.startswith("unify:"):
        context = case.what.split(":", 1)[1]
        if context == "case-no-else":
            return C.unify(dialect, types, context="case", has_else=False, user_types=USER_TYPES)
        return C.unify(dialect, types, context=context, user_types=USER_TYPES)
    return C.call_coercion(dialect, case.what, types, user_types=USER_TYPES)


def _predicted_text(case: Case, dialect: str) -> str | None:
    coercion = _predict(case, dialect)
    return None if coercion is None else " ".join(_text(t) for t in coercion.targets)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_the_rules(case: Case):
    for dialect, expected in (("datafusion", case.datafusion), ("spark", case.spark)):
        if expected != SKIP:
            assert _predicted_text(case, dialect) == expected, dialect
    if case.result is not None:
        types = [KINDS[a].type for a in case.args]
        for dialect, expected in zip(C.DIALECTS, case.result):
            if expected != SKIP:
                result = C.arithmetic_result(dialect, case.what, types, user_types=USER_TYPES)
                assert (None if result is None else _text(result)) == expected, dialect


def test_the_q6_call_and_its_rule():
    dec = Type(decimal=Type.Decimal(precision=15, scale=2, nullability=T.REQUIRED))
    fp64 = Type(fp64=Type.FP64(nullability=T.NULLABLE))
    df = C.call_coercion("datafusion", "lte:dec_dec", [dec, fp64])
    assert df.rule == "DataFusion compares decimal<15,2> with fp64 as decimal<30,15>"
    assert [T.render(t) for t in df.targets] == ["decimal<30,15>", "decimal<30,15>?"]  # each argument's nullability
    spark = C.call_coercion("spark", "LTE", [dec, fp64])
    assert spark.rule == "Spark compares decimal<15,2> with fp64 as fp64"
    assert [T.render(t) if t else None for t in spark.targets] == ["fp64", None]


def test_rules_name_the_result_of_arithmetic():
    dec, i64 = KINDS["d15_2"].type, KINDS["i64"].type
    assert C.call_coercion("datafusion", "divide", [dec, i64]).rule == (
        "DataFusion computes decimal<15,2> / i64 as decimal<15,2> / decimal<20,0>, giving decimal<19,6>"
    )
    assert C.call_coercion("spark", "divide", [KINDS["i32"].type, i64]).rule == (
        "Spark computes i32 / i64 as i64 (integer division)"
    )
    rule = C.unify("datafusion", [i64, KINDS["fp64"].type]).rule
    assert rule == "DataFusion gives CASE branches i64 and fp64 the type fp64"


def test_nulls_of_either_spelling_take_the_other_type():
    i32 = Type(i32=Type.I32(nullability=T.REQUIRED))
    for null in (Type(), KINDS["null"].type):
        coercion = C.unify("datafusion", [null, i32], user_types=USER_TYPES)
        assert [T.render(t) if t else None for t in coercion.targets] == ["i32?", None]
    assert C.unify("spark", [Type(), Type()]) is None  # nothing to unify with
    # without the plan's type names, a user-defined type is nothing known
    assert C.call_coercion("datafusion", "lt", [KINDS["null"].type, i32]) is None


def test_datafusion_takes_a_null_in_like_as_text():
    # its SQL's `s LIKE NULL` is like(s, null of its null type, null escape); checked against its rows and
    # types by datafusion_functions.sql (x_like_a_null_pattern)
    text, null = KINDS["string"].type, KINDS["null"].type
    coercion = C.call_coercion("datafusion", "like", [text, null, text], user_types=USER_TYPES)
    assert coercion.rule == "DataFusion takes a null in LIKE as text"
    assert [T.render(t) if t else None for t in coercion.targets] == [None, "string?", None]
    assert C.call_coercion("spark", "like", [text, null, text], user_types=USER_TYPES) is None


def test_datafusion_s_string_functions_take_other_values_as_text():
    # checked against its rows by datafusion_functions.sql (text_of_other_values_*): lpad(1e20, 12) is
    # '        1e20', its length 4; its upper or substr refuse a number, so no rule is made for them
    fp64, i64, dec = KINDS["fp64"].type, KINDS["i64"].type, KINDS["d15_2"].type
    coercion = C.call_coercion("datafusion", "lpad", [fp64, i64, fp64], user_types=USER_TYPES)
    assert coercion.rule == "DataFusion casts fp64 to text for lpad"
    assert [T.render(t) if t else None for t in coercion.targets] == ["string?", None, "string?"]
    left = C.call_coercion("datafusion", "left", [dec, i64], user_types=USER_TYPES)
    assert [T.render(t) if t else None for t in left.targets] == ["string?", None]
    assert C.call_coercion("datafusion", "upper", [fp64], user_types=USER_TYPES) is None
    assert C.call_coercion("spark", "lpad", [fp64, i64, fp64], user_types=USER_TYPES) is None


def test_an_average_of_an_fp32_is_an_fp64_in_both_engines():
    # checked against DataFusion's rows by datafusion_functions.sql (avg_of_real_in_double)
    coercion = C.call_coercion("datafusion", "avg", [KINDS["fp32"].type], user_types=USER_TYPES)
    assert coercion.rule == "DataFusion averages an fp32 as fp64"
    assert [T.render(t) for t in coercion.targets] == ["fp64?"]
    assert C.call_coercion("datafusion", "avg", [KINDS["fp64"].type], user_types=USER_TYPES) is None


def test_unknown_types_unknown_functions_and_dialects():
    dec, fp64 = KINDS["d15_2"].type, KINDS["fp64"].type
    assert C.call_coercion("datafusion", "lt", [dec, None]) is None
    assert C.call_coercion("datafusion", "my_function", [dec, fp64]) is None
    assert C.unify("spark", [dec, None], context="union") is None
    with pytest.raises(ValueError, match="unknown dialect 'duckdb'; expected one of datafusion, spark"):
        C.call_coercion("duckdb", "lt", [dec, fp64])
    with pytest.raises(ValueError, match="unknown context 'join'"):
        C.unify("spark", [dec, fp64], context="join")


# ---- the live engines ----------------------------------------------------------------------

_OPERATORS = {
    "equal": "=",
    "not_equal": "<>",
    "lt": "<",
    "lte": "<=",
    "gt": ">",
    "gte": ">=",
    "is_distinct_from": "IS DISTINCT FROM",
    "add": "+",
    "subtract": "-",
    "multiply": "*",
    "divide": "/",
    "modulus": "%",
    "str_concat": "||",
}


def _column(i: int, name: str) -> str:
    return f"x{i}_{name}"


def _sql(case: Case, spark: bool) -> str:
    """The case as one query whose column ``r`` is the call or construct."""
    cols = [_column(i, a) for i, a in enumerate(case.args)]
    what = case.what
    if what.startswith("unify:union"):
        return " UNION ALL ".join(f"SELECT {c} AS r FROM {TABLE}" for c in cols)
    if what.startswith("unify:values"):
        rows = ", ".join(f"({KINDS[a].cast})" for a in case.args)
        return f"SELECT col1 AS r FROM VALUES {rows}" if spark else f"SELECT column1 AS r FROM (VALUES {rows})"
    if what.startswith("unify:case"):
        thens = cols if what.endswith("no-else") else cols[:-1]
        tail = "" if what.endswith("no-else") else f" ELSE {cols[-1]}"
        expr = "CASE " + " ".join(f"WHEN b THEN {c}" for c in thens) + tail + " END"
    elif what == "unify:in":
        expr = f"{cols[0]} IN ({', '.join(cols[1:])})"
    elif what == "between":
        # Spark's BETWEEN is replaced by its two comparisons after analysis: they are written out
        x, low, high = cols
        expr = f"{x} >= {low} AND {x} <= {high}" if spark else f"{x} BETWEEN {low} AND {high}"
    elif what == "divide" and spark and all(KINDS[a].type.WhichOneof("kind").startswith("i") for a in case.args):
        expr = f"{cols[0]} div {cols[1]}"  # a plan's divide of integers divides as integers
    elif what in _OPERATORS:
        expr = f"{cols[0]} {_OPERATORS[what]} {cols[1]}"
    else:
        expr = f"{what}({', '.join(cols)})"
    return f"SELECT {expr} AS r FROM {TABLE}"


def _dialect_cases(dialect: str) -> list[Case]:
    spark = dialect == "spark"
    return [
        c
        for c in CASES
        if (c.spark if spark else c.datafusion) != SKIP and not (spark and any(KINDS[a].spark is None for a in c.args))
    ]


def _balanced(text: str, start: int) -> int:
    """The index of the ``)`` closing the text that starts at ``start``."""
    depth = 0
    for k in range(start, len(text)):
        if text[k] == "(":
            depth += 1
        elif text[k] == ")":
            if depth == 0:
                return k
            depth -= 1
    raise ValueError(text[start:])


def _df_type(name: str) -> str:
    if m := re.fullmatch(r"Decimal(128|256)\((\d+), (\d+)\)", name):
        return f"{'decimal' if m[1] == '128' else 'decimal256'}<{m[2]},{m[3]}>"
    if m := re.fullmatch(r'Timestamp\((s|ms|µs|ns)(, "[^"]*")?\)', name):
        digits = {"s": 0, "ms": 3, "µs": 6, "ns": 9}[m[1]]
        return f"precision_timestamp{'_tz' if m[2] else ''}<{digits}>"
    ints = {f"{u}Int{b}": f"{'u' if u else 'i'}{b}" for u in ("", "U") for b in (8, 16, 32, 64)}
    named = {
        "Float16": "u!fp16",
        "Float32": "fp32",
        "Float64": "fp64",
        "Utf8": "string",
        "Utf8View": "string",
        "LargeUtf8": "string",
        "Date32": "date",
        "Boolean": "boolean",
        "Null": "null",
    }
    return {**ints, **named}[name]


_SPARK_TYPES = {
    "tinyint": "i8",
    "smallint": "i16",
    "int": "i32",
    "bigint": "i64",
    "float": "fp32",
    "double": "fp64",
    "string": "string",
    "date": "date",
    "boolean": "boolean",
    "timestamp": "precision_timestamp_tz<6>",
    "timestamp_ntz": "precision_timestamp<6>",
    "void": "null",
}


def _spark_type(name: str) -> str:
    if m := re.fullmatch(r"decimal\((\d+),(\d+)\)", name):
        return f"decimal<{m[1]},{m[2]}>"
    return _SPARK_TYPES[name]


def _df_casts(plan: str, column: str) -> set[str]:
    """Each use of ``column`` in DataFusion's plan text: the type it is cast to, ``-`` when it is not."""
    out = set()
    for m in re.finditer(rf"{TABLE}\.{column}\b", plan):
        before = plan[: m.start()]
        if before.endswith("CAST(") and plan.startswith(" AS ", m.end()):
            out.add(_df_type(plan[m.end() + 4 : _balanced(plan, m.end() + 4)]))
        else:
            out.add("-")
    return out


def _spark_casts(plan: str, column: str) -> set[str]:
    """Each use of ``column`` in Spark's plan text: the type its outermost cast gives, ``-`` when none."""
    out = set()
    for m in re.finditer(rf"\b{column}#\d+L?", plan):
        depth, at = 0, m.start()
        while plan[:at].endswith("cast("):
            depth, at = depth + 1, at - len("cast(")
        end, last = m.end(), "-"
        for _ in range(depth):
            assert plan.startswith(" as ", end), plan[end:]
            close = _balanced(plan, end + 4)
            last, end = _spark_type(plan[end + 4 : close]), close + 1
        out.add(last)
    return out


def _observed(case: Case, casts: dict[str, set[str]], common: str | None) -> str | None:
    """The targets as a case writes them, from the casts seen on each value (or, for a set operation
    or VALUES, from the common type); None when nothing is cast, or a value is cast two ways."""
    if case.what.startswith(("unify:union", "unify:values")):
        assert common is not None
        texts = [_text(KINDS[a].type) for a in case.args]
        targets = ["-" if _same(t, common) else common for t in texts]
    else:
        seen = [casts[_column(i, a)] for i, a in enumerate(case.args)]
        if any(len(s) != 1 for s in seen):
            return None
        targets = ["-" if _same(_text(KINDS[a].type), t) else t for a, (t,) in zip(case.args, seen)]
    return None if all(t == "-" for t in targets) else " ".join(targets)


def _same(value: str, target: str) -> bool:
    """A cast that changes nothing a plan can tell: between DataFusion's string kinds (Utf8, Utf8View)."""
    return target == "-" or value == target


# -- DataFusion


@pytest.fixture(scope="module")
def datafusion_context():
    pytest.importorskip("datafusion")
    import pyarrow as pa
    from datafusion import SessionConfig, SessionContext

    ctx = SessionContext(SessionConfig().set("datafusion.optimizer.max_passes", "0"))  # the analyzer's plan
    columns = {
        _column(i, name): pa.nulls(1, getattr(pa, kind.arrow[0])(*kind.arrow[1:]))
        for name, kind in KINDS.items()
        for i in range(3)
    }
    columns["b"] = pa.array([True])
    ctx.register_record_batches(TABLE, [[pa.record_batch(columns)]])
    return ctx


@pytest.mark.parametrize("case", _dialect_cases("datafusion"), ids=lambda c: c.id)
def test_datafusion_casts_as_the_rules_say(case: Case, datafusion_context):
    try:
        analyzed = datafusion_context.sql(_sql(case, spark=False)).optimized_logical_plan()
    except Exception as e:  # noqa: BLE001 - the engine refuses the call
        assert case.datafusion is None, f"DataFusion refused it: {e}"
        return
    result = _df_type(re.search(r"\[r:(.*?)(;N)?\]$", analyzed.display_indent_schema().splitlines()[0])[1])
    plan = analyzed.display_indent()
    # an aggregate's arguments are cast where it is computed; the projection above names its output
    plan = next((line for line in plan.splitlines() if "Aggregate:" in line), plan)
    casts = {_column(i, a): _df_casts(plan, _column(i, a)) for i, a in enumerate(case.args)}
    assert _observed(case, casts, result) == case.datafusion, plan
    if case.result is not None:
        assert result == case.result[0]


# -- Spark


def test_spark_casts_as_the_rules_say(spark):
    columns = ", ".join(
        f"CAST(NULL AS {kind.spark}) AS {_column(i, name)}" if kind.spark != "void" else f"NULL AS {_column(i, name)}"
        for name, kind in KINDS.items()
        if kind.spark
        for i in range(3)
    )
    spark.sql(f"CREATE OR REPLACE TEMP VIEW {TABLE} AS SELECT {columns}, true AS b")
    wrong = []
    try:
        for case in _dialect_cases("spark"):
            try:
                df = spark.sql(_sql(case, spark=True))
                plan = df._jdf.queryExecution().analyzed().toString().split(f"SubqueryAlias {TABLE}")[0]
            except Exception as e:  # noqa: BLE001 - the engine refuses the call
                if case.spark is not None:
                    wrong.append(f"{case.id}: Spark refused it: {str(e).splitlines()[0]}")
                continue
            result = _spark_type(df.schema["r"].dataType.simpleString())
            casts = {_column(i, a): _spark_casts(plan, _column(i, a)) for i, a in enumerate(case.args)}
            seen = _observed(case, casts, result)
            if seen != case.spark:
                wrong.append(f"{case.id}: Spark casts {seen}, the case says {case.spark}: {plan.splitlines()[0]}")
            if case.result is not None and result != case.result[1]:
                wrong.append(f"{case.id}: Spark's result {result}, the case says {case.result[1]}")
    finally:
        spark.catalog.dropTempView(TABLE)
    assert not wrong, "\n".join(wrong)


def test_nested_values_share_a_type_member_by_member():
    """DataFusion takes records, lists and maps of one shape together member by member (its optimized
    plans cast so: a CASE of struct<i64, string> and struct<fp64, string> is struct<fp64, string>; a list of
    decimal<12,2> compared with one of decimal<14,3> is compared as decimal<14,3>, which Spark's = needs)."""

    def struct(*members: Type) -> Type:
        return Type(struct=Type.Struct(types=list(members), nullability=_N))

    def lst(element: Type) -> Type:
        return Type(list=Type.List(type=element, nullability=_N))

    i32, i64, fp64, text = (KINDS[k].type for k in ("i32", "i64", "fp64", "string"))
    case = C.unify("datafusion", [struct(i64, text), struct(fp64, text)])
    assert [T.render(t) if t else None for t in case.targets] == ["struct<fp64?, string?>?", None]
    assert case.rule == (
        "DataFusion gives CASE branches struct<i64?, string?> and struct<fp64?, string?> the type "
        "struct<fp64?, string?>"
    )
    union = C.unify("datafusion", [struct(i32), struct(i64)], context="union")
    assert [T.render(t) if t else None for t in union.targets] == ["struct<i64?>?", None]
    d12_2, d14_3 = _typed("decimal", precision=12, scale=2), _typed("decimal", precision=14, scale=3)
    decimals = C.call_coercion("datafusion", "equal", [lst(d12_2), lst(d14_3)])
    assert decimals is not None and [T.render(t) if t else None for t in decimals.targets] == [
        "list<decimal<14,3>?>?",
        None,
    ]
    # nullability alone, the same shape, or shapes with no common type: no casts
    required = Type(i32=Type.I32(nullability=T.REQUIRED))
    assert C.unify("datafusion", [struct(required), struct(i32)], context="union") is None
    assert C.call_coercion("datafusion", "equal", [lst(i64), lst(i64)]) is None
    assert C.unify("datafusion", [struct(i64, text), struct(i64)]) is None
    assert C.unify("datafusion", [lst(KINDS["date"].type), lst(KINDS["bool"].type)]) is None
