"""The same translation through Spark Connect: a real plan gives the same rows as on the classic
session, its profile the same counts (observed through Connect), and a timeout stops a Connect run too.

A Connect session cannot live in this process next to the classic one, so a subprocess starts
``SPARK_REMOTE=local`` (a local Connect server) and runs the plans with ``run_node``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from executor.data.catalog import Catalog
from executor.jobs.run import clear_cache, run_node
from tests.support import CORPORA
from tests.support import ROOT as REPO
from viz.model import analyze

PLANS = [
    os.path.join(CORPORA, "isthmus-tpch", "query_03_plan.json"),  # joins, aggregate, sort, fetch
    os.path.join(CORPORA, "isthmus-tpch", "query_01_plan.json"),  # decimal aggregates
]

#: SQL whose rows on Connect were not the classic session's: a date in the calendar gap of October 1582
#: (the client made 1582-10-10 the 15th) and the mean of a median's two middle decimals (the client
#: typed its 0.5 decimal(10,1), and Spark cut the product to 6 places). And a double's text, one call by
#: reflection where Spark takes it and Spark's own expressions where it refuses that (an aggregate's
#: argument): Connect analyzes a plan only when asked.
MADE = [
    "SELECT DATE '1582-10-10' AS gap, DATE '0001-01-01' AS first FROM region WHERE r_regionkey = 0",
    "SELECT median(x) AS m FROM (VALUES (CAST('1.0000000001' AS DECIMAL(38,10))), "
    "(CAST('2.0000000002' AS DECIMAL(38,10)))) t(x)",
    "SELECT CAST(5.974483686777364e17 + CAST(r_regionkey AS DOUBLE) AS VARCHAR) AS t FROM region WHERE r_regionkey = 0",
    "SELECT max(CAST(5.974483686777364e17 + CAST(r_regionkey AS DOUBLE) AS VARCHAR)) AS m FROM region",
]

SCRIPT = r"""
import json, os, sys, time
from executor.jobs import run as run_mod
from executor.__main__ import json_value
from executor.data.catalog import Catalog
from executor.errors import ExecutionError
from executor.jobs.run import TimedOut, run_node
from executor.spark.session import get_session, is_connect
from viz.model import analyze

tpch_dir, plans = sys.argv[1], sys.argv[2:]
MADE = json.loads(os.environ["MADE"])
spark = get_session()
catalog = Catalog([tpch_dir])
from executor.spark.session import SEMANTICS
out = {"connect": is_connect(spark), "results": [], "semantics": {k: spark.conf.get(k) for k in SEMANTICS}}
for path in plans:
    result = run_node(analyze(open(path, "rb").read()), "0", catalog=catalog, limit=50, count=True)
    rows = [[json_value(v) for v in r] for r in zip(*[c.to_pylist() for c in result.arrow.columns])]
    out["results"].append({"columns": result.columns, "types": result.types, "rows": rows,
                           "row_count": result.row_count, "explain": result.explain})

# values whose literal the Connect client builds otherwise than the classic session (the checks found them)
from executor.engines.sql_plan import catalog_tables, sql_to_plan
tables = catalog_tables(catalog)
out["made"] = []
for sql in MADE:
    made = sql_to_plan(sql, tables, json=True, form="written")
    result = run_node(analyze(made.data), "0", catalog=catalog, limit=10)
    out["made"].append([[json_value(v) for v in r] for r in zip(*[c.to_pylist() for c in result.arrow.columns])])

from executor.jobs.profile import profile_plan
profile = profile_plan(analyze(open(plans[0], "rb").read()), catalog)
out["profile"] = {n: [p.rows, p.how, p.error] for n, p in profile.nodes.items()}
class Slow:
    def __init__(self, df): self.df, self.names, self.warnings = df, ["total"], []

from pyspark.sql import functions as F
run_mod.clear_cache()  # no translation kept from the runs above
run_mod._translate = lambda model, node, spark, cat: Slow(
    spark.range(0, 10**12, numPartitions=4).select(F.sum("id").alias("_0"))
)
start = time.monotonic()
try:
    run_node(analyze(open(plans[0], "rb").read()), "0.0", catalog=catalog, timeout_s=2)
    out["timeout"] = "not stopped"
