"""Comparing result rows from two engines: as multisets, numbers within a tolerance (floats to 1e-6
relative; a decimal may be off by one unit in the last place of its scale).

Used by the producer check (``python -m executor check``) and by the tests' oracles.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

# ---------------------------------------------------------------------------------------------

#: Mantissa bits a number keeps in its matching key: keys equal means values within ~1e-9 relative,
#: well inside ``values_equal``'s 1e-6; values that are equal but key apart are matched one by one.
_KEY_BITS = 30


def _norm(v: Any) -> Any:
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, (int, float, decimal.Decimal)):
        return v
    if isinstance(v, dt.datetime):
        return v.replace(tzinfo=None) if v.tzinfo is None else v.astimezone(dt.UTC).replace(tzinfo=None)
    if isinstance(v, dt.timedelta):
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    if isinstance(v, dict):
        return tuple(sorted((str(k), _norm(x)) for k, x in v.items()))
    if isinstance(v, (list, tuple)):
        return tuple(_norm(x) for x in v)
    if hasattr(v, "asDict"):
        return tuple(_norm(x) for x in v)
    return v


def _tolerance(v: Any) -> float:
    """How far a number may be off: a decimal may be rounded to its own scale."""
    if isinstance(v, decimal.Decimal):
        exp = v.as_tuple().exponent
        return 10.0**exp if isinstance(exp, int) and exp < 0 else 0.0
    return 0.0


def values_equal(a: Any, b: Any, exact_decimals: bool = False) -> bool:
    """Whether two values are equal, numbers within tolerance; two decimals exactly with ``exact_decimals``."""
    a, b = _norm(a), _norm(b)
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if exact_decimals and isinstance(a, decimal.Decimal) and isinstance(b, decimal.Decimal):
        return a == b
    if isinstance(a, int) and isinstance(b, int):  # counts, keys, nanoseconds: no rounding to forgive
        return a == b
    if isinstance(a, (int, float, decimal.Decimal)) and isinstance(b, (int, float, decimal.Decimal)):
        fa, fb = float(a), float(b)
        if math.isnan(fa) or math.isnan(fb):
            return math.isnan(fa) and math.isnan(fb)
        if math.isinf(fa) or math.isinf(fb):
            return fa == fb
        slack = max(_tolerance(a), _tolerance(b))
        return math.isclose(fa, fb, rel_tol=1e-6, abs_tol=1e-9) or abs(fa - fb) <= slack * 1.0000001
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(values_equal(x, y, exact_decimals) for x, y in zip(a, b))
    if isinstance(a, dt.datetime) and isinstance(b, dt.date) and not isinstance(b, dt.datetime):
        return a == dt.datetime(b.year, b.month, b.day)
    if isinstance(b, dt.datetime) and isinstance(a, dt.date) and not isinstance(a, dt.datetime):
        return b == dt.datetime(a.year, a.month, a.day)
    return a == b


def rows_equal(a: Sequence, b: Sequence, exact_decimals: bool = False) -> bool:
    return len(a) == len(b) and all(values_equal(x, y, exact_decimals) for x, y in zip(a, b))


def multiset_diff(got: list[Sequence], want: list[Sequence], exact_decimals: bool = False) -> str | None:
    """None when the two row lists hold the same rows (any order), else what differs. ``exact_decimals``:
    two decimals must be equal, not within a unit of their last place (rows of one engine's own meaning)."""
    if len(got) != len(want):
        return f"{len(got)} rows, expected {len(want)}"
    if got and want and len(got[0]) != len(want[0]):
        return f"{len(got[0])} columns, expected {len(want[0])}"
    missing = _unmatched(got, want, exact_decimals)
    if missing is None:
        return None
    row, unused = missing
    return f"row {tuple(row)} is not expected (e.g. {tuple(unused[0]) if unused else '-'})"


def subset_diff(got: list[Sequence], pool: list[Sequence], exact_decimals: bool = False) -> str | None:
    """None when every row of ``got`` is found in ``pool`` (a multiset), else the first that is not."""
    missing = _unmatched(got, pool, exact_decimals)
    return None if missing is None else f"row {tuple(missing[0])} is not in the query's full result"


def _unmatched(
    rows: list[Sequence], pool: list[Sequence], exact_decimals: bool = False
) -> tuple[Sequence, list[Sequence]] | None:
    """The first of ``rows`` that no unused row of ``pool`` equals, with the pool rows left unused then.

    Rows are matched by their keys first (:func:`_row_keys`: equal keys, equal rows), and a row whose
    key no unused pool row has is then matched one by one, within tolerance."""
    by_key: dict[tuple, list[int]] = {}
    for i, key in enumerate(_row_keys(pool, exact_decimals)):
        by_key.setdefault(key, []).append(i)
    used = [False] * len(pool)
    unsure = []
    for row, key in zip(rows, _row_keys(rows, exact_decimals)):
        found = by_key.get(key)
        if found:
            used[found.pop()] = True
        else:
            unsure.append(row)
    for row in unsure:
        match = next((i for i, cand in enumerate(pool) if not used[i] and rows_equal(row, cand, exact_decimals)), None)
        if match is None:
            return row, [cand for i, cand in enumerate(pool) if not used[i]]
        used[match] = True
    return None


#: Python types whose values are their own matching key.
_PLAIN = frozenset({str, type(None), dt.date, dt.timedelta, bool})


def _row_keys(rows: list[Sequence], exact_decimals: bool = False) -> list[tuple]:
    """Each row's matching key: numbers (of any type) as floats rounded to :data:`_KEY_BITS` bits of
    mantissa, NaN as "NaN", everything else as its normalised value. Worked out a column at a time
    (numbers in numpy)."""
    width = len(rows[0]) if rows else 0
    if any(len(r) != width for r in rows):
        return [tuple(_value_key(v) for v in r) for r in rows]
    if not width:
        return [()] * len(rows)
    return list(zip(*[_column_keys(column, exact_decimals) for column in zip(*rows)]))


def _column_keys(values: Sequence, exact_decimals: bool = False) -> list:
    """The matching keys of one column's values (see :func:`_row_keys`); decimals as themselves with
    ``exact_decimals`` (equal decimals hash alike whatever their scale)."""
    import numpy as np

    kinds = {type(v) for v in values}
    if kinds <= _PLAIN or (exact_decimals and kinds <= {decimal.Decimal, type(None)}):
        return list(values)
    if not kinds <= {int, float, decimal.Decimal, type(None)}:
        return [_value_key(v) for v in values]
    try:
        x = np.array([0.0 if v is None else float(v) for v in values], dtype="float64")
    except (OverflowError, ValueError):  # an int beyond a float's range, a signalling NaN
        return [_value_key(v) for v in values]
    keys = _rounded(x).tolist()
    for i in np.flatnonzero(np.isnan(x)).tolist():
        keys[i] = "NaN"
    if type(None) in kinds:
        for i, v in enumerate(values):
            if v is None:
                keys[i] = None
    return keys


def _rounded(x):
    """Numbers (a float64 numpy array, or one float) rounded to :data:`_KEY_BITS` bits of mantissa, -0.0 as 0.0."""
    import numpy as np

    with np.errstate(invalid="ignore", over="ignore"):
        m, e = np.frexp(x)
        return np.ldexp(np.round(m * (1 << _KEY_BITS)) / (1 << _KEY_BITS), e) + 0.0


def _value_key(v: Any) -> Any:
    """One value's matching key (see :func:`_row_keys`)."""
    if type(v).__name__ == "MonthDayNano":  # Arrow's interval: a duration when it has no months
        months, days, nanos = v
        return dt.timedelta(days=days, microseconds=nanos / 1000) if not months else ("interval", months, days, nanos)
    v = _norm(v)
    if isinstance(v, (int, float, decimal.Decimal)) and not isinstance(v, bool):
        try:
            f = float(v)
        except (OverflowError, ValueError):
            return v
        return "NaN" if math.isnan(f) else float(_rounded(f))
    return v


_YEAR_MONTH_TEXT = re.compile(r"INTERVAL '(-?)(\d+)(?:-(\d+))?' (YEAR TO MONTH|YEAR|MONTH)")
_CALENDAR_PART = re.compile(r"(-?\d+(?:\.\d+)?) (years|months|days|hours|minutes|seconds)")
_NANOS = {"hours": 3_600_000_000_000, "minutes": 60_000_000_000, "seconds": 1_000_000_000}


def interval_from_text(text: str) -> tuple[int, int, int] | None:
    """Spark's text of a year-month interval (``INTERVAL '1-2' YEAR TO MONTH``) or of a calendar one
    (``1 months 3 days 4.5 seconds``, as a run shows what Arrow cannot carry) as months, days and
    nanoseconds, Arrow's month-day-nano interval; None for other text."""
    m = _YEAR_MONTH_TEXT.fullmatch(text)
    if m:
        sign, first, second, unit = m.groups()
        months = int(first) * 12 + int(second or 0) if unit != "MONTH" else int(first)
        return (-months if sign else months, 0, 0)
    parts = text.split(" ")
    if len(parts) % 2 or not parts:
        return None
    months = days = nanos = 0
    for i in range(0, len(parts), 2):
        m = _CALENDAR_PART.fullmatch(f"{parts[i]} {parts[i + 1]}")
        if m is None:
            return None
        number, unit = decimal.Decimal(m.group(1)), m.group(2)
        if unit in ("years", "months"):
            months += int(number) * (12 if unit == "years" else 1)
        elif unit == "days":
            days += int(number)
        else:
            nanos += int(number * _NANOS[unit])
    return months, days, nanos


def months_duration(text: str) -> str | None:
    """Spark's text of an interval Arrow cannot carry (see :func:`interval_from_text`) as an ISO 8601 duration:
    ``INTERVAL '-1-2' YEAR TO MONTH`` is ``-P1Y2M``, ``1 months 3 days 4.5 seconds`` is ``P1M3DT4.5S`` (each part
    signed as Spark keeps it, when the parts' signs differ); None for other text."""
    parts = interval_from_text(text)
    if parts is None:
        return None
    months, days, nanos = parts
    sign = "-" if all(p <= 0 for p in parts) and any(parts) else ""
    if sign:
        months, days, nanos = -months, -days, -nanos
    years, months = divmod(months, 12) if months >= 0 else (0, months)
    out = f"{sign}P" + (f"{years}Y" if years else "") + (f"{months}M" if months else "") + (f"{days}D" if days else "")
    if nanos:
        out += f"T{(decimal.Decimal(nanos) / 1_000_000_000).normalize():f}S"
    return out if out not in ("P", "-P") else "P0D"


# ---- two engines' tables: the rows only one of them has ------------------------------------------

#: Rows left after matching by key are matched pairwise (within tolerance) only up to this many pairs.
MAX_PAIRWISE = 4_000_000


def _key_column(column) -> list:
    """Matching keys for one Arrow column (see :func:`_row_keys`)."""
    return _column_keys(column.to_pylist())


@dataclass
class RowSplit:
    """Two engines' rows as multisets: the rows only in a, the rows only in b (each capped at ``cap``),
    their counts, and the columns whose values differ (as multisets of one column)."""

    only_a: list[tuple]
    only_b: list[tuple]
    only_a_count: int
    only_b_count: int
    columns_differ: list[int]

    @property
    def same(self) -> bool:
        return self.only_a_count == 0 and self.only_b_count == 0


def split_rows(a, b, cap: int = 20) -> RowSplit:
    """Compare two Arrow tables with the same number of columns as multisets of rows, by position
    (numbers of any type by value, floats to 1e-6 relative, decimals to one unit in the last place).
    Rows are matched by a rounded key first, and the few left over one by one within tolerance.

    The keys are counted in numpy: each column's keys become integer codes (Arrow's dictionary
    encoding of both tables' keys at once), a row's code combines its columns' codes, and the rows
    only one side has are the occurrences of a code beyond the other side's count of it."""
    import numpy as np

    width = min(a.num_columns, b.num_columns)
    rows_a, rows_b = np.zeros(a.num_rows, dtype=np.int64), np.zeros(b.num_rows, dtype=np.int64)
    distinct = 1  # the row codes are in range(distinct)
    differ = []
    for c in range(width):
        codes_a, codes_b, n = _column_codes(a.column(c), b.column(c))
        if not np.array_equal(np.bincount(codes_a, minlength=n), np.bincount(codes_b, minlength=n)):
            differ.append(c)
        if distinct * n >= 2**62:  # renumber the rows' codes densely before they could overflow
            both, inverse = np.unique(np.concatenate([rows_a, rows_b]), return_inverse=True)
            rows_a, rows_b, distinct = inverse[: a.num_rows], inverse[a.num_rows :], len(both)
        rows_a, rows_b = rows_a * n + codes_a, rows_b * n + codes_b
        distinct *= n
    if a.num_columns != b.num_columns:  # no row of one side can equal a row of the other
        rows_a, rows_b = np.arange(a.num_rows), np.arange(a.num_rows, a.num_rows + b.num_rows)
    return _split_by_codes(a, b, rows_a, rows_b, differ, cap)


def _split_by_codes(a, b, rows_a, rows_b, differ: list[int], cap: int) -> RowSplit:
    """:func:`split_rows` once every row has a code (equal codes: equal keys)."""
    import numpy as np

    _, inverse = np.unique(np.concatenate([rows_a, rows_b]), return_inverse=True)
    inverse = inverse.reshape(-1)
    codes_a, codes_b = inverse[: len(rows_a)], inverse[len(rows_a) :]
    n = int(inverse.max()) + 1 if len(inverse) else 0
    count_a, count_b = np.bincount(codes_a, minlength=n), np.bincount(codes_b, minlength=n)
    idx_a = _beyond(codes_a, count_b).tolist()
    idx_b = _beyond(codes_b, count_a).tolist()
    if idx_a and idx_b and len(idx_a) * len(idx_b) <= MAX_PAIRWISE:
        values_a = _rows_at(a, idx_a)
        values_b = _rows_at(b, idx_b)
        unused = dict(enumerate(values_b))
        kept_a = []
        for i, row in zip(idx_a, values_a):
            match = next((j for j, cand in unused.items() if rows_equal(row, cand)), None)
            if match is None:
                kept_a.append(i)
            else:
                del unused[match]
        idx_a, idx_b = kept_a, [idx_b[j] for j in sorted(unused)]
    return RowSplit(_rows_at(a, idx_a[:cap]), _rows_at(b, idx_b[:cap]), len(idx_a), len(idx_b), differ)


def _beyond(codes, other_count):
    """Positions of the rows whose code occurs more often than ``other_count[code]`` so far: each
    code's occurrences after the first ``other_count[code]`` (in row order)."""
    import numpy as np

    order = np.argsort(codes, kind="stable")
    ordered = codes[order]
    rank = np.empty(len(codes), dtype=np.int64)
    rank[order] = np.arange(len(codes)) - np.searchsorted(ordered, ordered, side="left")
    return np.flatnonzero(rank >= other_count[codes])


def _column_codes(column_a, column_b):
    """Integer codes for one column of each table, equal where the matching keys are equal, and how
    many codes there are."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    key_a, key_b = _key_array(column_a), _key_array(column_b)
    if key_a is not None and key_b is not None and key_a.type == key_b.type:
        both = pa.concat_arrays([key_a, key_b])
        if pa.types.is_null(both.type):
            return np.zeros(len(key_a), dtype=np.int64), np.zeros(len(key_b), dtype=np.int64), 1
        encoded = pc.dictionary_encode(both, null_encoding="encode")
        codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        return codes[: len(key_a)], codes[len(key_a) :], max(len(encoded.dictionary), 1)
    numbering: dict = {}
    codes = [numbering.setdefault(k, len(numbering)) for k in (*_key_column(column_a), *_key_column(column_b))]
    codes = np.asarray(codes, dtype=np.int64)
    return codes[: len(column_a)], codes[len(column_a) :], max(len(numbering), 1)


def _key_array(column):
    """One column's matching keys as an Arrow array, or None for the types matched in Python (nested
    values, intervals): numbers of any type as rounded float64 (so ints, decimals and floats of equal
    value match), times without their time zone (as the instant in UTC), text and bytes as large
    ones."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.types as pt

    t = column.type
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if pt.is_integer(t) or pt.is_floating(t) or pt.is_decimal(t):
        values = pc.cast(column, pa.float64(), safe=False)
        nulls = pc.is_null(values).to_numpy(zero_copy_only=False)
        x = values.fill_null(0.0).to_numpy(zero_copy_only=False).astype("float64")
        return pa.array(_rounded(x), type=pa.float64(), mask=nulls)
    if pt.is_timestamp(t):
        return pc.cast(column, pa.timestamp("us"), safe=False)
    if pt.is_date(t):
        return pc.cast(column, pa.date32())
    if pt.is_time(t):
        return pc.cast(column, pa.time64("us"))
    if pt.is_duration(t):
        return pc.cast(column, pa.duration("us"), safe=False)
    if pt.is_string(t) or pt.is_large_string(t) or pt.is_string_view(t):
        return pc.cast(column, pa.large_string())
    if pt.is_binary(t) or pt.is_large_binary(t) or pt.is_binary_view(t) or pt.is_fixed_size_binary(t):
        return pc.cast(column, pa.large_binary())
    if pt.is_boolean(t) or pt.is_null(t):
        return column
    return None


