"""Events: mentions and direct messages (a public reply in the thread), pasted links
(previews through ``chat.unfurl``), the App Home tab opening (``views.publish``), reactions
added to or removed from the bot's paper posts (``reaction_added``/``reaction_removed``: the
channel's signals), and the app's uninstall (``app_uninstalled``, or ``tokens_revoked``
naming the bot), which deletes the workspace's rows.

Slack retries an event it thinks was lost (``X-Slack-Retry-Num``); the store's claim on the
message makes sure a retried or doubled delivery never produces a second reply, even when
another process received the first one. A repeated unfurl or home publish just draws the
same thing again, so those need no claim; an uninstall deletes nothing the second time; a
reaction's event id is claimed, so a retried ``reaction_added`` arriving after its
``reaction_removed`` does not bring it back.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from slack_bolt import Ack, App, BoltContext
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.answers import DM_THREAD, Answers, Reaction
from bot.answers.typed import Intent, message_text, parse_mention
from bot.render import papers as render
from bot.render.message import Message
from bot.slack.conversations import post_reply, publish_home
from bot.slack.work import IGNORED, Admit
from bot.store import DatabaseUnavailable
from handlers.errors import answering_failures, logging_failures
from handlers.overload import HOME, MENTION, PREVIEW, REACTION, acknowledge_quietly
from handlers.viewer import viewer_of, workspace_of

log = logging.getLogger(__name__)

COMPOSER = "composer"
"""``link_shared`` from a message still being written: answered by ``unfurl_id``."""
HOME_TAB = "home"

_HUMAN_SUBTYPES = frozenset({"thread_broadcast"})
"""Subtypes of a message a person wrote (a thread reply also sent to the channel); every
other subtype is an edit, a deletion, a join notice or a bot's post, never a question."""


def _not_from_a_person(event: dict[str, Any], bot_user_id: str | None) -> bool:
    subtype = event.get("subtype")
    return bool(
        event.get("bot_id")
        or (subtype is not None and subtype not in _HUMAN_SUBTYPES)
        or not event.get("user")
        or (bot_user_id and event.get("user") == bot_user_id)
    )


def _reply(
    answers: Answers,
    event: dict[str, Any],
    body: dict[str, Any],
    client: WebClient,
    context: BoltContext,
    logger: logging.Logger,
    *,
    direct: bool,
) -> None:
    if _not_from_a_person(event, context.bot_user_id):
        return
    channel = event["channel"]
    if not answers.first_delivery(channel, event["ts"]):
        logger.info("ignoring a repeated delivery of event %s", body.get("event_id"))
        return
    in_thread = "thread_ts" in event
    reply_ts = _reply_ts(event, direct=direct)
    thread_key = reply_ts or DM_THREAD

    def tell(message: Message) -> None:
        post_reply(
            client,
            channel,
            reply_ts,
            message,
            asked_ts=event["ts"],
            bot_user_id=context.bot_user_id,
        )

    with answering_failures(tell, logger):
        request = parse_mention(event.get("text") or "", context.bot_user_id)
        if request.intent is Intent.THREAD and in_thread:
            replies = client.conversations_replies(channel=channel, ts=reply_ts, limit=1)
            first = message_text(replies["messages"][0])
            tell(answers.thread_related(first, channel, thread_key, workspace_of(body)))
        else:
            tell(
                answers.mention(
                    request, channel, thread_key, in_thread=in_thread, viewer=viewer_of(body)
                )
            )


def app_mention(
    answers: Answers,
    event: dict[str, Any],
    body: dict[str, Any],
    client: WebClient,
    context: BoltContext,
    logger: logging.Logger,
) -> None:
    _reply(answers, event, body, client, context, logger, direct=False)


def direct_message(
    answers: Answers,
    event: dict[str, Any],
    body: dict[str, Any],
    client: WebClient,
    context: BoltContext,
    logger: logging.Logger,
) -> None:
    if event.get("channel_type") == "im":
        _reply(answers, event, body, client, context, logger, direct=True)


