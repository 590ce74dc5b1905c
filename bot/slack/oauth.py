"""Installing the app in any workspace ("Add to Slack"): Bolt's OAuth flow, with the bot's
own pages and its database's stores.

Bolt does the flow: ``GET /slack/install`` issues a one-time state (kept in the database, and
in a cookie of the installer's browser) and shows the install page, whose button leads to
Slack's authorize page; Slack sends the installer back to ``GET /slack/oauth_redirect`` with a
code, which Bolt checks against the state and trades for the workspace's tokens
(``oauth.v2.access``), then stores the installation. This module gives it the pages people
see (worded in ``bot.render.install``) and logs each outcome; the stores come from the
store (``Store.installation_store``, ``Store.oauth_state_store``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from slack_bolt import BoltRequest, BoltResponse
from slack_bolt.oauth import OAuthFlow
from slack_bolt.oauth.callback_options import CallbackOptions, FailureArgs, SuccessArgs
from slack_bolt.oauth.oauth_settings import OAuthSettings
from slack_sdk import WebClient
from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from slack_sdk.oauth.state_store import OAuthStateStore

from bot.render import install as pages
from bot.settings import Settings

log = logging.getLogger(__name__)

INSTALL_PATH = "/slack/install"
REDIRECT_PATH = "/slack/oauth_redirect"
STATE_SECONDS = 600
"""How long an install link works: Slack's own default."""
TOKEN_ROTATION_MINUTES = 120
"""A rotating token is refreshed when it has less than this left (it lives 12 hours)."""
_HTML = {"Content-Type": "text/html; charset=utf-8"}


@dataclass(frozen=True)
class Distribution:
    """Where installations and OAuth states are kept: the bot's database."""

    installation_store: SQLAlchemyInstallationStore
    state_store: OAuthStateStore


class PaperbotOAuthFlow(OAuthFlow):
    """Bolt's flow, with the bot's own install page."""

    def build_install_page_html(self, url: str, request: BoltRequest) -> str:
        return pages.install_page(url)


def oauth_flow(settings: Settings, client: WebClient, distribution: Distribution) -> OAuthFlow:
    """The flow for ``settings``' app; ``client`` makes its Web API calls (``oauth.v2.access``
    and ``auth.test``, at ``SLACK_API_URL``)."""
    options = OAuthSettings(
        client_id=settings.slack_client_id,
        client_secret=settings.slack_client_secret,
        scopes=list(settings.slack_scopes),
        user_scopes=[],
        redirect_uri=settings.slack_redirect_uri,
        install_path=INSTALL_PATH,
        redirect_uri_path=REDIRECT_PATH,
        callback_options=CallbackOptions(success=_installed, failure=_failed),
        authorization_url=settings.slack_authorize_url,
        installation_store=distribution.installation_store,
        installation_store_bot_only=True,
        token_rotation_expiration_minutes=TOKEN_ROTATION_MINUTES,
        state_store=distribution.state_store,
        state_expiration_seconds=STATE_SECONDS,
        logger=log,
    )
    return PaperbotOAuthFlow(client=client, logger=log, settings=options)


def _installed(args: SuccessArgs) -> BoltResponse:
    installation = args.installation
    if installation.is_enterprise_install:
        key, name = installation.enterprise_id, installation.enterprise_name
    else:
        key, name = installation.team_id, installation.team_name
    log.info(
        "installed in %s (%s)%s",
        key,
        name or "no name",
        ", org-wide" if installation.is_enterprise_install else "",
    )
    open_url = pages.open_in_slack_url(installation.app_id, installation.team_id or key)
    return _page(args.settings, 200, pages.installed_page(name, open_url))


def _failed(args: FailureArgs) -> BoltResponse:
    detail = f" ({args.error})" if args.error is not None else ""
    log.warning("an install failed: %s%s", args.reason, detail)
    status = args.suggested_status_code if args.reason != "access_denied" else 200
    page = pages.install_failed_page(args.reason, args.settings.install_path)
    return _page(args.settings, status, page)


def _page(settings: OAuthSettings, status: int, html: str) -> BoltResponse:
    """The page, and the browser's state cookie cleared: the state is used up either way."""
    headers: dict[str, Any] = {
        **_HTML,
        "Set-Cookie": [settings.state_utils.build_set_cookie_for_deletion()],
    }
    return BoltResponse(status=status, body=html, headers=headers)
