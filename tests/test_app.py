"""The Streamlit page, driven by streamlit.testing.v1.AppTest."""

from __future__ import annotations

import os

import pytest
from streamlit.testing.v1 import AppTest

APP = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "app.py")
SAMPLES = sorted(os.listdir(os.path.join(os.path.dirname(APP), "sample_plans")))


@pytest.mark.parametrize("sample", [s for s in SAMPLES if s.endswith(".json")])
def test_every_sample_plan_renders_without_exception(sample):
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.sidebar.selectbox[0].select(sample).run()
    assert not at.exception
    assert not at.error
    assert at.dataframe, "the selected node's schema is shown"


def test_bad_paste_shows_an_error_and_the_page_keeps_working():
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.sidebar.text_area[0].input('{"relations": [').run()
    assert not at.exception
    assert at.error and "invalid JSON" in at.error[0].value


def test_selecting_a_node_shows_its_schema():
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.sidebar.selectbox[0].select("tutorial.json").run()
    at.sidebar.selectbox[1].select("0.0.0").run()
    assert not at.exception
    frame = at.dataframe[0].value
    assert list(frame["name"]) == ["product_id", "quantity", "order_date", "price"]
    assert at.query_params["node"] == ["0.0.0"] or at.query_params["node"] == "0.0.0"
