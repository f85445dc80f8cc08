"""Profile a plan node by node: every node's exact row count, its time, and the suspicious ones.

``profile_plan(model, catalog)`` translates each runnable node's subtree
(``executor.translate_rel.translate``) and counts it (``df.count()``), inputs before consumers, in
one worker thread whose Spark jobs carry a unique tag, so a ``cancel`` Event or the ``timeout_s``
(for the whole profile) interrupts them (``spark.interruptTag``), as ``executor.run`` does. A
stopped profile keeps the nodes already counted and says why it stopped.

Per node it records:

- ``rows``: the exact row count of the node's output;
- ``elapsed_s``: the time of that count, i.e. of the node's whole subtree;
- ``own_s``: an *estimate* of the node's own time, its ``elapsed_s`` minus its inputs' ``elapsed_s``,
  floored at 0 (Spark recomputes and caches differently per count, so this is only a hint);
- ``error``: the message when the count failed (the rest of the plan still runs; a node whose
  input failed is not run and says so);
- ``skipped``: why the node was not run (it cannot run on Spark, see
  ``executor.executable.executability``; it is inside a subquery, which runs once per outer row
  and may refer to the outer query's fields; or the profile was stopped);
- ``flags``: ``"empty"`` when the node has 0 rows while one of its inputs has rows, and
  ``"exploded"`` when its rows exceed ``EXPLODE_FACTOR`` x its largest input's rows *and*
  ``EXPLODE_MIN_ROWS`` (so a 3-row join of 1-row inputs is not "exploded"; a cross join of two
  1,000-row tables is). ``factor`` is rows / largest input's rows.

Counts are memoised per (plan digest, node id, catalog fingerprint), so profiling again, or
profiling a plan that shares nodes with one already profiled, counts each node once.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field

from viz.render import NodeStat, Overlay

from .errors import ExecutionError
from .run import POLL_S, STOP_GRACE_S, interrupt_tag, plan_digest, tagged

EXPLODE_FACTOR = 10.0
EXPLODE_MIN_ROWS = 1000
CACHE_SIZE = 1024
TAG_PREFIX = "substrait-viz-profile-"

Progress = Callable[[float, str], None]


@dataclass
class NodeProfile:
    node_id: str
    kind: str
    rows: int | None = None
    elapsed_s: float | None = None  # the count of the node's whole subtree
    own_s: float | None = None  # estimate: elapsed_s minus the inputs' elapsed_s, at least 0
    error: str | None = None
    skipped: str | None = None
    flags: list[str] = field(default_factory=list)  # "empty", "exploded"
    factor: float | None = None  # rows / the largest input's rows
    cached: bool = False  # the count came from the memo, not from this run


@dataclass
class Profile:
    nodes: dict[str, NodeProfile]  # in the plan's node order
    elapsed_s: float = 0.0
    stopped: str | None = None  # "cancelled" or "timed out after N s" when the profile was stopped

    @property
    def errors(self) -> dict[str, str]:
        return {n: p.error for n, p in self.nodes.items() if p.error}

    def flagged(self, flag: str) -> list[str]:
        return [n for n, p in self.nodes.items() if flag in p.flags]

    def to_json(self) -> dict:
        """Plain JSON-able data (``json.dumps`` works on it)."""
        return {"elapsed_s": self.elapsed_s, "stopped": self.stopped,
                "nodes": {n: asdict(p) for n, p in self.nodes.items()}}

    def overlay(self) -> Overlay:
        """What ``viz.render.to_dot`` draws over the graph (``View(profile=...)``)."""
        return Overlay(tuple(
            (n, NodeStat(rows=p.rows, elapsed_s=p.elapsed_s, flags=tuple(p.flags), factor=p.factor,
                         error=p.error, skipped=p.skipped))
            for n, p in self.nodes.items()
        ))


# ---- the memo ------------------------------------------------------------------------------

_memo: OrderedDict[tuple, tuple[int, float]] = OrderedDict()
_memo_lock = threading.Lock()


def clear_cache() -> None:
    with _memo_lock:
        _memo.clear()


def _memo_get(key: tuple) -> tuple[int, float] | None:
    with _memo_lock:
        if key in _memo:
            _memo.move_to_end(key)
            return _memo[key]
        return None


def _memo_put(key: tuple, value: tuple[int, float]) -> None:
    with _memo_lock:
        _memo[key] = value
        _memo.move_to_end(key)
        while len(_memo) > CACHE_SIZE:
            _memo.popitem(last=False)


# ---- which nodes, in which order -----------------------------------------------------------


def _main_query_nodes(model) -> set[str]:
    """Nodes reachable from the roots through inputs and references (not through subqueries)."""
    seen: set[str] = set()
    stack = list(model.roots)
    while stack:
        nid = stack.pop()
        if nid in seen or nid not in model.graph.nodes:
            continue
        seen.add(nid)
        stack.extend(model.node(nid).inputs)
    return seen


def _inputs_first(model, wanted: Iterable[str]) -> list[str]:
    """``wanted`` ordered so every node comes after its inputs (iterative post-order)."""
    order: list[str] = []
    state: dict[str, int] = {}
    wanted_set = set(wanted)
    for start in wanted:
        stack = [(start, False)]
        while stack:
            nid, done = stack.pop()
            if done:
                if nid in wanted_set:
                    order.append(nid)
                continue
            if state.get(nid) or nid not in model.graph.nodes:
                continue
            state[nid] = 1
            stack.append((nid, True))
            stack.extend((c, False) for c in reversed(model.node(nid).inputs) if not state.get(c))
    return order


def flags_for(rows: int, input_rows: list[int]) -> tuple[list[str], float | None]:
    """The flags for a node with ``rows`` output rows and these inputs' row counts (see the module)."""
    if not input_rows:
        return [], None
    largest = max(input_rows)
    flags = []
    if rows == 0 and largest > 0:
        flags.append("empty")
    if rows > EXPLODE_FACTOR * largest and rows > EXPLODE_MIN_ROWS:
        flags.append("exploded")
    factor = rows / largest if largest else None
    return flags, factor


