"""``/paper``: ack at once, then answer privately through the command's ``response_url``."""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from slack_bolt import Ack, App, Respond
from slack_sdk import WebClient

from bot.answers import Answers, Viewer
from bot.answers.typed import Intent, parse_command
from bot.render import export as render_export
from bot.render import papers as render
from bot.render.message import Message
from bot.slack.conversations import Refused, publish_home, send_file_to_user
from bot.slack.work import Admit
from handlers.errors import answering_failures, logging_failures
from handlers.viewer import viewer_of

COMMAND = "/paper"


def acknowledge_command(admit: Admit, ack: Ack) -> None:
    """Ack on the request's own thread; when the answer could not come in time, the ack
    itself tells the person to try again (the pool then never runs ``paper_command``)."""
    if admit(COMMAND, None):
        ack()
    else:
        ack(**render.busy_message().as_kwargs())


def paper_command(
    answers: Answers,
    command: dict[str, Any],
    client: WebClient,
    respond: Respond,
    logger: logging.Logger,
) -> None:
    def tell(message: Message) -> None:
        respond(response_type="ephemeral", **message.as_kwargs())

    with answering_failures(tell, logger):
        request = parse_command(command.get("text") or "")
        viewer = viewer_of(command)
        if request.intent is Intent.SAVED_EXPORT:
            tell(export_reading_list(answers, client, viewer))
        else:
            tell(answers.command(request, command["channel_id"], viewer))
        if request.intent is Intent.FORGET_ME:
            with logging_failures(logger):  # the tab showed what is now deleted
                publish_home(client, answers, viewer)


def export_reading_list(answers: Answers, client: WebClient, viewer: Viewer) -> Message:
    """Send the ``.bib`` file by direct message (it may be far too long for a message) and
    say so where the command was typed, or what keeps Slack from taking it."""
    export = answers.export(viewer)
    if export is None:
        return render_export.export_empty_message()
    try:
        send_file_to_user(client, viewer.user_id, export)
    except Refused as refused:
        return render_export.export_refused_message(refused.code)
    return render_export.export_sent_message(export.count)


def register(app: App, answers: Answers, admit: Admit) -> None:
    app.command(COMMAND)(
        ack=partial(acknowledge_command, admit), lazy=[partial(paper_command, answers)]
    )
