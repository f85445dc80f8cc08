"""What a relation's sentence is built from: its :class:`Context` (the model, the node, and how the story
names tables and other steps), and the column lists every sentence shares."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from substrait import algebra_pb2

from ..expressions import direct_field, field_references, is_true
from ..fields import Field
from ..kinds import emit, kind
from ..lineage import Origin, column_sources, node_lineage
from ..model import NodeView, PlanModel
from ..words import (
    CASE_WORDS,
    MATCH,
    Words,
    argument_values,
    capped_list,
    conjuncts,
    counted,
    found_name,
    is_column_equality,
)
from .names import SET_NAME_CHARS, holds_value_of, made_at, outer_records, placed, row_sides, spoken_record, total_noun

#: Column lists show this many names, then "and N more".
MAX_COLUMNS = 6


def as_sentence(text: str) -> str:
    """``text`` as a sentence: its first letter a capital, a full stop at its end."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "…", "?", "!")) else text + "."


def read_condition(body: algebra_pb2.ReadRel) -> algebra_pb2.Expression | None:
    """A read's filter, else its best-effort filter; None without one, or for the constant true, which
    keeps every row."""
    cond = body.filter if body.HasField("filter") else body.best_effort_filter
    return cond if (body.HasField("filter") or body.HasField("best_effort_filter")) and not is_true(cond) else None


