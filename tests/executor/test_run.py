"""Running a node: first rows, exact counts, columns and types, the cache, refusal of writes,
cancel and timeout that really stop Spark, progress, downloads, session recovery.

Expected rows come from DuckDB reading the same parquet files (the oracle), not from our output.
"""

from __future__ import annotations

import contextlib
import io
import os
import threading
import time
from dataclasses import dataclass, field

import duckdb
import pandas as pd
import pyarrow.parquet as pq
import pytest

from executor.data.catalog import Catalog
from executor.errors import ExecutionError, Refused
from executor.jobs import run as run_mod
from executor.jobs.run import Cancelled, TimedOut, run_node, to_csv_bytes, to_parquet_bytes
from executor.spark import session
from executor.spark.rehearsal import rehearse
from tests.support import ROOT, no_active_jobs
from tests.support.plans import model_of, plan, read

NATION = [("n_nationkey", "i64"), ("n_name", "string"), ("n_regionkey", "i64"), ("n_comment", "string")]
ORDERS = [
    ("o_orderkey", "i64"),
    ("o_custkey", "i64"),
    ("o_orderstatus", "string"),
    ("o_totalprice", "decimal<15,2>"),
    ("o_orderdate", "date"),
]


@dataclass
class _Translation:
    df: object
    names: list[str]
    warnings: list[str] = field(default_factory=list)


class StandIn:
    """A tiny translator for reads of named tables (columns by position), counting its calls."""

    def __init__(self, make=None) -> None:
        self.calls = 0
        self.make = make

    def __call__(self, model, node_id, spark, catalog):
        self.calls += 1
        if self.make is not None:
            return self.make(spark)
        node = model.node(node_id)
        df = catalog.named_table(spark, list(node.node.body.named_table.names))
        names = [f.name for f in node.schema]
        df = df.select(*[df[i].alias(f"_{i}") for i in range(len(names))])
        return _Translation(df, names, ["stand-in warning"])


@pytest.fixture
def stand_in(monkeypatch):
    run_mod.clear_cache()
    translator = StandIn()
    monkeypatch.setattr(run_mod, "_translate", translator)
    return translator


def _duck(sql: str) -> list[tuple]:
    return duckdb.sql(sql).fetchall()


def test_first_rows_count_columns_and_types(spark, tpch_dir, stand_in):
    model = model_of(plan((read("orders", ORDERS), [c for c, _ in ORDERS])))
    cat = Catalog([tpch_dir])
    result = run_node(model, "0", catalog=cat, limit=7, count=True)
    path = os.path.join(tpch_dir, "orders.parquet")
    (total,) = _duck(f"select count(*) from '{path}'")[0]
    assert result.row_count == total == 15000
    assert result.columns == [
        "[0] o_orderkey",
        "[1] o_custkey",
        "[2] o_orderstatus",
        "[3] o_totalprice",
        "[4] o_orderdate",
    ]
    assert result.types == ["bigint", "bigint", "string", "decimal(15,2)", "date"]
    assert len(result.rows) == 7 and result.truncated
    # the 7 rows are rows of the file (a limit without order: compare as a subset, exact values)
    oracle = {
        tuple(r) for r in _duck(f"select o_orderkey, o_custkey, o_orderstatus, o_totalprice, o_orderdate from '{path}'")
    }
    got = {tuple(r) for r in result.rows.itertuples(index=False)}
    assert got <= oracle
    assert result.elapsed_s > 0 and "Scan parquet" in result.explain
    assert result.warnings == ["stand-in warning"]


def test_all_rows_fit_gives_the_exact_count_without_counting(spark, tpch_dir, stand_in):
    model = model_of(plan((read("nation", NATION), [c for c, _ in NATION])))
    result = run_node(model, "0", catalog=Catalog([tpch_dir]), limit=100)
    path = os.path.join(tpch_dir, "nation.parquet")
    oracle = sorted(_duck(f"select * from '{path}'"))
    assert result.row_count == len(oracle) == 25 and not result.truncated
    assert sorted(tuple(r) for r in result.rows.itertuples(index=False)) == oracle
    # limit 0: no rows, the count unknown unless asked
    empty = run_node(model, "0", catalog=Catalog([tpch_dir]), limit=0)
    assert len(empty.rows) == 0 and empty.row_count is None and list(empty.rows.columns) == result.columns


