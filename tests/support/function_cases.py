"""The Substrait spec's function test cases (``*.test`` files), parsed and run on Spark.

The text format (``substrait/tests/cases``; the ``substrait`` PyPI package ships no parser for it)::

    ### SUBSTRAIT_SCALAR_TEST: v1.0
    ### SUBSTRAIT_INCLUDE: extension:io.substrait:functions_arithmetic
    # overflow: Examples demonstrating overflow behavior
    add(120::i8, 10::i8) [overflow:ERROR] = <!ERROR>
    add(1::i8, 2::i8) = 3::i8

Aggregate files hold either columns inline (``sum((1, 2, Null)::i32) = 3::i64?``) or a table of rows
before the call whose arguments name its columns (``((1.0), (2.0)) variance(SAMPLE::enum, col0::fp32)``).

``parse_file`` turns a file into ``Case`` objects; ``run_cases`` evaluates them through
``executor.translate.functions`` on Spark, many cases per ``select``, and reports pass / fail / unsupported.
A test harness (``tests/executor/test_functions.py`` runs it), not part of the app; on its own:
``python -m tests.support.function_cases [ROOT]`` (ROOT: the ``.test`` files, by default
``../shared/corpora/function-tests`` beside the repository).
"""

from __future__ import annotations

import datetime as dt
import math
import os
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from substrait.type_pb2 import Type

from executor.errors import ExecutionError, Unsupported
from tests.support import SHARED

NULLABLE = Type.Nullability.NULLABILITY_NULLABLE
REQUIRED = Type.Nullability.NULLABILITY_REQUIRED


class CaseSyntaxError(ExecutionError):
    """A line of a ``.test`` file that does not follow the format."""


# --- values -----------------------------------------------------------------------------------


@dataclass
class Literal:
    """A typed literal: ``value`` is the Python value (None for null), ``type`` its Substrait type."""

    value: Any
    type: Type | None
    text: str


@dataclass
class EnumArg:
    value: str


@dataclass
class ColumnArg:
    """An aggregate's argument: inline values (``(1, 2)::i8``) or a table column (``col0::fp32``)."""

    values: list[Any] | None  # inline values; None for a table column
    index: int | None  # table column index
    type: Type | None


@dataclass
class LambdaArg:
    text: str


@dataclass(frozen=True)
class Special:
    name: str  # "ERROR" | "UNDEFINED"


ERROR = Special("ERROR")
UNDEFINED = Special("UNDEFINED")


@dataclass
class Case:
    file: str  # path relative to the tests root, e.g. "arithmetic/add.test"
    line: int
    group: str
    kind: str  # "scalar" | "aggregate"
    function: str
    args: list[Any]  # Literal | EnumArg | ColumnArg | LambdaArg
    options: dict[str, list[str]]
    expected: Literal | Special
    table: list[list[Any]] | None = None  # aggregate rows (raw values), columns typed by the ColumnArgs
    unsupported: str | None = None  # why this case cannot be built (parse-level: unknown type...)

    @property
    def extension(self) -> str:
        return self.file.split("/", 1)[0]

    def label(self) -> str:
        return f"{self.file}:{self.line}"


# --- types ------------------------------------------------------------------------------------

_SIMPLE_KINDS = {
    "bool": "bool",
    "boolean": "bool",
    "i8": "i8",
    "i16": "i16",
    "i32": "i32",
    "i64": "i64",
    "fp32": "fp32",
    "fp64": "fp64",
    "str": "string",
    "string": "string",
    "binary": "binary",
    "vbin": "binary",
    "date": "date",
    "iyear": "interval_year",
    "interval_year": "interval_year",
    "uuid": "uuid",
    "ts": "timestamp",
    "tstz": "timestamp_tz",
    "timestamp": "timestamp",
    "timestamp_tz": "timestamp_tz",
    "time": "time",
}
_PRECISION_KINDS = {
    "pts": "precision_timestamp",
    "precision_timestamp": "precision_timestamp",
    "ptstz": "precision_timestamp_tz",
    "precision_timestamp_tz": "precision_timestamp_tz",
    "pt": "precision_time",
    "precision_time": "precision_time",
    "iday": "interval_day",
    "interval_day": "interval_day",
}
_LENGTH_KINDS = {
    "vchar": "varchar",
    "varchar": "varchar",
    "fchar": "fixed_char",
    "fixedchar": "fixed_char",
    "fbin": "fixed_binary",
    "fixedbinary": "fixed_binary",
}


