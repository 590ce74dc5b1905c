"""Papers the feeds bring, as the store keeps them (SQLite and PostgreSQL): each stored once,
updated by a newer record only, the same paper from arXiv and OpenReview linked by the stated
rule and look-alike titles kept apart, read back by watermark with the vectors of one model,
and the ingest claim held by one process at a time."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import numpy as np
import pytest
from sqlalchemy import create_engine, text
from test_store import ManualClock, _schema_version, _set_schema_version, clock, database_url

from bot.store import Store
from bot.store.database import normalise_database_url
from bot.store.migrations import SCHEMA_VERSION
from bot.store.records import EntryVectors, FeedEntry

__all__ = ["clock", "database_url"]  # fixtures, shared with test_store

DAY = datetime(2025, 1, 6, 5, 0, tzinfo=UTC)
LEASE = timedelta(minutes=10)


def preprint(number: str = "2501.01234", version: int = 1, **changes) -> FeedEntry:
    values = {
        "source": "arxiv",
        "id": f"arxiv:{number}",
        "title": "Sparse Attention for Long Documents",
        "authors": ("Ada Lovelace", "Alan Turing"),
        "abstract": "We make attention sparse. Code: https://github.com/ada/sparse",
        "version": version,
        "arxiv_id": number,
        "categories": ("cs.LG", "cs.CL"),
        "announced": date(2025, 1, 6),
        "published": DAY,
        "revised": DAY + timedelta(days=version - 1),
        "page_url": f"https://arxiv.org/abs/{number}",
        "pdf_url": f"https://arxiv.org/pdf/{number}v{version}",
        "feed": "arxiv:cs.LG",
    }
    return FeedEntry(**(values | changes))


def submission(forum: str = "AbCdEf123", **changes) -> FeedEntry:
    values = {
        "source": "openreview",
        "id": forum,
        "title": "Sparse attention for long documents",
        "authors": ("Ada Lovelace", "Alan Turing"),
        "abstract": "We make attention sparse.",
        "venue": "ICLR 2026 Poster",
        "venue_id": "ICLR.cc/2026/Conference",
        "decision": "accepted",
        "published": DAY,
        "revised": DAY,
        "page_url": f"https://openreview.net/forum?id={forum}",
        "pdf_url": f"https://openreview.net/pdf?id={forum}",
        "feed": "openreview:ICLR.cc/2026/Conference",
    }
    return FeedEntry(**(values | changes))


def vectors(model: str, seed: int) -> EntryVectors:
    generator = np.random.default_rng(seed)
    return EntryVectors(model, generator.random(384), generator.random(384))


@pytest.fixture
def store(database_url: str, clock: ManualClock):
    opened = Store(database_url, clock)
    yield opened
    opened.close()


def test_the_same_fetch_stored_twice_is_one_paper_and_moves_no_watermark(store: Store) -> None:
    first = store.store_entries([preprint(), preprint("2501.09999")])
    assert (first.new, first.updated, first.unchanged) == (2, 0, 0)
    papers, mark = store.papers_since(0)
    assert sorted(paper.id for paper in papers) == ["arxiv:2501.01234", "arxiv:2501.09999"]
    again = store.store_entries([preprint(), preprint("2501.09999")])
    assert (again.new, again.updated, again.unchanged) == (0, 0, 2)
    assert store.papers_since(mark) == ([], mark)


def test_a_replace_updates_the_paper_and_an_older_copy_never_overwrites_it(store: Store) -> None:
    store.store_entries([preprint()])
    _, mark = store.papers_since(0)
    replaced = preprint(version=2, abstract="We make attention sparse, and prove it works.")
    counts = store.store_entries([replaced])
    assert (counts.new, counts.updated) == (0, 1)
    papers, mark = store.papers_since(mark)
    assert [(p.id, p.arxiv_version, p.abstract) for p in papers] == [
        ("arxiv:2501.01234", 2, "We make attention sparse, and prove it works.")
    ]
    stale = store.store_entries([preprint(version=1)])
    assert stale.updated == 0
    assert store.papers_since(mark) == ([], mark)
    [paper], _ = store.papers_since(0)
    assert paper.arxiv_version == 2


def test_a_paper_on_both_sources_is_one_paper_with_both_links(store: Store) -> None:
    store.store_entries([preprint()])
    store.store_entries([submission()])  # same title (case aside) and first author
    [paper], _ = store.papers_since(0)
    assert paper.id == "arxiv:2501.01234"  # the id stored first never changes
    assert paper.status == "Poster" and paper.venue == "ICLR 2026 Poster"
    assert paper.arxiv_id == "2501.01234" and paper.arxiv_version == 1
    assert set(paper.pages) == {
        "https://arxiv.org/abs/2501.01234",
        "https://arxiv.org/pdf/2501.01234v1",
        "https://openreview.net/forum?id=AbCdEf123",
        "https://openreview.net/pdf?id=AbCdEf123",
    }
    assert paper.code_urls == ("https://github.com/ada/sparse",)


def test_an_openreview_record_naming_the_preprint_joins_it_whatever_its_title(
    store: Store,
) -> None:
    store.store_entries([submission(title="SparseDoc: A New Title at Camera-Ready", arxiv_id=None)])
    store.store_entries([submission("Other42", title="Entirely renamed", arxiv_id="2501.01234")])
    store.store_entries([preprint()])
    papers, _ = store.papers_since(0)
    by_id = {paper.id: paper for paper in papers}
    assert set(by_id) == {"AbCdEf123", "Other42"}  # bare ids stay OpenReview's
    assert "https://arxiv.org/abs/2501.01234" in by_id["Other42"].pages
    assert by_id["Other42"].title == "Entirely renamed"


@pytest.mark.parametrize(
    ("title", "authors"),
    [
        ("Sparse Attention for Long Documents Is Not Enough", ("Ada Lovelace",)),
        ("Sparse Attention for Longer Documents", ("Ada Lovelace",)),
        ("Sparse Attention for Long Documents", ("Grace Hopper", "Ada Lovelace")),
        ("Dense Attention for Long Documents", ("Ada Lovelace",)),
    ],
)
def test_look_alike_titles_of_different_papers_stay_apart(
    store: Store, title: str, authors: tuple[str, ...]
) -> None:
    store.store_entries([preprint()])
    store.store_entries([submission(title=title, authors=authors)])
    papers, _ = store.papers_since(0)
    assert sorted(paper.id for paper in papers) == ["AbCdEf123", "arxiv:2501.01234"]


def test_the_same_title_written_differently_is_the_same_paper(store: Store) -> None:
    store.store_entries([preprint(title="Sparse Attention for Long Documents")])
    store.store_entries(
        [
            submission(
                title="  Sparse  $\\mathrm{Attention}$ for long-documents ",
                authors=("Ada  Lovelacé",),
            )
        ]
    )
    assert [paper.id for paper in store.papers_since(0)[0]] == ["arxiv:2501.01234"]


def test_a_decision_arriving_later_updates_the_paper(store: Store) -> None:
    store.store_entries([submission(decision="under review", venue=None, venue_id="X/Submission")])
    _, mark = store.papers_since(0)
    later = submission(revised=DAY + timedelta(days=30))
    assert store.store_entries([later]).updated == 1
    [paper], _ = store.papers_since(mark)
    assert (paper.status, paper.decision) == ("Poster", "accepted")


def test_vectors_are_handed_out_only_for_the_model_that_made_them(store: Store) -> None:
    made = vectors("model-a", 1)
    store.store_entries([preprint()], {"arxiv:2501.01234": made})
    found = store.ingested_vectors(["arxiv:2501.01234"], "model-a")
    assert np.allclose(found["arxiv:2501.01234"].title, made.title, atol=1e-3)
    assert store.ingested_vectors(["arxiv:2501.01234"], "model-b") == {}
    assert [entry.id for entry in store.entries_to_embed("model-b", 10)] == ["arxiv:2501.01234"]
    assert store.entries_to_embed("model-a", 10) == []
    assert store.stored_entries([preprint()], "model-a")["arxiv:2501.01234"] == (True, True)
    assert store.stored_entries([preprint()], "model-b")["arxiv:2501.01234"] == (True, False)


def test_one_process_holds_an_ingest_claim_until_it_is_done_or_goes_quiet(
    store: Store, clock: ManualClock
) -> None:
    assert store.claim_ingest("arxiv", "2025-01-06", "one", LEASE)
    assert not store.claim_ingest("arxiv", "2025-01-06", "two", LEASE)
    clock.advance(LEASE)
    assert store.claim_ingest("arxiv", "2025-01-06", "two", LEASE)
    assert not store.touch_ingest("arxiv", "2025-01-06", "one")
    assert store.finish_ingest(
        "arxiv", "2025-01-06", "two", new=3, updated=1, skipped=1, requests=2
    )
    assert not store.claim_ingest("arxiv", "2025-01-06", "three", LEASE)
    assert store.claim_ingest("arxiv", "2025-01-07", "three", LEASE)
    assert store.finish_ingest(
        "arxiv", "2025-01-07", "three", new=0, updated=0, skipped=0, requests=1, error="timeout"
    )
    assert store.claim_ingest("arxiv", "2025-01-07", "one", LEASE)  # a failed run is retried


def test_a_feed_keeps_its_watermark_through_a_failure(store: Store) -> None:
    store.record_feed("arxiv:cs.LG", watermark="2025-01-06")
    store.record_feed("arxiv:cs.LG", error="the feed did not answer in 30 s")
    state = store.feed_state("arxiv:cs.LG")
    assert (state.watermark, state.failures) == ("2025-01-06", 1)
    assert state.last_error == "the feed did not answer in 30 s"
    store.record_feed("arxiv:cs.LG", watermark="2025-01-07")
    state = store.feed_states()["arxiv:cs.LG"]
    assert (state.watermark, state.failures, state.last_error) == ("2025-01-07", 0, None)
    store.store_entries([preprint(), preprint("2501.05555", feed="arxiv:cs.CL")])
    assert store.feed_paper_counts() == {"arxiv:cs.LG": 1, "arxiv:cs.CL": 1}


def test_a_database_of_schema_9_gains_the_feed_tables_and_keeps_its_rows(
    database_url: str, clock: ManualClock
) -> None:
    first = Store(database_url, clock)
    first.save_paper("T1", "U1", "paperA")
    first.close()
    engine = create_engine(normalise_database_url(database_url))
    with engine.begin() as connection:
        for table in ("ingested_papers", "feed_states", "ingest_claims"):
            connection.execute(text(f"DROP TABLE {table}"))
        _set_schema_version(connection, 9)
    engine.dispose()
    upgraded = Store(database_url, clock)
    try:
        assert upgraded.saved_papers("T1", "U1") == ["paperA"]
        assert upgraded.store_entries([preprint()]).new == 1
    finally:
        upgraded.close()
    assert _schema_version(database_url) == SCHEMA_VERSION == 10
