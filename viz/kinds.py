"""Each relation kind's facts, in one place.

A relation kind is the name of the ``Rel`` oneof field that holds it (``"read"``, ``"hash_join"``,
...). :data:`KINDS` gives each one its :class:`Kind`: the title drawn on the graph, the family the
plan diff matches it within, whether its expressions read its inputs' fields side by side (the
joins), whether its rows are some of its input's rows unchanged (so the two can be compared row by
row), and what it would change outside the plan (a write, DDL or update: never run).

Each pass keeps its own rule per kind in one dispatch table (``viz.schema.DERIVE``,
``viz.properties.RULES``, ``viz.lineage.RULES``, ``viz.describe.DESCRIBE``,
``executor.translate.rel.RELATIONS``); a test checks that each covers every kind of the protobuf,
so a new kind is one entry here and one rule per pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from substrait import algebra_pb2


@dataclass(frozen=True)
class Kind:
    name: str
    title: str
    family: str = ""  # the kinds that may correspond between producers share one; default: the kind itself
    joins: bool = False  # reads its two inputs side by side: the left's fields, then the right's
    keeps_input_rows: bool = False  # its rows are some of its input's rows, unchanged (compare them row by row)
    drops_rows: bool = False  # of those, it may leave some out (a filter, a fetch; a sort keeps them all)
    changes: str | None = None  # what it changes outside the plan (never run from an uploaded plan)
    plain_detail: bool = False  # its detail is words ("customer", "cross product"), shown to an audience too
    spoken: str = ""  # what a step of this kind does, for an audience ("Keep the first rows"); default: title

    @property
    def matches(self) -> str:
        """The family the plan diff pairs it within."""
        return self.family or self.name


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("read", "Read", plain_detail=True),
        Kind("filter", "Filter", keeps_input_rows=True, drops_rows=True),
        Kind("fetch", "Fetch", keeps_input_rows=True, drops_rows=True, spoken="Keep the first rows"),
        Kind("aggregate", "Aggregate", spoken="Group and summarize"),
        Kind("sort", "Sort", family="sort", keeps_input_rows=True),
        Kind("join", "Join", family="join", joins=True),
        Kind("lateral_join", "LateralJoin", family="join", joins=True, spoken="Join"),
        Kind("project", "Project", spoken="Choose and compute columns"),
        Kind("set", "Set", spoken="Combine rows"),
        Kind("extension_single", "ExtensionSingle", family="extension"),
        Kind("extension_multi", "ExtensionMulti", family="extension"),
        Kind("extension_leaf", "ExtensionLeaf", family="extension"),
        Kind("cross", "Cross", family="join", joins=True, plain_detail=True, spoken="Pair every row"),
        Kind("reference", "Reference", spoken="Reuse a result"),
        Kind("write", "Write", changes="a WriteRel (writes a table)"),
        Kind("ddl", "DDL", changes="a DdlRel (creates, alters or drops a table)"),
        Kind("update", "Update", changes="an UpdateRel (updates a table)"),
        Kind("hash_join", "HashJoin", family="join", joins=True, spoken="Join"),
        Kind("merge_join", "MergeJoin", family="join", joins=True, spoken="Join"),
        Kind("nested_loop_join", "NestedLoopJoin", family="join", joins=True, spoken="Join"),
        Kind("window", "Window"),
        Kind("exchange", "Exchange", spoken="Redistribute rows"),
        Kind("expand", "Expand"),
        Kind("top_n", "TopN", family="sort", spoken="Keep the top rows"),
    )
}

#: The kinds of the protobuf, in its order (the ``rel_type`` oneof of ``Rel``).
PROTO_KINDS: tuple[str, ...] = tuple(f.name for f in algebra_pb2.Rel.DESCRIPTOR.oneofs_by_name["rel_type"].fields)

JOIN_KINDS = frozenset(k for k, v in KINDS.items() if v.joins)


def emit(body) -> list[int] | None:
    """A relation's emit (output field -> direct output field), or None when it outputs its direct
    output: no emit given, or a relation without ``common``. Read here for every pass."""
    common = getattr(body, "common", None)
    if common is None or common.WhichOneof("emit_kind") != "emit":
        return None
    return list(common.emit.output_mapping)


def emitted_at(body, direct: int) -> list[int]:
    """Where a relation's direct output field ``direct`` lands in its output: through its emit (nowhere, once or
    more), or in its own place when it has none."""
    mapping = emit(body)
    return [direct] if mapping is None else [k for k, m in enumerate(mapping) if m == direct]


def output_names(body) -> list[str] | None:
    """A relation's ``common.hint.output_names`` (its output fields' names, depth-first as a RelRoot's),
    or None when it gives none. Read here for every pass."""
    common = getattr(body, "common", None)
    if common is None or not common.HasField("hint") or not common.hint.output_names:
        return None
    return list(common.hint.output_names)


def enhancement_of(body) -> str | None:
    """The type of the advanced extension enhancement on a relation (its own or its ``common``'s), or
    None. An enhancement "alter[s] semantics. Cannot be ignored by a consumer" (extensions.proto),
    unlike an optimization, which may be."""
    for holder in (body, getattr(body, "common", None)):
        ext = getattr(holder, "advanced_extension", None) if holder is not None else None
        if ext is not None and ext.HasField("enhancement"):
            return ext.enhancement.type_url.split("/")[-1] or "no type"
    return None


def project_outputs_input(body, project_keeps_input: bool) -> bool:
    """Whether a ProjectRel outputs its input's fields before its expressions: so the spec, and so a
    project with an emit always; only a producer that wrote projects as expressions-only
    (``project_keeps_input`` false) and gave no emit outputs the expressions alone."""
    return project_keeps_input or emit(body) is not None


def spoken_title(name: str) -> str:
    """A step of kind ``name`` as an audience reads it in a heading ("Keep the first rows" for a Fetch)."""
    k = kind(name)
    return k.spoken or k.title


def kind(name: str) -> Kind:
    """The facts of kind ``name``; a kind this version does not know gets a plain entry."""
    return KINDS.get(name) or Kind(name, name or "(empty)")


__all__ = [
    "JOIN_KINDS",
    "KINDS",
    "Kind",
    "PROTO_KINDS",
    "emit",
    "enhancement_of",
    "kind",
    "output_names",
    "project_outputs_input",
]