@dataclass
class Context:
    model: PlanModel
    node: NodeView
    things: Callable[[str], str | None]  # the table a node's rows come from, when there is one
    combined: Callable[[str], str | None]  # the same, or "combined a and b rows" for a few tables
    step: Callable[[str], str]  # another node as the story calls it: "step 6" (with its id when asked)
    pairing: Callable[[str], str | None]  # rows of several tables: "a and b combined", "the 5 tables combined"
    steps: Callable[[Sequence[str]], str]  # several other nodes: "steps 2, 4 and 6"
    tables: Callable[[str], tuple[str, ...] | None]  # the named tables a node's rows come from, once per read

    @property
    def body(self):
        return self.node.node.body

    def words(self, fields: Sequence[Field] | None = None, use_incoming: bool = True) -> Words:
        incoming = self.node.info.incoming
        if use_incoming and incoming is not None:
            incoming = self.sides_told_apart(spoken_record(self.model, self.node, incoming))
        return Words(
            self.model,
            incoming if use_incoming else fields,
            outer_records(self.model, self.node.id),
            subquery_step=self.subquery_step,
        )

    def subquery_step(self, rel) -> str | None:
        """A subquery relation of this node as the story names it ("step 9")."""
        sub = self.node.node.subquery_rels.get(id(rel))
        return self.step(sub) if sub is not None else None

    def paired_by(self) -> NodeView | None:
        """The node whose two inputs this node's record is made of: a join itself, or the cross
        product (an inner join without an emit) right under a filter, whose condition then pairs
        them (DataFusion writes its joins so)."""
        node = self.node
        if kind(node.kind).joins and len(node.inputs) == 2:
            return node
        if node.kind != "filter" or not node.inputs:
            return None
        below = self.model.node(node.inputs[0])
        body = below.node.body
        pairs = below.kind in ("cross", "join") and join_type_of(body) in ("inner", "cross")
        return below if pairs and len(below.inputs) == 2 and emit(body) is None else None

    def segments(self) -> list[tuple[str, int]] | None:
        """The inputs this node's record is made of, one after another, each with its first column:
        a join's two, or, for a filter over a chain of cross products (DataFusion's joins, their keys in
        the filter), every input the chain pairs. None when the record is one input's, or a width is
        not known."""
        pair = self.paired_by()
        if pair is None:
            return None
        inputs = _chain_inputs(self.model, pair.id) if pair.id != self.node.id else list(pair.inputs)
        out, start = [], 0
        for node_id in inputs:
            schema = self.model.node(node_id).schema
            if schema is None:
                return None
            out.append((node_id, start))
            start += len(schema)
        return out

    def sides_told_apart(self, record: Sequence[Field]) -> Sequence[Field]:
        """A join's record (or a filter's over cross products) with each name several inputs have told
        apart, so that "on id is above id" is never said of two columns: by the table it is read
        from ("t0.id"), else by its side ("the left side's id") or, of three inputs or more, by the step that
        makes it ("step 12's rank"). A name one input has twice (a table joined twice below) is told
        apart by its place: "d_date_sk (the 2nd of 3)"."""
        segments = self.segments()
        if segments is None or len(segments) < 2:  # one input's record (a filter over a join with a condition)
            return self._by_place(record)
        if segments[-1][1] >= len(record):
            return record
        names = [f.name for f in record]
        if len(set(names)) == len(names):
            return record
        starts = [start for _, start in segments[1:]]
        segment = [bisect_right(starts, i) for i in range(len(record))]  # the input each column comes from
        inputs_of: dict[str, set[int]] = {}
        for n, s in zip(names, segment):
            inputs_of.setdefault(n, set()).add(s)
        summaries = [x for node_id, _ in segments for x in column_sources(self.model, node_id)]
        if len(summaries) != len(record):
            return record

        def table_of(i: int) -> str | None:
            [source, *more] = summaries[i].sources or [None]
            return source.table if source is not None and not more and source.column == names[i] else None

        tables = [table_of(i) for i in range(len(record))]
        qualified = [f"{t}.{n}" if t and len(inputs_of[n]) > 1 else n for t, n in zip(tables, names)]
        clash_of: dict[str, set[int]] = {}
        for q, s in zip(qualified, segment):
            clash_of.setdefault(q, set()).add(s)
        told = []
        for i, f in enumerate(record):
            name = qualified[i]
            if len(clash_of[name]) > 1:
                own = self._short(f.name, *segments[segment[i]], i)
                if len(segments) == 2:
                    owner = "right" if segment[i] else "left"
                    # the side as the owner, a spoken name's ("the number of rows") without its article:
                    # "left l_suppkey" read as code
                    name = f"the {owner} side's {own}"
                else:  # the step that makes it, where its words say what it is: "step 12's rank"
                    name = f"{self.step(segments[segment[i]][0])}'s {own.split(' per ')[0]}"
            told.append(name)
        # a name still said twice: by its table where that tells it apart, else by its place among the
        # columns of that name ("d_date_sk (the 2nd of 3)")
        times = Counter(told)
        per_table = Counter(zip(told, tables))
        reads: dict[int, str] = {}  # copies each read's own column: by the step that reads it
        for name in {n for n, k in times.items() if k > 1}:
            copies = [i for i, n in enumerate(told) if n == name]
            columns = {i: (segments[segment[i]][0], i - segments[segment[i]][1]) for i in copies}
            reads.update(self._read_steps(columns) or {})
        seen: Counter = Counter()
        out = []
        for i, (f, name) in enumerate(zip(record, told)):
            if times[name] > 1:
                seen[name] += 1
                if tables[i] and per_table[(name, tables[i])] == 1:
                    name = f"{tables[i]}.{name}"
                elif i in reads:
                    name = f"{self.step(reads[i])}'s {f.name}"
                else:
                    name = placed(name, seen[name], times[name])
            out.append(f if name == f.name else f.renamed(name))
        return out

    def _short(self, name: str, node_id: str, start: int, i: int) -> str:
        """Column ``i`` of a record, ``name`` in the words of input ``node_id`` (whose columns start at
        ``start``), as an owner's possession is said: without its article; a long total by its kind
        alone where the input has no other total of that kind ("step 26's sum": its words, said for each
        of six inputs, made a sentence of a page)."""
        if len(name) > SET_NAME_CHARS:
            noun = total_noun(self.model, node_id, i - start)
            width = len(self.model.node(node_id).schema or ())
            if noun is not None and [total_noun(self.model, node_id, j) for j in range(width)].count(noun) == 1:
                return noun
        return name[4:] if name.startswith("the ") else name

    def _by_place(self, record: Sequence[Field]) -> Sequence[Field]:
        """A record one input makes with a name said twice (two nations joined below, both n_name), each
        told apart where the step reads one of them: by the step that reads its copy ("step 12's n_name"),
        else by its place ("n_name (the 2nd of 2)"); a record without such a name as it is. A mark join's
        mark is said by the step that makes it ("step 23's match"): "mark (the 1st of 2)" said nothing of
        which match."""
        if len(self.node.inputs) == 1:
            below = self.node.inputs[0]
            named: list[str | None] = []
            for i in range(len(record)):
                match = match_of(self.model, below, i)
                named.append(None if match is None else match_name(match, self.step))
            if any(named):
                record = [f.renamed(n) if n else f for f, n in zip(record, named)]
        times = Counter(f.name for f in record)
        if all(k == 1 for k in times.values()):
            return record
        # where the step reads two of them; one read alone is said by its name ("product_id", the same
        # value on both sides of a join on it) unless its copies come from one table read twice (a
        # nation joined to a nation): the other copy holds another nation's n_name
        read = [i for i in fields_read(self.node.node.body) if i < len(record)]
        told = Counter(record[i].name for i in read)
        if any(times[n] > 1 and k > 1 for n, k in told.items()):
            # but copies the input equates hold one value (a join's keys): said by the name alone
            apart = {
                n
                for n, k in times.items()
                if k > 1 and not self._joined_on([i for i, f in enumerate(record) if f.name == n])
            }
        else:
            apart = {n for n in told if times[n] > 1 and self._copies_of_one_column(n, record)}
        if len(self.node.inputs) == 1:  # but copies of one value (a column and its double) by the name alone
            below = self.node.inputs[0]
            apart = {
                n
                for n in apart
                if len({holds_value_of(self.model, below, i) for i, f in enumerate(record) if f.name == n}) > 1
            }
        if not apart:
            return record
        reads: dict[int, str] = {}  # copies of a table read twice: by the step that reads each ("step 12's n_name")
        for name in apart if len(self.node.inputs) == 1 else ():
            copies = [i for i, f in enumerate(record) if f.name == name]
            reads.update(
                self._outer_sides(copies) or self._read_steps({i: (self.node.inputs[0], i) for i in copies}) or {}
            )
        seen: Counter = Counter()
        out = []
        for i, f in enumerate(record):
            if i in reads:
                out.append(f.renamed(f"{self.step(reads[i])}'s {f.name}"))
            elif f.name in apart:
                seen[f.name] += 1
                out.append(f.renamed(placed(f.name, seen[f.name], times[f.name])))
            else:
                out.append(f)
        return out

    def _outer_sides(self, copies: list[int]) -> dict[int, str] | None:
        """For copies of one name right above an outer join, one from each side: each by the side it comes
        from (TPC-DS q51's "step 9's d_date when step 9's d_date is not null", the web side's), as the null
        that join gives a side without a match is that side's, not its read's; else None."""
        below = self.model.node(self.node.inputs[0])
        body = below.node.body
        if below.kind != "join" or join_type(body) not in ("left", "right", "outer") or len(below.inputs) != 2:
            return None
        width = len(self.model.node(below.inputs[0]).schema or ())
        mapping = emit(body)
        sides = {}
        for i in copies:
            j = mapping[i] if mapping is not None and i < len(mapping) else i
            sides[i] = below.inputs[0] if j < width else below.inputs[1]
        return sides if len(set(sides.values())) == len(sides) else None

    def _read_steps(self, columns: dict[int, tuple[str, int]]) -> dict[int, str] | None:
        """For copies of one name, each given as (an input, its column) by its place in the record: the read
        each is a column of, when every copy is one read's column, each of its own (a nation table read for
        the supplier and again for the customer: the story's joins name those reads' columns by their
        steps too); else None."""
        made = {i: made_at(self.model, node_id, column)[0] for i, (node_id, column) in columns.items()}
        if all(self.model.node(n).kind == "read" for n in made.values()) and len(set(made.values())) == len(made):
            return made
        return None

    def _copies_of_one_column(self, name: str, record: Sequence[Field]) -> bool:
        """Whether the columns named ``name`` in this one-input node's record all come from the same
        source columns (one table read twice below), or alike from none (two counts of rows)."""
        if len(self.node.inputs) != 1:
            return False
        summaries = column_sources(self.model, self.node.inputs[0])
        if len(summaries) != len(record):
            return False
        copies = [i for i, f in enumerate(record) if f.name == name]
        found = {frozenset(summaries[i].sources) for i in copies}
        known = bool(next(iter(found))) or not any(summaries[i].unknown for i in copies)
        return len(found) == 1 and known and not self._joined_on(copies)

    def _joined_on(self, copies: list[int]) -> bool:
        """Whether the inner join this node reads (its whole record), or the filter it reads (over cross
        products, as DataFusion writes joins), equates these columns, one with the next: then they hold one
        value ("the same n_regionkey"), and any is said by the name alone."""
        below = self.model.node(self.node.inputs[0])
        body = below.node.body
        if below.kind == "join":
            if join_type(body) != "inner" or emit(body) is not None or not body.HasField("expression"):
                return False
            condition = body.expression
        elif below.kind == "filter" and emit(body) is None:
            condition = body.condition
        else:
            return False
        w = self.words(use_incoming=False)  # the record's own names would ask this again
        group = {i: i for i in copies}  # the copies equated so far, each by its first

        def first(i: int) -> int:
            while group[i] != i:
                i = group[i]
            return i

        for e in conjuncts(w, condition):
            if is_column_equality(w, e):
                a, b = (direct_field(v) for v in argument_values(e.scalar_function))
                if a in group and b in group:
                    group[first(a)] = first(b)
        return len({first(i) for i in copies}) == 1

    def rows_of(self, node_id: str) -> str:
        return self.things(node_id) or "rows"

    def input(self, k: int) -> str | None:
        return self.node.inputs[k] if k < len(self.node.inputs) else None

    def side(self, k: int) -> str | None:
        """Input ``k`` of a join in words: its table ("orders") or tables ("the combined customer
        and orders rows"), else the step that makes it ("the result of step 44"); None when there is
        no such input."""
        node_id = self.input(k)
        if node_id is None:
            return None
        named = self.combined(node_id)
        if named is None:
            return f"the result of {self.step(node_id)}"
        return f"the {named}" if named.startswith("combined ") else named


