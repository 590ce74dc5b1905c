"""Events meant for another Slack app are not answered.

Every event envelope names the app it is delivered to (``api_app_id``), and an event an app
caused names that app (``event.app_id``). The bot learns its own app id once, lazily, from
Slack: Bolt's authorization has already asked ``auth.test`` for the bot's id, and
``bots.info`` names the bot's app. An event naming another app is acked (so Slack does not
send it again) and not answered. When the bot cannot learn its id it accepts every event as
it did before it knew: after a failed call it asks again ``RETRY_SECONDS`` later, not on every
event, and never again when the token lacks the scope (``bots.info`` needs ``users:read``).
The first event waits for that one call, as the first request waits for Bolt's ``auth.test``;
so that a Slack that hangs cannot hold that event's ack past Slack's 3 s, the call has a short
timeout of its own and no retries (it is asked again ``RETRY_SECONDS`` later).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from slack_bolt import App, BoltContext, BoltResponse
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

log = logging.getLogger(__name__)

RETRY_SECONDS = 600.0
"""How long an app id Slack would not give is not asked for again."""
LOOKUP_TIMEOUT_SECONDS = 1.0
"""The longest the first event's ack waits for ``bots.info``."""
_NEVER_GIVEN = frozenset({"missing_scope", "not_allowed_token_type"})
"""Answers that asking again will not change."""
_EVENT_CALLBACK = "event_callback"


class OwnApp:
    """This bot's Slack app id, asked of Slack at most once per ``RETRY_SECONDS``."""

    def __init__(self, client: WebClient, *, clock: Callable[[], float] = time.monotonic):
        self._client = client
        self._clock = clock
        self._lock = threading.Lock()
        self._app_id: str | None = None
        self._next_attempt = float("-inf")

    def app_id(self, bot_id: str | None) -> str | None:
        """The app id, or None while it cannot be learned; ``bot_id`` is from ``auth.test``."""
        with self._lock:
            if self._app_id is None and bot_id and self._clock() >= self._next_attempt:
                self._app_id = self._ask(bot_id)
            return self._app_id

    def _ask(self, bot_id: str) -> str | None:
        try:
            bot = self._client.bots_info(bot=bot_id).get("bot")
        except (SlackApiError, SlackClientError, OSError) as error:
            permanent = (
                isinstance(error, SlackApiError) and error.response.get("error") in _NEVER_GIVEN
            )
            self._next_attempt = float("inf") if permanent else self._clock() + RETRY_SECONDS
            log.warning("could not learn this app's id (events of any app are answered): %s", error)
            return None
        app_id = bot.get("app_id") if isinstance(bot, dict) else None
        if isinstance(app_id, str) and app_id:
            return app_id
        self._next_attempt = self._clock() + RETRY_SECONDS
        return None


def other_apps(body: dict[str, Any], app_id: str) -> str | None:
    """The other app an event names, or None when it names none or this one."""
    event = body.get("event")
    named = (body.get("api_app_id"), event.get("app_id") if isinstance(event, dict) else None)
    return next((other for other in named if other and other != app_id), None)


def install(app: App, client: WebClient) -> None:
    """Ack and drop events naming another app, before any listener sees them."""
    lookup = WebClient(
        token=client.token,
        base_url=client.base_url,
        timeout=LOOKUP_TIMEOUT_SECONDS,
        retry_handlers=[],
    )
    own = OwnApp(lookup)

    def ignoring_other_apps(
        body: dict[str, Any], context: BoltContext, next: Callable[[], BoltResponse]
    ) -> BoltResponse | None:
        if body.get("type") == _EVENT_CALLBACK:
            app_id = own.app_id(context.bot_id)
            other = app_id and other_apps(body, app_id)
            if other:
                log.info(
                    "ignoring event %s, meant for another app (%s)", body.get("event_id"), other
                )
                return BoltResponse(status=200, body="")
        return next()

    app.use(ignoring_other_apps)
