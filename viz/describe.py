"""Plain-language descriptions of a plan's relations, for people who do not read Substrait.

``describe(model, node_id)`` gives one or two short sentences ("Keeps orders whose quantity is above
10", "Joins orders to products on product_id = product_id, keeping only matches", "Sums quantity ×
price per product_id and product_name"); ``describe_plan(model)`` gives every node's sentence,
memoised on the model.

Two dispatch tables: relation kind -> describer, and expression kind (``rex_type``) -> words. Field
references are named from the record the node's expressions read (``node.info.incoming``), functions
by the name before ``:``. A describer that fails on an odd plan never stops the rest: the node gets a
generic sentence and the failure is kept (see :func:`describe_failures`).
"""

from __future__ import annotations

import datetime as _dt
import weakref
from dataclasses import dataclass, field
from typing import Callable, Sequence

from substrait import algebra_pb2

from .expressions import decimal_value, is_true
from .fields import Field, struct_members
from .model import NodeView, PlanModel

Expression = algebra_pb2.Expression

#: Long lists (columns, conditions, values) show this many items, then "and N more".
MAX_ITEMS = 3
MAX_COLUMNS = 6
#: Any one rendered expression longer than this is cut with "…".
MAX_TEXT = 140
_EPOCH = _dt.date(1970, 1, 1)


# ---------------------------------------------------------------------------------------------
# Small text helpers
# ---------------------------------------------------------------------------------------------

def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def _and_list(items: Sequence[str]) -> str:
    items = [i for i in items if i]
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


def _capped(items: Sequence[str], limit: int, noun: str = "more") -> str:
    """``a, b and c`` or ``a, b, c and 4 more``."""
    items = list(items)
    if len(items) <= limit:
        return _and_list(items)
    return ", ".join(items[:limit]) + f" and {len(items) - limit} {noun}"


def _cut(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "…", "?", "!")) else text + "."


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

    def with_fields(self, fields: Sequence[Field] | None) -> "Words":
        return Words(self.model, fields, self.outer, self.lambdas)

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
        """The conjuncts of ``e`` (nested ``and`` flattened), each in words."""
        return [self.expr(c) for c in _conjuncts(self, e)]

    def condition(self, e: Expression, limit: int = MAX_ITEMS) -> str:
        """A condition in words, capped: the first ``limit`` conjuncts, then "and N more conditions"."""
        parts = self.conditions(e)
        if len(parts) <= limit:
            return _and_list(parts)
        rest = len(parts) - limit
        return ", ".join(parts[:limit]) + f" and {_plural(rest, 'more condition')}"

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
        text = aggregate_words(self, self.function(f.function_reference), f.arguments, False, noun=True)
        parts = [text]
        if f.partitions:
            parts.append("per " + _capped([self.expr(p) for p in f.partitions], MAX_ITEMS))
        if f.sorts:
            parts.append("in order of " + _capped([self.expr(s.expr) for s in f.sorts], MAX_ITEMS))
        return " ".join(parts)

    def if_then(self, e: Expression.IfThen) -> str:
        branches = [f"{self.expr(c.then)} when {self.expr(getattr(c, 'if'))}" for c in e.ifs]
        text = ", ".join(branches[:2]) + (f" and {_plural(len(branches) - 2, 'more case')}" if len(branches) > 2 else "")
        if e.HasField("else"):
            text += f", otherwise {self.expr(getattr(e, 'else'))}"
        return text

    def switch_expression(self, e: Expression.SwitchExpression) -> str:
        return f"a value chosen by {self.expr(e.match)} ({_plural(len(e.ifs), 'case')})"

    def singular_or_list(self, e: Expression.SingularOrList) -> str:
        options = [self.expr(o) for o in e.options]
        if len(options) == 1:
            return f"{self.expr(e.value)} is {options[0]}"
        return f"{self.expr(e.value)} is one of {_capped(options, 5, 'others')}"

    def multi_or_list(self, e: Expression.MultiOrList) -> str:
        values = ", ".join(self.expr(v) for v in e.value)
        return f"({values}) is one of {_plural(len(e.options), 'listed combination')}"

    def cast(self, e: Expression.Cast) -> str:
        inner = self.expr(e.input)
        kind = e.type.WhichOneof("kind")
        if kind == "date":
            lit = e.input.literal if e.input.WhichOneof("rex_type") == "literal" else None
            if lit is not None and lit.WhichOneof("literal_type") in ("string", "var_char", "fixed_char"):
                return inner.strip("'")  # '1995-03-15' as a date reads as the date itself
            return f"{inner} as a date"
        return inner

    def subquery(self, e: Expression.Subquery) -> str:
        which = e.WhichOneof("subquery_type")
        if which == "scalar":
            return "the value of a subquery"
        if which == "in_predicate":
            needles = ", ".join(self.expr(n) for n in e.in_predicate.needles)
            return f"{needles} appears in a subquery's results"
        if which == "set_predicate":
            return "a matching row exists" if e.set_predicate.predicate_op != 2 else "the subquery's rows are unique"
        if which == "set_comparison":
            op = _COMPARISON_WORDS.get(_SET_COMPARISON.get(e.set_comparison.comparison_op, ""), "compares to")
            red = {1: "any", 2: "all"}.get(e.set_comparison.reduction_op, "the")
            return f"{self.expr(e.set_comparison.left)} {op} {red} of a subquery's values"
        return "a subquery"

    def nested(self, e: Expression.Nested) -> str:
        which = e.WhichOneof("nested_type")
        if which == "list":
            return "the list " + _capped([self.expr(v) for v in e.list.values], 5, "others")
        if which == "struct":
            return "a record of " + _capped([self.expr(v) for v in e.struct.fields], 5, "others")
        if which == "map":
            return f"a map of {_plural(len(e.map.key_values), 'entry', 'entries')}"
        return "a nested value"

    def dynamic_parameter(self, e) -> str:
        return f"parameter {e.parameter_reference}"

    def lambda_(self, e: Expression.Lambda) -> str:
        return f"a function of {_plural(len(e.parameters.types), 'parameter')} giving {self.expr(e.body)}"

    def lambda_invocation(self, e: Expression.LambdaInvocation) -> str:
        return f"({self.lambda_(getattr(e, 'lambda'))}) applied to " + _and_list([self.expr(a) for a in e.arguments.fields])

    def execution_context_variable(self, e) -> str:
        which = e.WhichOneof("execution_context_variable_type") or "context value"
        return "the " + which.replace("_", " ")

    def detached(self, e) -> str:
        return f"detached expression {e}"


