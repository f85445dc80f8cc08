"""The benchmark report: ``benchmarks/results/REPORT.md`` (tables, each figure against its target)
and ``docs/benchmarks.png`` (one figure, four panels), from whichever results files are present.

``python -m benchmarks.report`` rebuilds both from the results already in ``benchmarks/results/``.
Every field is read defensively: a missing benchmark, a failed one, or a missing key shows as
"not run" / "n/a" rather than stopping the report.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
REPORT_MD = os.path.join(RESULTS, "REPORT.md")
PLOT_PNG = os.path.join(os.path.dirname(HERE), "docs", "benchmarks.png")
NAMES = ("open", "spark", "app", "profile", "load", "heap")

#: Targets (the issue's; the app's own figures are read from its results when present).
TARGET_10K_S = 2.0
#: "Time per node flat": µs per node at the largest size at most this many times that at 1,000 nodes.
FLAT_GROWTH = 1.5
TARGET_MEDIAN, TARGET_MAX = 1.05, 1.25
TARGET_SAMPLE_S = 1.0
APP_TARGETS = {"tutorial_warm_s": 1.0, "warm_100_s": 1.5, "warm_500_s": 2.5, "click_500_s": 0.3, "first_run_s": 2.0}


# ---- reading ---------------------------------------------------------------------------------------


def load(results_dir: str = RESULTS) -> dict[str, dict]:
    """``{name: record}`` for each ``<name>.json`` present; an unreadable file becomes ``{"error": ...}``."""
    out: dict[str, dict] = {}
    for name in NAMES:
        path = os.path.join(results_dir, f"{name}.json")
        if not os.path.exists(path):
            continue
        try:
            with open(path, encoding="utf-8") as fh:
                record = json.load(fh)
            out[name] = record if isinstance(record, dict) else {"error": f"{path} holds no JSON object"}
        except (OSError, ValueError) as exc:
            out[name] = {"error": f"{path} could not be read: {exc}"}
    return out


def _get(d: Any, *path: Any, default: Any = None) -> Any:
    """``d[p0][p1]...`` or ``default`` where any step is missing or of the wrong type."""
    for p in path:
        if isinstance(d, dict) and p in d:
            d = d[p]
        elif isinstance(d, list) and isinstance(p, int) and -len(d) <= p < len(d):
            d = d[p]
        else:
            return default
        if d is None:
            return default
    return d


def _num(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def _results(records: dict, name: str) -> dict | None:
    """The ``results`` of a benchmark that ran, else None."""
    r = _get(records, name, "results")
    return r if isinstance(r, dict) else None


# ---- formatting ------------------------------------------------------------------------------------


def _s(x: Any, digits: int = 3) -> str:
    v = _num(x)
    return "n/a" if v is None else f"{v:.{digits}f}"


def _met(ok: bool | None) -> str:
    return "n/a" if ok is None else ("met" if ok else "**not met**")


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return lines


def machine_line(records: dict) -> str:
    """One line saying what the figures were measured on (from the first record with a machine block)."""
    m = next((r["machine"] for r in records.values() if isinstance(r.get("machine"), dict)), None)
    if not m:
        return "Machine: not recorded."
    parts = [
        m.get("cpu") or "unknown CPU",
        f"{m['cores']} cores" if m.get("cores") else None,
        f"{m['memory_gib']} GiB RAM" if m.get("memory_gib") else None,
        m.get("os"),
        f"Python {m['python']}" if m.get("python") else None,
        m.get("java"),
        f"PySpark {m['pyspark']}" if m.get("pyspark") else None,
        f"Streamlit {m['streamlit']}" if m.get("streamlit") else None,
        f"load average {m['load_average'][0]}" if m.get("load_average") else None,
        m.get("date"),
    ]
    return "Machine: " + " · ".join(str(p) for p in parts if p) + "."


def _checks(checks: list[tuple[str, str, bool | None]]) -> list[str]:
    """A table of (target, figure, met) rows, after a blank line."""
    return ["", "| target | figure | |", "|---|---|---|"] + [f"| {t} | {f} | {_met(ok)} |" for t, f, ok in checks]


def _machine_short(records: dict) -> str:
    """The plot's title: CPU, cores, memory and date."""
    m = next((r["machine"] for r in records.values() if isinstance(r.get("machine"), dict)), None)
    if not m:
        return "Benchmarks (machine not recorded)"
    parts = [
        m.get("cpu"),
        f"{m['cores']} cores" if m.get("cores") else None,
        f"{m['memory_gib']} GiB" if m.get("memory_gib") else None,
        (m.get("date") or "")[:10] or None,
    ]
    return "Benchmarks on " + ", ".join(str(p) for p in parts if p)


