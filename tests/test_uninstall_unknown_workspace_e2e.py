"""Over HTTP: an uninstall naming a workspace the bot has never served deletes nothing, on a
fresh database whose only channel is ``PAPERBOT_DIGEST_CHANNEL`` and on one upgraded from
schema 3 (whose rows name no workspace); and a paper of the day whose claim row was lost is
found in the channel rather than posted twice."""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from faulty_slack import slack_error
from older_schemas import tables_as_before
from project import free_port, start_bot
from slack_harness import FIXED_NOW, LiveBot
from sqlalchemy import Table, create_engine, select
from test_privacy_store import table_contents

from bot.digest.cli import main as digest_main
from bot.digest.posting import EVENT_TYPE
from bot.papers.corpus import LoadedCorpus
from bot.settings import Settings
from bot.shell.fake_slack import SlackRecorder
from bot.slack import payloads
from bot.slack.client import digest_client
from bot.store import Store
from bot.store.tables import (
    digest_claims,
    digest_seen,
    saved_papers,
    saved_queries,
    schema_version,
    slack_events,
    subscriptions,
    thread_searches,
    unfurls,
)

DEFAULT_CHANNEL = "C0DEFAULT"
NEVER_SEEN = "T0NEVERSEEN"
TODAY = FIXED_NOW.date()


def _uninstall_from(bot: LiveBot, team_id: str, event: dict[str, Any], event_id: str) -> None:
    """``event``, signed as Slack signs it, from the workspace ``team_id``."""
    envelope = payloads.event_callback(
        replace(bot.workspace, team_id=team_id), event, event_id=event_id
    )
    assert bot.signed_post(*payloads.json_body(envelope)).status == 200
    bot.drain()


def _uninstalls_from_a_workspace_never_seen(bot: LiveBot) -> None:
    _uninstall_from(bot, NEVER_SEEN, {"type": "app_uninstalled"}, "Ev0NEVERSEEN")
    revoked = {"bot": [bot.workspace.bot_user_id]}
    _uninstall_from(bot, NEVER_SEEN, {"type": "tokens_revoked", "tokens": revoked}, "Ev0REVOKED")


def _digest_posts(bot: LiveBot, channel: str) -> list[dict[str, Any]]:
    return [
        message
        for message in bot.recorder.messages(channel)
        if (message.get("metadata") or {}).get("event_type") == EVENT_TYPE
    ]


@pytest.fixture
def default_channel_bot(seed_corpus: LoadedCorpus, tmp_path: Path) -> Any:
    live = LiveBot(seed_corpus, tmp_path, digest_channel=DEFAULT_CHANNEL)
    yield live
    live.close()


def test_an_unknown_workspace_deletes_nothing_of_the_default_channel(
    default_channel_bot: LiveBot,
) -> None:
    """The deployment uses only ``PAPERBOT_DIGEST_CHANNEL``: no subscription row says which
    workspace its rows are, and a signed uninstall from a stranger must not take them."""
    bot = default_channel_bot
    assert bot.services.digest.serve(DEFAULT_CHANNEL, force=True).status == "posted"
    assert bot.slash("graph neural networks", channel_id=DEFAULT_CHANNEL).status == 200
    bot.drain()
    before = table_contents(bot.settings.database_url)
    assert before["digest_claims"] and before["digest_seen"] and before["saved_queries"]
    _uninstalls_from_a_workspace_never_seen(bot)
    assert table_contents(bot.settings.database_url) == before
    again = bot.services.digest.serve(DEFAULT_CHANNEL, force=True)
    assert again.status == "already_posted"
    assert len(_digest_posts(bot, DEFAULT_CHANNEL)) == 1


SCHEMA_3_TABLES = (
    schema_version,
    slack_events,
    saved_queries,
    thread_searches,
    subscriptions,
    digest_seen,
    digest_claims,
    saved_papers,
    unfurls,
)
"""The tables of schema 3, each as today's less the columns added since."""
SINCE_SCHEMA_3 = {
    "thread_searches": {"team_id"},
    "subscriptions": {"kind", "team_id"},
    "digest_seen": {"team_id"},
    "digest_claims": {"kind", "period", "topic", "team_id"},
}
OLD_KEYS = {"subscriptions": {"channel"}, "digest_claims": {"channel", "local_date"}}
"""Schema 6 added the kind to both keys, and made a claim's date a period."""


