"""The executor against real plans: each plan's root runs on Spark and must return the rows DuckDB
returns for the plan's SQL over the same files.

1. Every consumer-testing producer snapshot, paired with its test definition (the SQL and the
   parquet file of each named table). ``NAME.parquet`` is our TPC-H at scale 0.01 and
   ``NAME_small.parquet`` TPC-H at scale 0.001 (upstream: 0.1 and 0.0001); the function tests'
   table ``t`` is written from the README's rows.
2. The 22 isthmus TPC-H plans against the TPC-H SQL of the consumer-testing integration tests.

A table of pass / wrong / unsupported / refused / error by producer and area is printed (run with
``-s`` to see it) and every non-pass is listed with its reason. The tests assert pass-rate floors
measured on this code, so a regression fails, and that nothing fails with an exception that is
neither the executor's nor Spark's.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from executor.producer.check import JOBS
from tests.support import CORPORA
from tests.support import exec_oracle as oracle

pytestmark = pytest.mark.slow

CT = os.path.join(CORPORA, "consumer-testing")
SNAPSHOTS = os.path.join(CT, "snapshots", "producer")
TESTDATA = os.path.join(CT, "testdata")
ISTHMUS_TPCH = os.path.join(CORPORA, "isthmus-tpch")
PRODUCERS = ("validate-isthmus", "isthmus", "duckdb", "datafusion", "ibis")
TPCH_TABLES = ("customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier")

# Floors measured on this code (see the printed tables); a drop below them is a regression.
CONSUMER_TESTING_PASS_FLOOR = 541  # plans that pass, of 564: measured 535 (2026-11-23), 541 (2026-12-05)
ISTHMUS_TPCH_PASSES = 21  # measured: all 21 (query 15 is empty)


# Plans that encode something other than their SQL (producer bugs): (text in the plan, SQL text,
# the SQL the plan actually encodes, why). The oracle then runs what the plan says, and the report
# lists the deviation.
PLAN_DEVIATIONS = [
    (
        '"seconds": 10368',
        "interval '120' day",
        "interval '10368' second",
        "isthmus wrote interval '120' day as 10368 seconds (120 days are 10,368,000 s)",
    ),
]


@dataclass
class Case:
    plan: str  # path
    producer: str
    area: str  # e.g. "function/arithmetic"
    name: str
    sql: str
    tables: dict[str, str]  # table name -> file name as in the test definition


@dataclass
class Outcome:
    case: Case
    status: str  # pass, wrong, unsupported, refused, error, spark-error, oracle-error, crash
    reason: str = ""
    seconds: float = 0.0


def _definitions() -> dict[tuple[str, str], str]:
    out = {}
    for dirpath, _, files in os.walk(TESTDATA):
        rel = os.path.relpath(dirpath, TESTDATA).split(os.sep)
        for f in files:
            if f.endswith(".json"):
                out[("/".join(rel[:2]), f[: -len(".json")])] = os.path.join(dirpath, f)
    return out


def _sql_of(definition: str) -> tuple[str, dict[str, str]]:
    with open(definition, encoding="utf-8") as fh:
        doc = json.load(fh)
    q = doc.get("sql_query", {})
    if "query_path" in q:
        with open(os.path.join(os.path.dirname(definition), q["query_path"]), encoding="utf-8") as fh:
            sql = fh.read()
    else:
        sql = q.get("query", "")
    tables = {**doc.get("named_tables", {}), **doc.get("local_files", {})}
    return sql, tables


def consumer_cases() -> list[Case]:
    definitions = _definitions()
    cases = []
    for dirpath, _, files in os.walk(SNAPSHOTS):
        area = "/".join(os.path.relpath(dirpath, SNAPSHOTS).split(os.sep)[:2])
        for f in sorted(files):
            if not f.endswith("_plan.json"):
                continue
            stem = f[: -len("_plan.json")]
            producer = next((p for p in PRODUCERS if stem.endswith("-" + p)), None)
            if producer is None:
                if os.path.exists(os.path.join(dirpath, f"{stem}-ibis_plan.json")):
                    continue  # an unsuffixed plan duplicates the -ibis one
                producer, name = "ibis", stem
            else:
                name = stem[: -len(producer) - 1]
            definition = definitions.get((area, name)) or definitions.get((area, name.lower()))
            if definition is None:
                continue
            sql, tables = _sql_of(definition)
            cases.append(Case(os.path.join(dirpath, f), producer, area, name, sql, tables))
    return sorted(cases, key=lambda c: c.plan)


# ---------------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------------


class Data:
    """Files for both engines: TPC-H at two scales and the table ``t``, and one Catalog per binding set."""

    def __init__(self) -> None:
        from executor.data.generate import CACHE, tpch

        self.big = tpch(0.01)
        self.small = tpch(0.001)
        self.t_path = oracle.write_t(os.path.join(CACHE, "function-table"))
        self.catalogs: dict[tuple, object] = {}

    def path(self, file_name: str) -> str:
        stem = file_name[: -len(".parquet")] if file_name.endswith(".parquet") else file_name
        if stem.endswith("_small"):
            return os.path.join(self.small, stem[: -len("_small")] + ".parquet")
        return os.path.join(self.big, stem + ".parquet")

    def files(self, tables: dict[str, str]) -> dict[str, str]:
        return {name: self.path(f) for name, f in tables.items()}

    def catalog(self, files: dict[str, str]):
        from executor.data.catalog import Catalog

        bindings = {"t": self.t_path, **files}
        for t in TPCH_TABLES:  # tables a plan reads that its definition does not list
            bindings.setdefault(t, os.path.join(self.big, f"{t}.parquet"))
        key = tuple(sorted(bindings.items()))
        if key not in self.catalogs:
            roots = [self.big, self.small, os.path.dirname(self.t_path)]
            self.catalogs[key] = Catalog(data_roots=roots, bindings=bindings, use_spark_catalog=False)
        return self.catalogs[key]


def meaning(raw: bytes) -> bytes:
    """The plan as its consumer reads it: protobuf's bytes with the functions' anchors numbered in the
    order of the functions they name (their extension and compound name), so that two plans that differ
    only in how they number their functions have one meaning and run alike. Everything else is kept (the
    version and producer too: the model reads a plan by them)."""
    from viz.load import load_plan

    plan = load_plan(raw).plan
    urns = {u.extension_urn_anchor: u.urn for u in plan.extension_urns}
    named = {}
    for e in plan.extensions:
        if e.HasField("extension_function"):
            f = e.extension_function
            named[f.function_anchor] = f"{urns.get(f.extension_urn_reference, '')}#{f.name}"
    order = {anchor: i for i, anchor in enumerate(sorted(named, key=named.__getitem__))}

    canonical = type(plan)()
    canonical.CopyFrom(plan)
    declared = [e for e in canonical.extensions if not e.HasField("extension_function")]
    del canonical.extensions[:]
    canonical.extensions.extend(declared)  # the functions' declarations are the names below
    stack = [canonical]
    while stack:
        message = stack.pop()
        if "function_reference" in message.DESCRIPTOR.fields_by_name:  # 0 is a reference too, though unset
            ref = message.function_reference
            message.function_reference = order.get(ref, len(order) + ref)
        for field, value in message.ListFields():
            if field.message_type is not None and not field.message_type.GetOptions().map_entry:
                stack.extend(value if field.is_repeated else [value])
    return canonical.SerializeToString(deterministic=True) + "\n".join(sorted(named.values())).encode()


def run_case(case: Case, spark, data: Data) -> Outcome:
    from pyspark.errors import PySparkException

    from executor.errors import ExecutionError, Refused, Unsupported
    from executor.translate.rel import translate
    from viz.model import analyze

    start = time.perf_counter()
    files = data.files(case.tables)
    with open(case.plan, "rb") as fh:
        raw = fh.read()
    sql, notes = case.sql, []
    for marker, old, new, why in PLAN_DEVIATIONS:
        if marker in raw.decode("utf-8", "replace") and old in sql:
            sql = sql.replace(old, new)
            notes.append(f"oracle SQL adjusted: {why}")
    try:
        model = analyze(raw)
        result = translate(model, model.roots[0], spark, data.catalog(files))
        got = [tuple(r) for r in result.df.collect()]
    except Refused as e:
        return Outcome(case, "refused", str(e), time.perf_counter() - start)
    except Unsupported as e:
        return Outcome(case, "unsupported", str(e), time.perf_counter() - start)
    except ExecutionError as e:
        return Outcome(case, "error", str(e), time.perf_counter() - start)
    except PySparkException as e:
        return Outcome(case, "spark-error", str(e).splitlines()[0][:300], time.perf_counter() - start)
    except Exception as e:  # noqa: BLE001 - a crash is what this sweep looks for
        return Outcome(case, "crash", f"{type(e).__name__}: {e}"[:300], time.perf_counter() - start)
    sql = oracle.fill_sql(sql, files)
    try:
        verdict = oracle.compare(got, sql, lambda q: oracle.duckdb_query(q, data.t_path))
    except Exception as e:  # noqa: BLE001 - DuckDB rejecting the SQL is reported, not a crash
        return Outcome(case, "oracle-error", f"{type(e).__name__}: {e}"[:300], time.perf_counter() - start)
    status = "pass" if verdict.ok else "wrong"
    reason = "; ".join([verdict.reason, *notes]).strip("; ")
    return Outcome(case, status, reason, time.perf_counter() - start)


STATUSES = ("pass", "wrong", "unsupported", "refused", "error", "spark-error", "oracle-error", "crash")


def report(outcomes: list[Outcome], title: str) -> str:
    table: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for o in outcomes:
        table[(o.case.producer, o.case.area)][o.status] += 1
    lines = [
        f"== {title}: {len(outcomes)} plans",
        f"{'producer':18} {'area':28} " + " ".join(f"{s:>8}" for s in STATUSES),
    ]
    for (producer, area), counts in sorted(table.items()):
        lines.append(f"{producer:18} {area:28} " + " ".join(f"{counts[s]:>8}" for s in STATUSES))
    totals = Counter(o.status for o in outcomes)
    lines.append(f"{'total':47} " + " ".join(f"{totals[s]:>8}" for s in STATUSES))
    lines.append(f"time: {sum(o.seconds for o in outcomes):.1f}s")
    for o in outcomes:
        if o.status != "pass" or o.reason:
            rel = os.path.relpath(o.case.plan, CORPORA)
            lines.append(f"  [{o.status}] {rel}: {o.reason}")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def data() -> Data:
    return Data()


def test_consumer_testing_plans_match_duckdb(spark, data):
    cases = consumer_cases()
    assert len(cases) > 400, f"expected the consumer-testing snapshots at {SNAPSHOTS}"
    # Many snapshots are the same plan for the same test as another one: a -validate-isthmus plan is the
    # isthmus one after a round trip through protobuf (defaults dropped, anchors renumbered), some files
    # are copies. Each meaning is run once and reported for every snapshot of it.
    keys = []
    for c in cases:
        with open(c.plan, "rb") as fh:
            keys.append((meaning(fh.read()), c.sql, tuple(sorted(c.tables.items()))))
    first: dict[tuple, Case] = {}  # each meaning's first snapshot
    for c, k in zip(cases, keys):
        first.setdefault(k, c)
    with ThreadPoolExecutor(max_workers=JOBS) as pool:  # as the live-producer check runs its queries
        seen = dict(zip(first, pool.map(lambda c: run_case(c, spark, data), first.values())))
    outcomes = [
        seen[k] if seen[k].case is c else Outcome(c, seen[k].status, seen[k].reason) for c, k in zip(cases, keys)
    ]
    print("\n" + report(outcomes, "consumer-testing snapshots vs DuckDB") + f"\n({len(seen)} distinct plans run)")
    counts = Counter(o.status for o in outcomes)
    crashes = [f"{o.case.plan}: {o.reason}" for o in outcomes if o.status == "crash"]
    assert not crashes, "non-executor exceptions:\n" + "\n".join(crashes)
    assert counts["pass"] >= CONSUMER_TESTING_PASS_FLOOR, (
        f"{counts['pass']} of {len(outcomes)} plans pass, fewer than the {CONSUMER_TESTING_PASS_FLOOR} measured before"
    )


def isthmus_tpch_cases() -> list[Case]:
    cases = []
    for q in range(1, 23):
        plan = os.path.join(ISTHMUS_TPCH, f"query_{q:02d}_plan.json")
        sql, tables = _sql_of(os.path.join(TESTDATA, "integration", "tpch", f"q{q:02d}.json"))
        cases.append(Case(plan, "isthmus", "isthmus-tpch", f"q{q:02d}", sql, tables))
    return cases


def test_isthmus_tpch_plans_match_duckdb(spark, data):
    outcomes = []
    for case in isthmus_tpch_cases():
        with open(case.plan, encoding="utf-8") as fh:
            if json.load(fh) == {}:
                outcomes.append(Outcome(case, "skipped", "the plan file is empty ({}): isthmus wrote no plan for it"))
                continue
        outcomes.append(run_case(case, spark, data))
    print("\n" + report(outcomes, "isthmus TPC-H plans vs DuckDB"))
    crashes = [f"{o.case.plan}: {o.reason}" for o in outcomes if o.status == "crash"]
    assert not crashes, "non-executor exceptions:\n" + "\n".join(crashes)
    passes = sum(o.status == "pass" for o in outcomes)
    assert passes >= ISTHMUS_TPCH_PASSES, f"{passes} of 21 TPC-H plans pass, expected at least {ISTHMUS_TPCH_PASSES}"
