"""The plan model: a loaded plan, its graph, and every node's derived schema and diagnostics.

``analyze(data)`` is the one entry point the CLI and the app use::

    model = analyze(open("plan.json", "rb").read())
    for node in model.nodes():
        print(node.id, node.kind, [f.name for f in node.schema or []])
"""

from __future__ import annotations

import functools
import hashlib
import weakref
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Generic, TypeVar

from substrait import plan_pb2

from .coercion import variation_names
from .deep import gc_paused, run_deep
from .errors import Diagnostic, PlanLoadError, Severity, error, warning
from .errors import info as info_diagnostic
from .extensions import Extensions
from .fields import Field
from .graph import Node, PlanGraph, build_graph
from .kinds import emitted_at
from .load import LoadedPlan, load_plan
from .properties import NodeProperties, derive_properties
from .schema import SPEC, Conventions, NodeInfo, derive_schemas, root_name_mismatches, unused_expressions


@dataclass
class NodeView:
    """Everything known about one node, for the CLI and the UI."""

    node: Node
    info: NodeInfo
    properties: NodeProperties | None = None  # orderedness, distribution and the node's effect on them
    user_types: Mapping[int, str] = field(default_factory=dict)  # the plan's user-defined type names by anchor
    variations: Mapping[tuple[str, int], str] = field(default_factory=dict)  # its producer's, as shown (u8)

    @property
    def id(self) -> str:
        return self.node.id

    @property
    def kind(self) -> str:
        return self.node.kind or "empty"

    @property
    def inputs(self) -> list[str]:
        return self.node.inputs

    @property
    def schema(self) -> list[Field] | None:
        return self.info.schema

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self.info.diagnostics

    def expression_label(self, role: str) -> str:
        """How the Expressions tab heads an expression of role ``role``: a project's computed column (role
        ``$p``, its place before the emit) by where it lands in the output, ``[k] name`` as the schema
        shows it, since its text reads input fields as ``$i`` too; any other role as it is."""
        if self.kind != "project" or not role.startswith("$") or not role[1:].isdigit() or self.schema is None:
            return role
        direct = int(role[1:])
        places = emitted_at(self.node.body, direct) if self.node.body is not None else [direct]
        if not places:
            return f"{role}, computed but not output (the emit leaves it out)"
        shown = ", ".join(f"[{k}] {self.schema[k].name}".rstrip() for k in places if k < len(self.schema))
        return shown if places == [direct] else f"{shown} ({role} before the emit)"

    def type_text(self, f: Field) -> str:
        """A field's type as this plan spells it: its user-defined types by name, its producer's type
        variations by theirs (DataFusion's ``u8``)."""
        return f.type_text(self.user_types, self.variations)

    def schema_json(self) -> list[dict] | None:
        if self.info.schema is None:
            return None
        return [
            {"index": i, "name": f.name, "type": self.type_text(f), "nullable": f.nullable}
            for i, f in enumerate(self.info.schema)
        ]

    def to_json(self) -> dict:
        out = {
            "id": self.id,
            "kind": self.kind,
            "inputs": list(self.node.inputs),
            "schema": self.schema_json(),
            "diagnostics": [d.to_json() for d in self.info.diagnostics],
            "properties": self.properties.to_json() if self.properties is not None else None,
        }
        if self.node.subqueries:
            out["subqueries"] = list(self.node.subqueries)
        if self.info.detail:
            out["detail"] = self.info.detail
        if self.info.expressions:
            out["expressions"] = [{"role": r, "text": t} for r, t in self.info.expressions]
        return out


