"""Derive every node's output schema, following each relation's "Direct Output Order" then its emit.

One dispatch table on the relation kind (:data:`DERIVE`, in :mod:`viz.schema.rules`); each entry
takes the node's :class:`Context` (its inputs' schemas already derived) and returns the direct output
fields. The pass (:mod:`viz.schema.derive`) memoises the results per node id and computes them
bottom-up with an explicit stack, so shared subtrees cost one walk and any depth works. Expressions
are typed and rendered in the same pass (the inspector shows them). :mod:`viz.schema.context` holds
what a rule works with, :mod:`viz.schema.layouts` the readings the executor shares.
"""

from .context import SPEC, Context, Conventions, NodeInfo
from .derive import derive_schemas, root_name_mismatches, unused_expressions
from .layouts import (
    GROUPING_ID,
    AggregateLayout,
    aggregate_layout,
    join_layout,
    join_padding,
    join_type_name,
    project_passed_on,
)
from .rules import DERIVE

__all__ = [
    "DERIVE",
    "GROUPING_ID",
    "SPEC",
    "AggregateLayout",
    "Context",
    "Conventions",
    "NodeInfo",
    "aggregate_layout",
    "derive_schemas",
    "join_layout",
    "join_padding",
    "join_type_name",
    "project_passed_on",
    "root_name_mismatches",
    "unused_expressions",
]
