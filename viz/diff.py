"""Compare two plans: which relations correspond, and what differs between the ones that do.

``diff_plans(a, b)`` matches the nodes of plan ``a`` to nodes of plan ``b`` and gives every node a
status: ``same``, ``changed`` (matched, with its differences), ``removed`` (only in ``a``) or
``added`` (only in ``b``). The matching is built to survive what differs between producers of the
same query (isthmus and DataFusion, say): projects and filters in other places, a cross product plus
a filter in one plan where the other has a join, swapped join inputs, upper- and lower-case names.

How nodes are matched, in four passes (GumTree-like):

1. identical subtrees: a subtree whose structural hash occurs exactly once in each plan is matched
   node for node (so a plan diffed with itself maps every node to itself);
2. the roots, in plan order;
3. best score first: every pair of nodes of the same family (joins with cross products, sorts with
   Top-N, ...) is scored on the tables read below them, their output column names and types, the
   words of their expressions, the tables read around them and their kind; pairs are taken best
   first when they keep the matching consistent (a matched ancestor of one side maps to an ancestor
   of the other, and likewise for descendants);
4. propagation: unmatched children of matched pairs, and unmatched parents of matched pairs, are
   paired when their families agree and the pair stays consistent.

Pure and deterministic: the same two plans always give the same diff. Per-node features are
computed once.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from . import types as T
from .fields import Field
from .kinds import KINDS
from .model import NodeView, PlanModel, producer_name
from .words import and_list, capped_list

STATUSES = ("same", "changed", "removed", "added")

#: Kinds that do the same job and may correspond between producers (``viz.kinds``); a kind not listed is its own family.
FAMILY = {k: v.matches for k, v in KINDS.items() if v.matches != k}

#: Below this score the best-first pass does not pair two nodes.
MIN_SCORE = 0.45
#: Below this score propagation does not pair children or parents of a matched pair.
MIN_PROPAGATED = 0.3

_WEIGHTS = {"kind": 0.10, "tables": 0.30, "names": 0.20, "types": 0.05, "exprs": 0.20, "context": 0.15}
_FIELD_REF = re.compile(r"\$\d+:?")
_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|\d+(?:\.\d+)?|'[^']*'")


def kind_title(kind: str | None) -> str | None:
    """A relation kind as the graph titles it ("Cross", "HashJoin"), so that the diff's words match the
    rest of the app's; None stays None."""
    if kind is None:
        return None
    k = KINDS.get(kind)
    return k.title if k is not None else kind


@dataclass(frozen=True)
class Difference:
    """One difference between two matched nodes.

    ``aspect`` is ``kind``, ``schema``, ``expression`` or ``detail``. For schema differences ``what``
    is ``name``, ``type``, ``nullability``, ``only in a``, ``only in b`` or ``moved`` and ``index``
    is the field index (in ``a``; for ``only in b`` in ``b``; for ``moved``, ``a`` and ``b`` hold the
    two indices), and ``index_b`` the field's index in ``b`` where it is another (a column both sides
    name alike, at another position). For expressions ``what`` is the role (``condition``, ``measure``,
    ``$4``, ...).
    """

    aspect: str
    what: str
    a: str | None
    b: str | None
    index: int | None = None
    index_b: int | None = None

    def subject(self) -> str:
        """What the difference is about: "kind", "field 1 type", "field 2", "C_CUSTKEY moved",
        "expression condition". The aspect is said once, since for kinds and details it is also the
        ``what``; a field only one side has is "field 2", the side being the one with a value."""
        if self.aspect == "schema" and self.what.startswith("moved "):
            return f"{self.what[len('moved ') :]} moved"
        if self.aspect == "schema" and self.index is not None:
            where = str(self.index) if self.index_b is None else f"{self.index}→{self.index_b}"
            return f"field {where}" + ("" if self.what.startswith("only in ") else f" {self.what}")
        if self.aspect == "schema" and self.what == "known":
            return "schema"
        return self.aspect if self.what == self.aspect else f"{self.aspect} {self.what}"

    def sides(self) -> tuple[str | None, str | None]:
        """The two values as the app words them: kinds by their titles ("Cross"), a moved field's
        positions as "field 4"; None where a side has none."""
        if self.aspect == "kind":
            return kind_title(self.a), kind_title(self.b)
        if self.aspect == "schema" and self.what.startswith("moved "):
            return (None if self.a is None else f"field {self.a}", None if self.b is None else f"field {self.b}")
        return self.a, self.b

    def text(self) -> str:
        """The difference in words: "kind: Cross → Join", "field 1 type: i32 → i64", "field 2 only in
        a: s i64", "C_CUSTKEY moved: field 0 → field 4"; a side without a value reads "only in", so that
        no placeholder stands for it."""
        subject = self.subject()
        a, b = self.sides()
        if a is None and b is None:
            return subject
        if a is None or b is None:
            return f"{subject} only in {'b' if a is None else 'a'}: {a if b is None else b}"
        return f"{subject}: {a} → {b}"

    def to_json(self) -> dict:
        out = {"aspect": self.aspect, "what": self.what, "index": self.index, "a": self.a, "b": self.b}
        return out if self.index_b is None else {**out, "index_b": self.index_b}

    def fields(self) -> tuple[set[int], set[int]]:
        """The field indices this difference is about, in ``a`` and in ``b`` (schema differences only)."""
        if self.aspect != "schema" or self.index is None:
            return set(), set()
        in_a = set() if self.what == "only in b" else {self.index}
        in_b = set() if self.what == "only in a" else {self.index if self.index_b is None else self.index_b}
        if self.what.startswith("moved ") and self.b is not None:
            in_b.add(int(self.b))
        return in_a, in_b


