"""Plans for the benchmarks (and the tests): the corpora's, and synthetic plans of a given node count."""

from __future__ import annotations

import os
from typing import Any

#: ../shared/corpora beside the project: real plans from real producers (never edited).
CORPORA = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "shared", "corpora"))


#: Folders of the corpora left out: consumer-testing's test definitions (not plans) and the conformance
#: corpus, whose plans break the spec's rules on purpose, one each (tests/model/test_conformance.py checks them).
_LEFT_OUT = (os.path.join("consumer-testing", "testdata"), os.path.join(CORPORA, "conformance"))


def corpus_plans() -> list[str]:
    """Every plan the producers in the corpora wrote: all .json files but those in ``_LEFT_OUT``."""
    out = []
    for dirpath, _, filenames in os.walk(CORPORA):
        if any(part in dirpath for part in _LEFT_OUT):
            continue
        out.extend(os.path.join(dirpath, f) for f in filenames if f.endswith(".json"))
    return sorted(out)


_COLS = [("id", "i64"), ("k", "i64"), ("name", "string"), ("v", "fp64")]


def _read(i: int) -> dict:
    return {
        "read": {
            "baseSchema": {
                "names": [c for c, _ in _COLS],
                "struct": {"types": [{t: {"nullability": "NULLABILITY_NULLABLE"}} for _, t in _COLS]},
            },
            "namedTable": {"names": [f"t{i}"]},
        }
    }


def _ref(i: int) -> dict:
    return {"selection": {"directReference": {"structField": {"field": i}}, "rootReference": {}}}


def _gt(a: dict, b: dict) -> dict:
    return {
        "scalarFunction": {
            "functionReference": 1,
            "arguments": [{"value": a}, {"value": b}],
            "outputType": {"bool": {"nullability": "NULLABILITY_NULLABLE"}},
        }
    }


def _plan(rel: dict) -> dict[str, Any]:
    return {
        "extensionUrns": [{"extensionUrnAnchor": 1, "urn": "extension:io.substrait:functions_comparison"}],
        "extensions": [{"extensionFunction": {"extensionUrnReference": 1, "functionAnchor": 1, "name": "gt:any_any"}}],
        "relations": [{"root": {"input": rel, "names": [c for c, _ in _COLS]}}],
    }


def deep_chain(nodes: int) -> dict:
    """Read, then alternating Filter / Project-with-emit / Sort: ``nodes`` relations in one chain."""
    rel = _read(0)
    for i in range(nodes - 1):
        step = i % 3
        if step == 0:
            rel = {"filter": {"input": rel, "condition": _gt(_ref(3), {"literal": {"fp64": float(i)}})}}
        elif step == 1:
            rel = {
                "project": {"common": {"emit": {"outputMapping": [0, 1, 2, 4]}}, "input": rel, "expressions": [_ref(3)]}
            }
        else:
            rel = {"sort": {"input": rel, "sorts": [{"expr": _ref(0), "direction": "SORT_DIRECTION_ASC_NULLS_LAST"}]}}
    return _plan(rel)


def wide_joins(nodes: int) -> dict:
    """A balanced tree of inner joins over reads, projected back to four columns: about ``nodes`` relations."""
    leaves = max(2, (nodes + 1) // 3)
    level = [_read(i) for i in range(leaves)]
    while len(level) > 1:
        nxt = []
        for a, b in zip(level[0::2], level[1::2]):
            join = {
                "join": {
                    "left": a,
                    "right": b,
                    "type": "JOIN_TYPE_INNER",
                    "expression": _gt(_ref(0), _ref(4)),
                    "common": {"emit": {"outputMapping": [0, 1, 2, 3]}},
                }
            }
            nxt.append({"filter": {"input": join, "condition": _gt(_ref(1), {"literal": {"fp64": 0.0}})}})
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return _plan(level[0])


def wide_union(nodes: int, fanout: int = 64) -> dict:
    """A tree of UNION ALL set relations (up to ``fanout`` inputs each) over Read -> Filter inputs:
    about ``nodes`` relations."""
    branches = max(2, (nodes - 1) // 2)
    level = [
        {"filter": {"input": _read(i), "condition": _gt(_ref(3), {"literal": {"fp64": float(i)}})}}
        for i in range(branches)
    ]
    while len(level) > 1:
        level = [
            {"set": {"inputs": level[i : i + fanout], "op": "SET_OP_UNION_ALL"}}
            if len(level[i : i + fanout]) > 1
            else level[i]
            for i in range(0, len(level), fanout)
        ]
    return _plan(level[0])
