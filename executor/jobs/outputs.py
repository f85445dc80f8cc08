"""Compare two nodes' outputs: row counts, schemas by position, and the rows only one side has.

``compare_outputs(model_a, node_a, model_b, node_b, catalog_a, catalog_b)`` translates both
subtrees (``executor.translate.rel.translate``; the two nodes may come from one plan, say a node
and its input, or from two plans, say the same subtree before and after a rewrite) and reports:

- the exact row count of each;
- the schemas side by side by position: names, types (Substrait's, from the model, and Spark's)
  and nullability, which positions differ, and the difference in column count;
- when both have the same number of columns with the same Spark types (decimals of different
  precision or scale are compared by value, in the decimal both fit in, integers of different widths
  as bigint), the rows only in a and the
  rows only in b as multisets (Spark ``exceptAll``: a row twice in a and once in b is once "only
  in a"), their counts and up to ``sample`` of each; otherwise why rows were not compared.

The comparison is one supervised job (``executor.jobs.supervise``), so ``timeout_s`` or a ``cancel``
Event interrupts its Spark jobs. Failures are raised as ``ExecutionError`` with a message naming the side and the node.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import pandas as pd

from viz.counts import count_text, rows_text
from viz.kinds import JOIN_KINDS, emit
from viz.schema import project_passed_on
from viz.words import counted

from ..errors import ExecutionError, Unsupported
from .profile import is_cross_product
from .supervise import Job, Progress, supervise


@dataclass
class ColumnComparison:
    index: int
    name_a: str | None  # None: a has no column at this position
    name_b: str | None
    type_a: str | None  # Substrait type text, from the model
    type_b: str | None
    spark_type_a: str | None
    spark_type_b: str | None
    nullable_a: bool | None
    nullable_b: bool | None
    ignore_case: bool = False  # names that differ only in upper and lower case are the same
    ignore_nullability: bool = False  # a column that may be null and one that may not are alike

    def _names_differ(self) -> bool:
        a, b = self.name_a, self.name_b
        if self.ignore_case and a is not None and b is not None:
            return a.casefold() != b.casefold()
        return a != b

    @property
    def differs(self) -> bool:
        return self._names_differ() or self._types_differ() or self._nullability_differs()

    def _nullability_differs(self) -> bool:
        return not self.ignore_nullability and self.nullable_a != self.nullable_b

    def _types_differ(self) -> bool:
        """Whether the types differ beyond their nullability (``i64`` and ``i64?`` are one type)."""
        return _bare(self.type_a) != _bare(self.type_b) or self.spark_type_a != self.spark_type_b

    @property
    def what_differs(self) -> list[str]:
        if self.name_a is None or self.name_b is None:
            return ["missing in " + ("a" if self.name_a is None else "b")]
        out = []
        if self._names_differ():
            out.append("name")
        if self._types_differ():
            out.append("type")
        if self._nullability_differs():
            out.append("nullability")
        return out

    def what_differs_said(self) -> str:
        """What differs with both sides' values: 'type decimal<31,4>? vs decimal<38,4>?', 'name "a" vs
        "A"', 'missing in a' (the plan's types, or Spark's where the plan's are alike or unknown)."""
        if self.name_a is None or self.name_b is None:
            return self.what_differs[0]
        out = []
        if self._names_differ():
            out.append(f'name "{self.name_a}" vs "{self.name_b}"')
        if self.type_a is not None and self.type_b is not None and _bare(self.type_a) != _bare(self.type_b):
            out.append(f"type {self.type_a} vs {self.type_b}")
        elif self.spark_type_a != self.spark_type_b:
            out.append(f"Spark's type {self.spark_type_a} vs {self.spark_type_b}")
        if self._nullability_differs():
            out.append(f"nullability {_nullability(self.nullable_a)} vs {_nullability(self.nullable_b)}")
        return ", ".join(out)


def _bare(type_text: str | None) -> str | None:
    """A type's text without its own nullability mark (the ``?`` at its end; its members' stay)."""
    return type_text[:-1] if type_text and type_text.endswith("?") else type_text


def _nullability(value: bool | None) -> str:
    return "unknown" if value is None else "nullable" if value else "required"


#: How many differing columns :meth:`OutputComparison.summary` names before it says "and 4 more".
_NAMED = 3


@dataclass
class OutputComparison:
    node_a: str
    node_b: str
    rows_a: int
    rows_b: int
    columns: list[ColumnComparison]
    rows_compared: bool
    why_not_compared: str | None = None
    only_a_count: int | None = None  # rows in a and not in b (as multisets)
    only_b_count: int | None = None
    only_a: pd.DataFrame = field(default_factory=pd.DataFrame)  # up to ``sample`` of them
    only_b: pd.DataFrame = field(default_factory=pd.DataFrame)
    elapsed_s: float = 0.0

    @property
    def differing_columns(self) -> list[int]:
        return [c.index for c in self.columns if c.differs]

    @property
    def nullability_only(self) -> list[int]:
        """The differing columns that differ only in whether they may be null."""
        return [c.index for c in self.columns if c.differs and c.what_differs == ["nullability"]]

    @property
    def column_count_difference(self) -> int:
        """Columns of b minus columns of a."""
        return sum(c.name_b is not None for c in self.columns) - sum(c.name_a is not None for c in self.columns)

    @property
    def same_rows(self) -> bool:
        """The same rows (as multisets), whatever the schemas."""
        return self.rows_compared and self.only_a_count == 0 and self.only_b_count == 0

    @property
    def same(self) -> bool:
        """Same schema and the same rows (as multisets)."""
        return not self.differing_columns and self.same_rows

    def summary(self, labels: tuple[str, str] = ("a", "b")) -> str:
        """One line: the row counts, which columns differ (by position and name, the first few of
        them, so that a wide schema keeps the line short) and how many rows only one side has (each
        side called as ``labels`` say)."""
        rows = "row" if self.rows_a == self.rows_b == 1 else "rows"
        parts = [f"{self.rows_a:,} vs {self.rows_b:,} {rows}"]
        loose = set(self.nullability_only)  # said apart: the same values either way
        differing = [c for c in self.columns if c.differs and c.index not in loose]
        if len(differing) == 1:
            c = differing[0]
            parts.append(f'column {c.index} "{_name(c)}" differs: {c.what_differs_said()}')
        elif differing:
            named = [f'{c.index} "{_name(c)}" ({", ".join(c.what_differs)})' for c in differing[:_NAMED]]
            if len(differing) > _NAMED:
                named.append(f"{len(differing) - _NAMED} more")
            parts.append(f"columns {', '.join(named[:-1])} and {named[-1]} differ")
        if not differing:
            parts.append(
                f"same schema but for the nullability of {counted(len(loose), 'column')}" if loose else "same schema"
            )
        elif loose:
            parts.append(f"only nullability differs in {counted(len(loose), 'other column')}")
        if self.rows_compared:
            only_a = f"{self.only_a_count:,} row{'s' if self.only_a_count != 1 else ''}"
            parts.append(f"{only_a} only in {labels[0]}, {self.only_b_count:,} only in {labels[1]}")
        else:
            parts.append(f"rows not compared: {self.why_not_compared}")
        return "; ".join(parts)

    def to_json(self) -> dict:
        return {
            "node_a": self.node_a,
            "node_b": self.node_b,
            "rows_a": self.rows_a,
            "rows_b": self.rows_b,
            "columns": [{**c.__dict__, "differs": c.what_differs} for c in self.columns],
            "differing_columns": self.differing_columns,
            "column_count_difference": self.column_count_difference,
            "rows_compared": self.rows_compared,
            "why_not_compared": self.why_not_compared,
            "only_a_count": self.only_a_count,
            "only_b_count": self.only_b_count,
            "only_a": self.only_a.astype(str).to_dict(orient="records"),
            "only_b": self.only_b.astype(str).to_dict(orient="records"),
            "same": self.same,
        }


def _name(c: ColumnComparison) -> str | None:
    return c.name_a if c.name_a is not None else c.name_b


def _fields(model, node_id: str):
    schema = model.node(node_id).schema
    return list(schema) if schema is not None else None


def _columns(fa, fb, df_a, df_b, ignore_case: bool = False, ignore_nullability: bool = False) -> list[ColumnComparison]:
    sa = [f.dataType.simpleString() for f in df_a.schema.fields]
    sb = [f.dataType.simpleString() for f in df_b.schema.fields]
    out = []
    for i in range(max(len(sa), len(sb))):
        a = fa[i] if fa is not None and i < len(fa) else None
        b = fb[i] if fb is not None and i < len(fb) else None
        out.append(
            ColumnComparison(
                index=i,
                name_a=(a.name if a is not None else f"_{i}") if i < len(sa) else None,
                name_b=(b.name if b is not None else f"_{i}") if i < len(sb) else None,
                type_a=a.type_text() if a is not None else None,
                type_b=b.type_text() if b is not None else None,
                spark_type_a=sa[i] if i < len(sa) else None,
                spark_type_b=sb[i] if i < len(sb) else None,
                nullable_a=a.nullable if a is not None else None,
                nullable_b=b.nullable if b is not None else None,
                ignore_case=ignore_case,
                ignore_nullability=ignore_nullability,
            )
        )
    return out


_DECIMAL = re.compile(r"decimal\((\d+),(\d+)\)")


def _common_decimal(a: str | None, b: str | None) -> tuple[int, int] | None:
    """The decimal both of two Spark decimal types fit in, as the model reads set inputs
    (:func:`viz.types.common_decimal`); None unless both are decimals."""
    from substrait.type_pb2 import Type

    from viz.types import common_decimal

    ma, mb = _DECIMAL.fullmatch(a or ""), _DECIMAL.fullmatch(b or "")
    if ma is None or mb is None:
        return None
    da, db = (Type(decimal=Type.Decimal(precision=int(m[1]), scale=int(m[2]))) for m in (ma, mb))
    common = common_decimal(da, db).decimal
    return common.precision, common.scale


#: Spark's integer types: two of them compare by value as bigint.
_INTEGERS = ("tinyint", "smallint", "int", "bigint")


def _common_type(a: str | None, b: str | None) -> str | None:
    """The Spark type two different column types compare in by value: the decimal both fit in, bigint for
    two integers (isthmus's l_year bigint beside DataFusion's int); None when they do not line up."""
    common = _common_decimal(a, b)
    if common is not None:
        return f"decimal({common[0]},{common[1]})"
    return "bigint" if a in _INTEGERS and b in _INTEGERS else None


def _as_common_types(df, columns: list[ColumnComparison]):
    """``df`` with each column whose two sides have different types that line up cast to the type both
    fit in (:func:`_common_type`), so their rows compare by value."""
    from pyspark.sql import functions as F

    casts = {}
    for c in columns:
        common = _common_type(c.spark_type_a, c.spark_type_b) if c.spark_type_a != c.spark_type_b else None
        if common is not None:
            name = df.columns[c.index]
            casts[name] = F.col(name).cast(common)
    return df.withColumns(casts) if casts else df


def _why_not(columns: list[ColumnComparison]) -> str | None:
    a = [c for c in columns if c.spark_type_a is not None]
    b = [c for c in columns if c.spark_type_b is not None]
    if len(a) != len(b):
        return f"a has {len(a)} columns and b has {len(b)}: rows compare only with the same columns"
    for c in columns:
        if c.spark_type_a != c.spark_type_b and _common_type(c.spark_type_a, c.spark_type_b) is None:
            return (
                f"column {c.index} is {c.spark_type_a} in a and {c.spark_type_b} in b: rows compare only when "
                "the types line up"
            )
    for c in columns:
        if "map<" in (c.spark_type_a or ""):
            return f"column {c.index} is a map ({c.spark_type_a}), which Spark cannot compare"
    return None


def _sample(df, names: list[str], n: int) -> pd.DataFrame:
    frame = df.limit(n).toArrow().to_pandas(integer_object_nulls=True, date_as_object=True)
    frame.columns = [f"[{i}] {name}" for i, name in enumerate(names)]
    return frame


def _work(
    model_a,
    node_a,
    model_b,
    node_b,
    catalog_a,
    catalog_b,
    spark,
    sample: int,
    ignore_case: bool = False,
    ignore_nullability: bool = False,
    executing: Callable[[], None] = lambda: None,
) -> OutputComparison:
    """The comparison; ``executing`` is called after both translations, before the first Spark job."""
    from .run import translation  # kept per plan, node, tables and session: a run of the node made it already

    start = time.perf_counter()
    try:
        ta = translation(model_a, node_a, spark, catalog_a)
    except ExecutionError as exc:
        raise ExecutionError(f"a (node {node_a}): {exc}") from exc
    try:
        tb = translation(model_b, node_b, spark, catalog_b)
    except ExecutionError as exc:
        raise ExecutionError(f"b (node {node_b}): {exc}") from exc
    df_a, df_b = ta.df, tb.df
    columns = _columns(_fields(model_a, node_a), _fields(model_b, node_b), df_a, df_b, ignore_case, ignore_nullability)
    executing()
    rows_a, rows_b = int(df_a.count()), int(df_b.count())
    why = _why_not(columns)
    result = OutputComparison(node_a, node_b, rows_a, rows_b, columns, rows_compared=why is None, why_not_compared=why)
    if why is None:
        # Same positional column names on both sides ("_0", "_1", ...), so exceptAll lines them up.
        a_aligned = _as_common_types(df_a, columns)
        b_aligned = _as_common_types(df_b.toDF(*df_a.columns), columns)
        only_a, only_b = a_aligned.exceptAll(b_aligned), b_aligned.exceptAll(a_aligned)
        result.only_a_count, result.only_b_count = int(only_a.count()), int(only_b.count())
        names_a = [c.name_a or "" for c in columns]
        result.only_a = _sample(only_a, names_a, sample)
        result.only_b = _sample(
            only_b,
            names_a if not any(c._names_differ() for c in columns) else [c.name_b or "" for c in columns],
            sample,
        )
    result.elapsed_s = time.perf_counter() - start
    return result


#: Rows a side may have for a comparison to be started: each side is read whole (a set difference), and
#: beyond this a local session does not end within any timeout a person waits for.
COMPARE_MAX_ROWS = 100_000_000


def too_many_to_compare(rows: int | None, what: str) -> str | None:
    """Why a comparison of a side of ``rows`` rows (known from a run or its inputs' counts) is not
    started, or None."""
    if rows is None or rows <= COMPARE_MAX_ROWS:
        return None
    return (
        f"{what} has {rows:,} rows: a comparison reads every one and would not end "
        f"(at most {COMPARE_MAX_ROWS:,} are compared)."
    )


def compare_outputs(
    model_a,
    node_a: str,
    model_b,
    node_b: str,
    catalog_a,
    catalog_b,
    spark=None,
    sample: int = 20,
    timeout_s: float | None = None,
    ignore_case: bool = False,
    cancel: threading.Event | None = None,
    ignore_nullability: bool = False,
    progress: Progress | None = None,
) -> OutputComparison:
    """Compare node ``node_a`` of ``model_a`` with node ``node_b`` of ``model_b`` (see the module).
    With ``ignore_case``, column names that differ only in upper and lower case are the same; with
    ``ignore_nullability``, a column that may be null and one that may not are alike. A set
    ``cancel`` Event, like the timeout, interrupts its Spark jobs and raises ``Cancelled``;
    ``progress(fraction, status)`` hears where it stands (its place in line for Spark)."""
    for side, model, nid in (("a", model_a, node_a), ("b", model_b, node_b)):
        if nid not in model.graph.nodes:
            raise ExecutionError(
                f"{side}: the plan has no node {nid!r}; its roots are {', '.join(model.roots) or 'none'}"
            )
    if sample < 0:
        raise ExecutionError(f"the sample size must be 0 or more, not {sample}")
    from .run import refuse_writes

    refuse_writes(model_a, node_a)
    refuse_writes(model_b, node_b)
    why = cannot_compare(model_a, node_a, model_b, node_b)
    if why:
        raise Unsupported(why)
    if spark is None:
        from ..spark.session import get_session

        spark = get_session()
    compare = partial(
        _work, model_a, node_a, model_b, node_b, catalog_a, catalog_b, spark, sample, ignore_case, ignore_nullability
    )
    return supervise(_Comparison(spark, node_a, node_b, compare), timeout_s=timeout_s, cancel=cancel, progress=progress)


def cannot_compare(model_a, node_a: str, model_b, node_b: str, labels: tuple[str, str] = ("a", "b")) -> str | None:
    """Why the two nodes cannot be compared on Spark (the first side whose node cannot run there, its reason,
    known before Spark is asked), or None."""
    from ..translate.executable import executability

    for label, model, nid in ((labels[0], model_a, node_a), (labels[1], model_b, node_b)):
        runnable = executability(model).get(nid)
        if runnable is not None and runnable.rows_reason:
            return f"{label}'s node {nid} cannot run on Spark: {runnable.rows_reason}"
    return None


class _Comparison(Job):
    """The Spark work of one comparison, a supervised job."""

    description = "substrait-viz comparison"
    tag_prefix = "substrait-viz-compare-"

    def __init__(self, spark, node_a: str, node_b: str, compare: Callable[..., OutputComparison]) -> None:
        """``compare(executing=...)`` does the comparison (:func:`_work`)."""
        super().__init__(spark)
        self.node_a, self.node_b, self.compare = node_a, node_b, compare

    def work(self) -> OutputComparison:
        with self.turn():
            return self.compare(executing=self._executing)

    def _executing(self) -> None:
        self.started_execution.set()  # before the check: see executor.jobs.supervise._stop
        self.check()

    def stop_message(self, reason: str, in_line: int | None) -> str:
        was = "" if reason.startswith("timed out") else "was "
        return f"comparing node {self.node_a} with node {self.node_b} {was}{reason}; its Spark jobs were interrupted"

    def failure(self, exc: BaseException) -> BaseException:
        if isinstance(exc, ExecutionError):
            return exc
        from .run import spark_reason

        err = ExecutionError(f"Spark failed comparing node {self.node_a} with node {self.node_b}: {spark_reason(exc)}")
        err.__cause__ = exc
        return err


__all__ = [
    "COMPARE_MAX_ROWS",
    "ColumnComparison",
    "OutputComparison",
    "cannot_compare",
    "compare_outputs",
    "too_many_to_compare",
]


# ---- what one step did -------------------------------------------------------------------------


def _project_columns(body, in_cols: int | None, keeps_input: bool) -> str:
    """What a project did to the columns: the expressions it computed and the input columns it kept
    (without an emit: all of them, or none where its producer wrote projects as outputting only their
    expressions; an emit can keep any of either)."""
    mapping = emit(body)
    exprs = list(body.expressions)
    if in_cols is None:
        return f"{counted(len(exprs), 'column')} computed"
    if mapping is None:
        mapping = [*(range(in_cols) if keeps_input else ()), *range(in_cols, in_cols + len(exprs))]
    # an expression that only names an input column passes it on (as the node's detail says, "passed on")
    passed = [project_passed_on(i, in_cols, exprs) for i in mapping if 0 <= i < in_cols + len(exprs)]
    shown, kept = sum(1 for p in passed if p is None), len({p for p in passed if p is not None})
    inputs = counted(in_cols, "input column")
    made = f"{counted(shown, 'column')} computed" if shown else "none computed"
    if kept == in_cols:
        return f"{made}, the {inputs} kept"
    return f"{made}, {'none' if kept == 0 else kept} of the {inputs} kept"


def describe_step(model, node_id: str, rows: int, input_rows: list[int]) -> str:
    """One line saying what node ``node_id`` did, from its row count and its inputs' (in input order):
    "kept 7 of 10 rows (3 dropped)", "joined 10 rows with 4 rows → 9 rows", "10 rows → 4 groups", ...; a
    join without a condition "10 × 4 rows → 40 rows", its rows being the product of its inputs'. Counts
    of a billion or more are said as ``1.4 × 10¹²`` (a cross product's can have sixty digits)."""
    node = model.node(node_id)
    kind = node.kind
    in_schema = model.node(node.inputs[0]).schema if node.inputs else None
    in_cols = len(in_schema) if in_schema is not None else None
    if not input_rows:
        what = f" from {node.info.detail}" if kind == "read" and node.info.detail else ""
        body = node.node.body
        if kind == "read" and body is not None and body.HasField("filter"):
            what += ", through its filter"  # the rows the read's own filter kept, not the table's
        return f"read {rows_text(rows)}{what}" if kind == "read" else f"produced {rows_text(rows)}"
    first = input_rows[0]
    if kind == "filter":
        return f"kept {count_text(rows)} of {rows_text(first)} ({count_text(first - rows)} dropped)"
    if kind == "fetch":
        return f"took {count_text(rows)} of {rows_text(first)} ({count_text(first - rows)} skipped or cut)"
    if kind == "sort":
        return f"same {rows_text(rows)}, sorted" if rows == first else f"{rows_text(first)} → {rows_text(rows)}, sorted"
    if kind in JOIN_KINDS:
        if is_cross_product(model, node_id):  # its rows are the product: said as one
            return " × ".join(count_text(r) for r in input_rows) + f" rows → {rows_text(rows)}"
        return "joined " + " with ".join(rows_text(r) for r in input_rows) + f" → {rows_text(rows)}"
    if kind == "aggregate":
        groups = "group" if rows == 1 else "groups"
        return f"{rows_text(first)} → {count_text(rows)} {groups}"
    if kind == "project":
        keeps_input = model.conventions.project_keeps_input
        return f"{rows_text(rows)}, {_project_columns(node.node.body, in_cols, keeps_input)}"
    if kind == "set":
        return " and ".join(rows_text(r) for r in input_rows) + f" → {rows_text(rows)}"
    return ", ".join(count_text(r) for r in input_rows) + f" input rows → {rows_text(rows)}"


__all__ += ["describe_step"]
