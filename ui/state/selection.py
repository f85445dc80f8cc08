"""What the pages share about the selected node and the drawing: one ``node`` in the session and
the URL (``?node=``), the view settings in the URL too (``?trace=orderedness&focus=1``...), and
the theme the graph is drawn in."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from ui.state import url
from viz.graph import canonical_id

#: What a node's id says, for the node pickers' help (docs/plan-model.md has the rules).
NODE_ID_HELP = (
    "A node's id is its path from its root: `0` is the plan's first root, `0.1` that node's second "
    "input, `0.0.2` the third input of its first input. A run of first inputs is written with a count: "
    "`0.0*5` is `0.0.0.0.0.0`, five first inputs down. `s0` is the first subquery inside a node's "
    "expressions (`0.s0`). Type an id or a relation's name to find a node."
)


def select(node_id: str) -> None:
    """Select a node (a widget callback): the pages read ``st.session_state["node"]``."""
    st.session_state["node"] = node_id


def matching_nodes(node_ids: list[str], typed: str, label: Callable[[str], str] | None = None) -> list[str]:
    """The nodes that text typed in a node picker names: the node with exactly that id alone (so
    ``0.0*5`` is never ``0.0*15``), else, in plan order, those whose label (``label(id)``, e.g.
    "0.0*5 · Read · orders") holds the text, ignoring case."""
    text = typed.strip()
    if canonical_id(text) in node_ids:  # its id, however its steps are written (0.0.0.0.0 for 0.0*4)
        return [canonical_id(text)]
    if not text or label is None:
        return []
    folded = text.casefold()
    return [n for n in node_ids if folded in label(n).casefold()]


def match_node(node_ids: list[str], typed: str, label: Callable[[str], str] | None = None) -> str | None:
    """The node typed text names (the first of :func:`matching_nodes`); None when none does."""
    return next(iter(matching_nodes(node_ids, typed, label)), None)


#: The node :func:`resolve_node` last chose, as the address then got it.
_SHOWN = "_node_shown"


def resolve_node(
    node_ids: list[str],
    default: str | None,
    label: Callable[[str], str] | None = None,
    called: Callable[[str], str] = "node {}".format,
) -> str | None:
    """The node to show: the session's, else the URL's, else ``default``; kept in both (``called`` names a
    node as the page does, for the message when the URL's names none). The session's
    may be text typed in a picker that takes any text: it is matched by :func:`match_node`, and text
    that names no node leaves the node the URL has (the one shown before). An address whose node
    changed since this run's page last set it (Back, Forward, an edited address), while the session's
    did not, names the node to show."""
    typed = st.session_state.get("node")
    shown = st.session_state.get(_SHOWN)
    in_address = st.query_params.get("node")
    in_address = canonical_id(in_address) if in_address else in_address
    if typed == shown and in_address != shown and in_address in node_ids:
        typed = in_address
    matches = matching_nodes(node_ids, typed, label) if isinstance(typed, str) and typed else []
    wanted = next(iter(matches), None)
    if typed and label is not None and typed not in node_ids:
        from ui.markdown import md_escape

        if not matches:
            st.toast(
                md_escape(f"No node matches “{typed}”: a node's id, kind and detail are searched."), duration="long"
            )
        elif len(matches) > 1:
            st.toast(
                md_escape(
                    f"“{typed.strip()}” matches {len(matches)} nodes: this is the first in plan order, "
                    f"{label(matches[0])}. The sidebar's “Search nodes” marks them all."
                ),
                duration="long",
            )
    if wanted is None:
        wanted = url.get("node")
        wanted = canonical_id(wanted) if wanted is not None else None
        if wanted is not None and wanted not in node_ids and default is not None:
            from ui.markdown import md_escape

            st.toast(
                md_escape(f"This plan has no node “{wanted}”, which the address names: {called(default)} is shown."),
                duration="long",
            )
    if wanted not in node_ids:
        wanted = default
    if wanted is not None:
        st.session_state["node"] = wanted
        url.set("node", wanted)
    st.session_state[_SHOWN] = wanted
    # before the graph is drawn: an address that changes under a drawn graph moved its view
    url.apply()
    return wanted


def theme() -> str:
    """ "dark" or "light": the theme the browser shows, for ``viz.render.View``."""
    try:
        return "dark" if st.context.theme.type == "dark" else "light"
    except AttributeError:
        return "light"


def setting_from_url(key: str, parse: Callable[[str], Any]) -> None:
    """Before its widget is drawn: a setting the session has not set yet takes the URL's value
    (``parse`` raises ``ValueError`` for a value it refuses, which is then ignored)."""
    if key in st.session_state or not url.has(key):
        return
    try:
        st.session_state[key] = parse(url.get(key))
    except ValueError:
        pass


def setting_to_url(key: str, value: Any, default: Any) -> None:
    """After its widget: the setting in the URL, or out of it when it is the default."""
    if value == default:
        url.drop(key)
        return
    if isinstance(value, bool):
        text = "1" if value else "0"
    elif isinstance(value, (list, tuple, frozenset, set)):
        text = ",".join(str(v) for v in value)
    else:
        text = str(value)
    url.set(key, text)


def parse_flag(text: str) -> bool:
    if text not in ("0", "1"):
        raise ValueError(text)
    return text == "1"


def parse_choice(choices) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in choices:
            raise ValueError(text)
        return text

    return parse


def parse_int_between(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        value = int(text)
        if not low <= value <= high:
            raise ValueError(text)
        return value

    return parse


def parse_members(members) -> Callable[[str], list[str]]:
    def parse(text: str) -> list[str]:
        return [m for m in text.split(",") if m in members]

    return parse
