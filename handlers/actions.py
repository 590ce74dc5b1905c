"""Button clicks on paper cards and result lists.

On a private (ephemeral) result list, **Abstract**, **Next**, **Previous** and **Back to
results** replace the list in place. On a message everyone sees (a thread reply, a shared
paper, the daily post), no click may rewrite it for everyone, so the clicker gets a private
answer instead. A click on an ephemeral message carries no ``message`` (Slack does not send
it), so everything a click needs travels in the button's value.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from slack_bolt import Ack, App, Respond
from slack_sdk import WebClient

from bot.answers import Answers
from bot.render import papers as render
from bot.render.message import Message
from handlers.errors import answering_failures


def _is_ephemeral(body: dict[str, Any]) -> bool:
    return bool((body.get("container") or {}).get("is_ephemeral"))


def _channel_id(body: dict[str, Any]) -> str | None:
    return (body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id")


def _private_reply(respond: Respond) -> Any:
    def tell(message: Message) -> None:
        respond(response_type="ephemeral", replace_original=False, **message.as_kwargs())

    return tell


def _in_place_reply(respond: Respond, body: dict[str, Any]) -> Any:
    """Replace the clicked message when it is the clicker's own private list."""
    if not _is_ephemeral(body):
        return _private_reply(respond)

    def tell(message: Message) -> None:
        respond(replace_original=True, **message.as_kwargs())

    return tell


def show_abstract(
    answers: Answers,
    ack: Ack,
    body: dict[str, Any],
    action: dict[str, Any],
    respond: Respond,
    logger: logging.Logger,
) -> None:
    ack()
    tell = _in_place_reply(respond, body)
    with answering_failures(tell, logger):
        tell(answers.abstract(action["value"], public=not _is_ephemeral(body)))


def show_page(
    answers: Answers,
    ack: Ack,
    body: dict[str, Any],
    action: dict[str, Any],
    respond: Respond,
    logger: logging.Logger,
) -> None:
    ack()
    tell = _in_place_reply(respond, body)
    with answering_failures(tell, logger):
        tell(answers.page(action["value"]))


def more_like_this(
    answers: Answers, ack: Ack, action: dict[str, Any], respond: Respond, logger: logging.Logger
) -> None:
    ack()
    tell = _private_reply(respond)
    with answering_failures(tell, logger):
        tell(answers.more_like_this(action["value"]))


def share(
    answers: Answers,
    ack: Ack,
    body: dict[str, Any],
    action: dict[str, Any],
    client: WebClient,
    respond: Respond,
    logger: logging.Logger,
) -> None:
    ack()
    tell = _private_reply(respond)
    channel = _channel_id(body)
    with answering_failures(tell, logger, channel_id=channel):
        message = answers.share(action["value"], body["user"]["id"])
        if message is None:
            tell(render.not_found_message(action["value"]))
            return
        client.chat_postMessage(channel=channel, **message.as_kwargs())


def register(app: App, answers: Answers) -> None:
    app.action(render.ACTION_ABSTRACT)(partial(show_abstract, answers))
    for action_id in render.PAGE_ACTIONS:
        app.action(action_id)(partial(show_page, answers))
    app.action(render.ACTION_MORE_LIKE_THIS)(partial(more_like_this, answers))
    app.action(render.ACTION_SHARE)(partial(share, answers))