#: Characters of a value a one-line summary still quotes (an expression, a detail); a longer one is
#: named by its role only, and the matched pair's detail shows it.
SUMMARY_VALUE_CHARS = 40
#: The schema differences said once for all the fields they touch, with their plural subject.
_FIELD_GROUPS = {
    "name": "names",
    "type": "types",
    "nullability": "nullability",
    "only in a": "",
    "only in b": "",
}


def summarize(differences: list[Difference]) -> str:
    """The differences of one pair in a line, for a table. A schema difference of three fields or more,
    or of two alike, is said once ("nullability of fields 0, 2 and 3: required → nullable", "names of
    fields 0–3", "fields 4 and 5 only in a", "8 fields moved (C_CUSTKEY, O_ORDERKEY and 6 more)"), and
    so are three expressions or more alike ("expressions $8, $9 and $10 only in b"); a value too long
    to quote is left to the matched pair's detail ("expression sort 1"). Each difference in full is
    :meth:`Difference.text`."""
    groups: dict[object, list[Difference]] = {}
    for d in differences:
        groups.setdefault(_group(d), []).append(d)
    out = []
    for key, members in groups.items():
        values = {m.sides() for m in members}
        if key is None or len(members) == 1 or (len(members) == 2 and len(values) == 2):
            out += [_short(m) for m in members]
        elif key == "moved":
            names = [m.what[len("moved ") :] for m in members]
            out.append(f"{len(members)} fields moved ({capped_list(names, 2)})")
        elif isinstance(key, tuple):  # expressions alike: only in a, only in b, or changed
            roles = capped_list([m.what for m in members], 4)
            out.append(f"expressions {roles}" + ("" if key[1] == "changed" else f" {key[1]}"))
        else:
            first = members[0]
            fields = _fields_text(sorted(m.index for m in members if m.index is not None))
            plural = _FIELD_GROUPS[first.what]
            said = f"{fields} {first.what}" if not plural else f"{plural} of {fields}"
            if len(values) == 1 and first.what != "name":
                a, b = first.sides()
                said += f": {a if b is None else b}" if a is None or b is None else f": {a} → {b}"
            out.append(said)
    return "; ".join(out)


def _group(d: Difference) -> object:
    """The group :func:`summarize` says ``d`` with: a schema aspect, "moved", an expression's status;
    None for a difference said alone."""
    if d.aspect == "schema" and d.index is not None and d.what in _FIELD_GROUPS:
        return d.what
    if d.aspect == "schema" and d.what.startswith("moved "):
        return "moved"
    if d.aspect == "expression":
        return ("expression", "only in b" if d.a is None else "only in a" if d.b is None else "changed")
    return None


