"""The weekly team digest: its grammar beside the old commands' (which keep their meaning),
one post per channel and ISO week under the daily post's claim, counts of people and never
names, and its preview."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from digest_probes import ProbedDigestService
from faulty_slack import FaultySlackRecorder

from bot.answers.typed import Intent, Request, parse_command
from bot.digest.command import parse_subscribe_args, resolve
from bot.digest.subscriptions import SubscriptionError
from bot.render.subscribe import refusal_text
from bot.settings import Settings
from bot.slack.client import make_web_client
from bot.store import DAILY, WEEKLY, Store

BERLIN = ZoneInfo("Europe/Berlin")
MONDAY = date(2025, 3, 24)
TEAM = "T0WEEK"


def berlin(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=BERLIN).astimezone(UTC)


# Grammar ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kind", "cadence", "topic"),
    [
        ("weekly monday 9am Europe/Berlin graphs", WEEKLY, "monday", "graphs"),
        ("weekly Fridays 17:30", WEEKLY, "friday", None),
        ("weekly tue", WEEKLY, "tuesday", None),
        ('9am "weekly reports"', DAILY, "weekdays", '"weekly reports"'),  # quoted: a topic
        ("9:30 Europe/Berlin daily diffusion", DAILY, "daily", "diffusion"),
    ],
)
def test_weekly_and_a_day_of_the_week_is_the_weekly_digest(
    args: str, kind: str, cadence: str, topic: str | None
) -> None:
    request = parse_subscribe_args(args, year=2025)
    outcome = resolve(request, None, None, ZoneInfo("UTC"))
    assert (request.kind, outcome.schedule.cadence, outcome.topic) == (kind, cadence, topic)


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ("weekly", "`weekly` takes a day of the week: `monday`, `tuesday`"),
        ("weekly reports", "`reports` is not a day of the week: `weekly` takes `monday`"),
        (
            "weekly fridy language models",
            "`fridy` is not a day of the week; did you mean `friday`?",
        ),
        ("weekly funday 9am", "did you mean `sunday`?"),
        ("9am weekly", "`weekly` is out of place"),
        ("wekly monday", "I don't know `wekly`; did you mean `weekly`?"),
        ("friday 9am", "`friday` is a day of the week: a digest on Fridays is the weekly one"),
    ],
)
def test_weekly_without_a_day_is_refused_with_the_days_it_takes(args: str, problem: str) -> None:
    with pytest.raises(SubscriptionError) as raised:
        parse_subscribe_args(args, year=2025)
    assert problem in str(raised.value)
    shown = refusal_text(raised.value.problem)
    assert "/paper subscribe weekly DAY" in shown or not args.startswith("weekly")


@pytest.mark.parametrize(
    ("text", "request_"),
    [
        ("today weekly", Request(Intent.TODAY, "weekly")),
        ("unsubscribe weekly", Request(Intent.UNSUBSCRIBE, "weekly")),
        ("today", Request(Intent.TODAY)),
        ("unsubscribe", Request(Intent.UNSUBSCRIBE)),
        ("weekly digest", Request(Intent.SEARCH, "weekly digest")),
        ("today weekly transformers", Request(Intent.SEARCH, "today weekly transformers")),
        ("today new", Request(Intent.TODAY, "new")),
        ("Unsubscribe New", Request(Intent.UNSUBSCRIBE, "new")),
        ("today new optimisers", Request(Intent.SEARCH, "today new optimisers")),
    ],
)
def test_today_and_unsubscribe_take_weekly(text: str, request_: Request) -> None:
    assert parse_command(text) == request_


# The digest --------------------------------------------------------------------------------


@pytest.fixture
def traveller() -> Iterator[time_machine.Coordinates]:
    with time_machine.travel(berlin(MONDAY, 8), tick=False) as coordinates:
        yield coordinates


@pytest.fixture
def bots(tmp_path, index, recorder, traveller) -> Iterator:
    """Two bot processes' services over one database."""
    url = f"sqlite:///{tmp_path / 'paperbot.db'}"
    stores = [Store(url), Store(url)]
    services = [
        ProbedDigestService(
            store,
            index,
            make_web_client("xoxb-test", recorder.base_url),
            Settings(),
            sleep=lambda _seconds: None,
        )
        for store in stores
    ]
    yield stores, services
    for store in stores:
        store.close()


