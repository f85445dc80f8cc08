"""Tables: which tables the current plan reads, which are bound to data, and binding the rest.

A table shows as bound only when its file serves the plan: every column the plan's read declares is
there, of a type of the same family (:func:`executor.data.columns.check_columns`, on the file's footer or
header, without Spark). Where it does not, the page says what is wrong and offers the fixes: another
file under the data roots, reading by position where the count and types allow it, or the generated
TPC-H or TPC-DS table of that name. Each fix goes into this session's bindings, so the next run uses it.
"""

from __future__ import annotations

import os

import pandas as pd
import streamlit as st

from executor.data.catalog import ANOTHER_PLANS, TableStatus, file_words, plan_columns_by_table
from executor.data.columns import ColumnCheck, check_bases, file_columns
from executor.errors import ExecutionError
from ui.markdown import md_escape
from ui.page import no_plan, run_page
from ui.rows import wrapped_row_px
from ui.state.entry import through_app
from ui.state.plan_data import (
    SUITES,
    TPCH_SCALE,
    Suite,
    bindings,
    by_position,
    catalog_for,
    release_upload,
    sample_data_kind,
    save_upload,
    shown_path,
)
from ui.state.plan_source import current_model, plan_sidebar
from viz.tables import plan_tables
from viz.words import and_list

through_app()


def main() -> None:
    plan = plan_sidebar()
    st.title("Tables")
    model = current_model(plan)
    if model is None:
        if plan is None:
            no_plan("Open a plan first (the sidebar): this page shows the tables it reads and binds them to data.")
        return
    tables = plan_tables(model)
    kind = sample_data_kind(plan)
    if kind:
        what = "is a sample written against" if plan.sample else "was made from SQL over"
        data = next((s.name for s in SUITES if s.stem == kind), "tutorial")
        own = sorted(bindings(plan))
        yours = f"; you bound {and_list(own)} yourself" if own else ""
        st.caption(md_escape(f"{plan.source} {what} the {data} tables, bound for you{yours}."))
    for suite in SUITES:
        if suite.stem == kind:
            continue  # this plan's own data, said above; the toggle is for every other plan
        # kept for the session, on every page: kept by keep_widget_state alone, a run of another page's
        # fragment (Inspect's tabs) dropped it
        st.toggle(
            f"Use the generated {suite.name} sample data (scale {TPCH_SCALE:g}; generated on first use)",
            key=suite.key,
            persist_state="session",
        )
    with st.spinner("Preparing the sample data…"):
        try:
            catalog = catalog_for(plan, generate=True)
        except ExecutionError as exc:
            st.error(md_escape(str(exc)))
            return
    if not tables.named and not tables.files:
        st.success("This plan reads no named tables or files (virtual tables only): it needs no data.")
    if tables.named:
        st.subheader("Named tables")
        columns = plan_columns_by_table(model)
        statuses = catalog.status(tables.named, columns)
        row = wrapped_row_px(max((max(len(_source(s)), len(_notes(s))) for s in statuses), default=0), 22)
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "table": s.name,
                        "bound": "yes" if s.bound else "no",
                        "how": s.how,
                        "source": _source(s),
                        "notes": _notes(s),
                        "read by": ", ".join(tables.readers[s.name]),
                    }
                    for s in statuses
                ],
                columns=["table", "bound", "how", "source", "notes", "read by"],
            ),
            hide_index=True,
            width="stretch",
            # widths of their own, so that all six fit the page, and a long source or note wraps in its
            # cell: sized to their text, the columns ran past the page's edge
            column_config={
                **{c: st.column_config.Column(width="small") for c in ("bound", "how", "read by")},
                **{c: st.column_config.Column(width="medium") for c in ("source", "notes")},
            },
            row_height=row,
            # every table in sight up to a screenful: tall rows left three in the grid's default height
            height=min(TABLE_MAX_PX, 38 + len(statuses) * ((row or 35) + 1)),
        )
        # an upload made for another plan serves this one too, which a person may not expect: said, with the fixes
        wrong = [s for s in statuses if not s.bound or "by position" in s.how or s.how == ANOTHER_PLANS]
        unbound = sum(not s.bound for s in statuses)
        if unbound:
            them = "it" if unbound == 1 else "them"
            which = "The plan's one table" if len(statuses) == 1 else f"{unbound} of the plan's {len(statuses)} tables"
            st.warning(
                f"{which} cannot serve it as {'it is' if unbound == 1 else 'they are'}: a run that reads {them} is "
                "refused. The fixes are below."
            )
        # the generated tables that serve them, worked out once for the buttons of all and of each
        offers = {suite.name: _serving(suite, [s.name for s in wrong], columns) for suite in SUITES}
        _generate_all(plan, [s.name for s in statuses if not s.bound], columns, offers)
        for s in wrong:
            _fix_panel(plan, s, columns.get(s.name, []), catalog, offers)
        _bind_form(plan, [s.name for s in statuses], catalog)
        _unbind_form(plan, {s.name: s for s in statuses})
    if tables.files:
        st.subheader("Local files")
        st.caption("Read only under the data roots: " + md_escape(", ".join(catalog.roots.roots)))
        st.dataframe(pd.DataFrame(tables.files, columns=["node", "format", "path"]), hide_index=True, width="stretch")
    with st.expander("Data roots"):
        st.write("Nothing outside these folders is read:")
        for root in catalog.roots.roots:
            st.code(root, language=None)


