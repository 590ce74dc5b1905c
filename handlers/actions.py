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
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

from slack_bolt import App, BoltContext, Respond
from slack_sdk import WebClient

from bot.answers import Answers, HomeClick, Viewer
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
    posted = False
    with answering_failures(tell, logger, channel_id=channel):
        message = answers.share(action["value"], body["user"]["id"])
        if message is None:
            tell(render.not_found_message(action["value"]))
            return
        ts = _post_for_click(client, context, body, action, channel, None, message)
        posted = True
    if posted and channel is not None and _in_a_channel(channel):
        viewer = viewer_of(body)
        answers.channel_activity.shared(
            viewer.team_id, channel, viewer.user_id, action["value"], ts
        )


def _post_for_click(
    client: WebClient,
    context: BoltContext,
    body: dict[str, Any],
    action: dict[str, Any],
    channel: str | None,
    thread_ts: str | None,
    message: Message,
) -> str | None:
    """Post what a click asked for, tagged with that click, so a post that timed out is
    looked for as this click's own and not mistaken for another bot post; its ``ts``."""
    return post_reply(
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
    for action_id, mark in CARD_MARKS.items():
        app.action(action_id)(ack=acknowledge, lazy=[partial(mark_card, answers, mark=mark)])
    app.action(render.ACTION_POST_RELATED)(ack=acknowledge, lazy=[partial(post_related, answers)])
    app.action(render_home.ACTION_ABSTRACT)(ack=acknowledge, lazy=[partial(home_abstract, answers)])
    for action_id, for_you in (
        (render_home.ACTION_PAGE, False),
        (render_foryou.ACTION_HOME_PAGE, True),
    ):
        lazy = [partial(home_page, answers, for_you=for_you)]
        app.action(action_id)(ack=acknowledge, lazy=lazy)
    for action_id, click in (
        (render_home.ACTION_REMOVE, HomeClick.REMOVE),
        (render_foryou.ACTION_HOME_SAVE, HomeClick.SAVE),
        (render_foryou.ACTION_HOME_DISMISS, HomeClick.HIDE),
        (render_foryou.ACTION_HOME_UNDISMISS, HomeClick.UNHIDE),
    ):
        app.action(action_id)(ack=acknowledge, lazy=[partial(home_paper, answers, click=click)])


CardMark = Callable[[Answers, PaperButton | None, Viewer], Message]
"""What a click changes about one paper for the clicker, and the answer to show."""

CARD_MARKS: dict[str, CardMark] = {
    render.ACTION_SAVE: lambda answers, button, viewer: answers.set_saved(
        button, viewer, saved=True
    ),
    render.ACTION_UNSAVE: lambda answers, button, viewer: answers.set_saved(
        button, viewer, saved=False
    ),
    render_foryou.ACTION_DISMISS: lambda answers, button, viewer: answers.set_dismissed(
        button, viewer, dismissed=True
    ),
    render_foryou.ACTION_UNDISMISS: lambda answers, button, viewer: answers.set_dismissed(
        button, viewer, dismissed=False
    ),
}


def mark_card(
    answers: Answers,
    body: dict[str, Any],
    action: dict[str, Any],
    client: WebClient,
    respond: Respond,
    logger: logging.Logger,
    *,
    mark: CardMark,
) -> None:
    """**Save**, **Saved ✓**, **Undo**, **Save again**, and **Not relevant** and its **Undo**
    on a For you card: a button that names its private page redraws it in place; one on a
    card everyone sees answers with a new private notice. Then the App Home is drawn again,
    since its reading list or suggestions changed."""
    button = PaperButton.decode(action["value"])
    on_its_page = button is not None and button.on_private_page
    tell = _in_place_reply(respond, body) if on_its_page else _private_reply(respond)
    viewer = viewer_of(body)
    with answering_failures(tell, logger):
        tell(mark(answers, button, viewer))
    with logging_failures(logger):
        publish_home(client, answers, viewer)


def _in_a_channel(channel: str) -> bool:
    """A channel or a group conversation, not a direct message (``D…``): only a channel has
    a paper of the day its people's signals can shape."""
    return not channel.startswith("D")


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


def home_paper(
    answers: Answers,
    body: dict[str, Any],
    action: dict[str, Any],
    client: WebClient,
    logger: logging.Logger,
    *,
    click: HomeClick,
) -> None:
    """A paper's button in the App Home (**Remove**; **Save**, **Not relevant** and its
    **Undo** on a For you card): the change, then the tab again with both lists where they
    were."""
    for_you = click is not HomeClick.REMOVE
    paper_id, places = decode_home_paper(action["value"], for_you=for_you)
    if for_you:
        places = replace(places, hidden=paper_id if click is HomeClick.HIDE else None)
    viewer = viewer_of(body)
    with logging_failures(logger):
        answers.home_click(viewer, paper_id, click)
        publish_home(client, answers, viewer, places)


def home_page(
    answers: Answers,
    body: dict[str, Any],
    action: dict[str, Any],
    client: WebClient,
    logger: logging.Logger,
    *,
    for_you: bool,
) -> None:
    """**Previous** or **Next** of the reading list, or of the For you section: the other
    list stays where it was."""
    places = decode_home_page(action["value"], for_you=for_you)
    viewer = viewer_of(body)
    with logging_failures(logger):
        publish_home(client, answers, viewer, places)
