"""The one shared Spark session, started lazily on first use.

``SPARK_REMOTE=sc://host:port`` connects through Spark Connect; ``SPARK_MASTER`` picks a cluster
master; otherwise a ``local[*]`` session with memory settings for a small machine is started.
The translation uses only the DataFrame API, so the same code runs on both kinds of session.
"""

from __future__ import annotations

import os
import threading

from pyspark.sql import SparkSession

_lock = threading.Lock()
_session: SparkSession | None = None

LOCAL_CONF = {
    "spark.driver.memory": os.environ.get("SPARK_DRIVER_MEMORY", "2g"),
    "spark.sql.shuffle.partitions": "4",
    "spark.default.parallelism": "4",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.ansi.enabled": "false",
    "spark.driver.extraJavaOptions": "-Duser.timezone=UTC",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
}


def _build() -> SparkSession:
    remote = os.environ.get("SPARK_REMOTE")
    builder = SparkSession.builder.appName("substrait-viz")
    if remote:
        return builder.remote(remote).getOrCreate()
    builder = builder.master(os.environ.get("SPARK_MASTER", "local[*]"))
    for key, value in LOCAL_CONF.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def get_session() -> SparkSession:
    """The shared session, started on first call (thread-safe)."""
    global _session
    with _lock:
        if _session is None:
            _session = _build()
        return _session


def is_started() -> bool:
    return _session is not None


def stop_session() -> None:
    global _session
    with _lock:
        if _session is not None:
            _session.stop()
            _session = None
