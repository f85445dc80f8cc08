"""What the properties pass derives for a node (its ordering, its distribution, the effect it has
on each) and how a :class:`FieldMap` carries them through a relation that moves its fields."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

# ---------------------------------------------------------------------------------------------
# What is derived
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SortKey:
    """One key of an orderedness.

    ``indices`` are every output field that holds the key's value: a Project that copies an ordered
    field by direct reference *extends* the key with the copy's index (either column can then be
    relied on as the sort key, and the order survives an emit that keeps only the copy). ``()`` for
    a key that is an expression, shown by its ``text``.
    """

    indices: tuple[int, ...]
    text: str  # the expression's text for an expression key; "" for a field key
    direction: str  # "ASC NULLS FIRST", "DESC NULLS LAST", "CLUSTERED", "USING fn", ...
    origin: str  # the node that established the order (a Sort, a Top-N)
    name: str = ""  # the name of the first field at this node (set per node)
    #: the rows are still in this key's order, but no output field holds it (an emit dropped it, or moved
    #: the fields an expression key reads): shown by its ``text``, and it ends the order
    hidden: bool = False

    @property
    def index(self) -> int | None:
        return self.indices[0] if self.indices else None

    def label(self) -> str:
        if self.hidden:
            return f"{self.text} {self.direction} (not output)"
        if not self.indices:
            return f"{self.text} {self.direction}".strip()
        same = "=".join(f"${i}" for i in self.indices)
        return f"{same}:{self.name} {self.direction}".strip()

    def to_json(self) -> dict:
        name = self.name if self.indices else self.text + (" (not output)" if self.hidden else "")
        return {"index": self.index, "name": name, "direction": self.direction}


#: The orderedness of a node: its keys in order; ``()`` known unordered; ``None`` unknown.
Ordering = tuple[SortKey, ...] | None


@dataclass(frozen=True)
class PartitionField:
    """A field rows are hashed on; ``indices`` like :attr:`SortKey.indices`, ``()`` for a nested
    reference shown by its ``text``."""

    indices: tuple[int, ...]
    text: str = ""
    name: str = ""

    def to_json(self) -> dict:
        return {"index": self.indices[0] if self.indices else None, "name": self.name if self.indices else self.text}


@dataclass(frozen=True)
class Distribution:
    """What is known about how rows are partitioned.

    ``kind``: ``hashed`` (on ``fields``, after a scatter Exchange), ``bucketed`` (by ``expression``
    giving one bucket, or a list of buckets when ``multi``), ``broadcast``, ``round_robin``, or
    ``single`` (an Exchange into one partition).
    """

    kind: str
    origin: str  # the node that set it
    fields: tuple[PartitionField, ...] = ()
    expression: str = ""
    multi: bool = False
    exact: bool = False
    partition_count: int | None = None

    def label(self) -> str:
        text = self.kind.replace("_", " ")
        if self.kind == "hashed":
            text += " on " + ", ".join(
                ("=".join(f"${i}" for i in f.indices) + f":{f.name}") if f.indices else f.text for f in self.fields
            )
        elif self.kind == "bucketed":
            text += f" by {'buckets ' if self.multi else ''}{self.expression}"
        elif self.kind == "round_robin" and self.exact:
            text += " (exact)"
        if self.partition_count:
            text += f" into {self.partition_count}"
        return text

    def same_as(self, other: Distribution) -> bool:
        """The same partitioning, ignoring where it was set and field names."""
        return (
            self.kind == other.kind
            and [f.indices or f.text for f in self.fields] == [f.indices or f.text for f in other.fields]
            and (self.expression, self.multi, self.exact, self.partition_count)
            == (other.expression, other.multi, other.exact, other.partition_count)
        )

    def to_json(self) -> dict:
        out: dict = {"kind": self.kind, "partition_count": self.partition_count}
        if self.kind == "hashed":
            out["fields"] = [f.to_json() for f in self.fields]
        if self.kind == "bucketed":
            out["expression"] = self.expression
            out["multi"] = self.multi
        if self.kind == "round_robin":
            out["exact"] = self.exact
        return out


#: The effects a node can have on a property.
EFFECTS = ("established", "kept", "remapped", "extended", "eliminated", "overwritten", "none", "unknown")
#: Each effect in words, for a person who has not read the spec's property maintenance rules.
EFFECT_MEANINGS = {
    "established": "this node sets it",
    "kept": "as its input has it",
    "remapped": "its input's, with its fields at their new places",
    "extended": "its input's, with more keys after them",
    "eliminated": "this node loses its input's",
    "overwritten": "this node replaces its input's with its own",
    "none": "none to keep: a read, or a node without output rows",
    "unknown": "the plan does not say enough to know",
}


@dataclass(frozen=True)
class Effect:
    kind: str  # one of EFFECTS
    rule: str  # the spec's sentence this follows
    note: str = ""  # what happened at this node, when there is more to say


@dataclass(frozen=True)
class NodeProperties:
    orderedness: Ordering
    distribution: Distribution | None
    order_effect: Effect
    distribution_effect: Effect

    def to_json(self) -> dict:
        return {
            "orderedness": None if self.orderedness is None else [k.to_json() for k in self.orderedness],
            "distribution": None if self.distribution is None else self.distribution.to_json(),
            "effects": {"orderedness": self.order_effect.kind, "distribution": self.distribution_effect.kind},
        }

    def order_text(self) -> str:
        if self.orderedness is None:
            return "unknown"
        return ", ".join(k.label() for k in self.orderedness) if self.orderedness else "none"

    def distribution_text(self) -> str:
        return "unknown" if self.distribution is None else self.distribution.label()


def order_cut(before: Ordering, after: Ordering, how: str) -> str:
    """What a field map did to an order, in words (``how``: "the emit drops", ...): "" when every key survived."""
    if before is None or after is None or after == before:
        return ""
    hidden = [a.text for a, b in zip(after, before) if a.hidden and not b.hidden]
    if not hidden:  # an Expand's order ends at a key it does not keep
        return f"{how} an ordered field: the order ends before it" if len(after) < len(before) else ""
    which = "the first ordered field" if after[0].hidden and not before[0].hidden and len(hidden) == 1 else None
    if which is None:
        which = f"an ordered field ({hidden[0]})" if len(hidden) == 1 else f"ordered fields ({', '.join(hidden)})"
    them = "its order, which no output field shows" if len(hidden) == 1 else "their order, which no output field shows"
    return f"{how} {which}: the rows are still in {them}"


def _hidden(key: SortKey) -> SortKey:
    """``key`` once no output field holds it, shown by what it was: its field's name, or its expression."""
    text = key.name or (f"${key.indices[0]}" if key.indices else key.text)
    return replace(key, indices=(), text=text, hidden=True)


