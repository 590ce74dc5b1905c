"""Which requests the listener pool takes, and in what order it runs them.

A request is turned away only when its answer could not be expected within about
``MAX_WAIT_SECONDS``; the rest queue. A count of workers and queued requests says nothing
about that: a hundred searches of 20 ms are two seconds of work, a hundred clicks behind a
Slack that answers 3 s late are ten. So the estimate follows what the pool is measured to
do: an exponentially weighted mean of how long one request's work took (raised to how long
the running ones have taken so far, so a Slack that suddenly hangs counts before anything
finishes), times the requests that would run first, shared among the workers.

Each kind of request (a command, a click, a mention, ...) queues in its own lane, and the
lanes take turns: a flood of one kind lengthens that kind's wait, never another's, so no
kind can starve another. Everything here is plain bookkeeping with an injected clock;
``bot.slack.work`` runs it on threads.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

MAX_WAIT_SECONDS = 10.0
"""The longest a person should wait for an answer: past it, being told to try again is better."""
FIRST_GUESS_SECONDS = 0.05
"""One request's work before any was measured (a search is ~20 ms); measurements replace it
within a few dozen requests."""
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


class Lanes(Generic[Item]):
    """Queued work by kind, taken in turns, and the estimate that admits it.

    ``clock`` gives seconds (``time.monotonic`` in production); nothing here reads the time
    on its own, so tests move it by hand.
    """

    def __init__(
        self,
        workers: int,
        clock: Callable[[], float],
        *,
        work_time: WorkTime | None = None,
        max_wait: float = MAX_WAIT_SECONDS,
    ) -> None:
        self.workers = workers
        self.work_time = work_time or WorkTime()
        self.max_wait = max_wait
        self._clock = clock
        self._lanes: dict[str, deque[Item]] = {}
        self._turns: deque[str] = deque()
        self._started: dict[Item, float] = {}

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
        expected = (ahead / self.workers + 1) * self._work_seconds()
        free_worker = self.running + self.queued < self.workers
        return Verdict(kind, free_worker or expected <= self.max_wait, expected, ahead)

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
        self._started[item] = self._clock()
        return item

    def finish(self, item: Item) -> None:
        self.work_time.record(self._clock() - self._started.pop(item))

    def _ahead_of_new(self, kind: str) -> int:
        """Requests that run before a new one of ``kind``: its own lane, and from each other
        lane at most one per turn its own lane gets."""
        own = len(self._lanes.get(kind, ()))
        others = sum(min(len(lane), own + 1) for name, lane in self._lanes.items() if name != kind)
        return own + others

    def _work_seconds(self) -> float:
        """The measured mean, or longer while the running work has already taken longer."""
        if not self._started:
            return self.work_time.mean
        now = self._clock()
        running_so_far = sum(now - started for started in self._started.values())
        return max(self.work_time.mean, running_so_far / len(self._started))
