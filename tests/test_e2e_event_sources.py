"""Which link_shared entries and which events the bot answers, over HTTP against the fake
Slack: a malformed link leaves the links beside it previewed, and an event meant for another
Slack app is acked and not answered, once the bot has learned its own app id."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from faulty_slack import slack_error
from slack_harness import LiveBot
from slack_sdk.errors import SlackApiError

from bot.slack import payloads
from bot.slack.own_app import RETRY_SECONDS, OwnApp

PAPER_LINK = "https://openreview.net/forum?id=7ANDviElAo"
OTHER_APP = "A0SOMEONEELSE"


def _share(bot: LiveBot, links: list[dict[str, Any]], *, api_app_id: str | None = None) -> None:
    """A ``link_shared`` event for ``links`` as given, delivered to ``api_app_id``."""
    event = payloads.link_shared(bot.workspace, [], "1700000500.000100")
    event["links"] = links
    workspace = replace(bot.workspace, api_app_id=api_app_id or bot.workspace.api_app_id)
    assert (
        bot.signed_post(*payloads.json_body(payloads.event_callback(workspace, event))).status
        == 200
    )
    bot.drain()


def _link(url: str) -> dict[str, str]:
    return {"domain": "openreview.net", "url": url}


def _previewed(bot: LiveBot) -> list[str]:
    return [url for call in bot.recorder.calls_to("chat.unfurl") for url in call.args["unfurls"]]


def test_a_link_without_a_url_does_not_spoil_the_preview_of_the_link_beside_it(bot):
    _share(bot, [{"domain": "openreview.net"}, "not an object", _link(PAPER_LINK)])
    assert _previewed(bot) == [PAPER_LINK]


def test_an_event_delivered_to_another_app_is_acked_and_not_answered(bot):
    _share(bot, [_link(PAPER_LINK)], api_app_id=OTHER_APP)
    assert _previewed(bot) == []
    _share(bot, [_link(PAPER_LINK)])
    assert _previewed(bot) == [PAPER_LINK]
    assert len(bot.recorder.calls_to("bots.info")) == 1  # learned once


def test_an_event_another_app_caused_is_not_answered(bot):
    event = payloads.link_shared(bot.workspace, [PAPER_LINK], "1700000500.000100")
    event["app_id"] = OTHER_APP
    assert bot.event(event).status == 200
    bot.drain()
    assert _previewed(bot) == []


def test_when_the_app_id_cannot_be_learned_every_app_is_answered_as_before(bot):
    bot.recorder.fail_next("bots.info", slack_error("missing_scope"))
    _share(bot, [_link(PAPER_LINK)], api_app_id=OTHER_APP)
    _share(bot, [_link(PAPER_LINK)], api_app_id=OTHER_APP)
    assert _previewed(bot) == [PAPER_LINK, PAPER_LINK]
    assert len(bot.recorder.calls_to("bots.info")) == 1  # not asked again on every event


class _Slack:
    """A ``WebClient`` stand-in whose ``bots.info`` answers from a script."""

    def __init__(self, *answers: Exception | dict[str, Any]) -> None:
        self.answers = list(answers)
        self.asked = 0

    def bots_info(self, bot: str) -> dict[str, Any]:
        self.asked += 1
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_a_failed_lookup_is_asked_again_only_after_a_while_and_a_missing_scope_never():
    now = [0.0]
    timeout = _Slack(TimeoutError("timed out"), {"ok": True, "bot": {"app_id": "A0MINE"}})
    own = OwnApp(timeout, clock=lambda: now[0])  # type: ignore[arg-type]
    assert own.app_id("B0BOT") is None
    assert own.app_id("B0BOT") is None and timeout.asked == 1
    now[0] += RETRY_SECONDS
    assert own.app_id("B0BOT") == "A0MINE"
    assert own.app_id("B0BOT") == "A0MINE" and timeout.asked == 2

    refused = SlackApiError("missing_scope", {"ok": False, "error": "missing_scope"})
    unscoped = _Slack(refused)
    own = OwnApp(unscoped, clock=lambda: now[0])  # type: ignore[arg-type]
    assert own.app_id("B0BOT") is None
    now[0] += 100 * RETRY_SECONDS
    assert own.app_id("B0BOT") is None and unscoped.asked == 1


def test_a_slack_that_hangs_on_the_app_id_does_not_hold_the_first_ack(bot):
    """The lookup has a short timeout of its own: a ``bots.info`` answered 5 s late (a hang,
    as Slack's 35-second ones) leaves the first event acked well within Slack's 3 s."""
    bot.recorder.slow_down("bots.info", 5.0)
    event = payloads.link_shared(bot.workspace, [PAPER_LINK], "1700000500.000100")
    reply = bot.event(event)
    assert reply.status == 200
    assert reply.seconds < 3
    bot.drain()
    assert _previewed(bot) == [PAPER_LINK]
