"""Counts as people read them: a row count of any size (a cross product's derived count can pass
2^63 and far beyond) in a few characters, with the exact figure kept for a hover."""

from __future__ import annotations

import math

#: Counts below this are written out in full (``999,999,999``); from it on, as a mantissa and a power
#: of ten (``1.4 × 10¹²``), since a run of digit groups longer than that is no longer read at a glance.
EXACT_BELOW = 10**9

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def is_abbreviated(n: int) -> bool:
    """Whether :func:`count_text` shows ``n`` rounded (so the exact figure belongs in a hover)."""
    return abs(n) >= EXACT_BELOW


def exact_text(n: int) -> str:
    """The exact count with thousands separators (``12,345``)."""
    return f"{n:,}"


def count_text(n: int) -> str:
    """``n`` as people read it: in full below :data:`EXACT_BELOW`, else ``1.4 × 10¹²`` (two
    significant digits, rounded half up, computed on integers so any size works)."""
    if not is_abbreviated(n):
        return exact_text(n)
    sign, n = ("-" if n < 0 else ""), abs(n)
    exponent = len(str(n)) - 1
    tenths = (n + 5 * 10 ** (exponent - 2)) // 10 ** (exponent - 1)  # 2 digits: 14 for 1.4
    if tenths >= 100:  # 9.96 rounds to 10.0: one more power of ten
        tenths, exponent = tenths // 10, exponent + 1
    return f"{sign}{tenths // 10}.{tenths % 10} × 10{str(exponent).translate(_SUPERSCRIPT)}"


def rows_text(rows: int) -> str:
    """``"1 row"``, ``"12,345 rows"``, ``"1.4 × 10¹² rows"``."""
    return f"{count_text(rows)} row{'s' if rows != 1 else ''}"


def rows_hover(rows: int) -> str:
    """The exact count for a hover: ``"exactly 1,384,000,000,000 rows"`` (empty when the shown text
    is already exact)."""
    return f"exactly {exact_text(rows)} rows" if is_abbreviated(rows) else ""


def factor_text(factor: float | None) -> str:
    """A node's rows over its input's as people read it: two significant digits below 1 (``0.00012``,
    where two decimals read as 0), two decimals up to 100, whole up to :data:`EXACT_BELOW` and as
    :func:`count_text` writes a count above; blank when there is none."""
    if factor is None or not math.isfinite(factor):
        return ""
    if factor >= 100:
        return count_text(round(factor))
    if factor >= 1 or factor == 0:
        return f"{factor:.2f}".rstrip("0").rstrip(".")
    return f"{factor:.2g}" if factor >= 1e-4 else f"{factor:.1e}"