def test_results_are_cached_per_plan_node_limit_count_and_bindings(spark, tpch_dir, stand_in):
    doc = plan((read("nation", NATION), [c for c, _ in NATION]))
    cat = Catalog([tpch_dir])
    first = run_node(model_of(doc), "0", catalog=cat, limit=5)
    again = run_node(model_of(doc), "0", catalog=cat, limit=5)  # the same plan loaded again
    assert again is first and stand_in.calls == 1
    six = run_node(model_of(doc), "0", catalog=cat, limit=6)
    counted = run_node(model_of(doc), "0", catalog=cat, limit=5, count=True)
    assert len(six.rows) == 6 and counted.row_count == 25 and first.row_count is None
    # another limit or a count is another run, of the same translation (a DataFrame runs nothing
    # until an action); other bindings are another translation
    assert stand_in.calls == 1
    run_node(
        model_of(doc),
        "0",
        catalog=Catalog([tpch_dir], bindings={"x": os.path.join(tpch_dir, "region.parquet")}),
        limit=5,
    )
    assert stand_in.calls == 2


def test_writes_are_refused_before_anything_runs(stand_in):
    base = read("nation", NATION)
    write = {
        "write": {
            "namedTable": {"names": ["target"]},
            "tableSchema": base["read"]["baseSchema"],
            "op": "WRITE_OP_INSERT",
            "input": {"filter": {"input": base, "condition": {"literal": {"boolean": True}}}},
            "output": "OUTPUT_MODE_NO_OUTPUT",
        }
    }
    model = model_of(plan(write))
    assert model.node("0").kind == "write"
    with pytest.raises(Refused, match="never executed"):
        run_node(model, "0", catalog=Catalog(), limit=5)
    assert stand_in.calls == 0
    with pytest.raises(ExecutionError, match="no node '9'"):
        run_node(model, "9", catalog=Catalog())


def _slow(spark):
    """A job that takes minutes: the sum of a trillion numbers."""
    from pyspark.sql import functions as F

    return _Translation(spark.range(0, 10**12, numPartitions=4).select(F.sum("id").alias("_0")), ["total"])


def test_timeout_stops_the_run(spark, monkeypatch):
    run_mod.clear_cache()
    monkeypatch.setattr(run_mod, "_translate", StandIn(_slow))
    seen: list[tuple[float, str]] = []
    start = time.monotonic()
    with pytest.raises(TimedOut, match="timed out after 2 s"):
        run_node(
            model_of(plan(read("nation", NATION))),
            "0",
            catalog=Catalog(),
            timeout_s=2,
            progress=lambda f, m: seen.append((f, m)),
        )
    assert time.monotonic() - start < 2 + run_mod.STOP_GRACE_S + 8  # slack for a loaded machine
    assert no_active_jobs(spark)
    assert seen and all(0.0 <= f <= 1.0 for f, _ in seen)


def test_a_rehearsal_runs_each_node_keeps_nothing_and_keeps_to_its_budget(spark, tpch_dir, monkeypatch):
    """executor.spark.rehearsal.rehearse (the warm-up of an opened plan): each node run once, the failing one passed
    over, no result cached; a node still running when the budget is up is interrupted, and the rest
    are not started."""
    run_mod.clear_cache()
    model = model_of(
        plan((read("nation", NATION), [c for c, _ in NATION]), (read("orders", ORDERS), [c for c, _ in ORDERS]))
    )
    cat = Catalog([tpch_dir])
    collected: list[int] = []
    real = run_mod._collect
    monkeypatch.setattr(run_mod, "_collect", lambda df, rows: collected.append(rows) or real(df, rows))
    assert rehearse(model, ["1", "9", "0"], spark, cat, budget_s=120) == ["1", "0"]
    assert collected == [101, 101]  # as Run runs them: the first 100 rows and one more
    assert not run_mod._cache  # nothing kept: a Run after it runs again

    run_mod.clear_cache()  # and the translations made above
    translate = run_mod._translate
    slow = StandIn(_slow)
    monkeypatch.setattr(run_mod, "_translate", slow)
    start = time.monotonic()
    assert rehearse(model, ["0", "1"], spark, cat, budget_s=2) == []
    assert time.monotonic() - start < 2 + run_mod.STOP_GRACE_S + 8  # slack for a loaded machine
    assert no_active_jobs(spark) and slow.calls == 1  # node 1 was not started
    assert rehearse(model, ["0"], spark, cat, budget_s=0) == [] and slow.calls == 1

    # a node over a cross product is never rehearsed; the inputs of the product are
    monkeypatch.setattr(run_mod, "_translate", translate)
    cross = {"cross": {"left": read("nation", NATION), "right": read("region", [("r_regionkey", "i64")])}}
    over = model_of(plan({"fetch": {"input": cross, "count": 5}}))
    assert rehearse(over, ["0", "0.0", "0.0.0", "0.0.1"], spark, cat, budget_s=120) == ["0.0.0", "0.0.1"]


