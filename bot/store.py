"""The bot's durable state, and the only module that talks to the database.

Everything that must survive a restart or be shared by several bot processes lives here:
Slack event ids already handled, "Next 5" query keys, thread search state, the digest's
subscriptions, rotation and daily claims, people's reading lists and rendered link unfurls.
Uniqueness is always enforced by the database (primary keys and ``ON CONFLICT``), never by a
check-then-insert, because two processes may race for the same row.

SQLite (the default) is opened in WAL mode with a busy timeout and ``BEGIN IMMEDIATE``
transactions, so two processes can share one file without "database is locked" errors;
PostgreSQL is used when the URL names it (through psycopg 3).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

from sqlalchemy import (
    Boolean,
    Column,
    Date,
    DateTime,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    create_engine,
    event,
    func,
    select,
    text,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, SQLAlchemyError

from bot.clock import Clock, system_clock
from bot.settings import StartupError

log = logging.getLogger(__name__)

SCHEMA_VERSION = 3
"""Bump when the schema changes; a changed table needs its step in ``_MIGRATIONS``."""

EVENT_RETENTION = timedelta(days=1)
"""Slack retries an event for minutes, not days; older ids can go."""

QUERY_RETENTION = timedelta(days=7)
"""How long result buttons and ``@paperbot more`` can go back to a search: a week covers
a conversation picked up after a weekend; older remembered searches go."""

SEARCH, RELATED = "search", "related"
"""Kinds of remembered search: a query typed in the query language, or free text (a message
or a thread's first message) to find related papers for."""

UNFURL_RETENTION = timedelta(days=1)
"""A rendered unfurl is reused for a day: a link pasted in ten channels is rendered once,
and a paper's card changes rarely enough that a day-old one is still right."""

PRUNE_EVERY = timedelta(hours=1)
QUERY_KEY_LENGTH = 16
SQLITE_BUSY_TIMEOUT_MS = 15_000


class StoreError(StartupError, RuntimeError):
    """The database cannot be used as is: unreachable, refused, or written by a newer bot."""


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in, aware UTC datetimes out, on every backend.

    SQLite has no time zone type and would hand back naive values, so instants are stored
    as naive UTC everywhere and made aware again on the way out.
    """

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the store; pass an aware UTC instant")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


metadata = MetaData()

schema_version = Table(
    "schema_version",
    metadata,
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("applied_at", UTCDateTime, nullable=False),
)

slack_events = Table(
    "slack_events",
    metadata,
    Column("event_id", String(255), primary_key=True),
    Column("seen_at", UTCDateTime, nullable=False, index=True),
)

saved_queries = Table(
    "saved_queries",
    metadata,
    Column("key", String(QUERY_KEY_LENGTH), primary_key=True),
    Column("query", Text, nullable=False),
    Column("kind", String(16), nullable=False, server_default=SEARCH),
    Column("saved_at", UTCDateTime, nullable=False),
)

thread_searches = Table(
    "thread_searches",
    metadata,
    Column("channel", String(64), primary_key=True),
    Column("thread_ts", String(64), primary_key=True),
    Column("query", Text, nullable=False),
    Column("shown", Integer, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("kind", String(16), nullable=False, server_default=SEARCH),
)

subscriptions = Table(
    "subscriptions",
    metadata,
    Column("channel", String(64), primary_key=True),
    Column("post_time", String(5), nullable=False),
    Column("zone", String(64), nullable=False),
    Column("cadence", String(16), nullable=False),
    Column("topic", Text),
    Column("source", String(16), nullable=False),
    Column("active", Boolean, nullable=False),
    Column("paused_reason", String(64)),
    Column("updated_at", UTCDateTime, nullable=False),
)
"""One row per channel that ever used a command (or was paused while on the env default).

``active = false`` is the "unsubscribed" marker: it must outlive the row's subscription so
that ``/paper unsubscribe`` keeps beating ``PAPERBOT_DIGEST_CHANNEL`` after a restart.
"""

digest_seen = Table(
    "digest_seen",
    metadata,
    Column("channel", String(64), primary_key=True),
    Column("round", Integer, primary_key=True, autoincrement=False),
    Column("paper_id", String(128), primary_key=True),
    Column("local_date", Date, nullable=False),
)
"""The rotation: which papers each channel has had in each round. The order itself is not
stored; it is recomputed from a per-channel, per-round seed, so it survives restarts."""

digest_claims = Table(
    "digest_claims",
    metadata,
    Column("channel", String(64), primary_key=True),
    Column("local_date", Date, primary_key=True),
    Column("state", String(16), nullable=False),
    Column("paper_id", String(128), nullable=False),
    Column("round", Integer, nullable=False),
    Column("position", Integer, nullable=False),
    Column("pool_size", Integer, nullable=False),
    Column("owner", String(64)),
    Column("ts", String(32)),
    Column("claimed_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("posted_at", UTCDateTime),
)
"""At most one daily post per (channel, local date): the primary key is the guarantee.

``state`` goes ``claimed`` → ``posting`` (set just before the API call) → ``posted`` (with
the message ``ts``). ``owner`` is the process working on it, ``None`` once released; a claim
whose owner stopped updating it for longer than the lease may be taken over."""

saved_papers = Table(
    "saved_papers",
    metadata,
    Column("team_id", String(64), primary_key=True),
    Column("user_id", String(64), primary_key=True),
    Column("paper_id", String(128), primary_key=True),
    Column("saved_at", UTCDateTime, nullable=False),
    Index("saved_papers_by_user", "team_id", "user_id", "saved_at"),
)
"""Reading lists: a person's saved papers, per workspace (user ids are only unique within
one). The primary key makes saving idempotent, whoever clicks twice or wherever."""

unfurls = Table(
    "unfurls",
    metadata,
    Column("link_key", String(64), primary_key=True),
    Column("paper_id", String(128), nullable=False),
    Column("payload", Text, nullable=False),
    Column("rendered_at", UTCDateTime, nullable=False, index=True),
)
"""Rendered link previews, keyed by a hash of the link as Slack sent it."""

CLAIMED, POSTING, POSTED = "claimed", "posting", "posted"

_LEGACY_RELATED_MARK = "\x1frelated\x1f"
"""How schema 2 marked a related search: a prefix on the query, not a column."""


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


_MIGRATIONS: dict[int, Callable[[Connection, datetime], None]] = {3: _kinds_and_times}
"""Steps that take the schema from version ``n - 1`` to ``n``, keyed by ``n``, for a version
that changes existing tables: each alters them and converts their rows. A version that only
adds tables has no entry: ``create_all`` creates every missing table before the steps run
(version 2 added ``saved_papers`` and ``unfurls``)."""


def normalise_database_url(database_url: str) -> str:
    """Route plain ``postgresql://`` URLs to psycopg 3, the driver the bot ships with."""
    url = make_url(database_url)
    if url.drivername in {"postgres", "postgresql"}:
        url = url.set(drivername="postgresql+psycopg")
    return url.render_as_string(hide_password=False)


