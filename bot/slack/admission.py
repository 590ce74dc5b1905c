"""Which requests the listener pool takes, and in what order it runs them.

A request is turned away only when its answer could not be expected within about
``MAX_WAIT_SECONDS``; the rest queue. A count of workers and queued requests says nothing
about that: a hundred searches of 20 ms are two seconds of work, a hundred clicks behind a
Slack that answers 3 s late are ten. So the estimate follows what the pool is measured to
do: for each kind, an exponentially weighted mean of how long one request's work took
(raised to how long that kind's running ones have taken so far, so a Slack that suddenly
hangs counts before anything finishes); a new request waits for the work of the requests
that would run first, shared among the workers, then for its own.

Each kind of request (a command, a click, a mention, ...) queues in its own lane, and the
lanes take turns: a flood of one kind lengthens that kind's wait, never another's, so no
kind can starve another. Each lane keeps its own mean for the same reason: App Home
publishes that take seconds must not make a 20 ms search look too slow to take, and work
that is no measure of a request (a busy notice, an ignored event) is not timed at all.
Everything here is plain bookkeeping with an injected clock; ``bot.slack.work`` runs it on
threads.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

MAX_WAIT_SECONDS = 10.0
"""The longest a person should wait for an answer: past it, being told to try again is better."""
FIRST_GUESS_SECONDS = 0.05
"""One request's work for a kind none of which was measured yet (a search is ~20 ms):
guessing low costs little, since a free worker always takes the request and its measurement
replaces the guess within a few dozen requests, while guessing high would turn a new kind
away before anything was known about it."""
WEIGHT_OF_LATEST = 0.2
"""How much the latest request's work moves the mean: it follows a Slack that slows down
within a handful of requests, without one outlier deciding."""

Item = TypeVar("Item", bound=Hashable)


class WorkTime:
    """The exponentially weighted mean of how long one request's work takes, in seconds."""

    def __init__(self, first_guess: float = FIRST_GUESS_SECONDS) -> None:
        self.mean = first_guess

    def record(self, seconds: float) -> None:
        self.mean += WEIGHT_OF_LATEST * (seconds - self.mean)


@dataclass(frozen=True)
class Verdict:
    """Whether a request of ``kind`` was taken, and the answer time that decided it."""

    kind: str
    admitted: bool
    expected_seconds: float
    ahead: int
    work_seconds: float
    """What one request of ``kind`` is expected to take."""


class Lanes(Generic[Item]):
    """Queued work by kind, taken in turns, and the estimate that admits it.

    ``clock`` gives seconds (``time.monotonic`` in production); nothing here reads the time
    on its own, so tests move it by hand. ``first_guess`` is a kind's work before any of it
    was measured; the work of ``untimed`` kinds is never measured.
    """

    def __init__(
        self,
        workers: int,
        clock: Callable[[], float],
        *,
        first_guess: float = FIRST_GUESS_SECONDS,
        untimed: Collection[str] = (),
        max_wait: float = MAX_WAIT_SECONDS,
    ) -> None:
        self.workers = workers
        self.first_guess = first_guess
        self.work_times: dict[str, WorkTime] = {}
        """The measured mean of each kind that finished work."""
        self.max_wait = max_wait
        self._untimed = frozenset(untimed)
        self._clock = clock
        self._lanes: dict[str, deque[Item]] = {}
        self._turns: deque[str] = deque()
        self._started: dict[Item, tuple[str, float]] = {}

    @property
    def queued(self) -> int:
        return sum(len(lane) for lane in self._lanes.values())

    @property
    def running(self) -> int:
        return len(self._started)

    def waiting(self, kind: str) -> int:
        return len(self._lanes.get(kind, ()))

    def judge(self, kind: str) -> Verdict:
        """Whether a new request of ``kind`` could be answered within ``max_wait``.

        A free worker always takes it: refusing then would help nobody, and the measured
        work time could never come down again after a slow spell.
        """
        ahead = self._ahead_of_new(kind)
        own = self.work_seconds(kind)
        ahead_seconds = sum(count * self.work_seconds(lane) for lane, count in ahead.items())
        expected = ahead_seconds / self.workers + own
        free_worker = self.running + self.queued < self.workers
        admitted = free_worker or expected <= self.max_wait
        return Verdict(kind, admitted, expected, sum(ahead.values()), own)

    def add(self, kind: str, item: Item) -> None:
        lane = self._lanes.setdefault(kind, deque())
        if not lane:
            self._turns.append(kind)
        lane.append(item)

    def start_next(self) -> Item | None:
        """The next item, from the lane whose turn it is; it counts as running from now."""
        if not self._turns:
            return None
        kind = self._turns.popleft()
        lane = self._lanes[kind]
        item = lane.popleft()
        if lane:
            self._turns.append(kind)
        self._started[item] = (kind, self._clock())
        return item

    def finish(self, item: Item) -> None:
        kind, started = self._started.pop(item)
        if kind not in self._untimed:
            self.work_times.setdefault(kind, WorkTime(self.first_guess)).record(
                self._clock() - started
            )

    def work_seconds(self, kind: str) -> float:
        """One request of ``kind``: its measured mean (or the first guess), or longer while
        its running ones have already taken longer."""
        measured = self.work_times.get(kind)
        mean = measured.mean if measured else self.first_guess
        now = self._clock()
        running = [now - started for of_kind, started in self._started.values() if of_kind == kind]
        return max(mean, sum(running) / len(running)) if running else mean

    def _ahead_of_new(self, kind: str) -> dict[str, int]:
        """Requests of each kind that run before a new one of ``kind``: its own lane, and from
        each other lane at most one per turn its own lane gets."""
        own = len(self._lanes.get(kind, ()))
        return {
            name: len(lane) if name == kind else min(len(lane), own + 1)
            for name, lane in self._lanes.items()
            if lane
        }
