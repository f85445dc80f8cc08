"""The graph's walks, which every pass goes through: post-order, subtree, parents, ancestors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support import ROOT
from viz.graph import build_graph
from viz.load import load_plan
from viz.model import analyze

SAMPLES = sorted(p for p in (Path(ROOT) / "sample_plans").glob("*.json") if p.stem != "manifest")


def _graph(path: Path):
    return build_graph(load_plan(path.read_bytes()).plan)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_post_order_lists_every_node_once_after_all_it_reads(path):
    graph = _graph(path)
    order = graph.post_order()
    assert sorted(order) == sorted(graph.nodes)  # every node, each once
    at = {n: i for i, n in enumerate(order)}
    for n in graph.nodes:
        assert all(at[c] < at[n] for c in graph.children(n)), n
    inputs_only = graph.post_order(subqueries=False)
    assert sorted(inputs_only) == sorted(graph.nodes)
    at = {n: i for i, n in enumerate(inputs_only)}
    assert all(at[c] < at[n] for n in graph.nodes for c in graph.nodes[n].inputs)


def test_post_order_from_a_node_skips_what_a_pass_already_has():
    graph = _graph(Path(ROOT) / "sample_plans" / "tutorial.json")
    below = graph.post_order([graph.roots[0]])
    assert below[-1] == graph.roots[0] and set(below) == set(graph.subtree(graph.roots[0]))
    done = set(below[:-2])
    assert graph.post_order([graph.roots[0]], done=done) == below[-2:]


def test_subtree_stops_where_told_and_parents_walk_up():
    graph = _graph(Path(ROOT) / "sample_plans" / "subqueries.json")
    root = graph.roots[0]
    assert list(graph.subtree(root, expand=lambda n: False)) == [root]
    everything = set(graph.subtree(root))
    no_subqueries = set(graph.subtree(root, subqueries=False))
    subquery_tops = {s for n in graph.nodes for s in graph.nodes[n].subqueries}
    assert subquery_tops and subquery_tops <= everything and not subquery_tops & no_subqueries
    for n in everything - {root}:
        assert root in graph.ancestors(n)
    top = next(iter(subquery_tops))
    assert graph.parents(top) == [] and graph.parents(top, subqueries=True) == [graph.nodes[top].parent]


def test_a_reference_cycle_is_cut_and_the_walks_end():
    plan = {
        "version": {"minorNumber": 54},
        "relations": [{"rel": {"fetch": {"input": {"reference": {"subtreeOrdinal": 0}}, "count": "1"}}}],
    }
    model = analyze(json.dumps(plan).encode())
    graph = model.graph
    assert [d.code for d in graph.diagnostics] == ["reference-cycle"]
    assert graph.post_order() == ["0.0", "0"]  # the reference closes the cycle: it comes first
    assert set(graph.subtree("0")) == {"0", "0.0"} and graph.ancestors("0") == {"0", "0.0"}


def test_around_is_two_levels_up_and_down():
    graph = _graph(Path(ROOT) / "sample_plans" / "tutorial.json")
    node = next(n for n in graph.nodes if graph.nodes[n].depth == 2 and graph.nodes[n].inputs)
    up1 = graph.parents(node)
    up2 = [p for u in up1 for p in graph.parents(u)]
    down1 = graph.nodes[node].inputs
    down2 = [c for d in down1 for c in graph.nodes[d].inputs]
    assert graph.around(node) == list(dict.fromkeys([*up2, *up1, node, *down1, *down2]))
    assert graph.around(node, levels=0) == [node]


def test_a_shared_plan_relation_is_drawn_below_its_readers_not_among_the_roots():
    """set_ops.json: relations 0-3 are plain ``rel`` subtrees that ReferenceRels read (CTEs): on the
    roots' rank they would force their reference edges to point down in a bottom-up drawing."""
    from viz.load import load_path
    from viz.model import analyze_loaded
    from viz.render import PALETTES, to_dot

    model = analyze_loaded(load_path(str(Path(ROOT) / "sample_plans" / "set_ops.json")))
    dot = to_dot(model)
    [rank] = [line for line in dot.splitlines() if "rank=same" in line]
    assert rank.split(";")[1].rstrip(" }").split() == [f'"{i}"' for i in range(4, 12)]
    root_fill = PALETTES["light"].root_fill
    assert root_fill not in next(line for line in dot.splitlines() if line.startswith('  "0" ['))
    assert root_fill in next(line for line in dot.splitlines() if line.startswith('  "4" ['))