def test_a_run_s_turn_is_timed_and_the_next_run_of_the_node_takes_its_place_in_line_by_it(
    spark, tpch_dir, stand_in, monkeypatch
):
    """What the line (``executor.spark.turns``) orders runs of the same size by: the seconds the same node
    of the same plan, on the same tables, took in its last turn; a rehearsal's time counts (it takes
    fewer rows), a run stopped before its end does not."""
    from executor.jobs import supervise
    from executor.spark.turns import Line

    model = model_of(plan((read("nation", NATION), [c for c, _ in NATION])))
    cat = Catalog([tpch_dir])
    run_mod._TOOK.clear()
    assert run_mod.SparkRun(model, "0", spark, cat, limit=5, count=False).took() is None
    assert rehearse(model, ["0"], spark, cat, budget_s=120) == ["0"]
    last = run_mod.SparkRun(model, "0", spark, cat, limit=5, count=False).took  # what the line is told
    took = last()
    assert took is not None and 0 < took < 60
    assert run_mod.SparkRun(model, "0", spark, cat, limit=5, count=True).took() is None  # counting is other work

    asked: list[float | None] = []

    class Recording(Line):
        def turn(self, *args, took=None, **kwargs):
            asked.append(took)
            return super().turn(*args, took=took, **kwargs)

    monkeypatch.setattr(supervise, "SPARK", Recording())
    result = run_node(model, "0", catalog=cat, limit=5)
    assert asked == [took]  # the person's run came to the line with the rehearsal's time
    before = last()
    assert before != took  # now its own

    monkeypatch.setattr(run_mod, "_collect", lambda df, rows: (_ for _ in ()).throw(RuntimeError("broken")))
    with pytest.raises((ExecutionError, RuntimeError)):  # a run that failed: its time is not kept
        run_node(model, "0", catalog=cat, limit=6)
    assert last() == before
    assert len(result.rows) == 5


def test_a_rehearsal_gives_way_to_a_run_a_person_asked_for(spark, tpch_dir, monkeypatch):
    """executor.spark.session.in_background: the rehearsal's run under way is interrupted when a person's Run
    starts, and no other node is rehearsed after it; a rehearsal that starts while a person's run is
    under way runs nothing. (On two cores the two shared them: the tutorial root's first Run 2.7 s.)"""
    run_mod.clear_cache()
    model = model_of(
        plan((read("nation", NATION), [c for c, _ in NATION]), (read("orders", ORDERS), [c for c, _ in ORDERS]))
    )
    cat = Catalog([tpch_dir])
    real = run_mod._translate
    monkeypatch.setattr(run_mod, "_translate", lambda m, n, s, c: _slow(s) if n == "0" else real(m, n, s, c))
    rehearsed: list[list[str]] = []
    worker = threading.Thread(target=lambda: rehearsed.append(rehearse(model, ["0", "1"], spark, cat, budget_s=600)))
    worker.start()
    deadline = time.monotonic() + 60
    while not spark.sparkContext.statusTracker().getActiveJobsIds() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert spark.sparkContext.statusTracker().getActiveJobsIds(), "the rehearsal's job did not start"
    asked = run_node(model, "1", catalog=cat)  # a person's Run
    worker.join(timeout=run_mod.STOP_GRACE_S + 30)
    assert not worker.is_alive() and rehearsed == [[]], rehearsed  # node 0 interrupted, node 1 not started
    assert len(asked.rows) == 100 and no_active_jobs(spark)  # orders: its first 100 rows

    run_mod.clear_cache()
    with session.asked_for():  # a person's run under way
        assert rehearse(model, ["1"], spark, cat, budget_s=600) == []


