"""Requests in the shapes Slack really sends, signed the way Slack signs them.

The shell types on a person's behalf by building these and dispatching them into the real
Bolt app; the end-to-end tests send them over HTTP. Shapes follow Slack's reference: slash
commands are form-encoded fields, events are ``event_callback`` JSON envelopes, and button
clicks (``block_actions``) and message shortcuts (``message_action``) are JSON in a form field
called ``payload``.
"""

from __future__ import annotations

import itertools
import json
import time
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

from slack_sdk.signature import SignatureVerifier

FORM = "application/x-www-form-urlencoded"
JSON = "application/json"

_counter = itertools.count(1)


@dataclass(frozen=True)
class Workspace:
    """The fixed identities of a pretend workspace: who is typing where, and the bot."""

    team_id: str = "T0PAPERS"
    team_domain: str = "paperbot-test"
    api_app_id: str = "A0PAPERBOT"
    bot_user_id: str = "UPAPERBOT"
    user_id: str = "U0ASKER"
    user_name: str = "asker"
    channel_id: str = "C0RESEARCH"
    channel_name: str = "research"
    dm_channel_id: str = "D0ASKER"


def _next() -> int:
    return next(_counter)


def _trigger_id() -> str:
    return f"{_next()}.{int(time.time())}.0123456789abcdef0123456789abcdef"


def slash_command(
    workspace: Workspace, text: str, response_url: str, *, command: str = "/paper"
) -> dict[str, str]:
    """The form fields of a slash-command request."""
    return {
        "token": "verification-token-unused",
        "team_id": workspace.team_id,
        "team_domain": workspace.team_domain,
        "channel_id": workspace.channel_id,
        "channel_name": workspace.channel_name,
        "user_id": workspace.user_id,
        "user_name": workspace.user_name,
        "command": command,
        "text": text,
        "api_app_id": workspace.api_app_id,
        "is_enterprise_install": "false",
        "response_url": response_url,
        "trigger_id": _trigger_id(),
    }


def event_callback(
    workspace: Workspace, event: dict[str, Any], *, event_id: str | None = None
) -> dict[str, Any]:
    """An Events API envelope around ``event``."""
    return {
        "token": "verification-token-unused",
        "team_id": workspace.team_id,
        "context_team_id": workspace.team_id,
        "context_enterprise_id": None,
        "api_app_id": workspace.api_app_id,
        "event": event,
        "type": "event_callback",
        "event_id": event_id or f"Ev{uuid.uuid4().hex[:12].upper()}",
        "event_time": int(time.time()),
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": workspace.team_id,
                "user_id": workspace.bot_user_id,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
        "event_context": f"4-{_next()}",
    }


def app_mention(
    workspace: Workspace,
    text: str,
    ts: str,
    *,
    thread_ts: str | None = None,
    user: str | None = None,
) -> dict[str, Any]:
    """An ``app_mention`` event; ``text`` is the wire text, e.g. ``<@UPAPERBOT> graphs``."""
    event: dict[str, Any] = {
        "type": "app_mention",
        "client_msg_id": f"msg-{_next()}",
        "text": text,
        "user": user or workspace.user_id,
        "ts": ts,
        "team": workspace.team_id,
        "channel": workspace.channel_id,
        "event_ts": ts,
    }
    if thread_ts:
        event["thread_ts"] = thread_ts
    return event


def direct_message(workspace: Workspace, text: str, ts: str, **extra: Any) -> dict[str, Any]:
    """A ``message`` event in the bot's DM (``message.im``); ``extra`` adds e.g. ``bot_id``."""
    event: dict[str, Any] = {
        "type": "message",
        "client_msg_id": f"msg-{_next()}",
        "text": text,
        "user": workspace.user_id,
        "ts": ts,
        "team": workspace.team_id,
        "channel": workspace.dm_channel_id,
        "event_ts": ts,
        "channel_type": "im",
    }
    event.update(extra)
    return event


