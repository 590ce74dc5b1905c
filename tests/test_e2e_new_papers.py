"""A channel follows new papers, end to end: ``/paper subscribe new`` over HTTP through the real
app, papers announced by the loopback arXiv fake and ingested into the app's database, the
bot's index following the store, and two digest "processes" (two stores on that database)
posting through the fake Slack on a frozen clock moved by the test.

A paper announced on Monday is in Tuesday morning's post, once, whichever process runs and
however often; a ``replace`` of a posted paper is never posted again, nor listed by
``/paper new``; the weekend posts
nothing and says so in the log; a process that dies after posting leaves no second post; and
``/paper subscriptions`` lists the new papers beside the paper of the day and the weekly
digest, and ``/paper unsubscribe new`` stops them. ``@paperbot new`` lists them in its thread,
read as ``/paper new`` is."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta

import pytest
import time_machine
from feed_fakes import FeedFake, paper, running
from feed_harness import HashEmbedder, SteppedClock, feed_settings, ingester
from slack_harness import LiveBot, all_text
from test_e2e_weekly import at, posted, processes  # noqa: F401  (two digest processes)

from bot.digest.posting import LEASE
from bot.feeds.following import Follower
from bot.render import papers as render_papers
from bot.shell.fake_slack import RESPONSE_URL
from bot.store import NEW_PAPERS, WEEKLY, Store

MONDAY = date(2025, 1, 6)
FEED = "arxiv:cs.LG"


class Feeds:
    """arXiv's fake and an ingester writing into the bot's database, and the follower that
    brings what it stored into the bot's index."""

    def __init__(self, bot: LiveBot, fake: FeedFake) -> None:
        self.fake = fake
        self.clock = SteppedClock(datetime(2025, 1, 6, 5, 30, tzinfo=UTC))
        self.store = Store(bot.settings.database_url, self.clock)
        self.settings = feed_settings(fake, FEED, bot.settings.database_url)
        self.store.record_feed(FEED, watermark=(MONDAY - timedelta(days=1)).isoformat())
        self.follower = Follower(bot.services.library, bot.services.store, 3600)

    def announce(self, day: date, *papers) -> None:
        """arXiv announces ``papers`` on ``day``; the ingest stores them, the bot follows."""
        self.clock.now = datetime(day.year, day.month, day.day, 5, 30, tzinfo=UTC)
        self.fake.announcement_day = day
        self.fake.announced = list(papers)
        run = ingester(self.store, self.settings, self.clock, HashEmbedder()).run_arxiv(
            day.isoformat(), day
        )
        assert run.error is None, run.error
        self.follower.tick()


@pytest.fixture
def traveller() -> Iterator[time_machine.Coordinates]:
    with time_machine.travel(at(MONDAY, 8), tick=False) as coordinates:
        yield coordinates


@pytest.fixture
def feeds(bot: LiveBot) -> Iterator[Feeds]:
    with running(FeedFake(clock=lambda: datetime.now(UTC))) as fake:
        made = Feeds(bot, fake)
        yield made
        made.store.close()


@pytest.fixture
def digests(processes: list) -> list:  # noqa: F811 (test_e2e_weekly's, imported above)
    """Two digest processes, each with its own store on the app's database."""
    return processes


def answer(bot: LiveBot, text: str) -> str:
    before = len(bot.recorder.calls_to(RESPONSE_URL))
    assert bot.slash(text).status == 200
    return all_text(bot.recorder.wait_for(RESPONSE_URL, before + 1)[before].blocks)


def serve(services: list, channel: str) -> list[str]:
    return sorted(service.serve(channel, kind=NEW_PAPERS).status for service in services)


def shown(call) -> list[str]:
    return call.args["metadata"]["event_payload"]["papers"].split()


