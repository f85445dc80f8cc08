"""A function's output type from the extension YAMLs, by the spec's derivation rules.

Plans may leave out a function's output type (DataFusion writes none for aggregates, window functions,
``like`` and ``not``). The type is then derived the way the spec defines it: the function's overload is
resolved by name and argument types, and its return-type expression is evaluated with the arguments'
parameters bound (``sum`` of ``decimal<15,2>`` is ``decimal<38,2>?``; ``multiply`` of two
``decimal<15,2>`` is ``decimal<31,4>``), with the overload's nullability handling. The resolution and
the evaluation are substrait-python's :class:`~substrait.extension_registry.ExtensionRegistry` (which
parses derivation expressions with the ``substrait-antlr`` grammar), not a reading of our own.

Producers also call functions the standard YAMLs do not define for those argument types (DataFusion's
``stddev`` of a decimal, its ``like`` with an escape argument). Those overloads are declared in
``producer_extensions.yaml`` beside this module, registered in the same registry after the standard
files, and the derivation says when it used one.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from substrait import type_pb2

Type = type_pb2.Type

#: Our own extension (producers' overloads, see the module docstring).
PRODUCER_URN = "extension:io.substrait-viz:producer_functions"
_PRODUCER_YAML = os.path.join(os.path.dirname(__file__), "producer_extensions.yaml")

#: Names producers write for standard functions (the standard name is looked up instead).
ALIASES = {
    "stddev": "std_dev",
    "stddev_samp": "std_dev",
    "stddev_pop": "std_dev",
    "var": "variance",
    "var_samp": "variance",
    "var_pop": "variance",
    "character_length": "char_length",
    "substr": "substring",
    "mean": "avg",
}

_lock = threading.RLock()


@dataclass(frozen=True)
class Derived:
    """The result of deriving an output type: the type (None when it cannot be derived) and, for the
    node's diagnostic, how it was derived or why it could not be."""

    type: Type | None
    how: str
    #: whether some extension YAML defines a function of this name (so a None type means the
    #: arguments match none of its overloads)
    defined: bool = True


#: The top-level lists of an extension YAML that declare functions.
_FUNCTION_LISTS = ("scalar_functions", "aggregate_functions", "window_functions")


@functools.lru_cache(maxsize=1)
def _documents() -> tuple[dict, ...]:
    """The standard extension YAMLs the registry loads by default (the same files, in its order), then
    ours."""
    import yaml

    from .extensions import standard_documents, yaml_loader

    with open(_PRODUCER_YAML, "rb") as fh:
        ours = yaml.load(fh, Loader=yaml_loader())
    return (*standard_documents().values(), ours)


def _only(doc: dict, names: Collection[str]) -> dict:
    """``doc`` with only the functions named ``names``."""
    return {**doc, **{k: [f for f in doc[k] if f.get("name") in names] for k in _FUNCTION_LISTS if doc.get(k)}}


class _Registry:
    """substrait-python's registry of every extension YAML, filled one function name at a time:
    registering an overload parses its argument types with the ANTLR grammar, and a plan calls a few
    of the hundreds of functions."""

    def __init__(self) -> None:
        from substrait.extension_registry import ExtensionRegistry

        self.registry = ExtensionRegistry(load_default_extensions=False)
        self.names: set[str] = set()
        for doc in _documents():  # every URN, so that the search order is the whole registry's
            self.registry.register_extension_dict(_only(doc, ()))

    def having(self, names: Sequence[str]):
        """The registry, with every overload of the functions ``names`` registered."""
        new = {n for n in names if n not in self.names}
        if new:
            for doc in _documents():
                if any(f.get("name") in new for k in _FUNCTION_LISTS for f in doc.get(k) or ()):
                    self.registry.register_extension_dict(_only(doc, new))
            self.names |= new
        return self.registry


@functools.lru_cache(maxsize=1)
def _lazy() -> _Registry:
    return _Registry()


def registry(*names: str):
    """The extension registry (every standard YAML of ``substrait-extensions``, then ours) holding at
    least the functions ``names``: what it holds of other functions depends on what was asked before."""
    with _lock:
        return _lazy().having(names)


def _search_order(extension: str) -> list[str]:
    """URNs to search: the declared standard file first, then the base files before their decimal-output
    and approximate variants, then the producers' overloads."""
    from .extensions import extension_stem

    urns = [u for u in registry().urns() if u != PRODUCER_URN]
    urns.sort(key=lambda u: ("decimal" in u, "approx" in u, u))
    stem = extension_stem(extension or "")
    if stem:
        first = f"extension:io.substrait:{stem}"
        if first in urns:
            urns.remove(first)
            urns.insert(0, first)
    return urns + [PRODUCER_URN]


