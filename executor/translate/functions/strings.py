"""String functions (``functions_string.yaml``); the aggregate ``string_agg`` is in ``aggregates``."""

from __future__ import annotations

import re
from collections.abc import Callable

from pyspark.sql import Column
from pyspark.sql import functions as F

from ...errors import Unsupported
from ._common import (
    INT_MAX,
    NOT_CONSTANT,
    Builder,
    Call,
    _error,
    _fail_if,
    _kind,
    _option,
    _spark_fn,
    _values,
    held_arg,
    held_int,
    literal_pattern,
)
from .rust_regex import (
    before_group_end,
    case_insensitive,
    group_spans,
    inline_flags,
    java_flags,
    may_match_empty,
    may_skip,
    no_empty_matches,
    rust_pattern,
    rust_replacement,
    rust_text,
    spark_pattern,
)


def _concat(call: Call, args: list) -> Column:
    """``concat``: null where an argument is null (ACCEPT_NULLS), or the others joined (IGNORE_NULLS).
    A call that does not say which, from DataFusion: its ``concat()`` skips nulls (its ``||`` is
    ``str_concat``, :func:`_str_concat`); from another producer: the spec's first reading, said where
    an argument may be null."""
    vals = _values(args)
    default = "ACCEPT_NULLS"
    if not call.given("null_handling") and call.nullable():
        if call.dialect == "datafusion":
            default = "IGNORE_NULLS"
            call.warnings.append(
                "concat: the plan does not say how a null argument is handled (null_handling); DataFusion, its "
                "producer, skips it, and so does the run"
            )
        else:
            call.warnings.append(
                "concat: the plan does not say how a null argument is handled (null_handling); the run gives null "
                "(ACCEPT_NULLS), where some engines skip it"
            )
    mode = _option(call, "null_handling", ("ACCEPT_NULLS", "IGNORE_NULLS"), default)
    if mode == "IGNORE_NULLS":
        return F.concat_ws("", *vals)
    return F.concat(*vals)


def _str_concat(call: Call, args: list) -> Column:
    """DataFusion's ``||``: null where an argument is null."""
    return F.concat(*_values(args))


def _concat_ws(call: Call, args: list) -> Column:
    sep, *vals = _values(args)
    return F.call_function("concat_ws", sep, *vals)


def _string_pred(fn: str) -> Builder:
    def build(call: Call, args: list) -> Column:
        a, b = _values(args)[:2]
        if case_insensitive(call):
            a, b = F.lower(a), F.lower(b)
        return F.call_function(fn, a, b)

    return build


# İ and ı: two characters of Unicode's private use (no case), ẞ as ß (its simple case folding, which Java's misses)
_TURKISH_I, _NO_CASE = "İıẞ", "\ue000\ue001ß"
_NO_CASE_OF = str.maketrans(_TURKISH_I, _NO_CASE)


def _like_regex(pattern: str) -> str:
    """A LIKE pattern (a backslash escaping the character after it) as a Java regex of the whole text."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            i += 1
            c = pattern[i]
            out.append(c if c.isalnum() else "\\" + c)
        elif c in "%_":
            out.append(".*" if c == "%" else ".")
        else:
            out.append(c if c.isalnum() else "\\" + c)
        i += 1
    return "(?s)(?iu)\\A" + "".join(out) + "\\z"


#: A LIKE pattern's pieces: a backslash and the character it escapes, one at the end, ``%``, ``_``, other text.
_LIKE_PIECES = r"(?s)\\.|\\$|%|_|[^\\%_]+"


def _like_regex_column(pattern: Column, insensitive: bool) -> Column:
    """:func:`_like_regex` of a pattern that is a column, built piece by piece in the run."""

    def piece(p: Column) -> Column:
        quoted = F.concat(F.lit("\\Q"), p, F.lit("\\E"))
        escaped = F.concat(F.lit("\\Q"), F.substring(p, 2, 2), F.lit("\\E"))
        return (
            F.when(p == F.lit("%"), F.lit(".*"))
            .when(p == F.lit("_"), F.lit("."))
            .when(p == F.lit("\\"), F.lit("\\\\"))
            .when(F.startswith(p, F.lit("\\")), escaped)
            .otherwise(quoted)
        )

    pieces = F.call_function("regexp_extract_all", pattern, F.lit(_LIKE_PIECES), F.lit(0))
    flags = "(?s)(?iu)\\A" if insensitive else "(?s)\\A"
    return F.concat(F.lit(flags), F.array_join(F.transform(pieces, piece), ""), F.lit("\\z"))


def _spark_like_escape(m: re.Match) -> str:
    """One backslash and what follows it in a DataFusion LIKE pattern, as Spark's LIKE reads it."""
    after = m.group(1)
    if after is None:
        return "\\\\"  # a backslash at the end is itself
    return "\\" + after if after in "%_\\" else after


