"""The one shared Spark session, started lazily on first use.

``SPARK_REMOTE=sc://host:port`` connects through Spark Connect; ``SPARK_MASTER`` picks a cluster
master; otherwise a ``local[*]`` session with memory settings for a small machine is started
(``SPARK_REMOTE=local`` starts a local Spark Connect server with those same settings).
If the session dies (its JVM crashed or was killed), the next ``get_session()`` starts a new one.
Nothing here starts Spark at import time.
The translation uses only the DataFrame API, so the same code runs on both kinds of session.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import logging
import os
import shutil
import subprocess
import threading
import warnings
from collections.abc import Callable

from pyspark import java_gateway
from pyspark.sql import SparkSession

from .. import settings
from ..data.generate import CACHE
from ..errors import ExecutionError
from .jvm import pin_lookups

_lock = threading.Lock()
_session: SparkSession | None = None

#: Session settings the translation's results depend on, set on every session, a remote Connect
#: server's too: times are UTC, casts and arithmetic are Spark's legacy ones (the translation adds the
#: checks a plan asks for), and a name is never read as an alias of the same select.
SEMANTICS = {
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.ansi.enabled": "false",
    # A column named inside a lambda (``transform(split(s, ''), c -> ... s ...)``) is not resolved before
    # Spark looks for a lateral alias of that name, and every select names its outputs ``_0``, ``_1``...
    # like its input's columns: the lambda read the select's own new column.
    "spark.sql.lateralColumnAlias.enableImplicitResolution": "false",
    # Unset, Spark folds ``NULL IN (a subquery)`` to null even where the subquery has no rows, so that
    # ``NULL NOT IN (<no rows>)`` kept no row where SQL keeps every one.
    "spark.sql.legacy.nullInEmptyListBehavior": "false",
    # A parquet file with one column of a type Spark cannot read otherwise (a timestamp in nanoseconds, a
    # time of day) could not be read at all, even for the columns a plan asks: nanoseconds are read as their
    # count (:func:`executor.data.catalog._read_parquet` makes them timestamps), times as Spark's TIME.
    "spark.sql.legacy.parquet.nanosAsLong": "true",
    "spark.sql.timeType.enabled": "true",
    # Two rewrites that change values: ``lower(upper(s))`` made ``lower(s)`` ('ß' stays 'ß' where upper makes
    # it 'SS'), and a column replaced by the constant it equals in the other conditions (``f = 0 AND 1 / f
    # < 0``: the run's sign check of -0.0 then read the constant 0's sign and dropped the row).
    "spark.sql.optimizer.excludedRules": ",".join(
        f"org.apache.spark.sql.catalyst.optimizer.{rule}"
        for rule in ("SimplifyCaseConversionExpressions", "ConstantPropagation")
    ),
}

LOCAL_CONF = {
    "spark.driver.memory": settings.SETTINGS.spark_driver_memory,
    "spark.sql.shuffle.partitions": "4",
    "spark.default.parallelism": "4",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    **SEMANTICS,
    # Java 17's G1 gives up on an allocation that waits for a JNI critical section (the parquet and
    # Arrow codecs hold them) after 2 retries and throws OutOfMemoryError with the heap half empty: a
    # broadcast on a few busy cores then fails as "Not enough memory to build and broadcast the table".
    # More retries make it wait instead.
    # G1 puts an object of half a region or more (1 MB regions in a 2 GB heap) in contiguous regions of
    # its own that no collection moves. Spark's memory pages (32 MB by default here) and the hash tables
    # of a broadcast are such objects, so a plan building many broadcasts at once failed a humongous
    # allocation with the heap a third free. 4 MB regions with 1 MB pages (``spark.buffer.pageSize``)
    # keep them ordinary objects.
    "spark.driver.extraJavaOptions": "-Duser.timezone=UTC -XX:+UnlockDiagnosticVMOptions "
    "-XX:GCLockerRetryAllocationCount=100 -XX:G1HeapRegionSize=4m",
    "spark.buffer.pageSize": "1m",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    # PySpark 4 records the Python call site of every Column/DataFrame call for error messages, at a
    # cost of about six Py4J round trips per call; the translation makes thousands of such calls
    # per plan (and reports its errors by node itself), so it is turned off.
    "spark.python.sql.dataFrameDebugging.enabled": "false",
    # With the UI off, Spark's status store still keeps the last 1,000 SQL executions (plan text and
    # metrics graph of each), jobs and stages, and 100,000 tasks, in the driver's 2 GB heap. An app
    # session (or the test run) runs thousands of queries, TPC-DS plans among them: a full store left
    # too little heap to build a broadcast ("Not enough memory to build and broadcast the table").
    # Nobody reads that history here, so little of it is kept.
    "spark.sql.ui.retainedExecutions": "20",
    "spark.ui.retainedJobs": "50",
    "spark.ui.retainedStages": "50",
    "spark.ui.retainedTasks": "2000",
    # Spark keeps the classes it generates for a query in a cache of 100 by default; a few open plans
    # need more than that (about a dozen classes per plan), so every run compiled its classes anew and
    # the JIT compiled them again. A run of a plan seen before now finds its classes.
    "spark.sql.codegen.cache.maxEntries": "1000",
}


def archive_path() -> str:
    """Where the class archive of Spark's JVM for this PySpark and this ``java`` is kept
    (``executor.spark.jvm_archive`` builds it): a dynamic CDS archive, the classes a first query loads, as
    the JVM parsed and checked them. A JVM started with it maps them instead of loading them again, so
    the session's start and a first query take about half as long (docs/performance.md)."""
    import pyspark

    home = settings.SETTINGS.java_home
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    ident = f"{os.path.realpath(java)}:{os.stat(java).st_mtime_ns}" if java and os.path.exists(java) else "no java"
    return os.path.join(
        CACHE, "jvm", f"spark-{pyspark.__version__}-{hashlib.sha1(ident.encode()).hexdigest()[:10]}.jsa"
    )


