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

#: Widget values that follow the user from page to page and are not kept by their widgets: the selected
#: node, whose picker differs from page to page, and the sample picked. (Streamlit forgets a widget's
#: value at the end of a run that does not draw the widget, so a trip to another page would reset them;
#: the other settings are kept by their widgets' ``persist_state="session"``, which also holds through a
#: run of another page's fragment, where this did not.)
KEPT_WIDGETS = ("node", "plan_sample")


def keep_widget_state() -> None:
    """Keep :data:`KEPT_WIDGETS` across pages: a value set through the Session State API (here, to
    itself) stays when no widget on the page holds it."""
    for key in KEPT_WIDGETS:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def through_app() -> None:
    keep_widget_state()
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


def kept_input(widget, label: str, key: str, default, **kwargs):
    """``widget`` (``st.number_input``, ``st.checkbox``…) whose value is kept in ``st.session_state[key]``
    for the session, also through runs that do not draw it (an inspector tab that is not open, another
    page). The widget has a key of its own and is drawn with the kept value: a widget keyed ``key`` that
    came back after such runs showed its minimum, and sent that back as the person's value."""
    state = st.session_state
    state.setdefault(key, default)
    shown = _shown(key)

    def keep() -> None:
        state[key] = state[shown]

    return widget(label, value=state[key], key=shown, on_change=keep, **kwargs)


def kept_value(key: str):
    """The value of a :func:`kept_input` as the person last set it (in a click's callback too, which may
    come before the widget's own)."""
    state = st.session_state
    return state[_shown(key)] if _shown(key) in state else state[key]


def _shown(key: str) -> str:
    return f"{key}__widget"