@dataclass(frozen=True, eq=False)
class PlanModel:
    """The derived plan, built once by ``analyze`` and not changed afterwards (its fields cannot be
    reassigned; two models are equal only when they are the same object)."""

    loaded: LoadedPlan
    graph: PlanGraph
    extensions: Extensions
    infos: dict[str, NodeInfo]
    conventions: Conventions = SPEC  # the reading of the spec the schemas were derived with
    properties: dict[str, NodeProperties] = field(default_factory=dict)

    @property
    def plan(self) -> plan_pb2.Plan:
        return self.loaded.plan

    @functools.cached_property
    def plan_bytes(self) -> bytes:
        """The plan's deterministic serialisation, made once where deep recursion is safe (a deeply
        nested plan overflows the main thread's stack). Raises as protobuf does on a plan it cannot write."""
        return run_deep(self.plan.SerializeToString, deterministic=True)

    @functools.cached_property
    def digest(self) -> str:
        """The plan's identity for every cache and key: a SHA-256 of its deterministic serialisation
        (the same plan read from JSON or from binary has the same digest), computed once."""
        try:
            data = self.plan_bytes
        except Exception:  # a plan protobuf that cannot serialise (too deep): this object's own identity
            return f"object-{id(self)}"
        return hashlib.sha256(data).hexdigest()

    @property
    def type_variations(self) -> Mapping[tuple[str, int], str]:
        """How the plan's producer's type variations are shown (DataFusion's unsigned ``u8``)."""
        return variation_names(self.conventions.dialect)

    @property
    def roots(self) -> list[str]:
        return self.graph.roots

    @property
    def conventions_in_play(self) -> Conventions:
        """The producer's readings that bear on this plan: its grouping-set column only where an aggregate
        has several grouping sets (else the spec's, which every reading then agrees with)."""
        return _in_play(self.conventions, self.graph)

    @property
    def plan_diagnostics(self) -> list[Diagnostic]:
        """Diagnostics about the plan as a whole (loading, legacy upgrades)."""
        return self.loaded.diagnostics

    def node(self, node_id: str) -> NodeView:
        return NodeView(
            self.graph.nodes[node_id],
            self.infos[node_id],
            self.properties.get(node_id),
            self.extensions.types,
            self.type_variations,
        )

    def nodes(self) -> Iterator[NodeView]:
        for node_id in self.graph.nodes:
            yield self.node(node_id)

    def all_diagnostics(self) -> list[Diagnostic]:
        out = list(self.loaded.diagnostics)
        for info in self.infos.values():
            out.extend(info.diagnostics)
        return out

    def to_json(self) -> dict:
        return {
            "format": self.loaded.format,
            "version": version_text(self.plan),
            "roots": list(self.graph.roots),
            "nodes": [n.to_json() for n in self.nodes()],
            "diagnostics": [d.to_json() for d in self.loaded.diagnostics],
            **self.extensions.to_json(),
        }


def version_text(plan: plan_pb2.Plan) -> str | None:
    if not plan.HasField("version"):
        return None
    v = plan.version
    text = f"{v.major_number}.{v.minor_number}.{v.patch_number}"
    return f"{text} ({v.producer})" if v.producer else text


def _errors(infos: dict[str, NodeInfo]) -> int:
    return sum(1 for i in infos.values() for d in i.diagnostics if d.severity is Severity.ERROR)


_ALTERNATIVES = (
    Conventions(project_keeps_input=False),
    Conventions(grouping_column=None),
    Conventions(project_keeps_input=False, grouping_column=None),
    Conventions(grouping_column="datafusion"),
)


def producer_name(plan: plan_pb2.Plan) -> str:
    """The producer a plan names in its ``version`` (case-folded; "" when it names none)."""
    return plan.version.producer.strip().casefold()


def _in_play(conventions: Conventions, graph) -> Conventions:
    """``conventions`` as they bear on the plan of ``graph``: the grouping-set column's reading only where
    an aggregate has several grouping sets (where producers' readings differ), else the spec's."""
    if conventions.grouping_column == "index":
        return conventions
    for node in graph.nodes.values():
        if node.kind == "aggregate" and node.body is not None and len(node.body.groupings) > 1:
            return conventions
    return replace(conventions, grouping_column="index")


def declared_conventions(plan: plan_pb2.Plan) -> Conventions:
    """The reading the plan's producer is known to follow, from the plan's ``version``: DataFusion
    writing Substrait 0.60 or later puts its grouping id after an aggregate's keys; DataFusion's
    calls follow its type coercion."""
    v = plan.version
    if producer_name(plan) != "datafusion":
        return SPEC
    if (v.major_number, v.minor_number) >= (0, 60):
        return Conventions(grouping_column="datafusion", dialect="datafusion")
    return Conventions(dialect="datafusion")


def _misfits(graph: PlanGraph, infos: dict[str, NodeInfo]) -> tuple[int, int, int]:
    """How badly a reading of the plan fits it: roots whose names do not fit, errors, and projects
    that compute an expression they do not output (a grouping-set column too many below them)."""
    return len(root_name_mismatches(graph, infos)), _errors(infos), len(unused_expressions(graph, infos))