def _short(d: Difference) -> str:
    """``d.text()``, or its subject alone when a value is too long for a line."""
    long = any(len(v or "") > SUMMARY_VALUE_CHARS for v in d.sides())
    if long and (d.aspect in ("expression", "detail") or (d.aspect == "schema" and d.what == "name")):
        return d.subject()
    return d.text()


def _fields_text(indices: list[int]) -> str:
    """ "fields 0, 2 and 3", with a run of three or more as a range: "fields 0–3, 7"."""
    parts: list[str] = []
    i = 0
    while i < len(indices):
        j = i
        while j + 1 < len(indices) and indices[j + 1] == indices[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{indices[i]}–{indices[j]}")
            i = j + 1
        else:
            parts.append(str(indices[i]))
            i += 1
    return ("field " if len(indices) == 1 else "fields ") + and_list(parts)


@dataclass(frozen=True)
class NodeDiff:
    """The status of one node, or of one matched pair (then ``a`` and ``b`` are both set)."""

    status: str  # one of STATUSES
    a: str | None  # node id in plan a
    b: str | None  # node id in plan b
    kind_a: str | None
    kind_b: str | None
    number: int | None = None  # the match number shared by both sides ("#3"), for matched pairs
    score: float | None = None  # how alike the pair looked when it was matched
    differences: tuple[Difference, ...] = ()

    def to_json(self) -> dict:
        return {
            "status": self.status,
            "a": self.a,
            "b": self.b,
            "kind_a": self.kind_a,
            "kind_b": self.kind_b,
            "number": self.number,
            "score": None if self.score is None else round(self.score, 3),
            "differences": [d.to_json() for d in self.differences],
        }


@dataclass
class PlanDiff:
    """The result of :func:`diff_plans`."""

    matches: dict[str, str]  # a node id -> b node id
    entries: list[NodeDiff]  # matched pairs in plan a's node order, then removed, then added
    ignore_case: bool = False
    ignore_nullability: bool = False
    by_a: dict[str, NodeDiff] = field(default_factory=dict)
    by_b: dict[str, NodeDiff] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for e in self.entries:
            if e.a is not None:
                self.by_a[e.a] = e
            if e.b is not None:
                self.by_b[e.b] = e

    @property
    def summary(self) -> dict[str, int]:
        counts = Counter(e.status for e in self.entries)
        return {s: counts.get(s, 0) for s in STATUSES}

    def status_a(self, node_id: str) -> str:
        return self.by_a[node_id].status

    def status_b(self, node_id: str) -> str:
        return self.by_b[node_id].status

    def pairs(self) -> list[NodeDiff]:
        """The matched pairs, by match number."""
        return [e for e in self.entries if e.a is not None and e.b is not None]

    def rows(self) -> list[dict[str, str]]:
        """One flat row per entry, for a table: status, #, ids, kinds (as the graph titles them) and the
        differences as text. Every cell is text, empty where a side has none (a removed node has no
        number and no b), so that a table shows no "None"; a change of kind is left to the kind column,
        which already reads "Cross → Join"."""
        return [
            {
                "status": e.status,
                "#": "" if e.number is None else str(e.number),
                "a": e.a or "",
                "b": e.b or "",
                "kind": kind_title(e.kind_a)
                if e.kind_a == e.kind_b or e.kind_b is None
                else (kind_title(e.kind_b) if e.kind_a is None else f"{kind_title(e.kind_a)} → {kind_title(e.kind_b)}"),
                "differences": summarize([d for d in e.differences if d.aspect != "kind"]),
            }
            for e in self.entries
        ]

    def to_json(self) -> dict:
        return {
            "summary": self.summary,
            "ignore_case": self.ignore_case,
            "matches": dict(self.matches),
            "entries": [e.to_json() for e in self.entries],
        }


# ---------------------------------------------------------------------------------------------
# Per-node features, computed once per node
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Features:
    kind: str
    family: str
    tables: frozenset[str]  # named tables read in the subtree (last name part, case-folded)
    names: frozenset[tuple[str, int]]  # output column names, case-folded, as a multiset (name, k-th)
    types: frozenset[tuple[str, int]]  # output column types, as a multiset
    words: frozenset[str]  # words of the expressions and detail, case-folded, field indices dropped
    hash: str  # structural hash of the subtree: equal hashes mean identical subtrees


def _table_of(node: NodeView) -> frozenset[str]:
    rel = node.node.body
    if node.kind == "read" and rel is not None and rel.WhichOneof("read_type") == "named_table":
        names = list(rel.named_table.names)
        return frozenset({names[-1].casefold()}) if names else frozenset()
    return frozenset()


def _own_text(node: NodeView) -> str:
    schema = node.schema or []
    parts = [node.kind, node.info.detail]
    parts += [f"{r}={t}" for r, t in node.info.expressions]
    parts += [f"{f.name}:{f.type_text()}" for f in schema]
    return "\x1f".join(parts)


class _Side:
    """One plan's nodes with memoised features, parents, ancestors and descendants."""

    def __init__(self, model: PlanModel) -> None:
        self.model = model
        self.graph = model.graph
        self.order = list(model.graph.nodes)
        self.position = {n: i for i, n in enumerate(self.order)}
        # Every reader of a node, through an input, a reference or a subquery.
        self.parents: dict[str, list[str]] = {n: self.graph.parents(n, subqueries=True) for n in self.order}
        self._features: dict[str, _Features] = {}
        self._anc: dict[str, frozenset[str]] = {}
        self._desc: dict[str, frozenset[str]] = {}
        self._context: dict[str, frozenset[str]] = {}

    def children(self, node_id: str) -> list[str]:
        return [c for c in self.graph.children(node_id) if c in self.graph.nodes]

    def features(self, node_id: str) -> _Features:
        hit = self._features.get(node_id)
        if hit is not None:
            return hit
        # Bottom-up in the graph's post-order (iterative: plans can be thousands of relations deep).
        for cur in self.graph.post_order([node_id], done=self._features):
            self._features[cur] = self._compute(cur, [self._features.get(k) for k in self.children(cur)])
        return self._features[node_id]

    def _compute(self, node_id: str, kids: list[_Features | None]) -> _Features:
        node = self.model.node(node_id)
        schema = node.schema or []
        tables = _table_of(node).union(*(k.tables for k in kids if k is not None))
        text = " ".join([node.info.detail, *(t for _, t in node.info.expressions)])
        words = frozenset(w.casefold() for w in _WORD.findall(_FIELD_REF.sub(" ", text)))
        digest = hashlib.sha1(_own_text(node).encode())
        for k in kids:
            digest.update(b"|" + (k.hash.encode() if k is not None else b"cycle"))
        return _Features(
            kind=node.kind,
            family=FAMILY.get(node.kind, node.kind),
            tables=tables,
            names=_multiset(f.name.casefold() for f in schema),
            types=_multiset(f.type_text() for f in schema),
            words=words,
            hash=digest.hexdigest(),
        )

    def ancestors(self, node_id: str) -> frozenset[str]:
        hit = self._anc.get(node_id)
        if hit is None:
            hit = self._anc[node_id] = frozenset(self.graph.ancestors(node_id))
        return hit

    def descendants(self, node_id: str) -> frozenset[str]:
        hit = self._desc.get(node_id)
        if hit is None:
            hit = self._desc[node_id] = frozenset(self.graph.subtree(node_id)) - {node_id}
        return hit

    def context(self, node_id: str) -> frozenset[str]:
        """The tables read under the node's parents: where in the plan the node sits."""
        hit = self._context.get(node_id)
        if hit is None:
            out: set[str] = set()
            for p in self.parents[node_id]:
                out |= self.features(p).tables
            hit = self._context[node_id] = frozenset(out)
        return hit


def _multiset(items) -> frozenset[tuple[str, int]]:
    seen: Counter = Counter()
    out = []
    for item in items:
        out.append((item, seen[item]))
        seen[item] += 1
    return frozenset(out)


def _jaccard(x: frozenset, y: frozenset) -> float:
    if not x and not y:
        return 1.0
    return len(x & y) / len(x | y)


def _score(sa: _Side, a: str, sb: _Side, b: str) -> float:
    fa, fb = sa.features(a), sb.features(b)
    if fa.family != fb.family:
        return 0.0
    if fa.kind == "read" and fa.tables != fb.tables:
        return 0.0  # a read only ever corresponds to a read of the same table
    if (fa.tables or fb.tables) and not (fa.tables & fb.tables):
        return 0.0
    parts = {
        "kind": 1.0 if fa.kind == fb.kind else 0.6,
        "tables": _jaccard(fa.tables, fb.tables),
        "names": _jaccard(fa.names, fb.names),
        "types": _jaccard(fa.types, fb.types),
        "exprs": _jaccard(fa.words, fb.words),
        "context": 1.0 if not sa.parents[a] and not sb.parents[b] else _jaccard(sa.context(a), sb.context(b)),
    }
    return sum(_WEIGHTS[k] * v for k, v in parts.items())


# ---------------------------------------------------------------------------------------------
# Matching
# ---------------------------------------------------------------------------------------------


class _Matching:
    def __init__(self, sa: _Side, sb: _Side) -> None:
        self.sa, self.sb = sa, sb
        self.ab: dict[str, str] = {}
        self.ba: dict[str, str] = {}
        self.scores: dict[str, float] = {}

    def consistent(self, a: str, b: str) -> bool:
        """Whether pairing a with b keeps ancestors mapped to ancestors and descendants to descendants."""
        sa, sb = self.sa, self.sb
        anc_a, anc_b = sa.ancestors(a), sb.ancestors(b)
        if any(x in self.ab and self.ab[x] not in anc_b for x in anc_a):
            return False
        if any(y in self.ba and self.ba[y] not in anc_a for y in anc_b):
            return False
        desc_a, desc_b = sa.descendants(a), sb.descendants(b)
        if any(x in self.ab and self.ab[x] not in desc_b for x in desc_a):
            return False
        if any(y in self.ba and self.ba[y] not in desc_a for y in desc_b):
            return False
        return True

    def add(self, a: str, b: str, score: float) -> bool:
        if a in self.ab or b in self.ba or not self.consistent(a, b):
            return False
        self.ab[a], self.ba[b], self.scores[a] = b, a, score
        return True

    def identical(self, a: str, b: str) -> None:
        """Match two identical subtrees node for node."""
        stack = [(a, b)]
        while stack:
            x, y = stack.pop()
            if x in self.ab or y in self.ba:
                continue
            if self.add(x, y, 1.0):
                stack.extend(zip(self.sa.children(x), self.sb.children(y)))

    def unique_identical_subtrees(self) -> None:
        ha = Counter(self.sa.features(n).hash for n in self.sa.order)
        hb = Counter(self.sb.features(n).hash for n in self.sb.order)
        first_b = {self.sb.features(n).hash: n for n in reversed(self.sb.order)}
        # Largest subtrees first, so a whole identical plan maps as one piece.
        candidates = [
            n for n in self.sa.order if ha[self.sa.features(n).hash] == 1 and hb[self.sa.features(n).hash] == 1
        ]
        candidates.sort(key=lambda n: (-len(self.sa.descendants(n)), self.sa.position[n]))
        for n in candidates:
            self.identical(n, first_b[self.sa.features(n).hash])

    def roots(self, any_family: bool = False) -> None:
        """Pair the roots in plan order: first those of one family; at the end (``any_family``) the
        rest, when nothing else took them (an aggregate root against a project over an aggregate
        leaves the aggregates to match each other)."""
        for ra, rb in zip(self.sa.model.roots, self.sb.model.roots):
            if ra not in self.ab and rb not in self.ba:
                same = self.sa.features(ra).family == self.sb.features(rb).family
                if same or any_family:
                    self.add(ra, rb, _score(self.sa, ra, self.sb, rb))

    def best_first(self) -> None:
        by_family: dict[str, list[str]] = {}
        for y in self.sb.order:
            if y not in self.ba:
                by_family.setdefault(self.sb.features(y).family, []).append(y)
        candidates = []
        for x in self.sa.order:
            if x in self.ab:
                continue
            for y in by_family.get(self.sa.features(x).family, ()):
                s = _score(self.sa, x, self.sb, y)
                if s >= MIN_SCORE:
                    candidates.append((-s, self.sa.position[x], self.sb.position[y], x, y))
        candidates.sort()
        for neg, _, _, x, y in candidates:
            if x not in self.ab and y not in self.ba:
                self.add(x, y, -neg)

    def _pair_best(self, xs: list[str], ys: list[str]) -> bool:
        options = []
        for x in xs:
            for y in ys:
                s = _score(self.sa, x, self.sb, y)
                if s >= MIN_PROPAGATED:
                    options.append((-s, self.sa.position[x], self.sb.position[y], x, y))
        changed = False
        for neg, _, _, x, y in sorted(options):
            if x not in self.ab and y not in self.ba:
                changed |= self.add(x, y, -neg)
        return changed

    def propagate(self) -> None:
        changed = True
        while changed:
            changed = False
            for x in list(self.sa.order):
                y = self.ab.get(x)
                if y is None:
                    continue
                kids_a = [c for c in self.sa.children(x) if c not in self.ab]
                kids_b = [c for c in self.sb.children(y) if c not in self.ba]
                if kids_a and kids_b:
                    changed |= self._pair_best(kids_a, kids_b)
                pa = [p for p in self.sa.parents[x] if p not in self.ab]
                pb = [p for p in self.sb.parents[y] if p not in self.ba]
                if pa and pb:
                    changed |= self._pair_best(pa, pb)


# ---------------------------------------------------------------------------------------------
# Differences between two matched nodes
# ---------------------------------------------------------------------------------------------


def _schema_differences(
    a: NodeView, b: NodeView, fold: Callable[[str], str], nullability: bool = True
) -> list[Difference]:
    sa, sb = a.schema, b.schema
    if sa is None or sb is None:
        if (sa is None) != (sb is None):
            return [
                Difference(
                    "schema",
                    "known",
                    "unknown" if sa is None else f"{len(sa)} fields",
                    "unknown" if sb is None else f"{len(sb)} fields",
                )
            ]
        return []
    # a column both sides name alike (once each) is one column wherever it stands: its type is compared
    # with its own, not with the column now at its place; the others pair in their order (a rename)
    pos_a = _unique_positions([fold(f.name) for f in sa])
    pos_b = _unique_positions([fold(f.name) for f in sb])
    by_name = {i: pos_b[name] for name, i in pos_a.items() if name in pos_b}
    named_b = set(by_name.values())
    pairs = by_name | dict(
        zip((i for i in range(len(sa)) if i not in by_name), (j for j in range(len(sb)) if j not in named_b))
    )
    out = []
    for i, fa in enumerate(sa):
        if i in pairs:
            j = pairs[i]
            out += _field_differences(fa, sb[j], fold, nullability, i, None if j == i else j)
        else:
            out.append(Difference("schema", "only in a", f"{fa.name} {fa.type_text()}", None, i))
    paired_b = set(pairs.values())
    out += [
        Difference("schema", "only in b", None, f"{fb.name} {fb.type_text()}", j)
        for j, fb in enumerate(sb)
        if j not in paired_b
    ]
    for i, j in by_name.items():
        if j != i:
            out.append(Difference("schema", f"moved {sa[i].name}", str(i), str(j), i))
    return out


def _field_differences(
    fa: Field, fb: Field, fold: Callable[[str], str], nullability: bool, i: int, j: int | None
) -> list[Difference]:
    """Field ``i`` of ``a`` against ``fb``, at ``j`` in ``b`` (None: at ``i`` too): name, type, nullability."""
    out = []
    if fold(fa.name) != fold(fb.name):
        out.append(Difference("schema", "name", fa.name, fb.name, i, j))
    if not _same_type(fa, fb):
        out.append(Difference("schema", "type", fa.type_text(), fb.type_text(), i, j))
    elif nullability and fa.nullable != fb.nullable:
        out.append(Difference("schema", "nullability", _null_text(fa.nullable), _null_text(fb.nullable), i, j))
    return out


def _same_type(fa: Field, fb: Field) -> bool:
    """Whether two fields have the same type, nullability aside (unknown types compare by text)."""
    if fa.type is None or fb.type is None:
        return fa.type is None and fb.type is None
    return T.same_type_ignoring_nullability(fa.type, fb.type)


def _null_text(value: bool | None) -> str:
    return "unknown" if value is None else ("nullable" if value else "required")


def _unique_positions(names: list[str]) -> dict[str, int]:
    counts = Counter(names)
    return {n: i for i, n in enumerate(names) if counts[n] == 1}


_INPUT_REF = re.compile(r"(?<![\^λ.@])\$(\d+):")


def _by_name(model: PlanModel, node: NodeView) -> Callable[[str], str]:
    """A node's expression text with each reference to an input column that no other input column of the
    node shares a name with written by the name alone (``$5:l_extendedprice`` as ``$:l_extendedprice``): the
    same column at another position (another producer's, or an optimizer's narrower input) is no difference."""
    fields = [f for i in node.inputs for f in (model.node(i).schema or [])]
    counts = Counter(f.name for f in fields)

    def unnumbered(text: str) -> str:
        out, last = [], 0
        for m in _INPUT_REF.finditer(text):
            index = int(m.group(1))
            name = fields[index].name if index < len(fields) else None
            end = m.end() + len(name or "")
            if name and counts[name] == 1 and text.startswith(name, m.end()) and not text[end : end + 1].isalnum():
                out.append(text[last : m.start()] + "$:")
                last = m.end()
        return "".join(out) + text[last:]

    return unnumbered


def _spread(node: NodeView) -> list[tuple[str, str]]:
    """A node's expressions, an ``and`` / ``or`` with the same function nested in it spread out (one
    producer nests ``and(and(a, b), c)`` where another writes ``and(a, b, c)``: the same condition)."""
    roles = Counter(role for role, _ in node.info.expressions)
    out = []
    for role, text in node.info.expressions:
        spread = node.info.spread.get(role) if roles[role] == 1 else None
        out.append((role, f"{spread[0]}({', '.join(spread[1])})" if spread else text))
    return out


#: A type's nullability mark in an expression's text (``AS date?``).
_NULLABLE_MARK = re.compile(r"(?<=[\w>])\?")


def _expression_differences(
    a: NodeView,
    b: NodeView,
    fold_a: Callable[[str], str],
    fold_b: Callable[[str], str],
    fold: Callable[[str], str] = lambda s: s,
) -> list[Difference]:
    def by_role(exprs: list[tuple[str, str]]) -> dict[tuple[str, int], str]:
        seen: Counter = Counter()
        out = {}
        for role, text in exprs:
            out[(role, seen[role])] = text
            seen[role] += 1
        return out

    ea, eb = by_role(_spread(a)), by_role(_spread(b))
    keys = list(ea) + [k for k in eb if k not in ea]
    several = {role for role, i in keys if i > 0}  # a role held by more than one expression: numbered
    out = []
    for key in keys:
        ta, tb = ea.get(key), eb.get(key)
        # the same text (positions and names alike) is no difference, though one side's column is written by
        # name alone and the other's, whose input has a second column of that name, with its position
        if ta is None or tb is None or (fold(ta) != fold(tb) and fold_a(ta) != fold_b(tb)):
            role, i = key
            out.append(Difference("expression", f"{role} {i + 1}" if role in several else role, ta, tb))
    return out


def node_differences(
    a: NodeView,
    b: NodeView,
    ignore_case: bool = False,
    ignore_nullability: bool = False,
    by_name: tuple[Callable[[str], str], Callable[[str], str]] | None = None,
) -> list[Difference]:
    """What differs between two corresponding nodes: kind, schema, expressions, detail; with
    ``ignore_nullability``, a column's nullability alone is not a difference (producers differ in it:
    DuckDB marks every column nullable); ``by_name``: each side's :func:`_by_name`, so that a column
    referred to at another position is no difference."""
    case: Callable[[str], str] = str.casefold if ignore_case else (lambda s: s)
    fold: Callable[[str], str] = case if not ignore_nullability else (lambda s: case(_NULLABLE_MARK.sub("", s)))
    name_a, name_b = by_name or (lambda s: s, lambda s: s)
    fold_a, fold_b = (lambda s: fold(name_a(s))), (lambda s: fold(name_b(s)))
    out = []
    if a.kind != b.kind:
        out.append(Difference("kind", "kind", a.kind, b.kind))
    out += _schema_differences(a, b, case, nullability=not ignore_nullability)
    exprs = _expression_differences(a, b, fold_a, fold_b, fold)
    out += exprs
    if not exprs and fold_a(a.info.detail) != fold_b(b.info.detail):
        out.append(Difference("detail", "detail", a.info.detail, b.info.detail))
    return out


# ---------------------------------------------------------------------------------------------
# The entry point
# ---------------------------------------------------------------------------------------------


def match_nodes(a: PlanModel, b: PlanModel) -> dict[str, str]:
    """The node correspondence alone: a node id -> b node id."""
    m = _match(_Side(a), _Side(b))
    return dict(m.ab)


def _match(sa: _Side, sb: _Side) -> _Matching:
    m = _Matching(sa, sb)
    m.unique_identical_subtrees()
    m.roots()
    m.best_first()
    m.propagate()
    m.roots(any_family=True)
    return m


def different_producers(a: PlanModel, b: PlanModel) -> bool:
    """Whether two plans come from different producers (one naming none counts as different): then
    their names are compared without regard to case by default (isthmus writes L_ORDERKEY where
    DataFusion writes l_orderkey)."""
    return producer_name(a.loaded.plan) != producer_name(b.loaded.plan)


#: An expression's text in tokens: names (with ``$1:`` references), numbers, quoted strings, and each
#: other character.
_TOKEN = re.compile(r"\$?\d+:[\w.]+|[A-Za-z_][\w.]*|\d+(?:\.\d+)?|'(?:[^']|'')*'|\s+|.")


def changed_spans(a: str, b: str, ignore_case: bool = False) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
    """Two texts (an expression on each side) as runs of (text, changed): the tokens one side has where
    the other has others, so the differences stand out in 400 characters of a condition; with
    ``ignore_case``, tokens that differ only in case are alike (``C_MKTSEGMENT``, ``c_mktsegment``)."""
    import difflib

    ta, tb = _TOKEN.findall(a), _TOKEN.findall(b)
    fold = (lambda ts: [t.lower() for t in ts]) if ignore_case else (lambda ts: ts)
    out_a: list[tuple[str, bool]] = []
    out_b: list[tuple[str, bool]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=fold(ta), b=fold(tb), autojunk=False).get_opcodes():
        for out, part in ((out_a, "".join(ta[i1:i2])), (out_b, "".join(tb[j1:j2]))):
            if part:
                out.append((part, op != "equal"))
    return out_a, out_b


def tables_apart(a: PlanModel, b: PlanModel) -> str | None:
    """A caution when the two plans read no named table in common (compared without regard to case):
    then they are most likely different queries, and their matched nodes say little. None otherwise."""
    from .tables import plan_tables
    from .words import capped_list

    ta, tb = (plan_tables(m).named for m in (a, b))
    names_a, names_b = ({".".join(n).lower() for n in t} for t in (ta, tb))
    if not names_a or not names_b or names_a & names_b:
        return None
    return (
        f"The two plans read no table in common (left: {capped_list(sorted(names_a), 6)}; right: "
        f"{capped_list(sorted(names_b), 6)}): they are most likely different queries, and their matches say little."
    )


def diff_plans(a: PlanModel, b: PlanModel, ignore_case: bool = False, ignore_nullability: bool = False) -> PlanDiff:
    """Match the nodes of ``a`` and ``b`` and say, per node, what differs.

    ``ignore_case`` compares column names, expressions and details without regard to upper and
    lower case (isthmus writes ``L_ORDERKEY`` where DataFusion writes ``l_orderkey``);
    ``ignore_nullability`` leaves out columns that differ only in nullability.
    """
    sa, sb = _Side(a), _Side(b)
    m = _match(sa, sb)
    entries: list[NodeDiff] = []
    number = 0
    for x in sa.order:
        y = m.ab.get(x)
        if y is None:
            continue
        number += 1
        na, nb = a.node(x), b.node(y)
        diffs = tuple(node_differences(na, nb, ignore_case, ignore_nullability, (_by_name(a, na), _by_name(b, nb))))
        entries.append(NodeDiff("changed" if diffs else "same", x, y, na.kind, nb.kind, number, m.scores[x], diffs))
    entries += [NodeDiff("removed", x, None, a.node(x).kind, None) for x in sa.order if x not in m.ab]
    entries += [NodeDiff("added", None, y, None, b.node(y).kind) for y in sb.order if y not in m.ba]
    return PlanDiff(dict(m.ab), entries, ignore_case, ignore_nullability)


__all__ = [
    "FAMILY",
    "STATUSES",
    "Difference",
    "NodeDiff",
    "PlanDiff",
    "diff_plans",
    "different_producers",
    "kind_title",
    "match_nodes",
    "node_differences",
    "changed_spans",
    "summarize",
    "tables_apart",
]
