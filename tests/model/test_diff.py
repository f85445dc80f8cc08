"""The plan diff (viz.diff, viz.diff_render): self-diffs, hand-made changes, and the same TPC-H
queries from isthmus, DataFusion and DuckDB, with correspondences checked by hand."""

from __future__ import annotations

import copy
import json
import os
import subprocess

import pytest

from tests.support import ROOT
from tests.support import plans as P
from viz.diff import diff_plans, match_nodes
from viz.diff_render import combined_dot, side_dots
from viz.model import PlanModel, analyze

SAMPLES = os.path.join(ROOT, "sample_plans")
DATAFUSION = os.path.join(ROOT, "tests", "data", "datafusion_tpch")


def _load(path: str) -> PlanModel:
    with open(path, "rb") as fh:
        return analyze(fh.read())


def _json(path: str) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _isthmus(corpora: str, q: str) -> PlanModel:
    return _load(os.path.join(corpora, "isthmus-tpch", f"query_{q}_plan.json"))


def _snapshot(corpora: str, q: str, producer: str) -> PlanModel:
    return _load(
        os.path.join(
            corpora, "consumer-testing", "snapshots", "producer", "integration", "tpch", f"q{q}-{producer}_plan.json"
        )
    )


# ---------------------------------------------------------------- identical plans


@pytest.mark.parametrize(
    "sample",
    ["tutorial.json", "set_ops.json", "dag_two_roots.json", "subqueries.json", "tpch_q02_isthmus.json", "errors.json"],
)
def test_a_plan_diffed_with_itself_is_all_same(sample):
    a = _load(os.path.join(SAMPLES, sample))
    b = _load(os.path.join(SAMPLES, sample))
    d = diff_plans(a, b)
    assert d.matches == {n: n for n in a.graph.nodes}
    assert d.summary == {"same": len(a.graph.nodes), "changed": 0, "removed": 0, "added": 0}
    assert all(not e.differences for e in d.entries)
    json.dumps(d.to_json())  # JSON-able


def test_the_diff_is_deterministic():
    a = _isthmus(os.path.join(ROOT, "..", "shared", "corpora"), "05")
    b = _load(os.path.join(DATAFUSION, "q05.json"))
    assert diff_plans(a, b).to_json() == diff_plans(a, b).to_json()


# ---------------------------------------------------------------- hand-made changes


def _tutorial() -> dict:
    return _json(os.path.join(SAMPLES, "tutorial.json"))


def test_a_changed_filter_literal_is_an_expression_difference():
    doc = _tutorial()
    changed = copy.deepcopy(doc)
    text = json.dumps(changed).replace('"Computers"', '"Phones"')
    d = diff_plans(P.model_of(doc), analyze(text.encode()))
    # tutorial.json: 0 aggregate, 0.0 join, 0.0.0 read orders, 0.0.1 filter, 0.0.1.0 read products
    assert d.matches == {n: n for n in ("0", "0.0", "0.0.0", "0.0.1", "0.0.1.0")}
    assert d.summary == {"same": 4, "changed": 1, "removed": 0, "added": 0}
    f = d.by_a["0.0.1"]
    assert f.status == "changed"
    assert [(x.aspect, x.what) for x in f.differences] == [("expression", "condition")]
    assert f.differences[0].a == "is_null(index_in('Computers', $1:categories))"
    assert f.differences[0].b == "is_null(index_in('Phones', $1:categories))"


def test_a_changed_column_type_names_the_field_index():
    doc = _tutorial()
    changed = copy.deepcopy(doc)
    orders = changed["relations"][0]["root"]["input"]["aggregate"]["input"]["join"]["left"]["read"]
    orders["baseSchema"]["struct"]["types"][1] = {"i64": {"nullability": "NULLABILITY_REQUIRED"}}  # quantity i32 -> i64
    d = diff_plans(P.model_of(doc), P.model_of(changed))
    read = d.by_a["0.0.0"]
    assert read.status == "changed"
    assert [(x.aspect, x.what, x.index, x.a, x.b) for x in read.differences] == [("schema", "type", 1, "i32", "i64")]
    # the join passes the field through at the same index; the products side is untouched
    assert [(x.what, x.index) for x in d.by_a["0.0"].differences] == [("type", 1)]
    assert d.by_a["0.0.1"].status == "same" and d.by_a["0.0.1.0"].status == "same"