def _split_top(text: str, sep: str = ",") -> list[str]:
    """Split on ``sep`` outside brackets and quotes."""
    out, depth, cur, quote = [], 0, [], False
    for ch in text:
        if ch == "'":
            quote = not quote
        elif not quote and ch in "(<[":
            depth += 1
        elif not quote and ch in ")>]":
            depth -= 1
        if ch == sep and depth == 0 and not quote:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur))
    return [p.strip() for p in out]


def parse_type(text: str) -> Type:
    """A Substrait type from the test format's type text (``i8``, ``dec?<38, 2>``, ``list<i32?>``...).

    Raises ``Unsupported`` for types with no Substrait proto equivalent here (``u!u8``, ``func<...>``).
    """
    text = text.strip()
    m = re.fullmatch(r"(u!)?([A-Za-z_][A-Za-z0-9_]*)(\?)?(?:<(.*)>)?", text, re.S)
    if not m:
        raise CaseSyntaxError(f"cannot read the type `{text}`")
    user, name, q, params = m.groups()
    nullability = NULLABLE if q else REQUIRED
    lname = name.lower()
    if user:
        raise Unsupported(f"user-defined type `{text}` (unsigned integers) has no Spark equivalent")
    if lname == "func":
        raise Unsupported("lambda (func) arguments are not supported")
    out = Type()
    if lname in ("dec", "decimal"):
        p, s = (int(x) for x in _split_top(params)) if params else (38, 0)
        out.decimal.precision, out.decimal.scale = p, s
        out.decimal.nullability = nullability
    elif lname == "list":
        out.list.type.CopyFrom(parse_type(params or ""))
        out.list.nullability = nullability
    elif lname in _PRECISION_KINDS:
        kind = _PRECISION_KINDS[lname]
        msg = getattr(out, kind)
        msg.precision = int(params) if params else 6
        msg.nullability = nullability
    elif lname in _LENGTH_KINDS:
        msg = getattr(out, _LENGTH_KINDS[lname])
        msg.length = int(params or 0)
        msg.nullability = nullability
    elif lname in _SIMPLE_KINDS and not params:
        kind = _SIMPLE_KINDS[lname]
        if kind in ("timestamp", "timestamp_tz", "time"):  # the old types, same as precision 6
            kind = {
                "timestamp": "precision_timestamp",
                "timestamp_tz": "precision_timestamp_tz",
                "time": "precision_time",
            }[kind]
            getattr(out, kind).precision = 6
        getattr(out, kind).nullability = nullability
    else:
        raise CaseSyntaxError(f"unknown type `{text}`")
    return out


def type_kind(t: Type | None) -> str | None:
    return None if t is None else t.WhichOneof("kind")


# --- raw values -------------------------------------------------------------------------------

_INTERVAL_RE = re.compile(
    r"P(?:(?P<y>-?\d+)Y)?(?:(?P<mo>-?\d+)M)?(?:(?P<w>-?\d+)W)?(?:(?P<d>-?\d+)D)?"
    r"(?:T(?:(?P<h>-?\d+)H)?(?:(?P<mi>-?\d+)M)?(?:(?P<s>-?\d+(?:\.\d+)?)S)?)?"
)


@dataclass
class _Raw:
    """An untyped value token as written: kind "atom" | "str" | "list" | "tuple" | "lambda"."""

    kind: str
    text: str
    items: list[_Raw] = field(default_factory=list)


