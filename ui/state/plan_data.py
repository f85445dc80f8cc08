"""Which data a plan runs on in the app: the catalog for the current plan and this user's bindings.

Data roots (nothing outside them is ever read):
- the tutorial tables (``sample_data/tutorial``) for the plans written over them,
- TPC-H at scale 0.01, generated on first use, for the TPC-H sample plans (or when the user asks),
- this browser session's uploads folder (files uploaded on the Tables page),
- ``$SUBSTRAIT_VIZ_DATA`` when set: a folder of the user's own data, bound by file stem.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import re
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import streamlit as st

from executor import settings
from executor.data.catalog import SUFFIX_FORMATS, Catalog, data_roots, file_stamp, read_stamps
from executor.data.columns import Unreadable, file_columns
from executor.data.generate import CACHE, TPCDS_TABLES, TPCH_TABLES, tpcds, tpch
from executor.errors import ExecutionError
from executor.spark.session import remove_ended_processes_folders
from ui.state.plan_source import ROOT, Plan, plan_digest, sample_manifest
from ui.state.sessions import session_here, session_id

if TYPE_CHECKING:
    from viz.model import PlanModel

TUTORIAL_DATA = os.path.join(ROOT, "sample_data", "tutorial")
TPCH_SCALE = 0.01
#: Where a person fixes a table in the app: the ends of the refusals' sentences (the command line's
#: name its options instead).
BY_POSITION_HOW = " (the Tables page offers both)"
BIND_HOW = "Bind it on the Tables page (which also makes TPC-H and TPC-DS sample data)"


@dataclass(frozen=True)
class Suite:
    """A benchmark's generated sample data, offered on the Tables page: its folder becomes a data
    root while the session's toggle (``key``) is on."""

    name: str  # "TPC-H"
    key: str  # the session's toggle
    tables: tuple[str, ...]
    make: Callable[[float], str]  # generates (once) and returns the folder
    stem: str  # the folder's name, before "-sf<scale>"

    def folder(self) -> str:
        return os.path.join(CACHE, f"{self.stem}-sf{TPCH_SCALE:g}")

    def generated(self) -> str | None:
        """The folder when it was generated before (nothing is generated here)."""
        return self.folder() if os.path.isdir(self.folder()) else None


SUITES = (
    Suite("TPC-H", "use_tpch", TPCH_TABLES, tpch, "tpch"),
    Suite("TPC-DS", "use_tpcds", TPCDS_TABLES, tpcds, "tpcds"),
)


def user_data() -> str | None:
    """``$SUBSTRAIT_VIZ_DATA``: a folder of the person's own tables, or None when unset or not a folder."""
    folder = settings.SETTINGS.data
    return folder if folder and os.path.isdir(folder) else None


def sample_data_kind(plan: Plan | None) -> str | None:
    """ "tutorial", "tpch", "tpcds" or None: the data a plan is written against: a sample's
    (sample_plans/manifest.json), or the one chosen for a plan made from SQL."""
    if plan is not None and plan.written_for:
        return plan.written_for
    if plan is None or plan.sample is None:
        return None
    return sample_manifest().get(plan.sample, {}).get("data")


#: Sessions' uploads, by the server process that holds the sessions: a session, and so its uploads, lasts
#: no longer than its server.
UPLOADS_ROOT = os.path.join(CACHE, "uploads")
_process_uploads: str | None = None
_uploads_lock = threading.Lock()


def uploads_dir() -> str:
    """This browser session's folder for uploaded tables (made by its first upload), named by the session."""
    if "uploads_dir" not in st.session_state:
        st.session_state["uploads_dir"] = os.path.join(_server_uploads(), session_id() or uuid.uuid4().hex)
    return st.session_state["uploads_dir"]


#: Seconds a session's uploads are kept after its last upload once it is no longer connected (a closed
#: session cannot come back by then).
ENDED_UPLOADS_S = 600.0