def test_new_papers_are_posted_once_per_announcement_day_and_never_again(
    bot: LiveBot, feeds: Feeds, digests, traveller, caplog
) -> None:
    channel = bot.workspace.channel_id
    reply = answer(bot, "subscribe new 9:00 Europe/Berlin")
    assert "Subscribed" in reply and "on days with new papers" in reply
    feeds.announce(MONDAY, *(paper(number) for number in range(1, 8)))
    preview = answer(bot, "today new")
    assert "New papers · Monday 6 January 2025" in preview and "The first 5 of 7" in preview
    traveller.move_to(at(MONDAY + timedelta(days=1), 9, 5))  # Tuesday morning
    assert serve(digests, channel) == ["already_posted", "posted"]
    assert "announced up to Monday 6 January 2025 are posted here" in answer(bot, "today new")
    assert serve(digests, channel) == ["already_posted", "already_posted"]
    [tuesday] = posted(bot, channel, NEW_PAPERS)
    first = shown(tuesday)
    assert len(first) == 5 and all(paper_id.startswith("arxiv:2501.0000") for paper_id in first)
    blocks = json.dumps(tuesday.args["blocks"])
    assert "Monday 6 January 2025" in blocks and "The first 5 of 7 new papers" in blocks
    for paper_id in first:
        assert bot.services.index.get(paper_id).title[:30] in blocks

    wednesday = MONDAY + timedelta(days=2)
    replaced = first[0].removeprefix("arxiv:2501.")
    feeds.announce(
        wednesday,
        paper(int(replaced), version=2, announce="replace", abstract="A better abstract."),
        paper(6, version=2, announce="replace"),  # Monday's, never posted: not new either
        paper(8),
    )
    traveller.move_to(at(wednesday + timedelta(days=1), 9, 5))  # Thursday
    assert serve(digests, channel) == ["already_posted", "posted"]
    thursday = shown(posted(bot, channel, NEW_PAPERS)[1])
    assert first[0] not in thursday, "a replace of a posted paper is not new again"
    assert thursday == ["arxiv:2501.00008"], "Wednesday's one new paper, no replace"
    listed = answer(bot, "new")
    assert "New papers announced Wednesday 8 January 2025" in listed, listed
    assert "number 8" in listed and "number 6" not in listed, "/paper new agrees with the post"
    assert "1 new paper announced on Wednesday 8 January 2025" in json.dumps(
        posted(bot, channel, NEW_PAPERS)[1].args["blocks"]
    )

    caplog.set_level(logging.INFO, logger="bot.digest.service")
    for offset in (4, 5):  # Friday (nothing announced since Wednesday) and Saturday
        traveller.move_to(at(MONDAY + timedelta(days=offset), 9, 5))
        assert serve(digests, channel) == ["nothing_new", "nothing_new"]
    assert len(posted(bot, channel, NEW_PAPERS)) == 2
    assert "nothing announced since 2025-01-08" in caplog.text


def test_a_process_that_died_after_posting_leaves_one_post(
    bot: LiveBot, feeds: Feeds, digests, traveller
) -> None:
    channel = bot.workspace.channel_id
    answer(bot, "subscribe new 9:00 Europe/Berlin")
    feeds.announce(MONDAY, paper(1), paper(2))
    traveller.move_to(at(MONDAY + timedelta(days=1), 9, 5))
    dying, other = digests

    def crash(*_args, **_kwargs):
        raise SystemExit("killed between the post and its record")

    dying._store.record_post = crash
    with pytest.raises(SystemExit):
        dying.serve(channel, kind=NEW_PAPERS)
    assert len(posted(bot, channel, NEW_PAPERS)) == 1
    assert other.serve(channel, kind=NEW_PAPERS).status == "busy"
    traveller.move_to(at(MONDAY + timedelta(days=1), 9, 5) + LEASE + timedelta(seconds=1))
    assert other.serve(channel, kind=NEW_PAPERS).status == "recovered"
    assert other.serve(channel, kind=NEW_PAPERS).status == "already_posted"
    assert len(posted(bot, channel, NEW_PAPERS)) == 1
    assert other._store.ever_seen(channel, ["arxiv:2501.00001", "arxiv:2501.00002"]) == {
        "arxiv:2501.00001",
        "arxiv:2501.00002",
    }