def test_nullability_and_renames_are_schema_differences():
    a = P.model_of(P.plan((P.read("t", [("x", "i64"), ("y", "string")]), ["x", "y"])))
    b = P.model_of(P.plan((P.read("t", [("x", "i64?"), ("z", "string")]), ["x", "z"])))
    d = diff_plans(a, b)
    assert d.matches == {"0": "0"}
    got = [(x.what, x.index, x.a, x.b) for x in d.by_a["0"].differences]
    assert got == [("nullability", 0, "required", "nullable"), ("name", 1, "y", "z")]


def test_a_dropped_project_is_removed_and_the_rest_still_match():
    cols = [("a", "i64"), ("b", "i64")]
    read = P.read("t", cols)
    project = {"project": {"input": read, "expressions": [P.call(3, P.field(0), P.field(1), out="i64")]}}
    a = P.model_of(P.plan(({"fetch": {"input": project, "count": "5"}}, ["a", "b", "s"])))
    b = P.model_of(P.plan(({"fetch": {"input": read, "count": "5"}}, ["a", "b"])))
    d = diff_plans(a, b)
    assert d.matches == {"0": "0", "0.0.0": "0.0"}
    assert d.by_a["0.0"].status == "removed" and d.by_a["0.0"].kind_a == "project"
    assert d.by_a["0.0.0"].status == "same"
    fetch = d.by_a["0"]
    assert fetch.status == "changed"
    assert [(x.what, x.index, x.a) for x in fetch.differences] == [("only in a", 2, "s i64")]
    assert d.summary == {"same": 1, "changed": 1, "removed": 1, "added": 0}


def test_a_column_referred_to_at_another_position_is_no_difference():
    def filtered(columns: list[tuple[str, str]], y: int) -> PlanModel:
        rel = {"filter": {"input": P.read("t", columns), "condition": P.call(1, P.field(y), P.i64(1))}}
        return P.model_of(P.plan((rel, [n for n, _ in columns])))

    a, b = filtered([("x", "i64"), ("y", "i64")], 1), filtered([("y", "i64"), ("x", "i64")], 0)
    d = diff_plans(a, b)
    assert d.matches == {"0": "0", "0.0": "0.0"}
    filter_a = d.by_a["0"]
    assert a.node("0").info.expressions == [("condition", "equal($1:y, 1)")]
    assert b.node("0").info.expressions == [("condition", "equal($0:y, 1)")]
    assert {x.aspect for x in filter_a.differences} == {"schema"}  # x and y moved; the condition is the same
    # two input columns of one name: which of them an expression means is a difference
    same_name = [("y", "i64"), ("y", "i64")]
    d = diff_plans(filtered(same_name, 1), filtered(same_name, 0))
    assert [(x.aspect, x.a, x.b) for x in d.by_a["0"].differences] == [
        ("expression", "equal($1:y, 1)", "equal($0:y, 1)")
    ]


def test_the_same_reference_is_no_difference_though_one_input_has_its_name_twice():
    """equal($0:x, 1) on both sides, where b's input has a second x: the condition is the same (it had been
    listed as changed, "$0:x → $0:x", as a's reference was compared by name and b's by position)."""

    def filtered(columns: list[tuple[str, str]]) -> PlanModel:
        rel = {"filter": {"input": P.read("t", columns), "condition": P.call(1, P.field(0), P.i64(1))}}
        return P.model_of(P.plan((rel, [f"c{i}" for i in range(len(columns))])))

    a, b = filtered([("x", "i64"), ("y", "i64")]), filtered([("x", "i64"), ("y", "i64"), ("x", "i64")])
    assert a.node("0").info.expressions == b.node("0").info.expressions == [("condition", "equal($0:x, 1)")]
    d = diff_plans(a, b)
    assert "expression" not in {x.aspect for x in d.by_a["0"].differences}


