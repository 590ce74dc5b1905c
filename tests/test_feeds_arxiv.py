"""arXiv followed through the loopback fakes: the day's RSS (one request for every
category; new, cross, replace items; an empty weekend; a malformed item), missed days
harvested through OAI-PMH with resumption tokens, the API's pages, retries on a timeout,
and the pace: never two requests to arXiv closer than 3 s on the fake's clock."""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta

import pytest
from feed_fakes import Fault, FeedFake, paper, running
from feed_harness import HashEmbedder, SteppedClock, feed_settings, ingester

from bot.feeds.http import USER_AGENT
from bot.feeds.ingest import FIRST_LOAD_DAYS
from bot.settings import FollowedFeed
from bot.store import Store

MONDAY = date(2025, 1, 6)
START = datetime(2025, 1, 6, 5, 30, tzinfo=UTC)
SPACING = timedelta(seconds=3)


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock(START)


@pytest.fixture
def fake(clock: SteppedClock) -> Iterator[FeedFake]:
    with running(FeedFake(clock=clock)) as served:
        yield served


@pytest.fixture
def store(tmp_path, clock: SteppedClock) -> Iterator[Store]:
    opened = Store(f"sqlite:///{tmp_path / 'paperbot.db'}", clock)
    yield opened
    opened.close()


def caught_up(store: Store, *feeds: str, day: date = MONDAY - timedelta(days=1)) -> None:
    """The feeds' last good run was yesterday: no harvest of missed days."""
    for feed in feeds:
        store.record_feed(feed, watermark=day.isoformat())


def assert_paced(fake: FeedFake) -> None:
    times = fake.lane_times("arxiv")
    assert all(later - earlier >= SPACING for earlier, later in itertools.pairwise(times))


def test_one_request_reads_every_category_and_takes_what_each_follows(
    fake: FeedFake, store: Store, clock: SteppedClock
) -> None:
    settings = feed_settings(fake, "arxiv:cs.LG arxiv:cs.CL+cross", store_url(store))
    caught_up(store, "arxiv:cs.LG", "arxiv:cs.CL")
    fake.announced = [
        paper(1, categories=("cs.LG", "stat.ML")),
        paper(2, categories=("cs.CV", "cs.CL"), announce="cross"),  # cs.CL follows cross-lists
        paper(3, categories=("cs.CV", "cs.LG"), announce="cross"),  # cs.LG does not
        paper(4, categories=("cs.CL",), version=3, announce="replace"),
    ]
    fake.malformed_item = True
    run = ingester(store, settings, clock, HashEmbedder()).run_arxiv("2025-01-06", MONDAY)
    assert run.error is None and run.skipped == 1
    assert (run.counts.new, run.counts.updated) == (3, 0)
    [request] = fake.requests
    assert request.path == "/rss/cs.CL+cs.LG"
    assert request.user_agent == USER_AGENT and USER_AGENT.startswith("paperbot/")
    papers = {p.id: p for p in store.papers_since(0)[0]}
    assert set(papers) == {"arxiv:2501.00001", "arxiv:2501.00002", "arxiv:2501.00004"}
    assert papers["arxiv:2501.00004"].arxiv_version == 3
    assert papers["arxiv:2501.00001"].authors == ("Ada Turing", "Alan Gauss")
    assert papers["arxiv:2501.00001"].announced == MONDAY
    assert store.feed_paper_counts() == {"arxiv:cs.LG": 1, "arxiv:cs.CL": 2}


def test_the_same_day_is_fetched_once_and_fetched_again_stores_nothing_twice(
    fake: FeedFake, store: Store, clock: SteppedClock
) -> None:
    settings = feed_settings(fake, "arxiv:cs.LG", store_url(store))
    caught_up(store, "arxiv:cs.LG")
    fake.announced = [paper(1), paper(2)]
    embedder = HashEmbedder()
    first = ingester(store, settings, clock, embedder).run_arxiv("2025-01-06", MONDAY)
    assert first.counts.new == 2 and embedder.embedded == 4  # a title and a text each
    again = ingester(store, settings, clock, embedder, "process-2").run_arxiv("2025-01-06", MONDAY)
    assert not again.acquired and fake.count() == 1  # done: no request at all
    _, mark = store.papers_since(0)
    retried = ingester(store, settings, clock, embedder).run_arxiv("2025-01-06-retry", MONDAY)
    assert (retried.counts.new, retried.counts.unchanged) == (0, 2)
    assert embedder.embedded == 4  # nothing embedded twice
    assert store.papers_since(mark) == ([], mark)


