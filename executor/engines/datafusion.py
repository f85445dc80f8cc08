"""Run a node's subtree on DataFusion, the second engine: its Substrait consumer on the same files.

``DataFusionRunner(model, catalog)`` holds one DataFusion ``SessionContext`` for a plan. For a node it
builds a Substrait plan whose root is that node (the node's relation under a ``RelRoot`` named with
the model's output names, the plan's extensions and version kept), registers the tables the subtree
reads (each resolved by the same :class:`executor.data.catalog.Catalog` the Spark side uses, so both
engines read the same file), and hands the plan to ``datafusion.substrait.Consumer``. Then:

- :meth:`DataFusionRunner.check`: plans it (logical and physical plan, nothing read) and says why
  DataFusion cannot run it, or None: what the portability view asks;
- :meth:`DataFusionRunner.run`: its first ``limit`` rows as a pyarrow Table, and whether there are more.

Named tables are registered under a plain name of our own and the sub-plan's ``NamedTable`` names
rewritten to it, so dotted names (``tpch.lineitem``) need no DataFusion catalog or schema. A table
that is not bound to a file is registered, for :meth:`check` only, as an empty table with the plan's
base schema (DataFusion's consumer wants a table to plan against; nothing is read). ``LocalFiles``
reads are not given to DataFusion (their paths are checked against the data roots for Spark only),
nor are ``ReferenceRel`` subtrees (DataFusion's consumer reads one plan relation).

A read's ``filter`` is also applied in a ``FilterRel`` above the read (:func:`filters_above_reads`):
the spec says the filter must be applied, and DataFusion 55's consumer takes it as a scan hint only
(TPC-H q02's ``part`` read with ``p_size = 15 AND p_type LIKE '%BRASS'`` gave all 2,000 rows at scale
0.01, not 4). DataFusion's own producer writes such filters twice, in the read and in a FilterRel
above it, so whole plans agree; a read run alone did not.

Nothing outside the data roots is read: DataFusion reads only the files the catalog resolved.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass

from substrait import algebra_pb2, plan_pb2

from viz.deep import run_deep
from viz.kinds import KINDS
from viz.schema.layouts import aggregate_layout
from viz.types import is_nullable

from ..errors import ExecutionError, Unsupported, reraise_interrupts
from .rows import head

ENGINE = "DataFusion"
_CALL = re.compile(r"(\w+)\(")
_STRUCT = re.compile(r"(\w+) \{")
_OPENING = re.compile(r"[\w\[(]*\w")  # what opens a dump up to its first struct: "GroupingSets([[Column"
_NAME = re.compile(r"[^a-z0-9_]")
REFUSED_KINDS = {k: v.changes for k, v in KINDS.items() if v.changes}


class DataFusionCannot(Unsupported):
    """DataFusion cannot take this node: its consumer or planner refused it, or a table cannot be given
    to it. ``category`` says what kind of gap ("function", "type", "names", "relation", "table",
    "refused", "other")."""

    def __init__(self, message: str, category: str = "other") -> None:
        super().__init__(message)
        self.category = category


@dataclass
class DataFusionRows:
    table: object  # pyarrow.Table of at most ``limit`` rows
    more: bool  # DataFusion has more rows than the limit
    types: list[str]  # Arrow types, as text
    elapsed_s: float


_CAST_FAMILIES = ("integer", "float", "decimal")


def _without_views(table):
    """Arrow's view types (DataFusion reads strings as ``string_view``) as the plain ones, which every
    Arrow kernel takes."""
    import pyarrow as pa

    plain = {"string_view": pa.string(), "binary_view": pa.binary()}
    if not any(str(t) in plain for t in table.schema.types):
        return table
    return table.cast(pa.schema([f.with_type(plain.get(str(f.type), f.type)) for f in table.schema]))


def _decimal(t) -> str:
    return f"decimal({t.precision},{t.scale})"


def _places(scale: int) -> str:
    return "whole numbers" if scale == 0 else f"{scale} decimal place" + ("" if scale == 1 else "s")


def _family(t) -> str:
    """An Arrow type's family: within one, the plan's type is cast to (integers of any width, ...)."""
    import pyarrow.types as pt

    for test, family in (
        (pt.is_integer, "integer"),
        (pt.is_floating, "float"),
        (pt.is_decimal, "decimal"),
        (pt.is_date, "date"),
        (pt.is_timestamp, "timestamp"),
    ):
        if test(t):
            return family
    text = str(t)
    if pt.is_string(t) or pt.is_large_string(t) or text == "string_view":
        return "string"
    if pt.is_binary(t) or pt.is_large_binary(t) or text == "binary_view":
        return "binary"
    return text


def _unique(names: list[str]) -> list[str]:
    """A sub-plan's root column names, a repeated one numbered (``x``, ``x (2)``): DataFusion's consumer
    refuses a root whose columns repeat a name (a join's two inputs each with a ``sum(x)``), which the
    plan's own root, above a project that picks one, never has. A struct's members keep their names."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return out


def category(message: str) -> str:
    """What kind of gap a DataFusion (or Spark executability) message names."""
    text = message.lower()
    if "never executed" in text or "change data" in text:
        return "refused"
    if "function" in text or "no spark mapping" in text:
        return "function"
    if "duplicate" in text and "field name" in text:
        return "names"  # DataFusion needs a join's or projection's column names unique
    if "type" in text and (
        "unsupported" in text
        or "not supported" in text
        or "no spark equivalent" in text
        or "not implemented" in text
        or "unknown" in text
    ):
        return "type"
    if "table `" in text or ("table" in text and ("not bound" in text or "not found" in text or "files" in text)):
        return "table"
    if "rel" in text or "relation" in text or "join type" in text or "reading" in text:
        return "relation"
    return "other"


def clean(exc: BaseException) -> str:
    """DataFusion's message: one line, without Rust backtraces and error-kind prefixes."""
    from .sql_plan import _clean

    text = _clean(exc).replace("This feature is not implemented: ", "not implemented: ")
    if "failed to decode protobuf message" in text.lower() and text.rstrip().endswith("recursion limit reached"):
        return "the plan nests deeper than DataFusion's protobuf reader takes (100 nested messages)"
    text = text.split("\ncaused by\n")[-1].strip()
    text = " ".join(text.split())
    text = _without_dump(text)
    return text if len(text) <= 400 else text[:399] + "…"


def _without_dump(text: str) -> str:
    """A Rust debug dump in a message replaced by the name of what it dumps: "not implemented:
    HashJoin(HashJoinRel { common: None, ... })" says "HashJoinRel is not supported", and "does not support
    logical expression GroupingSet(GroupingSets([[Column { ... }]]))" ends at "GroupingSet"."""
    for call in _CALL.finditer(text):
        rest = text[call.end() :]
        opening = rest.split(" {", 1)[0]
        if opening == rest or not _OPENING.fullmatch(opening):
            continue  # "foo(int) not found": a call in words, not a dump
        inner = _STRUCT.match(rest)
        name = inner.group(1) if inner else call.group(1)
        head = text[: call.start()]
        return head + name + ("" if "support" in head else " is not supported")
    return text


class DataFusionRunner:
    """DataFusion over one plan's tables (see the module). Thread-safe: one node at a time."""

    def __init__(self, model, catalog=None, *, partitions: int = 2) -> None:
        from datafusion import SessionConfig, SessionContext

        self.model = model
        self.catalog = catalog
        config = SessionConfig().with_information_schema(False).with_target_partitions(partitions)
        self.ctx = SessionContext(config)
        self._files: dict[tuple[str, ...], str] = {}  # plan table names (lower case) -> the file's registered name
        self._paths: dict[str, tuple[str, str]] = {}  # a file's registered name -> its path and format
        self._views: dict[tuple, str] = {}  # (table names, base schema) -> the view a read reads
        self._taken: set[str] = set()
        self._table_errors: dict[tuple[str, ...], DataFusionCannot] = {}
        self._empty: dict[str, DataFusionCannot] = {}  # empty stand-ins (check only), each with why it is one
        self._lock = threading.Lock()
        self.notes: set[str] = set()  # what a person should know about how DataFusion was given the plan
        self._checked: dict[str, str | None] = {}

    # ---- the sub-plan -------------------------------------------------------------------

    def sub_plan(self, node_id: str, *, for_check: bool = False) -> plan_pb2.Plan:
        """A Substrait plan whose one root is node ``node_id``. Raises :class:`DataFusionCannot`."""
        model = self.model
        if node_id not in model.graph.nodes:
            raise ExecutionError(f"the plan has no node {node_id!r}; its roots are {', '.join(model.roots) or 'none'}")
        for nid in model.graph.subtree(node_id):
            kind = model.node(nid).kind
            if kind in REFUSED_KINDS:
                raise DataFusionCannot(
                    f"node {nid} is {REFUSED_KINDS[kind]}: such relations are never executed", "refused"
                )
            if any(d.code == "missing-input" for d in model.node(nid).diagnostics):
                raise DataFusionCannot(f"node {nid} lacks an input relation (see its diagnostics)", "relation")
            if kind == "reference":
                raise DataFusionCannot(
                    f"node {nid} is a ReferenceRel (a shared subtree): DataFusion's consumer reads one plan relation",
                    "relation",
                )
        schema = model.node(node_id).schema
        if schema is None:
            raise DataFusionCannot("the node's output schema is unknown, so its columns cannot be named for DataFusion")
        rel = algebra_pb2.Rel()
        rel.CopyFrom(model.graph.nodes[node_id].rel)
        self._as_the_producer_wrote(model.graph.nodes[node_id].rel, rel, node_id)
        self._rewrite_reads(rel, for_check)
        if filters_above_reads(rel):
            self.notes.add(FILTER_NOTE)
        plan = plan_pb2.Plan()
        if model.plan.HasField("version"):
            plan.version.CopyFrom(model.plan.version)
        plan.extension_urns.extend(model.plan.extension_urns)
        plan.extensions.extend(model.plan.extensions)
        root = plan.relations.add().root
        root.input.CopyFrom(rel)
        root.names.extend(
            name for f, top in zip(schema, _unique([f.name for f in schema])) for name in (top, *f.nested)
        )
        return plan

    def _as_the_producer_wrote(self, original: algebra_pb2.Rel, rel: algebra_pb2.Rel, node_id: str) -> None:
        """Give the relations of ``rel`` (a copy of ``original``, node ``node_id``'s) that DataFusion's
        consumer reads otherwise than the plan's producer wrote them an emit that puts their columns where
        the producer has them: a ProjectRel written as outputting only its expressions (DataFusion reads a
        project by the spec, its input's fields first), and an aggregate of several grouping sets
        (DataFusion puts its grouping id after the keys, whatever the plan's reading)."""
        model = self.model
        graph = model.graph
        ids = {id(graph.nodes[n].rel): n for n in graph.subtree(node_id)}
        stack = [(original, rel)]
        while stack:
            source, copy = stack.pop()
            nid = ids.get(id(source)) if isinstance(source, algebra_pb2.Rel) else None
            kind = copy.WhichOneof("rel_type") if nid is not None else None
            if kind == "project" and not model.conventions.project_keeps_input:
                self._project_as_written(copy.project, nid)
            elif kind == "aggregate":
                self._aggregate_as_read(copy.aggregate)
            for fd, value in source.ListFields():
                if fd.message_type is None or fd.message_type.GetOptions().map_entry:
                    continue
                if fd.is_repeated:
                    stack.extend(zip(value, getattr(copy, fd.name)))
                else:
                    stack.append((value, getattr(copy, fd.name)))

    def _project_as_written(self, body: algebra_pb2.ProjectRel, nid: str) -> None:
        inputs = self.model.graph.nodes[nid].inputs
        schema = self.model.node(inputs[0]).schema if inputs else None
        if not body.common.HasField("emit") and schema is not None:
            width = len(schema)
            body.common.emit.output_mapping.extend(range(width, width + len(body.expressions)))
            self.notes.add(PROJECT_NOTE)

    def _aggregate_as_read(self, body: algebra_pb2.AggregateRel) -> None:
        layout = aggregate_layout(body, self.model.conventions_in_play)
        if len(layout.sets) < 2:
            return
        keys, measures = len(layout.keys), len(body.measures)
        if layout.grouping_column == "datafusion":
            # DataFusion's physical planner takes its own grouping sets under a projection only, and a
            # GROUPING() measure (which reads the grouping id its analyzer adds) not even then
            functions = self.model.extensions.functions
            grouping = any(
                getattr(functions.get(m.measure.function_reference), "name", "") == "grouping" for m in body.measures
            )
            if not body.common.HasField("emit") and not grouping:
                body.common.emit.output_mapping.extend(range(keys + 1 + measures))
            return
        # the plan's column i is DataFusion's: its keys, then (past its grouping id) the measures, and
        # the spec's set index where DataFusion has its grouping id
        width = keys + measures + (1 if layout.grouping_column == "index" else 0)
        where = [i if i < keys else i + 1 if i < keys + measures else keys for i in range(width)]
        chosen = list(body.common.emit.output_mapping) if body.common.HasField("emit") else list(range(width))
        if any(not 0 <= i < width for i in chosen):
            return  # an emit out of range: the model says so on the node
        body.common.emit.ClearField("output_mapping")
        body.common.emit.output_mapping.extend(where[i] for i in chosen)
        self.notes.add(GROUPING_NOTE)
        if layout.grouping_column == "index" and keys + measures in chosen:
            self.notes.add(GROUPING_INDEX_NOTE)

    def _rewrite_reads(self, rel: algebra_pb2.Rel, for_check: bool) -> None:
        """Every read in ``rel`` (subqueries included) names a table registered in the context."""
        stack = [rel]
        while stack:
            msg = stack.pop()
            if isinstance(msg, algebra_pb2.ReadRel):
                which = msg.WhichOneof("read_type")
                if which == "local_files":
                    raise DataFusionCannot(
                        "a LocalFiles read: only named tables are given to DataFusion (from the same bound files "
                        "as Spark)",
                        "table",
                    )
                if which == "named_table":
                    registered = self._register(list(msg.named_table.names), msg, for_check)
                    del msg.named_table.names[:]
                    msg.named_table.names.append(registered)
                    if msg.base_schema.names and not msg.base_schema.struct.types:
                        self._types_from_table(msg, registered)
            for fd, value in msg.ListFields():
                if fd.message_type is None or fd.message_type.GetOptions().map_entry:
                    continue
                stack.extend(value if fd.is_repeated else [value])

    def _register(self, names: list[str], read: algebra_pb2.ReadRel, for_check: bool) -> str:
        """The name DataFusion knows table ``names`` by, as this read sees it: a view of the file with the
        read's base-schema columns, matched case-insensitively and cast to the plan's types within a type
        family (as the Spark side conforms a table), registered once per table and base schema."""
        key = tuple(n.lower() for n in names)
        base = read.base_schema
        view_key = (key, tuple(base.names), tuple(t.SerializeToString() for t in base.struct.types))
        if view_key in self._views:
            name = self._views[view_key]
            if name in self._empty and not for_check:
                raise self._empty[name]
            return name
        if key in self._table_errors and not for_check:
            raise self._table_errors[key]
        name = self._fresh(names[-1] if names else "t")
        file_name = self._files.get(key)
        if file_name is None and key not in self._table_errors:
            file_name = self._fresh(f"file_{names[-1] if names else 't'}")
            try:
                self._register_file(names, file_name)
                self._files[key] = file_name
            except DataFusionCannot as exc:
                self._table_errors[key] = exc
                file_name = None
                if not for_check:
                    raise
        why = self._table_errors.get(key) if file_name is None else None
        if file_name is not None:
            try:
                if not self._register_view(names, name, file_name, read):
                    self._taken.discard(name)
                    name = file_name  # the file as it is (a view would stop the consumer applying the projection)
            except DataFusionCannot as exc:
                why = exc
        if why is not None:
            self._register_empty(name, read, why)
            self._empty[name] = why
        self._views[view_key] = name
        if why is not None and not for_check:
            raise why
        return name

    def _types_from_table(self, read: algebra_pb2.ReadRel, registered: str) -> None:
        """A base schema that names its columns but gives no types (older DataFusion wrote such reads, which
        its consumer now refuses) gets the registered table's types, each nullable; left as it is when a
        name is not a column of the table or a type has no simple Substrait form."""
        from google.protobuf import json_format
        from substrait import type_pb2

        from viz.types import type_json

        from .arrow_spelling import arrow_type_text

        by_name = {f.name.lower(): f for f in self.ctx.table(registered).schema()}
        types = []
        for name in read.base_schema.names:
            f = by_name.get(name.lower())
            if f is None:
                return
            try:
                types.append(json_format.ParseDict(type_json(arrow_type_text(f.type, True)), type_pb2.Type()))
            except ValueError:
                return
        read.base_schema.struct.types.extend(types)
        read.base_schema.struct.nullability = type_pb2.Type.NULLABILITY_REQUIRED
        self.notes.add(TYPES_NOTE)

    def _fresh(self, stem: str) -> str:
        base = _NAME.sub("_", stem.lower()) or "t"
        base = base if base[0].isalpha() else f"t_{base}"
        name, k = base, 1
        while name in self._taken:
            k += 1
            name = f"{base}_{k}"
        self._taken.add(name)
        return name

    def _register_view(self, names: list[str], name: str, file_name: str, read: algebra_pb2.ReadRel) -> bool:
        """Register the view the read needs; False when the file's columns serve as they are."""
        from datafusion import col

        frame = self.ctx.table(file_name)
        schema = frame.schema()
        by_name = {f.name.lower(): f for f in schema}
        base = read.base_schema
        wanted = list(base.names) if len(base.names) == len(base.struct.types) or not base.struct.types else []
        if not wanted:  # nested names: the file's columns as they are
            return False
        shown = ".".join(names)
        exprs, changed, renamed = [], False, False
        declared = {f.name: f for f in schema}  # the file's columns, cast where the read's types differ
        for i, column in enumerate(wanted):
            f = by_name.get(column.lower())
            if f is None:
                raise DataFusionCannot(
                    f"table `{shown}` has no column `{column}`; its columns: {', '.join(x.name for x in schema)}",
                    "table",
                )
            expr = col(f'"{f.name}"')
            target = self._arrow_type(base.struct.types[i]) if base.struct.types else None
            # numbers of another width or precision are cast (DataFusion's consumer refuses them); strings of
            # another encoding (Utf8View for Utf8) it takes as they are, and only from a table, not a view
            if target is not None and target != f.type and _family(target) == _family(f.type) in _CAST_FAMILIES:
                if _family(target) == "decimal" and target.scale < f.type.scale:
                    raise DataFusionCannot(
                        f"table `{shown}`: the plan reads column {column} as {_decimal(target)}, and the table's "
                        f"column is {_decimal(f.type)}; DataFusion would round its values to "
                        f"{_places(target.scale)} without a word (Spark's side stops at a value that would change). "
                        "Bind a table whose column has the plan's type",
                        "table",
                    )
                expr, changed = expr.cast(target), True
                declared[f.name] = f.with_type(target).with_nullable(True)
            renamed = renamed or f.name != column
            exprs.append(expr.alias(column))
        if not (changed or renamed):
            return False
        if read.HasField("projection") and not renamed:
            # the consumer applies a read's projection to a table scan only, not to a view
            import pyarrow as pa

            from .sql_plan import _REGISTER

            path, fmt = self._paths[file_name]
            _REGISTER[fmt](self.ctx, name, path, schema=pa.schema(list(declared.values())))
            return True
        self.ctx.register_view(name, frame.select(*exprs))
        return True

    def _arrow_type(self, t):
        import pyarrow as pa
        from pyspark.sql.pandas.types import to_arrow_type

        from viz.coercion import is_unsigned

        from ..translate.types import to_spark

        if is_unsigned(t, self.model.conventions.dialect):  # its own unsigned integer, which Spark's types lack
            return getattr(pa, "u" + t.WhichOneof("kind").replace("i", "int"))()
        try:
            return to_arrow_type(to_spark(t, self.model.extensions.types))
        except Exception:  # noqa: BLE001 - a type with no Arrow form: the column is read as it is
            return None

    def _register_file(self, names: list[str], name: str) -> None:
        from .sql_plan import _REGISTER, _format

        shown = ".".join(names)
        if self.catalog is None:
            raise DataFusionCannot(f"table `{shown}` is not bound (no tables were given)", "table")
        if self.catalog.reads_by_position(names):
            raise DataFusionCannot(f"table `{shown}` is read by position, which only the Spark side does", "table")
        try:
            [status] = self.catalog.status([names])
        except ExecutionError as exc:
            raise DataFusionCannot(str(exc), "table") from None
        if not status.bound or status.path is None:
            unbound = status.how == "not bound"  # its message says so itself
            raise DataFusionCannot(
                status.message if unbound else f"table `{shown}` is not bound to a file: {status.message}", "table"
            )
        fmt = _format(status.path)
        register = _REGISTER.get(fmt or "")
        if register is None:
            raise DataFusionCannot(
                f"table `{shown}` is {fmt or 'of an unknown format'} ({status.path}); DataFusion reads "
                f"{', '.join(sorted(_REGISTER))} here",
                "table",
            )
        try:
            register(self.ctx, name, status.path)
        except Exception as exc:  # noqa: BLE001 - DataFusion raises several kinds; its message is the reason
            raise DataFusionCannot(
                f"DataFusion cannot read table `{shown}` at {status.path}: {clean(exc)}", "table"
            ) from None
        self._paths[name] = (status.path, fmt)

    def _register_empty(self, name: str, read: algebra_pb2.ReadRel, why: DataFusionCannot) -> None:
        """An empty table with the read's base schema, so the consumer can plan the subtree."""
        import pyarrow as pa

        fields = []
        base = read.base_schema
        if len(base.struct.types) != len(base.names):
            raise why  # no types (DataFusion writes names only) or nested names: nothing to plan against
        for n, t in zip(base.names, base.struct.types):
            arrow = self._arrow_type(t)
            if arrow is None:
                raise why
            fields.append(pa.field(n, arrow, nullable=is_nullable(t) is not False))
        self.ctx.register_record_batches(name, [[pa.RecordBatch.from_pylist([], schema=pa.schema(fields))]])

    # ---- planning and running -----------------------------------------------------------

    def _frame(self, node_id: str, for_check: bool = False):
        from datafusion.substrait import Consumer, Serde

        with self._lock:
            # copied and serialised where deep recursion is safe: a deeply nested plan overflows the main stack
            data = run_deep(lambda: self.sub_plan(node_id, for_check=for_check).SerializeToString())
            try:
                logical = Consumer.from_substrait_plan(self.ctx, Serde.deserialize_bytes(data))
                frame = self.ctx.create_dataframe_from_logical_plan(logical)
            except BaseException as exc:  # noqa: BLE001 - the consumer raises RuntimeError, its own errors, panics
                reraise_interrupts(exc)
                text = clean(exc)
                raise DataFusionCannot(f"DataFusion's consumer: {text}", category(text)) from None
        return frame

    def check(self, node_id: str) -> str | None:
        """Why DataFusion cannot run node ``node_id``'s subtree (consumed and planned, not run), or None."""
        if node_id in self._checked:
            return self._checked[node_id]
        try:
            frame = self._frame(node_id, for_check=True)
            with self._lock:
                frame.execution_plan()
            reason = None
        except DataFusionCannot as exc:
            reason = str(exc)
        except ExecutionError as exc:
            reason = str(exc)
        except BaseException as exc:  # noqa: BLE001 - the physical planner's errors and panics
            reraise_interrupts(exc)
            reason = f"DataFusion's planner: {clean(exc)}"
        self._checked[node_id] = reason
        return reason

    def schema(self, node_id: str):
        """The Arrow schema DataFusion gives node ``node_id``'s output: its consumer's logical plan,
        physically planned so a node the planner refuses has none (nothing read). Raises
        :class:`DataFusionCannot` or :class:`ExecutionError` (no such node)."""
        frame = self._frame(node_id, for_check=True)
        with self._lock:
            try:
                frame.execution_plan()
            except BaseException as exc:  # noqa: BLE001 - the physical planner's errors and panics
                reraise_interrupts(exc)
                text = clean(exc)
                self._checked[node_id] = f"DataFusion's planner: {text}"
                raise DataFusionCannot(self._checked[node_id], category(text)) from None
            self._checked[node_id] = None
            return frame.schema()

    def run(self, node_id: str, limit: int) -> DataFusionRows:
        """The first ``limit`` rows of node ``node_id`` on DataFusion. Raises :class:`DataFusionCannot`
        when DataFusion cannot take the node, :class:`ExecutionError` when running it fails."""
        frame = self._frame(node_id)
        start = time.perf_counter()
        table = self._execute(node_id, "running", lambda: frame.limit(limit + 1).to_arrow_table())
        elapsed = time.perf_counter() - start
        table = _without_views(table)
        more = table.num_rows > limit
        table = head(table, limit)
        return DataFusionRows(table, more, [str(t) for t in table.schema.types], elapsed)

    def count(self, node_id: str) -> int:
        """Node ``node_id``'s exact number of rows on DataFusion; raises as :meth:`run` does."""
        return self._execute(node_id, "counting", self._frame(node_id).count)

    @staticmethod
    def _execute(node_id: str, doing: str, action):
        """``action()`` (executing node ``node_id``'s DataFrame), DataFusion's failures as :meth:`run` says."""
        try:
            return action()
        except BaseException as exc:  # noqa: BLE001 - DataFusion raises several kinds at execution, and panics
            reraise_interrupts(exc)
            text = clean(exc)
            # a schema error is its planner's too (a column its own plan names and its consumer lost), never
            # the data's: the node is not compared, rather than counted as a disagreement
            if any(word in text.lower() for word in ("not implemented", "unsupported", "schema error")):
                raise DataFusionCannot(f"DataFusion's planner: {text}", category(text)) from None
            raise ExecutionError(f"DataFusion failed {doing} node {node_id}: {text}") from None


#: What :func:`filters_above_reads` tells a person whose read it rewrote.
FILTER_NOTE = (
    "DataFusion's consumer does not apply a read's filter (it takes it as a scan hint), so it is "
    "applied in a filter above the read there"
)
TYPES_NOTE = (
    "a read that names its columns but not their types is given to DataFusion's consumer, which needs them, "
    "with the types of the bound table's columns"
)
PROJECT_NOTE = (
    "DataFusion's consumer reads a ProjectRel by the spec (input fields, then expressions), so each one the "
    "producer wrote as outputting only its expressions is given an emit that says so"
)


GROUPING_NOTE = (
    "DataFusion's consumer puts its grouping id after the keys of an aggregate of several grouping sets, "
    "whatever the plan's producer wrote, so each such aggregate is given an emit that puts its columns where "
    "the plan has them"
)
GROUPING_INDEX_NOTE = (
    "DataFusion has no grouping-set index: its grouping id (a bit mask of the keys each set leaves out) "
    "stands in that column of an aggregate of several grouping sets, so where the plan reads the column, "
    "DataFusion's values are not the plan's"
)


def filters_above_reads(rel: algebra_pb2.Rel) -> int:
    """Every read in ``rel`` that has a ``filter`` gets it applied again in a ``FilterRel`` above it (the
    read's projection and emit moved to a ``ProjectRel`` over that filter, since the filter reads the
    read's direct schema); returns how many reads were rewritten. A projection of nested fields is
    left as it is."""
    count = 0
    stack: list = [rel]
    while stack:
        msg = stack.pop()
        if isinstance(msg, algebra_pb2.Rel) and msg.WhichOneof("rel_type") == "read" and msg.read.HasField("filter"):
            if _filter_above(msg):
                count += 1
                msg = msg.filter.input if msg.WhichOneof("rel_type") == "filter" else msg.project.input.filter.input
        for fd, value in msg.ListFields():
            if fd.message_type is None or fd.message_type.GetOptions().map_entry:
                continue
            stack.extend(value if fd.is_repeated else [value])
    return count


def _filter_above(rel: algebra_pb2.Rel) -> bool:
    read = rel.read
    items = list(read.projection.select.struct_items) if read.HasField("projection") else None
    if items is not None and any(item.HasField("child") for item in items):
        return False
    fields = [item.field for item in items] if items is not None else None
    emit = list(read.common.emit.output_mapping) if read.common.HasField("emit") else None
    inner = algebra_pb2.Rel()
    inner.read.CopyFrom(read)  # the filter stays in the read too: DataFusion prunes files with it
    inner.read.ClearField("projection")
    inner.read.common.ClearField("emit")
    filtered = algebra_pb2.Rel()
    filtered.filter.input.CopyFrom(inner)
    filtered.filter.condition.CopyFrom(read.filter)
    if fields is None and emit is None:
        rel.CopyFrom(filtered)
        return True
    if fields is None:
        mapping = emit
    else:
        mapping = fields if emit is None else [fields[i] for i in emit]
    out = algebra_pb2.Rel()
    out.project.input.CopyFrom(filtered)
    out.project.common.emit.output_mapping.extend(mapping)
    rel.CopyFrom(out)
    return True


__all__ = [
    "DataFusionCannot",
    "DataFusionRows",
    "DataFusionRunner",
    "ENGINE",
    "FILTER_NOTE",
    "GROUPING_INDEX_NOTE",
    "GROUPING_NOTE",
    "PROJECT_NOTE",
    "TYPES_NOTE",
    "category",
    "clean",
    "filters_above_reads",
]
