"""ui.state.cache_keys: a large plan's bytes are hashed once per object for Streamlit's caches, not on
every call of a cached function (each rerun of a page calls several)."""

from __future__ import annotations

import hashlib

from ui.state import cache_keys


def test_a_large_value_is_keyed_by_its_digest_worked_out_once(monkeypatch):
    small = b"x" * 100
    assert cache_keys.large_value_key(small) is small  # hashed by Streamlit as it is
    large = bytes(range(256)) * (cache_keys.KEPT_FROM // 256 + 1)
    digests: list[bytes] = []
    real = hashlib.sha256
    monkeypatch.setattr(hashlib, "sha256", lambda data: digests.append(data) or real(data))
    key = cache_keys.large_value_key(large)
    assert key == real(large).hexdigest()
    assert cache_keys.large_value_key(large) == key and len(digests) == 1  # the same object: not again
    equal = bytes(bytearray(large))  # the same bytes in another object: the same key, worked out for it
    assert equal is not large and cache_keys.large_value_key(equal) == key and len(digests) == 2
    other = large[:-1] + b"\x00"
    assert cache_keys.large_value_key(other) != key
    text = "a" * cache_keys.KEPT_FROM
    assert cache_keys.large_value_key(text) == real(text.encode()).hexdigest()


def test_the_plan_model_is_found_by_the_key(monkeypatch):
    """analyze_cached gives one model per plan, found again without hashing the bytes (a 48 MB plan's
    rerun had spent most of its time hashing them)."""
    import json

    from tests.support.plans import plan, read
    from ui.state import plan_source

    doc = plan((read("t", [("id", "i64")]), ["id"]))
    doc["padding"] = "x" * cache_keys.KEPT_FROM  # unknown fields are ignored when the JSON is read
    data = json.dumps(doc).encode()
    first = plan_source.analyze_cached(data)
    assert not isinstance(first, str), first
    assert plan_source.analyze_cached(data) is first
    assert plan_source.analyze_cached(bytes(bytearray(data))) is first  # the same bytes: the same model


def test_texts_are_told_apart_by_streamlit_s_cache():
    """A cached function keyed by a text through ``LARGE_TEXT`` (the graph's layout of a DOT) gives each
    text its own entry, small or large (a hash function that gave back the text itself had made every
    text one entry)."""
    import streamlit as st

    calls: list[int] = []

    @st.cache_resource(hash_funcs=cache_keys.LARGE_TEXT)
    def size(text: str) -> int:
        calls.append(len(text))
        return len(text)

    big = cache_keys.KEPT_FROM
    texts = ["a", "bb", "x" * big, "y" * big, "x" * big]
    assert [size(t) for t in texts] == [1, 2, big, big, big]
    assert calls == [1, 2, big, big]  # the third large one is the first's text: found
