"""Rust's regexes (DataFusion's) read by Java's (Spark's): flags, the syntax Java reads otherwise or not at
all (``\\<``, ``\\b{start}``, ``\\u{e9}``, ``[[:alpha:]]``, ``\\p{Greek}``), replacement strings, and what
cannot be made the same (a pattern that may match the empty text where every match counts)."""

from __future__ import annotations

import re
import warnings

from pyspark.sql import Column
from pyspark.sql import functions as F

from ...errors import Unsupported
from ._common import Call, _option, base_name


def regex_flags(call: Call) -> str:
    flags = ""
    if case_insensitive(call):
        flags += "i"
    if _option(call, "multiline", ("MULTILINE_DISABLED", "MULTILINE_ENABLED"), "MULTILINE_DISABLED").endswith(
        "ENABLED"
    ):
        flags += "m"
    if _option(call, "dotall", ("DOTALL_DISABLED", "DOTALL_ENABLED"), "DOTALL_DISABLED").endswith("ENABLED"):
        flags += "s"
    _option(call, "lookaround", ("TRUE", "FALSE"), "TRUE")  # Java regexes support lookaround
    return flags


def spark_pattern(call: Call, pattern: Column) -> Column:
    return inline_flags(regex_flags(call), pattern)


def java_flags(flags: str, rust: bool = False) -> str:
    """``flags`` (of ``imsx``, others left out) as Java's inline ones: ``i`` with ``u``, since Java's
    ``(?i)`` folds ASCII letters only (DataFusion's and the spec's ``Ä`` matches ``ä``). ``rust``: a
    pattern of Rust's regex crate (DataFusion's), whose ``\\w``, ``\\d`` and ``\\s`` are Unicode
    (Java's ``U``) and whose ``.``, ``^`` and ``$`` know ``\\n`` alone as a line's end (Java's ``d``)."""
    own = "".join(f for f in "imsx" if f in flags) + ("u" if "i" in flags else "")
    return own + ("dU" if rust else "")


def inline_flags(flags: str, pattern: Column, rust: bool = False) -> Column:
    """``pattern`` with ``flags`` as Java's inline ones (:func:`java_flags`)."""
    inline = java_flags(flags, rust)
    return F.concat(F.lit(f"(?{inline})"), pattern) if inline else pattern


_MULTILINE_INLINE = re.compile(r"\(\?[a-zA-Z]*m")
_EXTENDED_INLINE = re.compile(r"\(\?[a-zA-Z]*x")


def before_group_end(flags: str, text: object) -> str:
    """What goes between a pattern and the end of a group the run puts around it: a line break in the x
    mode (by the flags or inline in a literal ``text``), where a comment runs to the line's end and would
    take the group's end in; else nothing."""
    return "\n" if "x" in flags or (isinstance(text, str) and _EXTENDED_INLINE.search(text)) else ""


_POSIX_CLASS = re.compile(
    r"\[:(\^?)(alnum|alpha|ascii|blank|cntrl|digit|graph|lower|print|punct|space|upper|word|xdigit):\]"
)
#: Rust's POSIX classes (ASCII only) as members of a Java character class.
_POSIX_MEMBERS = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "ascii": "\\x00-\\x7F",
    "blank": "\\t ",
    "cntrl": "\\x00-\\x1F\\x7F",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": "\\t\\n\\x0B\\f\\r ",
    "upper": "A-Z",
    "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}


def _pieces(text: str):
    """The pieces of a literal pattern, each with its place and whether it is inside a character class:
    an escape (two characters), a POSIX class (``[:alpha:]``, inside a class only), a class's opening
    with a leading ``^`` and a leading ``]`` (members of it), or one character."""
    i, depth = 0, 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            end = i + 2
        elif depth and (posix := _POSIX_CLASS.match(text, i)):
            end = posix.end()
        elif c == "[":
            end = i + 1 + (text[i + 1 : i + 2] == "^")
            end += text[end : end + 1] == "]"
            yield i, text[i:end], depth > 0
            depth, i = depth + 1, end
            continue
        else:
            end = i + 1
        yield i, text[i:end], depth > 0
        if c == "]" and depth:
            depth -= 1
        i = end