# ---- running -------------------------------------------------------------------------------


class _Stopped(Exception):
    pass


class _Work:
    """The counts of one profile, done in a worker thread that carries the profile's tag."""

    def __init__(self, model, order: list[str], profile: Profile, spark, catalog, keys: dict[str, tuple]) -> None:
        self.model, self.order, self.profile, self.spark, self.catalog, self.keys = model, order, profile, spark, catalog, keys
        self.tag = f"{TAG_PREFIX}{uuid.uuid4().hex}"
        self.stopped = threading.Event()
        self.executing = threading.Event()  # a Spark action may be running
        self.done_count = 0
        self.current: str | None = None
        self.error: BaseException | None = None

    def __call__(self) -> None:
        try:
            with tagged(self.spark, self.tag, "substrait-viz profile"):
                for nid in self.order:
                    if self.stopped.is_set():
                        break
                    self.current = nid
                    self._one(nid)
                    self.done_count += 1
        except _Stopped:
            pass
        except BaseException as exc:  # noqa: BLE001 - a bug of ours: reported by the supervisor
            self.error = exc
        finally:
            self.current = None

    def _one(self, nid: str) -> None:
        p = self.profile.nodes[nid]
        failed = [i for i in self.model.node(nid).inputs if i in self.profile.nodes
                  and (self.profile.nodes[i].error or self.profile.nodes[i].skipped)]
        if failed:
            p.skipped = f"not run: its input {failed[0]} " + ("failed" if self.profile.nodes[failed[0]].error else "was not run")
            return
        memo = _memo_get(self.keys[nid])
        if memo is not None:
            p.rows, p.elapsed_s = memo
            p.cached = True
            return
        from .translate_rel import translate

        try:
            df = translate(self.model, nid, self.spark, self.catalog).df
            if self.stopped.is_set():
                raise _Stopped
            self.executing.set()
            if self.stopped.is_set():
                raise _Stopped
            start = time.perf_counter()
            rows = int(df.count())
            elapsed = time.perf_counter() - start
        except _Stopped:
            raise
        except ExecutionError as exc:
            if self.stopped.is_set():
                raise _Stopped from exc
            p.error = str(exc)
            return
        except Exception as exc:  # Spark's own errors: collected, the rest goes on
            if self.stopped.is_set():
                raise _Stopped from exc
            first = (str(exc).strip().splitlines() or [""])[0][:500]
            p.error = f"Spark failed counting node {nid}: {type(exc).__name__}: {first}"
            return
        finally:
            self.executing.clear()
        p.rows, p.elapsed_s = rows, elapsed
        _memo_put(self.keys[nid], (rows, elapsed))


