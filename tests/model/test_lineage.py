"""Column lineage (viz.lineage), checked by hand against the plans and their SQL.

Every expectation here was worked out by reading the plan (``python -m viz inspect PLAN`` shows each
node's schema and expressions) and the query: the tutorial plan, TPC-H q03, q05 and q18 as isthmus
(Calcite) and DuckDB wrote them (``consumer-testing``; the SQL is beside them in ``testdata``), and
DataFusion's q03 (``sample_plans``). Column positions in the tables are TPC-H's: lineitem's
l_orderkey 0, l_quantity 4, l_extendedprice 5, l_discount 6, l_shipdate 10; orders' o_orderkey 0,
o_custkey 1, o_totalprice 3, o_orderdate 4, o_shippriority 7; customer's c_custkey 0, c_name 1,
c_nationkey 3; nation's n_name 1.
"""

from __future__ import annotations

import contextlib
import io
import json
import os

import pytest

from tests.support import ROOT
from tests.support import plans as P
from viz import lineage as L
from viz.lineage import LineageError, chain_texts, column_sources, trace, use_text, used_by, walk
from viz.load import load_path
from viz.model import PlanModel, analyze_loaded

SAMPLES = os.path.join(ROOT, "sample_plans")
TPCH = os.path.join(ROOT, "..", "shared", "corpora", "consumer-testing", "snapshots", "producer", "integration", "tpch")


def _model(path: str) -> PlanModel:
    return analyze_loaded(load_path(path))


def _sample(name: str) -> PlanModel:
    return _model(os.path.join(SAMPLES, name))


def _tpch(query: str, producer: str) -> PlanModel:
    path = os.path.join(TPCH, f"{query}-{producer}_plan.json")
    if not os.path.exists(path):
        pytest.skip(f"the shared corpora are not at {TPCH}")
    return _model(path)


def _sources(lineage: L.Lineage) -> list[tuple[str, str]]:
    return [(s.table, s.column) for s in lineage.sources()]


def _roots(model: PlanModel) -> dict[str, list[tuple[str, str]]]:
    """Each root column's name -> its source table columns."""
    root = model.roots[0]
    return {f.name: _sources(trace(model, root, i)) for i, f in enumerate(model.node(root).schema)}


def _used(model: PlanModel, node: str, index: int) -> tuple[list[tuple[str, int]], list[tuple[str, str]]]:
    u = used_by(model, node, index)
    return [s.ref for s in u.columns], [(c.node, c.role) for c in u.conditions]


# ---- the tutorial plan -------------------------------------------------------------------------
# SELECT product_id, product_name, SUM(quantity * price) AS sales FROM orders JOIN products USING
# (product_id) WHERE 'Computers' NOT IN categories GROUP BY product_id, product_name; the aggregate's
# emit [1, 0, 2] puts its second key (product_name, the join's field 7) first.


def test_tutorial_every_root_column_to_its_table_column():
    model = _sample("tutorial.json")
    assert [f.name for f in model.node("0").schema] == ["product_name", "product_id", "sales"]
    assert _roots(model) == {
        "product_name": [("products", "product_name")],  # the emit: direct field 1, the key $7
        "product_id": [("orders", "product_id")],  # the key $0: the join's left input (orders)
        "sales": [("orders", "quantity"), ("orders", "price")],
    }
    assert [chain_texts(trace(model, "0", i)) for i in range(3)] == [
        ["[0] product_name ← product_name of products (table column 3)"],
        ["[1] product_id ← product_id of orders (table column 0)"],
        [
            "[2] sales ← sum(multiply(cast($1:quantity AS decimal<10,2>), $3:price)) ← quantity of orders "
            "(table column 1)",
            "[2] sales ← sum(multiply(cast($1:quantity AS decimal<10,2>), $3:price)) ← price of orders "
            "(table column 3)",
        ],
    ]


