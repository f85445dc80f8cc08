"""Load a Substrait plan from bytes: protobuf JSON or binary protobuf, detected from the content.

Real plans are older than the current proto. Parsing them with the current proto and
``ignore_unknown_fields`` would silently drop meaning (the GROUP BY keys of a legacy aggregate, the
count of a legacy fetch), so legacy fields are *upgraded* to their current form, each upgrade listed
as an info diagnostic, and whatever is still unknown becomes a warning instead of a failure.

JSON is upgraded as a dict before it is parsed. Binary plans parse with the current proto, where
legacy fields arrive as unknown fields; those are decoded into the same dict form and go through the
same upgrade functions, so both formats share one set of rules.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import DecodeError, Message
from substrait import algebra_pb2, plan_pb2, type_pb2
from substrait.extensions import extensions_pb2

from .deep import allow_deep_protobuf, run_deep
from .errors import Diagnostic, PlanLoadError, info, warning

#: Uploads larger than this are refused before parsing.
MAX_PLAN_BYTES = 64 * 1024 * 1024


@dataclass
class LoadedPlan:
    """A parsed, upgraded plan and what loading it found."""

    plan: plan_pb2.Plan
    format: str  # "json" or "binary"
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: Extension anchors that came from the legacy ``extensionUris`` (their URN field holds the URI).
    legacy_uri_anchors: set[int] = field(default_factory=set)
    #: How many relations sit inside expressions (subqueries), when the loader counted them (JSON);
    #: 0 lets the graph skip looking for subqueries.
    nested_rels: int | None = None


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
    found, count = _pop(d, "count")
    if found:
        # -1 meant "all records", which is now an absent count_expr.
        if "countExpr" not in d and "count_expr" not in d and int(count) != -1:
            d["countExpr"] = _i64_literal(int(count))
            wrote.add("countExpr")
        notes["legacy FetchRel.count upgraded to countExpr"] += 1
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
}


#: For the upgrades that act only when a legacy key is present: those keys (the JSON pass skips the
#: hook for a message without any of them). Upgrades not listed here always run.
_UPGRADE_TRIGGERS: dict[str, frozenset[str]] = {
    "substrait.Plan": frozenset({"extensionUris", "extension_uris"}),
    "substrait.extensions.SimpleExtensionDeclaration.ExtensionFunction": frozenset(
        {"extensionUriReference", "extension_uri_reference"}),
    "substrait.extensions.SimpleExtensionDeclaration.ExtensionType": frozenset(
        {"extensionUriReference", "extension_uri_reference"}),
    "substrait.extensions.SimpleExtensionDeclaration.ExtensionTypeVariation": frozenset(
        {"extensionUriReference", "extension_uri_reference"}),
    "substrait.FetchRel": frozenset({"offset", "count"}),
    "substrait.ReadRel.VirtualTable": frozenset({"values"}),
    "substrait.Expression.Literal.IntervalDayToSecond": frozenset({"microseconds"}),
    "substrait.Type": frozenset({*_LEGACY_TYPES, "userDefinedTypeReference", "user_defined_type_reference"}),
    "substrait.Expression.Literal": frozenset(_LEGACY_TYPES),
    "substrait.Expression.ScalarFunction": frozenset({"args"}),
    "substrait.AggregateFunction": frozenset({"args"}),
    "substrait.Expression.WindowFunction": frozenset({"args"}),
}


# ---------------------------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------------------------

_WELL_KNOWN = {
    "google.protobuf.Any",
    "google.protobuf.Struct",
    "google.protobuf.Value",
    "google.protobuf.ListValue",
    "google.protobuf.Empty",
}


# How the JSON pass handles one field, decided once per field (see ``_message_plan``).
_SCALAR, _SCALARS, _ENUM, _SPECIAL, _MESSAGES, _MESSAGE = range(6)


#: JSON values of these Python types are stored as they are in fields of the proto type (a shortcut
#: past ``_scalar``, which gives the same value).
_SAME_TYPE = {
    **{t: int for t in (
        FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT32,
        FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED32,
        FieldDescriptor.TYPE_SFIXED64)},
    FieldDescriptor.TYPE_STRING: str,
    FieldDescriptor.TYPE_BOOL: bool,
}


class _MessagePlan:
    """What the JSON pass needs about one message type, computed once per type: its upgrade hook
    (with the keys that trigger it) and, by JSON key and proto name, how to set each field."""

    __slots__ = ("desc", "hook", "trigger", "fields")

    def __init__(self, desc: Descriptor) -> None:
        self.desc = desc
        self.hook = UPGRADES.get(desc.full_name)
        self.trigger = _UPGRADE_TRIGGERS.get(desc.full_name)
        self.fields: dict[str, tuple] = {}
        for f in desc.fields:
            if f.type != FieldDescriptor.TYPE_MESSAGE:
                if f.type == FieldDescriptor.TYPE_ENUM and not f.is_repeated:
                    entry = (f, _ENUM, frozenset(f.enum_type.values_by_name), False, f.name, int)
                else:
                    entry = (f, _SCALARS if f.is_repeated else _SCALAR, None, False, f.name, _SAME_TYPE.get(f.type))
            else:
                mdesc = f.message_type
                if mdesc.GetOptions().map_entry or mdesc.full_name in _WELL_KNOWN:
                    entry = (f, _SPECIAL, mdesc.full_name, False, f.name, None)
                else:
                    nested_rel = mdesc.full_name == "substrait.Rel" and desc.full_name not in _INPUT_HOLDERS
                    # last: whether an empty object of this type is only set (it has no upgrade hook)
                    hookless = mdesc.full_name not in UPGRADES
                    entry = (f, _MESSAGES if f.is_repeated else _MESSAGE, mdesc, nested_rel, f.name, hookless)
            self.fields[f.name] = entry
            self.fields[f.json_name] = entry


#: Message types whose ``Rel`` fields hold a relation's inputs or a plan's top relations; a ``Rel``
#: anywhere else is nested in an expression (a subquery).
_INPUT_HOLDERS = frozenset(
    {f.message_type.full_name for f in algebra_pb2.Rel.DESCRIPTOR.oneofs_by_name["rel_type"].fields}
    | {"substrait.RelRoot", "substrait.PlanRel"}
)


def _message_plan(desc: Descriptor, cache: dict) -> _MessagePlan:
    plan = cache.get(desc)
    if plan is None:
        plan = cache[desc] = _MessagePlan(desc)
    return plan


def _any_resolvable(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    url = value.get("@type", "")
    from google.protobuf import symbol_database

    try:
        symbol_database.Default().pool.FindMessageTypeByName(url.split("/")[-1])
        return True
    except KeyError:
        return False


#: A JSON path, built lazily as nested tuples ``(parent, key, index or None)`` (deep plans would
#: otherwise build quadratic amounts of text); :func:`_path_text` writes it out.
_Path = tuple


def _path_text(path: "_Path | None", key: str | None = None) -> str:
    parts = [key] if key is not None else []
    while path is not None:
        path, name, index = path
        parts.append(name if index is None else f"{name}[{index}]")
    return ".".join(reversed(parts))


class _Bad(Exception):
    """A JSON value of the wrong kind for its field."""


_INT_TYPES = {
    FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED32,
    FieldDescriptor.TYPE_SFIXED64,
}
_FLOAT_SPECIALS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


def _scalar(f: FieldDescriptor, v: Any) -> Any:
    """A proto3-JSON scalar value as the Python value protobuf expects."""
    t = f.type
    if t in _INT_TYPES:
        if isinstance(v, bool) or not isinstance(v, (int, str, float)):
            raise _Bad(f"expected an integer, got {type(v).__name__}")
        if isinstance(v, float):
            if not v.is_integer():
                raise _Bad(f"expected an integer, got {v}")
            return int(v)
        try:
            return int(v)
        except ValueError:
            raise _Bad(f"expected an integer, got {v!r}") from None
    if t in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        if isinstance(v, str):
            if v in _FLOAT_SPECIALS:
                return _FLOAT_SPECIALS[v]
            try:
                return float(v)
            except ValueError:
                raise _Bad(f"expected a number, got {v!r}") from None
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise _Bad(f"expected a number, got {type(v).__name__}")
        return float(v)
    if t == FieldDescriptor.TYPE_BOOL:
        if not isinstance(v, bool):
            raise _Bad(f"expected true or false, got {v!r}")
        return v
    if t == FieldDescriptor.TYPE_STRING:
        if not isinstance(v, str):
            raise _Bad(f"expected a string, got {type(v).__name__}")
        return v
    if t == FieldDescriptor.TYPE_BYTES:
        if not isinstance(v, str):
            raise _Bad(f"expected base64 text, got {type(v).__name__}")
        import base64

        text = v.replace("-", "+").replace("_", "/")
        try:
            return base64.b64decode(text + "=" * (-len(text) % 4))
        except ValueError:
            raise _Bad("expected base64 text") from None
    if t == FieldDescriptor.TYPE_ENUM:
        if isinstance(v, int) and not isinstance(v, bool):
            return v
        value = f.enum_type.values_by_name.get(v) if isinstance(v, str) else None
        if value is None:
            raise _Bad(f"{v!r} is not a value of {f.enum_type.full_name}")
        return value.number
    raise _Bad(f"unsupported field type {t}")  # pragma: no cover


def _json_to_plan(root: dict, diags: list[Diagnostic], state: dict) -> plan_pb2.Plan:
    """Build the Plan from its JSON dict in one iterative pass: upgrade legacy fields, drop (and
    report) unknown ones, and set every field directly (protobuf's ``json_format`` is recursive and
    several times slower). Counts the ``Rel`` messages nested in expressions in ``state["nested_rels"]``."""
    notes: Notes = Counter()
    unknown: Counter = Counter()
    unknown_example: dict[str, str] = {}
    cache: dict = {}
    nested = 0
    plan = plan_pb2.Plan()
    stack: list[tuple[dict, Message, _Path | None, Descriptor]] = [(root, plan, None, plan.DESCRIPTOR)]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        d, msg, path, desc = pop()
        mplan = cache.get(desc) or _message_plan(desc, cache)
        if mplan.hook is not None and (mplan.trigger is None or not mplan.trigger.isdisjoint(d)):
            try:
                mplan.hook(d, notes, state)
            except (AttributeError, TypeError, ValueError, KeyError, IndexError) as exc:
                # a legacy field of the wrong shape (the upgrade rules expect the legacy layout)
                raise PlanLoadError(
                    f"not a valid Substrait plan: at {_path_text(path) if path else desc.name}: a legacy "
                    f"field of {desc.full_name} does not have the expected shape ({exc})"
                ) from None
        fields = mplan.fields
        for key, value in d.items():
            entry = fields.get(key)
            if entry is None:
                where = f"{desc.full_name}.{key}"
                unknown[where] += 1
                if where not in unknown_example:
                    unknown_example[where] = _path_text(path, key)
                continue
            if value is None:
                continue
            f, how, extra, is_rel, name, same = entry
            try:
                if how == _MESSAGE:
                    if not isinstance(value, dict):
                        raise _Bad(f"expected an object, got {type(value).__name__}")
                    child = getattr(msg, name)
                    child.SetInParent()
                    if value or not same:  # an empty object (``"rootReference": {}``) is done once set
                        push((value, child, (path, key, None), extra))
                    nested += is_rel
                elif how == _SCALAR:
                    setattr(msg, name, value if type(value) is same else _scalar(f, value))
                elif how == _MESSAGES:
                    if not isinstance(value, list):
                        raise _Bad(f"expected a list, got {type(value).__name__}")
                    add = getattr(msg, name).add
                    items = []
                    for i, item in enumerate(value):
                        if not isinstance(item, dict):
                            raise _Bad(f"expected a list of objects, item {i} is {type(item).__name__}")
                        items.append((item, add(), (path, key, i), extra))
                    items.reverse()
                    extend(items)
                    if is_rel:
                        nested += len(items)
                elif how == _ENUM:
                    if isinstance(value, str) and value not in extra:
                        diags.append(
                            warning(
                                "unknown-enum-value",
                                f"{value!r} at {_path_text(path, key)} is not a value of {f.enum_type.full_name} "
                                f"(expected one of {', '.join(f.enum_type.values_by_name)}); it is ignored",
                                path=_path_text(path, key),
                            )
                        )
                        continue
                    setattr(msg, name, value if type(value) is int else _scalar(f, value))
                elif how == _SCALARS:
                    if not isinstance(value, list):
                        raise _Bad(f"expected a list, got {type(value).__name__}")
                    getattr(msg, name).extend([v if type(v) is same else _scalar(f, v) for v in value])
                else:  # _SPECIAL: maps and well-known types go through json_format
                    items = value if isinstance(value, list) else [value]
                    if extra == "google.protobuf.Any" and not all(_any_resolvable(v) for v in items):
                        urls = ", ".join(str(v.get("@type")) for v in items if isinstance(v, dict))
                        diags.append(
                            warning(
                                "undecodable-extension",
                                f"extension detail at {_path_text(path, key)} has a type this tool does not "
                                f"know ({urls}); it is not shown",
                                path=_path_text(path, key),
                            )
                        )
                        continue
                    json_format.ParseDict({key: value}, msg, max_recursion_depth=10**6)
            except _Bad as exc:
                raise PlanLoadError(f"not a valid Substrait plan: at {_path_text(path, key)}: {exc}") from None
            except (ValueError, TypeError, json_format.ParseError) as exc:
                raise PlanLoadError(
                    f"not a valid Substrait plan: at {_path_text(path, key)}: {str(exc).splitlines()[0]}"
                ) from None
    _finish_notes(notes, unknown, unknown_example, diags)
    state["nested_rels"] = nested
    return plan


def _finish_notes(notes: Notes, unknown: Counter, example: dict, diags: list[Diagnostic]) -> None:
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
for _decl in ("ExtensionFunction", "ExtensionType", "ExtensionTypeVariation"):
    LEGACY_BINARY[(f"substrait.extensions.SimpleExtensionDeclaration.{_decl}", 1)] = (
        "extensionUriReference",
        int,
    )
_REPEATED_LEGACY = {"extensionUris", "groupingExpressions", "values", "args"}


def _has_unknown_fields(msg: Message) -> bool:
    probe = type(msg)()
    probe.CopyFrom(msg)
    probe.DiscardUnknownFields()
    return probe.ByteSize() != msg.ByteSize()


def _upgrade_binary(plan: plan_pb2.Plan, diags: list[Diagnostic], state: dict) -> None:
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
    _finish_notes(notes, unknown, example, diags)


def _merge_upgrade(msg: Message, legacy: dict, notes: Notes, state: dict) -> None:
    hook = UPGRADES[msg.DESCRIPTOR.full_name]
    if msg.DESCRIPTOR.full_name == "substrait.Plan":
        legacy["extensionUrns"] = [
            json_format.MessageToDict(u) for u in msg.extension_urns  # type: ignore[attr-defined]
        ]
        legacy["extensionUris"] = [
            {"extensionUriAnchor": u.get("extensionUrnAnchor", 0), "uri": u.get("urn", "")}
            for u in legacy["extensionUris"]
        ]
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


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------

def _looks_like_json(data: bytes) -> bool:
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    return head in (b"{", b"[")


def _json_depth_error(exc: Exception) -> bool:
    return isinstance(exc, RecursionError) or "recursion" in str(exc).lower()


def _load_json(data: bytes) -> LoadedPlan:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PlanLoadError(f"not a Substrait plan: the file starts like JSON but is not UTF-8 ({exc.reason})")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PlanLoadError(
            f"not a Substrait plan: invalid JSON at line {exc.lineno}, column {exc.colno} ({exc.msg}); "
            "expected a protobuf-JSON Substrait Plan object"
        ) from None
    except RecursionError:
        raise PlanLoadError("not loadable: the JSON nests deeper than this tool supports") from None
    if not isinstance(doc, dict):
        raise PlanLoadError(
            f"not a Substrait plan: the JSON is a {type(doc).__name__}, expected an object with "
            "'relations' (a protobuf-JSON Substrait Plan)"
        )
    plan_keys = {f.json_name for f in plan_pb2.Plan.DESCRIPTOR.fields} | {
        f.name for f in plan_pb2.Plan.DESCRIPTOR.fields
    } | {"extensionUris", "extension_uris"}
    diags: list[Diagnostic] = []
    if "relations" not in doc:
        if not set(doc) <= plan_keys:
            keys = ", ".join(sorted(doc)[:8])
            raise PlanLoadError(
                "not a Substrait plan: the JSON object has no 'relations'; expected a protobuf-JSON "
                f"Substrait Plan with 'relations' (found keys: {keys})"
            )
        diags.append(warning("empty-plan", "the plan has no relations: there is nothing to show"))
    state: dict = {}
    plan = _json_to_plan(doc, diags, state)
    return _finish(plan, "json", diags, state)


def _load_binary(data: bytes) -> LoadedPlan:
    allow_deep_protobuf()
    plan = plan_pb2.Plan()
    try:
        plan.ParseFromString(data)
    except (DecodeError, RuntimeError, ValueError) as exc:
        raise PlanLoadError(
            "not a Substrait plan: neither protobuf JSON nor a binary protobuf Plan "
            f"({str(exc) or type(exc).__name__})"
        ) from None
    if not plan.relations:
        raise PlanLoadError(
            "not a Substrait plan: the bytes parse as protobuf but hold no relations; expected a "
            "binary Substrait Plan (or protobuf JSON)"
        )
    diags: list[Diagnostic] = []
    state: dict = {}
    _upgrade_binary(plan, diags, state)
    return _finish(plan, "binary", diags, state)


def _finish(plan: plan_pb2.Plan, fmt: str, diags: list[Diagnostic], state: dict) -> LoadedPlan:
    if not plan.HasField("version"):
        diags.append(info("no-version", "the plan has no version field (producers before Substrait 0.17 omit it)"))
    return LoadedPlan(plan, fmt, diags, set(state.get("legacy_uri_anchors", ())), state.get("nested_rels"))


def load_plan(data: bytes) -> LoadedPlan:
    """Parse ``data`` as a Substrait plan (JSON or binary, detected from the content).

    Raises :class:`PlanLoadError` with one clear message for anything that is not a plan.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise PlanLoadError(f"expected the plan's bytes, got {type(data).__name__}")
    data = bytes(data)
    if not data.strip():
        raise PlanLoadError("not a Substrait plan: the input is empty")
    if len(data) > MAX_PLAN_BYTES:
        raise PlanLoadError(
            f"plan too large: {len(data):,} bytes; at most {MAX_PLAN_BYTES:,} bytes are accepted"
        )
    loader = _load_json if _looks_like_json(data) else _load_binary
    try:
        return run_deep(loader, data)
    except PlanLoadError:
        raise
    except RecursionError:
        raise PlanLoadError("not loadable: the plan nests deeper than this tool supports") from None


def load_path(path: str) -> LoadedPlan:
    """Read and load a plan file."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_PLAN_BYTES + 1)
    except OSError as exc:
        raise PlanLoadError(f"cannot read {path}: {exc.strerror or exc}") from None
    return load_plan(data)
