"""Fixtures of the browser tests: the app served by ``streamlit run`` (one server for all the modules
with the same settings, or a fresh one for a module that asks for it), and a large plan to draw."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager

import pytest

from tests.support import ROOT, SHARED
from tests.support.browser import CHROMIUM


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def _serve(spark_in_background: bool) -> Iterator[str]:
    """``streamlit run app.py`` on a free port, while the context lasts."""
    port = _free_port()
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    if not spark_in_background:
        env["SUBSTRAIT_VIZ_WARM_UP"] = "0"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            os.path.join(ROOT, "app.py"),
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                urllib.request.urlopen(url + "/_stcore/health", timeout=2)
                break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail("streamlit exited: " + proc.stdout.read().decode(errors="replace")[-2000:])
                time.sleep(0.5)
        else:
            pytest.fail("streamlit did not start within 60 s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="package")
def _shared_servers() -> Iterator[Callable[[bool], str]]:
    """The servers the browser modules share, by whether Spark starts in the background, each started
    at its first module's first test and stopped after the package's last: every session of a server
    has its own state, so modules need not each wait for a server (and a JVM) of their own."""
    urls: dict[bool, str] = {}
    with ExitStack() as servers:

        def url(spark_in_background: bool) -> str:
            if spark_in_background not in urls:
                urls[spark_in_background] = servers.enter_context(_serve(spark_in_background))
            return urls[spark_in_background]

        yield url


@pytest.fixture(scope="module")
def app_url(request):
    """The app's URL. A module whose tests never run a node sets ``SPARK_IN_BACKGROUND = False``: its
    server starts Spark at a first Run only, as ``SUBSTRAIT_VIZ_WARM_UP=0`` says, so that no JVM
    starts and rehearses beside its pages. A module that sets ``FRESH_SERVER = True`` gets a server of
    its own, whose first request is its first test's."""
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        pytest.skip(
            f"no Chromium at {CHROMIUM}: install Debian's chromium (make test does it when it runs as root with apt)"
        )
    pytest.importorskip("playwright", reason="playwright is in requirements.txt: run make test")
    spark_in_background = getattr(request.module, "SPARK_IN_BACKGROUND", True)
    if getattr(request.module, "FRESH_SERVER", False):
        with _serve(spark_in_background) as url:
            yield url
    else:
        yield request.getfixturevalue("_shared_servers")(spark_in_background)


@pytest.fixture(scope="module")
def q64_plan(tmp_path_factory) -> str:
    """TPC-DS query 64 planned by DataFusion over TPC-DS at scale 0.01 (92 relations)."""
    from executor.data.generate import tpcds
    from executor.engines.sql_plan import sql_to_plan
    from executor.producer.check import read_queries

    data_dir = tpcds(0.01)
    tables = {os.path.splitext(f)[0]: os.path.join(data_dir, f) for f in os.listdir(data_dir) if f.endswith(".parquet")}
    [query] = [q for q in read_queries([os.path.join(SHARED, "corpora", "tpcds-sql")]) if q.name == "64"]
    path = tmp_path_factory.mktemp("zoom") / "tpcds_q64_datafusion.json"
    path.write_bytes(sql_to_plan(query.sql, tables).data)
    return str(path)
