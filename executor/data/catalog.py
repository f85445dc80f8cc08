"""Where a plan's tables come from: named tables and local files, read only under the data roots.

A ``NamedTable`` resolves, case-insensitively, through

1. an explicit binding ``NAME=PATH`` (the full dotted name, e.g. ``tpch.lineitem``, or its last part);
2. a file or folder in a data root whose stem is the name: ``NAME.parquet``, ``NAME.csv``,
   ``NAME.tsv``, ``NAME.orc``, ``NAME.arrow`` / ``.feather`` / ``.ipc``, or a folder ``NAME/``
   (its format taken from the files inside);
3. a table already in the Spark catalog (when ``use_spark_catalog``).

A ``LocalFiles`` read takes each item's path form (``uri_path``, ``uri_path_glob``, ``uri_file``,
``uri_folder``) and format (parquet, orc, delimited text with its options, Arrow IPC); every path
goes through :class:`executor.data.paths.DataRoots`. The DataFrames keep the files' own column names;
the translator selects columns by position.

DataFrames are cached per (session, path, format, options), so a table used by many plans or many
nodes is opened (and its schema inferred) once.
"""

from __future__ import annotations

import datetime
import functools
import os
import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from substrait import algebra_pb2

from viz.tables import plan_tables, read_fields

from ..cache import BoundedCache
from ..errors import ExecutionError, Refused, TableNotFound, Unsupported
from .columns import ColumnCheck, ReadSchema, check_bases, file_columns, names_alike, parquet_schema
from .paths import DataRoots

#: Names of a zone whose times of day are UTC's.
_UTC_ZONES = frozenset({"UTC", "ETC/UTC", "Z", "+00:00", "GMT", "ETC/GMT", "UCT", "ZULU"})

FileOrFiles = algebra_pb2.ReadRel.LocalFiles.FileOrFiles
#: Tables read and values derived from them that a catalog keeps; past it the least recently used go.
READS_KEPT = 256
_MISSING = object()

# file suffix -> format name; the order is the preference when two files share a stem
SUFFIX_FORMATS: dict[str, str] = {
    ".parquet": "parquet",
    ".orc": "orc",
    ".csv": "csv",
    ".tsv": "tsv",
    ".arrow": "arrow",
    ".feather": "arrow",
    ".ipc": "arrow",
}
ARROW_MAX_BYTES = 256 * 1024 * 1024  # Arrow IPC goes through the driver (pyarrow): small files only


@dataclass(frozen=True)
class TextOptions:
    """Delimited-text options (the spec's ``DelimiterSeparatedTextReadOptions``), hashable for the cache."""

    delimiter: str = ","
    quote: str = '"'
    escape: str = "\\"
    skip_lines: int = 0
    null_value: str | None = None  # None: nothing is null, every column is a non-null string
    header: bool = False  # named .csv/.tsv tables: the first line holds the column names
    infer: bool = False  # named .csv/.tsv tables: infer column types (LocalFiles text: all strings)


NAMED_CSV = TextOptions(header=True, null_value="", infer=True)
NAMED_TSV = TextOptions(delimiter="\t", header=True, null_value="", infer=True)


@dataclass
class TableStatus:
    """How one table a plan names is bound, for the app's tables page."""

    names: list[str]
    bound: bool
    # "binding", "data root", ANOTHER_PLANS, "spark catalog", "not bound", "refused"; ", by position" when read so
    how: str
    path: str | None
    format: str | None
    message: str
    #: the plan's columns against the table's, when they were asked for and the table is a file
    check: ColumnCheck | None = None

    @property
    def name(self) -> str:
        return ".".join(self.names)


@dataclass(frozen=True)
class _Source:
    path: str  # real path (file or folder)
    format: str  # parquet / orc / csv / tsv / text / arrow
    how: str


def data_roots(
    own: Sequence[str] = (), user: Sequence[str] = (), generated: Sequence[str] = (), fallback: Sequence[str] = ()
) -> list[str]:
    """The data roots in resolution order, one policy for the app and the command line. A binding
    comes before every root; then the first root holding a table wins:

    1. ``own``: the data a plan is written against (a sample plan's tables);
    2. ``user``: the person's folders, in their order (uploads, ``--data-dir``, ``$SUBSTRAIT_VIZ_DATA``,
       a ``--table`` file);
    3. ``generated``: generated data asked for (TPC-H), so it never shadows the person's own files;
    4. ``fallback``: data offered to every plan (the tutorial tables), last, so its small ``orders``
       never shadows another ``orders``.

    A root given twice keeps its first place."""
    out: list[str] = []
    for root in (*own, *user, *generated, *fallback):
        if root not in out:
            out.append(root)
    return out


def file_words(fmt: str | None, path: str, shown_path: Callable[[str], str]) -> str:
    """Where a table comes from, in a message: "parquet at /data/customer.parquet", or "csv, your upload
    data.csv" where ``shown_path`` names the file otherwise than by its path."""
    shown = shown_path(path)
    return f"{fmt} at {shown}" if shown == path else f"{fmt}, {shown}"


#: How a table is found that a person uploaded for another plan (:attr:`Catalog.shared_uploads`).
ANOTHER_PLANS = "upload for another plan"


