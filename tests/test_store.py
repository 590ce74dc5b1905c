"""The store against SQLite (always) and PostgreSQL (when a test server is configured)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest
from project import PROJECT_ROOT
from sqlalchemy import (
    Column,
    DateTime,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    inspect,
    make_url,
    text,
)
from sqlalchemy.engine import Connection

from bot.store import RELATED, SEARCH, Remembered, Store, SubscriptionRecord
from bot.store.database import StoreError, normalise_database_url
from bot.store.expiry import QUERY_RETENTION
from bot.store.migrations import SCHEMA_VERSION
from bot.store.part import Part
from bot.store.records import ThreadSearch
from bot.store.unfurls import UNFURL_RETENTION


class ManualClock:
    """A clock the test moves by hand."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta


def postgres_url_or_skip() -> str:
    """The test server's URL; a missing server skips locally but fails under CI."""
    url = os.environ.get("PAPERBOT_TEST_POSTGRES_URL")
    reason = None
    if not url:
        reason = "PAPERBOT_TEST_POSTGRES_URL is not set (`source .ci/postgres.sh` starts a server)"
    else:
        try:
            engine = create_engine(normalise_database_url(url))
            with engine.connect() as connection:
                connection.execute(text("SELECT 1"))
            engine.dispose()
        except Exception as error:
            reason = f"PostgreSQL at PAPERBOT_TEST_POSTGRES_URL is not reachable: {error}"
    if reason is None:
        return url
    if os.environ.get("CI"):
        pytest.fail(f"CI is set, so PostgreSQL tests must run, but {reason}")
    pytest.skip(reason)


@contextmanager
def throwaway_postgres_database() -> Iterator[str]:
    """A schema of its own for one test, dropped afterwards, so concurrent runs never meet.

    The returned URL makes it the connection's ``search_path``; the store's tables land in it.
    """
    url = make_url(normalise_database_url(postgres_url_or_skip()))
    schema = f"paperbot_t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        scoped = url.update_query_dict({"options": f"-csearch_path={schema}"})
        yield scoped.render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'state' / 'paperbot.db'}"
        return
    with throwaway_postgres_database() as url:
        yield url


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2025, 3, 28, 8, 0, tzinfo=UTC))


@pytest.fixture
def store(database_url: str, clock: ManualClock) -> Iterator[Store]:
    store = Store(database_url, clock)
    yield store
    store.close()


def test_schema_is_created_and_versioned(database_url: str, store: Store) -> None:
    assert _schema_version(database_url) == SCHEMA_VERSION


def test_reopening_keeps_state_and_version(database_url: str, clock: ManualClock) -> None:
    first = Store(database_url, clock)
    key = first.remember_query("graph neural networks")
    first.close()
    second = Store(database_url, clock)
    assert second.recall_query(key) == Remembered("graph neural networks", SEARCH)
    assert _schema_version(database_url) == SCHEMA_VERSION
    second.close()


def test_a_database_from_a_newer_bot_is_refused(database_url: str, clock: ManualClock) -> None:
    Store(database_url, clock).close()
    engine = create_engine(normalise_database_url(database_url))
    with engine.begin() as connection:
        connection.execute(
            text("INSERT INTO schema_version (version, applied_at) VALUES (:v, :t)"),
            {"v": SCHEMA_VERSION + 1, "t": datetime(2025, 1, 1)},
        )
    engine.dispose()
    with pytest.raises(StoreError, match="newer than this bot"):
        Store(database_url, clock)


def test_an_event_is_claimed_once(store: Store) -> None:
    assert store.claim_event("Ev01") is True
    assert store.claim_event("Ev01") is False
    assert store.claim_event("Ev02") is True


def test_event_ids_are_forgotten_after_a_day(store: Store, clock: ManualClock) -> None:
    assert store.claim_event("Ev-old") is True
    clock.advance(timedelta(days=1, hours=2))
    assert store.claim_event("Ev-new") is True
    assert store.claim_event("Ev-old") is True


def test_two_stores_on_one_database_share_event_claims(
    database_url: str, clock: ManualClock
) -> None:
    first, second = Store(database_url, clock), Store(database_url, clock)
    assert [first.claim_event("Ev9"), second.claim_event("Ev9")] == [True, False]
    first.close()
    second.close()


def test_query_keys_are_short_stable_and_recallable(store: Store) -> None:
    long_query = "diffusion " * 400
    key = store.remember_query(long_query)
    assert len(key) <= 16
    assert store.remember_query(long_query) == key
    assert store.remember_query("something else") != key
    assert store.recall_query(key) == Remembered(long_query, SEARCH)
    assert store.recall_query("0000000000000000") is None


