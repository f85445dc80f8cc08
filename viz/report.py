"""What the inspector shows about one node, as plain data: search, input columns with the fields the
node's expressions read, the property rules, and the node report exported as JSON.

Pure (no Streamlit): the app renders these, the tests check them.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from dataclasses import dataclass

from google.protobuf import empty_pb2, json_format, text_format  # noqa: F401 - empty_pb2 registers google.protobuf.Empty

from .fields import Field
from .kinds import JOIN_KINDS
from .model import NodeView, PlanModel
from .properties import EFFECT_MEANINGS
from .render import title


def search(model: PlanModel, query: str) -> list[str]:
    """Ids of the nodes whose relation, detail (table names, join conditions, keys), output column
    names, expressions or functions contain ``query`` (case-insensitive), in model order."""
    q = query.strip().lower()
    if not q:
        return []
    functions = model.extensions.functions
    out = []
    for node in model.nodes():
        texts = [node.id, node.kind, title(node.kind), node.info.detail]
        texts += [f.name for f in node.schema or []]
        texts += [t for _, t in node.info.expressions]
        texts += [functions[a].name for a in node.info.functions if a in functions]
        if any(q in t.lower() for t in texts if t):
            out.append(node.id)
    return out


def hidden_matches(model: PlanModel, query: str, hits: Iterable[str], max_rows: int) -> dict[str, str]:
    """For each hit whose box (at most ``max_rows`` schema lines, :func:`viz.render.node_label`) leaves out
    a field whose name contains ``query``: those fields, ``"[201] ib_income_band_sk"``, the first few."""
    q = query.strip().lower()
    out: dict[str, str] = {}
    for node_id in hits if q else ():
        schema = model.node(node_id).schema or []
        if len(schema) <= max_rows:
            continue
        shown = max(max_rows - 1, 0)
        found = [f"[{i}] {f.name}" for i, f in enumerate(schema) if i >= shown and q in f.name.lower()]
        if found:
            more = f" and {len(found) - 3} more" if len(found) > 3 else ""
            out[node_id] = f"{', '.join(found[:3])}{more}, not drawn in its box"
    return out


@dataclass(frozen=True)
class InputColumn:
    index: int  # index in the record the node's expressions read
    local: int  # index in the input's own output
    field: Field
    referenced: bool  # read by one of the node's expressions


def input_columns(model: PlanModel, node_id: str) -> list[tuple[str, list[InputColumn]]]:
    """Each input's schema, in input order, with the indices the node's expressions refer to.

    Field references index the concatenation of the inputs (a join's left then right fields), so
    input ``k``'s fields start after the widths of the inputs before it.
    """
    node = model.node(node_id)
    refs = node.info.referenced_fields
    out: list[tuple[str, list[InputColumn]]] = []
    offset = 0
    concatenates = node.kind in JOIN_KINDS
    for input_id in node.inputs:
        schema = model.node(input_id).schema or []
        base = offset if concatenates else 0
        cols = [InputColumn(base + i, i, f, (base + i) in refs) for i, f in enumerate(schema)]
        out.append((input_id, cols))
        offset += len(schema)
    return out


def _meaning(effect: str, value: str) -> str:
    """An effect in words; keeping what is not there is said as such ("none — kept" reads as a contradiction)."""
    if effect == "kept" and value in ("none", "unknown"):
        return f"its input's is {value} too"
    return EFFECT_MEANINGS.get(effect, "")


def property_rules(node: NodeView) -> list[dict]:
    """Orderedness and distribution at this node, what the node did to each, and the spec's rule."""
    p = node.properties
    if p is None:
        return []
    return [
        {
            "property": "orderedness",
            "value": p.order_text(),
            "effect": p.order_effect.kind,
            "meaning": _meaning(p.order_effect.kind, p.order_text()),
            "rule": p.order_effect.rule,
            "note": p.order_effect.note,
        },
        {
            "property": "distribution",
            "value": p.distribution_text(),
            "effect": p.distribution_effect.kind,
            "meaning": _meaning(p.distribution_effect.kind, p.distribution_text()),
            "rule": p.distribution_effect.rule,
            "note": p.distribution_effect.note,
        },
    ]


def raw_json(model: PlanModel, node_id: str) -> dict:
    """The node's relation as protobuf JSON, with its inputs replaced by the ids of their nodes (the
    whole subtree would repeat what the other nodes show)."""
    node = model.graph.nodes[node_id]
    rel = type(node.rel)()
    rel.CopyFrom(node.rel)
    body = getattr(rel, node.kind) if node.kind else None
    elided: dict[str, object] = {}
    if body is not None:
        inputs = iter(node.inputs)
        for fd, value in list(body.ListFields()):
            if fd.message_type is not None and fd.message_type.full_name == "substrait.Rel":
                if not hasattr(value, "ListFields"):  # a repeated field (a Set's or Cross's inputs)
                    elided[fd.json_name] = [f"<node {next(inputs, '?')}>" for _ in value]
                else:
                    elided[fd.json_name] = f"<node {next(inputs, '?')}>"
                body.ClearField(fd.name)
    found = _unknown_details(rel)
    unknown = [(where, detail.type_url, detail.value) for where, detail in found]
    for _, detail in found:  # an empty message of a known type stands in while converting
        detail.type_url, detail.value = _STAND_IN, b""
    try:
        out = json_format.MessageToDict(rel)
    except (TypeError, KeyError, ValueError) as exc:  # a message no JSON form is known for
        return {
            "note": f"the relation cannot be shown as JSON ({exc}); protobuf text instead",
            "text": text_format.MessageToString(rel),
        }
    for where, url, value in unknown:
        at = out
        for name, index in where[:-1]:
            at = at[name] if index is None else at[name][index]
        name, index = where[-1]
        shown = {"@type": url, "value": base64.b64encode(value).decode("ascii")}
        if index is None:
            at[name] = shown
        else:
            at[name][index] = shown
    if unknown:
        out["note"] = "an extension detail of a type this tool does not know is shown as its type and bytes (base64)"
    if elided and body is not None:
        out.setdefault(type(node.rel).DESCRIPTOR.fields_by_name[node.kind].json_name, {}).update(elided)
    return out


#: A type every protobuf installation knows, standing in for an unknown extension detail while converting.
_STAND_IN = "type.googleapis.com/google.protobuf.Empty"


def _unknown_details(message, where: tuple = ()) -> list[tuple[tuple, object]]:
    """Each ``google.protobuf.Any`` inside ``message`` whose type no descriptor here knows, with where it is
    (the JSON name and list index of each field on the way)."""
    from google.protobuf import symbol_database

    pool = symbol_database.Default().pool
    out: list[tuple[tuple, object]] = []
    for fd, value in message.ListFields():
        if fd.message_type is None or fd.message_type.GetOptions().map_entry:
            continue
        repeated = fd.is_repeated
        for index, item in enumerate(value) if repeated else [(None, value)]:
            at = (*where, (fd.json_name, index))
            if fd.message_type.full_name != "google.protobuf.Any":
                out.extend(_unknown_details(item, at))
                continue
            try:
                pool.FindMessageTypeByName(item.type_url.split("/")[-1])
            except KeyError:
                out.append((at, item))
    return out


def node_report(model: PlanModel, node_id: str) -> dict:
    """Everything the inspector shows about a node, for export as JSON."""
    node = model.node(node_id)
    out = node.to_json()
    out["title"] = title(node.kind)
    out["inputs"] = [
        {
            "node": input_id,
            "schema": [
                {
                    "index": c.index,
                    "local": c.local,
                    "name": c.field.name,
                    "type": c.field.type_text(model.extensions.types, model.type_variations),
                    "referenced": c.referenced,
                }
                for c in cols
            ],
        }
        for input_id, cols in input_columns(model, node_id)
    ]
    out["property_rules"] = property_rules(node)
    out["relation"] = raw_json(model, node_id)
    return out
