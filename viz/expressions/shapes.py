"""What an expression is, read without typing it: whether it holds a window function or a
subquery, is the literal true, is a DataFusion simple CASE, is an integer literal; a sort direction's
and a window bound's reading."""

from __future__ import annotations

from substrait import algebra_pb2

from .literals import INTEGER_LITERALS

Expression = algebra_pb2.Expression


def _messages(e: Expression):
    """Every message in ``e``, ``e`` first, not looking inside subqueries' relations."""
    stack: list = [e]
    while stack:
        msg = stack.pop()
        yield msg
        for fd, value in msg.ListFields():
            if fd.message_type is None or fd.message_type.full_name == "substrait.Rel":
                continue
            if fd.is_repeated:
                if fd.message_type.GetOptions().map_entry:
                    continue
                stack.extend(value)
            else:
                stack.append(value)


def contains_rex(e: Expression, kinds: frozenset[str]) -> bool:
    """Whether an expression of one of ``kinds`` (``rex_type`` names: ``"window_function"``,
    ``"subquery"``, ...) appears anywhere in ``e``, not looking inside subqueries' relations."""
    return any(isinstance(m, Expression) and m.WhichOneof("rex_type") in kinds for m in _messages(e))


def scalar_calls(e: Expression) -> set[int]:
    """The function anchors of the scalar functions ``e`` calls, not looking inside subqueries' relations."""
    return {m.function_reference for m in _messages(e) if isinstance(m, Expression.ScalarFunction)}


def field_references(msg) -> list[Expression.FieldReference]:
    """Every field reference in ``msg`` (an expression, or a relation's body: its own expressions), not
    looking inside relations (a relation's inputs, a subquery's)."""
    return [m for m in _messages(msg) if isinstance(m, Expression.FieldReference)]


def root_fields(e: Expression) -> set[int]:
    """The incoming fields ``e`` reads by a direct reference from the root (not an outer query's, a lambda's
    or an expression's), not looking inside subqueries' relations."""
    return {
        m.direct_reference.struct_field.field
        for m in _messages(e)
        if isinstance(m, Expression.FieldReference) and m.HasField("root_reference") and m.HasField("direct_reference")
    }


def is_true(e: Expression) -> bool:
    """Whether ``e`` is the literal ``true`` (a join "condition" that keeps every pair)."""
    return (
        e.WhichOneof("rex_type") == "literal"
        and e.literal.WhichOneof("literal_type") == "boolean"
        and e.literal.boolean
    )


def case_base(e: Expression.IfThen) -> Expression | None:
    """DataFusion writes ``CASE x WHEN v1 THEN r1 ... END`` as an if-then whose first clause holds ``x``
    as its condition and no result, each later clause's condition being a value ``v``. Returns ``x`` for
    such an if-then (two clauses or more, only the first without a result), else None."""
    ifs = e.ifs
    if len(ifs) < 2 or ifs[0].HasField("then") or not ifs[0].HasField("if"):
        return None
    if any(not c.HasField("then") for c in ifs[1:]):
        return None
    return getattr(ifs[0], "if")


def sort_direction(d: int) -> str:
    """``ASC NULLS FIRST``, ``DESC NULLS LAST``, ``CLUSTERED``... for a SortField direction
    (empty when unspecified)."""
    names = algebra_pb2.SortField.SortDirection
    if d not in names.values():
        return f"direction {d}"
    name = names.Name(d).replace("SORT_DIRECTION_", "")
    return "" if name == "UNSPECIFIED" else name.replace("_", " ")


def integer_literal(e: Expression) -> int | None:
    """The value of an expression that is an integer literal; None for any other expression."""
    if e.WhichOneof("rex_type") != "literal" or e.literal.WhichOneof("literal_type") not in INTEGER_LITERALS:
        return None
    return int(getattr(e.literal, e.literal.WhichOneof("literal_type")))


#: Window functions whose value no frame changes: they rank rows or read one at an offset.
FRAMELESS = frozenset({"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead"})


def bound_offset(side) -> int | None:
    """A window bound's row count (``Bound.Preceding`` or ``Bound.Following``): its ``offset_expr``
    when set (an integer literal; None for any other expression), else the deprecated ``offset``."""
    return integer_literal(side.offset_expr) if side.HasField("offset_expr") else int(side.offset)


def signed_bound(b) -> int | None:
    """A window bound (``WindowFunction.Bound``) as an offset from the current row: negative before it, 0
    the current row; None for the partition's end (unbounded, or no bound given). Raises ``ValueError``
    for an offset that is not an integer literal."""
    which = b.WhichOneof("kind")
    if which in ("preceding", "following"):
        n = bound_offset(getattr(b, which))
        if n is None:
            raise ValueError("a window bound's offset_expr must be an integer literal")
        return -n if which == "preceding" else n
    return 0 if which == "current_row" else None


def direct_field(e: Expression) -> int | None:
    """The index of a plain field reference ``$i`` (no nesting, no outer reference), else None."""
    if e.WhichOneof("rex_type") != "selection":
        return None
    sel = e.selection
    if sel.WhichOneof("root_type") not in (None, "root_reference"):
        return None
    if sel.WhichOneof("reference_type") != "direct_reference":
        return None
    seg = sel.direct_reference
    if seg.WhichOneof("reference_type") != "struct_field" or seg.struct_field.HasField("child"):
        return None
    return seg.struct_field.field


def and_parts(e: Expression, functions, name: str = "and") -> list[Expression]:
    """A condition's conjuncts: ``and(a, and(b, c))`` -> [a, b, c]; anything else -> [e]. ``functions``: the
    plan's function anchors to their extension functions (``ExtensionRegistry.functions``). ``name="or"``:
    its alternatives, as producers nest them (``or(or(a, b), c)``)."""
    out, stack = [], [e]
    while stack:
        cur = stack.pop()
        ref = functions.get(cur.scalar_function.function_reference) if cur.HasField("scalar_function") else None
        if ref is not None and ref.name == name:
            stack.extend(reversed([a.value for a in cur.scalar_function.arguments if a.HasField("value")]))
        else:
            out.append(cur)
    return out


def reference_field(ref: Expression.FieldReference) -> int | None:
    """The index a plain field reference ``$i`` names, else None."""
    e = Expression()
    e.selection.CopyFrom(ref)
    return direct_field(e)
