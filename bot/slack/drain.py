"""Stopping a served bot without dropping what Slack was promised.

Every platform stops a process with SIGTERM (Heroku, Kubernetes, systemd, ``docker stop``)
and kills it a little later. Once Slack has its ack, the person is waiting for an answer that
only this process can send: so a stop refuses what arrives next (HTTP answers 503, which Slack
retries elsewhere for events; Socket Mode closes its connection so Slack routes to another),
lets the listener pool finish what was acked for at most the grace period, and says in the
log what it finished and what it had to leave.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from bot.slack.work import WorkPool

log = logging.getLogger(__name__)


def stop_on_sigterm() -> None:
    """SIGTERM stops the bot as Ctrl-C does: a ``KeyboardInterrupt`` in the main thread,
    which ``wait_for_stop`` turns into the drain (a second one cuts the drain short)."""
    signal.signal(signal.SIGTERM, signal.default_int_handler)


def ignore_stop_signals() -> None:
    """Once the drain is over (or the start-up given up), a further SIGTERM or SIGINT has
    nothing left to cut short: it is ignored, so the exit stays 0, without a traceback."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


SIGNAL_POLL_SECONDS = 0.2
"""How often the waiting main thread wakes to run a signal's handler."""


def wait_for_stop() -> None:
    """Block the main thread until SIGTERM or SIGINT.

    Python runs a signal's handler only in the main thread, and only once that thread wakes:
    the kernel may deliver the signal to any thread, and a main thread blocked for good on a
    lock is then never woken (a lost SIGTERM). So it waits in short steps."""
    never = threading.Event()
    try:
        while not never.wait(SIGNAL_POLL_SECONDS):
            pass
    except KeyboardInterrupt:
        return


class Drain:
    """The shutdown of one served process: whether it has begun, and the wait for the work
    already acked."""

    def __init__(
        self,
        pool: WorkPool,
        grace_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._pool = pool
        self._grace_seconds = grace_seconds
        self._clock = clock
        self._state = threading.Condition()
        self._started = False
        self._acking = 0
        self._deadline: float | None = None

    @property
    def started(self) -> bool:
        with self._state:
            return self._started

    @contextmanager
    def admission(self) -> Iterator[bool]:
        """Around one HTTP request's ack: whether it may be acked (not once the drain has
        begun). An ack that began before the drain hands its work to the pool before it
        answers, so the drain waits for such acks before counting what is in flight."""
        with self._state:
            if self._started:
                admitted = False
            else:
                admitted = True
                self._acking += 1
        try:
            yield admitted
        finally:
            if admitted:
                with self._state:
                    self._acking -= 1
                    self._state.notify_all()

    def run(self, stop_accepting: Callable[[], None]) -> int:
        """Refuse new requests, wait up to the grace period for what was acked, and log both
        ends; the number of tasks left unfinished. A second signal ends the wait at once;
        once the wait is over, further ones are ignored (``ignore_stop_signals``).

        ``stop_accepting`` runs once the drain has counted what is in flight: closing a
        Socket Mode connection takes seconds (it waits for the acks being sent), and the
        pool keeps working meanwhile; an ack it waited for adds to what is finished."""
        deadline = self._clock() + self._grace_seconds
        with self._state:
            self._started = True
            self._deadline = deadline
        finished_before = self._pool.progress()[1]
        try:
            with self._state:
                self._state.wait_for(lambda: self._acking == 0, self._left(deadline))
            in_flight, finished_before = self._pool.progress()
            log.info("draining: %d requests in flight", in_flight)
            stop_accepting()
            self._pool.wait_idle(self._left(deadline))
        except KeyboardInterrupt:
            ignore_stop_signals()
            log.warning("stopping at once: a second signal ended the drain")
        ignore_stop_signals()
        unfinished, finished = self._pool.progress()
        log.info("drained: %d finished, %d unfinished", finished - finished_before, unfinished)
        return unfinished

    def time_left(self) -> float:
        """What is left of the grace period (all of it before ``run``): what else the stop
        waits for (the digest's attempt) gets no more."""
        with self._state:
            deadline = self._deadline
        return self._grace_seconds if deadline is None else self._left(deadline)

    def _left(self, deadline: float) -> float:
        return max(deadline - self._clock(), 0.0)
