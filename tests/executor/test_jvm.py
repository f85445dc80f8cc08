"""Fewer Py4J round trips in a translation (executor/spark/jvm.py), and casts by type name."""

from __future__ import annotations

import collections
import os

import pytest
from py4j import clientserver
from pyspark.sql import functions as F
from pyspark.sql import types as S

from executor.data.catalog import Catalog
from executor.engines.sql_plan import sql_to_plan
from executor.spark.jvm import repeatable, sql_type
from executor.translate.rel import translate
from executor.translate.types import _TABLE
from tests.support import CORPORA
from viz.model import analyze


def _spark_types() -> list[S.DataType]:
    """Every atomic type the translation casts to: those of executor.translate.types and a few parameters."""
    from substrait import type_pb2

    out = []
    for kind in _TABLE:
        if kind in ("struct", "list", "map") or kind not in type_pb2.Type.DESCRIPTOR.fields_by_name:
            continue
        t = type_pb2.Type()
        getattr(t, kind).SetInParent()
        if kind == "decimal":
            t.decimal.precision, t.decimal.scale = 38, 8
        out.append(_TABLE[kind](getattr(t, kind)))
    return out + [S.DecimalType(10, 0), S.DecimalType(5, 5), S.NullType(), S.TimestampType()]


def test_a_cast_by_name_gives_the_same_type_as_by_object(spark):
    types = _spark_types()
    assert all(isinstance(sql_type(t), str) for t in types)
    by_name = spark.range(1).select(*[F.lit(None).cast(sql_type(t)).alias(f"c{i}") for i, t in enumerate(types)])
    assert [f.dataType for f in by_name.schema.fields] == types
    nested = S.ArrayType(S.StructType([S.StructField("a b", S.LongType())]))
    assert sql_type(nested) is nested  # field names the SQL form would have to quote


def _commands(fn) -> collections.Counter:
    """The Py4J commands ``fn`` sends from this thread or its translation worker, by kind."""
    counts: collections.Counter = collections.Counter()
    send = clientserver.ClientServerConnection.send_command

    def counting(self, command):
        if command[0] != "m":  # object releases: sent later by py4j's finalizer thread
            counts[command[0]] += 1
        return send(self, command)

    clientserver.ClientServerConnection.send_command = counting
    try:
        fn()
    finally:
        clientserver.ClientServerConnection.send_command = send
    return counts


def test_a_warm_translation_makes_no_reflection_lookups(spark, tpch_dir):
    with open(os.path.join(CORPORA, "isthmus-tpch", "query_09_plan.json"), "rb") as fh:
        model = analyze(fh.read())
    catalog = Catalog([tpch_dir], use_spark_catalog=False)
    root = model.roots[0]
    translate(model, root, spark, catalog)  # reads cached, functions found
    counts = _commands(lambda: translate(model, root, spark, catalog))
    # q09 before the lookups were kept, casts named their type, column references were kept and
    # reads on a join's right side were named in place: 321 commands, 118 of them reflection
    # lookups; after: 76, none of them lookups.
    assert counts["r"] == 0, counts
    assert sum(counts.values()) < 100, counts


def test_an_expression_written_twice_is_built_once(spark, tpch_dir):
    """q22 compares ``substring(c_phone, 1, 2)`` with each of seven country codes, in the query and
    again in its subquery: each node builds it once (each build is nine Py4J commands)."""
    with open(os.path.join(CORPORA, "isthmus-tpch", "query_22_plan.json"), "rb") as fh:
        model = analyze(fh.read())
    catalog = Catalog([tpch_dir], use_spark_catalog=False)
    root = model.roots[0]
    translate(model, root, spark, catalog)
    counts = _commands(lambda: translate(model, root, spark, catalog))
    assert sum(counts.values()) < 130, counts  # built at each occurrence, it takes over 200


@pytest.mark.parametrize(
    ("sql", "most"),
    [
        (
            "SELECT CAST(round(-x / 4) AS VARCHAR) AS a, CAST(ceil(-x / 4) AS VARCHAR) AS b, "
            "CAST(l_linenumber + 1 AS DECIMAL(15,2)) / CAST(l_linenumber AS DECIMAL(2,0)) "
            "/ CAST(x AS DECIMAL(2,1)) AS c, "
            "x / 3 / 5 / 7 / 9 AS d, round(ceil(round(abs(x / 3) * 2) / 5)) AS e, l_linenumber % 3 % 2 / 2 / 3 AS f, "
            "CAST(x / 3 AS DECIMAL(10,2)) AS g "
            "FROM (SELECT l_linenumber, CAST(l_linenumber AS DOUBLE) AS x FROM lineitem) t",
            60_000,  # a copy at each use: over a million characters
        ),
        ("SELECT avg(l_extendedprice * (1 - l_discount)) AS a FROM lineitem", 30_000),  # a copy at each use: 97,000
        (
            "SELECT round(round(x / 3, l_linenumber % 4 - 1) * 2, l_linenumber % 3) AS r "
            "FROM (SELECT l_linenumber, CAST(l_linenumber AS DOUBLE) AS x FROM lineitem) t",
            40_000,  # the places' power of ten and the number copied at each use: 308,000
        ),
    ],
    ids=["nested", "mean", "round_to_places_of_a_column"],
)
def test_builders_that_use_their_operand_often_hold_one_copy_of_it(spark, tpch_dir, sql, most):
    """A float's text or decimal, a quotient, a remainder, a rounding (to constant places or a column's) and a
    decimal mean each use their operand several times; nested in each other (DataFusion plans its checks into
    each), a copy at each use multiplied the plan Spark analyzes. (An operand of literals only is still copied:
    Spark folds it.)"""
    tables = {"lineitem": os.path.join(tpch_dir, "lineitem.parquet")}
    model = analyze(sql_to_plan(sql, tables, json=False, form="written").data)
    made = translate(model, model.roots[0], spark, Catalog([tpch_dir], use_spark_catalog=False))
    plan = made.df._jdf.queryExecution().analyzed().toString()
    assert len(plan) < most, len(plan)


def test_a_column_a_literal_and_an_expression_of_literals_are_copied_and_no_other(spark):
    """What ``once`` leaves unbound: copies of these cost nothing, and an expression of literals held by a
    lambda would be computed on every row instead of folded to one value (q06's ``0.06 - 0.01``)."""
    assert repeatable(F.col("x")) and repeatable(F.lit(1.5))
    assert repeatable((F.lit(0.06) - F.lit(0.01)).cast("double"))
    assert not repeatable(F.col("x") + 1) and not repeatable(F.round(F.col("x") * 2, 0))
    seen = []
    F.transform(F.array(F.col("x")), lambda v: seen.extend([repeatable(v), repeatable(v * 2)]) or v)
    assert seen == [True, False]
