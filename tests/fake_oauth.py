"""A loopback fake of Slack's OAuth beside the fake Web API: the authorize page a browser is
sent to, which sends it back with a code; ``oauth.v2.access`` (a code for tokens, and a
refresh token for a new token); ``auth.test`` answering for whichever workspace a token
belongs to; and every other Web API call refused with ``invalid_auth`` or
``token_expired`` unless it carries a live token. Each call is recorded with the token it
carried (``RecordedCall.token``), so tests can say which workspace's token answered.
"""

from __future__ import annotations

import base64
import html
import itertools
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from faulty_slack import FaultySlackRecorder

from bot.shell.fake_slack import FILE_UPLOAD, RESPONSE_URL, RecordedCall

CLIENT_ID = "1234567890.0987654321"
CLIENT_SECRET = "c1e2n3t4s5e6c7r8e9t0abcdef123456"
APP_ID = "A0PAPERBOT"
EXPIRES_IN = 43_200
"""Slack's rotating tokens live 12 hours."""


@dataclass(frozen=True)
class Team:
    """A pretend workspace the app can be installed in (or an Enterprise Grid organisation,
    when installed org-wide)."""

    team_id: str | None
    name: str
    bot_user_id: str
    bot_id: str
    enterprise_id: str | None = None
    org_wide: bool = False

    @property
    def key(self) -> str:
        """How the bot keys the installation: the organisation for an org-wide install."""
        return str(self.enterprise_id if self.org_wide else self.team_id)


