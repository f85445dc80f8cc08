"""Golden files for what people see, for every sample plan in ``sample_plans/manifest.json``.

Three artefacts per plan, each compared with ``tests/golden/<plan stem>.<artefact>``:

- ``dot``: the DOT text the graph draws, ``viz.render.to_dot(model)`` with the default view;
- ``inspect.json``: what ``python -m viz inspect PLAN --json`` prints, produced in-process by the
  CLI's own ``main`` (one JSON object, stored re-indented so that a diff shows the changed lines);
- ``story.txt``: the plain-language text, one line ``"<node id> <kind>: <sentence>"`` per node in
  ``viz.describe.story_order`` order.

The model is built as the CLI builds it (``load_path`` + ``analyze_loaded``). A mismatch fails with
a unified diff; after checking that diff by hand, refresh the goldens with
``.venv/bin/python -m pytest tests/model/test_golden.py --update-golden``. A missing golden fails too.
None of this starts Spark: ``viz`` does not import pyspark (checked below).
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import io
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import TESTS
from viz.__main__ import main as viz_cli
from viz.describe import describe_plan, story_order
from viz.load import load_path
from viz.model import PlanModel, analyze_loaded
from viz.render import to_dot

REPO = TESTS.parent
PLANS = REPO / "sample_plans"
GOLDEN = TESTS / "golden"
MAX_DIFF_LINES = 80
HINT = (
    "rerun with --update-golden (.venv/bin/python -m pytest tests/model/test_golden.py --update-golden) after "
    "checking the diff by hand"
)


def _sample_plans() -> list[str]:
    with open(PLANS / "manifest.json", encoding="utf-8") as fh:
        return list(json.load(fh))


def _normalise(text: str) -> str:
    # The only machine-dependent content: the plan's path, which the inspect JSON prints in "file"
    # (the CLI echoes the path it was given, and the test passes an absolute one so that it does
    # not depend on the cwd). The repo's location is replaced with "<repo>". Nothing else in the
    # three artefacts varies between runs, cwds or hash seeds (checked by generating the goldens
    # twice, in processes with different PYTHONHASHSEED, from the repo and from another cwd).
    return text.replace(str(REPO), "<repo>")


@functools.cache
def _model(plan: str) -> PlanModel:
    """One model per plan for the three artefacts (the model is frozen; render and describe only
    memoise on it)."""
    return analyze_loaded(load_path(str(PLANS / plan)))


def _dot(plan: str) -> str:
    return to_dot(_model(plan))


def _inspect(plan: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = viz_cli(["inspect", str(PLANS / plan), "--json"])
    assert status == 0, f"python -m viz inspect {plan} --json exited with {status}: {out.getvalue()}"
    lines = out.getvalue().splitlines()
    assert len(lines) == 1, f"expected one JSON line for one plan, got {len(lines)}"
    # Re-indented (key order kept as printed) so that a change shows as a few lines of diff.
    return json.dumps(json.loads(lines[0]), indent=2, ensure_ascii=False) + "\n"


def _story(plan: str) -> str:
    model = _model(plan)
    sentences = describe_plan(model)
    return "".join(f"{node_id} {model.node(node_id).kind}: {sentences[node_id]}\n" for node_id in story_order(model))


ARTEFACTS: dict[str, Callable[[str], str]] = {"dot": _dot, "inspect.json": _inspect, "story.txt": _story}


def _golden_path(plan: str, artefact: str) -> Path:
    return GOLDEN / f"{Path(plan).stem}.{artefact}"


def _diff(expected: str, actual: str, name: str) -> str:
    lines = list(
        difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            fromfile=f"tests/golden/{name} (golden)",
            tofile=f"{name} (now)",
        )
    )
    shown = "".join(line if line.endswith("\n") else line + "\n" for line in lines[:MAX_DIFF_LINES])
    if len(lines) > MAX_DIFF_LINES:
        shown += f"... {len(lines) - MAX_DIFF_LINES} more diff lines\n"
    return shown


@pytest.mark.parametrize("artefact", list(ARTEFACTS))
@pytest.mark.parametrize("plan", _sample_plans())
def test_golden(plan: str, artefact: str, request: pytest.FixtureRequest) -> None:
    actual = _normalise(ARTEFACTS[artefact](plan))
    path = _golden_path(plan, artefact)
    if request.config.getoption("--update-golden"):
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != actual:
            path.write_text(actual, encoding="utf-8", newline="\n")
        return
    if not path.exists():
        pytest.fail(f"no golden file {path.relative_to(REPO)}: {HINT}", pytrace=False)
    expected = path.read_text(encoding="utf-8")
    if expected != actual:
        pytest.fail(
            f"{path.relative_to(REPO)} differs from the output now:\n{_diff(expected, actual, path.name)}{HINT}",
            pytrace=False,
        )


def test_goldens_cover_the_sample_plans_only() -> None:
    """Every plan file is in the manifest (so it has goldens), and no golden is left over from a plan
    that is gone."""
    plans = _sample_plans()
    on_disk = sorted(p.name for p in PLANS.glob("*.json") if p.name != "manifest.json")
    assert sorted(plans) == on_disk
    expected = {_golden_path(p, a).name for p in plans for a in ARTEFACTS}
    stale = sorted(p.name for p in GOLDEN.iterdir() if p.name not in expected) if GOLDEN.is_dir() else []
    assert not stale, f"golden files for no sample plan: {stale}"


def test_viz_does_not_import_spark() -> None:
    """The goldens are made by viz alone: loading every plan and producing the artefacts must not
    import pyspark (in a fresh interpreter, so other tests' imports do not count)."""
    import subprocess

    code = (
        "import sys, viz.__main__, viz.render, viz.describe\n"
        "import tests.model.test_golden as g\n"
        "for p in g._sample_plans():\n"
        "    [f(p) for f in g.ARTEFACTS.values()]\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j', 'executor'))\n"
        "assert not bad, bad\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
