"""pyspark imported whole, once, before any page's code.

pyspark's package and its ``sql`` module import each other, which Python's import locks get right in one
thread only: browser sessions that loaded their first pages at once after the server started each held
half of it, and every page showed an ImportError. ``app.py`` imports this module first; another session's
import of it waits until the first has finished.
"""

from __future__ import annotations

import pyspark.sql  # noqa: F401