def remove_ended_uploads(folder: str, keep: str) -> list[str]:
    """Remove the uploads in ``folder`` (a server's) of its sessions that have ended, all but ``keep``;
    the folders removed."""
    removed = []
    now = time.time()
    try:
        entries = [e for e in os.scandir(folder) if e.is_dir() and e.path != keep]
    except OSError:
        return removed
    for entry in entries:
        try:
            idle = now - entry.stat().st_mtime
        except OSError:
            continue
        if idle > ENDED_UPLOADS_S and not session_here(entry.name):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(entry.path)
    return removed


def _server_uploads() -> str:
    """This server process's folder of its sessions' uploads, removed at its exit; the first call also
    removes those of servers that no longer run."""
    global _process_uploads
    with _uploads_lock:
        if _process_uploads is None:
            clean_uploads()
            _process_uploads = os.path.join(UPLOADS_ROOT, str(os.getpid()))
            atexit.register(shutil.rmtree, _process_uploads, ignore_errors=True)
        return _process_uploads


#: Seconds after which a session's uploads folder of the layout before the server's own folders is
#: removed (no running server uses it by then).
OLD_UPLOADS_S = 24 * 3600.0


def clean_uploads(root: str = UPLOADS_ROOT) -> list[str]:
    """Remove the uploads of server processes that no longer run, and the older layout's folders
    (one per session) that are empty or untouched for :data:`OLD_UPLOADS_S`; the folders removed."""
    removed = remove_ended_processes_folders(root)
    try:
        older = [e for e in os.scandir(root) if not e.name.isdigit()]
    except OSError:
        return removed
    now = time.time()
    for entry in older:
        try:
            gone = not os.listdir(entry.path) or now - entry.stat().st_mtime > OLD_UPLOADS_S
        except OSError:
            continue
        if gone:
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(entry.path)
    return removed


def bindings(plan: Plan | None) -> dict[str, str]:
    """This user's table bindings for ``plan`` (``{name: path}``): a binding belongs to the plan it was
    made for, so another plan's tables resolve without it."""
    return st.session_state.setdefault("table_bindings", {}).setdefault(plan_digest(plan), {})


def release_upload(path: str) -> None:
    """Remove this session's copy of an upload no binding of any plan names any more: unbound, it would
    otherwise stand for the table of its name in every plan, ahead of the generated data."""
    folder = os.path.realpath(uploads_dir())
    if os.path.dirname(os.path.realpath(path)) != folder:
        return  # a file under the data roots, not an upload: never removed
    named = {os.path.realpath(p) for plan in st.session_state.get("table_bindings", {}).values() for p in plan.values()}
    if os.path.realpath(path) not in named:
        with contextlib.suppress(OSError):
            os.unlink(path)


def by_position() -> list[str]:
    """The tables this user chose to read by position when their columns are not the plan's (the
    Tables page); any other such table is refused with both column lists."""
    return st.session_state.setdefault("tables_by_position", [])


def roots_for(plan: Plan | None, generate: bool, data: str | None = None) -> list[str]:
    """The data roots for this plan, in the resolution order of :func:`executor.data.catalog.data_roots`
    (the first root with a table wins): the data the plan is written against (a sample's, a plan from SQL's),
    this session's uploads, the user's data folder, the generated suites the session turned on, the
    tutorial tables last.

    ``generate``: generate a suite now if the plan needs it and it is not there yet (a few seconds).
    ``data``: the SQL page's choice ("tutorial", "tpch", "tpcds"), which alone decides the suite read."""
    kind = data if data is not None else sample_data_kind(plan)
    folders: dict[str, str | None] = {}
    for suite in SUITES:
        if data is not None:
            used = suite.stem == data
        else:
            used = kind == suite.stem or bool(st.session_state.get(suite.key))
        if used:
            folders[suite.stem] = suite.make(TPCH_SCALE) if generate else suite.generated()
    own = [TUTORIAL_DATA] if kind == "tutorial" else [folders[kind]] if folders.get(kind or "") else []
    user = [*filter(os.path.isdir, [uploads_dir()]), *filter(None, [user_data()])]
    # the SQL page's suite alone, without the tutorial's tables mixed in (its orders and products)
    fallback = [] if data in folders else [TUTORIAL_DATA]
    return data_roots(own=own, user=user, generated=[f for f in folders.values() if f], fallback=fallback)