def test_a_replace_updates_the_paper_and_is_not_new_again(
    fake: FeedFake, store: Store, clock: SteppedClock
) -> None:
    settings = feed_settings(fake, "arxiv:cs.LG", store_url(store))
    caught_up(store, "arxiv:cs.LG")
    fake.announced = [paper(7)]
    ingester(store, settings, clock, HashEmbedder()).run_arxiv("2025-01-06", MONDAY)
    _, mark = store.papers_since(0)
    fake.announcement_day = MONDAY + timedelta(days=1)
    fake.announced = [paper(7, version=2, announce="replace", abstract="A better abstract.")]
    clock.sleep(86_400)
    run = ingester(store, settings, clock, HashEmbedder()).run_arxiv(
        "2025-01-07", MONDAY + timedelta(days=1)
    )
    assert (run.counts.new, run.counts.updated) == (0, 1)
    [changed], _ = store.papers_since(mark)
    assert (changed.id, changed.arxiv_version, changed.abstract) == (
        "arxiv:2501.00007",
        2,
        "A better abstract.",
    )
    assert changed.pages[:2] == (
        "https://arxiv.org/abs/2501.00007",
        "https://arxiv.org/pdf/2501.00007v2",
    )


def test_an_empty_weekend_feed_is_a_normal_day(
    fake: FeedFake, store: Store, clock: SteppedClock, caplog: pytest.LogCaptureFixture
) -> None:
    saturday = date(2025, 1, 4)
    settings = feed_settings(fake, "arxiv:cs.LG", store_url(store))
    caught_up(store, "arxiv:cs.LG", day=saturday - timedelta(days=1))
    fake.announcement_day, fake.announced = saturday, []
    with caplog.at_level(logging.INFO, logger="bot.feeds"):
        run = ingester(store, settings, clock, HashEmbedder()).run_arxiv("2025-01-04", saturday)
    assert run.error is None and run.empty_day and run.counts.new == 0
    assert "a day off; the feed skips Saturday, Sunday" in caplog.text
    state = store.feed_state("arxiv:cs.LG")
    assert (state.watermark, state.last_error) == ("2025-01-04", None)
    assert "WARNING" not in caplog.text and "ERROR" not in caplog.text


def test_missed_days_are_harvested_through_oai_pmh_page_by_page_at_arxivs_pace(
    fake: FeedFake, store: Store, clock: SteppedClock
) -> None:
    settings = feed_settings(fake, "arxiv:cs.LG", store_url(store))
    caught_up(store, "arxiv:cs.LG", day=MONDAY - timedelta(days=4))  # down since Thursday
    fake.papers = [
        paper(n, datestamp=MONDAY - timedelta(days=n % 4), categories=cats)
        for n, cats in enumerate([("cs.LG",), ("cs.CV",), ("cs.LG", "cs.AI")] * 3, start=20)
    ]
    fake.oai_page_size = 2
    fake.announced = [paper(1)]
    run = ingester(store, settings, clock, HashEmbedder()).run_arxiv("2025-01-06", MONDAY)
    assert run.error is None
    oai = [r for r in fake.requests if r.path == "/oai"]
    assert oai[0].query["metadataPrefix"] == "arXivRaw" and oai[0].query["set"] == "cs"
    assert oai[0].query["from"] == "2025-01-02"
    assert all("resumptionToken" in r.query for r in oai[1:]) and len(oai) == 5
    ids = {p.id for p in store.papers_since(0)[0]}
    assert len(ids) == 7  # the six cs.LG papers harvested and today's
    assert run.requests == 6 == fake.count("arxiv")
    assert_paced(fake)
    assert store.feed_state("arxiv:cs.LG").watermark == "2025-01-06"