class Catalog:
    """Resolves a plan's tables to Spark DataFrames, reading only under ``data_roots``."""

    def __init__(
        self,
        data_roots: Sequence[str] = (),
        bindings: Mapping[str, str] | None = None,
        use_spark_catalog: bool = True,
        by_position: Sequence[str] = (),
        by_position_how: str = "",
        bind_how: str = "Bind it with NAME=PATH",
        shown_path: Callable[[str], str] | None = None,
        suite_how: str = "",
        shared_uploads: str | None = None,
    ) -> None:
        self.roots = DataRoots(data_roots)
        #: the root of a person's uploads (the app's session folder), which serves every plan: a table found
        #: there that no binding names was uploaded for another plan, and says so (:data:`ANOTHER_PLANS`)
        self.shared_uploads = os.path.realpath(shared_uploads) if shared_uploads else None
        #: a file as the person knows it, for messages (the app names an upload by its name, not its
        #: copy's path on the server); the path itself by default
        self.shown_path = shown_path or (lambda path: path)
        #: where a person chooses to read a table by position, the end of a refusal's sentence with
        #: ``{name}`` for the table (the command line names its option, the app its Tables page)
        self.by_position_how = by_position_how
        #: how a person binds a table, the last sentence of a "not bound" message
        self.bind_how = bind_how
        #: how a person reads a benchmark's generated sample data (``{suite}``: "TPC-H", "TPC-DS"), said
        #: for a table of that benchmark that is not bound; nothing where not given
        self.suite_how = suite_how
        self.use_spark_catalog = use_spark_catalog
        #: tables whose columns are read by position when their names are not the plan's (a person's
        #: explicit choice; otherwise such a table is refused)
        self.by_position = frozenset(n.strip().lower() for n in by_position if n.strip())
        self._bindings: dict[str, _Source] = {}
        self._cache: BoundedCache[tuple, object] = BoundedCache(READS_KEPT)
        self._cache_session: object | None = None
        self._lock = threading.Lock()
        for name, path in (bindings or {}).items():
            self.bind(name, path)

    # ---- configuration ------------------------------------------------------------------

    def bind(self, name: str, path: str) -> None:
        """Bind table ``name`` to a file or folder; the path must be under a data root."""
        if not name.strip():
            raise Refused("a table binding needs a name (NAME=PATH)")
        real = self.roots.resolve(path)
        if not os.path.exists(real):
            raise TableNotFound(f"table `{name}` is bound to {path!r}, which does not exist")
        self.roots.check_tree(real)
        self._bindings[name.strip().lower()] = _Source(real, _format_of(real), "binding")

    @property
    def bindings(self) -> dict[str, str]:
        return {name: src.path for name, src in self._bindings.items()}

    def fingerprint(self, model) -> tuple:
        """What the catalog resolves names with, and the state of the files it finds ``model``'s reads in
        (:func:`read_stamps`: a file uploaded again under its name is another table); part of the run
        cache's key."""
        return (
            tuple(self.roots.roots),
            tuple(sorted(self.bindings.items())),
            self.use_spark_catalog,
            tuple(sorted(self.by_position)),
            tuple(file_stamp(path) for path in sorted(self.bindings.values())),
            read_stamps(model, self.roots),
        )

    def reads_by_position(self, names: Sequence[str]) -> bool:
        """Whether the person chose to read table ``names`` by position (its dotted name or last part)."""
        return bool({".".join(names).lower(), names[-1].lower() if names else ""} & self.by_position)

    def where(self, names: Sequence[str]) -> str:
        """Where table ``names`` comes from, for a message ("parquet at /data/customer.parquet")."""
        [status] = self.status([list(names)])
        return status.message

    def size(self, names: Sequence[str]) -> int | None:
        """Bytes of the file or folder table ``names`` is found at, or None when it is not found here
        (a Spark catalog's table, a missing one)."""
        src = self._find(names)
        if src is None:
            return None
        try:
            files = _expand_folders([src.path], None)  # the files a read of it takes
        except TableNotFound:
            return None
        return sum(os.path.getsize(f) for f in files)

    def zones(self, names: Sequence[str]) -> dict[str, str]:
        """The time zone of each timestamp column of table ``names``'s file stored with one other than UTC,
        by the column's lower-case name (Spark reads them as UTC instants, and keeps no zone); none for a
        table not found here or one whose columns cannot be read."""
        src = self._source(names)
        if src is None or src.format not in ("parquet", "orc", "arrow"):
            return {}
        try:
            columns = file_columns(src.path, src.format)
        except ExecutionError:
            return {}
        return {c.name.lower(): c.zone for c in columns if c.zone and c.zone.upper() not in _UTC_ZONES}

    # ---- named tables -------------------------------------------------------------------

    def named_table(self, spark, names: Sequence[str]):
        """The DataFrame for a ``NamedTable``'s names. Raises ``TableNotFound``, and ``Refused`` for a folder
        holding a link out of the roots (:meth:`_read` checks every path it reads)."""
        src = self._source(names)
        if src is not None:
            self._spark_reads(names, src)
            return self._read(spark, src.path, src.format, _named_options(src.format))
        if self.use_spark_catalog:
            qualified = ".".join(names)
            if _spark_has_table(spark, qualified):
                return self._cached(spark, ("catalog", qualified.lower()), lambda: spark.table(qualified))
        raise TableNotFound(self._not_found_message(names))

    def _spark_reads(self, names: Sequence[str], src: _Source) -> None:
        """Refuse a table Spark's reader stops at before any column is chosen: column names that differ only in
        letter case (its COLUMN_ALREADY_EXISTS) and parquet's times of day in milliseconds (PARQUET_TYPE_ILLEGAL)."""
        try:
            columns = file_columns(src.path, src.format)
        except ExecutionError:
            return  # unreadable: the read says so
        # parquet's times of day in milliseconds (pyarrow writes time32 so), which Spark's reader refuses outright
        millis = [c.name for c in columns if src.format == "parquet" and c.type in ("time(0)", "time(3)")]
        if millis:
            raise Unsupported(
                f"table `{'.'.join(names)}` ({self._where(src)}) holds a time of day in milliseconds "
                f"({', '.join(millis)}), which Spark's parquet reader does not read (it reads microseconds and "
                "nanoseconds). Bind a table whose times of day are in microseconds"
            )
        alike = names_alike(columns)
        if alike:
            raise Unsupported(
                f"table `{'.'.join(names)}` ({self._where(src)}) has columns named alike but for letter case "
                f"({'; '.join(alike)}), which Spark, reading names in any case, cannot tell apart. Bind a table whose "
                "column names differ in more than case"
            )

    def _find(self, names: Sequence[str]) -> _Source | None:
        """Where a table's names lead: a binding, else a file or folder in a root. Raises ``Refused`` for a
        folder holding a link that leads outside the roots (it may have been made since it was bound)."""
        src = self._source(names)
        if src is not None:
            self.roots.check_tree(src.path)
        return src

    def _source(self, names: Sequence[str]) -> _Source | None:
        keys = _keys(names)
        for key in keys:
            if key in self._bindings:
                return self._bindings[key]
        for key in keys:
            src = self._in_roots(key)
            if src is not None:
                return src
        return None

    def _in_roots(self, stem: str) -> _Source | None:
        for root in self.roots.roots:
            if not os.path.isdir(root):
                continue
            found = _stem_in_folder(root, stem)
            if found is not None:
                real = self.roots.resolve(found)  # refuses a link named like the table that leads outside
                # the roots are real paths already (``DataRoots``), as ``shared_uploads`` is made
                return _Source(real, _format_of(real), ANOTHER_PLANS if root == self.shared_uploads else "data root")
        return None

    def upload_note(self, names: Sequence[str]) -> str | None:
        """For a table read from an upload made for another plan, a sentence that says so (a run's note:
        a file made for one plan can serve another without a word); else None."""
        src = self._source(names)
        if src is None or src.how != ANOTHER_PLANS:
            return None
        return (
            f"read from {file_words(src.format, src.path, self.shown_path)}, which was uploaded for another plan "
            "(an upload serves every plan that names its table and binds none of its own)"
        )

    def _not_found_message(self, names: Sequence[str]) -> str:
        name = ".".join(names)
        bound = ", ".join(sorted(self._bindings)) or "none"
        in_roots = ", ".join(sorted(self.available_in_roots())) or "none"
        roots = ", ".join(self.shown_path(r) for r in self.roots.roots) or "none"
        where = " or in the Spark catalog" if self.use_spark_catalog else ""
        return (
            f"table `{name}` is not bound: no binding, no file named {names[-1] if names else name}.parquet"
            f" (.csv, .tsv, .orc, .arrow or a folder) in the data roots{where}. Bound tables: {bound}; "
            + (f"tables in the data roots ({roots}): {in_roots}. " if self.roots.roots else "no data roots. ")
            + self._suite_hint(names[-1] if names else name)
            + self.bind_how
            + "."
        )

    def _suite_hint(self, table: str) -> str:
        """For a table of TPC-H or TPC-DS, how to read the benchmark's generated sample data ("" if none)."""
        from .generate import TPCDS_TABLES, TPCH_TABLES  # here: generate reads the settings, which may refuse

        suite = next(
            (s for s, tables in (("TPC-H", TPCH_TABLES), ("TPC-DS", TPCDS_TABLES)) if table.lower() in tables), None
        )
        if not self.suite_how or suite is None:
            return ""
        return f"{table} is a {suite} table: {self.suite_how.format(suite=suite)}. Or: "

    def available_in_roots(self) -> list[str]:
        """The table names the data roots offer (file stems with a known suffix, and folders)."""
        out: set[str] = set()
        for root in self.roots.roots:
            if not os.path.isdir(root):
                continue
            for entry in os.listdir(root):
                stem, suffix = os.path.splitext(entry)
                if suffix.lower() in SUFFIX_FORMATS or (
                    os.path.isdir(os.path.join(root, entry)) and not entry.startswith((".", "_"))
                ):
                    out.add(stem.lower() if suffix.lower() in SUFFIX_FORMATS else entry.lower())
        return sorted(out)

    def data_files(self) -> list[str]:
        """The data files directly in the folder roots (a known suffix), sorted: what a table can be bound to."""
        return sorted(
            os.path.join(root, entry)
            for root in self.roots.roots
            if os.path.isdir(root)
            for entry in os.listdir(root)
            if os.path.splitext(entry)[1].lower() in SUFFIX_FORMATS
        )

    def status(
        self, table_names: Sequence[Sequence[str]], columns: Mapping[str, Sequence[ReadSchema]] | None = None
    ) -> list[TableStatus]:
        """For each table a plan names, whether and how it is bound. Never starts Spark.

        ``columns``: the base schemas the plan reads each table with (by dotted name, as
        :func:`plan_columns_by_table` gives them). A file is then bound only when it serves every one
        of them (:func:`executor.data.columns.check_bases`), or, chosen for it, by position; its columns
        come from the file's footer or header, not from Spark."""
        out = []
        for names in table_names:
            names = list(names)
            try:
                src = self._find(names)
            except ExecutionError as exc:  # e.g. a file named like the table links outside the roots
                out.append(TableStatus(names, False, "refused", None, None, str(exc)))
                continue
            if src is not None:
                bases = (columns or {}).get(".".join(names))
                if bases:
                    out.append(self._checked(names, src, bases))
                else:
                    out.append(TableStatus(names, True, src.how, src.path, src.format, self._where(src)))
                continue
            if self.use_spark_catalog and _started_session_has_table(".".join(names)):
                out.append(TableStatus(names, True, "spark catalog", None, None, "a table in the Spark catalog"))
                continue
            out.append(TableStatus(names, False, "not bound", None, None, self._not_found_message(names)))
        return out

    def check_file(self, path: str, bases: Sequence[ReadSchema]) -> ColumnCheck:
        """How the file or folder at ``path`` (under the data roots) serves the plan's base schemas for a
        table: the first check that fails, else the first. Raises ``ExecutionError`` when it cannot be read."""
        real = self.roots.resolve(path)
        self.roots.check_tree(real)
        return check_bases(file_columns(real, _format_of(real)), bases)[0]

    def _where(self, src: _Source) -> str:
        return file_words(src.format, src.path, self.shown_path)

    def _checked(self, names: list[str], src: _Source, bases: Sequence[ReadSchema]) -> TableStatus:
        where = self._where(src)
        try:
            have = file_columns(src.path, src.format)
        except ExecutionError as exc:
            return TableStatus(names, False, "unreadable", src.path, src.format, str(exc))
        check, checks = check_bases(have, bases)
        if check.ok:
            return TableStatus(names, True, src.how, src.path, src.format, where, check)
        if self.reads_by_position(names) and all(c.by_position for c in checks):
            return TableStatus(names, True, f"{src.how}, by position", src.path, src.format, where, check)
        return TableStatus(names, False, "columns differ", src.path, src.format, f"{where} {check.problem()}", check)

    # ---- local files --------------------------------------------------------------------

    def local_files(self, spark, local_files: algebra_pb2.ReadRel.LocalFiles):
        """One DataFrame over every item of a ``LocalFiles`` read (items unioned by position)."""
        if not local_files.items:
            raise Unsupported("this LocalFiles read lists no files")
        frames = [self._item(spark, item, i) for i, item in enumerate(local_files.items)]
        df = frames[0]
        for other in frames[1:]:
            if len(other.columns) != len(df.columns):
                raise Unsupported(
                    f"the LocalFiles items have different numbers of columns ({len(df.columns)} and "
                    f"{len(other.columns)}); they cannot form one table"
                )
            df = df.union(other)
        return df

    def _item(self, spark, item: FileOrFiles, index: int):
        kind = item.WhichOneof("path_type")
        if kind is None:
            raise Unsupported(f"LocalFiles item {index} has no path (uri_path, uri_path_glob, uri_file or uri_folder)")
        uri = getattr(item, kind)
        paths = _PATH_FORMS[kind](self.roots, uri)
        if not paths:
            raise TableNotFound(f"LocalFiles item {index}: {uri!r} matches no file")
        fmt_kind = item.WhichOneof("file_format")
        if fmt_kind is None:
            fmt, options = _format_of(paths[0]), None
        else:
            fmt, options = _ITEM_FORMATS.get(fmt_kind, _unsupported_format)(item, fmt_kind)
        _check_slice(item, paths, index)
        return self._read(spark, paths if len(paths) > 1 else paths[0], fmt, options)

    # ---- reading ------------------------------------------------------------------------

    def _read(self, spark, path: str | list[str], fmt: str, options: TextOptions | None):
        # a DataFrame lists its files when made: one of a file since replaced would read the old listing
        stamps = tuple(file_stamp(p) for p in (path if isinstance(path, list) else [path]))
        key = (fmt, tuple(path) if isinstance(path, list) else path, options, stamps)
        reader = _READERS.get(fmt)
        if reader is None:
            raise Unsupported(f"cannot read {path!r}: format `{fmt}` is not supported (parquet, orc, csv, arrow are)")
        for p in path if isinstance(path, list) else [path]:
            self.roots.check_tree(p)
        return self._cached(spark, key, lambda: reader(spark, path if isinstance(path, list) else [path], options))

    def _cached(self, spark, key: tuple, make: Callable[[], object]):
        with self._lock:
            if self._cache_session is not spark:  # DataFrames belong to one session
                self._cache.clear()
                self._cache_session = spark
            made = self._cache.get(key, _MISSING)
            if made is _MISSING:
                made = make()
                self._cache.put(key, made)
            return made

    def cached(self, spark, key: tuple, make: Callable[[], object]):
        """A value derived from this catalog's tables (e.g. a table's columns conformed to a plan's
        schema), made once per session and key, and dropped with the tables' DataFrames."""
        return self._cached(spark, ("derived", *key), make)

    def clear_cache(self) -> None:
        with self._lock:
            self._cache.clear()


