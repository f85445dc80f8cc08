"""Plans from today's producers: function types from the extension YAMLs, DataFusion's conventions, and
the live-producer check (DataFusion 55 plans SQL; its own engine, and DuckDB, give the expected rows).

The expected types are the spec's: each is the return-type expression of the YAML overload worked out by
hand (``sum`` of ``decimal<P,S>`` is ``decimal<38,S>?``; ``multiply`` of ``decimal<P1,S1>`` and
``decimal<P2,S2>`` is ``decimal<P1+P2+1,S1+S2>``, capped at 38). The expected rows come from DataFusion
running the SQL, and DuckDB where they disagree.
"""

from __future__ import annotations

import io
import json
import os
from datetime import UTC
from typing import TypeVar

import pytest
from substrait.type_pb2 import Type

from executor.engines.rows import multiset_diff
from executor.engines.sql_plan import DataFusionEngine
from executor.producer.check import FEATURES_SQL, JOBS, Checker, Query, read_queries, render_table
from tests.support import CORPORA, ROOT
from viz import types as T
from viz.function_types import derive
from viz.schema import Conventions, aggregate_layout

N, R = Type.NULLABILITY_NULLABLE, Type.NULLABILITY_REQUIRED
TPCH_SQL = os.path.join(CORPORA, "consumer-testing", "testdata", "integration", "tpch")
TPCDS_SQL = os.path.join(CORPORA, "tpcds-sql")
TPCH_OFFICIAL_SQL = os.path.join(os.path.dirname(FEATURES_SQL), "tpch.sql")
MIXED_TYPES_SQL = os.path.join(os.path.dirname(FEATURES_SQL), "mixed_types.sql")


def dec(p: int, s: int, n=R) -> Type:
    return Type(decimal=Type.Decimal(precision=p, scale=s, nullability=n))


def string(n=R) -> Type:
    return Type(string=Type.String(nullability=n))


# ---- output types from the YAMLs -----------------------------------------------------------------


@pytest.mark.parametrize(
    "name, args, expected",
    [
        ("sum", [dec(15, 2)], "decimal<38,2>?"),  # functions_arithmetic_decimal: sum -> DECIMAL?<38,S>
        ("sum:dec", [dec(7, 2, N)], "decimal<38,2>?"),
        ("multiply", [dec(15, 2), dec(15, 2)], "decimal<31,4>"),  # P1+P2+1, S1+S2; MIRROR: required
        ("multiply", [dec(15, 2), dec(15, 2, N)], "decimal<31,4>?"),
        ("multiply", [dec(30, 2), dec(20, 2)], "decimal<38,4>"),  # capped at 38 (scale kept when it fits)
        ("add", [dec(15, 2), dec(7, 2)], "decimal<16,2>"),  # max(P1-S1, P2-S2) + max(S1,S2) + 1
        ("avg", [dec(15, 2)], "decimal<38,2>?"),
        ("count", [string(N)], "i64"),  # count never null
        ("count", [], "i64"),
        ("rank", [], "i64?"),
        ("not", [Type(bool=Type.Boolean(nullability=N))], "boolean?"),
        ("like", [string(), string()], "boolean"),
        ("max", [Type(date=Type.Date(nullability=N))], "date?"),
        ("sum", [Type(i32=Type.I32(nullability=R))], "i64?"),
    ],
)
def test_output_types_follow_the_yaml_derivations(name, args, expected):
    derived = derive(name.split(":")[0], "", args)
    assert derived.type is not None, derived.how
    assert T.render(derived.type) == expected


def test_producer_overloads_are_used_and_said():
    like = derive("like", "", [string(), string(), string(N)])  # DataFusion: like(x, pattern, NULL escape)
    assert T.render(like.type) == "boolean?" and "producer" in like.how
    stddev = derive("stddev", "", [dec(7, 2, N)])  # DataFusion's name, and decimals it accepts
    assert T.render(stddev.type) == "fp64?" and "std_dev" in stddev.how


def test_an_unknown_function_or_overload_says_why():
    assert derive("no_such_fn", "", [string()]).type is None
    assert "no extension YAML defines" in derive("no_such_fn", "", [string()]).how
    bad = derive("substring", "", [dec(7, 2)])
    assert bad.type is None and "no overload of substring" in bad.how
    unknown = derive("sum", "", [None])
    assert unknown.type is None and "argument 0" in unknown.how


# ---- aggregates with grouping sets ---------------------------------------------------------------


def _rollup_body(keys: int):
    """GROUP BY ROLLUP(k0, ..., k{n-1}) as DataFusion 55 writes it: each set's keys listed again."""
    from substrait import algebra_pb2

    body = algebra_pb2.AggregateRel()
    for size in range(keys, -1, -1):
        g = body.groupings.add()
        for k in range(size):
            e = body.grouping_expressions.add()
            e.selection.direct_reference.struct_field.field = k
            e.selection.root_reference.SetInParent()
            g.expression_references.append(len(body.grouping_expressions) - 1)
    return body


def test_equal_grouping_expressions_share_a_column():
    layout = aggregate_layout(_rollup_body(2), Conventions())
    assert layout.keys == (0, 1)  # six grouping expressions, two distinct
    assert [sorted(s) for s in layout.sets] == [[0, 1], [0], []]
    assert layout.grouping_column == "index" and [layout.grouping_value(i) for i in range(3)] == [0, 1, 2]


