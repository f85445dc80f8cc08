"""Turns on Spark (``executor.spark.turns``): at most the slots at once, fair between owners, a place in line,
giving up when stopped; and what a process leaves behind (Spark's scratch folders, old class archives)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import threading

import pytest

from executor import settings
from executor.spark import jvm_archive, session
from executor.spark.turns import Line, Stopped, in_line_text, ordinal
from tests.support import ROOT, until


def _hold(
    line: Line,
    owner: str,
    entered: list,
    release: threading.Event,
    places: list | None = None,
    reads: int | None = None,
    took: float | None = None,
) -> threading.Thread:
    def work() -> None:
        with line.turn(owner, waiting=(places.append if places is not None else None), reads=reads, took=took):
            entered.append(owner)
            release.wait(10)

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return thread


def _ask(line: Line, entered: list, gates: dict, name: str, reads: int | None, took: float | None = None) -> None:
    """``name`` asks for a turn (each person once: fairness between owners is even) and is in line."""
    gates[name] = threading.Event()
    waiting = line.busy()[1]
    _hold(line, name, entered, gates[name], reads=reads, took=took)
    until(lambda: line.busy()[1] == waiting + 1)


def _serve(entered: list, gates: dict, first: str, count: int) -> list[str]:
    """End ``first``'s turn and then each next one's, ``count`` times: who got the turns, in order."""
    served = [first]
    for _ in range(count):
        gates[served[-1]].set()
        until(lambda: len(entered) == len(served) + 1)
        served.append(entered[-1])
    return served


def test_one_slot_serves_one_at_a_time_and_the_least_recently_served_owner_next():
    line = Line(slots=1)
    entered: list[str] = []
    first = threading.Event()
    a1 = _hold(line, "a", entered, first)
    until(lambda: entered == ["a"])
    # while a holds the turn: a asks again, then b, then c
    gates = {name: threading.Event() for name in ("a2", "b", "c")}
    threads = [_hold(line, "a", entered, gates["a2"])]
    until(lambda: line.busy() == (1, 1))
    threads.append(_hold(line, "b", entered, gates["b"]))
    until(lambda: line.busy() == (1, 2))
    threads.append(_hold(line, "c", entered, gates["c"]))
    until(lambda: line.busy() == (1, 3))
    first.set()
    a1.join(5)
    # b and c have not been served yet, a has: they go before a's second turn, in the order they came
    until(lambda: len(entered) == 2)
    assert entered == ["a", "b"]
    assert line.busy() == (1, 2)
    gates["b"].set()
    until(lambda: len(entered) == 3)
    assert entered[-1] == "c"
    gates["c"].set()
    until(lambda: len(entered) == 4)
    assert entered[-1] == "a"
    gates["a2"].set()
    for t in threads:
        t.join(5)
    assert line.busy() == (0, 0)


def test_work_reading_an_order_of_magnitude_less_goes_first_but_passes_a_waiting_turn_at_most_the_limit():
    from executor.spark.turns import size_class

    assert [size_class(n) for n in (0, 9, 10, 999, 1000, 2_680_229)] == [1, 1, 2, 3, 4, 7]
    line = Line(slots=1, pass_limit=3)
    entered: list[str] = []
    gates: dict[str, threading.Event] = {"first": threading.Event()}
    _hold(line, "first", entered, gates["first"], reads=10)
    until(lambda: entered == ["first"])
    _ask(line, entered, gates, "big", 2_000_000)
    _ask(line, entered, gates, "unknown", None)
    _ask(line, entered, gates, "small-1", 4_000)
    _ask(line, entered, gates, "small-2", 8_000)  # same order as small-1: keeps its place by arrival
    _ask(line, entered, gates, "tiny", 500)
    served = _serve(entered, gates, "first", 5)
    # tiny, small-1 and small-2 pass big (three times: the limit), then big goes before unknown
    assert served == ["first", "tiny", "small-1", "small-2", "big", "unknown"]
    gates[served[-1]].set()


def test_work_that_took_less_time_when_it_last_ran_goes_first_whatever_it_reads_within_the_limit():
    """Ten people click Run together on plans rehearsed when they were opened: the runs known to be short
    end first, so most of them wait less (small tables can take long, through many joins); what was never
    run comes after what was, and the pass limit holds."""
    line = Line(slots=1, pass_limit=3)
    entered: list[str] = []
    gates: dict[str, threading.Event] = {"first": threading.Event()}
    _hold(line, "first", entered, gates["first"], reads=10)
    until(lambda: entered == ["first"])
    _ask(line, entered, gates, "long", 5_000, 2.0)
    _ask(line, entered, gates, "never-run", 5_000, None)
    _ask(line, entered, gates, "short", 6_000, 0.3)
    _ask(line, entered, gates, "middle", 7_000, 0.8)
    _ask(line, entered, gates, "big-short", 5_000_000, 0.1)  # reads three orders more, but took least
    served = _serve(entered, gates, "first", 5)
    # big-short, short and middle pass long and never-run (three times: the limit); then long before never-run
    assert served == ["first", "big-short", "short", "middle", "long", "never-run"]
    gates[served[-1]].set()

    # a turn passed the limit goes next, however long it took before
    line = Line(slots=1, pass_limit=2)
    entered.clear()
    gates = {"first": threading.Event()}
    _hold(line, "first", entered, gates["first"], reads=10)
    until(lambda: entered == ["first"])
    for name, took in (("slow", 9.0), ("q1", 0.1), ("q2", 0.1), ("q3", 0.1)):
        _ask(line, entered, gates, name, 100, took)
    assert _serve(entered, gates, "first", 3) == ["first", "q1", "q2", "slow"]
    for g in gates.values():
        g.set()


def test_a_waiting_turn_passed_the_limit_goes_next_whatever_it_reads():
    line = Line(slots=1, pass_limit=3)
    entered: list[str] = []
    gates = {name: threading.Event() for name in ("first", "big", "s1", "s2", "s3", "s4", "s5")}
    _hold(line, "first", entered, gates["first"], reads=10)
    until(lambda: entered == ["first"])
    _hold(line, "big", entered, gates["big"], reads=10**9)
    until(lambda: line.busy()[1] == 1)
    for i, name in enumerate(("s1", "s2", "s3", "s4", "s5"), 2):
        _hold(line, name, entered, gates[name], reads=100)
        until(lambda i=i: line.busy()[1] == i)
    for name in ("first", "s1", "s2"):
        gates[name].set()
        count = len(entered)
        until(lambda count=count: len(entered) == count + 1)
    assert entered == ["first", "s1", "s2", "s3"]  # big passed three times
    gates["s3"].set()
    until(lambda: len(entered) == 5)
    assert entered[-1] == "big"  # not a fourth time
    for g in gates.values():
        g.set()


def test_two_slots_let_two_in_and_a_third_waits():
    line = Line(slots=2)
    entered: list[str] = []
    release = threading.Event()
    threads = [_hold(line, name, entered, release) for name in ("a", "b")]
    until(lambda: len(entered) == 2)
    places: list[int] = []
    threads.append(_hold(line, "c", entered, release, places))
    until(lambda: places == [1])
    assert sorted(entered) == ["a", "b"]
    release.set()
    for t in threads:
        t.join(5)
    assert sorted(entered) == ["a", "b", "c"]


def test_a_widened_line_lets_a_batch_run_two_at_once_and_narrows_after():
    """One person's batch of small runs (the live-producer check's queries) widens one slot to two while
    it lasts; a turn asked for after it waits again."""
    line = Line(slots=1)
    entered: list[str] = []
    release = threading.Event()
    with line.widened(2):
        threads = [_hold(line, "", entered, release) for _ in range(2)]
        until(lambda: len(entered) == 2)
        assert line.busy() == (2, 0)
        release.set()
        for t in threads:
            t.join(5)
    gate = threading.Event()
    places: list[int] = []
    threads = [_hold(line, "", entered, gate)]
    until(lambda: len(entered) == 3)
    threads.append(_hold(line, "", entered, gate, places))
    until(lambda: places == [1])
    assert line.busy() == (1, 1)
    gate.set()
    for t in threads:
        t.join(5)
    assert len(entered) == 4


def test_the_line_tells_whether_another_owner_holds_every_turn():
    line = Line(slots=2)
    assert not line.held_by_others("a")
    entered: list[str] = []
    gates = {name: threading.Event() for name in ("a", "b")}
    threads = [_hold(line, "a", entered, gates["a"])]
    until(lambda: entered == ["a"])
    assert not line.held_by_others("b")  # a turn is free
    threads.append(_hold(line, "b", entered, gates["b"]))
    until(lambda: len(entered) == 2)
    assert line.held_by_others("a") and line.held_by_others("b") and line.held_by_others("c")
    gates["b"].set()
    threads[1].join(5)
    assert not line.held_by_others("a")
    one = Line(slots=1)
    mine = threading.Event()
    threads.append(_hold(one, "a", entered, mine))
    until(lambda: one.busy() == (1, 0))
    assert not one.held_by_others("a") and one.held_by_others("b")  # a's own turn does not hold a back
    for gate in (gates["a"], mine):
        gate.set()
    for thread in threads:
        thread.join(5)
    assert not one.held_by_others("b")


def test_a_waiting_turn_says_its_place_as_it_moves_up():
    line = Line(slots=1)
    entered: list[str] = []
    gates = [threading.Event() for _ in range(3)]
    threads = [_hold(line, "a", entered, gates[0])]
    until(lambda: entered == ["a"])
    threads.append(_hold(line, "b", entered, gates[1]))
    until(lambda: line.busy() == (1, 1))
    places: list[int] = []
    threads.append(_hold(line, "c", entered, gates[2], places))
    until(lambda: places == [2])
    gates[0].set()
    until(lambda: places == [2, 1])
    gates[1].set()
    gates[2].set()
    for t in threads:
        t.join(5)
    assert entered == ["a", "b", "c"]


def test_a_stopped_turn_leaves_the_line_without_running():
    line = Line(slots=1)
    entered: list[str] = []
    release = threading.Event()
    holder = _hold(line, "a", entered, release)
    until(lambda: entered == ["a"])
    stop = threading.Event()
    outcome: list[BaseException] = []

    def wait() -> None:
        try:
            with line.turn("b", stop.is_set):
                entered.append("b")
        except Stopped as exc:
            outcome.append(exc)

    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    until(lambda: line.busy() == (1, 1))
    stop.set()
    waiter.join(5)
    assert not waiter.is_alive()
    assert outcome and "1st in line" in str(outcome[0])
    assert entered == ["a"] and line.busy() == (1, 0)
    release.set()
    holder.join(5)


def test_ordinals_and_the_words_in_line():
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "12th",
        "13th",
        "21st",
        "22nd",
        "23rd",
        "101st",
        "111th",
    ]
    assert in_line_text(3) == "waiting for Spark: 3rd in line"


def test_slots_come_from_the_setting():
    code = "from executor.spark.turns import SLOTS; print(SLOTS)"
    env = {**os.environ, "SUBSTRAIT_VIZ_RUN_SLOTS": "3"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert out.stdout.strip() == "3"


# ---- what a process leaves behind -----------------------------------------------------------


def test_scratch_folders_of_processes_gone_are_removed_and_the_living_kept(tmp_path):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(gone.stdout)
    for name in (str(dead_pid), str(os.getpid()), str(os.getppid()), "notes"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "blockmgr-1").mkdir()
    removed = session.clean_scratch(str(tmp_path))
    assert removed == [str(tmp_path / str(dead_pid))]
    assert sorted(os.listdir(tmp_path)) == sorted([str(os.getpid()), str(os.getppid()), "notes"])


def test_a_local_session_keeps_its_scratch_in_the_cache(monkeypatch):
    local = dataclasses.replace(settings.SETTINGS, spark_remote=None, spark_master="local[*]")
    monkeypatch.setattr(settings, "SETTINGS", local)
    conf = session._local_conf()
    assert conf["spark.local.dir"] == os.path.join(session.SCRATCH_ROOT, str(os.getpid()))
    assert conf["spark.sql.warehouse.dir"].startswith(session.CACHE)
    # the JVM's own temporary folder too: what a killed JVM leaves there goes with the scratch
    assert conf["spark.driver.extraJavaOptions"].endswith(f" -Djava.io.tmpdir={session.scratch_dir()}")
    cluster = dataclasses.replace(local, spark_master="spark://cluster:7077")  # its executors keep their own
    monkeypatch.setattr(settings, "SETTINGS", cluster)
    assert "spark.local.dir" not in session._local_conf()
    assert "java.io.tmpdir" not in session._local_conf()["spark.driver.extraJavaOptions"]


@pytest.mark.parametrize(
    ("path", "word"),
    [
        ("/cache/spark-scratch/12", "/cache/spark-scratch/12"),
        ("/my cache/spark-scratch/12", '"/my cache/spark-scratch/12"'),
        ('/a "b"/c', '"/a \\"b\\"/c"'),
    ],
)
def test_paths_in_java_options_are_one_word(path, word):
    assert session._java_quoted(path) == word


def test_old_class_archives_are_removed_and_the_current_one_kept(tmp_path):
    current = tmp_path / "spark-4.3.0-aaaaaaaaaa.jsa"
    old_spark = tmp_path / "spark-4.2.0-aaaaaaaaaa.jsa"
    old_java = tmp_path / "spark-4.3.0-bbbbbbbbbb.jsa"
    dead_partial = tmp_path / f"spark-4.3.0-aaaaaaaaaa.jsa.{2**22 + 12345}.partial"
    live_partial = tmp_path / f"spark-4.3.0-aaaaaaaaaa.jsa.{os.getpid()}.partial"
    other = tmp_path / "notes.txt"
    for f in (current, old_spark, old_java, dead_partial, live_partial, other):
        f.write_bytes(b"x")
    removed = jvm_archive.remove_old(str(current))
    assert sorted(removed) == sorted(map(str, (old_spark, old_java, dead_partial)))
    assert sorted(os.listdir(tmp_path)) == sorted(f.name for f in (current, live_partial, other))


def test_the_test_session_keeps_its_scratch_in_this_process_folder(spark):
    if session.is_connect(spark):
        pytest.skip("a Connect session's scratch is the server's")
    local = spark.sparkContext.getConf().get("spark.local.dir")
    assert local == session.scratch_dir()
    assert os.path.isdir(local) and any(n.startswith(("blockmgr-", "spark-")) for n in os.listdir(local))
    # Spark's folders outside its local dir (``artifacts-*``) are in the scratch too
    assert spark.sparkContext._jvm.System.getProperty("java.io.tmpdir") == local
    spark.range(1).collect()
    assert any(n.startswith("artifacts-") for n in os.listdir(local))
