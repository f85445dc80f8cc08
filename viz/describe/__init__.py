"""Plain-language descriptions of a plan's relations, for people who do not read Substrait.

``describe(model, node_id)`` gives one or two short sentences ("Keeps orders whose quantity is above
10", "Joins orders to products on the same product_id, keeping only matches", "Sums quantity ×
price per product_id and product_name"); ``describe_plan(model)`` gives every node's sentence,
memoised on the model.

One dispatch table: relation kind -> describer (``DESCRIBE``, in :mod:`viz.describe.sentences`).
The expressions inside a relation are put into words by :mod:`viz.words` (its ``Words``), which names
field references from the record the node's expressions read (``node.info.incoming``), its columns
named as :mod:`viz.describe.names` names them. The walk over the plan (:mod:`viz.describe.story`)
memoises each sentence; a describer that fails on an odd plan never stops the rest: the node gets a
generic sentence and the failure is kept (see :func:`describe_failures`).
"""

from .names import column_names, root_names
from .sentences import DESCRIBE
from .story import (
    describe,
    describe_failures,
    describe_plan,
    errors_said,
    in_steps,
    spoken_model,
    story_column_names,
    story_order,
    story_runs,
)

__all__ = [
    "DESCRIBE",
    "column_names",
    "describe",
    "describe_failures",
    "describe_plan",
    "errors_said",
    "in_steps",
    "root_names",
    "spoken_model",
    "story_column_names",
    "story_order",
    "story_runs",
]