def _status(records: dict, name: str) -> str | None:
    """A line for a benchmark that did not produce results (not run, or failed), else None."""
    if name not in records:
        return "Not run."
    if "error" in records[name]:
        return f"Failed: `{records[name]['error']}`"
    if _results(records, name) is None:
        return "No results recorded."
    return None


def _quick(records: dict, name: str) -> str:
    return " (quick mode: small sizes, not the reference figures)" if _get(records, name, "quick") else ""


def _measured_on(record: dict) -> str | None:
    """``Measured on <CPU>, <cores> cores, <date> (load average <x>).``: the benchmarks of one report
    can come from different runs, and the machine under them moves every figure (a bare Streamlit
    page took 0.7 s in one session of this workplace and 1.2 s in the next, on the same CPU model)."""
    m = record.get("machine") if isinstance(record, dict) else None
    if not isinstance(m, dict):
        return None
    parts = [m.get("cpu"), f"{m['cores']} cores" if m.get("cores") else None, (m.get("date") or "")[:10] or None]
    load = f" (load average {m['load_average'][0]})" if m.get("load_average") else ""
    return "Measured on " + ", ".join(str(p) for p in parts if p) + load + "."


def _section(records: dict, name: str, title: str) -> tuple[list[str], dict | None]:
    """A section's heading, the machine and day its figures come from, and benchmark ``name``'s
    results; None (with the reason in the lines) when it did not produce any."""
    lines = [title + _quick(records, name), ""]
    status = _status(records, name)
    if status:
        return lines + [status, ""], None
    measured = _measured_on(records[name])
    return lines + ([measured, ""] if measured else []), _results(records, name)


# ---- sections --------------------------------------------------------------------------------------


def _open_checks(res: dict) -> tuple[dict[str, dict], list[int]]:
    """Per shape: µs/node at 1,000 and at the largest size, their growth, and the 10,000-node time."""
    rows = [r for r in _get(res, "rows", default=[]) if isinstance(r, dict)]
    sizes = sorted({int(r["nodes"]) for r in rows if _num(r.get("nodes")) and r.get("shape") != "corpus"})
    out: dict[str, dict] = {}
    for shape in dict.fromkeys(r.get("shape") for r in rows if r.get("shape") not in (None, "corpus")):
        mine = sorted((r for r in rows if r.get("shape") == shape and _num(r.get("nodes"))), key=lambda r: r["nodes"])
        if not mine:
            continue
        near = lambda n: min(mine, key=lambda r: abs(r["nodes"] - n))  # noqa: E731, B023 - only called in this iteration
        small, large = near(1_000), mine[-1]
        a, b = _num(small.get("us_per_node")), _num(large.get("us_per_node"))
        growth = b / a if a and b and large is not small else None
        ten = near(10_000) if abs(near(10_000)["nodes"] - 10_000) <= 1_000 else None
        out[shape] = {
            "small_nodes": small["nodes"],
            "large_nodes": large["nodes"],
            "us_small": a,
            "us_large": b,
            "growth": growth,
            "flat": None if growth is None else growth <= FLAT_GROWTH,
            "ten_k_s": _num(ten.get("ours_s")) if ten else None,
            "ten_k_ok": (_num(ten.get("ours_s")) < TARGET_10K_S)
            if ten and _num(ten.get("ours_s")) is not None
            else None,
        }
    return out, sizes


def _baseline_text(r: dict) -> str:
    if _num(r.get("baseline_s")) is not None:
        return _s(r["baseline_s"])
    if _num(r.get("baseline_estimate_s")) is not None:
        return f"> budget (~{r['baseline_estimate_s']:,.0f})"
    return "n/a"


def _speedup(r: dict) -> str:
    ours = _num(r.get("ours_s"))
    base = _num(r.get("baseline_s")) or _num(r.get("baseline_estimate_s"))
    if not ours or not base:
        return "n/a"
    return ("~" if _num(r.get("baseline_s")) is None else "") + f"{base / ours:,.1f}×"


