"""Inspect a plan: the graph of relations with schemas and properties, and one node in detail."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import NamedTuple

import pandas as pd
import streamlit as st

from ui.graph.viewer import export_dot, graph_view, plan_dot
from ui.markdown import md_escape
from ui.page import not_its_sql, open_plan, run_page
from ui.panels.boundary import panel
from ui.panels.column_lineage import column_clicked, lineage_highlight, lineage_panel
from ui.panels.cross_engine import bisect_controls, compare_section, engine_overlay, portability_controls
from ui.panels.engines_tab import REDRAWN, engines_tab
from ui.panels.report_button import file_stem, report_button
from ui.panels.row_counts import profile_controls, profile_overlay, profile_table
from ui.panels.run_tab import run_tab
from ui.panels.schema_table import schema_table
from ui.state import url
from ui.state.entry import through_app
from ui.state.plan_source import executability_of, graph_gaps
from ui.state.selection import (
    NODE_ID_HELP,
    parse_choice,
    parse_flag,
    parse_int_between,
    parse_members,
    resolve_node,
    select,
    setting_from_url,
    setting_to_url,
    theme,
)
from ui.state.share import share_link_widget
from viz.errors import Severity
from viz.export import has_dot, svg_or_none
from viz.model import PlanModel
from viz.properties.spec import cited
from viz.render import View, title
from viz.report import hidden_matches, input_columns, node_report, property_rules, search
from viz.words import counted

through_app()

_SEVERITY_WIDGET = {Severity.ERROR: st.error, Severity.WARNING: st.warning, Severity.INFO: st.info}
SEARCH_LABEL = "Search nodes"  # the sidebar's search box: Enter there steps through the hits in the graph
TRACE = {"none": None, "orderedness": "orderedness", "distribution": "distribution"}
#: The inspector's tabs, the most used first: a narrow inspector scrolls the last ones out of sight.
#: Characters of a node's key line shown under its heading in the inspector.
HEADING_CHARS = 160
INSPECTOR_TABS = ["Schema", "Run", "Expressions", "Engines", "Inputs", "Properties", "Diagnostics", "JSON"]
INSPECTOR_TAB_KEY = "inspector_tab"  # the open tab's label, in the session state
#: The heights, in px, of the overlays' buttons (one row) and of the toggle under them: the places a
#: page drawing its graph first keeps for them. The toggle's place keeps its height when the toggle
#: comes too: until its module has loaded, Streamlit holds a place of another height for it, and the
#: graph would move down and back.
ACTIONS_PX, TOGGLE_PX = 40, 24
#: The Inputs tab's type column at most (about 20 characters): the names beside it stay in sight.
TYPE_MAX_PX = 180


@st.cache_data(show_spinner=False, max_entries=16)
def _svg(dot: str) -> bytes | None:
    """The SVG export, drawn by Graphviz once per distinct DOT rather than on every rerun."""
    return svg_or_none(dot)


def _label(model: PlanModel, node_id: str) -> str:
    n = model.node(node_id)
    detail = n.info.detail
    return f"{node_id} · {title(n.kind)}" + (f" · {detail[:70]}" if detail else "")


class Settings(NamedTuple):
    """The sidebar's view settings: what the graph shows whichever node is selected."""

    trace: str
    query: str
    focus: bool
    collapsed: list[str]
    max_rows: int
    hits: frozenset[str]


def _settings(model: PlanModel, trace: str, query: str, focus: bool, collapsed: list[str], max_rows: int) -> Settings:
    return Settings(trace, query, focus, collapsed, max_rows, frozenset(search(model, query) if query else []))


