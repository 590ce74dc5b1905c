"""``/paper``: ack at once, then answer privately through the command's ``response_url``."""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import Any

from slack_bolt import Ack, App, BoltContext, Respond
from slack_sdk import WebClient

from bot.answers import Answers, Viewer
from bot.answers.typed import Intent, parse_command
from bot.render import papers as render
from bot.render.message import Message
from bot.slack.conversations import send_file_to_user
from handlers.errors import answering_failures
from handlers.viewer import viewer_of

COMMAND = "/paper"
OVERLOADED = "paperbot_overloaded"
"""Context key the ack sets when it turned the command away; Bolt copies the context the ack
saw into the lazy listener, so the two agree on it."""


def acknowledge_command(busy: Callable[[], bool], ack: Ack, context: BoltContext) -> None:
    """Ack on the request's own thread; when every worker is taken and the queue is full,
    the ack itself tells the person to try again, rather than leaving them to time out."""
    if busy():
        context[OVERLOADED] = True
        ack(**render.busy_message().as_kwargs())
        return
    ack()


def paper_command(
    answers: Answers,
    command: dict[str, Any],
    client: WebClient,
    context: BoltContext,
    respond: Respond,
    logger: logging.Logger,
) -> None:
    if context.get(OVERLOADED):
        logger.warning("turned /paper away: every worker is busy and the queue is full")
        return

    def tell(message: Message) -> None:
        respond(response_type="ephemeral", **message.as_kwargs())

    with answering_failures(tell, logger):
        request = parse_command(command.get("text") or "")
        viewer = viewer_of(command)
        if request.intent is Intent.SAVED_EXPORT:
            tell(export_reading_list(answers, client, viewer))
        else:
            tell(answers.command(request, command["channel_id"], viewer))


def export_reading_list(answers: Answers, client: WebClient, viewer: Viewer) -> Message:
    """Send the ``.bib`` file by direct message (it may be far too long for a message) and
    say so where the command was typed."""
    export = answers.export(viewer)
    if export is None:
        return render.export_empty_message()
    send_file_to_user(client, viewer.user_id, export)
    return render.export_sent_message(export.count)


def register(app: App, answers: Answers, busy: Callable[[], bool]) -> None:
    app.command(COMMAND)(
        ack=partial(acknowledge_command, busy), lazy=[partial(paper_command, answers)]
    )