def _datafusion_like(call: Call, vals: list[Column], insensitive: bool) -> Column:
    """A DataFusion plan's LIKE or ILIKE with no escape: a backslash before a
    character that is not ``%``, ``_`` or ``\\`` is that character, and one at the end is itself (Spark's
    LIKE stops at both); ILIKE compares a character with a character, each in either case, as Arrow's
    does (Spark's lowers both texts: ``'İ'`` becomes two characters). A pattern that is not a literal is
    read so in the run."""
    pattern = call.constants[1] if len(call.constants) > 1 else None
    if not isinstance(pattern, str):
        # built in the run: Spark's own LIKE would stop at such backslashes, and its ILIKE lowers both texts
        column = F.translate(vals[1], _TURKISH_I, _NO_CASE) if insensitive else vals[1]
        text = F.translate(vals[0], _TURKISH_I, _NO_CASE) if insensitive else vals[0]
        return F.call_function("regexp_like", text, _like_regex_column(column, insensitive))
    if insensitive:
        # Java's regex takes İ for i and ı for I, where Unicode's case folding (Arrow's) takes neither:
        # each stands in for itself alone, as a character of no case, in the text and the pattern
        text = F.translate(vals[0], _TURKISH_I, _NO_CASE)
        return F.call_function("regexp_like", text, F.lit(_like_regex(pattern.translate(_NO_CASE_OF))))
    return F.call_function("like", vals[0], F.lit(re.sub(r"\\(.)?", _spark_like_escape, pattern, flags=re.S)))


def _standard_like(call: Call, vals: list[Column], fn: str) -> Column:
    """LIKE with no escape character, as SQL reads it (and DuckDB, whose plans write it so): a
    backslash is itself, where Spark's LIKE escapes with it; each is doubled for Spark, and a pattern that
    may hold one says so on its node."""
    pattern = call.constants[1] if len(call.constants) > 1 else NOT_CONSTANT
    if isinstance(pattern, str) and "\\" not in pattern:
        return F.call_function(fn, *vals[:2])
    call.warnings.append(
        f"{fn}: the plan gives no escape character, so a backslash in the pattern is read as itself, as SQL "
        "reads a LIKE without ESCAPE (Spark's own LIKE would escape with it)"
    )
    if isinstance(pattern, str):
        return F.call_function(fn, vals[0], F.lit(pattern.replace("\\", "\\\\")))
    return F.call_function(fn, vals[0], F.replace(vals[1], F.lit("\\"), F.lit("\\\\")))


def _like(call: Call, args: list, insensitive: bool = False) -> Column:
    """LIKE; a third argument is the escape character (DataFusion writes one, a null literal when the
    SQL has none). Spark takes the escape only as a one-character literal."""
    vals = _values(args)
    fn = "ilike" if insensitive or case_insensitive(call) else "like"
    escape = call.constants[2] if len(call.constants) > 2 else (None if len(vals) < 3 else NOT_CONSTANT)
    if escape is None:
        if call.dialect == "datafusion":
            return _datafusion_like(call, vals, fn == "ilike")
        return _standard_like(call, vals, fn)
    if isinstance(escape, str) and len(escape) == 1:
        return F.call_function(fn, vals[0], vals[1], F.lit(escape))
    given = "an expression" if escape is NOT_CONSTANT else repr(escape)
    raise Unsupported(f"{fn}: Spark takes the escape character only as a one-character literal, not {given}")


