"""Profile a plan: every node's exact row count, in one execution of the plan where one can answer.

``profile_plan(model, catalog)`` counts the rows of every runnable node of the plan four ways, choosing
per node. A subquery's nodes are counted as a plan of their own, each from the subquery's root, except
those that read a column of the query around them (a correlated subquery's), which run once per outer
row:

- **reads** (``how == "reads"``): every read's rows in one Spark job, a count per read unioned.
  Spark prunes each scan to no columns and pushes its filters into the files; an observation on a
  read would instead keep all its columns through the plan (the broadcasts of TPC-DS q64 then no
  longer fit in memory).
- **one run** (``how == "run"``): the plan is translated once (``executor.translate.rel``) with a
  row-count observation (``DataFrame.observe``) on each other node's output, and executed once (a
  ``noop`` write, which computes everything and keeps nothing). Spark reports every observed node's
  rows at the end of that execution. The execution starts at a *run target*: a root, or, when the
  root's count follows from its inputs' counts, the inputs instead (a plan ending in a Sort and a
  Fetch runs without them). It runs in a session sharing the SparkContext whose adaptive execution
  does not drop a join with an empty side (which would lose the observations below it).
- **derived** (``how == "derived"``): a node whose rows follow from its inputs' rows is not observed
  at all: Project, Sort, Window, Exchange and Reference keep their input's rows; a Fetch or Top-N
  keeps ``min(count, input - offset)``; an aggregate with measures and no grouping has one row; a
  join without a condition (a cross product) has ``left x right`` rows (outer, semi, anti and mark
  joins by their own rule). Not observing them also leaves Spark free to push the filter above a
  condition-less join into it, so a DataFusion plan that writes its join keys in a filter above a
  cross product runs as the equi-join it is, and no cross product is ever computed.
- **own count** (``how == "count"``): a node's subtree counted in its own Spark job
  (``df.count()``), only where the others cannot answer: a node below a Fetch inside a run (the
  Fetch stops reading early, so the rows observed there are a prefix), a node Spark did not
  execute in the run (its optimizer removed it, or it runs as the probe of a mark join), and, when
  a run fails, its nodes, inputs first, so that the error lands on the node that fails.

The profile is one supervised job (``executor.jobs.supervise``), so a ``cancel`` Event or the
``timeout_s`` (for the whole profile) interrupts its Spark jobs, as a run's. A stopped profile keeps the
nodes already counted and says why it stopped.

Per node it records:

- ``rows``: the exact row count of the node's output;
- ``elapsed_s``: the seconds of the execution that counted it: its own count, or the run or the
  reads' job it was counted in (shared by every node of that run or job); 0 for a derived count;
- ``own_s``: for an own count only, an *estimate* of the node's own time (its ``elapsed_s`` minus
  its inputs' own counts' ``elapsed_s``, floored at 0);
- ``how`` and ``run_of``: ``"reads"``, ``"run"`` (and the run's target node), ``"derived"`` or ``"count"``;
- ``error``: the message when the count failed (the rest of the plan still runs; a node whose
  input failed is not run and says so);
- ``skipped``: why the node was not counted (it cannot run on Spark, see
  ``executor.translate.executable.executability``; it is inside a subquery; or the profile was stopped);
- ``flags``: ``"empty"`` when the node has 0 rows while one of its inputs has rows, and
  ``"exploded"`` when its rows exceed ``EXPLODE_FACTOR`` x its largest input's rows *and*
  ``EXPLODE_MIN_ROWS`` (so a 3-row join of 1-row inputs is not "exploded"; a cross join of two
  1,000-row tables is). ``factor`` is rows / largest input's rows.

Counts are memoised per (plan digest, node id, catalog fingerprint), so profiling again, or
profiling a plan that shares nodes with one already profiled, counts each node once.
``profile_plan(..., one_run=False)`` counts every node in its own job (the way before one run; the
benchmark compares the two).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field

from viz.expressions import is_true
from viz.render import NodeStat, Overlay
from viz.schema import aggregate_layout, join_type_name

from ..cache import BoundedCache
from ..errors import Cancelled, ExecutionError
from ..spark.turns import in_line_text
from .run import spark_reason, translation
from .supervise import Job, Progress, supervise

EXPLODE_FACTOR = 10.0
EXPLODE_MIN_ROWS = 1000
CACHE_SIZE = 1024
OBSERVATION_WAIT_S = 2.0  # how long after a run its observations may still be arriving

SUBQUERY_SKIP = "inside a correlated subquery (it runs once per outer row, with that row's values): not profiled"


@dataclass
class NodeProfile:
    node_id: str
    kind: str
    rows: int | None = None
    elapsed_s: float | None = None  # the execution that counted it (shared by a run's nodes); 0 when derived
    own_s: float | None = None  # own counts only, an estimate: elapsed_s minus the inputs' own counts
    error: str | None = None
    skipped: str | None = None
    flags: list[str] = field(default_factory=list)  # "empty", "exploded"
    factor: float | None = None  # rows / the largest input's rows
    cached: bool = False  # the count came from the memo, not from this profile
    how: str | None = None  # "run" (observed in one run), "reads" (all reads' counts in one job),
    # "derived" (from its inputs' rows), "count" (its own job)
    run_of: str | None = None  # for "run": the node the run executed

    @property
    def own_figure(self) -> bool:
        """Whether ``elapsed_s`` is this node's own (an own count, or the node a run executed), not
        a run's time shared with other nodes or a derivation's 0."""
        return self.elapsed_s is not None and (
            self.how == "count" or (self.how == "run" and self.run_of == self.node_id)
        )


@dataclass
class Run:
    """One execution of the plan from ``target`` that counted the ``observed`` nodes."""

    target: str
    observed: list[str]
    seconds: float | None = None
    error: str | None = None  # why the run failed (its nodes were then counted one by one)


@dataclass
class Profile:
    nodes: dict[str, NodeProfile]  # in the plan's node order
    elapsed_s: float = 0.0
    stopped: str | None = None  # "cancelled" or "timed out after N s" when the profile was stopped
    runs: list[Run] = field(default_factory=list)

    @property
    def errors(self) -> dict[str, str]:
        return {n: p.error for n, p in self.nodes.items() if p.error}

    def flagged(self, flag: str) -> list[str]:
        return [n for n, p in self.nodes.items() if flag in p.flags]

    @property
    def jobs(self) -> int:
        """How many executions the profile needed: the reads' count, its runs and its own counts."""
        fresh = [p for p in self.nodes.values() if not p.cached]
        return len(self.runs) + any(p.how == "reads" for p in fresh) + sum(1 for p in fresh if p.how == "count")

    def to_json(self) -> dict:
        """Plain JSON-able data (``json.dumps`` works on it)."""
        return {
            "elapsed_s": self.elapsed_s,
            "stopped": self.stopped,
            "runs": [asdict(r) for r in self.runs],
            "nodes": {n: asdict(p) for n, p in self.nodes.items()},
        }

    def overlay(self) -> Overlay:
        """What ``viz.render.to_dot`` draws over the graph (``View(profile=...)``): a node's time
        only where it is its own."""
        return Overlay(
            tuple(
                (
                    n,
                    NodeStat(
                        rows=p.rows,
                        elapsed_s=p.elapsed_s if p.own_figure else None,
                        flags=tuple(p.flags),
                        factor=p.factor,
                        error=p.error,
                        skipped=p.skipped,
                    ),
                )
                for n, p in self.nodes.items()
            )
        )