def test_the_kind_of_a_search_is_kept_and_keys_differ_by_kind(store: Store) -> None:
    search, related = (
        store.remember_query("label noise"),
        store.remember_query("label noise", RELATED),
    )
    assert search != related
    assert store.recall_query(search) == Remembered("label noise", SEARCH)
    assert store.recall_query(related) == Remembered("label noise", RELATED)
    store.remember_thread_search("C1", "171.1", "a thread's first message", 3, RELATED)
    assert store.thread_search("C1", "171.1") == ThreadSearch(
        "a thread's first message", RELATED, 3
    )


def test_searches_expire_a_week_after_their_last_use(
    database_url: str, store: Store, clock: ManualClock
) -> None:
    old, kept = store.remember_query("old search"), store.remember_query("kept search")
    store.remember_thread_search("C1", "1.1", "old thread", 3)
    clock.advance(QUERY_RETENTION - timedelta(hours=1))
    assert store.remember_query("kept search") == kept  # used again: a week from now
    store.remember_thread_search("C2", "2.2", "new thread", 3)
    clock.advance(timedelta(hours=2))
    assert store.recall_query(old) is None
    assert store.recall_query(kept) == Remembered("kept search", SEARCH)
    assert store.thread_search("C1", "1.1") is None
    assert store.thread_search("C2", "2.2") == ThreadSearch("new thread", SEARCH, 3)
    store.claim_event("Ev-prunes")  # where expired rows are deleted
    assert _rows(database_url, "saved_queries") == 1
    assert _rows(database_url, "thread_searches") == 1


def test_thread_search_is_upserted(store: Store) -> None:
    assert store.thread_search("C1", "171.1") is None
    store.remember_thread_search("C1", "171.1", "transformers", 5)
    store.remember_thread_search("C1", "171.1", "transformers", 10)
    store.remember_thread_search("C2", "171.1", "diffusion", 5)
    assert store.thread_search("C1", "171.1") == ThreadSearch("transformers", SEARCH, 10)
    assert store.thread_search("C2", "171.1") == ThreadSearch("diffusion", SEARCH, 5)


def test_plain_postgresql_urls_use_psycopg_3() -> None:
    assert normalise_database_url("postgresql://u:p@h/db") == "postgresql+psycopg://u:p@h/db"
    assert normalise_database_url("sqlite:///x.db") == "sqlite:///x.db"


def test_sqlite_runs_in_wal_mode(tmp_path, clock: ManualClock) -> None:
    path = tmp_path / "wal.db"
    Store(f"sqlite:///{path}", clock).close()
    engine = create_engine(f"sqlite:///{path}")
    with engine.connect() as connection:
        assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
    engine.dispose()


LEASE = timedelta(minutes=2)
DAY = date(2025, 3, 28)


def claim(store: Store, owner: str, paper_id: str = "p1", day: date = DAY):
    return store.claim_digest(
        "C1", day, paper_id=paper_id, round=0, position=1, pool_size=76, owner=owner, lease=LEASE
    )


def test_subscriptions_are_upserted_and_unsubscribe_is_remembered(store: Store) -> None:
    record = SubscriptionRecord("C1", "09:30", "Europe/Berlin", "daily", "graphs", "command")
    store.save_subscription(record)
    store.save_subscription(replace(record, post_time="10:00", topic=None))
    assert store.subscription("C1") == replace(record, post_time="10:00", topic=None)
    store.save_subscription(replace(record, active=False))
    assert store.subscription("C1").active is False
    assert store.subscription("C2") is None
    assert [row.channel for row in store.subscriptions()] == ["C1"]


def test_pausing_keeps_the_settings_and_subscribing_again_resumes(store: Store) -> None:
    record = SubscriptionRecord("C1", "09:00", "UTC", "weekdays", None, "command")
    assert store.pause_subscription("C1", "not_in_channel") is False
    store.save_subscription(record)
    assert store.pause_subscription("C1", "not_in_channel") is True
    assert store.subscription("C1") == replace(record, paused_reason="not_in_channel")
    store.save_subscription(record)
    assert store.subscription("C1").paused_reason is None


def test_only_one_owner_claims_a_channel_day(store: Store) -> None:
    first, second = claim(store, "A"), claim(store, "B", paper_id="p2")
    assert first.acquired and not second.acquired
    assert second.claim.owner == "A" and second.claim.paper_id == "p1"
    assert claim(store, "B", day=DAY + timedelta(days=1)).acquired


