"""The app in a real browser: time from opening the page to the graph drawn, a node click, the first
Run, memory; each page figure beside its baseline, in the same run.

Starts ``streamlit run app.py`` (headless, on a free port) and drives Debian's Chromium with
Playwright. For the tutorial sample (``/?sample=tutorial.json``) and two synthetic plans of about
100 and 500 nodes (balanced join trees from ``benchmarks.plans``, opened through shared links
``/?plan=<digest>``), each on a fresh server, it measures:

- *cold*: the first load after the server started, from opening the page to the first frame showing
  every node of the plan (``.sv-stage svg g.node``: the graph viewer), measured in the page
  (:data:`SHOWN_SCRIPT`; Playwright's own waits, from outside, see it later: also kept, as *wall*);
- *warm*: the median of 5 reloads (quick: 2), each in a fresh page (a new Streamlit session) of an
  incognito context, and the median seconds the page's main thread was busy until then (Chrome's
  ``TaskDuration``: the browser's own work, steadier than the wall clock on a shared two-core machine);
- *kept profile*: the same reloads in a browser whose profile is on disk, after one visit, as a
  returning person's browser (it keeps the scripts it compiled, which an incognito context forgets);
- *click*: from clicking a node in the graph to the inspector showing that node's heading, measured
  in the page (:data:`CLICK_SCRIPT`): the median of 5 clicks on the settled page (a pause before
  each), alternating between a node and the root.

*floor*: a bare Streamlit page (``benchmarks/bare_page.py``, one title), timed the same way on its
own server first: what no page of this app can beat on this machine.

*viewer*: the graph laid out on the server by Graphviz's ``dot`` (cached), shown with pan and
zoom. *baseline*: the same app with ``SUBSTRAIT_VIZ_LAYOUT=browser``, which lays the graph out in
the browser with Graphviz compiled to WebAssembly, as before the viewer.

The tutorial on the viewer then has its first Run measured the way a person meets it: opening the
plan starts Spark in the background (``executor.spark.session.warm_up``); after the JVM is up and a
reading pause, Run is clicked, and the seconds until its rows show are the first Run. A second Run
of another node follows. The peak memory (VmHWM) of the server and of each child (the JVM) is kept.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
#: Chromium's features Playwright 1.65 (requirements.txt) turns off: Chromium keeps only the last
#: ``--disable-features``, so ours repeats them.
PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
)
#: Chromium's own address-bar popup, drawn in a renderer of its own (``--type=renderer
#: --top-chrome-webui``) that each new window starts and that compiles its scripts while the page
#: loads: on this 2-core machine it took a core from the page. A person's browser starts it once, with
#: its window, not with each page opened. Puppeteer turns these off too (its pull request 15278).
#: Measured, loads alternated between two browsers on one server: a bare Streamlit page 1.44 s ->
#: 1.09 s, the tutorial 1.67 s -> 1.34 s (incognito, 2026-11-26 evening).
BROWSER_UI_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")
#: How the benchmark and the browser tests start Chromium (headless, on this machine).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-features=" + ",".join(PLAYWRIGHT_DISABLED_FEATURES + BROWSER_UI_FEATURES),
]
VIEWPORT = {"width": 1500, "height": 1000}
NODE_SELECTOR = ":is(.sv-stage, .stGraphVizChart) svg g.node"  # the viewer, or the fallback chart
TIMEOUT_MS = 180_000
#: Clicks timed per plan once the page has settled (their median is the figure), and the reading pause before each.
CLICKS = 5
CLICK_PAUSE_S = 0.5
#: The synthetic plans: ``wide_joins(n)`` (reads under a balanced tree of joins and filters).
PLAN_SIZES = (100, 500)
#: Seconds a person reads the plan after it opened and Spark's JVM is up, before clicking Run.
READING_S = 20.0
#: The floor's page title (benchmarks/bare_page.py).
BARE_TITLE = "A bare Streamlit page"
#: Targets the report checks (seconds).
TARGETS = {"tutorial_warm_s": 1.0, "warm_100_s": 1.5, "warm_500_s": 2.5, "click_500_s": 0.3, "first_run_s": 2.0}


def _log(text: str) -> None:
    print(f"[app] {text}", flush=True)


# ---- processes -----------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _status(pid: int) -> dict[str, str]:
    """``/proc/<pid>/status`` as a dict (empty when the process is gone)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            return dict(line.rstrip("\n").split(":\t", 1) for line in fh if ":\t" in line)
    except OSError:
        return {}