def open_section(records: dict) -> list[str]:
    lines, res = _section(records, "open", "## 1. Opening a plan")
    if res is None:
        return lines
    lines += [
        "Load + every node's schema + properties + DOT (`viz.model.analyze` + `viz.render.to_dot`), against "
        "`json_format.Parse` + `substrait.type_inference.infer_rel_schema` for every node (the baseline).",
        "",
    ]
    rows = []
    for r in _get(res, "rows", default=[]):
        if not isinstance(r, dict):
            continue
        shape = r.get("shape", "?") + (f" `{r['source']}`" if r.get("source") else "")
        nodes = r.get("nodes")
        rows.append(
            [
                shape,
                f"{nodes:,}" if isinstance(nodes, int) else "n/a",
                _s(r.get("ours_s")),
                _s(r.get("us_per_node"), 1),
                _baseline_text(r),
                _speedup(r),
                r.get("baseline_note") or "",
            ]
        )
    lines += _table(
        ["plan", "nodes", "ours (s)", "ours µs/node", "baseline (s)", "baseline / ours", "baseline note"], rows
    )
    checks, sizes = _open_checks(res)
    lines += ["", "| target | shape | figure | |", "|---|---|---|---|"]
    for shape, c in checks.items():
        lines.append(
            f"| 10,000 nodes ready in under {TARGET_10K_S:g} s | {shape} | {_s(c['ten_k_s'])} s | "
            f"{_met(c['ten_k_ok'])} |"
        )
    for r in _get(res, "inspect", default=[]):  # the command line, a process each run, lineage included
        if isinstance(r, dict):
            lines.append(
                f"| `python -m viz inspect --json` of {r.get('nodes', 0):,} nodes in under "
                f"{_s(r.get('target_s'), 1)} s "
                f"(median) | {r.get('shape', '?')} | {_s(r.get('seconds'))} s | {_met(r.get('ok'))} |"
            )
    for shape, c in checks.items():
        fig = (
            f"{_s(c['us_small'], 1)} → {_s(c['us_large'], 1)} µs/node ({c['small_nodes']:,} → {c['large_nodes']:,} "
            f"nodes, ×{c['growth']:.2f})"
            if c["growth"] is not None
            else "n/a"
        )
        lines.append(f"| time per node flat (growth ≤ ×{FLAT_GROWTH:g}) | {shape} | {fig} | {_met(c['flat'])} |")
    return lines + [""]


def _tpch(res: dict) -> str:
    scale = _get(res, "scale")
    return f"TPC-H at scale factor {scale if scale is not None else 'n/a'}"


def spark_section(records: dict) -> list[str]:
    lines, res = _section(records, "spark", "## 2. Translation overhead on Spark")
    if res is None:
        return lines
    lines += [
        f"{_tpch(res)}: the isthmus plans through the executor "
        "against the same SQL through `spark.sql`, same session and data, warm (median of "
        f"{_get(res, 'repeat', default='n/a')} or more timed runs each). Execute ratio = the executor's "
        "time without the translation's own (Python and Py4J) time, over spark.sql's. Physical operators = "
        "the joins and their strategies, exchanges and aggregates, in order, of the two physical plans; the "
        "optimized plans' text always differs (column names, and the casts to the plan's declared types).",
        "",
    ]
    queries = [q for q in _get(res, "translation", "queries", default=[]) if isinstance(q, dict)]
    lines += [
        "Kept = the translation kept, as the app's Run has it once the background warm-up translated the "
        "node (Spark still plans the query on every run); its spark.sql figure is timed beside it.",
        "",
    ]
    rows = []
    for q in queries:
        if "error" in q:
            rows.append([q.get("query", "?"), "error", "", "", "", "", "", "", q["error"][:120]])
            continue
        same = q.get("same_physical_operators")
        rows.append(
            [
                q.get("query", "?"),
                _s(q.get("executor_s")),
                _s(q.get("sql_s")),
                _s(q.get("ratio"), 2),
                _s(q.get("kept_s")),
                _s(q.get("kept_ratio"), 2),
                _s(q.get("execute_ratio"), 2),
                _s(q.get("translate_s")),
                "n/a" if same is None else ("same" if same else "**differ**"),
            ]
        )
    lines += _table(
        [
            "query",
            "executor (s)",
            "spark.sql (s)",
            "ratio",
            "kept (s)",
            "kept ratio",
            "execute ratio",
            "translate (s)",
            "physical operators",
        ],
        rows,
    )
    target_median = _num(_get(res, "translation", "summary", "target_median")) or TARGET_MEDIAN
    target_max = _num(_get(res, "translation", "summary", "target_max", default=TARGET_MAX))
    lines += ["", "| target | figure | |", "|---|---|---|"]
    for label, key in (("translated on every run", "ratio"), ("translation kept", "kept_ratio")):
        ratios = [_num(q.get(key)) for q in queries if _num(q.get(key)) is not None]
        median = statistics.median(ratios) if ratios else None
        worst = max(ratios) if ratios else None
        lines.append(
            f"| {label}: median ratio ≤ {target_median} | {_s(median, 3)} | "
            f"{_met(None if median is None else median <= target_median)} |"
        )
        if target_max:
            lines.append(
                f"| {label}: no query above {target_max} | max {_s(worst, 3)} | "
                f"{_met(None if worst is None else worst <= target_max)} |"
            )
    differ = _get(res, "translation", "summary", "plans_differ", default=[])
    shape = _get(res, "translation", "summary", "plans_differ_in_operators", default=None)
    if shape is not None:
        lines += ["", f"Physical operators differ for {', '.join(shape) or 'no query'}."]
    if differ:
        lines += ["", f"Plan texts differ for {', '.join(differ)}: side by side in `benchmarks/results/spark_plans/`."]
    return lines + [""]