#: Rust's word boundaries of one side (``\\b{start}``; ``\\<`` and ``\\>`` too), as Java's lookarounds.
_HALF_BOUNDARIES = {
    "start": r"\b(?=\w)",
    "end": r"\b(?<=\w)",
    "start-half": r"(?<!\w)",
    "end-half": r"(?!\w)",
}
_HALF_BOUNDARY = re.compile(r"\\b\{(start|end|start-half|end-half)\}")
#: A code point Java and Rust both write ``\\x69`` or ``\\x{69}``.
_HEX = re.compile(r"\\x(?:([0-9A-Fa-f]{2})|\{([0-9A-Fa-f]+)\})")
#: Rust's escapes of a code point: ``\\u{e9}``, ``\\u00E9``, ``\\U0001F600``, ``\\U{1F600}``.
_CODE_POINT = re.compile(r"\\[uU](?:\{([0-9A-Fa-f]+)\}|([0-9A-Fa-f]{8})|([0-9A-Fa-f]{4}))")
#: Letters Java's case-insensitive Unicode matching takes for one another and Rust's (Unicode's simple case
#: folding) does not: i and I are neither İ nor ı in DataFusion, each matched here without the flag i.
_DOTTED_I = {"i": "(?-i:[iI])", "I": "(?-i:[iI])", "İ": "(?-i:İ)", "ı": "(?-i:ı)"}
#: The opening of a named group (not a lookbehind's ``(?<=``, ``(?<!``).
_NAMED = re.compile(r"\(\?P?<(?![=!])")
#: A Unicode property by a name of three letters or more (``\\p{Greek}``, ``\\P{Alphabetic}``): a script or a
#: binary property, which Java names ``IsGreek``; a category's short name (``\\p{Lu}``) is the same in both.
_PROPERTY = re.compile(r"\\([pP])\{([A-Za-z_]{3,})\}")
#: An inline group of flags (``(?i)``, ``(?m-s:``) and its letters.
_INLINE_FLAGS = re.compile(r"\(\?([A-Za-z-]*)[):]")


def _dotted_guard(cls: str) -> tuple[str, str] | None:
    """What goes around a class of Rust's under the flag i so that Java's, whose Unicode case takes i, I, İ and
    ı for one another, takes each of them as Rust does: a lookahead that bars those Rust's folded class does
    not take, an alternative of those it does. None where the class's members cannot be known here (a
    nested class, a property); then only İ and ı are barred from a class that does not name them."""
    negated = cls.startswith("[^")
    members = cls[2:-1] if negated else cls[1:-1]
    members = _POSIX_CLASS.sub(lambda m: "" if m.group(1) else _POSIX_MEMBERS[m.group(2)], members)
    try:
        if "[" in members or "\\p" in members or "\\P" in members:
            raise re.error("not known here")
        positive = re.compile(f"[{members}]")
    except re.error:
        if negated or {"İ", "ı"} & set(cls):
            return None
        return "(?:(?!(?-i:[İı]))", ")"
    named = {c: bool(positive.fullmatch(c)) for c in "iIİı"}
    rust = {"i": named["i"] or named["I"], "I": named["i"] or named["I"], "İ": named["İ"], "ı": named["ı"]}
    takes = "".join(c for c, v in rust.items() if v != negated)
    bars = "".join(c for c, v in rust.items() if v == negated)
    return (f"(?:(?!(?-i:[{bars}]))" if bars else "(?:"), (f"|(?-i:[{takes}]))" if takes else ")")


