"""``make test``: the whole suite as two pytest processes at once.

The tests that need neither Spark nor a browser run in a second process at the lowest CPU priority,
beside the others: they take the cores only while the Spark tests wait (on the JVM's compiler, on
round trips, on a page), so they cost the run almost no time of its own. The Spark tests keep one
session for their whole run, and the second process starts no JVM (``tests/conftest.py`` fails a test
that asks for one). Its report follows the first's; the run fails if either does.

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
    return first or second


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
