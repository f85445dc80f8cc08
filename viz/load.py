"""Load a Substrait plan from bytes: protobuf JSON or binary protobuf, detected from the content.

The readers and the entry points: format detection, the size and depth limits, one clear error for
anything that is not a plan, and a fast one-pass JSON reader. Fields written by older Substrait
versions and producers are upgraded by the rules in :mod:`viz.upgrade` (the JSON reader calls them on
each message's dict as it reads it; binary plans go through :func:`viz.upgrade.upgrade_binary`), each
upgrade listed as an info diagnostic, and whatever is still unknown becomes a warning instead of a
failure.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import DecodeError, Message
from substrait import algebra_pb2, plan_pb2
from substrait.version import substrait_version

from .deep import allow_deep_protobuf, run_deep
from .errors import Diagnostic, PlanLoadError, info, warning

# LEGACY_BINARY is not used here: it is re-exported, as are UPGRADES and Notes, for code that imports
# them from viz.load.
from .upgrade import UPGRADE_TRIGGERS, UPGRADES, Notes, finish_notes, upgrade_binary

#: The Substrait release (major, minor) of the protobuf definitions this tool reads (substrait-protobuf).
READS_UP_TO: tuple[int, int] = tuple(int(part) for part in substrait_version.split(".")[:2])  # type: ignore[assignment]

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
    #: Fields of the wrong kind inside a relation, left out: (the relation's ``Rel`` message, where, what
    #: was wrong). The model puts each on its relation's node as an error, so the rest of the plan shows.
    bad_fields: list[tuple[algebra_pb2.Rel, str, str]] = field(default_factory=list)


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
    **{
        t: int
        for t in (
            FieldDescriptor.TYPE_INT32,
            FieldDescriptor.TYPE_INT64,
            FieldDescriptor.TYPE_UINT32,
            FieldDescriptor.TYPE_UINT64,
            FieldDescriptor.TYPE_SINT32,
            FieldDescriptor.TYPE_SINT64,
            FieldDescriptor.TYPE_FIXED32,
            FieldDescriptor.TYPE_FIXED64,
            FieldDescriptor.TYPE_SFIXED32,
            FieldDescriptor.TYPE_SFIXED64,
        )
    },
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
        self.trigger = UPGRADE_TRIGGERS.get(desc.full_name)
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
_REL = algebra_pb2.Rel.DESCRIPTOR

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


def _path_text(path: _Path | None, key: str | None = None) -> str:
    parts = [key] if key is not None else []
    while path is not None:
        path, name, index = path
        parts.append(name if index is None else f"{name}[{index}]")
    return ".".join(reversed(parts))


class _Bad(Exception):
    """A JSON value of the wrong kind for its field."""


_INT_TYPES = {
    FieldDescriptor.TYPE_INT32,
    FieldDescriptor.TYPE_INT64,
    FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_UINT64,
    FieldDescriptor.TYPE_SINT32,
    FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_FIXED32,
    FieldDescriptor.TYPE_FIXED64,
    FieldDescriptor.TYPE_SFIXED32,
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
    several times slower). Counts the ``Rel`` messages nested in expressions in ``state["nested_rels"]``.
    A value of the wrong kind inside a relation is left out and listed in ``state["bad_fields"]`` with
    its relation; anywhere else (the extensions, the root's names) it refuses the plan."""
    notes: Notes = Counter()
    unknown: Counter = Counter()
    unknown_example: dict[str, str] = {}
    cache: dict = {}
    nested = 0
    bad: list[tuple[algebra_pb2.Rel, str, str]] = []
    plan = plan_pb2.Plan()
    # (the JSON object, its message, where, the message's type, the relation it is in or is)
    stack: list[tuple[dict, Message, _Path | None, Descriptor, Message | None]] = [
        (root, plan, None, plan.DESCRIPTOR, None)
    ]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        d, msg, path, desc, rel = pop()
        mplan = cache.get(desc) or _message_plan(desc, cache)
        if mplan.hook is not None and (mplan.trigger is None or not mplan.trigger.isdisjoint(d)):
            try:
                mplan.hook(d, notes, state)
            except (AttributeError, TypeError, ValueError, KeyError, IndexError) as exc:
                # a legacy field of the wrong shape (the upgrade rules expect the legacy layout)
                what = f"a legacy field of {desc.full_name} does not have the expected shape ({exc})"
                if rel is None:
                    raise PlanLoadError(
                        f"not a valid Substrait plan: at {_path_text(path) if path else desc.name}: {what}"
                    ) from None
                # the rest of the message is still read (a relation's inputs with it), the legacy field as it is
                bad.append((rel, _path_text(path), what))
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
                        push((value, child, (path, key, None), extra, child if extra is _REL else rel))
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
                        child = add()
                        items.append((item, child, (path, key, i), extra, child if extra is _REL else rel))
                    items.reverse()
                    extend(items)
                    if is_rel:
                        nested += len(items)
                elif how == _ENUM:
                    if not isinstance(value, (str, int)) or isinstance(value, bool):
                        raise _Bad(
                            f"expected a name or a number of {f.enum_type.full_name}, got {type(value).__name__}"
                        )
                    if value not in extra if isinstance(value, str) else value not in f.enum_type.values_by_number:
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
                        urls = [str(v.get("@type", "")) if isinstance(v, dict) else "" for v in items]
                        diags.append(
                            warning(
                                "undecodable-extension",
                                f"extension detail at {_path_text(path, key)} has a type this tool does not "
                                f"know ({', '.join(urls)}); its type is kept, its fields are not shown",
                                path=_path_text(path, key),
                            )
                        )
                        # the type names the extension (on its box and in its JSON), as a binary plan's does
                        anys = (
                            [getattr(msg, name).add() for _ in urls]
                            if isinstance(value, list)
                            else [getattr(msg, name)]
                        )
                        for detail, url in zip(anys, urls):
                            detail.type_url = url
                        continue
                    json_format.ParseDict({key: value}, msg, max_recursion_depth=10**6)
            except (_Bad, ValueError, TypeError, json_format.ParseError) as exc:
                what = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                if rel is None:
                    raise PlanLoadError(f"not a valid Substrait plan: at {_path_text(path, key)}: {what}") from None
                msg.ClearField(name)  # nothing of it kept: a part of a list or an object would mislead
                bad.append((rel, _path_text(path, key), what))
    finish_notes(notes, unknown, unknown_example, diags)
    state["nested_rels"] = nested
    state["bad_fields"] = bad
    return plan


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------