_SET_COMPARISON = {1: "equal", 2: "not_equal", 3: "lt", 4: "gt", 5: "lte", 6: "gte"}


def _conjuncts(w: Words, e: Expression) -> list[Expression]:
    """``and(a, and(b, c))`` -> [a, b, c]; anything else -> [e]."""
    out, stack = [], [e]
    while stack:
        cur = stack.pop()
        if cur.WhichOneof("rex_type") == "scalar_function" and w.function(cur.scalar_function.function_reference) == "and":
            values = [a.value for a in cur.scalar_function.arguments if a.WhichOneof("arg_type") == "value"]
            stack.extend(reversed(values))
        else:
            out.append(cur)
    return out


def _values(f) -> list[Expression]:
    return [a.value for a in f.arguments if a.WhichOneof("arg_type") == "value"]


def _is_date(e: Expression) -> bool:
    which = e.WhichOneof("rex_type")
    if which == "literal":
        return e.literal.WhichOneof("literal_type") == "date"
    if which == "cast":
        return e.cast.type.WhichOneof("kind") == "date"
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


def _comparison(name: str) -> Callable[[Words, Expression.ScalarFunction], str | None]:
    def words(w: Words, f: Expression.ScalarFunction) -> str | None:
        values = _values(f)
        if len(values) != 2:
            return None
        left, right = values
        if name in ("equal", "is_not_distinct_from") and _is_field(left) and _is_field(right):
            return f"{w.expr(left)} = {w.expr(right)}"
        op = _DATE_WORDS.get(name) if (_is_date(left) or _is_date(right)) else None
        return f"{w.expr(left)} {op or _COMPARISON_WORDS[name]} {w.expr(right)}"

    return words


def _logical(word: str) -> Callable[[Words, Expression.ScalarFunction], str | None]:
    def words(w: Words, f: Expression.ScalarFunction) -> str | None:
        parts = [w.expr(v) for v in _values(f)]
        if not parts:
            return None
        if word == "and":
            flat = w.conditions(Expression(scalar_function=f))
            if len(flat) > MAX_ITEMS:
                return ", ".join(flat[:MAX_ITEMS]) + f" and {_plural(len(flat) - MAX_ITEMS, 'more condition')}"
            return _and_list(flat)
        same = _one_of(w, _values(f))
        if same is not None:
            return same
        if len(parts) > MAX_ITEMS:
            return " or ".join(parts[:MAX_ITEMS]) + f" or {_plural(len(parts) - MAX_ITEMS, 'more alternative')}"
        return "(" + " or ".join(parts) + ")" if len(parts) > 1 else parts[0]

    return words


def _one_of(w: Words, values: list[Expression]) -> str | None:
    """``or(equal(x, 1), equal(x, 2), ...)`` as "x is one of 1, 2, ..." (None when it is not that)."""
    subject, options = None, []
    for v in values:
        if v.WhichOneof("rex_type") != "scalar_function" or w.function(v.scalar_function.function_reference) != "equal":
            return None
        args = _values(v.scalar_function)
        if len(args) != 2 or not _is_field(args[0]) or args[1].WhichOneof("rex_type") != "literal":
            return None
        if subject is None:
            subject = args[0]
        elif subject != args[0]:
            return None
        options.append(w.expr(args[1]))
    if subject is None or len(options) < 2:
        return None
    return f"{w.expr(subject)} is one of {_capped(options, 5, 'others')}"


def _not(w: Words, f: Expression.ScalarFunction) -> str | None:
    values = _values(f)
    if len(values) != 1:
        return None
    inner = values[0]
    if inner.WhichOneof("rex_type") == "scalar_function":
        name = w.function(inner.scalar_function.function_reference)
        args = _values(inner.scalar_function)
        if name == "like" and len(args) >= 2:
            return f"{w.expr(args[0])} does not {_like_words(args[1])}"
        if name == "is_null" and len(args) == 1:
            return _is_null(w, inner.scalar_function, negated=True)
    if inner.WhichOneof("rex_type") == "singular_or_list":
        sol = inner.singular_or_list
        return f"{w.expr(sol.value)} is not one of {_capped([w.expr(o) for o in sol.options], 5, 'others')}"
    if inner.WhichOneof("rex_type") == "subquery" and inner.subquery.WhichOneof("subquery_type") == "set_predicate":
        return "no matching row exists"
    return f"not ({w.expr(inner)})"


def _is_null(w: Words, f: Expression.ScalarFunction, negated: bool = False) -> str | None:
    values = _values(f)
    if len(values) != 1:
        return None
    v = values[0]
    if v.WhichOneof("rex_type") == "scalar_function" and w.function(v.scalar_function.function_reference) == "index_in":
        args = _values(v.scalar_function)
        if len(args) == 2:  # index_in(needle, haystack) is null: the needle is not in the list
            verb = "contains" if negated else "does not contain"
            return f"{w.expr(args[1])} {verb} {w.expr(args[0])}"
    return f"{w.expr(v)} is {'not ' if negated else ''}null"


def _is_not_null(w: Words, f: Expression.ScalarFunction) -> str | None:
    return _is_null(w, f, negated=True)