# ---- the memo ------------------------------------------------------------------------------

_memo: BoundedCache[tuple, tuple] = BoundedCache(CACHE_SIZE)


def clear_cache() -> None:
    _memo.clear()


# ---- rows that follow from the inputs' rows --------------------------------------------------


class _Unknown(Exception):
    """The node's rows do not follow from its inputs' rows (it has to be observed)."""


def _literal_int(body, name: str, default: int | None) -> int | None:
    if not body.HasField(name):
        return default
    e = getattr(body, name)
    if e.WhichOneof("rex_type") != "literal":
        raise _Unknown
    from ..translate.literals import python_value

    value = python_value(e.literal)
    return None if value is None else int(value)


def _limited(node, rows: list[int], offset_field: str, count_field: str) -> int:
    body = node.node.body
    offset = _literal_int(body, offset_field, 0) or 0
    count = _literal_int(body, count_field, None)
    left = max(0, rows[0] - max(0, offset))
    return left if count is None or count < 0 else min(count, left)


def _global_aggregate(model, node, rows: list[int]) -> int:
    body = node.node.body
    if not body.measures or not aggregate_layout(body, model.conventions).no_keys:
        raise _Unknown
    return 1


def _without_condition(node) -> bool:
    body = node.node.body
    if node.kind == "cross":
        return True
    if body.HasField("expression") and not is_true(body.expression):
        return False
    fields = body.DESCRIPTOR.fields_by_name
    return not ("post_join_filter" in fields and body.HasField("post_join_filter"))


