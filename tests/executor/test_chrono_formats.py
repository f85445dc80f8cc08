"""chrono's format codes (DataFusion's to_char, to_date, to_timestamp) as Spark's datetime patterns: the
rows of each are checked against DataFusion's engine by ``datafusion_functions.sql``
(``to_char_text_and_padding``, ``to_date_with_text``); here, the patterns themselves."""

from __future__ import annotations

import pytest

from executor.errors import Unsupported
from executor.translate.functions.datetimes import _chrono_parts


@pytest.mark.parametrize(
    ("fmt", "parts"),
    [
        ("%Y-%m-%d", [("pattern", "yyyy'-'MM'-'dd")]),
        # text is quoted: Spark refused 'Date: ' (a pattern letter D, a t...)
        ("Date: %Y-%m-%d", [("pattern", "'Date: 'yyyy'-'MM'-'dd")]),
        ("%Y%m%dT%H%M%S", [("pattern", "yyyyMMdd'T'HHmmss")]),
        # one quoted run per run of text, a quote in it doubled
        ("%Y's %m", [("pattern", "yyyy'''s 'MM")]),
        ("100%% %d", [("pattern", "'100% 'dd")]),
        ("%-d.%-m.%Y", [("pattern", "d'.'M'.'yyyy")]),
        ("%H:%M:%S%.3f", [("pattern", "HH':'mm':'ss.SSS")]),
        # a day padded with a space: Java's patterns cannot pad with spaces
        ("%e/%m", [("padded", "d"), ("pattern", "'/'MM")]),
        ("", [("pattern", "")]),
    ],
)
def test_chrono_formats_as_spark_patterns(fmt, parts):
    assert _chrono_parts(fmt, "to_char") == parts


def test_a_padded_code_is_parsed_as_its_number_and_an_unknown_code_is_refused():
    # the space chrono reads before a padded day is optional for Java (' 1.3' and '11.3' both read)
    assert _chrono_parts("%e.%m", "to_date", parsing=True) == [("pattern", "[ ]d'.'M")]
    for fmt in ("%u", "%Q", "50%", "%V week"):
        with pytest.raises(Unsupported, match="has no equivalent in Spark's patterns"):
            _chrono_parts(fmt, "to_char")


def test_a_number_between_texts_is_parsed_from_one_digit_or_two_and_beside_another_at_its_width():
    """chrono parses %d, %m, %H... from one digit or two (DataFusion's to_unixtime('2/2/2020', '%d/%m/%Y')
    is 1580601600, checked by hand); Java's dd takes two, so such a code is Java's d. Between two codes
    Java must know where one ends: %Y%m%d keeps its widths."""
    assert _chrono_parts("%d/%m/%Y", "to_date", parsing=True) == [("pattern", "d'/'M'/'yyyy")]
    assert _chrono_parts("%Y%m%d", "to_date", parsing=True) == [("pattern", "yyyyMMdd")]
    assert _chrono_parts("%H:%M:%S", "to_timestamp", parsing=True) == [("pattern", "H':'m':'s")]
    assert _chrono_parts("%d/%m", "to_char") == [("pattern", "dd'/'MM")]  # written: padded, as chrono writes
