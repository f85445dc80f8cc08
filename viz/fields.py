"""Output fields of a relation: name, type, and the depth-first names of nested struct members."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from substrait import type_pb2

from . import types as T


@dataclass(frozen=True)
class Field:
    name: str
    type: type_pb2.Type | None  # None: the type could not be derived (see the node's diagnostics)
    nested: tuple[str, ...] = ()  # depth-first names of the struct members inside ``type``

    @property
    def nullable(self) -> bool | None:
        return T.is_nullable(self.type)

    def renamed(self, name: str) -> Field:
        return Field(name, self.type, self.nested)

    def with_type(self, t: type_pb2.Type | None) -> Field:
        return Field(self.name, t, self.nested)

    def type_text(self, user_types: Mapping[int, str] | None = None, variations: T.Variations | None = None) -> str:
        """The type as text; ``user_types`` (the plan's type anchors to names) names user-defined types,
        ``variations`` the producer's type variations (DataFusion's ``u8``)."""
        # Memoised in the instance dict (the dataclass is frozen; equality ignores it): schemas
        # share their Field objects along a plan, so most nodes render no type at all.
        text = self.__dict__.get("_type_text")
        if text is None:
            text = self.__dict__["_type_text"] = T.render(self.type, list(self.nested))
        if (user_types and "u!" in text) or (variations and self._varied()):
            return T.render(self.type, list(self.nested), user_types, variations)
        return text

    def _varied(self) -> bool:
        """Whether the type, or a type inside it, has a type variation (memoised as the text is)."""
        varied = self.__dict__.get("_has_variation")
        if varied is None:
            varied = self.__dict__["_has_variation"] = T.has_variation(self.type)
        return varied


#: A schema: the ordered output fields of a node, or None when it cannot be known.
Schema = Sequence[Field]


def fields_from_named_struct(names: Sequence[str], types: Sequence[type_pb2.Type]) -> tuple[list[Field], bool]:
    """Fields from a NamedStruct's depth-first ``names`` and top-level ``types``.

    Returns the fields and whether the names fitted exactly (a mismatch still yields fields: missing
    names become ``field_N``, extra names are ignored).
    """
    out: list[Field] = []
    pos = 0
    exact = True
    for i, t in enumerate(types):
        n_nested = T.nested_name_count(t)
        if pos < len(names):
            name = names[pos]
        else:
            name, exact = f"field_{i}", False
        nested = tuple(names[pos + 1 : pos + 1 + n_nested])
        if len(nested) < n_nested:
            exact = False
            nested = nested + tuple(f"f{k}" for k in range(len(nested), n_nested))
        out.append(Field(name, t, nested))
        pos += 1 + n_nested
    if pos != len(names):
        exact = False
    return out, exact


def named_struct_fields(ns) -> list[Field]:
    """The fields of a ``NamedStruct``; names without types (as DataFusion writes them) give fields
    of unknown type."""
    names, types = list(ns.names), list(ns.struct.types)
    if names and not types:
        return [Field(n, None) for n in names]
    return fields_from_named_struct(names, types)[0]


def dfs_names(fields: Schema) -> list[str]:
    out: list[str] = []
    for f in fields:
        out.append(f.name)
        out.extend(f.nested)
    return out


def struct_members(t: type_pb2.Type, nested: Sequence[str]) -> list[Field]:
    """The members of struct type ``t`` as fields, named from the depth-first ``nested`` names."""
    members: list[Field] = []
    pos = 0
    for i, member in enumerate(t.struct.types):
        n = T.nested_name_count(member)
        name = nested[pos] if pos < len(nested) else f"f{i}"
        members.append(Field(name, member, tuple(nested[pos + 1 : pos + 1 + n])))
        pos += 1 + n
    return members


def nested_names_for(t: type_pb2.Type | None) -> tuple[str, ...]:
    """Placeholder depth-first names (``f0``, ``f1``...) for a computed struct type."""
    if t is None:
        return ()
    out: list[str] = []

    def walk(cur: type_pb2.Type) -> None:
        k = cur.WhichOneof("kind")
        if k == "struct":
            for i, m in enumerate(cur.struct.types):
                out.append(f"f{i}")
                walk(m)
        elif k == "list":
            walk(cur.list.type)
        elif k == "map":
            walk(cur.map.key)
            walk(cur.map.value)

    walk(t)
    return tuple(out)