# A join without a condition: every left row meets every right row. By join type, from the
# inputs' rows (left, right): what the translation (executor.translate.joins._join) returns.
_CONDITIONLESS: dict[str, Callable[[int, int], int]] = {
    "JOIN_TYPE_INNER": lambda a, b: a * b,
    "JOIN_TYPE_LEFT": lambda a, b: a * max(b, 1),
    "JOIN_TYPE_LEFT_SINGLE": lambda a, b: a * max(b, 1),
    "JOIN_TYPE_RIGHT": lambda a, b: b * max(a, 1),
    "JOIN_TYPE_RIGHT_SINGLE": lambda a, b: b * max(a, 1),
    "JOIN_TYPE_OUTER": lambda a, b: a * b if a and b else a + b,
    "JOIN_TYPE_LEFT_SEMI": lambda a, b: a if b else 0,
    "JOIN_TYPE_LEFT_ANTI": lambda a, b: 0 if b else a,
    "JOIN_TYPE_RIGHT_SEMI": lambda a, b: b if a else 0,
    "JOIN_TYPE_RIGHT_ANTI": lambda a, b: 0 if a else b,
}


def _join(model, node, rows: list[int]) -> int:
    type_name = "JOIN_TYPE_INNER" if node.kind == "cross" else join_type_name(node.node.body)
    if type_name == "JOIN_TYPE_LEFT_MARK":  # one row per left row, whatever the condition
        return rows[0]
    if type_name == "JOIN_TYPE_RIGHT_MARK":
        return rows[1]
    rule = _CONDITIONLESS.get(type_name)
    if rule is None or not _without_condition(node):
        raise _Unknown
    return rule(rows[0], rows[1])


def _same(model, node, rows: list[int]) -> int:
    return rows[0]


# One entry per relation kind whose rows can follow from its inputs' rows (raising _Unknown when
# this node's do not); every other kind is observed.
DERIVED: dict[str, Callable[..., int]] = {
    "project": _same,
    "sort": _same,
    "window": _same,
    "exchange": _same,
    "reference": _same,
    "fetch": lambda model, node, rows: _limited(node, rows, "offset_expr", "count_expr"),
    "top_n": lambda model, node, rows: _limited(node, rows, "offset", "count"),
    "aggregate": _global_aggregate,
    "cross": _join,
    "join": _join,
    "nested_loop_join": _join,
}

# Kinds that read all their input before they give a row (so a Fetch above them does not cut what
# their input's observation sees short) and kinds that stop reading their input early.
_READS_ALL = frozenset({"sort", "aggregate", "window"})
_CUTS = frozenset({"fetch", "top_n"})


def _derivable(model, nid: str) -> bool:
    """Whether the node's rows follow from its inputs' rows (checked with stand-in counts)."""
    node = model.node(nid)
    rule = DERIVED.get(node.kind)
    if rule is None or not node.inputs:
        return False
    try:
        rule(model, node, [1] * len(node.inputs))
    except _Unknown:
        return False
    except Exception:  # noqa: BLE001 - a malformed body: observe it, Spark will say what is wrong
        return False
    return True


def _derive(model, nid: str, rows: list[int]) -> int:
    node = model.node(nid)
    return DERIVED[node.kind](model, node, rows)


def rows_from_inputs(model, nid: str, input_rows: list[int]) -> int | None:
    """The node's rows when they follow from its inputs' rows (in input order), else None."""
    if len(input_rows) != len(model.node(nid).inputs) or not _derivable(model, nid):
        return None
    return _derive(model, nid, input_rows)