#: Spark's console log: errors only, and not those repeating a failed run's message (the node says it)
LOG_CONFIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "log4j2.properties")

#: Set by ``executor.spark.jvm_archive`` in the Python process that builds the archive: its JVM writes the
#: classes it loaded to this file when it exits.
DUMP_ARCHIVE_TO: str | None = None


def _java_options() -> str:
    """The driver JVM's options: :data:`LOCAL_CONF`'s, and the class archive when there is one (a JVM
    that cannot use it, e.g. after a Java update, starts without it)."""
    options = f"{LOCAL_CONF['spark.driver.extraJavaOptions']} -Dlog4j2.configurationFile={_java_quoted(LOG_CONFIG)}"
    if DUMP_ARCHIVE_TO:
        return f"{options} -XX:ArchiveClassesAtExit={_java_quoted(DUMP_ARCHIVE_TO)}"
    archive = archive_path()
    return f"{options} -XX:SharedArchiveFile={_java_quoted(archive)}" if os.path.isfile(archive) else options


#: Spark's scratch space (shuffle and spill files, broadcast blocks, its own temporary folders): one
#: folder per process under the cache, removed when the process exits and, for a process that died
#: without removing its own, when the next session starts.
SCRATCH_ROOT = os.path.join(CACHE, "spark-scratch")