def file_stamp(path: str) -> tuple:
    """A file's or folder's identity and state: a file written again, or a folder whose files were
    added, removed or replaced, gets another."""
    try:
        st = os.stat(path)
    except OSError:
        return (path,)
    return (path, st.st_ino, st.st_mtime_ns, st.st_size)


def folder_stamp(root: str, stems: Collection[str]) -> tuple:
    """The state of what a data root holds at its top, where tables are found by name: the folder's own
    (an entry added, removed or renamed changes it) and that of the entries a table named one of
    ``stems`` (lower-case) is found at; a large folder is not read whole."""
    listing = _listing(root)
    if listing is None:
        return (root,)
    names = sorted(name for stem in stems for name in listing.get(stem, ()))
    return (root, file_stamp(root)[1:], *(file_stamp(os.path.join(root, name)) for name in names))


#: A folder's entries by table name (lower-case stem or name), kept with the folder's own state (inode,
#: time) they were listed in: :func:`_listing`.
_LISTINGS: BoundedCache[str, tuple[tuple, dict[str, tuple[str, ...]]]] = BoundedCache(64)
#: A listing made this soon after its folder last changed is not kept: a change within the file system's
#: tick after it would leave the folder's time as it was.
_RACY_NS = 2_000_000_000


def _listing(folder: str) -> dict[str, tuple[str, ...]] | None:
    """``folder``'s entries under each name a table could have there: a data file's lower-case stem
    (known suffixes) and each entry's lower-case name. None when it cannot be listed."""
    try:
        st = os.stat(folder)
        state = (st.st_ino, st.st_mtime_ns)
        kept = _LISTINGS.get(folder)
        if kept is not None and kept[0] == state:
            return kept[1]
        listed_at = time.time_ns()
        entries = os.listdir(folder)
    except OSError:
        return None
    by_name: dict[str, list[str]] = {}
    for entry in entries:
        by_name.setdefault(entry.lower(), []).append(entry)
        base, suffix = os.path.splitext(entry)
        if suffix.lower() in SUFFIX_FORMATS:
            by_name.setdefault(base.lower(), []).append(entry)
    listing = {key: tuple(sorted(names)) for key, names in by_name.items()}
    if listed_at - st.st_mtime_ns > _RACY_NS:
        _LISTINGS.put(folder, (state, listing))
    return listing