def test_a_first_load_harvests_the_last_week(
    fake: FeedFake, store: Store, clock: SteppedClock
) -> None:
    settings = feed_settings(fake, "arxiv:cs.LG", store_url(store))
    fake.announced = []
    ingester(store, settings, clock, HashEmbedder()).run_arxiv("2025-01-06", MONDAY)
    assert fake.requests[0].query["from"] == str(MONDAY - timedelta(days=FIRST_LOAD_DAYS))


def test_a_timeout_is_retried_after_a_backoff_and_a_503_waits_its_retry_after(
    fake: FeedFake, store: Store, clock: SteppedClock
) -> None:
    settings = feed_settings(fake, "arxiv:cs.LG", store_url(store))
    caught_up(store, "arxiv:cs.LG")
    fake.announced = [paper(1)]
    fake.fail_next("rss", Fault(hang=1.0), Fault(status=503, retry_after=120))
    run = ingester(store, settings, clock, HashEmbedder(), timeout=0.3).run_arxiv(
        "2025-01-06", MONDAY
    )
    assert run.error is None and run.counts.new == 1 and run.requests == 3
    first, second, third = fake.lane_times("arxiv")
    assert second - first >= timedelta(seconds=10)
    assert third - second >= timedelta(seconds=120)


def test_a_source_that_keeps_failing_fails_the_run_and_keeps_the_watermark(
    fake: FeedFake, store: Store, clock: SteppedClock
) -> None:
    settings = feed_settings(fake, "arxiv:cs.LG", store_url(store))
    caught_up(store, "arxiv:cs.LG")
    fake.fail_next("rss", *[Fault(status=500)] * 3)
    run = ingester(store, settings, clock, HashEmbedder()).run_arxiv("2025-01-06", MONDAY)
    assert run.error == f"{fake.base.removeprefix('http://')} answered 500"
    state = store.feed_state("arxiv:cs.LG")
    assert state.watermark == "2025-01-05" and state.failures == 1
    assert state.last_error == run.error
    fake.announced = [paper(1)]
    retried = ingester(store, settings, clock, HashEmbedder(), "process-2").run_arxiv(
        "2025-01-06", MONDAY
    )
    assert retried.acquired and retried.counts.new == 1


def test_two_ingesters_at_once_make_one_set_of_requests(
    fake: FeedFake, store: Store, clock: SteppedClock
) -> None:
    settings = feed_settings(fake, "arxiv:cs.LG", store_url(store))
    caught_up(store, "arxiv:cs.LG")
    fake.announced = [paper(n) for n in range(5)]
    runs = []
    workers = [
        threading.Thread(
            target=lambda owner=owner: runs.append(
                ingester(store, settings, clock, HashEmbedder(), owner).run_arxiv(
                    "2025-01-06", MONDAY
                )
            )
        )
        for owner in ("one", "two")
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sorted(run.acquired for run in runs) == [False, True]
    assert fake.count() == 1 and len(store.papers_since(0)[0]) == 5


def test_a_backfill_of_thirty_days_takes_few_requests_through_either_endpoint(
    fake: FeedFake, store: Store, clock: SteppedClock
) -> None:
    """30 days of cs.LG at 100 papers a day among 200 a day of other cs categories: what
    docs/runbook.md quotes (OAI-PMH reads the whole ``cs`` set, 1,000 records a page; the
    API reads only cs.LG, 2,000 a page)."""
    settings = feed_settings(fake, "arxiv:cs.LG", store_url(store))
    first = MONDAY - timedelta(days=30)
    fake.papers = [
        paper(
            day * 300 + n,
            categories=("cs.LG",) if n < 100 else ("cs.CV",),
            datestamp=first + timedelta(days=day),
            submitted=datetime.combine(first + timedelta(days=day), datetime.min.time(), UTC),
        )
        for day in range(30)
        for n in range(300)
    ]
    running_one = ingester(store, settings, clock, HashEmbedder())  # one pace per process
    via_oai = running_one.backfill(settings.feeds, first, MONDAY)
    assert (via_oai.counts.new, via_oai.requests) == (3000, 9)
    via_api = running_one.backfill([FollowedFeed("arxiv", "cs.LG")], first, MONDAY, via="api")
    assert (via_api.counts.unchanged, via_api.requests - via_oai.requests) == (3000, 2)
    assert_paced(fake)


def store_url(store: Store) -> str:
    return str(store._database.engine.url)