def test_the_weekly_digest_shows_the_weeks_new_papers_the_channel_was_not_shown(
    bot: LiveBot, feeds: Feeds, digests, traveller
) -> None:
    channel = bot.workspace.channel_id
    answer(bot, "subscribe new 9:00 Europe/Berlin")
    answer(bot, "subscribe weekly friday 9:30 Europe/Berlin")
    feeds.announce(MONDAY, *(paper(number) for number in range(1, 9)))
    traveller.move_to(at(MONDAY + timedelta(days=1), 9, 5))
    digests[0].serve(channel, kind=NEW_PAPERS)
    daily = set(shown(posted(bot, channel, NEW_PAPERS)[0]))
    traveller.move_to(at(MONDAY + timedelta(days=4), 9, 35))
    assert digests[0].serve(channel, kind=WEEKLY).status == "posted"
    [weekly] = posted(bot, channel, WEEKLY)
    blocks = json.dumps(weekly.args["blocks"])
    new_part = blocks.split("*New papers*")[1]
    rest = {f"arxiv:2501.{number:05d}" for number in range(1, 9)} - daily
    assert set(shown(weekly)) & rest == rest  # the three the new papers post did not show
    for paper_id in rest:
        assert bot.services.index.get(paper_id).title[:30] in new_part
    assert not set(shown(weekly)) & daily


def test_subscriptions_list_the_new_papers_and_unsubscribe_new_stops_them(bot: LiveBot) -> None:
    answer(bot, "subscribe 9:00 Europe/Berlin")
    reply = answer(bot, "subscribe new 8:30 graph neural networks")
    assert "Same time and time zone" not in reply  # the time was typed
    assert "Europe/Berlin" in reply  # the zone came from the paper of the day
    listing = answer(bot, "subscriptions")
    assert "Paper of the day:" in listing
    assert "*New papers:* 08:30 Europe/Berlin, on days with new papers" in listing
    assert "“graph neural networks”" in listing
    assert "Unsubscribed: no more new papers post here" in answer(bot, "unsubscribe new")
    assert "*New papers:*" not in answer(bot, "subscriptions")
    assert "`/paper unsubscribe new` the new papers post" in answer(bot, "unsubscribe nwe")


def test_the_post_keeps_to_the_topic_and_puts_papers_like_the_channel_s_shares_first(
    bot: LiveBot, feeds: Feeds, digests, traveller
) -> None:
    """A paper shared in the channel with the Share button is never posted, and the new
    papers most like it come first among those about the topic."""
    channel = bot.workspace.channel_id
    feeds.announce(MONDAY, *(paper(number) for number in range(1, 40)))
    index = bot.services.index
    about = [hit.id for hit in index.results("attention") if hit.id.startswith("arxiv:")]
    assert len(about) > 6

    def nearest(shared: str) -> str:
        return next(
            hit.paper.id
            for hit in index.similar(shared, limit=20).hits
            if hit.paper.id in about and hit.paper.id != shared
        )

    shared = next(paper_id for paper_id in about[1:] if nearest(paper_id) != about[0])
    answer(bot, "subscribe new 9:00 Europe/Berlin attention")
    bot.slash(index.get(shared).title)
    bot.drain()
    page = bot.recorder.calls_to(RESPONSE_URL)[-1].blocks
    shares = [
        element["value"]
        for block in page
        if block["type"] == "actions"
        for element in block["elements"]
        if element["action_id"] == render_papers.ACTION_SHARE
    ]
    bot.click(page, render_papers.ACTION_SHARE, index=shares.index(shared))
    bot.drain()
    traveller.move_to(at(MONDAY + timedelta(days=1), 9, 5))
    assert digests[0].serve(channel, kind=NEW_PAPERS).status == "posted"
    [post] = posted(bot, channel, NEW_PAPERS)
    papers = shown(post)
    assert shared not in papers and set(papers) <= set(about)
    assert papers[0] == nearest(shared) != about[0]
    blocks = json.dumps(post.args["blocks"], ensure_ascii=False)
    assert f"of {len(about) - 1} new papers" in blocks and "on “attention”" in blocks
    assert "Papers like those shared and reacted to here come first" in blocks


