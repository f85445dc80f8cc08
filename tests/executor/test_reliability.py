"""Reliability and security of running uploaded plans: many users at once on the one shared Spark
session, runaway queries, names that look like SQL, no network, no shell, no code evaluation.

Expected rows come from DuckDB reading the same parquet files, or from pandas on data made here.
"""

from __future__ import annotations

import ast
import json
import os
import socket
import threading
import time
import urllib.request

import duckdb
import pandas as pd
import pytest

from executor.data.catalog import Catalog
from executor.errors import TableNotFound, Unsupported
from executor.jobs import run as run_mod
from executor.jobs.run import Cancelled, TimedOut, run_node
from tests.support import ROOT, no_active_jobs
from tests.support.plans import call, field, i64, model_of, plan, read

NATION = [("n_nationkey", "i64"), ("n_name", "string"), ("n_regionkey", "i64"), ("n_comment", "string")]
REGION = [("r_regionkey", "i64"), ("r_name", "string"), ("r_comment", "string")]
ORDERS = [
    ("o_orderkey", "i64"),
    ("o_custkey", "i64"),
    ("o_orderstatus", "string"),
    ("o_totalprice", "decimal<15,2>"),
    ("o_orderdate", "date"),
]
COUNT = {5: ("count:", "functions_aggregate_generic"), 2: ("gt:any_any", "functions_comparison")}


def _filtered(table: str, columns, column: int, above: int) -> dict:
    return plan(
        (
            {"filter": {"input": read(table, columns), "condition": call(2, field(column), i64(above))}},
            [c for c, _ in columns],
        ),
        functions=COUNT,
    )


def _count_of(rel: dict) -> dict:
    agg = {
        "aggregate": {
            "input": rel,
            "groupings": [],
            "measures": [
                {
                    "measure": {
                        "functionReference": 5,
                        "outputType": {"i64": {"nullability": "NULLABILITY_REQUIRED"}},
                        "phase": "AGGREGATION_PHASE_INITIAL_TO_RESULT",
                    }
                }
            ],
        }
    }
    return plan((agg, ["n"]), functions=COUNT)


def _exploding(columns) -> dict:
    """count(*) over orders x orders x orders: 3.4e12 rows at scale 0.01. Its tasks do not stop when
    the job is cancelled (one fused loop per input batch): executor.spark.reaper ends them."""
    cross = {
        "cross": {
            "left": {"cross": {"left": read("orders", columns), "right": read("orders", columns)}},
            "right": read("orders", columns),
        }
    }
    return _count_of(cross)


def _long(columns) -> dict:
    """count(*) over orders x orders x nation x region: 2.8e10 rows, tens of seconds, and
    interruptible (orders x orders x region took 3 s, and sometimes ended before the test cancelled it)."""
    small = {"cross": {"left": read("nation", NATION), "right": read("region", REGION)}}
    cross = {
        "cross": {
            "left": {"cross": {"left": read("orders", columns), "right": read("orders", columns)}},
            "right": small,
        }
    }
    return _count_of(cross)


def _rows(result) -> list[tuple]:
    return sorted(tuple(r) for r in result.rows.itertuples(index=False))


