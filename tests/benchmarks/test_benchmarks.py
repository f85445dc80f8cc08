"""The benchmark orchestrator and report, from small hand-made results (no Spark, no browser)."""

from __future__ import annotations

import json
import sys
import types

import pytest

from benchmarks import __main__ as bench
from benchmarks import report

MACHINE = {
    "cpu": "Test CPU @ 1.00GHz",
    "cores": 2,
    "memory_gib": 8.0,
    "os": "Linux-test",
    "python": "3.11.7",
    "java": 'openjdk version "17.0.15"',
    "pyspark": "4.0.0",
    "streamlit": "1.67.0",
    "date": "2026-01-02T03:04:05+00:00",
    "load_average": [0.5, 0.4, 0.3],
}


def _open_row(
    shape: str, nodes: int, ours_s: float, baseline_s: float | None = None, estimate_s: float | None = None
) -> dict:
    row = {
        "shape": shape,
        "nodes": nodes,
        "bytes": nodes * 100,
        "ours_s": ours_s,
        "phases": {"load": ours_s / 2, "dot": ours_s / 2},
        "us_per_node": round(ours_s / nodes * 1e6, 1),
        "baseline_s": baseline_s,
        "ratio": ours_s / baseline_s if baseline_s else None,
        "baseline_note": None,
        "ok_10k_under_2s": (ours_s < 2) if nodes == 10_000 else None,
    }
    if estimate_s is not None:
        row["baseline_estimate_s"] = estimate_s
        row["baseline_note"] = "> 60 s budget"
    return row


OPEN = {
    "rows": [
        _open_row("deep chain", 1_000, 0.1, estimate_s=30.0),
        _open_row("deep chain", 10_000, 1.2, estimate_s=3000.0),
        _open_row("deep chain", 50_000, 6.0, estimate_s=75000.0),  # 100 -> 120 µs/node: ×1.2, flat
        _open_row("wide joins", 1_000, 0.1, baseline_s=0.5),
        _open_row("wide joins", 10_000, 2.5, baseline_s=6.0),  # 10k over 2 s
        _open_row("wide joins", 50_000, 20.0, baseline_s=40.0),  # 100 -> 400 µs/node: ×4, not flat
        {**_open_row("corpus", 300, 0.05, baseline_s=0.2), "source": "isthmus-tpch/query_21_plan.json"},
    ],
    "summary": {},
}

SPARK = {
    "scale": 1,
    "repeat": 3,
    "translation": {
        "queries": [
            {
                "query": "q01",
                "executor_s": 2.0,
                "sql_s": 2.0,
                "ratio": 1.0,
                "kept_ratio": 1.0,
                "translate_s": 0.01,
                "same_optimized_plan": True,
                "same_physical_operators": True,
            },
            {
                "query": "q02",
                "executor_s": 2.6,
                "sql_s": 2.0,
                "ratio": 1.3,
                "kept_ratio": 1.1,
                "translate_s": 0.02,
                "same_optimized_plan": False,
                "same_physical_operators": False,
            },
            {
                "query": "q03",
                "executor_s": 1.0,
                "sql_s": 1.0,
                "ratio": 1.0,
                "kept_ratio": 1.05,
                "translate_s": 0.01,
                "same_optimized_plan": True,
                "same_physical_operators": True,
            },
            {"query": "q04", "error": "AnalysisException: boom"},
        ],
        "summary": {"plans_differ": ["q02"], "plans_differ_in_operators": ["q02"]},
    },
    "sampling": {
        "target_s": 1.0,
        "nodes": [
            {"node": "read lineitem", "kind": "read", "limit_pushable": True, "sample_s": 0.3, "whole_s": 5.0},
            {"node": "filter", "kind": "filter", "limit_pushable": True, "sample_s": 1.4, "whole_s": 6.0},
            {"node": "aggregate", "kind": "aggregate", "limit_pushable": False, "sample_s": 4.0, "whole_s": 4.1},
        ],
    },
}