def reads_outer_row(model: PlanModel, node_id: str) -> bool:
    """Whether a node's rows depend on the row of a query around it: a relation below it (through its
    inputs; a subquery of its own reads its own outer rows) reads an outer reference."""
    nodes = model.graph.nodes
    stack, seen = [node_id], set()
    while stack:
        cur = stack.pop()
        if cur in seen or cur not in nodes:
            continue
        seen.add(cur)
        if _has_outer_reference(nodes[cur].body):
            return True
        stack.extend(nodes[cur].inputs)
    return False


def _has_outer_reference(body) -> bool:
    """Whether a relation's own expressions (not its inputs' or its subqueries') read an outer reference."""
    refs = field_references(body) if body is not None else []
    return any(ref.WhichOneof("root_type") == "outer_reference" for ref in refs)


def fields_read(body) -> set[int]:
    """The fields of its input record a relation's own expressions read (plain references from the
    record's root; not inside its inputs or subqueries)."""
    out: set[int] = set()
    for ref in field_references(body) if body is not None else []:
        index = direct_field(algebra_pb2.Expression(selection=ref))
        if index is not None and ref.WhichOneof("root_type") == "root_reference":
            out.add(index)
    return out


def read_first(model: PlanModel, node_id: str, width: int) -> list[int]:
    """The positions of a node's ``width`` output columns with those its condition reads first, for a
    filter or a join whose output is its whole record (a filter over 48 columns began S_ADDRESS,
    S_PHONE... where the step is about N_NAME and L_SHIPDATE); in order otherwise."""
    node = model.node(node_id)
    body = node.node.body
    whole = node.kind == "filter" or (node.kind == "join" and row_sides(node.kind, body, 2) == ([0, 1], False))
    if not whole or body is None or emit(body) is not None:
        return list(range(width))
    read = sorted(i for i in fields_read(body) if i < width)
    return read + [i for i in range(width) if i not in set(read)]