def read_stamps(model, roots: DataRoots | Sequence[str]) -> tuple:
    """The state of what ``model``'s reads find under ``roots``: in each root, the entries its tables
    would be found at (:func:`folder_stamp` with the tables' names), and the files its LocalFiles items
    name."""
    roots = roots if isinstance(roots, DataRoots) else DataRoots(list(roots))
    stems, items = _read_targets(model)
    return (
        tuple(folder_stamp(root, stems) for root in roots.roots),
        tuple(_item_stamps(roots, kind, uri) for kind, uri in items),
    )


def _item_stamps(roots: DataRoots, kind: str, uri: str) -> tuple:
    """The state of the files a LocalFiles item names (the item itself when they cannot be found)."""
    try:
        return tuple(file_stamp(path) for path in _PATH_FORMS[kind](roots, uri))
    except (ExecutionError, OSError):  # its run says why
        return (kind, uri)


def _read_targets(model) -> tuple[frozenset[str], tuple[tuple[str, str], ...]]:
    """The lower-case names a plan's tables are found by (:func:`_keys`) and its LocalFiles items' path
    forms and paths, once per plan."""
    kept = _TARGETS.get(model.digest)
    if kept is not None:
        return kept
    tables = plan_tables(model)
    targets = (frozenset(key for names in tables.named for key in _keys(names)), tuple(tables.paths))
    _TARGETS.put(model.digest, targets)
    return targets


