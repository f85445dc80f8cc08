"""SQL to a Substrait plan, with DataFusion's Substrait producer (a real producer, not ours).

``sql_to_plan(sql, tables)`` registers each bound table (``{name: path}``, the files the Spark
executor reads) in a fresh DataFusion ``SessionContext``, *plans* the query (it is never executed)
and hands a logical plan to ``datafusion.substrait.Producer``, in one of three forms (``FORMS``):

- ``"analyzed"`` (the default): the query as written after DataFusion's analyzer, its type coercions
  made explicit as casts; no optimizer passes;
- ``"written"``: ``df.logical_plan()``, the call DataFusion's documentation shows, before the analyzer:
  implicit coercions stay implicit (``lte(decimal<15,2>, fp64)``), and the plan model says which
  coercion the run applies for them;
- ``"optimized"``: DataFusion's optimized plan (filters and projections pushed down, subqueries
  decorrelated).

The result is a Substrait plan in protobuf JSON (or binary) that the rest of the app loads like an
uploaded plan.

Only queries become plans (SELECT, WITH ... SELECT, VALUES). DataFusion reads nothing but the
registered files: DDL (``CREATE EXTERNAL TABLE``), DML (``COPY``, ``INSERT``) and statements
(``SET``) are refused before and during planning, URL tables (``FROM '/some/file'``) are off, file
table functions do not exist in a bare context, and a plan that reads anything other than a
registered table (``generate_series()``, ``information_schema``) is refused.

DataFusion's producer cannot express correlated subqueries (outer references) from the plan as
written; for those the optimizer's decorrelated plan is produced instead, with a warning.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..data.catalog import SUFFIX_FORMATS, Catalog
from ..errors import ExecutionError, reraise_interrupts

if TYPE_CHECKING:  # only the annotations name it; DataFusion brings it at run time
    import pyarrow

MAX_SQL_CHARS = 100_000
QUERY_WORDS = ("select", "with", "values")
#: First words of statements that are not queries: refused before DataFusion sees them (anything
#: else that is not a query goes to DataFusion's parser, for its syntax error, with DDL, DML and
#: statements disabled).
STATEMENT_WORDS = frozenset(
    "alter analyze attach begin call cache comment commit copy create deallocate delete describe desc detach drop "
    "execute explain grant insert install load merge prepare pragma replace reset revoke rollback savepoint set "
    "show start truncate uncache unload update upsert use vacuum".split()
)
_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")


class SqlError(ExecutionError):
    """The SQL cannot become a plan: a syntax error, an unknown table or column, a statement that is
    not a query, or something DataFusion cannot express in Substrait. The message says which."""


@dataclass
class SqlPlan:
    """A Substrait plan made from SQL."""

    data: bytes  # protobuf JSON text (UTF-8) or binary protobuf
    tables_used: list[str]  # the bound tables the plan reads, in plan order
    warnings: list[str] = field(default_factory=list)
    optimized: bool = False  # produced from DataFusion's optimized plan (correlated subqueries)
    #: where the plan is known not to mean the SQL (also among ``warnings``)
    not_the_sql: list[str] = field(default_factory=list)


# ---- the tables a catalog offers ------------------------------------------------------------


def catalog_tables(catalog: Catalog) -> dict[str, str]:
    """``{name: path}`` for every table ``catalog`` resolves by a plain name: its bindings (a dotted
    binding like ``tpch.lineitem`` under its last part) and the tables in its data roots, each
    resolved exactly as a plan's ``NamedTable`` would be (so the same file). Tables the catalog
    refuses (e.g. a link that leads outside the roots) are left out."""
    names = {name.rsplit(".", 1)[-1] for name in catalog.bindings}
    names.update(catalog.available_in_roots())
    out: dict[str, str] = {}
    for status in catalog.status([[n] for n in sorted(names)]):
        if status.bound and status.path is not None:
            out[status.name] = status.path
    return out


# ---- SQL -> plan ----------------------------------------------------------------------------


#: The logical plans DataFusion can hand its producer (see the module docstring).
FORMS = ("analyzed", "written", "optimized")
#: Each form in a few words, for a caption.
FORM_WORDS = {
    "analyzed": "as analyzed (coercions as casts)",
    "written": "as written (coercions implicit)",
    "optimized": "optimized",
}


def sql_to_plan(sql: str, tables: Mapping[str, str], *, json: bool = True, form: str = "analyzed") -> SqlPlan:
    """Plan ``sql`` over ``tables`` (``{name: file or folder}``) with DataFusion and produce Substrait
    from its logical plan in ``form`` (one of ``FORMS``).

    Returns protobuf JSON bytes when ``json`` (else binary protobuf). Raises :class:`SqlError`.
    """
    if form not in FORMS:
        raise SqlError(f"unknown plan form {form!r}; expected one of {', '.join(FORMS)}")
    _check_statement(sql)
    optimized = form == "optimized"
    ctx, registered, warnings = _context(tables, optimize=optimized)
    try:
        frame = _plan(ctx, sql, registered)
        logical = frame.logical_plan() if form == "written" else _optimized(frame)
        plan = _produce(logical, ctx)
    except SqlError as exc:
        if "outer reference" not in str(exc) or optimized:
            raise
        ctx, registered, _ = _context(tables, optimize=True)
        logical = _optimized(_plan(ctx, sql, registered))
        plan = _produce(logical, ctx)
        optimized = True
        warnings.append(
            "DataFusion's Substrait producer cannot express correlated subqueries as written, so this is "
            "DataFusion's optimized plan (subqueries turned into joins, projections and filters pushed down)"
        )
    lost = _meaning_lost(sql, logical, plan, ctx)
    warnings.extend(lost)
    used = _tables_read(plan)
    unknown = [name for name in used if name not in registered]
    if unknown:
        raise SqlError(
            f"the plan reads {', '.join(repr(n) for n in unknown)}, which is not a bound table; "
            f"SQL here can read only the bound tables: {_listing(registered)}"
        )
    return SqlPlan(_encode(plan, json), used, warnings, optimized, lost)


@dataclass
class EngineResult:
    """What DataFusion's own engine makes of a query: the result schema (known from the plan, even
    when running fails) and either the rows or the error."""

    schema: pyarrow.Schema
    table: pyarrow.Table | None
    error: str = ""


class DataFusionEngine:
    """DataFusion's own engine over ``tables`` (the oracle the producer check compares Spark's rows
    with), its context made once for all the queries it runs. The same guards as :func:`sql_to_plan`:
    queries only, over the bound tables only."""

    def __init__(self, tables: Mapping[str, str]) -> None:
        self.ctx, self.registered, _ = _context(tables, optimize=True)

    def run(self, sql: str, rows: bool = True) -> EngineResult:
        """Raises :class:`SqlError` when the query cannot be planned; an error while running is in
        the result. Without ``rows``, the query is planned, not run (its schema only)."""
        _check_statement(sql)
        frame = _plan(self.ctx, sql, self.registered)
        # The schema of the plan DataFusion's engine runs: its plan as written may type an expression
        # before coercion (a CASE of 0 and a double is Int64 there, Float64 in the result).
        try:
            schema = self.ctx.create_dataframe_from_logical_plan(frame.optimized_logical_plan()).schema()
        except Exception:  # noqa: BLE001 - a plan DataFusion cannot optimize: the planned schema is all there is
            schema = frame.schema()
        if not rows:
            return EngineResult(schema, None)
        try:
            return EngineResult(schema, frame.to_arrow_table())
        except BaseException as exc:  # noqa: BLE001 - DataFusion raises several kinds at execution, and panics
            reraise_interrupts(exc)
            return EngineResult(schema, None, _innermost(_clean(exc)))


#: What to do when there is no query to plan.
ENTER_A_QUERY = "enter a SQL query (SELECT, WITH ... SELECT or VALUES)"


def blank(sql: str) -> bool:
    """Whether ``sql`` holds no statement: nothing but whitespace and comments."""
    return not _without_comments(sql).strip()


def _without_comments(sql: str, strings: bool = True) -> str:
    """``sql`` with its comments (``--`` to the line's end, ``/* */`` nested as DataFusion's parser nests
    them) as spaces, read left to right so that a comment's mark inside a string, a quoted name or another
    comment is no mark; without ``strings``, the strings and quoted names too (whatever words they hold)."""
    out, i, n = [], 0, len(sql)
    while i < n:
        if sql.startswith("--", i):
            end = sql.find("\n", i)
            i = n if end < 0 else end
            out.append(" ")
        elif sql.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if sql.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif sql.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            out.append(" ")
        elif m := _QUOTED.match(sql, i):
            out.append(m.group() if strings else " ")
            i = m.end()
        else:
            out.append(sql[i])
            i += 1
    return "".join(out)


#: A string or a quoted name as DataFusion's parser reads one: 'text' (a quote doubled inside it),
#: E'text' (backslash escapes), $tag$text$tag$, "name" and `name`; unterminated, the rest of the text.
_QUOTED = re.compile(
    r"""[eE]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*'|(\$\w*\$).*?\1|"(?:[^"]|"")*"|`[^`]*`|(?:[eE]?'|"|`|\$\w*\$).*""",
    re.S,
)


