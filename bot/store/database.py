"""The connection plumbing every part of the store shares: the engine, the backend's
``INSERT ... ON CONFLICT``, the clock, and the one error a caller sees when the database
cannot be used.

SQLite (the default) is opened in WAL mode with a busy timeout and ``BEGIN IMMEDIATE``
write transactions, so two processes can share one file without "database is locked" errors;
reads take no write lock, so they go on while another process writes. One process's writes
take the lock in turn, in the order they asked (``waiting``). PostgreSQL is used when the
URL names it (through psycopg 3).

Every wait is bounded on the client side: opening a connection, taking one from the pool,
and (``Database.bounded``) a request's whole use of the database, after which the caller
answers without it. A frozen server never lets a statement time out on its own side.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Table, create_engine, event, text
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
from bot.store.waiting import Call, DatabaseUnavailable, WriteTurns

SQLITE_BUSY_TIMEOUT_MS = 15_000

CONNECT_TIMEOUT_S = 5
"""How long opening a PostgreSQL connection may take (libpq's ``connect_timeout``, whole
seconds): a server that accepts and then says nothing would otherwise hold the caller for
the kernel's TCP timeouts, minutes."""
POOL_TIMEOUT_S = 5.0
"""How long a caller waits for a pooled connection when all are in use (SQLAlchemy's default
is 30 s): with every connection stuck, waiting longer only makes more people wait."""
DEADLINE_S = 3.0
"""How long a request waits for the database before answering without it. Slack itself
gives an ack 3 s; a person waits no longer for a search that needs no database, and what
does need it (a reading list) says so instead of hanging."""
DIGEST_DEADLINE_S = 30.0
"""How long the paper of the day's work waits for the database. No person is waiting, so a
write may wait out another process's lock; but a frozen server must not hold the digest's
thread for good (one run per channel at a time: its later runs would be skipped too), and
``DatabaseUnavailable`` hands the attempt to the digest's retry."""
DATABASE_THREADS = 15
"""Requests' database work (``Database.bounded``) running at once, as many as the engine's
pool holds (5 + 10 overflow): a frozen server strands at most these threads, never the
listeners."""

T = TypeVar("T")

_READ_ONLY = "paperbot_read_only"
"""The execution option that marks a connection opened for reads (``Database.connect``)."""

log = logging.getLogger(__package__)
"""The store's one logger: operators read ``bot.store`` whichever part wrote the line."""

_work = threading.local()
"""On a thread running ``Database.bounded`` work: ``call``, its ``Call``, which
``Database.begin`` checks before beginning and right before committing."""


class StoreError(StartupError, RuntimeError):
    """The database cannot be used as is: unreachable, refused, or written by a newer bot."""


