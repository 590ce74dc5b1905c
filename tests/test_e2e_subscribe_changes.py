"""``/paper subscribe`` end to end over HTTP: a refused command leaves the stored subscription
as it was, a command changes only what it types and says what it changed and kept, a new
weekly digest takes the channel's zone, and misspelt subscription commands change nothing."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, time

import pytest
import time_machine
from slack_harness import LiveBot, all_text

from bot.render.blocks import validate
from bot.render.message import Message
from bot.shell.fake_slack import RESPONSE_URL
from bot.store import WEEKLY

THURSDAY = datetime(2025, 4, 24, 5, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def frozen() -> Iterator[None]:
    with time_machine.travel(THURSDAY, tick=False):
        yield


def answer(bot: LiveBot, text: str) -> str:
    """The private reply to ``/paper text``, checked the way Slack would check it."""
    before = len(bot.recorder.calls_to(RESPONSE_URL))
    assert bot.slash(text).status == 200
    call = bot.recorder.wait_for(RESPONSE_URL, before + 1)[before]
    assert call.args["response_type"] == "ephemeral"
    validate(Message(call.text, tuple(call.blocks)))
    return all_text(call.blocks)


def stored(bot: LiveBot, kind: str = "daily") -> tuple | None:
    sub = bot.services.digest.subscription(bot.workspace.channel_id, kind)
    if sub is None:
        return None
    return (sub.schedule.at, sub.schedule.zone_name, sub.schedule.cadence, sub.topic)


REFUSED = [
    ("subscribe weekly fridy language models", "did you mean `friday`?"),
    ("subscribe weekly funday 9am", "did you mean `sunday`?"),
    ("subscribe weekly", "`weekly` takes a day of the week"),
    ("subscribe weekly reports", "`reports` is not a day of the week"),
    ("subscribe wekly monday", "did you mean `weekly`?"),
    ("subscribe 8am daly", "did you mean `daily`?"),
    ("subscribe 8am weekdys graphs", "did you mean `weekdays`?"),
    ("subscribe 8am Berln graphs", "did you mean `Berlin`?"),
    ("subscribe 8am Europe/Berln", "did you mean `Europe/Berlin`?"),
    ("subscribe 8am IST", "`Asia/Kolkata`"),
    ("subscribe 8am CST graphs", "`Asia/Shanghai`"),
    ("subscribe friday 9am", "`/paper subscribe weekly friday …`"),
    ("subscribe 25:00", "`25:00` is not a time of day"),
    ("subscribe 9am graphs 10am", "`10am` is out of place"),
]


@pytest.mark.parametrize(("command", "problem"), REFUSED)
def test_a_refused_subscribe_leaves_the_stored_subscription_unchanged(bot, command, problem):
    answer(bot, "subscribe 9am Europe/Berlin daily graph neural networks")
    answer(bot, "subscribe weekly monday 10am graphs")
    daily, weekly = stored(bot), stored(bot, WEEKLY)
    revision = bot.services.digest.subscriptions_revision()
    text = answer(bot, command)
    assert problem in text
    assert "Nothing was changed." in text
    assert (stored(bot), stored(bot, WEEKLY)) == (daily, weekly)
    assert bot.services.digest.subscriptions_revision() == revision


def test_the_issue_s_commands_change_nothing_of_a_berlin_paper_of_the_day(bot):
    answer(bot, "subscribe 9am Europe/Berlin")
    before = stored(bot)
    for command in ("weekly fridy language models", "weekly funday 9am", "weekly"):
        assert "Nothing was changed." in answer(bot, f"subscribe {command}")
    assert stored(bot) == before == (time(9, 0), "Europe/Berlin", "weekdays", None)
    assert stored(bot, WEEKLY) is None


def test_what_is_not_typed_keeps_its_value_and_the_reply_says_what_changed(bot):
    first = answer(bot, "subscribe 9am Europe/Berlin daily graph neural networks")
    assert first.startswith("Subscribed: ")
    assert "at 09:00 Europe/Berlin, every day" in first

    moved = answer(bot, "subscribe 8am")
    assert stored(bot) == (time(8, 0), "Europe/Berlin", "daily", "graph neural networks")
    assert moved.startswith("Updated: ")
    assert "Changed: time 09:00 → 08:00." in moved
    assert "Kept: time zone Europe/Berlin; every day; topic “graph neural networks”." in moved

    again = answer(bot, "subscribe")
    assert again.startswith("Nothing to change: ")
    assert stored(bot) == (time(8, 0), "Europe/Berlin", "daily", "graph neural networks")

    narrowed = answer(bot, "subscribe weekdays all")
    assert stored(bot) == (time(8, 0), "Europe/Berlin", "weekdays", None)
    assert "Changed: days every day → on weekdays; topic “graph neural networks” → all" in narrowed


def test_a_zone_abbreviation_or_city_is_understood_and_named_in_the_reply(bot):
    text = answer(bot, "subscribe 9am EST")
    assert stored(bot) == (time(9, 0), "America/New_York", "weekdays", None)
    assert "“EST” read as America/New_York." in text
    answer(bot, "subscribe pst")
    assert stored(bot)[1] == "America/Los_Angeles"
    moved = answer(bot, "subscribe new york")
    assert "Changed: time zone America/Los_Angeles → America/New_York." in moved
    answer(bot, 'subscribe 7:30 CEST "transformers"')
    assert stored(bot) == (time(7, 30), "Europe/Berlin", "weekdays", '"transformers"')


@pytest.mark.parametrize("args", ["cat detection", "9am Wake word detection", "Christmas"])
def test_a_zone_word_that_could_start_the_topic_changes_nothing(bot, args):
    answer(bot, "subscribe 8am Europe/Berlin daily graphs")
    asked = answer(bot, f"subscribe {args}")
    assert "Did you mean the time zone `" in asked and "Nothing was changed." in asked
    assert f"the topic \u201c{args.removeprefix('9am ')}\u201d (put it in quotes)" in asked
    assert stored(bot) == (time(8, 0), "Europe/Berlin", "daily", "graphs")


def test_a_new_weekly_digest_takes_the_channel_s_time_and_zone(bot):
    answer(bot, "subscribe 8am Europe/Berlin")
    text = answer(bot, "subscribe weekly friday")
    assert stored(bot, WEEKLY) == (time(8, 0), "Europe/Berlin", "friday", None)
    assert "at 08:00 Europe/Berlin, on Fridays" in text
    assert "Same time and time zone as this channel's paper of the day." in text


def test_subscribing_after_unsubscribing_brings_the_same_subscription_back(bot):
    answer(bot, "subscribe 7am Asia/Tokyo daily diffusion")
    answer(bot, "unsubscribe")
    assert stored(bot) is None
    text = answer(bot, "subscribe")
    assert text.startswith("Subscribed again: ")
    assert stored(bot) == (time(7, 0), "Asia/Tokyo", "daily", "diffusion")


@pytest.mark.parametrize(
    ("command", "reply"),
    [
        ("unsubscribe wekly", "Did you mean `/paper unsubscribe weekly`?"),
        ("unsubscribe everything", "“everything” is not something to unsubscribe from"),
        ("unsubscrbe", "Did you mean `/paper unsubscribe`?"),
        ("usubscribe weekly", "Did you mean `/paper unsubscribe weekly`?"),
        ("subscibe weekly monday", "Did you mean `/paper subscribe weekly monday`?"),
        ("subscriptons", "Did you mean `/paper subscriptions`?"),
    ],
)
def test_misspelt_subscription_commands_stop_and_change_nothing(bot, command, reply):
    answer(bot, "subscribe 9am Europe/Berlin")
    answer(bot, "subscribe weekly monday")
    daily, weekly = stored(bot), stored(bot, WEEKLY)
    text = answer(bot, command)
    assert reply in text
    assert "Nothing was" in text
    assert (stored(bot), stored(bot, WEEKLY)) == (daily, weekly)


def test_unsubscribe_daily_and_weekly_each_stop_their_kind(bot):
    answer(bot, "subscribe 9am Europe/Berlin")
    answer(bot, "subscribe weekly monday")
    answer(bot, "unsubscribe WEEKLY")
    assert stored(bot, WEEKLY) is None and stored(bot) is not None
    answer(bot, "unsubscribe daily")
    assert stored(bot) is None
