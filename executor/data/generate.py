"""Sample data that ships with the project: TPC-H generated on first use into a cache folder."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import threading

from ..errors import ExecutionError
from ..settings import SETTINGS

TPCH_TABLES = ("customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier")
TPCDS_TABLES = (
    "call_center",
    "catalog_page",
    "catalog_returns",
    "catalog_sales",
    "customer",
    "customer_address",
    "customer_demographics",
    "date_dim",
    "household_demographics",
    "income_band",
    "inventory",
    "item",
    "promotion",
    "reason",
    "ship_mode",
    "store",
    "store_returns",
    "store_sales",
    "time_dim",
    "warehouse",
    "web_page",
    "web_returns",
    "web_sales",
    "web_site",
)
#: Where generated data and the app's other files are kept (``SUBSTRAIT_VIZ_CACHE``, :mod:`executor.settings`).
CACHE = SETTINGS.cache


def _generator(name: str) -> str:
    exe = os.path.join(os.path.dirname(sys.executable), name)
    if os.path.exists(exe):
        return exe
    found = shutil.which(name)
    if not found:
        raise ExecutionError(f"{name} is not installed (it comes with requirements.txt: run `make run` once)")
    return found


_lock = threading.Lock()


def tpch(scale: float = 0.01, cache: str | None = None) -> str:
    """The folder holding TPC-H at ``scale`` as ``NAME.parquet``, generated on first use.

    Safe when several threads or processes ask at once: one generates it (into a temporary folder,
    published whole), the others wait for it and use it.
    """
    command = [_generator("tpchgen-cli"), "parquet", "-s", f"{scale:g}"]
    return _generate("TPC-H", os.path.join(cache or CACHE, f"tpch-sf{scale:g}"), command, TPCH_TABLES, scale)


def tpcds(scale: float = 0.01, cache: str | None = None) -> str:
    """The folder holding TPC-DS at ``scale`` as ``NAME.parquet`` (``tpcgen-cli``), generated on first use."""
    command = [_generator("tpcgen-cli"), "tpcds", "parquet", "-s", f"{scale:g}"]
    return _generate("TPC-DS", os.path.join(cache or CACHE, f"tpcds-sf{scale:g}"), command, TPCDS_TABLES, scale)


def _generate(what: str, folder: str, command: list[str], tables: tuple[str, ...], scale: float) -> str:
    # one process generates, under a lock on a file beside the folder; another asking meanwhile waits for it
    if _complete(folder, tables):  # published whole, so a reader needs no lock (the cache may be read-only)
        return folder
    os.makedirs(os.path.dirname(folder), exist_ok=True)
    with _lock, open(f"{folder}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _complete(folder, tables):
            return folder
        parent, stem = os.path.split(folder)
        for left in os.listdir(parent):  # a generating process that was killed left its copy: nobody else is
            if left.startswith(f"{stem}.tmp"):
                shutil.rmtree(os.path.join(parent, left), ignore_errors=True)
        tmp = f"{folder}.tmp{os.getpid()}"
        os.makedirs(tmp)
        try:
            proc = subprocess.run([*command, f"--output-dir={tmp}"], capture_output=True, text=True)
            if proc.returncode != 0:
                raise ExecutionError(f"generating {what} at scale {scale:g} failed: {proc.stderr.strip()[-500:]}")
            shutil.rmtree(folder, ignore_errors=True)  # a partial folder: a run that died, or an older version
            os.replace(tmp, folder)  # whole or not at all: a reader never sees it half written
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return folder


def _complete(folder: str, tables: tuple[str, ...] = TPCH_TABLES) -> bool:
    return all(os.path.exists(os.path.join(folder, f"{t}.parquet")) for t in tables)
