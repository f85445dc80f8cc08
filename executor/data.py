"""Sample data that ships with the project: TPC-H generated on first use into a cache folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading

from .errors import ExecutionError

TPCH_TABLES = ("customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier")
CACHE = os.environ.get(
    "SUBSTRAIT_VIZ_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "substrait-viz")
)


def _tpchgen() -> str:
    exe = os.path.join(os.path.dirname(sys.executable), "tpchgen-cli")
    if os.path.exists(exe):
        return exe
    found = shutil.which("tpchgen-cli")
    if not found:
        raise ExecutionError("tpchgen-cli is not installed (it comes with requirements.txt: run `make run` once)")
    return found


_lock = threading.Lock()


def tpch(scale: float = 0.01, cache: str | None = None) -> str:
    """The folder holding TPC-H at ``scale`` as ``NAME.parquet``, generated on first use.

    Safe when several threads or processes ask at once: each generates into its own temporary
    folder and the first to finish publishes it.
    """
    folder = os.path.join(cache or CACHE, f"tpch-sf{scale:g}")
    with _lock:
        if _complete(folder):
            return folder
        tmp = f"{folder}.tmp{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        proc = subprocess.run(
            [_tpchgen(), "parquet", "-s", f"{scale:g}", f"--output-dir={tmp}"],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            shutil.rmtree(tmp, ignore_errors=True)
            raise ExecutionError(f"generating TPC-H at scale {scale:g} failed: {proc.stderr.strip()[-500:]}")
        if _complete(folder):  # another process published first
            shutil.rmtree(tmp, ignore_errors=True)
            return folder
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(tmp, folder)
        return folder


def _complete(folder: str) -> bool:
    return all(os.path.exists(os.path.join(folder, f"{t}.parquet")) for t in TPCH_TABLES)
