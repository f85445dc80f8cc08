"""What each engine does with a plan's fields beyond refusing them: fields it ignores or reads
differently, and fields newer than the spec version it reads.

Two parts, for the portability view:

- **Field facts** (:data:`SPARK_FACTS`, :data:`DATAFUSION_FACTS`): one table per engine of the fields it
  takes as a hint only, ignores, or reads differently from the spec. Each fact names the test in
  ``tests/engines/test_engine_facts.py`` that runs the engine on a plan that sets the field and on one
  that does not. "spark" is our translation to PySpark; "datafusion" is DataFusion 55's Substrait
  consumer as it is, without the runner's re-applied read filters (:func:`executor.engines.datafusion.
  filters_above_reads`). A field an engine refuses is not here: the portability view says so already.
  :func:`field_uses` says which facts apply to which node.
- **Version skew** (:func:`version_skew`): the plan's declared spec version against the version each
  engine's protobuf library reads, and per node the fields an engine does not know. DataFusion's are
  found by a round trip through its own protobuf (prost drops the fields it does not know); ours are
  the unknown fields and enum values the loader reported (protobuf keeps what it does not know as
  unknown fields; the loader names and drops them).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from substrait import algebra_pb2, plan_pb2

Rel = algebra_pb2.Rel
PROOFS = "tests/engines/test_engine_facts.py"
_PARTIAL_PHASES = frozenset(
    {
        algebra_pb2.AGGREGATION_PHASE_INITIAL_TO_INTERMEDIATE,
        algebra_pb2.AGGREGATION_PHASE_INTERMEDIATE_TO_INTERMEDIATE,
        algebra_pb2.AGGREGATION_PHASE_INTERMEDIATE_TO_RESULT,
    }
)


@dataclass(frozen=True)
class FieldFact:
    engine: str  # "spark" (our translation to PySpark) or "datafusion" (DataFusion 55's consumer)
    field: str  # e.g. "ReadRel.filter", "AggregateFunction.phase"
    effect: str  # "ignored" | "hint" (taken as a hint only, not applied) | "differs" (read differently)
    says: str  # one sentence for a person: what the engine does with it and what that means for rows
    proof: str  # the test that proves it
    applies: Callable[[Rel], bool]  # whether a node's relation sets the field

    def to_json(self) -> dict:
        return {
            "engine": self.engine,
            "field": self.field,
            "effect": self.effect,
            "says": self.says,
            "proof": self.proof,
        }


# ---- predicates over a relation ------------------------------------------------------------------


def _body(rel: Rel) -> Message | None:
    kind = rel.WhichOneof("rel_type")
    return getattr(rel, kind) if kind else None


def _read_sets(name: str) -> Callable[[Rel], bool]:
    return lambda rel: rel.WhichOneof("rel_type") == "read" and rel.read.HasField(name)


def _partial_phase(rel: Rel) -> bool:
    """An aggregate with a measure asked for a partial phase (the plain INITIAL_TO_RESULT is what every
    engine computes anyway)."""
    return rel.WhichOneof("rel_type") == "aggregate" and any(
        m.measure.phase in _PARTIAL_PHASES for m in rel.aggregate.measures
    )


def _has_hint(rel: Rel) -> bool:
    body = _body(rel)
    return body is not None and "common" in body.DESCRIPTOR.fields_by_name and body.common.HasField("hint")


def _proof(name: str) -> str:
    return f"{PROOFS}::{name}"


# ---- the tables ----------------------------------------------------------------------------------

DATAFUSION_FACTS: tuple[FieldFact, ...] = (
    FieldFact(
        "datafusion",
        "ReadRel.filter",
        "hint",
        "DataFusion 55 takes a read's filter as a scan hint only: the rows the filter should remove come out "
        "too, so a read run alone (or a plan that does not repeat the filter above the read) gives too many rows; our "
        "runner re-applies it in a FilterRel, plain DataFusion does not.",
        _proof("test_datafusion_takes_read_filter_as_a_hint"),
        _read_sets("filter"),
    ),
    FieldFact(
        "datafusion",
        "ReadRel.best_effort_filter",
        "hint",
        "DataFusion 55 does not remove the rows a read's best-effort filter rejects, which the spec allows: "
        "the rows are right only if the plan filters them again above the read.",
        _proof("test_datafusion_does_not_apply_best_effort_filter"),
        _read_sets("best_effort_filter"),
    ),
    FieldFact(
        "datafusion",
        "AggregateFunction.phase",
        "ignored",
        "DataFusion 55 ignores a measure's phase and always computes the final result, so a plan that asks "
        "for a partial (intermediate) phase gets finished values where it expects intermediate ones.",
        _proof("test_datafusion_ignores_aggregate_phase"),
        _partial_phase,
    ),
    FieldFact(
        "datafusion",
        "RelCommon.hint",
        "ignored",
        "DataFusion 55 ignores a relation's hint (statistics, alias, constraints): rows are the same, only "
        "its own planning decides.",
        _proof("test_datafusion_ignores_rel_hint"),
        _has_hint,
    ),
)

SPARK_FACTS: tuple[FieldFact, ...] = (
    FieldFact(
        "spark",
        "AggregateFunction.phase",
        "ignored",
        "Our translation ignores a measure's phase and Spark computes the final result, so a plan that asks "
        "for a partial (intermediate) phase gets finished values where it expects intermediate ones.",
        _proof("test_spark_ignores_aggregate_phase"),
        _partial_phase,
    ),
    FieldFact(
        "spark",
        "RelCommon.hint",
        "ignored",
        "Our translation ignores a relation's hint (statistics, alias, constraints): rows are the same, "
        "Spark's optimizer decides alone.",
        _proof("test_spark_ignores_rel_hint"),
        _has_hint,
    ),
)

FACTS: dict[str, tuple[FieldFact, ...]] = {"spark": SPARK_FACTS, "datafusion": DATAFUSION_FACTS}


def field_uses(model) -> dict[str, tuple[FieldFact, ...]]:
    """Node id -> the facts (of every engine) that apply to that node; nodes with none are left out."""
    out: dict[str, tuple[FieldFact, ...]] = {}
    for nid, node in model.graph.nodes.items():
        found = tuple(f for facts in FACTS.values() for f in facts if f.applies(node.rel))
        if found:
            out[nid] = found
    return out


# ---- version skew --------------------------------------------------------------------------------


@dataclass(frozen=True)
class EngineVersion:
    engine: str
    reads: str  # the spec version the engine's library reads, e.g. "0.85.0"
    how: str  # how we know


@dataclass(frozen=True)
class VersionNote:
    """A field or message on a node that one engine's Substrait version does not know, in words."""

    engine: str  # "spark" or "datafusion"
    text: str