def _check_statement(sql: str) -> None:
    if not isinstance(sql, str) or blank(sql):
        raise SqlError(ENTER_A_QUERY)
    if len(sql) > MAX_SQL_CHARS:
        raise SqlError(f"the SQL is {len(sql):,} characters long; at most {MAX_SQL_CHARS:,} are accepted")
    first = _first_word(sql)
    if first in STATEMENT_WORDS:
        shown = first.upper()
        raise SqlError(
            f"only queries can become a plan (SELECT, WITH ... SELECT, VALUES); this statement starts with {shown}"
        )


def _first_word(sql: str) -> str:
    """The statement's first keyword, after comments, whitespace and opening parentheses."""
    m = re.match(r"[\s(]*([A-Za-z_]+)", _without_comments(sql))
    return m.group(1).lower() if m else ""


def _context(tables: Mapping[str, str], optimize: bool):
    """A fresh DataFusion context with ``tables`` registered; (ctx, registered names, warnings).

    Without ``optimize`` the optimizer makes no passes, so ``optimized_logical_plan()`` is the plan
    as written after DataFusion's analyzer: types coerced with explicit casts (the plan as written
    calls e.g. ``subtract(i64, decimal)``, which no Substrait signature allows)."""
    from datafusion import SessionConfig, SessionContext

    config = SessionConfig().with_information_schema(False)
    if not optimize:
        config = config.set("datafusion.optimizer.max_passes", "0")
    ctx = SessionContext(config)
    registered: list[str] = []
    warnings: list[str] = []
    for raw_name, path in tables.items():
        name = raw_name.rsplit(".", 1)[-1].strip().lower()
        if not _NAME.match(name):
            warnings.append(f"table {raw_name!r} is left out: SQL table names here are letters, digits and _")
            continue
        if name in registered:
            continue  # the first binding of a name wins, as in the catalog
        fmt = _format(path)
        register = _REGISTER.get(fmt or "")
        if register is None:
            warnings.append(
                f"table {name!r} ({fmt or 'unknown format'} at {path}) is left out: DataFusion reads "
                f"{', '.join(sorted(_REGISTER))} here"
            )
            continue
        try:
            register(ctx, name, path)
        except Exception as exc:  # noqa: BLE001 - a file DataFusion cannot open: say so, plan without it
            warnings.append(f"table {name!r} is left out: DataFusion cannot read {path}: {_clean(exc)}")
            continue
        registered.append(name)
    return ctx, registered, warnings