def test_datafusion_grouping_id_is_the_sql_grouping_bit_mask():
    """DataFusion's grouping id has a key's bit set when the set leaves it out, the first key highest:
    SQL's GROUPING(k0, k1, k2), here from DuckDB over ROLLUP."""
    import duckdb

    layout = aggregate_layout(_rollup_body(3), Conventions(grouping_column="datafusion"))
    ours = [layout.grouping_value(i) for i in range(len(layout.sets))]
    rows = duckdb.sql(
        "SELECT k0 IS NULL AS n0, k1 IS NULL AS n1, k2 IS NULL AS n2, GROUPING(k0, k1, k2) AS g "
        "FROM (SELECT 1 AS k0, 2 AS k1, 3 AS k2) GROUP BY ROLLUP (k0, k1, k2) ORDER BY g"
    ).fetchall()
    assert ours == [g for *_, g in rows] == [0, 1, 3, 7]
    assert T.render(layout.grouping_type()).startswith("i8")


@pytest.mark.parametrize("keys", [7, 8, 9, 16, 17])
def test_datafusion_grouping_id_width_is_its_consumers(keys):
    """The grouping id is as wide as DataFusion's own consumer reads it from the plan: 8 keys in a UInt8,
    16 in a UInt16 (the model had the next width at exactly 8 and 16 keys)."""
    pytest.importorskip("datafusion")
    from datafusion import SessionContext
    from datafusion.substrait import Consumer, Serde
    from substrait.plan_pb2 import Plan

    from executor.data.generate import tpch
    from executor.engines.sql_plan import sql_to_plan
    from viz.model import analyze

    path = os.path.join(tpch(0.01), "lineitem.parquet")
    columns = ["l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_returnflag", "l_linestatus", "l_shipmode"]
    columns += ["l_shipinstruct", "l_comment", "l_shipdate", "l_commitdate", "l_receiptdate", "l_quantity", "l_tax"]
    columns += ["l_discount", "l_extendedprice", "l_orderkey + 1"]
    listed = ", ".join(columns[:keys])
    plan = sql_to_plan(f"SELECT {listed}, count(*) FROM lineitem GROUP BY ROLLUP ({listed})", {"lineitem": path})
    model = analyze(plan.data)
    aggregate = next(n for n in model.nodes() if n.kind == "aggregate")
    ours = aggregate.schema[keys]
    alone = Plan()
    alone.CopyFrom(model.plan)
    del alone.relations[:]
    alone.relations.add().root.input.CopyFrom(aggregate.node.rel)
    ctx = SessionContext()
    ctx.register_parquet("lineitem", path)
    logical = Consumer.from_substrait_plan(ctx, Serde.deserialize_bytes(alone.SerializeToString()))
    theirs = ctx.create_dataframe_from_logical_plan(logical).schema().field(keys)
    assert ours.name == theirs.name == "__grouping_id"
    bits = int(str(theirs.type).removeprefix("uint"))  # unsigned, as the model's variation says
    assert T.render(ours.type).startswith(f"i{bits}")


def test_datafusion_plans_are_read_by_their_version():
    """DataFusion 55's rollup plan: the model reads its grouping id after the keys, so the columns
    the plan's project picks (GROUPING() from bits of the id) are the right ones."""
    pytest.importorskip("datafusion")
    from executor.data.generate import tpch
    from executor.engines.sql_plan import sql_to_plan
    from viz.model import analyze

    folder = tpch(0.01)
    tables = {t: os.path.join(folder, f"{t}.parquet") for t in ("nation", "region")}
    sql = (
        "SELECT r_name, n_name, count(*) AS c, GROUPING(n_name) AS g FROM nation JOIN region "
        "ON n_regionkey = r_regionkey GROUP BY ROLLUP (r_name, n_name)"
    )
    model = analyze(sql_to_plan(sql, tables, json=False).data)
    aggregate = next(n for n in model.nodes() if n.kind == "aggregate")
    assert [f.name for f in aggregate.schema] == ["r_name", "n_name", "__grouping_id", "count(1)"]
    assert model.conventions.grouping_column == "datafusion"
    root = model.node(model.roots[0])
    assert [f.name for f in root.schema] == ["r_name", "n_name", "c", "g"]
    assert [T.render(f.type) for f in root.schema] == ["string?", "string?", "i64", "i32?"]
    assert not [d for n in model.nodes() for d in n.diagnostics if d.severity.value == "error"]


def test_user_defined_types_that_stand_for_engine_types(tmp_path):
    """DataFusion writes Arrow's Null and Float16 as user-defined types declared by name only ("null",
    "fp16"): the model names them as the spec's test cases do, the check knows their kinds, and the
    executor maps them to Spark's NullType and FloatType; an undeclared one says what it is."""
    pytest.importorskip("datafusion")
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyspark.sql import types as S

    from executor.engines.sql_plan import sql_to_plan
    from executor.errors import Unsupported
    from executor.producer.check import substrait_kind
    from executor.translate.types import to_spark
    from viz.model import analyze

    pq.write_table(pa.table({"a": pa.array([1, 2], pa.int64())}), tmp_path / "t.parquet")
    sql = "SELECT NULL AS n, arrow_cast(a, 'Float16') AS h FROM t"
    model = analyze(sql_to_plan(sql, {"t": str(tmp_path / "t.parquet")}, json=False).data)
    root = model.node(model.roots[0])
    assert [f["type"] for f in root.schema_json()] == ["u!null?", "u!fp16?"]
    assert "null::u!null?" in [text for _, text in root.info.expressions]
    names = model.extensions.types
    assert [substrait_kind(f.type, names) for f in root.schema] == ["null", "float"]
    assert [to_spark(f.type, names) for f in root.schema] == [S.NullType(), S.FloatType()]
    with pytest.raises(Unsupported, match="user-defined type 7 \\(not declared in the plan\\) has no Spark equivalent"):
        to_spark(Type(user_defined=Type.UserDefined(type_reference=7)), names)


