"""Substrait plan visualizer (Streamlit entry point): ``make run``.

A thin page over the pure core in ``viz/``: upload or pick a plan, see its graph with every node's
schema, pick a node to inspect. All logic lives in ``viz``.
"""

from __future__ import annotations

import os

import pandas as pd
import streamlit as st

from viz.errors import PlanLoadError
from viz.model import PlanModel, analyze
from viz.render import title, to_dot

SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sample_plans")

st.set_page_config(page_title="Substrait plan visualizer", layout="wide")


@st.cache_data(show_spinner=False, max_entries=32)
def _analyze(data: bytes) -> PlanModel | str:
    """The model for these bytes, or the message saying why they are not a plan."""
    try:
        return analyze(data)
    except PlanLoadError as exc:
        return str(exc)


def _samples() -> list[str]:
    if not os.path.isdir(SAMPLES):
        return []
    return sorted(f for f in os.listdir(SAMPLES) if f.endswith((".json", ".bin", ".pb")))


st.title("Substrait plan visualizer")
with st.sidebar:
    st.header("Plan")
    upload = st.file_uploader("Upload a plan (protobuf JSON or binary)", type=None)
    samples = _samples()
    options = ["(none)", *samples]
    linked = st.query_params.get("sample")
    sample = (
        st.selectbox("…or pick a sample", options, index=options.index(linked) if linked in options else 0)
        if samples
        else "(none)"
    )
    pasted = st.text_area("…or paste JSON", height=120)

data: bytes | None = None
source = ""
if upload is not None:
    data, source = upload.getvalue(), upload.name
elif pasted.strip():
    data, source = pasted.encode(), "pasted JSON"
elif sample != "(none)":
    with open(os.path.join(SAMPLES, sample), "rb") as fh:
        data, source = fh.read(), sample
    st.query_params["sample"] = sample

if data is None:
    st.info("Upload a Substrait plan (JSON or binary protobuf), pick a sample, or paste JSON to see its graph.")
    st.stop()

result = _analyze(data)
if isinstance(result, str):
    st.error(f"{source}: {result}")
    st.stop()
model: PlanModel = result

node_ids = [n.id for n in model.nodes()]
labels = {n.id: f"{n.id}  {title(n.kind)}  {n.info.detail[:60]}" for n in model.nodes()}
wanted = st.query_params.get("node")
default = node_ids.index(wanted) if wanted in node_ids else 0
selected = st.sidebar.selectbox("Node", node_ids, index=default, format_func=lambda i: labels[i]) if node_ids else None
if selected is not None:
    st.query_params["node"] = selected

st.caption(f"{source}: {model.loaded.format}, {len(node_ids)} nodes, {len(model.roots)} root(s)")
for d in model.plan_diagnostics:
    (st.warning if d.severity.value != "info" else st.caption)(f"{d.code}: {d.message}")

graph_col, node_col = st.columns([3, 2])
with graph_col:
    st.graphviz_chart(to_dot(model, selected=selected), use_container_width=True)
with node_col:
    if selected is not None:
        node = model.node(selected)
        st.subheader(f"{title(node.kind)} {node.id}")
        if node.info.detail:
            st.write(node.info.detail)
        if node.schema is None:
            st.write("Schema unknown.")
        else:
            st.dataframe(pd.DataFrame(node.schema_json()), hide_index=True, use_container_width=True)
        for role, text in node.info.expressions:
            st.code(f"{role}: {text}", language=None)
        for d in node.diagnostics:
            (st.error if d.severity.value == "error" else st.warning if d.severity.value == "warning" else st.info)(
                f"{d.code}: {d.message}"
            )