def columns_words(fields: Sequence[Field] | None, limit: int = MAX_COLUMNS) -> str:
    if not fields:
        return ""
    names = [f.name for f in fields]
    return capped_list(names, limit)


#: A name told apart by its place (:func:`placed`) or by the step that reads it ("step 12's n_name"):
#: still a name, not words.
_PLACED = re.compile(r"(\S+) \(the \d+(?:st|nd|rd|th) of \d+\)|step \d+(?: \(node [^)]*\))?'s (\S+)")


_PLACE = re.compile(r" \(the \d+(?:st|nd|rd|th) of \d+\)")
_OWNED = re.compile(r"step \d+(?: \(node [^)]*\))?'s (.+)")


def placed_of(told: str, name: str) -> bool:
    """Whether ``told`` is ``name`` told apart by its place (:func:`placed`) or its read's step."""
    if told.startswith(name) and _PLACE.fullmatch(told[len(name) :]):  # of words too: "the sum of x (the 2nd of 2)"
        return True
    m = _OWNED.fullmatch(told)
    return m is not None and name in (m.group(1), f"the {m.group(1)}")


def _passed_down(model: PlanModel, node_id: str, index: int) -> Iterator[tuple[str, Origin]]:
    """Column ``index`` of ``node_id`` with its origin there, then the column it passes on unchanged from its
    one input, and so on, down to the first node that does not pass one column on."""
    for _ in range(len(model.graph.nodes)):  # a pass-through chain is no longer than the plan
        columns = node_lineage(model, node_id).columns
        if not 0 <= index < len(columns):
            return
        origin = columns[index]
        yield node_id, origin
        if origin.kind != "passes" or len(origin.inputs) != 1:
            return
        node_id, index = origin.inputs[0]


