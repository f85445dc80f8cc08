"""Profile the plan from the app: every node's row count on the graph, like a query profile.

The profile (``executor.jobs.profile.profile_plan``) runs in a worker thread owned by this browser
session, with progress and Cancel (a fragment refreshes each second), as ``ui.panels.run_tab`` does for
one node. When it is done, ``profile_overlay`` gives what ``viz.render.to_dot`` draws and
``profile_table`` lists the figures per node.
"""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from executor.data.catalog import unbound_tables
from executor.jobs.profile import Profile, profile_plan
from ui.markdown import md_escape
from ui.panels.unbound import unbound_warning
from ui.state.plan_data import catalog_for, data_key
from ui.state.plan_source import Plan
from ui.tasks import Task, finished, progress_fragment, show_progress, start
from viz.counts import count_text, exact_text, factor_text, is_abbreviated
from viz.model import PlanModel
from viz.render import Overlay, title
from viz.tables import reads_only

DEFAULT_TIMEOUT_S = 600.0
SHOW_KEY = "inspect_profile_show"
_REFUSED_KEY = "inspect_profile_refused"  # plans whose profile was not started: every read is unbound


def _states() -> dict[str, Task]:
    return st.session_state.setdefault("inspect_profiles", {})


def _key(plan: Plan, model: PlanModel) -> tuple:
    """Where a profile is kept: by plan and data (counts of other data, bound since, are not these)."""
    return (model.digest, data_key(plan, model))


def _start(plan: Plan, model: PlanModel, timeout_s: float) -> None:
    state = Task()
    _states()[_key(plan, model)] = state
    start(
        state,
        plan,
        lambda catalog: profile_plan(model, catalog, timeout_s=timeout_s, cancel=state.cancel, progress=state.progress),
        what="profiling the plan",
        thread_name="app-profile",
    )


@progress_fragment
def _progress_fragment(key: str) -> None:
    state = _states().get(key)
    if state is not None:
        show_progress(state, "Profiling", "inspect_profile_cancel")


def profile_controls(plan: Plan, model: PlanModel, button_at=st) -> Profile | None:
    """The "Profile the plan" button (in ``button_at``, a container), then its progress and, once a
    profile is done, the toggle that shows it; returns the finished profile when the overlay is to be
    drawn (None otherwise)."""
    key = _key(plan, model)
    state = _states().get(key)
    running = state is not None and not state.done.is_set()
    clicked = button_at.button(
        "Profile the plan (row counts)",
        key="inspect_profile_button",
        disabled=running,
        help="Count the rows of every node on Spark (exact counts) and draw them on the graph. The "
        "plan runs once, observing every node; rows that follow from the inputs' (a sort, a "
        "fetch, a join without a condition) are computed, so a cross product is never run",
    )
    refused = st.session_state.setdefault(_REFUSED_KEY, set())
    if not clicked and state is None and key not in refused:
        return None
    unserved = unbound_tables(catalog_for(plan), model)
    if clicked:
        if unserved and reads_only(model, unserved):  # a run would count nothing: it is not started
            refused.add(key)
        else:
            refused.discard(key)
            _start(plan, model, DEFAULT_TIMEOUT_S)
            state = _states()[key]
    if key in refused:
        if not unserved or not reads_only(model, unserved):  # bound since: the next click counts
            refused.discard(key)
            return None
        unbound_warning(unserved, "The plan", "nothing in it can be counted until then")
        return None
    if state is None:
        return None
    if unserved:  # else a profile counts nothing and the graph says "not profiled" with no reason
        unbound_warning(unserved, "The plan", "the nodes that read {them}, and those above, are not counted until then")
    if state.done.is_set() and state.result is not None:  # nothing to show or hide before a profile is done
        st.toggle("Show row counts on the graph", value=True, key=SHOW_KEY)
    profile = finished(state, lambda: _progress_fragment(key))
    if profile is None:
        return None
    if profile.stopped:
        st.warning(md_escape(f"The profile was {profile.stopped}; the nodes counted before that are shown."))
    return profile if st.session_state.get(SHOW_KEY, True) else None


def finished_profile(plan: Plan, model: PlanModel) -> Profile | None:
    """This session's finished profile of the plan on its data now, if any (whatever the toggle says)."""
    state = _states().get(_key(plan, model))
    return state.result if state is not None and state.done.is_set() else None


def profile_overlay(profile: Profile | None) -> Overlay | None:
    return profile.overlay() if profile is not None else None


_HOW = {
    "run": "in the run of {run_of}",
    "reads": "with every read, in one job",
    "derived": "from its inputs' rows",
    "count": "its own Spark job",
}