def test_the_warm_up_prepares_the_open_plan_before_the_common_shapes(monkeypatch):
    """executor.spark.session._warm: the open plan's own warm-up (its rehearsal) comes right after the JVM, and
    the common shapes (for plans opened later) after it, unless a person's run has started by then (on
    a fresh JVM the shapes took 6 s, and the plan's nodes were warm that much later)."""
    done: list[str] = []
    monkeypatch.setattr(session, "get_session", lambda: "spark")
    monkeypatch.setattr(session, "common_shapes", lambda spark, data_file: done.append(f"shapes {spark} {data_file}"))
    session._warm("orders.parquet", lambda spark: done.append(f"plan {spark}"))
    assert done == ["plan spark", "shapes spark orders.parquet"] and session.warm_up_error is None

    done.clear()
    with session.asked_for():  # a person's run under way
        session._warm("orders.parquet", lambda spark: done.append(f"plan {spark}"))
    assert done == ["plan spark"]


@pytest.mark.leaves_spark_tasks
def test_a_count_over_its_budget_stops_and_the_rows_come_back(spark, tpch_dir):
    """A step (executor.jobs.step.run_step) onto a filter over orders x orders x nation (5.6e9 rows at
    scale 0.01): its first rows are there at once, its exact count takes many seconds (the filter is
    observed, not derived). With a 1 s count budget the rows come back with no count and a warning,
    and no job is left running. (Its tasks may run on: a cross product's inner loop does not look at
    Spark's interrupt. In CI runs they outlived executor.spark.reaper's delay, so this test runs last.)"""
    from executor.jobs.profile import clear_cache as clear_profiles
    from executor.jobs.step import run_step

    run_mod.clear_cache()
    clear_profiles()
    orders = read("orders", [("o_orderkey", "i64")])
    nation = read("nation", NATION)
    cross = {"cross": {"left": {"cross": {"left": orders, "right": orders}}, "right": nation}}
    kept = {"filter": {"input": cross, "condition": {"literal": {"boolean": True}}}}
    model = model_of(plan((kept, ["a", "b", "n_nationkey", "n_name", "n_regionkey", "n_comment"])))
    start = time.monotonic()
    result = run_step(model, "0", catalog=Catalog([tpch_dir]), limit=10, count_budget_s=1, timeout_s=120)["0"]
    assert len(result.rows) == 10 and result.row_count is None
    assert any("counting stopped after 1 s (the count budget): more than 10 rows" in w for w in result.warnings)
    assert time.monotonic() - start < 60
    assert no_active_jobs(spark)
    # a count within its budget completes: nation has 25 rows (the TPC-H spec), 10 of them shown
    small = run_step(
        model_of(plan(read("nation", NATION))), "0", catalog=Catalog([tpch_dir]), limit=10, count_budget_s=30
    )["0"]
    assert small.row_count == 25 and not any("counting stopped" in w for w in small.warnings)


def test_cancel_interrupts_the_running_job(spark, monkeypatch):
    """Cancel once the status tracker shows the job's tasks running: the job is interrupted."""
    run_mod.clear_cache()
    monkeypatch.setattr(run_mod, "_translate", StandIn(_slow))
    cancel = threading.Event()
    seen: list[str] = []

    def progress(fraction: float, message: str) -> None:
        seen.append(message)
        if "tasks" in message and "/0 tasks" not in message:
            cancel.set()

    with pytest.raises(Cancelled, match="cancelled"):
        run_node(model_of(plan(read("nation", NATION))), "0", catalog=Catalog(), cancel=cancel, progress=progress)
    assert any("1 Spark job(s)" in m for m in seen), seen[-3:]
    assert no_active_jobs(spark)
    # the session still works after an interrupt
    assert spark.range(3).count() == 3


def test_spark_failures_become_execution_errors(spark, monkeypatch):
    run_mod.clear_cache()

    def failing(spark):
        from pyspark.sql import functions as F

        # a Java exception while the rows are made
        return _Translation(
            spark.range(3).select(F.expr("java_method('java.lang.Integer', 'parseInt', 'boom')")), ["x"]
        )

    monkeypatch.setattr(run_mod, "_translate", StandIn(failing))
    with pytest.raises(ExecutionError, match="Spark failed running node 0.*boom"):
        run_node(model_of(plan(read("nation", NATION))), "0", catalog=Catalog())

    def checked(spark):
        from pyspark.sql import functions as F

        # the translation's own check of a value (raise_error): its message alone
        return _Translation(spark.range(3).select(F.raise_error(F.lit("boom")).alias("_0")), ["x"])

    monkeypatch.setattr(run_mod, "_translate", StandIn(checked))
    run_mod.clear_cache()
    with pytest.raises(ExecutionError) as info:
        run_node(model_of(plan(read("nation", NATION))), "0", catalog=Catalog())
    assert str(info.value) == "node 0 stopped: boom"