def data_key(plan: Plan | None, model: PlanModel) -> tuple:
    """What decides the data a run of ``plan`` (whose model is ``model``) reads: the suites it reads (as
    they will be once generated), the user's folder and the state of what the plan reads there, this
    session's bindings for it and the tables read by position. A page keeps its results under it, so
    rows read before a binding changed are not shown as the data's now."""
    kind = sample_data_kind(plan)
    suites = tuple(s.stem for s in SUITES if kind == s.stem or st.session_state.get(s.key))
    bound = sorted(bindings(plan).items())
    folder = user_data()
    return (
        kind,
        suites,
        folder,
        tuple(bound),
        tuple(sorted(by_position())),
        # a file uploaded again under its name, or changed in the folder, is other data
        tuple(file_stamp(path) for _, path in bound),
        read_stamps(model, [folder]) if folder and os.path.isdir(folder) else folder,
    )


def chosen_folder(data: str) -> str | None:
    """The folder of the SQL page's choice ("tutorial", "tpch", "tpcds"); None for a suite not generated yet."""
    if data == "tutorial":
        return TUTORIAL_DATA
    return next((s.generated() for s in SUITES if s.stem == data), None)


def suite_generated(stem: str) -> bool:
    """Whether the suite ``stem`` ("tpch", "tpcds") was generated on this machine before."""
    return stem != "tutorial" and chosen_folder(stem) is not None


def shown_path(path: str, uploads: str | None = None) -> str:
    """A file as the person knows it: an upload (in ``uploads``, this session's folder by default) by the
    name it was uploaded under, not this session's copy on the server; the folder itself as "your uploads"."""
    folder = os.path.abspath(uploads or uploads_dir())
    if os.path.abspath(path) == folder:
        return "your uploads"
    if os.path.dirname(os.path.abspath(path)) == folder:
        return f"your upload {os.path.basename(path)}"
    return path


def catalog_for(plan: Plan | None, generate: bool = False, data: str | None = None) -> Catalog:
    """The catalog for this plan and this user, kept across reruns while nothing changes (so each
    table is opened once). ``data``: see :func:`roots_for`."""
    roots = roots_for(plan, generate, data)
    bound = bindings(plan)
    key = (tuple(roots), tuple(sorted(bound.items())), tuple(sorted(by_position())))
    cached = st.session_state.get("catalog")
    if cached is not None and cached[0] == key:
        return cached[1]
    catalog = Catalog(
        data_roots=roots,
        by_position=by_position(),
        by_position_how=BY_POSITION_HOW,
        bind_how=BIND_HOW,
        suite_how="turn on “Use the generated {suite} sample data” on the Tables page",
        # the folder now: the catalog's messages are also made in a run's thread, which has no session
        shown_path=functools.partial(shown_path, uploads=uploads_dir()),
        shared_uploads=uploads_dir(),
    )
    for name, path in list(bound.items()):
        try:
            catalog.bind(name, path)
        except Exception:  # a binding whose file went away: drop it, the Tables page shows it unbound
            bound.pop(name, None)
    st.session_state["catalog"] = (key, catalog)
    return catalog


