"""Substrait expressions as PySpark columns.

One dispatch table on ``Expression.rex_type``. Expressions read a :class:`Record`: the incoming
record's fields as Spark columns in order (the translator names every column positionally, so a
field reference is an index into that list), plus the records of enclosing queries for outer
references (correlated subqueries use Spark's ``Column.outer()``). Function calls go through
``executor.translate.functions`` with the Substrait types of their arguments, typed by the plan model's own
expression typer, so the translation reads the plan exactly as the inspector shows it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass, field
from typing import Protocol

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql import types as S
from substrait import algebra_pb2, type_pb2

from viz.coercion import UNSIGNED_VARIATION, is_unsigned, unsigned_value
from viz.expressions import ExpressionTyper, Scope, case_base, signed_bound
from viz.fields import Field
from viz.model import PlanModel
from viz.types import is_null_type, render
from viz.words import counted

from ..errors import ExecutionError, Unsupported
from ..spark.jvm import col as jcol
from ..spark.jvm import sql_type
from . import literals, records, subqueries, text_values
from .casts import (
    ARROW_ZONE,
    BELOW_A_MICROSECOND,
    INT_KINDS,
    INTERVAL_KINDS,
    TEXT_KINDS,
    TIMESTAMP_KINDS,
    ZONED_KINDS,
    days_to_date,
    fits,
    float_to_decimal,
    folded_cast,
    is_text,
    may_not_fit,
    producer_cast,
    producer_text,
    stops_where_lost,
)
from .functions._common import INT_MAX, _kind, second_digits
from .types import DURATION_VARIATION, MICROSECONDS_KEPT, UNSIGNED_HELD_IN, to_spark

Expression = algebra_pb2.Expression

#: Functions whose result from DataFusion's unsigned integers stays in their range or leaves them (by name,
#: resolved): comparisons, null tests, bitwise and/or/xor and shifts right, and the aggregates that pick or
#: add up values (a sum of them is a u64 or wider).
UNSIGNED_SAFE = frozenset(
    {
        "equal", "not_equal", "lt", "lte", "gt", "gte", "is_distinct_from", "is_not_distinct_from", "between",
        "is_null", "is_not_null", "coalesce", "bitwise_and", "bitwise_or", "bitwise_xor", "shift_right",
        "min", "max", "count", "approx_distinct", "sum", "avg", "any_value", "first_value", "last_value",
        "nth_value", "lag", "lead", "greatest", "least", "nullif",
    }
)  # fmt: skip
#: Functions that take a time of day (Spark's TIME) as DataFusion's engine does (by name, resolved); extract and
#: date_trunc check their part or unit (``datetimes``).
TIME_OF_DAY_SAFE = frozenset(
    {
        "equal", "not_equal", "lt", "lte", "gt", "gte", "is_distinct_from", "is_not_distinct_from", "between",
        "is_null", "is_not_null", "coalesce", "nullif", "min", "max", "count", "approx_count_distinct", "any_value",
        "first_value", "last_value", "nth_value", "lag", "lead", "extract", "date_trunc",
    }
)  # fmt: skip
_INVOCATION_DISTINCT = algebra_pb2.AggregateFunction.AGGREGATION_INVOCATION_DISTINCT


class NamedColumns(SequenceABC):
    """The columns ``F.col(name)`` for ``names`` (with ``.outer()`` applied ``outer`` times), each
    made on first use.

    Making a Column costs Py4J round trips on a classic session, and a record usually has many
    more fields than its node's expressions read.
    """

    def __init__(self, names: Sequence[str], outer: int = 0) -> None:
        self.names = list(names)
        self.outer_depth = outer
        self._made: dict[int, Column] = {}

    def __len__(self) -> int:
        return len(self.names)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self.names)))]
        if i < 0:
            i += len(self.names)
        if not 0 <= i < len(self.names):
            raise IndexError(i)
        col = self._made.get(i)
        if col is None:
            col = jcol(self.names[i])
            for _ in range(self.outer_depth):
                col = col.outer()
            self._made[i] = col
        return col


@dataclass
class Record:
    """What field references resolve against: one Spark column per field, and the fields' types."""

    columns: Sequence[Column]
    fields: Sequence[Field] | None = None
    df: DataFrame | None = None  # the DataFrame the columns live in (for positional struct access)

    @classmethod
    def of(cls, names: Sequence[str], fields: Sequence[Field] | None, df: DataFrame | None = None) -> Record:
        return cls(NamedColumns(names), fields, df)

    def outer(self) -> Record:
        """The same record seen from inside a subquery."""
        if isinstance(self.columns, NamedColumns):
            return Record(NamedColumns(self.columns.names, self.columns.outer_depth + 1), self.fields, None)
        return Record([c.outer() for c in self.columns], self.fields, None)


def _call_text(call) -> str:
    """A call as people read it: its name and its arguments' types (``lte(decimal<15,2>, fp64)``)."""
    return f"{_functions().base_name(call.name)}({', '.join(render(t) for t in call.arg_types)})"


def _functions():
    from . import functions  # helper C's module; imported late so this module loads without it

    return functions


class RelTranslator(Protocol):
    """What translating an expression needs of the relations' translator (``executor.translate.rel``):
    the plan, a subquery's DataFrame and the names of its columns, and a place for warnings."""

    @property
    def model(self) -> PlanModel: ...

    def subquery(
        self, sub_id: str, outer: tuple[Record, ...], prefix: str | None = None
    ) -> tuple[DataFrame, list[str]]: ...

    def warn(self, message: str) -> None: ...


