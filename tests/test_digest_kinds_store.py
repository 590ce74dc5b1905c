"""Schema 6: subscriptions keyed by channel and kind, claims by channel, kind and period; a
schema-5 database keeps its rows as the daily kind, and a weekly claim is made once a week
under the daily post's claiming mechanism."""

from __future__ import annotations

from datetime import date, timedelta

from older_schemas import tables_as_before
from sqlalchemy import MetaData, create_engine, inspect
from test_store import ManualClock, _schema_version, _set_schema_version, clock, database_url

from bot.store import DAILY, POSTED, WEEKLY, Store, SubscriptionRecord
from bot.store.database import normalise_database_url
from bot.store.migrations import SCHEMA_VERSION
from bot.store.tables import digest_claims, subscriptions

__all__ = ["clock", "database_url"]  # fixtures used here, defined in test_store

LEASE = timedelta(minutes=2)
MONDAY, FRIDAY, NEXT_MONDAY = date(2025, 3, 24), date(2025, 3, 28), date(2025, 3, 31)


def _schema_5_tables() -> MetaData:
    """``subscriptions`` and ``digest_claims`` as schema 5 made them: schema 6's without the
    kind and period columns, keyed by channel, and by channel and local date."""
    return tables_as_before(
        (subscriptions, digest_claims),
        added={"subscriptions": {"kind"}, "digest_claims": {"kind", "period"}},
        keys={"subscriptions": {"channel"}, "digest_claims": {"channel", "local_date"}},
    )


def _schema_5_database(database_url: str, clock: ManualClock) -> None:
    """A database as schema 5 left it, with a subscription and a posted daily claim (of
    ``paperA``, its message ``1.1``)."""
    Store(database_url, clock).close()
    old = _schema_5_tables()
    now = clock()
    engine = create_engine(normalise_database_url(database_url))
    with engine.begin() as connection:
        old.drop_all(connection)
        old.create_all(connection)
        _set_schema_version(connection, 5)
        connection.execute(
            old.tables["subscriptions"]
            .insert()
            .values(
                channel="C1",
                post_time="09:30",
                zone="Europe/Berlin",
                cadence="daily",
                topic="graphs",
                source="command",
                active=True,
                updated_at=now,
                team_id="T1",
            )
        )
        connection.execute(
            old.tables["digest_claims"]
            .insert()
            .values(
                channel="C1",
                local_date=FRIDAY,
                state=POSTED,
                ts="1.1",
                claimed_at=now,
                updated_at=now,
                posted_at=now,
                topic="graphs",
                team_id="T1",
                **(CLAIMED_VALUES | {"paper_id": "paperA"}),
            )
        )
    engine.dispose()


CLAIMED_VALUES = {"paper_id": "paperW", "round": 0, "position": 0, "pool_size": 0}
"""What the claims here record (a weekly claim's: its first paper, and no rotation)."""


def claim(store: Store, owner: str, day: date, kind: str = WEEKLY):
    return store.claim_digest("C1", day, owner=owner, lease=LEASE, kind=kind, **CLAIMED_VALUES)


def test_a_database_of_schema_5_keeps_its_rows_as_the_daily_kind(
    database_url: str, clock: ManualClock
) -> None:
    _schema_5_database(database_url, clock)
    upgraded = Store(database_url, clock)
    assert _schema_version(database_url) == SCHEMA_VERSION == 10
    record = upgraded.subscription("C1")
    assert (record.kind, record.topic, record.team_id) == (DAILY, "graphs", "T1")
    posted = upgraded.digest_claim("C1", FRIDAY)
    assert (posted.kind, posted.period, posted.state, posted.ts) == (
        DAILY,
        "2025-03-28",
        POSTED,
        "1.1",
    )
    assert claim(upgraded, "other", FRIDAY, DAILY).acquired is False
    upgraded.save_subscription(
        SubscriptionRecord("C1", "10:00", "UTC", "monday", None, "command", kind=WEEKLY)
    )
    assert [row.kind for row in upgraded.subscriptions()] == [DAILY, WEEKLY]
    assert upgraded.subscription("C1").post_time == "09:30"
    assert claim(upgraded, "one", FRIDAY).acquired is True
    upgraded.close()
    engine = create_engine(normalise_database_url(database_url))
    indexes = {index["name"] for index in inspect(engine).get_indexes("digest_claims")}
    engine.dispose()
    assert "ix_digest_claims_team_id" in indexes


def test_a_weekly_claim_is_made_once_per_iso_week(database_url: str, clock: ManualClock) -> None:
    one, two = Store(database_url, clock), Store(database_url, clock)
    assert claim(one, "one", MONDAY).acquired is True
    assert claim(two, "two", FRIDAY).acquired is False  # the same ISO week
    assert one.record_post("C1", MONDAY, "2.2", "one", kind=WEEKLY) is True
    assert two.digest_claim("C1", FRIDAY, kind=WEEKLY).ts == "2.2"
    assert two.rotation("C1") == (0, frozenset())  # the weekly digest is no rotation
    assert claim(two, "two", NEXT_MONDAY).acquired is True
    assert claim(one, "one", MONDAY, DAILY).acquired is True  # the daily kind is its own
    assert one.digest_claim("C1", NEXT_MONDAY, kind=WEEKLY).period == "2025-W14"
    one.close()
    two.close()


def test_an_abandoned_weekly_claim_is_taken_over_after_the_lease(
    database_url: str, clock: ManualClock
) -> None:
    one, two = Store(database_url, clock), Store(database_url, clock)
    assert claim(one, "one", MONDAY).acquired is True
    assert one.mark_posting("C1", MONDAY, "one", kind=WEEKLY) is True
    assert claim(two, "two", MONDAY).acquired is False
    clock.advance(LEASE + timedelta(seconds=1))
    taken = claim(two, "two", MONDAY)
    assert taken.acquired is True and taken.claim.state == "posting"
    assert one.touch_claim("C1", MONDAY, "one", kind=WEEKLY) is False
    clock.advance(LEASE + timedelta(seconds=1))
    assert two.unsettled_claims("C1", FRIDAY, LEASE, kind=WEEKLY) == []  # this week's
    later = [claim.period for claim in two.unsettled_claims("C1", NEXT_MONDAY, LEASE, kind=WEEKLY)]
    assert later == ["2025-W13"]
    one.close()
    two.close()
