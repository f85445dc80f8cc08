"""Keys for Streamlit's caches of large arguments.

Streamlit hashes every argument of a cached function on every call; a plan's bytes (up to 64 MB) are
passed to several cached functions in each rerun of a page, so a large plan's rerun went mostly to
hashing the same bytes again. The bytes of an open plan are one object for as long as it is open (the
session keeps its ``Plan``), so a large one's digest is worked out once per object. Streamlit hashes
bytes before it looks at ``hash_funcs``: a cached function takes the key and the bytes unhashed
(``_data``), through a plain function that makes the key.
"""

from __future__ import annotations

import hashlib

from executor.cache import BoundedCache

#: Below this many bytes hashing costs less than looking up a kept digest would save.
KEPT_FROM = 1 << 20
#: Large values whose digest is kept, with the value itself (so its ``id`` is not reused meanwhile): a
#: few, as each holds its plan's bytes after the plan is closed.
_KEPT: BoundedCache[int, tuple[bytes | str, str]] = BoundedCache(4)


def large_value_key(value: bytes | str) -> bytes | str:
    """What Streamlit hashes for ``value``: the value itself when small, else its digest, worked out
    once per object."""
    if len(value) < KEPT_FROM:
        return value
    kept = _KEPT.get(id(value))
    if kept is not None and kept[0] is value:
        return kept[1]
    digest = hashlib.sha256(value.encode() if isinstance(value, str) else value).hexdigest()
    _KEPT.put(id(value), (value, digest))
    return digest


def _text_key(text: str) -> bytes:
    # bytes, not text: Streamlit hashes what a hash function returns again, with the same functions
    key = large_value_key(text)
    return key.encode() if isinstance(key, str) else key


#: ``hash_funcs`` for a cached function that takes a large text (a drawing's DOT).
LARGE_TEXT = {str: _text_key}
