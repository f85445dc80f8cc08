"""Arrow types in Substrait's spelling (the inverse of DataFusion's consumer's type mapping), for the
column types each engine gives and for a read DataFusion is given its table's types."""

from __future__ import annotations

_ARROW_SIMPLE = {
    "bool": "boolean",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    # unsigned as DataFusion's plans show them (its type variation: ``viz.coercion.variation_names``)
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
    "float": "fp32",
    "double": "fp64",
    "halffloat": "u!fp16",
    "string": "string",
    "large_string": "string",
    "string_view": "string",
    "binary": "binary",
    "large_binary": "binary",
    "binary_view": "binary",
    "date32[day]": "date",
    "date64[ms]": "date",
    "null": "u!null",
    "month_interval": "interval_year",
    "day_time_interval": "interval_day<3>",
    "month_day_nano_interval": "interval_compound<9>",
}
UNIT_DIGITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}


def arrow_type_text(t, nullable: bool = False) -> str:
    """An Arrow type in Substrait's spelling (the inverse of DataFusion's consumer's type mapping).
    Unsigned integers are spelled as DataFusion's plans show them (``u8``); a type with no Substrait
    counterpart (``large_list_view``, ...) is spelled ``arrow:<its name>``."""
    import pyarrow as pa
    import pyarrow.types as pt

    mark = "?" if nullable else ""
    text = str(t)
    if text in _ARROW_SIMPLE:
        return _ARROW_SIMPLE[text] + mark
    if pt.is_decimal(t):
        return f"decimal<{t.precision},{t.scale}>{mark}"
    if pt.is_fixed_size_binary(t):
        return f"fixedbinary<{t.byte_width}>{mark}"
    if pt.is_timestamp(t):
        kind = "precision_timestamp_tz" if t.tz else "precision_timestamp"
        return f"{kind}<{UNIT_DIGITS[t.unit]}>{mark}"
    if pt.is_time(t):
        return f"precision_time<{UNIT_DIGITS[t.unit]}>{mark}"
    if pt.is_list(t) or pt.is_large_list(t) or pt.is_fixed_size_list(t):
        item = t.value_field
        return f"list<{arrow_type_text(item.type, item.nullable)}>{mark}"
    if pt.is_map(t):
        return f"map<{arrow_type_text(t.key_type, False)}, {arrow_type_text(t.item_type, t.item_field.nullable)}>{mark}"
    if pt.is_struct(t):
        members = [arrow_type_text(t.field(i).type, t.field(i).nullable) for i in range(t.num_fields)]
        return f"struct<{', '.join(members)}>{mark}"
    if isinstance(t, pa.DictionaryType):  # as DataFusion's plans show one (``viz.coercion.DICTIONARY_VARIATION``)
        return f"dictionary<{arrow_type_text(t.index_type, True)}, {arrow_type_text(t.value_type, True)}>{mark}"
    return f"arrow:{text}{mark}"


__all__ = ["arrow_type_text"]
