"""Readings of a relation that the passes and the executor share, so all read it one way: where an
aggregate's output columns come from (:class:`AggregateLayout`), a join's type name and whose rows it
outputs."""

from __future__ import annotations

from dataclasses import dataclass

from substrait import algebra_pb2, type_pb2

from .. import types as T
from ..coercion import UNSIGNED_VARIATION
from ..expressions import direct_field
from .context import Conventions

#: The name of DataFusion's grouping-id column (a bit mask of the keys each grouping set leaves out).
GROUPING_ID = "__grouping_id"


def project_passed_on(index: int, base: int, exprs) -> int | None:
    """The input column a project's emitted ``index`` passes on, over an input of ``base`` columns: the
    column itself, or the one an expression only names (``$3``); None where it is computed (or out of range)."""
    if 0 <= index < base:
        return index
    if base <= index < base + len(exprs):
        return direct_field(exprs[index - base])
    return None


def join_type_name(body) -> str:
    """A join's type by its enum's name (``JOIN_TYPE_LEFT``, ...): each join relation has its own enum.
    A number the enum does not define (a binary plan keeps any) is ``JOIN_TYPE_<number>``."""
    value = body.DESCRIPTOR.fields_by_name["type"].enum_type.values_by_number.get(body.type)
    return value.name if value is not None else f"JOIN_TYPE_{body.type}"


def join_layout(type_name: str) -> str:
    """Whose rows a join of ``type_name`` outputs, its fields first: "both" inputs', or the "left" or
    "right" one's alone (a semi, anti or mark join only looks the other up)."""
    if type_name in ("JOIN_TYPE_LEFT_SEMI", "JOIN_TYPE_LEFT_ANTI", "JOIN_TYPE_LEFT_MARK"):
        return "left"
    if type_name in ("JOIN_TYPE_RIGHT_SEMI", "JOIN_TYPE_RIGHT_ANTI", "JOIN_TYPE_RIGHT_MARK"):
        return "right"
    return "both"


_PADDED = {
    "JOIN_TYPE_LEFT": (False, True),
    "JOIN_TYPE_LEFT_SINGLE": (False, True),
    "JOIN_TYPE_RIGHT": (True, False),
    "JOIN_TYPE_RIGHT_SINGLE": (True, False),
    "JOIN_TYPE_OUTER": (True, True),
}


def join_padding(type_name: str) -> tuple[bool, bool]:
    """Whether a join of ``type_name`` pads the left and the right input's fields with nulls (an outer
    or single join's row without a match on that side)."""
    return _PADDED.get(type_name, (False, False))


@dataclass(frozen=True)
class AggregateLayout:
    """Where an AggregateRel's output columns come from (one reading for the model and the executor).

    ``keys`` are the distinct grouping expressions (indices into ``grouping_expressions``) in order of
    first appearance: two grouping expressions whose messages are equal share a column, as the spec
    says. ``sets`` holds, per grouping set, the positions in ``keys`` it groups by. ``grouping_column``
    says which extra column a multi-set aggregate has and where: ``"index"`` (the spec: the i32 index of
    the set, after the measures), ``"datafusion"`` (DataFusion: its ``__grouping_id`` bit mask, after the
    keys; a key's bit is 1 when the set leaves it out, the first key the highest bit) or ``None``.
    """

    keys: tuple[int, ...]
    sets: tuple[frozenset[int], ...]
    grouping_column: str | None
    bad_references: tuple[int, ...] = ()

    @property
    def no_keys(self) -> bool:
        """Whether it groups by nothing (no grouping set, or one that is empty): with measures, a
        global aggregate of exactly one row."""
        return all(not m for m in self.sets) and len(self.sets) <= 1

    def grouping_value(self, set_index: int) -> int:
        """The value of the grouping column for rows of grouping set ``set_index``."""
        if self.grouping_column != "datafusion":
            return set_index
        members, n = self.sets[set_index], len(self.keys)
        return sum(1 << (n - 1 - pos) for pos in range(n) if pos not in members)

    def grouping_type(self) -> type_pb2.Type:
        """The grouping column's type: i32 for the spec; DataFusion's unsigned integer just wide enough
        for one bit per key, 8 keys in 8 bits (written as a signed integer of that width with DataFusion's
        unsigned type variation, 1)."""
        if self.grouping_column != "datafusion":
            return T.i32(False)
        n = len(self.keys)
        kind = "i8" if n <= 8 else "i16" if n <= 16 else "i32" if n <= 32 else "i64"
        out = type_pb2.Type()
        getattr(out, kind).nullability = T.REQUIRED
        getattr(out, kind).type_variation_reference = UNSIGNED_VARIATION["datafusion"]
        return out


def aggregate_layout(body: algebra_pb2.AggregateRel, conventions: Conventions) -> AggregateLayout:
    canonical: dict[bytes, int] = {}
    position: dict[int, int] = {}  # grouping expression index -> canonical key index
    for i, e in enumerate(body.grouping_expressions):
        position[i] = canonical.setdefault(e.SerializeToString(deterministic=True), i)
    keys: list[int] = []
    sets: list[set[int]] = []
    bad: list[int] = []
    for g in body.groupings:
        members: set[int] = set()
        for r in g.expression_references:
            if r not in position:
                bad.append(r)
                continue
            k = position[r]
            if k not in keys:
                keys.append(k)
            members.add(keys.index(k))
        sets.append(members)
    column = conventions.grouping_column if len(sets) > 1 else None
    return AggregateLayout(tuple(keys), tuple(frozenset(m) for m in sets), column, tuple(bad))
