"""Run one node's subtree on Spark: its first rows, optionally the exact count, Spark's plan, timing.

``run_node(model, node_id, catalog=...)`` translates the subtree (``executor.translate.rel``), then in
a worker thread runs ``df.limit(n + 1)`` collected through Arrow (so no more than ``n + 1`` rows are
computed and moved), and ``df.count()`` when asked. The run is a supervised job
(``executor.jobs.supervise``): a ``cancel`` Event or a ``timeout_s`` interrupts its Spark jobs.
Progress comes from the status tracker on classic sessions (fraction of tasks done); on Connect only
the elapsed time is reported.

Write, DDL and Update relations are refused before anything runs. Results are cached per
(plan digest, node id, limit, count, catalog bindings).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal

import pandas as pd

from viz.kinds import KINDS
from viz.types import render

from ..cache import BoundedCache
from ..engines.rows import exact_values, head
from ..errors import Cancelled, ExecutionError, Refused, TimedOut, Unsupported
from ..spark.session import get_session, is_connect
from ..spark.turns import ordinal
from ..translate.types import finer_time_notes, plan_user_types, type_differences
from .supervise import STOP_GRACE_S, Job, Progress, supervise, tasks_done

MAX_ROWS = 10_000  # rows collected at most, whatever limit is asked
MAX_BYTES = 64 * 1024 * 1024  # Arrow bytes kept at most; rows beyond are dropped with a warning
CACHE_SIZE = 64

REFUSED_KINDS = {k: v.changes for k, v in KINDS.items() if v.changes}  # never run: they change data


@dataclass
class RunResult:
    columns: list[str]  # "[i] name"
    types: list[str]  # Spark SQL types, e.g. "bigint", "decimal(15,2)"
    rows: pd.DataFrame  # the first rows, headed by ``columns``
    elapsed_s: float  # execution only (collect and count), not translation or session start
    row_count: int | None  # exact number of rows when counted or when all rows fit in the limit
    explain: str  # Spark's formatted physical plan of the subtree ("" when not asked for)
    names: list[str]  # the columns' names alone ("" for none), for downloads
    warnings: list[str] = field(default_factory=list)
    arrow: object | None = None  # the collected pyarrow.Table (exact types, for downloads)
    type_differences: list[str] = field(default_factory=list)  # columns whose Spark type is not the plan's

    @property
    def truncated(self) -> bool:
        return self.row_count is None or self.row_count > len(self.rows)


# ---- the result cache ----------------------------------------------------------------------

_cache: BoundedCache[tuple, RunResult] = BoundedCache(CACHE_SIZE)


def clear_cache() -> None:
    """Forget the runs and the translations kept."""
    _cache.clear()
    _translations.clear()


# ---- checks before running -----------------------------------------------------------------


def refuse_writes(model, node_id: str) -> None:
    """Raise ``Refused`` when the subtree holds a write, DDL or update relation."""
    for nid in model.graph.subtree(node_id):
        kind = model.node(nid).kind
        if kind in REFUSED_KINDS:
            raise Refused(
                f"node {nid} is {REFUSED_KINDS[kind]}: such relations are never executed here (they would change data)"
            )


def _translate(model, node_id: str, spark, catalog):
    """The translator (imported late so this module loads without it; tests may replace it)."""
    from ..translate.rel import translate

    return translate(model, node_id, spark, catalog)


#: Translations kept, most recent last: a node's DataFrame is built once per plan, node, tables and
#: session, whoever asks (a run, a step, Present, the explain of a run, a comparison).
TRANSLATIONS_KEPT = 64
_translations: BoundedCache[tuple, object] = BoundedCache(TRANSLATIONS_KEPT)
_translations_lock = threading.Lock()  # guards _translating: one thread makes a translation, the others wait
_translating: dict[tuple, threading.Event] = {}  # translations under way, by key


def translation(model, node_id: str, spark, catalog):
    """Node ``node_id``'s translation on ``spark``, from the cache when it was made before. A
    DataFrame does not run anything until an action, so a cached one is as good as a new one."""
    key = (model.digest, node_id, catalog.fingerprint(model), id(spark))
    while True:
        with _translations_lock:
            hit = _translations.get(key)
            if hit is not None:
                return hit
            underway = _translating.get(key)
            if underway is None:  # this thread makes it; another asking meanwhile waits for it
                underway = _translating[key] = threading.Event()
                break
        underway.wait()
    try:
        made = _translate(model, node_id, spark, catalog)
        _translations.put(key, made)  # before the key leaves _translating: a waiter then finds it
        return made
    finally:
        with _translations_lock:
            _translating.pop(key, None)
        underway.set()


def explain_node(model, node_id: str, *, catalog) -> str:
    """Spark's formatted physical plan of node ``node_id``'s subtree (planned, not run): what a
    person asks for when they open it, not computed with every run."""
    refuse_writes(model, node_id)
    from ..translate.executable import executability

    runnable = executability(model)[node_id]
    if not runnable.ok:
        raise Unsupported(runnable.reason)
    return _explain(translation(model, node_id, get_session(), catalog).df)


# ---- running -------------------------------------------------------------------------------


def run_node(
    model,
    node_id: str,
    *,
    catalog,
    limit: int = 100,
    count: bool = False,
    timeout_s: float | None = None,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
    explain: bool = True,
) -> RunResult:
    """Run node ``node_id``'s subtree and return its first ``limit`` rows (see the module docstring).
    ``explain=False`` skips Spark's formatted plan (planning the query a second time). (Counts within
    a time budget, rows first: ``executor.jobs.step.run_step``.)

    Raises ``Refused`` (write/DDL, files outside the data roots), ``Unsupported``, ``TableNotFound``,
    ``Cancelled`` / ``TimedOut``, or ``ExecutionError`` for a failure inside Spark.
    """
    if node_id not in model.graph.nodes:
        raise ExecutionError(f"the plan has no node {node_id!r}; its roots are {', '.join(model.roots) or 'none'}")
    if limit < 0:
        raise ExecutionError(f"the row limit must be 0 or more, not {limit}")
    refuse_writes(model, node_id)
    from ..translate.executable import executability

    runnable = executability(model)[node_id]  # known before Spark is touched
    if runnable.rows_reason:
        raise Unsupported(runnable.rows_reason)
    warnings: list[str] = []
    if limit > MAX_ROWS:
        warnings.append(f"the row limit {limit} was lowered to {MAX_ROWS}")
        limit = MAX_ROWS
    key = (model.digest, node_id, limit, bool(count), catalog.fingerprint(model), explain)
    cached = _cache.get(key)
    if cached is not None:
        return cached
    run = SparkRun(model, node_id, get_session(), catalog, limit, count, explain)
    result = supervise(run, timeout_s=timeout_s, cancel=cancel, progress=progress)
    if progress is not None:
        progress(1.0, f"done in {result.elapsed_s:.2f} s")
    result.warnings[:0] = warnings
    _cache.put(key, result)
    return result


#: Seconds each run's turn on Spark last took, by plan, node and tables: its place in line among runs
#: of the same size (``executor.spark.turns``).
TOOK_KEPT = 4096
_TOOK: BoundedCache[tuple, float] = BoundedCache(TOOK_KEPT)


class SparkRun(Job):
    """The work of one run, a supervised job (``executor.jobs.supervise``)."""

    def __init__(
        self,
        model,
        node_id: str,
        spark,
        catalog,
        limit: int,
        count: bool,
        explain: bool = True,
        *,
        keep_all: bool = False,
        shown: int | None = None,
        background: bool = False,
    ) -> None:
        """``keep_all``: keep every row taken (up to ``limit``) in ``arrow``, not only ``MAX_BYTES`` of
        them (for comparing); ``shown``: how many of them ``rows`` holds for display (default: all);
        ``background``: no one asked for it (the warm-up's rehearsal), so it takes no turn."""
        super().__init__(spark, background=background)
        self.model, self.node_id, self.catalog = model, node_id, catalog
        self.limit, self.count, self.explain = limit, count, explain
        self.keep_all, self.shown = keep_all, shown
        self.description = f"substrait-viz node {node_id}"

    def reads(self) -> int | None:
        """Bytes of the tables the subtree reads, for its place in line; None when one is not a file
        found here (local files, a Spark catalog's table)."""
        total = 0
        for node_id in self.model.graph.subtree(self.node_id):
            view = self.model.node(node_id)
            if view.kind != "read" or view.node.body.HasField("virtual_table"):
                continue
            if not view.node.body.HasField("named_table"):
                return None
            try:
                size = self.catalog.size(list(view.node.body.named_table.names))
            except OSError:
                size = None
            if size is None:
                return None
            total += size
        return total

    def took(self) -> float | None:
        return _TOOK.get(self._work_key())

    def ran(self, seconds: float) -> None:
        _TOOK.put(self._work_key(), seconds)

    def _work_key(self) -> tuple:
        # not the row limit: a rehearsal takes fewer rows than a person, and the time is for an order only
        return (self.model.digest, self.node_id, self.count, self.catalog.fingerprint(self.model))

    def work(self) -> RunResult:
        # translating asks Spark's planner too: a turn covers it, so it does not slow another run down
        with self.turn():
            made = translation(self.model, self.node_id, self.spark, self.catalog)
            df = made.df
            self.check()
            explain = _explain(df) if self.explain else ""
            self.started_execution.set()  # before the check: see executor.jobs.supervise._stop
            self.check()
            start = time.perf_counter()
            table, type_warning = _retry_broadcast(self.spark, lambda: _collect(df, self.limit + 1))
            more = table.num_rows > self.limit
            row_count: int | None = None if more else table.num_rows
            if self.count and more:
                self.check()
                row_count = int(_retry_broadcast(self.spark, df.count))
            elapsed = time.perf_counter() - start
            schema = df.schema
        table, bytes_warning = (head(table, self.limit), None) if self.keep_all else _cap_bytes(head(table, self.limit))
        table, range_warning = _beyond_python(table)
        names = list(made.names) + [""] * (len(df.columns) - len(made.names))
        columns = [f"[{i}] {name}".rstrip() for i, name in enumerate(names[: len(df.columns)])]
        types = [f.dataType.simpleString() for f in schema.fields]
        derived = self.model.node(self.node_id).schema
        with plan_user_types(self.model.extensions.types, self.model.conventions.dialect):
            differences = type_differences(derived, schema)
            notes = differences + finer_time_notes(derived, schema) + _nulls_in_required(derived, table)
        warnings = list(made.warnings) + notes + [w for w in (type_warning, bytes_warning, range_warning) if w]
        return RunResult(
            columns=columns,
            types=types,
            rows=to_pandas(table if self.shown is None else head(table, self.shown), columns),
            elapsed_s=elapsed,
            row_count=row_count,
            explain=explain,
            warnings=warnings,
            arrow=table.rename_columns(columns),
            names=names[: len(df.columns)],
            type_differences=differences,
        )

    def progress(self, elapsed: float) -> tuple[float, str]:
        if self.in_line is not None:
            return super().progress(elapsed)
        if not self.started_execution.is_set():
            return 0.0, f"translating and planning ({elapsed:.0f} s)"
        tasks = tasks_done(self.spark, self.tag)
        if tasks is None:  # Spark Connect, or a session that stopped
            return 0.0, f"running ({elapsed:.0f} s)"
        jobs, done, total = tasks
        fraction = done / total if total else 0.0
        return min(fraction, 0.99), f"{jobs} Spark job(s), {done}/{total} tasks ({elapsed:.0f} s)"

    def stop_message(self, reason: str, in_line: int | None) -> str:
        how = (
            f" while {ordinal(in_line)} in line for Spark, before it ran"
            if in_line is not None
            else "; its Spark jobs were interrupted"
        )
        return f"the run of node {self.node_id} was {reason}{how}"

    def failure(self, exc: BaseException) -> BaseException:
        return _as_execution_error(exc, self.node_id)


def _nulls_in_required(fields, table) -> list[str]:
    """A note per column the plan derives required (no nulls) whose rows taken hold nulls."""
    return [
        f"column {i} ({f.name}) is {render(f.type)} in the plan, which holds no nulls, but Spark's result holds "
        f"{n} null{'s' if n != 1 else ''}"
        for i, (f, n) in enumerate(zip(fields or (), (c.null_count for c in table.columns)))
        if n and f.nullable is False
    ]


def _is_spark_error(exc: BaseException) -> bool:
    from pyspark.errors import PySparkException

    try:
        from py4j.protocol import Py4JError
    except ImportError:  # a Connect-only client
        Py4JError = PySparkException
    return isinstance(exc, (PySparkException, Py4JError))


def _as_execution_error(exc: BaseException, node_id: str) -> BaseException:
    """Executor errors pass through; Spark's errors and internal bugs get a message naming the node."""
    if isinstance(exc, (ExecutionError, KeyboardInterrupt, SystemExit)):
        return exc
    lines = str(exc).strip().splitlines()
    first = (lines[0] if lines else "")[:500]
    if _is_spark_error(exc) and "StackOverflowError" in str(exc):
        err = ExecutionError(f"Spark's planner ran out of stack on node {node_id}: the plan nests too deeply for Spark")
    elif _is_spark_error(exc) and (raised := _RAISED.search(str(exc))):
        # the translation's own checks (``raise_error``): a value the plan's cast or type cannot take
        err = ExecutionError(f"node {node_id} stopped: {raised[1]}")
    elif _is_spark_error(exc) and (said := _said_in_words(str(exc))):
        err = ExecutionError(f"node {node_id} stopped: {said}")
    elif _is_spark_error(exc):
        err = ExecutionError(f"Spark failed running node {node_id}: {spark_reason(exc)}")
    else:
        err = ExecutionError(
            f"internal error running node {node_id} (a bug; please report it): {type(exc).__name__}: {first}"
        )
    err.__cause__ = exc
    return err


#: Spark's conditions a plan's own values cause, in words (Spark's text names the run's internal columns and the
#: pattern as the translation rewrote it).
_SPARK_WORDS = {
    "SCALAR_SUBQUERY_TOO_MANY_ROWS": "a scalar subquery gave more than one row, where it may give one at most",
    "INVALID_PARAMETER_VALUE.PATTERN": "a regular expression of the plan is not a valid one",
}
_PATTERN_ERROR = re.compile(r"PatternSyntaxException: ([^\n]*?)(?: near index \d+)?$", re.MULTILINE)


def _said_in_words(text: str) -> str | None:
    """Why Spark stopped, in words, where a plan's own values caused it (:data:`_SPARK_WORDS`); else None."""
    for condition, words in _SPARK_WORDS.items():
        if f"[{condition}]" in text:
            return words
    bad = _PATTERN_ERROR.search(text)
    return f"a regular expression of the plan is not a valid one ({bad[1].strip()})" if bad else None


#: The message of a ``raise_error`` of the translation, as Spark's exception carries it.
_RAISED = re.compile(r"\[USER_RAISED_EXCEPTION\] (.*?)(?: SQLSTATE: \w+)?$", re.MULTILINE)
_JAVA_EXCEPTION = re.compile(r"^(?:Caused by: )?(?:[a-z_$][\w$]*\.)+(\w*(?:Exception|Error)\b.*)$")


def spark_reason(exc: BaseException) -> str:
    """The line that says why Spark failed: a Py4J error's first line only names the Java call that
    failed ("An error occurred while calling o853.collectToPython."); the innermost Java exception
    (the last "Caused by", else the first exception line) is the reason, without its package. Any
    other error: its type and first line."""
    lines = str(exc).strip().splitlines()
    name = type(exc).__name__
    if name != "Py4JJavaError":
        return f"{name}: {lines[0][:500] if lines else ''}"
    stripped = [line.strip().lstrip(": ") for line in lines]
    causes = [line for line in stripped if line.startswith("Caused by: ")]
    for line in causes[-1:] or stripped:  # the last cause, else the first exception line
        m = _JAVA_EXCEPTION.match(line)
        if m:
            return m.group(1)[:500]
    return (causes[-1][len("Caused by: ") :] if causes else f"{name}: {lines[0] if lines else ''}")[:500]


# ---- collecting ----------------------------------------------------------------------------

_explain_lock = threading.Lock()


def _explain(df) -> str:
    """Spark's formatted plan, captured from what ``explain`` prints (classic and Connect alike)."""
    buf = io.StringIO()
    try:
        with _explain_lock, contextlib.redirect_stdout(buf):
            df.explain(mode="formatted")
    except Exception as exc:  # the plan text is a help, not a requirement
        return f"(Spark could not explain this plan: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
    return buf.getvalue().strip()


#: What Spark says when building a broadcast hash table threw OutOfMemoryError.
BROADCAST_OOM = "Not enough memory to build and broadcast the table"


#: Tries after the first when a broadcast ran out of memory, each after a full collection and a pause.
BROADCAST_RETRIES = 2


def _retry_broadcast(spark, action):
    """``action()``, tried again (up to :data:`BROADCAST_RETRIES` times, each after a full garbage
    collection and a short pause) when a broadcast ran out of memory.

    Java 17's G1 can throw OutOfMemoryError with the heap far from full, for an allocation that waited
    on a JNI critical section or an array that needs contiguous regions (``session.LOCAL_CONF`` makes
    both rare); Spark then fails the query with :data:`BROADCAST_OOM`. The pause lets the other
    broadcasts' threads leave their critical sections. A heap that is really full fails every try,
    with Spark's message.
    """
    for attempt in range(BROADCAST_RETRIES + 1):
        try:
            return action()
        except Exception as exc:  # noqa: BLE001 - only Spark's broadcast failure is retried
            if BROADCAST_OOM not in str(exc) or is_connect(spark) or attempt == BROADCAST_RETRIES:
                raise
            spark.sparkContext._jvm.System.gc()
            time.sleep(0.5 * (attempt + 1))


#: Up to this many rows, plain columns are collected as rows (Spark's incremental take reads only
#: the partitions it needs); above it through Arrow, which moves rows in batches and gains more the more
#: rows there are (the row path pickles every row and builds Arrow arrays from Python values); around
#: this size the two take about as long.
ROWS_BY_TAKE = 2_000


def _collect(df, rows: int):
    """The first ``rows`` rows of ``df`` as a pyarrow Table, and a warning when a column had to be
    shown as text.

    Arrow transfer lacks year-month intervals: such columns are collected as their text.
    """
    from pyspark.errors import PySparkTypeError
    from pyspark.sql import types as T

    df = _voids_as_text(df.limit(rows))
    if (rows <= ROWS_BY_TAKE and _plain(df.schema)) or not df.columns:
        try:
            return _collect_rows(df), None
        except ValueError as exc:  # a date beyond Python's years (1 to 9999, or year 0): Arrow's moves it
            if "out of range" not in str(exc) and "ordinal must be" not in str(exc):
                raise
    try:
        return df.toArrow(), None
    except PySparkTypeError as exc:
        if "UNSUPPORTED_DATA_TYPE_FOR_ARROW" not in str(exc):
            raise
    # Arrow holds neither a year-month interval nor one of months, days and time (Spark's calendar one)
    intervals = (T.YearMonthIntervalType, T.CalendarIntervalType)
    as_text = [f.name for f in df.schema.fields if isinstance(f.dataType, intervals)]
    if not as_text:
        raise ExecutionError("Spark cannot move this node's column types to Python (Arrow transfer failed)")
    return _cast_columns(df, dict.fromkeys(as_text, "string")).toArrow(), (
        f"{len(as_text)} interval column(s) of months are shown as text"
    )


def _voids_as_text(df):
    """``df`` with a list, map or struct of Spark's null type (``make_array(NULL, NULL)``) cast to one of
    text: its values are nulls either way, and Spark's Arrow transfer gets such a list's length wrong."""
    from pyspark.sql import types as T

    def text(t):
        if isinstance(t, T.NullType):
            return T.StringType()
        if isinstance(t, T.ArrayType):
            return T.ArrayType(text(t.elementType), t.containsNull)
        if isinstance(t, T.MapType):
            return T.MapType(text(t.keyType), text(t.valueType), t.valueContainsNull)
        if isinstance(t, T.StructType):
            return T.StructType([T.StructField(f.name, text(f.dataType), f.nullable) for f in t.fields])
        return t

    nested = [f for f in df.schema.fields if not isinstance(f.dataType, T.NullType) and text(f.dataType) != f.dataType]
    return _cast_columns(df, {f.name: text(f.dataType) for f in nested}) if nested else df


def _cast_columns(df, casts: dict):
    """``df`` with the columns named in ``casts`` cast to their types there, the others as they are."""
    return df.select(*[df[c].cast(casts[c]).alias(c) if c in casts else df[c] for c in df.columns])


def _plain_types():
    from pyspark.sql import types as T

    return (
        T.BooleanType,
        T.ByteType,
        T.ShortType,
        T.IntegerType,
        T.LongType,
        T.FloatType,
        T.DoubleType,
        T.DecimalType,
        T.StringType,
        T.DateType,
    )


def _plain(schema) -> bool:
    """Whether every column has a type whose Python value converts to Arrow exactly (no time zones,
    nesting or intervals)."""
    plain = _plain_types()
    return all(type(f.dataType) in plain for f in schema.fields)


def _collect_rows(df):
    """The rows of a limited DataFrame with plain column types, as a pyarrow Table.

    ``collect`` runs a limit as Spark's incremental take (the first partition, then more only if
    needed), whereas Arrow collection runs every partition of the scan: for the first rows of a
    large table this is the faster path.
    """
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    rows = df.collect()
    if not df.columns:  # rows without columns (a project keeping none): a table of no columns keeps their number
        return pa.table({"_": pa.nulls(len(rows))}).drop_columns(["_"])
    schema = to_arrow_schema(df.schema, timezone="UTC")
    arrays = [pa.array([r[i] for r in rows], type=f.type) for i, f in enumerate(schema)]
    return pa.Table.from_arrays(arrays, schema=schema)


def _cap_bytes(table):
    """At most ``MAX_BYTES`` of rows, and a warning when rows were dropped."""
    if table.nbytes <= MAX_BYTES or table.num_rows <= 1:
        return table, None
    keep = max(1, int(MAX_BYTES / (table.nbytes / table.num_rows)))
    return table.slice(0, keep), (
        f"only the first {keep} rows are shown: the rows hold {table.nbytes / 2**20:.0f} MB, "
        f"more than the {MAX_BYTES // 2**20} MB kept"
    )


def _beyond_python(table) -> tuple[object, str | None]:
    """The rows with each date or timestamp column that holds a year before 1 or after 9999 as its text
    (Python's dates, and so the table and the download, hold no such year), and a note naming them."""
    import pyarrow as pa
    import pyarrow.compute as pc

    texts = []
    for i, column in enumerate(table.columns):
        temporal = pa.types.is_date(column.type) or pa.types.is_timestamp(column.type)
        if not temporal or column.null_count == len(column):
            continue
        years = pc.min_max(pc.year(column))
        if years["min"].as_py() < 1 or years["max"].as_py() > 9999:
            table = table.set_column(i, table.schema.field(i).name, pc.cast(column, pa.string()))
            texts.append(str(i))
    if not texts:
        return table, None
    return table, (
        f"column{'s' if len(texts) > 1 else ''} {', '.join(texts)} "
        f"hold{'' if len(texts) > 1 else 's'} a year before 1 or after 9999, shown as text"
    )


def _without_views(t):
    """An Arrow type with its view types (DataFusion's ``string_view``, ``binary_view``, ``list_view``) as
    the plain ones, which pandas takes, and its times of day in nanoseconds as their text (pandas refuses a
    part below a microsecond)."""
    import pyarrow as pa

    if pa.types.is_string_view(t) or (pa.types.is_time64(t) and t.unit == "ns"):
        return pa.string()
    if pa.types.is_binary_view(t):
        return pa.binary()
    if _listed(t) or pa.types.is_list_view(t) or pa.types.is_large_list_view(t):
        return pa.list_(_without_views(t.value_type))
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(_without_views(f.type)) for f in t])
    if pa.types.is_map(t):
        return pa.map_(_without_views(t.key_type), _without_views(t.item_type))
    return t