def test_swapped_join_inputs_still_match_by_table():
    orders, customers = P.read("orders", P.ORDERS), P.read("customers", P.CUSTOMERS)
    cond = P.call(1, P.field(1), P.field(3))
    a = P.model_of(
        P.plan(
            (
                {"join": {"left": orders, "right": customers, "expression": cond, "type": "JOIN_TYPE_INNER"}},
                ["o_id", "o_cust", "o_total", "c_id", "c_name"],
            )
        )
    )
    cond_b = P.call(1, P.field(0), P.field(3))
    b = P.model_of(
        P.plan(
            (
                {"join": {"left": customers, "right": orders, "expression": cond_b, "type": "JOIN_TYPE_INNER"}},
                ["c_id", "c_name", "o_id", "o_cust", "o_total"],
            )
        )
    )
    d = diff_plans(a, b)
    assert d.matches == {"0": "0", "0.0": "0.1", "0.1": "0.0"}
    assert d.by_a["0.0"].status == "same" and d.by_a["0.1"].status == "same"
    moved = [(x.what, x.a, x.b) for x in d.by_a["0"].differences if x.what.startswith("moved")]
    assert ("moved o_id", "0", "2") in moved and ("moved c_name", "4", "1") in moved
    # each column is compared with itself wherever it stands: moves only, no name or type "changed" at a
    # position that now holds another column (the Compare page listed one for every position)
    assert {x.what.split()[0] for x in d.by_a["0"].differences if x.aspect == "schema"} == {"moved"}


def test_a_column_at_another_position_is_compared_with_itself():
    """b holds a's columns in another order, one of them of another type: the type is that column's own
    (field 1 in a, 0 in b); columns of other names at one position are a rename, as before."""
    a = P.model_of(P.plan((P.read("t", [("x", "i64"), ("y", "i32"), ("v", "string")]), ["x", "y", "v"])))
    b = P.model_of(P.plan((P.read("t", [("y", "i64"), ("x", "i64"), ("w", "fp64")]), ["y", "x", "w"])))
    d = diff_plans(a, b)
    differences = d.by_a["0"].differences
    assert [(x.what, x.index, x.index_b, x.a, x.b) for x in differences] == [
        ("type", 1, 0, "i32", "i64"),
        ("name", 2, None, "v", "w"),
        ("type", 2, None, "string", "fp64"),
        ("moved x", 0, None, "0", "1"),
        ("moved y", 1, None, "1", "0"),
    ]
    assert differences[0].text() == "field 1→0 type: i32 → i64"
    assert differences[0].fields() == ({1}, {0})
    assert differences[0].to_json()["index_b"] == 0

    def schema_diff(a_cols, b_cols):
        a = P.model_of(P.plan((P.read("t", a_cols), [n for n, _ in a_cols])))
        b = P.model_of(P.plan((P.read("t", b_cols), [n for n, _ in b_cols])))
        return [(x.what, x.index, x.index_b, x.a, x.b) for x in diff_plans(a, b).by_a["0"].differences]

    # moved and renamed: a rename, not a column only in each side
    assert schema_diff([("x", "i64"), ("v", "i64")], [("w", "i64"), ("x", "i64")]) == [
        ("name", 1, 0, "v", "w"),
        ("moved x", 0, None, "0", "1"),
    ]
    # a name both sides have twice: the two pair in their order, neither is only in one side
    assert schema_diff([("x", "i64"), ("x", "i64"), ("y", "i64")], [("y", "i64"), ("x", "i64"), ("x", "i64")]) == [
        ("moved y", 2, None, "2", "0")
    ]


# ---------------------------------------------------------------- isthmus vs DataFusion, TPC-H
#
# Expected pairs (isthmus-tpch/query_NN_plan.json id, tests/data/datafusion_tpch/qNN.json id), checked
# by hand: both plans were printed as indented trees with each node's kind, detail (table name, join
# type, sort keys, grouping keys) and schema, and paired by reading them side by side. Both producers
# write the FROM list as a left-deep tree in FROM order (isthmus as CrossRels, DataFusion as inner
# JoinRels without a condition) under one filter holding the WHERE clause, so the k-th join/cross from
# the top and the read of each table correspond. Where one producer puts a project the other has not
# (isthmus below the aggregate, DataFusion above it), the project has no partner.

