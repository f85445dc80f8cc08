"""Errors and diagnostics of the plan model.

Two kinds of trouble:

* :class:`PlanLoadError` (a :class:`PlanError`): the input is not a plan at all. It carries one clear
  message that says what was expected.
* :class:`Diagnostic`: something is wrong or noteworthy inside a plan that did load. Diagnostics are
  collected, never raised, so the rest of the plan still derives and draws.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class PlanError(Exception):
    """Base of every error the plan model and the executor raise. ``node`` is the id of the node it
    belongs to and ``path`` where inside the plan, when known."""

    def __init__(self, *args: object, node: str | None = None, path: str | None = None) -> None:
        super().__init__(*args)
        self.node = node
        self.path = path


class PlanLoadError(PlanError):
    """The input could not be read as a Substrait plan."""


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Diagnostic:
    """One finding about a plan or one of its nodes.

    ``code`` is short and stable (for tests and filtering); ``message`` is for people and says what
    was expected. ``node`` is the node id it belongs to, or ``None`` for the plan as a whole;
    ``path`` is where inside the plan (JSON-style field path) when known.
    """

    severity: Severity
    code: str
    message: str
    node: str | None = None
    path: str | None = None

    def to_json(self) -> dict:
        out = {"severity": self.severity.value, "code": self.code, "message": self.message}
        if self.node is not None:
            out["node"] = self.node
        if self.path:
            out["path"] = self.path
        return out


def error(code: str, message: str, node: str | None = None, path: str | None = None) -> Diagnostic:
    return Diagnostic(Severity.ERROR, code, message, node, path)


def warning(code: str, message: str, node: str | None = None, path: str | None = None) -> Diagnostic:
    return Diagnostic(Severity.WARNING, code, message, node, path)


def info(code: str, message: str, node: str | None = None, path: str | None = None) -> Diagnostic:
    return Diagnostic(Severity.INFO, code, message, node, path)