def _substring(call: Call, args: list) -> Column:
    """``substring(s, start[, length])``, the first character at 1. A start below 1 follows the
    ``negative_start`` option; a call without one follows its producer where known (DataFusion: left of
    the beginning, as SQL has it), else the spec's first reading (from the end), said when the start
    may be below 1. A start of 0 begins left of the string in every reading (Spark's own reads it as
    1: substring('ALGERIA', 0, 3) would be 'ALG', not SQL's 'AL')."""
    vals = _values(args)
    s, start = vals[0], vals[1]
    length = vals[2] if len(vals) > 2 else None
    default = "WRAP_FROM_END"
    first = call.constants[1] if len(call.constants) > 1 else NOT_CONSTANT
    below_one = not (isinstance(first, int) and first >= 1)
    if not call.given("negative_start") and below_one:
        if call.dialect == "datafusion":
            default = "LEFT_OF_BEGINNING"
            call.warnings.append(
                "substring: the plan does not say where a start below 1 begins (negative_start); DataFusion, its "
                "producer, begins left of the string, and so does the run"
            )
        else:
            call.warnings.append(
                "substring: the plan does not say where a negative start begins (negative_start); the run counts "
                "it from the end (WRAP_FROM_END), where some engines begin left of the string"
            )
    mode = _option(call, "negative_start", ("WRAP_FROM_END", "LEFT_OF_BEGINNING", "ERROR"), default)
    if call.dialect == "datafusion" and length is not None:  # a negative length stops DataFusion's engine
        s = _fail_if(length < 0, "substring: a negative length is not allowed", s)
    plain = F.call_function(
        "substring", s, held_arg(call, 1, start), *([] if length is None else [held_arg(call, 2, length)])
    )
    if mode == "WRAP_FROM_END":
        if length is None or not below_one:
            return plain  # from 0 to the end: the whole string, as Spark gives it; a literal start of 1 or more
        return F.when(
            start == 0, F.call_function("substring", s, F.lit(1), held_int(F.greatest(length - 1, F.lit(0))))
        ).otherwise(plain)
    if mode == "ERROR":
        return _fail_if(start < 0, "substring: negative start", plain)
    if length is None:
        return F.when(start < 1, s).otherwise(plain)
    kept = held_int(F.greatest(length + start - 1, F.lit(0)))
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
    if case_insensitive(call):
        s, sub = F.lower(s), F.lower(sub)
    return F.call_function("instr", s, sub)


def _replace(call: Call, args: list) -> Column:
    s, search, repl = _values(args)[:3]
    if case_insensitive(call):
        call.warnings.append("replace: case-insensitive replace is not supported; replaced case-sensitively")
    return F.when(search == "", s).otherwise(F.call_function("replace", s, search, repl))


def _char_set(fn: str) -> Builder:
    def build(call: Call, args: list) -> Column:
        _option(call, "char_set", ("UTF8",), "UTF8")
        return F.call_function(fn, _values(args)[0])

    return build


def _initcap(call: Call, args: list) -> Column:
    """Each word's first character upper case, the rest lower. Spark's own starts a word after white
    space only; DataFusion's after any character that is not a letter or a digit (``o'neil-smith`` is
    ``O'Neil-Smith``), which a plan of DataFusion's gets."""
    _option(call, "char_set", ("UTF8",), "UTF8")
    s = _values(args)[0]
    if call.dialect != "datafusion":
        return F.initcap(s)
    chars = F.split(s, "")
    before = F.concat(F.array(F.lit("")), chars)  # each character's predecessor ('' for the first)

    # the lambda names no column (one named there can resolve to a column of the select it is in)
    def one(c: Column, prev: Column) -> Column:
        return F.when(prev.rlike(r"^[\p{IsAlphabetic}\p{N}]$"), F.lower(c)).otherwise(F.upper(c))

    # the pairs run one past the characters, with no character: upper(null), which array_join leaves out
    return F.array_join(F.zip_with(chars, before, one), "")


def _from_position(s: Column, position: Column | None) -> Column:
    return s if position is None else F.call_function("substring", s, position)


