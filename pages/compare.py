"""Compare two plans: both graphs with matched nodes numbered alike and differences coloured, a
summary, a table of the differences, and one matched pair in detail. The matching is viz.diff's."""

from __future__ import annotations

import functools

import pandas as pd
import streamlit as st

from executor.data.catalog import unbound_tables
from ui.graph.viewer import drawing_width, graph_view
from ui.markdown import md_escape
from ui.page import not_its_sql, run_page
from ui.panels.boundary import panel
from ui.panels.output_comparison import compare_panel
from ui.panels.schema_table import NAME_BREAKS, code_html
from ui.panels.unbound import unbound_warning
from ui.rows import wrapped_row_px
from ui.state import url
from ui.state.cache_keys import large_value_key
from ui.state.entry import through_app
from ui.state.plan_data import catalog_for
from ui.state.plan_source import (
    PLAN_UPLOAD_MB,
    Plan,
    analyze_cached,
    current_model,
    open_elsewhere,
    read_sample,
    refusal,
    sample_titles,
    samples,
)
from ui.state.selection import theme
from ui.state.share import (
    MAX_NAME_CHARS,
    ShareError,
    is_digest,
    load_not_its_sql,
    load_shared,
    plan_params,
    shared_name,
)
from viz.diff import (
    STATUSES,
    Difference,
    NodeDiff,
    PlanDiff,
    changed_spans,
    diff_plans,
    different_producers,
    tables_apart,
)
from viz.diff_render import combined_dot, side_dots
from viz.load import MAX_PLAN_BYTES
from viz.model import PlanModel
from viz.render import title

through_app()

NONE = "(none)"
#: Sample pairs: the same query from two producers.
PAIRS = {
    "TPC-H q3: isthmus vs DataFusion": ("tpch_q03_isthmus.json", "tpch_q03_datafusion.json"),
    "TPC-H q3: isthmus vs DuckDB": ("tpch_q03_isthmus.json", "tpch_q03_duckdb.json"),
    "TPC-H q3: DataFusion vs DuckDB": ("tpch_q03_datafusion.json", "tpch_q03_duckdb.json"),
}
SIDES = {"a": "Left plan (a)", "b": "Right plan (b)"}
_HIGHLIGHT = "background-color: rgba(255, 179, 0, 0.35)"


def _on_upload(side: str) -> None:
    f = st.session_state.get(f"compare_upload_{side}")
    if f is None:
        return
    kept = st.session_state.get(f"compare_{side}")
    still = f" The {SIDES[side].split(' (')[0].lower()} is still {kept.source}." if kept is not None else ""
    if getattr(f, "size", 0) and f.size > MAX_PLAN_BYTES:
        st.session_state[f"compare_error_{side}"] = (
            f"{f.name} was not opened: {f.size:,} bytes is over the {MAX_PLAN_BYTES:,}-byte limit for a plan.{still}"
        )
        return
    data = f.getvalue()
    model = analyze_cached(data)
    if isinstance(model, str):  # the side keeps the plan it had
        st.session_state[f"compare_error_{side}"] = refusal(f.name, data, model) + still
        return
    st.session_state[f"compare_{side}"] = Plan(data, f.name)
    # the sample pickers no longer name what is compared
    st.session_state[f"compare_sample_{side}"] = NONE
    st.session_state["compare_pair"] = NONE
    st.session_state.pop("compare_selected", None)


def _on_sample(side: str) -> None:
    name = st.session_state.get(f"compare_sample_{side}")
    plan = read_sample(name) if name and name != NONE else None
    if plan is None:
        st.session_state.pop(f"compare_{side}", None)
    else:
        st.session_state[f"compare_{side}"] = plan
    st.session_state.pop("compare_selected", None)


def _on_pair() -> None:
    pair = PAIRS.get(st.session_state.get("compare_pair", NONE))
    if pair is None:
        return
    for side, name in zip("ab", pair):
        st.session_state[f"compare_sample_{side}"] = name
        _on_sample(side)
    st.session_state.pop("compare_selected", None)


