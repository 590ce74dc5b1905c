"""Questions only Slack can answer, and deliveries that take more than one call.

Who can see a channel, whether the bot may post in one, a public reply that checks whether it
landed, the App Home publish and a file sent by direct message: each is a few Web API calls
with Slack's own error codes to interpret, so the listeners stay thin and the answers stay
free of Slack.
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Callable
from functools import partial
from typing import Any
from urllib.error import HTTPError
from urllib.request import Request, urlopen

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.answers import Answers, Export, Viewer
from bot.buttons import FIRST_PAGES, HomePlaces
from bot.render.message import Message
from bot.slack.delivery.landed import Unreadable, find_post, posted_by, tagged
from bot.slack.delivery.retry import (
    HOME_TAB_PATIENCE,
    UPLOAD_PATIENCE,
    error_failure,
    sending_again,
    waiting_at_most,
)

log = logging.getLogger(__name__)

MEMBERS_PAGE = 1000
UNSEEN_ERRORS = frozenset({"channel_not_found", "not_in_channel"})
"""Slack's word that the bot cannot look at a channel (not in it, or deleted): unseen, for sure."""
HOME_LOOKUP_TIMEOUT = 3
"""Seconds at most one of the App Home's channel lookups waits for Slack's answer (a reply's
calls wait the client's own timeout)."""
HOME_LOOKUPS_SECONDS = 8.0
"""Seconds the App Home's channel lookups may start within: the channels not looked up by
then are left out this time (and asked about on the next open), so lookups that hang one
after another cannot hold a worker for minutes."""
CLICK_POST_EVENT_TYPE = "paperbot_share"
"""Slack message metadata type marking a post a click asked for (**Share**, **Post in thread**)."""


class Refused(Exception):
    """Slack refused for good: sending again would get the same error code (``code``)."""

    def __init__(self, code: str | None) -> None:
        super().__init__(code)
        self.code = code


def user_can_see(client: WebClient, channel_id: str, user_id: str) -> bool | None:
    """Whether ``user_id`` can see the channel: anyone in the workspace sees a public one
    (``channels:read``); a private one only its members (``groups:read``). A channel the bot
    cannot look at (not in it, or deleted) counts as unseen. None when Slack did not say (a
    rate limit past the retries, a timeout, an answer without the channel): unknown, which
    must not be remembered as unseen."""
    try:
        info = _channel_info(client, channel_id)
        if info is None:
            return None
        if not (info.get("is_private") or info.get("is_group")):
            return not info.get("is_archived", False)
        cursor = None
        while True:
            page = client.conversations_members(
                channel=channel_id, limit=MEMBERS_PAGE, cursor=cursor
            )
            members = page.get("members")
            if not isinstance(members, list):
                return None
            if user_id in members:
                return True
            cursor = (page.get("response_metadata") or {}).get("next_cursor")
            if not cursor:
                return False
    except SlackApiError as error:
        code = error.response.get("error")
        log.info("cannot look at channel %s: %s", channel_id, code)
        return False if code in UNSEEN_ERRORS else None
    except OSError as error:
        log.info("could not look at channel %s: %s", channel_id, error)
        return None


def bot_can_post(client: WebClient, channel_id: str) -> bool:
    """Whether the bot is in the conversation (a channel it was invited to, or its own DM);
    False also when Slack did not say (an error, a timeout, an answer without the channel):
    the question only decides whether to offer a button."""
    try:
        info = _channel_info(client, channel_id)
    except (SlackApiError, OSError) as error:
        log.info("could not tell whether I may post in %s: %s", channel_id, error)
        return False
    return bool(info and (info.get("is_member") or info.get("is_im")))


def _channel_info(client: WebClient, channel_id: str) -> dict | None:
    """``conversations.info``'s channel, None when an ``ok`` answer came without one."""
    info = client.conversations_info(channel=channel_id).get("channel")
    return info if isinstance(info, dict) else None


def click_tag(subject: str, clicker: str, action_ts: str) -> dict[str, Any]:
    """The message metadata of a post the click at ``action_ts`` by ``clicker`` asked for
    about ``subject`` (a paper id, a related list's key): that click's post and no other."""
    payload = {"subject": subject, "clicker": clicker, "action_ts": action_ts}
    return {"event_type": CLICK_POST_EVENT_TYPE, "event_payload": payload}


