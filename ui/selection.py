"""What the pages share about the selected node and the drawing: one ``node`` in the session and
the URL (``?node=``), and the theme the graph is drawn in."""

from __future__ import annotations

import streamlit as st


def select(node_id: str) -> None:
    """Select a node (a widget callback): the pages read ``st.session_state["node"]``."""
    st.session_state["node"] = node_id


def resolve_node(node_ids: list[str], default: str | None) -> str | None:
    """The node to show: the session's, else the URL's, else ``default``; kept in both."""
    wanted = st.session_state.get("node") or st.query_params.get("node")
    if wanted not in node_ids:
        wanted = default
    if wanted is not None:
        st.session_state["node"] = wanted
        st.query_params["node"] = wanted
    return wanted


def theme() -> str:
    """"dark" or "light": the theme the browser shows, for ``viz.render.View``."""
    try:
        return "dark" if st.context.theme.type == "dark" else "light"
    except AttributeError:
        return "light"
