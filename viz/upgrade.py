"""Legacy upgrades: rewrite the fields of plans written by older Substrait versions and producers
into their current form.

Real plans are older than the current proto. Parsing them with the current proto and
``ignore_unknown_fields`` would silently drop meaning (the GROUP BY keys of a legacy aggregate, the
count of a legacy fetch), so legacy fields are *upgraded* to their current form, each upgrade listed
as an info diagnostic, and whatever is still unknown becomes a warning instead of a failure.

JSON is upgraded as a dict while :mod:`viz.load` reads it (:data:`UPGRADES`, with
:data:`UPGRADE_TRIGGERS`). Binary plans parse with the current proto, where legacy fields arrive as
unknown fields; :func:`upgrade_binary` decodes those (:data:`LEGACY_BINARY`) into the same dict form
and runs the same upgrade functions, so both formats share one set of rules.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError, Message
from substrait import algebra_pb2, plan_pb2, type_pb2
from substrait.extensions import extensions_pb2

from .errors import Diagnostic, PlanLoadError, info, warning

# ---------------------------------------------------------------------------------------------
# Upgrade rules, on the JSON (dict) form of one message. Each takes the message dict and returns the
# keys it wrote, appending info diagnostics to ``notes``.
# ---------------------------------------------------------------------------------------------

Notes = Counter  # upgrade message -> count, turned into diagnostics at the end


def _pop(d: dict, *names: str) -> tuple[bool, Any]:
    for name in names:
        if name in d:
            return True, d.pop(name)
    return False, None


def _i64_literal(value: int) -> dict:
    return {"literal": {"i64": str(value)}}


def _upgrade_plan(d: dict, notes: Notes, state: dict) -> set[str]:
    found, uris = _pop(d, "extensionUris", "extension_uris")
    if not found:
        return set()
    urns = d.setdefault("extensionUrns", d.pop("extension_urns", []))
    taken = {int(u.get("extensionUrnAnchor", u.get("extension_urn_anchor", 0))) for u in urns}
    for entry in uris or []:
        anchor = int(entry.get("extensionUriAnchor", entry.get("extension_uri_anchor", 0)))
        if anchor in taken:
            notes[f"legacy extension URI anchor {anchor} clashes with an extension URN; the URN is kept"] += 1
            continue
        urns.append({"extensionUrnAnchor": anchor, "urn": entry.get("uri", "")})
        state.setdefault("legacy_uri_anchors", set()).add(anchor)
    notes["legacy Plan.extensionUris upgraded to extensionUrns (the URIs are kept and shown)"] += 1
    return {"extensionUrns"}


def _upgrade_extension_decl(d: dict, notes: Notes, state: dict) -> set[str]:
    found, ref = _pop(d, "extensionUriReference", "extension_uri_reference")
    if not found:
        return set()
    if "extensionUrnReference" not in d and "extension_urn_reference" not in d:
        d["extensionUrnReference"] = ref
    notes["legacy extensionUriReference upgraded to extensionUrnReference"] += 1
    return {"extensionUrnReference"}


def _upgrade_fetch(d: dict, notes: Notes, state: dict) -> set[str]:
    wrote: set[str] = set()
    found, offset = _pop(d, "offset")
    if found:
        if "offsetExpr" not in d and "offset_expr" not in d and int(offset) != 0:
            d["offsetExpr"] = _i64_literal(int(offset))
            wrote.add("offsetExpr")
        notes["legacy FetchRel.offset upgraded to offsetExpr"] += 1
    has_offset = found
    found, count = _pop(d, "count")
    if found:
        # -1 meant "all records", which is now an absent count_expr.
        if "countExpr" not in d and "count_expr" not in d and int(count) != -1:
            d["countExpr"] = _i64_literal(int(count))
            wrote.add("countExpr")
        notes["legacy FetchRel.count upgraded to countExpr"] += 1
    elif has_offset and "countExpr" not in d and "count_expr" not in d:
        # the legacy count was required (-1 for all rows), so one left out is protobuf's default, 0
        d["countExpr"] = _i64_literal(0)
        wrote.add("countExpr")
        notes[
            "a legacy FetchRel with an offset and no count has a count of 0 (no rows): the legacy count was "
            "required, -1 for all rows, and protobuf leaves a 0 out"
        ] += 1
    return wrote


def _canonical(expr: Any) -> str:
    return json.dumps(expr, sort_keys=True, separators=(",", ":"))


def _upgrade_aggregate(d: dict, notes: Notes, state: dict) -> set[str]:
    groupings = d.get("groupings") or []
    if not any(("groupingExpressions" in g or "grouping_expressions" in g) for g in groupings):
        return set()
    top = d.setdefault("groupingExpressions", d.pop("grouping_expressions", []))
    index = {_canonical(e): i for i, e in enumerate(top)}
    for g in groupings:
        found, exprs = _pop(g, "groupingExpressions", "grouping_expressions")
        if not found:
            continue
        refs = g.setdefault("expressionReferences", g.pop("expression_references", []))
        if refs:
            # A producer that writes both (DataFusion 55 does, for older consumers): the references
            # are the current form and the legacy list repeats them.
            continue
        for expr in exprs or []:
            key = _canonical(expr)
            if key not in index:
                index[key] = len(top)
                top.append(expr)
            refs.append(index[key])
    notes[
        "legacy AggregateRel.Grouping.groupingExpressions upgraded to groupingExpressions "
        "with expressionReferences (the GROUP BY keys are kept)"
    ] += 1
    return {"groupingExpressions", "groupings"}


def _upgrade_virtual_table(d: dict, notes: Notes, state: dict) -> set[str]:
    found, values = _pop(d, "values")
    if not found:
        return set()
    exprs = d.setdefault("expressions", [])
    for row in values or []:
        exprs.append({"fields": [{"literal": lit} for lit in row.get("fields", [])]})
    notes["legacy ReadRel.VirtualTable.values upgraded to expressions"] += 1
    return {"expressions"}


def _upgrade_interval_day(d: dict, notes: Notes, state: dict) -> set[str]:
    found, micros = _pop(d, "microseconds")
    if not found:
        return set()
    if "subseconds" not in d:
        d["precision"] = 6
        d["subseconds"] = str(int(micros))
    notes["legacy IntervalDayToSecond.microseconds upgraded to precision 6 subseconds"] += 1
    return {"precision", "subseconds"}


_LEGACY_TYPES = {
    "timestamp": "precisionTimestamp",
    "time": "precisionTime",
    "timestampTz": "precisionTimestampTz",
    "timestamp_tz": "precisionTimestampTz",
}


def _upgrade_type(d: dict, notes: Notes, state: dict) -> set[str]:
    wrote: set[str] = set()
    for old, new in _LEGACY_TYPES.items():
        found, body = _pop(d, old)
        if found:
            body = dict(body or {})
            body["precision"] = 6
            d[new] = body
            wrote.add(new)
            notes[f"legacy type {old} upgraded to {new}<6>"] += 1
    found, ref = _pop(d, "userDefinedTypeReference", "user_defined_type_reference")
    if found:
        d["userDefined"] = {"typeReference": ref, "nullability": "NULLABILITY_REQUIRED"}
        wrote.add("userDefined")
        notes["legacy userDefinedTypeReference upgraded to userDefined"] += 1
    return wrote


def _upgrade_literal(d: dict, notes: Notes, state: dict) -> set[str]:
    wrote: set[str] = set()
    for old, new in _LEGACY_TYPES.items():
        found, value = _pop(d, old)
        if found:
            d[new] = {"precision": 6, "value": str(int(value))}
            wrote.add(new)
            notes[f"legacy {old} literal upgraded to {new}<6>"] += 1
    return wrote


def _upgrade_function_args(d: dict, notes: Notes, state: dict) -> set[str]:
    found, args = _pop(d, "args")
    if not found:
        return set()
    if not d.get("arguments"):
        d["arguments"] = [{"value": a} for a in args or []]
    notes["legacy function args upgraded to arguments"] += 1
    return {"arguments"}


def _upgrade_join(d: dict, notes: Notes, state: dict) -> set[str]:
    renames = {
        "JOIN_TYPE_SEMI": "JOIN_TYPE_LEFT_SEMI",
        "JOIN_TYPE_ANTI": "JOIN_TYPE_LEFT_ANTI",
        "JOIN_TYPE_SINGLE": "JOIN_TYPE_LEFT_SINGLE",
    }
    value = d.get("type")
    if isinstance(value, str) and value in renames:
        d["type"] = renames[value]
        notes[f"legacy join type {value} upgraded to {renames[value]}"] += 1
    return set()


def _upgrade_join_keys(d: dict, notes: Notes, state: dict) -> set[str]:
    """HashJoinRel and MergeJoinRel: "left_keys/right_keys are deprecated in favor of keys. If they are set
    then the two lists ... must have the same length and the comparison function is considered to be
    SimpleEqualityType::EQ" (algebra.proto)."""
    found_l, left = _pop(d, "leftKeys", "left_keys")
    found_r, right = _pop(d, "rightKeys", "right_keys")
    if not (found_l or found_r):
        return set()
    left, right = list(left or []), list(right or [])
    if d.get("keys"):
        notes["legacy leftKeys/rightKeys of a hash or merge join dropped: its keys are given (the current form)"] += 1
        return set()
    if len(left) != len(right):
        raise PlanLoadError(
            f"not a valid Substrait plan: a hash or merge join has {len(left)} legacy left keys and {len(right)} "
            "right keys; the spec requires the two lists to have the same length"
        )
    d["keys"] = [
        {"left": a, "right": b, "comparison": {"simple": "SIMPLE_COMPARISON_TYPE_EQ"}} for a, b in zip(left, right)
    ]
    notes["legacy leftKeys/rightKeys of a hash or merge join upgraded to keys (compared with EQ)"] += 1
    return {"keys"}


