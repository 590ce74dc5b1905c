"""Which link_shared entries and which events the bot answers, over HTTP against the fake
Slack: a malformed link leaves the links beside it previewed, and an event meant for another
Slack app is acked and not answered, once the bot has learned its own app id (in the
background: every event is answered until then)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from faulty_slack import slack_error
from slack_harness import LiveBot
from slack_sdk.errors import SlackApiError

from bot.slack import payloads
from bot.slack.own_app import RETRY_SECONDS, OwnApp

PAPER_LINK = "https://openreview.net/forum?id=7ANDviElAo"
OTHER_APP = "A0SOMEONEELSE"
LEARNING_SECONDS = 5.0
"""The bound on waiting for the bot to use the app id the fake Slack gave it."""


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


def _until_the_bot_knows_its_app_id(bot: LiveBot) -> int:
    """The first event starts the lookup in the background and is answered, as every event is
    until the id is known; once the fake Slack has recorded ``bots.info``, events for another
    app are sent, one after another, until one goes unanswered. The previews made so far."""
    _share(bot, [_link(PAPER_LINK)])
    bot.recorder.wait_for("bots.info")
    deadline = time.monotonic() + LEARNING_SECONDS
    while True:
        before = len(_previewed(bot))
        _share(bot, [_link(PAPER_LINK)], api_app_id=OTHER_APP)
        if len(_previewed(bot)) == before:
            return before
        assert time.monotonic() < deadline, "the bot never used the app id bots.info gave"


class _LookupFailed(logging.Handler):
    """Set when ``bot.slack.own_app`` says it could not learn the app id."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.set()


def test_a_link_without_a_url_does_not_spoil_the_preview_of_the_link_beside_it(bot):
    _share(bot, [{"domain": "openreview.net"}, "not an object", _link(PAPER_LINK)])
    assert _previewed(bot) == [PAPER_LINK]


def test_an_event_delivered_to_another_app_is_acked_and_not_answered(bot):
    learned = _until_the_bot_knows_its_app_id(bot)
    _share(bot, [_link(PAPER_LINK)], api_app_id=OTHER_APP)
    assert len(_previewed(bot)) == learned
    _share(bot, [_link(PAPER_LINK)])
    assert _previewed(bot)[learned:] == [PAPER_LINK]
    assert len(bot.recorder.calls_to("bots.info")) == 1  # learned once


def test_an_event_another_app_caused_is_not_answered(bot):
    learned = _until_the_bot_knows_its_app_id(bot)
    event = payloads.link_shared(bot.workspace, [PAPER_LINK], "1700000500.000100")
    event["app_id"] = OTHER_APP
    assert bot.event(event).status == 200
    bot.drain()
    assert len(_previewed(bot)) == learned


def test_when_the_app_id_cannot_be_learned_every_app_is_answered_as_before(bot):
    failed = _LookupFailed()
    logging.getLogger("bot.slack.own_app").addHandler(failed)
    try:
        bot.recorder.fail_next("bots.info", slack_error("missing_scope"))
        _share(bot, [_link(PAPER_LINK)], api_app_id=OTHER_APP)
        assert failed.seen.wait(LEARNING_SECONDS)
        _share(bot, [_link(PAPER_LINK)], api_app_id=OTHER_APP)
        _share(bot, [_link(PAPER_LINK)], api_app_id=OTHER_APP)
    finally:
        logging.getLogger("bot.slack.own_app").removeHandler(failed)
    assert _previewed(bot) == [PAPER_LINK] * 3
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


def _at_once(lookup: Callable[[], None]) -> None:
    lookup()


def test_the_app_id_is_learned_in_the_background_one_lookup_at_a_time():
    slack = _Slack({"ok": True, "bot": {"app_id": "A0MINE"}})
    started: list[Callable[[], None]] = []
    own = OwnApp(slack, clock=lambda: 0.0, background=started.append)  # type: ignore[arg-type]
    assert own.app_id("B0BOT") is None and own.app_id("B0BOT") is None
    assert slack.asked == 0 and len(started) == 1  # no Slack call on the caller's thread
    started[0]()
    assert own.app_id("B0BOT") == "A0MINE"
    assert slack.asked == 1 and len(started) == 1


def test_a_failed_lookup_is_asked_again_only_after_a_while_and_a_missing_scope_never():
    now = [0.0]
    timeout = _Slack(TimeoutError("timed out"), {"ok": True, "bot": {"app_id": "A0MINE"}})
    own = OwnApp(timeout, clock=lambda: now[0], background=_at_once)  # type: ignore[arg-type]
    assert own.app_id("B0BOT") is None
    assert own.app_id("B0BOT") is None and timeout.asked == 1
    now[0] += RETRY_SECONDS
    assert own.app_id("B0BOT") == "A0MINE"
    assert own.app_id("B0BOT") == "A0MINE" and timeout.asked == 2

    refused = SlackApiError("missing_scope", {"ok": False, "error": "missing_scope"})
    unscoped = _Slack(refused)
    own = OwnApp(unscoped, clock=lambda: now[0], background=_at_once)  # type: ignore[arg-type]
    assert own.app_id("B0BOT") is None
    now[0] += 100 * RETRY_SECONDS
    assert own.app_id("B0BOT") is None and unscoped.asked == 1


def test_a_slack_that_hangs_on_the_app_id_does_not_hold_the_first_ack(bot):
    """The lookup runs in the background: while ``bots.info`` answers nothing (a hang, as
    Slack's 35-second ones) the first event is acked all the same."""
    with bot.recorder.holding("bots.info"):
        event = payloads.link_shared(bot.workspace, [PAPER_LINK], "1700000500.000100")
        assert bot.event(event).status == 200
    bot.drain()
    assert _previewed(bot) == [PAPER_LINK]
