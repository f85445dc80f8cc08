"""Many people at once: ten browser sessions, each with its own plan, click Run on their root together.

Two fresh servers (``streamlit run app.py``, Spark started in the background as a person meets it), each
with :data:`SESSIONS` pages open in Debian's Chromium, one browser context per person:

- *one after another* (the baseline): each page clicks Run in turn, after the one before showed its rows;
- *at once*: every page clicks Run at the same moment (a click scheduled in each page for one instant).

For each page the seconds from its click to its result caption, measured in the page
(``benchmarks.app.RUN_SCRIPT``). Then each page downloads its rows as CSV with one click; a download that
fails or whose rows differ (as a multiset of lines) from the same plan's rows on the other server counts
as an error. The plans are the curated samples and DataFusion's plans of TPC-H queries (made from SQL,
opened through shared links), over TPC-H at scale 0.01.

``python -m benchmarks load [--quick]`` (``--quick``: four sessions). The figures the issue asks for:
the slowest at once no longer than all of them one after another, the median at most half of that.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from collections import Counter

from benchmarks.app import (
    NODE_SELECTOR,
    TIMEOUT_MS,
    VIEWPORT,
    _browser,
    _log,
    java_children,
    memory,
    start_server,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SESSIONS = 10
#: The sample plans run, by file name (their first root is the node run).
SAMPLES = (
    "tutorial.json",
    "aggregates.json",
    "joins_outer.json",
    "set_ops.json",
    "subqueries.json",
    "window.json",
    "tpch_q02_isthmus.json",
    "tpch_q03_isthmus.json",
)
#: TPC-H queries DataFusion plans from SQL for the remaining sessions.
TPCH_QUERIES = ("q01", "q05", "q10", "q18")
#: Rows asked for: every plan here has fewer, so both servers return the whole result and the rows compare.
ROWS = 10_000
#: Seconds after the JVM is up before the first click, at least: people read their plans meanwhile.
READING_S = 15.0
#: Then, before the first click, the server's background warm-up (the common shapes, each opened plan's
#: rehearsal) is let end: the figures are of serving people, not of a JVM's first minute. The server
#: counts as quiet when it and its JVM use less than :data:`QUIET_SHARE` of a core over
#: :data:`QUIET_WINDOW_S`; it is waited for at most :data:`QUIET_MAX_S`.
QUIET_SHARE = 0.1
QUIET_WINDOW_S = 2.0
QUIET_MAX_S = 120.0
#: Every plan here has one root, node 0, which the inspector shows when a plan opens.
ROOT_NODE = "0"

#: Set up before Run is clicked: ``window.__run`` gets, in ms on the page's clock, the click (``at``) and
#: the moment the result's caption for ``node`` is in the page (``shown``). A mutation observer, not a
#: check every frame: ten pages drawing frames without pause would take the machine's cores from Spark.
RUN_SCRIPT = """(node) => {
  const run = window.__run = {};
  const caption = new RegExp('^Node ' + node.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&') + ': .* ran in');
  const shown = () => [...document.querySelectorAll('[data-testid=stCaptionContainer]')].some((c) => \
caption.test(c.textContent.trim()));
  if (shown()) throw new Error('a result of node ' + node + ' is shown already');
  document.addEventListener('click', () => { if (!('at' in run)) run.at = performance.now(); }, \
{capture: true, once: true});
  const observer = new MutationObserver(() => {
    if ('at' in run && !('shown' in run) && shown()) { run.shown = performance.now(); observer.disconnect(); }
  });
  observer.observe(document.body, {childList: true, subtree: true, characterData: true});
}"""

#: Clicks Run at ``at`` (ms on the page's clock, ``Date.now()``), from inside the page: the pages click
#: together, which one Playwright thread clicking in turn cannot do.
SCHEDULE_CLICK = """(at) => {
  const button = [...document.querySelectorAll('button')].find((b) => b.textContent.includes('Run this node'));
  if (!button) throw new Error('no Run button');
  setTimeout(() => button.click(), Math.max(0, at - Date.now()));
}"""


def _plans() -> list[tuple[str, str]]:
    """(name, path on the server) of the :data:`SESSIONS` plans: samples, then DataFusion's TPC-H plans
    saved for sharing."""
    from executor.data.generate import tpch
    from executor.engines.sql_plan import sql_to_plan
    from executor.producer.check import read_queries
    from ui.state.share import save_shared

    out = [(name, f"/?sample={name}") for name in SAMPLES]
    folder = tpch(0.01)
    tables = {t[: -len(".parquet")]: os.path.join(folder, t) for t in os.listdir(folder) if t.endswith(".parquet")}
    queries = {q.name: q.sql for q in read_queries([os.path.join(ROOT, "executor", "producer", "sql", "tpch.sql")])}
    for name in TPCH_QUERIES:
        plan = sql_to_plan(queries[name], tables, form="analyzed")
        out.append((f"DataFusion TPC-H {name}", f"/?plan={save_shared(plan.data)}"))
    return out[:SESSIONS]


def _open(context, url: str):
    """A page of ``url`` with its graph drawn and the Run tab open, its row limit at :data:`ROWS`."""
    page = context.new_page()
    page.goto(url, timeout=TIMEOUT_MS)
    page.wait_for_selector(NODE_SELECTOR, timeout=TIMEOUT_MS)
    page.get_by_role("tab", name="Run").click(timeout=TIMEOUT_MS)
    page.get_by_role("button", name="▶ Run this node").wait_for(timeout=TIMEOUT_MS)
    rows = page.get_by_label("Rows")
    rows.fill(str(ROWS))
    rows.press("Tab")
    page.wait_for_timeout(500)
    return page


def _shown_s(page) -> float:
    page.wait_for_function("'shown' in window.__run", timeout=600_000, polling=100)
    run = page.evaluate("window.__run")
    return (run["shown"] - run["at"]) / 1000


def _download(page) -> tuple[Counter | None, str | None]:
    """Click "Rows (CSV)" once: the rows as a multiset of lines, or the failure."""
    try:
        with page.expect_download(timeout=60_000) as info:
            page.get_by_role("button", name="Rows (CSV)").click(timeout=TIMEOUT_MS)
        download = info.value
        failure = download.failure()
        if failure:
            return None, failure
        with open(download.path(), encoding="utf-8") as fh:
            lines = fh.read().splitlines()
        return Counter(lines), None
    except Exception as exc:  # noqa: BLE001 - a failed download is a figure of the benchmark
        return None, f"{type(exc).__name__}: {exc}".splitlines()[0]


def _cpu_s(pids: list[int]) -> float:
    """CPU seconds (user and system) the processes have used so far."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total / tick


def _browser_pids() -> list[int]:
    """This process's browser: the Chromium processes descended from it (not another program's)."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as fh:
                    text = fh.read()
                names[int(name)] = text[text.index("(") + 1 : text.rindex(")")]
                parents[int(name)] = int(text.rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass

    def ours(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == os.getpid():
                return True
        return False

    return [pid for pid, name in names.items() if name in ("chromium", "chrome", "headless_shell") and ours(pid)]


def _cpu(server) -> dict[str, float]:
    """CPU seconds so far of the server, its JVM and the browser."""
    return {
        "server": _cpu_s([server.proc.pid]),
        "jvm": _cpu_s(java_children(server.proc.pid)),
        "browser": _cpu_s(_browser_pids()),
    }


def _wait_quiet(server) -> float:
    """Wait until the server and its JVM are quiet (see :data:`QUIET_SHARE`); the seconds waited."""
    began = time.monotonic()
    while time.monotonic() - began < QUIET_MAX_S:
        cpu = _cpu(server)
        time.sleep(QUIET_WINDOW_S)
        after = _cpu(server)
        if (after["server"] + after["jvm"] - cpu["server"] - cpu["jvm"]) / QUIET_WINDOW_S < QUIET_SHARE:
            break
    return time.monotonic() - began


def _errors_on(page) -> list[str]:
    return [
        t.strip()
        for t in page.locator("[data-testid=stAlertContentError], [data-testid=stException]").all_inner_texts()
    ]


def measure(p, plans: list[tuple[str, str]], together: bool, env: dict[str, str]) -> tuple[dict, dict[str, Counter]]:
    """One server, one page per plan; Run clicked in turn or at once. The figures (seconds per page,
    failed downloads, errors shown) and each page's downloaded rows."""
    server = start_server(env)
    mode = "at once" if together else "one after another"
    out: dict = {"mode": mode}
    rows: dict[str, Counter] = {}
    try:
        browser = _browser(p)
        try:
            pages = []
            for name, path in plans:
                context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
                pages.append((name, _open(context, server.url + path)))
            deadline = time.time() + 180
            while not java_children(server.proc.pid) and time.time() < deadline:
                time.sleep(0.5)
            time.sleep(READING_S)
            out["warm_up_s"] = round(READING_S + _wait_quiet(server), 1)
            _log(f"{mode}: {len(pages)} pages open, Spark up, clicking")
            for _name, page in pages:
                page.evaluate(RUN_SCRIPT, ROOT_NODE)
            seconds: list[float] = []
            cpu = _cpu(server)
            began = time.perf_counter()
            if together:
                at = int(time.time() * 1000) + 1500
                for _, page in pages:
                    page.evaluate(SCHEDULE_CLICK, at)
                seconds = [_shown_s(page) for _, page in pages]
            else:
                for _, page in pages:
                    page.evaluate(SCHEDULE_CLICK, 0)
                    seconds.append(_shown_s(page))
            out["wall_s"] = round(time.perf_counter() - began, 3)
            out["cpu_s"] = {k: round(v - cpu[k], 2) for k, v in _cpu(server).items()}
            out["seconds"] = {name: round(s, 3) for (name, _), s in zip(pages, seconds)}
            out["median_s"] = round(statistics.median(seconds), 3)
            out["slowest_s"] = round(max(seconds), 3)
            out["sum_s"] = round(sum(seconds), 3)
            failures, errors = {}, {}
            for name, page in pages:
                got, failure = _download(page)
                if failure:
                    failures[name] = failure
                else:
                    rows[name] = got
                shown = _errors_on(page)
                if shown:
                    errors[name] = shown
            out["download_failures"], out["errors"] = failures, errors
            out["memory"] = memory(server.proc.pid)
            _log(
                f"{mode}: median {out['median_s']:.2f} s, slowest {out['slowest_s']:.2f} s, sum {out['sum_s']:.2f} s, "
                f"wall {out['wall_s']:.2f} s, CPU s {out['cpu_s']}; "
                f"{len(failures)} downloads failed, {len(errors)} pages with errors"
            )
        finally:
            browser.close()
    finally:
        server.stop()
    return out, rows


def run(quick: bool = False) -> dict:
    from playwright.sync_api import sync_playwright

    from executor.data.generate import tpch

    plans = _plans()[: 4 if quick else SESSIONS]
    env = {"SUBSTRAIT_VIZ_DATA": tpch(0.01)}
    results: dict = {
        "sessions": len(plans),
        "plans": [name for name, _ in plans],
        "rows_asked": ROWS,
        "reading_s": READING_S,
    }
    with sync_playwright() as p:
        alone, alone_rows = measure(p, plans, together=False, env=env)
        together, together_rows = measure(p, plans, together=True, env=env)
    differ = sorted(
        name for name in together_rows if alone_rows.get(name) is not None and together_rows[name] != alone_rows[name]
    )
    together["rows_differ"] = differ
    results["one_after_another"], results["at_once"] = alone, together
    results["slowest_within_sequence"] = together["slowest_s"] <= alone["sum_s"]
    results["median_within_half"] = together["median_s"] <= alone["sum_s"] / 2
    results["all_right"] = not (
        differ or together["download_failures"] or together["errors"] or alone["download_failures"] or alone["errors"]
    )
    _log(
        f"at once: median {together['median_s']:.2f} s, slowest {together['slowest_s']:.2f} s; one after another "
        f"{alone['sum_s']:.2f} s in all; rows differ: {differ or 'none'}"
    )
    return results


if __name__ == "__main__":
    print(json.dumps(run(quick="--quick" in sys.argv[1:]), indent=2))