def _finish(model, profile: Profile) -> None:
    """Own-time estimates and flags, from the counts (inputs' results are all known by now)."""
    for nid, p in profile.nodes.items():
        if p.rows is None:
            continue
        inputs = [profile.nodes.get(i) for i in model.node(nid).inputs]
        if any(i is None or i.rows is None for i in inputs):
            continue
        p.flags, p.factor = flags_for(p.rows, [i.rows for i in inputs])
        if p.elapsed_s is not None:
            p.own_s = max(0.0, p.elapsed_s - sum(i.elapsed_s or 0.0 for i in inputs))


def profile_plan(
    model,
    catalog,
    spark=None,
    node_ids: Iterable[str] | None = None,
    timeout_s: float | None = None,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
) -> Profile:
    """Count every runnable node of ``model`` (or of ``node_ids``); see the module docstring.

    Never raises for a node that fails (its ``error`` says why); raises ``ExecutionError`` only
    for an unknown node id."""
    from .executable import executability

    all_ids = list(model.graph.nodes)
    wanted = all_ids if node_ids is None else list(node_ids)
    unknown = [n for n in wanted if n not in model.graph.nodes]
    if unknown:
        raise ExecutionError(f"the plan has no node {unknown[0]!r}; its nodes are {', '.join(all_ids[:20])}")
    wanted_set = set(wanted)
    profile = Profile({n: NodeProfile(n, model.node(n).kind) for n in all_ids if n in wanted_set})
    ok = executability(model)
    main = _main_query_nodes(model)
    runnable = []
    for nid in profile.nodes:
        e = ok.get(nid)
        if nid not in main:
            profile.nodes[nid].skipped = "inside a subquery (it runs once per outer row): not profiled"
        elif e is not None and not e.ok:
            profile.nodes[nid].skipped = f"cannot run on Spark: {e.reason}"
        else:
            runnable.append(nid)
    order = _inputs_first(model, runnable)
    begin = time.monotonic()
    if order:
        if spark is None:
            from .session import get_session

            spark = get_session()
        digest, fingerprint = plan_digest(model), catalog.fingerprint()
        keys = {n: (digest, n, fingerprint) for n in order}
        work = _Work(model, order, profile, spark, catalog, keys)
        profile.stopped = _supervise(work, spark, timeout_s, cancel, progress, len(order), begin)
        if work.error is not None:
            raise ExecutionError(f"internal error while profiling (a bug; please report it): "
                                 f"{type(work.error).__name__}: {work.error}") from work.error
        if profile.stopped:
            for nid in order:
                p = profile.nodes[nid]
                if p.rows is None and p.error is None and p.skipped is None:
                    p.skipped = f"not run: the profile was {profile.stopped}"
    _finish(model, profile)
    profile.elapsed_s = time.monotonic() - begin
    if progress is not None and not profile.stopped:
        progress(1.0, f"{len(order)} node(s) counted in {profile.elapsed_s:.1f} s")
    return profile


def _supervise(work: _Work, spark, timeout_s, cancel, progress, total: int, begin: float) -> str | None:
    worker = threading.Thread(target=work, name=f"profile-{work.tag}", daemon=True)
    worker.start()
    reason: str | None = None
    while worker.is_alive():
        worker.join(POLL_S)
        if not worker.is_alive():
            break
        elapsed = time.monotonic() - begin
        if cancel is not None and cancel.is_set():
            reason = "cancelled"
        elif timeout_s is not None and elapsed > timeout_s:
            reason = f"timed out after {timeout_s:g} s"
        if reason:
            work.stopped.set()
            end = time.monotonic() + STOP_GRACE_S
            while worker.is_alive() and time.monotonic() < end:
                interrupt_tag(spark, work.tag)
                worker.join(POLL_S)
            from .reaper import watch

            watch(spark)  # tasks that ignore the interrupt are ended too (executor.reaper)
            break
        if progress is not None:
            current = f", counting node {work.current}" if work.current else ""
            progress(min(work.done_count / total, 0.99), f"{work.done_count}/{total} nodes{current} ({elapsed:.0f} s)")
    return reason


__all__ = ["EXPLODE_FACTOR", "EXPLODE_MIN_ROWS", "NodeProfile", "Profile", "clear_cache", "flags_for", "profile_plan"]
