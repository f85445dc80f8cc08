"""executor.settings reads every environment variable of the app once, and README's Settings table lists
each; executor.cache.BoundedCache keeps at most its bound, dropping the least recently used."""

from __future__ import annotations

import os
import re
import threading
from dataclasses import fields

import pytest

from executor.cache import BoundedCache
from executor.settings import Settings, variables

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: The folders and files of the app and the command line (the layers, and the benchmarks that drive them).
_CODE = ("viz", "executor", "ui", "pages", "app.py", "benchmarks")


def _python_files() -> list[str]:
    out = []
    for top in _CODE:
        path = os.path.join(ROOT, top)
        if path.endswith(".py"):
            out.append(path)
            continue
        for folder, dirs, files in os.walk(path):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            out.extend(os.path.join(folder, f) for f in files if f.endswith(".py"))
    return sorted(out)


def _settings_table() -> dict[str, str]:
    """README's Settings table: variable -> its "read by" cell."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as fh:
        text = fh.read()
    section = text.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([A-Z_0-9]+)` \| ([^|]+) \|", section, flags=re.M)
    return {name: read_by.strip() for name, read_by in rows}


def test_defaults_when_nothing_is_set():
    s = Settings.from_env({})
    assert s.data is None and s.spark_remote is None and s.java_home is None
    assert s.cache == os.path.join(os.path.expanduser("~"), ".cache", "substrait-viz")
    assert s.warm_up is True and s.layout_in_browser is False
    assert s.reap_after_s == 20.0
    assert s.run_slots == max(1, (os.cpu_count() or 2) // 2)
    assert (s.spark_master, s.spark_driver_memory) == ("local[*]", "2g")
    assert Settings() == s  # the dataclass's defaults are the environment's


def test_each_variable_sets_its_field():
    s = Settings.from_env(
        {
            "SUBSTRAIT_VIZ_DATA": "/data",
            "SUBSTRAIT_VIZ_CACHE": "/cache",
            "SUBSTRAIT_VIZ_WARM_UP": "0",
            "SUBSTRAIT_VIZ_LAYOUT": "browser",
            "SUBSTRAIT_VIZ_REAP_AFTER_S": "2.5",
            "SUBSTRAIT_VIZ_RUN_SLOTS": "3",
            "SPARK_MASTER": "spark://h:7077",
            "SPARK_REMOTE": "sc://h:15002",
            "SPARK_DRIVER_MEMORY": "4g",
            "JAVA_HOME": "/jdk",
        }
    )
    assert s == Settings(
        data="/data",
        cache="/cache",
        warm_up=False,
        layout_in_browser=True,
        reap_after_s=2.5,
        run_slots=3,
        spark_master="spark://h:7077",
        spark_remote="sc://h:15002",
        spark_driver_memory="4g",
        java_home="/jdk",
    )


@pytest.mark.parametrize("slots", ["0", "-2", "two", ""])
def test_run_slots_that_are_not_a_positive_number_take_the_default(slots):
    assert Settings.from_env({"SUBSTRAIT_VIZ_RUN_SLOTS": slots}).run_slots == Settings().run_slots


def test_a_delay_that_is_not_a_number_is_refused_by_name():
    with pytest.raises(ValueError, match="SUBSTRAIT_VIZ_REAP_AFTER_S must be a number of seconds, not 'soon'"):
        Settings.from_env({"SUBSTRAIT_VIZ_REAP_AFTER_S": "soon"})


def test_every_setting_is_in_the_readme_as_read_by_the_settings_module():
    table = _settings_table()
    assert len(variables()) == len(fields(Settings)) == 10
    for name in variables().values():
        assert name in table, f"{name} is missing from README's Settings table"
        assert "executor/settings.py" in table[name], f"README says {name} is read by {table[name]}"


def test_every_substrait_viz_variable_in_the_code_is_a_setting():
    named: set[str] = set()
    for path in _python_files():
        with open(path, encoding="utf-8") as fh:
            named.update(re.findall(r"SUBSTRAIT_VIZ_[A-Z_]+", fh.read()))
    assert named, "the search finds the variables"
    assert named <= set(variables().values()), named - set(variables().values())


def test_only_the_settings_module_reads_the_environment_of_the_app():
    readers = []
    for path in _python_files():
        rel = os.path.relpath(path, ROOT)
        if rel.startswith("benchmarks") or rel == os.path.join("executor", "settings.py"):
            continue
        with open(path, encoding="utf-8") as fh:
            if re.search(r"os\.environ|getenv", fh.read()):
                readers.append(rel)
    assert readers == []


# ---- BoundedCache ---------------------------------------------------------------------------


def test_the_cache_drops_the_least_recently_used_past_its_bound():
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # now "b" is the least recently used
    cache.put("c", 3)
    assert ("a" in cache, "b" in cache, "c" in cache) == (True, False, True)
    assert len(cache) == 2
    assert cache.get("b") is None and cache.get("b", "none") == "none"


def test_a_look_is_not_a_use_and_a_put_is():
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert "a" in cache  # does not make "a" recent
    cache.put("c", 3)
    assert "a" not in cache
    cache.put("b", 20)  # a new value for "b" makes it the most recent
    cache.put("d", 4)
    assert (cache.get("b"), "c" in cache) == (20, False)


def test_pop_and_clear_forget():
    cache: BoundedCache[str, int] = BoundedCache(3)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.pop("a") == 1 and cache.pop("a") is None
    cache.clear()
    assert len(cache) == 0 and not cache


def test_a_cache_keeps_at_least_one_entry():
    with pytest.raises(ValueError, match="at least one entry, not 0"):
        BoundedCache(0)


def test_threads_sharing_a_cache_never_pass_its_bound():
    cache: BoundedCache[int, int] = BoundedCache(16)
    sizes: list[int] = []

    def work(offset: int) -> None:
        for i in range(2000):
            cache.put(offset + i, i)
            cache.get(offset + i // 2)
            sizes.append(len(cache))

    threads = [threading.Thread(target=work, args=(n * 10_000,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert max(sizes) <= 16 and len(cache) == 16
