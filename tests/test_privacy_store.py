"""Privacy in the store: dismissals, forgetting a person, deleting a workspace on uninstall,
and the schema 5 upgrade that gives channel-keyed rows their workspace."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, select, text
from test_store import ManualClock, _schema_version, _set_schema_version, clock, database_url

from bot.store import Store, SubscriptionRecord
from bot.store.database import normalise_database_url
from bot.store.migrations import SCHEMA_VERSION
from bot.store.tables import metadata

__all__ = ["clock", "database_url"]  # fixtures, shared with test_store

TEAM, OTHER_TEAM = "T0PRIVACY", "T0ELSEWHERE"
ME, YOU = "U0FORGETME", "U0STAYS"
DAY = date(2025, 3, 28)


@pytest.fixture
def store(database_url: str, clock: ManualClock) -> Iterator[Store]:
    store = Store(database_url, clock)
    yield store
    store.close()


def _fill(store: Store, team: str, user: str, channel: str) -> None:
    """A row in every table a person or a channel of ``team`` can leave one in."""
    store.save_paper(team, user, "paperA")
    store.save_paper(team, user, "paperB")
    store.dismiss(team, user, "paperC")
    store.save_subscription(
        SubscriptionRecord(channel, "09:00", "UTC", "daily", None, "command", team_id=team)
    )
    _post(store, channel, "paperA", "1.1")
    store.remember_thread_search(channel, "1.1", "graphs", 5, team_id=team)
    store.record_share(team, channel, user, "paperB", "2.2")
    store.record_reaction(team, channel, "1.1", user, "+1")
    store.record_reaction(team, channel, "2.2", user, "tada")


def _post(store: Store, channel: str, paper_id: str, ts: str) -> None:
    """The channel's paper of the day, claimed and posted as ``ts``."""
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


def _rows_holding(database_url: str, value: str) -> dict[str, int]:
    """Rows of every table with ``value`` in any text column, by table."""
    engine = create_engine(normalise_database_url(database_url))
    found: dict[str, int] = {}
    with engine.connect() as connection:
        for table in metadata.sorted_tables:
            for column in table.columns:
                if column.type.python_type is not str:
                    continue
                count = len(connection.execute(select(column).where(column == value)).all())
                if count:
                    found[f"{table.name}.{column.name}"] = count
    engine.dispose()
    return found


def test_dismissing_is_idempotent_and_undone(store: Store) -> None:
    assert store.dismiss(TEAM, ME, "paperA") is True
    assert store.dismiss(TEAM, ME, "paperA") is False
    store.dismiss(TEAM, ME, "paperB")
    assert sorted(store.dismissed(TEAM, ME)) == ["paperA", "paperB"]
    assert store.dismissed(TEAM, YOU) == []
    assert store.dismissed(OTHER_TEAM, ME) == []
    assert store.undismiss(TEAM, ME, "paperA") is True
    assert store.undismiss(TEAM, ME, "paperA") is False
    assert store.dismissed(TEAM, ME) == ["paperB"]


def test_forgetting_a_person_leaves_only_their_opt_out(store: Store, database_url: str) -> None:
    _fill(store, TEAM, ME, "C0MINE")
    _fill(store, TEAM, YOU, "C0YOURS")
    assert store.forget_person(TEAM, ME) == {
        "saved papers": 2,
        "dismissals": 1,
        "channel signals": 1,
        "reactions": 2,
    }
    assert _rows_holding(database_url, ME) == {"forgotten_people.user_id": 1}, (
        "only the marker that stops new signals may name them"
    )
    assert store.is_forgotten(TEAM, ME) and not store.is_forgotten(TEAM, YOU)
    assert store.saved_count(TEAM, YOU) == 2 and store.dismissed(TEAM, YOU) == ["paperC"]
    assert set(store.forget_person(TEAM, ME).values()) == {0}


def test_saving_again_ends_the_opt_out(store: Store, database_url: str) -> None:
    store.forget_person(TEAM, ME)
    store.save_paper(TEAM, ME, "paperA")
    assert not store.is_forgotten(TEAM, ME)
    assert "forgotten_people.user_id" not in _rows_holding(database_url, ME)


