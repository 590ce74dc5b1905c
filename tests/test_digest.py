"""The paper of the day end to end against the fake Slack server, under a frozen clock."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from digest_probes import ProbedDigestService
from faulty_slack import FaultySlackRecorder, rate_limited, server_error, slack_error
from slack_sdk import WebClient

from bot.digest.posting import EVENT_TYPE, LEASE
from bot.render import blocks as bk
from bot.render.message import Message
from bot.search.engine import SearchIndex
from bot.settings import Settings
from bot.slack.client import make_web_client
from bot.store import Store

BERLIN = ZoneInfo("Europe/Berlin")


def berlin(*args: int) -> datetime:
    return datetime(*args, tzinfo=BERLIN).astimezone(UTC)


def text_of(message: Message) -> str:
    """Everything a reader sees in a message: fallback and every block's text."""
    parts = [message.text]
    for block in message.blocks:
        if "text" in block:
            parts.append(block["text"]["text"])
        for element in block.get("elements", []):
            label = element.get("text", "")
            parts.append(label["text"] if isinstance(label, dict) else label)
    return "\n".join(str(part) for part in parts)


@pytest.fixture
def traveller() -> Iterator[time_machine.Coordinates]:
    with time_machine.travel(berlin(2025, 3, 28, 8, 0), tick=False) as coordinates:
        yield coordinates


@pytest.fixture
def database_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'paperbot.db'}"


class Bot:
    """One bot process: its own store connection, client and claim owner id."""

    def __init__(
        self,
        database_url: str,
        index: SearchIndex,
        recorder: FaultySlackRecorder,
        settings: Settings | None = None,
        client: WebClient | None = None,
    ) -> None:
        self.store = Store(database_url)
        self.sleeps: list[float] = []
        self.service = ProbedDigestService(
            self.store,
            index,
            client or make_web_client("xoxb-test", recorder.base_url),
            settings or Settings(),
            sleep=self.sleeps.append,
        )


@pytest.fixture
def make_bot(database_url, index, recorder, traveller) -> Iterator:
    bots: list[Bot] = []

    def make(**kwargs) -> Bot:
        bot = Bot(database_url, index, recorder, **kwargs)
        bots.append(bot)
        return bot

    yield make
    for bot in bots:
        bot.store.close()


def posts(recorder: FaultySlackRecorder, channel: str) -> list:
    return [
        call
        for call in recorder.calls_to("chat.postMessage")
        if call.args["channel"] == channel and call.response.get("ok")
    ]


def posted_at_nine(
    service: ProbedDigestService, channel: str, traveller: time_machine.Coordinates, args: str
) -> None:
    """Subscribe with ``args`` (a 09:00 Berlin time) and post that Friday's paper."""
    service.subscribe(channel, args)
    traveller.move_to(berlin(2025, 3, 28, 9, 0))
    assert service.serve(channel).status == "posted"


# Subscribing ---------------------------------------------------------------------------


def test_invalid_subscriptions_are_explained_with_an_example(make_bot, channel) -> None:
    service = make_bot().service
    for args, problem in (("25:00", "`25:00`"), ("9:00 Europe/Olympus", "`Europe/Olympus`")):
        reply = text_of(service.subscribe(channel, args))
        assert problem in reply
        assert "Example: `/paper subscribe 9:30am Europe/Berlin" in reply
    assert service.subscription(channel) is None


def test_subscribe_then_list_shows_settings_and_next_post_in_the_channel_zone(
    make_bot, channel
) -> None:
    service = make_bot().service
    reply = text_of(service.subscribe(channel, "9:30am Europe/Berlin daily"))
    assert "Subscribed" in reply and "09:30 Europe/Berlin, every day" in reply
    listing = text_of(service.subscriptions(channel))
    assert "09:30 Europe/Berlin, every day" in listing
    assert "all papers" in listing
    assert "Friday 28 March 2025 at 09:30 (Europe/Berlin)" in listing
    again = text_of(service.subscribe(channel, "10:00 America/New_York"))
    assert "Updated" in again
    assert "Friday 28 March 2025 at 10:00 (America/New_York)" in text_of(
        service.subscriptions(channel)
    )


