"""What a relation's translator works with: the translation under way (:class:`Translating`, which the
walk in :mod:`executor.translate.rel` implements) and a node's output not selected yet (:class:`Parts`).
Apart from the walk, so the relations' modules and the walk that dispatches to them do not import each
other."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pyspark.sql import Column, DataFrame

from viz.model import NodeView, PlanModel

from .expr import ExprTranslator, Record


@dataclass
class Parts:
    """A node's output as columns over another DataFrame, not selected yet: a project, or a global
    aggregate and the projects over it. A consumer that can take the columns into its own step does
    (each DataFrame step costs Spark an analysis of the whole plan so far); any other gets the select.

    ``origins``: per output, which of the node's expressions it is (outputs with the same origin are
    one expression), or None for an input column or a literal, which may be repeated freely.
    ``star``: how many leading outputs are the input's own columns in order (selected as ``*``).
    """

    df: DataFrame
    columns: list[Column]
    origins: list[int | None]
    over_aggregate: bool = False
    star: int = 0


class Translating(Protocol):
    """The translation of one plan at one subquery depth, as a relation's translator uses it."""

    model: PlanModel
    spark: Any
    tables: Any
    depth: int
    outer: tuple[Record, ...]
    prefix: str
    offset: int
    warnings: list[str]

    def name(self, i: int) -> str: ...
    def names(self, n: int, start: int = 0) -> list[str]: ...
    def warn(self, message: str) -> None: ...
    def expressions(
        self, node: NodeView, names: Sequence[str], fields, df: DataFrame | None = None
    ) -> ExprTranslator: ...
    def parts_of(self, node_id: str) -> Parts | None: ...
    def input(self, node: NodeView, k: int = 0) -> tuple[DataFrame, int]: ...
    def incoming(self, node: NodeView) -> tuple[DataFrame, int, ExprTranslator]: ...
    def input_at(self, node: NodeView, k: int, start: int) -> tuple[DataFrame, int]: ...
    def subquery(
        self, sub_id: str, outer: tuple[Record, ...], prefix: str | None = None
    ) -> tuple[DataFrame, list[str]]: ...
    def emit_mapping(self, node: NodeView) -> list[int] | None: ...
    def _emit(self, node: NodeView, df: DataFrame) -> DataFrame: ...
