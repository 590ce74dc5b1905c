"""The run-book's replica layout: one process serves the commands with its scheduler off,
others schedule, all on one database (SQLite and PostgreSQL). A subscription made, changed or
removed through the serving process reaches every scheduling process's jobs within
``WATCH_INTERVAL``, without a restart, and is posted once at its minute.

Each process is a store and digest service of its own over the one database. The clock is
frozen and moved, and the scheduler woken, so no test waits for a minute to pass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

import pytest
import time_machine
from digest_probes import ProbedScheduler
from faulty_slack import FaultySlackRecorder
from sqlalchemy import create_engine, text
from test_schedule import posts, step_to, wait_until
from test_store import _set_schema_version, database_url

from bot.digest.posting import DigestOutcome
from bot.digest.schedule import WATCH_INTERVAL, feed_key
from bot.digest.service import DigestService
from bot.search.engine import SearchIndex
from bot.settings import Settings
from bot.slack.client import make_web_client
from bot.store import DAILY, WEEKLY, Store, SubscriptionRecord
from bot.store.database import normalise_database_url

__all__ = ["database_url"]  # the fixture, defined in test_store

FRIDAY = datetime(2025, 3, 28, 17, 20, tzinfo=UTC)
"""When the scheduling processes start: a Friday, five minutes before the post."""
MINUTE = FRIDAY + timedelta(minutes=5)
"""The post's minute, 17:25 UTC."""


class Replica:
    """One bot process: its own store and digest service over the shared database, and a
    scheduler unless it only serves commands (``PAPERBOT_SCHEDULER=off``)."""

    def __init__(
        self, url: str, index: SearchIndex, recorder: FaultySlackRecorder, *, schedules: bool
    ) -> None:
        self.store = Store(url)
        self.service = DigestService(
            self.store, index, make_web_client("xoxb-test", recorder.base_url), Settings()
        )
        self.outcomes: list[DigestOutcome] = []
        self.scheduler = (
            ProbedScheduler(self.service, on_outcome=self.outcomes.append) if schedules else None
        )

    def start(self) -> ProbedScheduler:
        assert self.scheduler is not None
        self.scheduler.start()
        assert self.scheduler.caught_up.wait(5)
        return self.scheduler

    def close(self) -> None:
        if self.scheduler is not None:
            assert self.scheduler.stop(wait_seconds=5), "an attempt outlived the test"
        self.store.close()


@pytest.fixture
def replicas(
    database_url: str, index: SearchIndex, recorder: FaultySlackRecorder
) -> Iterator[Callable[..., Replica]]:
    made: list[Replica] = []

    def replica(*, schedules: bool) -> Replica:
        made.append(Replica(database_url, index, recorder, schedules=schedules))
        return made[-1]

    yield replica
    for each in reversed(made):
        each.close()


class Layout(NamedTuple):
    serving: Replica
    scheduling: Replica
    scheduler: ProbedScheduler
    traveller: time_machine.Coordinates


@pytest.fixture
def layout(replicas: Callable[..., Replica]) -> Iterator[Layout]:
    """A serving process and a scheduling one, which starts at ``FRIDAY``, on a frozen clock
    (stopped before the clock is let go: stopping runs what is due on the real clock)."""
    serving, scheduling = replicas(schedules=False), replicas(schedules=True)
    with time_machine.travel(FRIDAY, tick=False) as traveller:
        scheduler = scheduling.start()
        yield Layout(serving, scheduling, scheduler, traveller)
        scheduler.stop()


def watched(
    traveller: time_machine.Coordinates,
    schedulers: list[ProbedScheduler],
    when: datetime,
    done: Callable[[ProbedScheduler], bool],
) -> None:
    """Move the clock to ``when``, where the watermark is read next, until every scheduler
    has reconciled its jobs as ``done`` says."""
    for scheduler in schedulers:
        step_to(traveller, scheduler, when)
    wait_until(lambda: all(done(scheduler) for scheduler in schedulers))


def post_text(recorder: FaultySlackRecorder, channel: str) -> list[str]:
    return [call.blocks[0]["text"]["text"] for call in posts(recorder, channel)]


