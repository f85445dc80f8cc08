"""Profile the plan from the app: every node's row count on the graph, like a query profile.

The profile (``executor.profile.profile_plan``) runs in a worker thread owned by this browser
session, with progress and Cancel (a fragment refreshes each second), as ``ui.run_panel`` does for
one node. When it is done, ``profile_overlay`` gives what ``viz.render.to_dot`` draws and
``profile_table`` lists the figures per node.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from executor.profile import Profile, profile_plan
from ui.background import Task, show_progress, start
from ui.plan_source import Plan
from viz.model import PlanModel
from viz.render import Overlay, title

DEFAULT_TIMEOUT_S = 600.0
SHOW_KEY = "inspect_profile_show"


def _states() -> dict[int, Task]:
    return st.session_state.setdefault("inspect_profiles", {})


def _start(plan: Plan, model: PlanModel, timeout_s: float) -> None:
    state = Task()
    _states()[hash(plan.data)] = state
    start(state, plan, lambda catalog: profile_plan(model, catalog, timeout_s=timeout_s, cancel=state.cancel,
                                                    progress=state.progress),
          what="profiling the plan", thread_name="app-profile")


@st.fragment(run_every=1.0)
def _progress_fragment(key: int) -> None:
    state = _states().get(key)
    if state is not None:
        show_progress(state, "Profiling", "inspect_profile_cancel")


def profile_controls(plan: Plan, model: PlanModel) -> Profile | None:
    """The "Profile the plan" button, its progress, and the toggle; returns the finished profile
    when the overlay is to be drawn (None otherwise)."""
    key = hash(plan.data)
    state = _states().get(key)
    running = state is not None and not state.done.is_set()
    c1, c2 = st.columns([2, 3])
    if c1.button("Profile the plan (row counts)", key="inspect_profile_button", disabled=running,
                 help="Count the rows of every node on Spark (exact counts, one Spark job per node) and draw them on the graph"):
        _start(plan, model, DEFAULT_TIMEOUT_S)
        state = _states()[key]
    done = state is not None and state.done.is_set() and state.result is not None
    c2.toggle("Show row counts on the graph", value=True, key=SHOW_KEY, disabled=not done)
    if state is None:
        return None
    if not state.done.is_set():
        _progress_fragment(key)
        return None
    if state.error is not None:
        st.error(state.error)
        return None
    profile = state.result
    assert profile is not None
    if profile.stopped:
        st.warning(f"The profile was {profile.stopped}; the nodes counted before that are shown.")
    return profile if st.session_state.get(SHOW_KEY, True) else None


def finished_profile(plan: Plan) -> Profile | None:
    """This session's finished profile of ``plan``, if any (whatever the toggle says)."""
    state = _states().get(hash(plan.data))
    return state.result if state is not None and state.done.is_set() else None


def profile_overlay(profile: Profile | None) -> Overlay | None:
    return profile.overlay() if profile is not None else None


def profile_frame(model: PlanModel, profile: Profile) -> pd.DataFrame:
    """One row per node: rows, subtree time, own time (estimate), flags, and what went wrong."""
    rows = []
    for nid, p in profile.nodes.items():
        rows.append({
            "node": nid,
            "relation": title(p.kind),
            "rows": p.rows,
            "time (s)": None if p.elapsed_s is None else round(p.elapsed_s, 3),
            "own time (s, est.)": None if p.own_s is None else round(p.own_s, 3),
            "× input": None if p.factor is None else round(p.factor, 2),
            "flags": ", ".join(p.flags),
            "note": p.error or p.skipped or ("memoised" if p.cached else ""),
        })
    return pd.DataFrame(rows, columns=["node", "relation", "rows", "time (s)", "own time (s, est.)", "× input", "flags", "note"])


def profile_table(model: PlanModel, profile: Profile) -> None:
    counted = sum(1 for p in profile.nodes.values() if p.rows is not None)
    with st.expander(f"Profile: {counted} of {len(profile.nodes)} nodes counted in {profile.elapsed_s:.1f} s", expanded=False):
        st.dataframe(profile_frame(model, profile), hide_index=True, width="stretch")
        st.caption("Time is the count of the node's whole subtree; own time is that minus its inputs' times, "
                   "an estimate. ∅ empty: no rows while an input had rows. ⚠ exploded: more than 10× its largest "
                   "input's rows and more than 1,000 rows.")
