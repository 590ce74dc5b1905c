"""What a channel has seen is never its paper of the day, end to end over HTTP: a paper shared
into it with the Share button, or linked in a message there, is passed over by its rotation
for the rest of the round; so are its weekly digest's picks. The clock is frozen and moved by
the test."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
import time_machine
from digest_probes import ProbedDigestService
from slack_harness import BOT_TOKEN, LiveBot, find_button
from test_e2e_weekly import MONDAY, at, paper_of, posted

from bot.digest.rotation import Rotation
from bot.papers.paper import Paper
from bot.render import papers as render
from bot.settings import Settings
from bot.shell.fake_slack import RESPONSE_URL
from bot.slack import payloads
from bot.slack.client import make_web_client
from bot.store import DAILY, Store

TOPIC = "graph neural networks"


@pytest.fixture
def traveller() -> Iterator[time_machine.Coordinates]:
    with time_machine.travel(at(MONDAY, 8), tick=False) as coordinates:
        yield coordinates


@pytest.fixture
def digest(bot: LiveBot, traveller) -> Iterator[ProbedDigestService]:
    """A digest process with its own store on the app's database, posting through the fake
    Slack on the travelling clock."""
    store = Store(bot.settings.database_url)
    client = make_web_client(BOT_TOKEN, bot.recorder.base_url)
    yield ProbedDigestService(store, bot.services.index, client, Settings(), sleep=lambda _: 0)
    store.close()


def post_every_day(bot: LiveBot, digest: ProbedDigestService, traveller, days: int) -> list[str]:
    """The papers of the day of ``days`` days from Monday, in order (the weekend's too, as
    the command line's ``--channel`` posts them)."""
    channel = bot.workspace.channel_id
    for offset in range(days):
        traveller.move_to(at(MONDAY + timedelta(days=offset), 9, 5))
        assert digest.serve(channel, force=True).status == "posted"
    return [
        paper_of(call)
        for call in posted(bot, channel, DAILY)
        if "paper_id" in call.args["metadata"]["event_payload"]  # not a shared card
    ]


def link_to(paper: Paper) -> str:
    return f"https://openreview.net/forum?id={paper.openreview_id}"


def subscribe_to_the_topic(bot: LiveBot) -> None:
    assert bot.slash(f"subscribe 9:00 Europe/Berlin {TOPIC}").status == 200
    bot.drain()


def test_a_paper_shared_into_the_channel_is_never_its_paper_of_the_day(
    bot: LiveBot, digest, traveller
) -> None:
    pool = [paper.id for paper in bot.services.index.results(TOPIC)]
    bot.slash(TOPIC)
    bot.drain()
    page = bot.recorder.calls_to(RESPONSE_URL)[-1].blocks
    button, _ = find_button(page, render.ACTION_SHARE)
    shared = button["value"]
    assert shared == pool[0], "the paper the topic's rotation would post first"
    bot.click(page, render.ACTION_SHARE)
    bot.drain()
    subscribe_to_the_topic(bot)
    papers = post_every_day(bot, digest, traveller, len(pool) - 1)
    assert shared not in papers
    assert sorted(papers) == sorted(paper for paper in pool if paper != shared)


def test_a_paper_linked_in_the_channel_is_never_its_paper_of_the_day(
    bot: LiveBot, digest, traveller
) -> None:
    pool = bot.services.index.results(TOPIC)
    linked = pool[0]
    subscribe_to_the_topic(bot)
    event = payloads.link_shared(bot.workspace, [link_to(linked)], "1745480000.000100")
    assert bot.event(event).status == 200
    bot.drain()
    papers = post_every_day(bot, digest, traveller, len(pool) - 1)
    assert linked.id not in papers and len(set(papers)) == len(pool) - 1


def test_a_link_still_being_written_shows_nothing_yet(bot: LiveBot, digest, traveller) -> None:
    pool = bot.services.index.results(TOPIC)
    subscribe_to_the_topic(bot)
    event = payloads.link_shared(bot.workspace, [link_to(pool[0])], "", composer=True)
    assert bot.event(event).status == 200
    bot.drain()
    assert post_every_day(bot, digest, traveller, 1) == [pool[0].id]


def test_the_weekly_picks_pass_over_a_paper_linked_in_the_channel(bot: LiveBot) -> None:
    rotation = Rotation(bot.services.store, bot.services.index)
    channel, week = bot.workspace.channel_id, MONDAY.isoformat()
    before, _ = rotation.picks(channel, TOPIC, week, 3, set())
    event = payloads.link_shared(bot.workspace, [link_to(before[0])], "1745480000.000200")
    assert bot.event(event).status == 200
    bot.drain()
    after, _ = rotation.picks(channel, TOPIC, week, 3, set())
    assert before[0] not in after and after[:2] == before[1:]