def test_a_subscription_made_changed_and_removed_elsewhere_is_followed_without_a_restart(
    layout, recorder, channel
) -> None:
    serving, scheduling, scheduler, traveller = layout
    assert scheduler.next_runs() == {}
    reply = serving.service.subscribe(channel, "17:25 UTC daily")
    assert "Next paper: Friday 28 March 2025 at 17:25 (UTC)" in reply.text
    watched(
        traveller,
        [scheduler],
        FRIDAY + WATCH_INTERVAL,
        lambda s: s.next_runs().get(channel) == MINUTE,
    )
    assert posts(recorder, channel) == []
    step_to(traveller, scheduler, MINUTE)
    wait_until(lambda: len(scheduling.outcomes) == 1)  # posted, and recorded so
    assert "Friday 28 March 2025" in post_text(recorder, channel)[0]

    # Moved to 9:00, which today already had: nothing more today, tomorrow at 9:00.
    serving.service.subscribe(channel, "9:00 UTC daily")
    saturday_nine = datetime(2025, 3, 29, 9, 0, tzinfo=UTC)
    watched(
        traveller,
        [scheduler],
        MINUTE + WATCH_INTERVAL,
        lambda s: s.next_runs().get(channel) == saturday_nine,
    )
    wait_until(lambda: len(scheduling.outcomes) == 2)
    step_to(traveller, scheduler, saturday_nine)
    wait_until(lambda: len(scheduling.outcomes) == 3)
    assert "Saturday 29 March 2025" in post_text(recorder, channel)[1]

    serving.service.unsubscribe(channel)
    watched(
        traveller,
        [scheduler],
        saturday_nine + WATCH_INTERVAL,
        lambda s: channel not in s.next_runs(),
    )
    assert channel not in scheduler.retries()
    assert [outcome.status for outcome in scheduling.outcomes] == [
        "posted",
        "already_posted",  # the move to 9:00 found today's time passed and the post made
        "posted",
    ]


def test_a_subscription_whose_minute_passed_before_it_was_seen_posts_that_day(
    layout, recorder, channel
) -> None:
    """Subscribed at 17:25:10 for 17:25 ("today's is being posted now"), seen at 17:25:30."""
    serving, scheduling, scheduler, traveller = layout
    traveller.move_to(MINUTE + timedelta(seconds=10))
    reply = serving.service.subscribe(channel, "17:25 UTC daily")
    assert "today's is being posted now" in reply.text
    step_to(traveller, scheduler, MINUTE + WATCH_INTERVAL)
    wait_until(lambda: bool(scheduling.outcomes))
    assert [outcome.status for outcome in scheduling.outcomes] == ["posted"]
    [text] = post_text(recorder, channel)
    assert "Friday 28 March 2025" in text


def test_two_scheduling_replicas_post_a_weekly_digest_made_elsewhere_once(
    replicas, recorder, channel
) -> None:
    serving = replicas(schedules=False)
    workers = [replicas(schedules=True), replicas(schedules=True)]
    key = feed_key(channel, WEEKLY)
    with time_machine.travel(FRIDAY, tick=False) as traveller:
        schedulers = [worker.start() for worker in workers]
        reply = serving.service.subscribe(channel, "weekly friday 17:25 UTC")
        assert "Next digest: Friday 28 March 2025 at 17:25 (UTC)" in reply.text
        watched(
            traveller,
            schedulers,
            FRIDAY + WATCH_INTERVAL,
            lambda s: s.next_runs().get(key) == MINUTE,
        )
        for scheduler in schedulers:
            step_to(traveller, scheduler, MINUTE)
        wait_until(lambda: all(worker.outcomes for worker in workers))
        serving.service.unsubscribe(channel, WEEKLY)
        watched(traveller, schedulers, MINUTE + WATCH_INTERVAL, lambda s: key not in s.next_runs())
        for scheduler in schedulers:
            scheduler.stop()
    [post] = posts(recorder, channel)
    assert post.args["metadata"]["event_payload"]["kind"] == WEEKLY
    statuses = sorted(outcome.status for worker in workers for outcome in worker.outcomes)
    assert statuses[-1] == "posted" and statuses[0] in {"already_posted", "busy"}


def test_the_watermark_moves_with_every_change_whichever_process_made_it(
    database_url: str,
) -> None:
    one, other = Store(database_url), Store(database_url)
    try:
        assert other.subscriptions_revision() == 0
        seen = [other.subscriptions_revision()]
        record = SubscriptionRecord("C1", "09:00", "UTC", "daily", None, "command", team_id="T1")
        changes = [
            lambda: one.save_subscription(record),
            lambda: one.save_subscription(record),  # the same settings again: still a write
            lambda: one.pause_subscription("C1", "not_in_channel"),
            lambda: one.forget_workspace("T1"),
        ]
        for change in changes:
            change()
            seen.append(other.subscriptions_revision())
        assert seen == sorted(set(seen)), "each change moves the watermark forward"
        assert not one.pause_subscription("C1", "not_in_channel")
        one.forget_workspace("T1")
        assert other.subscriptions_revision() == seen[-1], "no change, no move"
    finally:
        one.close()
        other.close()


def test_a_database_of_schema_6_gets_the_watermark(database_url: str) -> None:
    Store(database_url).close()
    engine = create_engine(normalise_database_url(database_url))
    with engine.begin() as connection:
        connection.execute(text("DROP TABLE revisions"))
        _set_schema_version(connection, 6)
    engine.dispose()
    upgraded = Store(database_url)
    try:
        assert upgraded.subscriptions_revision() == 0
        upgraded.save_subscription(
            SubscriptionRecord("C1", "09:00", "UTC", "daily", None, "command", kind=DAILY)
        )
        assert upgraded.subscriptions_revision() == 1
    finally:
        upgraded.close()