def test_tutorial_the_path_goes_through_the_join_and_the_filter():
    model = _sample("tutorial.json")
    name = trace(model, "0", 0)
    # aggregate 0 [0] <- join 0.0 [7] (right input, 8 - 4 = [3]) <- filter 0.0.1 [3] <- read 0.0.1.0 [3]
    assert list(name.steps) == [("0", 0), ("0.0", 7), ("0.0.1", 3), ("0.0.1.0", 3)]
    assert [s.origin.kind for s in name.steps.values()] == ["passes", "passes", "passes", "source"]
    assert name.steps[("0", 0)].origin.how == "group by $7:product_name"
    assert name.steps[("0.0", 7)].origin.how == "from the right input"
    assert name.edges() == [("0.0", "0"), ("0.0.1", "0.0"), ("0.0.1.0", "0.0.1")]
    sales = trace(model, "0", 2)
    assert sales.nodes() == ["0", "0.0", "0.0.0"] and sales.literals() == []
    assert sales.steps[("0", 2)].origin.inputs == (("0.0", 1), ("0.0", 3))


def test_tutorial_where_a_column_is_used():
    model = _sample("tutorial.json")
    # products.product_id: only compared in the join (the aggregate groups by the orders' one)
    assert _used(model, "0.0.1.0", 0) == ([("0.0.1", 0), ("0.0", 4)], [("0.0", "join condition")])
    # orders.product_id: the join condition and the grouping key; the root's product_id is it
    assert _used(model, "0.0.0", 0) == ([("0.0", 0), ("0", 1)], [("0.0", "join condition"), ("0", "grouping key")])
    # categories: read by the filter only; quantity: computed into sales
    assert _used(model, "0.0.1.0", 1) == ([("0.0.1", 1), ("0.0", 5)], [("0.0.1", "filter condition")])
    cols = used_by(model, "0.0.0", 1).columns
    assert [(s.ref, s.origin.how) for s in cols][-1] == (
        ("0", 2),
        "sum(multiply(cast($1:quantity AS decimal<10,2>), $3:price))",
    )


# ---- TPC-H q03: revenue = sum(l_extendedprice * (1 - l_discount)) ------------------------------


@pytest.mark.parametrize("producer, literal", [("isthmus", "1"), ("duckdb", "1.00")])
def test_q03_root_columns(producer, literal):
    model = _tpch("q03", producer)
    names = [f.name.lower() for f in model.node("0").schema]
    assert names == ["l_orderkey", "revenue", "o_orderdate", "o_shippriority"]
    got = {k.lower(): [(t.lower(), c.lower()) for t, c in v] for k, v in _roots(model).items()}
    assert got["revenue"] == [("lineitem", "l_extendedprice"), ("lineitem", "l_discount")]
    assert got["o_orderdate"] == [("orders", "o_orderdate")] and got["o_shippriority"] == [("orders", "o_shippriority")]
    # isthmus groups by l_orderkey; DuckDB by o_orderkey (equal to it by the join) and names it l_orderkey
    assert got["l_orderkey"] == ([("lineitem", "l_orderkey")] if producer == "isthmus" else [("orders", "o_orderkey")])
    assert trace(model, "0", 1).literals() == [literal]  # the 1 of (1 - l_discount)


def test_q03_isthmus_revenue_chain():
    model = _tpch("q03", "isthmus")
    # fetch, sort, project (a plain $3: passes), aggregate sum($3), the project computing
    # l_extendedprice * (1 - l_discount) over the cross product customer (8) x orders (9) x lineitem:
    # $22 = lineitem 5, $23 = lineitem 6
    computed = (
        "[1] REVENUE ← sum($3:multiply(L_EXTENDEDPRICE, subtract(1, L_DISCOUN…) ← multiply($22:L_EXTENDEDPRICE, "
        "subtract(cast(1 AS decimal<15,2> OR ERROR), $23:L_DISCOUNT))"
    )
    assert chain_texts(trace(model, "0", 1)) == [
        f"{computed} ← L_EXTENDEDPRICE of LINEITEM (table column 5)",
        f"{computed} ← L_DISCOUNT of LINEITEM (table column 6)",
        f"{computed} ← literal 1",
    ]


def test_q03_duckdb_reads_through_projections_and_joins():
    model = _tpch("q03", "duckdb")
    # the lineitem read projects $0, $5, $6: its output [1] is the table's column 5
    assert chain_texts(trace(model, "0", 1))[0] == (
        "[1] revenue ← sum(multiply($1:l_extendedprice, subtract(1.00, $2:l_discount))) ← l_extendedprice of "
        "lineitem (table column 5)"
    )
    # group key $3 of the project = join field 4 = the right input's 1 = orders' read output 1 (projection $1, $0, ...)
    key = trace(model, "0", 0)
    assert chain_texts(key) == ["[0] l_orderkey ← o_orderkey of orders (table column 0)"]
    assert ("0.0*5", 4) in key.steps and ("0.0*5.1.0.0", 1) in key.steps