def _like_words(pattern: Expression) -> str:
    """``match 'x%'`` in words: "start with 'x'", "end with", "contain", or "match 'a_b'"."""
    while pattern.WhichOneof("rex_type") == "cast":
        pattern = pattern.cast.input
    if pattern.WhichOneof("rex_type") == "literal" and pattern.literal.WhichOneof("literal_type") in ("string", "var_char", "fixed_char"):
        lit = pattern.literal
        text = lit.var_char.value if lit.WhichOneof("literal_type") == "var_char" else getattr(lit, lit.WhichOneof("literal_type"))
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
    values = _values(f)
    if len(values) < 2:
        return None
    words = _like_words(values[1]).replace("start with", "starts with").replace("end with", "ends with")
    words = words.replace("contain ", "contains ").replace("match ", "matches ", 1)
    return f"{w.expr(values[0])} {words}"


def _between(w: Words, f: Expression.ScalarFunction) -> str | None:
    values = _values(f)
    if len(values) != 3:
        return None
    return f"{w.expr(values[0])} is between {w.expr(values[1])} and {w.expr(values[2])}"


_ARITHMETIC = {"add": "+", "subtract": "−", "multiply": "×", "divide": "÷", "modulus": "mod", "power": "^"}
_PRECEDENCE = {"+": 1, "−": 1, "×": 2, "÷": 2, "mod": 2, "^": 3}


def _arithmetic(name: str) -> Callable[[Words, Expression.ScalarFunction], str | None]:
    op = _ARITHMETIC[name]

    def words(w: Words, f: Expression.ScalarFunction) -> str | None:
        values = _values(f)
        if len(values) != 2:
            return None
        parts = []
        for i, v in enumerate(values):
            text = w.expr(v)
            inner = _arith_op(w, v)
            if inner is not None and (_PRECEDENCE[inner] < _PRECEDENCE[op] or (i == 1 and _PRECEDENCE[inner] == _PRECEDENCE[op] and op in "−÷")):
                text = f"({text})"
            parts.append(text)
        return f"{parts[0]} {op} {parts[1]}"

    return words


def _arith_op(w: Words, e: Expression) -> str | None:
    while e.WhichOneof("rex_type") == "cast":
        e = e.cast.input
    if e.WhichOneof("rex_type") != "scalar_function":
        return None
    return _ARITHMETIC.get(w.function(e.scalar_function.function_reference))


def _negate(w: Words, f: Expression.ScalarFunction) -> str | None:
    values = _values(f)
    return f"−{w.expr(values[0])}" if len(values) == 1 else None


def _extract(w: Words, f: Expression.ScalarFunction) -> str | None:
    args = w.args(f.arguments)
    if len(args) >= 2:
        return f"the {args[0].lower()} of {args[-1]}"
    return None


def _coalesce(w: Words, f: Expression.ScalarFunction) -> str | None:
    return "the first non-null of " + _capped([w.expr(v) for v in _values(f)], 4, "others")


def _index_in(w: Words, f: Expression.ScalarFunction) -> str | None:
    values = _values(f)
    return f"the position of {w.expr(values[0])} in {w.expr(values[1])}" if len(values) == 2 else None


#: Functions whose words begin with their first argument ("x is above 10", "x and y").
_LEADS_WITH_FIRST = {*_COMPARISON_WORDS, *_ARITHMETIC, "and", "or", "not", "is_null", "is_not_null", "like", "between"}

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
    "coalesce": _coalesce,
    "index_in": _index_in,
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


def literal_words(lit: Expression.Literal) -> str:
    """A literal as a reader would write it: 10, 2.5, 'Computers', 1995-03-15, null."""
    which = lit.WhichOneof("literal_type")
    if which is None:
        return "a value"
    value = getattr(lit, which)
    if which == "boolean":
        return "true" if value else "false"
    if which in ("i8", "i16", "i32", "i64"):
        return str(value)
    if which in ("fp32", "fp64"):
        return f"{float(value):g}"
    if which in ("string", "fixed_char"):
        return f"'{value}'"
    if which == "var_char":
        return f"'{value.value}'"
    if which == "date":
        try:
            return (_EPOCH + _dt.timedelta(days=value)).isoformat()
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
        return "the list [" + _capped(values, 5, "others") + "]" if values else "an empty list"
    if which in ("precision_timestamp", "precision_timestamp_tz"):
        try:
            stamp = _dt.datetime(1970, 1, 1) + _dt.timedelta(seconds=value.value / 10**value.precision)
            return stamp.isoformat(sep=" ")
        except (OverflowError, ValueError):
            return "a timestamp"
    if which == "interval_year_to_month":
        return _and_list([_plural(value.years, "year") if value.years else "", _plural(value.months, "month") if value.months else ""]) or "0 months"
    if which == "interval_day_to_second":
        return _and_list([_plural(value.days, "day") if value.days else "", _plural(value.seconds, "second") if value.seconds else ""]) or "0 seconds"
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
    "variance": "computes the variance of {}",
    "string_agg": "joins the {} texts",
    "list_agg": "collects the {} values",
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
    "variance": "the variance of {}",
}


def aggregate_words(w: Words, name: str, arguments, distinct: bool, noun: bool = False) -> str:
    """``sums quantity × price``, ``counts rows``, ``counts distinct customers``; with ``noun``:
    ``the sum of quantity × price``, ``the number of rows``."""
    args = [a for a in w.args(arguments)]
    what = ", ".join(args) if args else ("rows" if name == "count" else "")
    if distinct:
        what = f"distinct {what}"
    template = (_AGGREGATE_NOUNS if noun else _AGGREGATE_VERBS).get(name)
    if template is None:
        return f"{name}({what})" if noun else f"computes {name}({what})"
    return template.format(what)


# ---------------------------------------------------------------------------------------------
# Relations in words
# ---------------------------------------------------------------------------------------------

