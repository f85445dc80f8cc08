"""Column lineage: where a column comes from, down to table columns and literals, and where it is used.

A column is a pair ``(node id, output field index)``. For each node, one rule per relation kind
(:data:`RULES`) says where each of its direct output fields comes from, one step down
(:class:`Origin`: passed through from an input column, computed by an expression that reads some
input columns and literals, read from a table), and which of its incoming fields its conditions and
keys read (:class:`Use`: a filter condition, a join key, a sort key, a grouping key...). The node's
emit is applied after the rule, as for schemas. Expressions are read from the plan's own messages
and named as the schema pass typed them (``NodeInfo.typed``), so the texts are the inspector's.

On top of the per-node facts (computed once per node, memoised beside the model):

- :func:`trace` follows a column down to its sources (a DAG of :class:`Step`), and
  :meth:`Lineage.chains` / :func:`chain_text` write each path as
  ``[1] revenue ← sum(...) ← l_extendedprice of lineitem (table column 5)``;
- :func:`used_by` follows it up: the columns computed from it and the conditions and keys that
  read it (or a column computed from it);
- :func:`column_sources` gives every column of a node its source table columns and literals
  (bottom-up over the whole plan, once), for ``python -m viz inspect --json``.

What cannot be followed is said, not guessed: an extension relation's columns are "unknown"; an
outer reference in a subquery is followed to the enclosing relation's input column it names; a
scalar subquery's value comes from the subquery's first column. A rule that fails on an odd plan
becomes a diagnostic naming the node; the rest of the lineage still follows.

The rules are in :mod:`viz.lineage.rules` (what they read: :mod:`viz.lineage.reading`), the pass and
its walks in :mod:`viz.lineage.walk`, what they find and its words in :mod:`viz.lineage.results`.
"""

from .results import (
    MAX_CHAINS,
    MAX_TEXT,
    Chain,
    Lineage,
    LineageError,
    Origin,
    Ref,
    Source,
    Step,
    Summary,
    Usage,
    Use,
    chain_text,
    chain_texts,
    step_text,
    use_text,
)
from .rules import RULES
from .walk import (
    NodeLineage,
    carried_only,
    column_sources,
    lineage_json,
    node_lineage,
    trace,
    used_by,
)

__all__ = [
    "MAX_CHAINS",
    "MAX_TEXT",
    "RULES",
    "Chain",
    "carried_only",
    "Lineage",
    "LineageError",
    "NodeLineage",
    "Origin",
    "Ref",
    "Source",
    "Step",
    "Summary",
    "Usage",
    "Use",
    "chain_text",
    "chain_texts",
    "column_sources",
    "lineage_json",
    "node_lineage",
    "step_text",
    "trace",
    "use_text",
    "used_by",
]
