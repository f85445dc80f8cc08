"""Orderedness and distribution of every node, following each relation's "Property Maintenance" row.

For every node the pass derives

* its **orderedness**: the sort keys its output rows are known to follow (``()`` when the output is
  known to be unordered, ``None`` when it cannot be known, e.g. below an extension relation);
* its **distribution**: how its rows are known to be partitioned (hashed on fields, bucketed by an
  expression, broadcast, round robin, a single partition), ``None`` when unknown;
* the **effect** the node has on each (established, kept, remapped, extended, eliminated,
  overwritten, none, unknown) with the sentence of the spec it follows;

and a few findings as diagnostics: a Sort whose order is eliminated before the root, a Fetch over
unordered input, a MergeJoin whose inputs are not known to be ordered on its keys, a root whose
orderedness is unknown although the plan sorts.

Field indices follow the schema pass (and its :class:`~viz.schema.Conventions`). When a key's field is
dropped (by an emit or an expressions-only Project) the rows are still in its order: the key stays,
shown "(not output)", and the keys after it order the rows it ties; an Expand ends the order at its
first key that is not a consistent field, as the spec says. A sort key that is an expression (not a
field) is kept as its text with no index, and is hidden so where fields move.

One dispatch table on the relation kind (:data:`RULES`, in :mod:`viz.properties.rules`); each rule
returns the node's properties *before* its emit, and the emit is applied in one place (the pass,
:mod:`viz.properties.derive`). Results are memoised per node id and computed bottom-up with an
explicit stack, so plans of any depth and shared subtrees cost one walk. What is derived is in
:mod:`viz.properties.facts`, the spec's sentences it cites in :mod:`viz.properties.spec`.
"""

from .derive import derive_properties
from .facts import EFFECT_MEANINGS, EFFECTS, Distribution, Effect, NodeProperties, Ordering, PartitionField, SortKey
from .rules import RULES

__all__ = [
    "EFFECTS",
    "EFFECT_MEANINGS",
    "RULES",
    "Distribution",
    "Effect",
    "NodeProperties",
    "Ordering",
    "PartitionField",
    "SortKey",
    "derive_properties",
]
