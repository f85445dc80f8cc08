"""Whether a table's columns serve a read: the plan's base schema against the table's columns.

One rule for the run (a Spark DataFrame's schema, :mod:`executor.translate.reads`) and for the app's
Tables page (a file's schema read from its footer or header with pyarrow, before Spark is started):
every column the plan names must be a column of the table (case-insensitive) of the same type family
(numbers go with numbers). Reading by position instead takes the table's first columns under the
plan's names, which serves only when there are enough of them and their families fit in order.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from pyspark.sql import types as S

from viz.fields import Field

from ..engines.arrow_spelling import UNIT_DIGITS
from ..errors import ExecutionError, Unsupported

_SPARK_FAMILIES = {
    S.ByteType: "int",
    S.ShortType: "int",
    S.IntegerType: "int",
    S.LongType: "int",
    S.FloatType: "num",
    S.DoubleType: "num",
    S.DecimalType: "num",
    S.StringType: "str",
    S.VarcharType: "str",
    S.CharType: "str",
    S.DateType: "time",
    S.TimestampType: "time",
    S.TimestampNTZType: "time",
    S.TimeType: "clock",
    S.BooleanType: "bool",
    S.BinaryType: "bin",
}


def spark_family(t: S.DataType) -> str | None:
    """The family of a Spark type (int, num, str, time, clock (a time of day), bool, bin), or None for the others
    (nested...)."""
    return _SPARK_FAMILIES.get(type(t))


def families_fit(have: str | None, want: str | None) -> bool:
    """Whether a column of family ``have`` may serve (be cast to) ``want``; an unknown family is not checked."""
    if have is None or want is None:
        return True
    return have == want or {have, want} <= {"int", "num"}


_INT_DIGITS = {"tinyint": 3, "smallint": 5, "int": 10, "bigint": 19}
_DECIMAL = re.compile(r"decimal\((\d+),(\d+)\)")


def _digits(t: str) -> tuple[int, int] | None:
    """(digits before the point, digits after it) a value of Spark type ``t`` may have, for the exact
    number types (integers and decimals); None for the others."""
    if t in _INT_DIGITS:
        return _INT_DIGITS[t], 0
    m = _DECIMAL.fullmatch(t)
    return (int(m[1]) - int(m[2]), int(m[2])) if m else None


def narrows(have: str | None, want: str | None) -> bool:
    """Whether casting a value of Spark type ``have`` (as ``simpleString`` writes it) to ``want`` may
    change it: a fraction cut off (a double or a decimal read as an integer), a decimal rounded to
    fewer places, a number too large for the narrower type, a timestamp's time of day or a time of day's
    digits of a second dropped. Casts to
    an approximate type (``float``, ``double``) are not counted: their values are approximate anyway."""
    if have is None or want is None or have == want:
        return False
    if have in ("float", "double"):
        return want in _INT_DIGITS or want.startswith("decimal")
    h, w = _digits(have), _digits(want)
    if h is not None and w is not None:
        return w[0] < h[0] or w[1] < h[1]
    if have.startswith("time(") and want.startswith("time("):  # fewer digits of a second
        return int(want[5:-1]) < int(have[5:-1])
    return have.startswith("timestamp") and want == "date"


@dataclass(frozen=True)
class Column:
    """A column as the check sees it: its name, its type as Spark writes it, and its family."""

    name: str
    type: str | None  # None: not known (a plan that names its columns without types)
    family: str | None
    read: bool = True  # a plan's column: whether the read uses it (its projection or filter)
    zone: str | None = None  # a file's timestamp column: the time zone its instants are stored with

    def shown(self) -> str:
        return f"{self.name} {self.type}" if self.type else self.name


def spark_columns(schema: S.StructType) -> list[Column]:
    return [Column(f.name, f.dataType.simpleString(), spark_family(f.dataType)) for f in schema.fields]


class ReadSchema(NamedTuple):
    """A read's base schema and the fields it uses (its projection's and its filters'), None for all."""

    fields: list[Field]
    read: frozenset[int] | None = None


def plan_columns(base: Sequence[Field] | ReadSchema) -> list[Column]:
    """A read's base schema as columns; a type Spark has no form for is left unchecked."""
    from ..translate.types import spark_type_or_none

    fields, read = base if isinstance(base, ReadSchema) else (base, None)
    out = []
    for i, f in enumerate(fields):
        spark_type = spark_type_or_none(f.type)
        out.append(
            Column(
                f.name,
                spark_type.simpleString() if spark_type is not None else None,
                spark_family(spark_type) if spark_type is not None else None,
                read is None or i in read,
            )
        )
    return out


def arrow_columns(schema) -> list[Column]:
    """A pyarrow schema as columns, with the types Spark gives such columns when it reads the file."""
    import pyarrow.types as pt

    return [
        Column(f.name, *_arrow_type(f.type), zone=(f.type.tz or None) if pt.is_timestamp(f.type) else None)
        for f in schema
    ]