UPGRADES: dict[str, Callable[[dict, Notes, dict], set[str]]] = {
    "substrait.Plan": _upgrade_plan,
    "substrait.extensions.SimpleExtensionDeclaration.ExtensionFunction": _upgrade_extension_decl,
    "substrait.extensions.SimpleExtensionDeclaration.ExtensionType": _upgrade_extension_decl,
    "substrait.extensions.SimpleExtensionDeclaration.ExtensionTypeVariation": _upgrade_extension_decl,
    "substrait.FetchRel": _upgrade_fetch,
    "substrait.AggregateRel": _upgrade_aggregate,
    "substrait.ReadRel.VirtualTable": _upgrade_virtual_table,
    "substrait.Expression.Literal.IntervalDayToSecond": _upgrade_interval_day,
    "substrait.Type": _upgrade_type,
    "substrait.Expression.Literal": _upgrade_literal,
    "substrait.Expression.ScalarFunction": _upgrade_function_args,
    "substrait.AggregateFunction": _upgrade_function_args,
    "substrait.Expression.WindowFunction": _upgrade_function_args,
    "substrait.JoinRel": _upgrade_join,
    "substrait.HashJoinRel": _upgrade_join_keys,
    "substrait.MergeJoinRel": _upgrade_join_keys,
}


