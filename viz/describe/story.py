"""The plan's story: every node's sentence by its kind's builder (memoised beside the model, a
generic one where a builder fails), the order to tell it in, and how it names tables and steps."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from ..errors import Severity
from ..model import MemoBeside, PlanModel
from ..schema import NodeInfo
from ..words import (
    and_list,
    capped_list,
    counted,
)
from .context import match_name, match_of
from .names import (
    PAIRING,
    column_names,
    join_renames,
    renamed,
    root_renames,
    row_sides,
)
from .sentences import DESCRIBE, MAX_COLUMNS, Context, as_sentence


@dataclass
class _Memo:
    sentences: dict[tuple[bool, str], str] = field(default_factory=dict)  # (ids shown, node id) -> words
    tables: dict[str, tuple[str, ...] | None] = field(default_factory=dict)
    steps: dict[str, int] | None = None
    failures: dict[str, str] = field(default_factory=dict)
    spoken: PlanModel | None = None  # the model as Present draws it


#: This module's memo for a model, kept beside it (not in it) for as long as it lives.
_memo = MemoBeside(_Memo)


def _tables(model: PlanModel, node_id: str) -> tuple[str, ...] | None:
    """The named tables a node's rows come from, once per read (inputs followed, subqueries not),
    in the order the plan reads them (left before right); None when some leaf is not a named table.
    Bottom-up (the graph's post-order), memoised."""
    memo = _memo(model).tables
    nodes = model.graph.nodes
    for cur in model.graph.post_order([node_id], subqueries=False, done=memo):
        node = nodes[cur]
        if not node.inputs:
            body = node.body
            named = node.kind == "read" and body.WhichOneof("read_type") == "named_table" and body.named_table.names
            memo[cur] = (body.named_table.names[-1],) if named else None
            continue
        # an input still unknown here (a cycle) counts as None; a semi, anti or mark join's rows are its
        # kept side's alone
        parts = [memo.get(node.inputs[k]) for k in row_sides(node.kind, node.body, len(node.inputs))[0]]
        if any(p is None for p in parts) or node.kind == "aggregate" or (node.kind == "set" and len(parts) > 1):
            # an aggregate's rows are its groups, not a table's rows; a set operation's are stacked (or
            # matched) rows of its inputs, not their tables' rows combined
            memo[cur] = None
        elif node.kind in PAIRING or node.kind == "set":
            memo[cur] = tuple(t for p in parts for t in p)
        else:  # one input, or a reference to a shared one: the same rows
            memo[cur] = parts[0] if len(parts) == 1 else tuple(dict.fromkeys(t for p in parts for t in p))
    return memo[node_id]


def _things(model: PlanModel, combined: bool = False) -> Callable[[str], str | None]:
    """Names a node's rows by their table ("orders"); with ``combined``, rows of two or three
    tables become "combined orders and customer rows", of more "combined rows of 5 tables" (a
    table read twice said so: "5 tables (7 reads)", which a chain of joins counts up). None when there is
    no such name."""

    def things(node_id: str) -> str | None:
        if node_id not in model.graph.nodes:
            return None
        reads = _tables(model, node_id)
        if not reads:
            return None
        tables = list(dict.fromkeys(reads))
        if len(tables) == 1 and (len(reads) == 1 or not combined):
            return tables[0]
        if combined and len(tables) == len(reads) <= 3:
            return f"combined {and_list(tables)} rows"
        if combined:
            return f"combined rows of {_counted_reads(tables, reads)}"
        return None

    return things


def _pairing(model: PlanModel) -> Callable[[str], str | None]:
    """Names the rows of a node that combines tables (a cross product's input that is itself a
    combination) as the tables combined: "customer and orders combined" for two or three, "the 5
    tables combined" for more (counted as :func:`_things` counts them). None for one table's rows
    or rows that have no such name."""

    def pairing(node_id: str) -> str | None:
        if node_id not in model.graph.nodes:
            return None
        reads = _tables(model, node_id)
        if not reads or len(reads) == 1:
            return None
        tables = list(dict.fromkeys(reads))
        if len(tables) == len(reads) <= 3:
            return f"{and_list(tables)} combined"
        return f"the {_counted_reads(tables, reads)} combined"

    return pairing


def _counted_reads(tables: list[str], reads: tuple[str, ...]) -> str:
    """ "5 tables", or "5 tables (7 reads)" where some is read more than once: "7 tables" of TPC-DS q17's
    five, date_dim read three times, sent an analyst counting."""
    if len(tables) == 1:
        return f"{len(reads)} reads of {tables[0]}"
    return f"{len(tables)} tables" + (f" ({len(reads)} reads)" if len(reads) > len(tables) else "")


def _step(model: PlanModel, ids: bool) -> Callable[[str], str]:
    """Names another node as the story does: "step 6", its place in :func:`story_order`; with
    ``ids`` its node id too ("step 6 (node 0.0*4)")."""
    memo = _memo(model)
    if memo.steps is None:
        memo.steps = {node_id: i for i, node_id in enumerate(story_order(model), start=1)}
    steps = memo.steps

    def step(node_id: str) -> str:
        number = steps.get(node_id)
        if number is None:
            return f"node {node_id}"
        return f"step {number} (node {node_id})" if ids else f"step {number}"

    return step


def _steps(model: PlanModel, ids: bool) -> Callable[[Sequence[str]], str]:
    """Names several nodes as the story does: "steps 2, 4 and 6"; with ``ids`` each with its node id
    ("step 2 (node 0), step 4 (node 1) and step 6 (node 2)")."""
    step = _step(model, ids)
    numbers = _memo(model).steps or {}

    def steps(node_ids: Sequence[str]) -> str:
        if len(node_ids) > 1 and not ids and all(n in numbers for n in node_ids):
            return "steps " + and_list([str(numbers[n]) for n in node_ids])
        return and_list([step(n) for n in node_ids])

    return steps


def describe(model: PlanModel, node_id: str, ids: bool = False) -> str:
    """One or two plain sentences saying what node ``node_id`` does. Another node is named by its
    step in :func:`story_order` ("the filter at step 6"), with its node id only when ``ids`` (the
    technical marks). Never raises for a node of the model: a describer that fails yields a generic
    sentence (and :func:`describe_failures` lists it)."""
    memo = _memo(model)
    if (ids, node_id) in memo.sentences:
        return memo.sentences[(ids, node_id)]
    node = model.node(node_id)
    describer = DESCRIBE.get(node.kind)
    text = ""
    if describer is not None:
        try:
            text = describer(
                Context(
                    model,
                    node,
                    _things(model),
                    _things(model, combined=True),
                    _step(model, ids),
                    _pairing(model),
                    _steps(model, ids),
                    functools.partial(_tables, model),
                )
            )
        except Exception as exc:  # an odd plan must not stop the story: say so generically
            memo.failures[node_id] = f"{type(exc).__name__}: {exc}"
            text = ""
    if not text:
        from ..render import title

        inputs = len(node.inputs)
        name = title(node.kind)
        article = "An" if name[:1].lower() in "aeiou" else "A"
        text = as_sentence(f"{article} {name} step" + (f" over {counted(inputs, 'input')}" if inputs else ""))
    back = _back_to(model, node, ids)
    if back and text[:1].isupper() and text[1:2].islower():  # a verb, not a name: "Keeps" -> "keeps"
        text = text[0].lower() + text[1:]
    text = back + text + _passed_on(model, node_id)
    if node_id not in model.roots:  # a join's output naming a column otherwise than its input
        renamed = [f"{was} is named {name}" for was, name in join_renames(model, node_id)]
        if renamed:
            text += " " + as_sentence("From here on, " + capped_list(renamed, MAX_COLUMNS, "more renamed"))
    if node_id in model.roots:
        renamed = [f"{was} is named {name}" for was, name in root_renames(model, node_id)]
        if renamed:
            text += " " + as_sentence("In the result, " + capped_list(renamed, MAX_COLUMNS, "more renamed"))
    memo.sentences[(ids, node_id)] = text
    return text


#: Relations whose sentence names their inputs ("Joins orders to the result of step 9").
_NAME_THEIR_INPUTS = PAIRING | {"set", "reference", "extension_multi"}


def _back_to(model: PlanModel, node, ids: bool) -> str:
    """ "Back to the rows of step 3: " where a one-input relation's input is not the step told just before
    it (a subquery's steps came between): the step before, often with a column of the same name, is not
    the one it reads."""
    if len(node.inputs) != 1 or node.kind in _NAME_THEIR_INPUTS:
        return ""
    step = _step(model, ids)  # makes the story's numbering, once
    steps = _memo(model).steps or {}
    at, below = steps.get(node.id), steps.get(node.inputs[0])
    if at is None or below is None or below == at - 1:
        return ""
    return f"Back to the rows of {step(node.inputs[0])}: "


#: Relations whose sentence says what they compute, each column by name: their emit needs no words of its own.
_SAY_THEIR_COLUMNS = frozenset({"project", "aggregate", "read", "reference", "window", "expand"})


def _passed_on(model: PlanModel, node_id: str) -> str:
    """For a relation whose emit passes on fewer columns than it has (a filter that keeps its rows' product_id
    alone), a sentence naming them; else nothing."""
    node = model.node(node_id)
    if node.kind in _SAY_THEIR_COLUMNS or node.schema is None or node.info.direct is None:
        return ""
    if len(node.schema) >= len(node.info.direct):
        return ""
    names = column_names(model, node_id) or [f.name for f in node.schema]
    if not names:
        return " " + as_sentence("It passes on no column, only the number of its rows")
    return " " + as_sentence(f"It passes on only {capped_list(names, MAX_COLUMNS)}")


def describe_plan(model: PlanModel, ids: bool = False) -> dict[str, str]:
    """Every node's sentence, by node id (memoised on the model); node ids in them only when ``ids``."""
    return {node_id: describe(model, node_id, ids) for node_id in model.graph.nodes}


def describe_failures(model: PlanModel) -> dict[str, str]:
    """Nodes whose describer failed (and got a generic sentence), with the error: for tests."""
    describe_plan(model)
    return dict(_memo(model).failures)


def story_order(model: PlanModel) -> list[str]:
    """Node ids from the leaves to the roots (inputs before the nodes that read them, subqueries
    before their enclosing node), each once: the order to tell a plan's story in."""
    return model.graph.post_order()


def story_column_names(model: PlanModel, node_id: str) -> list[str] | None:
    """:func:`column_names` of node ``node_id`` as the story's sentences say them: a join's match by the
    step that makes it ("step 19's match", "whether step 8 found a match"), not by the plan's "mark"."""
    names = column_names(model, node_id)
    if names is None:
        return None
    step = _step(model, ids=False)
    out = list(names)
    for i in range(len(out)):
        match = match_of(model, node_id, i)
        if match is not None:
            out[i] = match_name(match, step)
    return out


def spoken_model(model: PlanModel) -> PlanModel:
    """The model as an analyst reads its drawing: every node's output columns named as
    :func:`story_column_names` names them (``revenue``, not ``sum(multiply(…``; "step 19's match", not
    "mark"), in its schema and in its detail's references to its inputs' columns (a sort's
    ``$1:revenue DESC``). The model itself when no name changes. For drawing only
    (:func:`viz.render.to_dot`): its digest is the plan's, as the model's. Memoised."""
    memo = _memo(model)
    if memo.spoken is not None:
        return memo.spoken
    infos = dict(model.infos)
    told: dict[str, list[str] | None] = {}  # each node's names, read for it and for the node above it

    def names(node_id: str) -> list[str] | None:
        if node_id not in told:
            told[node_id] = story_column_names(model, node_id)
        return told[node_id]

    for node_id in model.graph.nodes:
        try:
            infos[node_id] = _spoken_info(model, node_id, names)
        except Exception:  # an odd plan: this node as the producer names it
            continue
    changed = any(infos[n] is not model.infos[n] for n in infos)
    memo.spoken = replace(model, infos=infos) if changed else model
    return memo.spoken


def _spoken_info(model: PlanModel, node_id: str, names: Callable[[str], list[str] | None]) -> NodeInfo:
    """Node ``node_id``'s info for :func:`spoken_model` (itself when none of its names changes); ``names``: a
    node's :func:`story_column_names`."""
    node = model.node(node_id)
    info = node.info
    schema, incoming = info.schema, info.incoming or []
    own = names(node_id) if schema is not None else None
    if own is not None and len(own) == len(schema) and any(f.name != n for f, n in zip(schema, own)):
        schema = list(renamed(schema, own) or schema)
    detail = info.detail
    told = [names(i) for i in node.inputs] if detail else []
    if detail and all(t is not None for t in told) and sum(map(len, told)) == len(incoming):
        for i, (before, after) in enumerate(zip(incoming, (n for t in told for n in t))):
            if before.name != after:  # "or($8:step 23's match, …)", as the step's columns say it
                detail = detail.replace(f"${i}:{before.name}", f"${i}:{after}")
    if schema is info.schema and detail == info.detail:
        return info
    return replace(info, schema=schema, detail=detail)


_NODE_ID = re.compile(r"\bnode ([0-9][\w.*]*)")


def in_steps(text: str, model: PlanModel) -> str:
    """A run's note or error with each node id said as the story's step ("node 0.0*4" -> "step 7"),
    for an audience that reads steps; an id the plan has not is kept."""
    step = _step(model, ids=False)
    return _NODE_ID.sub(lambda m: step(m[1]) if m[1] in model.graph.nodes else m[0], text)


def errors_said(model: PlanModel) -> str | None:
    """For an audience: that the plan has errors, on which steps, and what follows; None when it has none
    (the story tells a broken plan in sentences as plain as a sound one's)."""
    errors = [d for d in model.all_diagnostics() if d.severity is Severity.ERROR]
    if not errors:
        return None
    order = {node_id: i for i, node_id in enumerate(story_order(model), start=1)}
    steps = sorted({order[d.node] for d in errors if d.node in order})
    where = f" (step{'s' if len(steps) > 1 else ''} {and_list([str(n) for n in steps])})" if steps else ""
    n = len(errors)
    return (
        f"This plan has {n} error{'s' if n > 1 else ''}{where}: what {'those steps say' if steps else 'it says'} "
        "may not be what a consumer does with it. Inspect lists them; “Show the technical marks” shows them on "
        "the graph."
    )


def story_runs(order: Sequence[str], sentences: dict[str, str]) -> list[tuple[int, int]]:
    """The story told without saying one thing twice in a row: ``(start, end)`` index ranges of
    ``order``, each a run of steps one after another whose sentences are the same (two reads of one
    table for a self-join) — one line each."""
    runs: list[tuple[int, int]] = []
    start = 0
    while start < len(order):
        end = start + 1
        while end < len(order) and sentences[order[end]] == sentences[order[start]]:
            end += 1
        runs.append((start, end))
        start = end
    return runs
