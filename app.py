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
# The settings are read once, from the environment: a value that is not one says which, not a traceback.
try:
    from executor import settings as _settings  # noqa: F401
except ValueError as exc:
    st.error(f"The app cannot start: {exc}. Fix the environment variable and start it again.")
    st.stop()

import ui.spark_import  # noqa: E402, F401  pyspark whole before any page imports part of it (see the module)

# A Markdown table (the schema's) in compact cells, its names and types breaking only after a separator
# (ui.panels.schema_table); a table still wider than its place scrolls there (it ran past the inspector's
# edge). Below 1,200 px the page's side margins narrow: the inspector beside the graph had too little room
# for its tables.
st.html(
    "<style>"
    "[data-testid='stMarkdownContainer'] table { display: block; overflow-x: auto; }"
    " [data-testid='stMarkdownContainer'] :is(td, th) { padding: 0.3rem 0.45rem; }"
    # Inspect's action buttons' place (pages/inspect.py ACTIONS_PX) grows where the buttons wrap
    " :has(> .st-key-inspect_actions) { flex: 0 0 auto !important; height: auto !important; min-height: 40px;"
    " overflow: visible !important; }"
    # tabs wrap to a second row where the inspector is narrow: a tab strip that scrolls hides its last tabs
    " [role='tablist'] { flex-wrap: wrap; column-gap: 0.8rem; row-gap: 0; }"
    " @media (max-width: 1200px) { [data-testid='stMainBlockContainer'] { padding-left: 1.5rem;"
    " padding-right: 1.5rem; } }"
    "</style>"
)

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
