"""Substrait expressions in plain words, for people who do not read Substrait.

``Words(model, fields).expr(e)`` renders one expression ("quantity is above 10", "quantity ×
price", "the sum of quantity"); ``literal_words`` a literal as a reader would write it
(10, 'Computers', 1995-03-15); ``aggregate_words`` an aggregate or window function as a verb or a
noun. :mod:`viz.describe` builds each relation's sentence from these.

Two dispatch tables: expression kind (``rex_type``) -> words (``_EXPR``), and function name ->
special words (``_FUNCTIONS``; any other function reads ``name(args)``). Field references are named
from the record the expressions read (``Words.fields``), functions by the name before ``:``.
"""

from .aggregates import aggregate_words, framed
from .basics import (
    CASE_WORDS,
    MATCH,
    MAX_ITEMS,
    MAX_TEXT,
    MAX_VALUES,
    and_list,
    as_predicate,
    bracketed,
    capped_list,
    counted,
    cut,
    date_words,
    flag_meaning,
    found_name,
    found_step,
    ordinal,
)
from .expressions import Expression, Words
from .functions import (
    GROUPING_ID_WORDS,
    LEADS_WITH_FIRST,
    PREDICATES,
    argument_values,
    condition_parts,
    conjuncts,
    is_column_equality,
    set_apart,
)
from .literals import literal_words

__all__ = [
    "Expression",
    "Words",
    "literal_words",
    "aggregate_words",
    "framed",
    "CASE_WORDS",
    "MAX_ITEMS",
    "MAX_TEXT",
    "MAX_VALUES",
    "and_list",
    "bracketed",
    "capped_list",
    "counted",
    "cut",
    "date_words",
    "MATCH",
    "as_predicate",
    "flag_meaning",
    "found_name",
    "found_step",
    "set_apart",
    "ordinal",
    "GROUPING_ID_WORDS",
    "LEADS_WITH_FIRST",
    "PREDICATES",
    "argument_values",
    "condition_parts",
    "conjuncts",
    "is_column_equality",
]
