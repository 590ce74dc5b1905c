"""Listeners called directly, the way ``functools.partial`` leaves them for Bolt.

The end-to-end tests drive them through the real app; these show what a listener does with
what ``answers`` returns, without a server.
"""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

from bot.commands import Intent, Request
from bot.render.message import Message
from handlers import actions, commands, events

LOGGER = logging.getLogger("test")
ANSWER = Message("an answer")


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
    command = {"text": "graph sparsification", "channel_id": "C1"}
    commands.paper_command(answers, ack, command, respond, LOGGER)
    assert len(ack) == 1
    assert answers.calls == [("command", (Request(Intent.SEARCH, "graph sparsification"), "C1"))]
    assert respond == [{"response_type": "ephemeral", "text": "an answer", "blocks": []}]


def test_a_failing_answer_becomes_an_apology() -> None:
    respond = Calls()
    commands.paper_command(
        Recorded(fails=True), Calls(), {"text": "x", "channel_id": "C1"}, respond, LOGGER
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
        {"channel": "C1", "thread_ts": "1.0", "text": "an answer", "blocks": []}
    ]


def test_a_page_click_on_a_private_list_replaces_it() -> None:
    answers, respond = Recorded(), Calls()
    body = {"container": {"is_ephemeral": True}}
    actions.show_page(answers, Calls(), body, {"value": "cursor"}, respond, LOGGER)
    assert answers.calls == [("page", ("cursor",))]
    assert respond == [{"replace_original": True, "text": "an answer", "blocks": []}]
