"""The APScheduler jobs: DST-safe fire times, job options, changes, catch-up and retries."""

from __future__ import annotations

import itertools
import sqlite3
import threading
import time as time_module
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from apscheduler.schedulers.base import STATE_STOPPED
from apscheduler.triggers.date import DateTrigger
from digest_probes import ProbedScheduler
from faulty_slack import FaultySlackRecorder
from sqlalchemy import event
from sqlalchemy.exc import OperationalError

from bot.digest.posting import LEASE
from bot.digest.schedule import DigestScheduler, DigestTrigger, StoppableScheduler
from bot.digest.service import DigestService
from bot.digest.subscriptions import Schedule
from bot.settings import Settings
from bot.slack.client import make_web_client
from bot.store import NEW_PAPERS, Store

BERLIN = ZoneInfo("Europe/Berlin")


def berlin(*args: int) -> datetime:
    return datetime(*args, tzinfo=BERLIN).astimezone(UTC)


def fire_times(trigger: DigestTrigger, now: datetime, count: int) -> list[datetime]:
    """What APScheduler would ask the trigger: first from ``now``, then from each fire."""
    times = [trigger.get_next_fire_time(None, now)]
    while len(times) < count:
        times.append(trigger.get_next_fire_time(times[-1], now))
    return times


def test_the_trigger_keeps_local_nine_across_spring_forward() -> None:
    trigger = DigestTrigger(Schedule(time(9, 0), BERLIN, "daily"))
    times = fire_times(trigger, berlin(2025, 3, 29, 8, 0), 3)
    assert times == [
        berlin(2025, 3, 29, 9, 0),
        berlin(2025, 3, 30, 9, 0),
        berlin(2025, 3, 31, 9, 0),
    ]
    assert [moment - times[0] for moment in times[1:]] == [timedelta(hours=23), timedelta(hours=47)]


def test_the_trigger_fires_once_on_the_gap_and_once_on_the_repeat() -> None:
    trigger = DigestTrigger(Schedule(time(2, 30), BERLIN, "daily"))
    spring = fire_times(trigger, berlin(2025, 3, 29, 12, 0), 2)
    assert [moment.astimezone(BERLIN).strftime("%d %H:%M") for moment in spring] == [
        "30 03:00",
        "31 02:30",
    ]
    autumn = fire_times(trigger, berlin(2025, 10, 25, 12, 0), 2)
    assert [moment.astimezone(BERLIN).date() for moment in autumn] == [
        date(2025, 10, 26),
        date(2025, 10, 27),
    ]


def test_the_trigger_fires_at_once_when_started_exactly_on_time() -> None:
    trigger = DigestTrigger(Schedule(time(9, 0), ZoneInfo("UTC"), "weekdays"))
    friday_nine = datetime(2025, 3, 28, 9, 0, tzinfo=UTC)
    assert trigger.get_next_fire_time(None, friday_nine) == friday_nine
    assert trigger.get_next_fire_time(friday_nine, friday_nine) == datetime(
        2025, 3, 31, 9, 0, tzinfo=UTC
    )


@pytest.fixture
def store(tmp_path) -> Iterator[Store]:
    opened = Store(f"sqlite:///{tmp_path / 'paperbot.db'}")
    yield opened
    opened.close()


@pytest.fixture
def service(store, index, recorder) -> DigestService:
    return DigestService(store, index, make_web_client("xoxb-test", recorder.base_url), Settings())


@pytest.fixture
def scheduler(service) -> Iterator[DigestScheduler]:
    """A test stops it before its frozen clock ends: stopping wakes the scheduler's thread,
    which runs whatever is due first, and on the real clock every job is long due."""
    built = ProbedScheduler(service)
    yield built
    built.stop()


def posts(recorder: FaultySlackRecorder, channel: str) -> list:
    return [
        call for call in recorder.calls_to("chat.postMessage") if call.args["channel"] == channel
    ]