def _regexp_match_substring(call: Call, args: list) -> Column:
    vals = _values(args)
    s, pattern = vals[0], spark_pattern(call, vals[1])
    position = vals[2] if len(vals) > 2 else None
    occurrence = vals[3] if len(vals) > 3 else F.lit(1)
    group = vals[4] if len(vals) > 4 else F.lit(0)
    matches = F.call_function("regexp_extract_all", _from_position(s, position), pattern, group.cast("int"))
    return F.call_function("try_element_at", matches, occurrence.cast("int"))


def _regexp_count_substring(call: Call, args: list) -> Column:
    vals = _values(args)
    s, pattern = vals[0], spark_pattern(call, vals[1])
    position = vals[2] if len(vals) > 2 else None
    return F.call_function("regexp_count", _from_position(s, position), pattern)


def _java_replacement(repl: Column) -> Column:
    """A replacement that is not a literal, its backreferences as Java writes them (``\\1`` as ``$1``); one
    with another ``$`` or ``\\`` stops the run and says so (Rust's rules for them are not Java's)."""
    other = repl.rlike(r"\$|\\(?!\d)")
    message = "regexp_replace: a replacement that is not a literal and holds $ or \\ is not mapped"
    return F.when(other, F.raise_error(F.lit(message))).otherwise(
        F.regexp_replace(repl, F.lit(r"\\(\d)"), F.lit(r"\$$1"))
    )


def _datafusion_regexp_replace(call: Call, vals: list[Column]) -> Column:
    """DataFusion's ``regexp_replace(s, pattern, replacement[, flags])``: every match with the flag
    ``g``, else the first only (the spec's call without an occurrence replaces every match, so the
    run says whose reading it follows); the flags ``i``, ``m``, ``s`` and ``x`` as Java's inline ones."""
    flags = _datafusion_flags(call, "regexp_replace", 3, also="g") if len(vals) > 3 else ""
    pattern = rust_pattern(call, flags, vals[1])
    text, replacement = call.constants[1], call.constants[2]
    if "g" in flags:
        no_empty_matches(call, "regexp_replace", flags)
        if isinstance(text, str) and isinstance(replacement, str):
            return F.call_function("regexp_replace", vals[0], pattern, F.lit(rust_replacement(replacement, text)))
        return F.call_function("regexp_replace", vals[0], pattern, _java_replacement(vals[2]))
    if not isinstance(text, str) or not isinstance(replacement, str):
        raise Unsupported(
            "regexp_replace of the first match only (DataFusion's, without the flag g) needs a literal "
            "pattern and replacement"
        )
    call.warnings.append(
        "regexp_replace: without the flag g DataFusion, the plan's producer, replaces the first match only (the "
        "spec's call without an occurrence replaces every one), and so does the run"
    )
    # the first match: what comes before it, the match and what comes after it kept by name, the
    # replacement's group numbers moved past the two groups before the pattern's own
    shifted = rust_replacement(replacement, text, shift=2, whole="${vzmatch}")
    # the parts around the match take any character; the pattern keeps its own flags (no dotall of ours)
    text = rust_text(text, flags)
    end = before_group_end(flags, call.constants[1])
    first = rf"(?{java_flags(flags, rust=True)})\A(?s:(?<vzbefore>.*?))(?<vzmatch>{text}{end})(?s:(?<vzafter>.*))\z"
    return F.call_function("regexp_replace", vals[0], F.lit(first), F.lit("${vzbefore}" + shifted + "${vzafter}"))


def _left_right(fn: str) -> Builder:
    """``left(s, n)`` / ``right(s, n)``; a negative n (DataFusion's, and SQL engines'): all but the last
    (left) or first (right) -n characters, where Spark's own gives ''."""

    def build(call: Call, args: list) -> Column:
        s, n = _values(args)[:2]
        plain = F.call_function(fn, s, held_arg(call, 1, n))
        if isinstance(call.constants[1] if len(call.constants) > 1 else None, int) and call.constants[1] >= 0:
            return plain
        rest = held_int(F.greatest(F.length(s) + n, F.lit(0)))
        cut = F.call_function("substring", s, F.lit(1), rest) if fn == "left" else F.call_function("right", s, rest)
        return F.when(n < 0, cut).otherwise(plain)

    return build