def test_q03_datafusion_revenue():
    model = _sample("tpch_q03_datafusion.json")
    lineage = trace(model, "0", 1)
    assert _sources(lineage) == [("lineitem", "l_extendedprice"), ("lineitem", "l_discount")]
    assert lineage.literals() == ["1"]


def test_q03_isthmus_a_filtered_column_is_used_by_the_filter_only():
    model = _tpch("q03", "isthmus")
    # l_shipdate > '1995-03-15': lineitem is the cross product's right input (after 17 columns); the
    # project above the filter does not output it
    assert _used(model, "0.0*6.1", 10) == ([("0.0*6", 27), ("0.0*5", 27)], [("0.0*5", "filter condition")])
    # c_mktsegment = 'BUILDING', in the same filter
    assert _used(model, "0.0*7", 6)[1] == [("0.0*5", "filter condition")]


# ---- TPC-H q05: n_name, revenue over six tables ------------------------------------------------


@pytest.mark.parametrize("producer", ["isthmus", "duckdb"])
def test_q05_root_columns(producer):
    model = _tpch("q05", producer)
    got = {k.lower(): [(t.lower(), c.lower()) for t, c in v] for k, v in _roots(model).items()}
    assert got == {
        "n_name": [("nation", "n_name")],
        "revenue": [("lineitem", "l_extendedprice"), ("lineitem", "l_discount")],
    }
    assert chain_texts(trace(model, "0", 0))[0].lower() == "[0] n_name ← n_name of nation (table column 1)"


def test_q05_c_nationkey_is_compared_where_the_producer_compares_it():
    # c_nationkey = s_nationkey (and s_nationkey = n_nationkey): isthmus keeps every condition in
    # one filter over the cross products; DuckDB compares it in two joins (with n_nationkey, then
    # s_nationkey)
    isthmus = _tpch("q05", "isthmus")
    assert _used(isthmus, "0.0*8", 3)[1] == [("0.0.0.0", "filter condition")]
    duckdb = _tpch("q05", "duckdb")
    assert duckdb.node("0.0*6.1.0.1.0*4").schema[1].name == "c_nationkey"
    assert _used(duckdb, "0.0*6.1.0.1.0*4", 1)[1] == [
        ("0.0*6.1.0.1.0.0.0", "join condition"),
        ("0.0*4", "join condition"),
    ]


# ---- TPC-H q18: sum(l_quantity) and the IN (... HAVING sum(l_quantity) > 300) subquery -----------


@pytest.mark.parametrize("producer", ["isthmus", "duckdb"])
def test_q18_root_columns(producer):
    model = _tpch("q18", producer)
    got = [[(t.lower(), c.lower()) for t, c in v] for v in _roots(model).values()]
    assert got == [
        [("customer", "c_name")],
        [("customer", "c_custkey")],
        [("orders", "o_orderkey")],
        [("orders", "o_orderdate")],
        [("orders", "o_totalprice")],
        [("lineitem", "l_quantity")],
    ]
    assert chain_texts(trace(model, "0", 5))[0].lower().endswith("← l_quantity of lineitem (table column 4)")


def test_q18_isthmus_the_in_subquery():
    model = _tpch("q18", "isthmus")
    assert chain_texts(trace(model, "0", 5)) == [
        "[5] EXPR$5 ← sum($5:L_QUANTITY) ← L_QUANTITY of LINEITEM (table column 4)"
    ]
    # o_orderkey: in the filter (o_orderkey IN (subquery), = l_orderkey) and a grouping key
    columns, conditions = _used(model, "0.0*6.1", 0)
    assert conditions == [("0.0*4", "filter condition"), ("0.0*4", "filter condition"), ("0.0.0", "grouping key")]
    # each clause of the filter's and that reads it, not the whole condition
    texts = [use_text(c) for c in used_by(model, "0.0*6.1", 0).conditions]
    assert texts[:2] == [
        "0.0*4 filter condition: ($8:O_ORDERKEY) IN (subquery 0.0*4.s0)",
        "0.0*4 filter condition: equal($8:O_ORDERKEY, $17:L_ORDERKEY)",
    ]
    assert columns[-1] == ("0", 2)
    # the subquery's only column (l_orderkey) is read by the filter's IN
    assert _used(model, "0.0*4.s0", 0) == ([], [("0.0*4", "filter condition")])
    # the HAVING: sum(l_quantity) per l_orderkey, compared with 300 in the subquery's filter
    assert _used(model, "0.0*4.s0.0.0", 1) == ([("0.0*4.s0.0", 1)], [("0.0*4.s0.0", "filter condition")])