def _kib(value: str | None) -> int | None:
    """``'123456 kB'`` -> 123456 (KiB)."""
    if not value:
        return None
    m = re.match(r"\s*(\d+)", value)
    return int(m.group(1)) if m else None


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def _children(pid: int) -> list[int]:
    """Every descendant of ``pid`` (from each process's parent id in /proc)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        ppid = _kib(_status(int(entry)).get("PPid"))
        if ppid is not None:
            parents.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return sorted(out)


def memory(pid: int) -> dict:
    """Peak (VmHWM) and current (VmRSS) resident memory in MiB of ``pid`` and each descendant."""

    def one(p: int) -> dict:
        st = _status(p)
        hwm, rss = _kib(st.get("VmHWM")), _kib(st.get("VmRSS"))
        return {
            "pid": p,
            "name": st.get("Name", "?"),
            "cmd": _cmdline(p)[:160],
            "peak_mib": round(hwm / 1024, 1) if hwm else None,
            "rss_mib": round(rss / 1024, 1) if rss else None,
        }

    return {"app": one(pid), "children": [one(c) for c in _children(pid)]}


def java_children(pid: int) -> list[int]:
    """The Java processes under ``pid``: a Spark JVM started by the app."""
    return [
        c
        for c in _children(pid)
        if _status(c).get("Name", "").startswith("java") or _cmdline(c).split(" ", 1)[0].endswith("/java")
    ]


@dataclass
class Server:
    proc: subprocess.Popen
    url: str
    started_s: float

    def stop(self) -> None:
        """Stop the server, then any of its child processes still running (a Spark JVM)."""
        children = _children(self.proc.pid)
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=15)
        for pid in children:
            deadline = time.time() + 10
            while os.path.exists(f"/proc/{pid}") and time.time() < deadline:
                time.sleep(0.2)  # the JVM exits by itself once its parent's pipe closes
            if os.path.exists(f"/proc/{pid}"):
                try:
                    os.kill(pid, signal.SIGTERM)
                except OSError:
                    pass


def start_server(env_extra: dict[str, str] | None = None, script: str = os.path.join(ROOT, "app.py")) -> Server:
    """``streamlit run <script>`` (the app) on a free port; returns once its health check answers."""
    port = _free_port()
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", **(env_extra or {})}
    start = time.perf_counter()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            script,
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url + "/_stcore/health", timeout=2)
            return Server(proc, url, time.perf_counter() - start)
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with code {proc.returncode} before answering") from None
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("streamlit did not answer its health check within 90 s")


# ---- plans -----------------------------------------------------------------------------------------


def big_plan(size: int = 500) -> tuple[bytes, int]:
    """A synthetic plan of about ``size`` nodes: its JSON bytes and its node count."""
    from benchmarks.plans import wide_joins
    from viz.model import analyze

    data = json.dumps(wide_joins(size)).encode()
    return data, len(analyze(data).graph.nodes)


def _node_count(data: bytes) -> int:
    from viz.model import analyze

    return len(analyze(data).graph.nodes)


# ---- the browser ----------------------------------------------------------------------------------


def _browser(p):
    exe = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if not exe:
        raise RuntimeError(f"no Chromium at {CHROMIUM} (make browser installs Debian's chromium)")
    return p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)


@contextlib.contextmanager
def _browsing(p, server: Server):
    """A fresh browser context (the benchmark's viewport) in Debian's Chromium, for pages of ``server``;
    afterwards the browser is closed and the server stopped."""
    try:
        browser = _browser(p)
        try:
            yield browser.new_context(viewport=VIEWPORT)
        finally:
            browser.close()
    finally:
        server.stop()


@contextlib.contextmanager
def _kept_profile(p):
    """A browser with a profile on disk, as a person's own browser has: it keeps what it compiled of a
    page's scripts (V8's code cache) from one visit to the next, which an incognito context forgets."""
    exe = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as profile:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=exe, args=CHROMIUM_ARGS, viewport=VIEWPORT
        )
        try:
            yield context
        finally:
            context.close()


#: Run first in a page: every shadow root attached from then on is in ``window.__shadowRoots``. The
#: graph viewer draws in one, out of reach of ``document.querySelector`` (the benchmark and the browser
#: tests watch for its first frame with it).
SHADOW_ROOTS = """
window.__shadowRoots = [];
(() => {
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (options) {
    const root = attach.call(this, options);
    window.__shadowRoots.push(root);
    return root;
  };
})();
"""


#: Run in every page before its own scripts: ``window.__shown.graph`` is set, in ms since the page was
#: opened (navigation start), in the first frame that shows every node of the graph (``want`` of them;
#: the viewer's live in a shadow root, caught as it is attached) or, for the floor, the ``heading``;
#: ``window.__shown.caption`` in the first that shows the plan's caption (``· N nodes ·``), if before.
#: Checked once a frame, before the frame is painted: what the person sees, without the delay of
#: Playwright asking the page from outside (its waits poll at growing intervals, up to half a second).
SHOWN_SCRIPT = (
    SHADOW_ROOTS.replace("%", "%%")
    + """
