"""The data a plan reads: its named tables and local files, with the nodes that read each."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from .model import NodeView, PlanModel


@dataclass
class PlanTables:
    named: list[list[str]] = field(default_factory=list)  # each NamedTable's names, once, in plan order
    readers: dict[str, list[str]] = field(default_factory=dict)  # dotted name -> reading node ids
    files: list[tuple[str, str, str]] = field(default_factory=list)  # (node, format, path or uri)
    paths: list[tuple[str, str]] = field(default_factory=list)  # each LocalFiles item's path form and path, once


def plan_tables(model: PlanModel) -> PlanTables:
    out = PlanTables()
    for node in model.nodes():
        body = node.node.body
        if node.kind != "read" or body is None:
            continue
        which = body.WhichOneof("read_type")
        if which == "named_table":
            names = list(body.named_table.names)
            key = ".".join(names)
            if key not in out.readers:
                out.named.append(names)
                out.readers[key] = []
            out.readers[key].append(node.id)
        elif which == "local_files":
            for item in body.local_files.items:
                kind = item.WhichOneof("path_type")
                path = getattr(item, kind or "uri_path", "")
                out.files.append((node.id, item.WhichOneof("file_format") or "unknown", path))
                if kind is not None and (kind, path) not in out.paths:
                    out.paths.append((kind, path))
    return out


def read_fields(node: NodeView) -> frozenset[int] | None:
    """The base schema's fields a read uses: those its projection keeps and its filters test; None for
    every field (a read without a projection outputs them all)."""
    body = node.node.body
    if node.kind != "read" or body is None or not body.HasField("projection"):
        return None
    kept = {item.field for item in body.projection.select.struct_items}
    return frozenset(kept | set(node.info.referenced_fields))


def reads_only(model: PlanModel, tables: Collection[str]) -> bool:
    """Whether the plan reads anything and every read node reads one of the named ``tables`` (dotted
    names): with those tables unbound, nothing in the plan can run."""
    readers = plan_tables(model).readers
    blocked = {node for name in tables for node in readers.get(name, ())}
    reads = [node.id for node in model.nodes() if node.kind == "read"]
    return bool(reads) and all(node in blocked for node in reads)