def _regex_match(insensitive: bool, negated: bool) -> Builder:
    """DataFusion's ``~``, ``~*``, ``!~`` and ``!~*`` (regex_match, regex_imatch, ...)."""

    def build(call: Call, args: list) -> Column:
        s, pattern = _values(args)[:2]
        found = F.call_function("regexp_like", s, rust_pattern(call, "i" if insensitive else "", pattern))
        return ~found if negated else found

    return build


def _sha2(bits: int) -> Callable[[Column], Column]:
    """The SHA-2 digest of ``bits`` as bytes, as DataFusion gives it (Spark's ``sha2`` gives hex)."""
    return lambda x: F.unhex(F.sha2(x, bits))


def _sha(bits: int) -> Builder:
    digest = _sha2(bits)
    return lambda call, args: digest(_values(args)[0])


#: DataFusion's digest(x, algorithm) that Spark computes: the algorithm's name and how.
_DIGESTS: dict[str, Callable[[Column], Column]] = {
    "md5": lambda x: F.unhex(F.md5(x)),
    "sha1": lambda x: F.unhex(F.sha1(x)),
    **{f"sha{bits}": _sha2(bits) for bits in (224, 256, 384, 512)},
}


def _digest(call: Call, args: list) -> Column:
    """DataFusion's ``digest(x, algorithm)``: the digest's bytes, for an algorithm given as a literal."""
    algorithm = call.constants[1] if len(call.constants) > 1 else None
    how = _DIGESTS.get(algorithm.lower()) if isinstance(algorithm, str) else None
    if how is None:
        raise Unsupported(
            f"digest: the algorithm {algorithm!r} is not one Spark computes (it computes "
            f"{', '.join(_DIGESTS)}, given as a literal)"
        )
    return how(_values(args)[0])


def _regexp_count(call: Call, args: list) -> Column:
    """DataFusion's ``regexp_count(s, pattern[, start[, flags]])``: the matches from character ``start``
    (1 when not given), the flags ``i``, ``m``, ``s`` and ``x`` as Java's inline ones."""
    vals = _values(args)
    s, pattern = vals[:2]
    flags = _datafusion_flags(call, "regexp_count", 3) if len(vals) > 3 else ""
    no_empty_matches(call, "regexp_count", flags)
    pattern = rust_pattern(call, flags, pattern)
    if len(vals) > 2:
        s = _from_position(s, held_int(vals[2]))
    return F.call_function("regexp_count", s, pattern)


def _regexp_instr(call: Call, args: list) -> Column:
    """DataFusion's ``regexp_instr(s, pattern[, start[, n[, flags[, group]]]])``: the character position in
    ``s`` of the first match from character ``start`` (the pattern reads the text from there: ``^`` matches
    at it), 0 without one. Only the first match (``n`` 1) of the whole pattern (``group`` 0) is mapped:
    Spark's ``regexp_instr`` gives neither another match nor a group's place."""
    vals = _values(args)
    s, pattern = vals[:2]
    for at, what, default in ((3, "a match other than the first (n of 1)", 1), (5, "a group's position", 0)):
        if len(vals) > at and (len(call.constants) <= at or call.constants[at] != default):
            raise Unsupported(f"regexp_instr: {what} is not mapped")
    flags = _datafusion_flags(call, "regexp_instr", 4) if len(vals) > 4 else ""
    java = rust_pattern(call, flags, pattern)
    text = call.constants[1] if len(call.constants) > 1 else None
    # what comes before the first match, the pattern in a group of its own
    before = F.concat(F.lit("^((?s:.*?))(?:"), java, F.lit(before_group_end(flags, text) + ")"))
    start = vals[2].cast("long") if len(vals) > 2 else F.lit(1).cast("long")
    rest = _from_position(s, held_int(start))
    found = F.call_function("regexp_like", rest, java)
    position = (
        F.when(found.isNull(), F.lit(None))
        .when(start > F.char_length(s) + 1, F.lit(0))  # past the end nothing matches, the empty text neither
        .when(found, F.char_length(F.call_function("regexp_extract", rest, before, F.lit(1))) + start)
        .otherwise(0)
    )
    return _fail_if(start < 1, "regexp_instr: the start is counted from 1", position.cast("long"))


