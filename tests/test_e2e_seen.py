"""What a channel has seen is never its paper of the day, end to end over HTTP: a paper shared
into it with the Share button, or linked in a message there, is passed over by its rotation
for the rest of the round; so is every paper its weekly digest showed, and a day's post found
in the channel after its claim was lost counts the paper it shows, not the one the rotation
would draw now. The clock is frozen and moved by the test."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta

import pytest
import time_machine
from digest_probes import ProbedDigestService
from slack_harness import BOT_TOKEN, LiveBot, find_button
from sqlalchemy import create_engine, select
from test_e2e_weekly import MONDAY, at, paper_of, posted

from bot.digest.rotation import Rotation
from bot.papers.paper import Paper
from bot.render import papers as render
from bot.render.digest import progress_line
from bot.settings import Settings
from bot.shell.fake_slack import RESPONSE_URL
from bot.slack import payloads
from bot.slack.client import make_web_client
from bot.store import DAILY, WEEKLY, Store
from bot.store.tables import digest_claims, digest_seen

TOPIC = "graph neural networks"
OTHER_TOPIC = "reinforcement learning"
ELSEWHERE = "C0ELSEWHERE"


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


def post_every_day(
    bot: LiveBot, digest: ProbedDigestService, traveller, days: int, *, first: int = 0
) -> list[str]:
    """Post the papers of the day of ``days`` days from ``first`` days after Monday (the
    weekend's too, as the command line's ``--channel`` posts them); every paper of the day
    posted so far, in order."""
    channel = bot.workspace.channel_id
    for offset in range(first, first + days):
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
    assert bot.slash(f"subscribe weekly monday 9:30 Europe/Berlin {TOPIC}").status == 200
    bot.drain()
    before = rotation.picks(channel, TOPIC, week, 3, set()).papers
    event = payloads.link_shared(bot.workspace, [link_to(before[0])], "1745480000.000200")
    assert bot.event(event).status == 200
    bot.drain()
    after = rotation.picks(channel, TOPIC, week, 3, set()).papers
    assert before[0] not in after and after[:2] == before[1:]


def test_a_weekly_digest_alone_walks_its_topic_and_starts_over_never_running_dry(
    bot: LiveBot, digest, traveller
) -> None:
    """A channel with only a weekly digest on a small topic: its picks go down the topic's
    list, each paper once, and in the week fewer than three are left the next round starts
    with them, showing every paper once more; every week has its three picks."""
    channel = bot.workspace.channel_id
    assert bot.slash(f"subscribe weekly monday 9:30 Europe/Berlin {TOPIC}").status == 200
    bot.drain()
    pool = [paper.id for paper in bot.services.index.results(TOPIC)]
    weeks = 2 * len(pool) // 3 + 1
    for week in range(weeks):
        traveller.move_to(at(MONDAY + timedelta(weeks=week), 9, 35))
        assert digest.serve(channel, kind=WEEKLY).status == "posted"
    picks = [
        call.args["metadata"]["event_payload"]["papers"].split()
        for call in posted(bot, channel, WEEKLY)
    ]
    assert [len(set(week)) for week in picks] == [3] * weeks
    shown = [paper for week in picks for paper in week]
    assert shown[: len(pool)] == pool, "down the topic's list, each paper once"
    short = 3 * (len(pool) // 3)
    assert sorted(shown[short : short + len(pool)]) == sorted(pool), "then each once more"


def test_links_count_as_seen_only_in_a_channel_with_a_rotation(bot: LiveBot) -> None:
    """Which papers people link in a direct message, a group DM or a channel with neither a
    paper of the day nor a weekly digest is kept nowhere (their previews still go out); in a
    channel with a weekly digest the linked paper is seen, under the workspace."""
    linked = bot.services.index.results(TOPIC)[0]
    channel = bot.workspace.channel_id
    elsewhere = [bot.workspace.dm_channel_id, "G0GROUPDM", ELSEWHERE, channel]
    for number, where in enumerate(elsewhere):
        ts = f"1745480000.00040{number}"
        event = payloads.link_shared(bot.workspace, [link_to(linked)], ts, channel_id=where)
        assert bot.event(event).status == 200
        bot.drain()
    assert len(bot.recorder.calls_to("chat.unfurl")) == len(elsewhere)
    assert seen_rows(bot) == []
    assert bot.slash(f"subscribe weekly monday 9:30 Europe/Berlin {TOPIC}").status == 200
    bot.drain()
    event = payloads.link_shared(bot.workspace, [link_to(linked)], "1745480000.000500")
    assert bot.event(event).status == 200
    bot.drain()
    assert seen_rows(bot) == [(channel, linked.id, bot.workspace.team_id)]


def seen_rows(bot: LiveBot) -> list[tuple[str, str, str | None]]:
    """Every paper recorded as seen, with its channel and workspace."""
    engine = create_engine(bot.settings.database_url)
    with engine.connect() as connection:
        rows = connection.execute(
            select(digest_seen.c.channel, digest_seen.c.paper_id, digest_seen.c.team_id)
        ).all()
    engine.dispose()
    return [tuple(row) for row in rows]


def lose_the_digest_rows(bot: LiveBot) -> None:
    """Every claim and seen paper is gone, as after restoring a backup from before the posts."""
    engine = create_engine(bot.settings.database_url)
    with engine.begin() as connection:
        connection.execute(digest_claims.delete())
        connection.execute(digest_seen.delete())
    engine.dispose()


def test_no_paper_the_weekly_digest_showed_is_the_paper_of_the_day(
    bot: LiveBot, digest, traveller
) -> None:
    """The weekly digest's picks and the workspace's paper of the week (reacted to by two
    people in another channel) are shown in the channel, so the rest of the round's papers of
    the day pass over them all."""
    channel = bot.workspace.channel_id
    for command, where in [
        ("subscribe 9:00 Europe/Berlin", channel),
        ("subscribe weekly monday 9:30 Europe/Berlin", channel),
        ("subscribe 9:00 Europe/Berlin", ELSEWHERE),
    ]:
        assert bot.slash(command, channel_id=where).status == 200
    bot.drain()
    traveller.move_to(at(MONDAY, 9, 5))
    assert digest.serve(ELSEWHERE).status == "posted"
    [elsewhere] = posted(bot, ELSEWHERE, DAILY)
    for person in ("U0READER1", "U0READER2"):
        reader = replace(bot.workspace, user_id=person)
        reaction = payloads.reaction(reader, "tada", ELSEWHERE, elsewhere.response["ts"])
        assert bot.event(reaction).status == 200
    bot.drain()
    monday = post_every_day(bot, digest, traveller, 1)
    traveller.move_to(at(MONDAY, 9, 35))
    assert digest.serve(channel, kind=WEEKLY).status == "posted"
    [weekly] = posted(bot, channel, WEEKLY)
    blocks = json.dumps(weekly.args["blocks"])
    workspace_part, picks_part = blocks.split("Picked for this channel")
    shown = weekly.args["metadata"]["event_payload"]["papers"].split()
    titles = {paper_id: bot.services.index.get(paper_id).title[:40] for paper_id in shown}
    assert shown[0] == paper_of(elsewhere) and titles[shown[0]] in workspace_part
    assert len(shown) == 4 and all(titles[paper_id] in picks_part for paper_id in shown[1:])
    pool = {paper.id for paper in bot.services.index.papers}
    rest = len(pool) - len(shown) - len(monday)
    papers = post_every_day(bot, digest, traveller, rest, first=1)
    assert not set(papers) & set(shown)
    assert sorted(papers) == sorted(pool - set(shown)), "the round: every paper not yet shown"


def test_a_post_found_after_its_claim_was_lost_counts_the_paper_it_shows(
    bot: LiveBot, digest, traveller
) -> None:
    """The day's claim and seen rows are lost after the post (a restored backup) and the
    channel's topic changes: the next attempt finds the post and posts nothing, the paper in
    the channel is the one seen and ``/paper today`` shows, and the new topic's first paper
    is the next day's."""
    channel = bot.workspace.channel_id
    subscribe_to_the_topic(bot)
    traveller.move_to(at(MONDAY, 9, 5))
    first = digest.serve(channel)
    assert first.status == "posted"
    in_channel = paper_of(posted(bot, channel, DAILY)[0])
    lose_the_digest_rows(bot)
    assert bot.slash(f"subscribe 9:00 Europe/Berlin {OTHER_TOPIC}").status == 200
    bot.drain()
    other_pool = bot.services.index.results(OTHER_TOPIC)
    assert other_pool[0].id != in_channel
    again = digest.serve(channel)
    assert (again.status, again.ts) == ("recovered", first.ts)
    assert [paper_of(call) for call in posted(bot, channel, DAILY)] == [in_channel]
    assert bot.services.store.rotation(channel)[1] == {in_channel}
    today = json.dumps(digest.today(channel).blocks, ensure_ascii=False)  # the travelling clock
    assert "already posted" in today
    assert bot.services.index.get(in_channel).title[:40] in today
    assert progress_line(1, len(bot.services.index.results(TOPIC)), TOPIC) in today
    assert post_every_day(bot, digest, traveller, 1, first=1)[1:] == [other_pool[0].id]


def test_a_weekly_digest_found_after_its_claim_was_lost_counts_what_it_shows(
    bot: LiveBot, digest, traveller
) -> None:
    """The week's claim is lost after the post and a link in the channel changes what the
    picks would be now: the next attempt posts nothing and the papers seen are the post's."""
    channel = bot.workspace.channel_id
    assert bot.slash(f"subscribe weekly monday 9:30 Europe/Berlin {TOPIC}").status == 200
    bot.drain()
    traveller.move_to(at(MONDAY, 9, 35))
    first = digest.serve(channel, kind=WEEKLY)
    assert first.status == "posted"
    shown = posted(bot, channel, WEEKLY)[0].args["metadata"]["event_payload"]["papers"].split()
    lose_the_digest_rows(bot)
    linked = bot.services.index.get(shown[0])
    event = payloads.link_shared(bot.workspace, [link_to(linked)], "1745480000.000300")
    assert bot.event(event).status == 200
    bot.drain()
    again = digest.serve(channel, kind=WEEKLY)
    assert (again.status, again.ts) == ("recovered", first.ts)
    assert len(posted(bot, channel, WEEKLY)) == 1
    assert bot.services.store.rotation(channel)[1] == set(shown)