class _Reader:
    """A small recursive-descent reader over one case line."""

    def __init__(self, text: str):
        self.s = text
        self.i = 0

    def ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i].isspace():
            self.i += 1

    def peek(self, n: int = 1) -> str:
        return self.s[self.i : self.i + n]

    def expect(self, tok: str) -> None:
        self.ws()
        if not self.s.startswith(tok, self.i):
            raise CaseSyntaxError(f"expected `{tok}` at column {self.i + 1}: {self.s[self.i : self.i + 30]!r}")
        self.i += len(tok)

    def raw(self) -> _Raw:
        self.ws()
        ch = self.peek()
        if ch == "'":
            j = self.i + 1
            buf = []
            while j < len(self.s):
                if self.s[j] == "'" and self.s[j + 1 : j + 2] == "'":
                    buf.append("'")
                    j += 2
                    continue
                if self.s[j] == "'":
                    break
                buf.append(self.s[j])
                j += 1
            else:
                raise CaseSyntaxError("unterminated string")
            self.i = j + 1
            return _Raw("str", "".join(buf))
        if ch in "[(":
            close = "]" if ch == "[" else ")"
            start = self.i
            if ch == "(" and self._is_lambda():
                end = self._matching(self.i)
                self.i = end + 1
                return _Raw("lambda", self.s[start + 1 : end])
            self.i += 1
            items: list[_Raw] = []
            self.ws()
            if self.peek() == close:
                self.i += 1
                return _Raw("list" if ch == "[" else "tuple", "", items)
            while True:
                items.append(self.raw())
                self.ws()
                if self.peek() == ",":
                    self.i += 1
                    continue
                self.expect(close)
                return _Raw("list" if ch == "[" else "tuple", self.s[start : self.i], items)
        j = self.i
        while j < len(self.s) and not self.s.startswith("::", j) and self.s[j] not in ",)]" and not self.s[j].isspace():
            j += 1
        if j == self.i:
            raise CaseSyntaxError(f"expected a value at column {self.i + 1}: {self.s[self.i : self.i + 30]!r}")
        tok = self.s[self.i : j]
        self.i = j
        return _Raw("atom", tok)

    def _matching(self, start: int) -> int:
        depth, quote = 0, False
        for j in range(start, len(self.s)):
            c = self.s[j]
            if c == "'":
                quote = not quote
            elif not quote and c == "(":
                depth += 1
            elif not quote and c == ")":
                depth -= 1
                if depth == 0:
                    return j
        raise CaseSyntaxError("unbalanced parentheses")

    def _is_lambda(self) -> bool:
        end = self._matching(self.i)
        inner = self.s[self.i + 1 : end]
        return "->" in inner.split("(")[0]

    def type_text(self) -> str | None:
        if not self.s.startswith("::", self.i):
            return None
        self.i += 2
        j, depth = self.i, 0
        while j < len(self.s):
            c = self.s[j]
            if self.s.startswith("->", j):
                j += 2
                continue
            if c == "<":
                depth += 1
            elif c == ">":
                if depth == 0:
                    break
                depth -= 1
                if depth == 0:
                    j += 1
                    break
            elif depth == 0 and (c in ",)] " or c == "["):
                break
            j += 1
        text = self.s[self.i : j]
        self.i = j
        return text


def _atom_value(text: str, t: Type) -> Any:
    """The Python value of an atom token for type ``t``."""
    kind = type_kind(t)
    low = text.lower()
    if low == "null":
        return None
    if kind in ("i8", "i16", "i32", "i64"):
        return int(text)
    if kind in ("fp32", "fp64"):
        return float(text)
    if kind == "decimal":
        return Decimal(text)
    if kind == "bool":
        return {"true": True, "false": False}[low]
    if kind == "date":
        return dt.date.fromisoformat(text)
    if kind == "precision_timestamp":
        return dt.datetime.fromisoformat(text)
    if kind == "precision_timestamp_tz":
        value = dt.datetime.fromisoformat(text)
        return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    if kind == "precision_time":
        return dt.time.fromisoformat(text)
    if kind in ("interval_day", "interval_year"):
        return _interval(text, kind)
    if kind in ("string", "varchar", "fixed_char"):
        return text
    raise Unsupported(f"literal `{text}` of type `{kind}` is not supported")


def _interval(text: str, kind: str) -> Any:
    m = _INTERVAL_RE.fullmatch(text)
    if not m or text == "P":
        raise CaseSyntaxError(f"cannot read the interval `{text}`")
    g = {k: (float(v) if k == "s" else int(v)) if v else 0 for k, v in m.groupdict().items()}
    if kind == "interval_year":
        return g["y"] * 12 + g["mo"]  # months
    if g["y"] or g["mo"]:
        raise CaseSyntaxError(f"a day-time interval cannot hold years or months: `{text}`")
    return dt.timedelta(days=g["d"] + 7 * g["w"], hours=g["h"], minutes=g["mi"], seconds=g["s"])


