"""Write DataFusion's Substrait plans for the TPC-H queries of consumer-testing, as protobuf JSON.

Run from the repository root::

    .venv/bin/python tests/data/datafusion_tpch/make_plans.py

The SQL is ``../shared/corpora/consumer-testing/testdata/integration/tpch/qNN.sql``, whose
``'{table}'`` placeholders become the table names registered here (TPC-H scale 0.01 parquet from
``executor.data.generate.tpch``, which gives DataFusion the column names and types). Each plan is made by
DataFusion's own producer (``datafusion.substrait.Producer``) and written as ``qNN.json``; the
queries it cannot produce are listed in ``failures.txt`` with DataFusion's message.
"""

from __future__ import annotations

import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SQL_DIR = os.path.join(ROOT, "..", "shared", "corpora", "consumer-testing", "testdata", "integration", "tpch")
TABLES = ("customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier")


def sql_of(path: str) -> str:
    """The query text with ``'{table}'`` placeholders replaced by the bare table name."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    return re.sub(r"'\{(\w+)\}'", r"\1", text).strip().rstrip(";")


def main() -> int:
    sys.path.insert(0, ROOT)
    import datafusion
    from datafusion import SessionContext
    from datafusion import substrait as ss
    from google.protobuf import json_format
    from substrait import plan_pb2

    from executor.data.generate import tpch
    from viz.model import analyze

    data = tpch(0.01)
    ctx = SessionContext()
    for t in TABLES:
        ctx.register_parquet(t, os.path.join(data, f"{t}.parquet"))
    failures = []
    for path in sorted(glob.glob(os.path.join(SQL_DIR, "q*.sql"))):
        name = os.path.splitext(os.path.basename(path))[0]
        try:
            plan = ss.Producer.to_substrait_plan(ctx.sql(sql_of(path)).logical_plan(), ctx)
            proto = plan_pb2.Plan()
            proto.ParseFromString(plan.encode())
            text = json_format.MessageToJson(proto, indent=2)
        except Exception as exc:  # DataFusion raises its own exception types; record and go on
            failures.append(f"{name}: {type(exc).__name__}: {str(exc).splitlines()[0][:300]}")
            continue
        model = analyze(text.encode())
        errors = [d for d in model.all_diagnostics() if d.severity.value == "error"]
        if errors:
            failures.append(
                f"{name}: written, but viz finds {len(errors)} error(s): {errors[0].code}: {errors[0].message}"
            )
        with open(os.path.join(HERE, f"{name}.json"), "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
        print(f"{name}: {len(model.graph.nodes)} nodes")
    with open(os.path.join(HERE, "failures.txt"), "w", encoding="utf-8") as fh:
        fh.write(f"# DataFusion {datafusion.__version__}: TPC-H queries not produced (or produced with errors)\n")
        fh.writelines(line + "\n" for line in failures)
    print("\n".join(failures) or "no failures")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