def _format(path: str) -> str | None:
    """A file's format from its suffix; a folder's from the first data file inside it."""
    if os.path.isdir(path):
        for _, dirnames, filenames in os.walk(path):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "_")))
            for f in sorted(filenames):
                fmt = SUFFIX_FORMATS.get(os.path.splitext(f)[1].lower())
                if fmt and not f.startswith((".", "_")):
                    return fmt
        return None
    return SUFFIX_FORMATS.get(os.path.splitext(path)[1].lower())


def _suffix(path: str, default: str) -> str:
    return default if os.path.isdir(path) else os.path.splitext(path)[1]


#: How DataFusion registers a file of each format, optionally with a declared schema (its columns cast to it).
_REGISTER = {
    "parquet": lambda ctx, n, p, schema=None: ctx.register_parquet(
        n, p, file_extension=_suffix(p, ".parquet"), schema=schema
    ),
    "csv": lambda ctx, n, p, schema=None: ctx.register_csv(
        n, p, schema=schema, has_header=True, file_extension=_suffix(p, ".csv")
    ),
    "tsv": lambda ctx, n, p, schema=None: ctx.register_csv(
        n, p, schema=schema, has_header=True, delimiter="\t", file_extension=_suffix(p, ".tsv")
    ),
    "arrow": lambda ctx, n, p, schema=None: ctx.register_arrow(
        n, p, schema=schema, file_extension=_suffix(p, ".arrow")
    ),
}


