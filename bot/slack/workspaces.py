"""Which token answers which workspace when the app is distributed (``Settings.distributed``).

Within a request Bolt decides: ``InstalledWorkspaces`` is its authorization from the
installation store, refreshing a rotating token that is about to expire, so each listener's
``client`` carries the token of the workspace the request came from. A request from a
workspace with no installation (the app was removed, or its install lost) gets no answer
but a short note where a person is waiting (``not_installed``), and one log line per
workspace rather than one per event.

Outside a request (the paper of the day, the weekly digest), ``WorkspaceClients`` gives the
client of the workspace a channel belongs to, by the key the bot's rows carry (a team id, or
an org-wide install's enterprise id: ``bot.store.installations``), refreshing its token
first with slack_sdk's ``TokenRotator`` when it is about to expire.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from slack_bolt import BoltContext, BoltResponse
from slack_bolt.authorization import AuthorizeResult
from slack_bolt.authorization.authorize import InstallationStoreAuthorize
from slack_sdk import WebClient
from slack_sdk.errors import SlackTokenRotationError
from slack_sdk.oauth.installation_store import Bot, InstallationStore
from slack_sdk.oauth.token_rotation import TokenRotator

from bot.render.install import not_installed_reply
from bot.slack.client import make_web_client
from bot.slack.delivery.retry import DIGEST_PATIENCE

log = logging.getLogger(__name__)

NOT_INSTALLED = "paperbot_not_installed"
"""The context key ``InstalledWorkspaces`` sets for a request from a workspace without an
installation, which ``not_installed`` then answers."""


class InstalledWorkspaces(InstallationStoreAuthorize):
    """Bolt's authorization from the installation store (which refreshes rotating tokens),
    that lets a request from a workspace with no installation through without a token, for
    ``not_installed`` to answer, and logs each such workspace once."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lock = threading.Lock()
        self._logged: set[tuple[str | None, str | None]] = set()

    def __call__(
        self,
        *,
        context: BoltContext,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None,
        **actor: Any,
    ) -> AuthorizeResult | None:
        result = super().__call__(
            context=context, enterprise_id=enterprise_id, team_id=team_id, user_id=user_id, **actor
        )
        key = (enterprise_id, None if context.is_enterprise_install else team_id)
        with self._lock:
            if result is not None:
                self._logged.discard(key)
                return result
            first = key not in self._logged
            self._logged.add(key)
        if first:
            log.warning(
                "a request from %s, where paperbot has no installation: not answered (logged "
                "once per workspace)",
                " / ".join(part for part in key if part) or "an unnamed workspace",
            )
        context[NOT_INSTALLED] = True
        return AuthorizeResult(enterprise_id=enterprise_id, team_id=team_id, user_id=user_id)


def not_installed(
    context: BoltContext, body: dict[str, Any], next: Callable[[], BoltResponse]
) -> BoltResponse | None:
    """Answer a request from a workspace without an installation before any listener sees
    it: an event with nothing, a command or a click with a note only its person sees."""
    if not context.get(NOT_INSTALLED):
        return next()
    if body.get("type") == "event_callback" or "event" in body:
        return BoltResponse(status=200, body="")
    if context.response_url:
        context.respond(not_installed_reply(), response_type="ephemeral")
        return BoltResponse(status=200, body="")
    return BoltResponse(status=200, body=not_installed_reply())


class WorkspaceClients:
    """The Web API client of each workspace, for what the bot sends outside a request."""

    def __init__(
        self,
        find_bot: Callable[[str], Bot | None],
        installation_store: InstallationStore,
        rotator: TokenRotator,
        base_url: str | None,
        *,
        rotation_minutes: int,
    ) -> None:
        self._find_bot = find_bot
        self._installation_store = installation_store
        self._rotator = rotator
        self._base_url = base_url
        self._rotation_minutes = rotation_minutes
        self._logged: set[str | None] = set()

    def __call__(self, workspace: str | None) -> WebClient | None:
        """The client posting as the bot in ``workspace`` (retrying only what cannot have
        been delivered, as the daily post needs), or None when the app is not installed
        there: nothing is then sent in its name."""
        bot = self._find_bot(workspace) if workspace else None
        if bot is None:
            if workspace not in self._logged:
                self._logged.add(workspace)
                log.warning(
                    "no installation in %s: its scheduled posts are skipped",
                    workspace or "a channel of unknown workspace",
                )
            return None
        self._logged.discard(workspace)
        if bot.bot_refresh_token is not None:
            try:
                refreshed = self._rotator.perform_bot_token_rotation(
                    bot=bot, minutes_before_expiration=self._rotation_minutes
                )
            except SlackTokenRotationError as error:
                log.error("could not refresh the bot token of %s: %s", workspace, error.api_error)
                return None
            if refreshed is not None:
                self._installation_store.save_bot(refreshed)
                log.info("refreshed the bot token of %s", workspace)
                bot = refreshed
        return make_web_client(
            bot.bot_token, self._base_url, retry_maybe_delivered=False, patience=DIGEST_PATIENCE
        )
