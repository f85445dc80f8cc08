"""The inspector's schema table: Markdown, drawn by the page's own script."""

from __future__ import annotations

import streamlit as st

from ui.markdown import unlinked

#: Schemas longer than this scroll inside a box of ``SCHEMA_BOX_PX``.
SCHEMA_ROWS_INLINE = 12
SCHEMA_BOX_PX = 420


def schema_markdown(rows: list[dict]) -> str:
    """The schema as a Markdown table (drawn with HTML allowed): names and types as code whose every
    character but letters, digits and spaces is an HTML character reference, so that none is read as
    Markdown or HTML (``*``, ``$``, ``|``, ``<...>``). A name breaks after a separator
    (``b_street_`` / ``number``), a type at a space, never mid-word. A nullable type ends in ``?``, as in the graph
    (no column of its own: the table fits the inspector's width)."""
    lines = ["| index | name | type |", "|---:|---|---|"]
    for r in rows:
        lines.append(f"| {r['index']} | {code_html(r['name'], NAME_BREAKS)} | {code_html(r['type'])} |")
    return "\n".join(lines)


def code_html(text: str, breaks: str = "", style: str = "") -> str:
    """``text`` as a ``<code>`` element for Markdown drawn with HTML allowed, a line free to break at its
    spaces and after each character of ``breaks`` only; ``style`` (a colour, a background) on its text,
    inside the element, whose own colour and background would cover it."""
    out = []
    for ch in unlinked(str(text)):
        out.append(ch if ch.isalnum() or ch == " " else f"&#{ord(ch)};")
        if ch in breaks:
            out.append("<wbr>")
    inner = "".join(out)
    return f'<code><span style="{style}">{inner}</span></code>' if style else f"<code>{inner}</code>"


#: Where a long name may break: after the separators of its parts (a type, at its spaces only).
NAME_BREAKS = "_.,("


def schema_table(rows: list[dict]) -> None:
    """The selected node's schema, as Markdown (in the page's own script). A table element
    (``st.table``, or the interactive grid) makes the browser load and run its own module before the
    page is done, and so delays the graph."""
    markdown_table(schema_markdown(rows), len(rows))


def markdown_table(text: str, rows: int) -> None:
    """A Markdown table drawn with HTML allowed, in a box of :data:`SCHEMA_BOX_PX` that scrolls when it
    has more than :data:`SCHEMA_ROWS_INLINE` rows."""
    if rows > SCHEMA_ROWS_INLINE:
        with st.container(height=SCHEMA_BOX_PX, border=False):
            st.markdown(text, unsafe_allow_html=True)
    else:
        st.markdown(text, unsafe_allow_html=True)