TPCH_PAIRS = {
    "01": (
        [("0", "0"), ("0.0", "0.0.0"), ("0.0.0.0", "0.0.0.0"), ("0.0*4", "0.0*4")],
        ["0.0.0"],  # isthmus: the project below the aggregate
        ["0.0"],  # DataFusion: the project above the aggregate
    ),
    "03": (
        [
            ("0", "0"),
            ("0.0", "0.0"),
            ("0.0.0", "0.0.0"),
            ("0.0.0.0", "0.0.0.0"),
            ("0.0*5", "0.0*4"),
            ("0.0*6", "0.0*5"),
            ("0.0*7", "0.0*6"),
            ("0.0*8", "0.0*7"),
            ("0.0*7.1", "0.0*6.1"),
            ("0.0*6.1", "0.0*5.1"),
        ],
        ["0.0*4"],
        [],
    ),
    "05": (
        [("0", "0"), ("0.0", "0.0.0"), ("0.0.0.0", "0.0.0.0")]
        + [(f"0.0*{k}", f"0.0*{k}") for k in range(4, 10)]
        + [(f"0.0*{k}.1", f"0.0*{k}.1") for k in range(4, 9)],
        ["0.0.0"],
        ["0.0"],
    ),
    "06": (
        [("0", "0.0"), ("0.0.0", "0.0.0"), ("0.0.0.0", "0.0.0.0")],  # the aggregates, not the roots
        ["0.0"],  # isthmus: aggregate root over a project
        ["0"],  # DataFusion: project root over the aggregate
    ),
    "10": (
        [
            ("0", "0"),
            ("0.0", "0.0"),
            ("0.0.0", "0.0.0"),
            ("0.0.0.0", "0.0.0.0"),
            ("0.0*5", "0.0*4"),
            ("0.0*6", "0.0*5"),
            ("0.0*7", "0.0*6"),
            ("0.0*8", "0.0*7"),
            ("0.0*9", "0.0*8"),
            ("0.0*8.1", "0.0*7.1"),
            ("0.0*7.1", "0.0*6.1"),
            ("0.0*6.1", "0.0*5.1"),
        ],
        ["0.0*4"],
        [],
    ),
}


@pytest.mark.parametrize("q", sorted(TPCH_PAIRS))
def test_isthmus_and_datafusion_tpch_nodes_correspond(q, corpora_dir):
    a, b = _isthmus(corpora_dir, q), _load(os.path.join(DATAFUSION, f"q{q}.json"))
    pairs, removed, added = TPCH_PAIRS[q]
    d = diff_plans(a, b, ignore_case=True)
    print(f"q{q}: isthmus {len(a.graph.nodes)} nodes, DataFusion {len(b.graph.nodes)} nodes: {d.summary}")
    assert sorted(d.matches.items()) == sorted(pairs)
    assert sorted(e.a for e in d.entries if e.status == "removed") == sorted(removed)
    assert sorted(e.b for e in d.entries if e.status == "added") == sorted(added)
    for x, y in pairs:  # every pair is of one family, and reads are of the same table
        ka, kb = a.node(x).kind, b.node(y).kind
        assert ka == kb or {ka, kb} == {"cross", "join"}, (x, y)
        if ka == "read":
            assert a.node(x).info.detail.lower() == b.node(y).info.detail.lower()


def test_two_reads_of_one_table_match_by_where_they_sit(corpora_dir):
    # q07 reads nation twice (n1 for the supplier, n2 for the customer); FROM order puts n1 deeper.
    a, b = _isthmus(corpora_dir, "07"), _load(os.path.join(DATAFUSION, "q07.json"))
    m = match_nodes(a, b)
    assert a.node("0.0*5.1").info.detail == "NATION" and b.node("0.0*6.1").info.detail == "nation"
    assert m["0.0*5.1"] == "0.0*6.1" and m["0.0*4.1"] == "0.0*5.1"


