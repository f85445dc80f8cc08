"""The page's address (its query parameters), changed once per run.

Every change Streamlit makes to the address during a run is a new entry in the browser's history, so a
page that set its plan, its node and a setting one by one left several entries for one step, and Back
had to be pressed that many times. Changes are gathered here and made in one go (:func:`apply`): when
the page's node is resolved, before its graph is drawn (an address changing under a drawn graph moved
its view), and at the end of each page and of a fragment that changes the address. Reads see them at
once.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

_PENDING = "_url_pending"
_REPLACE = "_url_replace"  # the address's whole query is to be this (a link of its own, Compare's)


def _pending() -> dict[str, str | None]:
    return st.session_state.setdefault(_PENDING, {})


def get(key: str) -> str | None:
    """The value the address will have for ``key`` at the end of this run."""
    replace = st.session_state.get(_REPLACE)
    pending = _pending()
    if key in pending:
        return pending[key]
    if replace is not None:
        return replace.get(key)
    return st.query_params.get(key)


def has(key: str) -> bool:
    return get(key) is not None


def set(key: str, value: str) -> None:  # noqa: A001 - the module is read as url.set
    _pending()[key] = value


def drop(*keys: str) -> None:
    for key in keys:
        _pending()[key] = None


def replace(params: Mapping[str, str]) -> None:
    """The address's query becomes exactly ``params`` (with what is set after this call)."""
    st.session_state[_REPLACE] = dict(params)
    st.session_state[_PENDING] = {}


def apply() -> None:
    """Make this run's changes to the address, in one change (one history entry), if it changes: at the
    end of a page's run, and of a fragment that changes it (a run of the fragment alone ends there)."""
    pending = st.session_state.pop(_PENDING, None) or {}
    replace = st.session_state.pop(_REPLACE, None)
    current = st.query_params.to_dict()
    wanted = dict(current if replace is None else replace)
    for key, value in pending.items():
        if value is None:
            wanted.pop(key, None)
        else:
            wanted[key] = value
    if wanted != current:
        st.query_params.from_dict(wanted)
