"""Uninstalling over HTTP: ``app_uninstalled``, or ``tokens_revoked`` naming the bot, deletes
the workspace's rows; a person revoking their own token deletes nothing."""

from __future__ import annotations

import json
from typing import Any

from project import PROJECT_ROOT
from slack_harness import LiveBot
from sqlalchemy import create_engine, func, select

from bot.store.tables import metadata, revisions, schema_version, thread_searches


def _rows_by_table(bot: LiveBot) -> dict[str, int]:
    engine = create_engine(bot.settings.database_url)
    with engine.connect() as connection:
        counts = {
            table.name: connection.execute(select(func.count()).select_from(table)).scalar()
            for table in metadata.sorted_tables
            if table not in (schema_version, revisions)
        }
    engine.dispose()
    return {name: count for name, count in counts.items() if count}


def _use_the_bot(bot: LiveBot) -> None:
    """Leave rows in the channel-keyed and person-keyed tables, the way people do."""
    workspace = bot.workspace
    assert bot.slash("subscribe 09:30").status == 200
    assert bot.mention("graph sparsification")[0].status == 200
    bot.drain()
    store = bot.services.store
    store.save_paper(workspace.team_id, workspace.user_id, "paperA")
    store.dismiss(workspace.team_id, workspace.user_id, "paperB")
    assert store.subscription(workspace.channel_id).team_id == workspace.team_id
    engine = create_engine(bot.settings.database_url)
    with engine.connect() as connection:
        teams = connection.execute(select(thread_searches.c.team_id)).scalars().all()
    engine.dispose()
    assert teams == [workspace.team_id]
    rows = _rows_by_table(bot)
    assert {"subscriptions", "thread_searches", "saved_papers", "dismissals"} <= set(rows)


def _event(
    bot: LiveBot, event: dict[str, Any], event_id: str, retry_num: int | None = None
) -> None:
    assert bot.event(event, event_id=event_id, retry_num=retry_num).status == 200
    bot.drain()


def test_app_uninstalled_deletes_every_row_of_the_workspace(bot: LiveBot) -> None:
    _use_the_bot(bot)
    _event(bot, {"type": "app_uninstalled"}, "Ev0UNINSTALL")
    assert _rows_by_table(bot) == {}
    _event(
        bot, {"type": "app_uninstalled"}, "Ev0UNINSTALL", retry_num=1
    )  # Slack's retry: nothing left to do
    assert _rows_by_table(bot) == {}


def test_tokens_revoked_deletes_only_when_it_names_the_bot(bot: LiveBot) -> None:
    _use_the_bot(bot)
    before = _rows_by_table(bot)
    _event(bot, {"type": "tokens_revoked", "tokens": {"oauth": [bot.workspace.user_id]}}, "Ev0USER")
    assert _rows_by_table(bot) == before
    another_bot = {"bot": ["U0ANOTHERBOT"]}
    _event(bot, {"type": "tokens_revoked", "tokens": another_bot}, "Ev0ANOTHER")
    assert _rows_by_table(bot) == before
    revoked = {"oauth": [bot.workspace.user_id], "bot": [bot.workspace.bot_user_id]}
    _event(bot, {"type": "tokens_revoked", "tokens": revoked}, "Ev0BOT")
    assert _rows_by_table(bot) == {}


def test_the_manifest_adds_only_the_uninstall_events() -> None:
    manifest = json.loads((PROJECT_ROOT / "manifest.json").read_text())
    assert set(manifest["settings"]["event_subscriptions"]["bot_events"]) == {
        "app_home_opened",
        "app_mention",
        "link_shared",
        "message.im",
        "app_uninstalled",
        "tokens_revoked",
        "reaction_added",
        "reaction_removed",
    }