def test_q18_duckdb_the_semi_join():
    model = _tpch("q18", "duckdb")
    # DuckDB writes the IN as a left semi join of orders with the subquery: o_orderkey is compared
    # there, then with l_orderkey, and grouped by; the semi join outputs the orders' columns only
    columns, conditions = _used(model, "0.0*5.1.0*4", 0)
    assert conditions == [("0.0*5.1.0.0.0", "join condition"), ("0.0*5", "join condition"), ("0.0.0.0", "grouping key")]
    assert columns[0] == ("0.0*5.1.0.0.0", 0) and columns[-1] == ("0", 2)
    assert model.node("0.0*5.1.0.0.0").info.detail.startswith("left_semi")
    # the subquery's l_orderkey: grouped by, then compared in the semi join, and not output by it
    columns, conditions = _used(model, "0.0*5.1.0.0.0.1.0.0.0", 0)
    assert columns == [("0.0*5.1.0.0.0.1.0.0", 0), ("0.0*5.1.0.0.0.1.0", 0), ("0.0*5.1.0.0.0.1", 0)]
    assert conditions == [("0.0*5.1.0.0.0.1.0.0", "grouping key"), ("0.0*5.1.0.0.0", "join condition")]
    # the HAVING
    assert _used(model, "0.0*5.1.0.0.0.1.0.0", 1)[1] == [("0.0*5.1.0.0.0.1.0", "filter condition")]


# ---- every relation kind's rule, on the sample plans and small hand-made plans -------------------


def test_set_ops_a_column_comes_from_the_same_column_of_every_input():
    model = _sample("set_ops.json")
    union = trace(model, "4", 0)  # union all of relations 0, 1 and 2 (three filters of orders), by reference
    assert union.steps[("4", 0)].origin.inputs == (("4.0", 0), ("4.1", 0), ("4.2", 0))
    assert union.steps[("4.0", 0)].origin.how == "the shared relation's column"
    assert {("0", 0), ("1", 0), ("2", 0)} <= set(union.steps) and _sources(union) == [("orders", "product_id")]
    # minus_multiset of relation 3 (products) and relations 1, 2 (orders): both tables
    assert _sources(trace(model, "8", 0)) == [("products", "product_id"), ("orders", "product_id")]


def test_joins_semi_anti_and_mark():
    model = _sample("joins_semi_anti_mark.json")
    assert (
        _roots_of(model, "0")
        == _roots_of(model, "1")
        == [[("orders", c)] for c in ("product_id", "quantity", "order_date", "price")]
    )
    assert _roots_of(model, "2") == [[("products", "product_id")], [("products", "product_name")]]  # right semi
    mark = trace(model, "4", 4)  # left mark join: the mark is whether the condition matched
    assert mark.steps[("4", 4)].origin.how == "mark: whether a row matches on equal($0:product_id, $4:product_id)"
    assert _sources(mark) == [("orders", "product_id"), ("products", "product_id")]
    assert _roots_of(model, "5")[2] == [("orders", "product_id"), ("products", "product_id")]  # right mark


def _roots_of(model: PlanModel, node: str) -> list[list[tuple[str, str]]]:
    return [_sources(trace(model, node, i)) for i in range(len(model.node(node).schema))]


