"""The layers and the import graph: viz → executor → ui → pages, nothing runs back up, no cycles.

Read from the source with ``ast`` (every import counts: at the top, inside a function, or for type
checking only), so a cycle hidden behind a late import is still found.
"""

from __future__ import annotations

import ast
import os

from tests.support import ROOT

PACKAGES = ("viz", "executor", "ui")
LAYER = {"viz": 0, "executor": 1, "ui": 2, "pages": 3}


def _modules() -> dict[str, str]:
    """Every module of the layers, subpackages included (``executor.translate.functions.strings``)."""
    out = {}
    for pkg in (*PACKAGES, "pages"):
        for folder, dirs, files in os.walk(os.path.join(ROOT, pkg)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            name = os.path.relpath(folder, ROOT).replace(os.sep, ".")
            for f in sorted(files):
                if f.endswith(".py"):
                    out[name if f == "__init__.py" else f"{name}.{f[:-3]}"] = os.path.join(folder, f)
    return out


def _imports(module: str, path: str, known: set[str]) -> set[str]:
    """The project modules ``module`` imports (``from . import x`` and ``from .x import y`` alike)."""
    package = module if path.endswith("__init__.py") else module.rsplit(".", 1)[0]
    found: set[str] = set()
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return {m for m in found if m in known and m != module}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {m: _imports(m, p, set(modules)) for m, p in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_one_that_imports_it_back():
    graph = _graph()
    assert (
        "executor.translate.functions.strings" in graph
        and "executor.translate.functions" in graph["executor.translate.expr"]
    )
    assert _cycles(graph) == []


def test_no_layer_imports_a_layer_above_it():
    wrong = [
        (m, i) for m, imports in _graph().items() for i in imports if LAYER[i.split(".")[0]] > LAYER[m.split(".")[0]]
    ]
    assert wrong == []