def _plan(ctx, sql: str, registered: list[str]):
    """DataFusion's DataFrame for ``sql`` (planned, not run), refusing DDL, DML and statements."""
    from datafusion import SQLOptions

    options = SQLOptions().with_allow_ddl(False).with_allow_dml(False).with_allow_statements(False)
    try:
        return ctx.sql_with_options(sql, options)
    except BaseException as exc:  # noqa: BLE001 - DataFusion raises ValueError, RuntimeError, its own errors, panics
        reraise_interrupts(exc)
        raise SqlError(_message(exc, registered)) from None


def _optimized(frame):
    """The frame's plan after DataFusion's analyzer (and its optimizer, where the context runs it)."""
    try:
        return frame.optimized_logical_plan()
    except BaseException as exc:  # noqa: BLE001 - DataFusion raises its own errors, and panics; the message is the reason
        reraise_interrupts(exc)
        raise SqlError(f"DataFusion's optimizer fails on the query: {_short(_innermost(_clean(exc)))}") from None


#: A frame's offset as DataFusion writes it: a number, or an interval in words (``1 month 2 days``).
_OFFSET = r"(?:\S+|[-+]?\d[\d.]* [A-Za-z]+(?: [-+]?\d[\d.]* [A-Za-z]+)*)"
#: A window frame as DataFusion writes it in a logical plan's text.
_FRAME = re.compile(
    rf"\b(?:ROWS|RANGE|GROUPS) BETWEEN (?:UNBOUNDED PRECEDING|CURRENT ROW|{_OFFSET} (?:PRECEDING|FOLLOWING)) AND "
    rf"(?:UNBOUNDED FOLLOWING|CURRENT ROW|{_OFFSET} (?:PRECEDING|FOLLOWING))"
)
_SET_ALL = re.compile(r"\b(INTERSECT|EXCEPT)\s+ALL\b", re.I)


def _meaning_lost(sql: str, logical, plan: bytes, ctx) -> list[str]:
    """Where the plan made from ``sql`` is known not to mean it, in words: a window frame DataFusion's
    producer does not keep (read back by DataFusion's consumer, the frame is another: it writes a RANGE
    frame with offsets as unbounded), IGNORE NULLS and a window function's DISTINCT (which it drops), and
    INTERSECT ALL or EXCEPT ALL, which DataFusion plans as a semi or an anti join (its own engine gives the
    same rows: not SQL's)."""
    out = []
    code = _without_comments(sql, strings=False)  # not in text or comments
    for m in _SET_ALL.finditer(code):
        word = m.group(1).upper()
        join = "a semi join" if word == "INTERSECT" else "an anti join"
        out.append(
            f"DataFusion plans {word} ALL as {join}: each row of the left input is kept as often as it is "
            f"there{' if the right input has it' if word == 'INTERSECT' else ' unless the right input has it'}, "
            f"not as often as SQL's {word} ALL keeps it (its own engine gives the same rows)"
        )
    text = logical.display_indent()
    if any(line.lstrip().startswith("LeftAnti Join:") and line.endswith(" null_aware") for line in text.splitlines()):
        out.append(
            "DataFusion's optimizer plans NOT IN (subquery) as an anti join that knows SQL's nulls (a null on "
            "either side leaves a row out), which a Substrait join cannot say: where either side holds a null, "
            "the plan may keep rows that the SQL leaves out"
        )
    frames, ignoring, distinct, filtered = _windows(logical, text)
    if not frames and not ignoring and not distinct and not filtered:
        return out
    from datafusion.substrait import Consumer, Serde

    try:
        read_back = Consumer.from_substrait_plan(ctx, Serde.deserialize_bytes(plan))
    except Exception:  # noqa: BLE001 - a plan DataFusion cannot read back is not checked here
        return out
    back, back_ignoring, back_distinct, back_filtered = _windows(read_back)
    if ignoring > back_ignoring:
        out.append(
            "DataFusion's Substrait producer does not keep IGNORE NULLS: the plan's window functions take "
            "the nulls into account. The plan's rows are not the SQL's."
        )
    if distinct > back_distinct:
        out.append(
            "DataFusion's Substrait producer does not keep DISTINCT in a window function (count(DISTINCT x) "
            "OVER ...): the plan's function takes every row, repeated values too. The plan's rows are not the SQL's."
        )
    if filtered > back_filtered:
        out.append(
            "DataFusion's Substrait producer does not keep a window function's FILTER (WHERE ...): the plan's "
            "function takes every row of its window. The plan's rows are not the SQL's."
        )
    if frames:
        lost, written = sorted(frames - back), sorted(back - frames)
        if lost:
            out.append(
                "DataFusion's Substrait producer does not keep the window frame "
                + " and ".join(lost)
                + (f": the plan has {' and '.join(written)}" if written else "")
                + ". The plan's rows are not the SQL's."
            )
    return out