#: For the upgrades that act only when a legacy key is present: those keys (the JSON pass skips the
#: hook for a message without any of them). Upgrades not listed here always run.
UPGRADE_TRIGGERS: dict[str, frozenset[str]] = {
    "substrait.Plan": frozenset({"extensionUris", "extension_uris"}),
    "substrait.extensions.SimpleExtensionDeclaration.ExtensionFunction": frozenset(
        {"extensionUriReference", "extension_uri_reference"}
    ),
    "substrait.extensions.SimpleExtensionDeclaration.ExtensionType": frozenset(
        {"extensionUriReference", "extension_uri_reference"}
    ),
    "substrait.extensions.SimpleExtensionDeclaration.ExtensionTypeVariation": frozenset(
        {"extensionUriReference", "extension_uri_reference"}
    ),
    "substrait.FetchRel": frozenset({"offset", "count"}),
    "substrait.ReadRel.VirtualTable": frozenset({"values"}),
    "substrait.Expression.Literal.IntervalDayToSecond": frozenset({"microseconds"}),
    "substrait.Type": frozenset({*_LEGACY_TYPES, "userDefinedTypeReference", "user_defined_type_reference"}),
    "substrait.Expression.Literal": frozenset(_LEGACY_TYPES),
    "substrait.Expression.ScalarFunction": frozenset({"args"}),
    "substrait.AggregateFunction": frozenset({"args"}),
    "substrait.Expression.WindowFunction": frozenset({"args"}),
    "substrait.HashJoinRel": frozenset({"leftKeys", "left_keys", "rightKeys", "right_keys"}),
    "substrait.MergeJoinRel": frozenset({"leftKeys", "left_keys", "rightKeys", "right_keys"}),
}