@dataclass
class ExprTranslator:
    """Translates the expressions of one node against its incoming record."""

    tr: RelTranslator
    node_id: str
    record: Record
    outer: tuple[Record, ...] = ()
    _typer: ExpressionTyper | None = field(default=None, repr=False)
    # The Column of each expression translated so far, by its bytes: an expression written twice
    # (``substring(c_phone, 1, 2)`` in each of an IN list's equalities) is built once, since each
    # Column costs Py4J round trips. Keys are made up to a budget of bytes, so that a very deep
    # expression is not serialized once per level.
    _made: dict[bytes, Column] = field(default_factory=dict, repr=False)
    _key_budget: int = field(default=1 << 20, repr=False)
    _subqueries: int = field(default=0, repr=False)

    # -- typing (for function calls) ------------------------------------------------------------
    @property
    def typer(self) -> ExpressionTyper:
        if self._typer is None:
            model = self.tr.model
            node = model.graph.nodes[self.node_id]

            def subquery_schema(rel):
                sub = node.subquery_rels.get(id(rel))
                return (sub, model.infos[sub].schema) if sub in model.infos else ("?", None)

            self._typer = ExpressionTyper(
                model.extensions, self.node_id, [], subquery_schema, model.conventions.dialect
            )
        return self._typer

    def type_of(self, e: Expression) -> type_pb2.Type | None:
        """``e``'s type as the model typed it (the schema pass); typed here only when it did not."""
        info = self.tr.model.infos.get(self.node_id)
        known = info.typed_expression(e) if info is not None else None
        if known is not None:
            return known.type
        scope = Scope(self.record.fields, tuple(r.fields for r in self.outer))
        try:
            return self.typer.expr(e, scope).type
        except Exception:  # typing is best effort; the call still runs with an unknown type
            return None

    # -- entry --------------------------------------------------------------------------------
    def expr(self, e: Expression) -> Column:
        which = e.WhichOneof("rex_type")
        handler = _DISPATCH.get(which or "")
        if handler is None:
            raise Unsupported(f"expression kind `{which or 'unset'}` is not supported (node {self.node_id})")
        if which not in _SHARED or self._key_budget <= 0:
            return handler(self, getattr(e, which))
        key = e.SerializeToString(deterministic=True)
        self._key_budget -= len(key)
        made = self._made.get(key)
        if made is not None:
            return made
        subqueries = self._subqueries
        made = handler(self, getattr(e, which))
        if self._subqueries == subqueries:  # a subquery's Column is its own (Spark gives it an id)
            self._made[key] = made
        return made

    def condition(self, e: Expression) -> Column:
        """A boolean condition, with a top-level ``and`` split into Spark's own conjunction, so that
        Spark's optimizer sees each conjunct (to turn cross joins into equi-joins and decorrelate
        subqueries conjunct by conjunct)."""
        if e.WhichOneof("rex_type") == "scalar_function":
            f = e.scalar_function
            ref = self.tr.model.extensions.functions.get(f.function_reference)
            values = [a.value for a in f.arguments if a.WhichOneof("arg_type") == "value"]
            if ref is not None and ref.name.lower() == "and" and values and len(values) == len(f.arguments):
                parts = [self.condition(v) for v in values]
                out = parts[0]
                for p in parts[1:]:
                    out = out & p
                return out
        kept = self._kept_in(e)
        if kept is not None:
            return kept
        t = self.type_of(e)
        # a bare NULL of the producer's own null type: Spark filters only by a boolean
        return self.boolean(e) if is_null_type(t, self.tr.model.extensions.types) else self.expr(e)

    def _kept_in(self, e: Expression) -> Column | None:
        """``x IN (subquery)`` (or ``x = ANY``, ``x <> ALL``), or its ``not``, as a condition that keeps rows:
        Spark's own IN, which it plans as a semi join (a null-aware anti join for ``not``), since an unknown
        drops the row as false does. None for any other condition."""
        negated = False
        if e.WhichOneof("rex_type") == "scalar_function":
            f = e.scalar_function
            ref = self.tr.model.extensions.functions.get(f.function_reference)
            values = [a.value for a in f.arguments if a.WhichOneof("arg_type") == "value"]
            if ref is None or ref.name.lower() != "not" or len(values) != 1 or len(f.arguments) != 1:
                return None
            e, negated = values[0], True
        if e.WhichOneof("rex_type") != "subquery":
            return None
        which = e.subquery.WhichOneof("subquery_type")
        if which == "in_predicate":
            found = subqueries.in_predicate(self, e.subquery.in_predicate, keeps=True)
        elif which == "set_comparison" and subqueries.is_in(e.subquery.set_comparison):
            found = subqueries.set_comparison(self, e.subquery.set_comparison, keeps=True)
        else:
            return None
        return ~found if negated else found

    def sort_column(self, s: algebra_pb2.SortField, ranged: bool = False) -> Column:
        """A sort key; ``ranged``: the key of a window whose RANGE frame counts offsets from it, an
        integer widened (Spark works a frame's edge out as key ± offset in the key's type, which wraps
        near its limits and empties the frame; DataFusion's does not)."""
        if s.WhichOneof("sort_kind") == "comparison_function_reference":
            raise Unsupported("sorting with a comparison function is not supported; use a sort direction")
        c = self.sort_key(s.expr, s.direction)
        if ranged:
            kind = (self.type_of(s.expr) or type_pb2.Type()).WhichOneof("kind")
            c = c.cast("decimal(20,0)") if kind == "i64" else c.cast("long") if kind in INT_KINDS else c
        return _DIRECTIONS.get(s.direction, Column.asc_nulls_last)(c)

    def sort_key(self, e: Expression, direction: int) -> Column:
        """What a sort in ``direction`` compares of ``e``: a map as its entries; in a DataFusion plan, a list's
        or record's null members ranked high where the sort puts nulls last ascending or first descending,
        and -0.0 inside them below 0.0 (:func:`records.zero_signs`)."""
        t = self.type_of(e)
        c = records.comparable(self.expr(e), t)
        nested = records.run_kind(t) in ("list", "struct", "map")
        dialect = self.tr.model.conventions.dialect
        text = records.zero_signs(c, t, dialect)
        if nested and direction in (2, 3) and dialect == "datafusion":
            kinds = records.spark_types(self.record.df, [c])
            if kinds:
                c = records.nulls_high(c, kinds[0])
        if text is not None:  # values equal to Spark, a zero's sign orders them
            c = F.when(c.isNull(), F.lit(None)).otherwise(F.struct(c.alias("value"), text.alias("text")))
        return c

    # -- field references ---------------------------------------------------------------------
    def selection(self, ref: Expression.FieldReference) -> Column:
        root = ref.WhichOneof("root_type")
        if ref.WhichOneof("reference_type") != "direct_reference":
            raise Unsupported("masked field references are not supported")
        seg = ref.direct_reference
        if root == "expression":
            return self._segments(self.expr(ref.expression), seg, None)
        if root == "outer_reference":
            outer = ref.outer_reference
            if outer.WhichOneof("outer_reference_type") == "rel_reference":
                raise Unsupported("outer references to a lateral relation are not supported")
            steps = outer.steps_out
            if steps < 1 or steps > len(self.outer):
                raise ExecutionError(
                    f"an outer reference steps out {counted(steps, 'subquery boundary', 'subquery boundaries')}, "
                    f"but node {self.node_id} is inside {counted(len(self.outer), 'subquery', 'subqueries')} of "
                    "what runs; a correlated subquery cannot run on its own"
                )
            record = self.outer[steps - 1]
        elif root == "lambda_parameter_reference":
            raise Unsupported("lambda expressions are not supported")
        else:
            record = self.record
        if seg.WhichOneof("reference_type") != "struct_field":
            raise ExecutionError("a root field reference must start with a struct field")
        i = seg.struct_field.field
        if not 0 <= i < len(record.columns):
            valid = f"0-{len(record.columns) - 1}" if record.columns else "none"
            raise ExecutionError(f"field {i} is out of range: the record has {len(record.columns)} fields ({valid})")
        col = record.columns[i]
        if seg.struct_field.HasField("child"):
            return self._segments(col, seg.struct_field.child, record.df)
        return col

    def _segments(self, col: Column, seg, df: DataFrame | None) -> Column:
        while seg.ByteSize() > 0:
            which = seg.WhichOneof("reference_type")
            if which == "struct_field":
                col = struct_member(col, seg.struct_field.field, df)
                seg = seg.struct_field.child
            elif which == "list_element":
                col = col.getItem(seg.list_element.offset)
                seg = seg.list_element.child
            elif which == "map_key":
                col = col.getItem(literals.literal(seg.map_key.map_key))
                seg = seg.map_key.child
            else:
                break
        return col

    # -- functions ----------------------------------------------------------------------------
    def call(self, f, distinct: bool = False):
        """The ``functions.Call`` and arguments of a scalar / aggregate / window function."""
        functions = _functions()
        ref = self.tr.model.extensions.functions.get(f.function_reference)
        if ref is None:
            raise ExecutionError(f"function anchor {f.function_reference} is not declared in the plan's extensions")
        args: list = []
        arg_types: list[type_pb2.Type | None] = []
        constants: list = []
        literal_args: list = []
        moves_by_days: list = []
        subqueries = self._subqueries  # an argument that translates a subquery holds it
        for a in f.arguments:
            kind = a.WhichOneof("arg_type")
            if kind == "value":
                args.append(self.expr(a.value))
                arg_types.append(self.type_of(a.value))
                literal_args.append(_literal_of(a.value))
                moves_by_days.append(_kind(arg_types[-1]) in INTERVAL_KINDS and self._moves_by_days(a.value))
                constants.append(_constant_value(a.value))
            elif kind == "enum":
                args.append(a.enum)
            elif kind == "type":
                args.append(a.type)
        output = f.output_type if f.output_type.WhichOneof("kind") else None
        typed = self._typed(f)
        if typed is not None and typed.type is not None:  # the model's, where the producer's engine derives it
            output = typed.type
        options = {o.name: list(o.preference) for o in f.options}
        call = functions.Call(
            ref.compound_name,
            arg_types,
            output,
            options,
            distinct=distinct,
            constants=constants,
            literals=literal_args,
            moves_by_days=moves_by_days,
            dialect=self.tr.model.conventions.dialect,
            spark_types=lambda columns: records.spark_types(self.record.df, columns),
            holds_subquery=self._subqueries != subqueries,
        )
        self._coerce(f, call, args)
        self._unsigned_arguments(call)
        self._times_of_day(call)
        return call, args

    def _times_of_day(self, call) -> None:
        """Refuse a call on a time of day (Spark's TIME) but those checked against DataFusion's engine:
        comparing, ordering and picking values, its parts (``datetimes.time_part``), truncating it and the
        interval between two; ``t + INTERVAL '1' HOUR`` wraps past midnight in DataFusion and stops in Spark."""
        if not any(_kind(t) == "precision_time" for t in call.arg_types):
            return
        name = _functions().resolve(_functions().base_name(call.name))
        between = name == "subtract" and all(_kind(t) == "precision_time" for t in call.arg_types)
        if between and any(t.precision_time.precision > 6 for t in call.arg_types):
            raise Unsupported(
                "the interval between two times of day of nanoseconds: Spark's intervals keep microseconds, and "
                "DataFusion's the nanoseconds"
            )
        if name not in TIME_OF_DAY_SAFE and not between:
            raise Unsupported(
                f"`{_functions().base_name(call.name)}` of a time of day: the run compares, orders, groups and "
                "truncates times of day, takes their parts and the interval between two, and casts them to and "
                "from text; other calls on them are not checked against an engine's"
            )

    def _unsigned_arguments(self, call) -> None:
        """Refuse a call on DataFusion's unsigned integers unless its result stays in their range or leaves
        them (a comparison, a bitwise and, min, a sum): Spark holds them in a wider signed type, where
        ``u8 + u8`` would not overflow at 256 and ``u8 - u8`` would go below 0."""
        dialect = self.tr.model.conventions.dialect
        unsigned = [t for t in call.arg_types if is_unsigned(t, dialect)]
        if not unsigned:
            return
        if _functions().resolve(_functions().base_name(call.name)) not in UNSIGNED_SAFE:
            kind = unsigned[0].WhichOneof("kind")
            raise Unsupported(
                f"`{_functions().base_name(call.name)}` of DataFusion's unsigned integer type u{kind[1:]}: its "
                "results wrap or fail at that type's bounds in DataFusion, which Spark's signed integers do not have"
            )

    def _moves_by_days(self, e: Expression) -> bool:
        """Whether ``e`` is an interval Spark holds as a day-time one that moves a date as DataFusion does:
        a literal (or each branch of a CASE of them) without months whose days and time have one sign, a
        cast from a day interval (DataFusion's analyzed date + 1), a value typed a day interval."""
        which = e.WhichOneof("rex_type")
        if which == "literal":
            if e.literal.WhichOneof("literal_type") == "null":
                return True
            parts = literals.interval_parts(e.literal)
            if parts is None:
                return False
            months, days, micros = parts
            return not months and (days * micros >= 0 or micros % _functions().datetimes.DAY_MICROS == 0)
        if which == "if_then":
            case = e.if_then
            branches = [c.then for c in case.ifs] + ([getattr(case, "else")] if case.HasField("else") else [])
            return all(self._moves_by_days(b) for b in branches)
        if which == "cast":
            return _kind(self.type_of(e.cast.input)) == "interval_day"
        return _kind(self.type_of(e)) == "interval_day"

    def _typed(self, message):
        """The plan model's typing of this very message (a call, CASE or IN list it coerces), or None."""
        info = self.tr.model.infos.get(self.node_id)
        return info.typed_expression(message) if info is not None else None

    def coercion(self, message):
        """The casts the plan model says a call, CASE or IN list (this very message) runs with: its
        producer's coercion of values whose types no signature or rule of the spec reconciles."""
        typed = self._typed(message)
        return typed.coercion if typed is not None else None

    def _cast(self, coercion, columns: list[Column], sources: list[type_pb2.Type | None], what: str) -> list[Column]:
        """``columns`` (of values typed ``sources``) cast to ``coercion``'s targets, said in the run's notes."""
        out = [c if t is None else self._implicit_cast(c, s, t) for c, s, t in zip(columns, sources, coercion.targets)]
        user_types = self.tr.model.extensions.types
        # an untyped NULL takes any type without a value changing: nothing a person needs told
        if any(
            t is not None and not is_null_type(s, user_types) for s, t in zip(sources, coercion.targets[: len(columns)])
        ):
            self.tr.warn(f"node {self.node_id}: {what}: {coercion.rule}, and so does the run")
        return out + columns[len(out) :]

    def _implicit_cast(self, column: Column, source: type_pb2.Type | None, target: type_pb2.Type) -> Column:
        """A producer's implicit coercion (:func:`producer_cast`); to text, a number or time as the
        producer writes it (:meth:`_as_text`)."""
        if target.WhichOneof("kind") in TEXT_KINDS:
            text = self._as_text(column, source)
            if text is not None:
                return text
        if records.holds_record(target):
            return column.cast(sql_type(self._members_kept(column, to_spark(target))))
        return producer_cast(column, source, target, self.tr.model.conventions.dialect == "datafusion")

    def _cast_values(self, message, values: list[Expression], columns: list[Column], what: str) -> list[Column]:
        """``columns`` (of the message's ``values``, in order) cast by its coercion."""
        coercion = self.coercion(message)
        if coercion is None:
            return columns
        return self._cast(coercion, columns, [self.type_of(v) for v in values], f"{what} differ in type")

    def _coerce(self, f, call, args: list) -> None:
        """Cast the value arguments of a call that matches no signature as the plan model says its
        producer does (``Typed.coercion``), and say so in the run's notes."""
        coercion = self.coercion(f)
        if coercion is None:
            return
        positions = [i for i, a in enumerate(args) if isinstance(a, Column)]
        cast = self._cast(coercion, [args[i] for i in positions], list(call.arg_types), _call_text(call))
        for k, (i, target) in enumerate(zip(positions, coercion.targets)):
            if target is not None:
                args[i] = cast[k]
                call.arg_types[k] = target
                call.constants[k] = _functions().NOT_CONSTANT
                call.literals[k] = None

    def _warn(self, call) -> None:
        for w in call.warnings:
            self.tr.warn(w if w.startswith("node ") else f"node {self.node_id}: {w}")

    def scalar_function(self, f: Expression.ScalarFunction) -> Column:
        ref = self.tr.model.extensions.functions.get(f.function_reference)
        if ref is not None and _functions().resolve(ref.compound_name) in _functions().CASTS:
            values = [a.value for a in f.arguments if a.WhichOneof("arg_type") == "value"]
            if not values or not f.output_type.WhichOneof("kind"):
                raise Unsupported(f"`{ref.compound_name}` without a value or a declared output type")
            if f.output_type.WhichOneof("kind") in ZONED_KINDS:
                named = _constant_value(values[1]) if len(values) > 1 else None
                zone = ARROW_ZONE.search(named) if isinstance(named, str) else None
                if zone is None or zone.group(1) not in ("UTC", "+00:00", "Z"):
                    raise Unsupported(
                        f"`{ref.compound_name}` to a timestamp in the zone {zone.group(1) if zone else '(not known)'}: "
                        "the plan's type has no zone, and a date or a local time becomes a different instant in each"
                    )
            strict = Expression.Cast.FAILURE_BEHAVIOR_THROW_EXCEPTION
            return self.cast(Expression.Cast(type=f.output_type, input=values[0], failure_behavior=strict))
        call, args = self.call(f)
        base = _functions().base_name(call.name)
        columns = [a for a in args if isinstance(a, Column)]
        if base in records.ONE_SHAPE_CALLS:
            values = [a.value for a in f.arguments if a.WhichOneof("arg_type") == "value"]
            shaped = self._one_shape(columns, values)
        elif base in records.ONE_ELEMENT_CALLS and any(records.holds_record(t) for t in call.arg_types):
            shaped = records.one_element_type(self.record.df, columns, records.ONE_ELEMENT_CALLS[base])
        else:
            shaped = columns
        if shaped is not columns:
            reshaped = iter(shaped)
            args = [next(reshaped) if isinstance(a, Column) else a for a in args]
        if call.dialect == "datafusion" and _functions().resolve(call.name) in _functions().JOINS_TEXT:
            args = self._as_texts(call, args)
        self._text_to_finer_time(call.output_type, call.arg_types, call.constants)
        out = _functions().scalar(call, args)
        self._warn(call)
        return out

    def _one_shape(self, columns: list[Column], values: list[Expression]) -> list[Column]:
        """Values that must share one type (a CASE's branches, coalesce's or an array's), records of one
        shape among them cast to one record type (:func:`records.one_shape`)."""
        if len(columns) < 2:
            return columns
        if any(_kind(self.type_of(v)) in INTERVAL_KINDS for v in values):
            self._one_interval_kind(columns)
        if not any(records.holds_record(self.type_of(v)) for v in values):
            return columns
        return records.one_shape(self.record.df, columns)

    def _members_kept(self, value: Column, target: S.DataType) -> S.DataType:
        """``target``, a type holding records that ``value`` is cast to, with the members named as
        ``value``'s are (:func:`records.named_after`): a plan's struct type names no member, and a member
        is then read by its name (``get_field``)."""
        kinds = records.spark_types(self.record.df, [value])
        return records.named_after(target, kinds[0]) if kinds else target

    def _one_interval_kind(self, columns: list[Column]) -> None:
        """Refuse intervals that must share one type but are Spark's of different kinds (a literal of months
        is a year-month interval, one of days or time a day-time one, one of both a calendar interval):
        Spark takes none of them for another."""
        kinds = {type(t) for t in records.spark_types(self.record.df, columns) or ()}
        if len(kinds & {S.YearMonthIntervalType, S.DayTimeIntervalType, S.CalendarIntervalType}) > 1:
            raise Unsupported(
                "intervals of months and intervals of days or time as one value (a CASE, coalesce): Spark has no "
                "interval type that holds both as DataFusion's does"
            )

    def _as_texts(self, call, args: list) -> list:
        """A call's value arguments that are numbers or times, as text the way its producer writes them
        (:meth:`_as_text`): DataFusion's ``||`` and ``concat`` of a float or a timestamp."""

        def as_text(a: Column, j: int) -> Column:
            source = call.arg_types[j] if j < len(call.arg_types) else None
            literal = call.literals[j] if j < len(call.literals) else None
            text = (
                None if source is None or source.WhichOneof("kind") in TEXT_KINDS else self._as_text(a, source, literal)
            )
            return a if text is None else text

        return _each_value(args, as_text)

    def aggregate(self, f: algebra_pb2.AggregateFunction, condition: Column | None = None) -> Column:
        """An aggregate function (a measure), its arguments masked by the measure's filter."""
        call, args = self.call(f, distinct=f.invocation == _INVOCATION_DISTINCT)
        name = _functions().resolve(call.name)
        if name == "array_agg":
            value = next((a for a in args if isinstance(a, Column)), None)
            if value is None:
                raise Unsupported("array_agg needs an argument")
            return self._array_agg(call, value, f.sorts, condition)
        if name in ("percentile_cont", "approx_percentile_cont") and f.sorts:
            # WITHIN GROUP (ORDER BY x DESC) counts the fraction from the other end
            value = next(a for a in args if isinstance(a, Column))
            value = value if condition is None else F.when(condition, value)
            out = _functions().aggregates.percentile(
                call, value, descending=f.sorts[0].direction in (3, 4)
            )  # DESC NULLS FIRST / LAST
            self._warn(call)
            return _functions().as_declared(call, out)
        if name in _functions().ORDERED_AGGREGATES and not call.distinct:  # DataFusion's DISTINCT ON
            value = next(a for a in args if isinstance(a, Column))
            self._warn(call)
            at = 1 if name == "first_value" else -1
            if f.sorts:
                return F.element_at(self._ordered(f.sorts, value, condition), at)
            if condition is None:
                return F.first(value) if at == 1 else F.last(value)
            # the first or last of the rows that pass, its value null or not
            passing = F.collect_list(F.when(condition, F.struct(value.alias("v"))))
            return F.call_function("try_element_at", passing, F.lit(at))["v"]
        if condition is not None:
            args = self._masked(call, args, condition)
        if f.sorts:
            if name == "string_agg":
                values = [a for a in args if isinstance(a, Column)]
                sep = _functions().aggregates.string_agg_separator(call, values)
                self._warn(call)  # nulls left out, as string_agg does
                ordered = self._ordered(f.sorts, values[0], condition)
                # DISTINCT: each value where it first comes in the order (DataFusion orders by the value itself)
                return _functions().aggregates.joined(F.array_distinct(ordered) if call.distinct else ordered, sep)
            self.tr.warn(f"the ordering inside aggregate `{call.name}` is not honoured")
        out = _functions().aggregate(call, args)
        self._warn(call)
        return out

    @staticmethod
    def _masked(call, args: list, condition: Column) -> list:
        """An aggregate's arguments for the rows that pass a measure's filter: its first value null in the
        rows that do not, and every later value that is not a constant (a separator or a fraction stays
        one); ``count(*)`` counts the rows that pass."""
        if not any(isinstance(a, Column) for a in args):
            call.name = "count"
            call.arg_types = [None]
            return [F.when(condition, F.lit(1))]

        def masked(a: Column, j: int) -> Column:
            varies = j == 0 or j >= len(call.constants) or call.constants[j] is _functions().NOT_CONSTANT
            return F.when(condition, a) if varies else a

        return _each_value(args, masked)

    def _array_agg(self, call, value: Column, sorts, condition: Column | None) -> Column:
        """DataFusion's ``array_agg(v [ORDER BY ...]) [FILTER (...)]``: the values of the rows that pass,
        nulls among them, in the order asked for (``functions.aggregates.array_agg_of``)."""
        aggregates = _functions().aggregates
        values = self._ordered(sorts, value, condition) if sorts else aggregates.listed(call, value, condition)
        out = aggregates.array_agg_of(call, values, ordered=bool(sorts))
        self._warn(call)
        return _functions().as_declared(call, out)

    def _ordered(self, sorts, value: Column, condition: Column | None = None) -> Column:
        """An aggregate's values in the order of its ``ORDER BY`` (``string_agg(v ORDER BY k)``,
        ``first_value(v ORDER BY k)``), of the rows that pass ``condition`` (a measure's filter): collected
        with their keys, sorted by the keys (each key's direction and nulls first or last), as an array."""
        directions = [s.direction if s.WhichOneof("sort_kind") == "direction" else 2 for s in sorts]
        keys = [self.sort_key(s.expr, d) for s, d in zip(sorts, directions)]
        element = F.struct(*[k.alias(f"k{i}") for i, k in enumerate(keys)], value.alias("v"))
        pairs = F.collect_list(element if condition is None else F.when(condition, element))

        def compare(a: Column, b: Column) -> Column:
            out = F.lit(0)
            for i in reversed(range(len(keys))):
                x, y, d = a[f"k{i}"], b[f"k{i}"], directions[i]
                nulls_first, ascending = d in (1, 3, 5), d in (1, 2, 5)
                one = (
                    F.when(x.isNull() & y.isNull(), 0)
                    .when(x.isNull(), -1 if nulls_first else 1)
                    .when(y.isNull(), 1 if nulls_first else -1)
                    .when(x < y, -1 if ascending else 1)
                    .when(x > y, 1 if ascending else -1)
                    .otherwise(0)
                )
                out = F.when(one != 0, one).otherwise(out)
            return out

        return F.transform(F.array_sort(pairs, compare), lambda p: p["v"])

    def window_function(self, f: Expression.WindowFunction) -> Column:
        self.float_keys(f.partitions, f.sorts)
        spec = Window.partitionBy(*[self.expr(p) for p in f.partitions])
        if f.sorts:
            spec = spec.orderBy(*[self.sort_column(s, ranged=counts_range([f])) for s in f.sorts])
        else:
            spec = self.unordered(spec, [f])
        return self.over(f, spec)

    def float_keys(self, partitions: Sequence[Expression], sorts: Sequence) -> None:
        """Say where a window's partition or order keys hold floats: a run takes -0.0 and 0.0 as one value
        there, as DuckDB does, where DataFusion's engine partitions and ranks them apart, and a plan does not
        say which it means."""
        keys = [*partitions, *(s.expr for s in sorts)]
        if any(_kind(self.type_of(k)) in ("fp32", "fp64") for k in keys):
            self.tr.warn(
                f"node {self.node_id}: a window partitioned or ordered by a float: this run takes -0.0 and 0.0 as "
                "one value there, as DuckDB does; DataFusion's engine partitions and ranks them apart"
            )

    def unordered(self, spec, fs) -> object:
        """A window without sorts for the window functions ``fs``: Spark ranks only over an ordered window,
        so where one of them ranks rows (is no aggregate), every row is a peer of every other, ordered by a
        constant; an aggregate's frame is set by its bounds either way."""
        functions = _functions()
        for f in fs:
            ref = self.tr.model.extensions.functions.get(f.function_reference)
            if ref is None or functions.supported(ref.compound_name, "aggregate") is not None:
                return spec.orderBy(F.lit(0))
        return spec

    def over(self, f, spec, sorts=None) -> Column:
        """A window function (``Expression.WindowFunction`` or a window relation's function, whose relation's
        ``sorts`` order it) over ``spec``."""
        functions = _functions()
        ref = self.tr.model.extensions.functions.get(f.function_reference)
        name = functions.base_name(ref.compound_name) if ref is not None else "?"
        if f.invocation == _INVOCATION_DISTINCT:
            raise Unsupported(
                f"`{name}` with DISTINCT over a window: Spark computes no window function on distinct values"
            )
        self._range_offsets(f, name, list(f.sorts) if sorts is None else list(sorts))
        call, args = self.call(f)
        # ``over`` needs the bare function: the cast to the declared type comes after it.
        declared, call.output_type = call.output_type, None
        resolved = functions.resolve(call.name)
        windowed = resolved in functions.ORDERED_AGGREGATES  # first_value: a window's own
        if not windowed and functions.supported(call.name, "aggregate") is None:
            # An aggregate over a window takes the function's frame (ROWS or RANGE bounds).
            spec = call.window = _frame(spec, f, name)
            out = functions.aggregate(call, args)
        else:
            out = functions.window(call, args)
            if resolved in _FRAMED_VALUES:  # a value of the frame, not of a rank
                spec = _frame(spec, f, name)
        self._warn(call)
        if not call.windowed:  # a builder that combines aggregates put the window on each itself
            out = out.over(spec)
        return out.cast(sql_type(to_spark(declared))) if declared is not None else out

    def _range_offsets(self, f, name: str, sorts: list) -> None:
        """Refuse a RANGE frame bounded by an offset unless one number orders the window: the offset is a
        distance in that key's values (Spark refuses the others with its own words)."""
        if f.bounds_type != Expression.WindowFunction.BOUNDS_TYPE_RANGE:
            return
        bounds = [b for b in (f.lower_bound, f.upper_bound) if b.WhichOneof("kind") in ("preceding", "following")]
        if not any(_bound(b, 0) for b in bounds):
            return
        if len(sorts) != 1:
            raise Unsupported(
                f"`{name}` over a RANGE frame bounded by an offset, with {len(sorts)} sort keys: the offset is a "
                "distance in the values of one key"
            )
        kind = _kind(self.type_of(sorts[0].expr))
        if kind not in INT_KINDS | {"fp32", "fp64", "decimal"}:
            raise Unsupported(
                f"`{name}` over a RANGE frame bounded by an offset, ordered by a value of type {kind}: the offset is "
                "a distance in numbers here"
            )

    # -- conditionals -------------------------------------------------------------------------
    def if_then(self, e: Expression.IfThen) -> Column:
        if not e.ifs:
            return self.expr(getattr(e, "else"))
        base = case_base(e)
        match = self.expr(base) if base is not None else None
        clauses = e.ifs[1:] if base is not None else e.ifs
        when = self.expr if match is not None else self.boolean  # CASE x WHEN v: a value, not a condition
        conds = [when(getattr(clause, "if")) for clause in clauses]
        values = [clause.then for clause in clauses] + ([getattr(e, "else")] if e.HasField("else") else [])
        results = self._cast_values(e, values, [self.expr(v) for v in values], "the CASE's branches")
        results = self._one_shape(results, values)
        out = None
        for cond, then in zip(conds, results):
            if match is not None:
                cond = match == cond  # CASE x WHEN v: SQL equality (a null x matches no WHEN)
            out = F.when(cond, then) if out is None else out.when(cond, then)
        if e.HasField("else"):
            out = out.otherwise(results[-1])
        return out

    def boolean(self, e: Expression) -> Column:
        """A CASE's condition or a measure's filter; one the plan types otherwise (a bare NULL, DataFusion's
        own null type) is cast to a boolean, which Spark's CASE requires."""
        out = self.expr(e)
        t = self.type_of(e)
        return out if t is not None and t.WhichOneof("kind") == "bool" else out.cast("boolean")

    def switch_expression(self, e: Expression.SwitchExpression) -> Column:
        match = self.expr(e.match)
        conds = [match == literals.literal(getattr(clause, "if")) for clause in e.ifs]
        values = [clause.then for clause in e.ifs] + ([getattr(e, "else")] if e.HasField("else") else [])
        results = self._one_shape(
            self._cast_values(e, values, [self.expr(v) for v in values], "the CASE's branches"), values
        )
        if not conds:
            return results[-1]
        out = None
        for cond, then in zip(conds, results):
            out = F.when(cond, then) if out is None else out.when(cond, then)
        if e.HasField("else"):
            out = out.otherwise(results[-1])
        return out

    def singular_or_list(self, e: Expression.SingularOrList) -> Column:
        values = [e.value, *e.options]
        columns = self._cast_values(e, values, [self.expr(v) for v in values], "an IN list's values")
        return columns[0].isin(*columns[1:])

    def multi_or_list(self, e: Expression.MultiOrList) -> Column:
        values = [self.expr(v) for v in e.value]
        out = F.lit(False)
        for rec in e.options:
            match = F.lit(True)
            for v, o in zip(values, rec.fields):
                match = match & (v == self.expr(o))
            out = out | match
        return out

    def cast(self, e: Expression.Cast) -> Column:
        if e.type.WhichOneof("kind") == "interval_compound":
            source = self.type_of(e.input)
            if source is not None and source.WhichOneof("kind") in ("interval_day", "interval_year"):
                # a compound interval of days and time, or of years and months, is Spark's day-time or
                # year-month interval (as a literal of one is, ``literals._interval_compound``)
                return self.expr(e.input)
        kind = e.type.WhichOneof("kind")
        if kind in INT_KINDS and getattr(e.type, kind).type_variation_reference:
            dialect, source = self.tr.model.conventions.dialect, self.type_of(e.input)
            widens = is_unsigned(source, dialect) and int(source.WhichOneof("kind")[1:]) <= int(kind[1:])
            if is_unsigned(e.type, dialect) and widens:
                return self.expr(e.input).cast(sql_type(to_spark(e.type)))  # a wider unsigned type: every value fits
            self._no_unsigned(kind, getattr(e.type, kind).type_variation_reference, "a cast to")
        self._text_to_finer_time(e.type, [self.type_of(e.input)], [_constant_value(e.input)])
        target = to_spark(e.type)
        folded = folded_cast(e, target)
        if folded is not None:
            return folded
        inner = self.expr(e.input)
        source = self.type_of(e.input)
        source_kind = source.WhichOneof("kind") if source is not None else None
        datafusion = self.tr.model.conventions.dialect == "datafusion"
        if datafusion and kind in ZONED_KINDS and source_kind not in ZONED_KINDS | INT_KINDS:
            self.tr.warn(
                f"node {self.node_id}: a cast to a timestamp with a time zone: the plan's type carries no zone, so "
                "the run reads the value in UTC; DataFusion's engine reads it in the zone of the type it was written "
                "with"
            )
        if "precision_time" in (kind, source_kind):
            self._time_of_day_cast(kind, source_kind, e.input)
        inner = self._counted(inner, e.type, source, datafusion, e.input)
        if records.holds_record(e.type):
            target = self._members_kept(inner, target)
        if isinstance(target, S.DecimalType) and source_kind in ("fp32", "fp64"):
            return _as_cast_fails(e, inner, float_to_decimal(inner, target.precision, target.scale))
        if isinstance(target, S.StringType) and is_text(e.input, self.type_of):
            return inner  # varchar or char to string: Spark's value is a string already
        if datafusion and kind in text_values.KINDS and is_text(e.input, self.type_of):
            return _as_cast_fails(e, inner, text_values.read(inner, kind, target))
        if e.type.WhichOneof("kind") in TEXT_KINDS:
            text = self._as_text(inner, self.type_of(e.input), _literal_of(e.input))
            if text is not None:
                return text
        if kind == "date" and source_kind in INT_KINDS:
            return days_to_date(inner, source_kind, e.failure_behavior != Expression.Cast.FAILURE_BEHAVIOR_RETURN_NULL)
        if e.failure_behavior == Expression.Cast.FAILURE_BEHAVIOR_RETURN_NULL:
            return inner.try_cast(target)
        out = inner.cast(sql_type(target))
        # a cast to text never fails, and its input is not typed (DataFusion marks every cast as throwing)
        if (
            e.failure_behavior != Expression.Cast.FAILURE_BEHAVIOR_THROW_EXCEPTION
            or e.type.WhichOneof("kind") in TEXT_KINDS
        ):
            return out
        source = self.type_of(e.input)
        if source_kind == "interval_day" and kind in INT_KINDS:  # a duration's count of its units (_counted)
            source = type_pb2.Type(i64=type_pb2.Type.I64())
        narrows = may_not_fit(e.type, source)
        if narrows and e.input.WhichOneof("rex_type") == "literal":  # not through a cast, which changes it
            value = _constant_value(e.input)
            if value is not _functions().NOT_CONSTANT:  # a literal: known here, and kept one for Spark (round's places)
                if not fits(e.type, value):
                    raise ExecutionError(
                        f"node {self.node_id}: cannot cast {value} to {e.type.WhichOneof('kind')} (the plan's cast "
                        "throws on failure)"
                    )
                return out
        reads_text = source is not None and source.WhichOneof("kind") in TEXT_KINDS
        if narrows or reads_text:
            # The session's casts are Spark's legacy ones (ANSI off): text that is not a value of the
            # target type becomes NULL, a number too large wraps, saturates or becomes NULL. The plan
            # asks for an error, as DataFusion and DuckDB give: Spark's strict cast (try_cast) says
            # where it fails. (Spark folds this away for a literal that fits.)
            return _as_cast_fails(e, inner, inner.try_cast(sql_type(target)))
        return out

    def _as_text(
        self, value: Column, source: type_pb2.Type | None, literal: Expression.Literal | None = None
    ) -> Column | None:
        """A number or time as text the way the plan's producer writes it (:func:`casts.producer_text`)."""
        datafusion = self.tr.model.conventions.dialect == "datafusion"
        return producer_text(value, source, datafusion, literal, lambda m: self.tr.warn(f"node {self.node_id}: {m}"))

    def literal(self, lit: Expression.Literal) -> Column:
        kind = lit.WhichOneof("literal_type")
        if kind in INT_KINDS and lit.type_variation_reference:
            dialect = self.tr.model.conventions.dialect
            if UNSIGNED_VARIATION.get(dialect) == lit.type_variation_reference:
                return self._unsigned_literal(kind, getattr(lit, kind))
            if getattr(lit, kind) < 0:  # another variation's meaning is its producer's: the same number if not negative
                self._no_unsigned(kind, lit.type_variation_reference, "a literal of")
        if kind in ("precision_timestamp", "precision_timestamp_tz"):
            stamp = getattr(lit, kind)
            if stamp.precision > 6 and stamp.value % 10 ** (stamp.precision - 6):
                self._finer_than_spark(stamp.precision)
        if kind in ("interval_day_to_second", "interval_compound"):
            ds = (
                lit.interval_day_to_second
                if kind == "interval_day_to_second"
                else lit.interval_compound.interval_day_to_second
            )
            if ds.precision > 6 and ds.subseconds % 10 ** (ds.precision - 6):
                self._finer_than_spark(ds.precision, "an interval")
        return literals.literal(lit)

    def _time_of_day_cast(self, kind: str | None, source_kind: str | None, value: Expression) -> None:
        """Refuse a cast to or from a time of day but from text, to text, between times of day, from a timestamp
        (its time of day) and, in a DataFusion plan, to i64 (its units since midnight, as Arrow casts it): the
        others are checked against no engine."""
        if kind == source_kind or kind in TEXT_KINDS or is_text(value, self.type_of):
            return
        if (kind == "precision_time" and source_kind in TIMESTAMP_KINDS) or (
            kind == "i64" and self.tr.model.conventions.dialect == "datafusion"
        ):
            return
        raise Unsupported(
            f"a cast from {source_kind or 'an unknown type'} to {kind}: a time of day is cast to and from text, "
            "to another precision, from a timestamp and (in a DataFusion plan) to a count of its units only"
        )

    def _counted(
        self, inner: Column, target: type_pb2.Type, source: type_pb2.Type | None, datafusion: bool, value: Expression
    ) -> Column:
        """A cast's value where a time and a number are cast one to the other, or a timestamp to coarser
        units: Spark casts no number to a timestamp without a zone nor back, a date to a number is null, and
        its timestamps keep microseconds. DataFusion counts the date's days or the timestamp's own units since
        1970, toward zero as Arrow cuts; from another producer a date's number is refused."""
        kind, source_kind = target.WhichOneof("kind"), source.WhichOneof("kind") if source is not None else None
        if source_kind == "date" and kind in INT_KINDS:
            if not datafusion:
                raise Unsupported(f"a cast of a date to {kind}: what number a date is, is its producer's")
            return F.unix_date(inner).cast("long")
        if "interval_day" in (kind, source_kind) and {kind, source_kind} & NUMBER_KINDS:
            number = kind if kind in NUMBER_KINDS else source_kind
            if not datafusion:
                raise Unsupported(
                    f"a cast between a day-time interval and {number}: which unit the number counts is its producer's"
                )
            interval = target if kind == "interval_day" else source
            if interval.interval_day.type_variation_reference != DURATION_VARIATION or number not in INT_KINDS:
                raise Unsupported(
                    f"a cast between DataFusion's {'duration' if number in INT_KINDS else 'interval'} and {number}: "
                    "only a duration and a whole number (a count of its units) are mapped"
                )
            return self._duration_counted(inner, target, source, value)
        if not datafusion:
            return inner
        if source_kind in INT_KINDS and kind in TIMESTAMP_KINDS:
            digits = second_digits(target)
            if digits <= 6:
                return F.timestamp_micros((inner * F.lit(10 ** (6 - digits))).cast("long"))
            self._finer_than_spark(digits)
            return _functions().datetimes.from_finer_units(inner, 10 ** (digits - 6))
        datetimes = _functions().datetimes
        if source_kind in TIMESTAMP_KINDS and kind in TIMESTAMP_KINDS and second_digits(target) < 6:
            return datetimes.cut_to(inner, 10 ** (6 - second_digits(target)))
        if source_kind == "precision_time" and kind == "i64":  # the time's own units since midnight
            units = 10**source.precision_time.precision
            minutes = (F.hour(inner) * 60 + F.minute(inner)).cast("decimal(20,0)")
            return (minutes * (60 * units) + F.call_function("extract", F.lit("SECOND"), inner) * units).cast("long")
        if source_kind in TIMESTAMP_KINDS and kind in INT_KINDS:
            digits = second_digits(source)
            if digits >= 6:
                return (F.unix_micros(inner.cast("timestamp")) * F.lit(10 ** (digits - 6))).cast("long")
            return datetimes.whole_units(inner, 10 ** (6 - digits))
        return inner

    def _duration_counted(
        self, inner: Column, target: type_pb2.Type, source: type_pb2.Type, value: Expression
    ) -> Column:
        """A cast between a duration and a number as DataFusion casts one (Arrow's): the number counts the
        duration's own units, its precision's digits of a second (Spark's cast counts seconds whatever
        the type). A duration finer than a microsecond keeps microseconds, said."""
        datetimes = _functions().datetimes
        if target.WhichOneof("kind") in INT_KINDS:
            digits = _interval_digits(source)
            micros = datetimes.interval_micros(inner)
            if digits >= 6:
                return micros * F.lit(10 ** (digits - 6))
            return F.call_function("div", micros, F.lit(10 ** (6 - digits)))  # toward zero, as Arrow
        digits = _interval_digits(target)
        n = inner.cast("long")
        if digits > 6:
            constant = _constant_value(value)  # a literal of whole microseconds loses nothing
            if constant is _functions().NOT_CONSTANT or (isinstance(constant, int) and constant % 10 ** (digits - 6)):
                self._finer_than_spark(digits, "a duration")
            n, digits = F.call_function("div", n, F.lit(10 ** (digits - 6))), 6
        # Spark multiplies an interval exactly: a count beyond its range stops the run, not wraps
        return F.lit(dt.timedelta(microseconds=10 ** (6 - digits))) * n

    def _unsigned_literal(self, kind: str, value: int) -> Column:
        """A literal of DataFusion's unsigned integers (:func:`viz.coercion.unsigned_value`), in the Spark
        type that holds them (``UNSIGNED_HELD_IN``)."""
        value = unsigned_value(kind, value)
        if value >= 2**63:
            raise Unsupported(
                f"a literal of DataFusion's unsigned integer type u{kind[1:]} of {value}: Spark's widest integer is "
                "a signed 64-bit one"
            )
        return F.lit(value).cast(sql_type(UNSIGNED_HELD_IN[kind]()))

    def _no_unsigned(self, kind: str, variation: int, what: str) -> None:
        """Refuse an integer of a type variation (a cast to one, a literal of another producer's): DataFusion's 1
        is its unsigned integers, which Spark has not (a value out of their range would not fail as in
        DataFusion); another producer's variation is its own."""
        if UNSIGNED_VARIATION.get(self.tr.model.conventions.dialect) == variation:
            raise Unsupported(
                f"{what} DataFusion's unsigned integer type u{kind[1:]}: Spark has no unsigned integers, so a value "
                "out of its range would not fail as it does in DataFusion"
            )
        raise Unsupported(f"{what} {kind} of type variation {variation}, whose meaning is its producer's")

    def _text_to_finer_time(self, output: type_pb2.Type | None, sources: list, constants: list) -> None:
        """Say so where text becomes a timestamp counting digits below a microsecond: a literal's text that
        has such digits, and any text that is not a literal."""
        if output is None or output.WhichOneof("kind") not in TIMESTAMP_KINDS or second_digits(output) <= 6:
            return
        for source, value in zip(sources, constants):
            literal = value is not _functions().NOT_CONSTANT
            if (literal and isinstance(value, str) and BELOW_A_MICROSECOND.search(value)) or (
                not literal and source is not None and source.WhichOneof("kind") in TEXT_KINDS
            ):
                self._finer_than_spark(second_digits(output))
                return

    def _finer_than_spark(self, precision: int, what: str = "a timestamp") -> None:
        self.tr.warn(
            f"node {self.node_id}: {what} of the plan counts {precision} digits of a second: {MICROSECONDS_KEPT}"
        )

    def nested(self, e: Expression.Nested) -> Column:
        which = e.WhichOneof("nested_type")
        if which == "struct":
            return F.struct(*[self.expr(x).alias(f"f{i}") for i, x in enumerate(e.struct.fields)])
        if which == "list":
            return F.array(*[self.expr(x) for x in e.list.values])
        if which == "map":
            parts: list[Column] = []
            for kv in e.map.key_values:
                parts.extend([self.expr(kv.key), self.expr(kv.value)])
            return F.create_map(*parts)
        raise Unsupported(f"nested expression `{which or 'unset'}` is not supported")

    # -- subqueries (executor.translate.subqueries) ---------------------------------------------
    def subquery_frame(self, rel: algebra_pb2.Rel) -> tuple[DataFrame, list[str]]:
        """A subquery's relation as a DataFrame and its column names, its outer records these."""
        self._subqueries += 1
        node = self.tr.model.graph.nodes[self.node_id]
        sub_id = node.subquery_rels.get(id(rel))
        if sub_id is None:
            raise ExecutionError(f"a subquery of node {self.node_id} is not in the plan graph")
        return self.tr.subquery(sub_id, (self.record.outer(), *[r.outer() for r in self.outer]))

    def subquery(self, e: Expression.Subquery) -> Column:
        which = e.WhichOneof("subquery_type")
        handler = subqueries.SUBQUERIES.get(which or "")
        if handler is None:
            raise Unsupported(f"subquery kind `{which or 'unset'}` is not supported")
        return handler(self, getattr(e, which))