PROFILE = {
    "scale": 1,
    "median_speedup": 3.0,
    "tpcds_scale": 0.1,
    "target_s": 60.0,
    "tpch": [
        {
            "query": "q03",
            "nodes": 10,
            "one_run_s": 1.0,
            "one_run_jobs": 2,
            "per_node_s": 3.0,
            "per_node_jobs": 8,
            "cross_products_left_out": 2,
            "speedup": 3.0,
            "same_counts": True,
        },
        {"query": "q05", "error": "SqlError: no"},
    ],
    "tpcds": [
        {"query": "64", "nodes": 92, "one_run_s": 45.0, "one_run_jobs": 3},
        {"query": "72", "nodes": 26, "one_run_s": 61.0, "one_run_jobs": 2},
    ],
}

APP = {
    "reloads": 5,
    "reading_s": 20.0,
    "floor": {
        "plan": "bare Streamlit page",
        "cold_s": 1.4,
        "warm_s": 0.7,
        "kept_s": 0.55,
        "warm_wall_s": 0.8,
        "warm_cpu_s": 0.5,
    },
    "targets": {"tutorial_warm_s": 1.0, "warm_100_s": 1.5, "warm_500_s": 2.5, "click_500_s": 0.3, "first_run_s": 2.0},
    "plans": [
        {
            "plan": "tutorial (viewer)",
            "layout": "viewer",
            "nodes": 5,
            "cold_s": 3.0,
            "warm_s": 0.9,
            "kept_s": 1.1,
            "warm_wall_s": 1.3,
            "warm_cpu_s": 0.75,
            "warm_content_s": 0.5,
            "click_s": 0.2,
            "memory_before_run": {"app": {"peak_mib": 190.0}, "children": []},
        },
        {
            "plan": "97 nodes (viewer)",
            "layout": "viewer",
            "nodes": 97,
            "warm_s": 1.6,
            "click_s": 0.2,
            "memory_before_run": {"app": {"peak_mib": 210.0}, "children": []},
        },
        {
            "plan": "499 nodes (viewer)",
            "layout": "viewer",
            "nodes": 499,
            "cold_s": 9.0,
            "warm_s": 2.0,
            "click_s": 0.25,
            "memory_before_run": {"app": {"peak_mib": 230.0}, "children": []},
        },
        {
            "plan": "tutorial (baseline)",
            "layout": "baseline",
            "nodes": 5,
            "warm_s": 4.0,
            "click_s": 0.3,
            "memory_before_run": {"app": {"peak_mib": 190.0}, "children": []},
        },
        {
            "plan": "499 nodes (baseline)",
            "layout": "baseline",
            "nodes": 499,
            "warm_s": 6.5,
            "click_s": 1.1,
            "memory_before_run": {"app": {"peak_mib": 230.0}, "children": []},
        },
    ],
    "first_run_s": 1.5,
    "warm_run_s": 0.8,
    "spark_warm_before_run": True,
    "click_while_spark_starts_s": 0.7,
    "first_run": {
        "plan": "tutorial, first Run (viewer)",
        "first_run_s": 1.5,
        "memory_after_run": {"app": {"peak_mib": 200.0}, "children": [{"name": "java", "peak_mib": 555.0}]},
    },
}


LOAD = {
    "sessions": 10,
    "one_after_another": {
        "mode": "one after another",
        "median_s": 0.6,
        "slowest_s": 1.9,
        "sum_s": 6.0,
        "wall_s": 6.5,
        "cpu_s": {"server": 0.4, "jvm": 7.0, "browser": 5.0},
        "download_failures": {},
        "errors": {},
    },
    "at_once": {
        "mode": "at once",
        "median_s": 2.9,
        "slowest_s": 6.2,
        "sum_s": 33.0,
        "wall_s": 7.5,
        "cpu_s": {"server": 0.5, "jvm": 6.0, "browser": 5.5},
        "download_failures": {"q05": "canceled"},
        "errors": {},
        "rows_differ": [],
    },
    "all_right": False,
}


HEAP = {
    "query": "TPC-DS q35, DataFusion 55, analyzed, scale 0.01",
    "settings": [
        {"name": "spark", "page_size": "Spark's default", "runs": 10, "failed": 10, "median_s": None},
        {"name": "ours", "page_size": "1m", "runs": 10, "failed": 0, "median_s": 2.5},
    ],
}


def _write(folder, **results) -> None:
    for name, res in results.items():
        record = {"name": name, "quick": False, "machine": MACHINE}
        record.update(res if "error" in res else {"results": res})
        (folder / f"{name}.json").write_text(json.dumps(record))