@dataclass
class _Ctx:
    model: PlanModel
    node: NodeView
    things: Callable[[str], str | None]  # the table a node's rows come from, when there is one
    combined: Callable[[str], str | None]  # the same, or "combined a and b rows" for a few tables

    @property
    def body(self):
        return self.node.node.body

    def words(self, fields: Sequence[Field] | None = None, use_incoming: bool = True) -> Words:
        incoming = self.node.info.incoming
        if use_incoming and incoming is not None and len(self.node.inputs) == 1:
            incoming = _named(self.model, self.node.inputs[0], incoming)
        return Words(self.model, incoming if use_incoming else fields, _outer_records(self.model, self.node.id))

    def rows_of(self, node_id: str) -> str:
        return self.things(node_id) or "rows"

    def input(self, k: int) -> str | None:
        return self.node.inputs[k] if k < len(self.node.inputs) else None


def _outer_records(model: PlanModel, node_id: str) -> list[Sequence[Field] | None]:
    """The records outer references of this node reach, innermost first: for each subquery
    boundary crossed going up, the record the enclosing node's expressions read."""
    out: list[Sequence[Field] | None] = []
    nodes = model.graph.nodes
    cur = nodes.get(node_id)
    seen = 0
    while cur is not None and seen < 10_000:
        seen += 1
        parent = nodes.get(cur.parent) if cur.parent else None
        if parent is None:
            break
        if cur.is_subquery:
            out.append(model.infos[parent.id].incoming if parent.id in model.infos else None)
        cur = parent
    return out


def _columns(fields: Sequence[Field] | None, limit: int = MAX_COLUMNS) -> str:
    if not fields:
        return ""
    names = [f.name for f in fields]
    return _capped(names, limit)


def _read(c: _Ctx) -> str:
    r: algebra_pb2.ReadRel = c.body
    which = r.WhichOneof("read_type")
    schema = c.node.schema
    base = c.node.info.incoming
    width = len(base) if base is not None else None
    cols = ""
    if schema is not None:
        shown = _columns(schema)
        if width is not None and r.HasField("projection") and len(schema) != width:
            cols = f" ({len(schema)} of {width} columns: {shown})"
        elif schema:
            cols = f" ({_plural(len(schema), 'column')}: {shown})"
    if which == "named_table":
        what = f"Reads table {'.'.join(r.named_table.names) or '(unnamed)'}{cols}"
    elif which == "local_files":
        items = r.local_files.items
        fmts = {it.WhichOneof("file_format") for it in items} - {None}
        fmt = fmts.pop() + " " if len(fmts) == 1 else ""
        paths = [getattr(it, it.WhichOneof("path_type") or "uri_path") for it in items]
        names = [p.rstrip("/").rsplit("/", 1)[-1] or p for p in paths]
        what = f"Reads {_plural(len(items), fmt + 'file')}" + (f" ({_capped(names, 2)})" if names else "") + cols
    elif which == "virtual_table":
        rows = len(r.virtual_table.expressions) or len(getattr(r.virtual_table, "values", ()))
        what = f"A table of {_plural(rows, 'row')} written into the plan{cols}"
    elif which == "extension_table":
        what = f"Reads a custom table ({r.extension_table.detail.type_url.rsplit('/', 1)[-1] or 'extension'}){cols}"
    elif which == "iceberg_table":
        what = f"Reads an Iceberg table{cols}"
    else:
        what = f"Reads a table the plan does not name{cols}"
    sentences = [_sentence(what)]
    if r.HasField("filter") or r.HasField("best_effort_filter"):
        w = c.words()
        cond = r.filter if r.HasField("filter") else r.best_effort_filter
        things = ".".join(r.named_table.names[-1:]) if which == "named_table" else "rows"
        sentences.append(_sentence(f"Keeps only {things} {_whose(w, cond)} {w.condition(cond)}"))
    return " ".join(sentences)


def _whose(w: Words, cond: Expression) -> str:
    """"whose" when the condition's words start with one of the row's own fields, else "where"."""
    e, steps = cond, 0
    while steps < 50:
        steps += 1
        which = e.WhichOneof("rex_type")
        if which == "cast":
            e = e.cast.input
        elif which == "singular_or_list":
            e = e.singular_or_list.value
        elif which == "scalar_function":
            name = w.function(e.scalar_function.function_reference)
            values = _values(e.scalar_function)
            if name not in _LEADS_WITH_FIRST or not values:
                return "where"
            first = values[0]
            if name == "not":  # only these negations keep their subject first ("x does not ...")
                kind = first.WhichOneof("rex_type")
                fname = w.function(first.scalar_function.function_reference) if kind == "scalar_function" else ""
                if kind != "singular_or_list" and fname not in ("like", "is_null"):
                    return "where"
            if name in ("is_null", "is_not_null") and first.WhichOneof("rex_type") == "scalar_function":
                inner = first.scalar_function
                if w.function(inner.function_reference) == "index_in" and len(_values(inner)) == 2:
                    first = _values(inner)[1]  # "categories does not contain ...": the list comes first
            e = first
        else:
            return "whose" if _is_own_field(e) else "where"
    return "where"


def _is_own_field(e: Expression) -> bool:
    while e.WhichOneof("rex_type") == "cast":
        e = e.cast.input
    return e.WhichOneof("rex_type") == "selection" and e.selection.WhichOneof("root_type") in (None, "root_reference")


def _filter(c: _Ctx) -> str:
    w = c.words()
    cond = c.body.condition
    things = c.rows_of(c.input(0)) if c.input(0) else "rows"
    return _sentence(f"Keeps {things} {_whose(w, cond)} {w.condition(cond)}")


def _is_plain_field(e: Expression) -> bool:
    return e.WhichOneof("rex_type") == "selection"