def struct_member(col: Column, i: int, df: DataFrame | None) -> Column:
    if df is None:
        raise Unsupported("a struct field of an outer or computed value cannot be read by position here")
    dtype = df.select(col).schema.fields[0].dataType
    names = getattr(dtype, "names", None)
    if not names or not 0 <= i < len(names):
        raise ExecutionError(f"struct field {i} is out of range for {dtype.simpleString()}")
    return records.member_at(col, dtype, i)


_DIRECTIONS: dict[int, Callable[[Column], Column]] = {
    1: Column.asc_nulls_first,
    2: Column.asc_nulls_last,
    3: Column.desc_nulls_first,
    4: Column.desc_nulls_last,
    5: Column.asc_nulls_first,  # clustered: equal values together; any order does
}


def _bound(b, unbounded: int) -> int:
    """Spark's frame bound: rows (or key values) from the current row (``Window.currentRow`` is 0)."""
    try:
        n = signed_bound(b)
    except ValueError as exc:
        raise Unsupported(str(exc)) from None
    return unbounded if n is None else n


def _as_cast_fails(e: Expression.Cast, value: Column, cast: Column) -> Column:
    """``cast`` (of ``value``; null where it fails) as the plan's cast asks: stopping where it throws."""
    if e.failure_behavior != Expression.Cast.FAILURE_BEHAVIOR_THROW_EXCEPTION:
        return cast
    return stops_where_lost(value, cast, e.type.WhichOneof("kind"), "the plan's cast throws on failure")


