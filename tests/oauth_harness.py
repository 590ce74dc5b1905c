"""The real app distributed to many workspaces (``Settings.distributed``), served over HTTP on
127.0.0.1 against the fake Slack of ``fake_oauth``: its authorize page and Web API."""

from __future__ import annotations

import re
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from html import unescape
from pathlib import Path

from fake_oauth import CLIENT_ID, CLIENT_SECRET, OAuthSlack, Team
from slack_harness import SIGNING_SECRET, LiveBot, Reply, fixed_clock

from bot.papers.corpus import LoadedCorpus
from bot.settings import Settings
from bot.slack import payloads
from bot.slack.client import make_web_client
from bot.slack.oauth import INSTALL_PATH, REDIRECT_PATH

ALPHA = Team("T0ALPHA", "Alpha", "U0ALPHABOT", "B0ALPHA")
BETA = Team("T0BETA", "Beta", "U0BETABOT", "B0BETA")
GRID = Team(None, "Grid", "U0GRIDBOT", "B0GRID", enterprise_id="E0GRID", org_wide=True)
GRID_WORKSPACE = "T0GRIDWS"
"""A workspace of the ``GRID`` organisation, which the org-wide install serves."""
_HREF = re.compile(r'id="(?P<id>[a-z-]+)" href="(?P<href>[^"]+)"')


class DistributedBot(LiveBot):
    """One running distributed bot with no installation yet; ``install`` adds one."""

    def __init__(
        self,
        corpus: LoadedCorpus,
        tmp_path: Path,
        *,
        clock: Callable[[], datetime] = fixed_clock,
        database_url: str | None = None,
    ) -> None:
        self.workspace = payloads.Workspace()
        self.grid: Team | None = None
        self._corpus = corpus
        self._deferred = False
        self.recorder = OAuthSlack().start()
        self.settings = Settings(
            slack_signing_secret=SIGNING_SECRET,
            slack_api_url=self.recorder.base_url,
            slack_client_id=CLIENT_ID,
            slack_client_secret=CLIENT_SECRET,
            slack_authorize_url=self.recorder.authorize_page.url,
            database_url=database_url or f"sqlite:///{tmp_path / 'paperbot.db'}",
            scheduler_enabled=False,
        )
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="listener")
        self._serve(
            corpus,
            make_web_client(None, self.recorder.base_url),
            workspace=None,
            listener_executor=self._executor,
            clock=clock,
        )
        self.recorder.authorize_page.redirect_uri = self.url + REDIRECT_PATH

    def install(self, team: Team) -> Reply:
        """What a browser does to install the app in ``team``: the install page (which sets
        the state's cookie), its **Add to Slack** link to the authorize page, **Allow**, and
        the redirect back with the cookie; the last page's answer."""
        self.recorder.authorize_page.team = team
        page = urllib.request.urlopen(self.url + INSTALL_PATH, timeout=10)
        cookie = page.headers["Set-Cookie"].split(";")[0]
        authorize = links(page.read().decode())["add-to-slack"]
        allow = links(urllib.request.urlopen(authorize, timeout=10).read().decode())["allow"]
        back = urllib.request.Request(allow, headers={"Cookie": cookie})
        return self._send(back)

    def as_team(self, team: Team, *, workspace: str | None = None) -> None:
        """Send the next requests from ``team`` (its workspace ``workspace`` when the app is
        installed org-wide), from a channel of its own."""
        team_id = workspace or str(team.team_id)
        self.workspace = payloads.Workspace(
            team_id=team_id,
            bot_user_id=team.bot_user_id,
            channel_id=f"C0{team_id[1:]}",
            channel_name=f"{team.name.lower()}-research",
        )
        self.grid = team if team.org_wide else None

    def slash(self, text: str, *, channel_id: str | None = None) -> Reply:
        if self.grid is None:
            return super().slash(text, channel_id=channel_id)
        fields = payloads.slash_command(self.workspace, text, self.recorder.response_url())
        fields.update(enterprise_id=str(self.grid.enterprise_id), is_enterprise_install="true")
        return self.signed_post(*payloads.form_body(fields))


def links(page: str) -> dict[str, str]:
    """The page's links by their element id."""
    return {match["id"]: unescape(match["href"]) for match in _HREF.finditer(page)}