def _rows_at(table, indices: list[int]) -> list[tuple]:
    if not indices:
        return []
    import pyarrow as pa

    views = {pa.string_view(): pa.large_string(), pa.binary_view(): pa.large_binary()}  # Arrow cannot take these
    if any(t in views for t in table.schema.types):
        table = table.cast(pa.schema([f.with_type(views.get(f.type, f.type)) for f in table.schema]))
    taken = table.take(pa.array(indices, type=pa.int64()))
    columns = [c.to_pylist() for c in taken.columns]
    return [tuple(col[r] for col in columns) for r in range(taken.num_rows)]


def first_order_difference(a, b, keys: list[int]) -> int | None:
    """For two tables holding the same rows: the first position where their ``keys`` columns (the
    columns a sort orders by) differ, or None when the rows come in the same order of those keys."""
    ka = list(zip(*[_key_column(a.column(k)) for k in keys]))
    kb = list(zip(*[_key_column(b.column(k)) for k in keys]))
    for i, (x, y) in enumerate(zip(ka, kb)):
        if x != y and not rows_equal(_rows_at(a.select(keys), [i])[0], _rows_at(b.select(keys), [i])[0]):
            return i
    return None


# ---- values as JSON -------------------------------------------------------------------------


def _float(v: float) -> Any:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return v