def _make_engine(database_url: str) -> Engine:
    url = make_url(normalise_database_url(database_url))
    if url.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True)
    if url.database and url.database != ":memory:":
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event below own transactions instead of pysqlite.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin_immediate(connection: Connection) -> None:
        # A deferred transaction that reads and then writes can fail at once with "database
        # is locked" when another process writes in between; taking the write lock up front
        # makes it wait (busy timeout) instead.
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


@dataclass(frozen=True)
class SubscriptionRecord:
    """A channel's stored subscription settings, as plain values (parsing is elsewhere)."""

    channel: str
    post_time: str
    zone: str
    cadence: str
    topic: str | None
    source: str
    active: bool = True
    paused_reason: str | None = None


class Remembered(NamedTuple):
    query: str
    kind: str  # SEARCH or RELATED


class ThreadSearch(NamedTuple):
    query: str
    kind: str
    shown: int  # results shown so far in the thread


@dataclass(frozen=True)
class DigestClaim:
    channel: str
    local_date: date
    state: str
    paper_id: str
    round: int
    position: int
    pool_size: int
    owner: str | None
    ts: str | None
    claimed_at: datetime
    updated_at: datetime
    posted_at: datetime | None = None


@dataclass(frozen=True)
class ClaimAttempt:
    """What ``claim_digest`` found: ``acquired`` means this owner now holds ``claim``."""

    acquired: bool
    claim: DigestClaim