def test_a_subscription_due_now_names_todays_paper_and_dates_the_one_after(
    make_bot, channel
) -> None:
    """Its time has come (08:00, subscribing for 07:00), so today's is posted at once and may
    arrive with the reply: "Next paper: today, any moment now" read as one more to come."""
    service = make_bot().service
    reply = text_of(service.subscribe(channel, "7:00 Europe/Berlin daily"))
    following = "Saturday 29 March 2025 at 07:00 (Europe/Berlin)"
    assert f"Next paper: today's is being posted now, then {following}." in reply
    assert service.serve(channel).status == "posted"
    assert f"*Next paper:* {following}" in text_of(service.subscriptions(channel))


def test_a_topic_subscription_counts_and_orders_its_pool(make_bot, channel, index) -> None:
    service = make_bot().service
    topic = "graph neural networks"
    matches = index.results(topic)
    reply = text_of(service.subscribe(channel, f"09:30 Europe/Berlin {topic}"))
    assert f"({len(matches)} in the rotation)" in reply
    pick = service.pick(channel, topic)
    assert pick.paper == matches[0]
    assert (pick.position, pick.pool_size) == (1, len(matches))


def test_a_topic_nothing_matches_is_refused(make_bot, channel) -> None:
    service = make_bot().service
    reply = text_of(service.subscribe(channel, "zzqxv wobblefrotz"))
    assert "No paper matches “zzqxv wobblefrotz”" in reply
    assert service.subscription(channel) is None


def test_a_topic_whose_filter_nothing_passes_says_why(make_bot, channel) -> None:
    service = make_bot().service
    reply = text_of(service.subscribe(channel, "graph since:yesterdy"))
    assert "`since:yesterdy` is not a date" in reply and "`since:yesterday`" in reply
    reply = text_of(service.subscribe(channel, "graph since:7d"))
    assert "No paper here has a date to filter by with `since:7d`" in reply
    assert service.subscription(channel) is None


def test_user_typed_topics_are_escaped(make_bot, channel, traveller) -> None:
    service = make_bot().service
    service.subscribe(channel, "09:00 Europe/Berlin daily <!channel> graph")
    listing = service.subscriptions(channel)
    assert "<!channel>" not in text_of(listing)
    assert "&lt;!channel&gt; graph" in text_of(listing)
    traveller.move_to(berlin(2025, 3, 28, 9, 0))
    post = service.today(channel)
    assert "<!channel>" not in text_of(post)


def test_stars_in_a_topic_are_shown_literally_in_the_daily_post(
    make_bot, channel, recorder, traveller
) -> None:
    service = make_bot().service
    posted_at_nine(service, channel, traveller, "09:00 Europe/Berlin daily *graph* sparsification")
    [post] = posts(recorder, channel)
    progress = post.blocks[-1]["elements"][0]["text"]
    assert "*graph*" not in progress
    assert "\u2217graph\u2217 sparsification" in progress


def test_the_environment_default_needs_no_command_and_unsubscribe_beats_it(
    make_bot, channel, recorder, traveller
) -> None:
    settings = Settings(digest_channel=channel, digest_time="09:15", timezone="Europe/Berlin")
    service = make_bot(settings=settings).service
    assert "09:15 Europe/Berlin, on weekdays" in text_of(service.subscriptions(channel))
    assert "configuration" in text_of(service.subscriptions(channel))
    service.unsubscribe(channel, team_id="T_RESEARCH")
    restarted = make_bot(settings=settings)
    # The row that keeps it unsubscribed knows its workspace, so an uninstall deletes it.
    assert restarted.store.subscription(channel).team_id == "T_RESEARCH"
    restarted = restarted.service
    assert restarted.subscription(channel) is None
    assert restarted.active_subscriptions() == []
    traveller.move_to(berlin(2025, 3, 28, 10, 0))
    assert restarted.serve_due() == []
    assert posts(recorder, channel) == []


# The post ------------------------------------------------------------------------------


