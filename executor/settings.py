"""Every environment variable the app and the command line read, read once into :data:`SETTINGS`.

The other modules read ``settings.SETTINGS.<field>`` and never ``os.environ``, so one place says what
can be set, what it means and its default (README's Settings table lists the same names). ``viz``
reads no environment at all: it stays a pure function of the plan.

A test changes a setting with ``monkeypatch.setattr(settings, "SETTINGS", dataclasses.replace(...))``;
a module that keeps a setting in a constant at import (``reaper.REAP_AFTER_S``, ``session.WARM_UP``)
is patched there instead.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields

_DEFAULT_CACHE = os.path.join(os.path.expanduser("~"), ".cache", "substrait-viz")


def _env(name: str) -> dict[str, str]:
    """A field's metadata: the environment variable it is read from."""
    return {"env": name}


@dataclass(frozen=True)
class Settings:
    """The process's settings; each field names its environment variable (``ENV`` in its metadata)."""

    #: ``SUBSTRAIT_VIZ_DATA``: a folder of the person's own tables, bound by file stem; it comes after the
    #: session's uploads and before the generated TPC-H and the tutorial tables. Default: unset (None).
    data: str | None = field(default=None, metadata=_env("SUBSTRAIT_VIZ_DATA"))
    #: ``SUBSTRAIT_VIZ_CACHE``: where generated TPC-H and TPC-DS, uploaded tables, shared plans, Spark's
    #: scratch space and the JVM's class archive are kept. Default: ``~/.cache/substrait-viz``.
    cache: str = field(default=_DEFAULT_CACHE, metadata=_env("SUBSTRAIT_VIZ_CACHE"))
    #: ``SUBSTRAIT_VIZ_WARM_UP``: ``0`` starts Spark at the first Run, not in the background once a plan
    #: is open. Default: on (``1``).
    warm_up: bool = field(default=True, metadata=_env("SUBSTRAIT_VIZ_WARM_UP"))
    #: ``SUBSTRAIT_VIZ_LAYOUT``: ``browser`` lays graphs out in the browser instead of by Graphviz on the
    #: server (the benchmarks' baseline, or a server without Graphviz). Default: on the server.
    layout_in_browser: bool = field(default=False, metadata=_env("SUBSTRAIT_VIZ_LAYOUT"))
    #: ``SUBSTRAIT_VIZ_REAP_AFTER_S``: seconds a stopped run's tasks may go on before the local JVM is
    #: stopped. Default: 20.
    reap_after_s: float = field(default=20.0, metadata=_env("SUBSTRAIT_VIZ_REAP_AFTER_S"))
    #: ``SUBSTRAIT_VIZ_RUN_SLOTS``: Spark runs under way at once, the others wait their turn (a positive
    #: whole number; anything else is the default). Default: half the cores, at least 1.
    run_slots: int = field(default_factory=lambda: _slots(""), metadata=_env("SUBSTRAIT_VIZ_RUN_SLOTS"))
    #: ``SPARK_MASTER``: the Spark master of a classic session. Default: ``local[*]``.
    spark_master: str = field(default="local[*]", metadata=_env("SPARK_MASTER"))
    #: ``SPARK_REMOTE``: a Spark Connect server (``sc://host:port``, or ``local`` for one started here)
    #: instead of a classic session. Default: unset (None), a classic session.
    spark_remote: str | None = field(default=None, metadata=_env("SPARK_REMOTE"))
    #: ``SPARK_DRIVER_MEMORY``: the driver's memory of a session started here. Default: ``2g``.
    spark_driver_memory: str = field(default="2g", metadata=_env("SPARK_DRIVER_MEMORY"))
    #: ``JAVA_HOME``: the Java that runs Spark (Spark's launcher reads it too; here it names the class
    #: archive). Default: unset (None), the ``java`` on the ``PATH``.
    java_home: str | None = field(default=None, metadata=_env("JAVA_HOME"))

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Settings:
        """The settings of ``environ`` (``os.environ`` for the process); an unset or empty variable
        takes its default. Raises ValueError, naming the variable, for a value that is not a number
        where one is needed."""
        return cls(
            data=environ.get("SUBSTRAIT_VIZ_DATA") or None,
            cache=environ.get("SUBSTRAIT_VIZ_CACHE") or _DEFAULT_CACHE,
            warm_up=environ.get("SUBSTRAIT_VIZ_WARM_UP", "1") != "0",
            layout_in_browser=environ.get("SUBSTRAIT_VIZ_LAYOUT") == "browser",
            reap_after_s=_seconds(environ, "SUBSTRAIT_VIZ_REAP_AFTER_S", 20.0),
            run_slots=_slots(environ.get("SUBSTRAIT_VIZ_RUN_SLOTS", "")),
            spark_master=environ.get("SPARK_MASTER") or "local[*]",
            spark_remote=environ.get("SPARK_REMOTE") or None,
            spark_driver_memory=environ.get("SPARK_DRIVER_MEMORY") or "2g",
            java_home=environ.get("JAVA_HOME") or None,
        )


def _seconds(environ: Mapping[str, str], name: str, default: float) -> float:
    text = environ.get(name, "").strip()
    if not text:
        return default
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, not {text!r}") from None


def _slots(text: str) -> int:
    """A positive whole number of slots, else one per two cores (at least one): a run then has the
    cores Spark's tasks need while another person's run is translated or drawn."""
    if text.strip().isdigit() and int(text) > 0:
        return int(text)
    return max(1, (os.cpu_count() or 2) // 2)


def variables() -> dict[str, str]:
    """Each setting's environment variable, by field name (README's Settings table lists them all)."""
    return {f.name: f.metadata["env"] for f in fields(Settings)}


#: The settings of this process, read from its environment when first imported.
SETTINGS = Settings.from_env(os.environ)
