"""Safe file access: a plan may read only under the configured data roots.

Every path a plan (or a user binding) names goes through :class:`DataRoots` before anything opens
it. Refused, each with a message listing the allowed roots:

- URI schemes other than ``file`` (``http``, ``s3``, ``hdfs``, ...), and ``file://`` URIs with a host;
- any ``..`` component (even one that would stay inside a root: plans have no business walking up);
- absolute paths, ``file://`` URIs and relative paths that land outside every root;
- symbolic links whose target leaves the root (the real path is what is checked);
- globs whose fixed prefix is outside a root, and glob matches that resolve outside it.

A root may be a folder (everything under it is allowed) or a single file (only that file).
Relative paths are taken relative to each root in turn; the first root where the path exists wins.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable
from urllib.parse import unquote, urlsplit

from ..errors import Refused

GLOB_CHARS = frozenset("*?[")


def _real(path: str) -> str:
    return os.path.realpath(os.path.abspath(os.path.expanduser(path)))


class DataRoots:
    """The folders (or single files) a plan may read from."""

    def __init__(self, roots: Iterable[str] = ()) -> None:
        self._roots: list[str] = []
        for r in roots:
            self.add(r)

    def add(self, root: str) -> None:
        real = _real(root)
        if not os.path.exists(real):
            raise Refused(f"data root {root!r} does not exist")
        if real not in self._roots:
            self._roots.append(real)

    @property
    def roots(self) -> list[str]:
        return list(self._roots)

    def describe(self) -> str:
        if not self._roots:
            return "no data roots are configured, so no file may be read (give a data folder)"
        return "allowed data roots: " + ", ".join(self._roots)

    def contains(self, real_path: str) -> bool:
        """Whether an already-resolved real path is a root or inside a folder root."""
        for root in self._roots:
            if real_path == root:
                return True
            if os.path.isdir(root) and real_path.startswith(root.rstrip(os.sep) + os.sep):
                return True
        return False

    # ---- single paths -------------------------------------------------------------------

    def resolve(self, path_or_uri: str) -> str:
        """The real absolute path of ``path_or_uri``, checked to be under a root. Raises ``Refused``."""
        path = _local_path(path_or_uri, self)
        if any(ch in path for ch in GLOB_CHARS):
            raise Refused(f"{path_or_uri!r} contains glob characters; only a glob item (uri_path_glob) may use them")
        for candidate in self._candidates(path):
            real = _real(candidate)
            if self.contains(real):
                return real
        raise Refused(f"{path_or_uri!r} is outside the data roots; {self.describe()}")

    def _candidates(self, path: str) -> list[str]:
        """Where a path may be: itself when absolute, else under each folder root (existing first)."""
        if os.path.isabs(path):
            return [path]
        joined = [os.path.join(r, path) for r in self._roots if os.path.isdir(r)]
        return [j for j in joined if os.path.lexists(j)] + [j for j in joined if not os.path.lexists(j)]

    def check_tree(self, real_path: str) -> None:
        """Refuse a folder (already resolved under a root) holding a link that leads outside the roots:
        Spark and pyarrow list a folder's files and follow its links. Raises ``Refused``, naming the
        link, never what it leads to."""
        if not os.path.isdir(real_path):
            return
        seen: set[str] = set()
        for dirpath, dirnames, filenames in os.walk(real_path, followlinks=True):
            here = _real(dirpath)
            if here in seen:  # a link back up the tree: its files are checked already
                dirnames[:] = []
                continue
            seen.add(here)
            for entry in (*dirnames, *filenames):
                path = os.path.join(dirpath, entry)
                if os.path.islink(path) and not self.contains(_real(path)):
                    raise Refused(
                        f"{path!r} is a link that leads outside the data roots, so its folder is not read; "
                        f"{self.describe()}"
                    )

    # ---- globs --------------------------------------------------------------------------

    def expand_glob(self, pattern_or_uri: str) -> list[str]:
        """The real paths a glob matches (sorted), each under a root. Raises ``Refused``.

        The glob's fixed leading part (the folders before the first component with ``*``, ``?``
        or ``[``) must itself be inside a root, and every match must resolve inside one too.
        """
        pattern = _local_path(pattern_or_uri, self)
        inside = False
        for base in self._candidates(pattern):
            if not self.contains(_real(_fixed_prefix(base) or os.sep)):
                continue
            inside = True
            out = []
            for match in sorted(glob.glob(base)):
                real = _real(match)
                if not self.contains(real):
                    raise Refused(
                        f"glob {pattern_or_uri!r} matches {match!r}, which resolves to {real!r} outside "
                        f"the data roots; {self.describe()}"
                    )
                out.append(real)
            if out:
                return out
        if inside:
            return []
        raise Refused(f"glob {pattern_or_uri!r} reaches outside the data roots; {self.describe()}")


def _fixed_prefix(pattern: str) -> str:
    """The leading path components of a glob that contain no glob characters."""
    parts = pattern.split(os.sep)
    fixed = []
    for part in parts:
        if any(ch in part for ch in GLOB_CHARS):
            break
        fixed.append(part)
    return os.sep.join(fixed)


_ALLOWED_SCHEMES = ("", "file")


def _local_path(path_or_uri: str, roots: DataRoots) -> str:
    """The local path a plan's URI names; refuses other schemes, hosts and ``..``."""
    text = path_or_uri.strip()
    if not text:
        raise Refused("an empty path was given")
    if "\x00" in text:
        raise Refused(f"{path_or_uri!r} contains a NUL character")
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme not in _ALLOWED_SCHEMES:
        raise Refused(
            f"{path_or_uri!r} uses the URI scheme `{parts.scheme}`; only local files are read "
            f"(plain paths or file:// URIs); {roots.describe()}"
        )
    if scheme == "file":
        if parts.netloc not in ("", "localhost"):
            raise Refused(
                f"{path_or_uri!r} names the host `{parts.netloc}`; only local files are read; {roots.describe()}"
            )
        path = unquote(parts.path)
        if parts.query or parts.fragment:
            raise Refused(f"{path_or_uri!r} has a query or fragment, which a file path cannot have")
    else:
        path = text
    if ".." in path.replace("\\", "/").split("/"):
        raise Refused(f"{path_or_uri!r} contains `..`; paths may not walk up; {roots.describe()}")
    return path


__all__ = ["DataRoots", "GLOB_CHARS"]