def test_jobs_follow_subscribe_unsubscribe_with_the_expected_options(
    service, scheduler, channel
) -> None:
    with time_machine.travel(berlin(2025, 3, 28, 10, 0), tick=False):
        scheduler.start()
        assert channel not in scheduler.next_runs()
        service.subscribe(channel, "9:00 Europe/Berlin daily")
        assert scheduler.next_runs()[channel] == berlin(2025, 3, 29, 9, 0)
        service.subscribe(channel, "11:30 Europe/Berlin daily")
        assert scheduler.next_runs()[channel] == berlin(2025, 3, 28, 11, 30)
        job = scheduler.job(channel)
        assert (job.coalesce, job.max_instances) == (True, 1)
        assert job.misfire_grace_time >= 3600
        service.unsubscribe(channel)
        assert channel not in scheduler.next_runs()
        scheduler.stop()


def test_the_job_posts_at_the_scheduled_instant(service, scheduler, recorder, channel) -> None:
    with time_machine.travel(berlin(2025, 3, 29, 8, 59, 59, 500000), tick=True):
        service.subscribe(channel, "9:00 Europe/Berlin daily")
        scheduler.start()
        assert posts(recorder, channel) == []
        [post] = recorder.wait_for(
            "chat.postMessage", where=lambda call: call.args["channel"] == channel
        )
        assert "Saturday 29 March 2025" in post.blocks[0]["text"]["text"]
        assert scheduler.next_runs()[channel] == berlin(2025, 3, 30, 9, 0)
        scheduler.stop()


def test_start_catches_up_a_post_missed_today(service, scheduler, recorder, channel) -> None:
    with time_machine.travel(berlin(2025, 3, 28, 15, 0), tick=True):
        service.subscribe(channel, "9:00 Europe/Berlin")
        scheduler.start()
        recorder.wait_for("chat.postMessage", where=lambda call: call.args["channel"] == channel)
        assert scheduler.next_runs()[channel] == berlin(2025, 3, 31, 9, 0)
        scheduler.stop()
        assert len(posts(recorder, channel)) == 1


def wait_until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    """Poll a condition the scheduler's threads will make true (monotonic time is real)."""
    deadline = time_module.monotonic() + timeout
    while not condition():
        if time_module.monotonic() > deadline:
            raise TimeoutError("the scheduler did not get there in time")
        threading.Event().wait(0.01)


def test_a_claim_held_elsewhere_gets_a_retry_after_its_lease(
    service, scheduler, store, recorder, channel
) -> None:
    with time_machine.travel(berlin(2025, 3, 28, 9, 0, 30), tick=False):
        service.subscribe(channel, "9:00 Europe/Berlin")
        store.claim_digest(
            channel,
            date(2025, 3, 28),
            paper_id="x",
            round=0,
            position=1,
            pool_size=76,
            owner="crashed-replica",
            lease=LEASE,
        )
        scheduler.start()
        wait_until(lambda: channel in scheduler.retries())
        assert scheduler.retries()[channel] == berlin(2025, 3, 28, 9, 0, 30) + LEASE
        scheduler.stop()
        assert posts(recorder, channel) == []


def test_subscribing_after_todays_time_posts_today(service, scheduler, recorder, channel) -> None:
    with time_machine.travel(berlin(2025, 3, 28, 12, 0), tick=True):
        scheduler.start()
        service.subscribe(channel, "9:00 Europe/Berlin")
        recorder.wait_for("chat.postMessage", where=lambda call: call.args["channel"] == channel)
        assert scheduler.next_runs()[channel] == berlin(2025, 3, 31, 9, 0)
        scheduler.stop()