@dataclass(frozen=True)
class VersionSkew:
    plan_version: str | None  # the plan's declared spec version
    engines: tuple[EngineVersion, ...]
    notes: tuple[str, ...]  # plan-wide
    nodes: dict[str, tuple[VersionNote, ...]]  # node id -> fields/messages on it an engine does not know

    def to_json(self) -> dict:
        return {
            "plan_version": self.plan_version,
            "engines": [{"engine": e.engine, "reads": e.reads, "how": e.how} for e in self.engines],
            "notes": list(self.notes),
            "nodes": {nid: [n.text for n in notes] for nid, notes in self.nodes.items()},
        }


def _text(v) -> str:
    return f"{v.major_number}.{v.minor_number}.{v.patch_number}"


def _key(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


@functools.cache
def datafusion_version() -> EngineVersion:
    """The spec version DataFusion's protobuf reads: its producer writes it into every plan it makes."""
    from datafusion import SessionContext
    from datafusion.substrait import Producer

    ctx = SessionContext()
    plan = plan_pb2.Plan()
    plan.ParseFromString(Producer.to_substrait_plan(ctx.from_pydict({"x": [1]}).logical_plan(), ctx).encode())
    return EngineVersion("datafusion", _text(plan.version), "the version DataFusion's own producer writes in a plan")


@functools.cache
def spark_version() -> EngineVersion:
    from substrait.version import substrait_version

    return EngineVersion(
        "spark", substrait_version, "substrait-python's bundled protos, which our translation reads the plan through"
    )


_ENGINE_WORDS = {"datafusion": "DataFusion", "spark": "our Spark translation"}


def version_skew(model) -> VersionSkew:
    """The plan's spec version against each engine's, and per node the fields an engine does not know."""
    plan = model.plan
    declared = _text(plan.version) if plan.HasField("version") else None
    if declared == "0.0.0":
        declared = None
    engines = (spark_version(), datafusion_version())
    notes = []
    if declared is not None:
        for e in engines:
            if _key(declared) > _key(e.reads):
                notes.append(
                    f"the plan declares spec {declared}, newer than the {e.reads} that {_ENGINE_WORDS[e.engine]} "
                    "reads: fields added since are dropped without a word"
                )
    nodes: dict[str, list[VersionNote]] = {}
    paths = _node_paths(model)
    dropped, error = _datafusion_dropped(model, paths)
    if error:
        notes.append(
            f"DataFusion's protobuf could not read the plan back, so its unknown fields are not known: {error}"
        )
    reads = engines[1].reads
    for nid, fields in dropped.items():
        words = [f"DataFusion (spec {reads}) does not know {f}: it drops it" for f in dict.fromkeys(fields)]
        if nid is None:
            notes.extend(words)
        else:
            nodes.setdefault(nid, []).extend(VersionNote("datafusion", w) for w in words)
    for d in model.plan_diagnostics:
        if d.code not in ("unknown-field", "unknown-enum-value"):
            continue
        words = f"our Spark translation reads spec {engines[0].reads}, which does not know this: {d.message}"
        nid = _owner(d.path, paths) if d.path else None
        if nid is None:
            notes.append(words)
        else:
            nodes.setdefault(nid, []).append(VersionNote("spark", words))
    return VersionSkew(declared, engines, tuple(dict.fromkeys(notes)), {k: tuple(v) for k, v in nodes.items()})


# ---- where a field sits ---------------------------------------------------------------------------


def _node_paths(model) -> dict[str, str]:
    """Each node's JSON path in the plan (``relations[0].root.input.filter.input``), camelCase names."""
    by_id = {id(n.rel): nid for nid, n in model.graph.nodes.items()}
    out: dict[str, str] = {}
    stack: list[tuple[Message, str]] = [(model.plan, "")]
    while stack:
        msg, path = stack.pop()
        nid = by_id.get(id(msg))
        if nid is not None and nid not in out:
            out[nid] = path
        for fd, value in msg.ListFields():
            if fd.type != FieldDescriptor.TYPE_MESSAGE or fd.message_type.GetOptions().map_entry:
                continue
            here = f"{path}.{fd.json_name}" if path else fd.json_name
            if fd.is_repeated:
                stack.extend((item, f"{here}[{i}]") for i, item in enumerate(value))
            else:
                stack.append((value, here))
    return out


_SNAKE = re.compile(r"_([a-z0-9])")


def _owner(path: str, paths: dict[str, str]) -> str | None:
    """The node whose path is the longest prefix of ``path`` (either naming style)."""
    norm = ".".join(_SNAKE.sub(lambda m: m.group(1).upper(), p) for p in path.strip(".").split("."))
    best, length = None, -1
    for nid, p in paths.items():
        if (norm == p or norm.startswith(p + ".") or norm.startswith(p + "[")) and len(p) > length:
            best, length = nid, len(p)
    return best


def _datafusion_dropped(model, paths: dict[str, str]) -> tuple[dict[str | None, list[str]], str | None]:
    """Fields set in the plan and gone after a round trip through DataFusion's protobuf, by owning node
    (None: the plan itself), as ``Message.field``."""
    from datafusion.substrait import Serde

    try:
        back = plan_pb2.Plan()
        back.ParseFromString(Serde.deserialize_bytes(model.plan_bytes).encode())
    except BaseException as exc:  # pyo3's PanicException is a BaseException
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return {}, " ".join(str(exc).split())[:300]
    by_id = {id(n.rel): nid for nid, n in model.graph.nodes.items()}
    out: dict[str | None, list[str]] = {}
    stack: list[tuple[Message, Message, str | None]] = [(model.plan, back, None)]
    while stack:
        ours, theirs, owner = stack.pop()
        owner = by_id.get(id(ours), owner)
        for fd, value in ours.ListFields():
            name = f"{ours.DESCRIPTOR.name}.{fd.name}"
            if fd.is_repeated:
                other = getattr(theirs, fd.name)
                if len(other) < len(value):
                    out.setdefault(owner, []).append(name)
                if fd.type == FieldDescriptor.TYPE_MESSAGE and not fd.message_type.GetOptions().map_entry:
                    stack.extend((a, b, owner) for a, b in zip(value, other))
            elif fd.type == FieldDescriptor.TYPE_MESSAGE:
                if not theirs.HasField(fd.name):
                    out.setdefault(owner, []).append(name)
                else:
                    stack.append((value, getattr(theirs, fd.name), owner))
            elif not _same_scalar(getattr(theirs, fd.name), value):
                out.setdefault(owner, []).append(name)
    return out, None


def _same_scalar(a, b) -> bool:
    """Equal, a NaN literal equal to itself (NaN != NaN would name the field as dropped)."""
    return a == b or (isinstance(a, float) and isinstance(b, float) and a != a and b != b)
