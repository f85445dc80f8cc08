"""``make test``'s two processes (tests/support/suite.py): the run's exit status from theirs."""

from __future__ import annotations

from tests.support.suite import combined


def test_the_run_fails_when_either_process_fails():
    assert combined(0, 0) == 0
    assert combined(1, 0) == 1
    assert combined(0, 1) == 1
    assert combined(2, 1) == 2  # the first failure's


def test_a_process_with_no_tests_selected_does_not_fail_the_run():
    assert combined(5, 0) == 0
    assert combined(0, 5) == 0
    assert combined(5, 1) == 1
    assert combined(5, 5) == 5