def _nested_text(t) -> bool:
    """Whether a column of type ``t`` is shown as JSON text: a struct or a map (the table drops a struct's
    null members and cannot draw a map's pairs), or a list of such."""
    import pyarrow as pa

    if pa.types.is_struct(t) or pa.types.is_map(t):
        return True
    return _listed(t) and pa.types.is_nested(t.value_type)


def _listed(t) -> bool:
    """Whether an Arrow type is a list (of 32- or 64-bit offsets)."""
    import pyarrow as pa

    return pa.types.is_list(t) or pa.types.is_large_list(t)


def to_pandas(table, columns: list[str]) -> pd.DataFrame:
    """Rows for display: ints with nulls stay ints (None), dates stay dates, decimals stay exact; a float
    column with a NaN holds floats and None (pandas makes a null NaN too, and a table shows a NaN as
    null); structs and maps as the JSON text the download writes (:func:`csv_field`)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    plain = pa.schema([f.with_type(_without_views(f.type)) for f in table.schema])
    frame = (
        (table.cast(plain) if plain != table.schema else table)
        .rename_columns(columns)
        .to_pandas(integer_object_nulls=True, date_as_object=True, timestamp_as_object=False)
    )
    frame.columns = columns
    for i, column in enumerate(table.columns):
        if pa.types.is_floating(column.type) and pc.any(pc.is_nan(column)).as_py():
            frame.isetitem(i, pd.Series(column.to_pylist(), dtype=object, index=frame.index))
        elif _nested_text(column.type):
            texts = [csv_field(v, column.type) for v in exact_values(column)]
            frame.isetitem(i, pd.Series(texts, dtype=object, index=frame.index))
        elif pa.types.is_time64(column.type):  # as text: a table shows a time's seconds alone (01:02:03)
            texts = [v if v is None or isinstance(v, str) else v.isoformat() for v in exact_values(column)]
            frame.isetitem(i, pd.Series(texts, dtype=object, index=frame.index))
    return frame


# ---- downloads -----------------------------------------------------------------------------


def download_columns(names: list[str]) -> list[str]:
    """A result's column names for a file another tool reads: a name that is empty or taken by another
    column gets its position added (``product_id_4``)."""
    counts = Counter(names)
    return [n if n and counts[n] == 1 else f"{n or 'column'}_{i}" for i, n in enumerate(names)]


def to_csv_text(result: RunResult) -> str:
    """The shown rows as CSV, headed by :func:`download_columns`, each value written from the Arrow rows
    Spark returned as other tools read it (:func:`csv_field`): a null is an empty field and an empty
    text ``""``; pandas wrote both alike, a NaN as a null, ``True``, a midnight timestamp as a date and
    an interval as ``0 days 01:30:00``."""
    import pyarrow as pa

    arrow = (
        head(result.arrow, len(result.rows))
        if result.arrow is not None
        else pa.Table.from_pandas(result.rows, preserve_index=False)
    )
    columns = [(exact_values(arrow.column(i)), arrow.schema.field(i).type) for i in range(arrow.num_columns)]
    lines = [",".join(_csv_quoted(name) for name in download_columns(result.names))]
    for r in range(arrow.num_rows):
        lines.append(",".join(_csv_quoted(csv_field(values[r], kind)) for values, kind in columns))
    return "\n".join(lines) + "\n"


def csv_field(value, kind=None) -> str | None:
    """One value as CSV text (None: a null); a list, struct or map as JSON (``["Electronics", "Audio"]``,
    ``{"year": 1979, "maker": null}``), binary as base64, not Python's notation of them."""
    import pyarrow as pa

    from ..engines.rows import float_text, interval_text, json_value

    if value is None:
        return None
    if kind is not None and pa.types.is_nested(kind):
        return json.dumps(_typed_json(value, kind), ensure_ascii=False)
    if isinstance(value, bytes):
        return json_value(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return float_text(value)
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return interval_text(value)
    return str(value)


def _typed_json(value, kind):
    """A nested value from Arrow's ``to_pylist`` as JSON by its type: a map as an object of its keys
    (Arrow gives it as pairs), at any depth; anything else as :func:`~executor.engines.rows.json_value`."""
    import pyarrow as pa

    from ..engines.rows import json_value

    if value is None:
        return None
    if pa.types.is_map(kind):
        return {str(json_value(k)): _typed_json(v, kind.item_type) for k, v in value}
    if _listed(kind):
        return [_typed_json(v, kind.value_type) for v in value]
    if pa.types.is_struct(kind):
        return {f.name: _typed_json(value.get(f.name), f.type) for f in kind}
    return json_value(value)


def _csv_quoted(text: str | None) -> str:
    if text is None:
        return ""
    if text == "" or any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def to_csv_bytes(result: RunResult) -> bytes:
    """The shown rows as CSV (UTF-8, see :func:`to_csv_text`)."""
    return to_csv_text(result).encode("utf-8")


def to_parquet_bytes(result: RunResult) -> bytes:
    """The shown rows as a Parquet file, with the exact Arrow types Spark returned."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = result.arrow if result.arrow is not None else pa.Table.from_pandas(result.rows, preserve_index=False)
    table = table.rename_columns(download_columns(result.names))
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


__all__ = [
    "RunResult",
    "run_node",
    "refuse_writes",
    "translation",
    "explain_node",
    "clear_cache",
    "download_columns",
    "to_csv_bytes",
    "to_csv_text",
    "to_parquet_bytes",
    "Cancelled",
    "TimedOut",
    "STOP_GRACE_S",
    "MAX_ROWS",
    "MAX_BYTES",
]