def test_stopping_while_a_one_off_job_is_handed_over_raises_nothing() -> None:
    """What a ``shutdown`` from another thread does first (the state) meets the scheduler's
    thread as it hands the due catch-up job to its executor and removes it."""
    ran = threading.Event()
    scheduler = StoppableScheduler(timezone=UTC)
    scheduler.start(paused=True)
    scheduler.add_job(ran.set, DateTrigger(run_date=datetime.now(UTC)), id="catch-up")
    paused, scheduler.state = scheduler.state, STATE_STOPPED
    try:
        assert scheduler._process_jobs() is None
        assert ran.wait(5)
    finally:
        scheduler.state = paused  # for the real shutdown to take the executor down
        scheduler.shutdown(wait=True)


NINE = berlin(2025, 3, 28, 9, 0)
"""A Friday's post instant in Berlin."""
SECOND = timedelta(seconds=1)


class OutageStore:
    """A store whose every operation fails as a stopped database's does while ``down``, and
    the operations named in ``down_for`` always."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.down = False
        self.down_for: set[str] = set()

    def __getattr__(self, name: str) -> Any:
        operation = getattr(self._store, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            if self.down or name in self.down_for:
                raise OperationalError("SELECT 1", {}, ConnectionRefusedError("connection refused"))
            return operation(*args, **kwargs)

        return call


def next_paper_line(service: DigestService, channel: str) -> str:
    return service.subscriptions(channel).blocks[0]["text"]["text"].splitlines()[-1]


def step_to(
    traveller: time_machine.Coordinates, scheduler: ProbedScheduler, when: datetime
) -> None:
    """Move the frozen clock to ``when`` and let the scheduler run what is due by then."""
    traveller.move_to(when)
    scheduler.wake()


def retry_moves_to(scheduler: ProbedScheduler, channel: str, when: datetime | None) -> None:
    wait_until(lambda: scheduler.retries().get(channel) == when)


def attempts_fail(
    traveller: time_machine.Coordinates,
    scheduler: ProbedScheduler,
    channel: str,
    *times: datetime,
) -> None:
    """The channel's attempt at each of ``times`` but the last fails and sets the next one
    for the time after it."""
    for at, retry in itertools.pairwise(times):
        step_to(traveller, scheduler, at)
        retry_moves_to(scheduler, channel, retry)


def retry_posts(
    traveller: time_machine.Coordinates,
    scheduler: ProbedScheduler,
    recorder: FaultySlackRecorder,
    channel: str,
    when: datetime,
) -> None:
    """The channel's retry at ``when`` posts, and leaves no retry behind."""
    step_to(traveller, scheduler, when)
    recorder.wait_for("chat.postMessage", where=lambda call: call.args["channel"] == channel)
    retry_moves_to(scheduler, channel, None)


def start_subscribed(
    service: DigestService, scheduler: ProbedScheduler, channel: str, args: str
) -> None:
    """Subscribe, start, and let the start-up catch-up finish before a test's fault."""
    service.subscribe(channel, args)
    scheduler.start()
    assert scheduler.caught_up.wait(5)


@pytest.fixture
def outage(store) -> OutageStore:
    return OutageStore(store)


@pytest.fixture
def outage_service(outage, index, recorder) -> DigestService:
    return DigestService(outage, index, make_web_client("xoxb-test", recorder.base_url), Settings())


@pytest.fixture
def outage_scheduler(outage_service) -> Iterator[ProbedScheduler]:
    built = ProbedScheduler(outage_service)
    yield built
    built.stop()


