"""Where listener work runs once Slack has its ack.

The HTTP server and the Socket Mode client ack on their own threads (the app processes
before responding, and the ack waits for nothing); the work that follows — searching,
rendering, posting through a Slack that may be slow — runs here, on a pool sized for
waiting, not for CPU. Each ack first asks ``admit`` whether its request could be answered
in time (``bot.slack.admission``): Bolt hands the lazy listener to the pool right after the
ack, on the same thread, so the pool queues it in the lane the ack named — or, when it was
turned away, never runs it and runs the kind's short "busy" answer instead.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from bot.slack.admission import FIRST_GUESS_SECONDS, Lanes

log = logging.getLogger(__name__)

LISTENER_THREADS = 32
"""Workers for what follows an ack: they mostly wait on Slack (``response_url``,
``chat.postMessage``, rate-limit sleeps), so the pool is sized for waiting, not for CPU."""
OTHER = "other"
"""The lane of work handed over without an ack that named its kind."""
NOTICES = "busy notices"
"""The lane of the short answers of requests turned away; it takes its turn like the others."""
IGNORED = "ignored event"
"""Messages no listener answers (a channel message, a bot's post): no-ops, kept out of the
mentions' lane."""
UNTIMED = frozenset({NOTICES, IGNORED})
"""Lanes whose work says nothing of what a request costs: a notice or a no-op takes ~0 ms."""
QUIET_SECONDS = 0.5
"""How long the pool must have had no other work for a search to take both cores: far longer
than the gaps between requests at any load that keeps the bot busy, far shorter than those
between one researcher's searches."""
NOTICES_PER_WORKER = 4
"""Busy notices queued at most, per worker: each is one short post, and the lanes' turns give
them a worker every round, but a notice that would come minutes late is better not sent."""

TurnedAway = Callable[[], object]
"""What a request turned away says to its person (run on the pool, in ``NOTICES``)."""
Admit = Callable[[str, TurnedAway | None], bool]
"""``admit(kind, turned_away)``: whether the work the ack hands over next is taken."""

Scope = Callable[[], AbstractContextManager[Any]]
"""What each listener's work runs inside: the library's ``request``, so that one request reads
one index from start to end (``bot.search.library``)."""

_REFUSED = object()


class _Task:
    """One listener's work and the future Bolt was given for it; hashed by identity."""

    def __init__(self, call: Callable[[], Any], future: Future[Any], scope: Scope) -> None:
        self.call = call
        self.future = future
        self._scope = scope

    def run(self) -> None:
        if not self.future.set_running_or_notify_cancel():
            return
        try:
            with self._scope():
                result = self.call()
            self.future.set_result(result)
        except BaseException as error:
            self.future.set_exception(error)


class WorkPool(Executor):
    """Threads that take queued work lane by lane, and admit it by expected wait.

    Until ``ready()`` says the bot can answer (its index is being built at start-up), every
    request is turned away with its kind's busy notice, which needs no index: a person hears
    "try again in a minute" rather than nothing. Each task runs inside ``scope()``."""

    def __init__(
        self,
        workers: int,
        *,
        first_guess: float = FIRST_GUESS_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        ready: Callable[[], bool] = lambda: True,
        scope: Scope = nullcontext,
    ) -> None:
        self._ready = ready
        self._scope = scope
        self._threads = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="listener")
        self._lanes: Lanes[_Task] = Lanes(workers, clock, first_guess=first_guess, untimed=UNTIMED)
        self._next_lane = threading.local()
        self._completed = 0
        self._clock = clock
        self._last_finished = -float("inf")
        self._count_lock = threading.Condition()

    def admit(self, kind: str, turned_away: TurnedAway | None = None) -> bool:
        """Judge a request of ``kind`` on its ack's thread; the ack's next ``submit`` goes to
        that lane, or is dropped when the request was turned away (``turned_away`` then runs
        instead, unless even that could not run in time)."""
        if not self._ready():
            self._next_lane.kind = _REFUSED
            log.warning("turned a %s away: the index is still being built", kind)
            if turned_away is not None:
                self._tell_turned_away(turned_away)
            return False
        with self._count_lock:
            verdict = self._lanes.judge(kind)
        self._next_lane.kind = kind if verdict.admitted else _REFUSED
        if verdict.admitted:
            return True
        log.warning(
            "turned a %s away: its answer was expected in %.1f s (%d requests ahead, "
            "%.2f s of work for a %s)",
            kind,
            verdict.expected_seconds,
            verdict.ahead,
            verdict.work_seconds,
            kind,
        )
        if turned_away is not None:
            self._tell_turned_away(turned_away)
        return False

    def _tell_turned_away(self, turned_away: TurnedAway) -> None:
        """Queue the busy notice, unless the notices are already far behind; it is not
        judged as a request would be: one short post, not the work that was refused."""
        with self._count_lock:
            room = self._lanes.waiting(NOTICES) < NOTICES_PER_WORKER * self._lanes.workers
        if room:
            self._queue(NOTICES, turned_away)
        else:
            log.warning("could not even say so: the busy notices are too far behind")

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        kind = getattr(self._next_lane, "kind", OTHER)
        self._next_lane.kind = OTHER
        if kind is _REFUSED:
            dropped: Future[Any] = Future()
            dropped.set_result(None)
            return dropped
        return self._queue(kind, lambda: fn(*args, **kwargs))

    def _queue(self, kind: str, call: Callable[[], Any]) -> Future[Any]:
        task = _Task(call, Future(), self._scope)
        with self._count_lock:
            self._lanes.add(kind, task)
            self._threads.submit(self._run_next)
        return task.future

    def _run_next(self) -> None:
        """One turn of a worker: each queued task submitted one of these, so every task runs;
        which one runs now is the lanes' choice."""
        with self._count_lock:
            task = self._lanes.start_next()
        if task is None:
            return
        try:
            task.run()
        finally:
            with self._count_lock:
                self._lanes.finish(task)
                self._completed += 1
                self._last_finished = self._clock()
                self._count_lock.notify_all()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._threads.shutdown(wait=wait, cancel_futures=cancel_futures)

    def progress(self) -> tuple[int, int]:
        """Work queued or running, and work completed since the pool started: a shutdown
        reports what it finished and what it left from two of these."""
        with self._count_lock:
            return self._lanes.queued + self._lanes.running, self._completed

    def quiet(self) -> bool:
        """Whether the work asking (a task of this pool) is the only work the pool has had
        for ``QUIET_SECONDS``: the search layer then lets a lone query's model run take both
        cores, which under load would take CPU the other requests need."""
        with self._count_lock:
            alone = self._lanes.queued + self._lanes.running <= 1
            return alone and self._clock() - self._last_finished >= QUIET_SECONDS

    def wait_idle(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for every submitted task to finish; whether they did."""
        with self._count_lock:
            return self._count_lock.wait_for(
                lambda: self._lanes.queued + self._lanes.running == 0, max(timeout, 0.0)
            )


class InlineExecutor(Executor):
    """Runs each task at once on the caller's thread: the shell dispatches a request and
    prints what the app sent, so the work must be done when dispatch returns."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as error:
            future.set_exception(error)
        return future


def listener_pool(ready: Callable[[], bool] = lambda: True, scope: Scope = nullcontext) -> WorkPool:
    """The pool a served app runs its listeners on (see ``WorkPool`` for ``ready`` and
    ``scope``)."""
    return WorkPool(LISTENER_THREADS, ready=ready, scope=scope)


def admission_for(executor: Executor) -> Admit:
    """How acks ask ``executor`` to take their work: only a ``WorkPool`` ever refuses."""
    return executor.admit if isinstance(executor, WorkPool) else _always_admit


def _always_admit(_kind: str, _turned_away: TurnedAway | None) -> bool:
    return True