except TimedOut as exc:
    out["timeout"] = str(exc)
out["timeout_s"] = time.monotonic() - start
out["after"] = spark.range(4).count()
print("RESULT " + json.dumps(out))
"""


def test_connect_gives_the_same_rows_as_classic(spark, tpch_dir):
    env = dict(os.environ, SPARK_REMOTE="local", PYTHONPATH=REPO, MADE=json.dumps(MADE))
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, tpch_dir, *PLANS],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=300,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, proc.stderr[-3000:]
    remote = json.loads(lines[0][len("RESULT ") :])
    assert remote["connect"] is True
    from executor.spark.session import SEMANTICS

    # the settings the rows depend on, on the Connect session too (a remote server keeps its own otherwise)
    assert {k: str(v).lower() for k, v in remote["semantics"].items()} == {k: v.lower() for k, v in SEMANTICS.items()}

    from executor.__main__ import json_value

    clear_cache()
    catalog = Catalog([tpch_dir])
    for path, got in zip(PLANS, remote["results"], strict=True):
        local = run_node(analyze(open(path, "rb").read()), "0", catalog=catalog, limit=50, count=True)
        rows = [[json_value(v) for v in r] for r in zip(*[c.to_pylist() for c in local.arrow.columns])]
        assert got["columns"] == local.columns and got["types"] == local.types, path
        assert got["row_count"] == local.row_count and len(rows) > 0, path
        assert got["rows"] == rows, path  # both plans end in a total sort: the same order too
        assert "Scan parquet" in got["explain"] or "parquet" in got["explain"].lower()
    # DataFusion's engine gives these (its mean of 1.0000000001 and 2.0000000002 cut to the scale, 10;
    # the double's text, where Java 17 writes ...365E17)
    assert remote["made"] == [
        [["1582-10-10", "0001-01-01"]],
        [["1.5000000001"]],
        [["5.974483686777364e17"]],
        [["5.974483686777364e17"]],
    ], remote["made"]
    # the profile observes the nodes through Connect too, with the classic session's counts
    from executor.jobs.profile import clear_cache as clear_profiles
    from executor.jobs.profile import profile_plan

    clear_profiles()
    local = profile_plan(analyze(open(PLANS[0], "rb").read()), catalog)
    assert {n: rows for n, (rows, _, _) in remote["profile"].items()} == {n: p.rows for n, p in local.nodes.items()}
    assert all(error is None for _, _, error in remote["profile"].values())
    assert {how for _, how, _ in remote["profile"].values()} >= {"run", "reads", "derived"}
    assert remote["timeout"].startswith("the run of node 0.0 was timed out after 2 s")
    assert remote["timeout_s"] < 30 and remote["after"] == 4


def test_a_connect_server_that_keeps_a_setting_the_rows_depend_on_is_refused():
    import pytest

    from executor.errors import ExecutionError
    from executor.spark.session import _set_semantics

    class Conf:
        def __init__(self, refuses: str | None, keeps: dict[str, str]):
            self.refuses, self.values = refuses, dict(keeps)

        def set(self, key, value):
            if key == self.refuses:
                raise RuntimeError("[CANNOT_MODIFY_CONFIG] Cannot modify the value of the Spark config")
            self.values.setdefault(key, value)

        def get(self, key):
            return self.values[key]

    class Session:
        def __init__(self, conf):
            self.conf = conf

    _set_semantics(Session(Conf(None, {})))  # a server that takes them all
    with pytest.raises(ExecutionError, match=r"did not take the session setting spark.sql.ansi.enabled=false"):
        _set_semantics(Session(Conf("spark.sql.ansi.enabled", {})))
    with pytest.raises(ExecutionError, match=r"keeps spark.sql.session.timeZone=Europe/Paris"):
        _set_semantics(Session(Conf(None, {"spark.sql.session.timeZone": "Europe/Paris"})))