def profile_frame(model: PlanModel, profile: Profile) -> pd.DataFrame:
    """One row per node: rows, how they were counted (or why not), the time that is the node's own,
    the rows over its input's, flags, and what went wrong. Rows, time and factor are floats, so a click
    on their heading sorts by value (:data:`PROFILE_FORMATS` writes them as people read them): a
    derived count can pass what a dataframe's integers hold, and past nine digits nobody reads it;
    when one is rounded, an "exact rows" column gives every count in full, as text."""
    rows = []
    for nid, p in profile.nodes.items():
        counted = p.rows is not None
        rows.append(
            {
                "node": nid,
                "relation": title(p.kind),
                "rows": (float(p.rows) if abs(p.rows) < GRID_MAX else math.inf) if counted else None,
                "exact rows": exact_text(p.rows) if counted else "",
                # why a node is not counted is said where one looks for how it was
                "counted": (
                    _HOW.get(p.how or "", "").format(run_of=p.run_of) + (" (remembered)" if p.cached else "")
                    if counted
                    else f"no: {(p.error or p.skipped or 'not reached').removeprefix('not run: ')}"
                ),
                "time (s)": p.elapsed_s if p.own_figure else None,
                "× input": p.factor if p.factor is not None and math.isfinite(p.factor) else None,
                "flags": ", ".join(p.flags),
                "note": (p.error or "") if counted else "",
            }
        )
    # the exact figures last: one of sixty digits, first, pushed every other column out of sight
    columns = ["node", "relation", "rows", "counted", "time (s)", "× input", "flags", "note", "exact rows"]
    if not any(p.rows is not None and is_abbreviated(p.rows) for p in profile.nodes.values()):
        columns.remove("exact rows")
    if not any(r["note"] for r in rows):
        columns.remove("note")
    return pd.DataFrame(rows, columns=columns).astype({name: "float64" for name in PROFILE_FORMATS})


#: The grid refuses a whole number from this size up in a number column (JavaScript's safe integers): a
#: count that large is held as infinity, which sorts above every other, and written by :func:`profile_styler`.
GRID_MAX = 2**53

#: How the profile table writes its number columns; a cell without a figure is Streamlit's "None".
PROFILE_FORMATS = {
    "rows": lambda rows: "" if math.isinf(rows) else count_text(round(rows)),
    "time (s)": "{:.3f}".format,
    "× input": factor_text,
}


def profile_styler(frame: pd.DataFrame):
    """The profile table as the page shows it: :data:`PROFILE_FORMATS`, and each count past
    :data:`GRID_MAX` written from its exact figure."""
    styler = frame.style.format(PROFILE_FORMATS, na_rep="")
    for label, rows, exact in zip(frame.index, frame["rows"], frame.get("exact rows", [""] * len(frame))):
        if math.isinf(rows):
            text = count_text(int(exact.replace(",", "")))
            styler = styler.format(lambda _, text=text: text, subset=pd.IndexSlice[[label], ["rows"]])
    return styler


#: How the profile table shows a figure a node has not.
NOT_KNOWN = "—"


def profile_table(model: PlanModel, profile: Profile) -> None:
    counted = sum(1 for p in profile.nodes.values() if p.rows is not None)
    jobs = profile.jobs
    with st.expander(
        f"Profile: {counted} of {len(profile.nodes)} nodes counted in {profile.elapsed_s:.1f} s "
        f"({jobs} Spark job{'s' if jobs != 1 else ''})",
        expanded=False,
    ):
        frame = profile_frame(model, profile)
        # wide enough for their longest figures: a right-aligned number cut on the left reads as another number
        longest = max((len(text) for text in frame.get("exact rows", [])), default=0)
        counts = [count_text(p.rows) for p in profile.nodes.values() if p.rows is not None]
        factors = [
            factor_text(p.factor) for p in profile.nodes.values() if p.factor is not None and math.isfinite(p.factor)
        ]
        st.dataframe(
            profile_styler(frame),
            hide_index=True,
            width="stretch",
            placeholder=NOT_KNOWN,  # a count, time or factor a node has not, where Streamlit wrote "None"
            column_config={
                "exact rows": st.column_config.TextColumn(alignment="right", width=24 + 9 * longest),
                "rows": st.column_config.NumberColumn(width=32 + 8 * max(map(len, counts), default=4)),
                "× input": st.column_config.NumberColumn(width=32 + 8 * max(map(len, factors), default=7)),
            },
        )
        if not jobs:  # nothing ran: the how of counting is no answer, each node's reason is
            st.caption("No node was counted on Spark; the table says why for each.")
            return
        st.caption(
            "The reads were counted together in one Spark job; then the plan ran once from the node named in "
            '"counted", with every other node\'s rows observed; its time is on that node. Rows that follow from '
            "the inputs' (a project, a sort, a fetch, a join without "
            "a condition) are computed, not run. A node that one run cannot count (below a fetch, which stops "
            "reading early) is counted in its own Spark job, with that job's time. ∅ empty: no rows while an "
            "input had rows. ⚠ exploded: more than 10× its largest input's rows and more than 1,000 rows."
        )