_TARGETS: BoundedCache[str, tuple[frozenset[str], tuple[tuple[str, str], ...]]] = BoundedCache(64)


def plan_columns_by_table(model) -> dict[str, list[ReadSchema]]:
    """The distinct base schemas each named table is read with (by dotted name), with the fields each read
    uses, for ``Catalog.status``: a file may lack a column the plan declares but never reads."""
    from viz.fields import named_struct_fields

    out: dict[str, list[ReadSchema]] = {}
    for view in model.nodes():
        body = view.node.body
        if view.kind != "read" or not body.HasField("named_table") or not body.HasField("base_schema"):
            continue
        base = named_struct_fields(body.base_schema)
        if not base:
            continue
        seen = out.setdefault(".".join(body.named_table.names), [])
        schema = ReadSchema(base, read_fields(view))
        if schema not in seen:
            seen.append(schema)
    return out


def unbound_tables(catalog: Catalog, model, node_id: str | None = None) -> list[str]:
    """The named tables the subtree of ``node_id`` (the whole plan when None) reads that ``catalog`` cannot
    serve (:meth:`Catalog.status` with the plan's columns), by dotted name."""
    tables = plan_tables(model)
    under = set(model.graph.subtree(node_id)) if node_id is not None else None
    names = [n for n in tables.named if under is None or not under.isdisjoint(tables.readers[".".join(n)])]
    return [s.name for s in catalog.status(names, plan_columns_by_table(model)) if not s.bound]


def named_tables(model) -> list[list[str]]:
    """The distinct ``NamedTable`` names a plan reads, in node order (for ``Catalog.status``)."""
    seen: dict[tuple[str, ...], None] = {}
    for view in model.nodes():
        if view.kind == "read" and view.node.body.HasField("named_table"):
            seen.setdefault(tuple(view.node.body.named_table.names), None)
    return [list(names) for names in seen]


# ---- name resolution helpers --------------------------------------------------------------


def _keys(names: Sequence[str]) -> list[str]:
    """Lookup keys for a table name, most specific first: ``tpch.lineitem``, then ``lineitem``."""
    names = [n for n in names if n]
    if not names:
        return []
    full = ".".join(names).lower()
    last = names[-1].lower()
    return [full] if full == last else [full, last]


def _stem_in_folder(folder: str, stem: str) -> str | None:
    by_suffix: dict[str, str] = {}
    folder_match = None
    for entry in (_listing(folder) or {}).get(stem, ()):
        base, suffix = os.path.splitext(entry)
        full = os.path.join(folder, entry)
        if suffix.lower() in SUFFIX_FORMATS and base.lower() == stem:
            by_suffix.setdefault(suffix.lower(), full)
        elif entry.lower() == stem and os.path.isdir(full):
            folder_match = full
    for suffix in SUFFIX_FORMATS:
        if suffix in by_suffix:
            return by_suffix[suffix]
    return folder_match


def _format_of(path: str) -> str:
    """A file's format from its suffix; a folder's from the first data file inside it."""
    if os.path.isdir(path):
        for _dirpath, dirnames, filenames in os.walk(path):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "_")))
            for f in sorted(filenames):
                if f.startswith((".", "_")):
                    continue
                fmt = SUFFIX_FORMATS.get(os.path.splitext(f)[1].lower())
                if fmt:
                    return fmt
        raise Unsupported(f"folder {path!r} holds no .parquet, .orc, .csv or .arrow files")
    fmt = SUFFIX_FORMATS.get(os.path.splitext(path)[1].lower())
    if fmt is None:
        raise Unsupported(
            f"cannot tell the format of {path!r} from its name; known suffixes: {', '.join(SUFFIX_FORMATS)}"
        )
    return fmt