def test_a_posted_claim_is_never_taken_over(store: Store, clock: ManualClock) -> None:
    claim(store, "A")
    assert store.mark_posting("C1", DAY, "A")
    assert store.record_post("C1", DAY, "1700000001.000100", "A")
    clock.advance(timedelta(hours=3))
    attempt = claim(store, "B")
    assert not attempt.acquired
    assert (attempt.claim.state, attempt.claim.ts) == ("posted", "1700000001.000100")
    assert store.rotation("C1") == (0, frozenset({"p1"}))


def test_an_abandoned_claim_is_taken_over_after_the_lease(store: Store, clock: ManualClock) -> None:
    claim(store, "A")
    store.mark_posting("C1", DAY, "A")
    clock.advance(LEASE - timedelta(seconds=1))
    assert not claim(store, "B").acquired
    clock.advance(timedelta(seconds=1))
    taken = claim(store, "B", paper_id="other")
    assert taken.acquired
    assert (taken.claim.owner, taken.claim.state, taken.claim.paper_id) == ("B", "posting", "p1")
    assert not claim(store, "C").acquired
    assert not store.mark_posting("C1", DAY, "A")
    assert not store.record_post("C1", DAY, "1.1", "A")
    assert store.record_post("C1", DAY, "2.2", "B")


def test_heartbeats_keep_the_claim(store: Store, clock: ManualClock) -> None:
    claim(store, "A")
    for _ in range(3):
        clock.advance(LEASE - timedelta(seconds=10))
        assert store.touch_claim("C1", DAY, "A")
    assert not claim(store, "B").acquired


def test_a_released_claim_is_free_at_once_and_remembers_a_possible_send(store: Store) -> None:
    claim(store, "A")
    store.mark_posting("C1", DAY, "A")
    assert store.release_claim("C1", DAY, "A", sent=True)
    taken = claim(store, "B")
    assert taken.acquired and taken.claim.state == "posting"
    assert store.release_claim("C1", DAY, "B", sent=False)
    assert claim(store, "C").claim.state == "claimed"


def test_rotation_tracks_the_latest_round(store: Store) -> None:
    assert store.rotation("C1") == (0, frozenset())
    for number, (day, paper, round_) in enumerate(
        [(DAY, "p1", 0), (DAY + timedelta(days=1), "p2", 0), (DAY + timedelta(days=2), "p1", 1)]
    ):
        store.claim_digest(
            "C1", day, paper_id=paper, round=round_, position=1, pool_size=2, owner="A", lease=LEASE
        )
        store.record_post("C1", day, f"{number}.0", "A")
    assert store.rotation("C1") == (1, frozenset({"p1"}))
    assert store.rotation("C2") == (0, frozenset())


def test_simultaneous_claims_from_many_connections_have_one_winner(
    database_url: str, clock: ManualClock
) -> None:
    """Threads with their own stores (own connections) released together by a barrier."""
    workers, days = 6, 10
    stores = [Store(database_url, clock) for _ in range(workers)]
    barrier = threading.Barrier(workers)

    def race(worker: int) -> list[date]:
        won = []
        for offset in range(days):
            day = DAY + timedelta(days=offset)
            barrier.wait()
            attempt = stores[worker].claim_digest(
                "C1",
                day,
                paper_id=f"p{worker}",
                round=0,
                position=1,
                pool_size=76,
                owner=f"w{worker}",
                lease=LEASE,
            )
            if attempt.acquired:
                won.append(day)
        return won

    with ThreadPoolExecutor(workers) as pool:
        winners = [day for won in pool.map(race, range(workers)) for day in won]
    assert sorted(winners) == [DAY + timedelta(days=offset) for offset in range(days)]
    for store in stores:
        store.close()


# Reading lists and unfurls ---------------------------------------------------------------

TEAM, USER = "T0PAPERS", "U0READER"


def test_saving_is_idempotent_and_the_list_is_newest_first(store: Store, clock) -> None:
    assert store.save_paper(TEAM, USER, "paperA") is True
    clock.advance(timedelta(minutes=1))
    assert store.save_paper(TEAM, USER, "paperB") is True
    clock.advance(timedelta(minutes=1))
    assert store.save_paper(TEAM, USER, "paperA") is False
    assert store.saved_papers(TEAM, USER) == ["paperB", "paperA"]
    assert store.saved_count(TEAM, USER) == 2
    assert store.saved_among(TEAM, USER, ["paperA", "paperC"]) == frozenset({"paperA"})


def test_reading_lists_are_per_workspace_and_person(store: Store) -> None:
    store.save_paper(TEAM, USER, "paperA")
    assert store.saved_papers(TEAM, "U0OTHER") == []
    assert store.saved_papers("T0ELSEWHERE", USER) == []


