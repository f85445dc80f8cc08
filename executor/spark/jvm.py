"""Fewer Py4J round trips while a plan is translated (classic sessions; Spark Connect has none).

A translation builds its columns through PySpark's functions, one Py4J call each. PySpark itself adds
round trips the JVM answers the same way every time:

- ``F.col``, ``F.lit``, ``F.when`` and the other functions look the JVM method up by reflection on
  every call (two round trips before the call itself), and every list of columns looks up
  ``PythonUtils``. :func:`pin_lookups` keeps what was found, per JVM.
- :func:`col` keeps each column reference by name, made once.
- ``Column.cast`` with a ``DataType`` object finds the active session and has it parse the type's
  JSON (ten round trips); with the type's SQL name it is one. :func:`sql_type` gives that name.

Together with the reads named in place on a join's right side (``executor.translate``), they leave a
warm translation a fraction of its round trips; ``tests/executor/test_jvm.py`` bounds the counts.
"""

from __future__ import annotations

import datetime
import functools
import threading
import weakref

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as S

_lock = threading.Lock()
_installed = False

#: Classes PySpark finds on the JVM view by name on every use, with the static methods it calls on
#: them: ``PythonUtils.toSeq`` for each list of columns (``select``, ``groupBy``, ``F.struct``), each
#: lookup a Py4J round trip for the class and another for the method. The functions of ``F.*`` are kept by
#: :func:`_cache_functions`.
PINNED = {
    "PythonUtils": ("toSeq", "toList"),
    "org.apache.spark.sql.functions": (),
    "org.apache.spark.sql.SparkSession": ("setActiveSession",),  # :func:`activate`, once per translation
}


def pin_lookups(spark) -> None:
    """Keep what PySpark looks up by reflection for every column it builds (idempotent).

    - The JVM view answers ``jvm.PythonUtils`` by reflection each time, and the class its
      ``toSeq``; each found is set as an attribute of the view (of the class), where Python's
      attribute lookup finds it first. A restarted JVM has a new view, pinned when its session is
      built.
    - PySpark's ``_get_jvm_function(name, sc)`` resolves ``org.apache.spark.sql.functions`` and
      then its member ``name`` on every call. The member is a static method, the same until the
      JVM goes: it is kept per JVM view.
    """
    jvm = spark.sparkContext._jvm
    with _lock:
        for name, methods in PINNED.items():
            if name not in vars(jvm):
                cls = getattr(jvm, name)
                for method in methods:
                    setattr(cls, method, getattr(cls, method))
                setattr(jvm, name, cls)
        _cache_functions()
        _pin_readers(spark)


def activate(spark) -> None:
    """Make ``spark`` the active session of the calling thread's JVM thread. A thread of our own (a deep
    translation's) has none, and the checks Spark makes outside a query's analysis then read the default
    settings, not the session's (a table with a time of day failed ``spark.sql.timeType.enabled`` so).
    Nothing to do for Spark Connect, whose server keeps the session."""
    jsession = getattr(spark, "_jsparkSession", None)
    if jsession is not None:
        getattr(spark.sparkContext._jvm, "org.apache.spark.sql.SparkSession").setActiveSession(jsession)


def _pin_readers(spark) -> None:
    jvm = spark.sparkContext._jvm
    patterns = getattr(jvm, "org.apache.spark.sql.catalyst.trees.TreePattern")
    _readers[jvm] = (
        spark._jsparkSession,
        (patterns.UNRESOLVED_ATTRIBUTE(), patterns.LAMBDA_VARIABLE()),
        patterns.PLAN_EXPRESSION(),  # a subquery: a plan inside an expression
    )


def _cache_functions() -> None:
    global _installed
    if _installed:
        return
    from pyspark.sql.functions import builtin

    lookup = builtin._get_jvm_function
    found: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @functools.wraps(lookup)
    def cached(name: str, sc):
        members = found.get(sc._jvm)
        if members is None:
            members = found.setdefault(sc._jvm, {})
        member = members.get(name)
        if member is None:
            member = members[name] = lookup(name, sc)
        return member

    builtin._get_jvm_function = cached
    _installed = True