def _datafusion_flags(call: Call, name: str, at: int, also: str = "") -> str:
    """DataFusion's flags argument number ``at`` of ``name``: a literal of ``i``, ``m``, ``s``, ``x`` (and
    ``also``); other flags of its regex engine are refused, not left out."""
    flags = call.constants[at] if len(call.constants) > at else None
    if not isinstance(flags, str):
        raise Unsupported(f"{name}: the flags argument is taken only as a literal")
    unknown = sorted(set(flags) - set("imsx" + also))
    if unknown:
        raise Unsupported(f"{name}: the flag {unknown[0]!r} is not one of {', '.join('imsx' + also)}")
    return flags


def _regexp_like(call: Call, args: list) -> Column:
    """DataFusion's ``regexp_like(s, pattern[, flags])``: the flags ``i``, ``m``, ``s`` and ``x`` as Java's
    inline ones."""
    vals = _values(args)
    s, pattern = vals[:2]
    flags = _datafusion_flags(call, "regexp_like", 2) if len(vals) > 2 else ""
    if call.dialect == "datafusion":
        pattern = rust_pattern(call, flags, pattern)
    else:
        pattern = inline_flags(flags, pattern)
    return F.call_function("regexp_like", s, pattern)


def _regexp_replace(call: Call, args: list) -> Column:
    vals = _values(args)
    string_flags = len(vals) == 4 and len(call.arg_types) == 4 and _kind(call.arg_types[3]) == "string"
    if call.dialect == "datafusion" and (len(vals) == 3 or string_flags):
        return _datafusion_regexp_replace(call, vals)
    s, pattern = vals[0], spark_pattern(call, vals[1])
    repl = _java_replacement(vals[2])
    position = vals[3] if len(vals) > 3 else F.lit(1)
    out = F.call_function("regexp_replace", s, pattern, repl, position.cast("int"))
    if len(vals) > 4:  # occurrence: 0 = every match (Spark's only mode)
        out = F.when(vals[4] == 0, out).otherwise(_error("regexp_replace: only occurrence 0 (all) is supported"))
    return out


def _regexp_string_split(call: Call, args: list) -> Column:
    s, pattern = _values(args)[:2]
    return F.call_function("split", s, spark_pattern(call, pattern), F.lit(-1))


def _string_split(call: Call, args: list) -> Column:
    s, sep = _values(args)[:2]
    return F.when(sep.isNull(), F.array(s)).otherwise(F.call_function("split", s, literal_pattern(sep), F.lit(-1)))


def _pad(fn: str) -> Builder:
    """``lpad`` / ``rpad``; a length beyond an int's range stops the run, as in DataFusion (Spark's cast
    to int would wrap it to a short one)."""

    def build(call: Call, args: list) -> Column:
        vals = _values(args)
        fill = vals[2] if len(vals) > 2 else F.lit(" ")
        length = vals[1]
        if held_arg(call, 1, length) is length:  # a literal within an int's range
            return F.call_function(fn, vals[0], length, fill)
        # null beyond the range, not held to it: Spark folds a constant pad of 2^31 characters
        held = F.when(length <= INT_MAX, F.greatest(length, F.lit(-INT_MAX))).cast("int")
        too_long = f"{fn} requested a length too large, the largest allowed is {INT_MAX}"
        too_large = (length > INT_MAX) & vals[0].isNotNull()  # a null text is null whatever the length
        return _fail_if(too_large, too_long, F.call_function(fn, vals[0], held, fill))

    return build


