"""Which browser session a script run serves, and whether a session is still connected."""

from __future__ import annotations

from streamlit.runtime.scriptrunner import get_script_run_ctx


def session_id() -> str:
    """The browser session this script run serves ("" outside one)."""
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else ""


def session_here(session_id: str) -> bool:
    """Whether the browser session is connected to the server (True where that cannot be known)."""
    try:
        from streamlit.runtime import Runtime

        return not Runtime.exists() or Runtime.instance().is_active_session(session_id)
    except Exception:  # noqa: BLE001 - Streamlit's internals differ: keep what is the session's
        return True
