"""Remembered searches: the query behind a result button's short key, and each thread's
last search with how far ``@paperbot more`` has shown it. Both expire a week after their
last use (``QUERY_RETENTION``)."""

from __future__ import annotations

import hashlib

from sqlalchemy import select

from bot.store.expiry import QUERY_RETENTION
from bot.store.part import Part, bounded
from bot.store.records import SEARCH, Remembered, ThreadSearch
from bot.store.tables import QUERY_KEY_LENGTH, saved_queries, thread_searches


class StoredSearches(Part):
    @bounded
    def remember_query(self, query: str, kind: str = SEARCH) -> str:
        """A short stable key for ``query``, so a button value stays far below Slack's limit.

        A search's key hashes its text; another kind's hashes the text tagged with the kind
        the way schema 2 stored it, so keys in buttons already sent still work.
        """
        tagged = query if kind == SEARCH else f"\x1f{kind}\x1f{query}"
        key = hashlib.sha256(tagged.encode("utf-8")).hexdigest()[:QUERY_KEY_LENGTH]
        now = self._database.now()
        with self._database.begin() as connection:
            connection.execute(
                self._database.insert(saved_queries)
                .values(key=key, query=query, kind=kind, saved_at=now)
                .on_conflict_do_update(index_elements=["key"], set_={"saved_at": now})
            )
            self._expiry.prune(connection, now)
        return key

    @bounded
    def recall_query(self, key: str) -> Remembered | None:
        """The search a key stands for, unless it is older than ``QUERY_RETENTION``."""
        fresh = saved_queries.c.saved_at >= self._database.now() - QUERY_RETENTION
        with self._database.connect() as connection:
            row = connection.execute(
                select(saved_queries.c.query, saved_queries.c.kind).where(
                    saved_queries.c.key == key, fresh
                )
            ).first()
        return None if row is None else Remembered(row.query, row.kind)

    @bounded
    def remember_thread_search(
        self,
        channel: str,
        thread_ts: str,
        query: str,
        shown: int,
        kind: str = SEARCH,
        *,
        team_id: str | None = None,
    ) -> None:
        """``team_id``: the channel's workspace, when the request said (for uninstalls)."""
        values = {"query": query, "shown": shown, "kind": kind, "updated_at": self._database.now()}
        statement = self._database.insert(thread_searches).values(
            channel=channel, thread_ts=thread_ts, **values, team_id=self._workspace(team_id)
        )
        with self._database.begin() as connection:
            connection.execute(
                statement.on_conflict_do_update(
                    index_elements=["channel", "thread_ts"],
                    set_={**values, **({} if team_id is None else {"team_id": team_id})},
                )
            )

    @bounded
    def thread_search(self, channel: str, thread_ts: str) -> ThreadSearch | None:
        """A thread's last search and how many results it has shown, unless older than
        ``QUERY_RETENTION``."""
        fresh = thread_searches.c.updated_at >= self._database.now() - QUERY_RETENTION
        with self._database.connect() as connection:
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
