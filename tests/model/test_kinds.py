"""The relation kinds: one registry (viz.kinds), and every pass's dispatch table covers every kind
of the protobuf, so a kind a pass misses fails here rather than on a user's plan."""

from __future__ import annotations

import pytest

from tests.support import ROOT
from viz.kinds import JOIN_KINDS, KINDS, PROTO_KINDS, kind


def _tables() -> dict[str, dict]:
    from executor.translate.rel import RELATIONS
    from viz.describe import DESCRIBE
    from viz.lineage import RULES as LINEAGE
    from viz.properties import RULES
    from viz.render import _KIND_TITLES
    from viz.schema import DERIVE

    return {
        "registry": KINDS,
        "schemas": DERIVE,
        "properties": RULES,
        "words": DESCRIBE,
        "titles": _KIND_TITLES,
        "Spark": RELATIONS,
        "lineage": LINEAGE,
    }


def test_the_protobuf_has_the_kinds_the_registry_knows():
    assert len(PROTO_KINDS) == 24 and "hash_join" in PROTO_KINDS and "top_n" in PROTO_KINDS


@pytest.mark.parametrize("table", list(_tables()))
def test_each_pass_has_a_rule_for_every_kind(table):
    rules = _tables()[table]
    assert sorted(set(PROTO_KINDS) - set(rules)) == [], f"the {table} pass misses these kinds"
    assert sorted(set(rules) - set(PROTO_KINDS)) == [], f"the {table} pass has rules for kinds the protobuf lacks"


def test_the_facts_the_passes_read():
    assert JOIN_KINDS == {"join", "cross", "hash_join", "merge_join", "nested_loop_join", "lateral_join"}
    assert {k for k, v in KINDS.items() if v.changes} == {"write", "ddl", "update"}
    assert {k for k, v in KINDS.items() if v.keeps_input_rows} == {"filter", "sort", "fetch"}
    assert kind("top_n").matches == kind("sort").matches == "sort" and kind("project").matches == "project"
    assert kind("no_such_kind").title == "no_such_kind" and kind("").title == "(empty)"


def test_the_kinds_that_change_data_are_refused_by_the_translation():
    from executor.translate import rel as tr

    assert {k for k, rule in tr.RELATIONS.items() if rule is tr.refused} == tr.REFUSED_RELATIONS


def test_emit_is_read_in_one_place():
    """Every pass reads a relation's emit through ``viz.kinds.emit``."""
    import pathlib

    root = pathlib.Path(ROOT)
    readers = sorted(
        str(p.relative_to(root))
        for folder in ("viz", "executor", "ui", "pages")
        for p in (root / folder).rglob("*.py")
        if "emit_kind" in p.read_text(encoding="utf-8")
    )
    assert readers == ["viz/kinds.py"]