def sampling_section(records: dict) -> list[str]:
    lines, res = _section(records, "spark", "## 3. Sampling latency")
    if res is None:
        return lines
    nodes = [n for n in _get(res, "sampling", "nodes", default=[]) if isinstance(n, dict)]
    if not nodes:
        return lines + ["Not run.", ""]
    target = _num(_get(res, "sampling", "target_s")) or TARGET_SAMPLE_S
    rows = []
    for n in nodes:
        if "error" in n:
            rows.append([n.get("node", "?"), "", "", "error", "", n["error"][:120]])
            continue
        push = n.get("limit_pushable")
        ok = (_num(n.get("sample_s")) < target) if push and _num(n.get("sample_s")) is not None else None
        rows.append(
            [
                n.get("node", "?"),
                n.get("kind", ""),
                "yes" if push else "no",
                _s(n.get("sample_s")),
                _s(n.get("whole_s")),
                _met(ok) if push else "n/a (no limit can be pushed)",
            ]
        )
    lines += [
        f"First 100 rows of a node over lineitem (`run_node(..., limit=100)`) against computing the whole node; "
        f"target under {target:g} s where a limit can be pushed.",
        "",
    ]
    lines += _table(["node", "kind", "limit pushable", "first 100 rows (s)", "whole node (s)", f"< {target:g} s"], rows)
    return lines + [""]


def profiling_section(records: dict) -> list[str]:
    lines, prof = _section(records, "profile", "## 5. Profiling a plan")
    if prof is None:
        return lines
    lines += [
        f"{_tpch(prof)}, each query planned by DataFusion: the profile "
        "(the reads' count, one run observing every other node, counts that follow from the inputs derived) against "
        "the per-node way (each node counted in a Spark job of its own), the memo cleared before each. The per-node "
        "way is given every node but the cross products (counting one alone would not finish); the counts must agree "
        "on every node it counts.",
        "",
    ]
    rows = []
    for q in [q for q in _get(prof, "tpch", default=[]) if isinstance(q, dict)]:
        if "error" in q:
            rows.append([q.get("query", "?"), "", "error", "", "", "", "", "", q["error"][:120]])
            continue
        same = q.get("same_counts")
        rows.append(
            [
                q.get("query", "?"),
                q.get("nodes", "n/a"),
                _s(q.get("one_run_s"), 2),
                q.get("one_run_jobs", "n/a"),
                _s(q.get("per_node_s"), 2),
                q.get("per_node_jobs", "n/a"),
                q.get("cross_products_left_out", "n/a"),
                _s(q.get("speedup"), 2),
                "n/a" if same is None else ("same" if same else "**differ**"),
            ]
        )
    lines += _table(
        [
            "query",
            "nodes",
            "profile (s)",
            "profile jobs",
            "per node (s)",
            "per-node jobs",
            "cross products left out",
            "speed-up",
            "counts",
        ],
        rows,
    )
    lines += ["", f"Median speed-up: {_s(_get(prof, 'median_speedup'), 2)}×.", ""]
    target = _num(_get(prof, "target_s")) or 60.0
    ds = [q for q in _get(prof, "tpcds", default=[]) if isinstance(q, dict)]
    if ds:
        lines += [
            f"`python -m executor profile` on DataFusion's plans of TPC-DS queries at scale factor "
            f"{_get(prof, 'tpcds_scale', default='n/a')} (target: under {target:g} s each):",
            "",
        ]

        def row(q: dict) -> list:
            t = _num(q.get("one_run_s"))
            note = q.get("error", "")[:120] or ("stopped" if q.get("stopped") else "")
            return [
                q.get("query", "?"),
                q.get("nodes", "n/a"),
                _s(t, 1),
                q.get("one_run_jobs", "n/a"),
                note,
                _met(None if t is None or "error" in q else t < target),
            ]

        lines += _table(["query", "nodes", "profile (s)", "jobs", "note", f"< {target:g} s"], [row(q) for q in ds])
    return lines + [""]


