"""The connection plumbing every part of the store shares: the engine, the backend's
``INSERT ... ON CONFLICT``, the clock, and the one error a caller sees when the database
cannot be used.

SQLite (the default) is opened in WAL mode with a busy timeout and ``BEGIN IMMEDIATE``
transactions, so two processes can share one file without "database is locked" errors;
PostgreSQL is used when the URL names it (through psycopg 3).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Table, create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import (
    ArgumentError,
    DBAPIError,
    InterfaceError,
    OperationalError,
    SQLAlchemyError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from bot.clock import Clock
from bot.settings import StartupError

SQLITE_BUSY_TIMEOUT_MS = 15_000

log = logging.getLogger(__package__)
"""The store's one logger: operators read ``bot.store`` whichever part wrote the line."""


class StoreError(StartupError, RuntimeError):
    """The database cannot be used as is: unreachable, refused, or written by a newer bot."""


UNAVAILABLE: tuple[type[Exception], ...] = (
    StoreError,
    OperationalError,
    InterfaceError,
    PoolTimeoutError,
)
"""What a store operation raises while the database cannot be used for now (stopped,
unreachable, locked by another process, full, no pooled connection free): a caller that can
try again later catches these, without importing SQLAlchemy; a bug in a statement is none
of them and still surfaces."""


class Database:
    """One engine and the clock the parts read "now" from, shared by every part of a store."""

    def __init__(self, database_url: str, clock: Clock) -> None:
        self._clock = clock
        self._engine = _make_engine(database_url)
        self.insert: Callable[[Table], Any] = (
            postgresql.insert if self.dialect == "postgresql" else sqlite.insert
        )
        """``INSERT`` with the backend's ``ON CONFLICT`` clauses, which give uniqueness."""

    @property
    def dialect(self) -> str:
        return self._engine.dialect.name

    def now(self) -> datetime:
        return self._clock().astimezone(UTC)

    def begin(self) -> AbstractContextManager[Connection]:
        """A connection in a transaction that commits on leaving (for writes)."""
        return self._engine.begin()

    def connect(self) -> AbstractContextManager[Connection]:
        """A connection for reads."""
        return self._engine.connect()

    def close(self) -> None:
        self._engine.dispose()


@contextmanager
def unusable_database_refused(database_url: str) -> Iterator[None]:
    """Turn the driver's failure to open or set up the database into a ``StoreError``
    that names the setting to fix, without the password or SQLAlchemy's wrapping."""
    try:
        yield
    except (SQLAlchemyError, OSError, ImportError) as error:
        raise StoreError(
            f"cannot use the database {_shown_url(database_url)} (PAPERBOT_DATABASE_URL): "
            f"{_first_line(error)}"
        ) from None


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
