"""Shareable links: a content-addressed store of plans, and the link that reopens one at a node.

A plan that is not a sample (an upload, pasted JSON, a plan made from SQL) is saved once under the
share folder as ``<sha256 hex>.plan``; the link carries the digest, ``?plan=<digest>&node=<id>``.
A sample needs nothing saved: ``?sample=<name>&node=<id>``. Reading accepts only a 64-character
lowercase hex digest (so no path from a URL ever reaches the file system) and checks that the bytes
read still hash to it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Sequence
from urllib.parse import urlencode, urlsplit

from executor.cache import BoundedCache
from executor.data.catalog import file_stamp
from executor.data.generate import CACHE

#: Where shared plans live: ``$SUBSTRAIT_VIZ_CACHE/shared`` or ``~/.cache/substrait-viz/shared``.
SHARE_DIR = os.path.join(CACHE, "shared")
#: Plans larger than this are not stored for sharing.
MAX_SHARED_BYTES = 20 * 1024 * 1024
_DIGEST = re.compile(r"[0-9a-f]{64}")


class ShareError(ValueError):
    """A plan that cannot be shared (too large, or the folder cannot be written); the message says why."""


def _path(digest: str, folder: str | None) -> str:
    return os.path.join(folder or SHARE_DIR, f"{digest}.plan")


def is_digest(text: object) -> bool:
    """Whether ``text`` is a share digest: exactly 64 lowercase hex characters."""
    return isinstance(text, str) and _DIGEST.fullmatch(text) is not None


#: Plans saved by this process: (id of the bytes, folder) -> (the bytes, digest, the file's state
#: when checked); the bytes are kept so that an id is never mistaken for another
#: object's, and a file changed since (or gone) is checked and written again.
_SAVED_MAX = 32
_saved: BoundedCache[tuple[int, str | None], tuple[bytes, str, tuple]] = BoundedCache(_SAVED_MAX)


def save_shared(data: bytes, folder: str | None = None) -> str:
    """Store the plan's bytes (once) and return their sha256 hex digest.

    Raises :class:`ShareError` when the plan is over :data:`MAX_SHARED_BYTES` (JSON: without its layout's
    whitespace) or cannot be written."""
    known = _saved.get((id(data), folder))
    if known is not None and known[0] is data and file_stamp(_path(known[1], folder)) == known[2]:
        return known[1]  # the page shows the link on every rerun: hash and check a plan once
    stored = data if len(data) <= MAX_SHARED_BYTES else _compact_json(data)
    if len(stored) > MAX_SHARED_BYTES:
        raise ShareError(
            f"the plan is {len(stored):,} bytes; plans of at most {MAX_SHARED_BYTES:,} bytes can be shared by link"
        )
    digest = hashlib.sha256(stored).hexdigest()
    path = _path(digest, folder)
    if not (os.path.exists(path) and load_shared(digest, folder) is not None):
        _write(path, stored)
    _saved.put((id(data), folder), (data, digest, file_stamp(path)))
    return digest


def _compact_json(data: bytes) -> bytes:
    """A JSON plan without the whitespace of its layout (an indented plan is mostly spaces), every token as
    written (numbers too) and however deep it nests; anything else as it is."""
    if data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] != b"{":
        return data
    return _LAYOUT.sub(lambda m: m.group(1) or b"", data)


#: A JSON string (kept whole) or whitespace between tokens (dropped).
_LAYOUT = re.compile(rb'("(?:[^"\\]|\\.)*")|[ \t\r\n]+')


def _write(path: str, data: bytes) -> None:
    target = os.path.dirname(path)
    try:
        os.makedirs(target, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)  # atomic: a reader never sees half a plan
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError as exc:
        raise ShareError(f"the plan could not be saved for sharing in {target}: {exc.strerror or exc}") from exc


def load_shared(digest: str, folder: str | None = None) -> bytes | None:
    """The shared plan with this digest, or None: for anything but 64 lowercase hex characters, for
    a digest not stored here, and for a stored file whose bytes no longer hash to its digest."""
    if not is_digest(digest):
        return None
    path = _path(digest, folder)
    try:
        if os.path.getsize(path) > MAX_SHARED_BYTES:
            return None
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != digest:
        return None
    return data


#: What is saved beside a shared plan that does not mean the SQL it was made from, at most this many bytes.
MAX_NOTES_BYTES = 64 * 1024


def _notes_path(digest: str, folder: str | None) -> str:
    return os.path.join(folder or SHARE_DIR, f"{digest}.not-its-sql.json")


def save_not_its_sql(digest: str, said: Sequence[str], folder: str | None = None) -> None:
    """Keep, beside the shared plan ``digest``, what is known to differ between it and the SQL it was made
    from (``ui.state.plan_source.Plan.not_its_sql``), so that its link says it too. Raises
    :class:`ShareError`."""
    data = json.dumps(list(said)).encode()
    if len(data) > MAX_NOTES_BYTES or not is_digest(digest):
        return
    path = _notes_path(digest, folder)
    if _read_not_its_sql(path) != list(said):
        _write(path, data)


def load_not_its_sql(digest: str, folder: str | None = None) -> tuple[str, ...]:
    """What :func:`save_not_its_sql` kept for the shared plan ``digest``; nothing where nothing was (or what
    is there is not a list of texts)."""
    return tuple(_read_not_its_sql(_notes_path(digest, folder))) if is_digest(digest) else ()


def _read_not_its_sql(path: str) -> list[str]:
    try:
        if os.path.getsize(path) > MAX_NOTES_BYTES:
            return []
        with open(path, encoding="utf-8") as fh:
            said = json.load(fh)
    except (OSError, ValueError):
        return []
    return said if isinstance(said, list) and all(isinstance(t, str) for t in said) else []


#: A plan's name in a link is cut to this many characters.
MAX_NAME_CHARS = 120
#: The data a plan from SQL is written against, as a link says it (``data=``).
DATA_KINDS = ("tutorial", "tpch", "tpcds")


def shared_name(digest: str) -> str:
    """The name of a plan a link names without one."""
    return f"shared plan {digest[:8]}"


def plan_params(plan, folder: str | None = None) -> dict[str, str]:
    """The query parameters that name ``plan`` in a link: ``sample`` for a sample; else ``plan``, the digest
    of its copy saved for sharing, ``name`` for the name it was opened under and ``data`` for the data it
    is written against (a plan from SQL). Raises :class:`ShareError`."""
    if getattr(plan, "sample", None):
        return {"sample": plan.sample}
    digest = getattr(plan, "shared", None) or save_shared(plan.data, folder)
    if getattr(plan, "not_its_sql", ()):
        save_not_its_sql(digest, plan.not_its_sql, folder)
    params = {"plan": digest}
    if plan.source != shared_name(digest):
        params["name"] = plan.source[:MAX_NAME_CHARS]
    if getattr(plan, "written_for", None) in DATA_KINDS:
        params["data"] = plan.written_for
    return params


def share_query(plan, node_id: str | None, folder: str | None = None) -> dict[str, str]:
    """The query parameters that reopen ``plan`` at ``node_id`` (:func:`plan_params`, and ``node``). Raises
    :class:`ShareError`."""
    params = plan_params(plan, folder)
    if node_id:
        params["node"] = node_id
    return params


def share_link(plan, node_id: str | None, page: str = "", folder: str | None = None) -> str:
    """A relative link that reopens ``plan`` at ``node_id`` on ``page`` (its URL path, e.g.
    ``"present"``; ``""`` for the default page): ``present?sample=tutorial.json&node=0.0.1``."""
    return f"{page.strip('/')}?{urlencode(share_query(plan, node_id, folder))}"


def absolute_link(relative: str, current_url: str | None, base_path: str = "") -> str:
    """``relative`` made absolute against the app's address (scheme, host and the server's base
    path); ``relative`` unchanged when the current URL is not known."""
    if not current_url:
        return relative
    parts = urlsplit(current_url)
    if not parts.scheme or not parts.netloc:
        return relative
    base = "/" + base_path.strip("/") if base_path.strip("/") else ""
    return f"{parts.scheme}://{parts.netloc}{base}/{relative}"


#: Session state: the browser's address as last known (see :func:`share_link_widget`).
_ADDRESS = "share_app_address"


def share_link_widget(plan, node_id: str | None, page: str = "", at: str | None = None) -> str | None:
    """Show the link that reopens this plan at this node (``st.code`` in a "Share this view" popover,
    with a copy button) and a note saying so, the node called ``at`` ("step 2") where given; returns the
    link (None when the plan cannot be shared, with ``st.error``)."""
    import streamlit as st

    from ui.markdown import md_escape

    try:
        relative = share_link(plan, node_id, page)
    except ShareError as exc:
        st.error(md_escape(f"This plan cannot be shared by link: {exc}"))
        return None
    try:
        current = st.context.url
    except Exception:  # no browser session (tests, scripts): a relative link
        current = None
    # a rerun the server asks for (a task waking its panel) comes without the browser's address: the
    # address of an earlier run of this session serves
    if current:
        st.session_state[_ADDRESS] = current
    else:
        current = st.session_state.get(_ADDRESS)
    link = absolute_link(relative, current, st.get_option("server.baseUrlPath") or "")
    # in a popover: its code block (and the highlighter behind it) is drawn only when opened
    with st.popover("Share this view"):
        st.code(link, language=None, wrap_lines=True)
        where = "the same sample" if getattr(plan, "sample", None) else "a copy of this plan saved on this server"
        st.caption(md_escape(f"The link reopens {where} at {at or f'the same node ({node_id})'}."))
    return link


__all__ = [
    "DATA_KINDS",
    "MAX_NAME_CHARS",
    "MAX_SHARED_BYTES",
    "SHARE_DIR",
    "ShareError",
    "absolute_link",
    "is_digest",
    "load_shared",
    "plan_params",
    "save_shared",
    "share_link",
    "share_link_widget",
    "share_query",
    "shared_name",
]