def app_section(records: dict) -> list[str]:
    lines, res = _section(records, "app", "## 4. The app in the browser")
    if res is None:
        return lines
    targets = {**APP_TARGETS, **(_get(res, "targets", default={}) or {})}
    plans = [p for p in _get(res, "plans", default=[]) if isinstance(p, dict)]
    lines += [
        "Chromium (headless) against `streamlit run app.py`, a fresh server per row: from opening the page "
        "to the first frame that shows every node of the graph, measured in the page (navigation start to the "
        "frame; *outside* = the same load timed by Playwright from `page.goto` until its waits see the nodes, "
        "the figure of the reports before 2026-11-26, which adds their polling: up to half a second); "
        f"cold = first load after the server started, warm = median of {_get(res, 'reloads', default='n/a')} "
        "reloads in fresh pages of an incognito context, kept profile = the same in a browser whose profile "
        "is kept on disk (a returning person's browser, which keeps the scripts it compiled), after one "
        "visit; caption = the plan's caption (written by the server before the graph) shown, in the page; click = "
        "clicking a node until the inspector shows it, in the page (from the click event to the first frame "
        "showing the node's heading; median of 5 clicks on the settled page, alternating with the root), "
        "click: URL = until the URL names the node; "
        "peak = VmHWM of the Streamlit process. *viewer*: laid out on the server by Graphviz's `dot` "
        "(cached), pan and zoom in the page; *baseline*: laid out in the browser "
        "(`SUBSTRAIT_VIZ_LAYOUT=browser`, the app before the viewer). Main thread = the seconds the page's "
        "main thread was busy until the graph was drawn (Chrome's TaskDuration, median of the warm loads). "
        "*floor*: a bare Streamlit page (one title), timed the same way in the same run: no page of the app "
        "can be faster on this machine.",
        "",
    ]
    rows = []
    floor = _get(res, "floor", default=None)
    if isinstance(floor, dict):
        rows.append(
            [
                f"{floor.get('plan', 'bare Streamlit page')} (floor)",
                "",
                _s(floor.get("cold_s"), 2),
                _s(floor.get("warm_s"), 2),
                _s(floor.get("kept_s"), 2),
                _s(floor.get("warm_wall_s"), 2),
                _s(floor.get("warm_cpu_s"), 2),
                "",
                "",
                "",
                "",
            ]
        )
    for p in plans:
        rows.append(
            [
                p.get("plan", "?"),
                p.get("nodes", "n/a"),
                _s(p.get("cold_s"), 2),
                _s(p.get("warm_s"), 2),
                _s(p.get("kept_s"), 2),
                _s(p.get("warm_wall_s"), 2),
                _s(p.get("warm_cpu_s"), 2),
                _s(p.get("warm_caption_s", p.get("warm_content_s")), 2),
                _s(p.get("click_url_s"), 2),
                _s(p.get("click_s"), 2),
                _s(_get(p, "memory_before_run", "app", "peak_mib"), 0),
            ]
        )
    lines += _table(
        [
            "plan",
            "nodes",
            "cold (s)",
            "warm (s)",
            "warm, kept profile (s)",
            "warm, outside (s)",
            "warm: main thread (s)",
            "warm caption (s)",
            "click: URL (s)",
            "click (s)",
            "app peak (MiB)",
        ],
        rows,
    )
    floor_s, floor_kept = _num(_get(res, "floor", "warm_s")), _num(_get(res, "floor", "kept_s"))
    viewer = [p for p in plans if p.get("layout", "viewer") == "viewer"]
    baseline = {p.get("nodes"): p for p in plans if p.get("layout") == "baseline"}
    checks = []
    for p in viewer:
        n = p.get("nodes")
        key = (
            "tutorial_warm_s"
            if str(p.get("plan", "")).startswith("tutorial")
            else ("warm_100_s" if isinstance(n, int) and n <= 200 else "warm_500_s")
        )
        for which, floor_of, label in (("warm_s", floor_s, "incognito"), ("kept_s", floor_kept, "kept profile")):
            w, base = _num(p.get(which)), _num(_get(baseline.get(n, {}), which))
            if w is None:
                continue
            beside = ([f"baseline {_s(base, 2)}"] if base is not None else []) + (
                [f"a bare Streamlit page {_s(floor_of, 2)}"] if floor_of is not None else []
            )
            fig = _s(w, 2) + (f" ({'; '.join(beside)})" if beside else "")
            checks.append(
                (f"{p.get('plan')}: graph drawn (warm, {label}) ≤ {targets[key]:g} s", fig, w <= targets[key])
            )
    big = max(viewer, key=lambda p: _num(p.get("nodes")) or 0, default=None)
    if big is not None:
        c, base = _num(big.get("click_s")), _num(_get(baseline.get(big.get("nodes"), {}), "click_s"))
        checks.append(
            (
                f"{big.get('plan')}: node click to inspector ≤ {targets['click_500_s']:g} s",
                _s(c, 2) + (f" (baseline {_s(base, 2)})" if base is not None else ""),
                None if c is None else c <= targets["click_500_s"],
            )
        )
    first, warm = _num(_get(res, "first_run_s")), _num(_get(res, "warm_run_s"))
    if first is not None:
        checks.append(
            (
                f"tutorial: first Run after opening the plan, click to rows ≤ {targets['first_run_s']:g} s",
                _s(first, 2),
                first <= targets["first_run_s"],
            )
        )
    lines += _checks(checks)
    if first is not None:
        run = _get(res, "first_run", default={}) or {}
        java = [c for c in _get(run, "memory_after_run", "children", default=[]) if c.get("name") == "java"]
        jvm = (
            f"; the Spark JVM's peak memory {java[0]['peak_mib']:.0f} MiB"
            if java and _num(java[0].get("peak_mib"))
            else ""
        )
        warmed = _get(res, "spark_warm_before_run")
        click = _num(_get(res, "click_while_spark_starts_s"))
        during = (
            f" A node clicked right after the page opened, while the JVM started, showed in {click:.2f} s."
            if click
            else ""
        )
        lines += [
            "",
            "Opening a plan starts Spark in the background (a fresh server; "
            f"{'its JVM was up' if warmed else 'its JVM was **not** up'} "
            f"before the click, after a {_s(_get(res, 'reading_s'), 0)} s reading pause).{during} The first Run "
            f"took {first:.2f} s from the click to its rows; a second Run of another node {_s(warm, 2)} s{jvm}.",
        ]
    return lines + [""]