def test_concurrent_users_get_their_own_results(spark, tpch_dir, tmp_path):
    """Six runs at once on the shared session: four succeed with their own rows, one fails for a missing
    table and one is cancelled while it runs; neither disturbs the others."""
    run_mod.clear_cache()
    catalog = Catalog([tpch_dir])
    cases = {
        "nation>10": (
            _filtered("nation", NATION, 0, 10),
            f"select * from '{tpch_dir}/nation.parquet' where n_nationkey > 10",
        ),
        "nation>20": (
            _filtered("nation", NATION, 0, 20),
            f"select * from '{tpch_dir}/nation.parquet' where n_nationkey > 20",
        ),
        "region>1": (
            _filtered("region", REGION, 0, 1),
            f"select * from '{tpch_dir}/region.parquet' where r_regionkey > 1",
        ),
        "orders count": (_count_of(read("orders", ORDERS)), f"select count(*) from '{tpch_dir}/orders.parquet'"),
    }
    results: dict[str, object] = {}
    cancel = threading.Event()

    def work(name: str, doc: dict, **kwargs) -> None:
        try:
            results[name] = run_node(model_of(doc), "0", catalog=catalog, limit=100, count=True, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the test looks at what each user got
            results[name] = exc

    threads = [threading.Thread(target=work, args=(n, doc)) for n, (doc, _) in cases.items()]
    threads.append(threading.Thread(target=work, args=("missing", _filtered("no_such_table", NATION, 0, 1))))
    threads.append(
        threading.Thread(target=work, args=("cancelled", _long(ORDERS)), kwargs={"cancel": cancel, "timeout_s": 120})
    )
    for t in threads:
        t.start()
    time.sleep(3)
    cancel.set()
    for t in threads:
        t.join(timeout=240)
    assert not any(t.is_alive() for t in threads)

    for name, (_, sql) in cases.items():
        got = results[name]
        assert not isinstance(got, Exception), f"{name}: {got!r}"
        assert _rows(got) == sorted(duckdb.sql(sql).fetchall()), name
        assert got.row_count == len(duckdb.sql(sql).fetchall())
    assert isinstance(results["missing"], TableNotFound) and "no_such_table" in str(results["missing"])
    assert isinstance(results["cancelled"], Cancelled) and not isinstance(results["cancelled"], TimedOut)
    assert no_active_jobs(spark, within_s=run_mod.STOP_GRACE_S + 15)
    assert spark.range(4).count() == 4  # the session is still fine


@pytest.mark.slow
@pytest.mark.restarts_spark
def test_an_exploding_cross_join_is_stopped_by_its_timeout(spark, tpch_dir, monkeypatch):
    """On the run's shared session, at the end of the run (the reaper may stop its JVM): the timeout
    ends the run at once; the job's tasks, which ignore the interrupt (one fused loop per input batch
    of 15,000 x 15,000 rows), are ended by stopping the JVM after the reaper's delay (3 s here); the
    next run works on a new session."""
    from executor.spark import reaper
    from executor.spark.session import get_session

    monkeypatch.setattr(reaper, "REAP_AFTER_S", 3.0)
    reaped = reaper.reaped
    jvm = spark.sparkContext._gateway.proc
    start = time.monotonic()
    with pytest.raises(TimedOut, match="timed out after 4 s"):
        run_node(model_of(_exploding(ORDERS)), "0", catalog=Catalog([tpch_dir]), timeout_s=4)
    stopped_after = time.monotonic() - start
    assert stopped_after < 4 + run_mod.STOP_GRACE_S + 20
    deadline = time.monotonic() + reaper.REAP_AFTER_S + 90
    calm_since = time.monotonic()
    while time.monotonic() < deadline and reaper.reaped == reaped:  # until reaped, or no orphan for 15 s
        if (reaper.orphaned_tasks(spark) or 0) > 0:
            calm_since = time.monotonic()
        elif time.monotonic() - calm_since > 15:
            break
        time.sleep(0.5)
    if reaper.reaped > reaped:  # the stopped JVM is collected, not left a zombie while the server runs
        assert not os.path.exists(f"/proc/{jvm.pid}")
    again = get_session()
    assert reaper.orphaned_tasks(again) == 0  # no task of the cancelled job is left running
    assert again.range(5).count() == 5  # the next run works (on a new session when the old JVM was stopped)
    print(
        f"exploding cross join: stopped {stopped_after:.1f} s after start; JVM stopped by the reaper: "
        f"{reaper.reaped - reaped}"
    )


def test_rows_collected_are_capped_whatever_the_limit(spark, tpch_dir):
    run_mod.clear_cache()
    result = run_node(
        model_of(plan((read("orders", ORDERS), [c for c, _ in ORDERS]))), "0", catalog=Catalog([tpch_dir]), limit=10**9
    )
    assert len(result.rows) == run_mod.MAX_ROWS and result.truncated


def test_names_that_look_like_sql_are_data(spark, tmp_path):
    """Table and column names with quotes, backticks and SQL in them are read and shown as they are."""
    names = ["a`b", 'c"d', "'; DROP TABLE t; --", "e.f", "g h", "$0"]
    frame = pd.DataFrame({n: [i, i + 10, i + 20] for i, n in enumerate(names)})
    table = "we'ird`ta\"ble; DROP"
    frame.to_parquet(tmp_path / f"{table}.parquet")
    doc = plan(
        (
            {"filter": {"input": read(table, [(n, "i64") for n in names]), "condition": call(2, field(2), i64(3))}},
            names,
        ),
        functions=COUNT,
    )
    model = model_of(doc)
    assert [f.name for f in model.node("0").schema] == names
    result = run_node(model, "0", catalog=Catalog([str(tmp_path)]), limit=10, count=True)
    assert result.columns == [f"[{i}] {n}" for i, n in enumerate(names)]
    expected = frame[frame["'; DROP TABLE t; --"] > 3]
    assert _rows(result) == sorted(tuple(r) for r in expected.itertuples(index=False))
    assert (tmp_path / f"{table}.parquet").exists()  # nothing was dropped


def test_plans_never_reach_the_network(spark, tpch_dir, monkeypatch):
    """Extension URIs are names: loading, checking and running a plan whose URNs and URIs are web
    addresses opens no connection beyond this machine (Spark's own loopback traffic is allowed)."""
    tried: list[object] = []
    real_connect = socket.socket.connect

    def connect(self, address):
        host = address[0] if isinstance(address, tuple) else address
        if host not in ("127.0.0.1", "::1", "localhost") and not str(host).startswith("/"):
            tried.append(address)
            raise OSError("network access is not allowed in this test")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(
        urllib.request, "urlopen", lambda *a, **k: tried.append(a) or (_ for _ in ()).throw(OSError("no"))
    )
    doc = _filtered("nation", NATION, 0, 10)
    doc["extensionUrns"] = [{"extensionUrnAnchor": 1, "urn": "https://example.com/functions_comparison.yaml"}]
    doc["extensionUris"] = [{"extensionUriAnchor": 9, "uri": "http://192.0.2.1/functions.yaml"}]
    from executor.translate.executable import executability
    from viz.render import to_dot

    model = model_of(doc)
    to_dot(model)
    assert executability(model)["0"].ok
    run_mod.clear_cache()
    result = run_node(model, "0", catalog=Catalog([tpch_dir]), limit=100)
    assert len(result.rows) == 14
    assert tried == []


# ---- static checks: nothing from a plan is evaluated as code or passed to a shell -------------

_SOURCES = ["viz", "executor", "ui", "pages", "app.py"]
# Calls that evaluate text as code; `sql` is allowed only where DataFusion plans (never runs) the
# user's own SQL from the SQL page.
_EVALUATING = {"eval", "exec", "compile", "expr", "F.expr", "functions.expr", "os.system", "os.popen", "pty.spawn"}
_EVALUATING_METHODS = {"selectExpr", "sql"}
_SQL_ALLOWED = {os.path.join("executor", "engines", "sql_plan.py")}


def _python_files() -> list[str]:
    out = []
    for entry in _SOURCES:
        path = os.path.join(ROOT, entry)
        if os.path.isfile(path):
            out.append(path)
            continue
        for dirpath, _, files in os.walk(path):
            out.extend(os.path.join(dirpath, f) for f in files if f.endswith(".py"))
    return sorted(out)


def test_no_code_evaluation_and_no_shell():
    problems = []
    files = _python_files()
    for path in files:
        rel = os.path.relpath(path, ROOT)
        tree = ast.parse(open(path, encoding="utf-8").read(), path)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = ast.unparse(node.func)
            method = node.func.attr if isinstance(node.func, ast.Attribute) else None
            if name in _EVALUATING or (method in _EVALUATING_METHODS and rel not in _SQL_ALLOWED):
                problems.append(f"{rel}:{node.lineno} calls {name}()")
            for kw in node.keywords:
                if kw.arg == "shell" and not (isinstance(kw.value, ast.Constant) and kw.value.value is False):
                    problems.append(f"{rel}:{node.lineno} passes shell=")
    assert len(files) > 30
    assert problems == []


# ---- deep plans -----------------------------------------------------------------------------


def _deep_relations(depth: int) -> dict:
    rel = read("nation", NATION)
    for _ in range(depth):
        rel = {"filter": {"input": rel, "condition": {"literal": {"boolean": True}}}}
    return plan((rel, [c for c, _ in NATION]), functions=COUNT)


def _deep_expression(depth: int) -> dict:
    e = field(0)
    for _ in range(depth):
        e = call(3, e, i64(1), out="i64")
    project = {
        "project": {"input": read("nation", NATION), "expressions": [e], "common": {"emit": {"outputMapping": [4]}}}
    }
    return plan((project, ["x"]), functions={3: ("add:i64_i64", "functions_arithmetic")})


def _json(doc: dict) -> bytes:

    from viz.deep import run_deep

    return run_deep(lambda: json.dumps(doc).encode())  # the encoder recurses once per level


@pytest.mark.parametrize("make", [_deep_relations, _deep_expression], ids=["relations", "expressions"])
def test_ten_thousand_levels_load_draw_and_are_refused_for_spark_with_a_reason(make):
    """10,000 nested relations or expressions: the model loads, derives and draws them, and Spark is
    not asked to plan them (its planner would run out of stack): the reason is given before running."""
    from executor.translate.executable import MAX_SPARK_EXPRESSION_DEPTH, MAX_SPARK_RELATION_DEPTH, executability
    from viz.model import analyze
    from viz.render import to_dot

    model = analyze(_json(make(10_000)))
    assert not [d for d in model.all_diagnostics() if d.severity.value == "error"]
    assert "digraph" in to_dot(model)
    root = executability(model)[model.roots[0]]
    assert not root.ok
    limit = MAX_SPARK_RELATION_DEPTH if make is _deep_relations else MAX_SPARK_EXPRESSION_DEPTH
    assert f"{limit}" in root.reason and "deep" in root.reason
    with pytest.raises(Unsupported, match="deep"):
        run_node(model, model.roots[0], catalog=Catalog())  # refused before Spark is touched


def test_deep_plans_within_the_limits_run(spark, tpch_dir):
    run_mod.clear_cache()
    deep = model_of(_deep_relations(60))
    assert len(run_node(deep, "0", catalog=Catalog([tpch_dir]), limit=100).rows) == 25
    nested = model_of(_deep_expression(50))
    result = run_node(nested, "0", catalog=Catalog([tpch_dir]), limit=100)
    assert sorted(result.rows.iloc[:, 0]) == [k + 50 for k in range(25)]


# ---- oversized and dangling input -----------------------------------------------------------


def test_oversized_plans_are_refused_before_parsing(monkeypatch, tmp_path):
    from viz import load
    from viz.errors import PlanLoadError

    def parse(*_):
        raise AssertionError("an oversized plan must not be parsed")

    monkeypatch.setattr(load, "_load_json", parse)
    monkeypatch.setattr(load, "_load_binary", parse)
    big = b"{" + b" " * load.MAX_PLAN_BYTES + b"}"
    with pytest.raises(PlanLoadError, match=r"plan too large: 67,108,866 bytes; at most 67,108,864"):
        load.load_plan(big)
    path = tmp_path / "big.json"
    path.write_bytes(big)
    with pytest.raises(PlanLoadError, match="plan too large"):
        load.load_path(str(path))  # reads at most one byte more than the limit


def test_dangling_references_are_diagnosed_and_named_when_run(tpch_dir):
    """A function anchor that is not declared, a field past the end of the input, a missing table: the
    model marks each on its node, and the executor names it instead of running."""
    from executor.translate.executable import executability

    undeclared = plan(
        (
            {"filter": {"input": read("nation", NATION), "condition": call(77, field(0), i64(1))}},
            [c for c, _ in NATION],
        ),
        functions=COUNT,
    )
    model = model_of(undeclared)
    assert [d.code for d in model.node("0").diagnostics] == ["unknown-function"]
    assert "function anchor 77 is not declared" in executability(model)["0"].reason
    with pytest.raises(Unsupported, match="function anchor 77 is not declared"):
        run_node(model, "0", catalog=Catalog([tpch_dir]))

    past_end = plan(
        ({"filter": {"input": read("nation", NATION), "condition": call(2, field(9), i64(1))}}, [c for c, _ in NATION]),
        functions=COUNT,
    )
    model = model_of(past_end)
    assert [d.code for d in model.node("0").diagnostics] == ["field-out-of-range"]
    assert "field 9 is out of range: the input has 4 fields" in executability(model)["0"].reason
    with pytest.raises(Unsupported, match="field 9 is out of range"):
        run_node(model, "0", catalog=Catalog([tpch_dir]))