def register(app: App, answers: Answers, admit: Admit) -> None:
    app.event("app_mention")(
        ack=partial(acknowledge_question, answers, admit, direct=False),
        lazy=[partial(app_mention, answers)],
    )
    app.event("message")(
        ack=partial(acknowledge_question, answers, admit, direct=True),
        lazy=[partial(direct_message, answers)],
    )
    app.event("link_shared")(
        ack=partial(acknowledge_quietly, PREVIEW, admit), lazy=[partial(unfurl_links, answers)]
    )
    app.event("app_home_opened")(
        ack=partial(acknowledge_quietly, HOME, admit), lazy=[partial(show_home, answers)]
    )
    for event_type, added in (("reaction_added", True), ("reaction_removed", False)):
        app.event(event_type)(
            ack=partial(acknowledge_quietly, REACTION, admit),
            lazy=[partial(reaction_added if added else reaction_removed, answers)],
        )
    app.event("app_uninstalled")(ack=acknowledge_uninstall, lazy=[partial(uninstalled, answers)])
    app.event("tokens_revoked")(ack=acknowledge_uninstall, lazy=[partial(tokens_revoked, answers)])


def acknowledge_uninstall(ack: Ack) -> None:
    """Acked at once and never turned away (no ``admit``: its work queues in the pool's
    ``OTHER`` lane): Slack does not send an acked event again, and the workspace's rows must
    go however busy the bot is."""
    ack()


def uninstalled(answers: Answers, body: dict[str, Any], logger: logging.Logger) -> None:
    """The app was removed from the workspace: delete every row of it."""
    _forget_workspace(answers, workspace_of(body), logger)


def tokens_revoked(
    answers: Answers,
    event: dict[str, Any],
    body: dict[str, Any],
    context: BoltContext,
    logger: logging.Logger,
) -> None:
    """Revoked tokens are named by their users' ids: only this bot's own token revoked means
    the bot can no longer work here (a person revoking their user token changes nothing)."""
    revoked_bots = (event.get("tokens") or {}).get("bot") or ()
    this_bot = _this_bot(context, body)
    if not revoked_bots or (this_bot is not None and this_bot not in revoked_bots):
        logger.info("tokens revoked in %s, not this bot's: nothing deleted", workspace_of(body))
        return
    _forget_workspace(answers, workspace_of(body), logger)


def _this_bot(context: BoltContext, body: dict[str, Any]) -> str | None:
    """The bot's user id. Bolt does not call ``auth.test`` for this event (the token may be
    dead), so it comes from the envelope's installation; when even that is missing, a bot
    token revoked for this app is taken to be its own: an app has one bot user a workspace."""
    if context.bot_user_id:
        return context.bot_user_id
    for installation in body.get("authorizations") or ():
        if installation.get("is_bot"):
            return installation.get("user_id")
    return None


def _forget_workspace(answers: Answers, team_id: str | None, logger: logging.Logger) -> None:
    if not team_id:
        logger.warning("an uninstall without a workspace id: nothing deleted")
        return
    with logging_failures(logger):
        try:
            deleted = answers.forget_workspace(team_id)
        except DatabaseUnavailable as error:
            logger.error("uninstalled from %s, but its rows are NOT deleted: %s", team_id, error)
            return
        counts = ", ".join(f"{table} {count}" for table, count in deleted.items() if count)
        logger.info("uninstalled from %s: deleted %s", team_id, counts or "nothing")


def _reply_ts(event: dict[str, Any], *, direct: bool) -> str | None:
    """Where the answer goes: the thread asked in, else a new thread under a mention; a
    direct message outside a thread is answered in the conversation itself."""
    return event.get("thread_ts") or (None if direct else event["ts"])


def acknowledge_question(
    answers: Answers,
    admit: Admit,
    ack: Ack,
    event: dict[str, Any],
    client: WebClient,
    context: BoltContext,
    *,
    direct: bool,
) -> None:
    """A mention, or a message: of messages only a person's direct message is a question;
    every other message is a no-op with a lane of its own, so a busy channel never lengthens
    the questions' wait."""
    if direct and event.get("channel_type") != "im":
        admit(IGNORED, None)
    else:
        _admit_question(answers, admit, event, client, context.bot_user_id, direct=direct)
    ack()


def _admit_question(
    answers: Answers,
    admit: Admit,
    event: dict[str, Any],
    client: WebClient,
    bot_user_id: str | None,
    *,
    direct: bool,
) -> None:
    """A question turned away is told so in its thread (an event's ack carries no text, and
    Slack does not send an acked event again); what no one asked is turned away silently."""
    if _not_from_a_person(event, bot_user_id):
        admit(IGNORED, None)
        return
    notice = partial(_tell_busy_in_thread, answers, event, client, bot_user_id, direct=direct)
    admit(MENTION, notice)


