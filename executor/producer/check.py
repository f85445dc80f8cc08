"""The live-producer check: plans a real producer writes today, against that producer's own engine.

For each SQL query, DataFusion (the version in requirements.txt) plans it and its Substrait producer
writes the plan (the way SQL to plan does, :func:`executor.engines.sql_plan.sql_to_plan`). Then:

- **schema**: the plan model's root names must equal DataFusion's result schema, every root column
  must have the same type kind (integer of the same width, float, decimal, string, date, ...), and no
  column of any node may be of unknown type;
- **rows**: the plan runs on Spark through the executor, and its rows must equal DataFusion's own
  rows for the SQL on the same files (as multisets; floats to 1e-6 relative, decimals to one unit in the
  last place). Where they differ, DuckDB runs the same SQL on the same files and says which engine is
  wrong; where DataFusion's engine fails on the SQL, DuckDB's rows are the oracle.

``python -m executor check`` runs it over SQL files and prints a table per query.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from substrait import type_pb2

from viz.coercion import dictionary_values

from ..engines.rows import multiset_diff, subset_diff
from ..engines.sql_plan import blank

if TYPE_CHECKING:
    from viz.model import Model

#: SQL of our own over the TPC-H tables: every relation kind, join type, set op, grouping sets, windows,
#: intervals, LIKE, string functions, CASE with NULL, subqueries (``-- name:`` before each query).
FEATURES_SQL = os.path.join(os.path.dirname(__file__), "sql", "features.sql")


#: Queries a sweep checks at once on Spark (:meth:`Checker.check_all`).
JOBS = 2

#: A run that stopped at a value as the plan asks (``executor.jobs.run``: the translation's own check raised
#: while it ran, or refused a literal its cast cannot hold before it ran).
_STOPPED = re.compile(r"node \S+ stopped: |node \S+: cannot cast ")


@dataclass(frozen=True)
class Query:
    name: str
    sql: str


@dataclass
class Outcome:
    """One query's result: ``produced`` is "yes" or "no"; ``schema`` "same", "differs" or "-" (no engine
    schema to compare with); ``rows`` "same", "differs", "error" (Spark could not run it), "both fail"
    (DataFusion's engine and Spark's run of the plan stop, where DuckDB reads the SQL otherwise), "all fail"
    (DataFusion's engine, DuckDB and Spark each fail running the SQL or its plan: the engines agree
    that it has no result), "not run" or "-"; ``spark_types`` "same", "differs" (a column of Spark's
    result is not of the Spark type the plan's root type maps to, whatever its values) or "-" (not run);
    ``why`` says what went wrong."""

    query: str
    produced: str = "-"
    schema: str = "-"
    rows: str = "-"
    spark_types: str = "-"
    unknown: int = 0  # columns of unknown type over all nodes
    why: str = ""
    oracle: str = "datafusion"  # whose rows the Spark rows were compared with
    seconds: float = 0.0
    form: str = "analyzed"  # the logical plan DataFusion's producer was given (executor.engines.sql_plan.FORMS)

    @property
    def ok(self) -> bool:
        return (
            self.produced == "yes"
            and self.schema == "same"
            and self.rows in ("same", "all fail", "both fail", "not run")
            and self.spark_types != "differs"
            and not self.unknown
        )

    def to_json(self) -> dict:
        """The outcome as JSON: ``produced`` true or false, a step not taken (the table's "-") null, and
        ``ok``, whether the query is right."""
        out = {k: (None if v == "-" else v) for k, v in asdict(self).items()}
        out["produced"] = None if self.produced == "-" else self.produced == "yes"
        out["ok"] = self.ok
        return out


# ---- queries ----------------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"'\{(\w+)\}'")
_NAME_LINE = re.compile(r"^--\s*name:\s*(\S+)(.*)$", re.M)


class QueryFileError(ValueError):
    """A SQL file that cannot be read as queries (not text)."""


def read_queries(paths: Iterable[str]) -> list[Query]:
    """Queries from ``.sql`` files and folders of them. A file with ``-- name: NAME`` lines holds several
    queries, each ended by a line ``;``; any other file holds its statements, each ended by ``;``, named
    after the file (``q``, or ``q_1``, ``q_2``, ... for several). The consumer-testing placeholders
    ``'{table}'`` become plain table names. Raises :class:`QueryFileError` for a file that is not text."""
    out: list[Query] = []
    for path in paths:
        files = (
            sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".sql"))
            if os.path.isdir(path)
            else [path]
        )
        for file in files:
            try:
                with open(file, encoding="utf-8") as fh:
                    text = fh.read()
            except UnicodeDecodeError as exc:
                raise QueryFileError(f"{file} is not UTF-8 text: a .sql file of queries is expected") from exc
            out.extend(_split(text, os.path.splitext(os.path.basename(file))[0]))
    return out


def _split(text: str, stem: str) -> list[Query]:
    marks = list(_NAME_LINE.finditer(text))
    if not marks:
        statements = [sql for sql in map(_clean_sql, _statements(text)) if not blank(sql)]
        if len(statements) == 1:
            return [Query(stem, statements[0])]
        return [Query(f"{stem}_{i}", sql) for i, sql in enumerate(statements, start=1)]
    out = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        body = text[m.end() : end]
        out.append(Query(m.group(1), _clean_sql(body)))
    return out


def _statements(text: str) -> list[str]:
    """``text`` cut at each ``;`` outside quotes and comments."""
    out, start, i, n = [], 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "'\"":  # a literal or a quoted name: to its closing quote (a doubled one is inside)
            i += 1
            while i < n and not (text[i] == ch and text[i + 1 : i + 2] != ch):
                i += 2 if text[i] == ch else 1
        elif text.startswith("--", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            i = text.find("*/", i + 2)
            i = n if i < 0 else i + 1
        elif ch == ";":
            out.append(text[start:i])
            start = i + 1
        i += 1
    out.append(text[start:])
    return out


def _clean_sql(sql: str) -> str:
    sql = _PLACEHOLDER.sub(r"\1", sql).strip()
    while sql.endswith(";"):
        sql = sql[:-1].rstrip()
    return sql


# ---- type kinds -------------------------------------------------------------------------------

_SUBSTRAIT_KINDS = {
    "bool": "boolean",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "fp32": "float",
    "fp64": "float",
    "decimal": "decimal",
    "string": "string",
    "varchar": "string",
    "fixed_char": "string",
    "binary": "binary",
    "fixed_binary": "binary",
    "date": "date",
    "timestamp": "timestamp",
    "timestamp_tz": "timestamp",
    "precision_timestamp": "timestamp",
    "precision_timestamp_tz": "timestamp",
    "time": "time",
    "precision_time": "time",
    "interval_year": "interval",
    "interval_day": "interval",
    "interval_compound": "interval",
    "uuid": "uuid",
    "struct": "struct",
    "list": "list",
    "map": "map",
}


#: The kinds of the user-defined types producers declare for engine types (executor.translate.types.ENGINE_USER_TYPES).
_USER_TYPE_KINDS = {"fp16": "float", "null": "null"}


def substrait_kind(t: type_pb2.Type | None, user_types: Mapping[int, str] | None = None, dialect: str = "") -> str:
    """A type's kind for comparing with an engine's (integers by width; all floats alike); one of the
    producer ``dialect``'s dictionaries as ``dictionary<its values' kind>``."""
    if t is None or t.WhichOneof("kind") is None:
        return "unknown"
    values = dictionary_values(t, dialect)
    if values is not None:
        return f"dictionary<{substrait_kind(values, user_types, dialect)}>"
    kind = t.WhichOneof("kind")
    if kind == "user_defined":
        name = (user_types or {}).get(t.user_defined.type_reference, "")
        return _USER_TYPE_KINDS.get(name, f"u!{name or t.user_defined.type_reference}")
    return _SUBSTRAIT_KINDS.get(kind, kind)


def arrow_kind(t) -> str:
    import pyarrow.types as pt

    if pt.is_dictionary(t):
        return f"dictionary<{arrow_kind(t.value_type)}>"

    for test, kind in (
        (pt.is_boolean, "boolean"),
        (pt.is_decimal, "decimal"),
        (pt.is_floating, "float"),
        (pt.is_date, "date"),
        (pt.is_timestamp, "timestamp"),
        (pt.is_time, "time"),
        (pt.is_struct, "struct"),
        (pt.is_map, "map"),
    ):
        if test(t):
            return kind
    if pt.is_integer(t):
        return f"int{t.bit_width}"
    if pt.is_string(t) or pt.is_large_string(t) or str(t) == "string_view":
        return "string"
    if pt.is_binary(t) or pt.is_large_binary(t) or pt.is_fixed_size_binary(t):
        return "binary"
    if pt.is_interval(t) or pt.is_duration(t):
        return "interval"
    if pt.is_list(t) or pt.is_large_list(t):
        return "list"
    if pt.is_null(t):
        return "null"
    return str(t)


# ---- the check --------------------------------------------------------------------------------


class Checker:
    """Checks queries over one set of tables (``{name: parquet file or folder}``) with a DataFusion
    context and a DuckDB connection per thread, and the executor's Spark session."""

    def __init__(
        self,
        tables: Mapping[str, str],
        *,
        run: bool = True,
        timeout_s: float = 300,
        save_plans: str | None = None,
        form: str = "analyzed",
        on_plan: Callable[[Query, Model], None] | None = None,
    ) -> None:
        from ..data.catalog import Catalog

        self.tables = dict(tables)
        self.form = form
        self.run = run
        self.timeout_s = timeout_s
        self.save_plans = save_plans
        self.on_plan = on_plan  # hears each plan made, as the model the check reads
        roots = sorted({os.path.dirname(os.path.abspath(p)) for p in self.tables.values()})
        self.catalog = Catalog(roots, {n: p for n, p in self.tables.items()})
        # each thread's DuckDB connection and DataFusion engine over the tables, made on first use
        self._local = threading.local()

    def duckdb_rows(self, sql: str) -> list[tuple]:
        import duckdb

        duck = getattr(self._local, "duck", None)
        if duck is None:
            duck = self._local.duck = duckdb.connect()
            duck.execute("SET threads = 1")
            # nulls sort as the largest values, as in DataFusion (and PostgreSQL): an ORDER BY ... LIMIT
            # keeps the same rows
            duck.execute("SET default_null_order = 'nulls_last_on_asc_first_on_desc'")
            for name, path in self.tables.items():
                quoted = path.replace("'", "''")
                duck.execute(f"CREATE VIEW \"{name}\" AS SELECT * FROM read_parquet('{quoted}')")
        return [tuple(r) for r in duck.execute(sql).fetchall()]

    def check_all(self, queries: Iterable[Query], jobs: int = 1) -> Iterator[Outcome]:
        """Check ``queries``, up to ``jobs`` at once on Spark, yielding their outcomes in the queries' order.

        A query of a sweep waits more on round trips (Python and the JVM, planning, starting tasks) than on
        the cores, so two at once finish sooner than one after another.
        """
        from ..spark.turns import SPARK

        if jobs <= 1:
            yield from map(self.check, queries)
            return
        pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="check")
        try:
            with SPARK.widened(jobs):
                yield from pool.map(self.check, queries)
        finally:
            pool.shutdown(cancel_futures=True)

    def check(self, query: Query) -> Outcome:
        """Check one query; whatever fails is said in the outcome (the sweep goes on)."""
        started = time.monotonic()
        try:
            return self._check(query)
        except Exception as exc:  # noqa: BLE001 - a sweep reports every query, whatever breaks on one
            return Outcome(
                query.name,
                form=self.form,
                why=f"the check itself failed: {type(exc).__name__}: {_first_line(exc)}",
                seconds=round(time.monotonic() - started, 2),
            )

    def _check(self, query: Query) -> Outcome:
        from viz.errors import PlanLoadError
        from viz.model import analyze

        from ..engines.sql_plan import DataFusionEngine, sql_to_plan
        from ..errors import ExecutionError

        started = time.monotonic()
        out = Outcome(query.name, form=self.form)
        try:
            if getattr(self._local, "engine", None) is None:
                self._local.engine = DataFusionEngine(self.tables)
            engine = self._local.engine.run(query.sql, rows=self.run)  # not run: its schema is enough
        except ExecutionError as exc:
            engine = None
            df_error = f"it cannot plan the SQL: {_first_line(exc)}"
        else:
            df_error = engine.error
        expected = engine.table if engine is not None else None
        try:
            plan = sql_to_plan(query.sql, self.tables, json=False, form=self.form)
        except ExecutionError as exc:
            out.produced, out.why = "no", f"DataFusion's producer: {exc}"
            out.seconds = round(time.monotonic() - started, 2)
            return out
        out.produced = "yes"
        if self.save_plans:
            self._save(query.name, plan.data)
        try:
            model = analyze(plan.data)
        except PlanLoadError as exc:
            out.schema, out.why = "differs", f"the plan does not load: {exc}"
            return out
        if self.on_plan is not None:
            self.on_plan(query, model)
        out.unknown = sum(1 if n.schema is None else sum(1 for f in n.schema if f.type is None) for n in model.nodes())
        root = model.node(model.roots[0])
        names = [f.name for f in root.schema] if root.schema is not None else []
        dialect = model.conventions.dialect or ""
        kinds = [substrait_kind(f.type, model.extensions.types, dialect) for f in root.schema] if root.schema else []
        problems: list[str] = []
        if engine is not None:
            want_names = list(engine.schema.names)
            want_kinds = [arrow_kind(t) for t in engine.schema.types]
            if names != want_names:
                problems.append(f"root names {names}, DataFusion's {want_names}")
            else:
                for name, got, want in zip(names, kinds, want_kinds):
                    if got != want and want != "null":
                        problems.append(f"{name} is {got}, DataFusion's is {want}")
        out.schema = "differs" if problems else ("same" if engine is not None else "-")
        problems[:0] = plan.not_the_sql  # said whatever the rows: both engines may run the plan so
        if out.unknown:
            problems.append(f"{out.unknown} column(s) of unknown type")
        if not self.run:
            out.rows = "not run"
            out.why = "; ".join(problems)
            out.seconds = round(time.monotonic() - started, 2)
            return out
        try:
            got, cut, differences, run_warnings = self._spark_rows(model)
        except ExecutionError as exc:
            out.rows = "error"
            spark_error = _first_line(exc)
            # Spark ran it and failed, or stopped at a value as the plan's cast asks (not a refusal to run)
            if expected is None and (spark_error.startswith("Spark failed running") or _STOPPED.match(spark_error)):
                duck_error = self._duckdb_error(query.sql)
                problems = [p for p in problems if "unknown type" in p]
                if duck_error:
                    out.rows, out.oracle = "all fail", "none"
                    problems.append(
                        f"every engine fails: DataFusion's ({df_error}), DuckDB ({duck_error}) and Spark "
                        f"({spark_error})"
                    )
                else:  # the plan's producer's engine stops, and so does the run: DuckDB reads the SQL otherwise
                    out.rows, out.oracle = "both fail", "datafusion"
                    problems.append(
                        f"DataFusion's engine ({df_error}) and Spark ({spark_error}) both stop; DuckDB gives rows"
                    )
            if out.rows == "error":
                problems.append(f"Spark: {spark_error}")
            out.why = "; ".join(problems)
            out.seconds = round(time.monotonic() - started, 2)
            return out
        out.spark_types = "differs" if differences else "same"
        problems += [f"Spark's result: {d}" for d in differences]
        if expected is not None:
            want = _rows(expected)
        else:
            problems.append(f"DataFusion's engine fails on the SQL ({df_error}); DuckDB is the oracle")
            out.oracle = "duckdb"
            try:
                want = self.duckdb_rows(query.sql)
            except Exception as exc:  # noqa: BLE001 - DuckDB's errors are of many kinds; its message is the reason
                out.oracle = "none"
                problems.append(
                    f"DuckDB cannot run the SQL either ({_first_line(exc)}), so no engine gives rows, where Spark's "
                    f"run gives {len(got):,} row{'s' if len(got) != 1 else ''}"
                )
                out.why = "; ".join(problems)
                out.seconds = round(time.monotonic() - started, 2)
                return out
        # DataFusion's own result of the SQL is the plan's meaning to the digit; DuckDB's rounds its own way
        exact = out.oracle == "datafusion"
        if cut and len(want) > len(got):  # Spark's run keeps its first rows only: each must be one of the result's
            diff = subset_diff(got, want, exact_decimals=exact)
            problems.append(f"Spark's first {len(got):,} rows compared, as part of the {len(want):,} expected")
        else:
            diff = multiset_diff(got, want, exact_decimals=exact)
        out.rows = "differs" if diff else "same"
        if diff:
            problems.append(f"rows: {diff}")
            from ..translate.types import MICROSECONDS_KEPT

            zoned = self._zoned(model)
            finer = [w for w in run_warnings if MICROSECONDS_KEPT in w]
            if finer:  # DuckDB keeps microseconds too: siding with Spark would say nothing of who is right
                problems.append(f"the run said: {finer[0]}; DuckDB keeps microseconds too, so it does not arbitrate")
            elif zoned:  # DuckDB reads in UTC too: siding with Spark would say nothing of who is right
                problems.append(
                    f"{zoned}: a plan's timestamp keeps no zone, so Spark's run takes times of day in UTC where "
                    "DataFusion's engine takes the file's zone, and no engine decides"
                )
            elif out.oracle == "datafusion":
                problems.append(
                    "Spark's run was cut, so DuckDB does not arbitrate"
                    if cut
                    else self._arbitrate(query.sql, model, got, want)
                )
            elif not cut:
                problems.append(self._arbitrate_by_the_plan(model, got, want))
        out.why = "; ".join(p for p in problems if p)
        out.seconds = round(time.monotonic() - started, 2)
        return out

    def _save(self, name: str, data: bytes) -> None:
        from google.protobuf import json_format

        from viz.load import load_plan

        os.makedirs(self.save_plans, exist_ok=True)
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
        with open(os.path.join(self.save_plans, f"{safe}.json"), "w", encoding="utf-8") as fh:
            fh.write(json_format.MessageToJson(load_plan(data).plan, indent=2))

    def _spark_rows(self, model) -> tuple[list[tuple], bool, list[str], list[str]]:
        """The plan's rows on Spark, at most ``MAX_ROWS``, whether there were more, where the result's
        types are not the plan's, and the run's warnings."""
        from ..jobs.run import MAX_ROWS, run_node

        result = run_node(
            model, model.roots[0], catalog=self.catalog, limit=MAX_ROWS, timeout_s=self.timeout_s, explain=False
        )
        rows = _rows(_intervals_typed(result.arrow, model.node(model.roots[0]).schema))
        return rows, result.truncated, result.type_differences, result.warnings

    def _zoned(self, model) -> str:
        """The plan's tables whose files store instants with a zone other than UTC, in words ("" for none)."""
        from ..data.catalog import named_tables

        said = []
        for names in named_tables(model):
            zones = self.catalog.zones(names)
            said += [
                f"table {'.'.join(names)} stores {column} in zone {zone}" for column, zone in sorted(zones.items())
            ]
        return "; ".join(dict.fromkeys(said))

    def _duckdb_error(self, sql: str) -> str:
        """DuckDB's error for ``sql``, or "" when DuckDB runs it."""
        try:
            self.duckdb_rows(sql)
        except Exception as exc:  # noqa: BLE001 - DuckDB's errors are of many kinds; its message is the reason
            return _first_line(exc)
        return ""

    def _arbitrate(self, sql: str, model, spark_rows: list[tuple], df_rows: list[tuple]) -> str:
        """Which engine DuckDB agrees with, when Spark and DataFusion disagree (on the columns where the two
        differ, where DuckDB's other columns differ from both); unless it is Spark, whether the plan itself
        lost the SQL's meaning (DataFusion's engine running the plan gives Spark's rows). Spark's run is
        said wrong where DuckDB sides with DataFusion; where DuckDB cannot judge, that DataFusion's engine
        running the plan gives its own result says only that the two engines differ."""
        with_datafusion = False
        try:
            duck = self.duckdb_rows(sql)
        except Exception as exc:  # noqa: BLE001
            verdict = f"DuckDB cannot run the SQL either ({_first_line(exc)})"
        else:
            with_spark, with_datafusion = _sides(spark_rows, df_rows, duck)
            on = ""
            if not with_spark and not with_datafusion:  # DuckDB may differ where the two agree: judge the rest
                columns = _differing_columns(spark_rows, df_rows)
                if columns and len(columns) < len(spark_rows[0]):
                    with_spark, with_datafusion = _sides(
                        _only(spark_rows, columns), _only(df_rows, columns), _only(duck, columns)
                    )
                    on = f" on {_positions(columns)}, where the two differ"
            if with_spark and not with_datafusion:
                return f"DuckDB agrees with Spark{on}: DataFusion's own result is wrong"
            if with_spark:  # within DuckDB's tolerance (its doubles where the two give decimals) of both
                verdict = f"DuckDB's rows are as near to Spark's as to DataFusion's{on} and cannot judge"
                with_datafusion = False
            else:
                verdict = f"DuckDB agrees with DataFusion{on}" if with_datafusion else "DuckDB agrees with neither"
        sides = self._plan_sides_with(model, spark_rows, df_rows, exact=True)
        if sides == "spark":
            return (
                f"{verdict}; DataFusion's engine running the plan gives Spark's rows: the plan does not mean the "
                "SQL (its producer's doing)"
            )
        if with_datafusion and sides == "sql":
            return (
                f"{verdict}; DataFusion's engine running the plan gives the same rows: Spark's run of the plan is "
                "wrong (`executor bisect` on the plan finds the node)"
            )
        if with_datafusion:
            return (
                f"{verdict}: Spark's run of the plan is wrong (its translation, or the plan itself: `executor "
                "bisect` on the plan finds the node)"
            )
        if sides == "sql":  # DataFusion's engine agrees with itself, which says nothing of who is right
            return (
                f"{verdict}; DataFusion's engine running the plan gives its result of the SQL: Spark's run of "
                "the plan and DataFusion's engine differ, and no other engine says which is right "
                "(`executor bisect` on the plan finds the node where they part)"
            )
        return verdict

    def _arbitrate_by_the_plan(self, model, spark_rows: list[tuple], duck_rows: list[tuple]) -> str:
        """Where DataFusion's engine fails on the SQL and DuckDB's rows differ from Spark's: whether
        DataFusion's engine running the plan gives Spark's rows (the plan means otherwise than DuckDB
        reads the SQL) or DuckDB's (Spark's run is wrong); where it gives neither or cannot run it, that
        nothing decides (DuckDB's dialect is not DataFusion's)."""
        sides = self._plan_sides_with(model, spark_rows, duck_rows, exact=False)
        if sides == "spark":
            return (
                "DataFusion's engine running the plan gives Spark's rows: the plan does not mean the SQL as "
                "DuckDB reads it (its producer's doing, or the two engines read the SQL differently)"
            )
        if sides == "sql":
            return (
                "DataFusion's engine running the plan gives DuckDB's rows: Spark's run of the plan is wrong "
                "(`executor bisect` on the plan finds the node)"
            )
        # DuckDB's dialect is not DataFusion's (LIKE's default escape, a cast's rounding, substr's negative start)
        return (
            "DataFusion's engine cannot run the plan or gives neither's rows, so nothing says whether Spark's run "
            "or DuckDB's reading of the SQL departs from DataFusion's"
        )

    def _plan_sides_with(self, model, spark_rows: list[tuple], sql_rows: list[tuple], exact: bool) -> str | None:
        """Whose rows DataFusion's engine running the plan gives: "spark", "sql" (the SQL's engine's) or
        None (neither, or it cannot run the plan). Decimals are compared to the digit with Spark's, which
        computes them by the plan's types, and with the SQL's where ``exact`` (DataFusion's result)."""
        plan_rows = self._plan_rows_on_datafusion(model)
        if plan_rows is None:
            return None
        if multiset_diff(spark_rows, plan_rows, exact_decimals=True) is None:
            return "spark"
        return "sql" if multiset_diff(sql_rows, plan_rows, exact_decimals=exact) is None else None

    def _plan_rows_on_datafusion(self, model) -> list[tuple] | None:
        """The plan's rows on DataFusion's consumer and engine, None where it cannot run them."""
        from ..engines.datafusion import DataFusionRunner
        from ..errors import ExecutionError, Unsupported
        from ..jobs.run import MAX_ROWS

        try:
            result = DataFusionRunner(model, self.catalog).run(model.roots[0], MAX_ROWS)
        except (Unsupported, ExecutionError):
            return None
        return _rows(result.table)


def _sides(spark_rows: list[tuple], df_rows: list[tuple], duck: list[tuple]) -> tuple[bool, bool]:
    """Whether DuckDB's rows equal Spark's, and DataFusion's: to the digit where that tells them apart (two
    results a unit of their last place apart, DuckDB's decimals equal to one of them), else within DuckDB's
    tolerance (its doubles where the two give decimals)."""
    exact = multiset_diff(spark_rows, duck, exact_decimals=True) is None, multiset_diff(df_rows, duck, True) is None
    if exact[0] != exact[1]:
        return exact
    return multiset_diff(spark_rows, duck) is None, multiset_diff(df_rows, duck) is None


def _differing_columns(a: list[tuple], b: list[tuple]) -> list[int]:
    """The columns whose values (as multisets) differ between two results of one width."""
    if not a or not b or len(a[0]) != len(b[0]):
        return []
    return [j for j in range(len(a[0])) if multiset_diff(_only(a, [j]), _only(b, [j]), exact_decimals=True)]


def _only(rows: list[tuple], columns: list[int]) -> list[tuple]:
    return [tuple(row[j] for j in columns) for row in rows]


def _positions(columns: list[int]) -> str:
    """``[1]`` as "column 2", ``[0, 2]`` as "columns 1 and 3" (counted from 1)."""
    numbers = [str(j + 1) for j in columns]
    return f"column {numbers[0]}" if len(numbers) == 1 else f"columns {', '.join(numbers[:-1])} and {numbers[-1]}"


def _intervals_typed(table, schema):
    """``table`` with the interval columns a run shows as text (Arrow carries neither Spark's year-month
    intervals nor its calendar ones) as Arrow's month-day-nano intervals, as DataFusion gives them."""
    import pyarrow as pa

    from ..engines.rows import interval_from_text

    for i, f in enumerate(schema or ()):
        kind = f.type.WhichOneof("kind") if f.type is not None else None
        if kind not in ("interval_year", "interval_compound") or i >= table.num_columns:
            continue
        if not pa.types.is_string(table.column(i).type):
            continue
        texts = table.column(i).to_pylist()
        values = [None if t is None else interval_from_text(t) for t in texts]
        if any(v is None for v, t in zip(values, texts) if t is not None):
            continue  # text of another shape: left as it is, to differ where it does
        column = pa.array(values, type=pa.month_day_nano_interval())
        table = table.set_column(i, table.schema.field(i).name, column)
    return table


def _rows(table) -> list[tuple]:
    """An Arrow table's rows as tuples, by position (two columns of one name stay two)."""
    return list(zip(*(_values(column) for column in table.columns))) if table.num_columns else [()] * table.num_rows


def _values(column) -> list:
    """A column's values in Python; dates and times Python cannot hold (before year 1, after 9999) as
    Arrow writes them, as a run shows them."""
    try:
        return column.to_pylist()
    except (OverflowError, ValueError):
        import pyarrow as pa

        return column.cast(pa.string()).to_pylist()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().split("\n\nbacktrace", 1)[0]
    line = (text.splitlines() or [type(exc).__name__])[0]
    return line[:300]


def render_table(title: str, outcomes: list[Outcome]) -> str:
    """A Markdown table: query, form, produced, schema, rows, Spark's types, why not."""
    unrun = sum(o.rows == "not run" for o in outcomes)
    lines = [
        f"**{title}**: {sum(o.ok for o in outcomes)} of {len(outcomes)} fully right"
        + ("" if not unrun else " (rows not run)" if unrun == len(outcomes) else f" ({unrun} with rows not run)"),
        "",
        "| query | form | produced | schema | rows | Spark's types | why not |",
        "|---|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        why = o.why.replace("|", "\\|") if not o.ok or o.why else ""
        lines.append(f"| {o.query} | {o.form} | {o.produced} | {o.schema} | {o.rows} | {o.spark_types} | {why} |")
    return "\n".join(lines)


__all__ = [
    "Checker",
    "FEATURES_SQL",
    "Outcome",
    "Query",
    "arrow_kind",
    "read_queries",
    "render_table",
    "substrait_kind",
]