def _lines_with(text: str, needle: str) -> list[str]:
    return [line for line in text.splitlines() if needle in line]


def _build(tmp_path) -> tuple[str, bytes]:
    md, png = report.build(str(tmp_path), png_path=str(tmp_path / "plot.png"))
    with open(png, "rb") as fh:
        image = fh.read()
    with open(md, encoding="utf-8") as fh:
        return fh.read(), image


def test_the_report_has_every_figure_against_its_target(tmp_path):
    _write(tmp_path, open=OPEN, spark=SPARK, app=APP, profile=PROFILE, load=LOAD, heap=HEAP)
    text, image = _build(tmp_path)
    assert image.startswith(b"\x89PNG") and len(image) > 20_000  # four drawn panels
    assert "Test CPU @ 1.00GHz · 2 cores · 8.0 GiB RAM" in text and "PySpark 4.0.0" in text
    assert "Not run" not in text and "not run" not in text
    # each section says where and when its figures were measured (one report can mix runs)
    assert text.count("Measured on Test CPU @ 1.00GHz, 2 cores, 2026-01-02 (load average 0.5).") == 7

    # opening a plan: 10k under 2 s for the chain (1.2 s), not for the joins (2.5 s); flat growth likewise
    ten_k = _lines_with(text, "10,000 nodes ready in under 2 s")
    assert ten_k == [
        "| 10,000 nodes ready in under 2 s | deep chain | 1.200 s | met |",
        "| 10,000 nodes ready in under 2 s | wide joins | 2.500 s | **not met** |",
    ]
    flat = _lines_with(text, "time per node flat")
    assert "120.0 µs/node" in flat[0] and "×1.20" in flat[0] and flat[0].endswith("| met |")
    assert "×4.00" in flat[1] and flat[1].endswith("**not met** |")
    # baseline: 0.5 s vs ours 0.1 s is 5× for 1k joins; the chain's is an extrapolation
    assert any("| wide joins | 1,000 | 0.100 |" in line and "| 0.500 | 5.0× |" in line for line in text.splitlines())
    assert any("> budget (~3,000)" in line and "~2,500.0×" in line for line in text.splitlines())
    assert "`isthmus-tpch/query_21_plan.json`" in text

    # spark: ratios 1.0, 1.3, 1.0 -> median 1.0 (met), max 1.3 (not met); the failed query is listed
    assert _lines_with(text, "median ratio ≤ 1.05") == [
        "| translated on every run: median ratio ≤ 1.05 | 1.000 | met |",
        "| translation kept: median ratio ≤ 1.05 | 1.050 | met |",
    ]
    assert _lines_with(text, "no query above 1.25") == [
        "| translated on every run: no query above 1.25 | max 1.300 | **not met** |",
        "| translation kept: no query above 1.25 | max 1.100 | met |",
    ]
    assert any(line.startswith("| q04 | error |") and "AnalysisException" in line for line in text.splitlines())
    (error_row,) = _lines_with(text, "| q04 | error |")
    assert error_row.count("|") == _lines_with(text, "| q01 |")[0].count("|")  # as many cells as the others
    assert "Plan texts differ for q02" in text
    # q02's operators differ from spark.sql's; q01's are the same
    assert _lines_with(text, "| q02 |")[0].endswith("| **differ** |")
    assert _lines_with(text, "| q01 |")[0].endswith("| same |")
    assert "Physical operators differ for q02." in text

    # sampling: read 0.3 s met, filter 1.4 s not met, aggregate has no pushable limit
    assert _lines_with(text, "| read lineitem |")[0].endswith("| met |")
    assert _lines_with(text, "| filter |")[0].endswith("| **not met** |")
    assert "n/a (no limit can be pushed)" in _lines_with(text, "| aggregate |")[0]

    # app: each viewer figure against its target, beside its baseline (same node count)
    # beside a bare Streamlit page timed in the same run (the floor), with the main thread's busy time
    # (in an incognito context and, where measured, in a kept profile)
    assert _lines_with(text, "tutorial (viewer): graph drawn (warm, incognito) ≤ 1 s")[0].endswith(
        "| 0.90 (baseline 4.00; a bare Streamlit page 0.70) | met |"
    )
    assert _lines_with(text, "tutorial (viewer): graph drawn (warm, kept profile) ≤ 1 s")[0].endswith(
        "| 1.10 (a bare Streamlit page 0.55) | **not met** |"
    )
    assert _lines_with(text, "97 nodes (viewer): graph drawn (warm, incognito) ≤ 1.5 s")[0].endswith(
        "| 1.60 (a bare Streamlit page 0.70) | **not met** |"
    )
    assert not _lines_with(text, "97 nodes (viewer): graph drawn (warm, kept profile)"), "not measured: no line"
    assert _lines_with(text, "499 nodes (viewer): graph drawn (warm, incognito) ≤ 2.5 s")[0].endswith(
        "| 2.00 (baseline 6.50; a bare Streamlit page 0.70) | met |"
    )
    assert "| bare Streamlit page (floor) |  | 1.40 | 0.70 | 0.55 | 0.80 | 0.50 |" in text
    assert "| tutorial (viewer) | 5 | 3.00 | 0.90 | 1.10 | 1.30 | 0.75 | 0.50 |" in text
    assert _lines_with(text, "499 nodes (viewer): node click to inspector ≤ 0.3 s")[0].endswith(
        "| 0.25 (baseline 1.10) | met |"
    )
    assert _lines_with(text, "first Run after opening the plan")[0].endswith("| 1.50 | met |")
    assert "its JVM was up" in text and "The first Run took 1.50 s" in text and "555 MiB" in text
    assert "while the JVM started, showed in 0.70 s" in text

    # profiling: q03 3× with the same counts; TPC-DS 64 under a minute, 72 over
    assert _lines_with(text, "| q03 | 10 |") == ["| q03 | 10 | 1.00 | 2 | 3.00 | 8 | 2 | 3.00 | same |"]
    assert _lines_with(text, "| q05 |")[0].startswith("| q05 |  | error |") and "Median speed-up: 3.00×." in text
    assert _lines_with(text, "| 64 | 92 |") == ["| 64 | 92 | 45.0 | 3 |  | met |"]
    assert _lines_with(text, "| 72 | 26 |")[0].endswith("| **not met** |")

    # many people at once: the median 2.9 s against half of 6.0 s (met), the slowest 6.2 s against 6.0 s
    # (not met), and a download that failed
    assert _lines_with(text, "| at once | ") == [
        "| at once | 2.90 | 6.20 | 33.00 | 7.50 | 0.50 / 6.00 / 5.50 | 1 | 0 |"
    ]
    assert _lines_with(text, "at once: median ≤ half of one after another (3.00 s)")[0].endswith("| 2.90 | met |")
    assert _lines_with(text, "at once: slowest ≤ all of one after another (6.00 s)")[0].endswith(
        "| 6.20 | **not met** |"
    )
    assert _lines_with(text, "every download at the first click")[0].endswith("| **not met** |")

    # broadcasts in a small heap: every run of Spark's settings failed, none of ours
    assert _lines_with(text, "| spark |") == ["| spark | Spark's default | 10 | 10 | n/a |"]
    assert _lines_with(text, "| ours |") == ["| ours | 1m | 10 | 0 | 2.50 |"]
    assert _lines_with(text, "every run with the session's settings")[0].endswith("| 0 failed | met |")