def _view_controls(model: PlanModel, draw: bool = True) -> Settings:
    """The view settings the sidebar asks for (the URL's, at first), their widgets drawn; with
    ``draw`` false, the same settings read without their widgets (a page drawing its graph first)."""
    big = len(model.graph.nodes) > 60
    rows_default = 6 if big else 12
    for key, parse in (
        ("trace", parse_choice(TRACE)),
        ("search", str),
        ("focus", parse_flag),
        ("collapsed", parse_members(model.graph.nodes)),
        ("max_rows", parse_int_between(2, 40)),
    ):
        setting_from_url(key, parse)
    if not draw:
        state = st.session_state
        return _settings(
            model,
            state.get("trace", "none"),
            state.get("search", ""),
            state.get("focus", False),
            state.get("collapsed", []),
            state.get("max_rows", rows_default),
        )
    with st.sidebar:
        st.header("View")
        query = st.text_input(
            SEARCH_LABEL,
            key="search",
            persist_state="session",
            placeholder="table, column or function name",
            help="The nodes that match are green, the one shown outlined in orange (Enter in this box: the next, "
            "Shift+Enter: the one before). The selected node is yellow, a root blue.",
        )
    # the settings are drawn when the popover opens: five more widgets on every page open cost the
    # browser a tenth of a second
    with st.sidebar.popover("View settings", width="stretch"):
        trace = st.radio(
            "Trace a property",
            list(TRACE),
            horizontal=True,
            key="trace",
            persist_state="session",
            help="Colour the nodes by what they do to the property and label the edges with its value",
        )
        focus = st.toggle("Focus on the selected node's subtree", key="focus", persist_state="session")
        collapsed = st.multiselect(
            "Collapsed nodes",
            list(model.graph.nodes),
            key="collapsed",
            persist_state="session",
            help="Hide the inputs of these nodes",
        )
        # the URL's value, when given, is already in the session state: no second default beside it
        max_rows = st.slider(
            "Schema rows per node",
            2,
            40,
            key="max_rows",
            persist_state="session",
            **({} if "max_rows" in st.session_state else {"value": rows_default}),
        )
    for key, value, default in (
        ("trace", trace, "none"),
        ("search", query, ""),
        ("focus", focus, False),
        ("collapsed", collapsed, []),
        ("max_rows", max_rows, rows_default),
    ):
        setting_to_url(key, value, default)
    settings = _settings(model, trace, query, focus, collapsed, max_rows)
    if query:
        st.sidebar.caption(
            f"{counted(len(settings.hits), 'node')} {'matches' if len(settings.hits) == 1 else 'match'} "
            f"“{md_escape(query)}”"
        )
    return settings


def _view(selected: str | None, unrunnable: frozenset[str], settings: Settings) -> View:
    return View(
        selected=selected,
        theme=theme(),
        trace=TRACE[settings.trace],
        collapsed=frozenset(settings.collapsed),
        focus=selected if settings.focus else None,
        hits=settings.hits,
        max_rows=settings.max_rows,
        unrunnable=unrunnable,
    )


#: The order of a diagnostic's severity among the problems, the gravest first (notes come after).
_GRAVITY = {Severity.ERROR: 0, Severity.WARNING: 1}


def _diagnostics_list(model: PlanModel) -> None:
    diags = model.all_diagnostics()
    # a warning is no error: a plan whose rows are right often has some (a producer's own types)
    tally = [
        counted(sum(1 for d in diags if d.severity is severity), word)
        for severity, word in ((Severity.ERROR, "error"), (Severity.WARNING, "warning"), (Severity.INFO, "note"))
    ]
    st.markdown(f"**Diagnostics** ({', '.join(tally)})")
    problems = sorted(
        ((i, d) for i, d in enumerate(diags) if d.severity in _GRAVITY), key=lambda p: _GRAVITY[p[1].severity]
    )
    for i, d in problems:  # errors first
        _diagnostic(model, i, d)
    notes = [(i, d) for i, d in enumerate(diags) if d.severity not in _GRAVITY]
    if notes:  # how the plan was read: below the problems, folded (they filled the space under the inspector)
        with st.expander(f"{len(notes)} note{'s' if len(notes) != 1 else ''} on how the plan was read"):
            for i, d in notes:
                _diagnostic(model, i, d)


