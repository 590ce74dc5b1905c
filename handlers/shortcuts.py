"""The message shortcut "Find related papers": private related papers for any message.

It answers through the shortcut's own ``response_url``, which reaches the person even in a
channel the bot is not in; **Post in thread** is offered only where the bot may post.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from slack_bolt import App, Respond
from slack_sdk import WebClient

from bot.answers import Answers
from bot.answers.typed import message_text
from bot.render.message import Message
from bot.slack.conversations import bot_can_post
from bot.slack.work import Admit
from handlers.errors import answering_failures
from handlers.overload import acknowledge_shortcut
from handlers.viewer import viewer_of

FIND_RELATED = "find_related_papers"


def find_related_papers(
    answers: Answers,
    shortcut: dict[str, Any],
    client: WebClient,
    respond: Respond,
    logger: logging.Logger,
) -> None:

    def tell(message: Message) -> None:
        respond(response_type="ephemeral", **message.as_kwargs())

    with answering_failures(tell, logger):
        message = shortcut.get("message") or {}
        channel = (shortcut.get("channel") or {}).get("id") or ""
        thread_ts = message.get("thread_ts") or message.get("ts") or shortcut.get("message_ts")
        post_to = (channel, thread_ts) if thread_ts and bot_can_post(client, channel) else None
        tell(
            answers.related_to_message(message_text(message), viewer_of(shortcut), post_to=post_to)
        )


def register(app: App, answers: Answers, admit: Admit) -> None:
    app.message_shortcut(FIND_RELATED)(
        ack=partial(acknowledge_shortcut, admit), lazy=[partial(find_related_papers, answers)]
    )
