"""The engine's own plan for a node: Spark's and DataFusion's physical plan of the node's subtree, with
the operators that are this node's set apart from those of its inputs. Nothing is executed.

- **Spark**: the node's translation (:func:`executor.jobs.run.translation`) explained in Spark's
  ``simple`` mode, parsed into a tree by its indentation (classic and Connect sessions print the same).
  With adaptive execution on, Spark prints ``AdaptiveSparkPlan isFinalPlan=false`` over the *initial*
  plan, exchanges in place but no codegen stages yet; that line is dropped and the plan says so
  (``EnginePlan.source``): stages may be re-planned at run time (a sort-merge join can become a broadcast).
- **DataFusion**: the node's sub-plan through its Substrait consumer and planner
  (``DataFusionRunner._frame(node_id, for_check=True)``), its ``ExecutionPlan`` walked node by node.

Which operators are this node's: each input (``model.graph.children``: inputs and subqueries) is planned
alone too, and its operators counted by key: the operator's name (``*(1)`` codegen marks and expression
ids play no part) and, for scans, the file read. Operators that engines add, drop or move by context are
not counted (:data:`WRAPPERS`): Spark's ``WholeStageCodegen``/``InputAdapter``/``ColumnarToRow``/
``RowToColumnar``/``AdaptiveSparkPlan`` and DataFusion's ``CoalesceBatchesExec``/``RepartitionExec``/
``CoalescePartitionsExec``/``CooperativeExec``, and the projections of both (``Project``,
``ProjectionExec``), which column pruning inserts into, and collapsing removes from, an input's part.
Then, from the top of the node's plan down, an operator whose subtree's counts fit within one input's
counts starts that input's part (it and everything below); any other operator is this node's. Counts
rather than an exact subtree match because the same input is planned differently inside a larger plan.
An uncounted operator on top of an input's part is this node's unless the input's own plan has it right
above the same operator (DataFusion's coalesce under a ``CollectLeft`` join is there for the join; the
projection that renames every Spark read's columns stays the read's while it sits right above the scan).

Where the engine moved work across the node (a filter pushed below a join, a join reordered), the
position cannot say exactly: the operators placed above the inputs' parts that the inputs' counts
account for are named in ``notes``, and are marked by their place. A node with no operator of its own
(a filter merged into its input's filter, a projection folded into the scan) says so; a predicate pushed
into an input's scan (Spark's ``PushedFilters``, DataFusion's ``predicate=``) is named in ``notes`` too,
as the scan itself stays the input's. An engine that cannot take the node gives ``error``, in words.

Plans are kept per (plan digest, node id, engine, catalog fingerprint).
"""

from __future__ import annotations

import contextlib
import io
import re
from collections import Counter
from dataclasses import dataclass, field

from ..cache import BoundedCache
from .engine_types import ENGINE_NAMES, StandInTables

SPARK = "spark"
DATAFUSION = "datafusion"
OWN_MARK = "▶ "
CACHE_SIZE = 128

#: Operators an engine adds, drops, collapses or moves by context (codegen stages, batching and
#: repartitioning, column pruning): never counted when matching (see the module).
WRAPPERS = {
    SPARK: frozenset(
        {"WholeStageCodegen", "InputAdapter", "ColumnarToRow", "RowToColumnar", "AdaptiveSparkPlan", "Project"}
    ),
    DATAFUSION: frozenset(
        {"CoalesceBatchesExec", "RepartitionExec", "CoalescePartitionsExec", "CooperativeExec", "ProjectionExec"}
    ),
}

#: Of the wrappers, those that compute (a projection's expressions): one marked as a node's is its work.
PROJECTIONS = frozenset({"Project", "ProjectionExec"})

_SPARK_LINE = re.compile(r"^((?:[ :]  )*)([+:]- )?(.*)$")
_CODEGEN = re.compile(r"^\*\(\d+\) ")
_NAME = re.compile(r"[A-Za-z_]\w*")
_FILE = re.compile(r"([^/\[\]\s,'\"]+\.(?:parquet|csv|json|orc|avro|arrow|txt))\b")
_PUSHED = {
    SPARK: re.compile(r"PushedFilters: \[([^\]]+)"),
    DATAFUSION: re.compile(r"(?<![_\w])predicate=(?!DynamicFilter)"),  # not the join's run-time filter
}
_TITLE = ENGINE_NAMES
SPARK_AQE_SOURCE = (
    "Spark's initial plan (adaptive execution is on: stages may be re-planned at run time, "
    "e.g. a sort-merge join become a broadcast join; codegen stages are formed then)"
)
SPARK_SOURCE = "Spark's executed plan (not run)"
DATAFUSION_SOURCE = "DataFusion's physical plan (not run)"


