"""The inspector's schema table: Markdown, drawn by the page's own script."""

from __future__ import annotations

import streamlit as st

#: Schemas longer than this scroll inside a box of ``SCHEMA_BOX_PX``.
SCHEMA_ROWS_INLINE = 12
SCHEMA_BOX_PX = 420


def schema_markdown(rows: list[dict]) -> str:
    """The schema as a Markdown table: names and types as code, so that no character of theirs is
    read as Markdown (``*``, ``$``, ``|``, ``<...>``). A nullable type ends in ``?``, as in the graph
    (no column of its own: the table fits the inspector's width)."""
    lines = ["| index | name | type |", "|---:|---|---|"]
    for r in rows:
        lines.append(f"| {r['index']} | {_code(r['name'])} | {_code(r['type'])} |")
    return "\n".join(lines)


def _code(text: str) -> str:
    """``text`` as an inline code span inside a table cell (a ``|`` would end the cell)."""
    text = str(text).replace("|", "\\|")
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def schema_table(rows: list[dict]) -> None:
    """The selected node's schema, as Markdown (in the page's own script). A table element
    (``st.table``, or the interactive grid) makes the browser load and run its own module before the
    page is done, and so delays the graph."""
    text = schema_markdown(rows)
    if len(rows) > SCHEMA_ROWS_INLINE:
        with st.container(height=SCHEMA_BOX_PX, border=False):
            st.markdown(text)
    else:
        st.markdown(text)