def test_the_post_goes_out_at_the_local_time_with_date_progress_and_metadata(
    make_bot, channel, recorder, traveller
) -> None:
    service = make_bot().service
    service.subscribe(channel, "9:00 Europe/Berlin")
    traveller.move_to(berlin(2025, 3, 28, 8, 59, 59))
    assert service.serve(channel).status == "not_due"
    traveller.move_to(berlin(2025, 3, 28, 9, 0))
    outcome = service.serve(channel)
    assert outcome.status == "posted"
    [post] = posts(recorder, channel)
    message = Message(post.text, tuple(post.blocks))
    bk.validate(message)
    seen = text_of(message)
    assert "Paper of the day · Friday 28 March 2025" in seen
    assert "Paper 1 of 76" in seen
    buttons = [element["text"]["text"] for element in post.blocks[-2]["elements"]]
    assert buttons == ["Abstract", "Save", "More like this"]
    metadata = post.args["metadata"]
    assert metadata["event_type"] == EVENT_TYPE
    assert metadata["event_payload"]["date"] == "2025-03-28"
    assert outcome.ts == post.response["ts"]


@pytest.mark.parametrize(
    ("args", "before", "due", "later_same_day"),
    [
        # Tokyo has no DST; 09:00 JST is 00:00 UTC.
        ("9:00 Asia/Tokyo daily", (2025, 3, 27, 23, 59), (2025, 3, 28, 0, 0), (2025, 3, 28, 14, 0)),
        # New York just sprang forward (9 March): 09:00 EDT is 13:00 UTC.
        ("9:00 America/New_York", (2025, 3, 10, 12, 59), (2025, 3, 10, 13, 0), (2025, 3, 11, 3, 0)),
        # Berlin's spring-forward night: 02:30 does not exist, the post comes at 03:00 CEST.
        (
            "2:30 Europe/Berlin daily",
            (2025, 3, 30, 0, 59),
            (2025, 3, 30, 1, 0),
            (2025, 3, 30, 21, 0),
        ),
        # Berlin's fall-back night: 02:30 happens twice (00:30 and 01:30 UTC), one post.
        (
            "2:30 Europe/Berlin daily",
            (2025, 10, 26, 0, 29),
            (2025, 10, 26, 0, 30),
            (2025, 10, 26, 1, 30),
        ),
    ],
)
def test_posting_instants_in_several_zones_and_across_dst(
    make_bot, channel, recorder, traveller, args, before, due, later_same_day
) -> None:
    service = make_bot().service
    service.subscribe(channel, args)
    traveller.move_to(datetime(*before, tzinfo=UTC))
    assert service.serve_due() == []
    traveller.move_to(datetime(*due, tzinfo=UTC))
    assert [outcome.status for outcome in service.serve_due()] == ["posted"]
    traveller.move_to(datetime(*later_same_day, tzinfo=UTC))
    assert [outcome.status for outcome in service.serve_due()] == ["already_posted"]
    assert len(posts(recorder, channel)) == 1


def test_the_header_uses_the_date_in_the_channel_zone(
    make_bot, channel, recorder, traveller
) -> None:
    service = make_bot().service
    service.subscribe(channel, "7:00 Pacific/Auckland daily")
    traveller.move_to(datetime(2025, 3, 27, 18, 30, tzinfo=UTC))  # 07:30 Friday in Auckland
    assert service.serve(channel).status == "posted"
    assert "Friday 28 March 2025" in posts(recorder, channel)[0].blocks[0]["text"]["text"]


def test_today_shows_the_coming_paper_then_the_posted_one(make_bot, channel, traveller) -> None:
    service = make_bot().service
    service.subscribe(channel, "9:00 Europe/Berlin")
    before = text_of(service.today(channel))
    assert "coming Friday 28 March 2025 at 09:00 (Europe/Berlin)" in before
    traveller.move_to(berlin(2025, 3, 28, 9, 0))
    service.serve(channel)
    after = text_of(service.today(channel))
    assert "already posted" in after
    title_line = [line for line in before.splitlines() if line.startswith("*<")]
    assert title_line and title_line[0] in after


