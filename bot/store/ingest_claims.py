"""Who ingests each source for each period, and where each followed feed stands.

The claim is the paper of the day's pattern (``claims``): the primary key lets one process
insert it, so of several replicas whose schedulers fire at once one fetches and the others
make no request; a claim whose owner went quiet for longer than the lease (a process killed
mid-ingest) is taken over with a compare-and-set. A run that failed gives its claim up, so
the retry, here or in another process, takes it again.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from sqlalchemy import select

from bot.store.database import log
from bot.store.part import Part, bounded, digest_bounded
from bot.store.records import FeedState, IngestClaim
from bot.store.tables import feed_states, ingest_claims

INGESTING, DONE, FAILED = "ingesting", "done", "failed"
"""States of an ingest claim."""


class IngestClaims(Part):
    @digest_bounded
    def claim_ingest(
        self,
        source: str,
        period: str,
        owner: str,
        lease: timedelta,
        owner_gone: Callable[[str], bool] = lambda _owner: False,
    ) -> bool:
        """Take the source's ingest for ``period``: True when this owner now holds it
        (new, given up after a failure, abandoned for longer than ``lease``, or whose owner
        ``owner_gone`` says is dead); False when it is done or another process is on it."""
        now = self._database.now()
        table = ingest_claims
        with self._database.begin() as connection:
            inserted = connection.execute(
                self._database.insert(table)
                .values(
                    source=source,
                    period=period,
                    state=INGESTING,
                    owner=owner,
                    claimed_at=now,
                    updated_at=now,
                    new=0,
                    updated=0,
                    skipped=0,
                    requests=0,
                )
                .on_conflict_do_nothing(index_elements=["source", "period"])
                .returning(table.c.source)
            ).first()
            if inserted is not None:
                return True
            existing = connection.execute(_claim_query(source, period)).one()
            abandoned = (
                existing.owner is None
                or now - existing.updated_at >= lease
                or owner_gone(existing.owner)
            )
            if existing.state == DONE or not abandoned:
                return False
            taken = connection.execute(
                table.update()
                .where(
                    table.c.source == source,
                    table.c.period == period,
                    table.c.updated_at == existing.updated_at,
                    table.c.state == existing.state,
                )
                .values(state=INGESTING, owner=owner, updated_at=now, error=None)
            )
        if taken.rowcount == 1 and existing.owner is not None:
            log.warning(
                "took over the %s ingest for %s from %s, silent since %s",
                source,
                period,
                existing.owner,
                existing.updated_at.isoformat(),
            )
        return taken.rowcount == 1

    @digest_bounded
    def touch_ingest(self, source: str, period: str, owner: str) -> bool:
        """Renew the lease between pages; False when another process took the claim."""
        return self._update_owned(source, period, owner, {})

    @digest_bounded
    def finish_ingest(
        self,
        source: str,
        period: str,
        owner: str,
        *,
        new: int,
        updated: int,
        skipped: int,
        requests: int,
        error: str | None = None,
    ) -> bool:
        """Close the run: ``done`` with its counts, or, with an ``error``, ``failed`` and
        released, so the next attempt takes it again."""
        values: dict[str, Any] = {
            "state": FAILED if error else DONE,
            "new": new,
            "updated": updated,
            "skipped": skipped,
            "requests": requests,
            "error": error,
            "finished_at": self._database.now(),
        }
        if error:
            values["owner"] = None
        return self._update_owned(source, period, owner, values)

    def _update_owned(self, source: str, period: str, owner: str, values: dict[str, Any]) -> bool:
        table = ingest_claims
        with self._database.begin() as connection:
            result = connection.execute(
                table.update()
                .where(
                    table.c.source == source,
                    table.c.period == period,
                    table.c.owner == owner,
                    table.c.state == INGESTING,
                )
                .values(updated_at=self._database.now(), **values)
            )
        return result.rowcount == 1

    @digest_bounded
    def ingest_claim(self, source: str, period: str) -> IngestClaim | None:
        with self._database.connect() as connection:
            row = connection.execute(_claim_query(source, period)).first()
        return None if row is None else IngestClaim(**row._mapping)

    @digest_bounded
    def feed_state(self, feed: str) -> FeedState | None:
        with self._database.connect() as connection:
            row = connection.execute(select(feed_states).where(feed_states.c.feed == feed)).first()
        return None if row is None else FeedState(**row._mapping)

    @bounded
    def feed_states(self) -> dict[str, FeedState]:
        with self._database.connect() as connection:
            rows = connection.execute(select(feed_states)).all()
        return {row.feed: FeedState(**row._mapping) for row in rows}

    @digest_bounded
    def record_feed(
        self, feed: str, *, watermark: str | None = None, error: str | None = None
    ) -> None:
        """A feed's attempt: with no ``error``, a success that moves its watermark (when
        given); with one, a failure counted and kept for ``/paper sources``, the watermark
        where the last good run left it."""
        now = self._database.now()
        table = feed_states
        if error is None:
            changes: dict[str, Any] = {
                "last_success_at": now,
                "last_attempt_at": now,
                "last_error": None,
                "failures": 0,
            }
            if watermark is not None:
                changes["watermark"] = watermark
        else:
            changes = {
                "last_attempt_at": now,
                "last_error": error,
                "failures": table.c.failures + 1,
            }
        first = {
            "feed": feed,
            "watermark": watermark if error is None else None,
            "last_success_at": None if error else now,
            "last_attempt_at": now,
            "last_error": error,
            "failures": 1 if error else 0,
        }
        with self._database.begin() as connection:
            connection.execute(
                self._database.insert(table)
                .values(**first)
                .on_conflict_do_update(index_elements=["feed"], set_=changes)
            )


def _claim_query(source: str, period: str) -> Any:
    return select(ingest_claims).where(
        ingest_claims.c.source == source, ingest_claims.c.period == period
    )
