"""What lineage finds, and how it is written: a column's sources as a DAG of :class:`Step` (a
:class:`Lineage`), its uses going up (a :class:`Usage`), every column's sources in short (a
:class:`Summary`), and each path in words (:func:`chain_text`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import Diagnostic, PlanError

#: A column: (node id, output field index).
Ref = tuple[str, int]

#: Expression texts in chains are cut to this many characters.
MAX_TEXT = 160
#: At most this many chains (paths from a column to its sources) are listed.
MAX_CHAINS = 40


class LineageError(PlanError):
    """A column that is not in the plan was asked for (an unknown node, or an index out of range)."""


@dataclass(frozen=True)
class Source:
    """A table column a value is read from: ``table`` ("lineitem", "virtual table", "files a.parquet")
    and the column's name and position in the table's base schema."""

    table: str
    column: str
    index: int

    def text(self) -> str:
        # not "[5] l_extendedprice": a chain's other "[i]" are places in a node's output
        return f"{self.column} of {self.table} (table column {self.index})"

    def to_json(self) -> dict:
        return {"table": self.table, "column": self.column}


@dataclass(frozen=True)
class Origin:
    """Where one output column of a node comes from, one step down.

    ``kind``: ``"source"`` (read from a table: ``sources``), ``"passes"`` (an input column, unchanged
    or renamed), ``"computed"`` (an expression over ``inputs`` and ``literals``) or ``"unknown"``
    (``how`` says why). ``how`` is the expression in the plan's words, or a short phrase.
    """

    kind: str
    how: str
    inputs: tuple[Ref, ...] = ()
    literals: tuple[str, ...] = ()
    sources: tuple[Source, ...] = ()
    note: str = ""  # e.g. "outer reference to 0.0's input"


@dataclass(frozen=True)
class Use:
    """A condition or key of node ``node`` (``role``: "filter condition", "join key", ...) that
    reads the columns ``inputs``; ``text`` is the expression in the plan's words."""

    node: str
    role: str
    text: str
    inputs: tuple[Ref, ...] = ()


@dataclass(frozen=True)
class Step:
    """One column on a lineage path, and where it comes from."""

    node: str
    index: int
    name: str
    origin: Origin

    @property
    def ref(self) -> Ref:
        return (self.node, self.index)

    def column_text(self) -> str:
        return f"[{self.index}] {self.name}"


@dataclass(frozen=True)
class Chain:
    """One path from a column down to where it ends: a table column (``source``), a literal
    (``literal``), or a step that reads nothing further (computed from nothing, or unknown)."""

    steps: tuple[Step, ...]
    source: Source | None = None
    literal: str | None = None


@dataclass(frozen=True)
class Lineage:
    """Where column ``start`` comes from: every column reached going down (``steps``, the start
    first), and the problems met on the way."""

    start: Ref
    steps: Mapping[Ref, Step]
    diagnostics: tuple[Diagnostic, ...] = ()

    def sources(self) -> list[Source]:
        return list(dict.fromkeys(s for step in self.steps.values() for s in step.origin.sources))

    def literals(self) -> list[str]:
        return list(dict.fromkeys(lit for step in self.steps.values() for lit in step.origin.literals))

    def unknown(self) -> list[Step]:
        return [s for s in self.steps.values() if s.origin.kind == "unknown"]

    def nodes(self) -> list[str]:
        """The nodes the path goes through, the start's first."""
        return list(dict.fromkeys(s.node for s in self.steps.values()))

    def edges(self) -> list[tuple[str, str]]:
        """The graph edges the path follows, as (input node, reading node) pairs."""
        out: dict[tuple[str, str], None] = {}
        for step in self.steps.values():
            for node, _ in step.origin.inputs:
                if node != step.node:
                    out[(node, step.node)] = None
        return list(out)

    def chains(self, limit: int = MAX_CHAINS) -> tuple[list[Chain], int]:
        """The paths from the start to each end (depth first, in input order), at most ``limit``,
        and how many more there are (counted up to 10 × ``limit``)."""
        out: list[Chain] = []
        more = 0
        path: list[Step] = []
        on_path: set[Ref] = set()
        stack: list[tuple[Ref, bool]] = [(self.start, False)]  # (column, leaving it)
        while stack:
            ref, leaving = stack.pop()
            if leaving:
                path.pop()
                on_path.discard(ref)
                continue
            step = self.steps.get(ref)
            if step is None or ref in on_path:
                continue
            path.append(step)
            on_path.add(ref)
            stack.append((ref, True))
            ends = [Chain(tuple(path), source=s) for s in step.origin.sources]
            ends += [Chain(tuple(path), literal=lit) for lit in step.origin.literals]
            if not step.origin.inputs and not ends:
                ends.append(Chain(tuple(path)))
            for c in ends:
                if len(out) < limit:
                    out.append(c)
                else:
                    more += 1
            if more > 10 * limit:
                break
            stack.extend((r, False) for r in reversed(step.origin.inputs))
        out.sort(key=lambda c: c.literal is not None)  # the table columns first, then the literals
        return out, more