def test_a_plain_view_for_an_audience_shows_no_node_ids_and_no_expressions():
    import re

    from viz.model import analyze
    from viz.render import View, to_dot

    path = os.path.join(ROOT, "sample_plans", "tpch_q03_datafusion.json")
    with open(path, "rb") as fh:
        model = analyze(fh.read())
    technical, plain = to_dot(model, view=View()), to_dot(model, view=View(plain=True))
    muted_ids = re.compile(r'<FONT POINT-SIZE="9" COLOR="[^"]+">([^<]*)</FONT>')
    assert [m for m in muted_ids.findall(technical) if m in model.graph.nodes]  # the ids, drawn as usual
    assert not [m for m in muted_ids.findall(plain) if m in model.graph.nodes]
    tooltips = re.findall(r'tooltip="([^"]*)"', plain)
    assert tooltips and not [t for t in tooltips if t.split(" ")[0] in model.graph.nodes]
    detail = re.compile(r'<FONT POINT-SIZE="10">([^<]*)</FONT>')  # the producer's expressions
    reads = {model.node(n).info.detail for n in model.graph.nodes if model.node(n).kind == "read"}
    assert any("and(" in d for d in detail.findall(technical))
    assert set(detail.findall(plain)) == reads == {"customer", "orders", "lineitem"}  # tables, named
    assert "l_orderkey" in plain  # the columns are still there


def test_a_plain_view_numbers_each_box_as_its_step_in_an_audience_s_words():
    """Present's graph: each box headed by its step's number and the step's title beside it ("7. Choose and
    compute columns"), a join's type said ("Join (left)"), an inner join's not; a semi, anti or mark join
    by what it does, as its sentence says ("Keep rows with a match"), and a mark join's match column by its
    step, as the story names it ("step 15's match", not the plan's "mark" or "has_product")."""
    from viz.describe import spoken_model, story_order
    from viz.render import View, to_dot

    with open(os.path.join(ROOT, "sample_plans", "joins_semi_anti_mark.json"), "rb") as fh:
        model = analyze(fh.read())
    steps = {n: i for i, n in enumerate(story_order(model), start=1)}
    plain = to_dot(model, view=View(plain=True, steps=tuple(steps.items())))
    semi = model.node("0")
    assert semi.node.body.type == semi.node.body.JOIN_TYPE_LEFT_SEMI
    assert f"<B>{steps['0']}. Keep rows with a match</B>" in plain
    assert model.node("1").node.body.type == semi.node.body.JOIN_TYPE_LEFT_ANTI
    assert f"<B>{steps['1']}. Keep rows without a match</B>" in plain
    mark = model.node("4")
    assert mark.node.body.type == semi.node.body.JOIN_TYPE_LEFT_MARK
    assert f"<B>{steps['4']}. Look up matches</B>" in plain
    match = f"step {steps['4']}&#x27;s match"
    assert match not in plain
    assert match in to_dot(spoken_model(model), view=View(plain=True, steps=tuple(steps.items())))
    assert f"<B>{steps['0.0']}. Read</B>" in plain
    technical = to_dot(model, view=View(steps=tuple(steps.items())))
    assert f"<B>{steps['0']}. Join</B>" in technical  # the relation's name with the technical marks
    with open(os.path.join(ROOT, "sample_plans", "joins_outer.json"), "rb") as fh:
        inner = analyze(fh.read())
    outer = to_dot(inner, view=View(plain=True))
    assert "<B>Join</B>" in outer  # node 0 is an inner join
    assert inner.node("3").node.body.type == inner.node("3").node.body.JOIN_TYPE_OUTER
    assert "<B>Join (full outer)</B>" in outer and "<B>Join (left)</B>" in outer  # as SQL says them


def test_a_plain_view_draws_no_warning_borders_it_does_not_explain():
    from viz.model import analyze
    from viz.render import PALETTES, View, to_dot

    with open(os.path.join(ROOT, "sample_plans", "tpch_q03_isthmus.json"), "rb") as fh:
        model = analyze(fh.read())
    warning = f'color="{PALETTES["light"].warning}"'
    assert warning in to_dot(model, view=View())  # the plan has warnings: drawn for the technical view
    plain = to_dot(model, view=View(plain=True))
    assert warning not in plain and "cross product" in plain and "CUSTOMER" in plain


@pytest.mark.parametrize(
    "max_rows,fields,last",
    [
        (12, 8, None),  # the tutorial join's 8 fields: all of them
        (4, 3, "… 5 more fields (8 in all)"),  # 4 lines: 3 fields and what is left
        (1, 0, "8 fields"),
        (0, 0, "8 fields"),  # none of them (a slice of -2 showed all but two)
    ],
)
def test_a_box_shows_as_many_schema_lines_as_asked(max_rows, fields, last):
    from viz.render import View, to_dot

    with open(os.path.join(ROOT, "sample_plans", "tutorial.json"), "rb") as fh:
        m = analyze(fh.read())
    dot = to_dot(m, node_ids=["0.0"], view=View(max_rows=max_rows))
    label = next(line for line in dot.splitlines() if line.lstrip().startswith('"0.0" [label='))
    assert label.count('<TD ALIGN="RIGHT">') == fields  # one index cell a field row
    assert (last is None and "more fields" not in label) or f"<I>{last}</I>" in label


