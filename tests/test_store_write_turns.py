"""SQLite's write lock taken in turn (issue 31, section 4): a Save queued behind other writes
is not refused while they are being answered, and a database that does not answer is still
refused, queue and all.

Nothing here is timed. The writes are made slow by a clock that takes a while to read (a
Save reads it while holding the lock), so a queue of them outlasts the store's deadline
although each one is well within it.
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

DEADLINE = 1.0
STEP = 0.12
"""How long each Save holds the write lock: a twelfth of the queue below, under the deadline."""
SAVES = 12
"""Saves clicked at once: more than the deadline's worth of them, fewer than the store's
threads (``DATABASE_THREADS``), so none waits for a thread."""
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