def rust_text(text: str, flags: str) -> str:
    """A literal pattern of Rust's regex crate for Java: its POSIX classes (``[[:alpha:]]``, which Java
    reads as a set of letters) as ASCII ranges; outside multiline mode its ``$``, the end of the text
    (Java's also matches before a final line break), as ``\\z``; ``(?P<name>`` as Java's ``(?<name>``;
    its one-sided word boundaries (``\\<``, ``\\b{end}``) as lookarounds, ``\\v`` (a vertical tab only) as
    ``\\x0B`` and its code points (``\\u{e9}``) as ``\\x{e9}``; where the flag ``i`` holds (given, or inline
    for its group), ``ß`` as ``[ßẞ]`` and ``i``, ``I``, ``İ``, ``ı`` outside a class kept apart as Rust keeps
    them. What
    Java would read otherwise is refused:
    the flags ``U`` (lazy by default) and ``R``, a class's difference ``--`` and symmetric difference ``~~``."""
    multiline = "m" in flags or _MULTILINE_INLINE.search(text)
    out, named_at, skip_to = [], -1, 0
    folds, outer = "i" in flags, []  # whether the flag i holds here, and where each open group began
    depth, opened = 0, (0, False, 0)  # classes open here; where the outermost began, negated, its place in out
    name_end = -1  # where a group's name (``(?P<name>``, ``\\k<name>``) ends: its letters are no pattern's
    for i, piece, in_class in _pieces(text):
        if i < skip_to:
            continue
        if not in_class and (_NAMED.match(text, i) or piece == "\\k") and ">" in text[i:]:
            name_end = text.index(">", i)
        if piece.startswith("[") and not _POSIX_CLASS.fullmatch(piece):
            opened = (i, piece.startswith("[^"), len(out)) if not depth else opened
            depth += 1
        elif piece == "]" and in_class:
            depth -= 1
            guard = _dotted_guard(text[opened[0] : i + 1]) if not depth and folds else None
            if guard:  # the class takes i, I, İ and ı as Rust's folding does (Java's takes them for one another)
                out.insert(opened[2], guard[0])
                out.append("]" + guard[1])
                continue
        inline = _INLINE_FLAGS.match(text, i) if piece == "(" and not in_class else None
        if inline and set(inline.group(1)) & set("UR"):
            raise Unsupported(f"the pattern {text!r} sets the flag U or R, which Java's regex reads otherwise")
        if inline:  # (?i) sets the flags to its group's end, (?i: to its own
            if inline.group(0).endswith(":"):
                outer.append(folds)
            on, _, off = inline.group(1).partition("-")
            folds = "i" not in off and (folds or "i" in on)
            out.append(inline.group(0))
            skip_to = inline.end()
            continue
        if piece == "(" and not in_class:
            outer.append(folds)
        elif piece == ")" and not in_class and outer:
            folds = outer.pop()
        if in_class and text[i : i + 2] in ("--", "~~"):
            raise Unsupported(
                f"the pattern {text!r} takes a class's difference (--) or symmetric difference (~~), which Java's "
                "regex reads as members"
            )
        posix = _POSIX_CLASS.fullmatch(piece) if in_class else None
        half = _HALF_BOUNDARY.match(text, i) if piece == "\\b" and not in_class else None
        code = _CODE_POINT.match(text, i) if piece in ("\\u", "\\U") else None
        named = _PROPERTY.match(text, i) if piece in ("\\p", "\\P") else None
        if named:
            out.append(f"\\{named.group(1)}{{Is{named.group(2)}}}")
            skip_to = named.end()
        elif half:
            out.append(_HALF_BOUNDARIES[half.group(1)])
            skip_to = half.end()
        elif piece in ("\\<", "\\>") and not in_class:
            out.append(_HALF_BOUNDARIES["start" if piece == "\\<" else "end"])
        elif code:
            point = next(g for g in code.groups() if g)
            letter = chr(int(point, 16))
            folded = folds and not in_class and letter in _DOTTED_I
            out.append(_DOTTED_I[letter] if folded else "\\x{" + point + "}")
            skip_to = code.end()
        elif piece == "\\x" and folds and not in_class and (hexed := _HEX.match(text, i)):
            letter = chr(int(hexed.group(1) or hexed.group(2), 16))
            out.append(_DOTTED_I.get(letter, hexed.group(0)))
            skip_to = hexed.end()
        elif piece == "\\v":
            out.append("\\x0B")  # Java's \v is any vertical white space
        elif posix:  # Java has no [:alpha:]; Rust's is ASCII
            members = _POSIX_MEMBERS[posix.group(2)]
            out.append(f"[^{members}]" if posix.group(1) else members)
        elif i == named_at:  # the P of (?P<: Java names a group without it
            continue
        elif piece == "$" and not in_class and not multiline:
            out.append("\\z")
        elif piece == "ß" and folds:  # Rust folds ß and ẞ together; Java's ß does not match ẞ
            out.append("ßẞ" if in_class else "[ßẞ]")
        elif piece in _DOTTED_I and folds and not in_class and i > name_end:  # Rust keeps i and I apart from İ, ı
            out.append(_DOTTED_I[piece])
        else:
            if piece == "(" and not in_class and text.startswith("(?P<", i):
                named_at = i + 2
            out.append(piece)
    return "".join(out)


