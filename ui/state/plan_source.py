"""The sidebar that gets a plan in (upload, sample, pasted JSON), shared by every page.

The chosen plan's bytes live in ``st.session_state`` so every page (and every rerun) sees the same
plan; whichever input the user touched last wins. ``?sample=NAME`` in the URL opens a sample.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

import streamlit as st

from ui.markdown import md_escape
from ui.state import url
from ui.state.cache_keys import large_value_key
from viz.errors import PlanLoadError
from viz.load import MAX_PLAN_BYTES
from viz.model import PlanModel, analyze

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLES = os.path.join(ROOT, "sample_plans")
NONE = "(none)"
#: The plan uploaders' limit as Streamlit takes it (whole MiB), so their hint says the limit the loader
#: keeps, not Streamlit's default 200 MB.
PLAN_UPLOAD_MB = MAX_PLAN_BYTES // 2**20


@dataclass(frozen=True)
class Plan:
    data: bytes
    source: str  # file name, sample name or "pasted JSON"
    sample: str | None = None  # the sample's file name, when it is one
    shared: str | None = None  # the share link's digest, when it was opened from one
    #: the data it is written against ("tutorial", "tpch") when the person chose it (the SQL page); a
    #: sample's comes from sample_plans/manifest.json
    written_for: str | None = None
    #: where the plan is known not to mean the SQL it was made from (the SQL page: a window frame
    #: DataFusion's producer drops...), said on every page that shows it
    not_its_sql: tuple[str, ...] = ()


def analyze_cached(data: bytes) -> PlanModel | str:
    """The model for these bytes, or the message saying why they are not a plan. One object for
    every rerun and session (the model is frozen): not a pickled copy per rerun, which grew with the
    square of a deep plan's depth (a long chain of relations pickles to hundreds of megabytes), and every memo kept
    beside the model (descriptions, executability) is worked out once."""
    return _analyze(large_value_key(data), data)


@st.cache_resource(show_spinner=False, max_entries=32)
def _analyze(key: bytes | str, _data: bytes) -> PlanModel | str:
    try:
        return analyze(_data)
    except PlanLoadError as exc:
        return str(exc)


def _verdicts(data: bytes) -> Mapping:
    """``executor.translate.executable.executability`` of the plan (worked out once per model); none when
    the plan does not load or the executor is not installed (every node is then shown as runnable)."""
    model = analyze_cached(data)
    if isinstance(model, str):
        return {}
    try:
        from executor.translate.executable import executability
    except ImportError:
        return {}
    return executability(model)


def executability_of(data: bytes) -> dict[str, tuple[bool, str | None]]:
    """Per node: whether Spark can give its rows, and why not (known before running): its subtree cannot run,
    or it outputs a column of a type the translation lacks."""
    return _executability(large_value_key(data), data)


@st.cache_data(show_spinner=False, max_entries=32)
def _executability(key: bytes | str, _data: bytes) -> dict[str, tuple[bool, str | None]]:
    return {node_id: (not e.rows_reason, e.rows_reason) for node_id, e in _verdicts(_data).items()}


def graph_gaps(data: bytes) -> frozenset[str]:
    """The nodes the graph marks as ones Spark cannot run: not those inside a correlated subquery, which
    run as part of their query (not a gap; their Run tab says so)."""
    return frozenset(n for n, e in _verdicts(data).items() if e.rows_reason and e.part_of is None)


def samples() -> list[str]:
    if not os.path.isdir(SAMPLES):
        return []
    return sorted(f for f in os.listdir(SAMPLES) if f.endswith((".json", ".bin", ".pb")) and f != "manifest.json")


@functools.lru_cache(maxsize=1)
def sample_manifest() -> dict[str, dict]:
    """sample_plans/manifest.json: each sample's entry (its title, the data it is written against), read
    once (the samples ship with the app; pages ask on every rerun); {} when it cannot be read."""
    try:
        with open(os.path.join(SAMPLES, "manifest.json"), encoding="utf-8") as fh:
            manifest = json.load(fh)
    except (OSError, ValueError):
        return {}
    return (
        {name: entry for name, entry in manifest.items() if isinstance(entry, dict)}
        if isinstance(manifest, dict)
        else {}
    )


def sample_named(name: str | None) -> str | None:
    """The sample a link names: by its file name, or by that name without its extension
    (``?sample=tpch_q03_isthmus``, as people write it); None when no sample is called so."""
    names = samples()
    if name in names:
        return name
    return next((n for n in names if name and os.path.splitext(n)[0] == name), None)


def sample_titles() -> dict[str, str]:
    return {name: entry.get("title", name) for name, entry in sample_manifest().items()}


def read_sample(name: str | None) -> Plan | None:
    """The sample plan called ``name`` (:func:`sample_named`), or None: only files of the folder, never
    a path from a link."""
    name = sample_named(name)
    if name is None:
        return None
    with open(os.path.join(SAMPLES, name), "rb") as fh:
        return Plan(fh.read(), name, name)


_LOAD_PREFIXES = ("not a Substrait plan: ", "not a valid Substrait plan: ", "not loadable: ")
EXPECTED = "a Substrait Plan as protobuf JSON or binary protobuf"
#: What pasted text is expected to be: binary protobuf cannot be pasted.
EXPECTED_PASTED = "a Substrait Plan as protobuf JSON"


def found_text(data: bytes, reason: str) -> str:
    """What ``data`` is, given the loader's ``reason`` for refusing it: the reason itself for JSON
    (it names what the JSON lacks), else what kind of bytes they are and how they start."""
    for prefix in _LOAD_PREFIXES:
        if reason.startswith(prefix):
            reason = reason[len(prefix) :]
            break
    head = data.lstrip()[:1]
    if not data.strip():
        return "an empty file"
    if head in (b"{", b"["):
        reason = re.sub(r"[;,] expected .*?(?= \(found|$)", "", reason)  # the message says what is expected once
        return f"JSON that does not read as a Plan {reason}" if reason.startswith("at ") else reason
    if reason.startswith("binary protobuf that ends early"):
        return f"{len(data):,} bytes of {reason}"
    if reason.startswith("the bytes parse as protobuf but hold no relations"):  # a Plan, but one with nothing to show
        return f"{len(data):,} bytes that read as a protobuf Plan without relations (nothing to draw)"
    binary = f"{len(data):,} bytes of binary data that do not read as a Plan message"
    if any(b < 32 and b not in b"\t\n\r\f" for b in data[:200]):  # control bytes: no text, though UTF-8
        return binary
    try:
        text = data[:200].decode("utf-8")
    except UnicodeDecodeError:
        return binary
    start = " ".join(text.split())[:40]
    return f"text that is not JSON, starting “{start}”"


def refusal(name: str, data: bytes, reason: str, kept: Plan | None = None, expected: str = EXPECTED) -> str:
    """The one message for bytes that are not a plan: what was expected, what was found, and which
    plan stays open (``kept``)."""
    return f"{name} was not opened: expected {expected}, found {found_text(data, reason)}.{_still(kept)}"


def _still(kept: Plan | None) -> str:
    """The end of a refusal: which plan stays open."""
    return f" The plan shown is still {kept.source}." if kept is not None else ""


#: The session's message for the last input that was not opened (an upload or a paste that is not a
#: plan, a file over the limit); it stays until an input opens a plan or the upload is removed.
REFUSED = "plan_refused"
#: Set by the input's callback: the refusal is new, so the page shows it once where the person looks.
_REFUSED_NOW = "plan_refused_now"


#: What a view of one plan keeps that means nothing in another's: its node, its search and its collapsed nodes.
_PLAN_VIEW = ("node", "search", "collapsed")


def _forget_the_view() -> None:
    """A newly opened plan starts at its first node, with no search and nothing collapsed (another plan's
    search had stayed, matching nothing, with its word in the URL). The two widgets are given their empty
    values, not dropped: a dropped one kept its text in the browser."""
    st.session_state.pop("node", None)
    st.session_state["search"], st.session_state["collapsed"] = "", []
    url.drop(*_PLAN_VIEW)


def _refuse(message: str) -> None:
    st.session_state[REFUSED] = message
    st.session_state[_REFUSED_NOW] = True


def _offer(plan: Plan, expected: str = EXPECTED) -> bool:
    """Open ``plan`` if its bytes are a plan; else leave the open plan as it is and say why
    (:data:`REFUSED`: ``expected`` is what they should have been). Returns whether it was opened."""
    model = analyze_cached(plan.data)
    if isinstance(model, str):
        _refuse(refusal(plan.source, plan.data, model, st.session_state.get("plan"), expected))
        return False
    st.session_state.pop(REFUSED, None)
    st.session_state["plan"] = plan
    st.session_state["plan_sample"] = NONE  # the sample picker no longer names what is shown
    url.drop("plan")
    _forget_the_view()
    return True


def open_elsewhere(plan: Plan, page: str) -> None:
    """Make ``plan`` the session's open plan (the sidebar's) and go to ``page`` (``"pages/tables.py"``), at
    its first node."""
    st.session_state["plan"] = plan
    st.session_state["plan_sample"] = plan.sample or NONE  # the sidebar's picker names what is shown
    url.drop("sample", "plan", "name", "data")
    _forget_the_view()
    st.switch_page(page)


def _on_upload() -> None:
    f = st.session_state.get("plan_upload")
    if f is None:
        st.session_state.pop(REFUSED, None)
        return
    size = getattr(f, "size", None)
    if size is not None and size > MAX_PLAN_BYTES:
        _refuse(
            f"{f.name} was not opened: {size:,} bytes is over the {MAX_PLAN_BYTES:,}-byte "
            f"limit for a plan.{_still(st.session_state.get('plan'))}"
        )
        return
    _offer(Plan(f.getvalue(), f.name))


def _on_sample() -> None:
    name = st.session_state.get("plan_sample")
    st.session_state.pop(REFUSED, None)
    if name and name != NONE:
        st.session_state["plan"] = read_sample(name)
        url.set("sample", name)
    else:
        st.session_state.pop("plan", None)
        url.drop("sample")
    url.drop("plan")  # a shared plan's link no longer describes what is shown
    _forget_the_view()


def _on_paste() -> None:
    text = st.session_state.get("plan_pasted", "")
    if text.strip():
        _offer(Plan(text.encode(), "pasted JSON"), EXPECTED_PASTED)


def _open_shared(digest: str) -> None:
    """Open the plan a share link names (``?plan=<sha256>``), or say it is not here."""
    from ui.state.share import DATA_KINDS, MAX_NAME_CHARS, is_digest, load_not_its_sql, load_shared, shared_name

    data = load_shared(digest)
    if data is None:
        what = (
            "is not on this server"
            if is_digest(digest)
            else "is not a plan link (expected 64 lowercase hex characters)"
        )
        st.session_state["plan_error"] = (
            f"The shared plan {digest[:16]} {what}; open a sample or upload the plan instead."
        )
        return
    name = (url.get("name") or "").strip()[:MAX_NAME_CHARS]
    data_kind = url.get("data")
    st.session_state["plan"] = Plan(
        data,
        name or shared_name(digest),
        shared=digest,
        written_for=data_kind if data_kind in DATA_KINDS else None,
        not_its_sql=load_not_its_sql(digest),
    )


def plan_from_url() -> Plan | None:
    """The session's plan: the one it has, else the one the URL names (``?sample=``, ``?plan=``), now
    kept in the session; None when there is neither (a link to a plan that is not here leaves its
    message in ``st.session_state["plan_error"]``)."""
    st.session_state.pop("plan_error", None)
    linked = url.get("sample")
    sample = read_sample(linked) if "plan" not in st.session_state and linked else None
    if sample is not None:
        st.session_state["plan"] = sample
        st.session_state["plan_sample"] = sample.sample
    elif "plan" not in st.session_state and linked:
        st.session_state["plan_error"] = (
            f"The link names a sample plan, {linked[:60]!r}, that is not on this server; open one of the samples "
            "or upload the plan instead."
        )
    shared = url.get("plan")
    if "plan" not in st.session_state and shared:
        _open_shared(shared)
    return st.session_state.get("plan")


def plan_sidebar() -> Plan | None:
    """Draw the plan inputs in the sidebar; returns the current plan (or None)."""
    plan_from_url()
    names = samples()
    titles = sample_titles()
    with st.sidebar:
        st.header("Plan")
        st.file_uploader(
            "Upload a plan (protobuf JSON or binary)",
            key="plan_upload",
            max_upload_size=PLAN_UPLOAD_MB,
            on_change=_on_upload,
            help="Substrait Plan messages: .json (protobuf JSON) or binary (.pb, .bin, .substrait)",
        )
        current = st.session_state.get("plan")
        if not st.session_state.get("plan_upload") and not st.session_state.get("plan_pasted", "").strip():
            st.session_state.pop(REFUSED, None)  # the input it was about is gone (another page's uploader is empty)
        # under the input it is about, for as long as the upload stays, while another plan stays open (with
        # none open, the page says it where the plan would be: ``ui.page``); when new, in the page too
        if REFUSED in st.session_state and current is not None:
            st.error(md_escape(st.session_state[REFUSED]))
            if st.session_state.pop(_REFUSED_NOW, False):
                st.toast(md_escape(st.session_state[REFUSED]), icon=":material/block:")
        if current is not None and current.sample in names and st.session_state.get("plan_sample") in (None, NONE):
            st.session_state["plan_sample"] = current.sample  # the picker forgets it on another page; the plan stays
        elif current is not None and current.sample is None and not st.session_state.get("plan_upload"):
            st.caption(md_escape(f"Open now: {current.source}"))
        options = [NONE, *names]
        st.selectbox(
            "…or open a sample",
            options,
            key="plan_sample",
            on_change=_on_sample,
            format_func=lambda n: n if n == NONE else f"{titles.get(n, n)} ({n})",
        )
        with st.expander("…or paste JSON"):
            st.text_area("Plan JSON", key="plan_pasted", height=140, on_change=_on_paste, label_visibility="collapsed")
            # Ctrl+Enter in the box opens it too; the button says that it is to be opened at all
            st.button("Open the pasted plan", key="plan_paste_open", on_click=_on_paste)
    if "plan_error" in st.session_state:
        st.error(md_escape(st.session_state["plan_error"]))
    plan = st.session_state.get("plan")
    keep_plan_in_url(plan)
    return plan


#: The longest plan name a URL carries (``?name=``); a longer one is cut.
def plan_query(plan: Plan) -> dict[str, str]:
    """The query parameters that name ``plan`` in the address (``ui.state.share.plan_params``); none when
    it cannot be saved for sharing (too large, the folder not writable)."""
    from ui.state.share import ShareError, plan_params

    try:
        return plan_params(plan)
    except ShareError:
        return {}


def keep_plan_in_url(plan: Plan | None) -> None:
    """Make the URL name the plan shown (:func:`plan_query`), so that a reload or a copied address
    opens it again: Streamlit drops the query when the page changes, and a plan opened from the
    sidebar replaces the one the URL named. With no plan open, the URL is left as it is (a link to a
    plan that is not here keeps saying what it asked for)."""
    if plan is None:
        return
    wanted = plan_query(plan)
    for key in ("sample", "plan", "name", "data"):
        if key in wanted:
            url.set(key, wanted[key])
        else:
            url.drop(key)


def current_model(plan: Plan | None) -> PlanModel | None:
    """The model of the current plan; shows ``st.error`` and returns None when it is not a plan."""
    if plan is None:
        return None
    result = analyze_cached(plan.data)
    if isinstance(result, str):
        st.error(md_escape(refusal(plan.source, plan.data, result)))
        return None
    return result


def plan_digest(plan: Plan | None) -> str:
    """The key of everything kept for a plan in this session (its runs, profile, table bindings): the
    model's digest, so the same plan as JSON or binary is one plan; the bytes' digest when they are
    not a plan, "" for no plan."""
    if plan is None:
        return ""
    model = analyze_cached(plan.data)
    return model.digest if isinstance(model, PlanModel) else hashlib.sha256(plan.data).hexdigest()
