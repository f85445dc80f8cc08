"""Sample data that ships with the project: TPC-H generated on first use into a cache folder."""

from __future__ import annotations

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

    Safe when several threads or processes ask at once: each generates into its own temporary
    folder and the first to finish publishes it.
    """
    command = [_generator("tpchgen-cli"), "parquet", "-s", f"{scale:g}"]
    return _generate("TPC-H", os.path.join(cache or CACHE, f"tpch-sf{scale:g}"), command, TPCH_TABLES, scale)


def tpcds(scale: float = 0.01, cache: str | None = None) -> str:
    """The folder holding TPC-DS at ``scale`` as ``NAME.parquet`` (``tpcgen-cli``), generated on first use."""
    command = [_generator("tpcgen-cli"), "tpcds", "parquet", "-s", f"{scale:g}"]
    return _generate("TPC-DS", os.path.join(cache or CACHE, f"tpcds-sf{scale:g}"), command, TPCDS_TABLES, scale)


def _generate(what: str, folder: str, command: list[str], tables: tuple[str, ...], scale: float) -> str:
    with _lock:
        if _complete(folder, tables):
            return folder
        tmp = f"{folder}.tmp{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        proc = subprocess.run(
            [*command, f"--output-dir={tmp}"],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            shutil.rmtree(tmp, ignore_errors=True)
            raise ExecutionError(f"generating {what} at scale {scale:g} failed: {proc.stderr.strip()[-500:]}")
        if not _complete(folder, tables):
            shutil.rmtree(folder, ignore_errors=True)  # a partial folder of an older version or a failed run
            try:
                os.rename(tmp, folder)  # fails when another process published meanwhile: its folder is kept
            except OSError:
                if not _complete(folder, tables):
                    raise
        shutil.rmtree(tmp, ignore_errors=True)
        return folder


def _complete(folder: str, tables: tuple[str, ...] = TPCH_TABLES) -> bool:
    return all(os.path.exists(os.path.join(folder, f"{t}.parquet")) for t in tables)
