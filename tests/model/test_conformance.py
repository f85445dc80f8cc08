"""The Substrait conformance corpus (../shared/corpora/conformance, spec v0.102): every case's derived
root schema against expected.json, and every virtual-table case run on Spark.

The expectations are the corpus' own, written from the spec's sentences (its METHOD.md); the
comparison and the table of docs/conformance.md live in ``tests/support/conformance_table.py``. A known
difference is a strict expected failure that says why (docs/conformance.md gives the spec's words).
"""

from __future__ import annotations

import functools
import re
import time

import pytest
from substrait import type_pb2

from tests.support import conformance_table as C

SCHEMA_CASES = C.cases()
SCORED = [c for c in SCHEMA_CASES if C.category(c) == "scored"]
VIRTUAL_CASES = C.cases(C.VIRTUAL_DIR)
ROW_CASES = sorted(C.expected()["rows"])

#: Scored cases we must match, at the least (all but the known differences).
SCHEMA_FLOOR = len(SCORED) - len(C.KNOWN_DIFFERENCES)


@functools.cache
def answer(case: str) -> C.SchemaAnswer:
    return C.schema_answer(case)


def _known(case: str):
    reason = C.KNOWN_DIFFERENCES.get(case)
    return (
        pytest.param(case, marks=pytest.mark.xfail(strict=True, raises=AssertionError, reason=reason))
        if reason
        else case
    )


# ---- the spelling -------------------------------------------------------------------------


def test_the_corpus_spelling_of_our_types():
    T = type_pb2.Type
    req, null = T.NULLABILITY_REQUIRED, T.NULLABILITY_NULLABLE
    assert C.spelling(T(i64=T.I64(nullability=req))) == "i64"
    assert C.spelling(T(string=T.String(nullability=null))) == "str"  # nullability is the pair's second element
    assert C.spelling(T(bool=T.Boolean())) == "bool"
    assert C.spelling(T(decimal=T.Decimal(precision=38, scale=2))) == "dec(38,2)"
    assert C.spelling(T(varchar=T.VarChar(length=10))) == "vchar(10)"
    assert C.spelling(T(fixed_char=T.FixedChar(length=5))) == "fchar(5)"
    assert C.spelling(T(fixed_binary=T.FixedBinary(length=4))) == "fbin(4)"
    assert C.spelling(T(precision_timestamp=T.PrecisionTimestamp(precision=9))) == "precision_timestamp(9)"
    member = T(i64=T.I64(nullability=null))
    assert C.spelling(T(struct=T.Struct(types=[T(i64=T.I64(nullability=req)), member]))) == "struct(i64,i64?)"
    assert C.spelling(None) == "unknown"


def test_the_published_answers_parse_as_the_corpus_counts_them():
    """Our reading of the ten saved columns gives the README's tallies for the 93 cases they were
    taken over, but for two cells (docs/conformance.md says which)."""
    early = [c for c in SCORED if c not in C.ADDED_LATER]
    assert len(early) == 93
    got = {
        name: sum(C.published_status(name, c, nulls) == "match" for c in early)
        for name, _, nulls, scored in C.PARTICIPANTS
        if scored
    }
    assert got == {**C.PUBLISHED_MATCHED, "DATAFUSION": 53}  # its read_projection_mask cell predates the expectation
    assert C.parse_answer("JAVA", "Struct{nullable=false, fields=[Decimal{nullable=true, scale=2, precision=11}]}") == [
        ("dec(11,2)", True)
    ]
    assert C.parse_answer("ISTHMUS", "[$f0:ROW[f0:BIGINT, f1:BIGINT?]]") == [("struct(i64,i64?)", False)]
    assert C.parse_answer("ACERO", "[c0:extension<varchar{length:10}>, c2:fixed_size_binary[4]?]") == [
        ("vchar(10)", False),
        ("fbin(4)", True),
    ]


# ---- derived schemas ----------------------------------------------------------------------


@pytest.mark.parametrize("case", [_known(c) for c in SCORED])
def test_scored_case_derives_the_expected_schema(case):
    a = answer(case)
    assert a.got == a.want, f"{case}: derived {C.show(a.got)}, expected {C.show(a.want)} ({C.manifest()[case]['note']})"


def test_schema_score():
    matched = [c for c in SCORED if answer(c).status == "match"]
    differing = sorted(set(SCORED) - set(matched))
    print(
        f"\nconformance: {len(matched)} of {len(SCORED)} scored cases derive the expected schema; differ: {differing}"
    )
    assert len(SCORED) == 96
    assert len(matched) >= SCHEMA_FLOOR and set(differing) <= set(C.KNOWN_DIFFERENCES)


@pytest.mark.parametrize("case", C.expected()["spec_says_invalid"])
def test_a_plan_the_spec_says_is_invalid_is_reported(case):
    """ctas_keeps_declared_schema: a CTAS whose input (i32?, i32?) does not match its table_schema
    (i64, i32?); algebra.proto: "the schema must match with table_schema"."""
    a = answer(case)
    assert [d for d in a.diagnostics if d.startswith("write-schema-mismatch: ") and "column 0 (total) is i32?" in d]


