"""Build the class archive of Spark's JVM (``executor.spark.session.archive_path``), once per PySpark and Java.

``python -m executor.spark.jvm_archive`` (``make run`` and ``make test`` run it in their set-up) starts, in a
Python process of its own, a session whose JVM has ``-XX:ArchiveClassesAtExit``, runs a few first
queries (the warm-up's common shapes, a parquet write and read), and stops it; the JVM writes the
classes it loaded when it exits. The file is moved into place only when that process ended well, so
a session never maps half an archive (and a JVM given an archive it cannot use starts without it).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

from .session import archive_path, pid_alive

#: The project's root, where ``-m executor.spark.jvm_archive`` is found.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def build(timeout_s: float = 600) -> str:
    """Build the archive now; its path. Raises RuntimeError when the JVM wrote none."""
    path = archive_path()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    partial = f"{path}.{os.getpid()}.partial"
    try:
        done = subprocess.run(
            [sys.executable, "-m", "executor.spark.jvm_archive", "--dump", partial],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            cwd=ROOT,
        )
        if done.returncode != 0 or not os.path.isfile(partial) or os.path.getsize(partial) == 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise RuntimeError(f"the JVM wrote no class archive (exit code {done.returncode}): {' / '.join(tail)}")
        os.replace(partial, path)
        return path
    finally:
        if os.path.exists(partial):
            os.remove(partial)


def _dump(to: str) -> None:
    """In the building process: a session whose JVM writes its loaded classes to ``to`` at exit."""
    from pyspark.sql import functions as F

    from . import session

    session.DUMP_ARCHIVE_TO = to
    spark = session.get_session()
    session.common_shapes(spark, None)
    with tempfile.TemporaryDirectory(prefix="jvm-archive-") as folder:
        table = os.path.join(folder, "t.parquet")
        ids = F.col("id")
        spark.range(0, 100).select(
            ids, ids.cast("string").alias("s"), ids.cast("decimal(10,2)").alias("d")
        ).write.parquet(table)
        spark.read.parquet(table).where(F.col("id") > 3).groupBy("s").count().collect()
    jvm = spark.sparkContext._gateway.proc
    session.stop_session()
    jvm.stdin.close()  # the JVM ends when its stdin closes, writing the archive first
    jvm.wait(timeout=300)


def remove_old(path: str | None = None) -> list[str]:
    """Remove the archives of other PySpark or Java versions beside ``path`` (the current one), and
    partial ones whose builder no longer runs; the files removed."""
    path = path or archive_path()
    folder, removed = os.path.dirname(path), []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        full = os.path.join(folder, name)
        if full == path or not name.startswith("spark-"):
            continue
        if name.endswith(".jsa") or (name.endswith(".partial") and not _builder_alive(name)):
            try:
                os.remove(full)
                removed.append(full)
            except OSError:
                pass
    return removed


def _builder_alive(partial_name: str) -> bool:
    """Whether the process that writes ``<archive>.<pid>.partial`` still runs."""
    pid = partial_name.rsplit(".", 2)[-2]
    return pid.isdigit() and pid_alive(int(pid))


def main(argv: list[str]) -> int:
    if argv[:1] == ["--dump"]:
        _dump(argv[1])
        return 0
    start = time.monotonic()
    path = archive_path()
    for old in remove_old(path):
        print(f"removed an old class archive of Spark's JVM: {old}")
    if os.path.isfile(path):
        print(f"Spark's class archive: {path}")
        return 0
    try:
        build()
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        print(f"no class archive for Spark's JVM (its sessions start without one, a few seconds slower): {exc}")
        return 0
    print(f"Spark's class archive built in {time.monotonic() - start:.0f} s: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