def _chr(call: Call, args: list) -> Column:
    """The character of a code point (Spark's ``chr`` takes it modulo 256: ``chr(8364)`` is '¬'; Java's
    ``%c`` takes any). A value that is no Unicode scalar value (below 0, a surrogate, beyond U+10FFFF)
    stops the run, as in DataFusion; Java would write '?' or fail with its own message."""
    n = _values(args)[0]
    invalid = (n < 0) | (n > 0x10FFFF) | n.between(0xD800, 0xDFFF)
    message = F.concat(F.lit("invalid Unicode scalar value: "), n.cast("string"))
    # Java writes a null as the text "null"
    character = F.when(n.isNotNull(), F.format_string("%c", n.cast("int")))
    return F.when(invalid, F.raise_error(message)).otherwise(character)


def _overlay(call: Call, args: list) -> Column:
    """``overlay(s PLACING r FROM pos [FOR n])`` as DataFusion computes it: ``s``'s first ``pos - 1``
    characters, ``r``, then ``s`` from character ``pos + n`` (``n`` is ``r``'s length when left out; a
    negative ``n`` goes back); a ``pos`` below 1 is an error."""
    s, r, pos, *rest = _values(args)
    n = rest[0] if rest else F.char_length(r)
    tail = held_int(F.greatest(pos + n, F.lit(1)))
    value = F.concat(s.substr(F.lit(1), held_int(pos - 1)), r, s.substr(tail, F.lit(INT_MAX)))
    return _fail_if(pos < 1, "overlay: the start position must be at least 1", value)


def _substr_index(call: Call, args: list) -> Column:
    """DataFusion's ``substr_index(s, delimiter, count)``: Spark's ``substring_index``, the count held to
    an int (a larger one takes the whole string either way)."""
    s, delimiter, count = _values(args)[:3]
    return F.call_function("substring_index", s, delimiter, held_int(count))


def _regexp_match(call: Call, args: list) -> Column:
    """DataFusion's ``regexp_match(s, pattern[, flags])``: the first match's groups that took part in
    it, as a list (a group that took no part is left out: ``'(x)?(b)'`` gives ``['b']``; the whole match
    where the pattern has no group), null where nothing matches. The pattern is taken only as a literal
    (its groups are found here)."""
    if call.dialect != "datafusion":
        raise Unsupported("regexp_match is mapped only as DataFusion's (a list of the first match's groups)")
    vals = _values(args)
    text = call.constants[1] if len(call.constants) > 1 else None
    if not isinstance(text, str):
        raise Unsupported("regexp_match: the pattern is taken only as a literal")
    flags = _datafusion_flags(call, "regexp_match", 2) if len(vals) > 2 else ""
    s, pattern = vals[0], rust_pattern(call, flags, vals[1])
    spans = group_spans(text)
    groups = []
    for number, (begins, ends) in enumerate(spans, 1):
        got = F.call_function("regexp_extract", s, pattern, F.lit(number))
        if not may_match_empty(text[begins:ends], flags):
            got = F.when(got == "", F.lit(None)).otherwise(got)  # only a group that took no part gives ""
        elif may_skip(text):
            call.warnings.append(
                f"regexp_match: group {number} may match an empty text, and Spark gives a group that took no part "
                "in the match as an empty text too: the run keeps it, where DataFusion leaves such a group out"
            )
        groups.append(got)
    if not groups:
        return F.when(
            F.call_function("regexp_like", s, pattern), F.array(F.call_function("regexp_extract", s, pattern, F.lit(0)))
        )
    took_part = F.filter(F.array(*groups), lambda g: g.isNotNull())
    return F.when(F.call_function("regexp_like", s, pattern), took_part)


def _base64(value: Column) -> Column:
    """Spark's base64 of ``value``, padded, in one line (Spark breaks it into lines of 76 characters)."""
    return F.regexp_replace(F.base64(value), "\r\n", "")


def _encode(call: Call, args: list) -> Column:
    """DataFusion's ``encode(value, 'hex' | 'base64' | 'base64pad')`` of text (its UTF-8 bytes) or bytes:
    lower-case hex digits; base64 without its padding unless ``base64pad``."""
    value = _values(args)[0]
    method = call.constants[1] if len(call.constants) > 1 else None
    if method == "hex":
        return F.lower(F.hex(value))
    if method in ("base64", "base64pad"):
        padded = _base64(value)
        return padded if method == "base64pad" else F.regexp_replace(padded, "=+$", "")
    raise Unsupported("encode: the method is taken as the literal 'hex', 'base64' or 'base64pad'")


