"""``/paper``: ack at once, then answer privately through the command's ``response_url``."""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from slack_bolt import Ack, App, Respond

from bot.answers import Answers
from bot.commands import parse_command
from bot.render.message import Message
from handlers.errors import answering_failures

COMMAND = "/paper"


def paper_command(
    answers: Answers,
    ack: Ack,
    command: dict[str, Any],
    respond: Respond,
    logger: logging.Logger,
) -> None:
    ack()

    def tell(message: Message) -> None:
        respond(response_type="ephemeral", **message.as_kwargs())

    with answering_failures(tell, logger):
        request = parse_command(command.get("text") or "")
        tell(answers.command(request, command["channel_id"]))


def register(app: App, answers: Answers) -> None:
    app.command(COMMAND)(partial(paper_command, answers))
