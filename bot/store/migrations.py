"""Schema versions: create what is missing, refuse a newer schema, and upgrade an older one
in place, so a database keeps its rows across bot releases."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy import DateTime, func, inspect, select, text
from sqlalchemy import column as sql_column
from sqlalchemy import table as sql_table
from sqlalchemy.engine import Connection

from bot.store.database import Database, StoreError, log
from bot.store.installations import INSTALLATION_TABLES
from bot.store.records import DAILY, RELATED
from bot.store.tables import (
    digest_claims,
    digest_seen,
    metadata,
    post_reactions,
    saved_queries,
    schema_version,
    subscriptions,
    thread_searches,
)

SCHEMA_VERSION = 10
"""Bump when the schema changes; a changed table needs its step in ``_MIGRATIONS``."""

_LEGACY_RELATED_MARK = "\x1frelated\x1f"
"""How schema 2 marked a related search: a prefix on the query, not a column."""

_CREATE_SCHEMA_LOCK = 5050505
"""The PostgreSQL advisory lock that serialises concurrent start-ups."""


def _kinds_and_times(connection: Connection, now: datetime) -> None:
    """Schema 3: the kind of a remembered search in a column of its own (schema 2 prefixed a
    related search's text with ``_LEGACY_RELATED_MARK``), and when a query was saved, so
    it can expire. Existing queries count as saved at the upgrade."""
    timestamp = DateTime().compile(dialect=connection.dialect)
    for table in (saved_queries, thread_searches):
        connection.execute(
            text(f"ALTER TABLE {table.name} ADD COLUMN kind VARCHAR(16) NOT NULL DEFAULT 'search'")
        )
    connection.execute(text(f"ALTER TABLE saved_queries ADD COLUMN saved_at {timestamp}"))
    connection.execute(saved_queries.update().values(saved_at=now))
    if connection.dialect.name == "postgresql":
        connection.execute(text("ALTER TABLE saved_queries ALTER COLUMN saved_at SET NOT NULL"))
    for table in (saved_queries, thread_searches):
        connection.execute(
            table.update()
            .where(table.c.query.startswith(_LEGACY_RELATED_MARK, autoescape=True))
            .values(
                kind=RELATED,
                query=func.substr(table.c.query, len(_LEGACY_RELATED_MARK) + 1),
            )
        )


def _claim_topics(connection: Connection, _now: datetime) -> None:
    """Schema 4: a claim records the topic its paper was drawn for. Claims made before have
    none (their progress line then names no topic). Skipped where the column is there
    already: ``create_all`` made the table with it."""
    columns = {column["name"] for column in inspect(connection).get_columns(digest_claims.name)}
    if "topic" not in columns:
        connection.execute(text(f"ALTER TABLE {digest_claims.name} ADD COLUMN topic TEXT"))


def _channel_workspaces(connection: Connection, _now: datetime) -> None:
    """Schema 5: the tables keyed by channel record the workspace the channel belongs to, so
    uninstalling the app can delete that workspace's rows. Existing rows keep ``NULL``
    (unknown): nothing stored says which workspace wrote them (``workspaces`` says what
    happens to them on uninstall)."""
    inspector = inspect(connection)
    for table in (thread_searches, subscriptions, digest_seen, digest_claims):
        columns = {column["name"] for column in inspector.get_columns(table.name)}
        if "team_id" in columns:
            continue
        connection.execute(text(f"ALTER TABLE {table.name} ADD COLUMN team_id VARCHAR(64)"))
        for index in table.indexes:
            index.create(connection)


def _digest_kinds(connection: Connection, _now: datetime) -> None:
    """Schema 6: a channel may subscribe to a weekly digest beside its paper of the day, so
    subscriptions are keyed by channel and kind, and claims by channel, kind and period (the
    local date, or the ISO week). A primary key cannot be altered in place on SQLite, so each
    table's rows are read, the table made anew, and the rows written back as the daily kind,
    a claim's period being its local date. Skipped where ``create_all`` made the table."""
    inspector = inspect(connection)
    for table in (subscriptions, digest_claims):
        present = {column["name"] for column in inspector.get_columns(table.name)}
        if "kind" in present:
            continue
        stored = sql_table(
            table.name, *(sql_column(c.name, c.type) for c in table.columns if c.name in present)
        )
        rows = [dict(row._mapping) for row in connection.execute(select(stored))]
        connection.execute(text(f"DROP TABLE {table.name}"))
        table.create(connection)
        for row in rows:
            row["kind"] = DAILY
            if table is digest_claims:
                row["period"] = row["local_date"].isoformat()
        if rows:
            connection.execute(table.insert(), rows)


def _long_reaction_names(connection: Connection, _now: datetime) -> None:
    """Schema 8: a reaction's name may be as long as ``REACTION_NAME_LENGTH`` (it was 64,
    and PostgreSQL refused a custom emoji's longer name with a skin tone). Widening a
    ``VARCHAR`` keeps every row and index as it is, and running it twice changes nothing.
    SQLite never enforced the length, so it has nothing to change."""
    if connection.dialect.name != "postgresql":
        return
    column = post_reactions.c.reaction
    wider = column.type.compile(dialect=connection.dialect)
    connection.execute(
        text(f"ALTER TABLE {post_reactions.name} ALTER COLUMN {column.name} TYPE {wider}")
    )


_MIGRATIONS: dict[int, Callable[[Connection, datetime], None]] = {
    3: _kinds_and_times,
    4: _claim_topics,
    5: _channel_workspaces,
    6: _digest_kinds,
    8: _long_reaction_names,
}
"""Steps that take the schema from version ``n - 1`` to ``n``, keyed by ``n``, for a version
that changes existing tables: each alters them and converts their rows. A version that only
adds tables has no entry: ``create_all`` creates every missing table before the steps run
(version 2 added ``saved_papers`` and ``unfurls``; version 5 also ``dismissals`` and
``forgotten_people``; version 7 ``revisions``, the subscriptions' watermark; version 9
slack_sdk's ``slack_installations``, ``slack_bots`` and ``slack_oauth_states``; version 10 the
feeds' ``ingested_papers``, ``feed_states`` and ``ingest_claims``)."""


def migrate(database: Database) -> None:
    """Bring the database to ``SCHEMA_VERSION`` in one transaction, or refuse a newer one."""
    with database.begin() as connection:
        if database.dialect == "postgresql":
            # Serialise concurrent start-ups: CREATE TABLE races otherwise.
            connection.execute(text(f"SELECT pg_advisory_xact_lock({_CREATE_SCHEMA_LOCK})"))
        metadata.create_all(connection)
        INSTALLATION_TABLES.create_all(connection)
        current = connection.execute(select(func.max(schema_version.c.version))).scalar()
        if current is None:
            connection.execute(
                schema_version.insert().values(version=SCHEMA_VERSION, applied_at=database.now())
            )
            return
        if current > SCHEMA_VERSION:
            raise StoreError(
                f"the database has schema version {current}, newer than this bot's "
                f"{SCHEMA_VERSION}; upgrade the bot or point PAPERBOT_DATABASE_URL elsewhere"
            )
        for version in range(current + 1, SCHEMA_VERSION + 1):
            log.info("migrating the database to schema version %d", version)
            if version in _MIGRATIONS:
                _MIGRATIONS[version](connection, database.now())
            connection.execute(
                schema_version.insert().values(version=version, applied_at=database.now())
            )