def _producer_conventions(
    graph: PlanGraph,
    ext: Extensions,
    infos: dict[str, NodeInfo],
    loaded: LoadedPlan,
    current: Conventions,
    before: tuple[int, int, int],
) -> tuple[dict[str, NodeInfo], Conventions]:
    """When the root names, the inputs of a relation or a project's emit do not fit the spec's
    reading, try the readings of known producers.

    A reading is taken only when it makes every root fit, adds no errors and removes some problem;
    the plan then gets a warning that says which convention its producer followed. ``before``: how
    badly the spec's reading fits (:func:`_misfits` of ``infos``).
    """
    kinds = {n.kind for n in graph.nodes.values()}
    for conv in _ALTERNATIVES:
        if not conv.project_keeps_input and "project" not in kinds:
            continue
        if conv.grouping_column != "index" and "aggregate" not in kinds:
            continue
        conv = replace(conv, dialect=current.dialect)
        alt = derive_schemas(graph, ext, conv)
        after = _misfits(graph, alt)
        if after[0] == 0 and after < before and after[1] <= before[1] and after[2] <= before[2]:
            loaded.diagnostics.append(
                warning(
                    "producer-convention",
                    "this plan's producer departs from the spec: "
                    + "; ".join(conv.describe())
                    + ". Only that reading fits the plan, so schemas are derived that way",
                )
            )
            return alt, conv
    return infos, current


def _bad_fields(loaded: LoadedPlan, graph: PlanGraph) -> list[Diagnostic]:
    """An error on its relation's node for each field the loader left out (a value of the wrong kind):
    that relation is read without it, so it is not run. Raises ``PlanLoadError`` for one whose relation
    is not a node (the plan cannot be shown around it)."""
    if not loaded.bad_fields:
        return []
    node_of = {id(node.rel): node_id for node_id, node in graph.nodes.items()}
    out = []
    for rel, path, what in loaded.bad_fields:
        node_id = node_of.get(id(rel))
        if node_id is None:
            raise PlanLoadError(f"not a valid Substrait plan: at {path}: {what}")
        out.append(
            error(
                "bad-field",
                f"{path}: {what}; the field is left out, so this relation is not what its producer wrote",
                node_id,
                path,
            )
        )
    return out


def analyze_loaded(loaded: LoadedPlan) -> PlanModel:
    def work() -> PlanModel:
        graph = build_graph(loaded.plan, subqueries=loaded.nested_rels != 0)
        ext = Extensions.of(loaded.plan, loaded.legacy_uri_anchors)
        undeclared = sorted({f.name for f in ext.functions.values() if not f.extension})
        if undeclared:  # DataFusion and DuckDB write such references: said once, not on every call
            named = ", ".join(f"`{n}`" for n in undeclared[:8]) + (
                f" and {len(undeclared) - 8} more" if len(undeclared) > 8 else ""
            )
            loaded.diagnostics.append(
                info_diagnostic(
                    "undeclared-extension",
                    f"functions {named} name no extension the plan declares; each is read as the function of "
                    "its name in the spec's extensions"
                    if len(undeclared) > 1
                    else f"function {named} names no extension the plan declares; it is read as the function of "
                    "its name in the spec's extensions",
                )
            )
        conventions = declared_conventions(loaded.plan)
        infos = derive_schemas(graph, ext, conventions)
        in_play = _in_play(conventions, graph)
        if in_play != SPEC:
            loaded.diagnostics.append(
                info_diagnostic(
                    "producer-convention",
                    f"read as {loaded.plan.version.producer} writes it: " + "; ".join(in_play.describe()),
                )
            )
        misfits = _misfits(graph, infos)
        if any(misfits):
            infos, conventions = _producer_conventions(graph, ext, infos, loaded, conventions, misfits)
        for d in graph.diagnostics + _bad_fields(loaded, graph):
            infos[d.node].diagnostics.insert(0, d) if d.node in infos else loaded.diagnostics.append(d)
        properties, findings = derive_properties(graph, infos, ext, conventions)
        for d in findings:
            infos[d.node].diagnostics.append(d) if d.node in infos else loaded.diagnostics.append(d)
        return PlanModel(loaded, graph, ext, infos, conventions, properties)

    with gc_paused():
        return run_deep(work)


def analyze(data: bytes) -> PlanModel:
    """Load ``data`` (JSON or binary) and derive the whole model. Raises ``PlanLoadError``."""
    with gc_paused():
        return analyze_loaded(load_plan(data))


__all__ = ["PlanModel", "NodeView", "analyze", "analyze_loaded"]


M = TypeVar("M")


class MemoBeside(Generic[M]):
    """A pass's memo kept beside each (frozen) model, not in it, for as long as the model lives:
    ``memo = MemoBeside(_Memo)``, then ``memo(model)`` is that model's ``_Memo()``, made once."""

    def __init__(self, factory: Callable[[], M]) -> None:
        self._factory = factory
        self._memos: weakref.WeakKeyDictionary[PlanModel, M] = weakref.WeakKeyDictionary()

    def __call__(self, model: PlanModel) -> M:
        memo = self._memos.get(model)
        if memo is None:
            memo = self._memos[model] = self._factory()
        return memo

    def forget(self, model: PlanModel) -> None:
        """Drop ``model``'s memo (the next call makes it again)."""
        self._memos.pop(model, None)
