"""``Store``: the one object answers, the digest and the shell hold for durable state.

It opens the database, migrates it, and hands each call to the part that keeps that kind of
state. Callers keep one handle and one vocabulary (``store.save_paper``,
``store.claim_digest``) while each kind's SQL lives in a module of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date, timedelta

from bot.clock import Clock, system_clock
from bot.store.claims import DigestClaims, never_gone
from bot.store.database import Database, unusable_database_refused
from bot.store.events import SlackEvents
from bot.store.expiry import Expiry
from bot.store.migrations import migrate
from bot.store.reading_lists import ReadingLists
from bot.store.records import (
    SEARCH,
    ClaimAttempt,
    DigestClaim,
    Remembered,
    SubscriptionRecord,
    ThreadSearch,
)
from bot.store.searches import Searches
from bot.store.subscriptions import Subscriptions
from bot.store.unfurls import Unfurls


class Store:
    """Durable state for one bot process; safe to share a database with other processes."""

    def __init__(self, database_url: str, clock: Clock = system_clock) -> None:
        with unusable_database_refused(database_url):
            self._database = Database(database_url, clock)
            migrate(self._database)
        expiry = Expiry()
        self._events = SlackEvents(self._database, expiry)
        self._searches = Searches(self._database, expiry)
        self._reading_lists = ReadingLists(self._database)
        self._unfurls = Unfurls(self._database)
        self._subscriptions = Subscriptions(self._database)
        self._claims = DigestClaims(self._database)

    def close(self) -> None:
        self._database.close()

    # Slack events and remembered searches (answers) ---------------------------------------

    def claim_event(self, event_id: str) -> bool:
        return self._events.claim_event(event_id)

    def remember_query(self, query: str, kind: str = SEARCH) -> str:
        return self._searches.remember_query(query, kind)

    def recall_query(self, key: str) -> Remembered | None:
        return self._searches.recall_query(key)

    def remember_thread_search(
        self, channel: str, thread_ts: str, query: str, shown: int, kind: str = SEARCH
    ) -> None:
        self._searches.remember_thread_search(channel, thread_ts, query, shown, kind)

    def thread_search(self, channel: str, thread_ts: str) -> ThreadSearch | None:
        return self._searches.thread_search(channel, thread_ts)

    # Reading lists and unfurls (answers) --------------------------------------------------

    def save_paper(self, team_id: str, user_id: str, paper_id: str) -> bool:
        return self._reading_lists.save_paper(team_id, user_id, paper_id)

    def remove_paper(self, team_id: str, user_id: str, paper_id: str) -> bool:
        return self._reading_lists.remove_paper(team_id, user_id, paper_id)

    def saved_papers(
        self, team_id: str, user_id: str, *, limit: int | None = None, offset: int = 0
    ) -> list[str]:
        return self._reading_lists.saved_papers(team_id, user_id, limit=limit, offset=offset)

    def saved_count(self, team_id: str, user_id: str) -> int:
        return self._reading_lists.saved_count(team_id, user_id)

    def saved_among(self, team_id: str, user_id: str, paper_ids: Iterable[str]) -> frozenset[str]:
        return self._reading_lists.saved_among(team_id, user_id, paper_ids)

    def cached_unfurl(self, link: str) -> str | None:
        return self._unfurls.cached_unfurl(link)

    def cache_unfurl(self, link: str, paper_id: str, payload: str) -> None:
        self._unfurls.cache_unfurl(link, paper_id, payload)

    # Digest subscriptions (digest) --------------------------------------------------------

    def save_subscription(self, record: SubscriptionRecord) -> None:
        self._subscriptions.save_subscription(record)

    def pause_subscription(self, channel: str, reason: str) -> bool:
        return self._subscriptions.pause_subscription(channel, reason)

    def subscription(self, channel: str) -> SubscriptionRecord | None:
        return self._subscriptions.subscription(channel)

    def subscriptions(self) -> list[SubscriptionRecord]:
        return self._subscriptions.subscriptions()

    # Digest rotation and claims (digest) --------------------------------------------------

    def rotation(self, channel: str) -> tuple[int, frozenset[str]]:
        return self._claims.rotation(channel)

    def digest_claim(self, channel: str, local_date: date) -> DigestClaim | None:
        return self._claims.digest_claim(channel, local_date)

    def latest_claim_date(self, channel: str) -> date | None:
        return self._claims.latest_claim_date(channel)

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
        owner_gone: Callable[[str], bool] = never_gone,
    ) -> ClaimAttempt:
        return self._claims.claim_digest(
            channel,
            local_date,
            paper_id=paper_id,
            round=round,
            position=position,
            pool_size=pool_size,
            owner=owner,
            lease=lease,
            owner_gone=owner_gone,
        )

    def mark_posting(self, channel: str, local_date: date, owner: str) -> bool:
        return self._claims.mark_posting(channel, local_date, owner)

    def touch_claim(self, channel: str, local_date: date, owner: str) -> bool:
        return self._claims.touch_claim(channel, local_date, owner)

    def release_claim(self, channel: str, local_date: date, owner: str, *, sent: bool) -> bool:
        return self._claims.release_claim(channel, local_date, owner, sent=sent)

    def record_post(self, channel: str, local_date: date, ts: str, owner: str) -> bool:
        return self._claims.record_post(channel, local_date, ts, owner)

    def unsettled_claims(self, channel: str, before: date, lease: timedelta) -> list[DigestClaim]:
        return self._claims.unsettled_claims(channel, before, lease)

    def settle_claim(self, claim: DigestClaim, ts: str | None) -> bool:
        return self._claims.settle_claim(claim, ts)
