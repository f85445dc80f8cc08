"""``python -m executor run|profile|bisect|portability|check``: run plans (or one node of each) on Spark
and print the rows, count every node's rows, find the first node where Spark and DataFusion disagree,
say which nodes each engine can run, or check DataFusion's plans of SQL against DataFusion's own results."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from decimal import Decimal

from .engines.rows import exact_values, json_value, months_duration
from .engines.sql_plan import FORMS
from .errors import ExecutionError
from .producer.check import JOBS as CHECK_JOBS

EPILOG = """\
data access:
  Plans read only under the data roots. A root is each --data-dir, the generated TPC-H or
  TPC-DS folder with --tpch or --tpcds, and each path given with
  --table NAME=PATH (that file or folder only, not its siblings: you named it, so it is allowed;
  a plan's LocalFiles still may not read beside it).
  With no root, no file can be read. `..`, links leaving a root (or inside a folder read),
  other URI schemes (http, s3, hdfs...) and globs reaching outside are refused.

  Named tables resolve case-insensitively: --table bindings first (the full dotted name, then
  its last part), then NAME.parquet / .csv / .tsv / .orc / .arrow / a folder NAME/ in a data dir.

output (--format):
  table  a text table per plan, under a line `== FILE node N: shown/total rows in S s`
  json   one object per plan, one per line: {"file", "node", "columns": ["[i] name"],
         "types": [Spark types], "rows": [[...]], "row_count" (null when not known),
         "truncated", "elapsed_s" (execution only, not session start or translation),
         "warnings"}, or {"file", "error", "error_type"} for a plan that failed.
         Values are JSON-safe: decimals are strings (exact), dates and timestamps ISO 8601
         strings, intervals ISO 8601 durations, binary base64 strings, NaN / Infinity as the
         strings "NaN", "Infinity", "-Infinity", structs objects, maps lists of [key, value].
  csv    per plan, a line `# FILE` then the rows as CSV with a header of the column names (a name
         repeated gets its position); a list, struct or map value is its JSON, as above

exit status: 0 when every plan ran, 1 when one failed to run, 2 for bad input (unreadable file,
not a plan, unknown node, bad arguments).
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m executor",
        description="Run Substrait plans, or one node's subtree, on Spark.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", required=True)
    p.set_defaults(commands=sub.choices)  # a command's own usage for its stray arguments (main)
    r = sub.add_parser(
        "run",
        help="run plans and print their rows",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("plans", nargs="+", metavar="PLAN", help="plan files (protobuf JSON or binary)")
    r.add_argument("--node", default=None, help="node id to run (default: the plan's first root)")
    r.add_argument("--limit", type=_non_negative, default=100, help="rows to print (default 100)")
    r.add_argument("--count", action="store_true", help="also count all rows exactly")
    _data_arguments(r)
    r.add_argument("--format", choices=("table", "json", "csv"), default="table")
    r.add_argument("--timeout", type=_seconds, default=None, metavar="S", help="stop a plan's run after S seconds")
    pr = sub.add_parser(
        "profile",
        help="count every node's rows, in one run of the plan where one can answer",
        description=PROFILE_DESCRIPTION,
        epilog=PROFILE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    pr.add_argument("plans", nargs="+", metavar="PLAN", help="plan files (protobuf JSON or binary)")
    _data_arguments(pr)
    pr.add_argument("--format", choices=("table", "json"), default="table")
    pr.add_argument("--timeout", type=_seconds, default=None, metavar="S", help="stop a plan's profile after S seconds")
    pr.add_argument(
        "--per-node",
        action="store_true",
        help="count every node in a Spark job of its own (slower; the way to compare with)",
    )
    b = sub.add_parser(
        "bisect",
        help="run a plan on Spark and on DataFusion, node by node, and find the first node where they disagree",
        description=BISECT_DESCRIPTION,
        epilog=BISECT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    b.add_argument("plan", metavar="PLAN", help="a plan file (protobuf JSON or binary)")
    b.add_argument("--node", default=None, help="walk this node's subtree (default: the plan's first root)")
    _data_arguments(b)
    b.add_argument(
        "--max-rows",
        type=_positive,
        default=100_000,
        metavar="N",
        help="rows taken from each engine per node; a node with more on both is not compared (default 100000)",
    )
    b.add_argument("--format", choices=("table", "json"), default="table")
    b.add_argument(
        "--timeout", type=_seconds, default=None, metavar="S", help="stop a node's Spark run after S seconds"
    )
    po = sub.add_parser(
        "portability",
        help="say, before running, which nodes Spark and DataFusion can run, and why not",
        description=PORTABILITY_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    po.add_argument("plans", nargs="+", metavar="PLAN", help="plan files (protobuf JSON or binary)")
    _data_arguments(po)
    po.add_argument("--format", choices=("table", "json"), default="table")
    po.add_argument("--no-types", action="store_true", help="leave out the column types each engine gives")
    po.add_argument("--no-plans", action="store_true", help="leave out each engine's physical plan per node")
    po.add_argument("--html", metavar="FILE", help="also write the HTML report with the engines' findings (one plan)")
    c = sub.add_parser(
        "check",
        help="plan SQL with DataFusion's Substrait producer and check the plans against DataFusion's own results",
        description=(
            "For each query: DataFusion plans it and writes Substrait; the plan's root schema must equal "
            "DataFusion's result schema (names and type kinds) with no column of unknown type anywhere; "
            "the plan runs on Spark and its rows must equal DataFusion's rows on the same files (DuckDB "
            "says which engine is wrong when they differ). Exit status 0 when every query is right, 1 "
            "when one is not, 2 for bad input."
        ),
    )
    c.add_argument(
        "sql", nargs="+", metavar="SQL", help=".sql files or folders (a file may hold several `-- name:` queries)"
    )
    data = c.add_mutually_exclusive_group(required=True)
    data.add_argument("--tpch", type=_scale, metavar="SF", help="TPC-H at scale SF (generated on first use)")
    data.add_argument("--tpcds", type=_scale, metavar="SF", help="TPC-DS at scale SF (generated on first use)")
    data.add_argument("--data-dir", metavar="DIR", help="a folder of NAME.parquet tables")
    c.add_argument("--query", action="append", default=[], metavar="NAME", help="only these queries (repeatable)")
    c.add_argument("--no-run", action="store_true", help="check the plans' schemas only, without Spark")
    c.add_argument(
        "--format",
        choices=("table", "json"),
        default="table",
        help="table: a Markdown table; json: one object per query per line",
    )
    c.add_argument(
        "--timeout", type=_seconds, default=300, metavar="S", help="stop a query's Spark run after S seconds"
    )
    c.add_argument("--save-plans", metavar="DIR", help="write each produced plan to DIR/QUERY.json (to inspect or run)")
    c.add_argument(
        "--jobs",
        type=_positive,
        default=CHECK_JOBS,
        metavar="N",
        help=f"queries checked at once on Spark (default {CHECK_JOBS}: each waits on round trips more than on cores)",
    )
    c.add_argument(
        "--form",
        action="append",
        choices=FORMS,
        metavar="FORM",
        help="the logical plan DataFusion's producer is given (repeatable; default analyzed): "
        "written (df.logical_plan(), implicit coercions and all), analyzed (the analyzer's "
        "casts made explicit), optimized",
    )
    return p


#: The scale of the TPC-H and TPC-DS tables ``--tpch`` and ``--tpcds`` bind without ``--scale``.
DEFAULT_SCALE = 0.01


def _data_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data-dir", action="append", default=[], metavar="DIR", help="a data root (repeatable)")
    p.add_argument("--table", action="append", default=[], metavar="NAME=PATH", help="bind a table (repeatable)")
    p.add_argument("--tpch", action="store_true", help="bind the TPC-H tables (generated on first use)")
    p.add_argument("--tpcds", action="store_true", help="bind the TPC-DS tables (generated on first use)")
    p.add_argument(
        "--scale",
        type=_scale,
        metavar="SF",
        help=f"the scale of the --tpch and --tpcds tables (default {DEFAULT_SCALE})",
    )
    p.add_argument(
        "--by-position",
        action="append",
        default=[],
        metavar="NAME",
        help="read table NAME's columns by position when their names are not the plan's (repeatable; "
        "otherwise such a table is refused)",
    )


PROFILE_DESCRIPTION = """Count the rows of every node of each plan on Spark. The reads are counted together in one job;
then the plan runs once with a row-count observation on each other node; a node whose rows follow
from its inputs' (a Project, a Sort, a Fetch, a join without a condition, ...) is not observed but
computed, so a cross product whose condition sits in a filter above is never executed; only a node
one run cannot answer (below a Fetch, or removed by Spark's optimizer) is counted in a job of its
own."""

PROFILE_EPILOG = """output (--format):
  table  per plan, a line `== FILE: C of N nodes counted in S s (J Spark jobs)`, then one line per
         node: its id, relation, rows, how it was counted (reads' count: with every read in one
         job; run of N: observed in the run of node N; derived: from its inputs' rows; own count:
         its own job), the seconds of the job when it is the node's own (an own count, the node a
         run ran), flags (empty, exploded) and why it was not counted
  json   one object per plan, one per line: {"file", "elapsed_s", "jobs", "stopped", "nodes":
         [{"node", "relation", "rows", "seconds", "how", "run_of", "flags", "error", "skipped"}]},
         or {"file", "error", "error_type"} for a plan that could not be read. "how" is "reads",
         "run", "derived" or "count"; "seconds" is the time of the execution that counted the
         node (shared by the nodes of one run or of the reads' job; 0 when derived; null when
         not counted).

exit status: 0 when every node outside a correlated subquery was counted, 1 when one failed or the profile
was stopped, 2 for bad input (unreadable file, not a plan, bad arguments).
"""


def _profile(args, out, err) -> int:
    from viz.render import title

    from .jobs.profile import SUBQUERY_SKIP, profile_plan

    def each(file, model, _node, catalog) -> int:
        profile = profile_plan(model, catalog, timeout_s=args.timeout, one_run=not args.per_node)
        nodes = [
            {
                "node": n,
                "relation": p.kind,  # as bisect, portability and viz inspect --json name it
                "rows": p.rows,
                "seconds": None if p.elapsed_s is None else round(p.elapsed_s, 6),
                "how": p.how,
                "run_of": p.run_of,
                "flags": p.flags,
                "error": p.error,
                "skipped": p.skipped,
            }
            for n, p in profile.nodes.items()
        ]
        failed = profile.stopped is not None or any(
            p.error or (p.skipped and p.skipped != SUBQUERY_SKIP) for p in profile.nodes.values()
        )
        if args.format == "json":
            print(
                json.dumps(
                    {
                        "file": file,
                        "elapsed_s": round(profile.elapsed_s, 6),
                        "jobs": profile.jobs,
                        "stopped": profile.stopped,
                        "nodes": nodes,
                    }
                ),
                file=out,
            )
            return 1 if failed else 0
        counted = sum(1 for p in profile.nodes.values() if p.rows is not None)
        print(
            f"== {file}: {counted} of {len(nodes)} nodes counted in {profile.elapsed_s:.2f} s "
            f"({profile.jobs} Spark job{'s' if profile.jobs != 1 else ''})",
            file=out,
        )
        if profile.stopped:
            print(f"   [warning] the profile was {profile.stopped}", file=out)
        width = max(len(n["node"]) for n in nodes)
        wide = max([18] + [len(f"{n['rows']:,}") for n in nodes if n["rows"] is not None])
        for n, p in zip(nodes, profile.nodes.values()):
            how = {
                "run": f"run of {n['run_of']}",
                "reads": "reads' count",
                "derived": "derived",
                "count": "own count",
            }.get(n["how"] or "", "")
            rows = "-" if n["rows"] is None else f"{n['rows']:,}"
            seconds = f"{n['seconds']:.2f} s" if p.own_figure else ""
            note = n["error"] or n["skipped"] or ", ".join(n["flags"])
            print(
                f"  {n['node']:<{width}}  {title(p.kind):<14} {rows:>{wide}}  {how:<16} {seconds:>9}  {note}".rstrip(),
                file=out,
            )
        return 1 if failed else 0

    return _over_plans(args, out, err, each)


BISECT_DESCRIPTION = """\
Run the plan (or the subtree under --node) bottom-up on Spark (the executor's translation) and on
DataFusion (its Substrait consumer), on the same files, and stop at the first node whose outputs
differ while its inputs agree. Rows are compared as multisets by position (numbers by value, floats
to 1e-6 relative, decimals to one unit in the last place), ordered nodes in their sort keys' order too.
A node DataFusion (or Spark) cannot take is listed with the reason and the walk goes on."""

BISECT_EPILOG = """output (--format):
  table  a line `== PLAN: ...` with the verdict, one line per node compared (id, relation, verdict,
         seconds, why), then for the first disagreement its expressions, both engines' row counts and
         the rows only one engine returns
  json   one object: {"file", "start", "agree", "first", "unchecked_inputs", "elapsed_s", "stopped",
         "nodes": [{"node", "relation", "verdict", "why", "seconds"}], "first_disagreement": {...} or null}

exit status: 0 when the engines agree on every node compared, 1 when they disagree (the first node
is named), 2 for bad input (unreadable file, not a plan, unknown node, bad arguments, tables).
"""

PORTABILITY_DESCRIPTION = """\
For each node: can Spark run its subtree (every relation, function and type has a translation),
and can DataFusion (its Substrait consumer and planner take the node's sub-plan; nothing runs)? Where
not, the reason and its kind (function, type, relation, refused, table, other), on the node where
the gap starts; the nodes above it say "below". Tables bound with --data-dir / --table / --tpch are
planned against; a table not bound stands in empty with the plan's columns.

Also, per node and engine: the fields set there that the engine ignores or reads differently, the
fields its Substrait version does not know (and the plan's version against each engine's), the column
types it gives beside the plan's declared type and the spec's (Spark through our translation,
DataFusion through its consumer; no data read), and its own physical plan with this node's
operators marked (with --format json or --html: a table has no room for them). --no-types and
--no-plans leave the last two out (they start Spark). --html FILE also writes the plan's HTML report
with all of it.

exit status: 0 when both engines can run every node, 1 when one cannot run some node, 2 for bad input."""


def _bisect(args, out, err) -> int:
    from .engines.bisect import bisect

    catalog = _catalog_or_report(args, err)
    if catalog is None:
        return 2
    try:
        model, node = _load(args.plan, args.node)
        missing = _unbound(model, node, catalog)
        if missing is not None:
            raise BadInput(missing)
    except BadInput as exc:
        print(f"error: {args.plan}: {exc}", file=err)
        return 2
    try:
        result = bisect(model, catalog, node, limit=args.max_rows, timeout_s=args.timeout)
    except ExecutionError as exc:
        print(f"error: {args.plan}: {exc}", file=err)
        return 2
    if args.format == "json":
        print(json.dumps({"file": args.plan, **result.to_json()}), file=out)
    else:
        _print_bisect(args.plan, result, out)
    return 0 if result.agree else 1


def _print_bisect(file: str, result, out) -> None:
    from viz.render import title

    print(f"== {file} node {result.start}: {result.summary()} ({result.elapsed_s:.1f} s)", file=out)
    for note in result.notes:
        print(f"   [note] {note}", file=out)
    if result.nodes:
        width = max(len(n) for n in result.nodes)
        for n in result.nodes.values():
            print(
                f"  {n.node_id:<{width}}  {title(n.kind):<12} {n.verdict:<13} {n.elapsed_s:6.2f} s  {n.why}", file=out
            )
    c = result.first_comparison
    if c is None:
        return
    print(f"\nfirst disagreement: node {c.node_id} ({title(result.nodes[c.node_id].kind)})", file=out)
    if result.unchecked_inputs:
        print(
            f"  {'its input' if len(result.unchecked_inputs) == 1 else 'its inputs'} "
            f"{', '.join(result.unchecked_inputs)} could not be compared: the difference may "
            "start there",
            file=out,
        )
    for role, text in c.expressions:
        print(f"  {role}: {text}", file=out)
    print(f"  Spark: {c.spark.rows_text()}; DataFusion: {c.datafusion.rows_text()}", file=out)
    for label, frame, count in (
        ("only on Spark", c.only_spark, c.split.only_a_count if c.split else 0),
        ("only on DataFusion", c.only_datafusion, c.split.only_b_count if c.split else 0),
    ):
        if count:
            print(
                f"  {count:,} row{'' if count == 1 else 's'} {label}"
                + (f", the first {len(frame)}:" if count > len(frame) else ":"),
                file=out,
            )
            print("    " + _as_shown(frame).to_string(index=False).replace("\n", "\n    "), file=out)


def _portability(args, out, err) -> int:

    from viz.html_report import html_report
    from viz.render import title

    from .engines.portability import engine_plans, node_types, portability

    if args.html and len(args.plans) != 1:
        print("error: --html writes the report of one plan; give one PLAN", file=err)
        return 2

    def each(file, model, _node, catalog) -> int:
        report = portability(model, catalog)
        if not args.no_types:
            report = report.with_types(node_types(model, catalog), model)
        shown = args.format == "json" or args.html  # the table has no column for the engines' plans
        plans = (
            {nid: engine_plans(model, nid, catalog) for nid in model.graph.nodes}
            if shown and not args.no_plans
            else None
        )
        # a node of a correlated subquery runs within its query: not a gap of the plan's
        status = int(
            any(not v.ok and v.part_of is None for n in report.nodes.values() for v in (n.spark, n.datafusion))
        )
        if args.html:
            page = html_report(
                model, os.path.basename(file), engines=report.node_engines(plans), engines_notes=report.notes()
            )
            try:
                with open(args.html, "w", encoding="utf-8") as fh:
                    fh.write(page)
            except OSError as exc:
                print(f"error: cannot write {args.html}: {exc.strerror or exc}", file=err)
                return 2
        if args.format == "json":
            print(json.dumps({"file": file, **report.to_json(plans)}), file=out)
            return status
        print(f"== {file}: {report.summary()}", file=out)
        for note in report.notes(types_shown="--format json or --html shows each node's types"):
            print(f"  {note}", file=out)
        width = max((len(n) for n in report.nodes), default=4)
        said = max((len(n.spark.text()) for n in report.nodes.values()), default=0)
        for n in report.nodes.values():
            print(
                f"  {n.node_id:<{width}}  {title(n.kind):<12} Spark: {n.spark.text():<{max(said, 22)}}  DataFusion: "
                f"{n.datafusion.text()}",
                file=out,
            )
            for engine, v in (("Spark", n.spark), ("DataFusion", n.datafusion)):
                if v.own:
                    print(f"  {'':<{width}}    {engine}: {v.reason}", file=out)
            for line in n.field_notes() + n.version_notes():
                print(f"  {'':<{width}}    {line}", file=out)
        return status

    return _over_plans(args, out, err, each, runs=False)


def _check(args, out, err) -> int:

    from .data.generate import tpcds, tpch
    from .producer.check import Checker, QueryFileError, read_queries, render_table

    try:
        folder = tpch(args.tpch) if args.tpch else tpcds(args.tpcds) if args.tpcds else args.data_dir
        if not os.path.isdir(folder):
            raise BadInput(f"--data-dir {folder!r} is not a folder")
        folder = os.path.abspath(folder)  # relative to where the command runs, not to a data root
        tables = {
            os.path.splitext(f)[0].lower(): os.path.join(folder, f)
            for f in sorted(os.listdir(folder))
            if f.endswith(".parquet")
        }
        if not tables:
            raise BadInput(f"{folder} holds no NAME.parquet table")
        missing = [p for p in args.sql if not os.path.exists(p)]
        if missing:
            raise BadInput(f"no such SQL file or folder: {', '.join(missing)}")
        queries = read_queries(args.sql)
    except (BadInput, ExecutionError, OSError, QueryFileError) as exc:
        print(f"error: {exc}", file=err)
        return 2
    if args.query:
        unknown = sorted(set(args.query) - {q.name for q in queries})
        if unknown:
            names = ", ".join(q.name for q in queries[:20]) + (", ..." if len(queries) > 20 else "")
            print(f"error: no query named {', '.join(unknown)}; the files hold {names or 'none'}", file=err)
            return 2
        queries = [q for q in queries if q.name in set(args.query)]
    if not queries:
        print(f"error: {', '.join(args.sql)} holds no query", file=err)
        return 2
    outcomes = []
    for form in args.form or ["analyzed"]:
        saved = (
            os.path.join(args.save_plans, form)
            if args.save_plans and args.form and len(args.form) > 1
            else args.save_plans
        )
        try:
            checker = Checker(tables, run=not args.no_run, timeout_s=args.timeout, save_plans=saved, form=form)
        except ExecutionError as exc:  # a table the data roots refuse (a link leading outside them)
            print(f"error: {exc}", file=err)
            return 2
        for outcome in checker.check_all(queries, jobs=args.jobs):
            outcomes.append(outcome)
            if args.format == "json":
                print(json.dumps(outcome.to_json()), file=out, flush=True)
    if args.format == "table":
        print(render_table(", ".join(args.sql), outcomes), file=out)
    return 0 if all(o.ok for o in outcomes) else 1


def _at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number ({minimum} or more), got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {minimum} or more")
        return value

    return parse


_non_negative = _at_least(0)
_positive = _at_least(1)


def _above_zero(what: str, example: str) -> Callable[[str], float]:
    """An argparse type: a finite number above 0 (``what``: "a number of seconds")."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}{example}, got {text!r}") from None
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"must be {what} above 0{example}, not {text!r}")
        return value

    return parse


_seconds = _above_zero("a number of seconds", "")
_scale = _above_zero("a scale factor", " (such as 0.01 or 1)")


class BadInput(Exception):
    """Input the user has to fix (exit status 2)."""


def _catalog(args):

    from .data.catalog import Catalog, data_roots
    from .data.generate import tpcds, tpch

    user = list(args.data_dir)
    bindings = {}
    for spec in args.table:
        name, sep, path = spec.partition("=")
        if not sep or not name.strip() or not path.strip():
            raise BadInput(f"--table takes NAME=PATH, not {spec!r}")
        if not os.path.exists(path):
            raise BadInput(f"--table {name}: {path!r} does not exist")
        path = os.path.abspath(path)  # relative to where the command runs, not to a data root
        user.append(path)
        bindings[name] = path
    for d in args.data_dir:
        if not os.path.isdir(d):
            raise BadInput(f"--data-dir {d!r} is not a folder")
    given = getattr(args, "scale", None)
    if given is not None and not (args.tpch or args.tpcds):
        raise BadInput("--scale is the scale of the --tpch or --tpcds tables: give one of them with it")
    scale = DEFAULT_SCALE if given is None else given
    generated = ([tpch(scale)] if args.tpch else []) + ([tpcds(scale)] if args.tpcds else [])
    roots = data_roots(user=user, generated=generated)
    try:
        return Catalog(
            roots,
            bindings,
            by_position=getattr(args, "by_position", ()),
            by_position_how=" (--by-position {name})",
            bind_how="Bind it with --table NAME=PATH, --data-dir DIR, --tpch or --tpcds",
        )
    except ExecutionError as exc:
        raise BadInput(str(exc)) from exc


def _catalog_or_report(args, err):
    """The catalog the arguments describe, or None after saying why there is none (exit status 2)."""
    try:
        return _catalog(args)
    except (BadInput, ExecutionError) as exc:
        print(f"error: {exc}", file=err)
        return None


def _over_plans(
    args, out, err, each: Callable[[str, object, str, object], int], node: str | None = None, runs: bool = True
) -> int:
    """Resolve the tables, then call ``each(file, model, node, catalog)`` for every plan given (node:
    ``node``, or the plan's first root). The exit status is the worst of theirs: 2 when the tables or a
    plan could not be read (the problem reported). ``runs``: ``each`` runs the node, so a table that no
    option binds is reported before Spark starts (:func:`_unbound`)."""
    catalog = _catalog_or_report(args, err)
    if catalog is None:
        return 2
    status = 0
    for file, model, chosen in _each_plan(args, node, out, err):
        missing = _unbound(model, chosen, catalog) if runs and model is not None else None
        if missing is not None:
            _report_error(args.format, file, BadInput(missing), out, err)
            status = 2
            continue
        status = max(status, 2 if model is None else each(file, model, chosen, catalog))
    return status


def _unbound(model, node: str, catalog) -> str | None:
    """Why node ``node`` cannot run, known before Spark starts: a table of its subtree that no option
    binds, when the session is local (its catalog holds no tables); None otherwise."""
    from viz.tables import plan_tables

    from . import settings as _settings

    settings = _settings.SETTINGS
    if settings.spark_remote not in (None, "local") or not settings.spark_master.startswith("local"):
        return None  # a cluster's catalog may hold them
    below = set(model.graph.post_order([node]))
    tables = plan_tables(model)
    named = [n for n in tables.named if below.intersection(tables.readers[".".join(n)])]
    unbound = [".".join(s.names) for s in catalog.status(named) if s.how == "not bound"]
    if not unbound:
        return None
    which = ", ".join(f"`{t}`" for t in unbound)
    return (
        f"{'table' if len(unbound) == 1 else 'tables'} {which} {'is' if len(unbound) == 1 else 'are'} not bound: "
        "give the data with --table NAME=PATH, --data-dir DIR (a folder of NAME.parquet files), --tpch "
        f"or --tpcds (TPC-H or TPC-DS, at scale {DEFAULT_SCALE} unless --scale SF)"
    )


def _each_plan(args, node: str | None, out, err):
    """``(file, model, node)`` for each plan given, or ``(file, None, None)`` for one that could not
    be read (its problem already reported)."""
    for file in args.plans:
        try:
            model, chosen = _load(file, node)
        except BadInput as exc:
            _report_error(args.format, file, exc, out, err)
            yield file, None, None
            continue
        yield file, model, chosen


def _load(path: str, node: str | None):
    from viz.errors import PlanLoadError
    from viz.graph import canonical_id
    from viz.model import analyze

    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise BadInput(f"cannot read it: {exc.strerror or exc}") from exc
    try:
        model = analyze(data)
    except PlanLoadError as exc:
        raise BadInput(str(exc)) from exc  # it says "not a Substrait plan: ..."
    if node is None:
        if not model.roots:
            raise BadInput("the plan has no relations to run")
        node = model.roots[0]
    elif canonical_id(node) not in model.graph.nodes:
        raise BadInput(f"the plan has no node {node!r}; its roots are {', '.join(model.roots) or 'none'}")
    else:
        node = canonical_id(node)  # 0.0.0.0.0.0 is 0.0*5
    return model, node


# ---- JSON-safe values ------------------------------------------------------------------------


def _json_rows(result) -> list[list]:
    table = result.arrow
    if table is None:
        return [[json_value(x) for x in row] for row in result.rows.itertuples(index=False)]
    columns = [exact_values(table.column(i)) for i in range(table.num_columns)]
    for i, kind in enumerate(result.types):
        if kind.startswith("interval"):  # one of months, which Arrow cannot carry, came as Spark's text
            columns[i] = [months_duration(v) or v if isinstance(v, str) else v for v in columns[i]]
    return [[json_value(col[r]) for col in columns] for r in range(table.num_rows)]


# ---- output ----------------------------------------------------------------------------------


def _print_table(file: str, node: str, result, out) -> None:
    total = "?" if result.row_count is None else str(result.row_count)
    print(f"== {file} node {node}: {len(result.rows)}/{total} rows in {result.elapsed_s:.2f} s", file=out)
    for w in result.warnings:
        print(f"   [warning] {w}", file=out)
    frame = _as_shown(result.rows)
    frame.columns = [f"{c}: {t}" for c, t in zip(result.columns, result.types)]
    for name in frame.columns:
        if frame[name].dtype == object and any(map(_holds_decimal, frame[name])):
            frame[name] = [_plain_decimals(v) for v in frame[name]]
    if not len(frame.columns):
        print("(no columns)", file=out)
    elif not len(frame):  # pandas would write "Empty DataFrame" and its index
        print("  ".join(frame.columns), file=out)
        print("(no rows)", file=out)
    else:
        print(frame.to_string(index=False), file=out)


#: How the table prints a null: Python's None reads as a text "None".
NULL = "NULL"


def _as_shown(frame):
    """A copy of a result's rows as the table prints them: a null as NULL and a boolean as true or false,
    as SQL writes them. A float column holds NaN for its nulls unless it has a NaN of its own
    (``executor.jobs.run.to_pandas``); then its nulls are None, as in every other column."""
    import numpy as np
    import pandas as pd

    frame = frame.copy()
    for i in range(len(frame.columns)):
        column = frame.iloc[:, i]
        null = column.map(lambda v: v is None or v is pd.NA) if column.dtype == object else column.isna()
        shown = column.astype(object).where(~null, NULL)
        frame.isetitem(i, shown.map(lambda v: ("true" if v else "false") if isinstance(v, (bool, np.bool_)) else v))
    return frame


def _holds_decimal(value) -> bool:
    if isinstance(value, Decimal):
        return True
    if isinstance(value, dict):
        return any(map(_holds_decimal, value.values()))
    if isinstance(value, (list, tuple)) or hasattr(value, "tolist"):
        items = value.tolist() if hasattr(value, "tolist") else value
        return isinstance(items, list) and any(map(_holds_decimal, items))
    return False


def _plain_decimals(value):
    """``value`` with its decimals, in lists and records too, written in plain digits: Python writes a
    zero of scale 15 as ``0E-15``, which reads as another number."""
    if isinstance(value, Decimal):
        return format(value, "f") if value.is_finite() else str(value)
    if isinstance(value, dict):
        return {k: _plain_decimals(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) or hasattr(value, "tolist"):
        items = value.tolist() if hasattr(value, "tolist") else value
        if not isinstance(items, list):  # a numpy scalar
            return value
        return "[" + ", ".join("null" if v is None else str(_plain_decimals(v)) for v in items) + "]"
    return value


def _print_json(file: str, node: str, result, out) -> None:
    obj = {
        "file": file,
        "node": node,
        "columns": result.columns,
        "types": result.types,
        "rows": _json_rows(result),
        "row_count": result.row_count,
        "truncated": result.truncated,
        "elapsed_s": round(result.elapsed_s, 6),
        "warnings": result.warnings,
    }
    print(json.dumps(obj), file=out)


def _print_csv(file: str, node: str, result, out) -> None:
    from .jobs.run import to_csv_text

    print(f"# {file}", file=out)
    out.write(to_csv_text(result))


_PRINTERS = {"table": _print_table, "json": _print_json, "csv": _print_csv}


def _report_error(fmt: str, file: str, exc: Exception, out, err) -> None:
    if fmt == "json":
        print(json.dumps({"file": file, "error": str(exc), "error_type": type(exc).__name__}), file=out)
    else:
        print(f"error: {file}: {exc}", file=err)


def main(argv: Sequence[str] | None = None, out=None, err=None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        args, stray = _parser().parse_known_args(argv)
        if stray:
            args.commands[args.command].error(f"unrecognized arguments: {' '.join(stray)}")
    except SystemExit as exc:  # argparse printed the problem
        return 0 if exc.code == 0 else 2
    try:
        from . import settings  # noqa: F401  read once, here: a bad value is bad input, said in one line
    except ValueError as exc:
        print(f"error: {exc}", file=err)
        return 2
    if args.command == "check":
        return _check(args, out, err)
    if args.command == "profile":
        return _profile(args, out, err)
    if args.command == "bisect":
        return _bisect(args, out, err)
    if args.command == "portability":
        return _portability(args, out, err)
    from .jobs.run import run_node

    def each(file, model, node, catalog) -> int:
        try:
            result = run_node(model, node, catalog=catalog, limit=args.limit, count=args.count, timeout_s=args.timeout)
        except ExecutionError as exc:
            _report_error(args.format, file, exc, out, err)
            return 1
        _PRINTERS[args.format](file, node, result, out)
        return 0

    return _over_plans(args, out, err, each, node=args.node)


if __name__ == "__main__":
    sys.exit(main())