def test_forgetting_a_workspace_leaves_no_row_of_it(store: Store, database_url: str) -> None:
    _fill(store, TEAM, ME, "C0MINE")
    store.forget_person(TEAM, YOU)
    _fill(store, OTHER_TEAM, YOU, "C0THEIRS")
    deleted = store.forget_workspace(TEAM)
    assert deleted["saved_papers"] == 2 and deleted["forgotten_people"] == 1
    assert deleted["subscriptions"] == deleted["thread_searches"] == 1
    assert deleted["digest_seen"] == 2, "the paper of the day, and the paper shared there"
    for gone in (TEAM, ME, "C0MINE"):
        assert _rows_holding(database_url, gone) == {}, gone
    assert store.saved_count(OTHER_TEAM, YOU) == 2
    assert store.subscription("C0THEIRS") is not None
    assert store.digest_claim("C0THEIRS", DAY) is not None
    assert set(store.forget_workspace(TEAM).values()) == {0}


def table_contents(database_url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, in a fixed order: to show that something changed nothing."""
    engine = create_engine(normalise_database_url(database_url))
    with engine.connect() as connection:
        contents = {
            table.name: sorted((tuple(row) for row in connection.execute(select(table))), key=repr)
            for table in metadata.sorted_tables
        }
    engine.dispose()
    return contents


def _unknown_rows(store: Store) -> None:
    """Rows that name no workspace, as a bot before schema 5 wrote them (and, before the bot
    knew its workspace, the default channel's digest, a link whose event named none), and
    the caches that never name one."""
    store.remember_thread_search("C0OLD", "1.1", "graphs", 5)
    store.record_shown(None, "C0LINKED", ["paperC"])
    store.remember_query("graphs")
    store.cache_unfurl("https://openreview.net/forum?id=paperA", 1, "paperA", "{}")
    _post(store, "C0DEFAULT", "paperB", "3.3")


def _teams(database_url: str, table: str) -> set[str | None]:
    engine = create_engine(normalise_database_url(database_url))
    with engine.connect() as connection:
        teams = set(connection.execute(text(f"SELECT team_id FROM {table}")).scalars())
    engine.dispose()
    return teams


def test_a_workspace_never_seen_deletes_nothing(store: Store, database_url: str) -> None:
    """Slack signs ``app_uninstalled`` for any workspace the app was in: one with no row here
    takes nobody's rows, not even those of unknown workspace when they are all there is."""
    _unknown_rows(store)
    before = table_contents(database_url)
    assert set(store.forget_workspace("T0NEVERSEEN").values()) == {0}
    assert table_contents(database_url) == before
    _fill(store, TEAM, ME, "C0MINE")
    before = table_contents(database_url)
    assert set(store.forget_workspace("T0NEVERSEEN").values()) == {0}
    assert table_contents(database_url) == before


def test_rows_of_unknown_workspace_are_the_served_workspaces(
    database_url: str, clock: ManualClock
) -> None:
    """A bot with one token serves one workspace: told it, the store gives it the rows that
    name none, once; its uninstall then deletes them, with the caches. Not told it, the
    store never deletes them."""
    unaware = Store(database_url, clock)
    _fill(unaware, TEAM, ME, "C0MINE")
    _unknown_rows(unaware)
    unaware.forget_workspace(TEAM)
    assert unaware.digest_claim("C0DEFAULT", DAY) is not None
    assert unaware.remember_query("graphs") and unaware.thread_search("C0OLD", "1.1")
    unaware.close()
    served = Store(database_url, clock, workspace=TEAM)
    for table in ("digest_claims", "digest_seen", "thread_searches"):
        assert _teams(database_url, table) == {TEAM}, table
    before = table_contents(database_url)
    assert set(served.serve_workspace(TEAM).values()) == {0}, "adopted once"
    assert set(served.forget_workspace(OTHER_TEAM).values()) == {0}
    assert table_contents(database_url) == before
    deleted = served.forget_workspace(TEAM)
    assert deleted["digest_claims"] == deleted["thread_searches"] == 1
    assert deleted["digest_seen"] == 2, "the paper of the day and the linked paper"
    assert deleted["saved_queries"] == deleted["unfurls"] == 1
    assert served.digest_claim("C0DEFAULT", DAY) is None
    served.close()


def test_rows_of_unknown_workspace_stay_when_the_database_holds_another_workspace(
    database_url: str, clock: ManualClock
) -> None:
    """Several bots sharing one database: nothing says whose the rows of unknown workspace
    are, so none is adopted and no uninstall deletes them (expiry does)."""
    unaware = Store(database_url, clock)
    _fill(unaware, OTHER_TEAM, YOU, "C0THEIRS")
    _unknown_rows(unaware)
    unaware.close()
    served = Store(database_url, clock, workspace=TEAM)
    assert None in _teams(database_url, "digest_claims")
    _fill(served, TEAM, ME, "C0MINE")
    deleted = served.forget_workspace(TEAM)
    assert deleted["saved_papers"] == 2 and deleted["digest_claims"] == 1
    assert deleted["saved_queries"] == deleted["unfurls"] == 0
    assert served.digest_claim("C0DEFAULT", DAY) is not None
    assert served.digest_claim("C0THEIRS", DAY) is not None
    served.close()


def test_new_rows_name_the_served_workspace(database_url: str, clock: ManualClock) -> None:
    """Rows written with no workspace of their own (the default channel's digest, a thread
    search or a linked paper whose request did not say) name the one the process serves."""
    served = Store(database_url, clock, workspace=TEAM)
    _unknown_rows(served)
    served.save_subscription(SubscriptionRecord("C0DEFAULT", "09:00", "UTC", "daily", None, "env"))
    for table in ("digest_claims", "digest_seen", "thread_searches", "subscriptions"):
        assert _teams(database_url, table) == {TEAM}, table
    served.close()


def test_a_database_of_schema_4_gains_channel_workspaces(
    database_url: str, clock: ManualClock
) -> None:
    """Channel-keyed rows written by schema 4 keep their values with no workspace; rows
    written after record theirs. An uninstall deletes these, and the others once the bot
    serving that workspace has adopted them."""
    before = Store(database_url, clock)
    _fill(before, TEAM, ME, "C0MINE")
    before.close()
    engine = create_engine(normalise_database_url(database_url))
    channel_tables = ("thread_searches", "subscriptions", "digest_seen", "digest_claims")
    with engine.begin() as connection:
        for table in channel_tables:
            connection.execute(text(f"DROP INDEX ix_{table}_team_id"))
            connection.execute(text(f"ALTER TABLE {table} DROP COLUMN team_id"))
        connection.execute(text("DROP TABLE dismissals"))
        connection.execute(text("DROP TABLE forgotten_people"))
        _set_schema_version(connection, 4)
    upgraded = Store(database_url, clock)
    assert _schema_version(database_url) == SCHEMA_VERSION == 10
    columns = inspect(engine)
    for table in channel_tables:
        assert "team_id" in {column["name"] for column in columns.get_columns(table)}
        assert f"ix_{table}_team_id" in {index["name"] for index in columns.get_indexes(table)}
    assert upgraded.subscription("C0MINE").team_id is None
    assert upgraded.thread_search("C0MINE", "1.1").shown == 5
    assert upgraded.rotation("C0MINE") == (0, frozenset({"paperA", "paperB"}))
    upgraded.save_subscription(
        SubscriptionRecord("C0MINE", "10:00", "UTC", "daily", None, "command", team_id=TEAM)
    )
    assert upgraded.subscription("C0MINE").team_id == TEAM
    assert upgraded.dismiss(TEAM, ME, "paperZ") is True
    upgraded.forget_workspace(TEAM)
    assert upgraded.thread_search("C0MINE", "1.1") is not None, "its workspace is unknown"
    upgraded.close()
    Store(database_url, clock, workspace=TEAM).forget_workspace(TEAM)
    for gone in (TEAM, ME, "C0MINE"):
        assert _rows_holding(database_url, gone) == {}, gone
    engine.dispose()