def channel_message(workspace: Workspace, text: str, ts: str) -> dict[str, Any]:
    """A ``message`` event for a message in the workspace's channel (``message.channels``)."""
    return direct_message(workspace, text, ts, channel=workspace.channel_id, channel_type="channel")


def reaction(
    workspace: Workspace,
    emoji: str,
    channel: str,
    ts: str,
    *,
    added: bool = True,
    item_user: str | None = None,
) -> dict[str, Any]:
    """``reaction_added`` (or ``reaction_removed``) by the workspace's person on the message
    at ``ts`` in ``channel``, posted by ``item_user`` (by default the bot)."""
    return {
        "type": "reaction_added" if added else "reaction_removed",
        "user": workspace.user_id,
        "reaction": emoji,
        "item_user": item_user or workspace.bot_user_id,
        "item": {"type": "message", "channel": channel, "ts": ts},
        "event_ts": f"{time.time():.6f}",
    }


COMPOSER_CHANNEL = "COMPOSER"


def link_shared(
    workspace: Workspace,
    urls: list[str],
    message_ts: str,
    *,
    composer: bool = False,
    is_bot_user_member: bool = True,
    channel_id: str | None = None,
) -> dict[str, Any]:
    """A ``link_shared`` event for a message with ``urls``; ``composer`` is one still being
    written (Slack names no channel then, only an ``unfurl_id`` to answer with)."""
    channel = COMPOSER_CHANNEL if composer else channel_id or workspace.channel_id
    if composer:
        message_ts = f"{workspace.user_id}-{uuid.uuid4()}"
    return {
        "type": "link_shared",
        "channel": channel,
        "is_bot_user_member": is_bot_user_member,
        "user": workspace.user_id,
        "message_ts": message_ts,
        "unfurl_id": f"{channel}.{message_ts}.{uuid.uuid4().hex}",
        "source": "composer" if composer else "conversations_history",
        "links": [{"domain": urlsplit(url).hostname or "", "url": url} for url in urls],
        "event_ts": f"{time.time():.6f}",
    }


def app_home_opened(workspace: Workspace, *, tab: str = "home") -> dict[str, Any]:
    """The person opened the bot's App Home (``tab`` ``home`` or ``messages``)."""
    return {
        "type": "app_home_opened",
        "user": workspace.user_id,
        "channel": workspace.dm_channel_id,
        "tab": tab,
        "event_ts": f"{time.time():.6f}",
    }


def _user(workspace: Workspace) -> dict[str, str]:
    return {
        "id": workspace.user_id,
        "username": workspace.user_name,
        "name": workspace.user_name,
        "team_id": workspace.team_id,
    }


def message_action(
    workspace: Workspace,
    message: dict[str, Any],
    response_url: str,
    *,
    callback_id: str = "find_related_papers",
    channel_id: str | None = None,
) -> dict[str, Any]:
    """A message shortcut chosen on ``message`` (a message dict as Slack stores it)."""
    channel = channel_id or workspace.channel_id
    return {
        "type": "message_action",
        "token": "verification-token-unused",
        "action_ts": f"{time.time():.6f}",
        "team": {"id": workspace.team_id, "domain": workspace.team_domain},
        "user": _user(workspace),
        "channel": {"id": channel, "name": workspace.channel_name},
        "is_enterprise_install": False,
        "enterprise": None,
        "callback_id": callback_id,
        "trigger_id": _trigger_id(),
        "response_url": response_url,
        "message_ts": message["ts"],
        "message": message,
    }


def _action(button: dict[str, Any], block_id: str) -> dict[str, Any]:
    return {
        "action_id": button["action_id"],
        "block_id": block_id,
        "text": button["text"],
        "value": button.get("value", ""),
        "type": "button",
        "action_ts": f"{time.time():.6f}",
    }