def _said_bound(n: int) -> str:
    return "the current row" if n == 0 else f"{-n} preceding" if n < 0 else f"{n} following"


#: Window functions whose value is a row of the frame (the others rank rows or read a row at an offset,
#: and take no frame on Spark).
_FRAMED_VALUES = frozenset({"first_value", "last_value", "nth_value"})


def counts_range(fs) -> bool:
    """Whether one of the window functions ``fs`` has a RANGE frame with an offset from its key."""
    offsets = ("preceding", "following")
    return any(
        f.bounds_type == Expression.WindowFunction.BOUNDS_TYPE_RANGE
        and (f.lower_bound.WhichOneof("kind") in offsets or f.upper_bound.WhichOneof("kind") in offsets)
        for f in fs
    )


def _frame(spec, f, name: str):
    """The frame of an aggregate over a window: the spec's bounds (defaults: the whole partition)."""
    lo = _bound(f.lower_bound, Window.unboundedPreceding) if f.HasField("lower_bound") else Window.unboundedPreceding
    hi = _bound(f.upper_bound, Window.unboundedFollowing) if f.HasField("upper_bound") else Window.unboundedFollowing
    if lo > hi:  # DataFusion's frame is then empty (a count of 0, a sum of null); Spark's refuses it
        raise Unsupported(
            f"{name} over a frame that ends before it starts (from {_said_bound(lo)} to {_said_bound(hi)}): Spark "
            "takes no such frame"
        )
    if f.bounds_type == Expression.WindowFunction.BOUNDS_TYPE_RANGE:
        return spec.rangeBetween(lo, hi)
    # Spark counts rows in an int, and a partition holds fewer: more rows than that reach its end, and a
    # frame that starts (or ends) more rows away than that on the far side is as empty at INT_MAX
    lo = Window.unboundedPreceding if lo < -INT_MAX else min(lo, INT_MAX)
    hi = Window.unboundedFollowing if hi > INT_MAX else max(hi, -INT_MAX)
    return spec.rowsBetween(lo, hi)