def test_datafusion_dictionaries_are_their_values(spark, tmp_path):
    """DataFusion writes a dictionary-encoded column (pandas' categories) as a map of its type variation 1: the
    schema shows it as DataFusion's ``dictionary<i32?, string?>?``, the calls that take it are checked with its
    values' type (no false warnings), and the run holds its values: every query gives DataFusion's rows and
    types in both forms (it had given Spark's analysis errors: ``map_entries`` of a string, ``upper`` of a map).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from executor.engines.sql_plan import sql_to_plan
    from viz.model import analyze

    table = pa.table(
        {
            "id": pa.array([1, 2, 3, 4, 5], pa.int64()),
            "s": pa.array(["a", "b", "a", None, "ß"]).dictionary_encode(),
            "n": pa.array([10, 20, 10, None, 30], pa.int32()).dictionary_encode(),
            "p": pa.array(["x", "a", "x", "z", None]),
        }
    )
    pq.write_table(table, tmp_path / "de.parquet")
    tables = {"de": str(tmp_path / "de.parquet")}
    model = analyze(sql_to_plan("SELECT upper(s) AS u, s FROM de WHERE s = p", tables, json=False).data)
    assert [f["type"] for f in model.node(model.roots[0]).schema_json()] == ["dictionary<i32?, string?>?"] * 2
    warnings = [d.message for n in model.nodes() for d in n.diagnostics if d.severity.name != "INFO"]
    assert warnings == []
    queries = [
        Query("compare", "SELECT id FROM de WHERE s = p OR s < 'b'"),
        Query("text", "SELECT id, length(s) AS l, concat(s, p) AS c, upper(s) AS u, substr(s, 1, 1) AS f FROM de"),
        Query("group", "SELECT s, count(*) AS c, sum(n) AS t, max(s) AS mx FROM de GROUP BY s"),
        Query("order", "SELECT id, s FROM de ORDER BY s DESC NULLS LAST, id"),
        Query("case", "SELECT id, CASE WHEN s = 'a' THEN n ELSE 0 END AS c, coalesce(s, p) AS co FROM de"),
        Query("union", "SELECT s FROM de UNION SELECT p FROM de"),
        Query("join", "SELECT a.id, b.id AS bid FROM de a JOIN de b ON a.s = b.p"),
    ]
    for form in ("written", "optimized"):
        checker = Checker(tables, form=form)
        for query in queries:
            out = checker.check(query)
            assert out.ok or "Unsupported literal: Dictionary" in out.why, (form, query.name, out.why)
            assert form == "optimized" or out.ok, (query.name, out.why)  # the written plans hold no dictionary literal


# ---- reading queries -----------------------------------------------------------------------------


def test_read_queries(tmp_path):
    (tmp_path / "one.sql").write_text("SELECT * FROM '{lineitem}';\n")
    (tmp_path / "many.sql").write_text("-- name: a\nSELECT 1\n;\n\n-- name: b\nSELECT 2;\n;\n")
    got = read_queries([str(tmp_path)])
    assert got == [Query("a", "SELECT 1"), Query("b", "SELECT 2"), Query("one", "SELECT * FROM lineitem")]
    features = read_queries([FEATURES_SQL])
    assert len(features) >= 60 and len({q.name for q in features}) == len(features)


def test_feature_queries_mean_the_same_to_datafusion_and_duckdb(tpch_dir):
    """The SQL of our own is only an oracle where two engines agree on it: DataFusion's rows equal
    DuckDB's for every query (no Spark here)."""
    checker = Checker({t: os.path.join(tpch_dir, f"{t}.parquet") for t in _TPCH}, run=False)
    engine = DataFusionEngine(checker.tables)
    differ = []
    for q in read_queries([FEATURES_SQL, MIXED_TYPES_SQL]):
        result = engine.run(q.sql)
        assert result.table is not None, (q.name, result.error)
        datafusion = [tuple(r.values()) for r in result.table.to_pylist()]
        diff = multiset_diff(datafusion, checker.duckdb_rows(q.sql))
        if diff:
            differ.append((q.name, diff))
    assert differ == []


def test_check_cli_bad_input(tmp_path):
    from executor.__main__ import main

    err = io.StringIO()
    assert main(["check", str(tmp_path / "missing.sql"), "--data-dir", str(tmp_path)], out=io.StringIO(), err=err) == 2
    assert "no NAME.parquet" in err.getvalue() or "no such SQL" in err.getvalue()
    # a table that is a link to a file outside the folder: refused with the reason, not a traceback
    import pyarrow as pa
    import pyarrow.parquet as pq

    outside, folder = tmp_path / "outside", tmp_path / "tables"
    outside.mkdir()
    folder.mkdir()
    pq.write_table(pa.table({"x": [1]}), str(outside / "t.parquet"))
    os.symlink(outside / "t.parquet", folder / "t.parquet")
    (tmp_path / "q.sql").write_text("-- name: q\nSELECT x FROM t\n;\n")
    err = io.StringIO()
    args = ["check", str(tmp_path / "q.sql"), "--data-dir", str(folder), "--no-run"]
    assert main(args, out=io.StringIO(), err=err) == 2
    assert "outside the data roots" in err.getvalue() and "Traceback" not in err.getvalue()


