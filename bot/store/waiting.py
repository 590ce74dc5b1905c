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
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


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

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._issued = 0
        self._serving = 0
        self.moved_at = time.monotonic()
        """When the last turn ended: whether the queue still moves."""

    @contextmanager
    def turn(self, call: Call | None) -> Iterator[None]:
        """Wait for this writer's turn, then hold it until the block ends. ``call`` is the
        ``bounded`` call it works for, if any, which learns where it waits."""
        with self._changed:
            ticket = self._issued
            self._issued += 1
            if call is not None:
                call.queued_on = self
            while ticket != self._serving:
                self._changed.wait()
        if call is not None:
            call.answered_at = time.monotonic()
            call.queued_on = None
        try:
            yield
        finally:
            with self._changed:
                self._serving += 1
                self.moved_at = time.monotonic()
                self._changed.notify_all()
