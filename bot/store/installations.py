"""The app's installations in each workspace and the OAuth states of installs under way, in
the bot's own database, so every replica sees an install the moment it is stored.

slack_sdk's SQLAlchemy stores do the work (``SQLAlchemyInstallationStore``,
``SQLAlchemyOAuthStateStore``: a state is used once and expires); this module puts them on
the store's engine, names their tables for the schema's migration (``INSTALLATION_TABLES``,
created under its lock rather than by the stores), and adds the one look-up they lack:
a workspace's bot by the key the bot's rows carry (``workspace_bot``).

That key is the workspace's team id (``T…``), or, for an app installed org-wide on an
Enterprise Grid organisation, the organisation's enterprise id (``E…``): the org-wide
install is one installation with one token for every workspace of the organisation, so its
rows, its uninstall and its scheduled posts go together under the id that names it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from slack_sdk.oauth.installation_store import Bot
from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from slack_sdk.oauth.sqlalchemy_utils import normalize_datetime_for_db
from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore
from sqlalchemy import ColumnElement, MetaData, Table, and_, desc, or_, select
from sqlalchemy.engine import Connection

from bot.store.part import Part

INSTALLATION_TABLES = MetaData()
"""``slack_installations``, ``slack_bots`` and ``slack_oauth_states``, as slack_sdk's stores
define them: the migration creates them (``migrations.migrate``)."""
installations = SQLAlchemyInstallationStore.build_installations_table(
    INSTALLATION_TABLES, SQLAlchemyInstallationStore.default_installations_table_name
)
bots = SQLAlchemyInstallationStore.build_bots_table(
    INSTALLATION_TABLES, SQLAlchemyInstallationStore.default_bots_table_name
)
oauth_states = SQLAlchemyOAuthStateStore.build_oauth_states_table(
    INSTALLATION_TABLES, SQLAlchemyOAuthStateStore.default_table_name
)


class ExpiringOAuthStates(SQLAlchemyOAuthStateStore):
    """slack_sdk's one-time states, which it deletes only as they are used: each new state
    also deletes the expired ones, so installs that were never finished leave no rows."""

    def issue(self, *args: Any, **kwargs: Any) -> str:
        now = normalize_datetime_for_db(datetime.now(UTC))
        with self.engine.begin() as connection:
            connection.execute(
                self.oauth_states.delete().where(self.oauth_states.c.expire_at < now)
            )
        return super().issue(*args, **kwargs)


class Installations(Part):
    def installation_store(self, client_id: str) -> SQLAlchemyInstallationStore:
        """slack_sdk's installation store for the app ``client_id``, on this database."""
        return SQLAlchemyInstallationStore(client_id, self._database.engine)

    def oauth_state_store(self, expiration_seconds: int) -> SQLAlchemyOAuthStateStore:
        """slack_sdk's one-time OAuth states, each valid ``expiration_seconds``."""
        return ExpiringOAuthStates(expiration_seconds, self._database.engine)

    def workspace_bot(self, store: SQLAlchemyInstallationStore, workspace: str) -> Bot | None:
        """The newest bot installed where ``workspace`` (a team id, or an org-wide install's
        enterprise id) names, or None when the app is not installed there.

        ``find_bot`` needs the enterprise id beside the team id, which the bot's rows do not
        keep: a workspace of an Enterprise Grid organisation installed on its own is found
        by its team id whatever its organisation."""
        table = store.bots
        query = (
            select(table)
            .where(
                table.c.client_id == store.client_id,
                table.c.bot_token.is_not(None),
                _installed_at(table, workspace),
            )
            .order_by(desc(table.c.installed_at))
            .limit(1)
        )
        with self._database.connect() as connection:
            row = connection.execute(query).mappings().first()
        return None if row is None else store.build_bot_entity(row)


def _installed_at(table: Table, workspace: str) -> ColumnElement[bool]:
    columns = table.c
    return or_(
        and_(columns.team_id == workspace, columns.is_enterprise_install.is_(False)),
        and_(columns.enterprise_id == workspace, columns.is_enterprise_install.is_(True)),
    )


def forget_installations(connection: Connection, workspace: str) -> dict[str, int]:
    """Delete the app's installation and bot rows for ``workspace``, by table (within the
    transaction that deletes the workspace's other rows)."""
    deleted = {}
    for table in (installations, bots):
        deletion = table.delete().where(_installed_at(table, workspace))
        deleted[table.name] = connection.execute(deletion).rowcount
    return deleted
