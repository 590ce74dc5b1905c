"""Events meant for another Slack app are not answered.

Every event envelope names the app it is delivered to (``api_app_id``), and an event an app
caused names that app (``event.app_id``). The bot learns its own app id from Slack: Bolt's
authorization has already asked ``auth.test`` for the bot's id, and ``bots.info`` names the
bot's app. An event naming another app is acked (so Slack does not send it again) and not
answered. No Slack call sits on an ack's path: the first event starts the lookup on a
background thread (one at a time) and is accepted, as is every event until the id is known,
exactly as when the bot cannot learn it. After a failed lookup it is asked again
``RETRY_SECONDS`` later, not on every event, and never again when the token lacks the scope
(``bots.info`` needs ``users:read``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from slack_bolt import App, BoltContext, BoltResponse
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

log = logging.getLogger(__name__)

RETRY_SECONDS = 600.0
"""How long an app id Slack would not give is not asked for again."""
LOOKUP_TIMEOUT_SECONDS = 10.0
"""How long one ``bots.info`` may take: a hung lookup holds no ack, but while it runs no other
starts."""
_NEVER_GIVEN = frozenset({"missing_scope", "not_allowed_token_type"})
"""Answers that asking again will not change."""
_EVENT_CALLBACK = "event_callback"


Background = Callable[[Callable[[], None]], object]
"""Runs the lookup away from the ack's thread (a thread of its own in production)."""


def _on_its_own_thread(lookup: Callable[[], None]) -> None:
    threading.Thread(target=lookup, name="own-app-id", daemon=True).start()


class OwnApp:
    """This bot's Slack app id, asked of Slack in the background at most once per
    ``RETRY_SECONDS``."""

    def __init__(
        self,
        client: WebClient,
        *,
        clock: Callable[[], float] = time.monotonic,
        background: Background = _on_its_own_thread,
        borrows_token: bool = False,
    ):
        """``borrows_token``: ``client`` has no token, and asks with the request's."""
        self._client = client
        self._borrows_token = borrows_token
        self._clock = clock
        self._background = background
        self._lock = threading.Lock()
        self._app_id: str | None = None
        self._asking = False
        self._next_attempt = float("-inf")

    def app_id(self, bot_id: str | None, token: str | None = None) -> str | None:
        """The app id, or None while it is not known (a lookup then starts in the background
        when none is running and one is due); ``bot_id`` is from ``auth.test``, and
        ``token`` the request's, for a client without one of its own (a distributed app:
        its id is the same in every workspace)."""
        with self._lock:
            due = (
                self._app_id is None
                and bool(bot_id)
                and not self._asking
                and self._clock() >= self._next_attempt
            )
            self._asking = self._asking or due
        if due and bot_id:
            self._background(partial(self._learn, bot_id, token))
        with self._lock:
            return self._app_id

    def _learn(self, bot_id: str, token: str | None) -> None:
        app_id: str | None = None
        retry_after = RETRY_SECONDS
        try:
            app_id, retry_after = self._ask(bot_id, token)
        finally:
            with self._lock:
                self._app_id = app_id
                self._next_attempt = self._clock() + retry_after
                self._asking = False

    def _ask(self, bot_id: str, token: str | None) -> tuple[str | None, float]:
        """The app id, or None and how long before asking again."""
        mine = {"token": token} if self._borrows_token and token else {}
        try:
            bot = self._client.bots_info(bot=bot_id, **mine).get("bot")
        except (SlackApiError, SlackClientError, OSError) as error:
            permanent = (
                isinstance(error, SlackApiError) and error.response.get("error") in _NEVER_GIVEN
            )
            log.warning("could not learn this app's id (events of any app are answered): %s", error)
            return None, float("inf") if permanent else RETRY_SECONDS
        app_id = bot.get("app_id") if isinstance(bot, dict) else None
        if isinstance(app_id, str) and app_id:
            return app_id, RETRY_SECONDS
        return None, RETRY_SECONDS


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
    own = OwnApp(lookup, borrows_token=client.token is None)

    def ignoring_other_apps(
        body: dict[str, Any], context: BoltContext, next: Callable[[], BoltResponse]
    ) -> BoltResponse | None:
        if body.get("type") == _EVENT_CALLBACK:
            app_id = own.app_id(context.bot_id, context.bot_token)
            other = app_id and other_apps(body, app_id)
            if other:
                log.info(
                    "ignoring event %s, meant for another app (%s)", body.get("event_id"), other
                )
                return BoltResponse(status=200, body="")
        return next()

    app.use(ignoring_other_apps)
