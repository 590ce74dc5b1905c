"""Admission by expected wait, and the lanes' turns, with a clock moved by hand.

``Lanes`` is bookkeeping only: these tests add, start and finish work and read the verdicts,
with no threads and no timing. ``WorkPool`` is checked with work that waits on events.
"""

from __future__ import annotations

import threading

import pytest

from bot.slack.admission import MAX_WAIT_SECONDS, WEIGHT_OF_LATEST, Lanes
from bot.slack.work import (
    IGNORED,
    NOTICES,
    OTHER,
    QUIET_SECONDS,
    InlineExecutor,
    WorkPool,
    admission_for,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def lanes(workers: int, mean: float, clock: Clock | None = None) -> Lanes[str]:
    return Lanes(workers, clock or Clock(), first_guess=mean)


def test_each_kinds_work_time_is_a_weighted_mean_of_what_was_measured_of_it() -> None:
    clock = Clock()
    queue = lanes(1, 1.0, clock)
    queue.add("click", "c1")
    queue.start_next()
    clock.now += 3.0
    queue.finish("c1")
    assert queue.work_seconds("click") == pytest.approx(1.0 + WEIGHT_OF_LATEST * 2.0)
    assert queue.work_seconds("mention") == 1.0  # not measured yet: the first guess


def test_the_expected_wait_grows_with_the_queue_until_the_kind_is_turned_away() -> None:
    queue = lanes(2, 4.0)
    for n in range(2):
        queue.add("click", f"running {n}")
        queue.start_next()
    expected = []
    while (verdict := queue.judge("click")).admitted:
        expected.append(verdict.expected_seconds)
        queue.add("click", f"queued {len(expected)}")
    # (requests ahead / workers + its own) x 4 s of work each
    assert expected == [4.0, 6.0, 8.0, 10.0]
    assert verdict.expected_seconds == 12.0 > MAX_WAIT_SECONDS


def test_a_burst_of_quick_searches_queues_whatever_its_count() -> None:
    """Issue 21's burst: 400 searches measured at 20 ms each on 32 workers are a quarter of a
    second of work, so all of them queue (a limit of 32 running and 96 queued would turn 272
    away); only once the measured work says the wait is past ten seconds is one turned away."""
    clock = Clock()
    queue = lanes(32, 0.05, clock)
    for n in range(20):
        queue.add("/paper", f"measured {n}")
        queue.start_next()
        clock.now += 0.02
        queue.finish(f"measured {n}")
    for n in range(400):
        assert queue.judge("/paper").admitted
        queue.add("/paper", n)
    assert queue.judge("/paper").expected_seconds < 1.0
    while queue.work_seconds("/paper") < 0.9:  # then searches take 1 s: the pool measures it
        item = queue.start_next()
        clock.now += 1.0
        queue.finish(item)
    verdict = queue.judge("/paper")
    assert not verdict.admitted and verdict.ahead > 350


def test_a_flood_of_one_kind_does_not_lengthen_another_kinds_wait() -> None:
    queue = lanes(2, 4.0)
    for n in range(6):
        queue.add("click", f"c{n}")
    queue.start_next(), queue.start_next()
    assert not queue.judge("click").admitted
    verdict = queue.judge("/paper")
    # one click runs before it (the lanes take turns), not four
    assert (verdict.admitted, verdict.ahead, verdict.expected_seconds) == (True, 1, 6.0)


def test_a_slow_kind_does_not_turn_another_kind_away() -> None:
    """Searches measured at 20 ms, then App Home publishes at 8 s: with both workers on
    publishes and two more queued, a publish is turned away, while a search is expected after
    one queued publish's share of the workers and its own 20 ms (a mean shared by every kind
    would say 8 s for the search too, and turn it away)."""
    clock = Clock()
    queue = lanes(2, 0.05, clock)
    for kind, seconds, count in (("/paper", 0.02, 20), ("home tab", 8.0, 40)):
        for n in range(count):
            queue.add(kind, f"{kind} {n}")
            queue.start_next()
            clock.now += seconds
            queue.finish(f"{kind} {n}")
    for n in range(4):
        queue.add("home tab", f"slow {n}")
    queue.start_next(), queue.start_next()
    home, search = queue.judge("home tab"), queue.judge("/paper")
    assert home.work_seconds == pytest.approx(8.0, abs=0.01)
    assert search.work_seconds == pytest.approx(0.02, abs=0.001)
    assert not home.admitted
    assert search.admitted and search.expected_seconds == pytest.approx(
        home.work_seconds / 2 + search.work_seconds
    )


def test_busy_notices_and_ignored_events_are_not_timed() -> None:
    """They take ~0 ms: measured, they would say a request of their lane costs nothing."""
    clock = Clock()
    queue = Lanes(1, clock, first_guess=2.0, untimed={NOTICES, IGNORED})
    for kind in (NOTICES, IGNORED, "click"):
        queue.add(kind, kind)
        queue.start_next()
        queue.finish(kind)
    assert queue.work_seconds(NOTICES) == queue.work_seconds(IGNORED) == 2.0
    assert queue.work_seconds("click") < 2.0
    assert set(queue.work_times) == {"click"}


def test_the_pool_does_not_time_notices_or_ignored_events() -> None:
    clock = Clock()
    pool = WorkPool(1, first_guess=2.0, clock=clock)
    try:
        assert pool.admit(IGNORED)
        pool.submit(lambda: None).result(timeout=5)
        assert pool.wait_idle(5)
        assert pool._lanes.work_times == {}
    finally:
        pool.shutdown()


def test_the_lanes_take_turns() -> None:
    queue = lanes(1, 0.1)
    for item in ("c1", "c2", "c3"):
        queue.add("click", item)
    queue.add("/paper", "p1")
    queue.add("mention", "m1")
    order = []
    while (item := queue.start_next()) is not None:
        order.append(item)
        queue.finish(item)
    assert order == ["c1", "p1", "m1", "c2", "c3"]


def test_work_that_hangs_counts_before_it_finishes() -> None:
    """A Slack that stops answering: nothing finishes, so the mean alone still says 50 ms."""
    clock = Clock()
    queue = lanes(1, 0.05, clock)
    queue.add("click", "hanging")
    queue.start_next()
    assert queue.judge("click").admitted
    clock.now += 30.0
    verdict = queue.judge("click")
    assert not verdict.admitted and verdict.expected_seconds == 30.0


def test_a_free_worker_always_takes_work_so_the_estimate_can_recover() -> None:
    clock = Clock()
    queue = lanes(1, 60.0, clock)
    assert queue.judge("mention").admitted
    for n in range(20):
        queue.add("mention", n)
        queue.start_next()
        clock.now += 0.02
        queue.finish(n)
    queue.add("mention", "running")
    queue.start_next()
    assert queue.judge("mention").admitted
    assert queue.work_times["mention"].mean < 1.0


def test_an_idle_pool_admits_and_runs_each_kind_in_its_lane() -> None:
    pool = WorkPool(2)
    try:
        assert pool.admit("click")
        assert pool.submit(lambda: "answered").result(timeout=5) == "answered"
        assert pool.progress() == (0, 1)
    finally:
        pool.shutdown()


def test_a_request_turned_away_never_runs_and_its_notice_does() -> None:
    release = threading.Event()
    pool = WorkPool(1, first_guess=60.0, clock=Clock())
    ran: list[str] = []
    try:
        assert pool.admit("/paper")
        pool.submit(release.wait, 5)
        assert not pool.admit("click", lambda: ran.append("busy notice"))
        pool.submit(lambda: ran.append("the click's work")).result(timeout=0)
        assert pool._lanes.waiting(NOTICES) == 1
        release.set()
        assert pool.wait_idle(5)
        assert ran == ["busy notice"]
        # the next submit without an ack naming its kind queues as OTHER
        pool.submit(lambda: ran.append(OTHER)).result(timeout=5)
        assert ran[-1] == OTHER
    finally:
        release.set()
        pool.shutdown()


def test_executors_other_than_the_pool_admit_everything() -> None:
    assert admission_for(InlineExecutor())("click", None) is True


def test_the_pool_is_quiet_only_for_work_alone_after_a_pause_without_any_other() -> None:
    """``WorkPool.quiet`` lets a lone search take both cores: never while other work runs or
    waits, nor within ``QUIET_SECONDS`` of other work finishing (a steady load's gaps)."""
    clock = Clock()
    pool = WorkPool(2, first_guess=0.1, clock=clock)
    held, started = threading.Event(), threading.Event()
    seen: list[bool] = []

    def hold() -> None:
        started.set()
        assert held.wait(5)

    def asked_in_the_pool() -> bool:
        answer = pool.submit(pool.quiet).result(timeout=5)
        assert pool.wait_idle(5)  # its own finish counts from here, before the clock moves
        return answer

    try:
        assert asked_in_the_pool()  # nothing has run before it
        seen.append(asked_in_the_pool())  # the first has just finished
        clock.now += QUIET_SECONDS
        seen.append(asked_in_the_pool())
        clock.now += QUIET_SECONDS
        holding = pool.submit(hold)
        assert started.wait(5)
        seen.append(pool.submit(pool.quiet).result(timeout=5))  # beside the held work
        held.set()
        holding.result(timeout=5)
        assert pool.wait_idle(5)
        clock.now += QUIET_SECONDS
        seen.append(pool.quiet())  # asked from outside the pool, with nothing in it
    finally:
        held.set()
        pool.shutdown()
    assert seen == [False, True, False, True]
