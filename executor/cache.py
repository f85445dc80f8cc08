"""The one cache type of the server: a thread-safe map of at most ``max_entries`` entries that drops the
least recently used, so nothing a long-lived server keeps grows with the plans it has seen."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar, overload

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
D = TypeVar("D")


class BoundedCache(Generic[K, V]):
    """Least-recently-used map of at most ``max_entries`` entries; every method takes its own lock, so
    threads (a page's reruns, background runs) share one instance safely."""

    def __init__(self, max_entries: int) -> None:
        if max_entries < 1:
            raise ValueError(f"a cache keeps at least one entry, not {max_entries}")
        self.max_entries = max_entries
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    @overload
    def get(self, key: K) -> V | None: ...
    @overload
    def get(self, key: K, default: D) -> V | D: ...
    def get(self, key, default=None):
        """The value kept for ``key`` (now the most recently used), or ``default``."""
        with self._lock:
            if key not in self._entries:
                return default
            self._entries.move_to_end(key)
            return self._entries[key]

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` for ``key`` as the most recently used, dropping the least recently used past
        ``max_entries``."""
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def pop(self, key: K) -> V | None:
        """Forget ``key``; its value, or None when none was kept."""
        with self._lock:
            return self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __contains__(self, key: object) -> bool:
        """Whether ``key`` is kept (a look that does not count as a use)."""
        with self._lock:
            return key in self._entries

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