def test_caps_and_columns_arrow_cannot_move(spark, monkeypatch):
    """A year-month interval (no Arrow transfer) is shown as text; rows beyond the byte cap are dropped."""
    run_mod.clear_cache()

    def wide(spark):
        from pyspark.sql import functions as F

        df = spark.range(50).select(
            F.col("id").alias("_0"),
            F.expr("make_ym_interval(1, 2)").alias("_1"),
            F.expr("repeat('x', 1000)").alias("_2"),
        )
        return _Translation(df, ["id", "span", "text"])

    monkeypatch.setattr(run_mod, "_translate", StandIn(wide))
    monkeypatch.setattr(run_mod, "MAX_BYTES", 10_000)
    result = run_node(model_of(plan(read("nation", NATION))), "0", catalog=Catalog(), limit=40)
    assert result.types == ["bigint", "interval year to month", "string"]
    assert result.rows["[1] span"].iloc[0] == "INTERVAL '1-2' YEAR TO MONTH"
    assert 1 <= len(result.rows) < 40 and result.row_count is None
    assert any("interval column(s) of months are shown as text" in w for w in result.warnings)
    assert any("only the first" in w and "MB kept" in w for w in result.warnings)


def test_downloads(spark, tpch_dir, stand_in):
    model = model_of(plan((read("orders", ORDERS), [c for c, _ in ORDERS])))
    result = run_node(model, "0", catalog=Catalog([tpch_dir]), limit=4)
    # headed by the names alone, for the tool that reads the file
    names = [c for c, _ in ORDERS]
    back = pd.read_csv(io.BytesIO(to_csv_bytes(result)))
    assert list(back.columns) == names and len(back) == 4
    assert back["o_orderkey"].tolist() == [int(v) for v in result.rows["[0] o_orderkey"]]
    table = pq.read_table(io.BytesIO(to_parquet_bytes(result)))
    assert table.column_names == names and table.num_rows == 4
    assert str(table.schema.field("o_totalprice").type) == "decimal128(15, 2)"
    assert str(table.schema.field("o_orderdate").type) == "date32[day]"


def test_downloaded_columns_are_named_as_another_tool_reads_them():
    """A name two columns share (a join's keys) or none (an expression) gets its position."""
    from executor.jobs.run import download_columns
    from ui.panels.report_button import rows_file_name

    assert download_columns(["id", "x", "id", "", "a b"]) == ["id_0", "x", "id_2", "column_3", "a b"]
    assert rows_file_name("tpch q03.json", "0.0*6", "csv") == "tpch_q03-node-0.0s6.csv"
    # a plan made on the SQL page, by its form and SQL: "SQL__analyzed__SELECT_o_custkey__o_orderdate__o_totalpr_"
    made = "SQL, analyzed: SELECT o_custkey, o_orderdate, sum(x) / 2.5 FROM t…"
    assert rows_file_name(made, "0", "csv") == "SQL_analyzed_SELECT_o_custkey_o_orderdate_sum_x_2.5_FROM_t-node-0.csv"


@pytest.mark.restarts_spark
def test_session_recovers_after_the_jvm_dies(spark):
    """The JVM killed without a word (as a crash would): the next get_session() starts a new one."""
    from executor.spark.session import get_session

    assert spark.range(5).count() == 5
    jvm = spark.sparkContext._gateway.proc
    jvm.kill()  # SIGKILL
    jvm.wait(30)
    again = get_session()
    assert again is not spark
    assert again.range(7).count() == 7


def test_a_broadcast_out_of_memory_is_tried_again(spark, tpch_dir, monkeypatch):
    calls = []

    def flaky():
        calls.append(1)
        if len(calls) <= run_mod.BROADCAST_RETRIES:  # fails on every try but the last
            raise RuntimeError(f"SparkException: {run_mod.BROADCAST_OOM} to all executors")
        return "rows"

    assert run_mod._retry_broadcast(spark, flaky) == "rows" and len(calls) == run_mod.BROADCAST_RETRIES + 1 == 3

    def always(message):
        def action():
            calls.append(1)
            raise RuntimeError(message)

        return action

    calls.clear()
    with pytest.raises(RuntimeError, match="broadcast"):
        run_mod._retry_broadcast(spark, always(f"{run_mod.BROADCAST_OOM} again"))
    assert len(calls) == 3  # a heap that is really full fails every try, with Spark's message
    calls.clear()
    with pytest.raises(RuntimeError, match="other"):
        run_mod._retry_broadcast(spark, always("some other failure"))
    assert len(calls) == 1
    # a run's both Spark actions go through it: the rows and, beyond the limit, the count
    run_mod.clear_cache()
    tried, retry = [], run_mod._retry_broadcast
    monkeypatch.setattr(
        run_mod, "_retry_broadcast", lambda session, action: tried.append(action) or retry(session, action)
    )
    result = run_node(
        model_of(plan((read("orders", ORDERS), [c for c, _ in ORDERS]))),
        "0",
        catalog=Catalog([tpch_dir]),
        limit=7,
        count=True,
    )
    assert result.row_count == 15000 and len(tried) == 2


