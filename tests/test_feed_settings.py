"""``PAPERBOT_FEEDS`` and the sources' endpoints: what a followed feed is, and the one line a
malformed entry stops the bot with."""

from __future__ import annotations

import subprocess
import sys

import pytest
from project import PROJECT_ROOT

from bot.settings import FollowedFeed, Settings, SettingsError


def test_feeds_are_read_in_order_with_cross_lists_where_asked() -> None:
    settings = Settings.from_env(
        {"PAPERBOT_FEEDS": "arxiv:cs.LG arxiv:cs.CL+cross, openreview:ICLR.cc/2026/Conference"}
    )
    assert settings.feeds == (
        FollowedFeed("arxiv", "cs.LG"),
        FollowedFeed("arxiv", "cs.CL", cross=True),
        FollowedFeed("openreview", "ICLR.cc/2026/Conference"),
    )
    assert [feed.key for feed in settings.feeds][2] == "openreview:ICLR.cc/2026/Conference"


def test_no_feed_and_the_real_endpoints_by_default() -> None:
    settings = Settings.from_env({})
    assert settings.feeds == ()
    assert settings.arxiv_rss_url == "https://rss.arxiv.org/rss/"
    assert settings.openreview_url == "https://api2.openreview.net"


@pytest.mark.parametrize(
    "entry", ["arxv:cs.LG", "arxiv:", "openreview:ICLR", "cs.LG", "arxiv:cs.LG;"]
)
def test_a_malformed_entry_is_named(entry: str) -> None:
    with pytest.raises(SettingsError, match="PAPERBOT_FEEDS") as raised:
        Settings.from_env({"PAPERBOT_FEEDS": f"arxiv:cs.LG {entry}"})
    assert repr(entry.split()[0]) in str(raised.value)


def test_a_malformed_entry_stops_start_up_with_one_line(tmp_path) -> None:
    environment = {"PATH": "", "PAPERBOT_FEEDS": "arxiv:cs.LG arxiv/cs.CL", "HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=environment | {"PYTHONPATH": str(PROJECT_ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "paperbot: PAPERBOT_FEEDS: 'arxiv/cs.CL' is not a feed; write arxiv:cs.LG, "
        "arxiv:cs.CL+cross or openreview:ICLR.cc/2026/Conference, separated by spaces"
    ]


def test_an_endpoint_must_be_a_url() -> None:
    with pytest.raises(SettingsError, match="PAPERBOT_OPENREVIEW_URL"):
        Settings.from_env({"PAPERBOT_OPENREVIEW_URL": "api2.openreview.net"})