def rust_pattern(call: Call, flags: str, pattern: Column, at: int = 1) -> Column:
    """DataFusion's pattern (argument ``at``, Rust's regex crate) with ``flags`` for Java: a literal one
    rewritten (:func:`rust_text`), every one with Java's flags for Rust's reading (:func:`java_flags`)."""
    text = call.constants[at] if len(call.constants) > at else None
    if isinstance(text, str):
        pattern = F.lit(rust_text(text, flags))
    else:
        call.warnings.append(
            f"{base_name(call.name)}: the pattern is not a literal, so the run gives it to Java's regex as it is; "
            "where Rust's syntax (DataFusion's) reads it otherwise ($ before a final line break, [[:alpha:]], \\v), "
            "the matches differ"
        )
    return inline_flags(flags, pattern, rust=True)


_GROUP_NAME = re.compile(r"\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>")
#: A run of backslashes before a digit: DataFusion reads the last two as one, the group's (``\\\\1`` is group 1).
_BACKSLASHES_BEFORE_DIGITS = re.compile(r"\\(\\+)(?=\d)")
_REPLACEMENT = re.compile(r"\\(\d+)|\$\$|\$\{([^}]*)\}|\$([A-Za-z0-9_]+)|(.)", re.S)


def group_spans(text: str) -> list[tuple[int, int]]:
    """Where the content of each group a literal pattern captures begins and ends, in the groups' order."""
    spans: dict[int, tuple[int, int]] = {}  # by where the group opens
    opened: list[tuple[int, int | None]] = []  # (where it opens, where a capturing group's content begins)
    for i, piece, in_class in _pieces(text):
        if in_class:
            continue
        if piece == "(":
            named = _GROUP_NAME.match(text, i)
            begins = named.end() if named else None if text.startswith("(?", i) else i + 1
            opened.append((i, begins))
        elif piece == ")" and opened:
            at, begins = opened.pop()
            if begins is not None:
                spans[at] = (begins, i)
    return [spans[at] for at in sorted(spans)]


def _groups(text: str) -> tuple[int, set[str]]:
    """How many groups a literal pattern captures, and their names."""
    return len(group_spans(text)), set(_GROUP_NAME.findall(text))


def rust_replacement(text: str, pattern: str, shift: int = 0, whole: str = "$0") -> str:
    """DataFusion's replacement (``\\1`` for group 1, then Rust's: ``$1``, ``${1}``, ``$name``, ``$$``; any
    other character itself, a backslash too) as Java's replacement, its groups numbered ``shift`` later.
    Rust reads the longest name after ``$`` (``$1a`` is the group named ``1a``) and makes a group the
    pattern does not have empty, where Java stops. ``whole``: Java's reference to the whole match."""
    count, names = _groups(pattern)
    out, after_group = [], False
    text = _BACKSLASHES_BEFORE_DIGITS.sub(r"\1", text)
    for m in _REPLACEMENT.finditer(text):
        backslash, braced, bare, char = m.groups()
        name = next((g for g in (backslash, braced, bare) if g is not None), None)
        if name is None:
            char = "$" if char is None else char
            out.append("\\" + char if char in "\\$" or (after_group and char.isdigit()) else char)
            after_group = False
        elif name.isdigit():
            number = int(name)
            out.append(whole if number == 0 else f"${number + shift}" if number <= count else "")
            after_group = number == 0 or number <= count
        else:
            out.append(f"${{{name}}}" if name in names else "")
            after_group = False
    return "".join(out)


