"""Every call checked against the extension YAMLs' signatures: a call no signature takes carries a
diagnostic on its node that names the call, its argument types and the coercion the run applies (the
plan's producer's, or Spark's when the producer's are unknown, said as such), and the run's notes name
the coercion; a declared output type that the YAML's derivation contradicts is said too.

The planted plans compare a ``decimal<15,2>`` column holding 0.05, 0.07 and 0.08 with ``0.06 + 0.01``
computed in double (0.06999999999999999, as in TPC-H q06's plan as DataFusion writes it). The rows
expected are worked out by hand: DataFusion compares a decimal with a double as decimals (the double
rounded to 15 places is 0.070000000000000), so 0.05 and 0.07 pass; Spark compares them as doubles, and
0.07 as a double (0.07000000000000000666) is above 0.06999999999999999, so only 0.05 passes.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from decimal import Decimal

import pytest
from streamlit.testing.v1 import AppTest

from tests.support import ROOT
from tests.support import plans as P

FUNCTIONS = {
    1: ("lte", "functions_comparison"),
    2: ("add", "functions_arithmetic"),
    3: ("multiply", "functions_arithmetic_decimal"),
}


def dec(text: str, precision: int = 15, scale: int = 2) -> dict:
    unscaled = int(Decimal(text).scaleb(scale))
    raw = unscaled.to_bytes(16, "little", signed=True)
    return {"decimal": {"value": base64.b64encode(raw).decode(), "precision": precision, "scale": scale}}


def fp64(v: float) -> dict:
    return {"literal": {"fp64": v}}


def values(*texts: str) -> dict:
    return {
        "read": {
            "baseSchema": {
                "names": ["d"],
                "struct": {"types": [P.typ("decimal<15,2>")], "nullability": "NULLABILITY_REQUIRED"},
            },
            "virtualTable": {"expressions": [{"fields": [{"literal": dec(t)}]} for t in texts]},
        }
    }


def planted(producer: str) -> dict:
    """``SELECT d FROM (VALUES 0.05, 0.07, 0.08) WHERE d <= 0.06 + 0.01`` as written: ``lte(decimal, fp64)``."""
    bound = P.call(2, fp64(0.06), fp64(0.01), out="fp64")
    rel = {
        "filter": {"input": values("0.05", "0.07", "0.08"), "condition": P.call(1, P.field(0), bound, out="boolean")}
    }
    doc = P.plan((rel, ["d"]), functions=FUNCTIONS)
    doc["version"] = {"minorNumber": 85, "producer": producer}
    return doc


def _mismatch(model):
    return [d for d in model.node("0").diagnostics if d.code == "no-matching-signature"]


def test_a_call_no_signature_takes_says_so_on_its_node_with_its_producers_coercion():
    model = P.model_of(planted("datafusion"))
    [d] = _mismatch(model)
    assert d.severity.value == "warning" and d.node == "0"
    assert "lte" in d.message and "(decimal<15,2>, fp64)" in d.message
    assert "DataFusion" in d.message and "decimal<30,15>" in d.message  # the coercion the run applies


def test_an_unknown_producers_call_says_the_spec_allows_no_coercion_and_what_the_run_does():
    model = P.model_of(planted("some-engine"))
    [d] = _mismatch(model)
    assert "(decimal<15,2>, fp64)" in d.message
    assert "spec allows no implicit coercion" in d.message and "Spark" in d.message


def test_a_declared_output_type_the_yaml_contradicts_is_said():
    # multiply(decimal<10,2>, decimal<10,2>) is decimal<21,4> by functions_arithmetic_decimal.yaml
    # (precision P1 + P2 + 1, scale S1 + S2); the plan declares decimal<38,2>.
    columns = [("a", "decimal<10,2>"), ("b", "decimal<10,2>")]
    rel = {
        "project": {
            "input": P.read("t", columns),
            "expressions": [P.call(3, P.field(0), P.field(1), out="decimal<38,2>")],
        }
    }
    model = P.model_of(P.plan((rel, ["a", "b", "p"]), functions=FUNCTIONS))
    [d] = [d for d in model.node("0").diagnostics if d.code == "output-type-conflict"]
    assert "decimal<38,2>" in d.message and "decimal<21,4>" in d.message
    assert [f.type_text() for f in model.node("0").schema][-1] == "decimal<38,2>"  # the plan's word is used


def test_calls_that_match_a_signature_say_nothing():
    bound = {"literal": {"decimal": dec("0.07")["decimal"]}}
    rel = {"filter": {"input": values("0.05"), "condition": P.call(1, P.field(0), bound, out="boolean")}}
    model = P.model_of(P.plan((rel, ["d"]), functions=FUNCTIONS))
    assert P.codes(model) == []


def test_viz_inspect_prints_the_diagnostic(tmp_path):
    path = tmp_path / "planted.json"
    path.write_text(json.dumps(planted("datafusion")))
    out = subprocess.run(
        [sys.executable, "-m", "viz", "inspect", "--json", str(path)], capture_output=True, text=True, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    [doc] = [json.loads(line) for line in out.stdout.splitlines()]
    [node] = [n for n in doc["nodes"] if n["id"] == "0"]
    [d] = [d for d in node["diagnostics"] if d["code"] == "no-matching-signature"]
    assert "lte" in d["message"] and "decimal<30,15>" in d["message"]


def test_the_app_shows_the_diagnostic_on_its_node():
    at = AppTest.from_file(os.path.join(ROOT, "app.py"), default_timeout=60).run()
    at.sidebar.file_uploader[0].set_value(
        ("planted.json", json.dumps(planted("datafusion")).encode(), "application/json")
    ).run()
    labels = [b.label.replace("\\", "") for b in at.button if b.key and b.key.startswith("diag-")]  # shown as written
    assert any(label.startswith("warning 0") and "lte" in label and "decimal<30,15>" in label for label in labels), (
        labels
    )


@pytest.mark.parametrize(
    ("producer", "expected", "rule"),
    [("datafusion", [Decimal("0.05"), Decimal("0.07")], "decimal<30,15>"), ("some-engine", [Decimal("0.05")], "fp64")],
)
def test_the_run_applies_the_coercion_its_node_names(spark, producer, expected, rule):
    from executor.data.catalog import Catalog
    from executor.jobs.run import run_node

    model = P.model_of(planted(producer))
    result = run_node(model, "0", catalog=Catalog([]), limit=10, timeout_s=120, explain=False)
    assert sorted(next(iter(row.values())) for row in result.arrow.to_pylist()) == expected
    if producer == "datafusion":
        assert any("lte(decimal<15,2>, fp64)" in w and rule in w for w in result.warnings), result.warnings


def test_a_function_no_yaml_defines_says_its_arguments_cannot_be_checked():
    """A producer's own extension's function is a note; one the plan declares in a spec YAML that has no
    such function (misspelt, or of a newer spec) is a warning: a user check found it buried among the notes."""
    functions = {**FUNCTIONS, 4: ("frobnicate", "acme_extras")}
    rel = {"filter": {"input": values("0.05"), "condition": P.call(4, P.field(0), out="boolean")}}
    model = P.model_of(P.plan((rel, ["d"]), functions=functions))
    [d] = [d for d in model.node("0").diagnostics if d.code == "no-signature"]
    assert d.severity.value == "info" and "frobnicate" in d.message and "cannot be checked" in d.message
    functions = {**FUNCTIONS, 4: ("frobnicate", "functions_comparison")}
    model = P.model_of(P.plan((rel, ["d"]), functions=functions))
    [d] = [d for d in model.node("0").diagnostics if d.code == "undefined-function"]
    assert d.severity.value == "warning", d
    assert d.message.startswith(
        "scalar function frobnicate(d): the plan declares frobnicate in the spec's extensions "
        "(extension:io.substrait:functions_comparison), but no extension YAML defines a function 'frobnicate'"
    ), d.message