def test_the_driver_jvm_is_given_the_class_archive_when_there_is_one(monkeypatch, tmp_path):
    """executor.spark.session._java_options: the archive when its file is there, nothing when not (a JVM
    whose archive is missing or unusable starts without it), and the dump option in the process
    that builds it (executor.spark.jvm_archive)."""
    base = f"{session.LOCAL_CONF['spark.driver.extraJavaOptions']} -Dlog4j2.configurationFile={session.LOG_CONFIG}"
    assert os.path.isfile(session.LOG_CONFIG)
    archive = tmp_path / "spark.jsa"
    monkeypatch.setattr(session, "archive_path", lambda: str(archive))
    assert session._java_options() == base
    archive.write_bytes(b"x")
    assert session._java_options() == f"{base} -XX:SharedArchiveFile={archive}"
    monkeypatch.setattr(session, "DUMP_ARCHIVE_TO", "/somewhere/new.jsa")
    assert session._java_options() == f"{base} -XX:ArchiveClassesAtExit=/somewhere/new.jsa"


def test_a_query_run_again_after_a_hundred_others_finds_its_generated_classes(spark):
    """Spark caches the classes it generates per query, 100 by default, fewer than a few open plans
    make (about a dozen each): every run compiled anew. session.LOCAL_CONF's cache keeps them
    (checked failing with the default)."""
    compiled = spark._jvm.org.apache.spark.metrics.source.CodegenMetrics.METRIC_COMPILATION_TIME()

    def generate(i: int) -> None:  # plans the query and generates its code, without running a job
        df = spark.range(3).selectExpr(f"id * {i} + 1 AS x").where(f"x > {i}")
        df._jdf.queryExecution().executedPlan().execute()

    before = compiled.getCount()
    for i in range(120):
        generate(i)
    assert compiled.getCount() - before >= 120  # each query's literals make its own class
    before = compiled.getCount()
    generate(0)
    assert compiled.getCount() == before


def test_the_session_s_jvm_is_started_with_no_python_between_fork_and_exec(spark):
    """PySpark's ``preexec_fn`` runs Python in the forked child of a process with threads, and such a child
    crashed before exec (a new session after a sweep's threads); the JVM is started without one, in a
    process group of its own, which keeps a Ctrl-C at the terminal away from it as the ``preexec_fn`` did."""
    from pyspark import SparkContext

    jvm = SparkContext._gateway.proc
    assert os.getpgid(jvm.pid) == jvm.pid != os.getpgid(0)


def test_the_shared_session_maps_the_class_archive_make_built(spark):
    """make's set-up builds the class archive (python -m executor.spark.jvm_archive); the session's JVM maps
    it: HotSpot turns UseSharedSpaces off when it cannot (a corrupt archive, checked by hand)."""
    path = session.archive_path()
    assert os.path.isfile(path), (
        f"no class archive at {path}: make test builds it (python -m executor.spark.jvm_archive)"
    )
    jvm = spark._jvm
    bean = jvm.java.lang.management.ManagementFactory.getPlatformMXBean(
        jvm.java.lang.Class.forName("com.sun.management.HotSpotDiagnosticMXBean")
    )
    assert bean.getVMOption("SharedArchiveFile").getValue() == path
    assert bean.getVMOption("UseSharedSpaces").getValue() == "true"


