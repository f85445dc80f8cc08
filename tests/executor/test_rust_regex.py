"""DataFusion's regexes (Rust's regex crate) written for Java: the rows are checked against DataFusion's
engine by ``datafusion_functions.sql`` (``regex_*``, ``regexp_replace_replacement_text``); here, the
rewritten text itself."""

from __future__ import annotations

import pytest

from executor.errors import Unsupported
from executor.translate.functions._common import Call
from executor.translate.functions.rust_regex import (
    _groups,
    may_match_empty,
    no_empty_matches,
    rust_replacement,
    rust_text,
)


@pytest.mark.parametrize(
    ("pattern", "java"),
    [
        ("a$", r"a\z"),  # Java's $ also matches before a final line break
        (r"a\$", r"a\$"),
        ("[$]a$", r"[$]a\z"),
        ("[]$]$", r"[]$]\z"),
        ("x$|y$", r"x\z|y\z"),
        ("[[:alpha:]]+$", r"[A-Za-z]+\z"),  # Java reads [:alpha:] as a set of letters; Rust's is ASCII
        ("[^[:digit:]x]", "[^0-9x]"),
        ("[[:^alpha:]]", "[[^A-Za-z]]"),
        ("(?P<v>A)", "(?<v>A)"),
        (r"\(?P<v", r"\(?P<v"),  # an escaped parenthesis is no group
    ],
)
def test_rust_patterns_as_java_reads_them(pattern, java):
    assert rust_text(pattern, "") == java


def test_a_multiline_pattern_keeps_its_dollar():
    assert rust_text("a$", "m") == "a$" and rust_text("(?m)a$", "") == "(?m)a$"


@pytest.mark.parametrize(
    ("pattern", "flags", "java"),
    [
        ("ß", "i", "[ßẞ]"),
        ("[ß]", "i", "(?:(?!(?-i:[iIİı]))[ßẞ])"),
        ("ß", "", "ß"),
        ("(?i)ß", "", "(?i)[ßẞ]"),  # inline, to its group's end
        ("(a(?i)ß)ß", "", "(a(?i)[ßẞ])ß"),
        ("a(?i:ß)ß", "", "a(?i:[ßẞ])ß"),  # for its own group
        ("(?i)x(?-i:ß)", "", "(?i)x(?-i:ß)"),
        ("(?-i)ß", "i", "(?-i)ß"),
        ("(?:ß)(?i)\\(ß", "", "(?:ß)(?i)\\([ßẞ]"),  # an escaped parenthesis opens no group
    ],
)
def test_eszett_folds_with_capital_eszett_where_the_flag_i_holds(pattern, flags, java):
    """Rust folds ß and ẞ together, Java's ß does not match ẞ (DataFusion's rows are in
    executor/producer/sql/datafusion_functions.sql)."""
    assert rust_text(pattern, flags) == java


@pytest.mark.parametrize(
    ("pattern", "flags", "java"),
    [
        ("^i$", "i", "^(?-i:[iI])\\z"),
        ("I", "i", "(?-i:[iI])"),
        ("ı", "i", "(?-i:ı)"),
        ("i", "", "i"),
        ("[a-z]+", "i", "(?:(?!(?-i:[İı]))[a-z]|(?-i:[iI]))+"),
        ("[a-z]+", "", "[a-z]+"),
        ("[^h-j]", "i", "(?:(?!(?-i:[iI]))[^h-j]|(?-i:[İı]))"),  # Rust's takes İ and ı, Java's not
        ("[İa]", "i", "(?:(?!(?-i:[iIı]))[İa]|(?-i:[İ]))"),  # İ itself, not i (Java's takes it)
        ("\\x69", "i", "(?-i:[iI])"),  # a letter by its code point
        ("\\u{130}", "i", "(?-i:İ)"),
        ("(?P<id>i)\\k<id>", "i", "(?<id>(?-i:[iI]))\\k<id>"),  # a group's name is no letter to match
        ("(?<=i)x", "i", "(?<=(?-i:[iI]))x"),
    ],
)
def test_i_and_dotted_i_stay_apart_where_the_flag_i_holds(pattern, flags, java):
    """Rust's case-insensitive matching (Unicode's simple folding) keeps i and I apart from İ and ı, which
    Java's (Unicode case) takes for one another: a hunt's regexp_replace(s, 'i', 'X', 'gi') replaced İ and ı
    too, and s ~* '^i$' matched them (DataFusion's and DuckDB's rows: not)."""
    assert rust_text(pattern, flags) == java