class OAuthSlack(FaultySlackRecorder):
    """The fake Web API, knowing the tokens of every workspace installed through it."""

    def __init__(self, *, rotating: bool = True, **options: Any) -> None:
        super().__init__(**options)
        self.rotating = rotating
        self.expires_in = EXPIRES_IN
        """What ``oauth.v2.access`` says a new token lives (rotating tokens)."""
        self._serial = itertools.count(1)
        self._codes: dict[str, Team] = {}
        self._live: dict[str, Team] = {}
        self._expired: set[str] = set()
        self._refresh: dict[str, Team] = {}
        self.authorize_page = AuthorizePage(self)

    def start(self) -> OAuthSlack:
        super().start()
        self.authorize_page.start()
        return self

    def stop(self) -> None:
        self.authorize_page.stop()
        super().stop()

    # scripting

    def code_for(self, team: Team) -> str:
        """A one-time code, as Slack's authorize page hands out once the person allows."""
        with self._condition:
            code = f"{next(self._serial)}.code.{team.key}"
            self._codes[code] = team
            return code

    def token_of(self, team: Team) -> str:
        """The workspace's live bot token (the newest)."""
        with self._condition:
            return [token for token, owner in self._live.items() if owner == team][-1]

    def expire(self, team: Team) -> None:
        """The workspace's tokens outlive their 12 hours: Slack refuses them from now on."""
        with self._condition:
            for token in [token for token, owner in self._live.items() if owner == team]:
                del self._live[token]
                self._expired.add(token)

    def team_of(self, token: str | None) -> Team | None:
        with self._condition:
            return self._live.get(token or "")

    # answering

    def handle(
        self, method: str, args: dict[str, Any], token: str | None, response_id: str | None = None
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        if method in {RESPONSE_URL, FILE_UPLOAD}:
            return super().handle(method, args, token, response_id)
        with self._condition:
            answer = self._oauth_answer(method, args, token)
            if answer is not None:
                self._calls.append(RecordedCall(method, args, token, 200, answer, response_id))
                self._condition.notify_all()
        if answer is not None:
            return 200, answer, {}
        return super().handle(method, args, token, response_id)

    def _oauth_answer(
        self, method: str, args: dict[str, Any], token: str | None
    ) -> dict[str, Any] | None:
        """The answer of an OAuth method or of a call without a live token; None for the
        Web API to answer as usual. Called with the state locked."""
        if method == "oauth.v2.access":
            return self._access(args, token)
        team = self._live.get(token or "")
        if team is None:
            error = "token_expired" if token in self._expired else "invalid_auth"
            return {"ok": False, "error": error}
        if method == "auth.test":
            return {
                "ok": True,
                "url": f"https://{team.name.lower()}.slack.com/",
                "team": team.name,
                "user": "paperbot",
                "team_id": team.team_id,
                "user_id": team.bot_user_id,
                "bot_id": team.bot_id,
                "enterprise_id": team.enterprise_id,
                "is_enterprise_install": team.org_wide,
            }
        return None

    def _access(self, args: dict[str, Any], authorization: str | None) -> dict[str, Any]:
        client = base64.b64decode((authorization or "").removeprefix("Basic ")).decode()
        if client != f"{CLIENT_ID}:{CLIENT_SECRET}":
            return {"ok": False, "error": "invalid_client"}
        if args.get("grant_type") == "refresh_token":
            team = self._refresh.get(args.get("refresh_token", ""))
            if team is None:
                return {"ok": False, "error": "invalid_refresh_token"}
            return {"ok": True, "token_type": "bot", **self._issue(team, refresh=False)}
        team = self._codes.pop(args.get("code", ""), None)
        if team is None:
            return {"ok": False, "error": "invalid_code"}
        return {
            "ok": True,
            "app_id": APP_ID,
            "authed_user": {"id": "U0INSTALLER"},
            "scope": "chat:write,commands",
            "token_type": "bot",
            "bot_user_id": team.bot_user_id,
            "team": None if team.org_wide else {"id": team.team_id, "name": team.name},
            "enterprise": (
                {"id": team.enterprise_id, "name": team.name} if team.enterprise_id else None
            ),
            "is_enterprise_install": team.org_wide,
            **self._issue(team, refresh=True),
        }

    def _issue(self, team: Team, *, refresh: bool) -> dict[str, Any]:
        serial = next(self._serial)
        prefix = "xoxe.xoxb" if self.rotating else "xoxb"
        token = f"{prefix}-{serial}-{team.key}-s3cr3t"
        self._live[token] = team
        issued: dict[str, Any] = {"access_token": token}
        if self.rotating:
            refresh_token = f"xoxe-1-{team.key}-refresh-{serial}"
            if refresh:
                self._refresh[refresh_token] = team
            else:
                refresh_token = next(r for r, owner in self._refresh.items() if owner == team)
            issued.update(refresh_token=refresh_token, expires_in=self.expires_in)
        return issued


class AuthorizePage:
    """Slack's authorize page on its own loopback port: it shows which workspace the app is
    being added to and an **Allow** button, which sends the browser back to the redirect URL
    with a code and the state it was given (or **Cancel**: ``error=access_denied``)."""

    def __init__(self, slack: OAuthSlack) -> None:
        self.slack = slack
        self.team: Team | None = None
        """The workspace the next visitor installs into (the one they picked)."""
        self.redirect_uri: str | None = None
        """Where to send them back when the authorize URL names none (the app's setting)."""
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/oauth/v2/authorize"

    def start(self) -> None:
        page = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                status, body = page.render(self.path)
                payload = body.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: what matters is recorded by the bot."""

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def render(self, path: str) -> tuple[int, str]:
        split = urlsplit(path)
        query = dict(parse_qsl(split.query))
        team, back = self.team, query.get("redirect_uri") or self.redirect_uri
        if split.path != "/oauth/v2/authorize" or query.get("client_id") != CLIENT_ID:
            return 404, "<h1>There's been a glitch</h1>"
        if team is None or back is None:
            return 400, "<h1>No workspace to install into</h1>"
        state = {"state": query["state"]} if "state" in query else {}
        allow = f"{back}?{urlencode({'code': self.slack.code_for(team), **state})}"
        cancel = f"{back}?{urlencode({'error': 'access_denied', **state})}"
        return 200, (
            f"<html><body><h1>paperbot is requesting permission to access the "
            f"{html.escape(team.name)} Slack workspace</h1>"
            f"<p>Scopes: {html.escape(query.get('scope', ''))}</p>"
            f'<a id="allow" href="{html.escape(allow)}">Allow</a> '
            f'<a id="cancel" href="{html.escape(cancel)}">Cancel</a></body></html>'
        )
