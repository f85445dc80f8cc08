"""Substrait types: readable rendering (``decimal<38,4>?``), nullability, and small constructors.

Types are kept as ``substrait.type_pb2.Type`` messages; ``None`` stands for a type that could not be
derived (the node carries a diagnostic saying why).
"""

from __future__ import annotations

from collections.abc import Mapping

from substrait import type_pb2

Type = type_pb2.Type
NULLABLE = Type.NULLABILITY_NULLABLE
REQUIRED = Type.NULLABILITY_REQUIRED

_SIMPLE_NAMES = {
    "bool": "boolean",
    "i8": "i8",
    "i16": "i16",
    "i32": "i32",
    "i64": "i64",
    "fp32": "fp32",
    "fp64": "fp64",
    "string": "string",
    "binary": "binary",
    "date": "date",
    "interval_year": "interval_year",
    "uuid": "uuid",
}


#: A readable name (or the Type field itself) -> the Type field, for :func:`type_json`.
_FIELD_OF_NAME = {**{k: k for k in _SIMPLE_NAMES}, **{v: k for k, v in _SIMPLE_NAMES.items()}}


def type_json(text: str) -> dict:
    """A type in protobuf-JSON form from its short text: ``"i64"`` required, ``"string?"`` nullable,
    ``"decimal<10,2>?"``. For hand-made plans (the sample plans' script and the tests)."""
    nullable = text.endswith("?")
    base = text.rstrip("?")
    nullability = "NULLABILITY_NULLABLE" if nullable else "NULLABILITY_REQUIRED"
    if base.startswith("decimal<") and base.endswith(">"):
        precision, scale = base[len("decimal<") : -1].split(",")
        return {"decimal": {"precision": int(precision), "scale": int(scale), "nullability": nullability}}
    if base not in _FIELD_OF_NAME:
        raise ValueError(f"unknown type text {text!r}: expected a simple type such as i64 or string?, or decimal<P,S>")
    return {_FIELD_OF_NAME[base]: {"nullability": nullability}}


def kind(t: Type | None) -> str | None:
    return t.WhichOneof("kind") if t is not None else None


def is_nullable(t: Type | None) -> bool | None:
    """True/False for a concrete type, None when unknown or unspecified."""
    k = kind(t)
    if k is None or k in ("unbound", "alias", "func"):
        return None
    n = getattr(t, k).nullability
    if n == NULLABLE:
        return True
    if n == REQUIRED:
        return False
    return None


def with_nullability(t: Type, nullable: bool) -> Type:
    """A copy of ``t`` made nullable or required (unchanged when it carries no nullability)."""
    k = kind(t)
    if k is None or k in ("unbound", "alias", "func"):
        return t
    out = Type()
    out.CopyFrom(t)
    getattr(out, k).nullability = NULLABLE if nullable else REQUIRED
    return out


def make_nullable(t: Type | None) -> Type | None:
    if t is None or is_nullable(t):
        return t
    return with_nullability(t, True)


def nullable_within(t: Type) -> Type:
    """A copy of ``t`` whose list elements, map values and struct members, at every depth, are nullable
    (its own nullability kept): the one type of values that differ only in what inside them may be null."""
    out = Type()
    out.CopyFrom(t)
    k = kind(out)
    if k == "list":
        out.list.type.CopyFrom(make_nullable(nullable_within(out.list.type)))
    elif k == "map":
        out.map.value.CopyFrom(make_nullable(nullable_within(out.map.value)))
    elif k == "struct":
        members = [make_nullable(nullable_within(m)) for m in out.struct.types]
        del out.struct.types[:]
        out.struct.types.extend(members)
    return out


def boolean(nullable: bool = True) -> Type:
    return Type(bool=Type.Boolean(nullability=NULLABLE if nullable else REQUIRED))


def i32(nullable: bool = False) -> Type:
    return Type(i32=Type.I32(nullability=NULLABLE if nullable else REQUIRED))


def i64(nullable: bool = False) -> Type:
    return Type(i64=Type.I64(nullability=NULLABLE if nullable else REQUIRED))


def struct_of(types: list[Type], nullable: bool = False) -> Type:
    return Type(struct=Type.Struct(types=types, nullability=NULLABLE if nullable else REQUIRED))


#: A simple kind with a type variation -> the name it is shown by (``("i8", 1)`` -> ``"u8"`` in
#: DataFusion's plans: ``viz.coercion.variation_names``).
Variations = Mapping[tuple[str, int], str]


def render(
    t: Type | None,
    names: list[str] | None = None,
    user_types: Mapping[int, str] | None = None,
    variations: Variations | None = None,
) -> str:
    """The type in the spec's signature syntax: ``i64``, ``string?``, ``decimal<38,4>?``, ``list<i32>``.

    ``names`` (depth-first names of nested struct fields) label struct members when given;
    ``user_types`` (the plan's type anchors to their declared names) names user-defined types as the
    spec's test cases write them (``u!fp16``), else they show their anchor (``u!0``); ``variations``
    names the simple kinds a producer varies (DataFusion's unsigned ``u8``), else a variation is not shown.
    """
    if t is None:
        return "unknown"
    name_iter = iter(names or [])
    return _render(t, name_iter, user_types or {}, variations or {})


#: Parameterised kinds: the name the spec writes and the parameters in ``<...>``.
_PARAMETERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "interval_compound": ("interval_compound", ("precision",)),
    "fixed_char": ("fixedchar", ("length",)),
    "varchar": ("varchar", ("length",)),
    "fixed_binary": ("fixedbinary", ("length",)),
    "decimal": ("decimal", ("precision", "scale")),
    "precision_time": ("precision_time", ("precision",)),
    "precision_timestamp": ("precision_timestamp", ("precision",)),
    "precision_timestamp_tz": ("precision_timestamp_tz", ("precision",)),
}