def finish_notes(notes: Notes, unknown: Counter, example: dict, diags: list[Diagnostic]) -> None:
    """Turn the upgrade notes into info diagnostics and the unknown fields (by where, with the first
    path seen) into warnings; shared by the JSON reader and the binary pass."""
    for message, count in notes.items():
        diags.append(info("legacy-upgraded", f"{message} ({count}x)" if count > 1 else message))
    for where, count in unknown.items():
        diags.append(
            warning(
                "unknown-field",
                f"unknown field {where} ({count}x, first at {example[where]}) is not part of the "
                "current Substrait proto; it is ignored",
                path=example[where],
            )
        )


# ---------------------------------------------------------------------------------------------
# Binary: legacy fields arrive as unknown fields; decode them into the dict form above.
# ---------------------------------------------------------------------------------------------


def _msg(cls: type[Message]) -> Callable[[bytes], dict]:
    def decode(data: bytes) -> dict:
        m = cls()
        m.ParseFromString(data)
        return json_format.MessageToDict(m)

    return decode


def _int64(value: int) -> int:
    return value - (1 << 64) if value >= (1 << 63) else value


#: (message full name, field number) -> (legacy JSON key, decoder of the wire value)
LEGACY_BINARY: dict[tuple[str, int], tuple[str, Callable[[Any], Any]]] = {
    ("substrait.Plan", 1): ("extensionUris", _msg(extensions_pb2.SimpleExtensionURN)),
    ("substrait.FetchRel", 3): ("offset", _int64),
    ("substrait.FetchRel", 4): ("count", _int64),
    ("substrait.AggregateRel.Grouping", 1): ("groupingExpressions", _msg(algebra_pb2.Expression)),
    ("substrait.ReadRel.VirtualTable", 1): ("values", _msg(algebra_pb2.Expression.Literal.Struct)),
    ("substrait.Expression.Literal.IntervalDayToSecond", 3): ("microseconds", _int64),
    ("substrait.Type", 14): ("timestamp", _msg(type_pb2.Type.Boolean)),
    ("substrait.Type", 17): ("time", _msg(type_pb2.Type.Boolean)),
    ("substrait.Type", 29): ("timestampTz", _msg(type_pb2.Type.Boolean)),
    ("substrait.Type", 31): ("userDefinedTypeReference", int),
    ("substrait.Expression.Literal", 14): ("timestamp", _int64),
    ("substrait.Expression.Literal", 17): ("time", _int64),
    ("substrait.Expression.Literal", 27): ("timestampTz", _int64),
    ("substrait.Expression.ScalarFunction", 2): ("args", _msg(algebra_pb2.Expression)),
    ("substrait.AggregateFunction", 2): ("args", _msg(algebra_pb2.Expression)),
    ("substrait.Expression.WindowFunction", 8): ("args", _msg(algebra_pb2.Expression)),
}
for _join in ("HashJoinRel", "MergeJoinRel"):
    LEGACY_BINARY[(f"substrait.{_join}", 4)] = ("leftKeys", _msg(algebra_pb2.Expression.FieldReference))
    LEGACY_BINARY[(f"substrait.{_join}", 5)] = ("rightKeys", _msg(algebra_pb2.Expression.FieldReference))
for _decl in ("ExtensionFunction", "ExtensionType", "ExtensionTypeVariation"):
    LEGACY_BINARY[(f"substrait.extensions.SimpleExtensionDeclaration.{_decl}", 1)] = (
        "extensionUriReference",
        int,
    )
_REPEATED_LEGACY = {"extensionUris", "groupingExpressions", "values", "args", "leftKeys", "rightKeys"}


def _has_unknown_fields(msg: Message) -> bool:
    probe = type(msg)()
    probe.CopyFrom(msg)
    probe.DiscardUnknownFields()
    return probe.ByteSize() != msg.ByteSize()


