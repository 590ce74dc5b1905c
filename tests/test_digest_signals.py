"""The paper of the day follows what the channel engages with in public, and every rule of
the rotation stays: once per channel and day, no repeat within a round, today's order for a
channel with no signal."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from digest_probes import ProbedDigestService
from faulty_slack import FaultySlackRecorder

from bot.search.engine import SearchIndex
from bot.settings import Settings
from bot.slack.client import make_web_client
from bot.store import Store

BERLIN = ZoneInfo("Europe/Berlin")
FIRST_DAY = date(2025, 3, 28)


def nine_in_berlin(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, 9, 0, tzinfo=BERLIN).astimezone(UTC)


class SignalledStore(Store):
    """A store whose channels' public signals the test sets (``interest[channel]``), so the
    rotation's use of them is tested apart from how they are recorded."""

    def __init__(self, database_url: str) -> None:
        super().__init__(database_url)
        self.interest: dict[str, dict[str, float]] = {}

    def channel_interest(self, channel: str) -> dict[str, float]:
        return dict(self.interest.get(channel, {}))


@pytest.fixture
def traveller() -> Iterator[time_machine.Coordinates]:
    with time_machine.travel(nine_in_berlin(FIRST_DAY), tick=False) as coordinates:
        yield coordinates


@pytest.fixture
def bot(
    tmp_path, index, recorder, traveller
) -> Iterator[tuple[SignalledStore, ProbedDigestService]]:
    store = SignalledStore(f"sqlite:///{tmp_path / 'paperbot.db'}")
    service = ProbedDigestService(
        store,
        index,
        make_web_client("xoxb-test", recorder.base_url),
        Settings(),
        sleep=lambda _s: None,
    )
    yield store, service
    store.close()


def posted_papers(recorder: FaultySlackRecorder, channel: str) -> list[str]:
    return [
        call.args["metadata"]["event_payload"]["paper_id"]
        for call in recorder.calls_to("chat.postMessage")
        if call.args["channel"] == channel and call.response.get("ok")
    ]


def serve_days(service: ProbedDigestService, channel: str, traveller, days: range) -> None:
    for offset in days:
        traveller.move_to(nine_in_berlin(FIRST_DAY + timedelta(days=offset)))
        assert service.serve(channel).status == "posted"


def todays_order(index: SearchIndex, channel: str) -> list[str]:
    """The rotation's order before signals, written out: every paper by id, shuffled with
    the channel's and round 0's seed."""
    ids = sorted(paper.id for paper in index.papers)
    random.Random(f"paperbot-digest/{channel}/0").shuffle(ids)
    return ids


def test_a_channel_without_signals_gets_todays_order(
    bot, channel, recorder, traveller, index
) -> None:
    _store, service = bot
    service.subscribe(channel, "9:00 Europe/Berlin daily")
    serve_days(service, channel, traveller, range(6))
    assert posted_papers(recorder, channel) == todays_order(index, channel)[:6]
    assert "Shaped by this channel" not in str(service.subscriptions(channel).blocks)


def test_engagement_brings_papers_like_it_forward(bot, channel, recorder, traveller, index) -> None:
    store, service = bot
    service.subscribe(channel, "9:00 Europe/Berlin daily")
    serve_days(service, channel, traveller, range(1))
    liked = posted_papers(recorder, channel)[0]
    store.interest[channel] = {liked: 1.0}
    neighbours = [hit.paper.id for hit in index.similar(liked, limit=3).hits]
    serve_days(service, channel, traveller, range(1, 4))
    assert posted_papers(recorder, channel)[1:] == neighbours
    assert posted_papers(recorder, channel)[1:] != todays_order(index, channel)[1:4]
    listing = str(service.subscriptions(channel).blocks)
    assert "Shaped by this channel" in listing and "1 paper shared or reacted to" in listing


def test_a_thumbs_down_moves_papers_like_it_back(bot, channel, index) -> None:
    store, service = bot
    service.subscribe(channel, "9:00 Europe/Berlin daily")
    first = todays_order(index, channel)[0]
    disliked = index.similar(first, limit=1).hits[0].paper.id
    store.interest[channel] = {disliked: -1.0}
    assert service.pick(channel, None).paper.id != first


def test_with_signals_every_paper_still_comes_once_per_round_and_once_per_day(
    bot, channel, recorder, traveller, index
) -> None:
    store, service = bot
    service.subscribe(channel, "9:00 Europe/Berlin daily")
    pool = len(index.papers)
    for offset in range(pool + 2):
        traveller.move_to(nine_in_berlin(FIRST_DAY + timedelta(days=offset)))
        assert service.serve(channel).status == "posted"
        assert service.serve(channel).status == "already_posted"
        latest = posted_papers(recorder, channel)[-1]
        store.interest[channel] = {latest: 1.0 if offset % 3 else -1.0}
    papers = posted_papers(recorder, channel)
    assert len(papers) == pool + 2
    assert len(set(papers[:pool])) == pool
    assert len(set(papers[pool:])) == 2


def test_a_topic_subscription_keeps_to_its_topic(bot, channel, index) -> None:
    store, service = bot
    topic = "graph neural networks"
    matches = {paper.id for paper in index.results(topic)}
    service.subscribe(channel, f"9:00 Europe/Berlin {topic}")
    outside = next(paper.id for paper in index.papers if paper.id not in matches)
    store.interest[channel] = {outside: 1.0}
    pick = service.pick(channel, topic)
    assert pick.paper.id in matches and pick.pool_size == len(matches)
