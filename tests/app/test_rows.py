"""ui.rows: decimals in a run's table shown with their scale, exactly (the grid draws numbers as floats
with at most four decimals and no trailing zeros)."""

from __future__ import annotations

from decimal import Decimal

import pandas as pd

from ui.rows import FLOAT_DIGITS, for_display


def test_a_money_column_keeps_its_two_decimals_as_a_number():
    frame = pd.DataFrame({"[0] id": [1, 2, 3], "[1] price": [Decimal("1299.00"), Decimal("35.00"), None]})
    shown, config = for_display(frame)
    assert shown is frame  # nothing to convert: a float holds these exactly
    kind = config["[1] price"]["type_config"]
    assert list(config) == ["[1] price"] and kind["type"] == "number" and kind["format"] == "%.2f"


def test_a_decimal_a_float_cannot_hold_is_shown_as_exact_text():
    big = Decimal("12345678901234.12345678")  # 22 digits: as a float its last ones change
    assert len(big.as_tuple().digits) > FLOAT_DIGITS and float(big) != big
    frame = pd.DataFrame({"[0] s": [big, Decimal("0E-8"), None, Decimal("-0.50000000")]})
    shown, config = for_display(frame)
    assert list(shown["[0] s"]) == ["12345678901234.12345678", "0.00000000", None, "-0.50000000"]
    assert config["[0] s"]["alignment"] == "right" and config["[0] s"]["type_config"]["type"] == "text"
    assert frame["[0] s"][0] == big  # the rows themselves stay as they were (downloads use them)


def test_other_columns_are_left_as_they_are():
    frame = pd.DataFrame(
        {"[0] name": ["a", None], "[1] n": [1, 2], "[2] x": [1.5, None], "[3] mixed": [Decimal(1), "b"]}
    )
    shown, config = for_display(frame)
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


def test_rows_of_no_order_are_sorted_alike_on_both_engines():
    """Spark and DataFusion give an aggregate's rows in their own orders: sorted by every column (by text,
    nulls and mixed kinds included) the two sides line up."""
    from ui.panels.cross_engine import sorted_alike

    spark = pd.DataFrame({"[0] n": ["GERMANY", "FRANCE", None, "FRANCE"], "[1] y": [1995, 1996, 1995, 1995]})
    datafusion = spark.iloc[[3, 2, 0, 1]].reset_index(drop=True)
    assert sorted_alike(spark).equals(sorted_alike(datafusion))
    assert list(sorted_alike(spark)["[1] y"]) == [1995, 1996, 1995, 1995]  # FRANCE 1995, FRANCE 1996, GERMANY, None