def test_outer_joins_and_physical_joins():
    model = _sample("joins_outer.json")
    assert trace(model, "3", 4).steps[("3", 4)].origin.how == "from the right input (null where unmatched)"
    physical = _sample("physical.json")
    # hash join of two exchanges: p_product_id is the right input's product_id; the keys are uses
    assert _sources(trace(physical, "0", 4)) == [("products", "product_id")]
    assert _used(physical, "0.1.0", 0)[1] == [("0.1", "scatter key"), ("0", "join key")]
    assert _used(physical, "1.0.0", 0)[1] == [("1.0", "sort key"), ("1", "join key")]


def test_windows_and_grouping_sets():
    window = _sample("window.json")
    # sum(quantity) OVER (the relation's window, ROWS ... CURRENT ROW), row_number() from nothing
    [running] = chain_texts(trace(window, "0", 4))
    assert running.startswith("[4] running_qty ← sum($1:quantity) OVER (PARTITION BY $0:product_id ORDER BY ")
    assert running.endswith(" ← quantity of orders (table column 1)")
    assert chain_texts(trace(window, "0", 3)) == [
        "[3] order_no ← row_number() OVER (PARTITION BY $0:product_id ORDER BY $2:order_date ASC NULLS LAST, "
        "$1:quantity ASC NULLS LAST)"
    ]
    # sum(quantity) OVER (PARTITION BY product_id): the value comes from quantity; product_id is a key
    assert _sources(trace(window, "0", 5)) == [("orders", "quantity")]
    assert _used(window, "0.0.0", 0)[1] == [("0.0", "partition key"), ("0", "partition key")]
    assert _used(window, "0.0.0", 2)[1] == [("0.0", "sort key")]  # the window relation's ORDER BY order_date
    aggregates = _sample("aggregates.json")  # grouping sets (product_id), (): the set's index last
    assert [trace(aggregates, "0", i).steps[("0", i)].origin.how for i in range(4)] == [
        "group by $0:product_id",
        "sum($1:quantity)",
        "count()",
        "the index of the row's grouping set",
    ]


def test_subqueries_and_outer_references():
    model = _sample("subqueries.json")
    assert chain_texts(trace(model, "0", 2)) == ["[2] n_orders ← (subquery 0.s0) ← count()"]
    assert chain_texts(trace(model, "0", 3)) == [
        "[3] max_price ← (subquery 0.s1) ← max($3:price) ← price of orders (table column 3)"
    ]
    # products.product_id is read by the correlated subqueries through outer references (^$0)
    assert _used(model, "0.0.0", 0)[1] == [
        ("0.0", "filter condition"),
        ("0.0.s1", "filter condition"),
        ("0.s0.0", "filter condition"),
    ]


def test_a_read_filter_is_a_use_of_the_column_its_emit_outputs():
    """A read whose filter tests t and whose emit swaps its columns: the filter is a use of output column 0
    (t), not of column 1 (id); with t emitted away, of no output column. (It was kept under the column's
    place before the emit, so a read of a type Spark lacks could be taken for one nothing reads.)"""
    functions = {1: ("is_null:any", "functions_comparison")}
    read = P.read("tt", [("id", "i64?"), ("t", "string?")], filter=P.call(1, P.field(1), out="boolean"))
    model = P.model_of(P.plan((P.emit(read, [1, 0]), ["t", "id"]), functions=functions))
    root = model.roots[0]
    assert [u.text for u in used_by(model, root, 0).conditions] == ["is_null($1:t)"]
    assert used_by(model, root, 1).conditions == ()
    assert L.carried_only(model, root, 0) is None and L.carried_only(model, root, 1) == [root]
    dropped = P.model_of(P.plan((P.emit(read, [0]), ["id"]), functions=functions))
    assert used_by(dropped, dropped.roots[0], 0).conditions == ()


def test_read_projection_emit_and_a_virtual_table():
    doc = P.plan(
        (
            P.emit(
                P.read(
                    "t",
                    [("a", "i64"), ("b", "string"), ("c", "i64")],
                    projection={"select": {"structItems": [{"field": 2}, {"field": 0}]}},
                ),
                [1, 0],
            ),
            ["x", "y"],
        ),
        {
            "read": {
                "baseSchema": {"names": ["v"], "struct": {"types": [P.typ("i64")]}},
                "virtualTable": {"expressions": [{"fields": [P.i64(7)]}, {"fields": [P.i64(8)]}]},
            }
        },
    )
    model = P.model_of(doc)
    # the projection picks c, a; the emit swaps them: x = a (column 0), y = c (column 2)
    assert [chain_texts(trace(model, "0", i)) for i in range(2)] == [
        ["[0] x ← a of t (table column 0)"],
        ["[1] y ← c of t (table column 2)"],
    ]
    values = trace(model, "1", 0)
    assert _sources(values) == [("virtual table", "v")] and values.literals() == ["7", "8"]


