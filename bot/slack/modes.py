"""Which of the three run modes the environment asks for, and whether Slack lets it start.

The rules live here so that ``bot.cli`` can choose a mode (and say what is missing) before
anything slow is loaded; ``bot.wiring.root`` then serves the mode chosen.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.settings import Settings, StartupError

SOCKET, HTTP, SHELL = "socket", "http", "shell"
MODE_NAMES = {SOCKET: "Socket Mode", HTTP: "HTTP", SHELL: "local shell"}


class ModeError(StartupError, ValueError):
    """The chosen mode cannot start; the message names the variable or service to fix."""


def _require(settings: Settings, names: Iterable[str]) -> None:
    values = {
        "SLACK_BOT_TOKEN": settings.slack_bot_token,
        "SLACK_APP_TOKEN": settings.slack_app_token,
        "SLACK_SIGNING_SECRET": settings.slack_signing_secret,
    }
    prefixes = {"SLACK_BOT_TOKEN": "xoxb-", "SLACK_APP_TOKEN": "xapp-"}
    for name in names:
        value = values[name]
        if not value:
            raise ModeError(f"{name} is not set")
        prefix = prefixes.get(name)
        if prefix and not value.startswith(prefix):
            raise ModeError(f"{name} must be a token starting with {prefix!r}")


def choose_mode(settings: Settings, forced: str | None) -> str:
    """The mode to run in: forced by a flag, else from which variables are set.

    Raises ``ModeError`` naming the variable that is missing or holds the wrong kind of token.
    """
    mode = forced
    if mode is None:
        if settings.slack_bot_token and settings.slack_app_token:
            mode = SOCKET
        elif settings.slack_signing_secret and (settings.slack_bot_token or settings.distributed):
            mode = HTTP
        elif settings.distributed:
            raise ModeError("SLACK_SIGNING_SECRET is not set (an app installed through OAuth)")
        elif not settings.any_slack_variable:
            mode = SHELL
        elif not settings.slack_bot_token:
            raise ModeError("SLACK_BOT_TOKEN is not set")
        else:
            raise ModeError(
                "SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP) is not set"
            )
    if mode == SOCKET:
        _require(settings, ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"))
    elif mode == HTTP and settings.distributed:
        _require(settings, ("SLACK_SIGNING_SECRET",))
        if settings.slack_bot_token:
            raise ModeError(
                "SLACK_BOT_TOKEN and SLACK_CLIENT_ID are both set: an app installed through "
                "OAuth answers each workspace with its own token, so leave SLACK_BOT_TOKEN unset"
            )
    elif mode == HTTP:
        _require(settings, ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"))
    elif mode != SHELL:
        raise ModeError(f"unknown mode {mode!r}")
    return mode


def mode_configured(settings: Settings, mode: str) -> bool:
    """Whether the environment asks for ``mode`` at all: its own variable is set (the app
    token for Socket Mode, the signing secret for HTTP)."""
    if mode == SOCKET:
        return settings.slack_app_token is not None
    if mode == HTTP:
        return settings.slack_signing_secret is not None
    return True


_QUIET = logging.getLogger("paperbot.preflight")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False


def check_slack(settings: Settings, mode: str) -> str | None:
    """Ask Slack who the bot is (and, for Socket Mode, for a connection) before loading
    anything, so a revoked token or an unreachable API stops the start-up with one line
    instead of failing every request later; the workspace the token serves (``auth.test``'s
    ``team_id``), which the store gives the rows that name none.

    One attempt, through a client that logs nothing: its retries and error logs would put a
    dozen lines in front of the one that says what to fix. A distributed app has no token
    of its own to check (each workspace's is checked as it is used) and serves no one
    workspace.
    """
    if mode == HTTP and settings.distributed:
        return None
    client = WebClient(
        token=settings.slack_bot_token,
        base_url=settings.slack_api_url or WebClient.BASE_URL,
        logger=_QUIET,
        retry_handlers=[],
    )
    checks = [("SLACK_BOT_TOKEN", client.auth_test)]
    if mode == SOCKET:
        checks.append(
            (
                "SLACK_APP_TOKEN",
                lambda: client.apps_connections_open(app_token=settings.slack_app_token),
            )
        )
    answers = []
    for variable, check in checks:
        try:
            answers.append(check())
        except SlackApiError as error:
            raise ModeError(_refusal(variable, client, error)) from None
        except OSError as error:
            raise ModeError(_unreachable(client, error)) from None
    return answers[0].get("team_id")


def _refusal(variable: str, client: WebClient, error: SlackApiError) -> str:
    """Slack refuses a token with HTTP 200 and an error code (``invalid_auth``); anything
    else is not Slack speaking (an outage, a proxy, a wrong ``SLACK_API_URL``)."""
    status = error.response.status_code
    code = error.response.data.get("error") if isinstance(error.response.data, dict) else None
    if status != 200 or not isinstance(code, str) or not code.isidentifier():
        return (
            f"the Slack API at {client.base_url} answered HTTP {status}, not as Slack does: "
            "check SLACK_API_URL, or try again later"
        )
    return f"Slack rejected {variable} ({code}): copy the token from the app's settings again"


def _unreachable(client: WebClient, error: OSError) -> str:
    reason = getattr(error, "reason", None) or error.strerror or error
    return f"cannot reach the Slack API at {client.base_url} ({reason}): check SLACK_API_URL"
