"""Readiness probes on the threads that ack Slack: the database is asked at most once every
few seconds, by one probe at a time, and only a change of state is logged."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor

from bot.slack import health
from bot.slack.health import READY_PATH, HealthCheck


class SlowDatabase:
    """A database whose probe waits until ``answer`` says what it finds; counts the probes."""

    def __init__(self) -> None:
        self.probes = 0
        self.started = threading.Semaphore(0)
        self._answers: list[bool] = []
        self._answered = threading.Condition()

    def answer(self, reachable: bool) -> None:
        with self._answered:
            self._answers.append(reachable)
            self._answered.notify_all()

    def answered_last(self) -> bool:
        return True

    def reachable(self) -> bool:
        self.probes += 1
        self.started.release()
        with self._answered:
            assert self._answered.wait_for(lambda: self._answers, timeout=5)
            return self._answers.pop(0)


def status(check: HealthCheck) -> str:
    return check.reply(READY_PATH)[0]


def test_one_probe_at_a_time_and_its_answer_stands_for_a_while(caplog):
    database, now = SlowDatabase(), [0.0]
    check = HealthCheck(database, clock=lambda: now[0])
    with ThreadPoolExecutor(1) as pool, caplog.at_level(logging.INFO, logger=health.__name__):
        probing = pool.submit(status, check)
        assert database.started.acquire(timeout=5)
        assert [status(check) for _ in range(5)] == [health.OK] * 5
        database.answer(False)
        assert probing.result(timeout=5) == health.UNAVAILABLE
        assert [status(check) for _ in range(5)] == [health.UNAVAILABLE] * 5
        assert database.probes == 1
        for reachable in (False, True, True):
            now[0] += health.READY_FOR_SECONDS
            database.answer(reachable)
            status(check)
    assert database.probes == 4
    assert [record.getMessage() for record in caplog.records] == [
        "not ready: the database does not answer",
        "ready again: the database answers",
    ]