def _project(c: _Ctx) -> str:
    w = c.words()
    exprs = list(c.body.expressions)
    computed = [w.expr(e) for e in exprs if not _is_plain_field(e)]
    names = [f.name for f in _named(c.model, c.node.id, c.node.schema)] if c.node.schema is not None else []
    narrows = c.body.common.WhichOneof("emit_kind") == "emit" or not c.model.conventions.project_keeps_input
    if not computed:
        if names:
            return _sentence(f"Keeps columns {_capped(names, MAX_COLUMNS)}")
        return "Passes its input through."
    if len(computed) == 1:
        text = f"Adds {computed[0]} as a new column"
    else:
        text = f"Adds {len(computed)} new columns: " + "; ".join(computed[:MAX_ITEMS]) + (
            f"; and {len(computed) - MAX_ITEMS} more" if len(computed) > MAX_ITEMS else ""
        )
    out = _sentence(text)
    if narrows and names:
        out += " " + _sentence(f"Outputs columns {_capped(names, MAX_COLUMNS)}")
    return out


def _join_type(body) -> str:
    enum = body.DESCRIPTOR.fields_by_name["type"].enum_type
    value = enum.values_by_number.get(body.type)
    name = value.name if value is not None else "JOIN_TYPE_UNSPECIFIED"
    return name.replace("JOIN_TYPE_", "").lower()


def _join_sentence(c: _Ctx, kind: str, on: str, how: str = "") -> str:
    left = c.combined(c.input(0)) if c.input(0) else None
    right = c.combined(c.input(1)) if c.input(1) else None
    l_name, r_name = left or "the left rows", right or "the right rows"
    on_text = f" on {on}" if on else ""
    verb = f"Joins{how}"
    if kind in ("left_semi", "right_semi", "left_anti", "right_anti"):
        keep, other = (l_name, r_name) if kind.startswith("left") else (r_name, l_name)
        has = "have a match" if kind.endswith("semi") else "have no match"
        return _sentence(f"Keeps {keep} that {has} in {other}{on_text}")
    if kind in ("left_mark", "right_mark"):
        marked, other = (l_name, r_name) if kind == "left_mark" else (r_name, l_name)
        return _sentence(f"Marks each of {marked} with whether it has a match in {other}{on_text}")
    tails = {
        "inner": "keeping only matches",
        "left": f"keeping all {l_name}, with {r_name} where they match",
        "right": f"keeping all {r_name}, with {l_name} where they match",
        "outer": "keeping every row of both sides, matched where possible",
        "left_single": f"keeping all {l_name}, each with at most one match from {r_name}",
        "right_single": f"keeping all {r_name}, each with at most one match from {l_name}",
        "unspecified": "(the join type is not given)",
    }
    tail = tails.get(kind, f"as a {kind.replace('_', ' ')} join")
    target = f"{l_name} to {r_name}" if (left or right) else "its two inputs"
    return _sentence(f"{verb} {target}{on_text}, {tail}")


def _post_filter(c: _Ctx) -> str:
    body = c.body
    if "post_join_filter" in body.DESCRIPTOR.fields_by_name and body.HasField("post_join_filter"):
        w = c.words()
        return " " + _sentence(f"Then keeps rows where {w.condition(body.post_join_filter)}")
    return ""


def _join(c: _Ctx) -> str:
    body = c.body
    w = c.words()
    on = w.condition(body.expression) if body.HasField("expression") else ""
    if _join_type(body) == "inner" and (not on or is_true(body.expression)):
        # DataFusion writes every inner join so, with the keys in a filter above: say what the join
        # itself does, and where its condition is
        return _cross(c) + _post_filter(c)
    return _join_sentence(c, _join_type(body), on) + _post_filter(c)


def _condition_above(c: _Ctx) -> str:
    """Where the condition of a join without one is: the first filter above it, through other joins
    without one (a chain of them is one cross product that filter narrows)."""
    nodes = c.model.graph.nodes
    cur = nodes.get(c.node.node.parent) if c.node.node.parent else None
    while cur is not None and cur.kind in ("join", "cross") and _join_type_of(cur.body) in ("inner", "cross"):
        if cur.kind == "join" and cur.body.HasField("expression") and not is_true(cur.body.expression):
            return ""
        cur = nodes.get(cur.parent) if cur.parent else None
    if cur is None or cur.kind != "filter":
        return "" if c.node.kind == "cross" else " It has no join condition."
    return f" Its condition is in the filter above it (node {cur.id}), which keeps the matching pairs."


def _join_type_of(body) -> str:
    return _join_type(body) if "type" in body.DESCRIPTOR.fields_by_name else "cross"


def _keys_join(c: _Ctx) -> str:
    body = c.body
    left = c.model.node(c.input(0)).schema if c.input(0) else None
    right = c.model.node(c.input(1)).schema if c.input(1) else None
    wl, wr = c.words().with_fields(left), c.words().with_fields(right)
    keys = []
    for k in body.keys:
        op = "=" if k.comparison.simple != 2 else "is the same as"
        keys.append(f"{wl.selection(k.left)} {op} {wr.selection(k.right)}")
    if not keys and len(body.left_keys) == len(body.right_keys):  # the deprecated key lists
        keys = [f"{wl.selection(a)} = {wr.selection(b)}" for a, b in zip(body.left_keys, body.right_keys)]
    how = {"hash_join": " (by hashing)", "merge_join": " (by merging sorted inputs)"}.get(c.node.kind, "")
    return _join_sentence(c, _join_type(body), _capped(keys, MAX_ITEMS, "more keys"), how) + _post_filter(c)


def _nested_loop_join(c: _Ctx) -> str:
    body = c.body
    w = c.words()
    on = w.condition(body.expression) if body.HasField("expression") else ""
    return _join_sentence(c, _join_type(body), on, " (comparing every pair)")


def _lateral_join(c: _Ctx) -> str:
    return _join(c).replace("Joins", "For each left row, joins", 1)