UNAVAILABLE: tuple[type[Exception], ...] = (
    StoreError,
    DatabaseUnavailable,
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

    def __init__(
        self,
        database_url: str,
        clock: Clock,
        deadline: float = DEADLINE_S,
        digest_deadline: float = DIGEST_DEADLINE_S,
    ) -> None:
        self._clock = clock
        self._deadline = deadline
        self.digest_deadline = digest_deadline
        """The deadline of the paper of the day's work (``part.digest_bounded``)."""
        self._engine = _make_engine(database_url)
        self._write_turns = (
            WriteTurns(SQLITE_BUSY_TIMEOUT_MS / 1000) if self.dialect == "sqlite" else None
        )
        """SQLite's write lock in turn (``waiting``), waited for no longer than SQLite's own
        busy timeout; PostgreSQL queues its own row locks."""
        self._threads = threading.BoundedSemaphore(DATABASE_THREADS)
        self.answered_last = True
        """Whether the database answered the last request that asked it in time: its state
        as last seen, known without waiting (liveness must not wait on the database)."""
        self.insert: Callable[[Table], Any] = (
            postgresql.insert if self.dialect == "postgresql" else sqlite.insert
        )
        """``INSERT`` with the backend's ``ON CONFLICT`` clauses, which give uniqueness."""
        self.workspace: str | None = None
        """The workspace this process serves (``auth.test`` tells a bot with one token), once
        the store is told (``Workspaces.serve_workspace``): the workspace of what it writes
        with no other, and the one rows of unknown workspace are adopted into."""

    @property
    def dialect(self) -> str:
        return self._engine.dialect.name

    @property
    def engine(self) -> Engine:
        """The engine itself, for slack_sdk's installation and OAuth state stores
        (``installations``), which open their own connections."""
        return self._engine

    def now(self) -> datetime:
        return self._clock().astimezone(UTC)

    @contextmanager
    def begin(self) -> Iterator[Connection]:
        """A connection in a transaction that commits on leaving (for writes), unless the
        caller of the ``bounded`` work it belongs to has stopped waiting: that person was
        told the records could not be reached, so the write is rolled back rather than
        saved behind their back (a subscription with no digest job, say). On SQLite it
        first waits its turn at the write lock; a write whose caller left meanwhile is
        not begun."""
        call: Call | None = getattr(_work, "call", None)
        turns = self._write_turns
        with nullcontext() if turns is None else turns.turn(call):
            if _caller_gave_up():
                log.info("a write was not begun: its caller stopped waiting for it")
                raise DatabaseUnavailable("the caller stopped waiting; not begun")
            with self._engine.begin() as connection:
                yield connection
                if _caller_gave_up():
                    log.info("a write was rolled back: its caller stopped waiting for it")
                    raise DatabaseUnavailable("the caller stopped waiting; rolled back")

    def connect(self) -> AbstractContextManager[Connection]:
        """A connection for reads: with SQLite, a plain deferred transaction, which WAL lets
        read while another process holds the write lock."""
        return self._engine.connect().execution_options(**{_READ_ONLY: True})

    def bounded(self, work: Callable[[], T], deadline: float | None = None) -> T:
        """``work``'s result if the database gives it within the deadline (``deadline``
        seconds, or the store's); otherwise, or when the database cannot be used,
        ``DatabaseUnavailable``.

        The work runs on a thread of its own so the caller can stop waiting: work stuck on a
        frozen server strands that thread, not a listener. The threads are daemons, so a
        stranded one never holds up the process's exit. A write waiting its turn at SQLite's
        lock behind others that are being answered is waited for past the deadline
        (``waiting.Call.answered_until``).
        """
        try:
            result = self._within_deadline(work, deadline or self._deadline)
        except DatabaseUnavailable:
            self.answered_last = False
            raise
        self.answered_last = True
        return result

    def _within_deadline(self, work: Callable[[], T], deadline: float) -> T:
        call = Call()
        if not self._threads.acquire(timeout=deadline):
            raise DatabaseUnavailable("every connection is waiting for the database")
        outcome: Future[T] = Future()

        def run() -> None:
            _work.call = call
            try:
                outcome.set_result(work())
            except Exception as error:
                outcome.set_exception(error)
            finally:
                self._threads.release()

        threading.Thread(target=run, name="database", daemon=True).start()
        while True:
            try:
                left = call.answered_until(deadline) - time.monotonic()
                return outcome.result(timeout=max(0.0, left))
            except TimeoutError:
                if call.answered_until(deadline) <= time.monotonic():
                    call.abandoned.set()
                    raise DatabaseUnavailable(f"no answer within {deadline:g} s") from None
            except UNAVAILABLE as error:
                raise DatabaseUnavailable(first_line(error)) from error

    def reachable(self) -> bool:
        """Whether the database answers a trivial query within the deadline (readiness, which
        logs when the answer changes)."""
        try:
            self.bounded(self._ping)
        except DatabaseUnavailable as error:
            log.debug("the database is unavailable: %s", error)
            return False
        return True

    def _ping(self) -> None:
        with self.connect() as connection:
            connection.execute(text("SELECT 1"))

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
            f"{first_line(error)}"
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
        return create_engine(
            url,
            pool_pre_ping=True,
            pool_timeout=POOL_TIMEOUT_S,
            connect_args={"connect_timeout": CONNECT_TIMEOUT_S},
        )
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
    def _begin(connection: Connection) -> None:
        # A deferred transaction that reads and then writes can fail at once with "database
        # is locked" when another process writes in between; taking the write lock up front
        # makes a write wait (busy timeout) instead. A read never writes, so it takes no
        # lock and is not held up by another process's write.
        read_only = connection.get_execution_options().get(_READ_ONLY, False)
        connection.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")

    return engine


def _shown_url(database_url: str) -> str:
    """The URL without its password, for a message people will paste into chats."""
    try:
        return make_url(database_url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(not a database URL)"


def _caller_gave_up() -> bool:
    """Whether the ``bounded`` work running on this thread has been given up by its caller
    (never, for work run directly: migrations, the digest's own claims)."""
    call: Call | None = getattr(_work, "call", None)
    return call is not None and call.abandoned.is_set()


def first_line(error: Exception) -> str:
    """The driver's own words, without SQLAlchemy's wrapping, statement or help link: what
    a log line says of a database error."""
    cause = error.orig if isinstance(error, DBAPIError) and error.orig is not None else error
    return str(cause).strip().split("\n", 1)[0].removeprefix("connection failed: ")
