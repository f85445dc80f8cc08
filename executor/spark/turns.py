"""Turns on Spark for the work people ask for: at most :data:`SLOTS` at once, the others wait in line.

Spark shares its cores among every job it is given, so ten runs started together all end late, each
about as late as the last. Taking turns, each run gets the whole machine while it executes and the
first ones end early; what a run does outside Spark (translating the plan, drawing its rows) still
overlaps with the others. Waiting work is served fairly between people: the next turn goes to the
owner (a browser session) served least recently, so one person's many clicks do not hold the others
back. Among them the shortest work goes first, so most people wait less: work whose turn took less
time when it last ran (the same work on the same tables: a rehearsal, another person's run), then
work never run, smaller reads first (an order of magnitude less data). No waiting turn is passed more
than :data:`PASS_LIMIT` times (a few short runs' wait). A waiting turn says where it stands
("2nd in line") and gives up when its work is stopped.

``SUBSTRAIT_VIZ_RUN_SLOTS`` sets how many turns run at once (default: one per two cores, at least one).
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import math
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ..settings import SETTINGS

#: Turns under way at once.
SLOTS = SETTINGS.run_slots
#: Seconds between two looks at whether a waiting turn was stopped.
WAIT_STEP_S = 0.1
#: How many later turns may go before a waiting one because they read less: its wait stays bounded.
PASS_LIMIT = 8

#: Who asks for the work in this thread: the browser session (``ui.tasks`` sets it); work asked
#: for outside the app (the command line, tests) is one owner.
OWNER: contextvars.ContextVar[str] = contextvars.ContextVar("substrait_viz_owner", default="")


class Stopped(Exception):
    """The work was stopped while it waited for its turn."""


@dataclass
class _Ticket:
    owner: str
    number: int
    size: int  # order of magnitude of the bytes the work reads (:func:`size_class`)
    took: float  # seconds the same work took when it last ran (infinite when not known)
    passed: int = 0


@dataclass
class Held:
    """A turn held, given back once (:meth:`Line.give_back`)."""

    owner: str
    given_back: bool = False


@dataclass
class Line:
    """Turns on one resource: :meth:`turn` waits for one, saying its place in line meanwhile."""

    slots: int = SLOTS
    pass_limit: int = PASS_LIMIT
    _cond: threading.Condition = field(default_factory=threading.Condition)
    _waiting: list[_Ticket] = field(default_factory=list)
    _holders: Counter[str] = field(default_factory=Counter)  # owner -> turns it holds
    _served: dict[str, int] = field(default_factory=dict)  # owner -> number of the turn it last got
    _numbers: Iterator[int] = field(default_factory=itertools.count)
    _widths: list[int] = field(default_factory=list)  # the turns asked for at once by :meth:`widened`

    def _slots(self) -> int:
        return max(self.slots, *self._widths) if self._widths else self.slots

    @contextlib.contextmanager
    def widened(self, slots: int) -> Iterator[None]:
        """At least ``slots`` turns at once while the ``with`` block lasts: for one person's batch of small
        runs (the live-producer check's queries), which wait more on round trips than on the cores."""
        with self._cond:
            self._widths.append(slots)
            self._cond.notify_all()
        try:
            yield
        finally:
            with self._cond:
                self._widths.remove(slots)

    def _order(self) -> list[_Ticket]:
        """The waiting tickets in the order they will be served: owners served least recently first,
        then (a ticket passed ``pass_limit`` times before all) work that took less time when it last ran,
        then work never run, smaller reads first, then first come first served."""

        def key(t: _Ticket) -> tuple:
            if t.passed >= self.pass_limit:
                return (self._served.get(t.owner, -1), -1.0, 0, t.number)
            # the time of a run before says more about this one than the size of what it reads (a
            # rehearsal and a person's run both stop at their row limit; an exact count is other work)
            return (self._served.get(t.owner, -1), t.took, t.size, t.number)

        return sorted(self._waiting, key=key)

    @contextlib.contextmanager
    def turn(
        self,
        owner: str | None = None,
        stopped: Callable[[], bool] = lambda: False,
        waiting: Callable[[int], None] | None = None,
        reads: int | None = None,
        took: float | None = None,
    ) -> Iterator[Held]:
        """Hold a turn for the ``with`` block. While in line, ``waiting(place)`` is called with the
        ticket's place (1 = next) whenever it changes; raises :class:`Stopped` once ``stopped()``.
        ``reads``: the bytes the work reads, ``took``: the seconds it took when it last ran, each if
        known (see the module's docstring)."""
        who = OWNER.get() if owner is None else owner
        with self._cond:
            ticket = _Ticket(who, next(self._numbers), size_class(reads), math.inf if took is None else took)
            self._waiting.append(ticket)
            place = None
            try:
                while True:
                    order = self._order()
                    if self._holders.total() < self._slots() and order[0] is ticket:
                        break
                    now = order.index(ticket) + 1
                    if waiting is not None and now != place:
                        place = now
                        waiting(now)
                    if stopped():
                        raise Stopped(f"stopped while {ordinal(now)} in line")
                    self._cond.wait(WAIT_STEP_S)
            finally:
                self._waiting.remove(ticket)
                self._cond.notify_all()
            for other in self._waiting:  # those that came first and still wait were passed
                if other.number < ticket.number:
                    other.passed += 1
            self._holders[who] += 1
            self._served[who] = ticket.number
        held = Held(who)
        try:
            yield held
        finally:
            self.give_back(held)

    def give_back(self, held: Held) -> None:
        """End a turn, once: at the end of its block, or earlier for work that was stopped and does not
        end (a collect whose serving thread died), so that the work after it is not held up for good."""
        with self._cond:
            if held.given_back:
                return
            held.given_back = True
            self._holders[held.owner] -= 1
            if not self._holders[held.owner]:
                del self._holders[held.owner]
            self._cond.notify_all()

    def held_by_others(self, owner: str) -> bool:
        """Whether every turn is taken and some by another owner than ``owner``: work ``owner`` asks
        for now waits at least for the rest of another person's."""
        with self._cond:
            return self._holders.total() >= self._slots() and any(o != owner for o in self._holders)

    def busy(self) -> tuple[int, int]:
        """(turns under way, tickets waiting)."""
        with self._cond:
            return self._holders.total(), len(self._waiting)


#: The size class of work whose reads are not known: after all that is known.
UNKNOWN_SIZE = 99


def size_class(reads: int | None) -> int:
    """The order of magnitude of ``reads`` bytes (1 for under 10 bytes): work of the same order keeps
    its place by arrival."""
    return UNKNOWN_SIZE if reads is None else len(str(max(reads, 1)))


#: The one line for Spark in this process.
SPARK = Line()


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


#: How the status of work waiting for its turn begins.
IN_LINE = "waiting for Spark"


def in_line_text(place: int) -> str:
    """What a waiting run says: "waiting for Spark: 2nd in line"."""
    return f"{IN_LINE}: {ordinal(place)} in line"