def test_a_posted_paper_keeps_the_topic_it_was_drawn_for_after_a_topic_change(
    make_bot, channel, traveller, index
) -> None:
    service = make_bot().service
    posted_at_nine(service, channel, traveller, "9:00 Europe/Berlin graph neural networks")
    service.subscribe(channel, "9:00 Europe/Berlin diffusion")
    footer = text_of(service.today(channel)).splitlines()[-1]
    gnn_papers = len(index.results("graph neural networks"))
    assert footer == f"Paper 1 of {gnn_papers} on “graph neural networks”"


def test_weekday_subscriptions_rest_at_the_weekend(make_bot, channel, recorder, traveller) -> None:
    service = make_bot().service
    service.subscribe(channel, "9:00 Europe/Berlin weekdays")
    traveller.move_to(berlin(2025, 3, 29, 12, 0))
    assert service.serve_due() == []
    assert "Next, on Monday 31 March 2025 at 09:00" in text_of(service.today(channel))
    assert posts(recorder, channel) == []


def test_every_paper_once_per_round_then_a_new_order(
    make_bot, channel, recorder, traveller
) -> None:
    service = make_bot().service
    service.subscribe(channel, "9:00 Europe/Berlin daily")
    day = date(2025, 3, 28)
    papers = []
    for offset in range(80):
        current = day + timedelta(days=offset)
        traveller.move_to(berlin(current.year, current.month, current.day, 9, 0))
        outcome = service.serve(channel)
        assert outcome.status == "posted", outcome
        papers.append(posts(recorder, channel)[-1].blocks[-2]["elements"][0]["value"])
    first_round, second_round = papers[:76], papers[76:]
    assert len(set(first_round)) == 76
    assert "Paper 1 of 76" in text_of(Message("", tuple(posts(recorder, channel)[76].blocks)))
    assert len(set(second_round)) == 4
    assert second_round != first_round[:4]


def test_the_order_is_reproducible_per_channel_and_differs_between_channels(
    make_bot,
) -> None:
    first, second = make_bot().service, make_bot().service
    assert first.pick("C1", None) == second.pick("C1", None)
    assert [first.pick(f"C{n}", None).paper.id for n in range(5)] != [
        first.pick("C1", None).paper.id
    ] * 5


# Exactly once --------------------------------------------------------------------------


def test_two_processes_and_repeated_runs_post_once(make_bot, channel, recorder, traveller) -> None:
    one, two = make_bot(), make_bot()
    one.service.subscribe(channel, "9:00 Europe/Berlin")
    traveller.move_to(berlin(2025, 3, 28, 9, 0, 1))
    outcomes = [bot.service.serve(channel).status for bot in (one, two, one, two)]
    assert outcomes == ["posted", "already_posted", "already_posted", "already_posted"]
    assert len(posts(recorder, channel)) == 1


def test_restart_after_the_claim_before_the_post(make_bot, channel, recorder, traveller) -> None:
    crashed = make_bot()
    crashed.service.subscribe(channel, "9:00 Europe/Berlin")
    traveller.move_to(berlin(2025, 3, 28, 9, 0))
    pick = crashed.service.pick(channel, None)
    crashed.store.claim_digest(
        channel,
        date(2025, 3, 28),
        paper_id=pick.paper.id,
        round=pick.round,
        position=pick.position,
        pool_size=pick.pool_size,
        owner=crashed.service.owner,
        lease=LEASE,
    )
    traveller.shift(timedelta(seconds=30))
    restarted = make_bot().service
    busy = restarted.serve_due()
    assert [outcome.status for outcome in busy] == ["busy"]
    assert busy[0].retry_at == berlin(2025, 3, 28, 9, 0) + LEASE
    traveller.move_to(busy[0].retry_at)
    assert restarted.serve(channel).status == "posted"
    [post] = posts(recorder, channel)
    assert post.blocks[-2]["elements"][0]["value"] == pick.paper.id


