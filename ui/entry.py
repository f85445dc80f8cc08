"""Every page runs through ``app.py``, also when its URL is opened directly.

Streamlit still has its first multipage mechanism: when a ``pages/`` folder sits beside the entry
script, a fresh server that is first asked for ``/step`` runs ``pages/step.py`` on its own, without
``app.py`` (so without its page set-up and navigation), until some session has run ``app.py``. A
shared link opens exactly such a URL. Each page calls :func:`through_app` first: it switches the
server to ``st.navigation`` (which ``app.py`` would do) and reruns, so ``app.py`` runs and opens the
page the URL names. (Streamlit's AppTest resets the switch before every run: there the page runs on,
since a rerun would drop the widget action of that run.)
"""

from __future__ import annotations

import streamlit as st


def through_app() -> None:
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # another Streamlit: nothing to do
        return
    first = "entry_seen" not in st.session_state  # rerun at most once per session, on its first run
    st.session_state["entry_seen"] = True
    if getattr(PagesManager, "uses_pages_directory", False):
        PagesManager.uses_pages_directory = False
        if first:
            st.rerun()
