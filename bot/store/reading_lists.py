"""People's reading lists: the papers each person saved, per workspace."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import func, select

from bot.store.part import Part, bounded
from bot.store.people import (
    add_paper_row,
    person_transaction,
    remembered_again,
    remove_paper_row,
    rows_of,
)
from bot.store.tables import saved_papers


class ReadingLists(Part):
    @bounded
    def save_paper(self, team_id: str, user_id: str, paper_id: str) -> bool:
        """Put a paper on the person's reading list; False when it was there already.

        A second save keeps the first one's time, so a double click does not reorder the list.
        Saving ends a "forget me": the person is keeping a reading list again.
        """
        with person_transaction(self._database, team_id, user_id) as connection:
            inserted = add_paper_row(
                self._database, connection, saved_papers, "saved_at", team_id, user_id, paper_id
            )
            remembered_again(connection, team_id, user_id)
        return inserted

    @bounded
    def remove_paper(self, team_id: str, user_id: str, paper_id: str) -> bool:
        """Take a paper off the reading list; False when it was not on it."""
        with self._database.begin() as connection:
            return remove_paper_row(connection, saved_papers, team_id, user_id, paper_id)

    @bounded
    def saved_papers(
        self, team_id: str, user_id: str, *, limit: int | None = None, offset: int = 0
    ) -> list[str]:
        """Ids on the reading list, newest first."""
        query = (
            select(saved_papers.c.paper_id)
            .where(*rows_of(saved_papers, team_id, user_id))
            .order_by(saved_papers.c.saved_at.desc(), saved_papers.c.paper_id)
            .offset(offset)
            .limit(limit)
        )
        with self._database.connect() as connection:
            return list(connection.execute(query).scalars())

    @bounded
    def saved_count(self, team_id: str, user_id: str) -> int:
        with self._database.connect() as connection:
            return int(
                connection.execute(
                    select(func.count())
                    .select_from(saved_papers)
                    .where(*rows_of(saved_papers, team_id, user_id))
                ).scalar()
            )

    @bounded
    def saved_among(self, team_id: str, user_id: str, paper_ids: Iterable[str]) -> frozenset[str]:
        """Which of ``paper_ids`` the person has saved (to draw their buttons)."""
        wanted = list(dict.fromkeys(paper_ids))
        if not wanted:
            return frozenset()
        query = select(saved_papers.c.paper_id).where(
            *rows_of(saved_papers, team_id, user_id), saved_papers.c.paper_id.in_(wanted)
        )
        with self._database.connect() as connection:
            return frozenset(connection.execute(query).scalars())