def view_block_actions(
    workspace: Workspace, button: dict[str, Any], block_id: str, view: dict[str, Any]
) -> dict[str, Any]:
    """A click on a button in the App Home: the container is the view, and there is no
    channel and no ``response_url`` (the app answers by publishing or opening a view)."""
    return {
        "type": "block_actions",
        "user": _user(workspace),
        "api_app_id": workspace.api_app_id,
        "token": "verification-token-unused",
        "container": {"type": "view", "view_id": "V0HOME"},
        "trigger_id": _trigger_id(),
        "team": {"id": workspace.team_id, "domain": workspace.team_domain},
        "enterprise": None,
        "is_enterprise_install": False,
        "view": {
            "id": "V0HOME",
            "team_id": workspace.team_id,
            "state": {"values": {}},
            "hash": f"{_next()}.abcdef",
            "private_metadata": "",
            "callback_id": "",
            "app_id": workspace.api_app_id,
            "bot_id": "BPAPERBOT",
            **view,
        },
        "actions": [_action(button, block_id)],
    }


def block_actions(
    workspace: Workspace,
    button: dict[str, Any],
    block_id: str,
    response_url: str,
    *,
    message_ts: str,
    is_ephemeral: bool,
    channel_id: str | None = None,
    message: dict[str, Any] | None = None,
    unfurl_url: str | None = None,
) -> dict[str, Any]:
    """The ``block_actions`` payload of a click on ``button`` (a button element dict).

    As in Slack's payloads, a click on an ephemeral message has no ``message`` (the app must
    not rely on reading the clicked message back), while a click on a normal message carries
    it; a click in a direct message names the channel ``directmessage``. A click in a link
    preview (``unfurl_url``) comes from the app's attachment on someone else's message.
    """
    channel = channel_id or workspace.channel_id
    channel_name = "directmessage" if channel.startswith("D") else workspace.channel_name
    payload: dict[str, Any] = {
        "type": "block_actions",
        "user": _user(workspace),
        "api_app_id": workspace.api_app_id,
        "token": "verification-token-unused",
        "container": {
            "type": "message",
            "message_ts": message_ts,
            "channel_id": channel,
            "is_ephemeral": is_ephemeral,
        },
        "trigger_id": _trigger_id(),
        "team": {"id": workspace.team_id, "domain": workspace.team_domain},
        "enterprise": None,
        "is_enterprise_install": False,
        "channel": {"id": channel, "name": channel_name},
        "state": {"values": {}},
        "response_url": response_url,
        "actions": [_action(button, block_id)],
    }
    if unfurl_url is not None:
        payload["container"] = {
            "type": "message_attachment",
            "message_ts": message_ts,
            "attachment_id": 1,
            "channel_id": channel,
            "is_ephemeral": False,
            "is_app_unfurl": True,
            "app_unfurl_url": unfurl_url,
        }
    if message is not None and not is_ephemeral:
        payload["message"] = message
    return payload


def url_verification(challenge: str) -> dict[str, str]:
    return {
        "token": "verification-token-unused",
        "challenge": challenge,
        "type": "url_verification",
    }


def form_body(fields: dict[str, str]) -> tuple[str, str]:
    """Body and content type of a slash command."""
    return urlencode(fields), FORM


def json_body(payload: dict[str, Any]) -> tuple[str, str]:
    """Body and content type of an Events API request."""
    return json.dumps(payload), JSON


def interactive_body(payload: dict[str, Any]) -> tuple[str, str]:
    """Body and content type of an interactivity request (JSON in a ``payload`` field)."""
    return urlencode({"payload": json.dumps(payload)}), FORM


def signed_headers(
    signing_secret: str,
    body: str,
    content_type: str,
    *,
    timestamp: int | None = None,
    retry_num: int | None = None,
) -> dict[str, str]:
    """Headers Slack sends with a request: the v0 signature over timestamp and body."""
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    signature = SignatureVerifier(signing_secret).generate_signature(timestamp=stamp, body=body)
    headers = {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": signature,
    }
    if retry_num is not None:
        headers["X-Slack-Retry-Num"] = str(retry_num)
        headers["X-Slack-Retry-Reason"] = "http_timeout"
    return headers