def _decode(call: Call, args: list) -> Column:
    """DataFusion's ``decode(text, 'hex' | 'base64')``: the bytes; text that is not of the encoding is an
    error, as its engine gives (Spark's ``unhex`` gives null)."""
    value = _values(args)[0]
    method = call.constants[1] if len(call.constants) > 1 else None
    if method == "hex":
        decoded = F.unhex(value)
        valid = F.regexp_like(value, F.lit("^([0-9a-fA-F]{2})*$"))  # Spark's unhex takes an odd digit too
    elif method in ("base64", "base64pad"):
        decoded = F.unbase64(value)
        # Spark's reads MIME's base64 (it skips what is not of the alphabet, and bits past the last byte):
        # only text that is the bytes' own encoding, padded or not, is what DataFusion reads
        unpadded = F.regexp_replace(value, "=+$", "")
        again = F.regexp_replace(_base64(decoded), "=+$", "")
        padding = F.length(value) - F.length(unpadded)
        valid = (again == unpadded) & ((padding == 0) | (F.length(value) % 4 == 0))
    else:
        raise Unsupported("decode: the method is taken as the literal 'hex', 'base64' or 'base64pad'")
    return _fail_if(value.isNotNull() & (decoded.isNull() | ~valid), f"decode: the text is not {method}", decoded)


def _split_part(call: Call, args: list) -> Column:
    """``split_part(s, delimiter, n)``: the n-th piece, from the end where n is negative; an n of 0 is an
    error, one beyond an int is held to it (no text has so many pieces)."""
    s, delimiter, n = _values(args)[:3]
    split = F.call_function("split_part", s, delimiter, held_int(n))
    return _fail_if(n == 0, "split_part: the position must not be 0", split)


def _repeat(call: Call, args: list) -> Column:
    """``repeat(s, n)``: a count beyond an int held to it (Spark's cast would wrap -4294967295 to 1)."""
    s, n = _values(args)[:2]
    return F.call_function("repeat", s, held_arg(call, 1, n))


def _not_like(call: Call, args: list) -> Column:
    return ~_like(call, args)


def _not_ilike(call: Call, args: list) -> Column:
    return ~_like(call, args, insensitive=True)


SCALAR: dict[str, Builder] = {
    "concat": _concat,
    "str_concat": _str_concat,
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
    "lpad": _pad("lpad"),
    "rpad": _pad("rpad"),
    "repeat": _repeat,
    "reverse": _spark_fn("reverse", 1),
    "translate": _spark_fn("translate", 3),
    "regex_match": _regex_match(insensitive=False, negated=False),
    "regex_imatch": _regex_match(insensitive=True, negated=False),
    "regex_not_match": _regex_match(insensitive=False, negated=True),
    "regex_not_imatch": _regex_match(insensitive=True, negated=True),
    "ascii": _spark_fn("ascii", 1),
    "left": _left_right("left"),
    "right": _left_right("right"),
    "md5": _spark_fn("md5", 1),
    **{f"sha{bits}": _sha(bits) for bits in (224, 256, 384, 512)},
    "digest": _digest,
    "regexp_count": _regexp_count,
    "regexp_instr": _regexp_instr,
    "levenshtein": _spark_fn("levenshtein", 2),
    "find_in_set": _spark_fn("find_in_set", 2),
    "to_hex": lambda call, args: F.lower(F.hex(_values(args)[0])),
    "chr": _chr,
    "split_part": _split_part,
    "initcap": _initcap,
    "regexp_match_substring": _regexp_match_substring,
    "regexp_count_substring": _regexp_count_substring,
    "regexp_replace": _regexp_replace,
    "regexp_string_split": _regexp_string_split,
    "string_split": _string_split,
    "not_like": _not_like,
    "not_ilike": _not_ilike,
    "overlay": _overlay,
    "substr_index": _substr_index,
    "regexp_like": _regexp_like,
    "regexp_match": _regexp_match,
    "encode": _encode,
    "decode": _decode,
}