def is_cross_product(model, nid: str) -> bool:
    """Whether the node is an inner join (or CrossRel) without a condition: its rows are the
    product of its inputs' rows."""
    node = model.node(nid)
    if node.kind == "cross":
        return True
    if node.kind not in ("join", "nested_loop_join") or join_type_name(node.node.body) != "JOIN_TYPE_INNER":
        return False
    return _without_condition(node)


# ---- which nodes, in which order -----------------------------------------------------------


def _inputs_first(model, wanted: Iterable[str]) -> list[str]:
    """``wanted`` ordered so every node comes after its inputs (the graph's post-order)."""
    wanted = list(wanted)
    keep = set(wanted)
    return [n for n in model.graph.post_order(wanted, subqueries=False) if n in keep]


def _observed_in(model, target: str, observable: set[str]) -> tuple[set[str], set[str]]:
    """The ``observable`` nodes of ``target``'s subtree whose full output one run of ``target``
    sees, and those it may see only a prefix of (below a Fetch, before anything that reads all)."""
    # Down from the target, readers before what they read: a node is reached whole through some
    # path without a cut, and cut through some path with one.
    whole: set[str] = {target}
    cut: set[str] = set()
    for nid in reversed(model.graph.post_order([target], subqueries=False)):
        kind = model.node(nid).kind
        for is_cut in [c for c, reached in ((False, nid in whole), (True, nid in cut)) if reached]:
            below_cut = kind in _CUTS or (is_cut and kind not in _READS_ALL)
            (cut if below_cut else whole).update(model.node(nid).inputs)
    return (whole - cut) & observable, cut & observable


def _plan_runs(model, runnable: list[str], derived: set[str], reads: set[str] = frozenset()) -> list[Run]:
    """The runs that observe every observable node they can: top down, each node not yet inside a
    run, not derived and not a read (counted apart) is the target of a run of its own subtree."""
    observable = set(runnable) - derived - reads
    runs: list[Run] = []
    inside: set[str] = set()
    for nid in reversed(_inputs_first(model, runnable)):
        if nid in inside or nid in derived or nid in reads:
            continue
        whole, cut = _observed_in(model, nid, observable)
        runs.append(Run(nid, [n for n in runnable if n in whole and n not in inside]))
        inside |= whole | cut
        inside.add(nid)
    return runs


def flags_for(rows: int, input_rows: list[int]) -> tuple[list[str], float | None]:
    """The flags for a node with ``rows`` output rows and these inputs' row counts (see the module)."""
    if not input_rows:
        return [], None
    largest = max(input_rows)
    flags = []
    if rows == 0 and largest > 0:
        flags.append("empty")
    if rows > EXPLODE_FACTOR * largest and rows > EXPLODE_MIN_ROWS:
        flags.append("exploded")
    try:
        factor = rows / largest if largest else None
    except OverflowError:  # a product of many cross joins: beyond any float
        factor = float("inf")
    return flags, factor


# ---- observations --------------------------------------------------------------------------


def _observation(df):
    """A fresh Observation of the kind ``df``'s session takes (classic or Spark Connect)."""
    from ..spark.session import is_connect

    if is_connect(df.sparkSession):
        from pyspark.sql.connect.observation import Observation
    else:
        from pyspark.sql.observation import Observation
    return Observation(f"substrait-viz-rows-{uuid.uuid4().hex}")


def _observed(o) -> int | None:
    """The observed row count, or None while it is not there (Spark did not execute that node)."""
    try:
        jo = getattr(o, "_jo", None)
        if jo is not None:  # classic: a Java Observation whose future completes when the query ends
            if not jo.future().isCompleted():
                return None
            value = o.get.get("rows")
        else:  # Spark Connect: the metrics came with the result
            value = (getattr(o, "_result", None) or {}).get("rows")
    except Exception:  # noqa: BLE001 - the query failed: no metrics
        return None
    return None if value is None else int(value)


# ---- running -------------------------------------------------------------------------------

