"""Expressions in words: ``Words(model, fields).expr(e)``, one dispatch table on the expression kind
(``_EXPR``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from substrait import algebra_pb2, type_pb2

from ..expressions import case_base, direct_field, field_references
from ..expressions.literals import plain_kind
from ..fields import Field, struct_members
from ..model import PlanModel
from .aggregates import aggregate_words, framed
from .basics import (
    CASE_WORDS,
    INTEGER_KINDS,
    MAX_ITEMS,
    and_list,
    as_predicate,
    capped_list,
    counted,
    cut,
    date_words,
    said_of,
    step_owned,
    text_date,
)
from .functions import (
    COMPARISON_WORDS,
    FUNCTIONS,
    SET_COMPARISON,
    beyond_places,
    bound_words,
    case_coalesce,
    column_bounds,
    condition_parts,
    conjuncts,
    constant_value,
    never_true,
    none_of,
    options_words,
    same_subject,
    set_apart,
    shared_conditions,
)
from .literals import literal_words

Expression = algebra_pb2.Expression


def _columns_read(e: Expression) -> set[bytes]:
    """The column references an expression holds, each as its bytes."""
    return {ref.SerializeToString(deterministic=True) for ref in field_references(e)}


#: A float rounded to this many decimal places or more is said as itself: the rounding is below what a
#: reader of the story compares (DataFusion casts a float to 15 places to compare it with a decimal).
FLOAT_PLACES_SAID = 10


#: A CASE's branches said one by one, up to this many (a longer one: all but the last of them, and a count).
_CASES_SAID = 4
_TEXT_KINDS = frozenset({"string", "varchar", "fixed_char", "var_char"})


def _by_steps(said: list[str], owned: dict[int, str]) -> list[str]:
    """Conditions ``said`` with those on one column of several steps (``owned``: by their place, the
    column's name, "step 26's d_year") said once, where the first of them was: "d_year is 2000 in steps
    26, 79 and 133 and 2001 in steps 52, 106 and 160" (TPC-DS q04: six "step N's d_year is …" in a row
    made a sentence of a page). Of a column said with "and" ("is at least 4 and at most 7"), only what
    several steps share: "is 4 in step 6 and at least 4 and at most 7 in step 8" blurred its bounds."""
    of: dict[int, tuple[str, str, str]] = {}  # by place: the step, the column's own name, what is said of it
    for i, told in owned.items():
        step, name = step_owned(told) or ("", "")
        rest = said[i].removeprefix(told + " ")
        if rest != said[i] and "step " not in rest:  # another step in the rest: "in steps" would blur it
            of[i] = step, name, rest
    plain = {name for _, name, _ in of.values()}
    plain -= {name for _, name, rest in of.values() if " and " in rest}
    groups: dict[tuple[str, str], list[int]] = {}
    for i, (_, name, rest) in of.items():
        groups.setdefault((name, "" if name in plain else rest), []).append(i)
    merged: dict[int, str | None] = {}  # a place's new words, None where its condition is said earlier
    for (name, _), places in groups.items():
        if len({of[i][0] for i in places}) < 2:
            continue
        steps: dict[str, list[str]] = {}  # what is said of the column -> the steps it is said of
        for i in places:
            steps.setdefault(of[i][2], []).append(of[i][0])
        verb = all(rest.startswith("is ") for rest in steps) and len(steps) > 1
        parts = [
            f"{rest.removeprefix('is ') if verb and k else rest} in "
            + (f"step {ns[0]}" if len(ns) == 1 else f"steps {and_list(ns)}")
            for k, (rest, ns) in enumerate(steps.items())
        ]
        # the article an owner's possession lost ("step 26's sum"), back: "the sum is above 0 in steps …"
        subject = f"the {name}" if re.match(r"[a-z]+( |$)", name) else name
        merged.update(dict.fromkeys(places[1:]))
        merged[places[0]] = f"{subject} {and_list(parts)}"
    if not merged:
        return said
    return [merged.get(i, text) for i, text in enumerate(said) if merged.get(i, text) is not None]


def unbracketed(text: str) -> str:
    """``text`` without the brackets around the whole of it ("(a or b)"); as it is where it has none, or
    where its first bracket closes before its end ("(a + b) is above 1")."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and i < len(text) - 1:
            return text
    return text[1:-1]


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
    #: said whole, never cut short: a condition, whose every part decides which rows are kept
    whole: bool = False

    def with_fields(self, fields: Sequence[Field] | None) -> Words:
        return Words(self.model, fields, self.outer, self.lambdas, self.subquery_step, self.whole)

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
        text = handler(self, getattr(e, which))
        return text if self.whole else cut(text)

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
        most 54", by other columns too: "l_commitdate is before l_receiptdate and after l_shipdate"),
        and a condition written twice in a row (two pairs of tables joined on columns of the same
        names) once, with "(twice)"."""
        return self.conditions_of(conjuncts(self, e))

    def conditions_of(self, conjuncts: Sequence[Expression]) -> list[str]:
        """:meth:`conditions` of a list of conjuncts, each said whole (a join's condition too)."""
        if not self.whole:
            return replace(self, whole=True).conditions_of(conjuncts)
        out: list[str] = []
        bounds: list[tuple[str, str, str] | None] = []
        owned: dict[int, str] = {}  # a condition on one column a step tells apart: that column's name
        lone: Expression | None = None  # the last condition, said alone, bounding nothing by a constant
        conjuncts = [part for c in conjuncts for part in shared_conditions(self, c)]
        i = 0
        while i < len(conjuncts):
            c = conjuncts[i]
            i += 1
            # "x is not A and x is not B" in a row: "x is neither A nor B"
            run = i
            while run < len(conjuncts) and same_subject(self, [c, conjuncts[run]], "not_equal")[0] is not None:
                run += 1
            if run > i:
                subject, excluded = same_subject(self, conjuncts[i - 1 : run], "not_equal")
                out.append(said_of(self.expr(subject), f"is {none_of(excluded)}"))
                bounds.append(None)
                i, lone = run, None
                continue
            bound = bound_words(self, c)
            prev = bounds[-1] if bounds else None
            paired = column_bounds(self, lone, c) if lone is not None and bound is None else None
            lone = None
            if paired is not None:
                out[-1] = paired
                continue
            if (
                bound is not None
                and prev is not None
                and prev[0] == bound[0]
                and {prev[1], bound[1]} == {"lower", "upper"}
            ):
                out[-1] = f"{out[-1]} and {bound[2].removeprefix('is ')}"
                bounds[-1] = None
                continue
            text = self.predicate(c)
            # two conditions cut alike at MAX_TEXT may differ after the cut: not "twice"
            if out and not text.endswith("…") and text == out[-1].removesuffix(" (twice)"):
                if _columns_read(c) != _columns_read(conjuncts[i - 2]):  # alike words of other columns
                    out[-1] = f"{text} (twice)"
                    bounds[-1] = None
                # else one condition written twice (TPC-DS q48's IN list and its ORs): said once
                continue
            told = self._step_owned(c)
            if told is not None:
                owned[len(out)] = told
            out.append(text)
            bounds.append(bound)
            lone = c if bound is None else None
        out = _by_steps(out, owned)
        if len(out) > 1:  # alternatives among other conditions: in brackets, or their "and"s run into the list's
            out = [f"({t})" if t.startswith("either ") else t for t in out]
        return out

    def _step_owned(self, c: Expression) -> str | None:
        """The name of the one column condition ``c`` reads where a step tells it apart ("step 26's d_year"),
        else None."""
        if len(_columns_read(c)) != 1:
            return None
        name = self.selection(field_references(c)[0])
        return name if step_owned(name) is not None else None

    def predicate(self, e: Expression) -> str:
        """``e`` in words as a condition: a boolean column by :func:`as_predicate` ("step 23 found a match")."""
        text = self.expr(e)
        return as_predicate(text) if e.WhichOneof("rex_type") == "selection" else text

    def condition(self, e: Expression) -> str:
        """A condition in words, every conjunct said, each whole (a long one is not cut short); one that
        ANDs in a null or false (an optimizer's NOT IN with a null) said to keep no row."""
        whole = self if self.whole else replace(self, whole=True)
        said = whole.conditions_of(condition_parts(self, e))
        # alternatives alone are the whole condition: "where a or b", the brackets that set them apart
        # in a list left without one
        text = unbracketed(said[0]) if len(said) == 1 else and_list(said)
        never = {never_true(c) for c in conjuncts(self, e)} - {None}
        if never:
            return f"{text} (never true: a part of it is {'null' if 'null' in never else 'false'})"
        return text

    # -- one function per expression kind ------------------------------------------------------
    def literal(self, lit: Expression.Literal) -> str:
        return literal_words(lit, self.model.conventions.dialect)

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
                name = f"{name}[{self.literal(child.map_key.map_key)}]"
                t = None
                child = child.map_key.child if child.map_key.HasField("child") else None
            else:
                break
        return prefix + name

    def scalar_function(self, f: Expression.ScalarFunction) -> str:
        name = self.function(f.function_reference)
        special = FUNCTIONS.get(name)
        if special is not None:
            text = special(self, f)
            if text is not None:
                return text
        return f"{name}({', '.join(self.args(f.arguments))})"

    def window_function(self, f: Expression.WindowFunction) -> str:
        name = self.function(f.function_reference)
        key = self.expr(f.sorts[0].expr) if f.sorts else None
        text, frame = framed(
            f, name, aggregate_words(self, name, f.arguments, False, noun=True, options=f.options), key
        )
        parts = [text]
        if f.partitions:
            parts.append("per " + self.partitions(f.partitions))
        if f.sorts:
            parts.append("in order of " + capped_list([self.order_key(s) for s in f.sorts], MAX_ITEMS))
        # phrases as keys: the order set off by a comma, or it reads as one of them
        apart = len(parts) > 2 and " " in parts[1].removeprefix("per ")
        text = (parts[0] + " " + ", ".join(parts[1:])) if apart else " ".join(parts)
        return f"{text}, {frame}" if frame else text

    def partitions(self, exprs) -> str:
        """A window's partition keys, every one (which rows a window spans hangs on each: TPC-DS q47's average
        per year hid its year in "and 2 more"): "o_custkey and o_orderdate"; several that are phrases each
        in brackets ("(a's rollup flag + b's rollup flag) and (i_category when ...)"), which read as one otherwise."""
        items = [self.expr(p) for p in exprs]
        if len(items) > 1:
            items = [f"({t})" if " " in t else t for t in items]
        return and_list(items)

    def order_key(self, s: algebra_pb2.SortField) -> str:
        """A window's order key with its direction: ``o_totalprice (highest first)``; an ascending one too
        (``(lowest first)``), as which rank is 1 (TPC-DS q44's best and worst products) hangs on it."""
        text = self.expr(s.expr)
        text = set_apart(text)  # "(x when y is 0, otherwise null) (lowest first)": the key's, not null's
        if s.WhichOneof("sort_kind") == "direction" and s.direction in (3, 4):  # DESC NULLS FIRST / LAST
            return f"{text} (highest first)"
        if s.WhichOneof("sort_kind") == "direction" and s.direction in (1, 2):  # ASC NULLS FIRST / LAST
            return f"{text} (lowest first)"
        return text

    def if_then(self, e: Expression.IfThen) -> str:
        coalesced = case_coalesce(self, e)
        if coalesced is not None:
            return coalesced
        base = case_base(e)  # DataFusion's CASE x WHEN v: x in a first clause without a result
        if base is not None:
            subject = self.expr(base)
            branches = [
                f"{self.expr(c.then)} when {subject} = null (never true)"
                if never_true(getattr(c, "if")) == "null"  # WHEN NULL matches no row, a null one neither
                else f"{self.expr(c.then)} when {subject} is {self.expr(getattr(c, 'if'))}"
                for c in e.ifs[1:]
            ]
        else:
            branches = [f"{self.expr(c.then)} when {self.expr(getattr(c, 'if'))}" for c in e.ifs]
        # every branch of a short CASE, and of any in a condition; a long one's first three and how many more
        shown = branches if self.whole or len(branches) <= _CASES_SAID else branches[: _CASES_SAID - 1]
        text = ", ".join(shown) + (
            f" and {counted(len(branches) - len(shown), 'more case')}" if len(shown) < len(branches) else ""
        )
        # a CASE without ELSE is null for the other rows
        text += f"{CASE_WORDS}{self.expr(getattr(e, 'else')) if e.HasField('else') else 'null'}"
        return text

    def switch_expression(self, e: Expression.SwitchExpression) -> str:
        return f"a value chosen by {self.expr(e.match)} ({counted(len(e.ifs), 'case')})"

    def singular_or_list(self, e: Expression.SingularOrList) -> str:
        options = [self.expr(o) for o in e.options]
        return said_of(self.expr(e.value), f"is {options_words(options)}")

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
                day = text_date(text)
                return date_words(day) if day is not None else text
            return f"{inner} as a date"
        change = self.cast_change(e)
        if change == "as 1 or 0" and " " in inner:
            inner = f"({inner})"  # a condition's words: "(x is above 3) as 1 or 0"
        return f"{inner} {change}" if change else inner

    def cast_change(self, e: Expression.Cast) -> str:
        """What a cast does to its value in words ("as a whole number": rounded or cut by the engine's rule,
        "as text"), "" for one that keeps the value (a wider type). Known for a field or a literal only."""
        kind, source = e.type.WhichOneof("kind"), self._kind_of(e.input)
        if source is None:
            return ""
        if kind in INTEGER_KINDS and source in ("bool", "boolean"):
            return "as 1 or 0"
        if kind in INTEGER_KINDS and source not in INTEGER_KINDS:
            return "as a whole number"
        if kind in _TEXT_KINDS and source not in _TEXT_KINDS:
            return "as text"
        if (
            kind == "decimal"
            and source in ("fp32", "fp64", "decimal")
            and self._finer_than(e.input, e.type.decimal.scale)
        ):
            scale = e.type.decimal.scale
            return f"rounded to {counted(scale, 'decimal place')}" if scale else "rounded to a whole number"
        return ""

    def _finer_than(self, e: Expression, scale: int) -> bool:
        """Whether a number may have digits beyond ``scale`` decimal places: a constant whose digits as
        said do (0.06 - 0.01 is said 0.05), a decimal of a larger scale, any other float."""
        value = constant_value(self, e)
        if value is not None:
            return beyond_places(value, scale)
        if e.WhichOneof("rex_type") == "literal":
            return False
        t = self._type_of(e)
        while e.WhichOneof("rex_type") == "cast" and t is not None and t.WhichOneof("kind") in ("fp32", "fp64"):
            e = e.cast.input  # a decimal cast to a float and back: its own places are what it holds
            t = self._type_of(e)
        if t is not None and t.WhichOneof("kind") == "decimal":
            return t.decimal.scale > scale
        return scale < FLOAT_PLACES_SAID

    def _kind_of(self, e: Expression) -> str | None:
        """The type kind of the value ``e`` gives where the plan says it (a field, a literal, a cast, a
        function call's output type); None where it does not."""
        if e.WhichOneof("rex_type") == "literal":
            return plain_kind(e.literal) or e.literal.WhichOneof("literal_type")
        t = self._type_of(e)
        return t.WhichOneof("kind") if t is not None else None

    def _type_of(self, e: Expression) -> type_pb2.Type | None:
        """The type of a field, a cast or a function call as the plan says it; None for other expressions."""
        which = e.WhichOneof("rex_type")
        if which == "cast":
            return e.cast.type
        if which == "scalar_function" and e.scalar_function.HasField("output_type"):
            return e.scalar_function.output_type
        i = direct_field(e)
        if i is not None and self.fields is not None and 0 <= i < len(self.fields):
            return self.fields[i].type
        return None

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
            op = COMPARISON_WORDS.get(SET_COMPARISON.get(e.set_comparison.comparison_op, ""), "compares to")
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