window.__shown = {};
(() => {
  const want = %(want)d, heading = %(heading)s;
  const roots = window.__shadowRoots;
  const caption = new RegExp('· ' + want + ' nodes ·');
  const shown = () => {
    if (heading) return [...document.querySelectorAll('h1')].some((h) => h.textContent.includes(heading));
    let n = document.querySelectorAll('.stGraphVizChart svg g.node').length;
    for (const root of roots) n += root.querySelectorAll('.sv-stage svg g.node').length;
    return n >= want;
  };
  (function check() {
    const now = performance.now();
    if (!('caption' in window.__shown) && [...document.querySelectorAll('[data-testid=stCaptionContainer]')]
          .some((c) => caption.test(c.textContent))) window.__shown.caption = now;
    if (shown()) window.__shown.graph = now; else requestAnimationFrame(check);
  })();
})();
"""
)


def _open_timed(context, url: str, nodes: int = 0, heading: str | None = None):
    """A fresh page with Chrome's performance metrics on and :data:`SHOWN_SCRIPT` watching for ``nodes``
    graph nodes (or ``heading``), sent to ``url``: the page, its devtools session (for
    :func:`_main_thread_s`) and the ``time.perf_counter()`` taken just before."""
    page = context.new_page()
    page.add_init_script(SHOWN_SCRIPT % {"want": nodes, "heading": json.dumps(heading)})
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    start = time.perf_counter()
    page.goto(url)
    return page, cdp, start


def _shown(page, start: float) -> tuple[dict, float]:
    """Wait (polling every 0.1 s, so as not to load the page) for :data:`SHOWN_SCRIPT` to see what it
    watches for: its figures in seconds, and the seconds since ``start`` when Playwright saw it."""
    page.wait_for_function("'graph' in window.__shown", timeout=TIMEOUT_MS, polling=100)
    wall = time.perf_counter() - start
    return {k: v / 1000 for k, v in page.evaluate("window.__shown").items()}, wall


def _main_thread_s(cdp) -> float:
    """Seconds the page's main thread has been busy so far (Chrome's ``TaskDuration`` metric): the
    browser's own work, which, unlike the wall clock, does not count waiting for a busy CPU."""
    metrics = cdp.send("Performance.getMetrics")["metrics"]
    return next(m["value"] for m in metrics if m["name"] == "TaskDuration")


@dataclass
class Load:
    """One page load: seconds from opening the page to the graph shown (``shown``) and to the plan's
    caption (``caption``), measured in the page; until Playwright, polling, saw the graph (``wall``);
    and the seconds the page's main thread was busy until then."""

    shown: float
    wall: float
    caption: float | None
    cpu: float


def time_to_graph(context, url: str, nodes: int, heading: str | None = None) -> tuple[Load, object]:
    """Open ``url`` in a fresh page; its :class:`Load` once all ``nodes`` graph nodes are drawn (or, for
    the floor, ``heading`` shows), and the page. The plan's caption (``· N nodes ·``) is written by the
    server's script before the graph."""
    page, cdp, start = _open_timed(context, url, nodes=nodes, heading=heading)
    shown, wall = _shown(page, start)
    return Load(shown["graph"], wall, shown.get("caption"), _main_thread_s(cdp)), page