def test_rust_replacements_as_java_reads_them():
    assert _groups(r"(A)(?P<v>B)(?:c)[(]\(") == (2, {"v"})
    assert _groups("[]a(](B)") == (1, set()) and _groups("[^](](B)") == (1, set())  # a leading ] is a member
    # DataFusion's \1 is group 1; any other backslash is itself; $$ is a dollar
    assert rust_replacement(r"\1x", "(A)") == "$1x" and rust_replacement(r"x\y", "A") == r"x\\y"
    assert rust_replacement("$$", "A") == r"\$" and rust_replacement("a$", "A") == r"a\$"
    # the longest name: $1a is the group named 1a, which the pattern has not: empty, where Java stops
    assert rust_replacement("$1a", "(A)") == "" and rust_replacement("${1}a", "(A)") == "$1a"
    assert rust_replacement("${1}0", "(A)") == r"$1\0"  # not group 10
    assert rust_replacement("$2", "(A)") == "" and rust_replacement("$v!", "(?P<v>A)") == "${v}!"
    # the first match only: two groups before the pattern's, the whole match by name
    assert rust_replacement(r"<\1|$0>", "(A)", shift=2, whole="${vzmatch}") == "<$3|${vzmatch}>"


@pytest.mark.parametrize(
    ("pattern", "may"),
    [
        ("A*", True),  # Rust and Java find different empty matches in 'ALGERIA' (checked in DataFusion)
        ("[aeiou]*", True),
        ("", True),
        (r"a|\b", True),  # an assertion alone matches the empty text between characters
        ("(?=a)", True),
        ("^a", False),
        ("a+", False),
        (r"\d{2}", False),
        (r"\bfoo\b", False),
        ("colou?r", False),
        ("(?x) a # comment", False),  # flags for the whole pattern, its comment to the line's end
        ("(?x) a* # comment", True),
        ("(?<li>k)(i)", False),  # a group named as Rust and Java name it
        ("(?<li>k?)", True),
    ],
)
def test_patterns_that_may_match_the_empty_text(pattern, may):
    assert may_match_empty(pattern, "") is may


def test_every_match_of_a_pattern_matching_empty_text_is_refused():
    call = Call("regexp_count", [None, None], None, {}, constants=["ALGERIA", "A*"])
    with pytest.raises(Unsupported, match="can match the empty text"):
        no_empty_matches(call, "regexp_count", "")


@pytest.mark.parametrize(
    ("pattern", "java"),
    [
        (r"\>", r"\b(?<=\w)"),  # Rust's end of a word; Java reads \> as >
        (r"\<A", r"\b(?=\w)A"),
        (r"\b{start}f", r"\b(?=\w)f"),
        (r"[\v]", r"[\x0B]"),  # Rust's \v is a vertical tab only
        (r"\u{e9}", r"\x{e9}"),
        (r"\U0001F600", r"\x{0001F600}"),
        (r"^\p{Greek}+$", r"^\p{IsGreek}+\z"),  # a script by its name
        (r"\p{Lu}\pL", r"\p{Lu}\pL"),  # categories are named alike
    ],
)
def test_rust_escapes_as_java_reads_them(pattern, java):
    assert rust_text(pattern, "") == java


@pytest.mark.parametrize("pattern", [r"(?U)A.+", r"(?mR)A$", r"[a-z--[aeiou]]", r"[a~~b]"])
def test_what_java_reads_otherwise_is_refused(pattern):
    with pytest.raises(Unsupported):
        rust_text(pattern, "")