class Store:
    """Durable state for one bot process; safe to share a database with other processes."""

    def __init__(self, database_url: str, clock: Clock = system_clock) -> None:
        self._clock = clock
        self._last_prune: datetime | None = None
        try:
            self._engine = _make_engine(database_url)
            self._insert = postgresql.insert if self.dialect == "postgresql" else sqlite.insert
            self._create_schema()
        except (SQLAlchemyError, OSError, ImportError) as error:
            raise StoreError(
                f"cannot use the database {_shown_url(database_url)} (PAPERBOT_DATABASE_URL): "
                f"{_first_line(error)}"
            ) from None

    @property
    def dialect(self) -> str:
        return self._engine.dialect.name

    def close(self) -> None:
        self._engine.dispose()

    def _create_schema(self) -> None:
        with self._engine.begin() as connection:
            if self.dialect == "postgresql":
                # Serialise concurrent start-ups: CREATE TABLE races otherwise.
                connection.execute(text("SELECT pg_advisory_xact_lock(5050505)"))
            metadata.create_all(connection)
            current = connection.execute(select(func.max(schema_version.c.version))).scalar()
            if current is None:
                connection.execute(
                    schema_version.insert().values(version=SCHEMA_VERSION, applied_at=self._now())
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
                    _MIGRATIONS[version](connection, self._now())
                connection.execute(
                    schema_version.insert().values(version=version, applied_at=self._now())
                )

    def schema_version(self) -> int:
        with self._engine.connect() as connection:
            return int(connection.execute(select(func.max(schema_version.c.version))).scalar())

    def _now(self) -> datetime:
        return self._clock().astimezone(UTC)

    # Slack events -------------------------------------------------------------------------

    def claim_event(self, event_id: str) -> bool:
        """True the first time an event id is seen; False for Slack's retries of it."""
        now = self._now()
        with self._engine.begin() as connection:
            inserted = connection.execute(
                self._insert(slack_events)
                .values(event_id=event_id, seen_at=now)
                .on_conflict_do_nothing(index_elements=["event_id"])
                .returning(slack_events.c.event_id)
            ).first()
            self._prune(connection, now)
        return inserted is not None

    def _prune(self, connection: Connection, now: datetime) -> None:
        """Forget, at most once every ``PRUNE_EVERY``, what no request can need any more:
        event ids Slack no longer retries and searches no button reaches."""
        if self._last_prune is not None and now - self._last_prune < PRUNE_EVERY:
            return
        connection.execute(
            slack_events.delete().where(slack_events.c.seen_at < now - EVENT_RETENTION)
        )
        connection.execute(
            saved_queries.delete().where(saved_queries.c.saved_at < now - QUERY_RETENTION)
        )
        connection.execute(
            thread_searches.delete().where(thread_searches.c.updated_at < now - QUERY_RETENTION)
        )
        self._last_prune = now

    # "Next 5" queries and thread searches -------------------------------------------------

    def remember_query(self, query: str, kind: str = SEARCH) -> str:
        """A short stable key for ``query``, so a button value stays far below Slack's limit.

        A search's key hashes its text; another kind's hashes the text tagged with the kind
        the way schema 2 stored it, so keys in buttons already sent still work.
        """
        tagged = query if kind == SEARCH else f"\x1f{kind}\x1f{query}"
        key = hashlib.sha256(tagged.encode("utf-8")).hexdigest()[:QUERY_KEY_LENGTH]
        now = self._now()
        with self._engine.begin() as connection:
            connection.execute(
                self._insert(saved_queries)
                .values(key=key, query=query, kind=kind, saved_at=now)
                .on_conflict_do_update(index_elements=["key"], set_={"saved_at": now})
            )
            self._prune(connection, now)
        return key

    def recall_query(self, key: str) -> Remembered | None:
        """The search a key stands for, unless it is older than ``QUERY_RETENTION``."""
        fresh = saved_queries.c.saved_at >= self._now() - QUERY_RETENTION
        with self._engine.connect() as connection:
            row = connection.execute(
                select(saved_queries.c.query, saved_queries.c.kind).where(
                    saved_queries.c.key == key, fresh
                )
            ).first()
        return None if row is None else Remembered(row.query, row.kind)

    def remember_thread_search(
        self, channel: str, thread_ts: str, query: str, shown: int, kind: str = SEARCH
    ) -> None:
        now = self._now()
        values = {"query": query, "shown": shown, "kind": kind, "updated_at": now}
        statement = self._insert(thread_searches).values(
            channel=channel, thread_ts=thread_ts, **values
        )
        with self._engine.begin() as connection:
            connection.execute(
                statement.on_conflict_do_update(
                    index_elements=["channel", "thread_ts"], set_=values
                )
            )

    def thread_search(self, channel: str, thread_ts: str) -> ThreadSearch | None:
        """A thread's last search and how many results it has shown, unless older than
        ``QUERY_RETENTION``."""
        fresh = thread_searches.c.updated_at >= self._now() - QUERY_RETENTION
        with self._engine.connect() as connection:
            row = connection.execute(
                select(
                    thread_searches.c.query, thread_searches.c.kind, thread_searches.c.shown
                ).where(
                    thread_searches.c.channel == channel,
                    thread_searches.c.thread_ts == thread_ts,
                    fresh,
                )
            ).first()
        return None if row is None else ThreadSearch(row.query, row.kind, row.shown)

    # Reading lists ------------------------------------------------------------------------

    def save_paper(self, team_id: str, user_id: str, paper_id: str) -> bool:
        """Put a paper on the person's reading list; False when it was there already.

        A second save keeps the first one's time, so a double click does not reorder the list.
        """
        with self._engine.begin() as connection:
            inserted = connection.execute(
                self._insert(saved_papers)
                .values(team_id=team_id, user_id=user_id, paper_id=paper_id, saved_at=self._now())
                .on_conflict_do_nothing(index_elements=["team_id", "user_id", "paper_id"])
                .returning(saved_papers.c.paper_id)
            ).first()
        return inserted is not None

    def remove_paper(self, team_id: str, user_id: str, paper_id: str) -> bool:
        """Take a paper off the reading list; False when it was not on it."""
        with self._engine.begin() as connection:
            result = connection.execute(
                saved_papers.delete().where(
                    *_saved_by(team_id, user_id), saved_papers.c.paper_id == paper_id
                )
            )
        return result.rowcount == 1

    def saved_papers(
        self, team_id: str, user_id: str, *, limit: int | None = None, offset: int = 0
    ) -> list[str]:
        """Ids on the reading list, newest first."""
        query = (
            select(saved_papers.c.paper_id)
            .where(*_saved_by(team_id, user_id))
            .order_by(saved_papers.c.saved_at.desc(), saved_papers.c.paper_id)
            .offset(offset)
            .limit(limit)
        )
        with self._engine.connect() as connection:
            return list(connection.execute(query).scalars())

    def saved_count(self, team_id: str, user_id: str) -> int:
        with self._engine.connect() as connection:
            return int(
                connection.execute(
                    select(func.count())
                    .select_from(saved_papers)
                    .where(*_saved_by(team_id, user_id))
                ).scalar()
            )

    def saved_among(self, team_id: str, user_id: str, paper_ids: Iterable[str]) -> frozenset[str]:
        """Which of ``paper_ids`` the person has saved (to draw their buttons)."""
        wanted = list(dict.fromkeys(paper_ids))
        if not wanted:
            return frozenset()
        query = select(saved_papers.c.paper_id).where(
            *_saved_by(team_id, user_id), saved_papers.c.paper_id.in_(wanted)
        )
        with self._engine.connect() as connection:
            return frozenset(connection.execute(query).scalars())

    # Link unfurls -------------------------------------------------------------------------

    def cached_unfurl(self, link: str) -> str | None:
        """The payload rendered for ``link`` within the last day, if any."""
        with self._engine.connect() as connection:
            return connection.execute(
                select(unfurls.c.payload).where(
                    unfurls.c.link_key == _link_key(link),
                    unfurls.c.rendered_at >= self._now() - UNFURL_RETENTION,
                )
            ).scalar()

    def cache_unfurl(self, link: str, paper_id: str, payload: str) -> None:
        """Keep a rendered unfurl for a day; expired ones are dropped on the way."""
        now = self._now()
        values = {"paper_id": paper_id, "payload": payload, "rendered_at": now}
        with self._engine.begin() as connection:
            connection.execute(
                self._insert(unfurls)
                .values(link_key=_link_key(link), **values)
                .on_conflict_do_update(index_elements=["link_key"], set_=values)
            )
            connection.execute(
                unfurls.delete().where(unfurls.c.rendered_at < now - UNFURL_RETENTION)
            )

    # Digest subscriptions -----------------------------------------------------------------

    def save_subscription(self, record: SubscriptionRecord) -> None:
        """Create or replace a channel's subscription (unpausing it)."""
        values = {
            "post_time": record.post_time,
            "zone": record.zone,
            "cadence": record.cadence,
            "topic": record.topic,
            "source": record.source,
            "active": record.active,
            "paused_reason": record.paused_reason,
            "updated_at": self._now(),
        }
        with self._engine.begin() as connection:
            connection.execute(
                self._insert(subscriptions)
                .values(channel=record.channel, **values)
                .on_conflict_do_update(index_elements=["channel"], set_=values)
            )

    def pause_subscription(self, channel: str, reason: str) -> bool:
        with self._engine.begin() as connection:
            result = connection.execute(
                subscriptions.update()
                .where(subscriptions.c.channel == channel)
                .values(paused_reason=reason, updated_at=self._now())
            )
        return result.rowcount == 1

    def subscription(self, channel: str) -> SubscriptionRecord | None:
        with self._engine.connect() as connection:
            row = connection.execute(
                select(subscriptions).where(subscriptions.c.channel == channel)
            ).first()
        return None if row is None else _subscription(row)

    def subscriptions(self) -> list[SubscriptionRecord]:
        """Every stored row, unsubscribed and paused ones included, by channel."""
        with self._engine.connect() as connection:
            rows = connection.execute(select(subscriptions).order_by(subscriptions.c.channel))
            return [_subscription(row) for row in rows]

    # Digest rotation ----------------------------------------------------------------------

    def rotation(self, channel: str) -> tuple[int, frozenset[str]]:
        """The channel's current round and the papers it has had in that round."""
        with self._engine.connect() as connection:
            current = connection.execute(
                select(func.max(digest_seen.c.round)).where(digest_seen.c.channel == channel)
            ).scalar()
            if current is None:
                return 0, frozenset()
            seen = connection.execute(
                select(digest_seen.c.paper_id).where(
                    digest_seen.c.channel == channel, digest_seen.c.round == current
                )
            ).scalars()
            return current, frozenset(seen)

    # Digest claims ------------------------------------------------------------------------

    def digest_claim(self, channel: str, local_date: date) -> DigestClaim | None:
        with self._engine.connect() as connection:
            row = connection.execute(_claim_query(channel, local_date)).first()
        return None if row is None else DigestClaim(**row._mapping)

    def latest_claim_date(self, channel: str) -> date | None:
        """The last local date the channel's post was claimed (to notice missed days)."""
        with self._engine.connect() as connection:
            return connection.execute(
                select(func.max(digest_claims.c.local_date)).where(
                    digest_claims.c.channel == channel
                )
            ).scalar()

    def claim_digest(
        self,
        channel: str,
        local_date: date,
        *,
        paper_id: str,
        round: int,
        position: int,
        pool_size: int,
        owner: str,
        lease: timedelta,
        owner_gone: Callable[[str], bool] = lambda _owner: False,
    ) -> ClaimAttempt:
        """Claim the channel's post for ``local_date``, or take over an abandoned claim.

        The insert relies on the primary key, so of several processes racing only one gets
        the row. A claim that is released, whose owner has not touched it within ``lease``,
        or whose owner ``owner_gone`` says is dead, is taken over with a compare-and-set
        update, again so only one wins; the
        taken-over claim keeps its paper and state (``posting`` tells the new owner that a
        message may already be in the channel).
        """
        now = self._now()
        with self._engine.begin() as connection:
            inserted = connection.execute(
                self._insert(digest_claims)
                .values(
                    channel=channel,
                    local_date=local_date,
                    state=CLAIMED,
                    paper_id=paper_id,
                    round=round,
                    position=position,
                    pool_size=pool_size,
                    owner=owner,
                    claimed_at=now,
                    updated_at=now,
                )
                .on_conflict_do_nothing(index_elements=["channel", "local_date"])
                .returning(*digest_claims.c)
            ).first()
            if inserted is not None:
                return ClaimAttempt(True, DigestClaim(**inserted._mapping))
            existing = DigestClaim(
                **connection.execute(_claim_query(channel, local_date)).one()._mapping
            )
            abandoned = (
                existing.owner is None
                or now - existing.updated_at >= lease
                or owner_gone(existing.owner)
            )
            if existing.state == POSTED or not abandoned:
                return ClaimAttempt(False, existing)
            taken = connection.execute(
                digest_claims.update()
                .where(
                    digest_claims.c.channel == channel,
                    digest_claims.c.local_date == local_date,
                    digest_claims.c.state == existing.state,
                    digest_claims.c.updated_at == existing.updated_at,
                    digest_claims.c.owner.is_(None)
                    if existing.owner is None
                    else digest_claims.c.owner == existing.owner,
                )
                .values(owner=owner, updated_at=now)
            )
            if taken.rowcount != 1:
                return ClaimAttempt(False, existing)
            log.warning(
                "took over the %s digest claim of %s for %s from %s",
                existing.state,
                channel,
                local_date,
                existing.owner or "a released claim",
            )
            return ClaimAttempt(True, replace(existing, owner=owner, updated_at=now))

    def _update_owned_claim(
        self, channel: str, local_date: date, owner: str, values: dict[str, Any]
    ) -> bool:
        with self._engine.begin() as connection:
            result = connection.execute(
                digest_claims.update()
                .where(
                    digest_claims.c.channel == channel,
                    digest_claims.c.local_date == local_date,
                    digest_claims.c.owner == owner,
                    digest_claims.c.state != POSTED,
                )
                .values(updated_at=self._now(), **values)
            )
        return result.rowcount == 1

    def mark_posting(self, channel: str, local_date: date, owner: str) -> bool:
        """Record that the post is about to be sent; False if the claim was lost."""
        return self._update_owned_claim(channel, local_date, owner, {"state": POSTING})

    def touch_claim(self, channel: str, local_date: date, owner: str) -> bool:
        """Renew the lease while retrying; False if another process took the claim over."""
        return self._update_owned_claim(channel, local_date, owner, {})

    def release_claim(self, channel: str, local_date: date, owner: str, *, sent: bool) -> bool:
        """Give the claim up so another attempt can take it at once.

        ``sent`` says whether the message may have reached Slack (a timeout after sending);
        if so the claim stays ``posting`` so the next owner looks in the channel first.
        """
        return self._update_owned_claim(
            channel, local_date, owner, {"owner": None, "state": POSTING if sent else CLAIMED}
        )

    def record_post(self, channel: str, local_date: date, ts: str, owner: str) -> bool:
        """Mark the claim posted with the message ``ts`` and count the paper as seen."""
        return self._mark_posted(channel, local_date, ts, digest_claims.c.owner == owner)

    def _mark_posted(self, channel: str, local_date: date, ts: str, condition: Any) -> bool:
        now = self._now()
        with self._engine.begin() as connection:
            row = connection.execute(
                digest_claims.update()
                .where(
                    digest_claims.c.channel == channel,
                    digest_claims.c.local_date == local_date,
                    digest_claims.c.state != POSTED,
                    condition,
                )
                .values(state=POSTED, ts=ts, posted_at=now, updated_at=now)
                .returning(digest_claims.c.round, digest_claims.c.paper_id)
            ).first()
            if row is None:
                return False
            connection.execute(
                self._insert(digest_seen)
                .values(
                    channel=channel, round=row.round, paper_id=row.paper_id, local_date=local_date
                )
                .on_conflict_do_nothing(index_elements=["channel", "round", "paper_id"])
            )
        return True

    def unsettled_claims(self, channel: str, before: date, lease: timedelta) -> list[DigestClaim]:
        """Earlier days' claims left ``posting`` by an owner silent for longer than ``lease``:
        their message may or may not be in the channel, and their paper is not yet seen."""
        with self._engine.connect() as connection:
            rows = connection.execute(
                select(digest_claims)
                .where(
                    digest_claims.c.channel == channel,
                    digest_claims.c.local_date < before,
                    digest_claims.c.state == POSTING,
                    digest_claims.c.updated_at <= self._now() - lease,
                )
                .order_by(digest_claims.c.local_date)
            )
            return [DigestClaim(**row._mapping) for row in rows]

    def settle_claim(self, claim: DigestClaim, ts: str | None) -> bool:
        """Settle an abandoned ``posting`` claim from what the channel's history showed: posted
        as ``ts`` (the paper counts as seen), or, with no ``ts``, never sent. Only the claim
        as it was read is changed, so a process that revived it in between wins."""
        unchanged = (digest_claims.c.state == POSTING) & (
            digest_claims.c.updated_at == claim.updated_at
        )
        if ts is not None:
            return self._mark_posted(claim.channel, claim.local_date, ts, unchanged)
        with self._engine.begin() as connection:
            result = connection.execute(
                digest_claims.update()
                .where(
                    digest_claims.c.channel == claim.channel,
                    digest_claims.c.local_date == claim.local_date,
                    unchanged,
                )
                .values(state=CLAIMED, owner=None, updated_at=self._now())
            )
        return result.rowcount == 1


def _shown_url(database_url: str) -> str:
    """The URL without its password, for a message people will paste into chats."""
    try:
        return make_url(database_url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(not a database URL)"


def _first_line(error: Exception) -> str:
    """The driver's own words, without SQLAlchemy's wrapping, statement or help link."""
    cause = error.orig if isinstance(error, DBAPIError) and error.orig is not None else error
    return str(cause).strip().split("\n", 1)[0].removeprefix("connection failed: ")


def _saved_by(team_id: str, user_id: str) -> tuple[Any, Any]:
    return saved_papers.c.team_id == team_id, saved_papers.c.user_id == user_id


def _link_key(link: str) -> str:
    """Links can be longer than an index allows; their hash is not."""
    return hashlib.sha256(link.encode("utf-8")).hexdigest()


def _claim_query(channel: str, local_date: date) -> Any:
    return select(digest_claims).where(
        digest_claims.c.channel == channel, digest_claims.c.local_date == local_date
    )


def _subscription(row: Any) -> SubscriptionRecord:
    return SubscriptionRecord(
        channel=row.channel,
        post_time=row.post_time,
        zone=row.zone,
        cadence=row.cadence,
        topic=row.topic,
        source=row.source,
        active=row.active,
        paused_reason=row.paused_reason,
    )