def upgrade_binary(plan: plan_pb2.Plan, diags: list[Diagnostic], state: dict) -> None:
    from google.protobuf.unknown_fields import UnknownFieldSet

    if not _has_unknown_fields(plan):
        return
    notes: Notes = Counter()
    unknown: Counter = Counter()
    example: dict[str, str] = {}
    stack: list[tuple[Message, str]] = [(plan, "")]
    while stack:
        msg, path = stack.pop()
        desc = msg.DESCRIPTOR
        if desc.full_name == "substrait.AggregateRel":
            try:
                _upgrade_binary_aggregate(msg, notes, unknown, example, path, state)
            except (TypeError, ValueError, KeyError, AttributeError, DecodeError, json_format.Error) as exc:
                raise PlanLoadError(
                    f"not a valid Substrait plan: at {path or 'plan'}: the legacy grouping expressions of an "
                    f"AggregateRel could not be read ({exc})"
                ) from None
        unknowns = list(UnknownFieldSet(msg))
        if unknowns and desc.full_name != "substrait.AggregateRel.Grouping":
            legacy: dict[str, Any] = {}
            for uf in unknowns:
                rule = LEGACY_BINARY.get((desc.full_name, uf.field_number))
                if rule is None:
                    where = f"{desc.full_name} field {uf.field_number}"
                    unknown[where] += 1
                    example.setdefault(where, path or "plan")
                    continue
                key, decode = rule
                try:
                    value = decode(uf.data)
                except (TypeError, ValueError, DecodeError, json_format.Error):
                    # the legacy field number with another wire type or broken content: not the legacy field
                    where = f"{desc.full_name} field {uf.field_number} (not the legacy {key})"
                    unknown[where] += 1
                    example.setdefault(where, path or "plan")
                    continue
                if key in _REPEATED_LEGACY:
                    legacy.setdefault(key, []).append(value)
                else:
                    legacy[key] = value
            if legacy:
                try:
                    _merge_upgrade(msg, legacy, notes, state)
                except (TypeError, ValueError, KeyError, AttributeError, json_format.Error) as exc:
                    raise PlanLoadError(
                        f"not a valid Substrait plan: at {path or 'plan'}: legacy fields of {desc.full_name} "
                        f"could not be upgraded ({exc})"
                    ) from None
        for fd, value in msg.ListFields():
            if fd.type != FieldDescriptor.TYPE_MESSAGE or fd.message_type.GetOptions().map_entry:
                continue
            if fd.is_repeated:
                for i, item in enumerate(value):
                    stack.append((item, f"{path}.{fd.json_name}[{i}]"))
            else:
                stack.append((value, f"{path}.{fd.json_name}"))
    plan.DiscardUnknownFields()
    finish_notes(notes, unknown, example, diags)


def _merge_upgrade(msg: Message, legacy: dict, notes: Notes, state: dict) -> None:
    hook = UPGRADES[msg.DESCRIPTOR.full_name]
    if msg.DESCRIPTOR.full_name == "substrait.Plan":
        legacy["extensionUrns"] = [
            json_format.MessageToDict(u)
            for u in msg.extension_urns  # type: ignore[attr-defined]
        ]
        legacy["extensionUris"] = [
            {"extensionUriAnchor": u.get("extensionUrnAnchor", 0), "uri": u.get("urn", "")}
            for u in legacy["extensionUris"]
        ]
    if msg.DESCRIPTOR.full_name in ("substrait.HashJoinRel", "substrait.MergeJoinRel"):
        legacy["keys"] = [json_format.MessageToDict(k) for k in msg.keys]  # type: ignore[attr-defined]
    wrote = hook(legacy, notes, state)
    fragment = {k: legacy[k] for k in wrote}
    for key in wrote:
        msg.ClearField(msg.DESCRIPTOR.fields_by_camelcase_name[key].name)
    json_format.ParseDict(fragment, msg)


def _upgrade_binary_aggregate(
    agg: algebra_pb2.AggregateRel, notes: Notes, unknown: Counter, example: dict, path: str, state: dict
) -> None:
    from google.protobuf.unknown_fields import UnknownFieldSet

    legacy_groups = []
    any_legacy = False
    for g in agg.groupings:
        exprs = []
        for uf in UnknownFieldSet(g):
            if uf.field_number == 1:
                exprs.append(LEGACY_BINARY[("substrait.AggregateRel.Grouping", 1)][1](uf.data))
                any_legacy = True
            else:
                where = f"substrait.AggregateRel.Grouping field {uf.field_number}"
                unknown[where] += 1
                example.setdefault(where, path)
        entry: dict[str, Any] = {"expressionReferences": list(g.expression_references)}
        if exprs:
            entry["groupingExpressions"] = exprs
        legacy_groups.append(entry)
    if not any_legacy:
        return
    d = {
        "groupings": legacy_groups,
        "groupingExpressions": [json_format.MessageToDict(e) for e in agg.grouping_expressions],
    }
    wrote = _upgrade_aggregate(d, notes, state)
    agg.ClearField("groupings")
    agg.ClearField("grouping_expressions")
    json_format.ParseDict({k: d[k] for k in wrote}, agg)
