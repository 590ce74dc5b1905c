"""Installations and OAuth states in the bot's own database (SQLite and PostgreSQL), through
slack_sdk's SQLAlchemy stores on the store's engine: the migration makes their tables, a
state works once and expires, a workspace's bot is found by the key its rows carry (its team,
or an org-wide install's organisation), and forgetting a workspace deletes its installation
and nobody else's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from slack_sdk.oauth.installation_store import Installation
from sqlalchemy import inspect, text
from test_store import ManualClock, clock, database_url

from bot.store import Store

__all__ = ["clock", "database_url"]  # fixtures, shared with test_store

CLIENT_ID = "123.456"


@pytest.fixture
def store(database_url: str, clock: ManualClock) -> Iterator[Store]:
    store = Store(database_url, clock)
    yield store
    store.close()


def _install(installations, team: str | None, *, enterprise: str | None = None) -> None:
    installations.save(
        Installation(
            app_id="A0APP",
            enterprise_id=enterprise,
            team_id=team,
            bot_token=f"xoxb-{team or enterprise}",
            bot_id=f"B{team or enterprise}",
            bot_user_id=f"U{team or enterprise}",
            user_id="U0INSTALLER",
            is_enterprise_install=team is None,
        )
    )


def test_the_migration_makes_slack_sdks_tables(store):
    tables = set(inspect(store._database.engine).get_table_names())
    assert {"slack_installations", "slack_bots", "slack_oauth_states"} <= tables


def test_a_workspace_bot_is_found_by_its_team_or_its_organisation(store):
    installations = store.installation_store(CLIENT_ID)
    _install(installations, "T0ALONE")
    _install(installations, "T0INGRID", enterprise="E0OTHER")
    _install(installations, None, enterprise="E0ORG")
    assert store.workspace_bot(installations, "T0ALONE").bot_token == "xoxb-T0ALONE"
    assert store.workspace_bot(installations, "T0INGRID").bot_token == "xoxb-T0INGRID"
    assert store.workspace_bot(installations, "E0ORG").bot_token == "xoxb-E0ORG"
    assert store.workspace_bot(installations, "E0OTHER") is None  # installed per workspace
    assert store.workspace_bot(installations, "T0NEVER") is None
    assert store.workspace_bot(store.installation_store("999.999"), "T0ALONE") is None


def test_forgetting_a_workspace_deletes_its_installation_only(store):
    installations = store.installation_store(CLIENT_ID)
    for team in ("T0GOES", "T0STAYS"):
        _install(installations, team)
    _install(installations, None, enterprise="E0ORG")
    deleted = store.forget_workspace("T0GOES")
    assert deleted["slack_installations"] == 1 and deleted["slack_bots"] == 1
    assert store.workspace_bot(installations, "T0GOES") is None
    assert store.workspace_bot(installations, "T0STAYS") is not None
    assert store.forget_workspace("E0ORG")["slack_bots"] == 1
    assert store.workspace_bot(installations, "E0ORG") is None


def test_a_state_works_once_and_expires(store):
    states = store.oauth_state_store(600)
    state = states.issue()
    assert states.consume(state) and not states.consume(state)
    assert not states.consume("forged")
    stale = states.issue()
    with store._database.engine.begin() as connection:
        connection.execute(text("UPDATE slack_oauth_states SET expire_at = '2000-01-01'"))
    assert not states.consume(stale)
    states.issue()  # and abandoned states are deleted as new ones are issued
    with store._database.engine.connect() as connection:
        left = connection.execute(text("SELECT state FROM slack_oauth_states")).scalars().all()
    assert stale not in left and len(left) == 1
