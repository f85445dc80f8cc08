"""A run's rows in a table, each value shown as it is.

The rows keep SQL decimals exact (``decimal.Decimal``, ``executor.jobs.run.to_pandas``), but the table
draws numbers as floats with at most four decimals and no trailing zeros: a decimal(10,2) price of 1299.00
showed as 1299, and a decimal(38,8) sum lost its last digits. A decimal column is drawn with its scale's
decimals while a float holds its values exactly, else as exact text aligned right.
"""

from __future__ import annotations

from decimal import Decimal

import pandas as pd
import streamlit as st

from executor.engines.rows import float_text, interval_text

#: Significant digits a float, which the table draws numbers as, keeps exactly.
FLOAT_DIGITS = 15
#: A null as the table shows it (faded, so the text 'NULL' stays apart): SQL's word, not Python's "None".
NULL_TEXT = "NULL"
#: Lines a wrapped table row holds at most (hover shows the rest).
MOST_LINES = 5


def wrapped_row_px(chars: int, line_chars: int) -> int | None:
    """A table's row height for its longest text of ``chars`` where a line holds ``line_chars``: the
    grid's own for one line, else three lines or more (the grid wraps text only in a row higher than
    4 rem), up to :data:`MOST_LINES`."""
    if chars <= line_chars:
        return None
    return 12 + 19 * min(MOST_LINES, max(3, -(-chars // line_chars)))


def _time_text(value: pd.Timestamp) -> str:
    return value.isoformat(sep=" ")


def _number_like(column: pd.Series) -> bool:
    return all(v is None or isinstance(v, float) for v in column)


def for_display(frame: pd.DataFrame) -> tuple[pd.DataFrame, dict, dict]:
    """``frame`` made ready for ``st.dataframe``, its column configuration, and how to write the
    values of some columns (a Styler's formats, the values kept, so a click on a heading still sorts by
    them): decimal columns with their scale's decimals (as numbers while every value fits a float
    exactly, else as exact text); floats in their shortest exact digits; day-time intervals and
    timestamps with fractions of a second as engines write them. A float column with a NaN is text
    (the table shows a NaN as it shows a null)."""
    out, config, formats = frame, {}, {}
    for name in frame.columns:
        column = frame[name]
        if pd.api.types.is_float_dtype(column.dtype):
            formats[name] = float_text
            continue
        if pd.api.types.is_timedelta64_dtype(column.dtype):
            formats[name] = interval_text
            continue
        if pd.api.types.is_datetime64_any_dtype(column.dtype):
            times = column.dropna().dt
            if (times.microsecond != 0).any() or (times.nanosecond != 0).any():
                formats[name] = _time_text
            continue
        if column.dtype != object:
            continue
        if any(isinstance(v, float) and v != v for v in column) and _number_like(column):
            if out is frame:
                out = frame.copy()
            out[name] = [None if v is None else float_text(v) for v in column]
            config[name] = st.column_config.TextColumn(alignment="right")
            continue
        values = [v for v in column if v is not None]
        if not values or not all(isinstance(v, Decimal) and v.is_finite() for v in values):
            continue
        scale = max(0, *(-int(v.as_tuple().exponent) for v in values))
        if max(len(v.as_tuple().digits) for v in values) <= FLOAT_DIGITS:
            config[name] = st.column_config.NumberColumn(format=f"%.{scale}f")
            continue
        if out is frame:
            out = frame.copy()
        out[name] = [None if v is None else format(v, "f") for v in column]
        config[name] = st.column_config.TextColumn(alignment="right")
    return out, config, formats


def show_rows(frame: pd.DataFrame) -> None:
    """The rows as a table as wide as the panel, without pandas' index. A column whose heading is much
    longer than its values (a producer's expression name) is as wide as its values, its heading cut
    and whole on hover: sized to the heading, it pushed the table past the panel and cut the values."""
    shown, config, formats = for_display(frame)
    for name in shown.columns:
        longest = max((len(_text(v)) for v in shown[name].head(HEAD_ROWS)), default=0)
        if len(str(name)) <= max(HEADING_CHARS, longest):
            continue
        width = min(CHAR_PX * max(longest, HEADING_CHARS) + PAD_PX, CHAR_PX * len(str(name)) + PAD_PX)
        kept = config.get(name)
        if kept is None:
            config[name] = st.column_config.Column(width=width, help=str(name))
        else:  # a decimal column's own configuration, with the width
            config[name] = {**kept, "width": width, "help": str(name)}
    for name, write in formats.items():
        # the grid sizes a column by its values, not by the text written for them: cut on the left, a
        # number reads as another (0.30000000000000004 as 30000000000000004)
        texts = [write(v) for v in shown[name].head(HEAD_ROWS) if not pd.isna(v)]  # a null is written blank
        longest = max(map(len, texts), default=0)
        kept = config.get(name) or {}
        config[name] = {**kept, "width": max(kept.get("width") or 0, CHAR_PX * max(longest, len(str(name))) + PAD_PX)}
    data = shown.style.format(formats, na_rep="") if formats and shown.columns.is_unique else shown
    st.dataframe(data, hide_index=True, width="stretch", column_config=config, placeholder=NULL_TEXT)


def _text(value) -> str:
    return "" if value is None else format(value, "f") if isinstance(value, Decimal) else str(value)


#: A column's heading longer than this and its values is cut to their width (in characters of
#: about ``CHAR_PX``, plus ``PAD_PX`` of the cell's padding), as read from the first ``HEAD_ROWS`` rows.
HEADING_CHARS = 14
CHAR_PX = 8
PAD_PX = 28
HEAD_ROWS = 200
