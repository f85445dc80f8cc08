"""Field references typed: a field of the input, of an outer query, of a lambda's parameters or of an
expression, then the struct fields, list elements and map keys it steps into. A part of
:class:`~viz.expressions.typer.ExpressionTyper`, which gives :meth:`_diag`, :meth:`expr`, ``node``,
``outer_steps`` and ``referenced_fields``."""

from __future__ import annotations

from collections.abc import Sequence

from substrait import algebra_pb2

from .. import types as T
from ..coercion import dictionary_values
from ..errors import error
from ..fields import Field, nested_names_for, struct_members
from .literals import literal_text
from .typed import Scope, Typed

Expression = algebra_pb2.Expression


class FieldReferences:
    """The typer's field references (see the module's docstring)."""

    def selection(self, ref: Expression.FieldReference, scope: Scope) -> Typed:
        root = ref.WhichOneof("root_type")
        prefix = "$"
        base_fields: Sequence[Field] | None
        if root == "expression":
            inner = self.expr(ref.expression, scope)
            return self._walk_segments(ref, inner.type, inner.nested, f"({inner.text})", inner.label)
        if root == "outer_reference":
            outer = ref.outer_reference
            if outer.WhichOneof("outer_reference_type") == "rel_reference":
                base_fields = scope.anchors.get(outer.rel_reference)
                prefix = f"$@{outer.rel_reference}."
                if outer.rel_reference not in scope.anchors:
                    self._diag(
                        error(
                            "unknown-rel-reference",
                            f"outer reference to relation anchor {outer.rel_reference}, which no "
                            "enclosing lateral relation declares",
                            self.node,
                        )
                    )
            else:
                steps = outer.steps_out
                self.outer_steps = max(self.outer_steps, steps)
                prefix = "^" * max(steps, 1) + "$"
                if steps < 1 or steps > len(scope.outer):
                    self._diag(
                        error(
                            "outer-reference-out-of-range",
                            f"outer reference steps out {steps} subquery boundaries, but it is "
                            f"inside {len(scope.outer)}",
                            self.node,
                        )
                    )
                    base_fields = None
                else:
                    base_fields = scope.outer[steps - 1]
        elif root == "lambda_parameter_reference":
            steps = ref.lambda_parameter_reference.steps_out
            if steps >= len(scope.lambdas):
                self._diag(
                    error(
                        "lambda-reference-out-of-range",
                        f"lambda parameter reference steps out {steps}, but only "
                        f"{len(scope.lambdas)} lambdas enclose it",
                        self.node,
                    )
                )
                base_fields = None
            else:
                params = scope.lambdas[-1 - steps]
                base_fields = [Field(f"p{i}", t, nested_names_for(t)) for i, t in enumerate(params.types)]
            prefix = "λ" * (steps + 1) + "$"
        else:
            base_fields = scope.fields
        kind = ref.WhichOneof("reference_type")
        if kind == "masked_reference":
            return Typed(None, f"{prefix}<mask>", "mask")
        seg = ref.direct_reference
        if seg.WhichOneof("reference_type") != "struct_field":
            self._diag(error("bad-field-reference", "a root field reference must start with a struct field", self.node))
            return Typed(None, f"{prefix}?", "?")
        index = seg.struct_field.field
        if base_fields is None:
            text = f"{prefix}{index}"
            return self._walk_segments_from(
                seg.struct_field.child, seg.struct_field.HasField("child"), None, (), text, text
            )
        if index < 0 or index >= len(base_fields):
            what = {"$": "input", "λ$": "lambda"}.get(prefix, "outer input")
            valid = f"0-{len(base_fields) - 1}" if base_fields else "none"
            self._diag(
                error(
                    "field-out-of-range",
                    f"field {index} is out of range: the {what} has {len(base_fields)} fields ({valid})",
                    self.node,
                )
            )
            return Typed(None, f"{prefix}{index}:?", f"field_{index}")
        if root not in ("outer_reference", "lambda_parameter_reference"):
            self.referenced_fields.add(index)
        f = base_fields[index]
        text = f"{prefix}{index}:{f.name}"
        return self._walk_segments_from(
            seg.struct_field.child, seg.struct_field.HasField("child"), f.type, f.nested, text, f.name
        )

    def _walk_segments(self, ref, t, nested, text, label) -> Typed:
        seg = ref.direct_reference
        if ref.WhichOneof("reference_type") != "direct_reference":
            return Typed(None, f"{text}<mask>", label)
        return self._walk_segments_from(seg, True, t, nested, text, label)

    def _walk_segments_from(self, seg, present: bool, t, nested, text, label) -> Typed:
        nullable_parent = bool(T.is_nullable(t)) if t is not None else False
        while present:
            which = seg.WhichOneof("reference_type")
            if which == "struct_field":
                i = seg.struct_field.field
                if t is not None and T.kind(t) == "struct":
                    members = struct_members(t, nested)
                    if 0 <= i < len(members):
                        m = members[i]
                        t, nested = m.type, m.nested
                        text, label = f"{text}.{m.name}", f"{label}.{m.name}"
                    else:
                        self._diag(
                            error(
                                "field-out-of-range",
                                f"nested field {i} is out of range: the struct has {len(members)} fields",
                                self.node,
                            )
                        )
                        t, nested, text = None, (), f"{text}.{i}"
                else:
                    if t is not None:
                        self._diag(
                            error("type-mismatch", f"struct field access on a non-struct {T.render(t)}", self.node)
                        )
                    t, nested, text = None, (), f"{text}.{i}"
                seg = seg.struct_field.child
                present = seg.ByteSize() > 0
            elif which == "list_element":
                off = seg.list_element.offset
                t = t.list.type if t is not None and T.kind(t) == "list" else None
                text, label = f"{text}[{off}]", f"{label}[{off}]"
                seg = seg.list_element.child
                present = seg.ByteSize() > 0
            elif which == "map_key":
                key = literal_text(seg.map_key.map_key)
                t = t.map.value if t is not None and T.kind(t) == "map" else None
                text, label = f"{text}[{key}]", f"{label}[{key}]"
                seg = seg.map_key.child
                present = seg.ByteSize() > 0
            else:
                break
            if nullable_parent and t is not None:
                t = T.make_nullable(t)
            nullable_parent = nullable_parent or bool(T.is_nullable(t))
        # a producer's dictionary holds its values: the calls that take it are checked with their type
        return Typed(t, text, label, tuple(nested), held=dictionary_values(t, self.dialect))
