"""What the bot keeps about one person: the papers they dismissed, and whether they asked to
be forgotten. Their reading list is ``reading_lists``, their shares and reactions in
channels ``signals``; ``forget_person`` clears them all.

Every write that adds a row about a person, or decides by ``forgotten_people`` whether to,
runs in ``person_transaction``, so the person's writes take effect one after another, in
some order, on both databases. Without it PostgreSQL's default isolation (read committed)
let a forget me and a Save, each blind to the other's uncommitted rows, both commit: the
saved paper survived beside the "forgotten" marker, and a reaction beside it too, states
no order of the two requests gives. SQLite needs nothing more: every write transaction
there takes the database's one write lock first (``BEGIN IMMEDIATE``, ``database``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Table, func, select
from sqlalchemy.engine import Connection

from bot.store.database import Database
from bot.store.part import Part, bounded
from bot.store.tables import (
    channel_signals,
    dismissals,
    forgotten_people,
    post_reactions,
    saved_papers,
)

PERSONAL_TABLES: dict[str, Table] = {
    "saved papers": saved_papers,
    "dismissals": dismissals,
    "channel signals": channel_signals,
    "reactions": post_reactions,
}
"""Every table with rows about one person, by the name ``forget_person`` reports them under.
The others hold nothing that names a person: see docs/privacy.md."""

PERSON_LOCKS = 31_002
"""The class of PostgreSQL advisory locks that ``person_transaction`` takes, one per person
(the key's second half is a hash of the person's ids). Two-key advisory locks never meet
the schema's one-key start-up lock."""


@contextmanager
def person_transaction(database: Database, team_id: str, user_id: str) -> Iterator[Connection]:
    """A write transaction that runs after every other one about the same person has ended.

    On PostgreSQL it first takes the person's advisory lock, held to the end of the
    transaction: a lock, not a row, so nothing new is stored about anyone (a row per person
    would outlive their forget me), and waiting on it needs no retry, unlike a stricter
    isolation level's serialisation failures. Read committed gives each statement after it
    a fresh view, which then includes the writes of the person's transaction before. Two
    people whose ids hash alike merely wait for each other.
    """
    with database.begin() as connection:
        if database.dialect == "postgresql":
            person = func.hashtext(f"{team_id}/{user_id}")
            connection.execute(select(func.pg_advisory_xact_lock(PERSON_LOCKS, person)))
        yield connection


class People(Part):
    @bounded
    def dismiss(self, team_id: str, user_id: str, paper_id: str) -> bool:
        """Mark a paper "not relevant" for the person; False when it was already."""
        with person_transaction(self._database, team_id, user_id) as connection:
            return add_paper_row(
                self._database, connection, dismissals, "dismissed_at", team_id, user_id, paper_id
            )

    @bounded
    def undismiss(self, team_id: str, user_id: str, paper_id: str) -> bool:
        """Undo a dismissal; False when the paper was not dismissed."""
        with self._database.begin() as connection:
            return remove_paper_row(connection, dismissals, team_id, user_id, paper_id)

    @bounded
    def dismissed(self, team_id: str, user_id: str) -> list[str]:
        """Ids the person dismissed, newest first."""
        query = (
            select(dismissals.c.paper_id)
            .where(*rows_of(dismissals, team_id, user_id))
            .order_by(dismissals.c.dismissed_at.desc(), dismissals.c.paper_id)
        )
        with self._database.connect() as connection:
            return list(connection.execute(query).scalars())

    @bounded
    def forget_person(self, team_id: str, user_id: str) -> dict[str, int]:
        """Delete every row about the person, in one transaction, and remember (with their
        two ids only) not to keep new signals about them until they save again.

        Returns how many rows went, by kind (``PERSONAL_TABLES``' names), zeros included,
        so the reply can say what was deleted.
        """
        with person_transaction(self._database, team_id, user_id) as connection:
            deleted = {
                kind: connection.execute(
                    table.delete().where(*rows_of(table, team_id, user_id))
                ).rowcount
                for kind, table in PERSONAL_TABLES.items()
            }
            connection.execute(
                self._database.insert(forgotten_people)
                .values(team_id=team_id, user_id=user_id)
                .on_conflict_do_nothing(index_elements=["team_id", "user_id"])
            )
        return deleted

    @bounded
    def is_forgotten(self, team_id: str, user_id: str) -> bool:
        """Whether the person asked to be forgotten and has not saved since: a passive signal
        about them (a reaction, a share) must then not be recorded."""
        with self._database.connect() as connection:
            return is_forgotten(connection, team_id, user_id)


def is_forgotten(connection: Connection, team_id: str, user_id: str) -> bool:
    row = connection.execute(
        select(forgotten_people.c.user_id).where(*rows_of(forgotten_people, team_id, user_id))
    ).first()
    return row is not None


def add_paper_row(
    database: Database,
    connection: Connection,
    table: Table,
    stamp: str,
    team_id: str,
    user_id: str,
    paper_id: str,
) -> bool:
    """A person's row for a paper (saved, dismissed), its ``stamp`` column set to now; False
    when it was there already: the primary key makes a second click keep the first's time."""
    inserted = connection.execute(
        database.insert(table)
        .values(team_id=team_id, user_id=user_id, paper_id=paper_id, **{stamp: database.now()})
        .on_conflict_do_nothing(index_elements=["team_id", "user_id", "paper_id"])
        .returning(table.c.paper_id)
    ).first()
    return inserted is not None


def remove_paper_row(
    connection: Connection, table: Table, team_id: str, user_id: str, paper_id: str
) -> bool:
    """Delete a person's row for a paper; False when there was none."""
    result = connection.execute(
        table.delete().where(*rows_of(table, team_id, user_id), table.c.paper_id == paper_id)
    )
    return result.rowcount == 1


def remembered_again(connection: Connection, team_id: str, user_id: str) -> None:
    """A save is the person using their reading list again: keep their signals from now on."""
    connection.execute(
        forgotten_people.delete().where(*rows_of(forgotten_people, team_id, user_id))
    )


def rows_of(table: Table, team_id: str, user_id: str) -> tuple[Any, Any]:
    """One person's rows of a per-person table (user ids are unique only per workspace)."""
    return table.c.team_id == team_id, table.c.user_id == user_id