def _warm_loads(context, url: str, nodes: int, reloads: int, heading: str | None = None):
    """``reloads`` fresh pages of ``url`` in ``context``, one after another: their loads, and the last
    page, left open."""
    loads, page = [], None
    for _ in range(reloads):
        if page is not None:
            page.close()
        load, page = time_to_graph(context, url, nodes, heading)
        loads.append(load)
    return loads, page


def _median_or_none(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(statistics.median(known), 3) if known else None


def _summary(loads: list[Load], prefix: str) -> dict:
    """The medians of ``loads`` (and each load's in-page seconds) under keys starting ``prefix``."""
    return {
        f"{prefix}runs_s": [round(x.shown, 3) for x in loads],
        f"{prefix}s": round(statistics.median(x.shown for x in loads), 3),
        f"{prefix}wall_s": round(statistics.median(x.wall for x in loads), 3),
        f"{prefix}caption_s": _median_or_none([x.caption for x in loads]),
        f"{prefix}cpu_s": round(statistics.median(x.cpu for x in loads), 3),
    }


def measure_floor(p, reloads: int) -> dict:
    """Streamlit's own floor on this machine: ``benchmarks/bare_page.py`` (one title) on a fresh
    server, timed as the plans are (cold, then the median of ``reloads`` fresh pages, in an incognito
    context and in a kept profile) until its title shows."""
    server = start_server({}, script=os.path.join(ROOT, "benchmarks", "bare_page.py"))
    out: dict = {"plan": "bare Streamlit page", "server_start_s": round(server.started_s, 3)}
    with _browsing(p, server) as context:
        first, _ = _warm_loads(context, server.url, 0, reloads + 1, heading=BARE_TITLE)
        out["cold_s"], out["cold_wall_s"] = round(first[0].shown, 3), round(first[0].wall, 3)
        if reloads:
            out.update(_summary(first[1:], "warm_"))
            with _kept_profile(p) as kept:
                out.update(_summary(_warm_loads(kept, server.url, 0, reloads + 1, heading=BARE_TITLE)[0][1:], "kept_"))
            _log(
                f"bare page: warm median {out['warm_s']:.2f} s of {out['warm_runs_s']} (kept profile "
                f"{out['kept_s']:.2f} s), main thread {out['warm_cpu_s']:.2f} s"
            )
    return out


#: Set up on a settled page before a click: ``window.__click`` gets, in ms since the page opened, the
#: click's moment (``at``: the click event, caught before the page's own handlers), the first frame
#: whose URL names ``node`` (``url``) and the first frame showing the inspector's ``heading`` (``shown``).
#: Playwright's waits for a heading ask the page for every element's role from outside: on a 500-node
#: graph those queries took the page's main thread as long as the click's own work.
CLICK_SCRIPT = """([node, heading]) => {
  const click = window.__click = {};
  const named = new RegExp('[?&]node=' + node.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&') + '(&|$)');
  document.addEventListener('click', () => { if (!('at' in click)) click.at = performance.now(); }, {capture: true, \
once: true});
  (function check() {
    const now = performance.now();
    if ('at' in click) {
      if (!('url' in click) && named.test(location.search)) click.url = now;
      if (!('shown' in click) && [...document.querySelectorAll('h3')].some((h) => h.textContent.trim() === heading)) \
click.shown = now;
    }
    if (!('shown' in click && 'url' in click)) requestAnimationFrame(check);
  })();
}"""


def time_click(page, node_id: str, heading: str) -> tuple[float, float]:
    """Click graph node ``node_id``: seconds from the click until the URL says ``node=<id>`` (the
    server's script ran up to selecting it) and until the inspector's heading is ``heading``, both
    measured in the page (:data:`CLICK_SCRIPT`)."""
    page.wait_for_selector(f"{NODE_SELECTOR}[data-substrait-bound]", timeout=TIMEOUT_MS)
    target = page.locator(f'{NODE_SELECTOR}[id="node-{node_id}"]')
    target.scroll_into_view_if_needed(timeout=TIMEOUT_MS)
    page.evaluate(CLICK_SCRIPT, [node_id, heading])
    target.click(timeout=TIMEOUT_MS)
    page.wait_for_function("'shown' in window.__click && 'url' in window.__click", timeout=TIMEOUT_MS, polling=100)
    click = page.evaluate("window.__click")
    return (click["url"] - click["at"]) / 1000, (click["shown"] - click["at"]) / 1000


#: Set up before Run is clicked: ``window.__run`` gets, in ms since the page opened, the click's moment
#: (``at``) and the first frame showing the result's caption for ``node`` (``shown``). Measured in the
#: page: Playwright's own wait for the text polls every 0.5 s after its first tries, and added up to that
#: much to what a person waits (0.45 s in a logged run).
RUN_SCRIPT = """(node) => {
  const run = window.__run = {};
  const caption = new RegExp('^Node ' + node.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&') + ': .* ran in');
  const shown = () => [...document.querySelectorAll('[data-testid=stCaptionContainer]')].some((c) => \
caption.test(c.textContent.trim()));
  if (shown()) throw new Error('a result of node ' + node + ' is shown already: time a node not run yet');
  document.addEventListener('click', () => { if (!('at' in run)) run.at = performance.now(); }, \
{capture: true, once: true});
  (function check() {
    if ('at' in run && shown()) {
      run.shown = performance.now();
    } else requestAnimationFrame(check);
  })();
}"""


def time_run(page, node_id: str) -> float:
    """Open the Run tab and click Run; seconds from the click until the result caption for ``node_id``
    shows, measured in the page (:data:`RUN_SCRIPT`)."""
    page.get_by_role("tab", name="Run").click(timeout=TIMEOUT_MS)
    button = page.get_by_role("button", name="▶ Run this node")
    button.wait_for(timeout=TIMEOUT_MS)
    page.evaluate(RUN_SCRIPT, node_id)
    button.click(timeout=TIMEOUT_MS)
    page.wait_for_function("'shown' in window.__run", timeout=600_000, polling=100)
    run = page.evaluate("window.__run")
    return (run["shown"] - run["at"]) / 1000


def _root(data: bytes) -> str:
    from viz.model import analyze

    return analyze(data).roots[0]


def _heading(data: bytes, node_id: str) -> str:
    from viz.model import analyze
    from viz.render import title

    return f"{title(analyze(data).node(node_id).kind)} · {node_id}"


def measure_plan(
    p,
    name: str,
    path: str,
    data: bytes,
    click_node: str,
    reloads: int,
    run_nodes: tuple[str, ...] = (),
    layout: str = "viewer",
) -> dict:
    """One plan on a fresh server: cold load, warm reloads, a click, memory, then the runs (after
    Spark's background start and a reading pause). ``layout``: "viewer", or "baseline" (the graph
    laid out in the browser)."""
    nodes = _node_count(data)
    env = {"SUBSTRAIT_VIZ_LAYOUT": "browser"} if layout == "baseline" else {}
    if not run_nodes:
        env["SUBSTRAIT_VIZ_WARM_UP"] = "0"  # the page figures without a JVM starting beside them
    server = start_server(env)
    name = f"{name} ({layout})"
    out: dict = {
        "plan": name,
        "layout": layout,
        "nodes": nodes,
        "path": path,
        "server_start_s": round(server.started_s, 3),
    }
    _log(f"{name}: {nodes} nodes, server up in {server.started_s:.1f} s")
    with _browsing(p, server) as context:
        cold, page = time_to_graph(context, server.url + path, nodes)
        out["cold_s"], out["cold_wall_s"] = round(cold.shown, 3), round(cold.wall, 3)
        _log(f"{name}: cold {cold.shown:.2f} s ({cold.wall:.2f} s seen from outside)")
        if reloads:
            page.close()
            with _kept_profile(p) as kept:  # a returning person's browser: one visit, then the timed ones
                loads, _ = _warm_loads(kept, server.url + path, nodes, reloads + 1)
                out.update(_summary(loads[1:], "kept_"))
            loads, page = _warm_loads(context, server.url + path, nodes, reloads)
            out.update(_summary(loads, "warm_"))
            _log(
                f"{name}: warm median {out['warm_s']:.2f} s of {out['warm_runs_s']} ({out['warm_wall_s']:.2f} s from "
                f"outside, main thread busy {out['warm_cpu_s']:.2f} s); kept profile {out['kept_s']:.2f} s of "
                f"{out['kept_runs_s']}"
            )
        else:  # the page just opened: the click lands while Spark starts in the background
            out["java_at_click"] = bool(java_children(server.proc.pid))
        out["click_node"] = click_node
        if reloads:  # the whole page drawn (the inspector on the root, which follows the graph) before clicking
            page.get_by_role("heading", name=_heading(data, _root(data)), exact=True).wait_for(timeout=TIMEOUT_MS)
        # on a settled page: CLICKS clicks, alternating between the node and the plan's root, a reading
        # pause before each; right after opening (the first Run's row): the one click, as it lands
        targets = [click_node, _root(data)] * (CLICKS // 2) + [click_node] if reloads else [click_node]
        urls, clicks = [], []
        for node_id in targets:
            if reloads:
                time.sleep(CLICK_PAUSE_S)
            url_s, click_s = time_click(page, node_id, _heading(data, node_id))
            urls.append(round(url_s, 3))
            clicks.append(round(click_s, 3))
        out["click_runs_s"] = clicks
        out["click_url_s"], out["click_s"] = statistics.median(urls), statistics.median(clicks)
        _log(
            f"{name}: click -> inspector {out['click_s']:.2f} s, median of {clicks} "
            f"(URL updated after {out['click_url_s']:.2f} s)"
        )
        out["memory_before_run"] = memory(server.proc.pid)
        _log(f"{name}: app peak {out['memory_before_run']['app']['peak_mib']} MiB")
        if run_nodes:  # Spark started in the background when the plan opened: wait for it, then read a while
            deadline = time.time() + 180
            while not java_children(server.proc.pid) and time.time() < deadline:
                time.sleep(0.5)
            out["java_before_run"] = java_children(server.proc.pid)
            time.sleep(READING_S)
            _log(f"{name}: Spark's JVM {'up' if out['java_before_run'] else 'NOT up'}, read for {READING_S:g} s")
        runs = []
        for node_id in run_nodes:
            if node_id != click_node:
                time_click(page, node_id, _heading(data, node_id))
            seconds = time_run(page, node_id)
            runs.append({"node": node_id, "seconds": round(seconds, 3)})
            _log(f"{name}: Run of node {node_id} {seconds:.2f} s")
        if runs:
            out["runs"] = runs
            out["first_run_s"] = runs[0]["seconds"]
            if len(runs) > 1:
                out["warm_run_s"] = runs[1]["seconds"]
            out["java_after_run"] = java_children(server.proc.pid)
            out["memory_after_run"] = memory(server.proc.pid)
        page.close()
    return out


def run(quick: bool = False) -> dict:
    """Measure the app in the browser; returns JSON-able results (see the module docstring)."""
    from playwright.sync_api import sync_playwright

    from ui.state.share import save_shared

    reloads = 2 if quick else 5
    with open(os.path.join(ROOT, "sample_plans", "tutorial.json"), "rb") as fh:
        tutorial = fh.read()
    results: dict = {"reloads": reloads, "targets": TARGETS, "reading_s": READING_S, "plans": []}
    with sync_playwright() as p:
        results["floor"] = measure_floor(p, reloads)
        for layout in ("viewer", "baseline"):
            # the tutorial: load, click the Filter node
            results["plans"].append(
                measure_plan(p, "tutorial", "/?sample=tutorial.json", tutorial, "0.0.1", reloads, layout=layout)
            )
            for size in PLAN_SIZES:
                data, nodes = big_plan(size)
                results["plans"].append(
                    measure_plan(
                        p, f"{nodes} nodes", f"/?plan={save_shared(data)}", data, "0.0", reloads, layout=layout
                    )
                )
        # the first Run, on a fresh server: open the tutorial (Spark starts in the background), click the
        # Filter at once (the page answers while the JVM starts), read, Run the Filter, then the root
        first = measure_plan(
            p, "tutorial, first Run", "/?sample=tutorial.json", tutorial, "0.0.1", 0, run_nodes=("0.0.1", "0")
        )
    if "first_run_s" in first:
        results["first_run"] = first
        results["first_run_s"] = first["first_run_s"]
        results["warm_run_s"] = first.get("warm_run_s")
        results["spark_warm_before_run"] = bool(first.get("java_before_run"))
        results["click_while_spark_starts_s"] = first.get("click_s")
    results["app_peak_mib"] = max((r["memory_before_run"]["app"]["peak_mib"] or 0) for r in results["plans"])
    return results


if __name__ == "__main__":
    quick = "--quick" in sys.argv[1:]
    print(json.dumps(run(quick=quick), indent=2))