def _plain(t: Type) -> Type:
    """``t`` without a type variation (DataFusion marks unsigned integers with one): the YAMLs match
    the base type."""
    kind = t.WhichOneof("kind")
    if kind is None or not getattr(getattr(t, kind), "type_variation_reference", 0):
        return t
    out = Type()
    out.CopyFrom(t)
    getattr(out, kind).type_variation_reference = 0
    return out


def derive(name: str, extension: str, args: Sequence[Type | str | None]) -> Derived:
    """The output type of function ``name`` (the part before ``:``) declared in ``extension`` (its URN
    or legacy URI) called with ``args``: value arguments as types, enumeration arguments as their
    option text, None for an argument whose type is unknown."""
    # a type message with no kind set says nothing of the type either
    unknown = [i for i, a in enumerate(args) if a is None or (isinstance(a, Type) and a.WhichOneof("kind") is None)]
    if unknown:
        which = ", ".join(str(i) for i in unknown)
        return Derived(None, f"the type of argument {which} is unknown")
    signature = [a if isinstance(a, str) else _plain(a) for a in args]
    return _derive(
        name.lower(), extension, tuple(s.SerializeToString() if isinstance(s, Type) else s for s in signature)
    )


@functools.lru_cache(maxsize=4096)
def _derive(name: str, extension: str, key: tuple) -> Derived:
    signature = [k if isinstance(k, str) else Type.FromString(k) for k in key]
    names = [name] + ([ALIASES[name]] if ALIASES.get(name, name) != name else [])
    with _lock:  # the registry grows as functions are asked for: one reader or writer at a time
        return _resolve(registry(*names), name, names, extension, signature)


def _resolve(reg, name: str, names: list[str], extension: str, signature: list) -> Derived:
    for candidate in names:
        try:
            found = reg.find_function(candidate, signature, _search_order(extension))
        except (TypeError, ValueError, KeyError, AttributeError) as exc:  # the registry on an odd signature
            return Derived(None, f"the extension registry could not match {name}: {type(exc).__name__}: {exc}")
        if found is None:
            continue
        entry, out = found
        if not isinstance(out, Type) or out.WhichOneof("kind") is None:
            continue
        if _declared_nullable(entry.impl.return_):
            out = _nullable(out)
        stem = entry.urn.rsplit(":", 1)[-1]
        if entry.urn == PRODUCER_URN:
            how = f"{entry!r} (a producer's overload, not in the standard extensions)"
        else:
            how = f"{entry!r} of {stem}.yaml"
        if candidate != name:
            how += f" ({name} is written for {candidate})"
        return Derived(out, how)
    rendered = ", ".join(k if isinstance(k, str) else _render(k) for k in signature)
    defined = any(reg.list_functions_across_urns(n, []) or _has_name(reg, n) for n in names)
    if not defined:
        return Derived(None, f"no extension YAML defines a function {name!r}", defined=False)
    return Derived(None, f"no overload of {name} in the extension YAMLs takes ({rendered})")


#: A return type marked nullable: ``any1?``, ``i64?``, ``decimal?<P,S>`` (the last line of a return program).
_NULLABLE_RETURN = re.compile(r"^\s*[A-Za-z_][A-Za-z0-9_]*\?")


def _declared_nullable(text: object) -> bool:
    """Whether an overload's return type is declared nullable; substrait-python's registry keeps a type
    variable's bound nullability (``any1?`` of a required ``string`` gives a required ``string``)."""
    lines = [line for line in str(text or "").splitlines() if line.strip()]
    return bool(lines) and bool(_NULLABLE_RETURN.match(lines[-1]))


def _nullable(t: Type) -> Type:
    kind = t.WhichOneof("kind")
    if getattr(t, kind).nullability == Type.NULLABILITY_NULLABLE:
        return t
    out = Type()
    out.CopyFrom(t)
    getattr(out, kind).nullability = Type.NULLABILITY_NULLABLE
    return out


def _has_name(reg, name: str) -> bool:
    return any(n == name for _, n, _ in reg.iter_functions())


def _render(t: Type) -> str:
    from .types import render

    return render(t)


__all__ = ["ALIASES", "Derived", "PRODUCER_URN", "derive", "registry"]