def _diagnostic(model: PlanModel, i: int, d) -> None:
    """One diagnostic: a button that selects its node, else a box or a line about the whole plan."""
    text = f"{d.code}: {d.message}"
    if d.node and d.node in model.graph.nodes:
        label = {"error": "error", "warning": "warning", "info": "note"}[d.severity.value]
        st.button(
            md_escape(f"{label} {d.node} · {text}"),
            key=f"diag-{i}",
            on_click=select,
            args=(d.node,),
            width="stretch",
            help=md_escape(f"{text} (click to select node {d.node})"),
        )
    elif d.severity is Severity.INFO:
        _SEVERITY_WIDGET[d.severity](md_escape(text))
    else:  # about the whole plan: its coloured box is above the graph already, so a line here
        st.caption(md_escape(f"{d.severity.value} · the whole plan · {text}"))


def _inspector(plan, model: PlanModel, node_id: str, runnable: dict[str, tuple[bool, str | None]]) -> None:
    node = model.node(node_id)
    st.subheader(md_escape(f"{title(node.kind)} · {node.id}"))
    if node.info.detail:  # a long condition in full pushed the tabs below the fold: it is in Expressions
        detail = node.info.detail
        cut = detail if len(detail) <= HEADING_CHARS else detail[: HEADING_CHARS - 1] + "… (in full: Expressions)"
        st.caption(md_escape(cut))
    # only the open tab is computed and sent (a tab switch reruns): every tab's tables, code and JSON
    # would make the browser draw the whole page, graph included, later
    tabs = dict(zip(INSPECTOR_TABS, st.tabs(INSPECTOR_TABS, key=INSPECTOR_TAB_KEY, on_change="rerun")))
    with tabs["Schema"], panel("the Schema tab"):
        if tabs["Schema"].open:
            if node.schema is None:
                # the gravest of the node's diagnostics says why
                gravest = sorted(node.diagnostics, key=lambda d: _GRAVITY.get(d.severity, len(_GRAVITY)))
                why = gravest[0].message if gravest else "the Diagnostics tab says why"
                st.warning(md_escape(f"The output schema could not be derived: {why}."))
            else:
                schema_table(node.schema_json())
                lineage_panel(model, node_id)
    with tabs["Inputs"], panel("the Inputs tab"):
        if tabs["Inputs"].open:
            cols = input_columns(model, node_id)
            if not cols:
                st.write("A leaf: no inputs.")
            # one under the other: side by side in the narrow inspector, each table cut its names short
            for input_id, columns in cols:
                with st.container():
                    st.button(
                        md_escape(f"{input_id} · {title(model.node(input_id).kind)}"),
                        key=f"in-{input_id}",
                        on_click=select,
                        args=(input_id,),
                    )
                    frame = pd.DataFrame(
                        [
                            {
                                "read": "●" if c.referenced else "",
                                "index": c.index,
                                "name": c.field.name,
                                "type": c.field.type_text(model.extensions.types, model.type_variations),
                            }
                            for c in columns
                        ],
                        # the mark first (last, it was out of sight in the narrow inspector), the type before
                        # the name (after a long name, it was cut: "decimal<15,")
                        columns=["read", "index", "type", "name"],
                    )
                    st.dataframe(
                        frame.style.apply(
                            lambda r: ["font-weight: bold; color: #1f77b4" if r["read"] else "" for _ in r], axis=1
                        ),
                        hide_index=True,
                        width="stretch",
                        # the mark, the index and the type as wide as they need, the type at most
                        # TYPE_MAX_PX (a record's type pushed the names out of sight; hover shows it whole);
                        # the name takes the rest
                        column_config={
                            "read": st.column_config.TextColumn(width=36),
                            "index": st.column_config.NumberColumn(width=48),
                            "type": st.column_config.TextColumn(
                                width=min(TYPE_MAX_PX, 20 + 8 * max((len(t) for t in frame["type"]), default=4))
                            ),
                        },
                    )
            if cols:
                st.caption("● marks the fields this node's expressions refer to; `index` is the field index they use.")
            # a reference past the inputs' fields has no row above: its diagnostic says which
            for d in node.diagnostics:
                if d.code == "field-out-of-range":
                    st.warning(md_escape(f"Its expressions refer to a field no input has: {d.message}."))
    with tabs["Expressions"], panel("the Expressions tab"):
        if tabs["Expressions"].open:
            if not node.info.expressions:
                st.write("No expressions.")
            for role, text in node.info.expressions:
                function, conditions = node.info.spread.get(role, ("", ()))
                label = node.expression_label(role)
                if len(conditions) < 3:
                    st.markdown(f"**{md_escape(label)}**")
                    st.code(text, language=None, wrap_lines=True)
                    continue
                # producers nest a long AND two by two: its conditions are read one a line
                which = "all" if function == "and" else "any"
                st.markdown(f"**{md_escape(label)}**: {which} of these {len(conditions)} ({function})")
                st.code("\n\n".join(conditions), language=None, wrap_lines=True)  # a blank line: one wraps
                with st.expander("As the plan nests them"):
                    st.code(text, language=None, wrap_lines=True)
    with tabs["Properties"], panel("the Properties tab"):
        if tabs["Properties"].open:
            rules = property_rules(node)
            if not rules:
                st.write("No property information.")
            for r in rules:
                meaning = f" ({r['meaning']})" if r["meaning"] else ""
                st.markdown(
                    f"**{md_escape(r['property'])}**: `{r['value']}` — *{md_escape(r['effect'])}*{md_escape(meaning)}"
                )
                if r["rule"]:
                    st.caption(md_escape(cited(r["rule"])))
                if r["note"]:
                    st.caption(md_escape(r["note"]))
    with tabs["Diagnostics"], panel("the Diagnostics tab"):
        if tabs["Diagnostics"].open:
            if not node.diagnostics:
                st.write("No diagnostics.")
            for d in node.diagnostics:
                _SEVERITY_WIDGET[d.severity](md_escape(f"{d.code}: {d.message}"))
    with tabs["JSON"], panel("the JSON tab"):
        if tabs["JSON"].open:
            st.json(node_report(model, node_id)["relation"], expanded=2)
    with tabs["Run"], panel("the Run tab"):
        if tabs["Run"].open:
            run_tab(plan, model, node_id, runnable.get(node_id, (True, None)))
            compare_section(plan, model, node_id)
    with tabs["Engines"], panel("the Engines tab"):
        if tabs["Engines"].open:
            engines_tab(plan, model, node_id)
    st.download_button(
        "Node report (JSON)",
        lambda: json.dumps(node_report(model, node_id), indent=2),
        file_name=f"node-{node_id}.json",
        mime="application/json",
        on_click="ignore",
    )