def scratch_dir() -> str:
    """This process's folder under :data:`SCRATCH_ROOT`."""
    return os.path.join(SCRATCH_ROOT, str(os.getpid()))


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` still runs."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # alive, owned by another user
        return True
    return True


def clean_scratch(root: str | None = None) -> list[str]:
    """Remove the scratch folders of processes that no longer run; the folders removed."""
    return remove_ended_processes_folders(root or SCRATCH_ROOT)


def remove_ended_processes_folders(root: str) -> list[str]:
    """Remove the folders in ``root`` named by the id of a process that no longer runs; the folders removed."""
    removed = []
    try:
        names = os.listdir(root)
    except OSError:
        return removed
    for name in names:
        if name.isdigit() and int(name) != os.getpid() and not pid_alive(int(name)):
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
            removed.append(os.path.join(root, name))
    return removed


def _remove_own_scratch() -> None:
    """At exit: stop the session (its JVM lets go of its files), then remove this process's folder."""
    if os.path.isdir(scratch_dir()):
        with contextlib.suppress(Exception):
            stop_session()
        shutil.rmtree(scratch_dir(), ignore_errors=True)


def _runs_here() -> bool:
    """Whether Spark's work runs in this machine's JVM (a local master or a local Connect server),
    so its scratch space is ours to place and remove."""
    remote, master = settings.SETTINGS.spark_remote, settings.SETTINGS.spark_master
    if remote:
        return remote == "local" or remote.startswith("local[")
    return master.startswith("local")


def _local_conf() -> dict[str, str]:
    conf = {
        **LOCAL_CONF,
        "spark.driver.extraJavaOptions": _java_options(),
        # tables Spark itself would create go to the cache too, not the folder the app was started in
        "spark.sql.warehouse.dir": os.path.join(CACHE, "spark-warehouse"),
    }
    if _runs_here():
        conf["spark.local.dir"] = scratch_dir()
        # Spark puts some folders in the JVM's temporary folder, not its local dir (``artifacts-*``, a
        # ``spark-*``); a JVM that is killed (a stopped run's reaper) leaves them there
        conf["spark.driver.extraJavaOptions"] += f" -Djava.io.tmpdir={_java_quoted(scratch_dir())}"
    return conf


def _java_quoted(path: str) -> str:
    """``path`` as one word of Spark's ``extraJavaOptions`` (split as a shell would)."""
    if not any(c.isspace() or c in "'\"\\" for c in path):
        return path
    escaped = path.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


_scratch_kept = False


def _prepare_scratch() -> None:
    global _scratch_kept
    clean_scratch()
    os.makedirs(scratch_dir(), exist_ok=True)
    if not _scratch_kept:
        atexit.register(_remove_own_scratch)
        _scratch_kept = True


def _spawn_jvm(command: list[str], **kwargs) -> subprocess.Popen:
    """PySpark's ``Popen`` for its JVM, with no Python code run between fork and exec.

    PySpark passes a ``preexec_fn`` (ignore Ctrl-C) that runs Python in the forked copy of a process
    with threads, which Python documents as unsafe: such a child crashed before exec. Here the JVM gets
    a process group of its own instead, which a Ctrl-C at the terminal does not reach either.
    """
    kwargs.pop("preexec_fn", None)
    return subprocess.Popen(command, process_group=0, **kwargs)


def _build() -> SparkSession:
    remote = settings.SETTINGS.spark_remote
    java_gateway.Popen = _spawn_jvm
    builder = SparkSession.builder.appName("substrait-viz")
    _quiet_query_errors()
    if _runs_here():
        _prepare_scratch()
    if remote:
        builder = builder.remote(remote)
        local_server = _runs_here()  # a Connect server started here
        if local_server:
            # in this process's own JVM: the same small-machine settings
            for key, value in _local_conf().items():
                builder = builder.config(key, value)
        with warnings.catch_warnings():
            # the server starts with these settings; the client then re-sets them as session
            # settings and warns for the static ones ("Cannot modify ... spark.driver.memory")
            warnings.filterwarnings("ignore", message="Failed to set spark", category=UserWarning)
            spark = builder.getOrCreate()
        _set_semantics(spark)
        # the client warns in Python of each window without a partition (a plan's window over the whole
        # input is what it says), where the classic session's log is at ERROR
        warnings.filterwarnings("ignore", message=".*No Partition Defined for Window", category=UserWarning)
        if local_server:
            from pyspark import SparkContext

            server = SparkContext._active_spark_context  # the local server's own context, in this process
            if server is not None:
                server.setLogLevel("ERROR")
        return spark
    builder = builder.master(settings.SETTINGS.spark_master)
    for key, value in _local_conf().items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    pin_lookups(spark)
    return spark


def _quiet_query_errors() -> None:
    """PySpark logs every error of an analysed query, as JSON with its Java stack, before raising it;
    the error reaches the person as the node's message, so its log is not printed."""
    from pyspark.logger import PySparkLogger

    for name in ("DataFrameQueryContextLogger", "SQLQueryContextLogger"):
        PySparkLogger.getLogger(name).setLevel(logging.CRITICAL)


def _set_semantics(spark) -> None:
    """:data:`SEMANTICS` on a Connect session (a remote server keeps its own settings otherwise: Spark 4
    has ANSI on, and its time zone is the server's). A server that refuses one is refused: the rows
    would not be the plan's."""
    for key, value in SEMANTICS.items():
        try:
            spark.conf.set(key, value)
            taken = spark.conf.get(key)
        except Exception as exc:  # noqa: BLE001 - the server's refusal, in its words
            raise ExecutionError(
                f"the Spark Connect server did not take the session setting {key}={value}, which the run's "
                f"results depend on: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
            ) from None
        if str(taken).lower() != value.lower():
            raise ExecutionError(
                f"the Spark Connect server keeps {key}={taken}; the run's results depend on {key}={value}"
            )


def can_run(spark: SparkSession) -> bool:
    """Whether a session can still run work: its JVM answers (classic) or it is not stopped (Connect)."""
    try:
        if is_connect(spark):
            return not getattr(spark, "is_stopped", False)
        jsc = spark.sparkContext._jsc
        return jsc is not None and not jsc.sc().isStopped()
    except Exception:  # Py4J connection errors: the JVM is gone
        return False


def _forget_dead_jvm() -> None:
    """Drop PySpark's references to a dead JVM so the next builder starts a fresh one."""
    from pyspark import SparkContext

    for attr in ("_active_spark_context", "_gateway", "_jvm"):
        setattr(SparkContext, attr, None)
    SparkSession._instantiatedSession = None
    SparkSession._activeSession = None
    try:
        SparkSession.clearActiveSession()
        SparkSession.clearDefaultSession()
    except Exception:
        pass


def is_connect(spark) -> bool:
    """Whether ``spark`` is a Spark Connect session (no SparkContext, no JVM in this process)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def get_session() -> SparkSession:
    """The shared session, started on first call (thread-safe).

    If the session died (its JVM crashed or was killed, or it was stopped), a new one is started.
    """
    global _session
    with _lock:
        if _session is not None and not can_run(_session):
            if not is_connect(_session):
                _forget_dead_jvm()
            _session = None
        if _session is None:
            _session = _build()
        return _session


#: The stop signals of the background runs under way (the warm-up's rehearsal, ``executor.spark.rehearsal``)
#: and the count of the runs a person asked for under way. A person's run sets the signals: on a small
#: machine a rehearsal still running when the first Run is clicked would share the cores with that Run
#: and make it several times slower.
_BACKGROUND: set[threading.Event] = set()
_ASKED = 0
_LOCK = threading.Lock()


@contextlib.contextmanager
def in_background():
    """Runs made inside are background ones: the event given (pass it as their ``cancel``) is set as
    soon as a run a person asked for starts, or now if one is under way."""
    stop = threading.Event()
    with _LOCK:
        _BACKGROUND.add(stop)
        if _ASKED:
            stop.set()
    try:
        yield stop
    finally:
        with _LOCK:
            _BACKGROUND.discard(stop)


@contextlib.contextmanager
def asked_for():
    """A run a person asked for is under way: the background runs give way (see :func:`in_background`)."""
    global _ASKED
    with _LOCK:
        _ASKED += 1
        for stop in _BACKGROUND:
            stop.set()
    try:
        yield
    finally:
        with _LOCK:
            _ASKED -= 1


def people_running() -> bool:
    """Whether a run a person asked for is under way."""
    return _ASKED > 0


#: ``SUBSTRAIT_VIZ_WARM_UP=0`` keeps the app from starting Spark before the first run.
WARM_UP = settings.SETTINGS.warm_up
_warming: threading.Thread | None = None  # the one warm-up of this process (a dead JVM is restarted by a run)
_warm_lock = threading.Lock()
warm_up_error: str | None = None


def warm_up_due() -> bool:
    """Whether a warm-up would start now: it is on, and no session and no warm-up exist yet."""
    return WARM_UP and _session is None and _warming is None


def warm_up(data_file: str | None = None, prepare: Callable[[SparkSession], object] | None = None) -> bool:
    """Start the shared session in a background thread (once), so that the first run does not wait
    for the JVM: a person has opened a plan and is reading it. The thread then calls ``prepare(spark)``
    (the open plan's own warm-up), then, unless a person's run has started, runs a small query (a
    read of ``data_file`` when given, a join, an aggregate, a sort) so Spark's first-query costs
    (class loading, code generation) are paid before the click. Never blocks; returns whether a
    warm-up started now. A failure is kept in ``warm_up_error``; the first run then says it."""
    global _warming
    # not the session's lock: get_session holds that for the whole start of the JVM, and a page's
    # rerun must not wait for it
    with _warm_lock:
        if not WARM_UP or _session is not None or _warming is not None:
            return False
        _warming = threading.Thread(target=_warm, args=(data_file, prepare), name="spark-warm-up", daemon=True)
        _warming.start()
        return True


def restart_in_background() -> bool:
    """After the session's JVM was stopped under it (``executor.spark.reaper``): start its successor in
    the background, as :func:`warm_up` starts the first, so the next run does not wait for a JVM.
    Returns whether a start began now (not when the warm-up is off or one is already under way)."""
    global _warming
    with _warm_lock:
        if not WARM_UP or (_warming is not None and _warming.is_alive()):
            return False
        _warming = threading.Thread(target=_warm, args=(None, None), name="spark-restart", daemon=True)
        _warming.start()
        return True


def _warm(data_file: str | None, prepare: Callable[[SparkSession], object] | None = None) -> None:
    global warm_up_error
    try:
        spark = get_session()
        # the open plan first (e.g. translate and rehearse it): a person runs its nodes next, and on a
        # fresh JVM the common shapes below take seconds that would delay them.
        if prepare is not None:
            prepare(spark)
        with in_background() as stop:  # not once a person's run has started: it would share the cores
            if not stop.is_set():
                common_shapes(spark, data_file)
    except Exception as exc:  # noqa: BLE001 - the run that needs Spark reports its own error
        warm_up_error = f"{type(exc).__name__}: {exc}"


def common_shapes(spark: SparkSession, data_file: str | None) -> None:
    """A small join, aggregate and sort, and a read of ``data_file``: Spark's first-query costs (class
    loading, code generation) for the plans opened later."""
    from pyspark.sql import functions as F

    left = spark.range(0, 2000).withColumn("k", F.col("id") % 7)
    right = spark.range(0, 50).withColumnRenamed("id", "k2")
    joined = left.join(right, left["k"] == right["k2"], "inner").groupBy("k").agg(F.sum("id").alias("s"))
    joined.orderBy("k").limit(5).collect()
    if data_file:
        spark.read.parquet(data_file).limit(5).collect()


def peek_session() -> SparkSession | None:
    """The shared session if it is running, else None; never starts one."""
    spark = _session
    return spark if spark is not None and can_run(spark) else None


def is_started() -> bool:
    return _session is not None


def warming() -> bool:
    """A warm-up is starting the session (or preparing on it) in the background."""
    thread = _warming
    return thread is not None and thread.is_alive()


def stop_session() -> None:
    global _session
    with _lock:
        if _session is not None:
            try:
                _session.stop()
            except Exception:  # a dead JVM cannot be stopped politely
                if not is_connect(_session):
                    _forget_dead_jvm()
            _session = None