def _windows(logical, text: str | None = None) -> tuple[set[str], int, int, int]:
    """What the window relations of a logical plan say, its indented text (``text``, when already made) read
    once: their frames, how many of their functions skip nulls (``IGNORE NULLS``), how many take distinct
    values and how many take only the rows of a ``FILTER (WHERE ...)``."""
    text = logical.display_indent() if text is None else text
    return (
        _frames(text),
        _in_windows(text, "IGNORE NULLS"),
        _distinct_windows(logical, text),
        _in_windows(text, " FILTER (WHERE "),
    )


def _in_windows(text: str, words: str) -> int:
    """How many times the window relations of a logical plan (its indented text) say ``words``."""
    lines = [line for line in text.splitlines() if "WindowAggr:" in line]
    return sum(line.count(words) for line in lines)


def _distinct_windows(logical, text: str) -> int:
    """How many window functions of a logical plan take distinct values (``count(DISTINCT x) OVER``): each
    window function's own text, so neither a column named ``count(DISTINCT x)`` it reads nor a string in
    its arguments counts; in a subquery inside an expression, read from the plan's text
    (:func:`_distinct_windows_in_subqueries`)."""
    count, plans = _distinct_windows_in_subqueries(text), [logical]
    while plans:
        plan = plans.pop()
        plans.extend(plan.inputs())
        try:
            variant = plan.to_variant()
        except Exception:  # noqa: BLE001 - a node datafusion-python cannot show holds no window function
            continue
        if hasattr(variant, "get_window_expr"):
            count += sum(bool(re.match(r"\w+\(DISTINCT ", e.canonical_name())) for e in variant.get_window_expr())
    return count


def _distinct_windows_in_subqueries(text: str) -> int:
    """How many window functions take distinct values inside the subqueries of a logical plan's expressions,
    from its indented text: datafusion-python gives no subquery's own plan."""
    count, inside = 0, None  # the indent of the ``Subquery:`` line being read under
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip())
        if inside is not None and indent <= inside:
            inside = None
        if inside is None and line.strip() == "Subquery:":
            inside = indent
        elif inside is not None and line.lstrip().startswith("WindowAggr:"):
            count += len(re.findall(r"(?:\[\[|\], \[|, )\w+\(DISTINCT ", line))
    return count


def _frames(text: str) -> set[str]:
    """The window frames of a logical plan (its indented text), as its window relations say them (a
    projection above one says them again, with the bounds as written in the SQL)."""
    lines = [line for line in text.splitlines() if "WindowAggr:" in line]
    # a bound cast to the ORDER BY's decimal (5.00) is the SQL's 5
    return {re.sub(r"\b(\d+)\.0+\b", r"\1", f) for line in lines for f in _FRAME.findall(line)}


def _produce(logical_plan, ctx):
    from datafusion.substrait import Producer

    try:
        return Producer.to_substrait_plan(logical_plan, ctx).encode()
    except BaseException as exc:  # noqa: BLE001 - the producer raises RuntimeError("NotImplemented(...)"), others, panics
        reraise_interrupts(exc)
        raise SqlError(_producer_message(exc)) from None


