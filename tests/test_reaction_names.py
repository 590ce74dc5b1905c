"""Reaction names (issue 31, section 4): every name Slack can send is kept on both databases,
a long custom emoji with a skin tone included (PostgreSQL refused any over 64 characters and
lost the reaction), a database of schema 7 is widened in place, and what Slack never sends
(empty, 2,000 characters, colons, spaces) is dropped before the database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from slack_harness import LiveBot
from sqlalchemy import create_engine, text
from test_signals_e2e import _digest_post, _react
from test_store import ManualClock, _schema_version, _set_schema_version, clock, database_url

from bot.store import Store, is_reaction_name
from bot.store.database import normalise_database_url
from bot.store.migrations import SCHEMA_VERSION
from bot.store.signals import reaction_weight
from bot.store.tables import REACTION_NAME_LENGTH

__all__ = ["clock", "database_url"]  # fixtures, shared with test_store

TEAM, CHANNEL, USER = "T0NAMES", "C0NAMES", "U0NAMES"
POST_TS = "1711612900.000200"
CUSTOM = "our_lab_s_very_own_celebration_of_a_paper_accepted_at_the_conference_" + "x" * 30
"""A custom emoji's name of 100 characters, as a workspace may make one."""
MALFORMED = ["", "x" * 2000, ":tada:", "tada extra", "tada\n", "tada::", "::skin-tone-2"]


@pytest.fixture
def store(database_url: str, clock: ManualClock) -> Iterator[Store]:
    store = Store(database_url, clock)
    store.record_share(TEAM, CHANNEL, "U0SHARER", "paperPosted", POST_TS)
    yield store
    store.close()


@pytest.mark.parametrize(
    "name",
    [
        f"{CUSTOM}::skin-tone-6",
        "+1::skin-tone-2",
        "-1",
        "man-woman-girl-boy",
        "ok_hand::skin-tone-3::skin-tone-5",
        "y" * REACTION_NAME_LENGTH,
    ],
)
def test_every_name_slack_sends_is_kept_and_taken_back(store: Store, name: str) -> None:
    assert is_reaction_name(name)
    assert store.record_reaction(TEAM, CHANNEL, POST_TS, USER, name)
    shared_and_reacted = 1.0 + reaction_weight(name)
    assert store.channel_interest(CHANNEL) == {"paperPosted": shared_and_reacted}
    assert store.remove_reaction(TEAM, CHANNEL, POST_TS, USER, name)
    assert store.channel_interest(CHANNEL) == {"paperPosted": 1.0}


def test_a_thumbs_up_with_a_long_custom_neighbour_counts_once(store: Store) -> None:
    store.record_reaction(TEAM, CHANNEL, POST_TS, USER, "+1::skin-tone-4")
    store.record_reaction(TEAM, CHANNEL, POST_TS, USER, f"{CUSTOM}::skin-tone-6")
    assert store.channel_interest(CHANNEL) == {"paperPosted": 2.0}  # the share and one vote


@pytest.mark.parametrize("name", [*MALFORMED, "y" * (REACTION_NAME_LENGTH + 1), None, 7])
def test_what_slack_never_sends_is_no_reaction_name(name: object) -> None:
    assert not is_reaction_name(name)


def test_a_database_of_schema_7_keeps_long_names_after_the_upgrade(
    database_url: str, clock: ManualClock
) -> None:
    Store(database_url, clock).close()
    engine = create_engine(normalise_database_url(database_url))
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(
                text("ALTER TABLE post_reactions ALTER COLUMN reaction TYPE VARCHAR(64)")
            )
        _set_schema_version(connection, 7)
    engine.dispose()
    upgraded = Store(database_url, clock)
    try:
        upgraded.record_share(TEAM, CHANNEL, "U0SHARER", "paperPosted", POST_TS)
        assert upgraded.record_reaction(TEAM, CHANNEL, POST_TS, USER, f"{CUSTOM}::skin-tone-6")
        assert upgraded.channel_interest(CHANNEL) == {"paperPosted": 1.5}
    finally:
        upgraded.close()
    assert _schema_version(database_url) == SCHEMA_VERSION


def test_names_slack_never_sends_do_not_count_and_a_long_custom_one_does(bot: LiveBot) -> None:
    paper_id, ts = _digest_post(bot)
    for name in MALFORMED:
        _react(bot, name, ts)
    assert bot.services.store.channel_interest(bot.workspace.channel_id) == {}
    _react(bot, f"{CUSTOM}::skin-tone-6", ts)
    assert bot.services.store.channel_interest(bot.workspace.channel_id) == {paper_id: 0.5}
