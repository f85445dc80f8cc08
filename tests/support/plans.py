"""Small builders for hand-made plans in protobuf-JSON form (dicts), for the tests.

Every expected schema in the tests is worked out by hand from the spec's rules; these helpers only
save typing.
"""

from __future__ import annotations

import json
from typing import Any

from viz.model import PlanModel, analyze
from viz.types import type_json

typ = type_json  # "i64" -> required i64, "string?" -> nullable string, "decimal<10,2>?"


def read(table: str, columns: list[tuple[str, str]], **extra: Any) -> dict:
    body = {
        "baseSchema": {
            "names": [c for c, _ in columns],
            "struct": {"types": [typ(t) for _, t in columns], "nullability": "NULLABILITY_REQUIRED"},
        },
        "namedTable": {"names": [table]},
    }
    body.update(extra)
    return {"read": body}


def field(i: int) -> dict:
    return {"selection": {"directReference": {"structField": {"field": i}}, "rootReference": {}}}


def outer_field(i: int, steps: int = 1) -> dict:
    return {"selection": {"directReference": {"structField": {"field": i}}, "outerReference": {"stepsOut": steps}}}


def i64(v: int) -> dict:
    return {"literal": {"i64": str(v)}}


def call(anchor: int, *args: dict, out: str = "boolean?") -> dict:
    return {
        "scalarFunction": {
            "functionReference": anchor,
            "arguments": [{"value": a} for a in args],
            "outputType": typ(out),
        }
    }


def measure(anchor: int, *args: dict, out: str = "i64") -> dict:
    return {
        "measure": {
            "functionReference": anchor,
            "arguments": [{"value": a} for a in args],
            "outputType": typ(out),
            "phase": "AGGREGATION_PHASE_INITIAL_TO_RESULT",
        }
    }


def emit(rel: dict, mapping: list[int]) -> dict:
    """Give a relation (``{"kind": body}``) an emit mapping."""
    ((kind, body),) = rel.items()
    body = dict(body)
    body["common"] = {"emit": {"outputMapping": mapping}}
    return {kind: body}


FUNCTIONS = {
    1: ("equal:any_any", "functions_comparison"),
    2: ("gt:any_any", "functions_comparison"),
    3: ("add:i64_i64", "functions_arithmetic"),
    4: ("sum:i64", "functions_arithmetic"),
    5: ("count:any", "functions_aggregate_generic"),
    6: ("row_number:", "functions_arithmetic"),
}


def plan(*roots: dict | tuple[dict, list[str]], functions: dict | None = None) -> dict:
    """A plan from relations; a ``(rel, names)`` tuple becomes a RelRoot, a bare rel a PlanRel.rel."""
    functions = FUNCTIONS if functions is None else functions
    stems = sorted({stem for _, stem in functions.values()})
    relations = []
    for r in roots:
        if isinstance(r, tuple):
            relations.append({"root": {"input": r[0], "names": r[1]}})
        else:
            relations.append({"rel": r})
    return {
        "version": {"minorNumber": 80, "producer": "tests"},
        "extensionUrns": [
            {"extensionUrnAnchor": i + 1, "urn": f"extension:io.substrait:{s}"} for i, s in enumerate(stems)
        ],
        "extensions": [
            {"extensionFunction": {"extensionUrnReference": stems.index(stem) + 1, "functionAnchor": a, "name": name}}
            for a, (name, stem) in functions.items()
        ],
        "relations": relations,
    }


def model_of(doc: dict) -> PlanModel:
    return analyze(json.dumps(doc).encode())


def schema_of(model: PlanModel, node_id: str) -> list[tuple[str, str]] | None:
    """``[(name, type), ...]`` of a node, types in the spec's syntax."""
    s = model.node(node_id).schema
    return None if s is None else [(f.name, f.type_text()) for f in s]


def codes(model: PlanModel, node_id: str | None = None) -> list[str]:
    if node_id is None:
        return [d.code for d in model.all_diagnostics()]
    return [d.code for d in model.node(node_id).diagnostics]


ORDERS = [("o_id", "i64"), ("o_cust", "i64?"), ("o_total", "decimal<10,2>?")]
CUSTOMERS = [("c_id", "i64"), ("c_name", "string")]


def year_months(*values: tuple[int, int] | None) -> dict:
    """A ReadRel of a virtual table of one column ``i`` of year-month intervals: (years, months) or None each."""
    null = {"null": {"intervalYear": {"nullability": "NULLABILITY_NULLABLE"}}}
    return {
        "read": {
            "baseSchema": {
                "names": ["i"],
                "struct": {"types": [{"intervalYear": {"nullability": "NULLABILITY_NULLABLE"}}]},
            },
            "virtualTable": {
                "expressions": [
                    {
                        "fields": [
                            {"literal": null if v is None else {"intervalYearToMonth": {"years": v[0], "months": v[1]}}}
                        ]
                    }
                    for v in values
                ]
            },
        }
    }