def _encode(data: bytes, json: bool) -> bytes:
    """The producer's binary plan, or its JSON form. DataFusion still writes fields the current proto
    dropped (``extension_uris``, ``Grouping.grouping_expressions``): they arrive as unknown fields, which
    protobuf's JSON printer leaves out. So the JSON is printed from the plan as our loader upgrades it
    (the GROUP BY keys and function extensions kept)."""
    if not json:
        return data
    from google.protobuf import json_format

    from viz.load import load_plan

    return json_format.MessageToJson(load_plan(data).plan, indent=2).encode()


def _tables_read(data: bytes) -> list[str]:
    """The distinct named tables the (binary) plan reads, in plan order."""
    from substrait import algebra_pb2, plan_pb2

    plan = plan_pb2.Plan()
    plan.ParseFromString(data)
    seen: dict[str, None] = {}

    def walk(message) -> None:
        if isinstance(message, algebra_pb2.ReadRel) and message.HasField("named_table"):
            seen.setdefault(".".join(message.named_table.names), None)
        for fd, value in message.ListFields():
            if fd.message_type is None:
                continue
            for item in [value] if hasattr(value, "ListFields") else value:
                walk(item)

    walk(plan)
    return list(seen)


# ---- DataFusion's messages, cleaned -----------------------------------------------------------

_TABLE = re.compile(r"table '(?:datafusion\.(?:public|information_schema)\.)?([^']*)' not found")
_TABLE_FUNCTION = re.compile(r"table function '([^']*)' not found")
_PARSER = re.compile(r'ParserError\("(.*)"\)', re.S)
_PREFIXES = ("DataFusion error: ", "Error during planning: ", "Schema error: ", "SQL error: ", "Execution error: ")


def _listing(registered: list[str]) -> str:
    return ", ".join(sorted(registered)) or "none"


def _clean(exc: BaseException) -> str:
    """DataFusion's message without Rust backtraces and error-kind prefixes."""
    text = str(exc).split("\n\nbacktrace", 1)[0].split("\nBacktrace", 1)[0].strip()
    changed = True
    while changed:
        changed = False
        for prefix in _PREFIXES:
            if text.startswith(prefix):
                text, changed = text[len(prefix) :], True
    return text


def _innermost(text: str) -> str:
    """The innermost cause of a DataFusion error ("Optimizer rule ... failed\ncaused by\nArrow error: ...")."""
    return _short(text.split("\ncaused by\n")[-1].split("\n", 1)[0])


def _message(exc: BaseException, registered: list[str]) -> str:
    text = _clean(exc)
    m = _TABLE.search(text)
    if m:
        return f"table '{m.group(1)}' is not bound; bound tables: {_listing(registered)}"
    m = _TABLE_FUNCTION.search(text)
    if m:
        return (
            f"table function '{m.group(1)}' is not available: SQL here reads only the bound tables "
            f"({_listing(registered)})"
        )
    m = _PARSER.search(text)
    if m:
        return f"SQL syntax error: {m.group(1)}"
    if "not supported:" in text and text.split(" not supported:", 1)[0] in ("DDL", "DML", "Statement"):
        return f"only queries can become a plan (SELECT, WITH ... SELECT, VALUES): {text}"
    if "only supports a single SQL statement" in text:
        return "enter one query: several statements were found"
    return _short(text)


def _producer_message(exc: BaseException) -> str:
    text = _clean(exc)
    if "OuterReferenceColumn" in text:
        return "DataFusion's Substrait producer cannot convert an outer reference (a correlated subquery)"
    m = re.search(r'NotImplemented\("(.*)', text, re.S)
    if m:
        text = m.group(1)
        text = re.split(r"[({\[]", text, maxsplit=1)[0].strip().rstrip(":").strip()
        text = re.sub(r'"\)$', "", text)
    return f"DataFusion cannot turn this query into Substrait: {_short(text)}"


def _short(text: str, limit: int = 400) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = [
    "FORMS",
    "FORM_WORDS",
    "MAX_SQL_CHARS",
    "DataFusionEngine",
    "EngineResult",
    "SqlError",
    "SqlPlan",
    "catalog_tables",
    "sql_to_plan",
]
