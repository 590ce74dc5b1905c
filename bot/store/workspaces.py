"""Deleting a workspace's rows when the app is uninstalled from it.

Every table keyed by a person or a channel carries the workspace it belongs to
(``WORKSPACE_TABLES``). Rows written before schema 5 have no workspace (``NULL``), and a few
small caches never had one (``UNKEYED_TABLES``): they are deleted too when the store knows
no other workspace, because a bot with one bot token serves one workspace and they are then
its rows; otherwise they are left to expire (docs/privacy.md).
"""

from __future__ import annotations

from sqlalchemy import Table, exists, select
from sqlalchemy.engine import Connection

from bot.store.database import log
from bot.store.part import Part, bounded
from bot.store.revisions import SUBSCRIPTIONS, advance
from bot.store.tables import (
    bot_posts,
    channel_signals,
    digest_claims,
    digest_seen,
    dismissals,
    forgotten_people,
    post_reactions,
    saved_papers,
    saved_queries,
    slack_events,
    subscriptions,
    thread_searches,
    unfurls,
)

WORKSPACE_TABLES: tuple[Table, ...] = (
    saved_papers,
    dismissals,
    forgotten_people,
    subscriptions,
    digest_claims,
    digest_seen,
    thread_searches,
    bot_posts,
    channel_signals,
    post_reactions,
)
"""Tables with a ``team_id`` column: a workspace's rows are found by it."""

UNKEYED_TABLES: tuple[Table, ...] = (saved_queries, unfurls, slack_events)
"""Short-lived caches with no workspace: remembered searches behind buttons (a week),
rendered link previews, and event ids (a day)."""


class Workspaces(Part):
    @bounded
    def forget_workspace(self, team_id: str) -> dict[str, int]:
        """Delete every row of the workspace in one transaction; rows deleted, by table.

        Idempotent: Slack retries ``app_uninstalled``, and a second run deletes nothing.
        """
        with self._database.begin() as connection:
            alone = not _other_workspace_known(connection, team_id)
            deleted: dict[str, int] = {}
            for table in WORKSPACE_TABLES:
                theirs = table.c.team_id == team_id
                if alone:
                    theirs = theirs | table.c.team_id.is_(None)
                deleted[table.name] = connection.execute(table.delete().where(theirs)).rowcount
            for table in UNKEYED_TABLES:
                deleted[table.name] = connection.execute(table.delete()).rowcount if alone else 0
            if deleted[subscriptions.name]:
                advance(self._database, connection, SUBSCRIPTIONS)
        if not alone:
            log.info("other workspaces use this database: rows of unknown workspace were kept")
        return deleted


def _other_workspace_known(connection: Connection, team_id: str) -> bool:
    return any(
        connection.execute(
            select(exists().where(table.c.team_id.is_not(None), table.c.team_id != team_id))
        ).scalar()
        for table in WORKSPACE_TABLES
    )
