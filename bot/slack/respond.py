"""``respond()`` that does not lose replies.

Bolt's ``respond`` posts once to the ``response_url`` and returns whatever came back: a 429,
a 5xx or a 404 (the URL expired, or was used up) is dropped without a word, and the person
who typed ``/paper`` waits for an answer that never comes. This one sends again what the one
retry policy (``bot.slack.delivery.retry``) lets a ``response_url`` have again (a 429,
honouring ``Retry-After``; a connection not made and a 5xx, with backoff), and when the
``response_url`` still fails, or the connection failed once the request was out (a timeout,
a dropped connection), logs a warning and sends the reply once with ``chat.postEphemeral``
instead, which works wherever the bot is a member: a rare duplicate, seen only by the person
who asked, is better than no answer. The webhook client has no retry handlers of its own, so
this loop is the only one that sends again. ``install`` puts it in every request's context, so
listeners keep asking for ``respond`` as Bolt documents it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from time import sleep
from typing import Any

from slack_bolt import App, BoltContext
from slack_bolt.context.respond import Respond
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.webhook import WebhookClient

from bot.slack.delivery.retry import (
    Backoff,
    Failure,
    answer_failure,
    error_failure,
    resend_to_response_url,
)

log = logging.getLogger(__name__)

BACKOFF = (1.0, 2.0, 4.0)
"""Waits before the 2nd, 3rd and 4th attempt (Slack's ``Retry-After`` instead, when it says)."""
MAX_WAIT = 30.0
"""The longest ``Retry-After`` honoured: a response_url lives 30 minutes, a person less."""
_PATIENCE = Backoff(BACKOFF, longest=MAX_WAIT, retry_after_replaces=True)
TIMEOUT_SECONDS = 10

_EPHEMERAL_FIELDS = ("text", "blocks", "attachments", "thread_ts")


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
            url=str(self.response_url),
            timeout=TIMEOUT_SECONDS,
            proxy=self.proxy,
            ssl=self.ssl,
            retry_handlers=[],
        )
        attempt = 0
        while True:
            try:
                response = webhook.send_dict(message)
            except OSError as error:
                failure = error_failure(error)
                problem = f"could not be reached ({error})"
            else:
                if response.status_code == 200:
                    return response
                failure = answer_failure(response.status_code, response.headers)
                body = response.body[:200] or "no body"
                problem = f"answered HTTP {response.status_code} ({body})"
            wait = self._wait(failure, attempt)
            if wait is None:
                break
            log.info("response_url %s; retrying in %.1fs", problem, wait)
            sleep(wait)
            attempt += 1
        log.warning("a reply was not delivered: the response_url %s", problem)
        return self._post_ephemeral(message)

    @staticmethod
    def _wait(failure: Failure | None, attempt: int) -> float | None:
        if failure is None or not resend_to_response_url(failure):
            return None
        return _PATIENCE.wait(failure, attempt)

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
