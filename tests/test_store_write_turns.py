"""SQLite's write lock taken in turn (issue 31, section 4): a Save queued behind other writes
is not refused while they are being answered, a database that does not answer is still
refused, queue and all, and one stuck or failed writer never blocks the later ones for good.

Nothing here is timed. The writes are made slow by a clock that takes a while to read (a
Save reads it while holding the lock), so a queue of them outlasts the store's deadline
although each one is far within it: a loaded machine only makes the queue longer, which the
test needs, and would have to stall one step for most of the deadline to break it. The
queue's own patience is measured by a clock the tests move.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import pytest
from test_store_races import SETTLING, together

from bot.store import DatabaseUnavailable, Store
from bot.store.waiting import WriteTurns

DEADLINE = 2.0
STEP = 0.25
"""How long each Save holds the write lock at least: an eighth of the deadline."""
SAVES = 12
"""Saves clicked at once: the last ends at least one and a half deadlines after the click
(so a deadline counted from the click refuses it), fewer than the store's threads
(``DATABASE_THREADS``), so none waits for a thread."""
TEAM, USER = "T0TURNS", "U0TURNS"


class SlowClock:
    """A fixed instant that takes ``STEP`` to read once ``slow`` is set."""

    def __init__(self) -> None:
        self.slow = False

    def __call__(self) -> datetime:
        if self.slow:
            time.sleep(STEP)
        return datetime(2025, 3, 28, 8, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> SlowClock:
    return SlowClock()


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "paperbot.db"


@pytest.fixture
def store(path: Path, clock: SlowClock) -> Iterator[Store]:
    store = Store(f"sqlite:///{path}", clock, deadline=DEADLINE)
    clock.slow = True
    yield store
    store.close()


def save(store: Store, paper: int) -> Callable[[], object]:
    return lambda: store.save_paper(TEAM, USER, f"paper{paper}")


def test_saves_queued_behind_answered_writes_are_all_saved(store: Store) -> None:
    outcomes = together([save(store, paper) for paper in range(SAVES)])
    assert [o for o in outcomes if isinstance(o, Exception)] == []
    assert sorted(store.saved_papers(TEAM, USER)) == sorted(f"paper{p}" for p in range(SAVES))


def test_saves_queued_behind_another_process_lock_are_refused_and_never_saved_later(
    store: Store, path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The queue does not move while another process holds the lock: every Save is refused
    while it still holds it, and none is saved behind its person's back once it is freed
    (the first was waiting for SQLite's lock and is rolled back; the rest never begin)."""
    caplog.set_level(logging.INFO, logger="bot.store")
    before = set(threading.enumerate())
    with closing(sqlite3.connect(path, isolation_level=None)) as other_process:
        other_process.execute("BEGIN IMMEDIATE")
        outcomes = together([save(store, paper) for paper in range(4)])
        other_process.execute("ROLLBACK")
    assert all(isinstance(outcome, DatabaseUnavailable) for outcome in outcomes)
    for stranded in set(threading.enumerate()) - before:
        stranded.join(timeout=SETTLING)
    assert store.saved_papers(TEAM, USER) == []
    assert caplog.messages.count("a write was rolled back: its caller stopped waiting for it") == 1
    assert caplog.messages.count("a write was not begun: its caller stopped waiting for it") == 3


class Interrupted(Exception):
    """What a writer's thread raises while it waits its turn, as an interrupt would."""


def writer(turns: WriteTurns, outcomes: list[object], name: str) -> threading.Thread:
    """A thread, started, that waits for a turn, holds it for nothing, and records either
    ``"served"`` or the exception that ended its wait."""

    def write() -> None:
        try:
            with turns.turn(None):
                outcomes.append("served")
        except Exception as error:
            outcomes.append(error)

    thread = threading.Thread(target=write, name=name, daemon=True)
    thread.start()
    return thread


def test_a_writer_failing_while_it_waits_leaves_its_turn_to_the_next() -> None:
    def still_time() -> float:
        """Time that stands still, so no wait runs out, read by each waiter: the failing
        one is interrupted at its first read."""
        if threading.current_thread().name == "failing":
            raise Interrupted
        return 0.0

    turns = WriteTurns(patience=1.0, monotonic=still_time)
    failed: list[object] = []
    after: list[object] = []
    with turns.turn(None):
        writer(turns, failed, "failing").join(timeout=SETTLING)
        later = writer(turns, after, "later")
    later.join(timeout=SETTLING)
    assert [type(outcome) for outcome in failed] == [Interrupted]
    assert after == ["served"]


def test_a_queue_stuck_behind_its_holder_refuses_the_waiter_and_serves_later_writers() -> None:
    now = [0.0]
    turns = WriteTurns(patience=0.01, monotonic=lambda: now[0])
    refused: list[object] = []
    after: list[object] = []
    with turns.turn(None):
        waiter = writer(turns, refused, "waiter")
        waiter.join(timeout=0.1)
        assert refused == [], "refused while the queue's clock stood still"
        now[0] = 0.02
        waiter.join(timeout=SETTLING)
        assert [type(outcome) for outcome in refused] == [DatabaseUnavailable]
        now[0] = 0.03
        later = writer(turns, after, "later")
    later.join(timeout=SETTLING)
    assert after == ["served"]