def test_check_cli_takes_a_data_dir_relative_to_where_it_runs(tmp_path, monkeypatch):
    """--data-dir sample_data/tutorial, as the README writes it: the tables were looked for under the
    folder again ("bound to 'sample_data/tutorial/orders.parquet', which does not exist")."""
    from executor.__main__ import main

    (tmp_path / "q.sql").write_text("-- name: n\nSELECT count(*) AS n FROM orders\n;\n")
    monkeypatch.chdir(ROOT)
    out, err = io.StringIO(), io.StringIO()
    args = ["check", str(tmp_path / "q.sql"), "--data-dir", os.path.join("sample_data", "tutorial"), "--no-run"]
    assert main(args + ["--format", "json"], out=out, err=err) == 0, err.getvalue()
    [result] = [json.loads(line) for line in out.getvalue().splitlines()]
    assert result["produced"] is True and result["schema"] == "same", result


def test_a_sql_file_without_names_holds_each_statement_ended_by_a_semicolon(tmp_path):
    """Two queries one after another in a file without ``-- name:`` lines were one query, refused by
    DataFusion as "several statements"; a semicolon in a literal, a quoted name or a comment ends none."""
    from executor.producer.check import read_queries

    (tmp_path / "two.sql").write_text(
        "-- the counts\nSELECT count(*) AS n FROM orders;\n"
        "SELECT 'a;b' AS \"x;y\", 'it''s;' AS s /* ; */ FROM t -- ;\n;\n-- the end\n"
    )
    (tmp_path / "one.sql").write_text("SELECT 1;\n")
    (tmp_path / "bare.sql").write_text("SELECT 2")
    queries = read_queries([str(tmp_path / n) for n in ("two.sql", "one.sql", "bare.sql")])
    assert [(q.name, q.sql) for q in queries] == [
        ("two_1", "-- the counts\nSELECT count(*) AS n FROM orders"),
        ("two_2", "SELECT 'a;b' AS \"x;y\", 'it''s;' AS s /* ; */ FROM t --"),  # the ends' semicolons go
        ("one", "SELECT 1"),
        ("bare", "SELECT 2"),
    ]


def test_check_cli_says_what_a_sql_file_or_a_scale_should_be(tmp_path, capsys):
    from executor.__main__ import main

    (tmp_path / "t.parquet").write_bytes(b"")  # a table for the folder check; no query reads it
    (tmp_path / "rand.sql").write_bytes(bytes(range(128, 256)))
    (tmp_path / "empty.sql").write_text("-- nothing here\n")
    (tmp_path / "q.sql").write_text("SELECT 1 AS one;\n")
    cases = [
        ([str(tmp_path / "rand.sql")], "rand.sql is not UTF-8 text: a .sql file of queries is expected"),
        ([str(tmp_path / "empty.sql")], "empty.sql holds no query"),
        ([str(tmp_path / "q.sql"), "--query", "nope"], "no query named nope; the files hold q"),
    ]
    for argv, says in cases:
        err = io.StringIO()
        assert main(["check", *argv, "--data-dir", str(tmp_path), "--no-run"], out=io.StringIO(), err=err) == 2
        assert says in err.getvalue() and "Traceback" not in err.getvalue(), err.getvalue()
    assert main(["check", str(tmp_path / "q.sql"), "--tpch", "-1"], out=io.StringIO(), err=io.StringIO()) == 2
    assert "must be a scale factor above 0 (such as 0.01 or 1), not '-1'" in capsys.readouterr().err


def test_check_cli_schema_only(tpch_dir, tmp_path):
    """Without Spark: the 22 TPC-H plans DataFusion writes, every root as DataFusion's result schema;
    each plan saved as JSON that loads."""
    from executor.__main__ import main
    from viz.model import analyze

    out = io.StringIO()
    args = ["check", TPCH_SQL, "--data-dir", tpch_dir, "--no-run", "--format", "json", "--save-plans", str(tmp_path)]
    status = main(args, out=out, err=io.StringIO())
    results = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(results) == 22
    bad = [r for r in results if not (r["produced"] is True and r["schema"] == "same" and r["unknown"] == 0)]
    assert not bad, bad
    # JSON's own values: a step not taken is null (the table's "-"), whether the query is right a boolean
    assert all(r["ok"] is True and r["rows"] == "not run" and r["spark_types"] is None for r in results), results[0]
    assert status == 0
    assert sorted(os.listdir(tmp_path)) == sorted(f"{r['query']}.json" for r in results)
    assert "relations" in json.loads((tmp_path / "q01.json").read_text())
    q01 = analyze((tmp_path / "q01.json").read_bytes())
    assert [f.name for f in q01.node(q01.roots[0]).schema][:3] == ["l_returnflag", "l_linestatus", "sum_qty"]


# ---- the live check, on Spark --------------------------------------------------------------------


def _report(title: str, outcomes) -> None:
    print("\n" + render_table(title, outcomes))


#: The forms of a plan DataFusion's producer writes that a person meets: the plan as written
#: (``df.logical_plan()``, implicit coercions and all, the call DataFusion's documentation shows) and
#: the plan after DataFusion's analyzer (its coercions made explicit as casts).
FORMS = ("written", "analyzed")


@pytest.mark.parametrize("form", FORMS)
def test_datafusion_tpch_plans_give_datafusions_rows(spark, tpch_dir, form):
    """The TPC-H specification's texts (``executor/producer/sql/tpch.sql``: date ranges as a date plus an
    interval, q06's ``BETWEEN 0.06 - 0.01 AND 0.06 + 0.01``, whose plan as written compares a decimal
    with a double)."""
    checker = Checker({t: os.path.join(tpch_dir, f"{t}.parquet") for t in _TPCH}, form=form)
    outcomes = list(checker.check_all(read_queries([TPCH_OFFICIAL_SQL]), jobs=JOBS))
    _report(f"DataFusion 55, TPC-H scale 0.01, {form}", outcomes)
    assert len(outcomes) == 22
    assert [(o.query, o.why) for o in outcomes if not o.ok] == []