def load_section(records: dict) -> list[str]:
    lines, res = _section(records, "load", "## 6. Many people at once")
    if res is None:
        return lines
    alone, together = _get(res, "one_after_another", default={}), _get(res, "at_once", default={})
    lines += [
        f"{_s(_get(res, 'sessions'), 0)} browser sessions on this machine, each with its own plan, click Run on "
        "their root one after another (each after the one before showed its rows), then on a fresh server all "
        "at the same moment; the seconds from each click to its rows, then each page's rows downloaded as CSV "
        "with one click and compared between the two servers.",
        "",
    ]
    rows = []
    for mode in (alone, together):
        if not isinstance(mode, dict):
            continue
        cpu = mode.get("cpu_s") or {}
        rows.append(
            [
                mode.get("mode", "?"),
                _s(_num(mode.get("median_s")), 2),
                _s(_num(mode.get("slowest_s")), 2),
                _s(_num(mode.get("sum_s")), 2),
                _s(_num(mode.get("wall_s")), 2),
                " / ".join(_s(_num(cpu.get(k)), 2) for k in ("server", "jvm", "browser")),
                len(mode.get("download_failures") or {}),
                len(mode.get("errors") or {}),
            ]
        )
    lines += _table(
        [
            "mode",
            "median s",
            "slowest s",
            "sum s",
            "wall s",
            "CPU s: server / JVM / browser",
            "failed downloads",
            "pages with errors",
        ],
        rows,
    )
    total = _num(alone.get("sum_s")) if isinstance(alone, dict) else None
    median, slowest = (_num(together.get(k)) if isinstance(together, dict) else None for k in ("median_s", "slowest_s"))
    checks = []
    if total is not None and median is not None:
        checks.append(
            (f"at once: median ≤ half of one after another ({total / 2:.2f} s)", _s(median, 2), median <= total / 2)
        )
    if total is not None and slowest is not None:
        checks.append(
            (f"at once: slowest ≤ all of one after another ({total:.2f} s)", _s(slowest, 2), slowest <= total)
        )
    differ = _get(res, "at_once", "rows_differ")
    if isinstance(differ, list):
        checks.append(
            (
                "every download at the first click, its rows the same on both servers",
                ", ".join(differ) or "none differ",
                _get(res, "all_right"),
            )
        )
    lines += _checks(checks)
    return lines + [""]