def _inputs() -> None:
    names = samples()
    titles = sample_titles()
    st.selectbox(
        "Open a sample pair",
        [NONE, *[p for p, files in PAIRS.items() if all(f in names for f in files)]],
        key="compare_pair",
        on_change=_on_pair,
        help="The same query from two producers",
    )
    cols = st.columns(2)
    for side, col in zip("ab", cols):
        with col:
            st.markdown(f"**{SIDES[side]}**")
            st.file_uploader(
                "Upload a plan (protobuf JSON or binary)",
                key=f"compare_upload_{side}",
                max_upload_size=PLAN_UPLOAD_MB,
                on_change=_on_upload,
                args=(side,),
            )
            st.selectbox(
                "…or a sample",
                [NONE, *names],
                key=f"compare_sample_{side}",
                on_change=_on_sample,
                args=(side,),
                format_func=lambda n: n if n == NONE else f"{titles.get(n, n)} ({n})",
            )
            chosen = st.session_state.get(f"compare_{side}")
            if chosen is not None:
                st.caption(md_escape(f"Chosen: {chosen.source}"))
                not_its_sql(chosen)


def _model(side: str) -> PlanModel | None:
    """The model of one side; ``st.error`` naming the file when it is not a plan."""
    error = st.session_state.pop(f"compare_error_{side}", None)
    if error:
        st.error(md_escape(error))
    return current_model(st.session_state.get(f"compare_{side}"))


def _diff(data_a: bytes, data_b: bytes, ignore_case: bool, ignore_nullability: bool) -> PlanDiff:
    return _matched(large_value_key(data_a), large_value_key(data_b), ignore_case, ignore_nullability, data_a, data_b)


@st.cache_resource(show_spinner="Matching the plans…", max_entries=16)
def _matched(key_a, key_b, ignore_case: bool, ignore_nullability: bool, _data_a: bytes, _data_b: bytes) -> PlanDiff:
    a, b = analyze_cached(_data_a), analyze_cached(_data_b)
    return diff_plans(a, b, ignore_case=ignore_case, ignore_nullability=ignore_nullability)


def _summary(diff: PlanDiff) -> None:
    counts = diff.summary
    for col, status in zip(st.columns(4), STATUSES):
        col.metric(status, counts[status])


def _pair_label(a: PlanModel, b: PlanModel, e: NodeDiff) -> str:
    return f"#{e.number} · {e.a} {title(a.node(e.a).kind)} ↔ {e.b} {title(b.node(e.b).kind)} ({e.status})"


def _schema_frame(model: PlanModel, node_id: str, marked: set[int]) -> pd.DataFrame | object:
    rows = model.node(node_id).schema_json() or []
    # no nullable column: a nullable type ends in "?", as in the graph and the inspector
    frame = pd.DataFrame(rows, columns=["index", "name", "type"])
    return frame.style.apply(lambda r: [_HIGHLIGHT if r["index"] in marked else "" for _ in r], axis=1)


def _other_frame(differences: list[Difference]) -> pd.DataFrame:
    """The pair's kind, schema and detail differences, one a row, in the Differences table's words:
    every cell text, empty where a side has none (a field only one plan has), so no "None" shows."""
    rows = [{"difference": d.subject(), "a": d.sides()[0] or "", "b": d.sides()[1] or ""} for d in differences]
    return pd.DataFrame(rows, columns=["difference", "a", "b"])


def _pair_detail(a: PlanModel, b: PlanModel, e: NodeDiff, labels: tuple[str, str], ignore_case: bool) -> None:
    marked_a: set[int] = set()
    marked_b: set[int] = set()
    for d in e.differences:
        in_a, in_b = d.fields()
        marked_a |= in_a
        marked_b |= in_b
    sides = zip("ab", labels, (a, b), (e.a, e.b), (marked_a, marked_b), st.columns(2))
    for _side, side_label, model, node_id, marked, col in sides:
        with col:
            node = model.node(node_id)
            st.markdown(f"**{md_escape(f'{side_label}: {title(node.kind)} · {node_id}')}**")
            if node.info.detail:
                st.caption(md_escape(node.info.detail))
            if node.schema is None:
                st.warning("The output schema could not be derived.")
            else:
                st.dataframe(_schema_frame(model, node_id, marked), hide_index=True, width="stretch")
    if not e.differences:
        st.success("The two nodes are the same: kind, schema, expressions and detail.")
        return
    st.caption("Highlighted rows: fields whose name, type or nullability differ, or that only one side has.")
    other = [d for d in e.differences if d.aspect != "expression"]
    if other:
        st.dataframe(_other_frame(other), hide_index=True, width="stretch")
    for d in (d for d in e.differences if d.aspect == "expression"):
        st.markdown(f"**Expression {md_escape(d.what)}**")
        ca, cb = st.columns(2)
        if d.a is None or d.b is None:
            ca.code(d.a if d.a is not None else "(none)", language=None, wrap_lines=True)
            cb.code(d.b if d.b is not None else "(none)", language=None, wrap_lines=True)
            continue
        # both sides, what differs marked: two long conditions are not compared by eye
        for col, spans in zip((ca, cb), changed_spans(d.a, d.b, ignore_case)):
            col.markdown(marked_html(spans), unsafe_allow_html=True)
    if any(d.aspect == "expression" and d.a is not None and d.b is not None for d in e.differences):
        st.caption("Marked: the parts of an expression that the other side has otherwise.")