_DISPATCH: dict[str, Callable[[ExprTranslator, object], Column]] = {
    "literal": ExprTranslator.literal,
    "selection": ExprTranslator.selection,
    "scalar_function": ExprTranslator.scalar_function,
    "window_function": ExprTranslator.window_function,
    "if_then": ExprTranslator.if_then,
    "switch_expression": ExprTranslator.switch_expression,
    "singular_or_list": ExprTranslator.singular_or_list,
    "multi_or_list": ExprTranslator.multi_or_list,
    "cast": ExprTranslator.cast,
    "subquery": ExprTranslator.subquery,
    "nested": ExprTranslator.nested,
}

#: Expression kinds the translation handles (``executable`` checks plans against this).
SUPPORTED_EXPRESSIONS = frozenset(_DISPATCH)

#: Expression kinds whose Column one translator builds once for all their occurrences (a field
#: reference is kept by its record; a subquery or window function is built each time).
_SHARED = frozenset(
    {
        "literal",
        "scalar_function",
        "cast",
        "if_then",
        "switch_expression",
        "singular_or_list",
        "multi_or_list",
        "nested",
    }
)

__all__ = ["ExprTranslator", "Record", "SUPPORTED_EXPRESSIONS"]


def _each_value(args: list, fn: Callable[[Column, int], Column]) -> list:
    """A call's arguments with each value argument (the ``j``-th) replaced by ``fn(value, j)``; its enum and
    type arguments kept."""
    out, j = [], 0
    for a in args:
        if isinstance(a, Column):
            out.append(fn(a, j))
            j += 1
        else:
            out.append(a)
    return out


def _literal_of(e: algebra_pb2.Expression):
    """The literal message of an argument (looking through casts), else None."""
    while e.WhichOneof("rex_type") == "cast":
        e = e.cast.input
    return e.literal if e.WhichOneof("rex_type") == "literal" else None


#: Numbers a cast may take to or from a time.
NUMBER_KINDS = INT_KINDS | {"fp32", "fp64", "decimal"}


def _interval_digits(t: type_pb2.Type) -> int:
    """The digits of a second a day-time interval type counts (unset: microseconds, as before the field)."""
    return t.interval_day.precision if t.interval_day.HasField("precision") else 6


def _constant_value(e: algebra_pb2.Expression):
    """The Python value of a literal argument (looking through casts), else ``_functions().NOT_CONSTANT``."""
    literal = _literal_of(e)
    if literal is None:
        return _functions().NOT_CONSTANT
    try:
        return literals.python_value(literal)
    except Exception:  # noqa: BLE001 - a literal we cannot read in Python is simply not a constant here
        return _functions().NOT_CONSTANT
