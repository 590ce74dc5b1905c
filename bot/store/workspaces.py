"""Which workspace each row belongs to, and deleting a workspace's rows when the app is
uninstalled from it.

Every table keyed by a person or a channel carries the workspace it belongs to
(``WORKSPACE_TABLES``). An uninstall deletes the rows naming that workspace and nothing else:
Slack signs ``app_uninstalled`` for any workspace the app was ever in, so a workspace the
store has never seen must not take anyone's rows with it.

Some rows do not know their workspace (``NULL``): those written before schema 5, and, before
the bot learnt its workspace at start, a channel's digest rows when it posts only because of
``PAPERBOT_DIGEST_CHANNEL``. A bot with one bot token serves one workspace, which ``auth.test``
names; told it (``serve_workspace``), the store adopts these rows into it, once, unless the
database also holds rows of another workspace (several bots sharing one database): then
nothing says whose they are, and they are never deleted by an uninstall, only by expiry. A
few small caches never had a workspace (``UNKEYED_TABLES``): they go with the served
workspace's uninstall on the same condition. A process that does not know its workspace
(the local shell) adopts nothing and deletes no row of unknown workspace. docs/privacy.md
says the same to operators.
"""

from __future__ import annotations

from sqlalchemy import Table, exists, select
from sqlalchemy.engine import Connection

from bot.store.database import log
from bot.store.installations import forget_installations
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
    def serve_workspace(self, team_id: str) -> dict[str, int]:
        """Record that this process serves ``team_id`` (new rows with no other workspace get
        it) and adopt the rows of unknown workspace into it; rows adopted, by table.

        Idempotent, and safe for several processes starting at once: a second run finds no
        row left to adopt. Called once at start, outside any request's deadline.
        """
        self._database.workspace = team_id
        with self._database.begin() as connection:
            adopted = _adopt_unknown_rows(connection, team_id)
        if adopted is None:
            log.warning(
                "this database holds rows of workspaces other than %s: its rows of unknown "
                "workspace stay so, and no uninstall deletes them (they expire, or stay)",
                team_id,
            )
            return {}
        if any(adopted.values()):
            counts = ", ".join(f"{table} {count}" for table, count in adopted.items() if count)
            log.info("rows of unknown workspace are now %s's, the one served: %s", team_id, counts)
        return adopted

    @bounded
    def forget_workspace(self, team_id: str) -> dict[str, int]:
        """Delete every row of the workspace in one transaction, its installation (tokens)
        included; rows deleted, by table.

        Only rows naming ``team_id`` go, and, when it is the workspace this process serves,
        its rows of unknown workspace and the caches (adopted first, on the condition of
        ``serve_workspace``: a process that wrote them since may not have known it). A
        workspace the store has never seen deletes nothing. Idempotent: Slack retries
        ``app_uninstalled``, and a second run deletes nothing.
        """
        served = team_id == self._database.workspace
        with self._database.begin() as connection:
            alone = served and _adopt_unknown_rows(connection, team_id) is not None
            deleted: dict[str, int] = {}
            for table in WORKSPACE_TABLES:
                theirs = table.delete().where(table.c.team_id == team_id)
                deleted[table.name] = connection.execute(theirs).rowcount
            for table in UNKEYED_TABLES:
                deleted[table.name] = connection.execute(table.delete()).rowcount if alone else 0
            deleted.update(forget_installations(connection, team_id))
            if deleted[subscriptions.name]:
                advance(self._database, connection, SUBSCRIPTIONS)
        return deleted


def _adopt_unknown_rows(connection: Connection, team_id: str) -> dict[str, int] | None:
    """Give ``team_id`` every row of unknown workspace, by table; None, changing nothing,
    when a row names another workspace (then nothing says whose they are)."""
    if _other_workspace_known(connection, team_id):
        return None
    return {
        table.name: connection.execute(
            table.update().where(table.c.team_id.is_(None)).values(team_id=team_id)
        ).rowcount
        for table in WORKSPACE_TABLES
        if table.c.team_id.nullable
    }


def _other_workspace_known(connection: Connection, team_id: str) -> bool:
    return any(
        connection.execute(
            select(exists().where(table.c.team_id.is_not(None), table.c.team_id != team_id))
        ).scalar()
        for table in WORKSPACE_TABLES
    )
