"""Function extensions: resolve a plan's function anchors to names, and to the standard YAMLs.

A plan declares each function it uses (anchor, compound name such as ``sum:dec``, extension URN or
legacy URI). The standard definitions ship in the ``substrait-extensions`` package; they give the
UI a description and the signatures. Resolution is by the name before ``:``, within the declared
extension file where that is a standard one, else across all standard files.

Extension URIs and URNs are names, never addresses: nothing here is fetched.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field

from substrait import plan_pb2


@dataclass(frozen=True)
class FunctionDef:
    """A function as the standard extension YAML defines it."""

    name: str
    kind: str  # "scalar", "aggregate" or "window"
    extension: str  # file stem, e.g. "functions_arithmetic"
    urn: str
    description: str
    signatures: tuple[str, ...]


@dataclass(frozen=True)
class FunctionRef:
    """A function anchor of one plan, resolved."""

    anchor: int
    compound_name: str  # as declared, e.g. "sum:dec"
    extension: str  # the declared URN or (legacy) URI, "" when the reference dangles
    legacy_uri: bool
    definition: FunctionDef | None

    @property
    def name(self) -> str:
        return self.compound_name.split(":", 1)[0]

    def to_json(self) -> dict:
        out = {
            "anchor": self.anchor,
            "name": self.name,
            "signature": self.compound_name,
            "extension": self.extension,
        }
        if self.legacy_uri:
            out["legacy_uri"] = True
        if self.definition is not None:
            out["description"] = self.definition.description
            out["kind"] = self.definition.kind
        return out


def _extension_dir() -> str | None:
    try:
        import substrait_extensions.extensions as pkg
    except ImportError:  # pragma: no cover - dependency missing
        return None
    return os.path.dirname(pkg.__file__)


def _signature(impl: dict) -> str:
    args = []
    for arg in impl.get("args") or []:
        if "value" in arg:
            args.append(str(arg["value"]))
        elif "options" in arg:
            args.append("{" + "|".join(str(o) for o in arg["options"]) + "}")
        else:
            args.append(str(arg.get("type", "?")))
    ret = str(impl.get("return", "?")).strip().splitlines()[-1].strip()
    return f"({', '.join(args)}) -> {ret}"


def yaml_loader():
    """libyaml's safe loader where PyYAML was built with it (about ten times faster), else PyYAML's."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@functools.lru_cache(maxsize=1)
def standard_documents() -> dict[str, dict]:
    """Every ``functions*.yaml`` of ``substrait-extensions``, parsed once (file name -> document, in
    the directory's order); the documents are shared, so they are only read."""
    import yaml

    directory = _extension_dir()
    if directory is None:
        return {}
    out = {}
    for filename in os.listdir(directory):
        if filename.startswith("functions") and filename.endswith(".yaml"):
            with open(os.path.join(directory, filename), "rb") as fh:
                out[filename] = yaml.load(fh, Loader=yaml_loader())
    return out


@functools.lru_cache(maxsize=1)
def standard_functions() -> dict[str, list[FunctionDef]]:
    """Every function of the standard extension YAMLs, by lower-case name."""
    out: dict[str, list[FunctionDef]] = {}
    documents = standard_documents()
    for filename in sorted(documents):
        if not filename.startswith("functions_"):
            continue
        doc = documents[filename]
        stem = filename[: -len(".yaml")]
        urn = doc.get("urn", "")
        for kind in ("scalar", "aggregate", "window"):
            for fn in doc.get(f"{kind}_functions") or []:
                name = str(fn.get("name", ""))
                definition = FunctionDef(
                    name=name,
                    kind=kind,
                    extension=stem,
                    urn=urn,
                    description=" ".join(str(fn.get("description", "")).split()),
                    signatures=tuple(_signature(i) for i in fn.get("impls") or []),
                )
                out.setdefault(name.lower(), []).append(definition)
    return out


_STEM = re.compile(r"(functions_[a-z_]+)")


def extension_stem(uri_or_urn: str) -> str | None:
    """``functions_arithmetic`` from a URN ``extension:io.substrait:functions_arithmetic`` or a URI
    ending in ``functions_arithmetic.yaml``; None for a non-standard extension."""
    match = _STEM.search(uri_or_urn.rsplit("/", 1)[-1])
    return match.group(1) if match else None


def names_the_spec(uri_or_urn: str) -> bool:
    """Whether an extension is the spec's own: a standard YAML's URN or file, or a URI into the spec's
    repository (DuckDB declares ``.../substrait/blob/main/extensions/``, the folder)."""
    return extension_stem(uri_or_urn) is not None or "github.com/substrait-io/substrait/" in uri_or_urn


def find_definition(name: str, extension: str) -> FunctionDef | None:
    candidates = standard_functions().get(name.lower())
    if not candidates:
        return None
    stem = extension_stem(extension)
    for c in candidates:
        if c.extension == stem:
            return c
    # No standard file named (or a non-standard one): the generic definition beats the
    # decimal-output and approximate variants.
    return sorted(candidates, key=lambda c: ("decimal" in c.extension, "approx" in c.extension))[0]


@dataclass
class Extensions:
    """The extension declarations of one plan."""

    functions: dict[int, FunctionRef] = field(default_factory=dict)
    urns: dict[int, str] = field(default_factory=dict)
    legacy_uri_anchors: set[int] = field(default_factory=set)
    types: dict[int, str] = field(default_factory=dict)

    @classmethod
    def of(cls, plan: plan_pb2.Plan, legacy_uri_anchors: set[int] | None = None) -> Extensions:
        legacy = set(legacy_uri_anchors or ())
        urns = {u.extension_urn_anchor: u.urn for u in plan.extension_urns}
        out = cls(urns=urns, legacy_uri_anchors=legacy)
        for decl in plan.extensions:
            which = decl.WhichOneof("mapping_type")
            if which == "extension_function":
                f = decl.extension_function
                ext = urns.get(f.extension_urn_reference, "")
                name = f.name.split(":", 1)[0]
                out.functions[f.function_anchor] = FunctionRef(
                    anchor=f.function_anchor,
                    compound_name=f.name,
                    extension=ext,
                    legacy_uri=f.extension_urn_reference in legacy,
                    definition=find_definition(name, ext),
                )
            elif which == "extension_type":
                out.types[decl.extension_type.type_anchor] = decl.extension_type.name
        return out

    def to_json(self) -> dict:
        return {
            "extensions": [
                {"anchor": a, ("uri" if a in self.legacy_uri_anchors else "urn"): u}
                for a, u in sorted(self.urns.items())
            ],
            "functions": [f.to_json() for _, f in sorted(self.functions.items())],
        }