def marked_html(spans: list[tuple[str, bool]]) -> str:
    """An expression's text as code, wrapped at its spaces and after ``( , _ .``, the changed runs marked."""
    return "".join(code_html(text, NAME_BREAKS, MARK_STYLE if changed else "") for text, changed in spans)


#: A changed part of an expression: amber behind its text, readable in both themes.
MARK_STYLE = "background-color: rgba(245, 158, 11, 0.45); border-radius: 2px"


def _from_link() -> None:
    """Once per session, the plans the address names (``?a=`` and ``?b=``: a sample's file name or a shared
    plan's digest), each on its side; one that is not on this server is said on its side. Another page's
    address (``?sample=`` or ``?plan=``, with ``name``) names the left plan."""
    if st.session_state.get("compare_linked"):
        return
    st.session_state["compare_linked"] = True
    for side in "ab":
        value, name_key = (url.get(side) or "").strip(), f"{side}_name"
        if not value and side == "a":
            value, name_key = (url.get("sample") or url.get("plan") or "").strip(), "name"
        if not value:
            continue
        data = load_shared(value) if is_digest(value) else None
        name = (url.get(name_key) or "").strip()[:MAX_NAME_CHARS] or shared_name(value)
        plan = read_sample(value) or (
            Plan(data, name, shared=value, not_its_sql=load_not_its_sql(value)) if data is not None else None
        )
        if plan is None:
            st.session_state[f"compare_error_{side}"] = (
                f"The link's {SIDES[side].lower()}, {value[:64]!r}, is not on this server: choose it here instead."
            )
            continue
        st.session_state[f"compare_{side}"] = plan
        st.session_state[f"compare_sample_{side}"] = plan.sample or NONE
        if side == "a":  # the link's left plan, not the one the other pages have open
            st.session_state["compare_opened"] = st.session_state.get("plan")


def _to_link(plan_a: Plan, plan_b: Plan) -> None:
    """The address names both plans (``?a=&b=``, and ``a_name``, ``b_name`` for plans that are not samples,
    the names they were opened under), so that it reopens the same comparison."""
    params: dict[str, str] = {}
    for side, p in zip("ab", (plan_a, plan_b)):
        try:
            named = plan_params(p)  # a share link's: the sample, or the plan saved (with what it does not mean)
        except ShareError:  # too large to keep, or nowhere to keep it: the address stays as it is
            return
        params[side] = named.get("sample") or named["plan"]
        if "name" in named:
            params[f"{side}_name"] = named["name"]
    url.replace(params)


