"""Every kind of message the bot sends, notices and errors included, is valid Block Kit with
a plain-text fallback a notification can show, and echoes hostile input harmlessly."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from bot.render import blocks as bk
from bot.render import digest as digest_render
from bot.render import papers as render
from bot.render.help_card import help_message
from bot.render.message import Message
from bot.render.subscribe import Problem, SubscribeProblem
from bot.search.results import SearchResult, TooManyConditions

HOSTILE = "<!channel> <!here> <@U0VICTIM> &amp; 🚀 שלום " + "x" * 10_000


def _every_message() -> dict[str, Message]:
    return {
        "help": help_message(description="76 papers"),
        "not found": render.not_found_message(HOSTILE),
        "not in channel": render.not_in_channel_message("C1"),
        "not in a DM": render.not_in_channel_message("D1"),
        "apology": render.apology_message(),
        "empty": render.results_message(
            SearchResult(HOSTILE, (), 0, 0, None, (TooManyConditions(),))
        ),
        "exhausted": render.results_message(SearchResult(HOSTILE, (), 12, 15, None, ())),
        "subscription error": digest_render.subscription_error_message(
            SubscribeProblem(Problem.NOT_A_TIME, word=HOSTILE[:60])
        ),
        "no papers for topic": digest_render.no_papers_for_topic_message(HOSTILE),
        "subscribed": digest_render.subscribed_message(
            "09:00 UTC, on weekdays", HOSTILE, 3, "today"
        ),
        "unsubscribed": digest_render.unsubscribed_message(True),
        "nothing to stop": digest_render.unsubscribed_message(False),
        "no subscription": digest_render.subscriptions_message(None, None),
        "listing": digest_render.subscriptions_message(
            "09:00 UTC, on weekdays", HOSTILE, source="env", next_post="today"
        ),
        "paused": digest_render.subscriptions_message(
            "09:00 UTC, on weekdays", None, paused_reason="not_in_channel"
        ),
        "DM subscription": digest_render.direct_message_subscription_message(),
    }


@pytest.mark.parametrize("name", sorted(_every_message()))
def test_every_notice_is_valid_and_has_a_readable_fallback(name):
    message = _every_message()[name]
    bk.validate(message)
    fallback = message.text
    assert len(fallback.split()) >= 3, fallback
    assert "*" not in fallback and ":warning:" not in fallback
    blob = fallback + repr(message.blocks)
    for ping in ("<!channel>", "<!here>", "<@U0VICTIM>"):
        assert ping not in blob
    assert "x" * 200 not in blob


def test_the_daily_post_of_every_seed_paper_is_valid(seed_corpus):
    for position, paper in enumerate(seed_corpus.papers, start=1):
        message = digest_render.digest_post(
            paper, date(2025, 3, 28), position=position, pool_size=76, topic=HOSTILE
        )
        bk.validate(message)
        assert message.text.startswith("Paper of the day, Friday 28 March 2025: ")
        assert "<!channel>" not in message.text + repr(message.blocks)


def test_a_retry_within_the_readers_minute_is_named_to_the_second():
    berlin = ZoneInfo("Europe/Berlin")
    following = datetime(2025, 3, 29, 8, 0, tzinfo=UTC)
    retry_at = datetime(2025, 3, 28, 8, 0, 20, tzinfo=UTC)

    def words(now: datetime) -> str:
        return digest_render.next_post_words(True, following, berlin, now=now, retry_at=retry_at)

    assert words(datetime(2025, 3, 28, 8, 0, 5, tzinfo=UTC)).startswith(
        "today's is late and will be retried at 09:00:20, then Saturday 29 March 2025"
    )
    assert "retried at 09:00, then" in words(datetime(2025, 3, 28, 7, 59, 50, tzinfo=UTC))
