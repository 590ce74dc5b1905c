"""The new papers post's rows, on SQLite and PostgreSQL: a claim per channel and announcement
day under the digest's one claiming mechanism, the last posted day it takes up from, and the
papers a channel was shown in any round of its rotation, which no new papers post shows
again."""

from __future__ import annotations

from datetime import date, timedelta

from test_store import clock, database_url, store

from bot.store import DAILY, NEW_PAPERS, Shown, Store

__all__ = ["clock", "database_url", "store"]  # fixtures used here, defined in test_store

LEASE = timedelta(minutes=2)
MONDAY, TUESDAY = date(2025, 3, 24), date(2025, 3, 25)


def _post(store: Store, day: date, papers: tuple[str, ...], *, kind: str, round_: int = 0) -> bool:
    attempt = store.claim_digest(
        "C1",
        day,
        paper_id=papers[0],
        round=round_,
        position=0,
        pool_size=0,
        owner="process-1",
        lease=LEASE,
        kind=kind,
    )
    if not attempt.acquired:
        return False
    assert store.mark_posting("C1", day, "process-1", kind=kind)
    return store.record_post("C1", day, f"{day.day}.1", "process-1", kind=kind, shown=Shown(papers))


def test_one_post_per_announcement_day_and_the_last_posted_day(store: Store) -> None:
    assert store.latest_claim_date("C1", kind=NEW_PAPERS, posted=True) is None
    assert _post(store, MONDAY, ("arxiv:1", "arxiv:2"), kind=NEW_PAPERS)
    assert not _post(store, MONDAY, ("arxiv:3",), kind=NEW_PAPERS), "Monday's is posted"
    store.claim_digest(
        "C1",
        TUESDAY,
        paper_id="arxiv:3",
        round=0,
        position=0,
        pool_size=0,
        owner="process-2",
        lease=LEASE,
        kind=NEW_PAPERS,
    )
    assert store.latest_claim_date("C1", kind=NEW_PAPERS) == TUESDAY
    assert store.latest_claim_date("C1", kind=NEW_PAPERS, posted=True) == MONDAY
    assert store.latest_claim_date("C1", kind=DAILY, posted=True) is None


def test_what_a_channel_was_shown_stays_seen_after_its_rotation_starts_a_new_round(
    store: Store,
) -> None:
    assert _post(store, MONDAY, ("arxiv:1", "arxiv:2"), kind=NEW_PAPERS)
    assert _post(store, TUESDAY, ("paperB",), kind=DAILY, round_=1)  # a new round began
    assert store.rotation("C1") == (1, frozenset({"paperB"}))
    asked = ["arxiv:1", "arxiv:2", "arxiv:3", "paperB"]
    assert store.ever_seen("C1", asked) == {"arxiv:1", "arxiv:2", "paperB"}
    assert store.ever_seen("C2", asked) == frozenset()
    many = [f"arxiv:{number}" for number in range(1200)]  # more than one statement's worth
    assert store.ever_seen("C1", many) == {"arxiv:1", "arxiv:2"}