def heap_section(records: dict) -> list[str]:
    lines, res = _section(records, "heap", "## 7. Broadcasts in a small heap")
    if res is None:
        return lines
    lines += [
        f"{_get(res, 'query', default='?')}: eleven broadcast joins built at once, run again and again from "
        "scratch in a driver with a 1 GB heap (half the app's), with Spark's own page size and Java's G1 regions, "
        "then with the session's (1 MB pages, 4 MB regions).",
        "",
    ]
    rows = [
        [
            s.get("name", "?"),
            s.get("page_size", "?"),
            s.get("runs", "?"),
            s.get("failed", s.get("error", "?")),
            _s(_num(s.get("median_s")), 2),
        ]
        for s in _get(res, "settings", default=[])
        if isinstance(s, dict)
    ]
    lines += _table(["settings", "page size", "runs", "failed", "median s of those that ran"], rows)
    ours = next((s for s in _get(res, "settings", default=[]) if isinstance(s, dict) and s.get("name") == "ours"), {})
    lines += _checks(
        [("every run with the session's settings", f"{ours.get('failed', '?')} failed", ours.get("failed") == 0)]
    )
    return lines + [""]


def markdown(records: dict) -> str:
    """The whole report as Markdown."""
    lines = [
        "# Benchmarks",
        "",
        machine_line(records),
        "",
        "Produced by `make bench` (`python -m benchmarks`); the plot is `docs/benchmarks.png`.",
        "",
    ]
    lines += (
        open_section(records)
        + spark_section(records)
        + sampling_section(records)
        + app_section(records)
        + profiling_section(records)
        + load_section(records)
        + heap_section(records)
    )
    return "\n".join(lines).rstrip() + "\n"


# ---- the plot --------------------------------------------------------------------------------------


def _not_run(ax, title: str, why: str = "not run") -> None:
    ax.set_title(title, fontsize=10, loc="left")
    ax.text(0.5, 0.5, why, ha="center", va="center", fontsize=12, color="grey", transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def _panel_open(ax, res: dict | None) -> None:
    title = "(a) Opening a plan: time per node"
    rows = [r for r in _get(res, "rows", default=[]) if isinstance(r, dict) and _num(r.get("nodes"))]
    if not rows:
        return _not_run(ax, title)
    shapes = [s for s in dict.fromkeys(r.get("shape") for r in rows) if s and s != "corpus"]
    colours = {}
    for shape in shapes:
        mine = sorted((r for r in rows if r.get("shape") == shape), key=lambda r: r["nodes"])
        pts = [
            (r["nodes"], _num(r.get("us_per_node")) or (_num(r.get("ours_s")) or 0) / r["nodes"] * 1e6) for r in mine
        ]
        pts = [p for p in pts if p[1] > 0]
        if not pts:
            continue
        (line,) = ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"{shape} (ours)")
        colours[shape] = line.get_color()
        base = [
            (r["nodes"], (_num(r.get("baseline_s")) or _num(r.get("baseline_estimate_s"))) / r["nodes"] * 1e6)
            for r in mine
            if _num(r.get("baseline_s")) or _num(r.get("baseline_estimate_s"))
        ]
        if base:
            ax.plot(
                [p[0] for p in base],
                [p[1] for p in base],
                marker="x",
                linestyle="--",
                color=colours[shape],
                label=f"{shape} (baseline)",
            )
    corpus = [r for r in rows if r.get("shape") == "corpus" and _num(r.get("us_per_node"))]
    if not ax.lines and not corpus:
        return _not_run(ax, title, "no usable figures")
    if corpus:
        ax.scatter(
            [r["nodes"] for r in corpus],
            [r["us_per_node"] for r in corpus],
            marker="s",
            color="black",
            label="corpus plans (ours)",
            zorder=3,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("nodes")
    ax.set_ylabel("µs per node")
    ax.set_title(title, fontsize=10, loc="left")
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)