# Spark's adaptive execution drops a join, and the stages still running below it, when one side
# turns out empty; the observations there are then lost and those nodes need jobs of their own.
_KEEP_WHAT_RUNS = {
    "spark.sql.adaptive.optimizer.excludedRules": "org.apache.spark.sql.execution.adaptive.AQEPropagateEmptyRelation"
}


_observing: dict[int, tuple[object, object]] = {}  # id(session) -> (that session, its observing twin)
_observing_lock = threading.Lock()


def _observing_session(spark):
    """A session sharing ``spark``'s SparkContext whose adaptive execution keeps every observed
    node running (classic sessions, one made per session; a Connect session is used as it is)."""
    from ..spark.session import is_connect

    if is_connect(spark):
        return spark
    with _observing_lock:
        base, twin = _observing.get(id(spark), (None, None))
        if base is spark:
            return twin
        try:
            twin = spark.newSession()
            for key, value in _KEEP_WHAT_RUNS.items():
                twin.conf.set(key, value)
        except Exception:  # noqa: BLE001 - the session as it is: fewer observations, the same counts
            return spark
        _observing.clear()  # the one before belonged to a session that is gone
        _observing[id(spark)] = (spark, twin)
        return twin


def _spark_message(nid: str, exc: BaseException, what: str) -> str:
    return f"Spark failed {what} node {nid}: {spark_reason(exc)}"