def _arrow_type(t) -> tuple[str, str | None]:
    import pyarrow.types as pt

    ints = {8: "tinyint", 16: "smallint", 32: "int", 64: "bigint"}
    if pt.is_integer(t):
        return ints.get(t.bit_width, "bigint"), "int"
    if pt.is_floating(t):
        return ("float" if t.bit_width == 32 else "double"), "num"
    if pt.is_decimal(t):
        return f"decimal({t.precision},{t.scale})", "num"
    if pt.is_string(t) or pt.is_large_string(t) or _is(pt, "is_string_view", t):
        return "string", "str"
    if pt.is_date(t):
        return "date", "time"
    if pt.is_timestamp(t):
        return ("timestamp" if t.tz else "timestamp_ntz"), "time"
    if pt.is_time(t):
        return f"time({UNIT_DIGITS[t.unit]})", "clock"
    if pt.is_boolean(t):
        return "boolean", "bool"
    if pt.is_binary(t) or pt.is_large_binary(t) or pt.is_fixed_size_binary(t) or _is(pt, "is_binary_view", t):
        return "binary", "bin"
    if pt.is_dictionary(t):
        return _arrow_type(t.value_type)
    try:  # nested and other types: not checked, named as Spark names them
        from pyspark.sql.pandas.types import from_arrow_type

        return from_arrow_type(t).simpleString(), None
    except Exception:  # noqa: BLE001 - a type Spark has no form for: pyarrow's name
        return str(t), None


def _is(pt, predicate: str, t) -> bool:
    check = getattr(pt, predicate, None)  # string and binary views are newer than some pyarrow releases
    return bool(check and check(t))


def names_alike(table: Sequence[Column]) -> list[str]:
    """A table's column names that another of its columns has in other letter cases (``k and K``)."""
    seen: dict[str, list[str]] = {}
    for c in table:
        seen.setdefault(c.name.lower(), []).append(c.name)
    return [" and ".join(names) for names in seen.values() if len(names) > 1]


@dataclass
class ColumnCheck:
    """The plan's columns against a table's: what is missing, which types differ, and whether reading
    the table by position would serve instead."""

    plan: list[Column]
    table: list[Column]
    missing: list[str] = field(default_factory=list)  # the plan's columns the table lacks
    #: the plan's columns the table lacks that the read never uses: a run reads them as nulls
    unread: list[str] = field(default_factory=list)
    clashes: list[str] = field(default_factory=list)  # "x is int in the table, string in the plan"
    position_clashes: list[str] = field(default_factory=list)  # the same, column by column in order
    #: the plan's columns whose table type a cast may change (:func:`narrows`), by name and in order:
    #: "r_regionkey is double in the table, int in the plan"
    narrowed: list[str] = field(default_factory=list)
    position_narrowed: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.missing and not self.clashes and not self.alike

    @property
    def alike(self) -> list[str]:
        return names_alike(self.table)

    @property
    def by_position(self) -> bool:
        """Whether the table's first columns, in order, can stand for the plan's (count and families)."""
        return len(self.table) >= len(self.plan) and not self.position_clashes

    def problem(self) -> str:
        """What is wrong, as the end of a sentence that begins with the table ("… lacks 2 of …")."""
        if self.missing:
            shown = ", ".join(self.missing[:8]) + (", …" if len(self.missing) > 8 else "")
            read = sum(1 for c in self.plan if c.read)
            if read < len(self.plan):  # the count of the columns it reads, not of all it declares
                if read == 1:
                    return f"lacks the one column the plan reads ({shown})"
                if len(self.missing) == read:
                    return f"lacks the {read} columns the plan reads ({shown})"
                return f"lacks {len(self.missing)} of the {read} columns the plan reads ({shown})"
            if len(self.plan) == 1:
                return f"lacks the plan's one column ({shown})"
            return f"lacks {len(self.missing)} of the plan's {len(self.plan)} columns ({shown})"
        if self.alike:
            return (
                f"has columns named alike but for letter case ({'; '.join(self.alike)}), which Spark, reading names "
                "in any case, cannot tell apart"
            )
        if self.clashes:
            return "has the plan's columns with other types: " + "; ".join(self.clashes)
        return "has the plan's columns"

    def unread_note(self) -> str:
        """The plan's columns the table lacks that no read uses, as a note ("" for none)."""
        if not self.unread:
            return ""
        shown = ", ".join(self.unread[:5]) + (", …" if len(self.unread) > 5 else "")
        them = "them" if len(self.unread) > 1 else "it"
        return f"lacks {shown}, which the plan declares but never reads: a run reads {them} as nulls"

    def narrowing(self, by_position: bool = False) -> str:
        """What a run checks of the values, where a cast to the plan's type may change them ("" for none)."""
        narrowed = self.position_narrowed if by_position else self.narrowed
        if not narrowed:
            return ""
        shown = "; ".join(narrowed[:3]) + ("; …" if len(narrowed) > 3 else "")
        return f"{shown}: a run stops with an error at any value the plan's type cannot hold exactly"

    def why_not_by_position(self) -> str:
        """Why reading by position would not serve either ("" when it would)."""
        if len(self.table) < len(self.plan):
            return f"it has {len(self.table)} columns where the plan declares {len(self.plan)}"
        if self.position_clashes:
            return (
                "in order, " + "; ".join(self.position_clashes[:3]) + ("; …" if len(self.position_clashes) > 3 else "")
            )
        return ""


