"""Tables: which tables the current plan reads, which are bound to data, and binding the rest."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from executor.errors import ExecutionError
from ui.boundary import panel
from ui.data import TPCH_SCALE, bindings, by_position, catalog_for, sample_data_kind, save_upload
from ui.entry import through_app
from ui.plan_source import current_model, plan_sidebar
from viz.tables import plan_tables

through_app()


def main() -> None:
    plan = plan_sidebar()
    st.title("Tables")
    model = current_model(plan)
    if model is None:
        if plan is None:
            st.info("Open a plan first (the sidebar): this page shows the tables it reads and binds them to data.")
        return
    tables = plan_tables(model)
    kind = sample_data_kind(plan)
    if kind:
        st.caption(f"{plan.source} is a sample written against the {'tutorial' if kind == 'tutorial' else 'TPC-H'} tables, bound for you.")
    st.toggle(f"Use the generated TPC-H sample data (scale {TPCH_SCALE:g}; generated on first use)", key="use_tpch",
              value=kind == "tpch", disabled=kind == "tpch")
    with st.spinner("Preparing the sample data…"):
        try:
            catalog = catalog_for(plan, generate=True)
        except ExecutionError as exc:
            st.error(str(exc))
            return
    if not tables.named and not tables.files:
        st.success("This plan reads no named tables or files (virtual tables only): it needs no data.")
    if tables.named:
        st.subheader("Named tables")
        statuses = catalog.status(tables.named)
        st.dataframe(
            pd.DataFrame(
                [{"table": s.name, "bound": "yes" if s.bound else "no", "how": s.how, "source": s.message,
                  "read by": ", ".join(tables.readers[s.name])} for s in statuses],
                columns=["table", "bound", "how", "source", "read by"],
            ),
            hide_index=True, width="stretch",
        )
        _bind_form(plan, [s.name for s in statuses], catalog)
        _unbind_form(plan)
        names = [s.name for s in statuses]
        st.multiselect(
            "Read by position", names, default=[n for n in by_position() if n in names], key="tables_by_position_pick",
            on_change=_pick_by_position,
            help="A table whose column names or types are not the plan's is refused (the run says both column "
                 "lists). Choose it here to read its first columns by position instead, under the plan's names.",
        )
    if tables.files:
        st.subheader("Local files")
        st.caption("Read only under the data roots: " + ", ".join(catalog.roots.roots))
        st.dataframe(pd.DataFrame(tables.files, columns=["node", "format", "path"]), hide_index=True, width="stretch")
    with st.expander("Data roots"):
        st.write("Nothing outside these folders is read:")
        for root in catalog.roots.roots:
            st.code(root, language=None)


def _unbind_form(plan) -> None:
    bound = sorted(bindings(plan))
    if not bound:
        return
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    name = c1.selectbox("Bound by you for this plan", bound, key="unbind_name")
    if c2.button("Unbind", key="unbind"):
        bindings(plan).pop(name, None)
        st.session_state.pop("catalog", None)
        st.rerun()


def _bind_form(plan, names: list[str], catalog) -> None:
    st.markdown("**Bind a table**")
    name = st.selectbox("Table", names, key="bind_name")
    how = st.radio("From", ["upload a CSV or Parquet file", "a file under the data roots"], horizontal=True, key="bind_how")
    if how.startswith("upload"):
        f = st.file_uploader("CSV (with a header line) or Parquet", type=["csv", "parquet"], key="bind_file")
        if f is not None and st.button("Bind", key="bind_upload"):
            _bind(plan, name, save_upload(f.name, f.getvalue()))
    else:
        files = catalog.data_files()
        if not files:
            st.caption("The data roots hold no data files.")
            return
        path = st.selectbox("File", files, key="bind_path")
        if st.button("Bind", key="bind_existing"):
            _bind(plan, name, path)


def _pick_by_position() -> None:
    st.session_state["tables_by_position"] = list(st.session_state["tables_by_position_pick"])
    st.session_state.pop("catalog", None)


def _bind(plan, name: str, path: str) -> None:
    bindings(plan)[name] = path
    st.session_state.pop("catalog", None)
    st.rerun()


with panel("the Tables page"):
    main()
