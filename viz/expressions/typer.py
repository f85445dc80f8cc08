"""The expression typer: one visitor (:class:`ExpressionTyper`), one dispatch table on
``Expression.rex_type``; each expression yields a :class:`Typed` against its :class:`Scope`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from substrait import algebra_pb2, type_pb2

from .. import coercion as C
from .. import function_types
from .. import types as T
from ..errors import Diagnostic, error, info, warning
from ..extensions import Extensions, names_the_spec
from ..fields import Field, nested_names_for, struct_members
from .literals import decimal_too_long, literal_text, literal_type
from .references import FieldReferences
from .shapes import FRAMELESS, bound_offset, case_base, sort_direction
from .typed import Scope, Typed

Expression = algebra_pb2.Expression

#: The sort directions the spec defines (not UNSPECIFIED).
_DEFINED_DIRECTIONS = frozenset(v for v in algebra_pb2.SortField.SortDirection.values() if v)


_COMPARISON_OPS = {0: "?", 1: "=", 2: "<>", 3: "<", 4: ">", 5: "<=", 6: ">="}


_Phase = algebra_pb2.AggregationPhase
#: Aggregation phases whose input or output is the function's intermediate state.
_INTERMEDIATE_PHASES = frozenset(
    {
        _Phase.AGGREGATION_PHASE_INITIAL_TO_INTERMEDIATE,
        _Phase.AGGREGATION_PHASE_INTERMEDIATE_TO_INTERMEDIATE,
        _Phase.AGGREGATION_PHASE_INTERMEDIATE_TO_RESULT,
    }
)


#: Functions whose nested calls of themselves mean the same spread out: and(and(a, b), c) is and(a, b, c).
_SPREAD = frozenset({"and", "or"})
#: Comparisons whose two sides being one column is worth a warning: the result then does not depend on it.
_COMPARISONS = frozenset({"equal", "not_equal", "lt", "gt", "lte", "gte", "is_not_distinct_from", "is_distinct_from"})


def _to_text(coercion: C.Coercion) -> bool:
    """Whether a coercion only casts values to text: the call's type is then the plan's (DataFusion's length
    of text is an i32, where the YAMLs' is an i64)."""
    return all(t is None or T.kind(t) in ("string", "varchar", "fixed_char") for t in coercion.targets)


def _call_label(name: str, args: Sequence[Typed]) -> str:
    """A call as a diagnostic names it, its arguments by their labels: ``lte(l_discount, add(0.06, 0.01))``."""
    return _short(f"{name}({', '.join(a.label for a in args)})", 72)


def _short(text: str, limit: int = 48) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: Calls whose value is one of their arguments': a record's member names are those of the arguments.
_ONE_OF_ARGUMENTS = frozenset({"coalesce", "nullif", "nvl", "ifnull", "greatest", "least"})


def _named(typed: Typed) -> bool:
    """Whether ``typed`` carries its record's own member names, not placeholders."""
    return bool(typed.nested) and typed.nested != nested_names_for(typed.type)


def _names_of(values: Sequence[Typed], t: type_pb2.Type | None) -> tuple[str, ...]:
    """The member names of a record that is one of ``values`` (of type ``t``, as they are cast to one
    type): the first value's own names (the producer names the result so), else placeholders."""
    count = T.nested_name_count(t)
    return next((v.nested for v in values if _named(v) and len(v.nested) == count), nested_names_for(t))


def _string_argument(f, i: int) -> str | None:
    """The string literal that is argument ``i`` of call ``f``, or None."""
    if i >= len(f.arguments) or f.arguments[i].WhichOneof("arg_type") != "value":
        return None
    value = f.arguments[i].value
    if value.WhichOneof("rex_type") != "literal" or value.literal.WhichOneof("literal_type") != "string":
        return None
    return value.literal.string


def _call_names(name: str, f, args: Sequence[Typed], t: type_pb2.Type | None) -> tuple[str, ...]:
    """The member names of a call's record result, where its arguments say them: named_struct's literal
    names, or those of the values coalesce and its kin return; placeholders otherwise."""
    count = T.nested_name_count(t)
    if count and name == "named_struct":
        keys = [_string_argument(f, i) for i in range(0, len(args), 2)]
        names = tuple(
            n for key, value in zip(keys, args[1::2]) for n in (key, *(value.nested or nested_names_for(value.type)))
        )
        if None not in keys and len(names) == count:
            return names  # type: ignore[return-value]
    if count and name in _ONE_OF_ARGUMENTS:
        return _names_of(args, t)
    return nested_names_for(t)


def _member_read(name: str, f, args: Sequence[Typed]) -> Field | None:
    """The member a ``get_field(record, 'name', ...)`` reads (a path of names, each of the member before),
    where the record's member names are known: its type is the record's as the run casts it, nullable
    where a record on the path is."""
    if name != "get_field" or len(args) < 2 or not _named(args[0]):
        return None
    m = Field("", args[0].type, args[0].nested)
    nullable = False
    for i in range(1, len(args)):
        if T.kind(m.type) != "struct":
            return None
        nullable = nullable or bool(T.is_nullable(m.type))
        key = _string_argument(f, i)
        hits = [member for member in struct_members(m.type, m.nested) if member.name == key]
        if len(hits) != 1:
            return None
        m = hits[0]
    return m.with_type(T.make_nullable(m.type)) if nullable else m


class ExpressionTyper(FieldReferences):
    """Types and renders the expressions of one node."""

    def __init__(
        self,
        extensions: Extensions,
        node_id: str,
        diagnostics: list[Diagnostic],
        subquery_schema: Callable[[algebra_pb2.Rel], tuple[str, Sequence[Field] | None]],
        dialect: str | None = None,
        *,
        prefer_derived: bool = False,
    ) -> None:
        self.ext = extensions
        #: a call gives the type the extension YAMLs derive even where the plan declares another (the
        #: spec's reading of a plan, beside the plan's own: ``executor.engines.engine_types``)
        self.prefer_derived = prefer_derived
        #: whose implicit coercions the plan's calls follow (``viz.coercion``; None: the producer's are unknown)
        self.dialect = dialect
        #: how the producer's type variations are shown (DataFusion's unsigned ``u8``)
        self.variations = C.variation_names(dialect)
        self.node = node_id
        self.diags = diagnostics
        self.subquery_schema = subquery_schema
        self.used_functions: set[int] = set()
        self.referenced_fields: set[int] = set()
        #: how many subquery boundaries this node's outer references step out, at most (0: none)
        self.outer_steps = 0
        #: every expression typed, by the identity of its message (kept alive here, so the identity
        #: holds): what the executor and the properties pass read instead of typing it again
        self.typed: dict[int, tuple[Expression, Typed]] = {}

    # -- helpers ---------------------------------------------------------------------------
    def _diag(self, d: Diagnostic) -> None:
        self.diags.append(d)

    def _check_type(self, t: type_pb2.Type | None, what: str, lengths: bool = True) -> None:
        why = T.problem(t, lengths)
        if why is not None:
            self._diag(error("invalid-type", f"{what} is not a valid type: {why}", self.node))

    def function_name(self, anchor: int) -> str:
        ref = self.ext.functions.get(anchor)
        self.used_functions.add(anchor)
        if ref is None:
            declared = sorted(self.ext.functions)
            listing = ", ".join(str(a) for a in declared[:20]) or "none"
            self._diag(
                error(
                    "unknown-function",
                    f"function anchor {anchor} is not declared in the plan's extensions (declared anchors: {listing})",
                    self.node,
                )
            )
            return f"fn#{anchor}"
        return ref.name

    def _call_type(
        self, f, what: str, args: Sequence[Typed], member: Field | None = None
    ) -> tuple[type_pb2.Type | None, C.Coercion | None, type_pb2.Type | None]:
        """A function call's type, its arguments checked against the extension YAMLs' signatures.

        Arguments that match no signature get the coercion of the plan's producer (or, when that is
        unknown, Spark's, said as such) and a diagnostic that names the call, its argument types and the
        coercion; a declared output type that the YAML's derivation contradicts gets one too. ``member``:
        the record member a ``get_field`` reads, whose type is the call's (no YAML defines the call). The
        third value is the type the run holds where the schema shows another (a predicate the plan
        declares of another type is a boolean), for the calls that take it as an argument."""
        declared = f.output_type if f.output_type.WhichOneof("kind") is not None else None
        self._check_type(declared, "a call's declared output type")
        ref = self.ext.functions.get(f.function_reference)
        if getattr(f, "phase", 0) in _INTERMEDIATE_PHASES:
            # takes or gives the YAML's intermediate type, not its arguments or return type
            if declared is None:
                self._diag(
                    warning("missing-output-type", f"{what} has no output type; its column type is unknown", self.node)
                )
            return declared, None, None
        if ref is None:
            if declared is None:
                self._diag(
                    warning("missing-output-type", f"{what} has no output type; its column type is unknown", self.node)
                )
            return declared, None, None
        signature = [a.enum if a.enum is not None else (a.held or a.type) for a in args]
        if member is not None:
            derived = function_types.Derived(
                member.type, f"its record's member '{member.name}', as the producer casts the record,"
            )
        else:
            derived = function_types.derive(ref.name, ref.extension, signature)
        coercion = None
        known = all(a is not None for a in signature)
        if derived.type is None and derived.defined and known:
            coercion = self._coerce_call(ref.name, what, args, derived.how)
            if coercion is not None:
                again = self._derive_coerced(ref, signature, coercion)
                if again.type is not None:
                    derived = again
        elif derived.type is not None and declared is None and self.dialect is not None and known:
            # The plan leaves the type to the YAMLs, but its producer's engine may read the call otherwise
            # (DataFusion averages integers in double, where the YAMLs' avg of an i32 is an i32).
            theirs = self._producer_coercion(ref.name, args)
            again = self._derive_coerced(ref, signature, theirs) if theirs is not None else None
            result = C.producer_result(self.dialect, ref.name, [a.type for a in args if a.enum is None])
            if result is not None and again is None and result[0] != derived.type:
                self._diag(
                    warning(
                        "producer-semantics",
                        f"{what} is {self._type(derived.type)} by {derived.how}, but {result[1]}; the schema and the "
                        "run follow the producer",
                        self.node,
                    )
                )
                derived = function_types.Derived(result[0], result[1])
            if again is not None and again.type is not None and again.type != derived.type:
                self._diag(
                    warning(
                        "producer-semantics",
                        f"{what} is {self._type(derived.type)} by {derived.how}, but the plan's producer reads it "
                        f"otherwise ({theirs.rule}), giving {self._type(again.type)}; the run follows the producer",
                        self.node,
                    )
                )
                coercion, derived = theirs, again
        if declared is not None:
            if not derived.defined:
                # no YAML defines the call (DataFusion's nvl2), but its producer's rule for its arguments may be known
                theirs = self._producer_coercion(ref.name, args) if known and self.dialect is not None else None
                coercion = theirs or coercion
                taken = f"the plan's {self._type(declared)} is taken" + (
                    f"; {self._runs_with(theirs)}" if theirs is not None else ""
                )
                if names_the_spec(ref.extension):  # not a producer's own function: a misspelt or newer one
                    self._diag(
                        warning(
                            "undefined-function",
                            f"{what}: the plan declares {ref.name} in the spec's extensions ({ref.extension}), "
                            f"but {derived.how}; its argument types cannot be checked, and {taken}",
                            self.node,
                        )
                    )
                else:
                    self._diag(
                        info(
                            "no-signature",
                            f"{what}: {derived.how}, so its argument types cannot be checked; {taken}",
                            self.node,
                        )
                    )
            # a producer's dictionary of the derived type holds it (DataFusion's upper of a dictionary is one)
            values = C.dictionary_values(declared, self.dialect)
            conflict = derived.type is not None and not T.same_type_ignoring_nullability(
                values if values is not None else declared, derived.type
            )
            # DataFusion's engine types a call from its arguments as it casts them, whatever the plan declares:
            # its written plans can declare a kind from before the casts (an integer product of a union whose
            # first input is an integer, the others doubles); a decimal's digits are the plan's to say
            engine_derives = (
                conflict
                and self.dialect == "datafusion"
                and (
                    member is not None
                    or (coercion is not None and T.kind(declared) != T.kind(derived.type) and not _to_text(coercion))
                )
            )
            if conflict:
                if T.kind(derived.type) == "bool":
                    follows = "the schema shows the plan's type; the run keeps the predicate's boolean"
                elif engine_derives:
                    taken = "the member's type" if member is not None else "the type of the arguments as it casts them"
                    follows = (
                        f"DataFusion's engine takes {taken}, and so do the schema and the run "
                        f"({self._type(derived.type)})"
                    )
                else:
                    follows = f"the schema and the run take the plan's {self._type(declared)}"
                self._diag(
                    warning(
                        "output-type-conflict",
                        f"{what} declares its output {self._type(declared)}, but {derived.how} gives "
                        f"{self._type(derived.type)}; {follows}",
                        self.node,
                    )
                )
            if (self.prefer_derived or engine_derives) and derived.type is not None:
                return derived.type, coercion, None
            held = derived.type if conflict and T.kind(derived.type) == "bool" else values
            return declared, coercion, held
        if derived.type is not None:
            # the YAMLs know no variations: max of DataFusion's u8 is its u8, not an i8
            derived = replace(derived, type=C.kept_unsigned(derived.type, [a.type for a in args], self.dialect))
            after = " with the arguments as the producer casts them" if coercion is not None else ""
            self._diag(
                info(
                    "missing-output-type",
                    f"{what} has no output type; {self._type(derived.type)} is derived from {derived.how}{after}",
                    self.node,
                )
            )
            return derived.type, coercion, None
        self._diag(
            warning(
                "missing-output-type",
                f"{what} has no output type and it cannot be derived ({derived.how}); its column type is unknown",
                self.node,
            )
        )
        return None, coercion, None

    def _type(self, t: type_pb2.Type | None) -> str:
        """A type as the plan spells it: its user-defined types by name, its producer's variations by theirs."""
        return T.render(t, user_types=self.ext.types, variations=self.variations)

    def _producer_coercion(self, name: str, args: Sequence[Typed]) -> C.Coercion | None:
        values = [a.type for a in args if a.enum is None]
        return C.call_coercion(self.dialect or "spark", name.lower(), values, user_types=self.ext.types)

    def _derive_coerced(self, ref, signature: list, coercion: C.Coercion) -> function_types.Derived:
        """The YAMLs' derivation of a call whose value arguments are cast as ``coercion`` says."""
        targets = iter(coercion.targets)
        coerced = [a if isinstance(a, str) else (next(targets, None) or a) for a in signature]
        return function_types.derive(ref.name, ref.extension, coerced)

    def _coerce_call(self, name: str, what: str, args: Sequence[Typed], why: str) -> C.Coercion | None:
        """The coercion a call whose arguments match no signature runs with, and its diagnostic."""
        coercion = self._producer_coercion(name, args)
        self._diag(warning("no-matching-signature", f"{what}: {why}; {self._runs_with(coercion)}", self.node))
        return coercion

    def _runs_with(self, coercion: C.Coercion | None) -> str:
        """What a run does with values whose types the spec does not reconcile, and on whose word."""
        if self.dialect is not None:
            whose = C.DIALECT_NAMES.get(self.dialect, self.dialect)
            if coercion is None:
                return (
                    f"no rule of {whose}'s (the plan's producer) for these types is known here: the run "
                    "passes them to Spark as they are"
                )
            return f"the run follows the plan's producer: {coercion.rule}"
        unknown = (
            "the implicit coercions of the plan's producer are not known here, and the spec allows no implicit coercion"
        )
        if coercion is None:
            return f"{unknown}: the run passes the values to Spark as they are"
        return f"{unknown}, so the run follows Spark: {coercion.rule}"

    # -- entry -----------------------------------------------------------------------------
    def expr(self, e: Expression, scope: Scope) -> Typed:
        which = e.WhichOneof("rex_type")
        handler = _DISPATCH.get(which)
        if handler is None:
            if which is None:
                self._diag(error("empty-expression", "an expression has no content", self.node))
                typed = Typed(None, "?", "?")
            else:
                self._diag(warning("unsupported-expression", f"expression kind {which} is not understood", self.node))
                typed = Typed(None, f"<{which}>", which)
        else:
            typed = handler(self, getattr(e, which), scope)
        self.typed[id(e)] = (e, typed)
        return typed

    def args(self, arguments, scope: Scope) -> list[Typed]:
        out = []
        for a in arguments:
            k = a.WhichOneof("arg_type")
            if k == "value":
                out.append(self.expr(a.value, scope))
            elif k == "type":
                text = T.render(a.type)
                out.append(Typed(a.type, text, text))
            elif k == "enum":
                out.append(Typed(None, a.enum, a.enum, enum=a.enum))
            else:
                out.append(Typed(None, "?", "?"))
        return out

    def sort_field(self, s: algebra_pb2.SortField, scope: Scope) -> str:
        t = self.expr(s.expr, scope)
        if s.WhichOneof("sort_kind") == "comparison_function_reference":
            return f"{t.text} USING {self.function_name(s.comparison_function_reference)}"
        if s.direction not in _DEFINED_DIRECTIONS:  # unset, or a number a binary plan kept
            what = (
                "has no direction"
                if s.direction == 0
                else f"has direction number {s.direction}, not one the spec defines"
            )
            self._diag(
                error(
                    "unknown-sort-direction",
                    f"the sort on {t.text} {what}: which way the rows go cannot be known (expected ASC or DESC, "
                    "nulls first or last, or CLUSTERED)",
                    self.node,
                )
            )
        direction = sort_direction(s.direction)
        return f"{t.text} {direction}".strip()

    # -- field references --------------------------------------------------------------------
    # -- functions -----------------------------------------------------------------------------
    def scalar_function(self, f: Expression.ScalarFunction, scope: Scope) -> Typed:
        name = self.function_name(f.function_reference)
        args = self.args(f.arguments, scope)
        if name in _COMPARISONS and len(args) == 2 and args[0].text == args[1].text and args[0].text.startswith("$"):
            # TPC-DS q78 has ``cs_item_sk = cs_item_sk`` where ``ss_item_sk`` was meant: plans carry such slips
            self._diag(
                warning(
                    "self-comparison",
                    f"{name}({args[0].text}, {args[1].text}) compares a column with itself: its result does not "
                    "depend on the column's value (a slip in the query, or in its producer?)",
                    self.node,
                )
            )
        member = _member_read(name, f, args)
        t, coercion, held = self._call_type(f, f"scalar function {_call_label(name, args)}", args, member)
        return self._call_typed(
            f,
            Typed(
                t,
                f"{name}({', '.join(a.text for a in args)})",
                _short(f"{name}({', '.join(a.label for a in args)})"),
                member.nested if member is not None else _call_names(name, f, args, t),
                coercion=coercion,
                operands=self._operands(name, f, args),
                function=name,
                held=held,
            ),
        )

    def _bound(self, b, default: str, scope: Scope) -> str:
        """A window bound as SQL writes it; an offset that is not an integer literal by its text (an interval)."""
        which = b.WhichOneof("kind")
        if which in ("preceding", "following"):
            side = getattr(b, which)
            n = bound_offset(side)
            shown = str(n) if n is not None else self.expr(side.offset_expr, scope).text
            return f"{shown} {which.upper()}"
        return "CURRENT ROW" if which == "current_row" else default

    def _operands(self, name: str, f: Expression.ScalarFunction, args: list[Typed]) -> tuple[str, ...]:
        """For ``and`` / ``or``: the texts of the conditions it joins, a nested call of the same function
        spread out (see :attr:`Typed.operands`); nothing for any other function."""
        if name not in _SPREAD:
            return ()
        out: list[str] = []
        for argument, a in zip(f.arguments, args):
            value = argument.value if argument.WhichOneof("arg_type") == "value" else None
            same = (
                value is not None
                and value.WhichOneof("rex_type") == "scalar_function"
                and self.function_name(value.scalar_function.function_reference) == name
            )
            out.extend(a.operands if same and a.operands else (a.text,))
        return tuple(out)

    def _call_typed(self, f, typed: Typed) -> Typed:
        """``typed``, also kept under the message of the call (or CASE, IN list) itself: the executor
        reads its coercion, or the type it takes where the plan declares another or none, there."""
        declared = getattr(f, "output_type", None)
        # a call without a declared type (DataFusion's aggregates and windows) takes the one derived here
        retyped = declared is not None and (declared.WhichOneof("kind") is None or typed.type != declared)
        if typed.coercion is not None or (retyped and typed.type is not None):
            self.typed[id(f)] = (f, typed)
        return typed

    def aggregate_function(self, f: algebra_pb2.AggregateFunction, scope: Scope) -> Typed:
        name = self.function_name(f.function_reference)
        args = self.args(f.arguments, scope)
        distinct = "DISTINCT " if f.invocation == algebra_pb2.AggregateFunction.AGGREGATION_INVOCATION_DISTINCT else ""
        order = ""
        if f.sorts:
            order = " ORDER BY " + ", ".join(self.sort_field(s, scope) for s in f.sorts)
        t, coercion, _ = self._call_type(f, f"aggregate function {_call_label(name, args)}", args)
        text = f"{name}({distinct}{', '.join(a.text for a in args)}{order})"
        label = _short(f"{name}({distinct}{', '.join(a.label for a in args)})")
        return self._call_typed(f, Typed(t, text, label, nested_names_for(t), coercion=coercion))

    def window_function(self, f, scope: Scope, rel_window: Sequence[str] = ()) -> Typed:
        """A window function's call with its OVER clause; ``rel_window``: the PARTITION BY and ORDER BY of
        the relation it belongs to (a ConsistentPartitionWindowRel's function has none of its own)."""
        name = self.function_name(f.function_reference)
        args = self.args(f.arguments, scope)
        over = list(rel_window)
        partitions = getattr(f, "partitions", None)
        if partitions:
            over.append("PARTITION BY " + ", ".join(self.expr(p, scope).text for p in partitions))
        sorts = getattr(f, "sorts", None)
        if sorts:
            over.append("ORDER BY " + ", ".join(self.sort_field(s, scope) for s in sorts))
        if f.HasField("lower_bound") or f.HasField("upper_bound"):
            rows = "RANGE" if f.bounds_type == 2 else "ROWS"
            over.append(
                f"{rows} BETWEEN {self._bound(f.lower_bound, 'UNBOUNDED PRECEDING', scope)} AND "
                f"{self._bound(f.upper_bound, 'UNBOUNDED FOLLOWING', scope)}"
            )
        elif any(o.startswith("ORDER BY") for o in over) and name not in FRAMELESS:
            # no bound is the whole partition (the spec), which SQL's ORDER BY alone would not say
            over.append("ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING")
        t, coercion, _ = self._call_type(f, f"window function {_call_label(name, args)}", args)
        distinct = "DISTINCT " if f.invocation == algebra_pb2.AggregateFunction.AGGREGATION_INVOCATION_DISTINCT else ""
        text = f"{name}({distinct}{', '.join(a.text for a in args)}) OVER ({' '.join(over)})"
        label = _short(f"{name}({distinct}{', '.join(a.label for a in args)})")
        return self._call_typed(f, Typed(t, text, label, nested_names_for(t), coercion=coercion))

    # -- conditionals --------------------------------------------------------------------------
    def unify(
        self,
        values: Sequence[type_pb2.Type | None],
        what: str,
        context: str,
        has_else: bool = True,
        strict: bool = False,
    ) -> tuple[type_pb2.Type | None, C.Coercion | None]:
        """The one type of values that must share one (``context``: CASE branches, an IN list, set
        inputs' columns, ...): the type they agree on, or the plan's producer's common type with the
        casts that reach it (said in a diagnostic). A producer's untyped NULL takes the others' type.
        Types no rule reconciles are a warning, an error when ``strict`` (the spec requires one type)."""
        known = [t for t in values if t is not None]
        if len(known) > 1 and not all(T.same_type_ignoring_nullability(known[0], t) for t in known[1:]):
            # a producer's dictionary among other types is its values (its engine casts them so)
            values = [C.dictionary_values(t, self.dialect) or t for t in values]
        nulls = [T.is_null_type(t, self.ext.types) for t in values]
        real = [t for t, null in zip(values, nulls) if t is not None and not null]
        if not real:
            return next((t for t in values if t is not None), None), None
        nullable = any(nulls) or any(bool(T.is_nullable(t)) for t in real)
        coercion = C.unify(
            self.dialect or "spark", values, context=context, has_else=has_else, user_types=self.ext.types
        )
        agree = all(T.same_type_ignoring_nullability(real[0], t) for t in real[1:])
        within = [T.nullable_within(T.with_nullability(t, False)) for t in real]
        if not agree and all(w == within[0] for w in within[1:]):  # they differ only in what may be null inside
            return T.with_nullability(within[0], nullable), None
        shown = "" if agree else ", ".join(self._type(t) for t in values if t is not None)
        if coercion is None:
            if not agree:
                self._diag(
                    (error if strict else warning)(
                        "type-mismatch", f"{what} disagree: {shown}; no rule reconciles them", self.node
                    )
                )
            return T.with_nullability(real[0], nullable), None
        common = next((t for t in coercion.targets if t is not None), real[0])
        if not agree:
            message = f"{what} differ in type ({shown}); {self._runs_with(coercion)}"
            if strict and self.dialect is None:  # the spec's rule is broken, and no producer's rule stands in
                self._diag(error("type-mismatch", message, self.node))
            else:
                self._diag(warning("implicit-coercion", message, self.node))
        return T.with_nullability(common, nullable), coercion

    def _branches(
        self, results: list[Typed], has_else: bool, what: str
    ) -> tuple[type_pb2.Type | None, C.Coercion | None]:
        t, coercion = self.unify([r.type for r in results], f"{what} branches", "case", has_else)
        if t is not None and not has_else:
            t = T.with_nullability(t, True)
        return t, coercion

    def if_then(self, e: Expression.IfThen, scope: Scope) -> Typed:
        parts, results, labels = [], [], []
        base = case_base(e)
        clauses = list(e.ifs)
        head = "CASE"
        if base is not None:
            self._diag(
                info(
                    "producer-convention",
                    "an if-then whose first clause has a condition but no result is read as DataFusion writes "
                    "CASE x WHEN v THEN r: the first clause holds x and each later clause's condition is a value v",
                    self.node,
                )
            )
            match = self.expr(base, scope)
            head = f"CASE {match.text}"
            clauses = clauses[1:]
        for clause in clauses:
            cond = self.expr(clause.__getattribute__("if"), scope)
            then = self.expr(clause.then, scope)
            parts.append(f"WHEN {cond.text} THEN {then.text}")
            labels.append(f"{cond.label}→{then.label}")
            results.append(then)
        has_else = self._else(e, scope, parts, results)
        t, coercion = self._branches(results, has_else, "if-then")
        text, label = f"{head} {' '.join(parts)} END", _short("case(" + ", ".join(labels) + ")")
        return self._call_typed(e, Typed(t, text, label, _names_of(results, t), coercion=coercion))

    def _else(self, e, scope: Scope, parts: list[str], results: list[Typed]) -> bool:
        """An if-then's or a switch's ELSE branch, added to ``parts`` and ``results``; whether there is one."""
        if not e.HasField("else"):
            return False
        other = self.expr(getattr(e, "else"), scope)
        parts.append(f"ELSE {other.text}")
        results.append(other)
        return True

    def switch_expression(self, e: Expression.SwitchExpression, scope: Scope) -> Typed:
        match = self.expr(e.match, scope)
        parts, results = [], []
        for clause in e.ifs:
            value = literal_text(getattr(clause, "if"))
            then = self.expr(clause.then, scope)
            parts.append(f"WHEN {value} THEN {then.text}")
            results.append(then)
        has_else = self._else(e, scope, parts, results)
        t, coercion = self._branches(results, has_else, "switch")
        text, label = f"CASE {match.text} {' '.join(parts)} END", _short(f"switch({match.label})")
        return self._call_typed(e, Typed(t, text, label, _names_of(results, t), coercion=coercion))

    def singular_or_list(self, e: Expression.SingularOrList, scope: Scope) -> Typed:
        value = self.expr(e.value, scope)
        options = [self.expr(o, scope) for o in e.options]
        nullable = any(T.is_nullable(x.type) for x in [value, *options])
        _, coercion = self.unify([x.type for x in [value, *options]], "an IN list's value and options", "in")
        return self._call_typed(
            e,
            Typed(
                T.boolean(bool(nullable)),
                f"{value.text} IN ({', '.join(o.text for o in options)})",
                _short(f"{value.label} in ({', '.join(o.label for o in options)})"),
                coercion=coercion,
            ),
        )

    def multi_or_list(self, e: Expression.MultiOrList, scope: Scope) -> Typed:
        values = [self.expr(v, scope) for v in e.value]
        options = ["(" + ", ".join(self.expr(f, scope).text for f in rec.fields) + ")" for rec in e.options]
        text = f"({', '.join(v.text for v in values)}) IN ({', '.join(options)})"
        return Typed(T.boolean(True), text, _short(f"({', '.join(v.label for v in values)}) in (…)"))

    def cast(self, e: Expression.Cast, scope: Scope) -> Typed:
        inner = self.expr(e.input, scope)
        if e.type.WhichOneof("kind") is None:
            self._diag(error("missing-type", "a cast has no target type", self.node))
            return Typed(None, f"cast({inner.text} AS ?)", inner.label)
        target = e.type
        self._check_type(target, "a cast's target type")
        behaviour = {1: " OR NULL", 2: " OR ERROR"}.get(e.failure_behavior, "")
        # A cast that returns null on failure yields a nullable result.
        if e.failure_behavior == 1:
            target = T.with_nullability(target, True)
        return Typed(
            target,
            f"cast({inner.text} AS {self._type(e.type)}{behaviour})",
            inner.label,
            inner.nested,
        )

    # -- subqueries ----------------------------------------------------------------------------
    def subquery(self, e: Expression.Subquery, scope: Scope) -> Typed:
        which = e.WhichOneof("subquery_type")
        if which == "scalar":
            node_id, fields = self.subquery_schema(e.scalar.input)
            t = None
            if fields is not None:
                if len(fields) != 1:
                    self._diag(
                        error(
                            "type-mismatch",
                            f"a scalar subquery must return one column; subquery {node_id} returns {len(fields)}",
                            self.node,
                        )
                    )
                elif fields[0].type is not None:
                    t = T.make_nullable(fields[0].type)  # an empty subquery yields null
            return Typed(t, f"(subquery {node_id})", f"subquery_{node_id}")
        if which == "in_predicate":
            node_id, fields = self.subquery_schema(e.in_predicate.haystack)
            needles = [self.expr(n, scope) for n in e.in_predicate.needles]
            text = f"({', '.join(n.text for n in needles)}) IN (subquery {node_id})"
            # the value and the subquery's column compared as an IN list's value and options are
            coercion = self._subquery_coercion([n.type for n in needles], fields, "an IN subquery's value and column")
            return self._call_typed(
                e.in_predicate,
                Typed(
                    T.boolean(True),
                    text,
                    _short(f"{', '.join(n.label for n in needles)} in subquery"),
                    coercion=coercion,
                ),
            )
        if which == "set_predicate":
            node_id, _ = self.subquery_schema(e.set_predicate.tuples)
            op = {1: "EXISTS", 2: "UNIQUE"}.get(e.set_predicate.predicate_op, "EXISTS?")
            return Typed(T.boolean(False), f"{op} (subquery {node_id})", f"{op.lower()}_{node_id}")
        if which == "set_comparison":
            node_id, fields = self.subquery_schema(e.set_comparison.right)
            left = self.expr(e.set_comparison.left, scope)
            op = _COMPARISON_OPS.get(e.set_comparison.comparison_op, "?")
            red = {1: "ANY", 2: "ALL"}.get(e.set_comparison.reduction_op, "?")
            coercion = self._subquery_coercion([left.type], fields, f"{op} {red}'s value and subquery column")
            return self._call_typed(
                e.set_comparison,
                Typed(
                    T.boolean(True),
                    f"{left.text} {op} {red} (subquery {node_id})",
                    f"{left.label} {op} {red.lower()}",
                    coercion=coercion,
                ),
            )
        self._diag(error("empty-expression", "a subquery expression has no kind", self.node))
        return Typed(None, "(subquery ?)", "subquery")

    def _subquery_coercion(self, values: list, fields, what: str) -> C.Coercion | None:
        """The casts a comparison of one value with a subquery's one column runs with (targets: the
        value's, then the column's); None for several values or a column of unknown type."""
        if len(values) != 1 or not fields or len(fields) != 1 or fields[0].type is None:
            return None
        return self.unify([values[0], fields[0].type], what, "in")[1]

    # -- literals and constructors ----------------------------------------------------------
    def literal(self, lit: Expression.Literal, scope: Scope) -> Typed:
        t = literal_type(lit)
        # an empty string's type is fixed_char<0> (isthmus writes every string as a fixed_char): its length
        # is the value's own, so only the type's other bounds are checked
        self._check_type(t, "a literal's type", lengths=False)
        too_long = decimal_too_long(lit)
        if too_long is not None:
            self._diag(error("invalid-literal", too_long, self.node))
        text = literal_text(lit, self.ext.types, self.dialect)
        return Typed(t, text, _short(text, 24), nested_names_for(t))

    def nested(self, e: Expression.Nested, scope: Scope) -> Typed:
        nullability = T.NULLABLE if e.nullable else T.REQUIRED
        which = e.WhichOneof("nested_type")
        if which == "struct":
            items = [self.expr(f, scope) for f in e.struct.fields]
            known = all(i.type is not None for i in items)
            t = (
                type_pb2.Type(struct=type_pb2.Type.Struct(types=[i.type for i in items], nullability=nullability))
                if known
                else None
            )
            return Typed(t, "{" + ", ".join(i.text for i in items) + "}", "struct", nested_names_for(t))
        if which == "list":
            items = [self.expr(v, scope) for v in e.list.values]
            t = None
            if items and items[0].type is not None:
                t = type_pb2.Type(list=type_pb2.Type.List(type=items[0].type, nullability=nullability))
            return Typed(t, "[" + ", ".join(i.text for i in items) + "]", "list")
        if which == "map":
            pairs = [(self.expr(kv.key, scope), self.expr(kv.value, scope)) for kv in e.map.key_values]
            t = None
            if pairs and pairs[0][0].type is not None and pairs[0][1].type is not None:
                t = type_pb2.Type(
                    map=type_pb2.Type.Map(key=pairs[0][0].type, value=pairs[0][1].type, nullability=nullability)
                )
            return Typed(t, "map{" + ", ".join(f"{k.text}: {v.text}" for k, v in pairs) + "}", "map")
        return Typed(None, "?", "?")

    def dynamic_parameter(self, e: algebra_pb2.DynamicParameter, scope: Scope) -> Typed:
        t = e.type if e.type.WhichOneof("kind") else None
        return Typed(t, f"?{e.parameter_reference}", f"param{e.parameter_reference}")

    def execution_context_variable(self, e: Expression.ExecutionContextVariable, scope: Scope) -> Typed:
        which = e.WhichOneof("execution_context_variable_type") or "context"
        t = None
        body = getattr(e, which, None)
        if which == "current_date":
            t = type_pb2.Type(date=body)
        elif which == "current_timezone":
            t = type_pb2.Type(string=body)
        elif which == "current_timestamp":
            t = type_pb2.Type(precision_timestamp_tz=body)
        return Typed(t, which, which)

    def lambda_(self, e: Expression.Lambda, scope: Scope) -> Typed:
        scope.lambdas.append(e.parameters)
        try:
            body = self.expr(e.body, scope)
        finally:
            scope.lambdas.pop()
        params = ", ".join(f"p{i}: {T.render(t)}" for i, t in enumerate(e.parameters.types))
        t = None
        if body.type is not None:
            t = type_pb2.Type(
                func=type_pb2.Type.Func(
                    parameter_types=list(e.parameters.types), return_type=body.type, nullability=T.REQUIRED
                )
            )
        return Typed(t, f"({params}) -> {body.text}", "lambda")

    def lambda_invocation(self, e: Expression.LambdaInvocation, scope: Scope) -> Typed:
        fn = self.lambda_(getattr(e, "lambda"), scope)
        args = [self.expr(a, scope) for a in e.arguments.fields]
        t = fn.type.func.return_type if fn.type is not None else None
        return Typed(t, f"({fn.text})({', '.join(a.text for a in args)})", "lambda_call")

    def detached_expression_ordinal(self, e, scope: Scope) -> Typed:
        return Typed(None, f"detached#{e}", f"detached{e}")


_DISPATCH: dict[str, Callable[[ExpressionTyper, object, Scope], Typed]] = {
    "literal": ExpressionTyper.literal,
    "selection": ExpressionTyper.selection,
    "scalar_function": ExpressionTyper.scalar_function,
    "window_function": ExpressionTyper.window_function,
    "if_then": ExpressionTyper.if_then,
    "switch_expression": ExpressionTyper.switch_expression,
    "singular_or_list": ExpressionTyper.singular_or_list,
    "multi_or_list": ExpressionTyper.multi_or_list,
    "cast": ExpressionTyper.cast,
    "subquery": ExpressionTyper.subquery,
    "nested": ExpressionTyper.nested,
    "dynamic_parameter": ExpressionTyper.dynamic_parameter,
    "lambda": ExpressionTyper.lambda_,
    "lambda_invocation": ExpressionTyper.lambda_invocation,
    "execution_context_variable": ExpressionTyper.execution_context_variable,
    "detached_expression_ordinal": ExpressionTyper.detached_expression_ordinal,
}