class _Work(Job):
    """The runs and own counts of one profile, a supervised job (``executor.jobs.supervise``)."""

    description = "substrait-viz profile"
    tag_prefix = "substrait-viz-profile-"

    def __init__(
        self,
        model,
        order: list[str],
        derived: set[str],
        reads: list[str],
        runs: list[Run],
        profile: Profile,
        spark,
        catalog,
        keys: dict[str, tuple],
        begin: float,
    ) -> None:
        super().__init__(spark, begin=begin)
        self.model, self.order, self.derived, self.read_nodes, self.runs = model, order, derived, reads, runs
        self.profile, self.catalog, self.keys = profile, catalog, keys
        self.steps = len(runs) + len(order) + (1 if reads else 0)
        self.done_count = 0
        self.current: str | None = None
        # every step checks for a stop before its Spark action, but may be past the check: interrupt it
        self.started_execution.set()

    def work(self) -> None:
        # a turn on Spark per Spark job, not one for the whole profile: a person's run clicked meanwhile
        # waits for one of its jobs, not for all of them
        try:
            if self.read_nodes:
                self.check()
                n = len(self.read_nodes)
                self.current = (
                    "counting the read in a Spark job" if n == 1 else f"counting the {n} reads in one Spark job"
                )
                with self.turn():
                    self._count_reads()
                self.done_count += 1
            for run in self.runs:
                self.check()
                self.current = f"running the plan from node {run.target}"
                with self.turn():
                    self._run(run)
                self.done_count += 1
            for nid in self.order:
                self.check()
                self.current = None  # most nodes are counted by now, or follow from their inputs
                self._rest(nid)
                self.done_count += 1
        finally:
            self.current = None

    def progress(self, elapsed: float) -> tuple[float, str]:
        """How far it is, said in the plan's nodes (its steps, one per node and run, read as a count of
        nodes that did not match the plan's)."""
        current = in_line_text(self.in_line) if self.in_line is not None else self.current
        current = f", {current}" if current else ""
        # of the nodes it counts: those it cannot are not counted at its end either
        done = sum(1 for n in self.order if self.profile.nodes[n].rows is not None)
        return (
            min(self.done_count / max(self.steps, 1), 0.99),
            f"{done} of {len(self.order)} nodes counted{current} ({elapsed:.0f} s)",
        )

    def failure(self, exc: BaseException) -> BaseException:
        err = ExecutionError(f"internal error while profiling (a bug; please report it): {type(exc).__name__}: {exc}")
        err.__cause__ = exc
        return err

    def _record(self, nid: str, rows: int, seconds: float, how: str, run_of: str | None = None) -> None:
        p = self.profile.nodes[nid]
        p.rows, p.elapsed_s, p.how, p.run_of = rows, seconds, how, run_of
        _memo.put(self.keys[nid], (rows, seconds, how, run_of))

    def _run(self, run: Run) -> None:
        want = {n for n in run.observed if self.profile.nodes[n].rows is None}
        if not want:
            return
        from pyspark.sql import functions as F

        from ..translate.rel import translate

        observations: dict[str, object] = {}

        def observe(nid: str, df):
            if nid not in want:
                return df
            o = _observation(df)
            observations[nid] = o
            return df.observe(o, F.count(F.lit(1)).alias("rows"))

        try:
            df = translate(self.model, run.target, self.spark, self.catalog, observe=observe).df
            self.check()
            start = time.perf_counter()
            df.write.format("noop").mode("overwrite").save()
            run.seconds = time.perf_counter() - start
        except Cancelled:
            raise
        except Exception as exc:  # the nodes are counted one by one, which says which one fails
            self.check()
            run.error = (
                str(exc)
                if isinstance(exc, ExecutionError)
                else _spark_message(run.target, exc, "running the plan from")
            )
            return
        counts: dict[str, int | None] = {}
        deadline = time.monotonic() + OBSERVATION_WAIT_S
        while True:
            counts = {n: _observed(o) for n, o in observations.items()}
            if all(v is not None for v in counts.values()) or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        for nid, rows in counts.items():
            if rows is not None:  # otherwise Spark did not execute the node: it is counted on its own
                self._record(nid, rows, run.seconds, "run", run.target)

    def _count_reads(self) -> None:
        """Every read's rows in one job: a count per read, unioned. Spark prunes each scan to no
        columns and pushes its filters into the files (an observation on a read would keep every
        column of it through the plan). A failure leaves the reads to be counted one by one."""
        from functools import reduce

        from pyspark.sql import functions as F

        try:
            parts = [
                translation(self.model, nid, self.spark, self.catalog)
                .df.agg(F.count(F.lit(1)).alias("rows"))
                .select(F.lit(nid).alias("node"), "rows")
                for nid in self.read_nodes
            ]
            self.check()
            start = time.perf_counter()
            got = {r["node"]: int(r["rows"]) for r in reduce(lambda a, b: a.unionAll(b), parts).collect()}
            seconds = time.perf_counter() - start
        except Cancelled:
            raise
        except Exception:  # noqa: BLE001 - counted one by one, which says which read fails and why
            self.check()
            return
        for nid, rows in got.items():
            self._record(nid, rows, seconds, "reads")

    def _rest(self, nid: str) -> None:
        """A node the runs did not count: derived from its inputs, or counted in its own job."""
        p = self.profile.nodes[nid]
        if p.rows is not None or p.error or p.skipped:
            return
        inputs = self.model.node(nid).inputs
        bad = [
            i
            for i in inputs
            if i in self.profile.nodes and (self.profile.nodes[i].error or self.profile.nodes[i].skipped)
        ]
        if bad:
            p.skipped = f"not run: its input {bad[0]} " + (
                "failed" if self.profile.nodes[bad[0]].error else "was not run"
            )
            return
        if nid in self.derived:
            rows = [self.profile.nodes[i].rows if i in self.profile.nodes else None for i in inputs]
            if all(r is not None for r in rows):
                p.rows, p.elapsed_s, p.how = _derive(self.model, nid, rows), 0.0, "derived"
                return
        self._count(nid)

    def _count(self, nid: str) -> None:
        p = self.profile.nodes[nid]
        self.current = f"counting node {nid} in a Spark job of its own"
        try:
            with self.turn():
                df = translation(self.model, nid, self.spark, self.catalog).df
                self.check()
                start = time.perf_counter()
                rows = int(df.count())
                elapsed = time.perf_counter() - start
        except Cancelled:
            raise
        except ExecutionError as exc:
            self.check()
            p.error = str(exc)
            return
        except Exception as exc:  # Spark's own errors: collected, the rest goes on
            self.check()
            p.error = _spark_message(nid, exc, "counting")
            return
        self._record(nid, rows, elapsed, "count")