#: The tables grid's height at most (px): taller, it scrolls.
TABLE_MAX_PX = 640


def _source(s: TableStatus) -> str:
    if s.path is not None:
        return file_words(s.format, s.path, shown_path)
    if s.how == "not bound":
        return "no file of this name in the data roots"
    return s.message


def _notes(s: TableStatus) -> str:
    """What is wrong with a table's binding, or, for one that serves, what a run checks as it reads
    ("caution: ..."): a column of a wider type than the plan's."""
    if s.check is not None and not s.check.ok:
        problem = s.check.problem() + ("; read by position" if s.bound else "")
        narrowing = s.check.narrowing(by_position=True) if s.bound else ""
        return problem + (f"; caution: {narrowing}" if narrowing else "")
    if s.check is not None and s.bound:
        narrowing = s.check.narrowing()
        return "; ".join(filter(None, [s.check.unread_note(), f"caution: {narrowing}" if narrowing else ""]))
    return "" if s.bound or s.how == "not bound" else s.message


# ---- the fixes of one table -------------------------------------------------------------------------


def _fix_panel(plan, s: TableStatus, bases, catalog, offers: dict[str, list[str]]) -> None:
    """What is wrong with table ``s`` and the fixes the page can make (``offers``: the tables each
    suite's generated data serves, :func:`_serving`)."""
    name = s.name
    with st.container(border=True, key=f"fix_{name}"):
        chosen = not s.bound and name in bindings(plan)
        state = "bound, read by position" if s.bound else ("your binding does not serve it" if chosen else "not bound")
        if s.how == ANOTHER_PLANS:
            state = "read from a file you uploaded for another plan"
        st.markdown(f"**{md_escape(name)}** · {state}")
        if s.check is not None and not s.check.ok:
            if not s.bound:
                what = shown_path(s.path)
                what = what if what != s.path else f"the file {s.path}"
                st.error(md_escape(f"{what[0].upper()}{what[1:]} {s.check.problem()}."), icon=":material/block:")
            _column_lists(s.check)
        elif s.how == "not bound":
            st.error(
                md_escape(
                    f"No binding and no file named {name.split('.')[-1]}.parquet (.csv, .tsv, .orc, .arrow or "
                    "a folder) in the data roots."
                ),
                icon=":material/block:",
            )
        elif not s.bound:
            st.error(md_escape(s.message), icon=":material/block:")
        if bases:
            _pick_file(plan, s, bases, catalog)
        if s.check is not None and not s.check.ok:
            _position_toggle(s)
        if bases:
            _generated(plan, s, bases, offers)
        if chosen:
            st.button(
                f"Undo your binding of {md_escape(name)}",
                key=f"fix_unbind_{name}",
                on_click=_unbind,
                args=(plan, name),
                help="Back to the file of that name in the data roots, if there is one.",
            )


def _column_lists(check: ColumnCheck) -> None:
    plan = ", ".join(c.shown() for c in check.plan)
    table = ", ".join(c.shown() for c in check.table)
    st.caption(md_escape(f"The plan declares {plan}.") + "  \n" + md_escape(f"The file has {table}."))


