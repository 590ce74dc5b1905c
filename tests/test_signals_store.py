"""The signals a channel leaves (shares, reactions on the bot's posts): one vote per person,
paper and kind; weights; counts never below two people; no record of a person who asked to
be forgotten; expiry after a year."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta

import pytest
from sqlalchemy import create_engine, inspect, text
from test_digest_kinds_store import _schema_5_database
from test_store import ManualClock, clock, database_url

from bot.store import PaperEngagement, Store
from bot.store.database import normalise_database_url

__all__ = ["clock", "database_url"]  # fixtures, shared with test_store

TEAM = "T0SIGNALS"
CHANNEL, ELSEWHERE = "C0READS", "C0OTHER"
ANN, BOB, CAT = "U0ANN", "U0BOB", "U0CAT"
DAY = date(2025, 3, 28)
DIGEST_TS, SHARED_TS = "1711612800.000100", "1711612900.000200"


@pytest.fixture
def store(database_url: str, clock: ManualClock) -> Iterator[Store]:
    store = Store(database_url, clock)
    _post_digest(store, CHANNEL, "paperDigest", DIGEST_TS)
    store.record_share(TEAM, CHANNEL, ANN, "paperShared", SHARED_TS)
    yield store
    store.close()


def _post_digest(store: Store, channel: str, paper_id: str, ts: str) -> None:
    store.claim_digest(
        channel,
        DAY,
        paper_id=paper_id,
        round=0,
        position=1,
        pool_size=9,
        owner="process-1",
        lease=timedelta(minutes=5),
    )
    store.record_post(channel, DAY, ts, "process-1")


def test_a_share_counts_once_per_person(store: Store) -> None:
    store.record_share(TEAM, CHANNEL, ANN, "paperShared", "1711613000.000300")
    assert store.channel_interest(CHANNEL) == {"paperShared": 1.0}
    store.record_share(TEAM, CHANNEL, BOB, "paperShared", "1711613100.000400")
    assert store.channel_interest(CHANNEL) == {"paperShared": 2.0}
    assert store.channel_interest(ELSEWHERE) == {}


def test_reactions_weigh_by_kind_one_vote_per_person(store: Store) -> None:
    assert store.record_reaction(TEAM, CHANNEL, DIGEST_TS, ANN, "+1")
    assert store.record_reaction(TEAM, CHANNEL, DIGEST_TS, BOB, "-1::skin-tone-3")
    assert store.record_reaction(TEAM, CHANNEL, DIGEST_TS, CAT, "eyes")
    assert store.channel_interest(CHANNEL)["paperDigest"] == 0.5
    store.record_reaction(TEAM, CHANNEL, DIGEST_TS, ANN, "+1")
    store.record_reaction(TEAM, CHANNEL, DIGEST_TS, ANN, "tada")
    store.record_reaction(TEAM, CHANNEL, DIGEST_TS, ANN, "thumbsup")
    assert store.channel_interest(CHANNEL)["paperDigest"] == 0.5, "Ann's 👍 and 🎉 are one vote"


def test_a_removed_reaction_counts_no_more(store: Store) -> None:
    store.record_reaction(TEAM, CHANNEL, SHARED_TS, BOB, "+1")
    assert store.channel_interest(CHANNEL) == {"paperShared": 2.0}
    assert store.remove_reaction(TEAM, CHANNEL, SHARED_TS, BOB, "+1") is True
    assert store.remove_reaction(TEAM, CHANNEL, SHARED_TS, BOB, "+1") is False
    assert store.channel_interest(CHANNEL) == {"paperShared": 1.0}


def test_a_reaction_on_a_message_that_is_no_bot_paper_is_not_kept(store: Store) -> None:
    assert store.record_reaction(TEAM, CHANNEL, "1711600000.000001", ANN, "+1") is False
    assert store.record_reaction(TEAM, ELSEWHERE, DIGEST_TS, ANN, "+1") is False
    assert store.channel_interest(ELSEWHERE) == {}


def test_a_forgotten_person_is_not_recorded_until_they_save(store: Store) -> None:
    store.forget_person(TEAM, BOB)
    store.record_share(TEAM, CHANNEL, BOB, "paperOther", "1711613200.000500")
    assert store.record_reaction(TEAM, CHANNEL, DIGEST_TS, BOB, "+1") is True
    assert store.channel_interest(CHANNEL) == {"paperShared": 1.0}
    assert store.record_reaction(TEAM, CHANNEL, "1711613200.000500", ANN, "+1"), (
        "the share's post still names its paper: that is not about Bob"
    )
    store.save_paper(TEAM, BOB, "paperOther")
    store.record_reaction(TEAM, CHANNEL, DIGEST_TS, BOB, "+1")
    assert store.channel_interest(CHANNEL)["paperDigest"] == 1.0


def test_forget_person_deletes_their_signals(store: Store) -> None:
    store.record_reaction(TEAM, CHANNEL, DIGEST_TS, ANN, "+1")
    store.record_share(TEAM, CHANNEL, ANN, "paperOther", "1711613200.000700")
    deleted = store.forget_person(TEAM, ANN)
    assert deleted["channel signals"] == 2 and deleted["reactions"] == 1  # and the fixture's
    assert store.channel_interest(CHANNEL) == {}


def test_the_week_counts_people_never_below_two(store: Store, clock: ManualClock) -> None:
    since = clock.now
    for person in (ANN, BOB):
        store.record_reaction(TEAM, CHANNEL, DIGEST_TS, person, "tada")
    store.record_reaction(TEAM, CHANNEL, DIGEST_TS, CAT, "-1")
    store.record_share(TEAM, ELSEWHERE, BOB, "paperShared", "1711613300.000600")
    store.record_share(TEAM, CHANNEL, CAT, "paperLonely", "1711613400.000700")
    store.record_reaction(TEAM, CHANNEL, SHARED_TS, CAT, "+1")
    assert store.workspace_week(TEAM, since) == [
        PaperEngagement("paperDigest", sharers=0, reactors=2),
        PaperEngagement("paperShared", sharers=2, reactors=0),
    ]
    assert store.workspace_week("T0ELSEWHERE", since) == []
    clock.advance(timedelta(days=8))
    assert store.workspace_week(TEAM, clock.now - timedelta(days=7)) == []


def test_signals_older_than_a_year_go(store: Store, clock: ManualClock) -> None:
    store.record_reaction(TEAM, CHANNEL, SHARED_TS, BOB, "+1")
    clock.advance(timedelta(days=366))
    store.record_share(TEAM, ELSEWHERE, CAT, "paperNew", "1743150000.000100")
    assert store.channel_interest(CHANNEL) == {}
    assert store.record_reaction(TEAM, CHANNEL, SHARED_TS, BOB, "+1") is False


def test_a_schema_5_database_gains_the_signal_tables(database_url: str, clock: ManualClock) -> None:
    """The signal tables are new in schema 6: ``create_all`` makes them before the upgrade's
    steps, and a reaction on a paper of the day posted before the upgrade counts."""
    _schema_5_database(database_url, clock)
    engine = create_engine(normalise_database_url(database_url))
    with engine.begin() as connection:
        for table in ("bot_posts", "channel_signals", "post_reactions"):
            connection.execute(text(f"DROP TABLE {table}"))
    upgraded = Store(database_url, clock)
    assert {"bot_posts", "channel_signals", "post_reactions"} <= set(
        inspect(engine).get_table_names()
    )
    assert upgraded.record_reaction("T1", "C1", "1.1", ANN, "+1")
    assert upgraded.channel_interest("C1") == {"paperA": 1.0}
    upgraded.close()
    engine.dispose()
