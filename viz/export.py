"""Exports that need an outside renderer: SVG through Graphviz's ``dot``, when it is installed."""

from __future__ import annotations

import shutil
import subprocess


def svg_or_none(dot: str, timeout_s: float = 20.0) -> bytes | None:
    """The DOT drawn as SVG by Graphviz's ``dot``; None when ``dot`` is not installed or fails."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    try:
        proc = subprocess.run([exe, "-Tsvg"], input=dot.encode(), capture_output=True, timeout=timeout_s)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 else None