def _pick_file(plan, s: TableStatus, bases, catalog) -> None:
    """Another file of the data roots, among those that serve the plan."""
    files = [f for f in catalog.data_files() if f != s.path]
    if not files:
        return
    fits: dict[str, str] = {}
    for f in files:
        try:
            check = catalog.check_file(f, bases)
            fits[f] = "has the plan's columns" if check.ok else check.problem()
        except ExecutionError as exc:
            fits[f] = str(exc)
    files = [f for f in files if fits[f] == "has the plan's columns"]
    if not files:
        other = " other" if s.path else ""
        st.caption(
            f"The one{other} file directly in the data roots (their subfolders are not searched) does not have the "
            "plan's columns."
            if len(fits) == 1
            else f"None of the {len(fits)}{other} files directly in the data roots (their subfolders are not searched) "
            "has the plan's columns."
        )
        return
    c1, c2 = st.columns([4, 1], vertical_alignment="bottom")
    path = _picked(
        c1,
        f"Another file for {md_escape(s.name)}",
        {shown_path(f): f for f in files},  # an upload by the name it came under, not the server's copy
        key=f"fix_file_{s.name}",
        help="The files under the data roots that have the plan's columns.",
    )
    c2.button("Bind", key=f"fix_bind_{s.name}", on_click=_bind_to, args=(plan, s.name, path))


def _position_toggle(s: TableStatus) -> None:
    """Reading by position: offered where the file's first columns can stand for the plan's."""
    key = f"fix_position_{s.name}"
    chosen = s.name in by_position()
    if not s.check.by_position and not chosen:
        st.caption(md_escape(f"Reading it by position would not serve either: {s.check.why_not_by_position()}."))
        return
    st.session_state[key] = chosen
    st.toggle(
        f"Read {md_escape(s.name)} by position: its first {len(s.check.plan)} columns under the plan's names",
        key=key,
        on_change=_set_position,
        args=(s.name, key),
        help="The file's columns, in order, stand for the plan's: right only when they hold the same "
        "things in the same order.",
    )


def _serving(suite: Suite, names: list[str], columns: dict) -> list[str]:
    """Those of the tables ``names`` whose table of the same name in ``suite`` serves the plan (the suite
    generated for it: a second or so, once)."""
    names = [n for n in names if n.split(".")[-1].lower() in suite.tables]
    if not names:
        return []
    try:
        folder = suite.make(TPCH_SCALE)
    except ExecutionError:
        return names  # offered all the same: the click says why it cannot
    out = []
    for name in names:
        try:
            path = os.path.join(folder, f"{name.split('.')[-1].lower()}.parquet")
            if check_bases(file_columns(path, "parquet"), columns.get(name, []))[0].ok:
                out.append(name)
        except ExecutionError:
            continue
    return out


def _generated(plan, s: TableStatus, bases, offers: dict[str, list[str]]) -> None:
    """The generated table of that name, from each suite that has one serving the plan."""
    for suite in SUITES:
        if s.name not in offers[suite.name]:
            continue
        table = s.name.split(".")[-1].lower()
        st.button(
            f"Use the generated {suite.name} {table} (scale {TPCH_SCALE:g})",
            key=f"fix_{suite.stem}_{s.name}",
            on_click=_use_suite,
            args=(plan, suite.name, [s.name], {s.name: bases}),
            help=f"{suite.name}'s own table of that name, generated on first use (a second or so).",
        )
    failed = st.session_state.pop(f"fix_suite_error_{s.name}", None)
    if failed:
        st.error(md_escape(failed))


def _generate_all(plan, unbound: list[str], columns: dict, offers: dict[str, list[str]]) -> None:
    for suite in SUITES:
        names = [n for n in offers[suite.name] if n in unbound]
        if len(names) > 1:
            st.button(
                f"Use the generated {suite.name} tables for {md_escape(', '.join(names))} (scale {TPCH_SCALE:g})",
                key=f"fix_{suite.stem}_all",
                on_click=_use_suite,
                args=(plan, suite.name, names, columns),
            )


# ---- callbacks (run before the page, so the page draws the tables as fixed) -------------------------


def _bind_to(plan, name: str, path: str) -> None:
    _set_binding(plan, name, path)
    _drop_choice(name)
    st.session_state.pop("catalog", None)


def _set_binding(plan, name: str, path: str) -> None:
    """Bind ``name`` to ``path``; an upload the binding named before goes once nothing names it (kept, it
    stood for the table again after an Unbind, ahead of the generated data)."""
    before = bindings(plan).get(name)
    bindings(plan)[name] = path
    if before is not None and os.path.realpath(before) != os.path.realpath(path):
        release_upload(before)