def _finish(model, profile: Profile) -> None:
    """Flags from the counts, and own-time estimates for own counts (inputs' results are known by now)."""
    for nid, p in profile.nodes.items():
        if p.rows is None:
            continue
        inputs = [profile.nodes.get(i) for i in model.node(nid).inputs]
        if any(i is None or i.rows is None for i in inputs):
            continue
        p.flags, p.factor = flags_for(p.rows, [i.rows for i in inputs])
        if p.how == "count" and p.elapsed_s is not None:
            p.own_s = max(0.0, p.elapsed_s - sum(i.elapsed_s or 0.0 for i in inputs if i.how == "count"))


def profile_plan(
    model,
    catalog,
    spark=None,
    node_ids: Iterable[str] | None = None,
    timeout_s: float | None = None,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
    one_run: bool = True,
) -> Profile:
    """Count every runnable node of ``model`` (or of ``node_ids``); see the module docstring.

    Never raises for a node that fails (its ``error`` says why); raises ``ExecutionError`` only
    for an unknown node id."""
    from ..translate.executable import executability

    all_ids = list(model.graph.nodes)
    wanted = all_ids if node_ids is None else list(node_ids)
    unknown = [n for n in wanted if n not in model.graph.nodes]
    if unknown:
        raise ExecutionError(f"the plan has no node {unknown[0]!r}; its nodes are {', '.join(all_ids[:20])}")
    ok = executability(model)

    def skip_reason(nid: str) -> str | None:
        e = ok.get(nid)
        if e is not None and not e.ok:
            return SUBQUERY_SKIP if e.part_of is not None else f"cannot run on Spark: {e.reason}"
        return None

    # the wanted nodes, and the inputs a derived count needs
    derived = {n for n in all_ids if one_run and skip_reason(n) is None and _derivable(model, n)}
    needed = set(model.graph.subtree(*wanted, subqueries=False, expand=derived.__contains__))
    profile = Profile({n: NodeProfile(n, model.node(n).kind) for n in all_ids if n in needed})
    runnable = []
    for nid, p in profile.nodes.items():
        p.skipped = skip_reason(nid)
        if p.skipped is None:
            runnable.append(nid)
    order = _inputs_first(model, runnable)
    begin = time.monotonic()
    if order:
        if spark is None:
            from ..spark.session import get_session

            spark = get_session()
        digest, fingerprint = model.digest, catalog.fingerprint(model)
        keys = {n: (digest, n, fingerprint) for n in order}
        for nid in order:
            memo = _memo.get(keys[nid]) if nid not in derived else None
            if memo is not None:
                p = profile.nodes[nid]
                p.rows, p.elapsed_s, p.how, p.run_of = memo
                p.cached = True
        reads = [n for n in order if one_run and model.node(n).kind == "read" and profile.nodes[n].rows is None]
        runs = (
            _plan_runs(model, order, derived, set(n for n in order if model.node(n).kind == "read")) if one_run else []
        )
        runs = [r for r in runs if any(profile.nodes[n].rows is None for n in r.observed)]
        if runs:
            spark = _observing_session(spark)
        work = _Work(model, order, derived, reads, runs, profile, spark, catalog, keys, begin)
        profile.runs = runs
        try:
            supervise(work, timeout_s=timeout_s, cancel=cancel, progress=progress)
        except Cancelled as stop:  # the nodes counted so far are kept
            profile.stopped = stop.reason
        if profile.stopped:
            for nid in order:
                p = profile.nodes[nid]
                if p.rows is None and p.error is None and p.skipped is None:
                    p.skipped = f"not run: the profile was {profile.stopped}"
    wanted_set = set(wanted)
    for nid in [n for n in profile.nodes if n not in wanted_set]:
        del profile.nodes[nid]  # inputs counted only for a derivation
    _finish(model, profile)
    profile.elapsed_s = time.monotonic() - begin
    if progress is not None and not profile.stopped:
        counted = sum(1 for p in profile.nodes.values() if p.rows is not None)
        progress(1.0, f"{counted} node{'' if counted == 1 else 's'} counted in {profile.elapsed_s:.1f} s")
    return profile


__all__ = [
    "DERIVED",
    "SUBQUERY_SKIP",
    "is_cross_product",
    "rows_from_inputs",
    "EXPLODE_FACTOR",
    "EXPLODE_MIN_ROWS",
    "NodeProfile",
    "Profile",
    "Run",
    "clear_cache",
    "flags_for",
    "profile_plan",
]
