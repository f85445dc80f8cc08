"""One node on two engines: Spark (the executor's translation) and DataFusion (its Substrait consumer).

``compare_engines(model, node_id, catalog)`` runs the node's subtree on both, on the same files
(one :class:`executor.data.catalog.Catalog` resolves the tables for both), and says whether they return
the same rows:

- up to ``limit`` rows are taken from each (``limit + 1`` asked, so "more" is known). When both return
  all their rows, the rows are compared as multisets by position (numbers of any type by value, floats
  to 1e-6 relative, decimals to one unit in the last place: :func:`executor.engines.rows.split_rows`), and the
  rows only one engine returns are listed (up to ``sample``);
- an ordered node (its orderedness is known, on fields) must also give its rows in the same order of
  its sort keys;
- a Fetch over unordered rows may take any rows: only the number of rows is compared;
- when one engine has more than ``limit`` rows and the other does not, they differ; when both do, the
  node is not compared (its rows are too many to compare here).

A node an engine cannot take (Spark: :func:`executor.translate.executable.executability`; DataFusion: its
consumer refused it) is "not compared", with the reason.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

import pandas as pd

from viz.kinds import emit

from ..errors import ExecutionError
from ..jobs.run import SparkRun, refuse_writes, to_pandas
from ..jobs.supervise import supervise
from .datafusion import DataFusionCannot, DataFusionRunner
from .rows import RowSplit, first_order_difference, head, json_value, split_rows

#: Rows taken from each engine at most: a node with more on both is not compared row by row.
DEFAULT_LIMIT = 100_000
SAMPLE = 20

SAME, DIFFERS, NOT_COMPARED = "same", "differs", "not compared"


@dataclass
class EngineOutput:
    """One engine's rows of one node."""

    engine: str  # "Spark" or "DataFusion"
    rows: pd.DataFrame | None = None  # the first rows, headed "[i] name" (up to ``shown``)
    row_count: int | None = None  # exact when ``complete``
    complete: bool = False  # every row was taken (no more than the limit)
    types: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0
    error: str | None = None  # it failed running the node
    cannot: str | None = None  # it cannot take the node at all (known before running)
    table: object | None = field(default=None, repr=False)  # the pyarrow Table taken

    @property
    def ok(self) -> bool:
        return self.error is None and self.cannot is None

    def count_text(self) -> str:
        if not self.ok:
            return "-"
        return f"{self.row_count:,}" if self.complete else f"more than {self.row_count:,}"

    def rows_text(self) -> str:
        """``"1 row"``, ``"12 rows"``, ``"more than 100,000 rows"``; ``"-"`` when it gave none."""
        if not self.ok:
            return "-"
        return _rows(self.row_count) if self.complete else f"{self.count_text()} rows"


@dataclass
class EngineComparison:
    node_id: str
    verdict: str  # SAME, DIFFERS or NOT_COMPARED
    why: str  # one line: what differs, or why not compared
    spark: EngineOutput
    datafusion: EngineOutput
    split: RowSplit | None = None
    columns: list[str] = field(default_factory=list)  # "[i] name" of the node's output
    differing_columns: list[int] = field(default_factory=list)
    expressions: list[tuple[str, str]] = field(default_factory=list)  # (role, text): the ones that differ first
    notes: list[str] = field(default_factory=list)  # how DataFusion was given the plan (a read's filter above it...)
    ordered: bool = False  # the node's rows have an order (the plan's orderedness): shown as each engine gave it

    @property
    def only_spark(self) -> pd.DataFrame:
        return self._frame(self.split.only_a if self.split else [])

    @property
    def only_datafusion(self) -> pd.DataFrame:
        return self._frame(self.split.only_b if self.split else [])

    def _frame(self, rows: list[tuple]) -> pd.DataFrame:
        width = max((len(r) for r in rows), default=len(self.columns))
        names = self.columns[:width] + [f"[{i}]" for i in range(len(self.columns), width)]
        return pd.DataFrame(rows, columns=names)

    def to_json(self) -> dict:
        def side(o: EngineOutput) -> dict:
            return {
                "rows": o.row_count,
                "complete": o.complete,
                "types": o.types,
                "elapsed_s": round(o.elapsed_s, 6),
                "error": o.error,
                "cannot": o.cannot,
            }

        return {
            "node": self.node_id,
            "verdict": self.verdict,
            "why": self.why,
            "spark": side(self.spark),
            "datafusion": side(self.datafusion),
            "columns": self.columns,
            "differing_columns": self.differing_columns,
            "expressions": [{"role": r, "text": t} for r, t in self.expressions],
            "notes": self.notes,
            "only_spark_count": self.split.only_a_count if self.split else None,
            "only_datafusion_count": self.split.only_b_count if self.split else None,
            "only_spark": [[json_value(v) for v in r] for r in (self.split.only_a if self.split else [])],
            "only_datafusion": [[json_value(v) for v in r] for r in (self.split.only_b if self.split else [])],
        }