def _value(raw: _Raw, t: Type) -> Any:
    kind = type_kind(t)
    if raw.kind == "atom" and raw.text.lower() == "null":
        return None
    if kind == "list":
        if raw.kind != "list":
            raise CaseSyntaxError(f"expected a list for `list<...>`, got `{raw.text}`")
        return [_value(item, t.list.type) for item in raw.items]
    if raw.kind == "str":
        if kind in ("string", "varchar", "fixed_char"):
            return raw.text
        if kind == "binary":
            return raw.text.encode()
        return _atom_value(raw.text, t)
    if raw.kind == "atom":
        return _atom_value(raw.text, t)
    raise CaseSyntaxError(f"unexpected value `{raw.text}` for type `{kind}`")


# --- case lines -------------------------------------------------------------------------------


def _literal(raw: _Raw, type_text: str | None) -> Literal:
    if type_text is None:
        raise CaseSyntaxError(f"the value `{raw.text}` has no type (`::type`)")
    t = parse_type(type_text)
    return Literal(_value(raw, t), t, raw.text)


def _parse_options(reader: _Reader) -> dict[str, list[str]]:
    reader.ws()
    if reader.peek() != "[":
        return {}
    end = reader.s.index("]", reader.i)
    body = reader.s[reader.i + 1 : end]
    reader.i = end + 1
    out: dict[str, list[str]] = {}
    for part in _split_top(body):
        name, _, value = part.partition(":")
        out[name.strip()] = [value.strip()]
    return out


def _parse_arg(reader: _Reader, aggregate: bool, table: bool):
    raw = reader.raw()
    type_text = reader.type_text()
    if type_text is not None and type_text.strip().lower() == "enum":
        return EnumArg(raw.text)
    if raw.kind == "lambda":
        return LambdaArg(raw.text)
    if aggregate and raw.kind == "atom" and re.fullmatch(r"col\d+", raw.text) and type_text:
        return ColumnArg(None, int(raw.text[3:]), parse_type(type_text))
    if aggregate and raw.kind == "tuple" and type_text:
        t = parse_type(type_text)
        return ColumnArg([_value(item, t) for item in raw.items], None, t)
    if raw.kind == "tuple" and len(raw.items) == 1:  # ('200')::u!u8
        raw = raw.items[0]
    return _literal(raw, type_text)


def parse_line(text: str, kind: str) -> tuple[str, list, dict, Any, list | None]:
    reader = _Reader(text)
    table: list[list[Any]] | None = None
    reader.ws()
    if kind == "aggregate" and reader.peek() == "(":
        rows = reader.raw()
        table = [[item for item in (row.items if row.kind == "tuple" else [row])] for row in rows.items]
        table = [r for r in table if r]  # "(())" is a table with no rows
    reader.ws()
    m = re.compile(r"[A-Za-z_][A-Za-z0-9_]*").match(reader.s, reader.i)
    if not m:
        raise CaseSyntaxError(f"expected a function name: {text!r}")
    name = m.group(0)
    reader.i = m.end()
    reader.expect("(")
    args: list[Any] = []
    reader.ws()
    if reader.peek() != ")":
        while True:
            args.append(_parse_arg(reader, kind == "aggregate", table is not None))
            reader.ws()
            if reader.peek() == ",":
                reader.i += 1
                continue
            reader.expect(")")
            break
    else:
        reader.i += 1
    if table is not None:
        types = {a.index: a.type for a in args if isinstance(a, ColumnArg) and a.index is not None}
        try:
            table = [[_value(raw, types[i]) for i, raw in enumerate(row)] for row in table]
        except KeyError:
            raise CaseSyntaxError("a table column has no typed `colN` argument") from None
    options = _parse_options(reader)
    reader.expect("=")
    reader.ws()
    rest = reader.s[reader.i :].strip()
    if rest == "<!ERROR>":
        expected: Any = ERROR
    elif rest == "<!UNDEFINED>":
        expected = UNDEFINED
    else:
        raw = reader.raw()
        if raw.kind == "tuple" and len(raw.items) == 1:
            raw = raw.items[0]
        expected = _literal(raw, reader.type_text())
    return name, args, options, expected, table


