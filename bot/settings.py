"""Every setting the bot reads, in one place.

Nothing else in the project touches ``os.environ``: the settings object is built once at
start-up (from the environment, after loading ``.env``) and passed down, so tests can build
one directly and the README can list every variable from this file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dotenv import load_dotenv

SECRET_VARIABLES = (
    "SLACK_BOT_TOKEN",
    "SLACK_APP_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_CLIENT_SECRET",
)
"""Taken out of the process environment once read: no library then reads a token behind the
settings' back (Bolt would pick ``SLACK_BOT_TOKEN`` up again and warn that the client's token
wins), and no child process inherits one."""
BOLT_OAUTH_VARIABLES = ("SLACK_CLIENT_ID", "SLACK_SCOPES", "SLACK_REDIRECT_URI")
"""Also taken out: with ``SLACK_CLIENT_ID`` and the secret in the environment Bolt would turn
OAuth on by itself, whatever mode the settings chose."""
DEFAULT_SCOPES = (
    "app_mentions:read",
    "channels:history",
    "channels:read",
    "chat:write",
    "commands",
    "files:write",
    "groups:history",
    "groups:read",
    "im:history",
    "im:write",
    "links:read",
    "links:write",
    "mpim:history",
    "reactions:read",
    "users:read",
)
"""The bot scopes an install asks for: the manifests' (``tests/test_settings.py`` keeps them
the same)."""


class StartupError(Exception):
    """Something the operator must fix before the bot can start: ``python -m bot`` prints the
    message as one line and exits 2, so it must name what to fix and never hold a secret."""


class SettingsError(StartupError, ValueError):
    """A setting has a value the bot cannot use; the message names the variable."""


def _flag(name: str, value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise SettingsError(f"{name} must be on or off, not {value!r}")


def _timezone(value: str) -> str:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise SettingsError(
            f"PAPERBOT_TIMEZONE must be UTC or an IANA zone such as Europe/Berlin, not {value!r}"
        ) from None
    return value


_CLOCK_TIME = re.compile(r"([01]?\d|2[0-3]):([0-5]\d)")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
DEFAULT_LOG_LEVEL = "INFO"
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
SLACK_CORPUS = "catalogue"
TERMINAL_CORPUS = "seeds"


def _digest_time(value: str) -> str:
    if _CLOCK_TIME.fullmatch(value) is None:
        raise SettingsError(
            f"PAPERBOT_DIGEST_TIME must be a 24-hour time such as 09:00 or 17:30, not {value!r}"
        )
    return value


def _log_level(value: str | None) -> str | None:
    if value is None:
        return None
    level = value.upper()
    if level not in LOG_LEVELS:
        raise SettingsError(
            f"PAPERBOT_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {value!r}"
        )
    return level


def _url(name: str, value: str | None, example: str) -> str | None:
    if value is not None and not value.startswith(("http://", "https://")):
        raise SettingsError(
            f"{name} must be an http:// or https:// URL such as {example}, not {value!r}"
        )
    return value


def _scopes(value: str | None) -> tuple[str, ...]:
    if value is None:
        return DEFAULT_SCOPES
    scopes = tuple(scope.strip() for scope in value.split(",") if scope.strip())
    if not scopes or any(" " in scope for scope in scopes):
        raise SettingsError(
            f"SLACK_SCOPES must be bot scopes separated by commas, such as "
            f"chat:write,commands, not {value!r}"
        )
    return scopes


def _client(client_id: str | None, client_secret: str | None) -> tuple[str | None, str | None]:
    if bool(client_id) != bool(client_secret):
        missing = "SLACK_CLIENT_SECRET" if client_id else "SLACK_CLIENT_ID"
        raise SettingsError(f"{missing} is not set: an install needs both client credentials")
    return client_id, client_secret


def _seconds(name: str, value: str, lowest: float, highest: float) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not lowest <= seconds <= highest:
        raise SettingsError(
            f"{name} must be a number of seconds between {lowest:g} and {highest:g}, not {value!r}"
        )
    return seconds


DEFAULT_INDEX_DIR = Path("~/.cache/paperbot/index")
"""Where saved indexes go when ``PAPERBOT_INDEX_DIR`` is unset: a cache, which a host may
empty at any time at the cost of one rebuild."""


def _index_dir(value: str | None) -> Path | None:
    """``PAPERBOT_INDEX_DIR``: a directory (created when first written), or ``off``."""
    if value is not None and value.casefold() == "off":
        return None
    return Path(value or DEFAULT_INDEX_DIR).expanduser()


def _port(value: str) -> int:
    try:
        port = int(value)
    except ValueError:
        raise SettingsError(f"PORT must be a number, not {value!r}") from None
    if not 0 <= port <= 65535:
        raise SettingsError(f"PORT must be between 0 and 65535, not {port}")
    return port


ARXIV = "arxiv"
OPENREVIEW = "openreview"
CROSS_SUFFIX = "+cross"
_ARXIV_CATEGORY = re.compile(r"[a-z-]+(\.[A-Za-z-]+)?")
_OPENREVIEW_VENUE = re.compile(r"[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)+")
DEFAULT_ARXIV_RSS_URL = "https://rss.arxiv.org/rss/"
DEFAULT_ARXIV_OAI_URL = "https://oaipmh.arxiv.org/oai"
DEFAULT_ARXIV_API_URL = "https://export.arxiv.org/api/query"
DEFAULT_OPENREVIEW_URL = "https://api2.openreview.net"


@dataclass(frozen=True)
class FollowedFeed:
    """One entry of ``PAPERBOT_FEEDS``: an arXiv category (``cs.LG``; ``cross`` also takes
    papers cross-listed into it) or an OpenReview venue id (``ICLR.cc/2026/Conference``)."""

    source: str
    name: str
    cross: bool = False

    @property
    def key(self) -> str:
        """How the store and the words name it: ``arxiv:cs.LG``, ``openreview:ICLR.cc/…``."""
        return f"{self.source}:{self.name}"


def parse_feeds(value: str | None) -> tuple[FollowedFeed, ...]:
    """``PAPERBOT_FEEDS``: entries separated by spaces (or commas), each ``arxiv:CATEGORY``,
    ``arxiv:CATEGORY+cross`` or ``openreview:VENUE_ID``; the first malformed entry is named
    in the error, so the operator fixes that one word."""
    feeds: dict[str, FollowedFeed] = {}
    for entry in (value or "").replace(",", " ").split():
        source, _, name = entry.partition(":")
        cross = source == ARXIV and name.endswith(CROSS_SUFFIX)
        name = name.removesuffix(CROSS_SUFFIX) if cross else name
        valid = (source == ARXIV and _ARXIV_CATEGORY.fullmatch(name) is not None) or (
            source == OPENREVIEW and _OPENREVIEW_VENUE.fullmatch(name) is not None
        )
        if not valid:
            raise SettingsError(
                f"PAPERBOT_FEEDS: {entry!r} is not a feed; write arxiv:cs.LG, arxiv:cs.CL+cross "
                f"or openreview:ICLR.cc/2026/Conference, separated by spaces"
            )
        feed = FollowedFeed(source, name, cross)
        previous = feeds.get(feed.key)
        feeds[feed.key] = feed if previous is None or cross else previous
    return tuple(feeds.values())


@dataclass(frozen=True)
class Settings:
    """Configuration for one bot process. Defaults are the README's defaults."""

    slack_bot_token: str | None = None
    slack_app_token: str | None = None
    slack_signing_secret: str | None = None
    slack_api_url: str | None = None
    slack_client_id: str | None = None
    slack_client_secret: str | None = None
    """With the client id, the app is distributed: HTTP mode installs it in any workspace
    (``distributed``) and answers each with its own token."""
    slack_scopes: tuple[str, ...] = DEFAULT_SCOPES
    slack_redirect_uri: str | None = None
    """Where Slack sends the installer back (``https://HOST/slack/oauth_redirect``); unset,
    Slack uses the app's one redirect URL."""
    slack_authorize_url: str | None = None
    """Slack's authorize page (``https://slack.com/oauth/v2/authorize``); the tests point it
    at a loopback fake."""
    port: int = 3000
    corpus: str | None = None
    """``PAPERBOT_CORPUS``, or None when unset: then each kind of process has its default
    (``corpus_for``)."""
    database_url: str = "sqlite:///paperbot.db"
    timezone: str = "UTC"
    digest_channel: str | None = None
    digest_time: str = "09:00"
    scheduler_enabled: bool = True
    semantic: bool = True
    index_dir: Path | None = None
    """``PAPERBOT_INDEX_DIR``: where the built index is saved and opened from at the next
    start (``bot.search.snapshot``); None (``off``, or a settings object built directly, as
    the tests build theirs) builds it at every start and saves nothing."""
    drain_seconds: float = 25.0
    """How long a stopping process (SIGTERM) may finish what Slack was already promised:
    under Heroku's 30 s between SIGTERM and SIGKILL, with time left to exit."""
    watch_seconds: float = 30.0
    """How often a scheduling process reads the subscriptions' watermark, so a change made
    through another replica is scheduled here within this long: one indexed row a read."""
    feeds: tuple[FollowedFeed, ...] = ()
    """``PAPERBOT_FEEDS``: the arXiv categories and OpenReview venues followed; none (the
    default) means the bot makes no network call beyond Slack's."""
    arxiv_rss_url: str = DEFAULT_ARXIV_RSS_URL
    arxiv_oai_url: str = DEFAULT_ARXIV_OAI_URL
    arxiv_api_url: str = DEFAULT_ARXIV_API_URL
    openreview_url: str = DEFAULT_OPENREVIEW_URL
    log_level: str | None = None
    """``PAPERBOT_LOG_LEVEL``, or None when unset: then ``DEFAULT_LOG_LEVEL``, except that the
    local shell keeps the lines below WARNING off the terminal it converses in."""

    def corpus_for(self, *, slack: bool) -> str:
        """What a process searches: ``PAPERBOT_CORPUS``, else the whole conference for one
        that answers or posts in Slack (a team installing the bot expects all of it) and the
        seed papers for one in a terminal (the shell's quick start, ``paperbot search``)."""
        return self.corpus or (SLACK_CORPUS if slack else TERMINAL_CORPUS)

    @property
    def distributed(self) -> bool:
        """Whether the app is installed through OAuth into any number of workspaces, each
        answered with its own token, rather than served with one ``SLACK_BOT_TOKEN``."""
        return bool(self.slack_client_id and self.slack_client_secret)

    @property
    def any_slack_variable(self) -> bool:
        """Whether the operator configured Slack at all (else the shell is the default mode)."""
        return any(
            (
                self.slack_bot_token,
                self.slack_app_token,
                self.slack_signing_secret,
                self.slack_api_url,
                self.slack_client_id,
                self.slack_client_secret,
            )
        )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, *, dotenv: bool = True) -> Settings:
        """Read the environment; ``.env`` in the working directory fills what is unset."""
        if environ is None:
            if dotenv:
                load_dotenv(Path.cwd() / ".env", override=False)
            environ = os.environ

        def get(name: str) -> str | None:
            value = environ.get(name, "").strip()
            return value or None

        def source_url(name: str, default: str) -> str:
            """A feed's endpoint: the real one unless set (tests and mirrors set it)."""
            return _url(name, get(name), default) or default

        client_id, client_secret = _client(get("SLACK_CLIENT_ID"), get("SLACK_CLIENT_SECRET"))
        settings = cls(
            slack_bot_token=get("SLACK_BOT_TOKEN"),
            slack_app_token=get("SLACK_APP_TOKEN"),
            slack_signing_secret=get("SLACK_SIGNING_SECRET"),
            slack_api_url=_url("SLACK_API_URL", get("SLACK_API_URL"), "https://slack.com/api/"),
            slack_client_id=client_id,
            slack_client_secret=client_secret,
            slack_scopes=_scopes(get("SLACK_SCOPES")),
            slack_redirect_uri=_url(
                "SLACK_REDIRECT_URI",
                get("SLACK_REDIRECT_URI"),
                "https://paperbot.example.org/slack/oauth_redirect",
            ),
            slack_authorize_url=_url(
                "SLACK_AUTHORIZE_URL",
                get("SLACK_AUTHORIZE_URL"),
                "https://slack.com/oauth/v2/authorize",
            ),
            port=_port(get("PORT") or "3000"),
            corpus=get("PAPERBOT_CORPUS"),
            database_url=get("PAPERBOT_DATABASE_URL") or "sqlite:///paperbot.db",
            timezone=_timezone(get("PAPERBOT_TIMEZONE") or "UTC"),
            digest_channel=get("PAPERBOT_DIGEST_CHANNEL"),
            digest_time=_digest_time(get("PAPERBOT_DIGEST_TIME") or "09:00"),
            scheduler_enabled=_flag("PAPERBOT_SCHEDULER", get("PAPERBOT_SCHEDULER") or "on"),
            semantic=_flag("PAPERBOT_SEMANTIC", get("PAPERBOT_SEMANTIC") or "on"),
            index_dir=_index_dir(get("PAPERBOT_INDEX_DIR")),
            drain_seconds=_seconds(
                "PAPERBOT_DRAIN_SECONDS", get("PAPERBOT_DRAIN_SECONDS") or "25", 0, 3600
            ),
            watch_seconds=_seconds(
                "PAPERBOT_WATCH_SECONDS", get("PAPERBOT_WATCH_SECONDS") or "30", 1, 3600
            ),
            feeds=parse_feeds(get("PAPERBOT_FEEDS")),
            arxiv_rss_url=source_url("PAPERBOT_ARXIV_RSS_URL", DEFAULT_ARXIV_RSS_URL),
            arxiv_oai_url=source_url("PAPERBOT_ARXIV_OAI_URL", DEFAULT_ARXIV_OAI_URL),
            arxiv_api_url=source_url("PAPERBOT_ARXIV_API_URL", DEFAULT_ARXIV_API_URL),
            openreview_url=source_url("PAPERBOT_OPENREVIEW_URL", DEFAULT_OPENREVIEW_URL),
            log_level=_log_level(get("PAPERBOT_LOG_LEVEL")),
        )
        if environ is os.environ:
            for name in (*SECRET_VARIABLES, *BOLT_OAUTH_VARIABLES):
                os.environ.pop(name, None)
        return settings