def test_a_traced_box_keeps_its_text_legible():
    """The trace colours a box by its effect on the property; its text is white on a dark fill, dark on
    a light one, and the selected box (the selection's pale fill) keeps the theme's dark text: the
    selected Fetch of q03 was white on pale yellow."""
    import re

    from viz.render import PALETTES, View, to_dot

    with open(os.path.join(ROOT, "sample_plans", "tpch_q03_datafusion.json"), "rb") as fh:
        model = analyze(fh.read())
    dot = to_dot(model, view=View(trace="orderedness", selected="0"))
    boxes = {m.group(1): m.group(2) for m in re.finditer(r'^  "([^"]+)" \[(.*)\];$', dot, re.M)}
    light = PALETTES["light"]
    for node_id, attrs in boxes.items():
        fill = re.search(r'fillcolor="(#[0-9a-f]{6})"', attrs).group(1)
        ink = re.search(r'fontcolor="(#[0-9a-f]{6})"', attrs)
        ink = ink.group(1) if ink else light.text
        assert _contrast(fill, ink) >= 4.5, (node_id, fill, ink)  # WCAG's AA level for text
    assert re.search(r'fillcolor="#fff3c4"', boxes["0"]) and 'fontcolor="#ffffff"' not in boxes["0"]


def _contrast(a: str, b: str) -> float:
    """WCAG 2's contrast ratio of two ``#rrggbb`` colours."""

    def luminance(c: str) -> float:
        r, g, b = (int(c[i : i + 2], 16) / 255 for i in (1, 3, 5))
        r, g, b = (x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in (r, g, b))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_a_relation_a_reference_shares_is_no_root_of_its_own():
    """dag_two_roots.json: relation 0 is a plain ``rel`` that both RelRoots (relations 1 and 2) read through a
    ReferenceRel; the plan has two results and one shared subtree. A RelRoot read by nothing is no shared one."""
    graph = build_graph(load_plan((Path(ROOT) / "sample_plans" / "dag_two_roots.json").read_bytes()).plan)
    assert graph.roots == ["0", "1", "2"]
    assert graph.shared_relations == ["0"]
    tutorial = build_graph(load_plan((Path(ROOT) / "sample_plans" / "tutorial.json").read_bytes()).plan)
    assert tutorial.shared_relations == []


def test_a_reads_pushed_down_filter_is_drawn_on_its_box_but_not_for_an_audience():
    """DuckDB writes TPC-H q03's conditions into its reads: without them on the box, the customer read
    looked unfiltered (a user check found it). The technical view draws the condition under the table's
    name; the audience's names the table alone (its words say the condition)."""
    from viz.model import analyze
    from viz.render import View, to_dot

    with open(os.path.join(ROOT, "sample_plans", "tpch_q03_duckdb.json"), "rb") as fh:
        model = analyze(fh.read())
    [customer] = [n for n in model.graph.nodes if model.node(n).info.detail == "customer"]
    assert model.node(customer).info.condition.startswith("where and(equal($6:c_mktsegment, 'BUILDING')")
    assert "where and(equal($6:c_mktsegment, &#x27;BUILDING&#x27;)" in to_dot(model, view=View())
    assert "where " not in to_dot(model, view=View(plain=True))


def test_a_names_control_characters_show_as_escapes_on_its_box():
    """A column named with a newline (``line\\nbreak``) had joined into one word on its box."""
    from tests.support.plans import plan, read
    from viz.render import to_dot

    m = analyze(json.dumps(plan(read("t", [("line\nbreak", "i64"), ("tab\there", "i64")]))).encode())
    dot = to_dot(m)
    assert "line\\nbreak" in dot and "tab\\there" in dot, dot


@pytest.mark.parametrize(
    "written, canonical",
    [
        ("0.0.0.0.0.0.0", "0.0*6"),
        ("0.0*2.0*2", "0.0*4"),
        ("0.0*3", "0.0.0.0"),  # three steps are written out
        ("0.0*499.0.1", "0.0*500.1"),
        ("1.s0.0", "1.s0.0"),
        ("0.0*0", "0.0*0"),  # no id: as it is
        ("join", "join"),
    ],
)
def test_an_id_written_any_way_its_steps_read_is_the_graph_s(written, canonical):
    from viz.graph import canonical_id

    assert canonical_id(written) == canonical


def test_every_id_the_graph_writes_is_its_own_canonical_form():
    from viz.graph import canonical_id

    for name in ("tpch_q03_isthmus.json", "subqueries.json", "dag_two_roots.json"):
        with open(os.path.join(ROOT, "sample_plans", name), "rb") as fh:
            ids = list(analyze(fh.read()).graph.nodes)
        assert [canonical_id(i) for i in ids] == ids