def test_missing_and_failed_benchmarks_say_so_and_the_rest_still_shows(tmp_path):
    _write(tmp_path, app=APP, spark={"error": "ModuleNotFoundError: No module named 'benchmarks.spark'"})
    text, image = _build(tmp_path)
    assert image.startswith(b"\x89PNG")
    sections = text.split("\n## ")
    opening = next(s for s in sections if s.startswith("1. Opening a plan"))
    assert "Not run." in opening
    spark = next(s for s in sections if s.startswith("2. Translation overhead"))
    assert "Failed: `ModuleNotFoundError: No module named 'benchmarks.spark'`" in spark
    assert "| tutorial (viewer) | 5 | 3.00 | 0.90 | 1.10 | 1.30 | 0.75 | 0.50 | n/a | 0.20 | 190 |" in text


def test_no_results_at_all_gives_a_report_of_not_run_panels(tmp_path):
    text, image = _build(tmp_path)
    assert image.startswith(b"\x89PNG")
    assert text.count("Not run.") == 7 and "Machine: not recorded." in text


def test_missing_keys_and_a_bad_file_do_not_stop_the_report(tmp_path):
    _write(
        tmp_path,
        open={"rows": [{"shape": "deep chain"}, {"nodes": 10}, "junk"]},
        spark={"translation": {"queries": [{"query": "q01"}]}, "sampling": {"nodes": [{}]}},
        app={"plans": [{"plan": "tutorial"}, {}]},
        load={"one_after_another": "junk", "at_once": {"mode": "at once"}},
        heap={"settings": ["junk", {"name": "ours"}]},
    )
    text, image = _build(tmp_path)
    assert image.startswith(b"\x89PNG")
    assert "| q01 | n/a | n/a | n/a | n/a | n/a |" in text
    assert "| at once | n/a | n/a | n/a | n/a | n/a / n/a / n/a | 0 | 0 |" in text
    assert "| ours | ? | ? | ? | n/a |" in text
    (tmp_path / "app.json").write_text("{not json")
    text, _ = _build(tmp_path)
    assert "app.json could not be read" in text