#: Column references kept per JVM view (cleared past this many names).
MAX_COLUMNS = 4096
_columns: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def col(name: str) -> Column:
    """``F.col(name)``, kept: an unresolved reference to a column by name is the same object in any
    DataFrame, and a translation names the same few columns (``_0``, ``_1``, …) again and again.
    One Py4J round trip the first time, none after. Spark Connect builds it in Python anyway."""
    from pyspark import SparkContext

    sc = SparkContext._active_spark_context
    jvm = getattr(sc, "_jvm", None)
    if jvm is None:
        return F.col(name)
    with _lock:
        kept = _columns.get(jvm)
        if kept is None or len(kept) >= MAX_COLUMNS:
            kept = _columns[jvm] = {}
        column = kept.get(name)
    if column is None:
        column = F.col(name)
        with _lock:
            kept[name] = column
    return column


_EPOCH_ORDINAL = datetime.date(1970, 1, 1).toordinal()


def date_lit(day: datetime.date) -> Column:
    """``day`` as Spark's date literal. Made in the JVM from its year, month and day: PySpark's own
    conversion of a Python date fails before 1582 (IllegalArgumentException for 0001-01-01). On Spark
    Connect, from its days since 1970 in the proleptic calendar (the client's conversion of a date in
    the calendar gap of October 1582 gives another day)."""
    from pyspark import SparkContext
    from pyspark.sql.utils import is_remote

    sc = SparkContext._active_spark_context
    jvm = getattr(sc, "_jvm", None)
    if jvm is None or is_remote():  # a Connect client may share its process with a local server's JVM
        return F.call_function("date_from_unix_date", F.lit(day.toordinal() - _EPOCH_ORDINAL))
    return Column(jvm.org.apache.spark.sql.functions.lit(jvm.java.time.LocalDate.of(day.year, day.month, day.day)))


#: Per JVM view: the session that makes Spark's expression of a Column, the tree patterns of a column's
#: name and a lambda's variable in one, and that of a subquery.
_readers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

#: Expressions whose copies cost nothing (Spark's, and Spark Connect's in Python).
_LEAVES = frozenset({"UnresolvedAttribute", "Literal", "UnresolvedNamedLambdaVariable"})
_CONNECT_LEAVES = frozenset({"ColumnReference", "LiteralExpression", "UnresolvedNamedLambdaVariable"})
_CONNECT_READS = frozenset({"ColumnReference", "UnresolvedNamedLambdaVariable", "UnresolvedRegex", "UnresolvedStar"})


def repeatable(value: Column, or_subquery: bool = False, folded: bool = True) -> bool:
    """Whether copies of ``value`` cost nothing: a column, a literal, a lambda's variable, or an
    expression of literals only, which Spark's optimizer folds to one value however often it is copied.
    False where it cannot be told. With ``or_subquery``, also where ``value`` holds a subquery (a scalar
    subquery's value, an IN or EXISTS over one), which Spark refuses inside a lambda. ``folded=False``:
    a literal and an expression of literals count as not repeatable (Spark's analysis of a large
    expression whose every part folds takes seconds, a column's is quick)."""
    expr = vars(value).get("_expr")  # Spark Connect's expression, built in Python (classic: a field of that name)
    if expr is not None:
        name = type(expr).__name__
        if name in _CONNECT_LEAVES:
            return folded or name != "LiteralExpression"
        kinds: list[str] = []
        expr.foreach(lambda e: kinds.append(type(e).__name__))
        return (folded and not _CONNECT_READS.intersection(kinds)) or (
            or_subquery and any("Subquery" in k for k in kinds)
        )
    from pyspark import SparkContext

    sc = SparkContext._active_spark_context
    reader = _readers.get(getattr(sc, "_jvm", None)) if sc is not None else None
    if reader is None:
        return False
    session, patterns, subquery = reader
    catalyst = session.expression(value._jc)
    name = catalyst.getClass().getSimpleName()
    if name in _LEAVES:
        return folded or name != "Literal"
    return (folded and not any(catalyst.containsPattern(p) for p in patterns)) or (
        or_subquery and bool(catalyst.containsPattern(subquery))
    )


@functools.lru_cache(maxsize=512)
def _name(dt: S.DataType) -> S.DataType | str:
    if isinstance(dt, (S.AtomicType, S.NullType)) and not isinstance(dt, S.UserDefinedType):
        return dt.simpleString()
    return dt


def sql_type(dt: S.DataType | str) -> S.DataType | str:
    """What to pass to ``Column.cast``: the type's SQL name (``decimal(38,8)``, ``timestamp_ntz``)
    for an atomic type, else the type itself (structs, arrays and maps keep their field names)."""
    return dt if isinstance(dt, str) else _name(dt)


__all__ = ["col", "pin_lookups", "repeatable", "sql_type"]
