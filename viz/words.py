"""Substrait expressions in plain words, for people who do not read Substrait.

``Words(model, fields).expr(e)`` renders one expression ("quantity is above 10", "quantity ×
price", "the sum of quantity"); ``literal_words`` a literal as a reader would write it
(10, 'Computers', 1995-03-15); ``aggregate_words`` an aggregate or window function as a verb or a
noun. :mod:`viz.describe` builds each relation's sentence from these.

Two dispatch tables: expression kind (``rex_type``) -> words (``_EXPR``), and function name ->
special words (``_FUNCTIONS``; any other function reads ``name(args)``). Field references are named
from the record the expressions read (``Words.fields``), functions by the name before ``:``.
"""

from __future__ import annotations

import calendar
import datetime as _dt
import decimal as _decimal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from substrait import algebra_pb2

from .expressions import and_parts, decimal_value, direct_field, literal_text
from .fields import Field, struct_members
from .model import PlanModel

Expression = algebra_pb2.Expression

#: Long lists (columns, conditions, values) show this many items, then "and N more".
MAX_ITEMS = 3
#: A list of values a column is compared with (IN, OR of equalities) shows this many.
MAX_VALUES = 12
#: Any one rendered expression longer than this is cut with "…".
MAX_TEXT = 240
_EPOCH = _dt.date(1970, 1, 1)

# ---------------------------------------------------------------------------------------------
# Small text helpers
# ---------------------------------------------------------------------------------------------