def main() -> None:
    st.title("Compare plans")
    _from_link()
    opened = st.session_state.get("plan")
    # the left side follows the plan open on the other pages each time another one is opened there
    if opened is not None and st.session_state.get("compare_opened") != opened:
        st.session_state["compare_opened"] = opened
        st.session_state["compare_a"] = opened
        # the side's picker names it when it is a sample
        st.session_state["compare_sample_a"] = opened.sample if opened.sample in samples() else NONE
        st.session_state["compare_pair"] = NONE
        st.session_state.pop("compare_selected", None)
    _inputs()
    a, b = _model("a"), _model("b")
    if a is None or b is None:
        if not st.session_state.get("compare_a") or not st.session_state.get("compare_b"):
            st.info(
                "Choose two plans, left and right (upload or sample), or open a sample pair: the same query "
                "from two producers, or a plan before and after a change."
            )
        return
    plan_a, plan_b = st.session_state["compare_a"], st.session_state["compare_b"]
    _to_link(plan_a, plan_b)
    labels = (plan_a.source, plan_b.source)
    with st.sidebar:
        st.header("Compare")
        # Plans from different producers compare names without regard to case unless the person says
        # otherwise; a new pair of plans starts from its own default.
        pair = (a.digest, b.digest)
        if st.session_state.get("compare_case_pair") != pair:
            st.session_state["compare_case_pair"] = pair
            two = different_producers(a, b)
            st.session_state["compare_ignore_case"] = st.session_state["compare_ignore_nullability"] = two
        ignore_case = st.toggle(
            "Ignore upper/lower case",
            key="compare_ignore_case",
            persist_state="session",
            help="On by default for plans from different producers: isthmus writes "
            "L_ORDERKEY where DataFusion writes l_orderkey",
        )
        ignore_nullability = st.toggle(
            "Ignore nullability",
            key="compare_ignore_nullability",
            persist_state="session",
            help="On by default for plans from different producers: they differ in which columns they mark "
            "nullable (DuckDB marks every column so), which would make nearly every node differ",
        )
        layout = st.radio(
            "Layout",
            ["side by side", "one graph"],
            key="compare_layout",
            persist_state="session",
            horizontal=True,
            help="One graph joins matched nodes with dashed lines",
        )
        st.session_state.setdefault("compare_rows", 6)  # kept across pages: a default given once
        max_rows = st.slider("Schema rows per node", 2, 40, key="compare_rows", persist_state="session")
    diff = _diff(plan_a.data, plan_b.data, ignore_case, ignore_nullability)
    _summary(diff)
    apart = tables_apart(a, b)
    if apart:
        st.warning(md_escape(apart), icon=":material/help:")
    st.caption(
        "Matched nodes carry the same #number on both sides. Green: only in b (added); red: only in a "
        "(removed); amber: matched with differences; plain: the same."
    )

    pairs = diff.pairs()
    numbers = [e.number for e in pairs]
    if st.session_state.get("compare_selected") not in numbers:
        changed = [e.number for e in pairs if e.status == "changed"]
        st.session_state["compare_selected"] = (changed or numbers or [None])[0]
    selected = st.session_state["compare_selected"]

    colours = theme()
    with panel("the graphs"):
        _graphs(a, b, diff, colours, max_rows, labels, layout, selected)

    with panel("the differences"):
        _differences(diff)

    st.subheader("A matched pair")
    if not pairs:
        st.info("No node of one plan matches a node of the other.")
        return
    with panel("the matched pair"):
        _matched_pair(a, b, pairs, labels, plan_a, plan_b, ignore_case, ignore_nullability)


def _graphs(
    a: PlanModel,
    b: PlanModel,
    diff: PlanDiff,
    colours: str,
    max_rows: int,
    labels: tuple[str, str],
    layout: str,
    selected: int | None,
) -> None:
    if layout == "one graph":
        graph_view(combined_dot(a, b, diff, colours, max_rows, labels), "compare_graph", clickable=False, height=720)
    else:
        dot_a, dot_b = side_dots(a, b, diff, colours, max_rows, selected)
        pair = next((e for e in diff.pairs() if e.number == selected), None)
        alone = st.session_state.get(UNMATCHED)  # (side, node): a node with no match, clicked
        if alone and getattr((diff.by_a if alone[0] == "a" else diff.by_b).get(alone[1]), "number", 0) is not None:
            alone = None  # of plans compared before
        widths = [w for w in map(drawing_width, (dot_a, dot_b)) if w is not None]
        for side, label, dot, col in zip("ab", labels, (dot_a, dot_b), st.columns(2)):
            with col:
                st.markdown(f"**{md_escape(label)}**")
                # both at the zoom that fits the wider (readable at least): fitted each to its frame, the same
                # box was drawn at two scales; at 100%, wide boxes were cut at the frames' edges. A click on a
                # node picks its pair; the pair picked is brought into both frames.
                graph_view(
                    dot,
                    f"compare_graph_{side}",
                    selected=(alone[1] if alone[0] == side else None)
                    if alone
                    else (None if pair is None else getattr(pair, side)),
                    on_click=functools.partial(_pick_pair, diff, side),
                    height=640,
                    open_width=max(widths, default=None),
                )