@dataclass(frozen=True)
class PlanLine:
    text: str  # one operator line of the engine's physical plan, indented as the engine prints it
    depth: int
    own: bool  # the operator belongs to this node (not to its inputs' subtrees)
    name: str = ""  # the operator's name ("Filter", "HashJoinExec")


@dataclass(frozen=True)
class EnginePlan:
    engine: str  # "spark" | "datafusion"
    node_id: str
    lines: tuple[PlanLine, ...]
    error: str | None = None  # why there is no plan (cannot translate / consume), in words
    source: str = ""  # which plan of the engine this is
    notes: tuple[str, ...] = ()  # where the split into own and input operators is not exact, and why

    def own_operators(self) -> tuple[str, ...]:
        """The names of this node's operators, top first (wrappers included)."""
        return tuple(line.name for line in self.lines if line.own)

    def text(self) -> str:
        """The plan as plain text, this node's operators marked with ``▶``; notes or the error below."""
        if self.error is not None:
            return f"{_TITLE[self.engine]} has no plan for node {self.node_id}: {self.error}"
        body = [(OWN_MARK if line.own else " " * len(OWN_MARK)) + line.text for line in self.lines]
        head = [f"{self.source}; {OWN_MARK.strip()} marks node {self.node_id}'s operators"] if self.source else []
        return "\n".join(head + body + [f"note: {n}" for n in self.notes])


@dataclass
class _Op:
    name: str
    text: str  # as the engine prints the operator, without indentation
    line: str  # as the engine prints it, indented
    wrapper: bool
    children: list[_Op] = field(default_factory=list)

    @property
    def key(self) -> str:
        """The name, and for a scan the file it reads: reads of two tables do not match."""
        found = _FILE.search(self.text)
        return f"{self.name}[{found.group(1)}]" if found else self.name


_cache: BoundedCache[tuple, EnginePlan] = BoundedCache(CACHE_SIZE)


def clear_cache() -> None:
    _cache.clear()


def spark_plan(model, node_id: str, catalog=None) -> EnginePlan:
    """Spark's physical plan of node ``node_id``'s subtree, this node's operators marked (see the
    module). ``catalog`` None: the tables Spark's own catalog knows. Nothing is executed."""
    return _plan(SPARK, model, node_id, catalog)


def datafusion_plan(model, node_id: str, catalog=None) -> EnginePlan:
    """DataFusion's physical plan of node ``node_id``'s subtree, this node's operators marked (see the
    module). ``catalog`` None: tables planned as empty stand-ins with the plan's columns."""
    return _plan(DATAFUSION, model, node_id, catalog)


def _plan(engine: str, model, node_id: str, catalog) -> EnginePlan:
    key = (model.digest, node_id, engine, catalog.fingerprint(model) if catalog is not None else None)
    hit = _cache.get(key)
    if hit is not None:
        return hit
    made = _make(engine, model, node_id, catalog)
    _cache.put(key, made)
    return made


def _make(engine: str, model, node_id: str, catalog) -> EnginePlan:
    if node_id not in model.graph.nodes:
        return EnginePlan(engine, node_id, (), error=f"the plan has no node {node_id!r}")
    tree_of = _spark_tree if engine == SPARK else _datafusion_trees(model, catalog)
    try:
        root, source = tree_of(model, node_id, catalog)
    except Exception as exc:  # noqa: BLE001 - every failure to plan is a reason shown in words
        return EnginePlan(engine, node_id, (), error=_reason(exc))
    notes: list[str] = []
    inputs: list[_Op] = []
    for child in model.graph.children(node_id):
        try:
            inputs.append(tree_of(model, child, catalog)[0])
        except Exception as exc:  # noqa: BLE001 - the node's operators are then marked without that input
            notes.append(
                f"input {child} has no plan of its own on {_TITLE[engine]} ({_reason(exc)}): its operators are "
                "counted as this node's"
            )
    own = _own(root, inputs, engine)
    notes.extend(_notes(root, inputs, own, engine))
    lines = tuple(PlanLine(op.line, depth, id(op) in own, op.name) for op, depth in _walk(root))
    return EnginePlan(engine, node_id, lines, source=source, notes=tuple(notes))