# ---- the orchestrator ------------------------------------------------------------------------------


def test_arguments_default_to_all_of_them_full():
    args = bench.parse_args([])
    assert args.names == ["open", "spark", "app", "profile", "load", "engines", "heap"] and args.quick is False


def test_arguments_pick_benchmarks_in_order_and_quick():
    args = bench.parse_args(["app", "open", "app", "--quick"])
    assert args.names == ["app", "open"] and args.quick is True


def test_an_unknown_benchmark_is_an_error_that_names_the_choices(capsys):
    with pytest.raises(SystemExit) as exc:
        bench.parse_args(["opne"])
    assert exc.value.code == 2
    assert "unknown benchmark 'opne': expected some of open, spark, app, profile" in capsys.readouterr().err


def test_machine_block_has_cpu_cores_memory_and_versions():
    m = bench.machine()
    assert m["cores"] >= 1 and m["python"] == ".".join(map(str, sys.version_info[:3]))
    assert m["memory_gib"] > 0 and m["streamlit"] and m["pyspark"] and m["date"]


def test_a_missing_or_failing_benchmark_is_recorded_and_the_others_run(tmp_path, monkeypatch):
    ok = types.ModuleType("benchmarks._fake_ok")
    ok.run = lambda quick=False: {
        "plans": [{"plan": "tutorial", "nodes": 5, "cold_s": 1.0, "warm_s": 0.5}],
        "quick_was": quick,
    }
    bad = types.ModuleType("benchmarks._fake_bad")

    def boom(quick=False):
        raise RuntimeError("no data")

    bad.run = boom
    monkeypatch.setitem(sys.modules, "benchmarks._fake_ok", ok)
    monkeypatch.setitem(sys.modules, "benchmarks._fake_bad", bad)
    monkeypatch.setattr(bench, "BENCHMARKS", {"open": "_no_such_module", "spark": "_fake_bad", "app": "_fake_ok"})
    status = bench.main(["--quick"], results_dir=str(tmp_path), png_path=str(tmp_path / "plot.png"))
    assert status == 1
    records = {n: json.loads((tmp_path / f"{n}.json").read_text()) for n in ("open", "spark", "app")}
    assert "No module named 'benchmarks._no_such_module'" in records["open"]["error"]
    assert records["spark"]["error"] == "RuntimeError: no data" and "boom" in records["spark"]["traceback"]
    assert records["app"]["results"]["quick_was"] is True and records["app"]["quick"] is True
    assert all(r["machine"]["cores"] >= 1 for r in records.values())
    text = (tmp_path / "REPORT.md").read_text()
    assert "| tutorial | 5 | 1.00 | 0.50 |" in text and "Failed: `RuntimeError: no data`" in text
    assert (tmp_path / "plot.png").read_bytes().startswith(b"\x89PNG")


def test_short_queries_get_pairs_enough_to_fill_the_timed_budget():
    from benchmarks.spark import short_pairs

    assert short_pairs(0.1, 5) == 40  # 60 pairs would fill 6 s: capped at 8 x 5
    assert short_pairs(0.2, 5) == 30  # 6 s of 0.2 s runs
    assert short_pairs(0.5, 5) == 15  # at least 3 x 5
    assert short_pairs(1.5, 3) == 9  # scale 1: 3 x 3
    assert short_pairs(3.0, 3) == 3  # a long query: repeat only