def _named_options(fmt: str) -> TextOptions | None:
    return {"csv": NAMED_CSV, "tsv": NAMED_TSV}.get(fmt)


def _spark_has_table(spark, qualified: str) -> bool:
    try:
        return bool(spark.catalog.tableExists(qualified))
    except Exception:  # an unparsable name or a catalog that cannot answer: not there
        return False


def _started_session_has_table(qualified: str) -> bool:
    from ..spark.session import peek_session

    spark = peek_session()
    return spark is not None and _spark_has_table(spark, qualified)


# ---- LocalFiles items ---------------------------------------------------------------------


def _path_single(roots: DataRoots, uri: str) -> list[str]:
    real = roots.resolve(uri)
    if not os.path.exists(real):
        raise TableNotFound(f"{uri!r} does not exist")
    return [real]


def _path_file(roots: DataRoots, uri: str) -> list[str]:
    real = _path_single(roots, uri)[0]
    if not os.path.isfile(real):
        raise Unsupported(f"uri_file {uri!r} is not a file")
    return [real]


def _path_folder(roots: DataRoots, uri: str) -> list[str]:
    real = _path_single(roots, uri)[0]
    if not os.path.isdir(real):
        raise Unsupported(f"uri_folder {uri!r} is not a folder")
    return [real]


_PATH_FORMS: dict[str, Callable[[DataRoots, str], list[str]]] = {
    "uri_path": _path_single,
    "uri_file": _path_file,
    "uri_folder": _path_folder,
    "uri_path_glob": lambda roots, uri: roots.expand_glob(uri),
}


def _text_options(item: FileOrFiles, _kind: str) -> tuple[str, TextOptions]:
    t = item.text  # max_line_size is a limit well-formed files respect: nothing to do
    return "text", TextOptions(
        delimiter=t.field_delimiter or ",",
        quote=t.quote or '"',
        escape=t.escape or "\\",
        skip_lines=int(t.header_lines_to_skip),
        null_value=t.value_treated_as_null if t.HasField("value_treated_as_null") else None,
    )


def _unsupported_format(item: FileOrFiles, kind: str) -> tuple[str, None]:
    raise Unsupported(f"LocalFiles format `{kind}` is not supported (parquet, orc, text and arrow are)")


_ITEM_FORMATS: dict[str, Callable[[FileOrFiles, str], tuple[str, TextOptions | None]]] = {
    "parquet": lambda item, kind: ("parquet", None),
    "orc": lambda item, kind: ("orc", None),
    "arrow": lambda item, kind: ("arrow", None),
    "text": _text_options,
}


def _check_slice(item: FileOrFiles, paths: list[str], index: int) -> None:
    """``start``/``length`` that select the whole file are fine; partial reads are not supported."""
    if not item.start and not item.length:
        return
    if len(paths) == 1 and os.path.isfile(paths[0]):
        size = os.path.getsize(paths[0])
        if item.start == 0 and item.length >= size:
            return
    raise Unsupported(
        f"LocalFiles item {index} reads bytes {item.start}..{item.start + item.length} of its file: "
        "partial (sliced) reads are not supported"
    )


# ---- readers (format -> DataFrame) --------------------------------------------------------


def _read_parquet(spark, paths: list[str], _options):
    from ..spark.jvm import col

    df = spark.read.parquet(*paths)
    if "bigint" not in df.schema.simpleString():
        return df
    arrow = {f.name.lower(): f.type for f in parquet_schema(paths[0])}
    # Spark reads a timestamp stored in nanoseconds as their count (at any depth): made a timestamp again
    shown = {}
    for f in df.schema.fields:
        if f.name.lower() in arrow:
            made = _from_nanos(col("`" + f.name.replace("`", "``") + "`"), arrow[f.name.lower()], f.dataType, f.name)
            if made is not None:
                shown[f.name] = made
    return df.withColumns(shown) if shown else df


def _from_nanos(value, arrow_type, spark_type, name: str):
    """``value`` (Spark's ``spark_type``, the file's ``arrow_type``) with each timestamp in nanoseconds Spark read
    as their count made a timestamp (:func:`_nanos_timestamp`), inside records, lists and maps' values too;
    None where it holds none. ``name``: the table's column, for the message."""
    import pyarrow as pa
    from pyspark.sql import functions as F
    from pyspark.sql import types as S

    if not _holds_nanos(arrow_type):
        return None
    if pa.types.is_timestamp(arrow_type):
        return _nanos_timestamp(value, name, bool(arrow_type.tz)) if isinstance(spark_type, S.LongType) else None
    if pa.types.is_struct(arrow_type) and isinstance(spark_type, S.StructType):
        members = []
        for i, member in enumerate(spark_type.fields):
            inner = value.getField(member.name)
            made = _from_nanos(inner, arrow_type.field(i).type, member.dataType, name)
            members.append((inner if made is None else made).alias(member.name))
        return F.when(value.isNull(), F.lit(None)).otherwise(F.struct(*members))
    if isinstance(spark_type, S.ArrayType) and hasattr(arrow_type, "value_type"):
        return F.transform(value, lambda x: _made(x, arrow_type.value_type, spark_type.elementType, name))
    if isinstance(spark_type, S.MapType) and pa.types.is_map(arrow_type):
        if _holds_nanos(arrow_type.key_type):
            value = F.transform_keys(value, lambda k, _: _made(k, arrow_type.key_type, spark_type.keyType, name))
        if _holds_nanos(arrow_type.item_type):
            value = F.transform_values(value, lambda _, v: _made(v, arrow_type.item_type, spark_type.valueType, name))
        return value
    return None