def _looks_like_json(data: bytes) -> bool:
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    return head in (b"{", b"[")


def _load_json(data: bytes) -> LoadedPlan:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PlanLoadError(
            f"not a Substrait plan: a file that starts like JSON but is not UTF-8 ({exc.reason})"
        ) from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        # nothing left where more was expected, or a string still open at the end: a cut-off file
        if not text[exc.pos :].strip() or exc.msg.startswith("Unterminated string"):
            at = f"line {exc.lineno}, column {exc.colno}"
            where = (
                f"the string that opens at {at} never closes"
                if exc.msg.startswith("Unterminated string")
                else f"it stops at {at}, where more was expected"
            )
            raise PlanLoadError(
                f"not a Substrait plan: JSON that ends early ({where}): it looks cut off (an interrupted download "
                "or copy?)"
            ) from None
        raise PlanLoadError(
            f"not a Substrait plan: invalid JSON at line {exc.lineno}, column {exc.colno} ({exc.msg}); "
            "expected a protobuf-JSON Substrait Plan object"
        ) from None
    except RecursionError:
        raise PlanLoadError("not loadable: JSON nested deeper than this tool supports") from None
    except ValueError:  # Python's limit on the digits of one integer (no plan's number has that many)
        raise PlanLoadError(
            "not a Substrait plan: JSON with a number of thousands of digits, where a plan's numbers fit in 64 bits"
        ) from None
    if not isinstance(doc, dict):
        raise PlanLoadError(
            f"not a Substrait plan: a JSON {'array' if isinstance(doc, list) else type(doc).__name__}, expected an "
            "object with 'relations' (a protobuf-JSON Substrait Plan)"
        )
    plan_keys = (
        {f.json_name for f in plan_pb2.Plan.DESCRIPTOR.fields}
        | {f.name for f in plan_pb2.Plan.DESCRIPTOR.fields}
        | {"extensionUris", "extension_uris"}
    )
    diags: list[Diagnostic] = []
    if not doc.get("relations"):
        if "relations" not in doc and "referredExpr" in doc:
            raise PlanLoadError(
                "not a Substrait plan: an ExtendedExpression (expressions over a base schema, in 'referredExpr'); "
                "expected a protobuf-JSON Substrait Plan with 'relations'"
            )
        if "relations" not in doc and not set(doc) <= plan_keys:
            keys = ", ".join(sorted(doc)[:8])
            raise PlanLoadError(
                f"not a Substrait plan: a JSON object without 'relations' (its keys: {keys}); expected a "
                "protobuf-JSON Substrait Plan with 'relations'"
            )
        diags.append(warning("empty-plan", "the plan has no relations: there is nothing to show"))
    state: dict = {}
    plan = _json_to_plan(doc, diags, state)
    return _finish(plan, "json", diags, state)


