"""The executor's error types: every failure a user can cause comes out as one of these, with a message."""

from __future__ import annotations

from viz.errors import PlanError


class ExecutionError(PlanError):
    """A plan (or a node of it) could not be run; the message says why, in the user's terms, and
    ``node`` is the node it happened at when known (set where that node is translated)."""


class Unsupported(ExecutionError):
    """The plan uses something the executor cannot translate to Spark (a relation, function, type...)."""


class Refused(ExecutionError):
    """The plan asks for something the executor will not do: a write, DDL, a file outside the data roots."""


class TableNotFound(ExecutionError):
    """A named table is not bound to any data."""


class ColumnMismatch(ExecutionError):
    """A named table's columns are not the plan's (by name, or by type family): reading it would label
    one table's values with another's column names. The message names the table and both column lists."""


class Cancelled(ExecutionError):
    """Work was stopped by the user; its Spark jobs were interrupted. ``reason`` says why in a few
    words ("cancelled", or for :class:`TimedOut` "timed out after 10 s")."""

    def __init__(self, *args: object, reason: str = "cancelled", **where: str | None) -> None:
        super().__init__(*args, **where)
        self.reason = reason


class TimedOut(Cancelled):
    """The work took longer than its time limit; its Spark jobs were interrupted."""


def reraise_interrupts(exc: BaseException) -> None:
    """Raise ``exc`` again where it is no failure to report: a Rust library's errors include pyo3's
    PanicException (a BaseException), which is one; a KeyboardInterrupt or SystemExit is not."""
    if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):
        raise exc