def main() -> None:
    opened = open_plan(
        "Substrait plan visualizer",
        "Upload a Substrait plan (JSON or binary protobuf), open a sample, or paste JSON: the sidebar has all three.",
        graph_first=True,
    )
    if opened is None:
        return
    # a page just opened on a plan draws its title and graph first (the same elements, in the same
    # places), and the rest when the viewer has drawn the graph: see ui.page.open_plan
    plan, model, graph_only = opened
    node_ids = list(model.graph.nodes)

    st.markdown(f"#### {md_escape(plan.source)}")
    shared = len(model.graph.shared_relations)
    parts = [model.loaded.format, counted(len(node_ids), "node"), counted(len(model.roots) - shared, "root")]
    st.caption(" · ".join(parts + ([counted(shared, "shared relation")] if shared else [])))
    not_its_sql(plan)
    for d in model.plan_diagnostics:
        if d.severity is not Severity.INFO:
            _SEVERITY_WIDGET[d.severity](md_escape(f"{d.code}: {d.message}"))

    if not node_ids:
        return
    settings = _view_controls(model, draw=not graph_only)
    _graph_and_inspector(plan, model, settings, graph_only)


@st.fragment(key=REDRAWN)
def _graph_and_inspector(plan, model: PlanModel, settings: Settings, graph_only: bool) -> None:
    """The graph and the selected node's inspector, with the node picker: a fragment, so selecting a
    node (in the graph, the picker or the inspector) reruns this part alone, not the sidebar, whose
    ~20 elements Streamlit would otherwise mark stale and redraw. A page drawing its graph first
    (``graph_only``) draws the graph alone; the viewer's "drawn" then reruns the whole page."""
    _draw_graph_and_inspector(plan, model, settings, graph_only)
    url.apply()  # a run of this fragment alone does not reach the end of the page


