"""People's reading lists: the papers each person saved, per workspace."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import func, select

from bot.store.part import Part, bounded
from bot.store.people import remembered_again
from bot.store.tables import saved_papers


class ReadingLists(Part):
    @bounded
    def save_paper(self, team_id: str, user_id: str, paper_id: str) -> bool:
        """Put a paper on the person's reading list; False when it was there already.

        A second save keeps the first one's time, so a double click does not reorder the list.
        Saving ends a "forget me": the person is keeping a reading list again.
        """
        with self._database.begin() as connection:
            now = self._database.now()
            inserted = connection.execute(
                self._database.insert(saved_papers)
                .values(team_id=team_id, user_id=user_id, paper_id=paper_id, saved_at=now)
                .on_conflict_do_nothing(index_elements=["team_id", "user_id", "paper_id"])
                .returning(saved_papers.c.paper_id)
            ).first()
            remembered_again(connection, team_id, user_id)
        return inserted is not None

    @bounded
    def remove_paper(self, team_id: str, user_id: str, paper_id: str) -> bool:
        """Take a paper off the reading list; False when it was not on it."""
        with self._database.begin() as connection:
            result = connection.execute(
                saved_papers.delete().where(
                    *_saved_by(team_id, user_id), saved_papers.c.paper_id == paper_id
                )
            )
        return result.rowcount == 1

    @bounded
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
        with self._database.connect() as connection:
            return list(connection.execute(query).scalars())

    @bounded
    def saved_count(self, team_id: str, user_id: str) -> int:
        with self._database.connect() as connection:
            return int(
                connection.execute(
                    select(func.count())
                    .select_from(saved_papers)
                    .where(*_saved_by(team_id, user_id))
                ).scalar()
            )

    @bounded
    def saved_among(self, team_id: str, user_id: str, paper_ids: Iterable[str]) -> frozenset[str]:
        """Which of ``paper_ids`` the person has saved (to draw their buttons)."""
        wanted = list(dict.fromkeys(paper_ids))
        if not wanted:
            return frozenset()
        query = select(saved_papers.c.paper_id).where(
            *_saved_by(team_id, user_id), saved_papers.c.paper_id.in_(wanted)
        )
        with self._database.connect() as connection:
            return frozenset(connection.execute(query).scalars())


def _saved_by(team_id: str, user_id: str) -> tuple[Any, Any]:
    return saved_papers.c.team_id == team_id, saved_papers.c.user_id == user_id