def _duration(v: dt.timedelta) -> str:
    total_us = v.days * 86_400_000_000 + v.seconds * 1_000_000 + v.microseconds
    sign = "-" if total_us < 0 else ""
    total_us = abs(total_us)
    days, rest = divmod(total_us, 86_400_000_000)
    seconds = decimal.Decimal(rest) / 1_000_000
    return f"{sign}P{days}DT{seconds.normalize():f}S"


_JSON: list[tuple[type, Callable[[Any], Any]]] = [
    (bool, lambda v: v),
    (int, lambda v: v),
    (float, _float),
    (str, lambda v: v),
    (decimal.Decimal, str),
    (dt.datetime, lambda v: v.isoformat()),
    (dt.date, lambda v: v.isoformat()),
    (dt.time, lambda v: v.isoformat()),
    (dt.timedelta, _duration),
    (bytes, lambda v: base64.b64encode(v).decode("ascii")),
    (dict, lambda v: {str(k): json_value(x) for k, x in v.items()}),
    (list, lambda v: _list(v)),
    (tuple, lambda v: [json_value(x) for x in v]),
]


def _list(v: list) -> list:
    return [json_value(x) for x in v]


def float_text(value: float) -> str:
    """A float in the fewest digits that read back as it (``0.30000000000000004``, ``1e-300``, ``-0.0``),
    ``NaN``, ``inf`` (a table's number format keeps four decimals; pandas writes a NaN as a null)."""
    return "NaN" if value != value else repr(float(value))


