"""Fuzzing the pure core with mutated real plans (hypothesis).

The corpora's plans are mutated as JSON (keys dropped, values replaced by other JSON, numbers pushed to
their limits, subtrees moved) and as binary protobuf (bytes flipped, cut, inserted, spliced), then taken
through everything the app does with an upload before running it: load, derive every schema and
property, draw the DOT (every view), the node report, search, the table list, the plain-language
descriptions and the Spark
executability check. The only exception allowed out is :class:`PlanLoadError` (the input is not a
plan); everything else must come back as diagnostics. Each case must finish in bounded time.

The runs are derandomised so CI sees the same cases every time; ``FUZZ_EXAMPLES`` and ``FUZZ_SEED``
run more or other cases (``FUZZ_EXAMPLES=20000 FUZZ_SEED=7 pytest tests/model/test_fuzz.py -s``).
"""

from __future__ import annotations

import copy
import json
import os
import resource
import time
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from tests.support import ROOT, corpus_plans
from viz.describe import describe_plan
from viz.errors import PlanLoadError
from viz.model import analyze
from viz.render import View, to_dot
from viz.report import node_report, search
from viz.tables import plan_tables

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "500"))
SEED = int(os.environ.get("FUZZ_SEED", "20261121"))
CASE_LIMIT_S = 20.0  # one case, on a loaded 2-core machine; typical cases take milliseconds
RSS_LIMIT_MB = 4096  # the test process's peak resident memory after all cases


def _seeds() -> list[str]:
    """A spread of real plans: every producer, small enough that a case stays quick."""
    plans = [p for p in corpus_plans() if os.path.getsize(p) < 60_000]
    samples = [
        os.path.join(ROOT, "sample_plans", f)
        for f in (
            "tutorial.json",
            "subqueries.json",
            "window.json",
            "physical.json",
            "dag_two_roots.json",
            "errors.json",
        )
    ]
    return plans[:: max(1, len(plans) // 60)] + samples


SEEDS = _seeds()
_TEXTS = {p: open(p, "rb").read() for p in SEEDS}


@dataclass
class Tally:
    cases: int = 0
    loaded: int = 0
    refused: int = 0  # PlanLoadError: not a plan, said so
    diagnostics: int = 0
    slowest_s: float = 0.0
    crashes: list[str] = field(default_factory=list)


TALLY = {"json": Tally(), "bytes": Tally()}


def _exercise(data: bytes, tally: Tally) -> None:
    """Everything the app does with an upload before running it. Raises only PlanLoadError."""
    from executor.translate.executable import executability

    start = time.monotonic()
    tally.cases += 1
    try:
        model = analyze(data)
    except PlanLoadError as exc:
        assert str(exc), "a load error must say what is wrong"
        tally.refused += 1
        return
    finally:
        tally.slowest_s = max(tally.slowest_s, time.monotonic() - start)
    tally.loaded += 1
    tally.diagnostics += len(model.all_diagnostics())
    model.to_json()
    ids = list(model.graph.nodes)
    first = ids[0] if ids else None
    to_dot(model)
    to_dot(
        model,
        view=View(
            selected=first, theme="dark", trace="orderedness", focus=first, collapsed=frozenset(ids[1:2]), max_rows=3
        ),
    )
    to_dot(model, view=View(trace="distribution"))
    for node_id in ids[:20]:
        node_report(model, node_id)
    search(model, "a")
    plan_tables(model)
    describe_plan(model)
    executability(model)
    elapsed = time.monotonic() - start
    tally.slowest_s = max(tally.slowest_s, elapsed)
    assert elapsed < CASE_LIMIT_S, f"one case took {elapsed:.1f} s"


# ---- JSON mutations --------------------------------------------------------------------------

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)
_edge_numbers = st.sampled_from(
    [-1, 0, 1, 2, 7, 255, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64, -(2**63), 10**30]
)
_names = st.sampled_from(
    [
        "read",
        "filter",
        "project",
        "join",
        "aggregate",
        "sort",
        "fetch",
        "set",
        "cross",
        "reference",
        "window",
        "exchange",
        "hashJoin",
        "mergeJoin",
        "input",
        "left",
        "right",
        "condition",
        "expressions",
        "selection",
        "field",
        "functionReference",
        "outputType",
        "names",
        "struct",
        "types",
        "emit",
        "outputMapping",
        "subquery",
        "literal",
        "i64",
        "decimal",
        "precision",
        "scale",
        "subtreeOrdinal",
        "stepsOut",
        "anchor",
    ]
)


def _paths(doc, prefix=()):
    """Every (path to container, key) in a JSON document, containers first."""
    out = []
    stack = [(doc, prefix)]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                out.append(path + (k,))
                stack.append((v, path + (k,)))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                out.append(path + (i,))
                stack.append((v, path + (i,)))
    return out


def _get(doc, path):
    for step in path:
        doc = doc[step]
    return doc


@st.composite
def mutated_json(draw) -> bytes:
    doc = json.loads(_TEXTS[draw(st.sampled_from(SEEDS))])
    for _ in range(draw(st.integers(1, 4))):
        paths = _paths(doc)
        if not paths:
            break
        path = paths[draw(st.integers(0, len(paths) - 1))]
        parent, key = _get(doc, path[:-1]), path[-1]
        op = draw(st.sampled_from(["delete", "replace", "number", "rename", "move", "duplicate", "wrap"]))
        if op == "delete":
            del parent[key]
        elif op == "replace":
            parent[key] = draw(_json_values)
        elif op == "number":
            parent[key] = draw(_edge_numbers) if draw(st.booleans()) else str(draw(_edge_numbers))
        elif op == "rename" and isinstance(parent, dict):
            parent[draw(_names)] = parent.pop(key)
        elif op == "move":  # put another subtree of the plan here (cycles cannot arise: it is a copy)
            other = _get(doc, paths[draw(st.integers(0, len(paths) - 1))])
            parent[key] = copy.deepcopy(other)
        elif op == "duplicate" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
        elif op == "wrap":
            parent[key] = {draw(_names): parent[key]}
    return json.dumps(doc).encode()


# ---- binary mutations ------------------------------------------------------------------------

_BINARY = {}


def _binary(path: str) -> bytes:
    if path not in _BINARY:
        _BINARY[path] = analyze(_TEXTS[path]).plan.SerializeToString()
    return _BINARY[path]


@st.composite
def mutated_bytes(draw) -> bytes:
    data = bytearray(_binary(draw(st.sampled_from(SEEDS))))
    for _ in range(draw(st.integers(1, 3))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        # mostly small changes, so a good share still parses and reaches derive and render
        op = draw(st.sampled_from(["flip"] * 4 + ["set"] * 3 + ["cut", "insert", "splice", "truncate"]))
        if op == "flip":
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif op == "set":
            data[at] = draw(st.sampled_from([0x00, 0x01, 0x7F, 0x80, 0xFF, 0x0A, 0x12, 0x1A]))
        elif op == "cut":
            del data[at : at + draw(st.integers(1, 16))]
        elif op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=12))
        elif op == "splice":
            other = _binary(draw(st.sampled_from(SEEDS)))
            start = draw(st.integers(0, max(0, len(other) - 1)))
            data[at:at] = other[start : start + draw(st.integers(1, 64))]
        else:
            del data[at:]
    return bytes(data)