def _schema_3_database(path: Path) -> None:
    """A database as the bot of schema 3 left it: 4 subscriptions, 13 posted days with their
    papers seen, remembered searches; no row names a workspace (nobody saved a paper)."""
    old = tables_as_before(SCHEMA_3_TABLES, added=SINCE_SCHEMA_3, keys=OLD_KEYS)
    then = datetime(2025, 4, 1, 9, 0, tzinfo=UTC)
    channels = [DEFAULT_CHANNEL, "C0ONE", "C0TWO", "C0THREE"]
    days = [
        (channel, date(2025, 4, 1) + timedelta(days=n)) for channel in channels for n in range(4)
    ]
    days = days[:13]
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        old.create_all(connection)
        rows = {
            "schema_version": [{"version": 3, "applied_at": then}],
            "slack_events": [{"event_id": "Ev0OLD", "seen_at": then}],
            "saved_queries": [
                {"key": f"{n:016x}", "query": f"query {n}", "kind": "search", "saved_at": then}
                for n in range(3)
            ],
            "thread_searches": [
                {
                    "channel": "C0ONE",
                    "thread_ts": "1.1",
                    "query": "graphs",
                    "shown": 5,
                    "updated_at": then,
                    "kind": "search",
                }
            ],
            "subscriptions": [
                {
                    "channel": channel,
                    "post_time": "09:00",
                    "zone": "UTC",
                    "cadence": "daily",
                    "topic": None,
                    "source": "command",
                    "active": True,
                    "paused_reason": None,
                    "updated_at": then,
                }
                for channel in channels
            ],
            "digest_claims": [
                {
                    "channel": channel,
                    "local_date": day,
                    "state": "posted",
                    "paper_id": f"paper-{n}",
                    "round": 0,
                    "position": n + 1,
                    "pool_size": 76,
                    "owner": None,
                    "ts": f"{1_700_000_000 + n}.000100",
                    "claimed_at": then,
                    "updated_at": then,
                    "posted_at": then,
                }
                for n, (channel, day) in enumerate(days)
            ],
            "digest_seen": [
                {"channel": channel, "round": 0, "paper_id": f"paper-{n}", "local_date": day}
                for n, (channel, day) in enumerate(days)
            ],
        }
        for name, values in rows.items():
            connection.execute(old.tables[name].insert(), values)
    engine.dispose()


def test_an_unknown_workspace_deletes_nothing_of_an_upgraded_database(
    seed_corpus: LoadedCorpus, tmp_path: Path
) -> None:
    """Upgraded from schema 3, every channel row names no workspace; the bot serving its one
    workspace adopts them, so a stranger's uninstall finds none of its own, and the real
    workspace's uninstall still deletes them all."""
    _schema_3_database(tmp_path / "paperbot.db")
    bot = LiveBot(seed_corpus, tmp_path, digest_channel=DEFAULT_CHANNEL)
    try:
        before = table_contents(bot.settings.database_url)
        counts = {name: len(rows) for name, rows in before.items()}
        assert counts["subscriptions"] == 4 and counts["saved_queries"] == 3
        assert counts["digest_claims"] == counts["digest_seen"] == 13
        _uninstalls_from_a_workspace_never_seen(bot)
        assert table_contents(bot.settings.database_url) == before
        assert bot.services.digest.serve("C0ONE", force=True).status == "posted"
        _uninstall_from(bot, bot.workspace.team_id, {"type": "app_uninstalled"}, "Ev0OURS")
        left = table_contents(bot.settings.database_url)
        assert {name for name, rows in left.items() if rows} <= {"schema_version", "revisions"}
    finally:
        bot.close()