def parse_text(text: str, file: str = "<text>") -> list[Case]:
    kind = "scalar"
    group = ""
    cases: list[Case] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("###"):
            if "SUBSTRAIT_AGGREGATE_TEST" in stripped:
                kind = "aggregate"
            elif "SUBSTRAIT_SCALAR_TEST" in stripped:
                kind = "scalar"
            continue
        if stripped.startswith("#"):
            group = stripped.lstrip("#").split(":", 1)[0].strip()
            continue
        head = re.match(r"\s*(?:\(.*?\)\s*)?([A-Za-z_]\w*)\(", stripped)
        function = head.group(1) if head else "?"
        try:
            name, args, options, expected, table = parse_line(stripped, kind)
            cases.append(Case(file, lineno, group, kind, name, args, options, expected, table))
        except Unsupported as exc:
            cases.append(Case(file, lineno, group, kind, function, [], {}, UNDEFINED, None, str(exc)))
        except (CaseSyntaxError, ValueError, KeyError) as exc:
            raise CaseSyntaxError(f"{file}:{lineno}: {exc}: {stripped}") from None
    return cases


def parse_file(path: str, root: str | None = None) -> list[Case]:
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    rel = os.path.relpath(path, root).replace(os.sep, "/") if root else os.path.basename(path)
    return parse_text(text, rel)


def load_cases(root: str) -> list[Case]:
    """Every case of every ``.test`` file under ``root``, in file order."""
    out: list[Case] = []
    for dirpath, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            if name.endswith(".test"):
                out.extend(parse_file(os.path.join(dirpath, name), root))
    return out


# --- running on Spark -------------------------------------------------------------------------


@dataclass
class Result:
    case: Case
    status: str  # "pass" | "fail" | "unsupported"
    detail: str = ""
    actual: Any = None
    crashed: bool = False  # the mapping raised something other than an executor error


def lit_column(value: Any, t: Type):
    """A Spark literal column of the Spark type for Substrait type ``t``."""
    from pyspark.sql import functions as F

    from executor.translate.types import to_spark

    st = to_spark(t)
    kind = type_kind(t)
    if value is None:
        return F.lit(None).cast(st)
    if kind == "list":
        items = [lit_column(v, t.list.type) for v in value]
        return F.array(*items).cast(st)
    if kind == "interval_year":
        return F.make_ym_interval(F.lit(0), F.lit(int(value)))
    if kind in ("precision_timestamp", "precision_timestamp_tz", "date", "decimal"):
        text = value.isoformat(sep=" ") if isinstance(value, dt.datetime) else str(value)
        return F.lit(text).cast(st)
    if kind == "binary":
        return F.lit(bytearray(value)).cast(st)
    return F.lit(value).cast(st)


def _is_analysis_error(exc: BaseException) -> bool:
    from pyspark.errors import AnalysisException

    return isinstance(exc, AnalysisException)


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300] if text else ''}"


def _as_utc(value: dt.datetime) -> dt.datetime:
    return value.astimezone(dt.UTC)


def matches(expected: Literal, actual: Any) -> bool:
    """Whether a collected Spark value equals the expected typed literal (floats with tolerance)."""
    return _match(expected.value, actual, expected.type)


def _match(exp: Any, act: Any, t: Type | None) -> bool:
    kind = type_kind(t)
    if exp is None or act is None:
        return exp is None and act is None
    if kind == "list":
        return (
            isinstance(act, list) and len(act) == len(exp) and all(_match(e, a, t.list.type) for e, a in zip(exp, act))
        )
    if kind in ("fp32", "fp64"):
        a = float(act)
        if math.isnan(exp) or math.isnan(a):
            return math.isnan(exp) and math.isnan(a)
        if math.isinf(exp) or math.isinf(a):
            return exp == a
        return math.isclose(a, exp, rel_tol=1e-6 if kind == "fp32" else 1e-9, abs_tol=1e-12)
    if kind == "decimal":
        return Decimal(str(act)) == exp
    if kind == "precision_timestamp_tz":
        return _as_utc(act) == _as_utc(exp)
    if kind == "precision_timestamp" and isinstance(act, dt.datetime):
        return act.replace(tzinfo=None) == exp
    if kind == "interval_year" and isinstance(act, dt.timedelta):
        return False
    return act == exp


@dataclass
class _Built:
    case: Case
    column: Any  # the result Column (scalar) or a one-row DataFrame (aggregate)
    warnings: list[str]


def _call_for(case: Case):
    from executor.translate.functions import Call

    out_type = case.expected.type if isinstance(case.expected, Literal) else None
    arg_types = [a.type for a in case.args if isinstance(a, (Literal, ColumnArg))]
    return Call(case.function, arg_types, out_type, dict(case.options))


