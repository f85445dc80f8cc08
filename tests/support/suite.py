"""``make test``: the whole suite as two pytest processes at once.

The tests that need neither Spark nor a browser run in a second process, at the lowest CPU priority,
while the first runs the browser tests (``tests/conftest.py`` orders them first), which leave a core
idle while they wait on their pages; the Spark tests follow alone, on one session for their whole run.
The second process starts no JVM (``tests/conftest.py`` fails a test that asks for one). Its report
follows the first's; the run fails if either does.

Arguments are pytest's, given to both (``python -m tests.support.suite -x``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

#: The tests each process runs (``tests/conftest.py`` marks every test that needs a JVM ``spark``).
BESIDE = "not spark and not browser"
FIRST = "spark or browser"


def _pytest(marks: str, args: list[str]) -> list[str]:
    return [sys.executable, "-m", "pytest", "-m", marks, *args]


def main(args: list[str]) -> int:
    """Run both processes with pytest's ``args``; pytest's exit status, the first failing one's."""
    with tempfile.TemporaryFile(mode="w+", prefix="substrait-viz-tests-") as log:
        beside = subprocess.Popen(
            # no cache plugin: the two processes would each write pytest's record of failures
            ["nice", "-n", "19", *_pytest(BESIDE, ["-p", "no:cacheprovider", *args])],
            stdout=log,
            stderr=subprocess.STDOUT,
            process_group=0,
        )
        try:
            first = subprocess.call(_pytest(FIRST, args))
            second = beside.wait()
        except KeyboardInterrupt:
            os.killpg(beside.pid, 2)
            beside.wait()
            raise
        log.seek(0)
        print(f"\n{'=' * 20} the tests without Spark or a browser, run beside the others {'=' * 20}", flush=True)
        sys.stdout.write(log.read())
    code = combined(first, second)
    print(
        f"\nthe whole suite: {'passed' if code in (0, 5) else 'FAILED'} (Spark and browser tests: {_said(first)}; "
        f"the others: {_said(second)})"
    )
    return code


def combined(first: int, second: int) -> int:
    """The run's exit status from the two processes': the first failure's, else 0 (5, pytest's "no
    tests selected", only when neither process had any)."""
    return next((code for code in (first, second) if code not in (0, 5)), 0 if 0 in (first, second) else 5)


def _said(code: int) -> str:
    return {0: "passed", 5: "none selected"}.get(code, f"failed, exit status {code}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
