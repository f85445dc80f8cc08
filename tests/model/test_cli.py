"""The command line: python -m viz inspect / render."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.support import CORPORA
from tests.support import ROOT as REPO

TUTORIAL = os.path.join(CORPORA, "spec", "tutorial_final_plan.json")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "viz", *args], cwd=REPO, capture_output=True, text=True, timeout=120)


def test_inspect_json_one_object_per_plan(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "not a plan"}')
    q1 = os.path.join(CORPORA, "isthmus-tpch", "query_01_plan.json")
    out = run("inspect", "--json", TUTORIAL, str(bad), q1)
    assert out.returncode == 2  # one input was not a plan
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [doc["file"] for doc in lines] == [TUTORIAL, str(bad), q1]
    tutorial, error, query = lines
    assert "error" in error and "relations" in error["error"] and "nodes" not in error
    assert tutorial["roots"] == ["0"]
    node = tutorial["nodes"][0]
    assert set(node) >= {"id", "kind", "inputs", "schema", "diagnostics"}
    assert node["id"] == "0" and node["kind"] == "aggregate" and node["inputs"] == ["0.0"]
    # each column names the table columns it comes from (viz.lineage): sales = sum(quantity * price)
    assert node["schema"] == [
        {
            "index": 0,
            "name": "product_name",
            "type": "string?",
            "nullable": True,
            "lineage": {"sources": [{"table": "products", "column": "product_name"}]},
        },
        {
            "index": 1,
            "name": "product_id",
            "type": "i64",
            "nullable": False,
            "lineage": {"sources": [{"table": "orders", "column": "product_id"}]},
        },
        {
            "index": 2,
            "name": "sales",
            "type": "decimal<38,2>?",
            "nullable": True,
            "lineage": {"sources": [{"table": "orders", "column": "quantity"}, {"table": "orders", "column": "price"}]},
        },
    ]
    assert all(set(d) >= {"severity", "code", "message"} for n in query["nodes"] for d in n["diagnostics"])
    assert all(d["node"] == n["id"] for n in query["nodes"] for d in n["diagnostics"] if "node" in d)
    assert [n["kind"] for n in query["nodes"]] == ["sort", "aggregate", "project", "filter", "read"]


def test_inspect_text_and_exit_zero_with_diagnostics():
    datafusion = os.path.join(
        CORPORA, "consumer-testing", "snapshots", "producer", "function", "arithmetic", "abs-datafusion_plan.json"
    )
    out = run("inspect", TUTORIAL, datafusion)
    assert out.returncode == 0, out.stderr
    assert "0 aggregate (root) <- 0.0" in out.stdout
    assert "[0] product_name: string? nullable" in out.stdout
    assert "untyped-base-schema" in out.stdout  # a diagnostic, not a failure
    assert out.stderr == ""


def test_inspect_missing_file_is_a_clear_error():
    out = run("inspect", "/nonexistent/plan.json")
    assert out.returncode == 2
    assert out.stderr.startswith("error: /nonexistent/plan.json: cannot read /nonexistent/plan.json")
    assert out.stdout == ""  # errors on stderr, as render and html give them
    assert "Traceback" not in out.stdout + out.stderr


def test_render_writes_dot(tmp_path):
    target = tmp_path / "plan.dot"
    out = run("render", TUTORIAL, "-o", str(target))
    assert out.returncode == 0, out.stderr
    dot = target.read_text()
    assert dot.startswith("digraph plan {")
    for node_id in ("0", "0.0", "0.0.0", "0.0.1", "0.0.1.0"):
        assert f'"{node_id}" [label=<' in dot
    assert '"0.0" -> "0";' in dot  # data flows from the join up into the aggregate
    assert "product_name" in dot and "[2]" in dot


def test_a_diagnostic_in_json_names_its_node():
    from viz.errors import error

    assert error("c", "m", "0.1").to_json() == {"severity": "error", "code": "c", "message": "m", "node": "0.1"}
    assert "node" not in error("c", "m").to_json()  # the plan as a whole


def test_function_cases_harness_has_help_and_names_a_missing_folder():
    def cases(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "tests.support.function_cases", *args],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )

    usage = cases("--help")
    assert usage.returncode == 0 and "folder of .test files" in usage.stdout
    missing = cases(os.path.join(REPO, "no-such-folder"))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert "expected a folder of .test files" in missing.stderr and "no-such-folder" in missing.stderr
