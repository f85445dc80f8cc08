"""The one warning for tables a run needs that are not bound to data serving them, with the way to bind them."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from ui.markdown import md_escape
from viz.words.basics import capped_list


def unbound_warning(unserved: Sequence[str], reader: str, until: str = "", link: bool = True) -> None:
    """Say that ``reader`` ("The plan", "It") reads ``unserved`` tables, which no data serves, and what waits
    for them (``until``, where ``{them}`` stands for the tables: "the nodes that read {them} are not
    counted until then"); a long list is cut ("a, b, c, d and 9 more"). Then a link to the Tables page,
    unless the caller offers its own way there (``link=False``)."""
    n = len(unserved)
    names = capped_list(list(unserved), 4)
    if n == 1:
        text = f"{reader} reads {names}, which is not bound to data that serves it"
    else:
        text = f"{reader} reads {n} tables not bound to data that serves them ({names})"
    if until:
        text += ": " + until.format(them="it" if n == 1 else "them")
    st.warning(md_escape(text + "."), icon=":material/table:")
    if link:
        st.page_link("pages/tables.py", label="Bind the tables on the Tables page", icon=":material/table_chart:")
