"""A channel that learns, end to end over HTTP: the real app behind waitress takes Slack's
signed commands and ``reaction_added`` events (E's listener) from the fake Slack, while two
digest "processes" (two stores on the app's database) post through the same fake Slack.

Reactions on the paper of the day change the next days' order, each day is still posted once
and no paper comes twice in a round; a channel without signals gets today's order; the weekly
digest posts once a week, with counts of people. The clock is frozen and moved by the test."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from digest_probes import ProbedDigestService
from slack_harness import BOT_TOKEN, LiveBot

from bot.settings import Settings
from bot.shell.fake_slack import RESPONSE_URL
from bot.slack import payloads
from bot.slack.client import make_web_client
from bot.store import DAILY, WEEKLY, Store

BERLIN = ZoneInfo("Europe/Berlin")
MONDAY = date(2025, 4, 21)
QUIET_CHANNEL = "C0QUIET"


def at(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=BERLIN).astimezone(UTC)


@pytest.fixture
def traveller() -> Iterator[time_machine.Coordinates]:
    with time_machine.travel(at(MONDAY, 8), tick=False) as coordinates:
        yield coordinates


@pytest.fixture
def processes(bot: LiveBot, traveller) -> Iterator[list[ProbedDigestService]]:
    """Two digest processes, each with its own store on the app's database."""
    stores = [Store(bot.settings.database_url) for _ in range(2)]
    yield [
        ProbedDigestService(
            store,
            bot.services.index,
            make_web_client(BOT_TOKEN, bot.recorder.base_url),
            Settings(),
            sleep=lambda _seconds: None,
        )
        for store in stores
    ]
    for store in stores:
        store.close()


def posted(bot: LiveBot, channel: str, kind: str) -> list:
    return [
        call
        for call in bot.recorder.calls_to("chat.postMessage")
        if call.args["channel"] == channel
        and call.response.get("ok")
        and call.args.get("metadata", {}).get("event_payload", {}).get("kind", DAILY) == kind
    ]


def paper_of(call) -> str:
    return call.args["metadata"]["event_payload"]["paper_id"]


def react(bot: LiveBot, ts: str, emoji: str, person: str) -> None:
    workspace = replace(bot.workspace, user_id=person)
    event = payloads.reaction(workspace, emoji, bot.workspace.channel_id, ts)
    assert bot.event(event).status == 200
    bot.drain()


def serve_day(processes: list[ProbedDigestService], channel: str, kind: str = DAILY) -> None:
    statuses = sorted(service.serve(channel, kind=kind).status for service in processes)
    assert statuses == ["already_posted", "posted"], statuses


def todays_order(bot: LiveBot, channel: str) -> list[str]:
    ids = sorted(paper.id for paper in bot.services.index.papers)
    random.Random(f"paperbot-digest/{channel}/0").shuffle(ids)
    return ids


def test_reactions_change_the_next_days_order_and_every_rule_stays(
    bot: LiveBot, processes, traveller
) -> None:
    channel = bot.workspace.channel_id
    assert bot.slash("subscribe 9:00 Europe/Berlin daily").status == 200
    bot.drain()
    quiet = processes[0]
    quiet.subscribe(QUIET_CHANNEL, "9:00 Europe/Berlin daily", bot.workspace.team_id)
    pool = len(bot.services.index.papers)
    for offset in range(pool + 1):
        traveller.move_to(at(MONDAY + timedelta(days=offset), 9, 5))
        serve_day(processes, channel)
        serve_day(processes, QUIET_CHANNEL)
        if offset == 0:
            first = posted(bot, channel, DAILY)[0]
            react(bot, first.response["ts"], "+1", "U0READER1")
            neighbours = [
                hit.paper.id for hit in bot.services.index.similar(paper_of(first), limit=3).hits
            ]
    papers = [paper_of(call) for call in posted(bot, channel, DAILY)]
    assert papers[1:4] == neighbours, "the day after the 👍, papers like it come first"
    assert papers[1:4] != todays_order(bot, channel)[1:4]
    assert len(set(papers[:pool])) == pool, "no repeat until the channel has seen its pool"
    assert len(papers) == pool + 1
    quiet_papers = [paper_of(call) for call in posted(bot, QUIET_CHANNEL, DAILY)]
    assert quiet_papers[:pool] == todays_order(bot, QUIET_CHANNEL)
    bot.slash("subscriptions")
    bot.drain()
    assert "Shaped by this channel" in json.dumps(bot.recorder.calls_to(RESPONSE_URL)[-1].blocks)


def test_the_weekly_digest_posts_once_a_week_with_counts_of_people(
    bot: LiveBot, processes, traveller
) -> None:
    channel = bot.workspace.channel_id
    bot.slash("subscribe 9:00 Europe/Berlin")
    bot.slash("subscribe weekly monday 9:30 Europe/Berlin")
    bot.drain()
    traveller.move_to(at(MONDAY, 9, 5))
    serve_day(processes, channel)
    daily = posted(bot, channel, DAILY)[0]
    for person in ("U0READER1", "U0READER2"):
        react(bot, daily.response["ts"], "tada", person)  # recorded on the app's clock
    traveller.move_to(at(MONDAY, 9, 35))
    serve_day(processes, channel, WEEKLY)  # this week's, before the reactions' day
    for offset in range(1, 7):
        traveller.move_to(at(MONDAY + timedelta(days=offset), 9, 35))
        assert {service.serve(channel, kind=WEEKLY).status for service in processes} == {"not_due"}
    traveller.move_to(at(MONDAY + timedelta(days=7), 9, 35))
    serve_day(processes, channel, WEEKLY)
    serve_day(processes, channel, DAILY)
    weekly = posted(bot, channel, WEEKLY)
    assert len(weekly) == 2
    second = json.dumps(weekly[1].args["blocks"])
    title = bot.services.index.get(paper_of(daily)).title
    assert title[:40] in second and "2 people reacted" in second
    assert "U0READER" not in second
    assert paper_of(posted(bot, channel, DAILY)[1]) != paper_of(daily)
