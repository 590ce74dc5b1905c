"""``respond()`` that does not lose replies.

Bolt's ``respond`` posts once to the ``response_url`` and returns whatever came back: a 429,
a 5xx or a 404 (the URL expired, or was used up) is dropped without a word, and the person
who typed ``/paper`` waits for an answer that never comes. This one retries what Slack asks
to have retried (429, honouring ``Retry-After``, and 5xx, with backoff), and when the
``response_url`` still fails, logs a warning and sends the reply with ``chat.postEphemeral``
instead, which works wherever the bot is a member. ``install`` puts it in every request's
context, so listeners keep asking for ``respond`` as Bolt documents it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from slack_bolt import App, BoltContext
from slack_bolt.context.respond import Respond
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.webhook import WebhookClient

log = logging.getLogger(__name__)

BACKOFF = (1.0, 2.0, 4.0)
"""Waits before the 2nd, 3rd and 4th attempt after a 5xx (or a 429 without ``Retry-After``)."""
MAX_WAIT = 30.0
"""The longest ``Retry-After`` honoured: a response_url lives 30 minutes, a person less."""
TIMEOUT_SECONDS = 10

_sleep: Callable[[float], None] = time.sleep
"""Module-level so tests can record the waits instead of sleeping them."""

_EPHEMERAL_FIELDS = ("text", "blocks", "attachments", "thread_ts")


def _wait(status: int, headers: dict[str, Any], attempt: int) -> float | None:
    """How long to wait before trying again, or None when this answer is final."""
    if status != 429 and status < 500:
        return None
    if attempt >= len(BACKOFF):
        return None
    retry_after = _header(headers, "retry-after")
    if status == 429 and retry_after is not None:
        try:
            return min(MAX_WAIT, max(0.0, float(retry_after)))
        except ValueError:
            pass
    return BACKOFF[attempt]


def _header(headers: dict[str, Any], name: str) -> str | None:
    for key, value in (headers or {}).items():
        if key.lower() == name:
            return value[0] if isinstance(value, list) else str(value)
    return None


class ReliableRespond(Respond):
    """A ``Respond`` for one request; ``channel_id`` and ``user_id`` are where the fallback
    ephemeral goes."""

    def __init__(
        self,
        *,
        response_url: str,
        client: WebClient,
        channel_id: str | None,
        user_id: str | None,
    ) -> None:
        super().__init__(response_url=response_url, proxy=client.proxy, ssl=client.ssl)
        self._client = client
        self._channel_id = channel_id
        self._user_id = user_id

    def __call__(self, text: str | dict = "", **fields: Any) -> Any:  # type: ignore[override]
        message = dict(text) if isinstance(text, dict) else {"text": text, **fields}
        message = {key: value for key, value in message.items() if value is not None}
        webhook = WebhookClient(
            url=str(self.response_url), timeout=TIMEOUT_SECONDS, proxy=self.proxy, ssl=self.ssl
        )
        attempt = 0
        while True:
            try:
                response = webhook.send_dict(message)
            except OSError as error:
                problem = f"could not be reached ({error})"
                break
            if response.status_code == 200:
                return response
            wait = _wait(response.status_code, response.headers, attempt)
            problem = f"answered HTTP {response.status_code} ({response.body[:200] or 'no body'})"
            if wait is None:
                break
            log.info("response_url %s; retrying in %.1fs", problem, wait)
            _sleep(wait)
            attempt += 1
        log.warning("a reply was not delivered: the response_url %s", problem)
        return self._post_ephemeral(message)

    def _post_ephemeral(self, message: dict[str, Any]) -> Any:
        if not (self._channel_id and self._user_id):
            log.warning("no channel and user to send the reply to instead; it is lost")
            return None
        fields = {key: message[key] for key in _EPHEMERAL_FIELDS if key in message}
        try:
            return self._client.chat_postEphemeral(
                channel=self._channel_id, user=self._user_id, **fields
            )
        except SlackApiError as error:
            log.warning(
                "the reply could not be sent with chat.postEphemeral either (%s); it is lost",
                error.response.get("error"),
            )
        except OSError as error:
            log.warning("chat.postEphemeral failed too (%s); the reply is lost", error)
        return None


def _use_reliable_respond(context: BoltContext, next: Callable[[], Any]) -> Any:
    if context.response_url:
        context["respond"] = ReliableRespond(
            response_url=context.response_url,
            client=context.client,
            channel_id=context.channel_id,
            user_id=context.user_id,
        )
    return next()


def install(app: App) -> None:
    """Make every listener's ``respond`` a ``ReliableRespond``."""
    app.use(_use_reliable_respond)