def counted(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def ordinal(n: int) -> str:
    """ "1st", "2nd", "3rd", "11th", "21st"."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def and_list(items: Sequence[str], word: str = "and") -> str:
    items = [i for i in items if i]
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + f" {word} " + items[-1]


def capped_list(items: Sequence[str], limit: int, noun: str = "more", word: str = "and") -> str:
    """``a, b and c`` or ``a, b, c and 4 more`` (``and 2 others``); never "and 1 more", which would hide
    what it could say; ``word="or"`` for alternatives."""
    items = list(items)
    if len(items) <= limit + 1:
        return and_list(items, word)
    return ", ".join(items[:limit]) + f" {word} {len(items) - limit} {noun}"


_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def date_words(day: _dt.date) -> str:
    """A date as people write it: 15 March 1995 (no locale: the month names are English, as the rest)."""
    return f"{day.day} {_MONTHS[day.month - 1]} {day.year}"


def _cut(text: str, limit: int = MAX_TEXT) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rstrip()
    return cut if cut.endswith("…") else cut + "…"


# ---------------------------------------------------------------------------------------------
# Expressions in words
# ---------------------------------------------------------------------------------------------


@dataclass
class Words:
    """Renders the expressions of one node: ``fields`` is the record they read, ``outer`` the
    records of enclosing subquery boundaries (innermost first)."""

    model: PlanModel
    fields: Sequence[Field] | None
    outer: Sequence[Sequence[Field] | None] = ()
    lambdas: list[int] = field(default_factory=list)  # parameter counts of enclosing lambdas
    #: a subquery's relation as the story names it ("step 9"), None where it cannot say
    subquery_step: Callable[[object], str | None] | None = None

    def with_fields(self, fields: Sequence[Field] | None) -> Words:
        return Words(self.model, fields, self.outer, self.lambdas, self.subquery_step)

    def _at(self, rel) -> str:
        """ " at step 9": where a subquery's relation is in the story ("" when not known)."""
        where = self.subquery_step(rel) if self.subquery_step is not None else None
        return f" at {where}" if where else ""

    def function(self, anchor: int) -> str:
        ref = self.model.extensions.functions.get(anchor)
        return ref.name if ref is not None else f"function #{anchor}"

    def expr(self, e: Expression) -> str:
        which = e.WhichOneof("rex_type")
        handler = _EXPR.get(which)
        if handler is None:
            return "an expression" if which is None else f"a {which.replace('_', ' ')}"
        return _cut(handler(self, getattr(e, which)))

    def args(self, arguments) -> list[str]:
        out = []
        for a in arguments:
            k = a.WhichOneof("arg_type")
            if k == "value":
                out.append(self.expr(a.value))
            elif k == "enum":
                out.append(a.enum)
            elif k == "type":
                out.append(a.type.WhichOneof("kind") or "a type")
            else:
                out.append("?")
        return out

    def conditions(self, e: Expression) -> list[str]:
        """The conjuncts of ``e`` (nested ``and`` flattened), each in words, every one said: a lower
        and an upper bound of one column next to each other read as one ("x is at least 44 and at
        most 54"), and a condition written twice in a row (two pairs of tables joined on columns of
        the same names) once, with "(twice)"."""
        return self.conditions_of(conjuncts(self, e))

    def conditions_of(self, conjuncts: Sequence[Expression]) -> list[str]:
        """:meth:`conditions` of a list of conjuncts."""
        out: list[str] = []
        bounds: list[tuple[str, str, str] | None] = []
        conjuncts = list(conjuncts)
        i = 0
        while i < len(conjuncts):
            c = conjuncts[i]
            i += 1
            # "x is not A and x is not B" in a row: "x is neither A nor B"
            run = i
            while run < len(conjuncts) and _same_subject(self, [c, conjuncts[run]], "not_equal")[0] is not None:
                run += 1
            if run > i:
                subject, excluded = _same_subject(self, conjuncts[i - 1 : run], "not_equal")
                out.append(f"{self.expr(subject)} is {_none_of(excluded)}")
                bounds.append(None)
                i = run
                continue
            bound = _bound(self, c)
            prev = bounds[-1] if bounds else None
            if (
                bound is not None
                and prev is not None
                and prev[0] == bound[0]
                and {prev[1], bound[1]} == {"lower", "upper"}
            ):
                out[-1] = f"{out[-1]} and {bound[2].removeprefix('is ')}"
                bounds[-1] = None
                continue
            text = self.expr(c)
            # two conditions cut alike at MAX_TEXT may differ after the cut: not "twice"
            if out and not text.endswith("…") and text == out[-1].removesuffix(" (twice)"):
                out[-1] = f"{text} (twice)"
                bounds[-1] = None
                continue
            out.append(text)
            bounds.append(bound)
        if len(out) > 1:  # alternatives among other conditions: in brackets, or their "and"s run into the list's
            out = [f"({t})" if t.startswith("either ") else t for t in out]
        return out

    def condition(self, e: Expression) -> str:
        """A condition in words, every conjunct said."""
        return and_list(self.conditions(e))

    # -- one function per expression kind ------------------------------------------------------
    def literal(self, lit: Expression.Literal) -> str:
        return literal_words(lit)

    def selection(self, ref: Expression.FieldReference) -> str:
        root = ref.WhichOneof("root_type")
        prefix = ""
        base: Sequence[Field] | None = self.fields
        if root == "expression":
            return f"a part of {self.expr(ref.expression)}"
        if root == "outer_reference":
            steps = ref.outer_reference.steps_out
            if ref.outer_reference.WhichOneof("outer_reference_type") == "rel_reference":
                base, prefix = None, "the outer row's "
            else:
                base = self.outer[steps - 1] if 1 <= steps <= len(self.outer) else None
                prefix = "the outer row's "
        elif root == "lambda_parameter_reference":
            base, prefix = None, "the lambda's "
        if ref.WhichOneof("reference_type") != "direct_reference":
            return f"{prefix}masked fields"
        seg = ref.direct_reference
        if seg.WhichOneof("reference_type") != "struct_field":
            return f"{prefix}a field"
        index = seg.struct_field.field
        if base is None or not 0 <= index < len(base):
            name = f"parameter {index}" if root == "lambda_parameter_reference" else f"field {index}"
            return prefix + name
        f = base[index]
        name = f.name
        child = seg.struct_field.child if seg.struct_field.HasField("child") else None
        t, nested = f.type, f.nested
        while child is not None:
            kind = child.WhichOneof("reference_type")
            if kind == "struct_field":
                i = child.struct_field.field
                members = struct_members(t, nested) if t is not None and t.WhichOneof("kind") == "struct" else []
                if 0 <= i < len(members):
                    name, t, nested = f"{name}.{members[i].name}", members[i].type, members[i].nested
                else:
                    name, t, nested = f"{name}.{i}", None, ()
                child = child.struct_field.child if child.struct_field.HasField("child") else None
            elif kind == "list_element":
                name = f"item {child.list_element.offset + 1} of {name}"
                t = None
                child = child.list_element.child if child.list_element.HasField("child") else None
            elif kind == "map_key":
                name = f"{name}[{literal_words(child.map_key.map_key)}]"
                t = None
                child = child.map_key.child if child.map_key.HasField("child") else None
            else:
                break
        return prefix + name

    def scalar_function(self, f: Expression.ScalarFunction) -> str:
        name = self.function(f.function_reference)
        special = _FUNCTIONS.get(name)
        if special is not None:
            text = special(self, f)
            if text is not None:
                return text
        return f"{name}({', '.join(self.args(f.arguments))})"

    def window_function(self, f: Expression.WindowFunction) -> str:
        text = running(f, aggregate_words(self, self.function(f.function_reference), f.arguments, False, noun=True))
        parts = [text]
        if f.partitions:
            parts.append("per " + self.partitions(f.partitions))
        if f.sorts:
            parts.append("in order of " + capped_list([self.order_key(s) for s in f.sorts], MAX_ITEMS))
        # phrases as keys: the order set off by a comma, or it reads as one of them
        apart = len(parts) > 2 and " " in parts[1].removeprefix("per ")
        return (parts[0] + " " + ", ".join(parts[1:])) if apart else " ".join(parts)

    def partitions(self, exprs) -> str:
        """A window's partition keys: "o_custkey and o_orderdate"; several that are phrases each in brackets
        ("(a's rollup flag + b's rollup flag) and (i_category when ...)"), which read as one otherwise."""
        items = [self.expr(p) for p in exprs]
        if len(items) > 1:
            items = [f"({t})" if " " in t else t for t in items]
        return capped_list(items, MAX_ITEMS)

    def order_key(self, s: algebra_pb2.SortField) -> str:
        """A window's order key: ``o_totalprice (highest first)`` for a descending one."""
        text = self.expr(s.expr)
        if s.WhichOneof("sort_kind") == "direction" and s.direction in (3, 4):  # DESC NULLS FIRST / LAST
            return f"{text} (highest first)"
        return text

    def if_then(self, e: Expression.IfThen) -> str:
        branches = [f"{self.expr(c.then)} when {self.expr(getattr(c, 'if'))}" for c in e.ifs]
        text = ", ".join(branches[:2]) + (
            f" and {counted(len(branches) - 2, 'more case')}" if len(branches) > 2 else ""
        )
        if e.HasField("else"):
            text += f", otherwise {self.expr(getattr(e, 'else'))}"
        return text

    def switch_expression(self, e: Expression.SwitchExpression) -> str:
        return f"a value chosen by {self.expr(e.match)} ({counted(len(e.ifs), 'case')})"

    def singular_or_list(self, e: Expression.SingularOrList) -> str:
        options = [self.expr(o) for o in e.options]
        return f"{self.expr(e.value)} is {_options(options)}"

    def multi_or_list(self, e: Expression.MultiOrList) -> str:
        values = ", ".join(self.expr(v) for v in e.value)
        return f"({values}) is one of {counted(len(e.options), 'listed combination')}"

    def cast(self, e: Expression.Cast) -> str:
        inner = self.expr(e.input)
        kind = e.type.WhichOneof("kind")
        if kind == "date":
            lit = e.input.literal if e.input.WhichOneof("rex_type") == "literal" else None
            if lit is not None and lit.WhichOneof("literal_type") in ("string", "var_char", "fixed_char"):
                text = inner.strip("'")  # '1995-03-15' as a date reads as the date itself
                try:
                    return date_words(_dt.date.fromisoformat(text))
                except ValueError:
                    return text
            return f"{inner} as a date"
        return inner

    def subquery(self, e: Expression.Subquery) -> str:
        which = e.WhichOneof("subquery_type")
        if which == "scalar":
            at = self._at(e.scalar.input)
            return f"the value of the subquery{at}" if at else "the value of a subquery"
        if which == "in_predicate":
            needles = ", ".join(self.expr(n) for n in e.in_predicate.needles)
            at = self._at(e.in_predicate.haystack)
            if at:
                return f"{needles} appears in the results of the subquery{at}"
            return f"{needles} appears in a subquery's results"
        if which == "set_predicate":
            at = self._at(e.set_predicate.tuples)
            if e.set_predicate.predicate_op == 2:
                return f"the rows of the subquery{at} are unique" if at else "the subquery's rows are unique"
            return f"a matching row exists in the subquery{at}" if at else "a matching row exists"
        if which == "set_comparison":
            op = _COMPARISON_WORDS.get(_SET_COMPARISON.get(e.set_comparison.comparison_op, ""), "compares to")
            red = {1: "any", 2: "all"}.get(e.set_comparison.reduction_op, "the")
            at = self._at(e.set_comparison.right)
            values = f"the subquery{at}'s values" if at else "a subquery's values"
            return f"{self.expr(e.set_comparison.left)} {op} {red} of {values}"
        return "a subquery"

    def nested(self, e: Expression.Nested) -> str:
        which = e.WhichOneof("nested_type")
        if which == "list":
            return "the list " + capped_list([self.expr(v) for v in e.list.values], 5, "others")
        if which == "struct":
            return "a record of " + capped_list([self.expr(v) for v in e.struct.fields], 5, "others")
        if which == "map":
            return f"a map of {counted(len(e.map.key_values), 'entry', 'entries')}"
        return "a nested value"

    def dynamic_parameter(self, e) -> str:
        return f"parameter {e.parameter_reference}"

    def lambda_(self, e: Expression.Lambda) -> str:
        return f"a function of {counted(len(e.parameters.types), 'parameter')} giving {self.expr(e.body)}"

    def lambda_invocation(self, e: Expression.LambdaInvocation) -> str:
        return f"({self.lambda_(getattr(e, 'lambda'))}) applied to " + and_list(
            [self.expr(a) for a in e.arguments.fields]
        )

    def execution_context_variable(self, e) -> str:
        which = e.WhichOneof("execution_context_variable_type") or "context value"
        return "the " + which.replace("_", " ")

    def detached(self, e) -> str:
        return f"detached expression {e}"


_SET_COMPARISON = {1: "equal", 2: "not_equal", 3: "lt", 4: "gt", 5: "lte", 6: "gte"}


def conjuncts(w: Words, e: Expression) -> list[Expression]:
    """The conjuncts of a condition: ``and(a, and(b, c))`` -> [a, b, c]."""
    return and_parts(e, w.model.extensions.functions)


def is_column_equality(w: Words, e: Expression) -> bool:
    """Whether ``e`` says two columns are equal (a join key: ``a = b``)."""
    if e.WhichOneof("rex_type") != "scalar_function":
        return False
    if w.function(e.scalar_function.function_reference) not in ("equal", "is_not_distinct_from"):
        return False
    values = argument_values(e.scalar_function)
    return len(values) == 2 and all(_is_field(v) for v in values)


def argument_values(f) -> list[Expression]:
    return [a.value for a in f.arguments if a.WhichOneof("arg_type") == "value"]


def _is_date(w: Words, e: Expression) -> bool:
    """Whether ``e`` is a date: a date literal, a cast or call giving one, or a date column of the record
    read (said "before" and "after", not "below" and "above")."""
    which = e.WhichOneof("rex_type")
    if which == "literal":
        return e.literal.WhichOneof("literal_type") == "date"
    if which == "cast":
        return e.cast.type.WhichOneof("kind") == "date"
    if which == "scalar_function":
        return e.scalar_function.output_type.WhichOneof("kind") == "date"
    index = direct_field(e)
    if index is not None and w.fields and index < len(w.fields):
        t = w.fields[index].type
        return t is not None and t.WhichOneof("kind") == "date"
    return False


def _is_field(e: Expression) -> bool:
    which = e.WhichOneof("rex_type")
    if which == "cast":
        return _is_field(e.cast.input)
    return which == "selection"


_COMPARISON_WORDS = {
    "equal": "is",
    "not_equal": "is not",
    "lt": "is below",
    "lte": "is at most",
    "gt": "is above",
    "gte": "is at least",
    "is_distinct_from": "differs from",
    "is_not_distinct_from": "is the same as",
}
_DATE_WORDS = {"lt": "is before", "lte": "is on or before", "gt": "is after", "gte": "is on or after"}
#: The comparison read from the other side (``44 <= x`` is ``x >= 44``).
_MIRRORED = {"lt": "gt", "gt": "lt", "lte": "gte", "gte": "lte"}
_LOWER, _UPPER = frozenset({"gt", "gte"}), frozenset({"lt", "lte"})


def _comparison_parts(w: Words, name: str, f: Expression.ScalarFunction) -> tuple[str, str, str] | None:
    """(subject, the rest, the function read) of a comparison: a constant on the left is read from
    the other side (``44 is at most x`` is "x is at least 44"); two columns compared for (in)equality
    read ``a = b`` and ``a ≠ b``."""
    values = argument_values(f)
    if len(values) != 2:
        return None
    left, right = values
    if name in _MIRRORED and _is_constant(w, left) and not _is_constant(w, right):
        left, right, name = right, left, _MIRRORED[name]
    if name in ("equal", "is_not_distinct_from", "not_equal") and _is_field(left) and _is_field(right):
        return w.expr(left), ("= " if name != "not_equal" else "≠ ") + w.expr(right), name
    op = _DATE_WORDS.get(name) if (_is_date(w, left) or _is_date(w, right)) else None
    return w.expr(left), f"{op or _COMPARISON_WORDS[name]} {w.expr(right)}", name


def _comparison(name: str) -> Callable[[Words, Expression.ScalarFunction], str | None]:
    def words(w: Words, f: Expression.ScalarFunction) -> str | None:
        parts = _comparison_parts(w, name, f)
        return None if parts is None else f"{parts[0]} {parts[1]}"

    return words


def _bound(w: Words, e: Expression) -> tuple[str, str, str] | None:
    """(subject, "lower" or "upper", the rest) when ``e`` bounds a column by a constant from one side
    (``x >= 44``, ``44 > x``); None for anything else."""
    if e.WhichOneof("rex_type") != "scalar_function":
        return None
    name = w.function(e.scalar_function.function_reference)
    if name not in _MIRRORED:
        return None
    values = argument_values(e.scalar_function)
    if len(values) != 2 or _is_constant(w, values[0]) == _is_constant(w, values[1]):
        return None
    parts = _comparison_parts(w, name, e.scalar_function)
    if parts is None:
        return None
    subject, rest, read = parts
    return subject, "lower" if read in _LOWER else "upper", rest


_NUMERIC_KINDS = frozenset({"i8", "i16", "i32", "i64", "fp32", "fp64", "decimal"})


def _constant(w: Words, e: Expression, depth: int = 0) -> _decimal.Decimal | None:
    """The value of a numeric constant: an integer or decimal literal, a numeric cast of one, or
    ``+ − ×`` of two (DataFusion writes ``2000 + 1`` as it was written); None for anything else."""
    which = e.WhichOneof("rex_type")
    if depth > 20:
        return None
    if which == "literal":
        kind = e.literal.WhichOneof("literal_type")
        if kind in ("i8", "i16", "i32", "i64"):
            return _decimal.Decimal(getattr(e.literal, kind))
        if kind in ("fp32", "fp64"):  # as written (0.06, not the nearest binary fraction)
            value = float(getattr(e.literal, kind))
            return _decimal.Decimal(f"{value:g}" if kind == "fp32" else repr(value)) if value == value else None
        if kind == "decimal":
            try:
                return decimal_value(e.literal.decimal)
            except Exception:  # a malformed decimal: not a constant to fold
                return None
        return None
    if which == "cast":
        return _constant(w, e.cast.input, depth + 1) if e.cast.type.WhichOneof("kind") in _NUMERIC_KINDS else None
    if which == "scalar_function":
        name = w.function(e.scalar_function.function_reference)
        values = argument_values(e.scalar_function)
        if name not in ("add", "subtract", "multiply") or len(values) != 2:
            return None
        a, b = (_constant(w, v, depth + 1) for v in values)
        if a is None or b is None:
            return None
        with _decimal.localcontext(_decimal.Context(prec=60)):
            return a + b if name == "add" else a - b if name == "subtract" else a * b
    return None


def _is_constant(w: Words, e: Expression) -> bool:
    """A value that is the same for every row: a literal (of any kind, under casts) or a numeric
    constant expression."""
    inner = e
    while inner.WhichOneof("rex_type") == "cast":
        inner = inner.cast.input
    return inner.WhichOneof("rex_type") == "literal" or _constant(w, e) is not None


def _logical(word: str) -> Callable[[Words, Expression.ScalarFunction], str | None]:
    def words(w: Words, f: Expression.ScalarFunction) -> str | None:
        if not argument_values(f):
            return None
        if word == "and":
            return and_list(w.conditions(Expression(scalar_function=f)))
        # or(or(a, b), c), as producers nest it, is one list of alternatives: not "either either a, or b, or c"
        values = and_parts(Expression(scalar_function=f), w.model.extensions.functions, "or")
        parts = [w.expr(v) for v in values]
        same = _one_of(w, values)
        if same is not None:
            return same
        if len(parts) > MAX_VALUES:
            return " or ".join(parts[:MAX_VALUES]) + f" or {counted(len(parts) - MAX_VALUES, 'more alternative')}"
        if len(parts) > 1 and any(" and " in p for p in parts):
            # "a and b or c and d" reads either way: the alternatives set apart
            return "either " + ", or ".join(parts)
        return "(" + " or ".join(parts) + ")" if len(parts) > 1 else parts[0]

    return words


def _one_of(w: Words, values: list[Expression]) -> str | None:
    """``or(equal(x, 1), equal(x, 2), ...)`` as "x is 1 or 2", "x is one of 1, 2 or 3" (None when it is
    not that)."""
    subject, options = _same_subject(w, values, "equal")
    if subject is None:
        return None
    return f"{w.expr(subject)} is {_options(options)}"


def _same_subject(w: Words, values: Sequence[Expression], name: str) -> tuple[Expression | None, list[str]]:
    """When every one of ``values`` (two or more) compares one column with a constant by function
    ``name``: that column and the constants in words; else (None, [])."""
    subject, options = None, []
    for v in values:
        if v.WhichOneof("rex_type") != "scalar_function" or w.function(v.scalar_function.function_reference) != name:
            return None, []
        args = argument_values(v.scalar_function)
        if len(args) != 2 or not _is_field(args[0]) or not _is_constant(w, args[1]):
            return None, []
        if subject is None:
            subject = args[0]
        elif subject != args[0]:
            return None, []
        options.append(w.expr(args[1]))
    return (subject, options) if len(options) >= 2 else (None, [])


def _options(options: Sequence[str]) -> str:
    """Alternatives after "is": "'MAIL'", "'MAIL' or 'SHIP'", "one of 1, 2 or 3"; each said once (TPC-DS
    writes IN ('TN', 'TN', ...))."""
    options = list(dict.fromkeys(options))
    if len(options) <= 2:
        return " or ".join(options)
    return f"one of {capped_list(options, MAX_VALUES, 'others', 'or')}"


def _none_of(options: Sequence[str]) -> str:
    """Values excluded, after "is": "neither 'A' nor 'B'", "none of 1, 2 or 3"."""
    options = list(dict.fromkeys(options))
    if len(options) == 1:
        return f"not {options[0]}"
    if len(options) == 2:
        return f"neither {options[0]} nor {options[1]}"
    return f"none of {capped_list(options, MAX_VALUES, 'others', 'or')}"


def _not(w: Words, f: Expression.ScalarFunction) -> str | None:
    values = argument_values(f)
    if len(values) != 1:
        return None
    inner = values[0]
    if inner.WhichOneof("rex_type") == "scalar_function":
        name = w.function(inner.scalar_function.function_reference)
        args = argument_values(inner.scalar_function)
        if name == "like" and len(args) >= 2:
            return f"{w.expr(args[0])} does not {_like_words(args[1])}"
        if name == "is_null" and len(args) == 1:
            return _is_null(w, inner.scalar_function, negated=True)
    if inner.WhichOneof("rex_type") == "singular_or_list":
        sol = inner.singular_or_list
        return (
            f"{w.expr(sol.value)} is not one of {capped_list([w.expr(o) for o in sol.options], MAX_VALUES, 'others')}"
        )
    if inner.WhichOneof("rex_type") == "subquery" and inner.subquery.WhichOneof("subquery_type") == "set_predicate":
        at = w._at(inner.subquery.set_predicate.tuples)
        return f"no matching row exists in the subquery{at}" if at else "no matching row exists"
    if inner.WhichOneof("rex_type") == "subquery" and inner.subquery.WhichOneof("subquery_type") == "in_predicate":
        needles = ", ".join(w.expr(n) for n in inner.subquery.in_predicate.needles)
        at = w._at(inner.subquery.in_predicate.haystack)
        if at:
            return f"{needles} does not appear in the results of the subquery{at}"
        return f"{needles} does not appear in a subquery's results"
    return f"not ({w.expr(inner)})"


def _is_null(w: Words, f: Expression.ScalarFunction, negated: bool = False) -> str | None:
    values = argument_values(f)
    if len(values) != 1:
        return None
    v = values[0]
    if v.WhichOneof("rex_type") == "scalar_function" and w.function(v.scalar_function.function_reference) == "index_in":
        args = argument_values(v.scalar_function)
        if len(args) == 2:  # index_in(needle, haystack) is null: the needle is not in the list
            return f"{w.expr(args[0])} is {'' if negated else 'not '}in {w.expr(args[1])}"
    return f"{w.expr(v)} is {'not ' if negated else ''}null"


def _is_not_null(w: Words, f: Expression.ScalarFunction) -> str | None:
    return _is_null(w, f, negated=True)


def _like_words(pattern: Expression) -> str:
    """``match 'x%'`` in words: "start with 'x'", "end with", "contain", or "match 'a_b'"."""
    while pattern.WhichOneof("rex_type") == "cast":
        pattern = pattern.cast.input
    if pattern.WhichOneof("rex_type") == "literal" and pattern.literal.WhichOneof("literal_type") in (
        "string",
        "var_char",
        "fixed_char",
    ):
        lit = pattern.literal
        text = (
            lit.var_char.value
            if lit.WhichOneof("literal_type") == "var_char"
            else getattr(lit, lit.WhichOneof("literal_type"))
        )
        core = text.strip("%")
        if "%" not in core and "_" not in core and core:
            if text.startswith("%") and text.endswith("%") and len(text) > 1:
                return f"contain '{core}'"
            if text.endswith("%"):
                return f"start with '{core}'"
            if text.startswith("%"):
                return f"end with '{core}'"
        return f"match the pattern '{text}'"
    return "match a pattern"


def _like(w: Words, f: Expression.ScalarFunction) -> str | None:
    values = argument_values(f)
    if len(values) < 2:
        return None
    words = _like_words(values[1]).replace("start with", "starts with").replace("end with", "ends with")
    words = words.replace("contain ", "contains ").replace("match ", "matches ", 1)
    return f"{w.expr(values[0])} {words}"


def _between(w: Words, f: Expression.ScalarFunction) -> str | None:
    values = argument_values(f)
    if len(values) != 3:
        return None
    return f"{w.expr(values[0])} is between {w.expr(values[1])} and {w.expr(values[2])}"


_ARITHMETIC = {"add": "+", "subtract": "−", "multiply": "×", "divide": "÷", "modulus": "mod", "power": "^"}
_PRECEDENCE = {"+": 1, "−": 1, "×": 2, "÷": 2, "mod": 2, "^": 3}


def _arithmetic(name: str) -> Callable[[Words, Expression.ScalarFunction], str | None]:
    op = _ARITHMETIC[name]

    def words(w: Words, f: Expression.ScalarFunction) -> str | None:
        values = argument_values(f)
        if len(values) != 2:
            return None
        folded = _constant(w, Expression(scalar_function=f)) if name in ("add", "subtract", "multiply") else None
        if folded is not None:
            return str(folded)
        day = _shifted_date(values, name)
        if day is not None:
            return date_words(day)
        parts = []
        for i, v in enumerate(values):
            text = w.expr(v)
            inner = _arith_op(w, v)
            if (
                inner is not None
                and (
                    _PRECEDENCE[inner] < _PRECEDENCE[op]
                    or (i == 1 and _PRECEDENCE[inner] == _PRECEDENCE[op] and op in "−÷")
                )
            ) or _open_where(text):  # "(the sum of x where y is 'A') ÷ ..."
                text = f"({text})"
            parts.append(text)
        return f"{parts[0]} {op} {parts[1]}"

    return words


def _open_where(text: str) -> bool:
    """Whether ``text`` has a " where " outside its brackets (a condition that would run on into what
    follows)."""
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and text.startswith(" where ", i):
            return True
    return False


def _shifted_date(values: Sequence[Expression], name: str) -> _dt.date | None:
    """A date literal plus or minus an interval literal of whole months and days (``DATE '1994-01-01' +
    INTERVAL '1' YEAR``), as the date it gives; None for anything else."""
    if name not in ("add", "subtract") or len(values) != 2:
        return None
    start, interval = _date_constant(values[0]), values[1]
    while interval.WhichOneof("rex_type") == "cast":
        interval = interval.cast.input
    span = _months_days(interval.literal) if interval.WhichOneof("rex_type") == "literal" else None
    if start is None or span is None:
        return None
    months, days = span if name == "add" else (-span[0], -span[1])
    try:
        year, month = divmod(start.year * 12 + start.month - 1 + months, 12)
        last = calendar.monthrange(year, month + 1)[1]  # 31 January + 1 month: 28 or 29 February
        return _dt.date(year, month + 1, min(start.day, last)) + _dt.timedelta(days=days)
    except (OverflowError, ValueError):
        return None


def _date_constant(e: Expression) -> _dt.date | None:
    """A date literal, or a text literal cast to a date (``CAST('1994-01-01' AS DATE)``, as DataFusion
    writes ``DATE '1994-01-01'``), as a date; None for anything else."""
    to_date = False
    while e.WhichOneof("rex_type") == "cast":
        to_date = to_date or e.cast.type.WhichOneof("kind") == "date"
        e = e.cast.input
    if e.WhichOneof("rex_type") != "literal":
        return None
    which = e.literal.WhichOneof("literal_type")
    try:
        if which == "date":
            return _EPOCH + _dt.timedelta(days=e.literal.date)
        if to_date and which in ("string", "var_char", "fixed_char"):
            text = e.literal.var_char.value if which == "var_char" else getattr(e.literal, which)
            return _dt.date.fromisoformat(text.strip())
    except (OverflowError, ValueError):
        return None
    return None


def _months_days(lit: Expression.Literal) -> tuple[int, int] | None:
    """An interval literal as (months, days) when it has no seconds; None otherwise."""
    which = lit.WhichOneof("literal_type")
    ym = dts = None
    if which == "interval_year_to_month":
        ym = lit.interval_year_to_month
    elif which == "interval_day_to_second":
        dts = lit.interval_day_to_second
    elif which == "interval_compound":
        ym, dts = lit.interval_compound.interval_year_to_month, lit.interval_compound.interval_day_to_second
    else:
        return None
    if dts is not None and (dts.seconds or dts.subseconds):
        return None
    return ((ym.years * 12 + ym.months) if ym is not None else 0, dts.days if dts is not None else 0)


def _arith_op(w: Words, e: Expression) -> str | None:
    while e.WhichOneof("rex_type") == "cast":
        e = e.cast.input
    if e.WhichOneof("rex_type") != "scalar_function":
        return None
    return _ARITHMETIC.get(w.function(e.scalar_function.function_reference))


def _negate(w: Words, f: Expression.ScalarFunction) -> str | None:
    values = argument_values(f)
    return f"−{w.expr(values[0])}" if len(values) == 1 else None


def _extract(w: Words, f: Expression.ScalarFunction) -> str | None:
    args = w.args(f.arguments)
    if len(args) >= 2:
        return f"the {args[0].lower()} of {args[-1]}"
    return None


def _date_part(w: Words, f: Expression.ScalarFunction) -> str | None:
    """DataFusion's ``date_part('YEAR', x)``: "the year of x"; of a span (a timestamp minus another),
    "the whole hours in (a − b)", the count DataFusion gives."""
    values = argument_values(f)
    if len(values) != 2 or values[0].literal.WhichOneof("literal_type") != "string":
        return None
    unit = values[0].literal.string.lower()
    if _result_kind(values[1]) in ("interval_day", "interval_compound"):  # a span's whole units, not a field
        return f"the whole {unit}s in {_whole(w.expr(values[1]))}"
    return f"the {unit} of {w.expr(values[1])}"


def _result_kind(e: Expression) -> str | None:
    """The type kind a function's or a cast's result declares (None for other expressions)."""
    which = e.WhichOneof("rex_type")
    if which == "scalar_function":
        return e.scalar_function.output_type.WhichOneof("kind")
    return e.cast.type.WhichOneof("kind") if which == "cast" else None


def _whole(text: str) -> str:
    """An argument that is a phrase, in brackets: "the absolute value of (a − b)"."""
    return f"({text})" if " " in text else text


def _integer(w: Words, e: Expression) -> int | None:
    value = _constant(w, e)
    return int(value) if value is not None and value == int(value) else None


def _substring(w: Words, f: Expression.ScalarFunction) -> str | None:
    """``substring(x, 1, 5)``: "the first 5 characters of x"; from another place, "3 characters of x
    from the 2nd"; without a length, "x from its 2nd character"."""
    values = argument_values(f)
    if len(values) not in (2, 3):
        return None
    of, start = _whole(w.expr(values[0])), _integer(w, values[1])
    length = _integer(w, values[2]) if len(values) == 3 else None
    if start is None or (len(values) == 3 and length is None):
        return None
    if length is None:
        return f"{of} from its {ordinal(start)} character"
    if start == 1:
        return f"the first {'character' if length == 1 else counted(length, 'character')} of {of}"
    return f"{counted(length, 'character')} of {of} from the {ordinal(start)}"


def _said(template: str) -> Callable[[Words, Expression.ScalarFunction], str | None]:
    """A function said by ``template``, one ``{}`` for each of its arguments ("the absolute value of {}",
    "{} joined by {}"), a phrase in brackets."""

    def words(w: Words, f: Expression.ScalarFunction) -> str | None:
        values = argument_values(f)
        return template.format(*[_whole(w.expr(v)) for v in values]) if len(values) == template.count("{}") else None

    return words


def _round(w: Words, f: Expression.ScalarFunction) -> str | None:
    """``round(x, 2)``: "x rounded to 2 decimal places"; ``round(x)``: "x rounded to a whole number"."""
    values = argument_values(f)
    places = _integer(w, values[1]) if len(values) == 2 else 0 if len(values) == 1 else None
    if places is None or places < 0:
        return None
    to = "a whole number" if places == 0 else counted(places, "decimal place")
    return f"{_whole(w.expr(values[0]))} rounded to {to}"


def _concat(w: Words, f: Expression.ScalarFunction) -> str | None:
    """``concat('store', s_store_id)``: "'store' followed by s_store_id"."""
    parts = [_whole(w.expr(v)) for v in argument_values(f)]
    return " followed by ".join(parts) if len(parts) > 1 else None


def _coalesce(w: Words, f: Expression.ScalarFunction) -> str | None:
    return "the first non-null of " + capped_list([w.expr(v) for v in argument_values(f)], 4, "others")


def _index_in(w: Words, f: Expression.ScalarFunction) -> str | None:
    values = argument_values(f)
    return f"the position of {w.expr(values[0])} in {w.expr(values[1])}" if len(values) == 2 else None


def _grouping_flag(w: Words, f: Expression.ScalarFunction) -> str | None:
    """DataFusion's GROUPING(x): ``bitwise_shift_right(bitwise_and(__grouping_id, 2^k), k)`` (or
    ``bitwise_and(__grouping_id, 1)``), the bit of the aggregate's grouping id that is 1 where the
    grouping set leaves key x out (the first key the highest bit), as "x's rollup flag"; None for
    anything else, or when the plan's aggregates do not agree on their keys."""
    values = argument_values(f)
    if len(values) != 2:
        return None
    shift = _constant(w, values[1])
    if w.function(f.function_reference) == "bitwise_shift_right":
        inner = values[0]
        if inner.WhichOneof("rex_type") != "scalar_function" or shift is None:
            return None
        if w.function(inner.scalar_function.function_reference) != "bitwise_and":
            return None
        values = argument_values(inner.scalar_function)
        if len(values) != 2:
            return None
    else:
        shift = _decimal.Decimal(0)
    index, mask = direct_field(values[0]), _constant(w, values[1])
    if index is None or mask is None or not w.fields or not 0 <= index < len(w.fields):
        return None
    if w.fields[index].name != "__grouping_id" or mask != 2**shift:
        return None
    keys = _grouping_keys(w.model)
    bit = int(shift)
    return f"{keys[len(keys) - 1 - bit]}'s rollup flag" if keys and bit < len(keys) else None


def _grouping_keys(model: PlanModel) -> list[str] | None:
    """The key columns' names of the plan's aggregates that write DataFusion's grouping id, when they
    all have the same ones (else None: which aggregate a grouping id comes from is not traced here)."""
    from .schema import aggregate_layout

    found: set[tuple[str, ...]] = set()
    for node in model.nodes():
        if node.kind != "aggregate" or node.schema is None or node.node.body is None:
            continue
        layout = aggregate_layout(node.node.body, model.conventions)
        if layout.grouping_column == "datafusion":
            found.add(tuple(f.name for f in node.schema[: len(layout.keys)]))
    return list(found.pop()) if len(found) == 1 else None


def _make_array(w: Words, f: Expression.ScalarFunction) -> str | None:
    """DataFusion's ``make_array(a, b)``: "the list [a, b]"."""
    return "the list [" + capped_list([w.expr(v) for v in argument_values(f)], 6, "others") + "]"


def _struct(w: Words, f: Expression.ScalarFunction) -> str | None:
    """``named_struct('year', y, 'maker', m)``: "a record with year = y and maker = m"; ``struct(a, b)``: "a
    record of a and b"."""
    values = argument_values(f)
    if w.function(f.function_reference) == "struct":
        return "a record of " + capped_list([w.expr(v) for v in values], 6, "others")
    names = [v.literal.string if v.literal.WhichOneof("literal_type") == "string" else None for v in values[0::2]]
    if len(values) % 2 or None in names:
        return None
    parts = [f"{name} = {w.expr(v)}" for name, v in zip(names, values[1::2])]
    return "a record with " + capped_list(parts, 6, "others")


def _map(w: Words, f: Expression.ScalarFunction) -> str | None:
    """``map(keys, values)``: "the map of keys to values"."""
    values = argument_values(f)
    return f"the map of {w.expr(values[0])} to {w.expr(values[1])}" if len(values) == 2 else None


def _get_field(w: Words, f: Expression.ScalarFunction) -> str | None:
    """``get_field(s, 'year')``: "the year of s"."""
    values = argument_values(f)
    if len(values) != 2 or values[1].literal.WhichOneof("literal_type") != "string":
        return None
    return f"the {values[1].literal.string} of {_whole(w.expr(values[0]))}"


#: Functions whose words begin with their first argument ("x is above 10", "x and y").
LEADS_WITH_FIRST = {*_COMPARISON_WORDS, *_ARITHMETIC, "and", "or", "not", "is_null", "is_not_null", "like", "between"}

_FUNCTIONS: dict[str, Callable[[Words, Expression.ScalarFunction], str | None]] = {
    **{name: _comparison(name) for name in _COMPARISON_WORDS},
    **{name: _arithmetic(name) for name in _ARITHMETIC},
    "and": _logical("and"),
    "or": _logical("or"),
    "not": _not,
    "is_null": _is_null,
    "is_not_null": _is_not_null,
    "like": _like,
    "between": _between,
    "negate": _negate,
    "extract": _extract,
    "date_part": _date_part,
    "substring": _substring,
    "substr": _substring,
    "abs": _said("the absolute value of {}"),
    "upper": _said("{} in upper case"),
    "lower": _said("{} in lower case"),
    "round": _round,
    "concat": _concat,
    "str_concat": _concat,
    "coalesce": _coalesce,
    "index_in": _index_in,
    "bitwise_and": _grouping_flag,
    "bitwise_shift_right": _grouping_flag,
    # lists, maps and records (DataFusion's functions)
    "make_array": _make_array,
    "named_struct": _struct,
    "struct": _struct,
    "map": _map,
    "get_field": _get_field,
    "array_sort": _said("{} sorted"),
    "array_distinct": _said("{} without repeats"),
    "array_reverse": _said("{} reversed"),
    "array_length": _said("the number of items in {}"),
    "cardinality": _said("the number of items in {}"),
    "flatten": _said("{} flattened"),
    "map_keys": _said("the keys of {}"),
    "map_values": _said("the values of {}"),
    "array_element": _said("{} at position {}"),
    "array_to_string": _said("{} joined by {}"),
    "string_to_array": _said("{} split at {}"),
    "array_concat": _said("{} followed by {}"),
}


_EXPR: dict[str | None, Callable[[Words, object], str]] = {
    "literal": Words.literal,
    "selection": Words.selection,
    "scalar_function": Words.scalar_function,
    "window_function": Words.window_function,
    "if_then": Words.if_then,
    "switch_expression": Words.switch_expression,
    "singular_or_list": Words.singular_or_list,
    "multi_or_list": Words.multi_or_list,
    "cast": Words.cast,
    "subquery": Words.subquery,
    "nested": Words.nested,
    "dynamic_parameter": Words.dynamic_parameter,
    "lambda": Words.lambda_,
    "lambda_invocation": Words.lambda_invocation,
    "execution_context_variable": Words.execution_context_variable,
    "detached_expression_ordinal": Words.detached,
}


#: Literal kinds a reader writes as the plan text does.
_AS_IN_TEXT = frozenset({"boolean", "i8", "i16", "i32", "i64"})


def literal_words(lit: Expression.Literal) -> str:
    """A literal as a reader would write it: 10, 2.5, 'Computers', 1995-03-15, null."""
    which = lit.WhichOneof("literal_type")
    if which is None:
        return "a value"
    if which in _AS_IN_TEXT:
        return literal_text(lit)
    value = getattr(lit, which)
    if which in ("fp32", "fp64"):
        return f"{float(value):g}"
    if which in ("string", "fixed_char"):
        return f"'{value}'"
    if which == "var_char":
        return f"'{value.value}'"
    if which == "date":
        try:
            return date_words(_EPOCH + _dt.timedelta(days=value))
        except OverflowError:
            return f"day {value}"
    if which == "decimal":
        try:
            return str(decimal_value(value))
        except Exception:  # a malformed decimal: say so rather than fail
            return "a decimal"
    if which == "null":
        return "null"
    if which in ("list", "empty_list"):
        values = [literal_words(v) for v in lit.list.values] if which == "list" else []
        return "the list [" + capped_list(values, 5, "others") + "]" if values else "an empty list"
    if which in ("precision_timestamp", "precision_timestamp_tz"):
        try:
            stamp = _dt.datetime(1970, 1, 1) + _dt.timedelta(seconds=value.value / 10**value.precision)
            return stamp.isoformat(sep=" ")
        except (OverflowError, ValueError):
            return "a timestamp"
    if which == "interval_year_to_month":
        return (
            and_list(
                [
                    counted(value.years, "year") if value.years else "",
                    counted(value.months, "month") if value.months else "",
                ]
            )
            or "0 months"
        )
    if which == "interval_day_to_second":
        return (
            and_list(
                [
                    counted(value.days, "day") if value.days else "",
                    counted(value.seconds, "second") if value.seconds else "",
                ]
            )
            or "0 seconds"
        )
    if which == "interval_compound":
        ym, dts = value.interval_year_to_month, value.interval_day_to_second
        parts = [
            counted(ym.years, "year") if ym.years else "",
            counted(ym.months, "month") if ym.months else "",
            counted(dts.days, "day") if dts.days else "",
            counted(dts.seconds, "second") if dts.seconds else "",
        ]
        return and_list(parts) or "no time"
    return f"a {which.replace('_', ' ')} value"


# ---------------------------------------------------------------------------------------------
# Aggregates
# ---------------------------------------------------------------------------------------------

_AGGREGATE_VERBS = {
    "sum": "sums {}",
    "sum0": "sums {}",
    "avg": "averages {}",
    "mean": "averages {}",
    "min": "finds the smallest {}",
    "max": "finds the largest {}",
    "count": "counts {}",
    "any_value": "takes any {}",
    "first_value": "takes the first {}",
    "last_value": "takes the last {}",
    "row_number": "numbers the rows",
    "rank": "ranks the rows",
    "dense_rank": "ranks the rows (no gaps)",
    "std_dev": "computes the standard deviation of {}",
    "stddev": "computes the standard deviation of {}",
    "variance": "computes the variance of {}",
    "string_agg": "joins the {} texts",
    "list_agg": "collects the {} values",
    "array_agg": "collects the {} values",
    "bit_and": "takes the bitwise and of {}",
    "bit_or": "takes the bitwise or of {}",
    "bit_xor": "takes the bitwise exclusive or of {}",
}


_AGGREGATE_NOUNS = {
    "sum": "the sum of {}",
    "sum0": "the sum of {}",
    "avg": "the average {}",
    "mean": "the average {}",
    "min": "the smallest {}",
    "max": "the largest {}",
    "count": "the number of {}",
    "any_value": "any {}",
    "first_value": "the first {}",
    "last_value": "the last {}",
    "row_number": "the row number",
    "rank": "the rank",
    "dense_rank": "the dense rank",
    "std_dev": "the standard deviation of {}",
    "stddev": "the standard deviation of {}",
    "variance": "the variance of {}",
    "string_agg": "the {} texts joined",
    "list_agg": "the list of {}",
    "array_agg": "the list of {}",
    "bit_and": "the bitwise and of {}",
    "bit_or": "the bitwise or of {}",
    "bit_xor": "the bitwise exclusive or of {}",
}


def running(f, words: str) -> str:
    """``words`` of a window function ("the sum of quantity") as "the running sum of quantity" when its window
    runs from the partition's first row to the current one: said alike, it read as the partition's total."""
    frame = (f.lower_bound.WhichOneof("kind"), f.upper_bound.WhichOneof("kind"))
    if frame == ("unbounded", "current_row") and words.startswith("the ") and f.arguments:
        return "the running " + words[len("the ") :]
    return words


def _only_where(w: Words, name: str, values: Sequence[Expression]) -> tuple[Expression | None, str] | None:
    """An aggregate of one ``CASE WHEN c THEN x END`` whose other rows add nothing (no ELSE, a null one,
    or 0 for a sum): (x, c in words), x None when the aggregate counts the rows where c; None when it is
    not that shape."""
    if len(values) != 1 or values[0].WhichOneof("rex_type") != "if_then":
        return None
    e = values[0].if_then
    if len(e.ifs) != 1:
        return None
    value, other = e.ifs[0].then, getattr(e, "else") if e.HasField("else") else None
    inner = other
    while inner is not None and inner.WhichOneof("rex_type") == "cast":
        inner = inner.cast.input
    nothing = inner is None or (inner.WhichOneof("rex_type") == "literal" and inner.literal.HasField("null"))
    adds_nothing = nothing or (name in ("sum", "sum0") and _constant(w, other) == 0)
    if not adds_nothing:
        return None
    where = w.condition(getattr(e.ifs[0], "if"))
    if (name in ("sum", "sum0") and _constant(w, value) == 1) or (name == "count" and _constant(w, value) is not None):
        return None, where
    return value, where


def aggregate_words(w: Words, name: str, arguments, distinct: bool, noun: bool = False, sorts=()) -> str:
    """``sums quantity × price``, ``counts rows``, ``counts distinct customers``; with ``noun``:
    ``the sum of quantity × price``, ``the number of rows``. ``sorts``: the aggregate's own order
    (a percentile's ``WITHIN GROUP (ORDER BY x DESC)``)."""
    values = [a.value for a in arguments if a.WhichOneof("arg_type") == "value"]
    percentile = _percentile_words(w, name, values, sorts, noun)
    if percentile is not None:
        return percentile
    only = None if distinct else _only_where(w, name, values)
    if only is not None:  # sum(CASE WHEN c THEN x ELSE 0 END): "sums x where c"
        value, where = only
        if value is None:  # sum(CASE WHEN c THEN 1 ELSE 0 END), count(CASE WHEN c THEN 1 END)
            return f"{'the number of' if noun else 'counts the'} rows where {where}"
        return aggregate_words(w, name, [algebra_pb2.FunctionArgument(value=value)], distinct, noun) + f" where {where}"
    if name == "count" and values and all(v.WhichOneof("rex_type") == "literal" for v in values):
        args = []  # count(1): DataFusion's count(*)
    else:
        args = [a for a in w.args(arguments)]
        if noun and len(values) == 1 and _arith_op(w, values[0]) in ("+", "−"):
            args = [f"({args[0]})"]  # "2 × the sum of (a + b)", not "the sum of a + b"
    what = ", ".join(args) if args else ("rows" if name == "count" else "")
    if distinct:
        what = f"distinct {what}"
    template = (_AGGREGATE_NOUNS if noun else _AGGREGATE_VERBS).get(name)
    if template is None:
        return f"{name}({what})" if noun else f"computes {name}({what})"
    picks = template.split()[-2:-1] in (["largest"], ["smallest"], ["first"], ["last"], ["any"])
    if (noun or picks) and what.startswith("the ") and not template.endswith("of {}"):
        # "the average of the sum of x", "finds the largest of the sum of x", not "the largest the sum"
        template = template.replace("{}", "of {}")
    return template.format(what)


#: Percentiles: whether each is an estimate.
_PERCENTILES = {"percentile_cont": False, "approx_percentile_cont": True, "median": False, "approx_median": True}


def _percentile_words(w: Words, name: str, values: Sequence[Expression], sorts, noun: bool) -> str | None:
    """``the 90th percentile of price``, ``estimates the median quantity``; None for another aggregate,
    or a fraction that is not a constant."""
    if name not in _PERCENTILES or not values:
        return None
    what = w.expr(values[0])
    if "median" in name:
        fraction = _decimal.Decimal("0.5")
    else:
        fraction = _constant(w, values[1]) if len(values) > 1 else None
        if fraction is None or not 0 <= fraction <= 1:
            return None
        if sorts and sorts[0].direction in (3, 4):  # DESC NULLS FIRST / LAST: counted from the other end
            fraction = 1 - fraction
    percent = fraction * 100
    which = "median" if percent == 50 else f"{_ordinal_number(percent)} percentile"
    estimate = _PERCENTILES[name]
    if noun:
        return f"{'an estimate of ' if estimate else ''}the {which} of {what}"
    return f"{'estimates' if estimate else 'finds'} the {which} of {what}"


def _ordinal_number(n: _decimal.Decimal) -> str:
    """90 -> ``90th``, 33.3 -> ``33.3rd``."""
    if n == n.to_integral_value():
        return ordinal(int(n))
    text = f"{n.normalize():f}"
    return text + ordinal(int(text[-1]))[len(text[-1]) :]


__all__ = ["Words", "literal_words", "aggregate_words", "MAX_ITEMS", "MAX_TEXT"]