def _draw_graph_and_inspector(plan, model: PlanModel, settings: Settings, graph_only: bool) -> None:
    node_ids = list(model.graph.nodes)
    selected = resolve_node(node_ids, model.roots[0] if model.roots else node_ids[0], lambda i: _label(model, i))
    runnable = executability_of(plan.data)
    view = _view(selected, graph_gaps(plan.data), settings)

    graph_col, side_col = st.columns([3, 2], gap="medium")
    with graph_col:
        if graph_only:
            # the overlays' actions come with the rest of the page (their widgets' modules would hold
            # the graph back): their places are kept, so the graph stays where it is drawn
            st.container(height=ACTIONS_PX, border=False, key="inspect_actions")
            st.container(height=TOGGLE_PX, border=False)
            st.container()  # the actions' messages
            drawn = st.container()
        else:
            # the overlays' actions: the two buttons side by side, the toggle under them; what each shows
            # once it has run comes under them
            # in the place the graph-first run kept (the same element): Streamlit draws no empty container
            # without a height, so the buttons' own row was missing until they came and the graph moved up
            # and down again; app.py's style lets the place grow where the buttons wrap
            with st.container(height=ACTIONS_PX, border=False, key="inspect_actions"):
                buttons = st.container(horizontal=True, vertical_alignment="center")
            toggle = st.container(height=TOGGLE_PX, border=False)
            actions = st.container()
            # what the engines' actions found, under the graph (as the profile's table is): above it, their
            # messages and tables pushed the graph below the window's fold
            drawn, found = st.container(), st.container()
            profile = None
            with actions, panel("the profile and engine actions"):
                profile = profile_controls(plan, model, buttons)
                bisection = bisect_controls(plan, model, buttons, results_at=found)
                view = replace(
                    view,
                    profile=engine_overlay(
                        profile_overlay(profile), bisection, portability_controls(plan, model, toggle, found)
                    ),
                )
        # the selection and the search hits are painted in the page: the DOT (and so its layout) stays
        # the same when they change
        dot = None
        with drawn, panel("the graph"):
            dot = plan_dot(model, replace(view, selected=None, hits=frozenset()))
            graph_view(
                dot,
                "graph_click",
                selected,
                hits=view.hits,
                hit_notes=hidden_matches(model, settings.query, view.hits, view.max_rows),
                lineage=lineage_highlight(model, selected),
                on_column=column_clicked("graph_click"),
                then_rest=graph_only,
                search_box=(SEARCH_LABEL, settings.query),
                plan=model.digest,
            )
        if graph_only:
            return
        if profile is not None:
            with panel("the profile table"):
                profile_table(model, profile)
        with panel("the downloads"), st.popover("Download"):
            st.download_button(
                "Graph (DOT)",
                dot or "",
                file_name=f"{file_stem(plan.source)}.dot",
                mime="text/vnd.graphviz",
                on_click="ignore",
            )
            if has_dot():
                light = export_dot(model, view)
                st.download_button(
                    "Graph (SVG)",
                    lambda: _svg(light) or b"",
                    file_name=f"{file_stem(plan.source)}.svg",
                    mime="image/svg+xml",
                    on_click="ignore",
                )
            else:
                st.caption("SVG export needs Graphviz's `dot` on the server (`apt-get install graphviz`).")
        with panel("the report button"):
            report_button(plan, model, key="inspect_report")
    with side_col:
        # any text is taken (Enter on what was typed): resolve_node matches an exact id first, where the
        # list's own fuzzy ranking put 0.0*15 above 0.0*5
        st.selectbox(
            "Select a node (type to search)",
            node_ids,
            key="node",
            format_func=lambda i: _label(model, i),
            accept_new_options=True,
            placeholder="Type a node's id, kind or a word of its detail",
            help=NODE_ID_HELP,
        )
        with panel("the inspector"):
            _inspector(plan, model, selected, runnable)
        with panel("the share link"):
            share_link_widget(plan, selected, page="")
        st.divider()
        with panel("the diagnostics list"):
            _diagnostics_list(model)


run_page("the Inspect page", main)