def test_case_only_differences_go_away_with_ignore_case(corpora_dir):
    a, b = _isthmus(corpora_dir, "03"), _load(os.path.join(DATAFUSION, "q03.json"))
    strict, loose = diff_plans(a, b), diff_plans(a, b, ignore_case=True)
    orders = "0.0*7.1"  # ORDERS / orders: same columns and types, names differ only in case
    assert any(
        x.what == "name" and x.a == "O_ORDERKEY" and x.b == "o_orderkey" for x in strict.by_a[orders].differences
    )
    assert loose.by_a[orders].status == "same"
    # isthmus reads C_NATIONKEY as i32 where the parquet DataFusion read has i64: a real type difference
    customer = loose.by_a["0.0*8"]
    assert [(x.what, x.index, x.a, x.b) for x in customer.differences] == [("type", 3, "i32", "i64")]
    # the filter's conditions differ in the date literal's nullability (DataFusion's nested ands are
    # spread out, the same condition); it is changed, with both texts
    cond = [x for x in loose.by_a["0.0*5"].differences if x.aspect == "expression"]
    assert (
        cond
        and cond[0].what == "condition"
        and cond[0].a.startswith("and(equal($6:C_MKTSEGMENT")
        and cond[0].b.startswith("and(equal(")
        and "AS date? OR ERROR" in cond[0].b
    )
    assert not [x for x in diff_plans(a, b, True, True).by_a["0.0*5"].differences if x.aspect == "expression"]


# ---------------------------------------------------------------- isthmus vs DuckDB (corpora)


@pytest.mark.parametrize("q", ["01", "03", "05", "10", "18"])
def test_isthmus_and_duckdb_reads_and_roots_correspond(q, corpora_dir):
    a, b = _snapshot(corpora_dir, q, "isthmus"), _snapshot(corpora_dir, q, "duckdb")
    d = diff_plans(a, b, ignore_case=True)
    print(f"q{q}: isthmus {len(a.graph.nodes)} nodes, DuckDB {len(b.graph.nodes)} nodes: {d.summary}")
    assert d.matches["0"] == "0" and a.node("0").kind == b.node("0").kind
    reads_a = [n.id for n in a.nodes() if n.kind == "read"]
    reads_b = [n.id for n in b.nodes() if n.kind == "read"]
    assert len(reads_a) == len(reads_b)
    assert sorted(d.matches[x] for x in reads_a) == sorted(reads_b)
    for x in reads_a:
        assert a.node(x).info.detail.lower() == b.node(d.matches[x]).info.detail.lower()


def test_every_datafusion_plan_loads_without_errors():
    names = sorted(f for f in os.listdir(DATAFUSION) if f.endswith(".json"))
    assert len(names) == 16  # q02, q04, q17, q20, q21, q22: correlated subqueries DataFusion 55 cannot write
    for name in names:
        model = _load(os.path.join(DATAFUSION, name))
        assert not [d for d in model.all_diagnostics() if d.severity.value == "error"], name
    with open(os.path.join(DATAFUSION, "failures.txt"), encoding="utf-8") as fh:
        failed = [line.split(":")[0] for line in fh if line.startswith("q")]
    assert failed == ["q02", "q04", "q17", "q20", "q21", "q22"]


# ---------------------------------------------------------------- rendering


def test_side_dots_number_and_colour_the_nodes(corpora_dir):
    a, b = _isthmus(corpora_dir, "03"), _load(os.path.join(DATAFUSION, "q03.json"))
    d = diff_plans(a, b, ignore_case=True)
    dot_a, dot_b = side_dots(a, b, d)
    # the orders reads are pair #9 and the same on both sides; the isthmus-only project is red
    assert d.by_a["0.0*7.1"].number == 9 and d.by_a["0.0*7.1"].status == "same"
    line_a = next(l for l in dot_a.splitlines() if l.startswith('  "0.0*7.1" ['))
    line_b = next(l for l in dot_b.splitlines() if l.startswith('  "0.0*6.1" ['))
    assert "#9 = same" in line_a and "#9 = same" in line_b
    removed = next(l for l in dot_a.splitlines() if l.startswith('  "0.0*4" ['))
    assert "− removed" in removed and 'fillcolor="#fbdcdb"' in removed
    changed = next(l for l in dot_b.splitlines() if l.startswith('  "0.0*5" ['))  # join vs cross
    assert "≠ changed" in changed and 'fillcolor="#fff0c2"' in changed
    dark_a, _ = side_dots(a, b, d, theme="dark")
    assert 'fillcolor="#4a2020"' in next(l for l in dark_a.splitlines() if l.startswith('  "0.0*4" ['))