def _reason(exc: BaseException) -> str:
    from ..errors import ExecutionError, Unsupported
    from ..jobs.run import spark_reason

    if isinstance(exc, (ExecutionError, Unsupported)):
        return str(exc)
    return spark_reason(exc)


# ---- the engines' trees ---------------------------------------------------------------------------


def _spark_tree(model, node_id: str, catalog) -> tuple[_Op, str]:
    """Node ``node_id``'s physical plan on Spark, as a tree, and which plan it is. A table the catalog does
    not bind is planned as an empty stand-in with the read's columns, as the types are (nothing is read)."""
    from ..errors import Unsupported
    from ..jobs.run import _explain_lock, refuse_writes
    from ..spark.session import get_session
    from ..translate.executable import executability
    from ..translate.rel import translate

    refuse_writes(model, node_id)
    runnable = executability(model)[node_id]
    if not runnable.ok:
        raise Unsupported(runnable.reason)
    tables = StandInTables(model, catalog)
    df = translate(model, node_id, get_session(), tables).df
    buf = io.StringIO()
    with _explain_lock, contextlib.redirect_stdout(buf):
        df.explain(mode="simple")
    root, source = parse_spark(buf.getvalue())
    if tables.empty:
        names = ", ".join(f"`{t}`" for t in sorted(tables.empty))
        source += f"; not bound, so planned as empty tables with the plan's columns: {names}"
    return root, source


def parse_spark(explained: str) -> tuple[_Op, str]:
    """Spark's ``simple`` explain as a tree (each line's parent: the nearest line above it that is less
    deep, so a subquery Spark prints two levels down hangs under the operator that holds it), and which
    plan it is. A top ``AdaptiveSparkPlan`` line is dropped: the initial plan below it is the plan."""
    text = explained.split("== Physical Plan ==", 1)[-1]
    if "Error occurred during query planning" in text:
        raise ValueError(" ".join(text.split("query planning:", 1)[-1].split())[:500] or "Spark could not plan it")
    rows = []
    for raw in text.splitlines():
        if not raw.strip():
            continue
        prefix, branch, body = _SPARK_LINE.match(raw).groups()
        depth = len(prefix) // 3 + (1 if branch else 0)
        rows.append((depth, body, raw))
    if not rows:
        raise ValueError("Spark printed no physical plan")
    source = SPARK_SOURCE
    if rows[0][0] == 0 and _name(rows[0][1]) == "AdaptiveSparkPlan" and len(rows) > 1:
        source = SPARK_AQE_SOURCE
        rows = [(d - 1, body, raw[3:]) for d, body, raw in rows[1:]]
    stack: list[tuple[int, _Op]] = []
    root = None
    for depth, body, raw in rows:
        name = _name(body)
        op = _Op(name, _CODEGEN.sub("", body), raw, name in WRAPPERS[SPARK])
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if stack:
            stack[-1][1].children.append(op)
        elif root is None:
            root = op
        else:  # a second top line: Spark printed something that is not one tree
            raise ValueError(f"Spark's plan has two tops: {root.text[:60]!r} and {op.text[:60]!r}")
        stack.append((depth, op))
    return root, source


def _name(body: str) -> str:
    found = _NAME.search(_CODEGEN.sub("", body))
    return found.group(0) if found else body.strip()


def _datafusion_trees(model, catalog):
    """Node id -> DataFusion's plan, from one runner per call (its registered tables shared)."""
    from .datafusion import DataFusionRunner

    runner = None

    def tree_of(model_, node_id: str, catalog_) -> tuple[_Op, str]:
        nonlocal runner
        if runner is None:
            runner = DataFusionRunner(model, catalog)
        return _datafusion_tree(runner, node_id), DATAFUSION_SOURCE

    return tree_of