def test_a_run_waits_its_turn_says_its_place_and_can_be_cancelled_in_line(spark, tpch_dir, stand_in):
    from executor.spark.turns import SPARK

    model = model_of(plan((read("nation", NATION), [c for c, _ in NATION])))
    statuses: list[str] = []
    outcome: dict = {}
    cancel = threading.Event()

    def ask(limit: int) -> None:
        try:
            outcome[limit] = run_node(
                model,
                "0",
                catalog=Catalog([tpch_dir]),
                limit=limit,
                cancel=cancel,
                progress=lambda fraction, status: statuses.append(status),
            )
        except Exception as exc:  # noqa: BLE001 - the test reads it
            outcome[limit] = exc

    with SPARK.turn("someone else"):  # another person's run holds every turn
        waiting = threading.Thread(target=ask, args=(3,), daemon=True)
        waiting.start()
        deadline = time.monotonic() + 10
        while not any("in line" in s for s in statuses) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert any(s.startswith("waiting for Spark: 1st in line") for s in statuses), statuses
        assert waiting.is_alive() and stand_in.calls == 0  # nothing translated or run while in line
        cancel.set()
        waiting.join(10)
        assert isinstance(outcome[3], Cancelled) and "in line" in str(outcome[3])
    cancel.clear()
    ask(4)  # the line is free again: the next run goes at once
    assert len(outcome[4].rows) == 4 and stand_in.calls == 1


def test_a_plan_opened_later_is_translated_and_its_root_rehearsed_while_spark_is_idle_and_not_before(
    spark, tpch_dir, stand_in, monkeypatch
):
    from executor.spark import rehearsal
    from executor.spark.turns import SPARK

    rehearsed: list[list[str]] = []
    real = rehearsal.rehearse

    def rehearse(model, node_ids, *args, **kwargs):
        done = real(model, node_ids, *args, **kwargs)
        rehearsed.append(done)
        return done

    monkeypatch.setattr(rehearsal, "rehearse", rehearse)
    model = model_of(plan((read("nation", NATION), [c for c, _ in NATION])))
    catalog = Catalog([tpch_dir])
    with SPARK.turn("someone else"):  # a person's run on Spark: the preparer waits
        assert rehearsal.prepare_later(model, ["0"], catalog)
        assert not rehearsal.prepare_later(model, ["0"], catalog)  # handed over once
        time.sleep(4 * rehearsal.IDLE_POLL_S)
        assert stand_in.calls == 0 and rehearsed == []
    deadline = time.monotonic() + 30
    while not rehearsed and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stand_in.calls == 1
    assert rehearsed == [["0"] * rehearsal.LATER_REHEARSALS]  # the root ran to its end, on the translation made
    # the Run that follows finds the translation made
    result = run_node(model, "0", catalog=catalog, limit=3)
    assert len(result.rows) == 3 and stand_in.calls == 1


def test_the_warm_up_s_plan_reopened_is_not_prepared_again(tpch_dir):
    """A reload (or another person) opening the plan the warm-up rehearsed does not rehearse it again."""
    from executor.spark import rehearsal

    model = model_of(plan((read("region", [("r_regionkey", "i64"), ("r_name", "string")]), ["r_regionkey"])))
    catalog = Catalog([tpch_dir])
    rehearsal.prepared_by_warm_up(model, catalog)
    assert not rehearsal.prepare_later(model, ["0"], Catalog([tpch_dir]))  # the same plan and tables
    other = model_of(plan((read("region", [("r_regionkey", "i64"), ("r_name", "string")]), ["r_name"])))
    assert rehearsal._claim(other, catalog)  # another plan would be


def test_dates_beyond_python_s_years_are_shown_as_text():
    import pyarrow as pa

    days = pa.array([0, 3_700_000], pa.date32())  # 1970-01-01 and a day in the year 12100
    table = pa.table({"a": days, "b": pa.array([0, None], pa.date32())})
    shown, note = run_mod._beyond_python(table)
    assert shown.column(0).to_pylist() == ["1970-01-01", "12100-04-04"]
    assert shown.column(1).type == pa.date32()
    assert note == "column 0 holds a year before 1 or after 9999, shown as text"
    assert run_mod.to_pandas(shown, ["a", "b"]).iloc[1, 0] == "12100-04-04"


def test_a_map_is_shown_and_downloaded_as_an_object_of_its_keys():
    import pyarrow as pa

    maps = pa.array([[("k", 1), ("z", None)], None], pa.map_(pa.string(), pa.int64()))
    frame = run_mod.to_pandas(pa.table({"m": maps}), ["m"])
    assert list(frame["m"]) == ['{"k": 1, "z": null}', None]