def _cross(c: _Ctx) -> str:
    left = (c.combined(c.input(0)) if c.input(0) else None) or "rows"
    right = (c.combined(c.input(1)) if c.input(1) else None) or "rows"
    if left == right == "rows":
        text = "Pairs every row of one input with every row of the other (a cross product)."
    else:
        text = _sentence(f"Pairs every row of {left} with every row of {right} (a cross product)")
    return text + _condition_above(c)


def _aggregate(c: _Ctx) -> str:
    body: algebra_pb2.AggregateRel = c.body
    w = c.words()
    keys = [w.expr(e) for e in body.grouping_expressions]
    groupings: list[list[str]] = []
    for g in body.groupings:
        own = list(getattr(g, "grouping_expressions", ()))  # the deprecated form, in older protos
        if g.expression_references or not own:
            groupings.append([keys[r] if 0 <= r < len(keys) else f"key {r}" for r in g.expression_references])
        else:
            groupings.append([w.expr(e) for e in own])
    measures = []
    for m in body.measures:
        f = m.measure
        text = aggregate_words(w, w.function(f.function_reference), f.arguments,
                               f.invocation == algebra_pb2.AggregateFunction.AGGREGATION_INVOCATION_DISTINCT)
        if m.HasField("filter"):
            text += f" (only where {w.condition(m.filter)})"
        measures.append(text)
    if len(measures) > MAX_ITEMS:
        measures = measures[:MAX_ITEMS] + [f"computes {len(measures) - MAX_ITEMS} more totals"]
    what = _and_list(measures) if measures else ""
    if len(groupings) > 1:
        sets = ["per " + _and_list(g) if g else "over all rows" for g in groupings]
        if measures:
            return _sentence(f"{what}, for {_plural(len(groupings), 'grouping')}: " + "; ".join(sets[:4]) + ("; …" if len(sets) > 4 else ""))
        return _sentence(f"Lists the distinct groups for {_plural(len(groupings), 'grouping')}: " + "; ".join(sets[:4]))
    group = groupings[0] if groupings else []
    if not measures:
        return _sentence(f"Keeps one row per distinct {_capped(group, MAX_COLUMNS)}") if group else "Produces one empty row."
    if group:
        return _sentence(f"{what} per {_capped(group, MAX_COLUMNS)}")
    if what == "counts rows":
        return "Counts all rows."
    return _sentence(f"{what} over all rows")


def _sort_words(w: Words, sorts) -> str:
    parts = []
    for i, s in enumerate(sorts):
        text = w.expr(s.expr)
        if s.WhichOneof("sort_kind") == "direction":
            d = s.direction
            if d in (3, 4):  # DESC NULLS FIRST / LAST
                text += ", highest first"
            elif d == 5:
                text += ", grouping equal values together"
        else:
            text += " (by a custom comparison)"
        parts.append(text if i == 0 else f"then {text}")
    if len(parts) > 4:
        parts = parts[:4] + [f"then {len(parts) - 4} more keys"]
    return ", ".join(parts)


def _sort(c: _Ctx) -> str:
    return _sentence(f"Sorts by {_sort_words(c.words(), c.body.sorts)}")


def _count_words(w: Words, body, name: str) -> tuple[str | None, bool]:
    """(the value in words, whether it is a plain number) for fetch/top-n's count or offset."""
    expr_field = f"{name}_expr"
    if expr_field in body.DESCRIPTOR.fields_by_name and body.HasField(expr_field):
        e = getattr(body, expr_field)
    elif name in body.DESCRIPTOR.fields_by_name and body.DESCRIPTOR.fields_by_name[name].message_type is not None:
        if not body.HasField(name):
            return None, True
        e = getattr(body, name)
    elif name in body.DESCRIPTOR.fields_by_name:
        value = getattr(body, name)
        return (str(value), True) if value else (None, True)
    else:
        return None, True
    if e.WhichOneof("rex_type") == "literal":
        lit = e.literal
        kind = lit.WhichOneof("literal_type")
        if kind in ("i8", "i16", "i32", "i64"):
            v = getattr(lit, kind)
            return (None, True) if (v < 0 and name == "count") or (v == 0 and name == "offset") else (str(v), True)
    return w.expr(e), False


def _fetch(c: _Ctx) -> str:
    w = c.words()
    count, _ = _count_words(w, c.body, "count")
    offset, _ = _count_words(w, c.body, "offset")
    if count is None and offset is None:
        return "Keeps all rows."
    if offset is None:
        return "Keeps the first row." if count == "1" else _sentence(f"Keeps the first {count} rows")
    if count is None:
        return _sentence(f"Skips the first {offset} rows and keeps the rest")
    return _sentence(f"Skips the first {offset} rows and keeps the next {count}")


def _top_n(c: _Ctx) -> str:
    w = c.words()
    count, _ = _count_words(w, c.body, "count")
    offset, _ = _count_words(w, c.body, "offset")
    rows = f"the top {count} rows" if count else "all rows"
    skip = f", after skipping {offset}" if offset else ""
    return _sentence(f"Keeps {rows}{skip} sorted by {_sort_words(w, c.body.sorts)}")


_SET_WORDS = {
    "union_all": "Stacks the rows of its {n} inputs, keeping duplicates (union all)",
    "union_distinct": "Combines the rows of its {n} inputs, dropping duplicates (union)",
    "minus_primary": "Keeps the rows of the first input that appear in none of the other inputs (except)",
    "minus_primary_all": "Keeps the rows of the first input not matched by rows of the other inputs, counting duplicates (except all)",
    "minus_multiset": "Keeps the rows of the first input except those that appear in all of the other inputs",
    "intersection_primary": "Keeps the rows of the first input that appear in at least one other input",
    "intersection_multiset": "Keeps the rows of the first input that appear in every other input (intersect)",
    "intersection_multiset_all": "Keeps the rows that appear in every input, counting duplicates (intersect all)",
}


