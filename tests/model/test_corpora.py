"""Conformance sweep over every real plan in ../shared/corpora, with a printed score."""

from __future__ import annotations

import collections
import os

from tests.support import CORPORA, corpus_plans
from viz.errors import PlanLoadError
from viz.load import load_path
from viz.model import analyze_loaded


def test_every_corpus_plan_loads_and_every_node_has_a_schema_or_a_reason(corpora_dir, capsys):
    plans = corpus_plans()
    assert len(plans) >= 600, f"expected the whole corpora, found {len(plans)} plans"
    score = collections.Counter()
    by_folder: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    unexplained, width_mismatch, load_errors = [], [], []
    for path in plans:
        folder = os.path.relpath(path, CORPORA).split(os.sep)[0]
        try:
            model = analyze_loaded(load_path(path))
        except PlanLoadError as exc:  # not a crash, but no plan here loads with an error
            load_errors.append((path, str(exc)))
            continue
        score["plans"] += 1
        by_folder[folder]["plans"] += 1
        for node in model.nodes():
            score["nodes"] += 1
            if node.schema is not None:
                score["with schema"] += 1
                by_folder[folder]["with schema"] += 1
            elif node.diagnostics:
                score["unknown, with a diagnostic"] += 1
            else:
                unexplained.append((path, node.id))
            by_folder[folder]["nodes"] += 1
        for root in model.roots:
            names = model.graph.root_names.get(root)
            schema = model.node(root).schema
            if names and schema is not None:
                score["roots with names"] += 1
                if sum(1 + len(f.nested) for f in schema) != len(names):
                    width_mismatch.append((path, root, len(schema), len(names)))
    with capsys.disabled():
        print(
            f"\ncorpora sweep: {score['plans']}/{len(plans)} plans loaded, {score['nodes']} nodes, "
            f"{score['with schema']} with a schema, {score['unknown, with a diagnostic']} unknown with a "
            f"diagnostic, {len(unexplained)} unexplained; root width = names on "
            f"{score['roots with names'] - len(width_mismatch)}/{score['roots with names']} roots"
        )
        for folder, c in sorted(by_folder.items()):
            print(f"  {folder:18} {c['plans']:4} plans {c['nodes']:5} nodes {c['with schema']:5} with schema")
    assert load_errors == []
    assert unexplained == []
    assert width_mismatch == []
    assert score["roots with names"] > 500


def test_tutorial_plan_gives_the_tutorials_schemas(corpora_dir):
    """../shared/spec/sql_to_substrait_tutorial.txt builds this plan step by step."""
    model = analyze_loaded(load_path(os.path.join(corpora_dir, "spec", "tutorial_final_plan.json")))
    rows = lambda node_id: [(f.name, f.type_text()) for f in model.node(node_id).schema]  # noqa: E731
    # orders: product_id i64 NOT NULL, quantity i32 NOT NULL, order_date date NOT NULL, price decimal(10,2)
    orders = [("product_id", "i64"), ("quantity", "i32"), ("order_date", "date"), ("price", "decimal<10,2>?")]
    # products: product_id, categories list<string NOT NULL> NOT NULL, details struct<...>, product_name
    products = [
        ("product_id", "i64"),
        ("categories", "list<string>"),
        ("details", "struct<manufacturer: string?, year_created: i32?>?"),
        ("product_name", "string?"),
    ]
    assert [n.kind for n in model.nodes()] == ["aggregate", "join", "read", "filter", "read"]
    assert rows("0.0.0") == orders
    assert rows("0.0.1.0") == products
    assert rows("0.0.1") == products  # "For Filter relations, the output schema is the same as the input"
    assert rows("0.0") == orders + products  # "the concatenation of the left and then the right schemas"
    # The aggregate outputs product_id, product_name, sales; the emit [1, 0, 2] puts product_name first.
    assert [f.name for f in model.node("0").info.direct] == [
        "product_id",
        "product_name",
        "sum(multiply(quantity, price))",
    ]
    assert rows("0") == [("product_name", "string?"), ("product_id", "i64"), ("sales", "decimal<38,2>?")]
    assert model.node("0.0").info.expressions == [("on", "equal($0:product_id, $4:product_id)")]
    assert ("measure", "sum(multiply(cast($1:quantity AS decimal<10,2>), $3:price))") in model.node(
        "0"
    ).info.expressions
    assert ("group by", "$7:product_name") in model.node("0").info.expressions
    assert model.node("0.0.1").info.expressions == [("condition", "is_null(index_in('Computers', $1:categories))")]
    # The tutorial declares multiply(decimal<10,2>, decimal<10,2>) as decimal<38,2>; the YAML's
    # derivation is decimal<21,4> (precision P1 + P2 + 1, scale S1 + S2): the one diagnostic.
    assert [(d.node, d.code) for n in model.nodes() for d in n.diagnostics] == [("0", "output-type-conflict")]


def test_duckdbs_predicates_declared_of_their_arguments_type_are_booleans_to_the_calls_that_take_them():
    """DuckDB declares a comparison's output as its argument's type (gt(l_shipdate, date ...) as date?): said
    once on each comparison, and the ``and`` that joins two of them is checked with the booleans the run
    holds, not said to match no signature (taking "(date?, date?)")."""
    path = os.path.join(CORPORA, "consumer-testing/snapshots/producer/integration/tpch/q03-duckdb_plan.json")
    model = analyze_loaded(load_path(path))
    codes = collections.Counter(d.code for d in model.all_diagnostics() if d.severity.value != "info")
    assert "no-matching-signature" not in codes, codes
    conflicts = [d.message for d in model.all_diagnostics() if d.code == "output-type-conflict"]
    predicates = [m for m in conflicts if "gives boolean" in m]
    assert len(predicates) == 6 and all("the run keeps the predicate's boolean" in m for m in predicates)
