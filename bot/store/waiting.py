"""How long a request waits for the database, and SQLite's write lock taken in turn.

SQLite keeps no queue for its one write lock: a writer that finds it held sleeps and polls
(the busy timeout), and whichever connection polls first once it is free takes it. With
some 20 clicks a second and the CPU busy, a writer could lose the lock to later ones for
longer than the deadline and be told the records could not be reached while the database
was answering all along (1 to 2 Saves or Undos in 200, issue 31). So this process's
writers take turns here, first come first served, and only the one whose turn it is asks
SQLite for the lock; SQLite's polling is left to settle it with other processes.

A writer waiting its turn is not refused while the queue moves: each write that ends is
the database answering, and the caller's deadline counts from the last one
(``Call.answered_until``). A queue that has not moved for a whole deadline (another process
holding the lock, a frozen disk) is the database not answering, and is refused as before.
The queue bounds its own wait too, as SQLite's busy timeout did, for writes no caller
watches (``serve_workspace`` at start-up) and for the threads of callers who left: a
ticket not served within ``patience`` of the queue's last move is given up with
``DatabaseUnavailable``, and a ticket whose writer fails while waiting is given up at once,
so one stuck or failed writer never blocks the process's later writes for good.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


class DatabaseUnavailable(RuntimeError):
    """The database did not answer in time or refused: the request goes on without it."""


@dataclass
class Call:
    """One ``Database.bounded`` call's work, as its caller watches it from another thread."""

    abandoned: threading.Event = field(default_factory=threading.Event)
    """Set when the caller stops waiting; a write checks it before it begins and commits."""
    answered_at: float = field(default_factory=time.monotonic)
    """When the call began, or later when its write's turn came: the database's last answer
    to this call."""
    queued_on: WriteTurns | None = None
    """The queue its write is waiting in, if it is."""

    def answered_until(self, deadline: float) -> float:
        """The ``time.monotonic()`` at which the caller stops waiting: ``deadline`` after the
        database last answered this call or, while its write waits its turn, last moved the
        queue it waits in."""
        queue = self.queued_on
        last = self.answered_at if queue is None else max(self.answered_at, queue.moved_at)
        return last + deadline


class WriteTurns:
    """A ticket queue for one process's SQLite write transactions: one at a time, in the
    order they asked. It is not re-entrant: a write never begins inside another."""

    def __init__(self, patience: float, monotonic: Callable[[], float] = time.monotonic) -> None:
        """``patience``: how long a writer waits for a queue that does not move before it is
        refused; ``monotonic``: the clock that measures it (``time.monotonic``)."""
        self._patience = patience
        self._monotonic = monotonic
        self._changed = threading.Condition()
        self._issued = 0
        self._serving = 0
        self._given_up: set[int] = set()
        """Tickets not yet reached whose writers left the queue: skipped when reached."""
        self.moved_at = monotonic()
        """When the last turn ended: whether the queue still moves."""

    @contextmanager
    def turn(self, call: Call | None) -> Iterator[None]:
        """Wait for this writer's turn, then hold it until the block ends. ``call`` is the
        ``bounded`` call it works for, if any, which learns where it waits. Raises
        ``DatabaseUnavailable`` when the queue does not move for ``patience``."""
        with self._changed:
            ticket = self._issued
            self._issued += 1
            if call is not None:
                call.queued_on = self
            try:
                self._wait_for(ticket)
            except BaseException:
                self._leave(ticket)
                raise
            finally:
                if call is not None:
                    call.queued_on = None
        if call is not None:
            call.answered_at = time.monotonic()
        try:
            yield
        finally:
            with self._changed:
                self._leave(ticket)
                self.moved_at = self._monotonic()

    def _wait_for(self, ticket: int) -> None:
        """Block, holding ``_changed`` between waits, until ``ticket`` is served."""
        asked_at = self._monotonic()
        while ticket != self._serving:
            left = max(asked_at, self.moved_at) + self._patience - self._monotonic()
            if left <= 0:
                raise DatabaseUnavailable(
                    f"no write in this process ended within {self._patience:g} s"
                )
            self._changed.wait(timeout=left)

    def _leave(self, ticket: int) -> None:
        """Give ``ticket`` up, served or not, so the next one still waiting is served
        (with ``_changed`` held)."""
        if ticket != self._serving:
            self._given_up.add(ticket)
            return
        self._serving += 1
        while self._serving in self._given_up:
            self._given_up.remove(self._serving)
            self._serving += 1
        self._changed.notify_all()