def posts(recorder: FaultySlackRecorder, channel: str, kind: str) -> list:
    return [
        call
        for call in recorder.calls_to("chat.postMessage")
        if call.args["channel"] == channel
        and call.response.get("ok")
        and call.args["metadata"]["event_payload"].get("kind", DAILY) == kind
    ]


def shared(store: Store, index, channel: str, people: dict[int, int]) -> list[str]:
    """Paper ``n`` of the corpus shared by ``people[n]`` people (ids U0, U1, ...)."""
    papers = [paper.id for paper in index.papers]
    for number, count in people.items():
        for person in range(count):
            store.record_share(TEAM, channel, f"U{person}", papers[number], f"{number}.{person}")
    return papers


def test_the_weekly_digest_posts_once_a_week_across_two_processes(
    bots, channel, recorder, traveller, index
) -> None:
    (one_store, _), (one, two) = bots
    reply = str(one.subscribe(channel, "weekly monday 9:00 Europe/Berlin", TEAM).blocks)
    assert "weekly team digest at 09:00 Europe/Berlin, on Mondays" in reply
    papers = shared(one_store, index, channel, {0: 3, 1: 2, 2: 1})
    assert one.serve(channel, kind=WEEKLY).status == "not_due"
    traveller.move_to(berlin(MONDAY, 9, 1))
    statuses = [service.serve(channel, kind=WEEKLY).status for service in (one, two, one)]
    assert statuses == ["posted", "already_posted", "already_posted"]
    for later in (1, 4, 6):
        traveller.move_to(berlin(MONDAY + timedelta(days=later), 9, 1))
        assert two.serve(channel, kind=WEEKLY).status == "not_due"
    traveller.move_to(berlin(MONDAY + timedelta(days=7), 9, 1))
    assert [service.serve(channel, kind=WEEKLY).status for service in (two, one)] == [
        "posted",
        "already_posted",
    ]
    weekly = posts(recorder, channel, WEEKLY)
    assert len(weekly) == 2 and posts(recorder, channel, DAILY) == []
    first = json.dumps(weekly[0].args["blocks"])
    assert "shared by 3 people" in first and "shared by 2 people" in first
    assert "shared by 1" not in first and "U0" not in first
    title = index.get(papers[2]).title
    assert "Picked for this channel" in first and "like the papers shared" in first
    assert weekly[0].args["metadata"]["event_payload"]["kind"] == WEEKLY
    assert title not in first.split("Picked for this channel")[0]


def test_the_daily_paper_and_the_weekly_digest_live_side_by_side(
    bots, channel, recorder, traveller
) -> None:
    _, (one, two) = bots
    one.subscribe(channel, "9:00 Europe/Berlin", TEAM)
    one.subscribe(channel, "weekly monday 9:30 Europe/Berlin", TEAM)
    listing = str(one.subscriptions(channel).blocks)
    assert "Paper of the day:* 09:00 Europe/Berlin, on weekdays" in listing
    assert "Weekly team digest:* 09:30 Europe/Berlin, on Mondays" in listing
    traveller.move_to(berlin(MONDAY, 9, 45))
    outcomes = sorted((o.kind, o.status) for o in two.serve_due({channel}))
    assert outcomes == [(DAILY, "posted"), (WEEKLY, "posted")]
    assert two.pick(channel, None).position == 5  # the day's paper and the 3 picks are seen
    assert one.unsubscribe(channel, WEEKLY).text.startswith("Unsubscribed: no more weekly")
    assert [sub.kind for sub in one.active_subscriptions() if sub.channel == channel] == [DAILY]


def test_today_weekly_previews_the_next_digest_without_posting_it(
    bots, channel, recorder, traveller, index
) -> None:
    (store, _), (one, _) = bots
    assert "no weekly team digest" in one.today(channel, WEEKLY).text
    one.subscribe(channel, "weekly friday 17:00 Europe/Berlin", TEAM)
    shared(store, index, channel, {5: 2})
    preview = json.dumps(one.today(channel, WEEKLY).blocks)
    assert "The next weekly digest, coming Friday 28 March 2025 at 17:00" in preview
    assert "shared by 2 people" in preview
    assert recorder.calls_to("chat.postMessage") == []
    traveller.move_to(berlin(MONDAY + timedelta(days=4), 17, 5))
    assert "This week's digest, due since" in json.dumps(one.today(channel, WEEKLY).blocks)
    assert one.serve(channel, kind=WEEKLY).status == "posted"
    after = json.dumps(one.today(channel, WEEKLY).blocks)
    assert "coming Friday 4 April 2025 at 17:00" in after