def _render(t: Type, names, user_types: Mapping[int, str], variations: Variations) -> str:
    k = t.WhichOneof("kind")
    if k is None:
        return "unknown"
    body = getattr(t, k)
    if k in _SIMPLE_NAMES:
        s = variations.get((k, body.type_variation_reference)) or _SIMPLE_NAMES[k]
    elif k == "interval_day":
        s = f"interval_day<{body.precision}>" if body.precision else "interval_day"
    elif k in _PARAMETERS:
        name, params = _PARAMETERS[k]
        s = f"{name}<{','.join(str(getattr(body, p)) for p in params)}>"
    elif k == "struct":
        parts = []
        for member in body.types:
            label = next(names, None)
            inner = _render(member, names, user_types, variations)
            parts.append(f"{label}: {inner}" if label is not None else inner)
        s = f"struct<{', '.join(parts)}>"
    elif k == "list":
        s = f"list<{_render(body.type, names, user_types, variations)}>"
    elif k == "map":
        key, value = (_render(part, names, user_types, variations) for part in (body.key, body.value))
        s = f"{variations.get((k, body.type_variation_reference), 'map')}<{key}, {value}>"
    elif k == "user_defined":
        s = f"u!{user_types.get(body.type_reference, body.type_reference)}"
    elif k == "func":
        s = "func<...>"
    elif k == "unbound":
        return "any"
    elif k == "alias":
        return f"alias!{body.type_alias_reference}" if hasattr(body, "type_alias_reference") else "alias"
    else:  # pragma: no cover - a kind added to the proto later
        s = k
    nullability = getattr(body, "nullability", REQUIRED)
    return s + ("?" if nullability == NULLABLE else "")


def has_variation(t: Type | None) -> bool:
    """Whether ``t``, or a type inside it, has a type variation."""
    if t is None:
        return False
    k = t.WhichOneof("kind")
    if k is None or k in ("unbound", "alias", "func"):
        return False
    body = getattr(t, k)
    if getattr(body, "type_variation_reference", 0):
        return True
    if k == "struct":
        return any(has_variation(m) for m in body.types)
    if k == "list":
        return has_variation(body.type)
    if k == "map":
        return has_variation(body.key) or has_variation(body.value)
    return False


def nested_name_count(t: Type | None) -> int:
    """How many depth-first names the nested structs inside ``t`` take (0 for a flat type)."""
    if t is None:
        return 0
    count = 0
    stack = [t]
    while stack:
        cur = stack.pop()
        k = cur.WhichOneof("kind")
        if k == "struct":
            count += len(cur.struct.types)
            stack.extend(cur.struct.types)
        elif k == "list":
            stack.append(cur.list.type)
        elif k == "map":
            stack.append(cur.map.key)
            stack.append(cur.map.value)
    return count


def problem(t: Type | None, lengths: bool = True) -> str | None:
    """What makes a type invalid by the spec (a decimal's precision outside 1-38 or its scale outside
    0-precision; a timestamp's precision outside 0-12; with ``lengths``, a text or binary length below 1),
    or None. Looks inside structs, lists and maps."""
    stack = [t] if t is not None else []
    while stack:
        cur = stack.pop()
        which = cur.WhichOneof("kind")
        body = getattr(cur, which) if which else None
        if which == "decimal":
            p, s = body.precision, body.scale
            if not 1 <= p <= 38:
                return f"decimal<{p},{s}>: a decimal's precision is 1 to 38"
            if not 0 <= s <= p:
                return f"decimal<{p},{s}>: a decimal's scale is 0 to its precision"
        elif which in ("precision_time", "precision_timestamp", "precision_timestamp_tz"):
            if not 0 <= body.precision <= 12:
                return f"{which}<{body.precision}>: the precision is 0 to 12 digits of a second"
        elif lengths and which in ("varchar", "fixed_char", "fixed_binary") and body.length < 1:
            return f"{which}<{body.length}>: the length is at least 1"
        elif which == "struct":
            stack.extend(body.types)
        elif which == "list":
            stack.append(body.type)
        elif which == "map":
            stack.extend((body.key, body.value))
    return None


def is_null_type(t: Type | None, user_types: Mapping[int, str]) -> bool:
    """Whether ``t`` is a producer's type of an untyped NULL (DataFusion's user-defined ``null``)."""
    return kind(t) == "user_defined" and user_types.get(t.user_defined.type_reference, "").casefold() == "null"


def same_type_ignoring_nullability(a: Type | None, b: Type | None) -> bool:
    if a is None or b is None:
        return True
    kind_ = a.WhichOneof("kind")
    if kind_ != b.WhichOneof("kind"):
        return False
    if kind_ in _SIMPLE_NAMES or a == b:  # a parameterless kind, or equal with nullability too
        return True
    return render(with_nullability(a, False)) == render(with_nullability(b, False))


def common_decimal(a: Type | None, b: Type | None) -> Type | None:
    """The decimal both of two decimals fit in (integer digits and scale of the wider, at most 38
    digits), nullable when either is; None unless both are decimals."""
    if kind(a) != "decimal" or kind(b) != "decimal":
        return None
    scale = max(a.decimal.scale, b.decimal.scale)
    digits = max(a.decimal.precision - a.decimal.scale, b.decimal.precision - b.decimal.scale)
    nullable = bool(is_nullable(a)) or bool(is_nullable(b))
    return Type(
        decimal=Type.Decimal(
            precision=min(38, digits + scale), scale=scale, nullability=NULLABLE if nullable else REQUIRED
        )
    )