def test_removing_twice_removes_once(store: Store) -> None:
    store.save_paper(TEAM, USER, "paperA")
    assert store.remove_paper(TEAM, USER, "paperA") is True
    assert store.remove_paper(TEAM, USER, "paperA") is False
    assert store.saved_papers(TEAM, USER) == []


def test_the_list_pages(store: Store, clock) -> None:
    for number in range(25):
        store.save_paper(TEAM, USER, f"p{number:02d}")
        clock.advance(timedelta(seconds=1))
    assert store.saved_papers(TEAM, USER, limit=20) == [f"p{n:02d}" for n in range(24, 4, -1)]
    assert store.saved_papers(TEAM, USER, limit=20, offset=20) == [
        f"p{n:02d}" for n in range(4, -1, -1)
    ]


def test_an_unfurl_is_cached_for_a_day(store: Store, clock) -> None:
    link = "https://openreview.net/forum?id=7ANDviElAo&noteId=abc"
    assert store.cached_unfurl(link, 2) is None
    store.cache_unfurl(link, 2, "7ANDviElAo", '{"blocks": []}')
    assert store.cached_unfurl(link, 2) == '{"blocks": []}'
    assert store.cached_unfurl(link.replace("abc", "xyz"), 2) is None
    clock.advance(UNFURL_RETENTION + timedelta(seconds=1))
    assert store.cached_unfurl(link, 2) is None
    store.cache_unfurl(link, 2, "7ANDviElAo", '{"blocks": [1]}')
    assert store.cached_unfurl(link, 2) == '{"blocks": [1]}'


def test_an_unfurl_rendered_by_another_version_of_the_card_is_not_served(store: Store) -> None:
    link = "https://openreview.net/forum?id=7ANDviElAo"
    store.cache_unfurl(link, 1, "7ANDviElAo", '{"blocks": ["old"]}')
    assert store.cached_unfurl(link, 2) is None
    store.cache_unfurl(link, 2, "7ANDviElAo", '{"blocks": ["new"]}')
    assert store.cached_unfurl(link, 2) == '{"blocks": ["new"]}'
    assert store.cached_unfurl(link, 1) == '{"blocks": ["old"]}'


def _rows(database_url: str, table: str) -> int:
    return _scalar(database_url, f"SELECT COUNT(*) FROM {table}")


def _schema_version(database_url: str) -> int:
    return _scalar(database_url, "SELECT MAX(version) FROM schema_version")


def _scalar(database_url: str, query: str) -> int:
    engine = create_engine(normalise_database_url(database_url))
    with engine.connect() as connection:
        value = connection.execute(text(query)).scalar()
    engine.dispose()
    return int(value)


_MARK = "\x1frelated\x1f"
"""How schema 2 stored a related search: its text behind this prefix."""


def _schema_2_database(database_url: str, clock: ManualClock) -> None:
    """A database as schema 2 left it (the bot before kinds and expiry), with a search and a
    related search remembered for buttons and for threads, as schema 2 wrote them."""
    Store(database_url, clock).close()
    old = MetaData()
    Table(
        "saved_queries",
        old,
        Column("key", String(16), primary_key=True),
        Column("query", Text, nullable=False),
    )
    Table(
        "thread_searches",
        old,
        Column("channel", String(64), primary_key=True),
        Column("thread_ts", String(64), primary_key=True),
        Column("query", Text, nullable=False),
        Column("shown", Integer, nullable=False),
        Column("updated_at", DateTime, nullable=False),
    )
    updated = clock().replace(tzinfo=None)
    engine = create_engine(normalise_database_url(database_url))
    with engine.begin() as connection:
        connection.execute(text("DROP TABLE saved_queries"))
        connection.execute(text("DROP TABLE thread_searches"))
        old.create_all(connection)
        _set_schema_version(connection, 2)
        for query in ("graph neural networks", _MARK + "a message about graphs"):
            connection.execute(
                old.tables["saved_queries"].insert().values(key=_key(query), query=query)
            )
        for channel, query, shown in (("C1", "transformers", 6), ("C2", _MARK + "thread", 3)):
            connection.execute(
                old.tables["thread_searches"]
                .insert()
                .values(
                    channel=channel, thread_ts="1.1", query=query, shown=shown, updated_at=updated
                )
            )
    engine.dispose()


def _set_schema_version(connection: Connection, version: int) -> None:
    connection.execute(text("DELETE FROM schema_version"))
    connection.execute(
        text("INSERT INTO schema_version (version, applied_at) VALUES (:v, :t)"),
        {"v": version, "t": datetime(2025, 1, 1)},
    )