def test_a_database_down_at_the_minute_is_retried_and_posts_once_when_back(
    outage, outage_service, outage_scheduler, recorder, channel, caplog
) -> None:
    service, scheduler = outage_service, outage_scheduler
    with time_machine.travel(berlin(2025, 3, 28, 8, 59, 40), tick=False) as traveller:
        start_subscribed(service, scheduler, channel, "9:00 Europe/Berlin daily")
        outage.down = True
        attempts_fail(traveller, scheduler, channel, NINE, NINE + 5 * SECOND, NINE + 20 * SECOND)
        outage.down = False
        assert next_paper_line(service, channel) == (
            "*Next paper:* today's is late and will be retried at 09:00:20, "
            "then Saturday 29 March 2025 at 09:00 (Europe/Berlin)"
        )
        assert posts(recorder, channel) == []
        step_to(traveller, scheduler, NINE + 20 * SECOND)
        recorder.wait_for("chat.postMessage", where=lambda call: call.args["channel"] == channel)
        retry_moves_to(scheduler, channel, None)
        wait_until(lambda: "late" not in next_paper_line(service, channel))
        assert scheduler.next_runs()[channel] == berlin(2025, 3, 29, 9, 0)
        scheduler.stop()
    assert len(posts(recorder, channel)) == 1
    assert "raised an exception" not in caplog.text
    assert "the database is unavailable (" in caplog.text
    assert "connection refused); trying again at 2025-03-28T08:00:05+00:00" in caplog.text


def test_a_database_lost_between_the_post_and_its_record_still_posts_once(
    outage, outage_service, outage_scheduler, store, recorder, channel
) -> None:
    """The retry finds its own claim ``posting``: after the lease it looks in the channel,
    finds the post, and records it instead of posting again."""
    service, scheduler = outage_service, outage_scheduler
    with time_machine.travel(berlin(2025, 3, 28, 8, 59, 40), tick=False) as traveller:
        start_subscribed(service, scheduler, channel, "9:00 Europe/Berlin daily")
        outage.down_for.add("record_post")
        attempts_fail(traveller, scheduler, channel, NINE, NINE + 5 * SECOND)
        outage.down_for.clear()
        attempts_fail(traveller, scheduler, channel, NINE + 5 * SECOND, NINE + LEASE)
        step_to(traveller, scheduler, NINE + LEASE)
        wait_until(lambda: store.digest_claim(channel, date(2025, 3, 28)).state == "posted")
        assert channel not in scheduler.retries()
        scheduler.stop()
    [post] = posts(recorder, channel)
    assert store.digest_claim(channel, date(2025, 3, 28)).ts == post.response["ts"]


def test_a_database_down_until_the_local_day_ends_gives_the_day_up(
    outage, outage_service, outage_scheduler, recorder, channel, caplog
) -> None:
    service, scheduler = outage_service, outage_scheduler
    with time_machine.travel(berlin(2025, 3, 28, 23, 58), tick=False) as traveller:
        start_subscribed(service, scheduler, channel, "23:59 Europe/Berlin daily")
        outage.down = True
        last = berlin(2025, 3, 28, 23, 59)
        attempts_fail(traveller, scheduler, channel, last, last + 5 * SECOND, last + 20 * SECOND)
        step_to(traveller, scheduler, last + 20 * SECOND)
        wait_until(lambda: "no paper of the day in" in caplog.text)
        assert channel not in scheduler.retries()
        assert scheduler.next_runs()[channel] == berlin(2025, 3, 29, 23, 59)
        scheduler.stop()
    assert posts(recorder, channel) == []
    assert "still unavailable as its local day ended (" in caplog.text


def test_a_write_lock_held_across_the_minute_delays_the_post_until_it_is_released(
    tmp_path, index, recorder, channel, monkeypatch
) -> None:
    """Another process holds the SQLite file's write lock: the store's own wait runs out
    (shortened here from 15 s) and the post follows the lock's release."""
    monkeypatch.setattr("bot.store.database.SQLITE_BUSY_TIMEOUT_MS", 50)
    path = tmp_path / "locked.db"
    locked = Store(f"sqlite:///{path}")
    service = DigestService(
        locked, index, make_web_client("xoxb-test", recorder.base_url), Settings()
    )
    scheduler = ProbedScheduler(service)
    other_process = sqlite3.connect(path, isolation_level=None)
    try:
        with time_machine.travel(berlin(2025, 3, 28, 8, 59, 40), tick=False) as traveller:
            start_subscribed(service, scheduler, channel, "9:00 Europe/Berlin")
            other_process.execute("BEGIN IMMEDIATE")
            attempts_fail(traveller, scheduler, channel, NINE, NINE + 5 * SECOND)
            other_process.execute("ROLLBACK")
            retry_posts(traveller, scheduler, recorder, channel, NINE + 5 * SECOND)
            scheduler.stop()
    finally:
        other_process.close()
        locked.close()
    assert len(posts(recorder, channel)) == 1