# ---- each engine -------------------------------------------------------------------------------


def spark_output(
    model,
    node_id: str,
    catalog,
    limit: int,
    *,
    timeout_s: float | None = None,
    cancel: threading.Event | None = None,
    shown: int = SAMPLE,
) -> EngineOutput:
    """Node ``node_id``'s first ``limit`` rows on Spark (the translation is the cached one)."""
    from ..spark.session import get_session
    from ..translate.executable import executability

    out = EngineOutput("Spark")
    runnable = executability(model)[node_id]
    if runnable.rows_reason:
        out.cannot = runnable.rows_reason
        return out
    try:
        refuse_writes(model, node_id)
        spark = get_session()
        take = SparkRun(model, node_id, spark, catalog, limit, False, explain=False, keep_all=True, shown=shown)
        result = supervise(take, timeout_s=timeout_s, cancel=cancel)
    except ExecutionError as exc:
        if cancel is not None and cancel.is_set():
            raise
        out.error = str(exc)
        return out
    table = result.arrow
    out.elapsed_s = result.elapsed_s
    out.types = result.types
    out.complete = result.row_count is not None
    out.row_count = table.num_rows
    out.table = table
    out.rows = result.rows
    return out


def datafusion_output(
    runner: DataFusionRunner, node_id: str, limit: int, columns: list[str], shown: int = SAMPLE
) -> EngineOutput:
    """Node ``node_id``'s first ``limit`` rows on DataFusion."""
    out = EngineOutput("DataFusion")
    try:
        got = runner.run(node_id, limit)
    except DataFusionCannot as exc:
        out.cannot = str(exc)
        return out
    except ExecutionError as exc:
        out.error = str(exc)
        return out
    table = got.table
    names = columns[: table.num_columns] + [f"[{i}]" for i in range(len(columns), table.num_columns)]
    out.table = table.rename_columns(names)
    out.types, out.elapsed_s, out.complete, out.row_count = got.types, got.elapsed_s, not got.more, table.num_rows
    out.rows = to_pandas(head(out.table, shown), names)
    return out


# ---- comparing ---------------------------------------------------------------------------------


def output_columns(model, node_id: str) -> list[str]:
    schema = model.node(node_id).schema or []
    return [f"[{i}] {f.name}" for i, f in enumerate(schema)]


def compare_engines(
    model,
    node_id: str,
    catalog,
    *,
    limit: int = DEFAULT_LIMIT,
    sample: int = SAMPLE,
    timeout_s: float | None = None,
    cancel: threading.Event | None = None,
    runner: DataFusionRunner | None = None,
) -> EngineComparison:
    """Run node ``node_id`` on Spark and on DataFusion and compare their rows (see the module)."""
    if node_id not in model.graph.nodes:
        raise ExecutionError(f"the plan has no node {node_id!r}; its roots are {', '.join(model.roots) or 'none'}")
    if limit < 1:
        raise ExecutionError(f"the row limit must be 1 or more, not {limit}")
    runner = runner or DataFusionRunner(model, catalog)
    columns = output_columns(model, node_id)
    spark = spark_output(model, node_id, catalog, limit, timeout_s=timeout_s, cancel=cancel, shown=sample)
    df = datafusion_output(runner, node_id, limit, columns, shown=sample)
    result = judge(model, node_id, spark, df, columns, sample)
    result.notes = sorted(runner.notes)
    return result