def _pick_pair(diff: PlanDiff, side: str) -> None:
    """A node clicked on one side: its matched pair becomes the one shown; a node with no match says so."""
    value = st.session_state.get(f"compare_graph_{side}")
    node = value.get("node") if isinstance(value, dict) else getattr(value, "node", None)
    if not node:
        return
    entry = (diff.by_a if side == "a" else diff.by_b).get(node)
    if entry is not None and entry.number is not None:
        st.session_state["compare_selected"] = entry.number
        st.session_state.pop(UNMATCHED, None)
    else:  # shown selected on its side (the keys go on from it); the pair below stays the one it was
        st.session_state[UNMATCHED] = (side, node)
        which, other = ("left", "right") if side == "a" else ("right", "left")
        st.toast(md_escape(f"Node {node} of the {which} plan matches no node of the {other} plan."))


#: Session state: a node with no match that was clicked, (side, node id), until a pair is picked.
UNMATCHED = "compare_unmatched"


#: Characters of differences a line of the table holds at the page's usual width.
LINE_CHARS = 60


def _differences(diff: PlanDiff) -> None:
    st.subheader("Differences")
    # kept across pages: a default given once, through the session state (a widget given both warns)
    st.session_state.setdefault("compare_status", ["changed", "removed", "added"])
    shown = st.multiselect("Show", list(STATUSES), key="compare_status", persist_state="session")
    rows = [r for r in diff.rows() if r["status"] in shown]
    # the short columns narrow, so that the differences have the room
    small = {c: st.column_config.Column(width="small") for c in ("status", "#", "a", "b", "kind")}
    # a width of its own, or the grid sizes the column to its longest text, past the page's edge
    small["differences"] = st.column_config.Column(width="large")
    longest = max((len(str(r.get("differences") or "")) for r in rows), default=0)
    st.dataframe(
        pd.DataFrame(rows, columns=["status", "#", "a", "b", "kind", "differences"]),
        hide_index=True,
        width="stretch",
        column_config=small,
        # rows taller than 4 rem wrap their text in the grid: long differences then read in full
        row_height=wrapped_row_px(longest, LINE_CHARS),
    )


def _matched_pair(
    a: PlanModel,
    b: PlanModel,
    pairs: list[NodeDiff],
    labels: tuple[str, str],
    plan_a: Plan,
    plan_b: Plan,
    ignore_case: bool,
    ignore_nullability: bool,
) -> None:
    numbers = [e.number for e in pairs]
    by_number = {e.number: e for e in pairs}
    st.selectbox(
        "Matched pair",
        numbers,
        key="compare_selected",
        format_func=lambda n: _pair_label(a, b, by_number[n]),
        on_change=lambda: st.session_state.pop(UNMATCHED, None),
    )
    entry = by_number[st.session_state["compare_selected"]]
    _pair_detail(a, b, entry, labels, ignore_case)
    st.markdown("**Their rows**")
    st.caption(
        "Run both nodes on Spark (each against its plan's data) and compare row counts, columns and "
        "the rows only one side has."
    )
    catalogs = []
    unbound = []
    for side, plan, model, node_id in (("a", plan_a, a, entry.a), ("b", plan_b, b, entry.b)):
        catalog = catalog_for(plan, generate=True)
        catalogs.append(catalog)
        names = unbound_tables(catalog, model, node_id)
        if names:  # a plan's tables are bound on the Tables page, for the plan open there: this one
            unbound.append(side)
            unbound_warning(names, SIDES[side], link=False)
            if st.button(f"Bind the tables of {SIDES[side].lower()} (opens it on the Tables page)", key=f"bind_{side}"):
                open_elsewhere(plan, "pages/tables.py")
    compare_panel(
        a,
        entry.a,
        b,
        entry.b,
        *catalogs,
        key="compare_outputs",
        labels=labels,
        button="Compare their rows on Spark",
        ignore_case=ignore_case,
        ignore_nullability=ignore_nullability,
        refused=f"Bind the tables of the {' and the '.join(SIDES[x].lower() for x in unbound)} first (above)."
        if unbound
        else None,
    )


run_page("the Compare plans page", main)