def test_a_frozen_database_at_the_minute_costs_a_retry_not_the_digest(
    tmp_path, index, recorder, channel, caplog
) -> None:
    """A server that stops answering once the subscription is read: the digest's claim
    stops waiting at its deadline (shortened here from 30 s) and hands the attempt to the
    retry, rather than holding the digest's thread, and the channel's later runs, for good."""
    frozen = Store(f"sqlite:///{tmp_path / 'frozen.db'}", digest_deadline=0.2)
    thawed = threading.Event()
    thawed.set()

    def freeze_the_claim(_connection, _cursor, statement, *_) -> None:
        if statement.startswith("INSERT INTO digest_claims"):
            thawed.wait()

    event.listen(frozen._database._engine, "before_cursor_execute", freeze_the_claim)
    service = DigestService(
        frozen, index, make_web_client("xoxb-test", recorder.base_url), Settings()
    )
    scheduler = ProbedScheduler(service)
    try:
        with time_machine.travel(berlin(2025, 3, 28, 8, 59, 40), tick=False) as traveller:
            start_subscribed(service, scheduler, channel, "9:00 Europe/Berlin")
            thawed.clear()
            attempts_fail(traveller, scheduler, channel, NINE, NINE + 5 * SECOND)
            thawed.set()
            retry_posts(traveller, scheduler, recorder, channel, NINE + 5 * SECOND)
            scheduler.stop()
    finally:
        thawed.set()
        frozen.close()
    assert len(posts(recorder, channel)) == 1
    assert "no answer within 0.2 s); trying again at" in caplog.text


def test_a_refresh_that_cannot_read_the_subscription_keeps_the_job(
    outage, outage_service, outage_scheduler, channel, caplog
) -> None:
    """The old job goes only once the new subscription is known: a refresh during an outage
    must not leave the channel with no job until a restart."""
    service, scheduler = outage_service, outage_scheduler
    with time_machine.travel(berlin(2025, 3, 28, 8, 59, 40), tick=False):
        start_subscribed(service, scheduler, channel, "9:00 Europe/Berlin daily")
        outage.down_for = {"subscription"}
        scheduler.refresh(channel)
        assert scheduler.next_runs()[channel] == NINE
        scheduler.stop()
    assert f"digest for {channel}: kept its schedule" in caplog.text


def test_a_new_papers_subscription_looks_every_day_in_a_job_of_its_own(
    service, scheduler, recorder, channel
) -> None:
    with time_machine.travel(berlin(2025, 3, 28, 10, 0), tick=False):
        scheduler.start()
        service.subscribe(channel, "9:00 Europe/Berlin")
        service.subscribe(channel, "new 9:30 Europe/Berlin")
        runs = scheduler.next_runs()
        assert runs[channel] == berlin(2025, 3, 31, 9, 0)  # weekdays: Monday next
        assert runs[f"{channel}:new"] == berlin(2025, 3, 29, 9, 30)  # it looks on Saturday too
        outcome = service.serve(channel, kind=NEW_PAPERS)
        assert (outcome.status, outcome.detail) == (
            "nothing_new",
            "no feed has announced a paper yet",
        )
        service.unsubscribe(channel, NEW_PAPERS)
        assert f"{channel}:new" not in scheduler.next_runs() and channel in scheduler.next_runs()
        scheduler.stop()
        kinds = [
            call.args["metadata"]["event_payload"].get("kind") for call in posts(recorder, channel)
        ]
        assert NEW_PAPERS not in kinds  # only today's paper of the day, due since 09:00