_SETTINGS = dict(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.slow
@seed(SEED)
@settings(**_SETTINGS)
@given(mutated_json())
def test_mutated_json_plans_give_diagnostics_or_a_load_error(data):
    _exercise(data, TALLY["json"])


@pytest.mark.slow
@seed(SEED + 1)
@settings(**_SETTINGS)
@given(mutated_bytes())
def test_mutated_binary_plans_give_diagnostics_or_a_load_error(data):
    _exercise(data, TALLY["bytes"])


@pytest.mark.slow
def test_fuzz_tally():
    """The figures for the README: cases run, how they ended, the slowest case, peak memory."""
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    for name, t in TALLY.items():
        print(
            f"fuzz {name}: {t.cases} cases from {len(SEEDS)} seed plans, {t.loaded} loaded "
            f"({t.diagnostics} diagnostics), {t.refused} refused as not a plan, 0 crashes, "
            f"slowest {t.slowest_s:.2f} s"
        )
    print(f"fuzz: peak resident memory of the test process {peak_mb:.0f} MB")
    # runs after the two fuzz tests (file order): they must have run their cases and reached both outcomes
    assert TALLY["json"].cases >= min(EXAMPLES, 100) and TALLY["bytes"].cases >= min(EXAMPLES, 100)
    assert TALLY["json"].loaded > 0 and TALLY["json"].refused > 0
    assert TALLY["bytes"].loaded > 0 and TALLY["bytes"].refused > 0
    assert peak_mb < RSS_LIMIT_MB


def test_a_legacy_field_number_with_another_wire_type_is_an_unknown_field():
    """Found by the fuzzer: FetchRel field 3 (the legacy offset, a varint) arriving length-delimited."""
    from substrait import algebra_pb2, plan_pb2

    fetch = algebra_pb2.FetchRel()
    fetch.ParseFromString(b"\x1a\x02\n\x00")  # field 3, wire type 2, two bytes
    p = plan_pb2.Plan()
    rel = p.relations.add().root.input
    rel.fetch.CopyFrom(fetch)
    rel.fetch.input.read.named_table.names.append("t")
    rel.fetch.input.read.base_schema.names.append("a")
    rel.fetch.input.read.base_schema.struct.types.add().i64.SetInParent()
    model = analyze(p.SerializeToString())
    assert [d.code for d in model.all_diagnostics() if d.code == "unknown-field"] == ["unknown-field"]
    assert "not the legacy offset" in " ".join(d.message for d in model.all_diagnostics())