def _set(c: _Ctx) -> str:
    op = algebra_pb2.SetRel.SetOp.DESCRIPTOR.values_by_number.get(c.body.op)
    name = op.name.replace("SET_OP_", "").lower() if op is not None else "unspecified"
    template = _SET_WORDS.get(name, "Combines the rows of its {n} inputs (the set operation is not given)")
    return _sentence(template.format(n=len(c.node.inputs)))


def _window(c: _Ctx) -> str:
    body = c.body
    w = c.words()
    funcs = [aggregate_words(w, w.function(f.function_reference), f.arguments, False, noun=True) for f in body.window_functions]
    text = f"Adds {_plural(len(funcs), 'window column')}: {_capped(funcs, MAX_ITEMS)}" if funcs else "Adds window columns"
    if body.partition_expressions:
        text += ", per " + _capped([w.expr(p) for p in body.partition_expressions], MAX_ITEMS)
    if body.sorts:
        text += ", in order of " + _capped([w.expr(s.expr) for s in body.sorts], MAX_ITEMS)
    return _sentence(text)


def _exchange(c: _Ctx) -> str:
    body = c.body
    w = c.words()
    kind = body.WhichOneof("exchange_kind")
    parts = f" into {body.partition_count} partitions" if body.partition_count else ""
    if kind == "scatter_by_fields":
        keys = _capped([w.selection(f) for f in body.scatter_by_fields.fields], MAX_ITEMS)
        return _sentence(f"Redistributes the rows{parts} by {keys}")
    if kind == "broadcast":
        return _sentence(f"Copies every row to all partitions{parts}")
    if kind == "round_robin":
        return _sentence(f"Deals the rows out in turn{parts}")
    if kind in ("single_target", "multi_target"):
        return _sentence(f"Sends each row to the partition{'s' if kind == 'multi_target' else ''} chosen by {w.expr(getattr(body, kind).expression)}")
    return _sentence(f"Redistributes the rows{parts}")


def _expand(c: _Ctx) -> str:
    dup = max((len(f.switching_field.duplicates) for f in c.body.fields if f.WhichOneof("field_type") == "switching_field"), default=1)
    return _sentence(f"Makes {_plural(dup, 'copy', 'copies')} of each row, varying some columns (as for grouping sets)")


def _reference(c: _Ctx) -> str:
    target = c.input(0)
    ordinal = c.body.subtree_ordinal
    if target is None:
        return _sentence(f"Reuses shared relation {ordinal}")
    things = c.things(target)
    from .render import title

    what = f"the {title(c.model.node(target).kind).lower()} step {target}"
    return _sentence(f"Reuses the result of {what}" + (f" over {things}" if things else ""))


def _extension(c: _Ctx) -> str:
    detail = c.body.detail.type_url.rsplit("/", 1)[-1] or "no detail"
    return _sentence(f"A custom step ({detail}) defined by the plan's producer; its meaning is not known here")


def _write(c: _Ctx) -> str:
    body = c.body
    op = algebra_pb2.WriteRel.WriteOp.Name(body.op).replace("WRITE_OP_", "").lower() if body.op in algebra_pb2.WriteRel.WriteOp.DESCRIPTOR.values_by_number else "unspecified"
    target = ".".join(body.named_table.names) if body.HasField("named_table") else "a custom table"
    verbs = {
        "insert": f"Inserts the rows into table {target}",
        "delete": f"Deletes the matching rows from table {target}",
        "update": f"Updates the matching rows of table {target}",
        "ctas": f"Creates table {target} from the rows",
    }
    return _sentence(verbs.get(op, f"Writes the rows to table {target}"))


def _ddl(c: _Ctx) -> str:
    body = c.body
    op = algebra_pb2.DdlRel.DdlOp.Name(body.op).replace("DDL_OP_", "").lower().replace("_", " ") if body.op in algebra_pb2.DdlRel.DdlOp.DESCRIPTOR.values_by_number else "changes"
    obj = algebra_pb2.DdlRel.DdlObject.Name(body.object).replace("DDL_OBJECT_", "").lower() if body.object in algebra_pb2.DdlRel.DdlObject.DESCRIPTOR.values_by_number else "object"
    target = ".".join(body.named_object.names) if body.HasField("named_object") else "a custom object"
    verb = {"create": "Creates", "create or replace": "Creates or replaces", "alter": "Alters", "drop": "Drops",
            "drop if exist": "Drops (if it exists)"}.get(op, f"Changes ({op})")
    return _sentence(f"{verb} {obj} {target}")


def _update(c: _Ctx) -> str:
    body = c.body
    w = c.words()
    names = [f.name for f in c.node.info.incoming or []]
    sets = [f"{names[t.column_target] if 0 <= t.column_target < len(names) else f'column {t.column_target}'} to {w.expr(t.transformation)}" for t in body.transformations]
    text = f"Updates table {'.'.join(body.named_table.names)}"
    if body.HasField("condition"):
        text += f" where {w.condition(body.condition)}"
    if sets:
        text += ", setting " + _capped(sets, MAX_ITEMS)
    return _sentence(text)


_DESCRIBE: dict[str, Callable[[_Ctx], str]] = {
    "read": _read,
    "filter": _filter,
    "project": _project,
    "join": _join,
    "lateral_join": _lateral_join,
    "hash_join": _keys_join,
    "merge_join": _keys_join,
    "nested_loop_join": _nested_loop_join,
    "cross": _cross,
    "aggregate": _aggregate,
    "sort": _sort,
    "fetch": _fetch,
    "top_n": _top_n,
    "set": _set,
    "window": _window,
    "exchange": _exchange,
    "expand": _expand,
    "reference": _reference,
    "extension_single": _extension,
    "extension_multi": _extension,
    "extension_leaf": _extension,
    "write": _write,
    "ddl": _ddl,
    "update": _update,
}


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------

@dataclass
class _Memo:
    sentences: dict[str, str] = field(default_factory=dict)
    tables: dict[str, frozenset[str] | None] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)
    root_names: dict[str, list[str | None]] | None = None


