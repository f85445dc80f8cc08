"""Each panel of a page draws its own failure: an unexpected exception in one panel becomes a short
message there, and the rest of the page is drawn as usual (never a traceback in place of the page).

Streamlit's own control flow (``st.rerun``, ``st.stop``) passes through untouched: it is a
``BaseException``, not an ``Exception``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from ui.markdown import md_escape

log = logging.getLogger(__name__)

HINT = (
    "This is a bug in the app, not a problem with the plan; the rest of the page still works. "
    "Please report it with the plan that shows it."
)


def failure_text(panel: str, exc: BaseException) -> str:
    """``"internal error in <panel>: <Type>: <message>"``."""
    message = str(exc).strip()
    return f"internal error in {panel}: {type(exc).__name__}" + (f": {message}" if message else "")


@contextmanager
def panel(name: str) -> Iterator[None]:
    """Draw a panel (the block under ``with``); if it raises, show what went wrong in its place
    (:func:`failure_text` and :data:`HINT`), log the traceback on the server, and go on with the page."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - the boundary: any failure of the panel is shown, not raised
        log.exception("internal error in %s", name)
        st.error(md_escape(failure_text(name, exc)), icon=":material/error:")
        st.caption(HINT)
