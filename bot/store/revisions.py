"""Watermarks: a counter per kind of shared state, raised in the transaction of every change
to it, so a process that keeps its own copy of that state (the scheduler's jobs, made from
the subscriptions) learns from one small read that another process changed it, and re-reads
the state only then. A delete raises it too, which a newest-``updated_at`` could not show."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.engine import Connection

from bot.store.database import Database
from bot.store.tables import revisions

SUBSCRIPTIONS = "subscriptions"
INGESTED_PAPERS = "ingested_papers"


def advance(database: Database, connection: Connection, name: str) -> int:
    """Raise ``name``'s revision inside the caller's transaction, and return it: whoever sees
    the change sees the new revision with it, and never the revision without the change.
    The row stays locked until the transaction ends, so revisions are taken in the order the
    transactions commit: a reader that sees revision ``n`` committed sees every one below."""
    return connection.execute(
        database.insert(revisions)
        .values(name=name, revision=1)
        .on_conflict_do_update(index_elements=["name"], set_={"revision": revisions.c.revision + 1})
        .returning(revisions.c.revision)
    ).scalar_one()


def revision(connection: Connection, name: str) -> int:
    """``name``'s revision now: 0 until its state first changes."""
    found = connection.execute(
        select(revisions.c.revision).where(revisions.c.name == name)
    ).scalar()
    return found or 0
