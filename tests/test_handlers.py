"""Listeners called directly, the way ``functools.partial`` leaves them for Bolt.

The end-to-end tests drive them through the real app; these show what a listener does with
what ``answers`` returns, without a server.
"""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any
from urllib.error import URLError

import pytest

from bot.answers import Viewer
from bot.answers.typed import Intent, Request
from bot.buttons import PageCursor, PageKind, PaperButton
from bot.render import papers as render
from bot.render.message import Message
from handlers import actions, commands, events

LOGGER = logging.getLogger("test")
ANSWER = Message("an answer")
NO_PREVIEWS = {"unfurl_links": False, "unfurl_media": False}


class Recorded:
    """A stand-in for ``Answers`` that records each question and returns ``ANSWER``."""

    def __init__(self, *, fails: bool = False) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.fails = fails

    def __getattr__(self, name: str) -> Any:
        def answer(*args: Any, **kwargs: Any) -> Any:
            self.calls.append((name, args))
            if self.fails:
                raise RuntimeError("broken")
            return True if name == "first_delivery" else ANSWER

        return answer


class Calls(list):
    def __call__(self, *args: Any, **kwargs: Any) -> None:
        self.append(kwargs)


def test_the_command_acks_then_answers_privately() -> None:
    answers, ack, respond = Recorded(), Calls(), Calls()
    commands.acknowledge_command(lambda kind, turned_away: True, ack)
    assert ack == [{}]
    command = {"text": "graph sparsification", "channel_id": "C1", "team_id": "T1", "user_id": "U1"}
    commands.paper_command(answers, command, None, respond, LOGGER)
    request = Request(Intent.SEARCH, "graph sparsification")
    assert answers.calls == [("command", (request, "C1", Viewer("T1", "U1")))]
    assert respond == [
        {"response_type": "ephemeral", "text": "an answer", "blocks": [], **NO_PREVIEWS}
    ]


def test_a_command_the_pool_turns_away_is_told_so_in_the_ack() -> None:
    ack, asked = Calls(), []
    commands.acknowledge_command(lambda kind, turned_away: asked.append(kind) or False, ack)
    assert asked == ["/paper"]
    assert "too many requests" in ack[0]["text"]


def test_a_failing_answer_becomes_an_apology() -> None:
    respond = Calls()
    commands.paper_command(
        Recorded(fails=True), {"text": "x", "channel_id": "C1"}, None, respond, LOGGER
    )
    assert len(respond) == 1 and "went wrong" in respond[0]["text"]


def test_a_bot_mention_is_not_answered() -> None:
    answers, client = Recorded(), SimpleNamespace(chat_postMessage=Calls())
    event = {"channel": "C1", "ts": "1.0", "text": "<@UBOT> hi", "bot_id": "B1", "user": "U2"}
    context = SimpleNamespace(bot_user_id="UBOT")
    events.app_mention(answers, event, {}, client, context, LOGGER)
    assert answers.calls == [] and client.chat_postMessage == []


def test_a_mention_is_answered_in_its_thread() -> None:
    answers, client = Recorded(), SimpleNamespace(chat_postMessage=Calls())
    event = {"channel": "C1", "ts": "1.0", "text": "<@UBOT> graphs", "user": "U2"}
    events.app_mention(answers, event, {}, client, SimpleNamespace(bot_user_id="UBOT"), LOGGER)
    assert [name for name, _ in answers.calls] == ["first_delivery", "mention"]
    assert client.chat_postMessage == [
        {"channel": "C1", "thread_ts": "1.0", "text": "an answer", "blocks": [], **NO_PREVIEWS}
    ]


class SlowSlack:
    """A Web API whose ``chat.postMessage`` posts but fails with ``error``; the thread then
    holds the bot's answer."""

    def __init__(self, error: OSError) -> None:
        self.error = error
        self.posts: list[dict[str, Any]] = []

    def chat_postMessage(self, **fields: Any) -> None:
        self.posts.append(fields)
        raise self.error

    def conversations_replies(self, **_query: Any) -> dict[str, Any]:
        return {"messages": [{"user": "UBOT", "ts": "2.0", "text": "an answer"}]}


@pytest.mark.parametrize(
    "error",
    [TimeoutError("read timed out"), URLError(TimeoutError("connect timed out"))],
    ids=["answer", "connect"],
)
def test_a_mention_whose_post_times_out_but_landed_gets_no_apology(error: OSError) -> None:
    client = SlowSlack(error)
    event = {"channel": "C1", "ts": "1.0", "text": "<@UBOT> graphs", "user": "U2"}
    events.app_mention(Recorded(), event, {}, client, SimpleNamespace(bot_user_id="UBOT"), LOGGER)
    assert [post["text"] for post in client.posts] == ["an answer"]


def test_a_page_click_on_a_private_list_replaces_it() -> None:
    answers, respond = Recorded(), Calls()
    body = {"container": {"is_ephemeral": True}, "user": {"id": "U1", "team_id": "T1"}}
    actions.show_page(answers, body, {"value": "q:5:abc"}, respond, LOGGER)
    cursor = PageCursor(PageKind.QUERY, "abc", 5)
    assert answers.calls == [("page", (cursor, Viewer("T1", "U1")))]
    assert respond == [{"replace_original": True, "text": "an answer", "blocks": [], **NO_PREVIEWS}]


def test_a_link_typed_in_the_composer_is_unfurled_by_its_unfurl_id() -> None:
    answers, client = Recorded(), SimpleNamespace(chat_unfurl=Calls())
    event = {
        "channel": "COMPOSER",
        "message_ts": "U1-abc",
        "unfurl_id": "COMPOSER.U1-abc.123",
        "source": "composer",
        "links": [{"domain": "openreview.net", "url": "https://openreview.net/forum?id=X"}],
    }
    events.unfurl_links(answers, event, {"team_id": "T1"}, client, LOGGER)
    assert answers.calls == [("unfurls", (["https://openreview.net/forum?id=X"],))]
    assert client.chat_unfurl == [
        {"unfurl_id": "COMPOSER.U1-abc.123", "source": "composer", "unfurls": ANSWER}
    ]


def test_save_on_a_public_card_answers_with_a_new_private_message() -> None:
    answers, respond = Recorded(), Calls()
    client = SimpleNamespace(views_publish=Calls())
    body = {"container": {"is_ephemeral": False}, "user": {"id": "U1", "team_id": "T1"}}
    save = actions.CARD_MARKS[render.ACTION_SAVE]
    actions.mark_card(answers, body, {"value": "P1"}, client, respond, LOGGER, mark=save)
    assert answers.calls[0] == ("set_saved", (PaperButton("P1"), Viewer("T1", "U1")))
    assert respond[0]["replace_original"] is False