# ---------------------------------------------------------------------------------------------
# Field maps: where each input field ends up
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldMap:
    """Where each input field ends up: ``targets(i)`` are the output indices holding input field ``i``.

    ``identity``: every input field keeps its index, so expression keys (which read input fields by
    index) still mean the same thing.
    """

    targets: Callable[[int], tuple[int, ...]]
    identity: bool
    #: the order ends at the first key dropped (an Expand's: "down to the level of consistent fields")
    cut: bool = False

    @staticmethod
    def of(targets: Mapping[int, Sequence[int]], identity: bool = False, cut: bool = False) -> FieldMap:
        table = {i: tuple(t) for i, t in targets.items()}
        return FieldMap(lambda i: table.get(i, ()), identity, cut)

    @staticmethod
    def shift(by: int) -> FieldMap:
        """A right input's fields placed after ``by`` left fields."""
        return FieldMap(lambda i: (i + by,), by == 0)

    def _indices(self, indices: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(sorted({t for i in indices for t in self.targets(i)}))

    def order(self, order: Ordering) -> Ordering:
        """The orderedness through this map: every key, each where its field now is; a key whose field is
        dropped stays, hidden (:attr:`SortKey.hidden`): the rows are still in its order, and the keys after it
        order only the rows it ties. With :attr:`cut`, the order ends at the first key dropped (the first
        kept hidden)."""
        if order is None:
            return None
        out: list[SortKey] = []
        for key in order:
            if key.hidden:
                moved: tuple[int, ...] | None = None
            elif key.indices:
                moved = self._indices(key.indices) or None
            else:
                moved = () if self.identity else None
            if moved is None:
                if self.cut and out:
                    break
                out.append(key if key.hidden else _hidden(key))
                if self.cut:
                    break
                continue
            out.append(key if moved == key.indices else replace(key, indices=moved))
        return tuple(out)

    def distribution(self, dist: Distribution | None) -> Distribution | None:
        """The distribution through this map; unknown when a hash field is dropped."""
        if dist is None:
            return None
        if dist.kind == "hashed":
            moved: list[PartitionField] = []
            for f in dist.fields:
                if f.indices:
                    indices = self._indices(f.indices)
                    if not indices:
                        return None
                    moved.append(f if indices == f.indices else replace(f, indices=indices))
                elif self.identity:
                    moved.append(f)
                else:
                    return None
            return replace(dist, fields=tuple(moved))
        if dist.kind == "bucketed" and not self.identity:
            return None  # the bucket expression reads fields by their old indices
        return dist