def test_a_lost_claim_does_not_post_twice(default_channel_bot: LiveBot) -> None:
    """The day's claim row is gone after the post (deleted, a restored backup): the next
    attempt finds the post in the channel's history and records it instead of posting."""
    bot = default_channel_bot
    first = bot.services.digest.serve(DEFAULT_CHANNEL, force=True)
    assert first.status == "posted"
    engine = create_engine(bot.settings.database_url)
    with engine.begin() as connection:
        connection.execute(digest_claims.delete())
    engine.dispose()
    again = bot.services.digest.serve(DEFAULT_CHANNEL, force=True)
    assert (again.status, again.ts) == ("recovered", first.ts)
    posts = _digest_posts(bot, DEFAULT_CHANNEL)
    assert [post["ts"] for post in posts] == [first.ts]
    assert posts[0]["metadata"]["event_payload"]["date"] == TODAY.isoformat()
    assert bot.services.store.digest_claim(DEFAULT_CHANNEL, TODAY).ts == first.ts
    assert bot.services.digest.serve(DEFAULT_CHANNEL, force=True).status == "already_posted"


def test_a_history_the_bot_cannot_read_does_not_stop_the_post(
    default_channel_bot: LiveBot, caplog: pytest.LogCaptureFixture
) -> None:
    bot = default_channel_bot
    bot.recorder.fail_next("conversations.history", slack_error("missing_scope"))
    with caplog.at_level(logging.WARNING, logger="bot.digest.posting"):
        assert bot.services.digest.serve(DEFAULT_CHANNEL, force=True).status == "posted"
    assert "could not read" in caplog.text and "missing_scope" in caplog.text
    assert len(_digest_posts(bot, DEFAULT_CHANNEL)) == 1


def test_a_served_bot_gives_rows_of_unknown_workspace_the_one_auth_test_names(
    tmp_path: Path,
) -> None:
    """``python -m bot --http`` asks Slack who it is at start, and the store adopts the rows
    that name no workspace into that one before the first request."""
    url = f"sqlite:///{tmp_path / 'bot.db'}"
    unaware = Store(url)
    unaware.remember_thread_search("C0OLD", "1.1", "graphs", 5)
    unaware.close()
    port = free_port()
    with SlackRecorder(team_id="T0SERVED") as recorder:
        process = start_bot(
            tmp_path,
            SLACK_BOT_TOKEN="xoxb-1-served",
            SLACK_SIGNING_SECRET="served-secret",
            SLACK_API_URL=recorder.base_url,
            PORT=str(port),
            PAPERBOT_DATABASE_URL=url,
            PAPERBOT_SCHEDULER="off",
            PAPERBOT_CORPUS="seeds",
        )
        try:
            assert process.stdout is not None
            listening = f"paperbot: listening on port {port} at /slack/events\n"
            assert listening in (process.stdout.readline(), process.stdout.readline())
        finally:
            process.terminate()
            process.communicate(timeout=10)
    assert _teams(url, thread_searches) == {"T0SERVED"}


def test_paperbot_digest_names_the_workspace_in_what_it_writes(tmp_path: Path) -> None:
    """The default channel has no subscription row to say its workspace: ``auth.test`` does,
    so the run's rows are that workspace's, and a stranger's uninstall leaves them."""
    with SlackRecorder(team_id="T0SERVED") as recorder:
        settings = Settings(
            slack_bot_token="xoxb-1-digest",
            slack_api_url=recorder.base_url,
            database_url=f"sqlite:///{tmp_path / 'bot.db'}",
            corpus="seeds",
        )
        assert digest_main(["--channel", DEFAULT_CHANNEL], settings, digest_client(settings)) == 0
    assert _teams(settings.database_url, digest_claims) == {"T0SERVED"}
    store = Store(settings.database_url)
    assert set(store.forget_workspace(NEVER_SEEN).values()) == {0}
    assert _teams(settings.database_url, digest_claims) == {"T0SERVED"}
    store.close()


def _teams(database_url: str, table: Table) -> set[str | None]:
    engine = create_engine(database_url)
    with engine.connect() as connection:
        teams = set(connection.execute(select(table.c.team_id)).scalars())
    engine.dispose()
    return teams