def post_reply(
    client: WebClient,
    channel: str,
    thread_ts: str | None,
    message: Message,
    *,
    asked_ts: str,
    bot_user_id: str | None,
    tag: dict[str, Any] | None = None,
) -> str | None:
    """Post ``message`` in the thread ``thread_ts`` (None: in the conversation) in answer to
    the message at ``asked_ts``, and return its ``ts`` (None when the post was only found to
    have landed after a failure); raise when it did not get there. A post with message
    metadata (``tag``) is looked for by it; one without, as any bot post since ``asked_ts``.

    A post that failed after Slack had it (a 5xx, a dropped connection) or that timed out,
    also while connecting (a slow Slack or network, after the client's own attempts), may
    still arrive: the conversation tells, so a caller that apologises for a raised failure
    never does so next to the bot's own answer. When even that cannot be read, the post
    counts as landed rather than risk the apology.
    """
    try:
        tagging = {"metadata": tag} if tag is not None else {}
        posted = client.chat_postMessage(
            channel=channel, thread_ts=thread_ts, **tagging, **message.as_kwargs()
        )
    except (SlackApiError, OSError) as error:
        failure = error_failure(error)
        if failure is None or not (failure.maybe_delivered or failure.timed_out):
            raise
        mine = tagged(tag) if tag is not None else posted_by(bot_user_id, asked_ts)
        if not _answered(client, channel, thread_ts, asked_ts, mine):
            raise
        log.info("chat.postMessage in %s failed (%s) but did post", channel, failure.reason)
        return None
    ts = posted.get("ts") if posted is not None else None
    return ts if isinstance(ts, str) else None


def _answered(
    client: WebClient,
    channel: str,
    thread_ts: str | None,
    asked_ts: str,
    mine: Callable[[dict[str, Any]], bool],
) -> bool:
    """Whether the bot's post (``mine``) is here since ``asked_ts`` (True when unreadable)."""
    try:
        found = find_post(client, channel, mine, oldest=asked_ts, thread_ts=thread_ts)
    except Unreadable:
        return True
    return found is not None


def publish_home(
    client: WebClient,
    answers: Answers,
    viewer: Viewer,
    places: HomePlaces = FIRST_PAGES,
) -> None:
    """Draw the person's App Home tab (again), with its two lists at ``places``: the publish
    and its channel lookups wait little for Slack (the tab is drawn again on the next open)."""
    lookups = copy.copy(client)
    lookups.timeout = min(client.timeout, HOME_LOOKUP_TIMEOUT)
    can_see = _while_time_left(
        time.monotonic() + HOME_LOOKUPS_SECONDS,
        partial(user_can_see, lookups, user_id=viewer.user_id),
    )
    with waiting_at_most(HOME_TAB_PATIENCE):
        client.views_publish(
            user_id=viewer.user_id,
            view=answers.home(viewer, can_see, places),
        )


def _while_time_left(
    give_up_at: float, can_see: Callable[[str], bool | None]
) -> Callable[[str], bool | None]:
    """``can_see`` until ``give_up_at`` (``time.monotonic``); after it, unknown (None)."""

    def asked_in_time(channel_id: str) -> bool | None:
        if time.monotonic() >= give_up_at:
            log.info("left channel %s out of the App Home: no time left to look", channel_id)
            return None
        return can_see(channel_id)

    return asked_in_time


def send_file_to_user(client: WebClient, user_id: str, export: Export) -> None:
    """Upload ``export`` into the bot's direct message with the person (``files:write``;
    opening the DM needs ``im:write``); raise ``Refused`` when Slack refuses for good (an
    error code, or a 4xx from the upload URL: an expired or rejected upload).

    The three steps of Slack's upload are made here rather than by ``files_upload_v2`` so
    that the middle one, a plain POST of the bytes that bypasses the client's retries, is
    sent again like the calls around it; sending the bytes again is always safe, since
    nothing is shared before ``files.completeUploadExternal``.
    """
    try:
        channel = client.conversations_open(users=user_id)["channel"]["id"]
        content = export.content.encode()
        upload = client.files_getUploadURLExternal(filename=export.filename, length=len(content))
        _upload_bytes(str(upload["upload_url"]), content, timeout=client.timeout)
        client.files_completeUploadExternal(
            files=[{"id": upload["file_id"], "title": export.title}],
            channel_id=channel,
            initial_comment=export.comment,
        )
    except SlackApiError as error:
        if error_failure(error) is None:
            raise Refused(error.response.get("error")) from error
        raise
    except HTTPError as error:
        if error_failure(error) is None:
            raise Refused(f"upload answered HTTP {error.code}") from error
        raise


def _upload_bytes(url: str, content: bytes, *, timeout: int) -> None:
    def post() -> None:
        with urlopen(Request(url, data=content, method="POST"), timeout=timeout):
            pass

    sending_again(post, patience=UPLOAD_PATIENCE)