def interval_text(value: dt.timedelta) -> str:
    """A day-time interval as SQL engines write it: ``1 day 02:00:00``, ``01:30:00``, ``00:00:00.5``
    (a table's own writes "a day", pandas "1 days 02:00:00")."""
    micros = round(value / dt.timedelta(microseconds=1))
    sign, micros = ("-" if micros < 0 else ""), abs(micros)
    days, micros = divmod(micros, 86_400_000_000)
    seconds, fraction = divmod(micros, 1_000_000)
    clock = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    clock += f".{fraction:06d}".rstrip("0") if fraction else ""
    return sign + (f"{days} day{'s' if days != 1 else ''} " if days else "") + clock


def exact_values(column) -> list:
    """An Arrow column's values as Python's (``to_pylist``), but a time of day with a part below a microsecond,
    which a Python time cannot hold, as its text (``01:02:03.000000001``); inside a list, record or map,
    every such time as its text (``time.isoformat``'s where it has no such part)."""
    import pyarrow as pa

    if not _holds_nano_times(column.type):
        return column.to_pylist()
    if pa.types.is_nested(column.type):
        array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
        return _nano_times_as_text(array).to_pylist()
    values = column.to_pylist()
    nanos = column.cast(pa.int64()).to_pylist()
    return [v if n is None or n % 1000 == 0 else _nano_time_text(n) for v, n in zip(values, nanos)]