def test_combined_dot_links_every_matched_pair(corpora_dir):
    a, b = _isthmus(corpora_dir, "01"), _load(os.path.join(DATAFUSION, "q01.json"))
    d = diff_plans(a, b, ignore_case=True)
    dot = combined_dot(a, b, d, labels=("isthmus", "DataFusion"))
    links = [l for l in dot.splitlines() if "constraint=false" in l]
    assert len(links) == len(d.matches) == 4
    assert '  "a:0.0" -> "b:0.0.0" [style=dashed' in dot  # the aggregates
    if os.path.exists("/usr/bin/dot"):  # Graphviz accepts it
        for text in (dot, *side_dots(a, b, d)):
            proc = subprocess.run(
                ["/usr/bin/dot", "-Tsvg"], input=text.encode(), capture_output=True, timeout=60, check=False
            )
            assert proc.returncode == 0, proc.stderr[:300]


def test_a_differences_fields_on_each_side():
    from viz.diff import Difference

    assert Difference("schema", "name", "a", "b", 2).fields() == ({2}, {2})
    assert Difference("schema", "only in a", "x i64", None, 3).fields() == ({3}, set())
    assert Difference("schema", "only in b", None, "x i64", 4).fields() == (set(), {4})
    assert Difference("schema", "moved x", "1", "5", 1).fields() == ({1}, {1, 5})
    assert Difference("expression", "condition", "a", "b").fields() == (set(), set())


def test_a_difference_says_its_aspect_once_and_no_placeholder():
    from viz.diff import Difference

    # the kind's and the detail's ``what`` repeat the aspect ("kind kind: cross → join" before); kinds by their titles
    assert Difference("kind", "kind", "cross", "join").text() == "kind: Cross → Join"
    assert Difference("detail", "detail", "cross product", "inner").text() == "detail: cross product → inner"
    assert Difference("schema", "type", "i32", "i64", 1).text() == "field 1 type: i32 → i64"
    # a side without a value reads "only in", not "—"
    assert Difference("schema", "only in a", "s i64", None, 2).text() == "field 2 only in a: s i64"
    assert Difference("schema", "only in b", None, "x i64", 4).text() == "field 4 only in b: x i64"
    assert Difference("schema", "moved x", "1", "5", 1).text() == "x moved: field 1 → field 5"
    assert Difference("schema", "known", "unknown", "3 fields").text() == "schema: unknown → 3 fields"
    assert Difference("expression", "on", None, "equal($0, $4)").text() == "expression on only in b: equal($0, $4)"
    assert Difference("expression", "condition", "a", "b").text() == "expression condition: a → b"


def test_the_rows_read_as_text_with_no_none_and_the_kinds_titled():
    a, b = (_load(os.path.join(SAMPLES, f"tpch_q03_{p}.json")) for p in ("isthmus", "datafusion"))
    rows = diff_plans(a, b, ignore_case=True).rows()
    assert all(isinstance(v, str) and v not in ("None", "nan") and "—" not in v for r in rows for v in r.values())
    # isthmus's cross products are DataFusion's joins: the kind column says so, the differences do not repeat it
    cross = next(r for r in rows if r["#"] == "6")
    assert cross["kind"] == "Cross → Join"
    # and a join without a condition is a cross product, as a CrossRel is: no detail differs
    assert cross["differences"] == "field 3 type: i32 → i64; field 20 type: i64 → i32"
    # isthmus's extra project has no match: no number, no b
    assert [(r["#"], r["a"], r["b"], r["kind"]) for r in rows if r["status"] == "removed"] == [
        ("", "0.0*4", "", "Project")
    ]
    assert next(r for r in rows if r["#"] == "8")["kind"] == "Read"


def test_expressions_of_one_role_are_told_apart_by_number():
    """Three GROUP BY keys that differ: "group by 1", "group by 2", "group by 3", not the same words
    three times; a role held by one expression keeps its name alone."""
    from viz.diff import diff_plans

    def grouped(names: list[str]) -> dict:
        t = P.read("t", [(n, "i64") for n in names])
        keys = [P.field(i) for i in range(3)]
        return P.plan(
            {
                "aggregate": {
                    "input": t,
                    "groupingExpressions": keys,
                    "groupings": [{"expressionReferences": [0, 1, 2]}],
                }
            }
        )

    a, b = P.model_of(grouped(["x", "y", "z"])), P.model_of(grouped(["X", "Y", "Z"]))
    diff = diff_plans(a, b)
    root = diff.by_a["0"]
    whats = [d.what for d in root.differences if d.aspect == "expression"]
    assert whats == ["group by 1", "group by 2", "group by 3"], whats


