"""Substrait plan visualizer and executor (Streamlit entry point): ``make run``.

The pages are thin: every decision is made in ``viz`` (the plan model) and ``executor`` (Spark).
"""

from __future__ import annotations

import streamlit as st

st.set_page_config(page_title="Substrait plan visualizer", layout="wide")

pages = [
    st.Page("pages/inspect.py", title="Inspect", icon="🔎", default=True),
    st.Page("pages/step.py", title="Step through", icon="👣"),
    st.Page("pages/compare.py", title="Compare plans", icon="↔️"),
    st.Page("pages/sql.py", title="SQL to plan", icon="📝"),
    st.Page("pages/present.py", title="Present", icon="🎬"),
    st.Page("pages/tables.py", title="Tables", icon="🗂️"),
]
st.navigation(pages).run()