def _lambda(arg: LambdaArg, spark_fns):
    """A lambda of the form ``x -> f(x, literal...)`` (one call over the parameter) as a Python callable."""
    from executor.translate.functions import Call

    m = re.fullmatch(r"\s*(\w+)\s*->\s*(\w+)\((.*)\)\s*", arg.text, re.S)
    if not m:
        raise Unsupported(f"lambda `{arg.text}` is not of the form `x -> f(...)`")
    param, fname, body = m.groups()
    parts = _split_top(body)
    reader_args: list[Any] = []
    for part in parts:
        if part == param:
            reader_args.append(None)
        else:
            r = _Reader(part)
            raw = r.raw()
            reader_args.append(_literal(raw, r.type_text()))

    def fn(x):
        cols = [x if a is None else lit_column(a.value, a.type) for a in reader_args]
        types = [None if a is None else a.type for a in reader_args]
        return spark_fns.scalar(Call(fname, types, None, {}), cols)

    return fn


def _scalar_column(case: Case):
    from executor.translate import functions

    call = _call_for(case)
    args: list[Any] = []
    for a in case.args:
        if isinstance(a, Literal):
            args.append(lit_column(a.value, a.type))
        elif isinstance(a, EnumArg):
            args.append(a.value)
        elif isinstance(a, LambdaArg):
            args.append(_lambda(a, functions))
        else:
            raise Unsupported(f"argument {a!r} in a scalar case")
    return functions.scalar(call, args), call.warnings


def _aggregate_frame(case: Case, spark):
    from pyspark.sql import functions as F
    from pyspark.sql import types as S

    from executor.translate import functions
    from executor.translate.types import to_spark

    cols = [a for a in case.args if isinstance(a, ColumnArg)]
    if case.table is not None:
        types = {a.index: a.type for a in cols}
        width = max(types) + 1 if types else 0
        rows = case.table
        col_types = [types[i] for i in range(width)]
    else:
        if len(cols) != 1:
            raise Unsupported("an inline aggregate case needs exactly one column argument")
        col_types = [cols[0].type]
        rows = [[v] for v in (cols[0].values or [])]
    schema = S.StructType([S.StructField(f"col{i}", to_spark(t)) for i, t in enumerate(col_types)])
    structs = [F.struct(*[lit_column(v, col_types[i]).alias(f"col{i}") for i, v in enumerate(row)]) for row in rows]
    array = F.array(*structs).cast(S.ArrayType(schema)) if structs else F.array().cast(S.ArrayType(schema))
    frame = _one_row(spark).select(F.inline(array))
    frame._substrait_rows = (rows, col_types)  # type: ignore[attr-defined]  # for stacking (run_cases)
    call = _call_for(case)
    args: list[Any] = []
    for a in case.args:
        if isinstance(a, ColumnArg):
            args.append(F.col(f"col{a.index or 0}"))
        elif isinstance(a, EnumArg):
            args.append(a.value)
        elif isinstance(a, Literal):
            args.append(lit_column(a.value, a.type))
        else:
            raise Unsupported(f"argument {a!r} in an aggregate case")
    return frame, functions.aggregate(call, args), call.warnings


def _judge(b: _Built, value: Any) -> Result:
    exp = b.case.expected
    if exp is UNDEFINED:
        return Result(b.case, "pass", "undefined result accepted", value)
    if exp is ERROR:
        return Result(b.case, "fail", f"expected an error, got {value!r}", value)
    if matches(exp, value):
        return Result(b.case, "pass", "", value)
    return Result(b.case, "fail", f"expected {exp.text}::{_type_text(exp.type)}, got {value!r}", value)


def _type_text(t: Type | None) -> str:
    from viz.types import render

    return render(t)


def _judge_error(case: Case, exc: BaseException) -> Result:
    if _is_analysis_error(exc):
        return Result(case, "fail", f"Spark rejected the expression: {_short(exc)}")
    if case.expected is ERROR:
        return Result(case, "pass", _short(exc))
    if case.expected is UNDEFINED:
        return Result(case, "pass", f"undefined result; raised {_short(exc)}")
    return Result(case, "fail", f"raised {_short(exc)}")