def test_the_table_says_a_difference_of_many_fields_once():
    """summarize (the Differences table's cell): three fields alike, or two with the same values, in one
    phrase; a run of indices as a range; moved fields and expressions counted; a long value left to the
    pair's detail."""
    from viz.diff import Difference, summarize

    D = Difference
    nulls = [D("schema", "nullability", "required", "nullable", i) for i in (0, 2, 3)]
    assert summarize(nulls) == "nullability of fields 0, 2 and 3: required → nullable"
    names = [D("schema", "name", f"A{i}", f"a{i}", i) for i in range(4)]
    assert summarize(names) == "names of fields 0–3"
    # two that differ each keep their words
    two = [D("schema", "type", "i32", "i64", 3), D("schema", "type", "i64", "i32", 20)]
    assert summarize(two) == "field 3 type: i32 → i64; field 20 type: i64 → i32"
    only = [D("schema", "only in a", f"c{i} i64", None, i) for i in (8, 9, 10, 12)]
    assert summarize(only) == "fields 8–10 and 12 only in a"
    moved = [D("schema", f"moved {n}", str(i), str(i + 4), i) for i, n in enumerate(["X", "Y", "Z"])]
    assert summarize(moved) == "3 fields moved (X, Y and Z)"
    added = [D("expression", f"${i}", None, f"$0:c{i}") for i in range(8, 14)]
    assert summarize(added) == "expressions $8, $9, $10, $11 and 2 more only in b"
    long = "sum(multiply(l_extendedprice, subtract(1, l_discount)))"
    assert summarize([D("expression", "sort 1", long, long.upper())]) == "expression sort 1"
    assert summarize([D("detail", "detail", "cross product", "inner")]) == "detail: cross product → inner"


def test_nullability_alone_can_be_left_out():
    """DuckDB marks every column nullable where DataFusion keeps a table's required columns: with
    nullability left out, no difference is one of nullability and fewer pairs differ."""
    from viz.model import analyze

    def sample(name):
        with open(os.path.join(ROOT, "sample_plans", name), "rb") as fh:
            return analyze(fh.read())

    a, b = sample("tpch_q03_datafusion.json"), sample("tpch_q03_duckdb.json")
    full, lean = diff_plans(a, b, ignore_case=True), diff_plans(a, b, ignore_case=True, ignore_nullability=True)
    said = lambda d: [x.what for e in d.entries for x in e.differences]  # noqa: E731
    assert "nullability" in said(full) and "nullability" not in said(lean)
    assert lean.summary["changed"] < full.summary["changed"]
    assert lean.summary["same"] > full.summary["same"]


def test_a_nested_and_and_a_type_s_nullability_alone_are_no_expression_difference():
    """DataFusion's q03 filter nests and(and(and(...))) where isthmus writes one and(...), and casts its date
    literal to date? where isthmus casts to date: checked by hand, the same condition."""
    a = _load(os.path.join(SAMPLES, "tpch_q03_datafusion.json"))
    b = _load(os.path.join(SAMPLES, "tpch_q03_isthmus.json"))
    [filter_a] = [n.id for n in a.nodes() if n.kind == "filter"]
    loose = diff_plans(a, b, ignore_case=True, ignore_nullability=True).by_a[filter_a]
    assert loose.b is not None and b.node(loose.b).kind == "filter"
    assert a.node(filter_a).info.expressions[0][1].startswith("and(and(")
    assert [x for x in loose.differences if x.aspect == "expression"] == []
    strict = diff_plans(a, b, ignore_case=True).by_a[filter_a]
    [(a_text, b_text)] = [(x.a, x.b) for x in strict.differences if x.aspect == "expression"]
    assert not a_text.startswith("and(and(") and "AS date? OR ERROR" in a_text and "AS date OR ERROR" in b_text