def test_restart_after_the_post_before_recording_it(make_bot, channel, recorder, traveller) -> None:
    crashed = make_bot()
    crashed.service.subscribe(channel, "9:00 Europe/Berlin")
    traveller.move_to(berlin(2025, 3, 28, 9, 0))
    pick = crashed.service.pick(channel, None)
    day = date(2025, 3, 28)
    crashed.store.claim_digest(
        channel,
        day,
        paper_id=pick.paper.id,
        round=0,
        position=1,
        pool_size=76,
        owner="crashed",
        lease=LEASE,
    )
    crashed.store.mark_posting(channel, day, "crashed")
    recorder.add_message(channel, "unrelated chatter")
    sent = make_web_client("xoxb-test", recorder.base_url).chat_postMessage(
        channel=channel,
        text="Paper of the day",
        metadata={"event_type": EVENT_TYPE, "event_payload": {"date": day.isoformat()}},
    )
    recorder.add_message(channel, "more chatter")
    traveller.shift(LEASE)
    restarted = make_bot().service
    outcome = restarted.serve(channel)
    assert (outcome.status, outcome.ts) == ("recovered", sent["ts"])
    assert len(posts(recorder, channel)) == 1
    history = recorder.calls_to("conversations.history")
    assert history and history[0].args["include_all_metadata"] in ("1", "true", True)
    assert restarted.serve(channel).status == "already_posted"
    assert "already posted" in text_of(restarted.today(channel))


def test_a_posting_claim_with_nothing_in_history_is_posted(
    make_bot, channel, recorder, traveller
) -> None:
    crashed = make_bot()
    crashed.service.subscribe(channel, "9:00 Europe/Berlin")
    traveller.move_to(berlin(2025, 3, 28, 9, 0))
    day = date(2025, 3, 28)
    crashed.store.claim_digest(
        channel, day, paper_id="x", round=0, position=1, pool_size=76, owner="gone", lease=LEASE
    )
    crashed.store.mark_posting(channel, day, "gone")
    traveller.shift(LEASE)
    outcome = make_bot().service.serve(channel)
    assert outcome.status == "posted"
    assert len(recorder.calls_to("conversations.history")) == 1
    assert len(posts(recorder, channel)) == 1


# Down-time -----------------------------------------------------------------------------


def test_catch_up_on_start_the_same_local_day(make_bot, channel, recorder, traveller) -> None:
    make_bot().service.subscribe(channel, "9:00 Europe/Berlin")
    traveller.move_to(berlin(2025, 3, 28, 23, 59))
    outcomes = make_bot().service.serve_due()
    assert [outcome.status for outcome in outcomes] == ["posted"]
    assert len(posts(recorder, channel)) == 1


def test_a_day_missed_entirely_is_skipped_and_logged(
    make_bot, channel, recorder, traveller, caplog
):
    service = make_bot().service
    service.subscribe(channel, "9:00 Europe/Berlin daily")
    traveller.move_to(berlin(2025, 3, 28, 9, 0))
    service.serve(channel)
    traveller.move_to(berlin(2025, 3, 30, 8, 0))  # down from Friday night to Sunday 08:00
    with caplog.at_level(logging.WARNING, logger="bot.digest.service"):
        assert make_bot().service.serve_due() == []
    assert "2025-03-29" in caplog.text
    assert len(posts(recorder, channel)) == 1
    traveller.move_to(berlin(2025, 3, 30, 9, 0))
    assert [outcome.status for outcome in make_bot().service.serve_due()] == ["posted"]


# Slack failures ------------------------------------------------------------------------


def test_a_rate_limit_is_waited_out(make_bot, channel, recorder, traveller) -> None:
    service = make_bot().service
    service.subscribe(channel, "9:00 Europe/Berlin")
    traveller.move_to(berlin(2025, 3, 28, 9, 0))
    recorder.fail_next("chat.postMessage", rate_limited(retry_after=0))
    assert service.serve(channel).status == "posted"
    calls = recorder.calls_to("chat.postMessage")
    assert [call.status for call in calls] == [429, 200]


def test_failures_beyond_the_client_retries_back_off_then_post(
    make_bot, channel, recorder, traveller
) -> None:
    bot = make_bot(client=WebClient(token="xoxb-test", base_url=recorder.base_url))
    bot.service.subscribe(channel, "9:00 Europe/Berlin")
    traveller.move_to(berlin(2025, 3, 28, 9, 0))
    recorder.fail_next("chat.postMessage", rate_limited(retry_after=30), server_error(503))
    assert bot.service.serve(channel).status == "posted"
    assert bot.sleeps == [30.0, 15.0]
    # The channel is checked before the first attempt, and again after the 5xx: the message
    # may have gone out.
    assert len(recorder.calls_to("conversations.history")) == 2
    assert len(posts(recorder, channel)) == 1