def test_cases_without_an_expectation_are_derived_and_recorded():
    """The spec-silent virtual tables (a row that disagrees with its schema) and the six plans the
    manifest does not list still derive a schema; where the spec's type rules do settle the row, the
    node says so: an i8 literal in an i32 column (no implicit coercion) and a null in a required one."""
    recorded = {c: answer(c) for c in SCHEMA_CASES if C.category(c) in ("spec_silent", "none")}
    assert len(recorded) == 10
    assert all(a.got is not None for a in recorded.values())
    codes = {c: {d.split(":")[0] for d in a.diagnostics} for c, a in recorded.items()}
    assert "type-mismatch" in codes["virtual_table_literal_type_differs_from_schema"]
    assert "null-in-required-column" in codes["virtual_table_row_null_in_required_column"]
    # a non-null literal whose nullability is not the column's: the spec is in tension with itself
    assert not codes["virtual_table_row_nullable_in_required_column"]
    assert not codes["virtual_table_row_required_in_nullable_column"]


def test_the_doc_lists_every_case_and_our_tally():
    with open(C.DOC) as f:
        doc = f.read()
    missing = [c for c in SCHEMA_CASES if f"| `{c}` |" not in doc]
    assert not missing, f"docs/conformance.md lacks {missing}: python -m tests.support.conformance_table --write"
    matched = sum(answer(c).status == "match" for c in SCORED)
    assert re.search(rf"\| \*\*ours\*\* \| {matched} \|", doc), "docs/conformance.md's tally is stale: regenerate it"


# ---- the virtual tables on Spark ----------------------------------------------------------


@pytest.fixture(scope="module")
def runs(module_spark):
    """Every virtual-table case run once, on the run's shared session."""
    start = time.monotonic()
    out = C.run_all()
    ran = [r for r in out.values() if r.ran]
    print(
        f"\nconformance on Spark: {len(ran)} of {len(out)} run in {time.monotonic() - start:.0f} s; types agree in "
        f"{sum(r.types != 'differ' for r in ran)}; rows exact in "
        f"{sum(r.row_status == 'exact' for r in out.values())} of {len(ROW_CASES)}"
    )
    return out


def _clear(message: str) -> bool:
    """One line, in the user's terms: no traceback, no Java stack, not an internal error."""
    return (
        "\n" not in message
        and "Traceback" not in message
        and "internal error" not in message
        and "\tat " not in message
        and len(message) < 400
    )


@pytest.mark.parametrize("case", VIRTUAL_CASES)
def test_virtual_table_case_runs_or_is_refused_clearly(runs, case):
    r = runs[case]
    assert r.unexpected is None, f"{case} failed with an exception that is not an ExecutionError: {r.unexpected}"
    if case in C.REFUSED:
        assert not r.ran, f"{case} ran; it was expected to be refused ({C.REFUSED[case]})"
        assert C.REFUSED[case] in r.error and _clear(r.error), r.error
    else:
        assert r.ran, f"{case} did not run: {r.error}"


@pytest.mark.parametrize("case", VIRTUAL_CASES)
def test_result_types_are_the_derived_ones_or_the_run_says_why(runs, case):
    """At Spark's resolution (no string length, microseconds), or named on the node: a column Spark
    keeps coarser than the plan derives where values lose digits (a run note), and a null in a column
    derived required (decimal_multiply_overflow's NULL for an overflow: a run note; a virtual table's
    null: a diagnostic too)."""
    r = runs[case]
    if not r.ran:
        return
    for difference in r.type_differences():
        column = difference.split(":")[0]
        assert any(column in note for note in r.notes), f"{case}: {difference}, and the run does not say so: {r.notes}"
    for i in r.resolution_losses():
        t = r.derived[i][0]
        if t.startswith("precision_timestamp") and int(re.search(r"\((\d+)\)", t).group(1)) > 6:
            assert any(f"column {i} " in note and "microseconds" in note for note in r.notes), (case, r.notes)
    for i, (_, nullable) in enumerate(r.derived):
        if not nullable and any(row[i] is None for row in r.rows):
            said = [d for d in r.diagnostics if d.startswith("null-in-required-column")]
            said += [n for n in r.notes if n.startswith(f"column {i} ") and "holds no nulls" in n]
            assert said, f"{case}: column {i} is derived required and holds a null, and nothing says so"


@pytest.mark.parametrize("case", ROW_CASES)
def test_the_rows_the_spec_prints(runs, case):
    r = runs[case]
    want = sorted(C.expected()["rows"][case]["rows"])
    assert r.ran and r.flat_rows() == want, f"{case}: {r.rows or r.error}, expected {want} (as a multiset)"


def test_spark_score(runs):
    ran = [r for r in runs.values() if r.ran]
    assert len(runs) == 107 and len(ran) == len(runs) - len(C.REFUSED)
    assert all(r.types != "differ" for r in ran), [(r.case, r.type_differences()) for r in ran if r.types == "differ"]
    assert sum(r.row_status == "exact" for r in runs.values()) >= len(ROW_CASES) - 1
