"""ui.rows: decimals in a run's table shown with their scale, exactly (the grid draws numbers as floats
with at most four decimals and no trailing zeros)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pandas as pd
import pyarrow as pa

from executor.jobs.run import to_pandas
from ui.rows import FLOAT_DIGITS, float_text, for_display, interval_text


def test_a_money_column_keeps_its_two_decimals_as_a_number():
    frame = pd.DataFrame({"[0] id": [1, 2, 3], "[1] price": [Decimal("1299.00"), Decimal("35.00"), None]})
    shown, config, _ = for_display(frame)
    assert shown is frame  # nothing to convert: a float holds these exactly
    kind = config["[1] price"]["type_config"]
    assert list(config) == ["[1] price"] and kind["type"] == "number" and kind["format"] == "%.2f"


def test_a_decimal_a_float_cannot_hold_is_shown_as_exact_text():
    big = Decimal("12345678901234.12345678")  # 22 digits: as a float its last ones change
    assert len(big.as_tuple().digits) > FLOAT_DIGITS and float(big) != big
    frame = pd.DataFrame({"[0] s": [big, Decimal("0E-8"), None, Decimal("-0.50000000")]})
    shown, config, _ = for_display(frame)
    assert list(shown["[0] s"]) == ["12345678901234.12345678", "0.00000000", None, "-0.50000000"]
    assert config["[0] s"]["alignment"] == "right" and config["[0] s"]["type_config"]["type"] == "text"
    assert frame["[0] s"][0] == big  # the rows themselves stay as they were (downloads use them)


def test_other_columns_are_left_as_they_are():
    frame = pd.DataFrame(
        {"[0] name": ["a", None], "[1] n": [1, 2], "[2] x": [1.5, None], "[3] mixed": [Decimal(1), "b"]}
    )
    shown, config, _ = for_display(frame)
    assert shown is frame and config == {}


def test_a_column_whose_heading_is_an_expression_is_as_wide_as_its_values(monkeypatch):
    """DuckDB names a sum by its expression: sized to that heading, the column pushed the table past the
    Step page's panel and cut the values' last digits. It is as wide as its values, the heading whole on
    hover; a short heading keeps the grid's own sizing."""
    import ui.rows as rows

    seen = {}
    monkeypatch.setattr(rows.st, "dataframe", lambda frame, **kw: seen.update(kw))
    heading = "[1] sum(multiply(l_extendedprice, subtract(1.00, l_discount)))"
    frame = pd.DataFrame({"[0] n_name": ["CHINA"], heading: [Decimal("740210.7570")]})
    rows.show_rows(frame)
    config = seen["column_config"]
    assert "[0] n_name" not in config
    wide = config[heading]
    assert wide["help"] == heading and wide["type_config"]["format"] == "%.4f"
    assert wide["width"] == rows.CHAR_PX * rows.HEADING_CHARS + rows.PAD_PX  # "740210.7570" is shorter


def test_a_null_is_shown_as_null(monkeypatch):
    """The grid showed a null as Python's faded "None" (a product named None, to an analyst): it shows
    SQL's NULL, faded, so the text 'NULL' stays apart (seen in Chromium)."""
    import ui.rows as rows

    seen = {}
    monkeypatch.setattr(rows.st, "dataframe", lambda frame, **kw: seen.update(kw))
    rows.show_rows(pd.DataFrame({"[0] name": ["a", None]}))
    assert seen["placeholder"] == "NULL"


def test_rows_of_no_order_are_sorted_alike_on_both_engines():
    """Spark and DataFusion give an aggregate's rows in their own orders: sorted by every column (by text,
    nulls and mixed kinds included) the two sides line up."""
    from ui.panels.cross_engine import sorted_alike

    spark = pd.DataFrame({"[0] n": ["GERMANY", "FRANCE", None, "FRANCE"], "[1] y": [1995, 1996, 1995, 1995]})
    datafusion = spark.iloc[[3, 2, 0, 1]].reset_index(drop=True)
    assert sorted_alike(spark).equals(sorted_alike(datafusion))
    assert list(sorted_alike(spark)["[1] y"]) == [1995, 1996, 1995, 1995]  # FRANCE 1995, FRANCE 1996, GERMANY, None


def test_floats_intervals_and_fractions_of_a_second_are_written_exactly_and_a_nan_is_not_a_null():
    """The grid writes a float with four decimals (99999.99995 as 100000), a day-time interval in words
    ("a day"), a timestamp without its fraction, and a NaN as it writes a null."""
    table = pa.table(
        {
            "x": pa.array([99999.99995, 0.1 + 0.2, 1e-300, -0.0, None], pa.float64()),
            "n": pa.array([float("nan"), None, 1.5, float("inf"), 2.0], pa.float64()),
            "d": pa.array(
                [dt.timedelta(minutes=90), dt.timedelta(days=1, hours=2), dt.timedelta(seconds=0.5)] + [None] * 2
            ),
            "t": pa.array([dt.datetime(2024, 3, 10, 1, 2, 3, 123456)] + [dt.datetime(2024, 3, 10)] * 3 + [None]),
            "s": pa.array([dt.datetime(2024, 3, 10, 1, 2, 3)] * 5),
        }
    )
    frame = to_pandas(table, ["[0] x", "[1] n", "[2] d", "[3] t", "[4] s"])
    shown, config, formats = for_display(frame)
    x, d, t = (formats[c] for c in ("[0] x", "[2] d", "[3] t"))
    assert [x(v) for v in frame["[0] x"][:4]] == ["99999.99995", "0.30000000000000004", "1e-300", "-0.0"]
    assert list(shown["[1] n"]) == ["NaN", None, "1.5", "inf", "2.0"]  # text: a NaN is not a null
    assert config["[1] n"]["alignment"] == "right"
    assert [d(v) for v in frame["[2] d"][:3]] == ["01:30:00", "1 day 02:00:00", "00:00:00.5"]
    assert t(frame["[3] t"][0]) == "2024-03-10 01:02:03.123456"
    assert "[4] s" not in formats  # whole seconds: the grid's own is right
    assert interval_text(-dt.timedelta(days=400, seconds=1)) == "-400 days 00:00:01"
    assert float_text(float("-inf")) == "-inf"
