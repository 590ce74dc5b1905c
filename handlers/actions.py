"""Button clicks on paper cards and result lists.

On a private (ephemeral) result list, **Abstract**, **Next**, **Previous** and **Back to
results** replace the list in place. On a message everyone sees (a thread reply, a shared
paper, the daily post), no click may rewrite it for everyone, so the clicker gets a private
answer instead. A click on an ephemeral message carries no ``message`` (Slack does not send
it), so everything a click needs travels in the button's value.

**Save** changes the clicker's reading list, answers on the card (or privately), and then
redraws their App Home so the tab is never stale. Buttons in the App Home come from a view:
there is no ``response_url`` there, so they answer by publishing the tab again or opening a
modal.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from slack_bolt import App, BoltContext, Respond
from slack_sdk import WebClient

from bot.answers import Answers
from bot.buttons import (
    PageCursor,
    PaperButton,
    RelatedTarget,
    decode_home_page,
    decode_home_paper,
)
from bot.render import foryou as render_foryou
from bot.render import home as render_home
from bot.render import papers as render
from bot.render.message import Message
from bot.slack.conversations import click_tag, post_reply, publish_home
from bot.slack.work import Admit
from handlers.errors import answering_failures, logging_failures
from handlers.overload import acknowledge_click
from handlers.viewer import viewer_of


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
    body: dict[str, Any],
    action: dict[str, Any],
    respond: Respond,
    logger: logging.Logger,
) -> None:
    tell = _in_place_reply(respond, body)
    with answering_failures(tell, logger):
        public = not _is_ephemeral(body)
        button = PaperButton.decode(action["value"])
        tell(answers.abstract(button, viewer_of(body), public=public))


def show_page(
    answers: Answers,
    body: dict[str, Any],
    action: dict[str, Any],
    respond: Respond,
    logger: logging.Logger,
) -> None:
    tell = _in_place_reply(respond, body)
    with answering_failures(tell, logger):
        tell(answers.page(PageCursor.decode(action["value"]), viewer_of(body)))


def more_like_this(
    answers: Answers,
    body: dict[str, Any],
    action: dict[str, Any],
    respond: Respond,
    logger: logging.Logger,
) -> None:
    tell = _private_reply(respond)
    with answering_failures(tell, logger):
        tell(answers.more_like_this(action["value"], viewer_of(body)))


def share(
    answers: Answers,
    body: dict[str, Any],
    action: dict[str, Any],
    client: WebClient,
    context: BoltContext,
    respond: Respond,
    logger: logging.Logger,
) -> None:
    """**Share**: the paper, posted for everyone; a post that failed but may have landed is
    looked for first (by its message metadata: this click's post, not another bot post), so
    no apology invites a second Share."""
    tell = _private_reply(respond)
    channel = _channel_id(body)
    with answering_failures(tell, logger, channel_id=channel):
        message = answers.share(action["value"], body["user"]["id"])
        if message is None:
            tell(render.not_found_message(action["value"]))
            return
        _post_for_click(client, context, body, action, channel, None, message)


def _post_for_click(
    client: WebClient,
    context: BoltContext,
    body: dict[str, Any],
    action: dict[str, Any],
    channel: str | None,
    thread_ts: str | None,
    message: Message,
) -> None:
    """Post what a click asked for, tagged with that click, so a post that timed out is
    looked for as this click's own and not mistaken for another bot post."""
    post_reply(
        client,
        channel,
        thread_ts,
        message,
        asked_ts=action["action_ts"],
        bot_user_id=context.bot_user_id,
        tag=click_tag(action["value"], body["user"]["id"], action["action_ts"]),
    )


def register(app: App, answers: Answers, admit: Admit) -> None:
    acknowledge = partial(acknowledge_click, admit)
    app.action(render.ACTION_ABSTRACT)(ack=acknowledge, lazy=[partial(show_abstract, answers)])
    for action_id in render.PAGE_ACTIONS:
        app.action(action_id)(ack=acknowledge, lazy=[partial(show_page, answers)])
    app.action(render.ACTION_MORE_LIKE_THIS)(
        ack=acknowledge, lazy=[partial(more_like_this, answers)]
    )
    app.action(render.ACTION_SHARE)(ack=acknowledge, lazy=[partial(share, answers)])
    app.action(render.ACTION_SAVE)(ack=acknowledge, lazy=[partial(set_saved, answers, saved=True)])
    app.action(render.ACTION_UNSAVE)(
        ack=acknowledge, lazy=[partial(set_saved, answers, saved=False)]
    )
    app.action(render.ACTION_POST_RELATED)(ack=acknowledge, lazy=[partial(post_related, answers)])
    app.action(render_home.ACTION_ABSTRACT)(ack=acknowledge, lazy=[partial(home_abstract, answers)])
    app.action(render_home.ACTION_REMOVE)(ack=acknowledge, lazy=[partial(home_remove, answers)])
    app.action(render_home.ACTION_PAGE)(ack=acknowledge, lazy=[partial(home_page, answers)])
    for action_id, dismissed in (
        (render_foryou.ACTION_DISMISS, True),
        (render_foryou.ACTION_UNDISMISS, False),
    ):
        lazy = [partial(set_dismissed, answers, dismissed=dismissed)]
        app.action(action_id)(ack=acknowledge, lazy=lazy)
    for action_id, dismissed in (
        (render_foryou.ACTION_HOME_DISMISS, True),
        (render_foryou.ACTION_HOME_UNDISMISS, False),
    ):
        lazy = [partial(home_dismiss, answers, dismissed=dismissed)]
        app.action(action_id)(ack=acknowledge, lazy=lazy)
    app.action(render_foryou.ACTION_HOME_SAVE)(ack=acknowledge, lazy=[partial(home_save, answers)])
    app.action(render_foryou.ACTION_HOME_PAGE)(
        ack=acknowledge, lazy=[partial(home_for_you_page, answers)]
    )


def set_saved(
    answers: Answers,
    body: dict[str, Any],
    action: dict[str, Any],
    client: WebClient,
    respond: Respond,
    logger: logging.Logger,
    *,
    saved: bool,
) -> None:
    """**Save**, **Saved ✓**, **Undo**, **Save again**: a button that names its private page
    redraws it in place; one on a card everyone sees answers with a new private notice."""
    button = PaperButton.decode(action["value"])
    on_its_page = button is not None and button.on_private_page
    tell = _in_place_reply(respond, body) if on_its_page else _private_reply(respond)
    viewer = viewer_of(body)
    with answering_failures(tell, logger):
        tell(answers.set_saved(button, viewer, saved=saved))
    with logging_failures(logger):
        publish_home(client, answers, viewer)


def post_related(
    answers: Answers,
    body: dict[str, Any],
    action: dict[str, Any],
    client: WebClient,
    context: BoltContext,
    respond: Respond,
    logger: logging.Logger,
) -> None:
    """**Post in thread** under the shortcut's private list: the same papers, publicly."""
    tell = _private_reply(respond)
    with answering_failures(tell, logger):
        posted = answers.post_related(
            RelatedTarget.decode(action["value"]), viewer_of(body).team_id
        )
        if posted is None:
            tell(render.expired_message())
            return
        channel, thread_ts, message = posted
        _post_for_click(client, context, body, action, channel, thread_ts, message)
        tell(render.posted_related_message())


def home_abstract(
    answers: Answers,
    body: dict[str, Any],
    action: dict[str, Any],
    client: WebClient,
    logger: logging.Logger,
) -> None:
    with logging_failures(logger):
        client.views_open(
            trigger_id=body["trigger_id"], view=answers.abstract_view(action["value"])
        )


def home_remove(
    answers: Answers,
    body: dict[str, Any],
    action: dict[str, Any],
    client: WebClient,
    logger: logging.Logger,
) -> None:
    paper_id, offset = decode_home_paper(action["value"])
    viewer = viewer_of(body)
    with logging_failures(logger):
        answers.remove_saved(viewer, paper_id)
        publish_home(client, answers, viewer, offset=offset)


def home_page(
    answers: Answers,
    body: dict[str, Any],
    action: dict[str, Any],
    client: WebClient,
    logger: logging.Logger,
) -> None:
    offset = decode_home_page(action["value"])
    with logging_failures(logger):
        publish_home(client, answers, viewer_of(body), offset=offset)


def set_dismissed(
    answers: Answers,
    body: dict[str, Any],
    action: dict[str, Any],
    client: WebClient,
    respond: Respond,
    logger: logging.Logger,
    *,
    dismissed: bool,
) -> None:
    """**Not relevant** on a For you card, or its **Undo**: the private page is redrawn in
    place, then the App Home (whose suggestions changed too)."""
    tell = _in_place_reply(respond, body)
    viewer = viewer_of(body)
    with answering_failures(tell, logger):
        button = PaperButton.decode(action["value"])
        tell(answers.set_dismissed(button, viewer, dismissed=dismissed))
    with logging_failures(logger):
        publish_home(client, answers, viewer)


def home_dismiss(
    answers: Answers,
    body: dict[str, Any],
    action: dict[str, Any],
    client: WebClient,
    logger: logging.Logger,
    *,
    dismissed: bool,
) -> None:
    """**Not relevant** in the App Home (the tab offers **Undo**) or that **Undo**."""
    paper_id, offset = decode_home_paper(action["value"])
    viewer = viewer_of(body)
    with logging_failures(logger):
        answers.dismiss_in_home(viewer, paper_id, dismissed=dismissed)
        hidden = paper_id if dismissed else None
        publish_home(client, answers, viewer, for_you=offset, hidden=hidden)


def home_save(
    answers: Answers,
    body: dict[str, Any],
    action: dict[str, Any],
    client: WebClient,
    logger: logging.Logger,
) -> None:
    """**Save** on a For you card in the App Home: the paper moves to the reading list."""
    paper_id, offset = decode_home_paper(action["value"])
    viewer = viewer_of(body)
    with logging_failures(logger):
        answers.save_in_home(viewer, paper_id)
        publish_home(client, answers, viewer, for_you=offset)


def home_for_you_page(
    answers: Answers,
    body: dict[str, Any],
    action: dict[str, Any],
    client: WebClient,
    logger: logging.Logger,
) -> None:
    offset = decode_home_page(action["value"])
    with logging_failures(logger):
        publish_home(client, answers, viewer_of(body), for_you=offset)