@pytest.mark.parametrize("form", FORMS)
def test_datafusion_feature_queries_give_datafusions_rows(spark, tpch_dir, form):
    checker = Checker({t: os.path.join(tpch_dir, f"{t}.parquet") for t in _TPCH}, form=form)
    outcomes = list(checker.check_all(read_queries([FEATURES_SQL, MIXED_TYPES_SQL]), jobs=JOBS))
    _report(f"DataFusion 55, SQL of our own, TPC-H scale 0.01, {form}", outcomes)
    assert [(o.query, o.why) for o in outcomes if not o.ok] == []


DATAFUSION_FUNCTIONS_SQL = os.path.join(os.path.dirname(FEATURES_SQL), "datafusion_functions.sql")


@pytest.mark.parametrize("form", ("written", "optimized"))
def test_datafusions_own_functions_give_datafusions_rows(spark, tpch_dir, form):
    """Functions whose meaning is DataFusion's own (date_part('dow'), regexp_replace without 'g',
    concat of a null, substring from 0, log(x), ...): the rows of DataFusion's engine (DuckDB's where
    DataFusion's cannot run the SQL). The optimized form writes some of them otherwise (regex_match)."""
    checker = Checker({t: os.path.join(tpch_dir, f"{t}.parquet") for t in _TPCH}, form=form)
    outcomes = list(checker.check_all(read_queries([DATAFUSION_FUNCTIONS_SQL]), jobs=JOBS))
    _report(f"DataFusion 55, its own functions, TPC-H scale 0.01, {form}", outcomes)
    assert len(outcomes) >= 19
    assert [(o.query, o.why) for o in outcomes if not o.ok] == []


#: TPC-DS queries DataFusion 55 itself cannot plan, with its reason (checked: the producer refuses them).
TPCDS_NOT_PLANNED = {
    "49": "DataFusion's SQL planner does not know the type name DEC(15,4)",
    "98": "DataFusion's SQL parser rejects the query's syntax",
}


def _features(model) -> set[str]:
    """What a plan asks of a consumer: its relation kinds (join types apart), each kind over each kind
    it takes as an input, and its functions (their compound names, types included)."""
    kinds = set()
    for node_id in model.graph.nodes:
        node = model.node(node_id)
        kinds.add(f"rel:{node.kind}")
        if node.kind == "join":
            kinds.add(f"join:{node.node.body.type}")
        kinds.update(f"over:{node.kind}>{model.node(i).kind}" for i in node.inputs)
    functions = {
        f"fn:{e.extension_function.name}" for e in model.loaded.plan.extensions if e.HasField("extension_function")
    }
    return kinds | functions


K = TypeVar("K", str, tuple[str, str])


def covering(features: dict[K, set[str]], always: set[K]) -> list[K]:
    """The queries (or (query, form) pairs) ``always``, then, greedily, the one bringing the most features
    none chosen has, until every feature of every one is brought (ties: the first in sorted order)."""
    chosen = [q for q in sorted(features) if q in always]
    have = set().union(*(features[q] for q in chosen))
    while True:
        best = max(sorted(features), key=lambda q: len(features[q] - have))
        if not features[best] - have:
            return chosen
        chosen.append(best)
        have |= features[best]


@pytest.mark.slow
def test_datafusion_tpcds_plans_give_datafusions_rows(spark):
    """DataFusion 55 plans all 103 TPC-DS queries (but two) in each form, and their schemas are
    DataFusion's; the rows on Spark equal DataFusion's engine's for a set of (query, form) pairs that
    covers every relation kind, join type and function (with its types), and every kind over every kind
    it takes as an input, that any plan of either form holds, and the four known exceptions in both
    forms (27 of 202 plans: a form's coercions show as functions of their own types, so what is common
    to both forms runs once). ``python -m executor check <tpcds-sql> --tpcds 0.01 --form written --form
    analyzed`` runs every query's rows (the README's live-producer figures)."""
    from executor.data.generate import tpcds

    folder = tpcds(0.01)
    tables = {f[: -len(".parquet")]: os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".parquet")}
    queries = read_queries([TPCDS_SQL])
    assert len(queries) == 103
    features: dict[tuple[str, str], set[str]] = {}  # by (query, form)
    for form in FORMS:

        def keep(query, model, form=form):
            features[query.name, form] = _features(model)

        produced = list(map(Checker(tables, run=False, form=form, on_plan=keep).check, queries))
        _report(f"DataFusion 55, TPC-DS scale 0.01, {form}, plans and schemas", produced)
        assert {o.query for o in produced if o.produced != "yes"} == set(TPCDS_NOT_PLANNED), form
        assert [(o.query, o.why) for o in produced if o.produced == "yes" and o.schema not in ("same", "-")] == []
        assert {q for q, f in features if f == form} == {o.query for o in produced if o.produced == "yes"}
    known = set(TPCDS_BOTH_STOP) | {"58", "83"}
    chosen = covering(features, always={(q, form) for q in known for form in FORMS})
    assert len(chosen) < len(features) / 4 and set().union(*(features[k] for k in chosen)) == set().union(
        *features.values()
    )

    by_name = {q.name: q for q in queries}
    outcomes = []
    for form in FORMS:
        checker = Checker(tables, form=form)
        outcomes += checker.check_all([by_name[query] for query, its_form in chosen if its_form == form], jobs=JOBS)
    _report(f"DataFusion 55, TPC-DS scale 0.01, rows of {len(chosen)} covering plans", outcomes)
    wrong = [(o.query, o.form, o.why) for o in outcomes if not o.ok]
    assert wrong == []
    for o in outcomes:
        if o.query in TPCDS_BOTH_STOP:
            assert o.rows == "both fail" and TPCDS_BOTH_STOP[o.query][0] in o.why, (o.query, o.form, o.why)
    # The corpus text of 58 and 83 holds an unsubstituted qgen template ('date(1998+"-01-01",…)' compared
    # with a date): DataFusion's engine and DuckDB refuse to cast it, and so does Spark, as the plan's cast says.
    assert sorted((o.query, o.form) for o in outcomes if o.rows == "all fail") == sorted(
        (q, form) for q in ("58", "83") for form in FORMS
    )
    assert sum(o.ok for o in outcomes) == len(chosen)