def save_upload(name: str, data: bytes) -> str:
    """Keep an uploaded table in this session's uploads folder, under a safe form of its name; its path.
    Raises ``ExecutionError`` saying why when its columns cannot be read as its kind of file says (a
    picture named .csv, an empty file): it is not kept, and an earlier upload of that name stays."""
    folder = uploads_dir()
    if os.path.dirname(folder) == _server_uploads():  # this server's sessions' (a test's folder is its own)
        remove_ended_uploads(_server_uploads(), keep=folder)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, safe_file_name(name))
    fmt = SUFFIX_FORMATS.get(os.path.splitext(path)[1].lower())
    if fmt is None:
        raise ExecutionError(f"{name} is not a table file: a CSV file (with a header line) or Parquet is expected")
    fd, trial = tempfile.mkstemp(dir=folder, suffix=os.path.splitext(path)[1])
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        try:
            file_columns(trial, fmt)
        except Unreadable as exc:
            raise ExecutionError(f"{name} cannot be read as {_FORMAT_NAMES.get(fmt, fmt)}: {exc.reason}") from None
        os.replace(trial, path)
    finally:
        if os.path.exists(trial):
            os.unlink(trial)
    return path


_FORMAT_NAMES = {"csv": "CSV", "tsv": "TSV", "parquet": "Parquet", "orc": "ORC", "arrow": "Arrow"}


def safe_file_name(name: str) -> str:
    """An uploaded file's name reduced to a plain file name (no folders, no odd characters)."""
    base = os.path.basename(name.replace("\\", "/"))
    base = re.sub(r"[^A-Za-z0-9._-]", "_", base).lstrip(".")
    return base or "table"


#: Plans up to this many nodes have every node translated in the background when they open.
WARM_NODES = 40
#: At most this many of the plan's reads have a row read in the background when it opens.
WARM_READS = 12
#: Seconds the background warm-up spends running the open plan's nodes, leaves first
#: (``executor.spark.rehearsal.rehearse``); the run under way when they are up is interrupted.
WARM_RUN_BUDGET_S = 8.0


def warm_spark(plan: Plan, model) -> None:
    """Start Spark in the background (``executor.spark.session.warm_up``), then translate the open plan's
    nodes on it (kept by ``executor.jobs.run.translation``), read a row of each table it reads, and run the
    nodes once, leaves first, for :data:`WARM_RUN_BUDGET_S` (their rows not kept): the first run finds
    Spark started, its code paths warm and the files listed, and the page never waits."""
    from executor.jobs.run import translation
    from executor.spark.rehearsal import prepare_later, prepared_by_warm_up, rehearse
    from executor.spark.session import WARM_UP, is_started, warm_up, warm_up_due, warming
    from executor.translate.executable import executability

    due = warm_up_due()
    if not due and not (WARM_UP and (is_started() or warming())):
        return
    try:
        catalog = catalog_for(plan)
    except Exception:  # noqa: BLE001 - the tables are not ready (yet): start Spark all the same
        catalog = None

    runnable = executability(model)
    # a small plan: every node a person may run first; a large one: its roots (their subtrees warm the rest)
    nodes = list(model.graph.nodes) if len(model.graph.nodes) <= WARM_NODES else list(model.roots)
    if not due:  # Spark runs or starts already: a plan opened later is prepared once Spark is idle
        if catalog is not None:
            prepare_later(model, [n for n in dict.fromkeys([*model.roots, *nodes]) if runnable[n].ok], catalog)
        return

    reads = [n for n in model.graph.nodes if model.node(n).kind == "read" and runnable[n].ok][:WARM_READS]
    if catalog is not None:  # reopened (a reload, another person), the plan is not rehearsed again
        prepared_by_warm_up(model, catalog)

    def prepare(spark) -> None:
        for node_id in nodes:
            if runnable[node_id].ok:
                translation(model, node_id, spark, catalog)
        # a row of each table read: Spark lists its files and reads their footers now, not in the first
        # Run, where they are a good part of its wait
        for node_id in reads:
            translation(model, node_id, spark, catalog).df.limit(1).collect()
        # then each node as Run runs it: a query shape's first run on a fresh JVM costs several times
        # what the same run costs again
        rehearse(model, [n for n in reversed(nodes) if runnable[n].ok], spark, catalog, WARM_RUN_BUDGET_S)

    warm_up(os.path.join(TUTORIAL_DATA, "orders.parquet"), prepare if catalog is not None else None)