def _one_row(spark):
    """A one-row, one-partition DataFrame: global aggregates over it need no shuffle."""
    return spark.range(0, 1, 1, 1)


def _frame_for(b: _Built, spark, i: int):
    if b.case.kind == "aggregate":
        frame, col = b.column
        return frame.agg(_collectable(col, b.case).alias(f"r{i}"))
    return _one_row(spark).select(_collectable(b.column, b.case).alias(f"r{i}"))


def _collectable(col, case: Case):
    """PySpark cannot collect year-month intervals: bring them back as a number of months."""
    from pyspark.sql import functions as F

    if isinstance(case.expected, Literal) and type_kind(case.expected.type) == "interval_year":
        return F.call_function("extract", F.lit("YEAR"), col) * 12 + F.call_function("extract", F.lit("MONTH"), col)
    return col


def _evaluate_one(b: _Built, spark) -> Result:
    try:
        row = _frame_for(b, spark, 0).collect()[0]
    except Exception as exc:  # noqa: BLE001 - any Spark failure is a case result
        return _judge_error(b.case, exc)
    return _judge(b, row[0])


def _evaluate_batch(batch: list[_Built], spark) -> list[Result]:
    """Scalar cases in one ``select``; when it fails, split it in halves until the culprits run alone."""
    if len(batch) == 1:
        return [_evaluate_one(batch[0], spark)]
    try:
        cols = [_collectable(b.column, b.case).alias(f"r{i}") for i, b in enumerate(batch)]
        row = _one_row(spark).select(*cols).collect()[0]
    except Exception:  # noqa: BLE001 - a failing case: bisect
        half = len(batch) // 2
        return _evaluate_batch(batch[:half], spark) + _evaluate_batch(batch[half:], spark)
    return [_judge(b, row[i]) for i, b in enumerate(batch)]


def run_cases(cases: list[Case], spark, batch_size: int = 100, threads: int = 4) -> list[Result]:
    """Evaluate every case on Spark.

    Scalar cases run many per ``select`` (a failing batch is bisected); cases expected to raise and
    aggregate cases (one small DataFrame each) run one per query, several queries at a time.
    """
    from concurrent.futures import ThreadPoolExecutor

    results: dict[int, Result] = {}
    batched: list[tuple[int, _Built]] = []
    singles: list[tuple[int, _Built]] = []
    for i, case in enumerate(cases):
        if case.unsupported:
            results[i] = Result(case, "unsupported", case.unsupported)
            continue
        try:
            if case.kind == "aggregate":
                frame, col, warnings = _aggregate_frame(case, spark)
                built = _Built(case, (frame, col), warnings)
            else:
                col, warnings = _scalar_column(case)
                built = _Built(case, col, warnings)
        except Unsupported as exc:
            results[i] = Result(case, "unsupported", str(exc))
            continue
        except Exception as exc:  # noqa: BLE001 - a crash of the mapping is reported, never raised
            results[i] = Result(case, "fail", f"crash while building: {_short(exc)}", crashed=True)
            continue
        if case.kind == "scalar" and case.expected is not ERROR:
            batched.append((i, built))
        else:
            singles.append((i, built))
    chunks = [batched[k : k + batch_size] for k in range(0, len(batched), batch_size)]
    groups: dict[str, list[tuple[int, _Built]]] = defaultdict(list)
    rest: list[tuple[int, _Built]] = []
    for item in singles:
        key = _shape(item[1])
        (groups[key] if key else rest).append(item)
    stacked = [g for g in groups.values() if len(g) > 1]
    rest += [g[0] for g in groups.values() if len(g) == 1]
    singles = rest

    def run_chunk(chunk):
        return list(zip([i for i, _ in chunk], _evaluate_batch([b for _, b in chunk], spark)))

    def run_single(item):
        i, b = item
        return [(i, _evaluate_one(b, spark))]

    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        futures = [pool.submit(run_chunk, c) for c in chunks]
        futures += [pool.submit(_run_stacked, g, spark) for g in stacked]
        futures += [pool.submit(run_single, s) for s in singles]
        for future in futures:
            for i, r in future.result():
                results[i] = r
    return [results[i] for i in range(len(cases))]