def _made(value, arrow_type, spark_type, name: str):
    """:func:`_from_nanos`, or ``value`` itself where it holds no such timestamp."""
    made = _from_nanos(value, arrow_type, spark_type, name)
    return value if made is None else made


def _holds_nanos(arrow_type) -> bool:
    """Whether an Arrow type is or holds a timestamp in nanoseconds (in a record, a list or a map)."""
    import pyarrow as pa

    if pa.types.is_timestamp(arrow_type):
        return arrow_type.unit == "ns"
    if pa.types.is_struct(arrow_type):
        return any(_holds_nanos(f.type) for f in arrow_type)
    if pa.types.is_map(arrow_type):
        return _holds_nanos(arrow_type.key_type) or _holds_nanos(arrow_type.item_type)
    return hasattr(arrow_type, "value_type") and _holds_nanos(arrow_type.value_type)


#: The end of the message that stops a run at a time finer than Spark's, after the column and its value.
_FINER = ", finer than the microseconds Spark keeps. Bind a table whose {name} has no part of a microsecond"


def _nanos_timestamp(count, name: str, instants: bool):
    """``count``, of nanoseconds since 1970, as a timestamp (of instants, or without zone: the microseconds Spark
    keeps); a value with a part finer than a microsecond stops the run and is named (column ``name``), rather
    than being cut."""
    from pyspark.sql import functions as F

    below = F.pmod(count, F.lit(1000))  # the nanoseconds past the microsecond
    micros = ((count.cast("decimal(20,0)") - below) / 1000).cast("long")  # exact: a double rounds past 2^53
    stamp = F.timestamp_micros(micros)  # an instant; the session's zone is UTC, so its local time is the same
    message = F.concat(
        F.lit(f"column {name} holds "),
        F.date_format(stamp, "yyyy-MM-dd HH:mm:ss.SSSSSS"),
        F.lpad(below.cast("string"), 3, "0"),
        F.lit(_FINER.format(name=name)),
    )
    return F.when(below != 0, F.raise_error(message)).otherwise(stamp if instants else stamp.cast("timestamp_ntz"))


def _read_orc(spark, paths: list[str], _options):
    """ORC files, whose timestamps count nanoseconds: Spark's reader cuts them to microseconds without a word,
    so a column whose file holds a finer value stops any run that reads a value of it, that value said."""
    from pyspark.sql import functions as F

    from ..spark.jvm import col

    df = spark.read.orc(*paths)
    finer: dict[str, str] = {}
    for path in _expand_folders(paths, None):
        stat = os.stat(path)
        for name, message in _orc_finer(path, stat.st_size, stat.st_mtime_ns):
            finer.setdefault(name.lower(), message)
    stops = {}
    for f in df.schema.fields:
        if f.name.lower() in finer:
            value = col("`" + f.name.replace("`", "``") + "`")
            stops[f.name] = F.when(value.isNotNull(), F.raise_error(F.lit(finer[f.name.lower()]))).otherwise(value)
    return df.withColumns(stops) if stops else df


@functools.lru_cache(maxsize=256)
def _orc_finer(path: str, _size: int, _mtime_ns: int) -> tuple[tuple[str, str], ...]:
    """The columns of ORC file ``path`` (at that size and time) that hold a timestamp finer than a microsecond,
    each with the message that names its first such value; none where pyarrow cannot read the file (nor Spark)."""
    import pyarrow as pa
    import pyarrow.orc as orc

    try:
        source = orc.ORCFile(path)
        names = [f.name for f in source.schema if _holds_nanos(f.type)]  # pyarrow reads ORC's in nanoseconds
        found: dict[str, str] = {}
        for stripe in range(source.nstripes if names else 0):
            batch = source.read_stripe(stripe, columns=[n for n in names if n not in found])
            for name in batch.schema.names:
                try:
                    _in_microseconds(pa.table({name: batch.column(name)}))
                except ExecutionError as exc:
                    found[name] = str(exc)
            if len(found) == len(names):
                break
    except (pa.ArrowException, OSError):
        return ()
    return tuple(found.items())


def _read_text(spark, paths: list[str], options: TextOptions | None):
    """Delimited text. LocalFiles text gives every column as a string (the spec's effective
    schema; the translator casts to the base schema); named .csv tables infer their types.

    Spark's CSV reader turns an unquoted empty field into null whatever ``nullValue`` is, so with
    no ``value_treated_as_null`` the nulls are filled back with empty strings (nothing is null),
    and with a non-empty one an unquoted empty field reads as null too (a known gap).
    """
    o = options or TextOptions()
    if o.skip_lines > 1 or (o.skip_lines == 1 and o.header):
        return _read_text_pyarrow(spark, paths, o)
    reader = (
        spark.read.option("sep", o.delimiter)
        .option("quote", o.quote)
        .option("escape", o.escape)
        .option("header", "true" if (o.header or o.skip_lines == 1) else "false")
        .option("inferSchema", "true" if o.infer else "false")
        .option("mode", "PERMISSIVE")
        .option("nullValue", o.null_value if o.null_value is not None else "")
    )
    df = reader.csv(paths)
    if o.null_value is None:
        df = df.na.fill("")
    return df