def _key(query: str) -> str:
    return hashlib.sha256(query.encode("utf-8")).hexdigest()[:16]


def test_a_database_of_schema_2_upgrades_in_place(database_url: str, clock: ManualClock) -> None:
    """Related searches lose their prefix for a kind of their own; keys in buttons already
    sent still find their searches; nothing is lost."""
    _schema_2_database(database_url, clock)
    upgraded = Store(database_url, clock)
    assert _schema_version(database_url) == SCHEMA_VERSION
    search, related = _key("graph neural networks"), _key(_MARK + "a message about graphs")
    assert upgraded.recall_query(search) == Remembered("graph neural networks", SEARCH)
    assert upgraded.recall_query(related) == Remembered("a message about graphs", RELATED)
    assert upgraded.remember_query("a message about graphs", RELATED) == related
    assert upgraded.thread_search("C1", "1.1") == ThreadSearch("transformers", SEARCH, 6)
    assert upgraded.thread_search("C2", "1.1") == ThreadSearch("thread", RELATED, 3)
    clock.advance(QUERY_RETENTION + timedelta(minutes=1))
    assert upgraded.recall_query(search) is None  # saved at the upgrade, expired a week on
    upgraded.close()


def test_a_database_of_schema_1_gains_the_new_tables(database_url: str, clock) -> None:
    """A database made before reading lists upgrades in place and keeps its rows."""
    _schema_2_database(database_url, clock)
    engine = create_engine(normalise_database_url(database_url))
    with engine.begin() as connection:
        connection.execute(text("DROP TABLE saved_papers"))
        connection.execute(text("DROP TABLE unfurls"))
        _set_schema_version(connection, 1)
    upgraded = Store(database_url, clock)
    assert _schema_version(database_url) == SCHEMA_VERSION
    key = _key("graph neural networks")
    assert upgraded.recall_query(key) == Remembered("graph neural networks", SEARCH)
    assert upgraded.save_paper(TEAM, USER, "paperA") is True
    upgraded.close()
    assert {"saved_papers", "unfurls"} <= set(inspect(engine).get_table_names())
    engine.dispose()


def test_a_database_of_schema_3_gains_the_claims_topic(database_url: str, clock) -> None:
    """A claim made before schema 4 has no topic; claims made after keep theirs."""
    before = Store(database_url, clock)
    claim(before, "old", day=DAY - timedelta(days=1))
    before.close()
    engine = create_engine(normalise_database_url(database_url))
    with engine.begin() as connection:
        connection.execute(text("ALTER TABLE digest_claims DROP COLUMN topic"))
        _set_schema_version(connection, 3)
    engine.dispose()
    upgraded = Store(database_url, clock)
    assert _schema_version(database_url) == SCHEMA_VERSION
    assert upgraded.digest_claim("C1", DAY - timedelta(days=1)).topic is None
    upgraded.claim_digest(
        "C1",
        DAY,
        paper_id="p2",
        round=0,
        position=1,
        pool_size=9,
        topic="diffusion",
        owner="new",
        lease=LEASE,
    )
    assert upgraded.digest_claim("C1", DAY).topic == "diffusion"
    upgraded.close()


_SAVER = textwrap.dedent(
    """
    import json, sys
    from bot.store import Store
    url = sys.argv[1]
    store = Store(url)
    print("ready", flush=True)
    sys.stdin.readline()  # the go: both processes are connected and start together
    won = [store.save_paper("T0PAPERS", "U0READER", f"p{n}") for n in range(40)]
    print(json.dumps(won))
    """
)


def test_two_processes_saving_the_same_papers_save_each_once(database_url: str) -> None:
    """A double click that reaches two bot processes: each paper is saved by exactly one."""
    Store(database_url).close()
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _SAVER, database_url],
            cwd=PROJECT_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for process in processes:
        assert process.stdout is not None and process.stdout.readline() == "ready\n"
    for process in processes:  # the go, to both before either is waited for
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.close()
    results = [json.loads(process.stdout.read()) for process in processes]
    for process in processes:
        process.wait(timeout=60)
    assert all(process.returncode == 0 for process in processes)
    assert [a + b for a, b in zip(*results, strict=True)] == [1] * 40
    check = Store(database_url)
    assert check.saved_count("T0PAPERS", "U0READER") == 40
    check.close()


def test_the_parts_of_the_store_never_share_a_name() -> None:
    """``Store`` inherits its parts: a name in two of them would silently hide one."""
    parts = [part for part in Store.__mro__ if part not in (Store, Part, object)]
    names = [name for part in parts for name in vars(part) if not name.startswith("__")]
    assert len(parts) == 12 and len(names) == len(set(names))
