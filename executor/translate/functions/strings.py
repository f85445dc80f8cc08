"""String functions (``functions_string.yaml``); the aggregate ``string_agg`` is in ``aggregates``."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from ...errors import Unsupported
from ._common import NOT_CONSTANT, Builder, Call, _error, _fail_if, _option, _spark_fn, _values


def _concat(call: Call, args: list) -> Column:
    vals = _values(args)
    mode = _option(call, "null_handling", ("ACCEPT_NULLS", "IGNORE_NULLS"), "ACCEPT_NULLS")
    if mode == "IGNORE_NULLS":
        return F.concat_ws("", *vals)
    return F.concat(*vals)


def _concat_ws(call: Call, args: list) -> Column:
    sep, *vals = _values(args)
    return F.call_function("concat_ws", sep, *vals)


def _case_insensitive(call: Call) -> bool:
    mode = _option(
        call, "case_sensitivity", ("CASE_SENSITIVE", "CASE_INSENSITIVE", "CASE_INSENSITIVE_ASCII"), "CASE_SENSITIVE"
    )
    return mode != "CASE_SENSITIVE"


def _string_pred(fn: str) -> Builder:
    def build(call: Call, args: list) -> Column:
        a, b = _values(args)[:2]
        if _case_insensitive(call):
            a, b = F.lower(a), F.lower(b)
        return F.call_function(fn, a, b)

    return build


def _like(call: Call, args: list, insensitive: bool = False) -> Column:
    """LIKE; a third argument is the escape character (DataFusion writes one, a null literal when the
    SQL has none). Spark takes the escape only as a one-character literal."""
    vals = _values(args)
    fn = "ilike" if insensitive or _case_insensitive(call) else "like"
    if len(vals) < 3:
        return F.call_function(fn, *vals[:2])
    escape = call.constants[2] if len(call.constants) > 2 else NOT_CONSTANT
    if escape is None:
        return F.call_function(fn, *vals[:2])
    if isinstance(escape, str) and len(escape) == 1:
        return F.call_function(fn, vals[0], vals[1], F.lit(escape))
    given = "an expression" if escape is NOT_CONSTANT else repr(escape)
    raise Unsupported(f"{fn}: Spark takes the escape character only as a one-character literal, not {given}")


def _substring(call: Call, args: list) -> Column:
    vals = _values(args)
    s, start = vals[0], vals[1]
    length = vals[2] if len(vals) > 2 else None
    mode = _option(call, "negative_start", ("WRAP_FROM_END", "LEFT_OF_BEGINNING", "ERROR"), "WRAP_FROM_END")
    plain = (
        F.call_function("substring", s, start, length) if length is not None else F.call_function("substring", s, start)
    )
    if mode == "WRAP_FROM_END":
        return plain
    if mode == "ERROR":
        return _fail_if(start < 0, "substring: negative start", plain)
    if length is None:
        return F.when(start < 1, s).otherwise(plain)
    kept = F.greatest(length + start - 1, F.lit(0))
    return F.when(start < 1, F.call_function("substring", s, F.lit(1), kept)).otherwise(plain)


def _trim(fn: str) -> Builder:
    def build(call: Call, args: list) -> Column:
        vals = _values(args)
        _option(call, "spaces_only", ("FALSE", "F", "TRUE", "T"), "FALSE")
        trim = {"trim": F.trim, "ltrim": F.ltrim, "rtrim": F.rtrim}[fn]
        return trim(vals[0], vals[1]) if len(vals) > 1 else trim(vals[0])

    return build


def _strpos(call: Call, args: list) -> Column:
    s, sub = _values(args)[:2]
    if _case_insensitive(call):
        s, sub = F.lower(s), F.lower(sub)
    return F.call_function("instr", s, sub)


def _replace(call: Call, args: list) -> Column:
    s, search, repl = _values(args)[:3]
    if _case_insensitive(call):
        call.warnings.append("replace: case-insensitive replace is not supported; replaced case-sensitively")
    return F.when(search == "", s).otherwise(F.call_function("replace", s, search, repl))


def _char_set(fn: str) -> Builder:
    def build(call: Call, args: list) -> Column:
        _option(call, "char_set", ("UTF8",), "UTF8")
        return F.call_function(fn, _values(args)[0])

    return build


def _regex_flags(call: Call) -> str:
    flags = ""
    if _case_insensitive(call):
        flags += "i"
    if _option(call, "multiline", ("MULTILINE_DISABLED", "MULTILINE_ENABLED"), "MULTILINE_DISABLED").endswith(
        "ENABLED"
    ):
        flags += "m"
    if _option(call, "dotall", ("DOTALL_DISABLED", "DOTALL_ENABLED"), "DOTALL_DISABLED").endswith("ENABLED"):
        flags += "s"
    _option(call, "lookaround", ("TRUE", "FALSE"), "TRUE")  # Java regexes support lookaround
    return flags


def _pattern(call: Call, pattern: Column) -> Column:
    flags = _regex_flags(call)
    return F.concat(F.lit(f"(?{flags})"), pattern) if flags else pattern


def _from_position(s: Column, position: Column | None) -> Column:
    return s if position is None else F.call_function("substring", s, position)


def _regexp_match_substring(call: Call, args: list) -> Column:
    vals = _values(args)
    s, pattern = vals[0], _pattern(call, vals[1])
    position = vals[2] if len(vals) > 2 else None
    occurrence = vals[3] if len(vals) > 3 else F.lit(1)
    group = vals[4] if len(vals) > 4 else F.lit(0)
    matches = F.call_function("regexp_extract_all", _from_position(s, position), pattern, group.cast("int"))
    return F.call_function("try_element_at", matches, occurrence.cast("int"))


def _regexp_count_substring(call: Call, args: list) -> Column:
    vals = _values(args)
    s, pattern = vals[0], _pattern(call, vals[1])
    position = vals[2] if len(vals) > 2 else None
    return F.call_function("regexp_count", _from_position(s, position), pattern)


def _regexp_replace(call: Call, args: list) -> Column:
    vals = _values(args)
    s, pattern = vals[0], _pattern(call, vals[1])
    repl = F.regexp_replace(vals[2], F.lit(r"\\(\d)"), F.lit(r"\$$1"))  # backreference \1 -> Java's $1
    position = vals[3] if len(vals) > 3 else F.lit(1)
    out = F.call_function("regexp_replace", s, pattern, repl, position.cast("int"))
    if len(vals) > 4:  # occurrence: 0 = every match (Spark's only mode)
        out = F.when(vals[4] == 0, out).otherwise(_error("regexp_replace: only occurrence 0 (all) is supported"))
    return out


def _regexp_string_split(call: Call, args: list) -> Column:
    s, pattern = _values(args)[:2]
    return F.call_function("split", s, _pattern(call, pattern), F.lit(-1))


def _string_split(call: Call, args: list) -> Column:
    s, sep = _values(args)[:2]
    quoted = F.concat(F.lit("\\Q"), sep, F.lit("\\E"))
    return F.when(sep.isNull(), F.array(s)).otherwise(F.call_function("split", s, quoted, F.lit(-1)))


def _pad(fn: str) -> Builder:
    def build(call: Call, args: list) -> Column:
        vals = _values(args)
        return F.call_function(fn, vals[0], vals[1], vals[2] if len(vals) > 2 else F.lit(" "))

    return build


def _not_like(call: Call, args: list) -> Column:
    return ~_like(call, args)


SCALAR: dict[str, Builder] = {
    "concat": _concat,
    "concat_ws": _concat_ws,
    "like": _like,
    "ilike": lambda call, args: _like(call, args, insensitive=True),
    "substring": _substring,
    "upper": _char_set("upper"),
    "lower": _char_set("lower"),
    "trim": _trim("trim"),
    "ltrim": _trim("ltrim"),
    "rtrim": _trim("rtrim"),
    "starts_with": _string_pred("startswith"),
    "ends_with": _string_pred("endswith"),
    "contains": _string_pred("contains"),
    "strpos": _strpos,
    "replace": _replace,
    "char_length": _spark_fn("char_length", 1),
    "bit_length": _spark_fn("bit_length", 1),
    "octet_length": _spark_fn("octet_length", 1),
    "left": _spark_fn("left", 2),
    "right": _spark_fn("right", 2),
    "lpad": _pad("lpad"),
    "rpad": _pad("rpad"),
    "repeat": _spark_fn("repeat", 2),
    "reverse": _spark_fn("reverse", 1),
    "initcap": _char_set("initcap"),
    "regexp_match_substring": _regexp_match_substring,
    "regexp_count_substring": _regexp_count_substring,
    "regexp_replace": _regexp_replace,
    "regexp_string_split": _regexp_string_split,
    "string_split": _string_split,
    "not_like": _not_like,
    "regexp_like": lambda call, args: F.call_function("regexp_like", *_values(args)[:2]),
}