def _read_text_pyarrow(spark, paths: list[str], o: TextOptions):
    """Several header lines to skip (Spark skips at most one): small files through pyarrow."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    if len(o.delimiter) != 1:
        raise Unsupported(
            f"skipping {o.skip_lines} header lines with the multi-character delimiter {o.delimiter!r} is not supported"
        )
    files = _expand_folders(paths, None)
    _check_small(files, "skipping several header lines")
    tables = []
    for f in files:
        read = pcsv.ReadOptions(skip_rows=o.skip_lines, autogenerate_column_names=True)
        parse = pcsv.ParseOptions(delimiter=o.delimiter, quote_char=o.quote or False, escape_char=o.escape or False)
        convert = pcsv.ConvertOptions(
            check_utf8=False,
            strings_can_be_null=o.null_value is not None,
            null_values=[o.null_value] if o.null_value is not None else [],
            quoted_strings_can_be_null=False,
        )
        table = pcsv.read_csv(f, read_options=read, parse_options=parse, convert_options=convert)
        tables.append(table.cast(pa.schema([pa.field(n, pa.string()) for n in table.column_names])))
    return spark.createDataFrame(_concat(tables).to_pandas())


def _read_arrow(spark, paths: list[str], _options):
    """Arrow IPC (file or stream format, also Feather v2): Spark has no reader, so pyarrow reads it."""
    import pyarrow as pa
    import pyarrow.ipc as ipc

    files = _expand_folders(paths, (".arrow", ".feather", ".ipc"))
    _check_small(files, "Arrow IPC files are read on the driver")
    tables = []
    for f in files:
        try:
            with pa.memory_map(f) as source:
                tables.append(ipc.open_file(source).read_all())
        except pa.ArrowInvalid:
            with pa.memory_map(f) as source:
                tables.append(ipc.open_stream(source).read_all())
    table = _in_microseconds(_concat(tables))
    if table.num_rows == 0:
        from pyspark.sql.pandas.types import from_arrow_schema

        return spark.createDataFrame([], from_arrow_schema(table.schema))
    return spark.createDataFrame(table)


def _in_microseconds(table):
    """``table`` with its timestamps in nanoseconds as microseconds, which Spark keeps (it would cut the rest
    without a word); a value with a part of a microsecond raises ``ExecutionError``, naming it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for i, f in enumerate(table.schema):
        if not (pa.types.is_timestamp(f.type) and f.type.unit == "ns"):
            continue
        column = table.column(i)
        micros = pc.cast(column, _in_micros(f.type), safe=False)
        lost = pc.not_equal(pc.cast(micros, f.type), column)
        if pc.any(lost).as_py():
            ns = pc.filter(column, lost)[0].cast(pa.int64()).as_py()
            shown = datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=ns // 1000)
            raise ExecutionError(
                f"column {f.name} holds {shown:%Y-%m-%d %H:%M:%S.%f}{ns % 1000:03d}{_FINER.format(name=f.name)}"
            )
        table = table.set_column(i, f.name, micros)
    for i, f in enumerate(table.schema):  # inside records, lists and maps: Arrow's own cast, which says what it lost
        if _holds_nanos(f.type):
            try:
                table = table.set_column(i, f.name, table.column(i).cast(_in_micros(f.type), safe=True))
            except pa.ArrowInvalid as exc:
                raise ExecutionError(
                    f"column {f.name} holds a time finer than the microseconds Spark keeps ({exc}). Bind a table "
                    f"whose {f.name} has no part of a microsecond"
                ) from None
    return table


def _in_micros(t):
    """Arrow type ``t`` with its timestamps in nanoseconds, at any depth, in microseconds."""
    import pyarrow as pa

    if pa.types.is_timestamp(t):
        return pa.timestamp("us", t.tz) if t.unit == "ns" else t
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(_in_micros(f.type)) for f in t])
    if pa.types.is_map(t):
        return pa.map_(_in_micros(t.key_type), t.item_field.with_type(_in_micros(t.item_type)))
    if pa.types.is_large_list(t):
        return pa.large_list(t.value_field.with_type(_in_micros(t.value_type)))
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(_in_micros(t.value_type)))
    return t


def _concat(tables):
    import pyarrow as pa

    if len(tables) == 1:
        return tables[0]
    first = tables[0].column_names
    return pa.concat_tables([t.rename_columns(first) for t in tables])


def _has_folder(paths: list[str]) -> bool:
    return any(os.path.isdir(p) for p in paths)


def _expand_folders(paths: list[str], suffixes: tuple[str, ...] | None) -> list[str]:
    """Files of the given paths, folders replaced by their (non-hidden) files, sorted."""
    out = []
    for p in paths:
        if not os.path.isdir(p):
            out.append(p)
            continue
        for dirpath, dirnames, filenames in os.walk(p):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "_")))
            for f in sorted(filenames):
                if f.startswith((".", "_")):
                    continue
                if suffixes is None or os.path.splitext(f)[1].lower() in suffixes:
                    out.append(os.path.join(dirpath, f))
    if not out:
        raise TableNotFound(f"no data files in {', '.join(paths)}")
    return out


def _check_small(files: list[str], why: str) -> None:
    total = sum(os.path.getsize(f) for f in files)
    if total > ARROW_MAX_BYTES:
        raise Unsupported(
            f"{why}, which is allowed up to {ARROW_MAX_BYTES // (1024 * 1024)} MB; these files hold "
            f"{total / (1024 * 1024):.0f} MB (convert them to parquet)"
        )


_READERS: dict[str, Callable] = {
    "parquet": _read_parquet,
    "orc": _read_orc,
    "csv": _read_text,
    "tsv": _read_text,
    "text": _read_text,
    "arrow": _read_arrow,
}


__all__ = [
    "Catalog",
    "TableStatus",
    "TextOptions",
    "SUFFIX_FORMATS",
    "file_stamp",
    "folder_stamp",
    "read_stamps",
    "named_tables",
    "plan_columns_by_table",
]