def test_what_cannot_be_followed_is_said():
    model = _sample("errors.json")
    score = trace(model, "0", 2)  # the project's emit maps field 7 of 7 fields
    assert score.steps[("0", 2)].origin.kind == "unknown" and "emit maps field 7" in score.steps[("0", 2)].origin.note
    assert column_sources(model, "0")[2].to_json() == {"sources": [], "unknown": True}
    with pytest.raises(LineageError, match=r"field 3 is out of range: node 0 has 3 fields \(0-2\)"):
        trace(model, "0", 3)
    with pytest.raises(LineageError, match="node 'nope' is not in the plan"):
        used_by(model, "nope", 0)
    with pytest.raises(LineageError, match="node 2's columns are unknown"):  # a reference to a missing relation
        trace(model, "2", 0)
    ext = P.model_of(
        P.plan(
            (
                {
                    "project": {
                        "input": {"extensionSingle": {"input": P.read("t", [("a", "i64")])}},
                        "expressions": [P.field(0)],
                    }
                },
                ["x"],
            )
        )
    )
    with pytest.raises(
        LineageError, match="columns are unknown.*the schema of input 0.0 is unknown"
    ):  # the extension below
        trace(ext, "0", 0)
    with pytest.raises(LineageError, match="columns are unknown.*an extension relation defines its own columns"):
        trace(ext, "0.0", 0)
    assert L.node_lineage(ext, "0.0").columns == []


def test_a_rule_that_fails_is_a_diagnostic_on_its_node(monkeypatch):
    model = _sample("tutorial.json")

    def broken(ctx):
        raise ValueError("odd plan")

    monkeypatch.setitem(L.RULES, "filter", broken)
    walk._memo.forget(model)
    lineage = trace(model, "0", 0)  # through the filter 0.0.1
    step = lineage.steps[("0.0.1", 3)]
    assert step.origin.kind == "unknown"
    assert [(d.node, d.code) for d in lineage.diagnostics] == [("0.0.1", "lineage-failed")]
    assert "odd plan" in lineage.diagnostics[0].message
    assert chain_texts(trace(model, "0", 1)) == [
        "[1] product_id ← product_id of orders (table column 0)"
    ]  # the rest still follows
    walk._memo.forget(model)


# ---- inspect --json ------------------------------------------------------------------------------


def test_inspect_json_names_each_columns_sources():
    from viz.__main__ import main

    path = os.path.join(TPCH, "q03-duckdb_plan.json")
    if not os.path.exists(path):
        pytest.skip("no shared corpora")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["inspect", "--json", path]) == 0
    doc = json.loads(out.getvalue())
    root = doc["nodes"][0]
    assert [c["lineage"] for c in root["schema"]] == [
        {"sources": [{"table": "orders", "column": "o_orderkey"}]},
        {
            "sources": [
                {"table": "lineitem", "column": "l_extendedprice"},
                {"table": "lineitem", "column": "l_discount"},
            ],
            "literals": ["1.00"],
        },
        {"sources": [{"table": "orders", "column": "o_orderdate"}]},
        {"sources": [{"table": "orders", "column": "o_shippriority"}]},
    ]
    assert all("lineage" in c for n in doc["nodes"] for c in n["schema"] or ())


def test_a_masked_reference_is_unknown_not_a_column_of_no_source():
    """A masked reference (``$<mask>``) selects fields the lineage does not trace: its column says it is
    unknown and why, rather than showing no source at all."""
    masked = {"selection": {"maskedReference": {"select": {"structItems": [{"field": 0}]}}, "rootReference": {}}}
    rel = {"project": {"input": P.read("t", [("id", "i64")]), "expressions": [masked]}}
    step = trace(P.model_of(P.plan(rel)), "0", 1).steps[("0", 1)]
    assert step.origin.kind == "unknown" and "masked reference" in step.origin.note