def _holds_nano_times(t) -> bool:
    import pyarrow as pa

    if pa.types.is_time64(t):
        return t.unit == "ns"
    if pa.types.is_map(t):
        return _holds_nano_times(t.key_type) or _holds_nano_times(t.item_type)
    if pa.types.is_struct(t):
        return any(_holds_nano_times(f.type) for f in t)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return _holds_nano_times(t.value_type)
    return False


def _nano_times_as_text(array):
    """``array`` with each time of day in nanoseconds, at any depth, as its text (a Python time would cut it)."""
    import pyarrow as pa

    t = array.type
    if not _holds_nano_times(t):
        return array
    if pa.types.is_time64(t):
        return pa.array([None if n is None else _nano_time_text(n) for n in array.cast(pa.int64()).to_pylist()])
    if array.offset:  # Arrow builds no list from a slice's offsets with a null mask
        array = array.take(pa.array(range(len(array)), pa.int64()))
    mask = array.is_null()
    if pa.types.is_map(t):
        keys, items = _nano_times_as_text(array.keys), _nano_times_as_text(array.items)
        return pa.MapArray.from_arrays(array.offsets, keys, items, mask=mask if array.null_count else None)
    if pa.types.is_struct(t):
        children = [_nano_times_as_text(child) for child in array.flatten()]
        fields = [f.with_type(c.type) for f, c in zip(t, children)]
        return pa.StructArray.from_arrays(children, fields=fields, mask=mask)
    if pa.types.is_fixed_size_list(t):
        values = array.values.slice(0, len(array) * t.list_size)  # flatten() leaves out a null list's values
        return pa.FixedSizeListArray.from_arrays(_nano_times_as_text(values), t.list_size, mask=mask)
    return type(array).from_arrays(array.offsets, _nano_times_as_text(array.values), mask=mask)


def _nano_time_text(nanos: int) -> str:
    seconds, part = divmod(nanos, 1_000_000_000)
    text = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    if part == 0:
        return text
    return f"{text}.{part // 1000:06d}" if part % 1000 == 0 else f"{text}.{part:09d}"


def head(table, n: int):
    """The first ``n`` rows of a pyarrow Table (pyarrow's slice of a table without columns has ``n``
    rows, however few it had)."""
    return table.slice(0, min(n, table.num_rows))


def json_value(v: Any) -> Any:
    """A value from Arrow's ``to_pylist`` as something ``json.dumps`` writes exactly."""
    if v is None:
        return None
    for typ, convert in _JSON:
        if isinstance(v, typ):
            return convert(v)
    if hasattr(v, "tolist"):  # a numpy array or scalar (rows that did not come through Arrow)
        return json_value(v.tolist())
    return str(v)