def test_a_covering_set_brings_every_feature_once_needed():
    """covering: the queries asked for, then the one bringing most, until nothing new is left."""
    features = {"a": {"x"}, "b": {"x", "y", "z"}, "c": {"z", "w"}, "d": {"x"}}
    assert covering(features, always=set()) == ["b", "c"]
    assert covering(features, always={"d"}) == ["d", "b", "c"]
    assert covering({"a": set()}, always=set()) == []


#: Produced plans whose run stops, as DataFusion's engine does on the SQL, each with the text its outcome
#: must hold and the reason (checked by hand on the measured sweep).
_DIVIDE = (
    "Divide by zero",
    "a decimal division by zero (a group whose sum is 0 at this scale; the spec's decimal divide leaves "
    "division by zero open): DataFusion's engine stops, and so does the run of its plan; DuckDB computes "
    "the quotient in double, NaN",
)
TPCDS_BOTH_STOP: dict[str, tuple[str, str]] = {"12": _DIVIDE, "90": _DIVIDE}

_TPCH = ("customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier")


def test_the_table_says_when_rows_were_not_run():
    from executor.producer.check import Outcome, render_table

    planned = Outcome(query="q1", produced="yes", schema="same", rows="not run")
    ran = Outcome(query="q2", produced="yes", schema="same", rows="same")
    assert render_table("t", [planned]).splitlines()[0] == "**t**: 1 of 1 fully right (rows not run)"
    assert render_table("t", [planned, ran]).splitlines()[0] == "**t**: 2 of 2 fully right (1 with rows not run)"
    assert render_table("t", [ran]).splitlines()[0] == "**t**: 1 of 1 fully right"


def test_a_plan_that_lost_the_sqls_meaning_is_blamed_on_its_producer(spark, tpch_dir):
    """DataFusion 55's producer writes ``RANGE BETWEEN 2 PRECEDING`` of the SQL as written with an unbounded
    lower bound (its optimized plan keeps the 2): Spark's rows differ from DataFusion's result of the SQL,
    which DuckDB confirms, and DataFusion's own engine running the plan gives Spark's rows, so the verdict
    names the plan, not the run."""
    sql = (
        "SELECT n_nationkey, sum(n_nationkey) OVER (ORDER BY n_nationkey RANGE BETWEEN 2 PRECEDING AND CURRENT ROW)"
        " AS s FROM nation"
    )
    tables = {t: os.path.join(tpch_dir, f"{t}.parquet") for t in _TPCH}
    written = Checker(tables, form="written").check(Query("range", sql))
    assert written.rows == "differs"
    assert "the plan does not mean the SQL (its producer's doing)" in written.why
    assert Checker(tables, form="optimized").check(Query("range", sql)).ok
    # DuckDB cannot parse IGNORE NULLS, which DataFusion's producer drops: DataFusion running the plan
    # still says whose doing the difference is
    ignoring = (
        "SELECT n_nationkey, lag(CASE WHEN n_nationkey % 3 = 0 THEN NULL ELSE n_nationkey END) IGNORE NULLS "
        "OVER (ORDER BY n_nationkey) AS l FROM nation"
    )
    lost = Checker(tables, form="written").check(Query("ignoring", ignoring))
    assert lost.rows == "differs" and "DuckDB cannot run the SQL either" in lost.why
    assert "DataFusion's engine running the plan gives Spark's rows: the plan does not mean the SQL" in lost.why
    assert "does not keep IGNORE NULLS" in lost.why


def test_where_datafusion_fails_on_the_sql_its_engine_running_the_plan_still_says_whose_doing_it_is(spark, tpch_dir):
    """DataFusion 55's engine cannot run a correlated NOT IN over a nullable column ("null_aware anti join
    only supports single column join key"), so DuckDB's rows are the oracle: none, since NULL NOT IN
    (NULL) is not true (checked by hand). The producer writes a plain anti join, which keeps region 1, and
    DataFusion's engine running the plan keeps it too: the verdict names the plan, not the run."""
    sql = (
        "SELECT r_regionkey FROM region r WHERE r_regionkey NOT IN "
        "(SELECT nullif(n_regionkey, 1) FROM nation n WHERE n.n_regionkey = r.r_regionkey) ORDER BY 1"
    )
    tables = {t: os.path.join(tpch_dir, f"{t}.parquet") for t in _TPCH}
    out = Checker(tables, form="written").check(Query("not_in", sql))
    assert (out.oracle, out.rows) == ("duckdb", "differs")
    assert "rows: 1 rows, expected 0" in out.why
    assert (
        "DataFusion's engine running the plan gives Spark's rows: the plan does not mean the SQL as DuckDB" in out.why
    )