def test_a_post_that_keeps_failing_is_released_for_later(
    make_bot, channel, recorder, traveller
) -> None:
    bot = make_bot(client=WebClient(token="xoxb-test", base_url=recorder.base_url))
    bot.service.subscribe(channel, "9:00 Europe/Berlin")
    traveller.move_to(berlin(2025, 3, 28, 9, 0))
    recorder.fail_next("chat.postMessage", *[rate_limited(retry_after=1)] * 4)
    outcome = bot.service.serve(channel)
    assert outcome.status == "failed" and outcome.retry_at is not None
    claim = bot.store.digest_claim(channel, date(2025, 3, 28))
    assert (claim.owner, claim.state) == (None, "claimed")
    traveller.move_to(outcome.retry_at)
    assert make_bot().service.serve(channel).status == "posted"
    assert len(posts(recorder, channel)) == 1


@pytest.mark.parametrize("error", ["not_in_channel", "channel_not_found", "is_archived"])
def test_removal_from_the_channel_pauses_instead_of_retrying(
    make_bot, channel, recorder, traveller, error: str
) -> None:
    service = make_bot().service
    changed: list[str] = []
    service.add_listener(changed.append)
    service.subscribe(channel, "9:00 Europe/Berlin")
    traveller.move_to(berlin(2025, 3, 28, 9, 0))
    recorder.fail_next("chat.postMessage", slack_error(error))
    outcome = service.serve(channel)
    assert (outcome.status, outcome.retry_at) == ("paused", None)
    assert len(recorder.calls_to("chat.postMessage")) == 1
    assert changed == [channel, channel]
    assert service.active_subscriptions() == []
    assert service.serve_due() == []
    assert "Paused" in text_of(service.subscriptions(channel))
    service.subscribe(channel, "9:00 Europe/Berlin")
    assert service.serve(channel).status == "posted"


def test_the_environment_default_is_paused_too(make_bot, channel, recorder, traveller) -> None:
    settings = Settings(digest_channel=channel, timezone="Europe/Berlin")
    service = make_bot(settings=settings).service
    traveller.move_to(berlin(2025, 3, 28, 9, 0))
    recorder.fail_next("chat.postMessage", slack_error("not_in_channel"))
    assert [outcome.status for outcome in service.serve_due()] == ["paused"]
    assert make_bot(settings=settings).service.active_subscriptions() == []


# A claim left by a dead process ------------------------------------------------------------


def _dead_pid() -> int:
    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(finished.stdout)


def _posting_claim(bot: Bot, channel: str, day: date, owner: str) -> str:
    pick = bot.service.pick(channel, None)
    bot.store.claim_digest(
        channel,
        day,
        paper_id=pick.paper.id,
        round=pick.round,
        position=pick.position,
        pool_size=pick.pool_size,
        owner=owner,
        lease=LEASE,
    )
    bot.store.mark_posting(channel, day, owner)
    return pick.paper.id


def _post_in_channel(recorder: FaultySlackRecorder, channel: str, day: date, paper_id: str) -> str:
    """The message a process posted before it died, as Slack keeps it."""
    ts = f"{time.time():.6f}"
    recorder.add_message(
        channel,
        "Paper of the day",
        user=recorder.bot_user_id,
        bot_id=recorder.bot_id,
        ts=ts,
        metadata={
            "event_type": EVENT_TYPE,
            "event_payload": {"date": day.isoformat(), "paper_id": paper_id},
        },
    )
    return ts


def test_a_claim_of_a_dead_process_on_this_host_is_taken_over_at_once(
    make_bot, channel, recorder, traveller
) -> None:
    """A cron run killed mid-post: a rerun a few seconds later, well within the lease, sees
    that the owner's pid is gone, finds the post in the channel and records it."""
    crashed = make_bot()
    crashed.service.subscribe(channel, "9:00 Europe/Berlin")
    traveller.move_to(berlin(2025, 3, 28, 9, 0))
    day = date(2025, 3, 28)
    owner = f"{socket.gethostname()}/{_dead_pid()}/deadbeef"
    paper_id = _posting_claim(crashed, channel, day, owner)
    sent = _post_in_channel(recorder, channel, day, paper_id)
    traveller.shift(timedelta(seconds=5))
    outcome = make_bot().service.serve(channel)
    assert (outcome.status, outcome.ts) == ("recovered", sent)
    assert posts(recorder, channel) == []
    _, seen = crashed.store.rotation(channel)
    assert paper_id in seen


