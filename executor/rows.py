"""Comparing result rows from two engines: as multisets, numbers within a tolerance (floats to 1e-6
relative; a decimal may be off by one unit in the last place of its scale).

Used by the producer check (``python -m executor check``) and by the tests' oracles.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
from typing import Any, Sequence


# ---------------------------------------------------------------------------------------------

def _norm(v: Any) -> Any:
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, (int, float, decimal.Decimal)):
        return v
    if isinstance(v, dt.datetime):
        return v.replace(tzinfo=None) if v.tzinfo is None else v.astimezone(dt.timezone.utc).replace(tzinfo=None)
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
        return 10.0 ** exp if isinstance(exp, int) and exp < 0 else 0.0
    return 0.0


def values_equal(a: Any, b: Any) -> bool:
    a, b = _norm(a), _norm(b)
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
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
        return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dt.datetime) and isinstance(b, dt.date) and not isinstance(b, dt.datetime):
        return a == dt.datetime(b.year, b.month, b.day)
    if isinstance(b, dt.datetime) and isinstance(a, dt.date) and not isinstance(a, dt.datetime):
        return b == dt.datetime(a.year, a.month, a.day)
    return a == b


def rows_equal(a: Sequence, b: Sequence) -> bool:
    return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b))


def _sort_key(row: Sequence) -> tuple:
    out = []
    for v in row:
        v = _norm(v)
        if v is None:
            out.append((0, 0.0, ""))
        elif isinstance(v, bool):
            out.append((1, float(v), ""))
        elif isinstance(v, (int, float, decimal.Decimal)):
            f = float(v)
            out.append((2, -math.inf if math.isnan(f) else round(f, 4), ""))
        else:
            out.append((3, 0.0, repr(v)))
    return tuple(out)


def multiset_diff(got: list[Sequence], want: list[Sequence]) -> str | None:
    """None when the two row lists hold the same rows (any order), else what differs."""
    if len(got) != len(want):
        return f"{len(got)} rows, expected {len(want)}"
    if got and want and len(got[0]) != len(want[0]):
        return f"{len(got[0])} columns, expected {len(want[0])}"
    g, w = sorted(got, key=_sort_key), sorted(want, key=_sort_key)
    if all(rows_equal(x, y) for x, y in zip(g, w)):
        return None
    # The sort keys round numbers; fall back to matching each row against any unused expected row.
    missing = _unmatched(g, w)
    if missing is None:
        return None
    row, unused = missing
    return f"row {tuple(row)} is not expected (e.g. {tuple(unused[0]) if unused else '-'})"


def subset_diff(got: list[Sequence], pool: list[Sequence]) -> str | None:
    """None when every row of ``got`` is found in ``pool`` (a multiset), else the first that is not."""
    missing = _unmatched(got, sorted(pool, key=_sort_key))
    return None if missing is None else f"row {tuple(missing[0])} is not in the query's full result"


def _unmatched(rows: list[Sequence], pool: list[Sequence]) -> tuple[Sequence, list[Sequence]] | None:
    """The first of ``rows`` that no unused row of ``pool`` equals, with the pool rows left unused then."""
    unused = list(pool)
    for row in rows:
        for i, cand in enumerate(unused):
            if rows_equal(row, cand):
                del unused[i]
                break
        else:
            return row, unused
    return None
