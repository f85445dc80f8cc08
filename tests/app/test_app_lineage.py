"""Column lineage on the Inspect page (AppTest, no browser, no Spark): pick a column of the selected
node, see its chains and where it is used, and the path handed to the graph to paint."""

from __future__ import annotations

import os

from streamlit.testing.v1 import AppTest

from tests.support import ROOT
from tests.support.app_graph import graphs
from ui.markdown import md_escape

APP = os.path.join(ROOT, "app.py")


def _open(**query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    return at


def _chains(at: AppTest) -> list[str]:
    return [line for c in at.code for line in c.value.splitlines() if " ← " in line]


def test_picking_a_column_shows_its_chain_and_paints_its_path():
    at = _open(sample="tutorial.json")  # the root, the aggregate 0, is selected
    picker = at.selectbox(key="lineage_column")
    assert picker.value is None and not _chains(at)
    assert picker.placeholder == "pick a column…"  # what the empty picker shows, as its first option says
    assert graphs(at)[0]["lineage"] is None  # nothing picked: nothing painted
    assert picker.options[1:] == ["[0] product_name", "[1] product_id", "[2] sales"]

    picker.select(2).run()
    assert not at.exception, at.exception
    # sales = sum(quantity * price) over the join of orders and (filtered) products: both columns are
    # orders' (the join's left input), quantity is cast to the price's decimal type
    assert _chains(at) == [
        "[2] sales ← sum(multiply(cast($1:quantity AS decimal<10,2>), $3:price)) ← quantity of orders (table column 1)",
        "[2] sales ← sum(multiply(cast($1:quantity AS decimal<10,2>), $3:price)) ← price of orders (table column 3)",
    ]
    assert any("Sources: orders.quantity, orders.price" in c.value for c in at.caption)
    # "(table column 1)" is quantity, the second column of orders: said to count from 0 (a user check)
    assert any("table columns count from 0" in c.value for c in at.caption)
    painted = graphs(at)[0]["lineage"]
    assert painted["nodes"] == ["0", "0.0", "0.0.0"]  # not the products side
    assert painted["edges"] == ["0.0->0", "0.0.0->0.0"]
    assert painted["rows"] == {"0": [2], "0.0": [1, 3], "0.0.0": [1, 3]}

    at.selectbox(key="node").select("0.0").run()  # another node: nothing picked there yet
    assert not at.exception, at.exception
    assert at.selectbox(key="lineage_column").value is None and not _chains(at)
    assert graphs(at)[0]["lineage"] is None


def test_a_column_used_above_lists_the_conditions_that_read_it():
    at = _open(sample="tutorial.json", node="0.0.1.0")  # the read of products
    at.selectbox(key="lineage_column").select(1).run()  # categories
    assert not at.exception, at.exception
    assert _chains(at) == ["[1] categories ← categories of products (table column 1)"]
    used = " ".join(m.value for m in at.markdown)
    assert "0.0.1 filter condition: is\\_null(index\\_in('Computers', \\$1:categories))" in used
    assert graphs(at)[0]["lineage"]["nodes"] == ["0.0.1.0", "0.0.1", "0.0"]


def test_a_click_on_a_schema_row_in_the_graph_picks_the_column():
    """The viewer sends "<node>|<index>" for a click on a schema row (the browser test clicks one): the
    callback selects the node and picks the column, which the inspector then shows."""
    from ui.panels.column_lineage import clicked_column

    ids = ["0", "0.0", "0.0.0", "0.0.1", "0.0.1.0", "0.0*4.s0"]
    assert clicked_column({"column": "0.0|7"}, ids) == ("0.0", 7)
    assert clicked_column({"column": "0.0*4.s0|12"}, ids) == ("0.0*4.s0", 12)
    assert clicked_column({"column": "9.9|1"}, ids) is None  # not a node of the plan
    assert clicked_column({"column": "0.0|x"}, ids) is None
    assert clicked_column({"node": "0.0"}, ids) is None and clicked_column(None, ids) is None

    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["sample"] = "tutorial.json"
    at.session_state["node"] = "0.0"  # what the callback sets (AppTest cannot click in the viewer)
    at.session_state["lineage_node"] = "0.0"
    at.session_state["lineage_column"] = 7
    at.run()
    assert not at.exception, at.exception
    assert at.subheader[0].value == "Join · 0.0"
    assert at.selectbox(key="lineage_column").value == 7
    assert _chains(at) == ["[7] product_name ← product_name of products (table column 3)"]


def test_a_column_that_cannot_be_followed_says_why():
    at = _open(sample="errors.json")  # the root project's emit maps a field the project does not produce
    at.selectbox(key="lineage_column").select(2).run()
    assert not at.exception, at.exception
    assert _chains(at) == ["[2] score ← unknown: the emit maps field 7, which the relation does not produce"]
    # (the Markdown source is escaped, so the brackets show as written)
    assert any(md_escape("0 [2] score: the emit maps field 7") in w.value for w in at.warning)