def _tell_busy_in_thread(
    answers: Answers,
    event: dict[str, Any],
    client: WebClient,
    bot_user_id: str | None,
    *,
    direct: bool,
) -> None:
    """The notice claims the message like an answer does: a mention in a direct message
    arrives as two events (``app_mention`` and ``message.im``), and the person hears once."""
    with logging_failures(log):
        if not answers.first_delivery(event["channel"], event["ts"]):
            return
        post_reply(
            client,
            event["channel"],
            _reply_ts(event, direct=direct),
            render.busy_message(),
            asked_ts=event["ts"],
            bot_user_id=bot_user_id,
        )


def unfurl_links(
    answers: Answers,
    event: dict[str, Any],
    body: dict[str, Any],
    client: WebClient,
    logger: logging.Logger,
) -> None:
    """Preview the OpenReview links that name catalogue papers; say nothing about others.
    A message posted in a channel shows its papers there, so its rotation passes over them:
    recorded after the previews went out, so the database never delays one.

    Works wherever Slack sends the event, also in channels the bot is not in
    (``is_bot_user_member: false``): ``chat.unfurl`` needs no membership.
    """
    with logging_failures(logger):
        links = _shared_urls(event)
        unfurls = answers.unfurls(links)
        if not unfurls:
            return
        if event.get("source") == COMPOSER:
            client.chat_unfurl(unfurl_id=event["unfurl_id"], source=COMPOSER, unfurls=unfurls)
            return
        client.chat_unfurl(channel=event["channel"], ts=event["message_ts"], unfurls=unfurls)
        answers.record_linked(workspace_of(body), event["channel"], links)


def _shared_urls(event: dict[str, Any]) -> list[str]:
    """The links' URLs; an entry without one (not what Slack sends) is passed over, so the
    links beside it are still previewed."""
    links = event.get("links") or ()
    return [
        link["url"] for link in links if isinstance(link, dict) and isinstance(link.get("url"), str)
    ]


def show_home(
    answers: Answers,
    event: dict[str, Any],
    body: dict[str, Any],
    client: WebClient,
    logger: logging.Logger,
) -> None:
    if event.get("tab", HOME_TAB) != HOME_TAB:
        return
    with logging_failures(logger):
        publish_home(client, answers, viewer_of(body))


def reaction_added(
    answers: Answers,
    event: dict[str, Any],
    body: dict[str, Any],
    client: WebClient,
    context: BoltContext,
    logger: logging.Logger,
) -> None:
    """An emoji on a message: counted for the paper when the message is one of the bot's
    paper posts and a person (not a bot) added it."""
    _reacted(answers, event, body, client, context, logger, added=True)


def reaction_removed(
    answers: Answers,
    event: dict[str, Any],
    body: dict[str, Any],
    client: WebClient,
    context: BoltContext,
    logger: logging.Logger,
) -> None:
    """An emoji taken back: it counts no more."""
    _reacted(answers, event, body, client, context, logger, added=False)


def _reacted(
    answers: Answers,
    event: dict[str, Any],
    body: dict[str, Any],
    client: WebClient,
    context: BoltContext,
    logger: logging.Logger,
    *,
    added: bool,
) -> None:
    item = event.get("item") or {}
    team_id, user_id = workspace_of(body), event.get("user")
    if item.get("type") != "message" or not (team_id and user_id and item.get("ts")):
        return
    with logging_failures(logger):
        if _is_a_bot(client, user_id, context.bot_user_id):
            return
        reaction = Reaction(
            event_id=body.get("event_id"),
            team_id=team_id,
            channel=item["channel"],
            ts=item["ts"],
            user_id=user_id,
            emoji=event.get("reaction") or "",
        )
        answers.channel_activity.reacted(reaction, added=added)


_bots_seen: dict[str, bool] = {}
"""Whether each user id seen reacting is a bot, so ``users.info`` is asked once per person
per process (a user id never changes between person and bot)."""
_BOTS_SEEN_AT_MOST = 10_000


def _is_a_bot(client: WebClient, user_id: str, bot_user_id: str | None) -> bool:
    """Reactions by bots (this one included) never count. A person whose ``users.info``
    cannot be read is taken for a bot: a reaction missed is better than a bot's counted."""
    if user_id == bot_user_id:
        return True
    known = _bots_seen.get(user_id)
    if known is not None:
        return known
    try:
        user = client.users_info(user=user_id).get("user") or {}
    except SlackApiError as error:
        log.info("users.info for a reaction failed (%s): not counted", error.response.get("error"))
        return True
    bot = bool(user.get("is_bot")) or user.get("id") == "USLACKBOT"
    if len(_bots_seen) >= _BOTS_SEEN_AT_MOST:
        _bots_seen.clear()
    _bots_seen[user_id] = bot
    return bot