def test_where_no_engine_reads_the_sql_as_datafusion_does_the_verdict_blames_no_one(spark, tpch_dir):
    """DataFusion 55's engine refuses LIKE ... ESCAPE '#' (the SQL) and the plan, so DuckDB's rows are
    the oracle, and DuckDB's LIKE has no backslash escape, where DataFusion's has: '%\\_%' is true of 'a_b'
    to DataFusion (the run says true) and false to DuckDB. The verdict says nothing decides, not that
    Spark's run is wrong."""
    sql = "SELECT s LIKE '%\\_%' AS a, s LIKE 'a#_b' ESCAPE '#' AS b FROM (VALUES ('a_b')) t(s)"
    tables = {t: os.path.join(tpch_dir, f"{t}.parquet") for t in _TPCH}
    out = Checker(tables, form="written").check(Query("like_escape", sql))
    assert (out.oracle, out.rows) == ("duckdb", "differs"), out.why
    assert "rows: row (True, True) is not expected" in out.why, out.why
    assert "nothing says whether Spark's run or DuckDB's reading of the SQL departs from DataFusion's" in out.why


def test_check_compares_columns_by_position_and_a_cut_run_as_part_of_the_result(spark, tpch_dir):
    """Two output columns of one name stay two (DataFusion's rows were read as dicts, which kept one);
    a result larger than the run keeps is compared as Spark's first rows, each found in the result."""
    tables = {t: os.path.join(tpch_dir, f"{t}.parquet") for t in _TPCH}
    checker = Checker(tables, form="written")
    twins = checker.check(
        Query(
            "twins",
            "SELECT a.n_nationkey, b.n_nationkey FROM nation a JOIN nation b "
            "ON a.n_regionkey = b.n_regionkey AND a.n_nationkey < b.n_nationkey",
        )
    )
    assert twins.ok, twins.why
    many = checker.check(Query("many", "SELECT l_orderkey, l_linenumber FROM lineitem"))
    assert many.ok and "Spark's first 10,000 rows compared, as part of the 60,175 expected" in many.why


def test_sparks_result_is_of_the_plans_types_where_datafusion_declares_none(spark, tpch_dir, monkeypatch):
    """DataFusion writes no output type on an aggregate or a window function: the run takes the type the
    YAMLs derive (``sum`` of ``decimal<15,2>`` is ``decimal<38,2>?``, ``row_number`` is ``i64?``), where
    Spark's own were ``decimal(25,2)`` and ``int``. The check counts a result type that is not the plan's,
    whatever its values."""
    import executor.producer.check as check

    tables = {t: os.path.join(tpch_dir, f"{t}.parquet") for t in _TPCH}
    checker = Checker(tables, form="optimized")
    query = Query(
        "typed",
        "SELECT n_regionkey, sum(c_acctbal) AS s, row_number() OVER (ORDER BY n_regionkey) AS rn, "
        "rank() OVER (ORDER BY n_regionkey) AS r FROM nation JOIN customer ON c_nationkey = n_nationkey "
        "GROUP BY n_regionkey",
    )
    out = checker.check(query)
    assert (out.ok, out.spark_types) == (True, "same"), out.why

    real = check.Checker._spark_rows

    def retyped(self, model):
        rows, cut, _, warnings = real(self, model)
        return rows, cut, ["column 1 (s) is decimal<38,2>? in the plan, but Spark's result is decimal(25,2)"], warnings

    monkeypatch.setattr(check.Checker, "_spark_rows", retyped)
    out = checker.check(query)
    assert (out.ok, out.rows, out.spark_types) == (False, "same", "differs")
    assert "Spark's result: column 1 (s) is decimal<38,2>? in the plan" in out.why
    assert "| typed | optimized | yes | same | same | differs |" in render_table("t", [out])


def test_time_finer_than_a_microsecond_is_judged_by_no_engine(spark, tpch_dir):
    """DataFusion's engine compares 100 ns past midnight as later than midnight; Spark's run keeps
    microseconds and says so on the node. DuckDB keeps microseconds too, so siding with Spark it had
    called DataFusion's result wrong (a hunt): the check says what the run said instead."""
    checker = Checker({t: os.path.join(tpch_dir, f"{t}.parquet") for t in _TPCH}, form="written")
    out = checker.check(
        Query("ns", "SELECT TIMESTAMP '2024-01-01 00:00:00.0000001' > TIMESTAMP '2024-01-01 00:00:00' AS gt")
    )
    assert (out.ok, out.rows) == (False, "differs")
    assert "Spark keeps microseconds" in out.why and "DuckDB keeps microseconds too" in out.why, out.why
    assert "DataFusion's own result is wrong" not in out.why


def test_times_of_day_of_a_zoned_timestamp_are_judged_by_no_engine(spark, tmp_path):
    """A parquet column stored with zone America/New_York: DataFusion's engine takes its hours in that zone,
    Spark's run (and DuckDB, in UTC) in UTC. The plan's type keeps no zone, so the check says no engine
    decides, where DuckDB siding with Spark had called DataFusion's result wrong."""
    from datetime import datetime

    import pyarrow as pa
    import pyarrow.parquet as pq

    instant = datetime(2024, 3, 10, 16, 0, tzinfo=UTC)
    path = tmp_path / "zoned.parquet"
    pq.write_table(pa.table({"ny": pa.array([instant], pa.timestamp("us", tz="America/New_York"))}), path)
    out = Checker({"zoned": str(path)}, form="optimized").check(
        Query("hours", "SELECT extract(hour FROM ny) AS h FROM zoned")
    )
    assert out.rows == "differs" and not out.ok
    assert "table zoned stores ny in zone America/New_York: a plan's timestamp keeps no zone" in out.why, out.why
    assert "no engine decides" in out.why and "DataFusion's own result is wrong" not in out.why


