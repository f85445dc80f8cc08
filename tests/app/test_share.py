"""The shared-plan store behind share links (ui.state.share): content-addressed, and nothing but a digest
from a URL ever reaches the file system."""

from __future__ import annotations

import hashlib
import os

import pytest

from ui.state import share
from ui.state.plan_source import Plan

DATA = b'{"relations": []}'


def test_round_trip_is_content_addressed(tmp_path):
    digest = share.save_shared(DATA, str(tmp_path))
    assert digest == hashlib.sha256(DATA).hexdigest()
    assert share.load_shared(digest, str(tmp_path)) == DATA
    assert os.listdir(tmp_path) == [f"{digest}.plan"]
    # saving again writes nothing new and gives the same digest
    assert share.save_shared(DATA, str(tmp_path)) == digest
    assert os.listdir(tmp_path) == [f"{digest}.plan"]


def test_the_default_folder_is_under_the_cache():
    from executor.data.generate import CACHE

    assert share.SHARE_DIR == os.path.join(CACHE, "shared")


@pytest.mark.parametrize(
    "bad",
    [
        "../x",
        "../" + "a" * 61,
        "A" * 64,  # uppercase hex
        "a" * 63,  # too short
        "a" * 65,  # too long
        "g" * 64,  # not hex
        "/" + "a" * 63,
        "",
    ],
)
def test_bad_digests_are_refused(tmp_path, bad):
    (tmp_path / "x").write_bytes(DATA)  # a file a path trick might reach
    assert share.load_shared(bad, str(tmp_path)) is None
    assert not share.is_digest(bad)


def test_an_unknown_digest_is_none(tmp_path):
    assert share.load_shared("0" * 64, str(tmp_path)) is None


def test_a_tampered_file_is_refused_and_a_new_save_repairs_it(tmp_path):
    digest = share.save_shared(DATA, str(tmp_path))
    (tmp_path / f"{digest}.plan").write_bytes(b'{"relations": [1]}')
    assert share.load_shared(digest, str(tmp_path)) is None
    assert share.save_shared(DATA, str(tmp_path)) == digest
    assert share.load_shared(digest, str(tmp_path)) == DATA


def test_oversize_plans_are_refused_with_a_clear_message(tmp_path, monkeypatch):
    monkeypatch.setattr(share, "MAX_SHARED_BYTES", 10)
    with pytest.raises(share.ShareError, match=r"18 bytes; plans of at most 10 bytes can be shared"):
        share.save_shared(b"x" * 18, str(tmp_path))
    assert os.listdir(tmp_path) == []


def test_an_indented_json_plan_over_the_limit_is_shared_without_its_layout(tmp_path, monkeypatch):
    """A plan written with deep indentation (41 MB of a 300 KB plan) is shared as the same JSON without the
    whitespace, and opens to the same plan."""
    import json

    from viz.load import load_plan

    indented = json.dumps({"relations": [], "version": {"minorNumber": 80, "producer": "a b"}}, indent=40).encode()
    monkeypatch.setattr(share, "MAX_SHARED_BYTES", 80)
    assert len(indented) > 80
    digest = share.save_shared(indented, str(tmp_path))
    stored = share.load_shared(digest, str(tmp_path))
    assert stored == b'{"relations":[],"version":{"minorNumber":80,"producer":"a b"}}'
    assert load_plan(stored).plan == load_plan(indented).plan
    with pytest.raises(share.ShareError, match=r"the plan is 92 bytes"):
        share.save_shared(json.dumps({"relations": [], "version": {"producer": "x" * 50}}).encode(), str(tmp_path))
    # nested deeper than Python's JSON reader goes (a 1,000-deep chain of relations), its numbers as written
    monkeypatch.setattr(share, "MAX_SHARED_BYTES", 15_000)
    deep = b'{"a": ' * 2000 + b'[1E5, -0, "x \\" y"]' + b" }" * 2000
    stored = share.load_shared(share.save_shared(deep, str(tmp_path)), str(tmp_path))
    assert stored == b'{"a":' * 2000 + b'[1E5,-0,"x \\" y"]' + b"}" * 2000


def test_links_for_samples_and_for_other_plans(tmp_path):
    sample = Plan(b"{}", "tutorial.json", "tutorial.json")
    assert share.share_link(sample, "0.0.1", "present", str(tmp_path)) == "present?sample=tutorial.json&node=0.0.1"
    assert os.listdir(tmp_path) == []  # a sample needs nothing stored
    upload = Plan(DATA, "mine.json")
    digest = hashlib.sha256(DATA).hexdigest()
    # with the name it was opened under, so that the page it opens is headed alike
    assert share.share_link(upload, "0*4.1", "", str(tmp_path)) == f"?plan={digest}&name=mine.json&node=0%2A4.1"
    assert share.load_shared(digest, str(tmp_path)) == DATA
    # a plan from SQL: and the data it was made over
    made = Plan(DATA, "SQL: SELECT 1", written_for="tpch")
    assert share.share_link(made, None, "present", str(tmp_path)) == (
        f"present?plan={digest}&name=SQL%3A+SELECT+1&data=tpch"
    )
    # opened from a link without a name: none added
    shared = Plan(DATA, share.shared_name(digest), shared=digest)
    assert share.share_link(shared, "0", "", str(tmp_path)) == f"?plan={digest}&node=0"


def test_absolute_links():
    assert (
        share.absolute_link("present?sample=a.json", "http://host:8501/present?node=0")
        == "http://host:8501/present?sample=a.json"
    )
    assert (
        share.absolute_link("present?x=1", "https://h.example/app/present", "app")
        == "https://h.example/app/present?x=1"
    )
    assert share.absolute_link("present?x=1", None) == "present?x=1"