def test_a_topic_with_category_takes_only_that_category_s_new_papers(
    bot: LiveBot, feeds: Feeds, digests, traveller
) -> None:
    channel = bot.workspace.channel_id
    answer(bot, "subscribe new 9:00 Europe/Berlin category:cs.CL")
    feeds.announce(
        MONDAY,
        *(
            paper(number, categories=("cs.LG", "cs.CL") if number in (2, 5) else ("cs.LG",))
            for number in range(1, 7)
        ),
    )
    traveller.move_to(at(MONDAY + timedelta(days=1), 9, 5))
    assert digests[0].serve(channel, kind=NEW_PAPERS).status == "posted"
    [post] = posted(bot, channel, NEW_PAPERS)
    assert sorted(shown(post)) == ["arxiv:2501.00002", "arxiv:2501.00005"]


def test_a_topic_only_new_papers_match_points_the_paper_of_the_day_to_them(
    bot: LiveBot, feeds: Feeds
) -> None:
    feeds.announce(MONDAY, paper(1, title="Zymurgy for quasicrystal growth"))
    reply = answer(bot, "subscribe 9:00 Europe/Berlin zymurgy")
    assert "No paper of the collection matches “zymurgy”, but 1 new paper matches it" in reply
    assert "`/paper subscribe new`" in reply and "Nothing was changed" in reply
    assert bot.services.digest.subscription(bot.workspace.channel_id) is None


def test_a_mention_of_new_lists_the_new_papers_in_its_thread_read_as_the_command_is(
    bot: LiveBot, feeds: Feeds, traveller
) -> None:
    feeds.announce(MONDAY, *(paper(number) for number in range(1, 8)))
    traveller.move_to(at(MONDAY + timedelta(days=1), 9, 5))
    _, asked = bot.mention("new")
    [listed] = bot.recorder.wait_for("chat.postMessage")
    assert listed.args["channel"] == bot.workspace.channel_id
    assert listed.args["thread_ts"] == asked["ts"]
    text = all_text(listed.blocks)
    assert "New papers announced Monday 6 January 2025 (1\u20133 of 7)" in text
    assert "Say `@paperbot more` for the next results." in text
    assert "you save" not in text, "everyone sees it: nobody's saves rank it"
    actions = [
        element["action_id"]
        for block in listed.blocks
        if block["type"] == "actions"
        for element in block["elements"]
    ]
    assert render_papers.ACTION_SHARE not in actions
    assert render_papers.ACTION_NEXT_PAGE not in actions

    bot.mention("more", thread_ts=asked["ts"])
    following = bot.recorder.wait_for("chat.postMessage", 2)[1]
    assert following.args["thread_ts"] == asked["ts"]
    assert "New papers announced Monday 6 January 2025 (4\u20136 of 7)" in all_text(
        following.blocks
    )

    bot.mention("new kernel")
    about = all_text(bot.recorder.wait_for("chat.postMessage", 3)[2].blocks)
    assert "New papers about \u201ckernel\u201d announced Monday 6 January 2025" in about
    assert "number 4" in about and "number 5" in about and "number 1 " not in about
    assert "Search all papers for \u201cnew kernel\u201d instead" in about

    bot.mention("new methods for graph pruning")
    searched = all_text(bot.recorder.wait_for("chat.postMessage", 4)[3].blocks)
    assert "Papers for \u201cnew methods for graph pruning\u201d" in searched
    assert "which reads as a sentence" in searched

    bot.mention("nwe")
    asked_about = all_text(bot.recorder.wait_for("chat.postMessage", 5)[4].blocks)
    assert "Did you mean `@paperbot new`?" in asked_about
    assert "Nothing was changed" not in asked_about and "Papers for" not in asked_about