@dataclass(frozen=True)
class Usage:
    """Where column ``start`` is used going up: the columns computed from it (directly or through
    others; nearest first), and the conditions and keys that read it or one of those columns."""

    start: Ref
    columns: tuple[Step, ...]
    conditions: tuple[Use, ...]

    def nodes(self) -> list[str]:
        return list(dict.fromkeys([*(s.node for s in self.columns), *(u.node for u in self.conditions)]))

    def edges(self) -> list[tuple[str, str]]:
        out: dict[tuple[str, str], None] = {}
        for step in self.columns:
            for node, _ in step.origin.inputs:
                if node != step.node:
                    out[(node, step.node)] = None
        for use in self.conditions:
            for node, _ in use.inputs:
                if node != use.node:
                    out[(node, use.node)] = None
        return list(out)


@dataclass(frozen=True)
class Summary:
    """A column's sources at a glance: the table columns and literals it is computed from, and
    whether some part of it could not be followed."""

    sources: tuple[Source, ...] = ()
    literals: tuple[str, ...] = ()
    unknown: bool = False

    def to_json(self) -> dict:
        out: dict = {"sources": [s.to_json() for s in self.sources]}
        if self.literals:
            out["literals"] = list(self.literals)
        if self.unknown:
            out["unknown"] = True
        return out


# ---------------------------------------------------------------------------------------------
# Chains in words
# ---------------------------------------------------------------------------------------------


def _cut(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def chain_text(chain: Chain) -> str:
    """A chain as the inspector writes it: ``[1] revenue ← sum(...) ← l_extendedprice of lineitem (table column 5)``.

    Each column is ``[index] name``; an expression is written where a column is computed; a column
    that only passes through under the same name is written once (the start's and the table's are
    always written)."""
    tokens: list[tuple[str, str | None]] = []  # (text, the column's name, or None for an expression)

    def mention(text: str, name: str, end: bool = False) -> None:
        if tokens and tokens[-1][1] == name:
            if len(tokens) == 1 and not end:
                return  # the start, passed through under the same name
            if len(tokens) > 1:
                tokens[-1] = (text, name)  # the same column further down: the deeper mention
                return
        tokens.append((text, name))

    for k, step in enumerate(chain.steps):
        if k == 0:
            tokens.append((step.column_text(), step.name))
        elif step.origin.kind != "source" and "(" not in step.name:
            mention(step.column_text(), step.name)  # a column named by its expression is written by that
        o = step.origin
        if o.kind == "computed":
            tokens.append((_cut(o.how), None))
        elif o.kind == "unknown":
            tokens.append((f"unknown: {o.note or o.how}", None))
    if chain.source is not None:
        mention(chain.source.text(), chain.source.column, end=True)
    elif chain.literal is not None:
        tokens.append((f"literal {chain.literal}", None))
    return " ← ".join(t for t, _ in tokens)


def chain_texts(lineage: Lineage, limit: int = MAX_CHAINS) -> list[str]:
    """Every chain of ``lineage`` in words (distinct, at most ``limit``, then a count of the rest)."""
    chains, more = lineage.chains(limit)
    out = list(dict.fromkeys(chain_text(c) for c in chains))
    if more:
        out.append(f"… and {more}{'+' if more > 10 * limit else ''} more paths")
    return out


def use_text(use: Use) -> str:
    """``0.0.1 filter condition: is_null(...)``."""
    return f"{use.node} {use.role}: {_cut(use.text)}"


def step_text(step: Step) -> str:
    """``0.0 [1] revenue: sum(...)`` (how a column above is computed from the one traced)."""
    o = step.origin
    how = "" if o.kind == "passes" else f": {_cut(o.how)}"
    return f"{step.node} {step.column_text()}{how}"