_UNMATCHED = "(null where unmatched)"


def match_of(model: PlanModel, node_id: str, index: int) -> tuple[str, str] | None:
    """Whether column ``index`` of node ``node_id`` is a join's match, passed on unchanged up to there:
    ``("mark", the mark join)`` for a mark join's mark; ``("found", the outer join)`` for a constant true
    on an outer join's padded side, null exactly where that join found no match (DataFusion's
    decorrelated count); else None."""
    joined, twice = None, False
    for at, origin in _passed_down(model, node_id, index):
        if origin.kind == "computed":
            if origin.how.startswith("mark: "):
                return "mark", at
            found = joined is not None and not twice and origin.how == "true" and not origin.inputs
            return ("found", joined) if found else None
        if origin.kind == "passes" and origin.how.endswith(_UNMATCHED):
            twice = joined is not None  # null where either join found none
            joined = at
    return None


def match_name(match: tuple[str, str], step: Callable[[str], str]) -> str:
    """A join's match (:func:`match_of`) as the story names it, by the step that makes it (``step``): a mark
    join's "step 23's match", an outer join's "whether step 8 found a match"."""
    how, maker = match
    return step(maker) + MATCH if how == "mark" else found_name(step(maker))


def found_above(model: PlanModel, node_id: str, index: int) -> str | None:
    """The outer join above whose "found" match (:func:`match_of`) column ``index`` of ``node_id`` becomes,
    else None."""
    for _ in range(len(model.graph.nodes)):
        parent = model.graph.nodes[node_id].parent
        if not parent:
            return None
        columns = node_lineage(model, parent).columns
        up = [j for j, o in enumerate(columns) if o.kind == "passes" and o.inputs == ((node_id, index),)]
        if len(up) != 1:
            return None
        if columns[up[0]].how.endswith(_UNMATCHED):
            return parent if match_of(model, parent, up[0]) == ("found", parent) else None
        node_id, index = parent, up[0]
    return None


def column_list(names: Sequence[str]) -> str:
    """ "column a" for one name, "columns a, b and c" for more (capped at :data:`MAX_COLUMNS`); when a
    name is words ("the smallest ps_supplycost"), "2 columns: …", so that the list reads as names. The
    columns keep their order (a union lines its inputs' columns up by it); copies of a name side by side
    are said once, with how many ("0 (twice)": "(2 columns)" would read as the count of the whole list)."""
    said = {2: "twice", 3: "3 times"}
    runs: list[list] = []  # [name, copies side by side]
    for name in names:
        if runs and runs[-1][0] == name:
            runs[-1][1] += 1
        else:
            runs.append([name, 1])
    # a CASE's words in brackets: "a, x when c, otherwise 0 and b" read as more columns than there are
    runs = [[f"({n})" if CASE_WORDS in n and len(runs) > 1 else n, k] for n, k in runs]
    listed = capped_list([n if k == 1 else f"{n} ({said.get(k, f'{k} times')})" for n, k in runs], MAX_COLUMNS)
    if any(" " in n and not _PLACED.fullmatch(n) for n in names):
        return f"{counted(len(names), 'column')}: {listed}"
    return f"{'column' if len(names) == 1 else 'columns'} {listed}"


def pairs_all(model: PlanModel, node_id: str) -> bool:
    """Whether a node pairs every row of one input with every row of the other: a cross product, or
    an inner join without a condition (so DataFusion writes them)."""
    node = model.node(node_id)
    if node.kind == "cross":
        return True
    body = node.node.body
    return (
        node.kind == "join"
        and join_type(body) == "inner"
        and (not body.HasField("expression") or is_true(body.expression))
    )


def _chain_inputs(model: PlanModel, node_id: str) -> list[str]:
    """The inputs a chain of cross products (and inner joins without a condition or an emit) pairs,
    in the order of their columns; a node that pairs nothing is its own one input."""
    node = model.node(node_id)
    if len(node.inputs) != 2 or emit(node.node.body) is not None or not pairs_all(model, node_id):
        return [node_id]
    return [x for i in node.inputs for x in _chain_inputs(model, i)]


def join_type(body) -> str:
    enum = body.DESCRIPTOR.fields_by_name["type"].enum_type
    value = enum.values_by_number.get(body.type)
    name = value.name if value is not None else "JOIN_TYPE_UNSPECIFIED"
    return name.replace("JOIN_TYPE_", "").lower()


def join_type_of(body) -> str:
    return join_type(body) if "type" in body.DESCRIPTOR.fields_by_name else "cross"
