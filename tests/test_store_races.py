"""Writes about one person racing each other (issue 31, section 2): ``/paper forget me`` while
the same person's Save, reaction and share land. Whatever the interleaving, the end state
must be one that some serial order of the same requests gives, on both databases.

Each trial releases the requests on threads together (a barrier), then compares what the
database holds about the person, and what forget me said it deleted, with every serial
order's outcome, computed by ``serially`` from the rules the store promises.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from itertools import permutations
from typing import Any

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.engine import Engine
from test_store import ManualClock, clock, database_url

from bot.store import Store
from bot.store.database import normalise_database_url
from bot.store.tables import channel_signals, post_reactions

__all__ = ["clock", "database_url"]  # fixtures, shared with test_store

TRIALS = 200
SETTLING = 30.0
"""A bound on joining a trial's threads, so a deadlock fails the test rather than hangs it."""
TEAM, CHANNEL, SHARER = "T0RACES", "C0RACES", "U0SHARER"
POST_TS, SHARE_TS = "1711612900.000200", "1711613000.000300"
KEPT, SAVED, SHARED = "paperKept", "paperSaved", "paperShared"


@dataclass(frozen=True)
class Person:
    """What the database holds about the person, and what forget me reported deleting."""

    saved: frozenset[str]
    reactions: frozenset[str]
    shares: frozenset[str]
    forgotten: bool
    deleted: tuple[int, int, int] | None = None
    """Forget me's counts: saved papers, channel signals, reactions."""


BEFORE = Person(frozenset({KEPT}), frozenset({"tada"}), frozenset(), forgotten=False)
"""Each trial's person before the race: a paper saved, a reaction on the bot's post."""


def forget(person: Person) -> Person:
    return Person(
        frozenset(),
        frozenset(),
        frozenset(),
        True,
        (len(person.saved), len(person.shares), len(person.reactions)),
    )


def save(person: Person) -> Person:
    """A Save ends a forget me: the person keeps a reading list again."""
    return replace(person, saved=person.saved | {SAVED}, forgotten=False)


def react(person: Person) -> Person:
    """A reaction is not kept about a person who asked to be forgotten."""
    if person.forgotten:
        return person
    return replace(person, reactions=person.reactions | {"+1"})


def share(person: Person) -> Person:
    if person.forgotten:
        return person
    return replace(person, shares=person.shares | {SHARED})


def serially(start: Person, steps: list[Callable[[Person], Person]]) -> set[Person]:
    """The outcome of every order the steps could have run in, one after another."""
    outcomes = set()
    for order in permutations(steps):
        person = start
        for step in order:
            person = step(person)
        outcomes.add(person)
    return outcomes


@pytest.fixture
def store(database_url: str, clock: ManualClock) -> Iterator[Store]:
    store = Store(database_url, clock)
    store.record_share(TEAM, CHANNEL, SHARER, "paperPosted", POST_TS)
    yield store
    store.close()


@pytest.fixture
def engine(database_url: str, store: Store) -> Iterator[Engine]:
    engine = create_engine(normalise_database_url(database_url))
    yield engine
    engine.dispose()


def held(store: Store, engine: Engine, user: str, deleted: dict[str, int] | None) -> Person:
    with engine.connect() as connection:
        reactions = connection.execute(
            select(post_reactions.c.reaction).where(post_reactions.c.user_id == user)
        ).scalars()
        shares = connection.execute(
            select(channel_signals.c.paper_id).where(channel_signals.c.user_id == user)
        ).scalars()
        found = (frozenset(reactions), frozenset(shares))
    counts = None
    if deleted is not None:
        counts = (deleted["saved papers"], deleted["channel signals"], deleted["reactions"])
    return Person(
        frozenset(store.saved_papers(TEAM, user)),
        *found,
        store.is_forgotten(TEAM, user),
        counts,
    )


def together(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run the calls on threads of their own, released at once: each one's result, or the
    exception it raised, in order."""
    barrier = threading.Barrier(len(calls))
    outcomes: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        barrier.wait()
        try:
            outcomes[index] = calls[index]()
        except Exception as error:
            outcomes[index] = error

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=SETTLING)
        assert not thread.is_alive()
    return outcomes


def test_forget_me_racing_a_save_a_reaction_and_a_share_ends_as_some_serial_order(
    store: Store, engine: Engine
) -> None:
    unexplained = []
    for trial in range(TRIALS):
        user = f"U0RACE{trial:04d}"
        store.save_paper(TEAM, user, KEPT)
        store.record_reaction(TEAM, CHANNEL, POST_TS, user, "tada")
        outcomes = together(
            [
                partial(store.forget_person, TEAM, user),
                partial(store.save_paper, TEAM, user, SAVED),
                partial(store.record_reaction, TEAM, CHANNEL, POST_TS, user, "+1"),
                partial(store.record_share, TEAM, CHANNEL, user, SHARED, SHARE_TS),
            ]
        )
        assert [o for o in outcomes if isinstance(o, Exception)] == []
        deleted = outcomes[0]
        end = held(store, engine, user, deleted)
        if end not in serially(BEFORE, [forget, save, react, share]):
            unexplained.append(end)
    assert unexplained == []


def test_after_a_raced_forget_me_the_person_is_recorded_as_their_last_request_says(
    store: Store, engine: Engine
) -> None:
    """The symptom people saw: a forget me that lost its race to a Save left the marker,
    so ``/paper saved`` listed a paper while their new reactions went unrecorded."""
    for trial in range(TRIALS // 4):
        user = f"U0AFTER{trial:04d}"
        outcomes = together(
            [partial(store.forget_person, TEAM, user), partial(store.save_paper, TEAM, user, SAVED)]
        )
        assert [o for o in outcomes if isinstance(o, Exception)] == []
        store.record_reaction(TEAM, CHANNEL, POST_TS, user, "+1")
        person = held(store, engine, user, None)
        assert bool(person.saved) == bool(person.reactions) == (not person.forgotten)