def judge(
    model, node_id: str, spark: EngineOutput, df: EngineOutput, columns: list[str], sample: int = SAMPLE
) -> EngineComparison:
    """The verdict on two engines' outputs of one node."""
    properties = model.node(node_id).properties
    result = EngineComparison(
        node_id,
        NOT_COMPARED,
        "",
        spark,
        df,
        columns=columns,
        expressions=list(model.node(node_id).info.expressions),
        ordered=bool(properties is not None and properties.orderedness),
    )
    for side in (spark, df):
        if side.cannot:
            result.why = f"{side.engine} cannot run it: {side.cannot}"
            return result
    if spark.error and df.error:
        result.why = f"both fail: Spark ({spark.error}); DataFusion ({df.error})"
        return result
    if spark.error or df.error:
        failed, other = (spark, df) if spark.error else (df, spark)
        result.verdict = DIFFERS
        result.why = f"{failed.engine} fails ({failed.error}) where {other.engine} returns {other.rows_text()}"
        return result
    ta, tb = spark.table, df.table
    if ta.num_columns != tb.num_columns:
        result.verdict = DIFFERS
        result.why = f"Spark returns {ta.num_columns} columns, DataFusion {tb.num_columns}"
        return result
    if spark.complete != df.complete:
        result.verdict = DIFFERS
        result.why = f"Spark returns {spark.rows_text()}, DataFusion {df.count_text()}"
        return result
    if not spark.complete:
        result.why = f"more than {spark.row_count:,} rows on both engines: too many to compare here"
        return result
    node = model.node(node_id)
    if any(d.code == "fetch-without-order" for d in node.diagnostics):
        same = spark.row_count == df.row_count
        result.verdict = SAME if same else DIFFERS
        result.why = (
            f"{_rows(spark.row_count)} on both (a fetch over unordered rows may take any rows: only the "
            "number of rows is compared)"
            if same
            else f"Spark returns {_rows(spark.row_count)}, DataFusion {df.row_count:,}"
        )
        return result
    split = split_rows(ta, tb, cap=sample)
    result.split = split
    if not split.same:
        result.verdict = DIFFERS
        result.differing_columns = split.columns_differ
        result.expressions = expressions_for(model, node_id, split.columns_differ)
        named = ", ".join(columns[c] if c < len(columns) else f"[{c}]" for c in split.columns_differ)
        result.why = (
            f"{_rows(spark.row_count)} on Spark, {df.row_count:,} on DataFusion: "
            f"{split.only_a_count:,} only on Spark, {split.only_b_count:,} only on DataFusion"
            + (
                f"; the values of {named} differ"
                if named
                else "; every column has the same values, combined into rows differently"
            )
            + _approximate(result.expressions)
        )
        return result
    keys = _order_keys(model, node_id)
    if keys:
        at = first_order_difference(ta, tb, keys)
        if at is not None:
            result.verdict = DIFFERS
            result.differing_columns = keys
            result.why = (
                f"the same {_rows(spark.row_count)}, in a different order of the sort keys "
                f"({', '.join(columns[k] for k in keys if k < len(columns))}) from row {at}"
            )
            return result
    result.verdict = SAME
    result.why = f"the same {_rows(spark.row_count)}" + (" in the same order" if keys else "")
    return result


def _approximate(expressions: list[tuple[str, str]]) -> str:
    """Words for differing columns (the expressions :func:`expressions_for` puts first, "[2] = ...")
    computed by an approximate function (``approx_count_distinct``...), whose estimate each engine makes
    its own way; "" when there is none."""
    names = sorted({m for role, text in expressions if role.startswith("[") for m in _APPROX.findall(text)})
    if not names:
        return ""
    return f" ({', '.join(names)} {'is' if len(names) == 1 else 'are'} approximate: each engine makes its own estimate)"


_APPROX = re.compile(r"\b(approx\w*)\(")


def _rows(n: int) -> str:
    return f"{n:,} row" + ("" if n == 1 else "s")


def _order_keys(model, node_id: str) -> list[int]:
    """The output columns the node's rows are known to be ordered by (the leading keys that are fields)."""
    props = model.properties.get(node_id)
    keys: list[int] = []
    for key in (props.orderedness or ()) if props is not None else ():
        if len(key.indices) != 1:
            break
        keys.append(key.indices[0])
    return keys


def expressions_for(model, node_id: str, output_columns: list[int]) -> list[tuple[str, str]]:
    """The node's expressions, those that compute the given output columns first (a Project's
    expression by its output position, an Aggregate's key or measure by its position), each of
    those with its column in the role."""
    node = model.node(node_id)
    exprs = list(node.info.expressions)
    if not exprs or not output_columns:
        return exprs
    mapping = emit(node.node.body)
    direct = {c: (mapping[c] if mapping is not None and c < len(mapping) else c) for c in output_columns}
    picked: list[tuple[str, str]] = []
    if node.kind == "project":
        by_role = {role: (role, text) for role, text in exprs}
        for c, d in direct.items():
            if f"${d}" in by_role:
                picked.append((f"[{c}] = {by_role[f'${d}'][0]}", by_role[f"${d}"][1]))
    elif node.kind == "aggregate":
        for c, d in direct.items():
            if d < len(exprs):
                picked.append((f"[{c}] = {exprs[d][0]}", exprs[d][1]))
    rest = [e for e in exprs if e[1] not in {t for _, t in picked}]
    return picked + rest


__all__ = [
    "DEFAULT_LIMIT",
    "DIFFERS",
    "NOT_COMPARED",
    "SAME",
    "EngineComparison",
    "EngineOutput",
    "compare_engines",
    "datafusion_output",
    "expressions_for",
    "judge",
    "output_columns",
    "spark_output",
]