def _panel_spark(ax, res: dict | None) -> None:
    title = "(b) Spark: executor / spark.sql per query"
    queries = [
        q for q in _get(res, "translation", "queries", default=[]) if isinstance(q, dict) and _num(q.get("ratio"))
    ]
    if not queries:
        return _not_run(ax, title)
    ratios = [q["ratio"] for q in queries]
    colours = ["tab:green" if r <= TARGET_MEDIAN else ("tab:orange" if r <= TARGET_MAX else "tab:red") for r in ratios]
    ax.bar([q.get("query", "?") for q in queries], ratios, color=colours)
    ax.axhline(TARGET_MEDIAN, color="tab:green", linestyle="--", linewidth=1, label=f"{TARGET_MEDIAN} (median target)")
    ax.axhline(TARGET_MAX, color="tab:red", linestyle="--", linewidth=1, label=f"{TARGET_MAX} (max target)")
    ax.set_ylabel("time ratio")
    ax.tick_params(axis="x", labelrotation=90, labelsize=7)
    ax.set_title(title, fontsize=10, loc="left")
    ax.legend(fontsize=7)


def _panel_sampling(ax, res: dict | None) -> None:
    title = "(c) Sampling: first 100 rows vs whole node"
    nodes = [n for n in _get(res, "sampling", "nodes", default=[]) if isinstance(n, dict) and _num(n.get("sample_s"))]
    if not nodes:
        return _not_run(ax, title)
    xs = range(len(nodes))
    ax.bar([x - 0.2 for x in xs], [n["sample_s"] for n in nodes], width=0.4, label="first 100 rows")
    ax.bar([x + 0.2 for x in xs], [_num(n.get("whole_s")) or 0 for n in nodes], width=0.4, label="whole node")
    target = _num(_get(res, "sampling", "target_s")) or TARGET_SAMPLE_S
    ax.axhline(target, color="tab:red", linestyle="--", linewidth=1, label=f"{target:g} s target")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([n.get("kind") or n.get("node", "?") for n in nodes], fontsize=8)
    ax.set_ylabel("seconds")
    ax.set_title(title, fontsize=10, loc="left")
    ax.legend(fontsize=7)


def _panel_app(ax, res: dict | None) -> None:
    title = "(d) App: page open to graph drawn"
    plans = [
        p
        for p in _get(res, "plans", default=[])
        if isinstance(p, dict) and (_num(p.get("cold_s")) or _num(p.get("warm_s")))
    ]
    if not plans:
        return _not_run(ax, title)
    xs = range(len(plans))
    ax.bar([x - 0.27 for x in xs], [_num(p.get("cold_s")) or 0 for p in plans], width=0.27, label="cold (first load)")
    ax.bar(list(xs), [_num(p.get("warm_s")) or 0 for p in plans], width=0.27, label="warm (median, incognito)")
    ax.bar([x + 0.27 for x in xs], [_num(p.get("kept_s")) or 0 for p in plans], width=0.27, label="warm (kept profile)")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([str(p.get("plan", "?")).replace(" (", "\n(") for p in plans], fontsize=7)
    floor = _num(_get(res, "floor", "warm_s"))
    if floor is not None:
        ax.axhline(floor, color="grey", linestyle="--", linewidth=1, label="a bare Streamlit page (warm)")
    ax.set_ylabel("seconds")
    ax.set_title(title, fontsize=10, loc="left")
    ax.legend(fontsize=7)


def plot(records: dict, path: str = PLOT_PNG) -> str:
    """Draw the four panels to ``path`` (PNG); a benchmark without results shows "not run"."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(13, 9))
    for ax, name, draw in (
        (axes[0][0], "open", _panel_open),
        (axes[0][1], "spark", _panel_spark),
        (axes[1][0], "spark", _panel_sampling),
        (axes[1][1], "app", _panel_app),
    ):
        draw(ax, _results(records, name))
    fig.suptitle(_machine_short(records), fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def build(results_dir: str = RESULTS, md_path: str | None = None, png_path: str = PLOT_PNG) -> tuple[str, str]:
    """Write the Markdown report and the plot from the results in ``results_dir``; returns both paths."""
    records = load(results_dir)
    md_path = md_path or os.path.join(results_dir, "REPORT.md")
    os.makedirs(os.path.dirname(md_path) or ".", exist_ok=True)
    with open(md_path, "w", encoding="utf-8") as fh:
        fh.write(markdown(records))
    return md_path, plot(records, png_path)


if __name__ == "__main__":
    md, png = build()
    print(f"report: {md}\nplot:   {png}")
    sys.exit(0)
