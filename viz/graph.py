"""The graph of relations: one node per relation, with stable path-like ids.

Ids: the top relation of ``PlanRel`` number ``i`` is ``"i"``; input ``k`` of node ``n`` is ``"n.k"``;
the ``j``-th relation found inside the expressions of node ``n`` (a subquery) is ``"n.sj"``. A step
repeated more than three times in a row is written once with a count, ``"0.0*500.1"`` for 500 first
inputs and then a second input, so ids stay short in deep chains (and the id of every node of a
10,000-relation chain is not 20,000 characters long). A
``ReferenceRel`` is a node whose one input edge points at the shared subtree's top node: the subtree
is never copied.

Children are found through the protobuf descriptors (every ``Rel`` field of a relation is an
input), not a hand-kept list, so every relation in the proto is walked, including ones added later.
The walk is iterative: plans of any depth build.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from substrait import algebra_pb2, plan_pb2

from .errors import Diagnostic, error

_REL = algebra_pb2.Rel.DESCRIPTOR


@dataclass
class Edge:
    source: str  # the consuming node
    target: str  # the node it reads from
    kind: str  # "input", "reference" or "subquery"
    position: int  # input position, or subquery ordinal


@dataclass
class Node:
    id: str
    kind: str  # the Rel oneof name: "read", "join", "hash_join", ...
    rel: algebra_pb2.Rel
    root_index: int
    parent: str | None
    inputs: list[str] = field(default_factory=list)  # input nodes in input order (a reference's target included)
    subqueries: list[str] = field(default_factory=list)
    subquery_rels: dict[int, str] = field(default_factory=dict)  # id(Rel wrapper) -> node id
    is_subquery: bool = False  # top relation of a subquery expression
    depth: int = 0  # steps from its PlanRel's top relation

    @property
    def body(self):
        return getattr(self.rel, self.kind) if self.kind else None


@dataclass
class PlanGraph:
    nodes: dict[str, Node]
    roots: list[str]  # top node of each PlanRel, in plan order
    root_names: dict[str, list[str]]  # root node id -> RelRoot names
    edges: list[Edge]
    diagnostics: list[Diagnostic]  # graph-level problems, each tagged with its node

    def children(self, node_id: str, subqueries: bool = True) -> list[str]:
        """What the node reads: its inputs (a reference's shared subtree included), then, unless
        ``subqueries=False``, the top relations of its subqueries."""
        n = self.nodes[node_id]
        return n.inputs + n.subqueries if subqueries else n.inputs

    @cached_property
    def _readers(self) -> dict[str, list[tuple[str, str]]]:
        """Node id -> (reading node, edge kind) for every edge into it, in edge order."""
        out: dict[str, list[tuple[str, str]]] = {}
        for e in self.edges:
            out.setdefault(e.target, []).append((e.source, e.kind))
        return out

    def parents(self, node_id: str, subqueries: bool = False) -> list[str]:
        """The nodes that read ``node_id`` as an input (directly or through a reference), in edge
        order; with ``subqueries``, also the node whose expressions hold it as a subquery."""
        out: list[str] = []
        for source, kind in self._readers.get(node_id, ()):
            if (subqueries or kind != "subquery") and source not in out:
                out.append(source)
        return out

    @cached_property
    def shared_relations(self) -> list[str]:
        """The top nodes of the plan's relations without a RelRoot that a ReferenceRel reads: subtrees
        the roots share, no query's result."""
        return [r for r in self.roots if r not in self.root_names and self.parents(r)]

    def enclosing(self, node_id: str, boundaries: int) -> str | None:
        """The node ``boundaries`` subquery boundaries out from ``node_id``: the one whose expressions
        hold that subquery, whose incoming record an outer reference stepping out that far reads (and
        whose run includes the subquery). None past the plan's top."""
        cur = self.nodes.get(node_id)
        crossed = 0
        while boundaries > 0 and cur is not None and cur.parent is not None:
            parent = self.nodes.get(cur.parent)
            if cur.is_subquery:
                crossed += 1
                if crossed == boundaries:
                    return parent.id if parent is not None else None
            cur = parent
        return None

    def leaves(self) -> list[str]:
        """The nodes without inputs (reads, virtual tables, extension leaves), in node order."""
        return [n for n, node in self.nodes.items() if not node.inputs]

    def subtree(
        self, *starts: str, subqueries: bool = True, expand: Callable[[str], bool] | None = None
    ) -> Iterator[str]:
        """Ids of the ``starts`` and everything they read from, each once, parents before what they
        read (references followed; subqueries unless ``subqueries=False``). ``expand`` says whether
        to go below a node (default: always); the node itself is still yielded."""
        seen: set[str] = set()
        stack = list(reversed(starts))
        while stack:
            cur = stack.pop()
            if cur in seen or cur not in self.nodes:
                continue
            seen.add(cur)
            yield cur
            if expand is None or expand(cur):
                stack.extend(reversed(self.children(cur, subqueries)))

    def ancestors(self, node_id: str, subqueries: bool = True) -> set[str]:
        """Every node that reads ``node_id``, directly or not (the node itself only on a cycle)."""
        seen: set[str] = set()
        stack = self.parents(node_id, subqueries)
        while stack:
            cur = stack.pop()
            if cur not in seen:
                seen.add(cur)
                stack.extend(self.parents(cur, subqueries))
        return seen

    def around(self, node_id: str, levels: int = 2) -> list[str]:
        """The node's neighbourhood: its readers up to ``levels`` steps up, the node, and what it
        reads (inputs) up to ``levels`` steps down, each once, top to bottom."""
        up: list[list[str]] = [[node_id]]
        down: list[list[str]] = [[node_id]]
        for _ in range(levels):
            up.append([p for n in up[-1] for p in self.parents(n)])
            down.append([c for n in down[-1] for c in self.nodes[n].inputs if c in self.nodes])
        return list(
            dict.fromkeys(
                [*(n for level in reversed(up[1:]) for n in level), node_id, *(n for level in down[1:] for n in level)]
            )
        )

    def post_order(
        self, starts: Iterable[str] | None = None, *, subqueries: bool = True, done: Container[str] = ()
    ) -> list[str]:
        """Node ids with every node after all it reads (inputs in order, then subqueries unless
        ``subqueries=False``), each once: the order every bottom-up pass derives its facts in.

        From ``starts`` (default: the roots in plan order, then every node they do not reach). Nodes
        in ``done`` (a pass's memo) are neither listed nor walked below. A reference cycle is cut
        where it closes: the node that closes it comes before the node it reads. Iterative, so any
        depth walks."""
        if starts is None:
            starts = [*self.roots, *self.nodes]
        order: list[str] = []
        state: dict[str, bool] = {}  # False: below it being walked; True: listed
        for start in starts:
            if start in state or start in done or start not in self.nodes:
                continue
            stack: list[tuple[str, bool]] = [(start, False)]
            while stack:
                cur, expanded = stack.pop()
                if expanded:
                    state[cur] = True
                    order.append(cur)
                    continue
                if cur in state or cur in done or cur not in self.nodes:
                    continue
                state[cur] = False
                stack.append((cur, True))
                stack.extend((c, False) for c in reversed(self.children(cur, subqueries)) if c not in state)
        return order


# ---------------------------------------------------------------------------------------------
# Descriptor analysis, computed once per message type
# ---------------------------------------------------------------------------------------------

_rel_fields_cache: dict[str, list[FieldDescriptor]] = {}
_carrier_fields_cache: dict[str, list[FieldDescriptor]] = {}
_may_hold_rel: dict[str, bool] = {}


def _compute_may_hold_rel(desc: Descriptor) -> bool:
    """Whether a message of this type can (transitively) contain a Rel, e.g. through a subquery."""
    if desc.full_name in _may_hold_rel:
        return _may_hold_rel[desc.full_name]
    # Iterative fixpoint over the reachable descriptor graph.
    reachable: dict[str, Descriptor] = {}
    stack = [desc]
    while stack:
        d = stack.pop()
        if d.full_name in reachable:
            continue
        reachable[d.full_name] = d
        for f in d.fields:
            if f.message_type is not None:
                stack.append(f.message_type)
    holds = {
        name: any(f.message_type is not None and f.message_type.full_name == _REL.full_name for f in d.fields)
        for name, d in reachable.items()
    }
    changed = True
    while changed:
        changed = False
        for name, d in reachable.items():
            if holds[name]:
                continue
            if any(f.message_type is not None and holds.get(f.message_type.full_name, False) for f in d.fields):
                holds[name] = True
                changed = True
    _may_hold_rel.update(holds)
    return holds[desc.full_name]


def rel_fields(desc: Descriptor) -> list[FieldDescriptor]:
    """The fields of a relation body that hold its inputs (``Rel`` typed), in field order."""
    out = _rel_fields_cache.get(desc.full_name)
    if out is None:
        out = [f for f in desc.fields if f.message_type is not None and f.message_type.full_name == _REL.full_name]
        _rel_fields_cache[desc.full_name] = out
    return out


def _carrier_fields(desc: Descriptor) -> list[FieldDescriptor]:
    """Non-input message fields that may hold a Rel somewhere below (expressions with subqueries)."""
    out = _carrier_fields_cache.get(desc.full_name)
    if out is None:
        out = [
            f
            for f in desc.fields
            if f.message_type is not None
            and f.message_type.full_name != _REL.full_name
            and not f.message_type.GetOptions().map_entry
            and _compute_may_hold_rel(f.message_type)
        ]
        _carrier_fields_cache[desc.full_name] = out
    return out


def _present(msg, f: FieldDescriptor):
    if f.is_repeated:
        return list(getattr(msg, f.name))
    if msg.HasField(f.name):
        return [getattr(msg, f.name)]
    return []


def input_rels(body) -> list[algebra_pb2.Rel]:
    out: list[algebra_pb2.Rel] = []
    for f in rel_fields(body.DESCRIPTOR):
        out.extend(_present(body, f))
    return out


def subquery_rels(body) -> list[algebra_pb2.Rel]:
    """Relations nested in a relation body's expressions (subqueries), depth first in field order."""
    out: list[algebra_pb2.Rel] = []
    stack: list[tuple[bool, object]] = [(False, body)]
    while stack:
        is_rel, msg = stack.pop()
        if is_rel:
            out.append(msg)  # type: ignore[arg-type]
            continue
        scan = _scan_fields(msg.DESCRIPTOR)  # type: ignore[attr-defined]
        if not scan:
            continue
        found: list[tuple[bool, object]] = []
        for f, value in msg.ListFields():  # type: ignore[attr-defined]
            holds_rel = scan.get(f.number)
            if holds_rel is None or (holds_rel and msg is body):
                continue  # not a carrier, or a relation's own Rel field (its input)
            if f.is_repeated:
                found.extend((holds_rel, child) for child in value)
            else:
                found.append((holds_rel, value))
        stack.extend(reversed(found))
    return out


_scan_cache: dict[str, dict[int, bool]] = {}


def _scan_fields(desc: Descriptor) -> dict[int, bool]:
    """Fields worth scanning for subqueries, by number: whether each is Rel typed."""
    out = _scan_cache.get(desc.full_name)
    if out is None:
        carriers = set(_carrier_fields(desc))
        out = {
            f.number: f.message_type.full_name == _REL.full_name
            for f in desc.fields
            if f.message_type is not None and (f.message_type.full_name == _REL.full_name or f in carriers)
        }
        _scan_cache[desc.full_name] = out
    return out


# ---------------------------------------------------------------------------------------------
# Building
# ---------------------------------------------------------------------------------------------


class _IdParts:
    """An id as a shared prefix plus a run of one repeated step (see the module docstring)."""

    __slots__ = ("prefix", "step", "run")

    def __init__(self, prefix: str, step: str, run: int) -> None:
        self.prefix, self.step, self.run = prefix, step, run

    def text(self) -> str:
        if self.run == 0:
            return self.prefix
        if self.run <= 3:
            return self.prefix + f".{self.step}" * self.run
        return f"{self.prefix}.{self.step}*{self.run}"

    def child(self, step: str, times: int = 1) -> _IdParts:
        if step == self.step:
            return _IdParts(self.prefix, step, self.run + times)
        return _IdParts(self.text(), step, times)


_STEP = re.compile(r"(s?\d+)(?:\*(\d+))?")


def canonical_id(text: str) -> str:
    """A node id written any way its steps read (``0.0.0.0.0``, ``0.0*2.0.0``) as the graph writes it
    (``0.0*4``); text that is not an id, as it is."""
    first, *steps = text.strip().split(".")
    if not first.isdigit():
        return text
    parts = _IdParts(first, "", 0)
    for step in steps:
        m = _STEP.fullmatch(step)
        if m is None or m[2] == "0":
            return text
        parts = parts.child(m[1], int(m[2] or 1))
    return parts.text()


def build_graph(plan: plan_pb2.Plan, subqueries: bool = True) -> PlanGraph:
    """The graph of ``plan``. ``subqueries=False`` skips looking for relations inside expressions:
    only for a plan known to have none (the JSON loader counts them, see ``LoadedPlan.nested_rels``)."""
    nodes: dict[str, Node] = {}
    roots: list[str] = []
    root_names: dict[str, list[str]] = {}
    edges: list[Edge] = []
    diags: list[Diagnostic] = []
    references: list[tuple[str, int]] = []

    for i, prel in enumerate(plan.relations):
        which = prel.WhichOneof("rel_type")
        node_id = str(i)
        roots.append(node_id)
        if which == "root":
            rel = prel.root.input
            root_names[node_id] = list(prel.root.names)
        elif which == "rel":
            rel = prel.rel
        else:
            rel = algebra_pb2.Rel()
        # Pre-order walk over (rel, id, parent, is_subquery, depth, id parts).
        stack: list[tuple] = [(rel, node_id, None, False, 0, _IdParts(node_id, "", 0))]
        while stack:
            cur, cur_id, parent, is_sub, depth, parts = stack.pop()
            kind = cur.WhichOneof("rel_type") or ""
            node = Node(cur_id, kind, cur, i, parent, is_subquery=is_sub, depth=depth)
            nodes[cur_id] = node
            if not kind:
                diags.append(
                    error(
                        "empty-relation",
                        "this relation has no type set (expected one of read, filter, project, join, ...)",
                        cur_id,
                    )
                )
                continue
            body = getattr(cur, kind)
            pending: list[tuple] = []
            for k, child in enumerate(input_rels(body)):
                child_parts = parts.child(str(k))
                child_id = child_parts.text()
                node.inputs.append(child_id)
                edges.append(Edge(cur_id, child_id, "input", k))
                pending.append((child, child_id, cur_id, False, depth + 1, child_parts))
            if kind == "reference":
                references.append((cur_id, body.subtree_ordinal))
            for j, sub in enumerate(subquery_rels(body) if subqueries else ()):
                sub_parts = parts.child(f"s{j}")
                sub_id = sub_parts.text()
                node.subqueries.append(sub_id)
                node.subquery_rels[id(sub)] = sub_id
                edges.append(Edge(cur_id, sub_id, "subquery", j))
                pending.append((sub, sub_id, cur_id, True, depth + 1, sub_parts))
            stack.extend(reversed(pending))

    for ref_id, ordinal in references:
        if 0 <= ordinal < len(roots):
            target = roots[ordinal]
            nodes[ref_id].inputs.append(target)
            edges.append(Edge(ref_id, target, "reference", 0))
        else:
            valid = f"0-{len(roots) - 1}" if roots else "none"
            diags.append(
                error(
                    "reference-out-of-range",
                    f"ReferenceRel points at relation {ordinal}, but the plan has {len(roots)} relations ({valid})",
                    ref_id,
                )
            )
    _check_reference_cycles(nodes, references, roots, diags)
    return PlanGraph(nodes, roots, root_names, edges, diags)


def _check_reference_cycles(nodes, references, roots, diags) -> None:
    """A ReferenceRel that (through other references) reaches its own plan relation is a cycle."""
    if not references:
        return
    # root index -> root indices it references (from any node inside it)
    refs_of: dict[int, list[tuple[int, str]]] = {}
    for ref_id, ordinal in references:
        if 0 <= ordinal < len(roots):
            refs_of.setdefault(nodes[ref_id].root_index, []).append((ordinal, ref_id))
    for start, outgoing in refs_of.items():
        for ordinal, ref_id in outgoing:
            seen = set()
            stack = [ordinal]
            while stack:
                cur = stack.pop()
                if cur == start:
                    diags.append(
                        error(
                            "reference-cycle",
                            f"ReferenceRel to relation {ordinal} forms a cycle back to relation {start}; "
                            "a plan must be a DAG",
                            ref_id,
                        )
                    )
                    break
                if cur in seen:
                    continue
                seen.add(cur)
                stack.extend(o for o, _ in refs_of.get(cur, []))