def check_columns(table: Sequence[Column], plan: Sequence[Column]) -> ColumnCheck:
    by_name = {c.name.lower(): c for c in table}
    out = ColumnCheck(list(plan), list(table))
    for want in plan:
        have = by_name.get(want.name.lower())
        if have is None:
            (out.missing if want.read else out.unread).append(want.name)
        elif not want.read:
            continue  # its type is nothing to the plan's rows
        elif not families_fit(have.family, want.family):
            out.clashes.append(f"{want.name} is {have.type} in the table, {want.type} in the plan")
        elif narrows(have.type, want.type):
            out.narrowed.append(f"{want.name} is {have.type} in the table, {want.type} in the plan")
    for have, want in zip(table, plan):
        if not families_fit(have.family, want.family):
            out.position_clashes.append(f"{have.name} is {have.type} where the plan reads {want.name} {want.type}")
        elif narrows(have.type, want.type):
            out.position_narrowed.append(f"{have.name} is {have.type} where the plan reads {want.name} {want.type}")
    return out


def check_bases(
    table: Sequence[Column], bases: Sequence[Sequence[Field] | ReadSchema]
) -> tuple[ColumnCheck, list[ColumnCheck]]:
    """A table's columns checked against each base schema a plan reads it with: the check to show (the
    first that fails, else the first) and all of them."""
    checks = [check_columns(table, plan_columns(base)) for base in bases] or [check_columns(table, [])]
    return next((c for c in checks if not c.ok), checks[0]), checks


# ---- a file's columns without Spark --------------------------------------------------------------


def file_columns(path: str, fmt: str) -> list[Column]:
    """The columns Spark would read from a named table's file or folder, from the parquet or ORC footer,
    the Arrow schema or the CSV header and first rows (pyarrow; Spark is not started). Raises
    ``ExecutionError`` when the file cannot be read."""
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError as exc:
        raise ExecutionError(f"cannot read {path!r}: {exc.strerror or exc}") from None
    return list(_file_columns(path, fmt, stamp))


class Unreadable(ExecutionError):
    """A file whose columns cannot be read; ``reason`` is the reader's, in words, without the path."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"cannot read the columns of {path!r}: {reason}")
        self.reason = reason


def _reader_reason(exc: BaseException) -> str:
    """pyarrow's reason a file cannot be read, as a person reads it: its own status ("CSV parse error:
    ...") without the layers around it that repeat the path, and without the file's bytes it quotes (a
    picture's), cut short."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    text = text.rsplit("Invalid: ", 1)[-1]
    text = re.sub(r"^.*Could not open \w+ input source '[^']*': ", "", text)
    text = re.sub(r"(: )?[^\s\w]*[^\x20-\x7e\xa0-\uffff].*", "", text)  # the rest quotes the file's bytes
    text = re.sub(r"(Expected \d+ columns?, got \d+): .*", r"\1", text)  # so does a CSV row's
    text = text or type(exc).__name__
    return text if len(text) <= 200 else text[:199] + "…"


def parquet_schema(path: str) -> list:
    """A parquet file's or folder's columns as pyarrow fields (their types at any depth), empty for one whose
    columns cannot be read."""
    try:
        return list(_arrow_schema(path, "parquet", os.stat(path).st_mtime_ns))
    except (OSError, ExecutionError):
        return []


@functools.lru_cache(maxsize=512)
def _file_columns(path: str, fmt: str, stamp: int) -> tuple[Column, ...]:
    schema = _arrow_schema(path, fmt, stamp)
    if fmt in ("csv", "tsv"):  # a column with no value in the rows read: Spark's CSV reader makes it text
        import pyarrow as pa

        schema = pa.schema([f.with_type(pa.string()) if pa.types.is_null(f.type) else f for f in schema])
    return tuple(arrow_columns(schema))


@functools.lru_cache(maxsize=512)
def _arrow_schema(path: str, fmt: str, _stamp: int):
    """A file's or folder's pyarrow schema, from its footer or header."""
    import pyarrow.csv as pcsv
    import pyarrow.dataset as ds

    formats = {
        "parquet": "parquet",
        "orc": "orc",
        "arrow": "ipc",
        "csv": ds.CsvFileFormat(),
        "tsv": ds.CsvFileFormat(parse_options=pcsv.ParseOptions(delimiter="\t")),
    }
    if fmt not in formats:
        raise Unsupported(f"cannot read the columns of {path!r}: format `{fmt}` (parquet, orc, csv, arrow are read)")
    try:
        schema = ds.dataset(path, format=formats[fmt], partitioning="hive").schema
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several kinds; its message is the reason
        if fmt == "arrow":  # an Arrow stream (not the file format) has its schema first
            try:
                import pyarrow.ipc as ipc

                with open(path, "rb") as fh:
                    return ipc.open_stream(fh).schema
            except Exception:  # noqa: BLE001 - the first reason is the one to give
                pass
        raise Unreadable(path, _reader_reason(exc)) from None
    return schema