def test_an_interval_shown_as_text_is_compared_as_the_interval_it_is():
    """A run shows Spark's year-month and calendar intervals as their text (Arrow carries neither); the check
    reads that text back as months, days and nanoseconds, DataFusion's month-day-nano interval, so a folded
    ``INTERVAL '1 month' + INTERVAL '3 days'`` is not called a wrong answer (Spark's texts checked by hand)."""
    import pyarrow as pa

    from executor.engines.rows import interval_from_text
    from executor.producer.check import _intervals_typed
    from viz.fields import Field

    assert interval_from_text("1 months 3 days 4 hours 5 minutes 6.5 seconds") == (1, 3, 14_706_500_000_000)
    assert interval_from_text("-1 years -2 months -3 days -0.25 seconds") == (-14, -3, -250_000_000)
    assert interval_from_text("INTERVAL '1-2' YEAR TO MONTH") == (14, 0, 0)
    assert interval_from_text("INTERVAL '-0-3' YEAR TO MONTH") == (-3, 0, 0)
    assert interval_from_text("INTERVAL '5' MONTH") == (5, 0, 0)
    assert interval_from_text("0 seconds") == (0, 0, 0)
    assert interval_from_text("3 apples") is None and interval_from_text("") is None

    compound = Type(interval_compound=Type.IntervalCompound(precision=9))
    table = pa.table({"e": ["1 months 3 days", None], "s": ["1 months 3 days", "x"]})
    typed = _intervals_typed(table, [Field("e", compound), Field("s", Type(string=Type.String()))])
    assert typed.column(0).type == pa.month_day_nano_interval() and typed.column(1).type == pa.string()
    datafusion = pa.array([pa.MonthDayNano([1, 3, 0]), None], type=pa.month_day_nano_interval())
    assert multiset_diff([(v,) for v in typed.column(0).to_pylist()], [(v,) for v in datafusion.to_pylist()]) is None


def test_a_difference_in_a_decimals_last_digit_is_not_blamed_on_the_plan(spark, tpch_dir):
    """The mean of a ``decimal(38,37)`` (DataFusion's ``decimal(38,38)``): DataFusion cuts it toward zero
    (...0476, the exact mean cut, checked by hand), Spark divides at 37 digits and rounds half up (...048).
    DataFusion's engine running the plan gives its own ...0476, but the check compared that with Spark's
    within a unit of the last place and said the plan did not mean its SQL. Compared to the digit, the
    plan is not blamed; DuckDB (a double) cannot judge, so the verdict says the two engines differ, and
    the run says on its node that its last digit may differ."""
    sql = "SELECT avg(CAST(l_discount AS DECIMAL(38,37))) AS a FROM lineitem WHERE l_orderkey < 100"
    tables = {t: os.path.join(tpch_dir, f"{t}.parquet") for t in _TPCH}
    out = Checker(tables, form="optimized").check(Query("avg38", sql))
    assert out.rows == "differs", out.why
    assert "the plan does not mean the SQL" not in out.why
    assert "cannot judge; DataFusion's engine running the plan gives its result of the SQL: Spark's run" in out.why
    assert "no other engine says which is right" in out.why


def test_duckdb_judges_the_columns_where_spark_and_datafusion_differ(spark, tpch_dir):
    """``s_acctbal * 0`` as text: the plan types it decimal(36,2), so Spark's '0.00' is right and
    DataFusion's '0' (its simplifier makes a literal 0 of decimal(20,0)) is not. DuckDB divides the third
    column as a double, so it agreed with neither engine on whole rows and Spark was blamed. It is asked
    about the column where the two differ, and sides with Spark there."""
    sql = (
        "SELECT CAST(s_acctbal AS VARCHAR) AS a, CAST(s_acctbal * 0 AS VARCHAR) AS z, "
        "CAST(-s_acctbal / 1000 AS VARCHAR) AS d FROM supplier WHERE s_suppkey <= 3"
    )
    tables = {t: os.path.join(tpch_dir, f"{t}.parquet") for t in _TPCH}
    out = Checker(tables, form="written").check(Query("times_zero", sql))
    assert out.rows == "differs", out.why
    assert "DuckDB agrees with Spark on column 2, where the two differ: DataFusion's own result is wrong" in out.why


def test_duckdb_decimals_equal_to_one_engines_to_the_digit_decide():
    """Spark's sum a unit of its last place from DataFusion's (its rounding at 6 places, before decimal sums
    kept their scale): DuckDB's exact decimal equal to DataFusion's sides with it; within DuckDB's tolerance
    it was as near to both and "could not judge". A double of DuckDB's still cannot."""
    from decimal import Decimal

    from executor.producer.check import _sides

    spark_rows, df_rows = [(1, Decimal("-1.9876540000"))], [(1, Decimal("-1.9876543211"))]
    assert _sides(spark_rows, df_rows, [(1, Decimal("-1.9876543211"))]) == (False, True)
    assert _sides(spark_rows, df_rows, [(1, Decimal("-1.9876540000"))]) == (True, False)
    assert _sides(spark_rows, df_rows, [(1, -1.98765432)]) == (True, True)


def test_a_run_refused_at_a_literal_its_cast_cannot_hold_fails_with_the_engines(spark, tpch_dir):
    """VALUES (100), (0.5 as decimal(38,37)): every engine stops (DataFusion's overflows, DuckDB cannot
    cast 100, the run refuses the literal before running). The check called it Spark's error alone."""
    tables = {t: os.path.join(tpch_dir, f"{t}.parquet") for t in _TPCH}
    sql = "SELECT x FROM (VALUES (100), (CAST('0.5' AS DECIMAL(38,37)))) t(x)"
    out = Checker(tables, form="written").check(Query("values_overflow", sql))
    assert out.rows == "all fail" and out.ok, out.why