#: Relations whose output columns are their input's (through their emit), so a name the root gives
#: a column is that column's name below them too.
_PASSING = frozenset({"filter", "sort", "fetch", "project"})


def root_names(model: PlanModel) -> dict[str, list[str | None]]:
    """Per node, the name the plan's root gives each output column that reaches the root unchanged
    (through filters, sorts, fetches and projects), else None: DataFusion and isthmus name a computed
    column by its expression below the root (``sum(multiply(…``) and only the root says ``revenue``.
    Top-down from each root; memoised."""
    memo = _memo(model)
    if memo.root_names is not None:
        return memo.root_names
    out: dict[str, list[str | None]] = {}
    for root in model.roots:
        schema = model.node(root).schema
        if schema is not None:
            out[root] = [f.name for f in schema]
    # Down from the roots (readers before what they read) through the nodes that pass fields on.
    for node_id in reversed(model.graph.post_order(model.roots, subqueries=False)):
        parent = model.node(node_id)
        above = out.get(node_id)
        if above is None or parent.kind not in _PASSING or len(parent.inputs) != 1:
            continue
        child = parent.inputs[0]
        below = model.node(child).schema
        if below is None:
            continue
        direct = len(below) + (len(parent.node.body.expressions) if parent.kind == "project" else 0)
        common = parent.node.body.common
        mapping = list(common.emit.output_mapping) if common.WhichOneof("emit_kind") == "emit" else range(direct)
        if parent.kind == "project" and not model.conventions.project_keeps_input and common.WhichOneof("emit_kind") != "emit":
            continue  # a producer's project that outputs only its expressions: nothing passes through
        names = out.setdefault(child, [None] * len(below))
        for j, m in enumerate(mapping):
            if j < len(above) and 0 <= m < len(below) and names[m] is None:
                names[m] = above[j]
    memo.root_names = out
    return out


def _named(model: PlanModel, node_id: str, fields: Sequence[Field]) -> list[Field]:
    """``fields`` (node ``node_id``'s output) with the root's names for the columns named by their
    expression (``sum(multiply(…``) that the root names."""
    names = root_names(model).get(node_id)
    if not names or len(names) != len(fields):
        return list(fields)
    return [f.renamed(n) if n and n != f.name and "(" in f.name else f for f, n in zip(fields, names)]


_memos: "weakref.WeakKeyDictionary[PlanModel, _Memo]" = weakref.WeakKeyDictionary()


def _memo(model: PlanModel) -> _Memo:
    """This module's memo for ``model``, kept beside it (not in it) for as long as it lives."""
    memo = _memos.get(model)
    if memo is None:
        memo = _memos[model] = _Memo()
    return memo


def _tables(model: PlanModel, node_id: str) -> frozenset[str] | None:
    """The named tables a node's rows come from (inputs followed, subqueries not); None when some
    leaf is not a named table. Bottom-up (the graph's post-order), memoised."""
    memo = _memo(model).tables
    nodes = model.graph.nodes
    for cur in model.graph.post_order([node_id], subqueries=False, done=memo):
        node = nodes[cur]
        if not node.inputs:
            body = node.body
            named = node.kind == "read" and body.WhichOneof("read_type") == "named_table" and body.named_table.names
            memo[cur] = frozenset([body.named_table.names[-1]]) if named else None
            continue
        parts = [memo.get(i) for i in node.inputs]  # an input still unknown here (a cycle) counts as None
        memo[cur] = None if any(p is None for p in parts) else frozenset().union(*parts)
    return memo[node_id]


def _things(model: PlanModel, combined: bool = False) -> Callable[[str], str | None]:
    """Names a node's rows by their table ("orders"); with ``combined``, rows of two or three
    tables become "combined orders and customer rows". None when there is no such name."""

    def things(node_id: str) -> str | None:
        if node_id not in model.graph.nodes:
            return None
        tables = _tables(model, node_id)
        if tables is None:
            return None
        if len(tables) == 1:
            return next(iter(tables))
        if combined and 1 < len(tables) <= 3:
            return f"combined {_and_list(sorted(tables))} rows"
        if combined and tables:
            return f"combined rows of {len(tables)} tables"
        return None

    return things


def describe(model: PlanModel, node_id: str) -> str:
    """One or two plain sentences saying what node ``node_id`` does. Never raises for a node of the
    model: a describer that fails yields a generic sentence (and :func:`describe_failures` lists it)."""
    memo = _memo(model)
    if node_id in memo.sentences:
        return memo.sentences[node_id]
    node = model.node(node_id)
    describer = _DESCRIBE.get(node.kind)
    text = ""
    if describer is not None:
        try:
            text = describer(_Ctx(model, node, _things(model), _things(model, combined=True)))
        except Exception as exc:  # an odd plan must not stop the story: say so generically
            memo.failures[node_id] = f"{type(exc).__name__}: {exc}"
            text = ""
    if not text:
        from .render import title

        inputs = len(node.inputs)
        name = title(node.kind)
        article = "An" if name[:1].lower() in "aeiou" else "A"
        text = _sentence(f"{article} {name} step" + (f" over {_plural(inputs, 'input')}" if inputs else ""))
    memo.sentences[node_id] = text
    return text


def describe_plan(model: PlanModel) -> dict[str, str]:
    """Every node's sentence, by node id (memoised on the model)."""
    return {node_id: describe(model, node_id) for node_id in model.graph.nodes}


def describe_failures(model: PlanModel) -> dict[str, str]:
    """Nodes whose describer failed (and got a generic sentence), with the error: for tests."""
    describe_plan(model)
    return dict(_memo(model).failures)


def story_order(model: PlanModel) -> list[str]:
    """Node ids from the leaves to the roots (inputs before the nodes that read them, subqueries
    before their enclosing node), each once: the order to tell a plan's story in."""
    return model.graph.post_order()


__all__ = ["describe", "describe_plan", "describe_failures", "story_order", "literal_words", "Words"]