#: Rust's inline flags that hold to the end of the group (``(?i)``; Python's take them only at the start).
_FLAG_SWITCH = re.compile(r"(?<!\\)\(\?[imsuUxR-]+\)")


def _matches_empty(content: str, flags: str) -> bool | None:
    """Whether a group's content matches the empty text, as Python's regexes read it; None where they
    cannot read it (Rust's syntax is not theirs in everything)."""
    leading = _FLAG_SWITCH.match(content)
    if leading and "-" not in leading.group():  # flags for the whole pattern, as the call's own are
        flags, content = flags + leading.group(), content[leading.end() :]
    found = 0
    for flag, value in (("i", re.I), ("m", re.M), ("s", re.S), ("x", re.X)):
        found |= value if flag in flags else 0
    inline = _FLAG_SWITCH.findall(content)
    if any("x" in f for f in inline):
        return None  # spaces and comments read otherwise from there on
    content = _FLAG_SWITCH.sub("", content)  # case, lines and dots do not make a match empty or not
    content = re.sub(r"(?<!\\)\(\?<(?![=!])", "(?P<", content)  # a named group as Python's regexes name it
    try:
        with warnings.catch_warnings():  # Python's notes on syntax that Rust reads otherwise ("nested set")
            warnings.simplefilter("ignore", FutureWarning)
            end = "\n)" if found & re.X else ")"  # a comment runs to the line's end
            return re.fullmatch(f"(?:{content}{end}", "", found) is not None
    except (re.error, ValueError, OverflowError):
        return None


#: Escapes of Rust's for one character that Python's regexes do not read: a Unicode property, a code point.
_ONE_CHARACTER = re.compile(r"\\[pP](\{[^}]*\}|[A-Za-z])|\\[uUx]\{[0-9A-Fa-f]+\}")
#: Zero-width assertions of a pattern: a boundary, an anchor, a lookaround without groups inside.
_ASSERTION = re.compile(r"\\[bBAzZ]|[$^]|\(\?<?[=!][^()]*\)")


def may_match_empty(text: str, flags: str) -> bool:
    """Whether a literal pattern may match the empty text somewhere, as far as can be told (its
    assertions taken as matching anywhere): where it may, Rust's regex and Java's find different matches
    (Rust takes no empty match right after a match, and Java's may fall inside a character beyond 16 bits)."""
    text = _ONE_CHARACTER.sub("x", text)  # Python's regexes read neither \\p{Greek} nor \\u{e9}
    return _matches_empty(_ASSERTION.sub("", text), flags) is not False or _matches_empty(text, flags) is not False


def no_empty_matches(call: Call, name: str, flags: str) -> None:
    """Refuse ``name`` of every match where its literal pattern may match the empty text."""
    text = call.constants[1] if len(call.constants) > 1 else None
    if isinstance(text, str) and may_match_empty(text, flags):
        raise Unsupported(
            f"{name} of every match of {text!r}, a pattern that can match the empty text: Rust's regex (DataFusion's) "
            "takes no empty match right after another match and Java's (Spark's) does, so the matches differ"
        )


def may_skip(text: str) -> bool:
    """Whether a group of a literal pattern may take no part in a match: only where a quantifier or an
    alternation is."""
    return any(
        piece in "?*|{" and not in_class and not (piece == "?" and text[i - 1 : i] == "(")
        for i, piece, in_class in _pieces(text)
    )


def case_insensitive(call: Call) -> bool:
    mode = _option(
        call, "case_sensitivity", ("CASE_SENSITIVE", "CASE_INSENSITIVE", "CASE_INSENSITIVE_ASCII"), "CASE_SENSITIVE"
    )
    return mode != "CASE_SENSITIVE"
