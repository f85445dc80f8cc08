"""The independent oracle for the executor tests: DuckDB running a plan's SQL over the same files,
and a comparison of result rows (as multisets, numbers with a small tolerance, order where the
query fixes it).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import duckdb

from executor.engines.rows import multiset_diff, rows_equal, subset_diff, values_equal  # noqa: F401 (re-exported)

#: The function tests' table ``t`` (consumer-testing README).
T_ROWS = [
    (1, 1, True, True),
    (2, 1, False, True),
    (3, 1, True, True),
    (-4, 1, True, True),
    (5, 1, False, True),
    (-6, 2, True, True),
    (7, 2, False, True),
    (8, 2, True, True),
    (9, 2, False, True),
    (None, 2, False, True),
]


def write_t(folder: str) -> str:
    """Write the function tests' table ``t`` as ``folder/t.parquet`` (once); returns its path."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = os.path.join(folder, "t.parquet")
    if not os.path.exists(path):
        os.makedirs(folder, exist_ok=True)
        cols = list(zip(*T_ROWS))
        table = pa.table(
            {
                "a": pa.array(cols[0], pa.int64()),
                "b": pa.array(cols[1], pa.int64()),
                "c": pa.array(cols[2], pa.bool_()),
                "d": pa.array(cols[3], pa.bool_()),
            }
        )
        pq.write_table(table, path + ".tmp")
        os.replace(path + ".tmp", path)
    return path


def fill_sql(sql: str, tables: dict[str, str]) -> str:
    """Put file paths in for the ``'{name}'`` placeholders; the bare table ``'t'`` becomes ``t``."""
    for name, path in tables.items():
        sql = sql.replace("{" + name + "}", path)
    return re.sub(r"'t'", "t", sql)


#: Each thread's in-memory DuckDB connections, by the path of table ``t`` (a connection serves one thread).
_CONNECTIONS = threading.local()


def duckdb_query(sql: str, t_path: str | None = None) -> tuple[list[str], list[tuple]]:
    """Run ``sql`` in an in-memory DuckDB (with table ``t`` when given); (column names, rows)."""
    connections = _CONNECTIONS.__dict__.setdefault("by_t", {})
    con = connections.get(t_path or "")
    if con is None:
        con = duckdb.connect()
        con.execute("SET threads = 1")
        if t_path:
            con.execute(f"CREATE VIEW t AS SELECT * FROM read_parquet('{t_path}')")
        connections[t_path or ""] = con
    cur = con.execute(sql)
    names = [d[0] for d in cur.description]
    return names, cur.fetchall()


_ORDER = re.compile(r"\border\s+by\b(?P<keys>(?:(?!\border\s+by\b).)*?)(?:\blimit\b.*)?;?\s*$", re.I | re.S)
_LIMIT = re.compile(r"\blimit\s+\d+\s*(?:offset\s+\d+\s*)?;?\s*$", re.I)


def strip_comments(sql: str) -> str:
    return re.sub(r"--[^\n]*", "", sql)


def top_order_keys(sql: str) -> list[str] | None:
    """The final ORDER BY's key texts (None when the query has no top-level ORDER BY)."""
    text = strip_comments(sql).strip()
    m = _ORDER.search(text)
    if m is None or text.count("(", m.start()) != text.count(")", m.start()):
        return None
    keys = []
    depth, cur = 0, ""
    for ch in m.group("keys"):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            keys.append(cur)
            cur = ""
        else:
            cur += ch
    keys.append(cur)
    out = []
    for k in keys:
        k = re.sub(r"\b(asc|desc|nulls\s+first|nulls\s+last)\b", "", k, flags=re.I).strip()
        out.append(k)
    return out


def has_limit(sql: str) -> bool:
    return _LIMIT.search(strip_comments(sql).strip()) is not None


def without_limit(sql: str) -> str:
    return _LIMIT.sub("", strip_comments(sql).strip())


def key_positions(keys: list[str], columns: list[str]) -> list[int] | None:
    """Output positions of ORDER BY keys that name output columns (or are 1-based numbers)."""
    lower = [c.lower() for c in columns]
    out = []
    for k in keys:
        k = k.strip().strip('"')
        if k.isdigit():
            out.append(int(k) - 1)
            continue
        bare = k.split(".")[-1].strip('"').lower()
        if bare in lower:
            out.append(lower.index(bare))
        else:
            return None
    return out


@dataclass
class Verdict:
    ok: bool
    reason: str = ""


def compare(got: list[Sequence], sql: str, run) -> Verdict:
    """Compare Spark's rows with DuckDB's for ``sql``; ``run(sql) -> (names, rows)`` runs DuckDB."""
    names, want = run(sql)
    keys = top_order_keys(sql)
    if has_limit(sql) and keys is None:
        # LIMIT without ORDER BY: any rows of the full result will do, as many as DuckDB returned.
        if len(got) != len(want):
            return Verdict(False, f"{len(got)} rows, expected {len(want)} (LIMIT without ORDER BY)")
        _, pool = run(without_limit(sql))
        diff = subset_diff(got, pool)
        return Verdict(diff is None, diff or "")
    diff = multiset_diff(got, want)
    if diff is not None:
        return Verdict(False, diff)
    if keys is None:
        return Verdict(True)
    positions = key_positions(keys, names)
    if positions is None:
        return Verdict(True, "order not checked (ORDER BY keys are not output columns)")
    got_keys = [tuple(r[p] for p in positions) for r in got]
    want_keys = [tuple(r[p] for p in positions) for r in want]
    if not all(rows_equal(a, b) for a, b in zip(got_keys, want_keys)):
        first = next(i for i, (a, b) in enumerate(zip(got_keys, want_keys)) if not rows_equal(a, b))
        return Verdict(False, f"rows out of order at row {first}: keys {got_keys[first]}, expected {want_keys[first]}")
    return Verdict(True)
