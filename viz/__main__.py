"""Command line: ``python -m viz inspect PLAN... [--json]``, ``python -m viz render PLAN -o FILE.dot`` and
``python -m viz html PLAN -o FILE.html``."""

from __future__ import annotations

import argparse
import json
import sys

from .deep import gc_paused
from .errors import PlanLoadError
from .load import load_path
from .model import PlanModel, analyze_loaded


def _inspect_text(path: str, model: PlanModel, out) -> None:
    count = len(model.graph.nodes)
    print(f"== {path} ({model.loaded.format}, {count} node{'' if count == 1 else 's'})", file=out)
    for line in _diagnostic_lines(model.plan_diagnostics):
        print(f"   {line}", file=out)
    for node in model.nodes():
        indent = "  " * min(node.node.depth, 30)
        inputs = f" <- {', '.join(node.inputs)}" if node.inputs else ""
        root = " (root)" if node.id in model.roots else ""
        detail = f"  {node.info.detail}" if node.info.detail else ""
        print(f"{indent}{node.id} {node.kind}{root}{inputs}{detail}", file=out)
        if node.schema is None:
            print(f"{indent}    schema: unknown", file=out)
        else:
            for i, f in enumerate(node.schema):
                null = "" if f.nullable is None else (" nullable" if f.nullable else " not null")
                print(f"{indent}    [{i}] {f.name}: {node.type_text(f)}{null}", file=out)
        for role, text in node.info.expressions:
            print(f"{indent}    {role}: {text}", file=out)
        if node.properties is not None:
            _properties_text(indent, node.properties, out)
        for line in _diagnostic_lines(node.diagnostics):
            print(f"{indent}    {line}", file=out)


def _diagnostic_lines(diagnostics) -> list[str]:
    """One line per finding, the same one found at several places of a node once, with their number (a
    subexpression the plan writes twice)."""
    times: dict[str, int] = {}
    for d in diagnostics:
        line = f"[{d.severity.value}] {d.code}: {d.message}"
        times[line] = times.get(line, 0) + 1
    return [line if n == 1 else f"{line} ({n}x)" for line, n in times.items()]


def _properties_text(indent: str, props, out) -> None:
    order, dist = props.order_effect, props.distribution_effect
    print(f"{indent}    order: {props.order_text()} ({order.kind})", file=out)
    print(f"{indent}    distribution: {props.distribution_text()} ({dist.kind})", file=out)
    rules = [order.rule] + ([dist.rule] if dist.rule != order.rule else [])
    print(f"{indent}    spec: {' | '.join(rules)}", file=out)
    for note in dict.fromkeys(n for n in (order.note, dist.note) if n):
        print(f"{indent}    note: {note}", file=out)


def _inspect_json(path: str, model: PlanModel) -> dict:
    from .lineage import lineage_json

    doc = model.to_json()
    for node in doc["nodes"]:  # each schema column names the table columns and literals it comes from
        for column, lineage in zip(node["schema"] or (), lineage_json(model, node["id"])):
            column["lineage"] = lineage
    return {"file": path, **doc}


def _inspect_one(path: str, as_json: bool) -> int:
    """Print the plan at ``path`` (as one JSON line, or as text); the exit status."""
    try:
        model = analyze_loaded(load_path(path))
    except PlanLoadError as exc:
        if as_json:
            print(json.dumps({"file": path, "error": str(exc)}))
        else:  # on stderr, as render and html say it: a listing piped to a file keeps plans only
            print(f"error: {path}: {exc}", file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps(_inspect_json(path, model)))
    else:
        _inspect_text(path, model, sys.stdout)
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    status = 0
    for path in args.plans:
        # the model, its lineage and the report all stay alive until the plan is printed, so the
        # cyclic collector's passes over them would find nothing; reference counting frees them after
        with gc_paused():
            status = max(status, _inspect_one(path, args.json))
    return status


def _one_plan(path: str) -> PlanModel | None:
    """The model of the plan at ``path``; None, with the reason on stderr, when it cannot be read."""
    try:
        return analyze_loaded(load_path(path))
    except PlanLoadError as exc:
        print(f"error: {path}: {exc}", file=sys.stderr)
        return None


def _write(text: str, output: str | None) -> int:
    """``text`` to the file ``output`` (standard output for None or "-"); the exit status."""
    if output in (None, "-"):
        sys.stdout.write(text)
        return 0
    try:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        print(f"error: cannot write {output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from .render import to_dot

    model = _one_plan(args.plan)
    if model is None:
        return 2
    dot = to_dot(model)
    return _write(dot, args.output)


def cmd_html(args: argparse.Namespace) -> int:
    """The plan as one self-contained HTML report (``viz.html_report``)."""
    import os

    from .export import layout_svg
    from .html_report import html_report

    model = _one_plan(args.plan)
    if model is None:
        return 2
    drawn: list[bool] = []

    def layout(dot: str) -> str | None:
        svg = layout_svg(dot)
        drawn.append(svg is not None)
        return svg

    page = html_report(model, os.path.basename(args.plan), layout=layout)
    if drawn and not drawn[0]:
        print(
            "warning: the graph is not drawn (Graphviz's dot is not installed or failed: apt-get install "
            "graphviz); the report lists the nodes instead",
            file=sys.stderr,
        )
    return _write(page, args.output)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m viz", description="Inspect Substrait plans.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("inspect", help="print every node: id, relation, inputs, schema, diagnostics")
    p.add_argument("plans", nargs="+", metavar="PLAN", help="plan files (protobuf JSON or binary)")
    p.add_argument("--json", action="store_true", help="one JSON object per plan, one per line")
    p.set_defaults(func=cmd_inspect)
    r = sub.add_parser("render", help="write the graph as Graphviz DOT")
    r.add_argument("plan", metavar="PLAN", help="a plan file (protobuf JSON or binary)")
    r.add_argument("-o", "--output", metavar="FILE.dot", help="output file (default: standard output)")
    r.set_defaults(func=cmd_render)
    h = sub.add_parser(
        "html", help="write the plan as one self-contained HTML report (graph, every node, the plan in words)"
    )
    h.add_argument("plan", metavar="PLAN", help="a plan file (protobuf JSON or binary)")
    h.add_argument("-o", "--output", metavar="FILE.html", help="output file (default: standard output)")
    h.set_defaults(func=cmd_html)
    args, stray = parser.parse_known_args(argv)
    if stray:  # said with the command's own usage, not the top level's
        sub.choices[args.command].error(f"unrecognized arguments: {' '.join(stray)}")
    try:
        return args.func(args)
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return 0


if __name__ == "__main__":
    sys.exit(main())