def _drop_choice(name: str) -> None:
    """A table bound to a file with the plan's columns is read by name again."""
    if name in by_position():
        by_position().remove(name)


def _set_position(name: str, key: str) -> None:
    chosen = [n for n in by_position() if n != name]
    st.session_state["tables_by_position"] = chosen + ([name] if st.session_state[key] else [])
    st.session_state.pop("catalog", None)


def _use_suite(plan, suite_name: str, names: list[str], columns: dict) -> None:
    """Generate the suite's data (once) and bind each table to its table of the same name, when that
    serves the plan."""
    suite = next(x for x in SUITES if x.name == suite_name)
    try:
        folder = suite.make(TPCH_SCALE)
    except ExecutionError as exc:
        st.session_state[f"fix_suite_error_{names[0]}"] = str(exc)
        return
    st.session_state[suite.key] = True  # its folder becomes a data root, so it can be bound
    for name in names:
        path = os.path.join(folder, f"{name.split('.')[-1].lower()}.parquet")
        check = check_bases(file_columns(path, "parquet"), columns.get(name, []))[0]
        if not check.ok:
            st.session_state[f"fix_suite_error_{name}"] = f"{suite.name}'s {name} {check.problem()} either."
            continue
        _set_binding(plan, name, path)
        _drop_choice(name)
    st.session_state.pop("catalog", None)


# ---- binding any table to any file --------------------------------------------------------------------


def _unbind_form(plan, statuses: dict[str, TableStatus]) -> None:
    """The bindings made in this session, each said with whether it serves the plan, and undoing one."""
    chosen = bindings(plan)
    if not chosen:
        return

    labels = {}
    for name, path in chosen.items():
        s = statuses.get(name)
        serves = (
            ""
            if s is None
            else " (does not serve the plan)"
            if not s.bound
            else " (serves the plan, read by position)"
            if "by position" in s.how
            else " (serves the plan)"
        )
        labels[name] = f"{name} → {shown_path(path)}{serves}"
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    name = _picked(c1, "Your bindings for this plan", {labels[n]: n for n in sorted(chosen)}, key="unbind_name")
    c2.button("Unbind", key="unbind", on_click=_unbind, args=(plan, name))


def _picked(where, label: str, options: dict[str, str], **kwargs) -> str:
    """A selectbox of ``options``' shown texts, and the value of the one picked (the texts are the options:
    AppTest cannot read a format_func back, and with values as options a text that changed showed the old)."""
    shown = where.selectbox(label, list(options), **kwargs)
    return options.get(shown, next(iter(options.values())))


def _unbind(plan, name: str) -> None:
    path = bindings(plan).pop(name, None)
    if path is not None:
        release_upload(path)
    _drop_choice(name)
    st.session_state.pop("catalog", None)


def _bind_form(plan, names: list[str], catalog) -> None:
    st.markdown("**Bind a table**")
    # a reload starts a new browser session, whose bindings are its own: nothing could say so after it
    st.caption("A binding lasts as long as this browser tab's session: a reload or a link opens the plan without it.")
    name = st.selectbox("Table", names, key="bind_name")
    how = st.radio(
        "From", ["upload a CSV or Parquet file", "a file under the data roots"], horizontal=True, key="bind_how"
    )
    if how.startswith("upload"):
        f = st.file_uploader("CSV (with a header line) or Parquet", type=["csv", "parquet"], key="bind_file")
        if f is not None and st.button("Bind", key="bind_upload"):
            try:
                path = save_upload(f.name, f.getvalue())
            except ExecutionError as exc:
                st.error(md_escape(f"{str(exc).rstrip('.')}. It was not bound to {name}."), icon=":material/block:")
                return
            _bind(plan, name, path)
    else:
        files = catalog.data_files()
        if not files:
            st.caption("The data roots hold no data files directly (their subfolders are not searched).")
            return
        path = st.selectbox("File", files, key="bind_path")
        if st.button("Bind", key="bind_existing"):
            _bind(plan, name, path)


def _bind(plan, name: str, path: str) -> None:
    _set_binding(plan, name, path)
    st.session_state.pop("catalog", None)
    st.rerun()


run_page("the Tables page", main)