def _shape(b: _Built) -> str | None:
    """Aggregate cases with the same shape (function, types, options) share one grouped query."""
    case = b.case
    if case.kind != "aggregate" or case.expected is ERROR:
        return None
    rows, _ = b.column[0]._substrait_rows
    if not rows:  # a global aggregate over no rows has no group: run it alone
        return None
    parts = [case.function, repr(case.options), repr(b.warnings)]
    for a in case.args:
        parts.append(a.value if isinstance(a, EnumArg) else _type_text(getattr(a, "type", None)))
    parts.append(_type_text(case.expected.type) if isinstance(case.expected, Literal) else str(case.expected))
    return "|".join(str(p) for p in parts)


def _run_stacked(group: list[tuple[int, _Built]], spark) -> list[tuple[int, Result]]:
    """Cases of one shape as one table with a case column, aggregated with ``groupBy(case)``."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as S

    from executor.translate.types import to_spark

    _, first = group[0]
    _, col_types = first.column[0]._substrait_rows
    fields = [S.StructField("case", S.IntegerType())]
    fields += [S.StructField(f"col{i}", to_spark(t)) for i, t in enumerate(col_types)]
    structs = []
    for k, (_, b) in enumerate(group):
        rows, _ = b.column[0]._substrait_rows
        for row in rows:
            values = [lit_column(v, col_types[i]).alias(f"col{i}") for i, v in enumerate(row)]
            structs.append(F.struct(F.lit(k).alias("case"), *values))
    try:
        frame = _one_row(spark).select(F.inline(F.array(*structs).cast(S.ArrayType(S.StructType(fields)))))
        out = frame.groupBy("case").agg(_collectable(first.column[1], first.case).alias("r")).collect()
    except Exception:  # noqa: BLE001 - fall back to one query per case
        return [(i, _evaluate_one(b, spark)) for i, b in group]
    by_case = {row["case"]: row["r"] for row in out}
    return [(i, _judge(b, by_case.get(k))) for k, (i, b) in enumerate(group)]


def summarize(results: list[Result], key: str = "function") -> list[tuple[str, int, int, int, int]]:
    """Rows (name, total, passed, failed, unsupported) per function (``key="function"``) or per file/extension."""
    table: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for r in results:
        name = {"function": r.case.function, "file": r.case.file, "extension": r.case.extension}[key]
        row = table[name]
        row[0] += 1
        row[{"pass": 1, "fail": 2, "unsupported": 3}[r.status]] += 1
    return [(name, *counts) for name, counts in sorted(table.items())]


def format_table(rows: list[tuple[str, int, int, int, int]], title: str) -> str:
    width = max([len(title)] + [len(r[0]) for r in rows])
    lines = [f"{title:<{width}}  total  pass  fail  unsup   rate"]
    for name, total, ok, bad, unsup in rows:
        lines.append(f"{name:<{width}}  {total:>5}  {ok:>4}  {bad:>4}  {unsup:>5}  {100 * ok / total:5.1f}%")
    total = sum(r[1] for r in rows)
    ok = sum(r[2] for r in rows)
    lines.append(
        f"{'TOTAL':<{width}}  {total:>5}  {ok:>4}  {sum(r[3] for r in rows):>4}  "
        f"{sum(r[4] for r in rows):>5}  {100 * ok / max(total, 1):5.1f}%"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.support.function_cases [ROOT]``: run the spec's function tests, print the tables."""
    import argparse

    default = os.path.normpath(os.path.join(SHARED, "corpora", "function-tests"))
    parser = argparse.ArgumentParser(
        prog="python -m tests.support.function_cases",
        description="Run the Substrait spec's function test cases (*.test files) on a local Spark session and "
        "print pass / fail / unsupported per function and per extension.",
    )
    parser.add_argument("root", nargs="?", default=default, help=f"the folder of .test files (default: {default})")
    root = parser.parse_args(argv).root
    if not os.path.isdir(root):
        parser.error(f"expected a folder of .test files, got {root!r} (no such folder)")

    from executor.spark.session import get_session

    cases = load_cases(root)
    spark = get_session()
    started = time.perf_counter()
    results = run_cases(cases, spark)
    elapsed = time.perf_counter() - started
    print(format_table(summarize(results, "function"), "function"))
    print()
    print(format_table(summarize(results, "extension"), "extension"))
    print(f"\n{len(results)} cases in {elapsed:.1f} s")
    for r in results:
        if r.status != "pass":
            print(f"{r.status:<11} {r.case.label()}: {r.detail}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