def _varint(data: bytes, at: int) -> tuple[int, int] | None:
    """The varint at ``at`` and the offset after it; None when the bytes end inside it."""
    value = shift = 0
    while at < len(data):
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
        shift += 7
    return None


def _runs_past_end(data: bytes) -> int | None:
    """Where a top-level field starts whose bytes run past the end of ``data`` (a cut-off file), when every
    field before it is one of a Plan's; None when the bytes are not the start of a Plan."""
    fields = {f.number for f in plan_pb2.Plan.DESCRIPTOR.fields} | {1}  # 1: extension_uris, before URNs
    at = 0
    while at < len(data):
        start = at
        tag = _varint(data, at)
        if tag is None:
            return start
        key, at = tag
        if key & 7 != 2 or key >> 3 not in fields:  # every field of a Plan is length-delimited
            return None
        size = _varint(data, at)
        if size is None:
            return start
        at = size[1] + size[0]
        if at > len(data):
            return start
    return None


def _load_binary(data: bytes) -> LoadedPlan:
    allow_deep_protobuf()
    plan = plan_pb2.Plan()
    try:
        plan.ParseFromString(data)
    except (DecodeError, RuntimeError, ValueError) as exc:
        cut = _runs_past_end(data)
        if cut is not None:
            raise PlanLoadError(
                f"not a Substrait plan: binary protobuf that ends early (the field that starts at byte {cut:,} runs "
                f"past the end, at byte {len(data):,}): it looks cut off (an interrupted download or copy?)"
            ) from None
        raise PlanLoadError(
            f"not a Substrait plan: neither protobuf JSON nor a binary protobuf Plan ({str(exc) or type(exc).__name__})"
        ) from None
    if not plan.relations:
        raise PlanLoadError(
            "not a Substrait plan: the bytes parse as protobuf but hold no relations; expected a "
            "binary Substrait Plan (or protobuf JSON)"
        )
    diags: list[Diagnostic] = []
    state: dict = {}
    upgrade_binary(plan, diags, state)
    return _finish(plan, "binary", diags, state)


def _finish(plan: plan_pb2.Plan, fmt: str, diags: list[Diagnostic], state: dict) -> LoadedPlan:
    if not plan.HasField("version"):
        diags.append(info("no-version", "the plan has no version field (producers before Substrait 0.17 omit it)"))
    elif (plan.version.major_number, plan.version.minor_number) > READS_UP_TO:
        v = plan.version
        diags.append(
            warning(
                "newer-version",
                f"the plan declares Substrait {v.major_number}.{v.minor_number}.{v.patch_number}, newer than the "
                f"{READS_UP_TO[0]}.{READS_UP_TO[1]} this tool reads: a field or value added since is said where it "
                "is met, and a rule changed since is read as it was then",
            )
        )
    return LoadedPlan(
        plan,
        fmt,
        diags,
        set(state.get("legacy_uri_anchors", ())),
        state.get("nested_rels"),
        state.get("bad_fields", []),
    )


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
        raise PlanLoadError(f"plan too large: {len(data):,} bytes; at most {MAX_PLAN_BYTES:,} bytes are accepted")
    loader = _load_json if _looks_like_json(data) else _load_binary
    try:
        return run_deep(loader, data)
    except PlanLoadError:
        raise
    except RecursionError:
        raise PlanLoadError("not loadable: a plan nested deeper than this tool supports") from None


def load_path(path: str) -> LoadedPlan:
    """Read and load a plan file."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_PLAN_BYTES + 1)
    except OSError as exc:
        raise PlanLoadError(f"cannot read {path}: {exc.strerror or exc}") from None
    return load_plan(data)