def test_a_post_found_without_its_place_is_shown_without_one(
    make_bot, channel, recorder, traveller, index
) -> None:
    """A post a version before places made names its paper but not where it stood: found in
    the channel after its claim was lost, ``/paper today`` shows that paper and no "Paper N
    of M", rather than the place the rotation drew for another paper."""
    bot = make_bot()
    bot.service.subscribe(channel, "9:00 Europe/Berlin")
    traveller.move_to(berlin(2025, 3, 28, 9, 0))
    drawn = bot.service.pick(channel, None).paper
    older = next(paper for paper in index.papers if paper.id != drawn.id)
    sent = _post_in_channel(recorder, channel, date(2025, 3, 28), older.id)
    outcome = bot.service.serve(channel)
    assert (outcome.status, outcome.ts) == ("recovered", sent)
    today = text_of(bot.service.today(channel))
    assert "already posted" in today and older.title in today
    assert "Paper 1 of" not in today and drawn.title not in today


@pytest.mark.parametrize("where", ["this host, alive", "another host"])
def test_a_claim_of_a_live_or_remote_owner_waits_for_the_lease(
    make_bot, channel, recorder, traveller, where
) -> None:
    crashed = make_bot()
    crashed.service.subscribe(channel, "9:00 Europe/Berlin")
    traveller.move_to(berlin(2025, 3, 28, 9, 0))
    host = socket.gethostname() if where == "this host, alive" else "elsewhere.example"
    pid = os.getppid() if where == "this host, alive" else _dead_pid()
    _posting_claim(crashed, channel, date(2025, 3, 28), f"{host}/{pid}/cafe0001")
    traveller.shift(timedelta(seconds=5))
    assert make_bot().service.serve(channel).status == "busy"


def test_a_post_left_unrecorded_yesterday_counts_as_seen_today(
    make_bot, channel, recorder, traveller
) -> None:
    """Nothing settled yesterday's claim: today's run finds yesterday's post in the channel,
    marks its paper seen, and posts a different one."""
    crashed = make_bot()
    crashed.service.subscribe(channel, "9:00 Europe/Berlin")
    traveller.move_to(berlin(2025, 3, 27, 9, 0))
    yesterday = date(2025, 3, 27)
    paper_id = _posting_claim(crashed, channel, yesterday, "elsewhere.example/1/gone0001")
    _post_in_channel(recorder, channel, yesterday, paper_id)
    traveller.move_to(berlin(2025, 3, 28, 9, 0))
    bot = make_bot()
    outcome = bot.service.serve(channel)
    assert outcome.status == "posted"
    [post] = posts(recorder, channel)
    assert post.blocks[-2]["elements"][0]["value"] != paper_id
    _, seen = bot.store.rotation(channel)
    assert paper_id in seen
    assert bot.store.digest_claim(channel, yesterday).state == "posted"


def test_a_post_never_sent_yesterday_is_settled_as_unsent(
    make_bot, channel, recorder, traveller
) -> None:
    crashed = make_bot()
    crashed.service.subscribe(channel, "9:00 Europe/Berlin")
    traveller.move_to(berlin(2025, 3, 27, 9, 0))
    yesterday = date(2025, 3, 27)
    paper_id = _posting_claim(crashed, channel, yesterday, "elsewhere.example/1/gone0001")
    traveller.move_to(berlin(2025, 3, 28, 9, 0))
    bot = make_bot()
    assert bot.service.serve(channel).status == "posted"
    assert bot.store.digest_claim(channel, yesterday).state == "claimed"
    [post] = posts(recorder, channel)
    assert post.blocks[-2]["elements"][0]["value"] == paper_id, "never shown, so shown today"