def test_datafusion_s_view_types_and_structs_are_shown():
    """DataFusion's engine returns lists of string_view, which pandas cannot take; a struct's null member
    stays in its text (the table's own drawing of a struct left it out)."""
    import pyarrow as pa

    names = pa.array([["b", "a"], None], pa.list_(pa.string_view()))
    details = pa.array([{"maker": None, "year": 1979}, None], pa.struct([("maker", pa.string()), ("year", pa.int64())]))
    frame = run_mod.to_pandas(pa.table({"names": names, "details": details}), ["names", "details"])
    assert list(frame["names"][0]) == ["b", "a"] and frame["names"][1] is None
    assert list(frame["details"]) == ['{"maker": null, "year": 1979}', None]


def test_a_map_inside_a_list_or_a_struct_is_an_object_too():
    import pyarrow as pa

    item = pa.map_(pa.string(), pa.int64())
    kind = pa.struct([("tags", pa.list_(item))])
    assert run_mod.csv_field({"tags": [[("k", 1)], None]}, kind) == '{"tags": [{"k": 1}, null]}'


@pytest.mark.parametrize("how", ["bound", "found in a root"])
def test_a_table_written_again_under_its_name_is_read_again(spark, tmp_path, how):
    # a person uploads orders.parquet, runs, uploads another orders.parquet: the run shows the new rows
    run_mod.clear_cache()
    path = tmp_path / "orders.parquet"
    doc = plan((read("orders", [("id", "i64"), ("qty", "i64")]), ["id", "qty"]))
    pd.DataFrame({"id": [1], "qty": [100]}).to_parquet(path)
    catalog = Catalog([str(tmp_path)], bindings={"orders": str(path)} if how == "bound" else None)

    def rows() -> list[tuple]:
        result = run_node(model_of(doc), "0", catalog=catalog, limit=10, count=True)
        assert result.row_count == len(result.rows)
        return sorted(tuple(r) for r in result.rows.itertuples(index=False))

    assert rows() == _duck(f"select * from '{path}'") == [(1, 100)]
    pd.DataFrame({"id": [2, 3], "qty": [5, 7]}).to_parquet(path)  # in place, as an upload of that name is kept
    assert rows() == sorted(_duck(f"select * from '{path}'")) == [(2, 5), (3, 7)]


@pytest.mark.parametrize("work", ["step", "comparison"])
def test_a_step_and_a_comparison_say_their_place_in_line(spark, tpch_dir, stand_in, work):
    """Both had said 'starting' or 'running on Spark' while another person's run held Spark."""
    from executor.jobs.outputs import compare_outputs
    from executor.jobs.step import run_step
    from executor.spark.turns import SPARK

    model = model_of(plan((read("nation", NATION), [c for c, _ in NATION])))
    catalog = Catalog([tpch_dir])
    statuses: list[str] = []
    cancel = threading.Event()

    def say(_fraction: float, status: str) -> None:
        statuses.append(status)

    def ask() -> None:
        with contextlib.suppress(Exception):
            if work == "step":
                run_step(model, "0", catalog=catalog, cancel=cancel, progress=say)
            else:
                compare_outputs(model, "0", model, "0", catalog, catalog, spark=spark, cancel=cancel, progress=say)

    with SPARK.turn("someone else"):
        waiting = threading.Thread(target=ask, daemon=True)
        waiting.start()
        deadline = time.monotonic() + 10
        while not any("in line" in s for s in statuses) and time.monotonic() < deadline:
            time.sleep(0.05)
        cancel.set()
        waiting.join(10)
    place = "node 0: waiting for Spark: 1st in line" if work == "step" else "waiting for Spark: 1st in line"
    assert any(s.startswith(place) for s in statuses), statuses


def test_a_step_cancelled_between_its_runs_says_the_rest_was_cancelled(spark):
    """Cancel clicked once the inputs' rows were in: the output had been left blank, 'not run yet', as if
    nothing had been asked."""
    from executor.jobs.step import run_step

    run_mod.clear_cache()
    with open(os.path.join(ROOT, "sample_plans", "tutorial.json"), "rb") as fh:
        from viz.model import analyze

        model = analyze(fh.read())
    cancel = threading.Event()
    results = run_step(
        model,
        "0.0",
        catalog=Catalog([os.path.join(ROOT, "sample_data", "tutorial")]),
        cancel=cancel,
        on_result=lambda nid, result: cancel.set(),  # the first input's rows land, then Cancel
    )
    first, *rest = model.node("0.0").inputs + ["0.0"]
    assert not isinstance(results[first], str)
    assert [results[n] for n in rest] == [f"the run of node {n} was cancelled before it ran" for n in rest]