def _datafusion_tree(runner, node_id: str) -> _Op:
    from ..errors import reraise_interrupts
    from .datafusion import clean

    frame = runner._frame(node_id, for_check=True)
    try:
        with runner._lock:
            plan = frame.execution_plan()
    except BaseException as exc:  # noqa: BLE001 - the physical planner's errors and panics
        reraise_interrupts(exc)
        raise ValueError(f"DataFusion's planner: {clean(exc)}") from None
    return _datafusion_op(plan, 0)


def _datafusion_op(plan, depth: int) -> _Op:
    text = " ".join(plan.display().split())
    name = text.split(":", 1)[0].strip()
    op = _Op(name, text, "  " * depth + text, name in WRAPPERS[DATAFUSION])
    op.children = [_datafusion_op(c, depth + 1) for c in plan.children()]
    return op


# ---- which operators are this node's -------------------------------------------------------------


def _walk(root: _Op):
    """(operator, depth), top first, children in order."""
    stack = [(root, 0)]
    while stack:
        op, depth = stack.pop()
        yield op, depth
        stack.extend((c, depth + 1) for c in reversed(op.children))


def _counts(root: _Op) -> Counter:
    return Counter(op.key for op, _ in _walk(root) if not op.wrapper)


def _wrapped(root: _Op) -> set[tuple[str, str]]:
    """(wrapper name, key of the first operator below it that is not a wrapper) for every wrapper."""
    pairs = set()
    for op, _ in _walk(root):
        below = op
        while below.wrapper and below.children:
            below = below.children[0]
        if op.wrapper and not below.wrapper:
            pairs.add((op.name, below.key))
    return pairs


def _first_kept(op: _Op) -> _Op:
    while op.wrapper and op.children:
        op = op.children[0]
    return op


def _own(root: _Op, inputs: list[_Op], engine: str) -> set[int]:
    """The ids of the operators of ``root`` that are the node's (see the module)."""
    wanted = [(_counts(i), _wrapped(i)) for i in inputs]
    below: dict[int, Counter] = {}  # each operator's subtree counts, made bottom-up once
    for op, _ in reversed(list(_walk(root))):
        below[id(op)] = sum((below[id(c)] for c in op.children), Counter() if op.wrapper else Counter([op.key]))
    own: set[int] = set()
    stack = [root]
    while stack:
        op = stack.pop()
        have = below[id(op)]
        fits = [pairs for counts, pairs in wanted if have and all(counts[k] >= n for k, n in have.items())]
        if not fits:
            own.add(id(op))
            stack.extend(op.children)
            continue
        pairs = set().union(*fits)
        while op.wrapper and len(op.children) == 1 and (op.name, _first_kept(op).key) not in pairs:
            own.add(id(op))
            op = op.children[0]
    return own


def _notes(root: _Op, inputs: list[_Op], own: set[int], engine: str) -> list[str]:
    title = _TITLE[engine]
    ops = [op for op, _ in _walk(root)]
    mine = Counter(op.key for op in ops if id(op) in own and not op.wrapper)
    if not mine and not any(op.name in PROJECTIONS for op in ops if id(op) in own):
        return [
            f"no operator of its own: {title} merged this node's work into its inputs' operators "
            "(e.g. a filter combined with its input's, a projection folded into the scan)"
        ]
    notes = []
    theirs = Counter()
    for i in inputs:
        theirs.update(_counts(i))
    surplus = _counts(root) - theirs
    moved = mine - surplus
    if moved:
        shown = ", ".join(f"{k} ×{n}" if n > 1 else k for k, n in sorted(moved.items()))
        notes.append(
            f"{title} placed operators its inputs also have above this node's ({shown}): its optimizer moved "
            "work across the node (e.g. a filter pushed below a join or a projection), so they are marked as "
            "this node's by their place, not proven to be its"
        )
    pushed = _PUSHED[engine]
    before = {op.key for i in inputs for op, _ in _walk(i) if pushed.search(op.text)}
    into = sorted({op.key for op in ops if id(op) not in own and pushed.search(op.text) and op.key not in before})
    if into:
        how = "PushedFilters" if engine == SPARK else "predicate="
        notes.append(f"a predicate is also pushed into the input's scan ({how}): {', '.join(into)}")
    return notes


__all__ = [
    "DATAFUSION",
    "EnginePlan",
    "PlanLine",
    "SPARK",
    "clear_cache",
    "datafusion_plan",
    "parse_spark",
    "spark_plan",
]
