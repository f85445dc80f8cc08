"""Substrait plan visualizer and executor (Streamlit entry point): ``make run``.

The pages are thin: every decision is made in ``viz`` (the plan model) and ``executor`` (Spark).
"""

from __future__ import annotations

import os

import streamlit as st

# The tab's icon is a file of ours: a page's Material icon as the favicon is fetched from
# fonts.gstatic.com on every page view, and the app calls no one outside this machine.
st.set_page_config(
    page_title="Substrait plan visualizer",
    page_icon=os.path.join(os.path.dirname(__file__), "ui", "favicon.svg"),
    layout="wide",
)
# a Markdown table's last column (the schema's types) breaks long code where it must: a table sized to its
# longest token ran past the inspector's edge
st.html("<style>[data-testid='stMarkdownContainer'] td:last-child code { overflow-wrap: anywhere; }</style>")

# Material Symbols ship with Streamlit (no emoji font needed); each icon sits beside its page's name.
pages = [
    st.Page("pages/inspect.py", title="Inspect", icon=":material/search:", default=True),
    st.Page("pages/step.py", title="Step through", icon=":material/footprint:"),
    st.Page("pages/compare.py", title="Compare plans", icon=":material/compare_arrows:"),
    st.Page("pages/sql.py", title="SQL to plan", icon=":material/edit_note:"),
    st.Page("pages/present.py", title="Present", icon=":material/slideshow:"),
    st.Page("pages/tables.py", title="Tables", icon=":material/table_chart:"),
]
st.navigation(pages).run()
