"""Following the store (SQLite and PostgreSQL): papers the feeds stored are found by search
after a tick, a replaced paper is found by its new words and no longer by its old ones, a
paper is never in the index twice, the catalogue's copy of an OpenReview paper wins, a
database that fails is retried, and nothing follows when no feed is followed."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from test_ingested_store import preprint, submission, vectors
from test_store import ManualClock, clock, database_url

from bot.feeds.following import Follower, follow
from bot.papers.corpus import load_corpus
from bot.search.engine import SearchIndex
from bot.search.library import Library
from bot.store import Store

__all__ = ["clock", "database_url"]  # fixtures, shared with test_store

QUANTUM = "Quantum Annealing Schedules for Sparse Tensor Factorisation"
FERRY = "Ferry Timetables as Constraint Satisfaction"


@pytest.fixture(scope="module")
def seeds():
    return load_corpus("seeds").papers


@pytest.fixture
def store(database_url: str, clock: ManualClock):
    opened = Store(database_url, clock)
    yield opened
    opened.close()


@pytest.fixture
def library(seeds) -> Library:
    return Library(SearchIndex.build(seeds))


def _ids(library: Library, query: str) -> list[str]:
    return [hit.paper.id for hit in library.index.search(query, limit=10).hits]


def _held(library: Library, paper_id: str) -> int:
    return sum(paper.id == paper_id for paper in library.index.papers)


def test_stored_papers_are_found_after_a_tick_and_added_once(store, library, seeds) -> None:
    follower = Follower(library, store, 30)
    store.store_entries([preprint("2501.00001", title=QUANTUM)])
    assert "arxiv:2501.00001" not in _ids(library, "quantum annealing tensor")
    assert follower.tick() == 1
    assert _ids(library, "quantum annealing tensor")[0] == "arxiv:2501.00001"
    assert follower.tick() == 0
    store.store_entries([preprint("2501.00001", title=QUANTUM), preprint("2501.00002")])
    assert follower.tick() == 1
    assert len(library.index.papers) == len(seeds) + 2
    assert _held(library, "arxiv:2501.00001") == 1
    assert follower.rebuilds == 0


def test_a_replace_is_found_by_its_new_words_not_its_old_ones(store, library, seeds) -> None:
    follower = Follower(library, store, 30)
    store.store_entries([preprint("2501.00001", title=QUANTUM)])
    follower.tick()
    store.store_entries([preprint("2501.00001", version=2, title=FERRY)])
    store.store_entries([preprint("2501.00002", title="Tidal Harmonics of Estuaries")])
    assert follower.tick() == 2
    assert follower.rebuilds == 1
    assert "arxiv:2501.00001" not in _ids(library, "quantum annealing tensor")
    assert _ids(library, "ferry timetables")[0] == "arxiv:2501.00001"
    assert _ids(library, "tidal harmonics estuaries")[0] == "arxiv:2501.00002"
    assert library.index.get("arxiv:2501.00001").arxiv_version == 2
    assert len(library.index.papers) == len(seeds) + 2
    rebuilt = SearchIndex.build((*seeds, *library.index.papers[len(seeds) :]))
    for query in ("ferry timetables", "sparse attention long documents", "graph neural"):
        assert [(h.paper.id, h.score) for h in library.index.search(query).hits] == [
            (h.paper.id, h.score) for h in rebuilt.search(query).hits
        ]


def test_a_decision_arriving_changes_the_paper_the_index_shows(store, library) -> None:
    follower = Follower(library, store, 30)
    store.store_entries([submission("XyZ987", title=FERRY, decision=None, venue=None)])
    follower.tick()
    assert library.index.get("XyZ987").status is None
    store.store_entries([submission("XyZ987", title=FERRY)])
    follower.tick()
    assert library.index.get("XyZ987").status == "Poster"
    assert _held(library, "XyZ987") == 1


def test_the_catalogue_copy_of_an_openreview_paper_is_kept(store, seeds) -> None:
    catalogued = next(paper for paper in load_corpus("catalogue").papers if paper.openreview_id)
    library = Library(SearchIndex.build((*seeds, catalogued)))
    follower = Follower(library, store, 30)
    store.store_entries([submission(catalogued.openreview_id, title=FERRY)])
    follower.tick()
    follower.tick()
    assert library.index.get(catalogued.openreview_id) == catalogued
    assert len(library.index.papers) == len(seeds) + 1
    assert _ids(library, "ferry timetables") == []


def test_a_failing_store_is_logged_and_read_again_at_the_next_tick(
    store, library, monkeypatch, caplog
) -> None:
    follower = Follower(library, store, 30)
    store.store_entries([preprint("2501.00001", title=QUANTUM)])
    real = store.papers_since

    def down(watermark: int):
        raise ConnectionError("database is down")

    monkeypatch.setattr(store, "papers_since", down)
    with caplog.at_level(logging.WARNING, "bot.feeds.following"):
        assert follower.tick() == 0
        assert follower.tick() == 0
    assert [r.getMessage().endswith("database is down") for r in caplog.records] == [True]
    monkeypatch.setattr(store, "papers_since", real)
    assert follower.tick() == 1
    assert _ids(library, "quantum annealing tensor")[0] == "arxiv:2501.00001"


def test_only_vectors_of_the_index_model_are_taken_and_later_ones_are_too(
    store, library, monkeypatch
) -> None:
    stored = vectors("model-a", 1)
    store.store_entries([preprint("2501.00001", title=QUANTUM)], {"arxiv:2501.00001": stored})
    [paper], _ = store.papers_since(0)
    follower = Follower(library, store, 30)
    assert follower._vectors([paper]) == []  # BM25 alone: no model, no vectors asked for
    for model, expected in (("model-a", stored.text), ("model-b", None)):
        monkeypatch.setattr(SearchIndex, "model", property(lambda _index, m=model: m))
        [found] = Follower(library, store, 30)._vectors([paper])
        if expected is None:
            assert found is None
        else:
            assert np.allclose(found, expected, atol=1e-3)

    monkeypatch.setattr(SearchIndex, "model", property(lambda _index: "model-b"))
    follower = Follower(library, store, 30)
    follower.tick()
    assert follower.tick() == 0
    store.store_vectors({("arxiv", "arxiv:2501.00001"): vectors("model-b", 2)})
    assert follower.tick() == 1
    assert follower.rebuilds == 1
    assert follower.tick() == 0


def test_the_thread_ticks_at_once_then_each_interval_and_stops_on_close(store, library) -> None:
    waits: list[float] = []
    ticked = []

    def wait(seconds: float) -> bool:
        waits.append(seconds)
        ticked.append(_ids(library, "quantum annealing tensor")[:1])
        if len(waits) == 1:
            store.store_entries([preprint("2501.00001", title=QUANTUM)])
        return len(waits) == 2

    follower = Follower(library, store, 12.5, wait=wait)
    follower._run()
    assert waits == [12.5, 12.5]
    assert ticked[0] != ["arxiv:2501.00001"]
    assert ticked[1] == ["arxiv:2501.00001"]


def test_nothing_follows_without_feeds(store, library) -> None:
    store.store_entries([preprint("2501.00001", title=QUANTUM)])
    assert follow(library, store, False, 30) is None
    assert "arxiv:2501.00001" not in _ids(library, "quantum annealing tensor")
