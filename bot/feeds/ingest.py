"""One ingest run: claim the source and period, fetch from where the last good run ended,
embed what changed, upsert, and move the watermark.

Nothing is lost or doubled by a run that stops half-way: each page is stored as it comes
(an upsert on source and id, which a repeat leaves alone), and the feed's watermark moves
only when the run has read everything, so the next run (here, or another process taking the
claim over) reads the same span again and stores nothing twice. Only the process holding
the claim makes any request.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Protocol

import numpy as np

from bot.clock import Clock, system_clock
from bot.feeds import arxiv_api, arxiv_oai, arxiv_rss, openreview
from bot.feeds.arxiv_common import Malformed, arxiv_feeds
from bot.feeds.http import TIMEOUT_S, Fetcher, FetchError
from bot.feeds.pacing import ARXIV_LANE, OPENREVIEW_LANE, Pace
from bot.papers.corpus import feed_paper
from bot.search.vectors import embedding_text
from bot.settings import ARXIV, FollowedFeed, Settings
from bot.store import Store
from bot.store.records import EntryVectors, FeedEntry, StoreCounts, Stored

log = logging.getLogger(__name__)

LEASE = timedelta(minutes=10)
"""How long a run may go without touching its claim (it touches it after every page) before
another process takes it over as abandoned."""
FIRST_LOAD_DAYS = 7
"""How far back a feed followed for the first time is loaded by the scheduled run (more:
``paperbot ingest --days``)."""


class Embedder(Protocol):
    fingerprint: str

    def embed(self, text: str) -> np.ndarray: ...


@dataclass
class RunSummary:
    """What a run did, for its log line, ``paperbot ingest``'s summary and the scheduler."""

    source: str
    period: str
    acquired: bool = True
    counts: StoreCounts = field(default_factory=StoreCounts)
    skipped: int = 0
    requests: int = 0
    empty_day: bool = False
    error: str | None = None


class Ingester:
    """Runs for one process, over one store; ``embedder`` is asked for the model only when
    a page has something to embed (a run with nothing new never loads it)."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        embedder: Callable[[], Embedder],
        *,
        owner: str,
        owner_gone: Callable[[str], bool] = lambda _owner: False,
        clock: Clock = system_clock,
        sleep: Callable[[float], None] = time.sleep,
        on_page: Callable[[int], None] | None = None,
        timeout: float = TIMEOUT_S,
    ) -> None:
        """``on_page`` hears the entries of each page stored (``paperbot ingest``'s bar);
        ``timeout`` is each request's (``http.TIMEOUT_S``)."""
        self._store = store
        self._settings = settings
        self._embedder = embedder
        self._owner = owner
        self._owner_gone = owner_gone
        self._clock = clock
        self._fetcher = Fetcher(Pace(clock, sleep), clock, sleep, timeout=timeout)
        self._on_page = on_page

    @property
    def requests(self) -> int:
        """Requests this process has made to the sources, all runs together."""
        return self._fetcher.requests

    # --- arXiv -----------------------------------------------------------------------------

    def run_arxiv(self, period: str, today: date) -> RunSummary:
        """The day's announcement of every followed category, after a harvest of the days
        since each category's last good run (a first load: ``FIRST_LOAD_DAYS``)."""
        feeds = arxiv_feeds(self._settings.feeds)
        return self._claimed(ARXIV, period, feeds, lambda run: self._arxiv(run, feeds, today))

    def _arxiv(self, run: RunSummary, feeds: Sequence[FollowedFeed], today: date) -> None:
        behind: dict[date, list[FollowedFeed]] = {}
        for feed in feeds:
            state = self._store.feed_state(feed.key)
            since = (
                date.fromisoformat(state.watermark)
                if state is not None and state.watermark
                else today - timedelta(days=FIRST_LOAD_DAYS)
            )
            if since < today - timedelta(days=1):
                behind.setdefault(since, []).append(feed)
        for since, lagging in sorted(behind.items()):
            log.info("feeds: arXiv %s behind since %s; harvesting", _names(lagging), since)
            self._pages(
                run,
                arxiv_oai.harvest(self._settings.arxiv_oai_url, self._arxiv_get, lagging, since),
            )
        url = arxiv_rss.rss_url(self._settings.arxiv_rss_url, feeds)
        announcement = arxiv_rss.parse_announcement(self._fetcher.get(ARXIV_LANE, url), feeds)
        run.skipped += announcement.malformed
        if not announcement.entries and not announcement.malformed:
            run.empty_day = True
            log.info(
                "feeds: arXiv announced nothing in %s for %s (a day off%s): nothing to store",
                _names(feeds),
                announcement.day or today,
                f"; the feed skips {', '.join(announcement.skip_days)}"
                if announcement.skip_days
                else "",
            )
        self._stored(run, announcement.entries)
        for feed in feeds:
            self._store.record_feed(feed.key, watermark=today.isoformat())

    def backfill(
        self, feeds: Sequence[FollowedFeed], since: date, until: date, *, via: str = "oai"
    ) -> RunSummary:
        """``paperbot ingest``: the followed arXiv categories' papers from ``since`` to
        ``until`` through OAI-PMH (``via="oai"``) or the search API (``"api"``), and the
        OpenReview venues' submissions changed since the last run."""
        run = RunSummary("backfill", f"{since}..{until}")
        arxiv = arxiv_feeds(feeds)
        try:
            if arxiv:
                pages = (
                    arxiv_api.search(
                        self._settings.arxiv_api_url, self._arxiv_get, arxiv, since, until
                    )
                    if via == "api"
                    else arxiv_oai.harvest(
                        self._settings.arxiv_oai_url, self._arxiv_get, arxiv, since, until
                    )
                )
                self._pages(run, pages)
                self._advance(arxiv, until)
            for feed in feeds:
                if feed.source != ARXIV:
                    self._venue(run, feed)
        except (FetchError, Malformed) as error:
            run.error = str(error)
        run.requests = self._fetcher.requests
        return run

    def _advance(self, feeds: Sequence[FollowedFeed], until: date) -> None:
        """A backfill up to ``until`` is where the next scheduled run starts, for a feed
        whose last good run ended earlier (an older range moves no watermark back)."""
        for feed in feeds:
            state = self._store.feed_state(feed.key)
            if state is None or not state.watermark or state.watermark < until.isoformat():
                self._store.record_feed(feed.key, watermark=until.isoformat())

    def _arxiv_get(self, url: str, params: dict[str, object]) -> bytes:
        return self._fetcher.get(ARXIV_LANE, url, params)

    # --- OpenReview ------------------------------------------------------------------------

    def run_openreview(self, feed: FollowedFeed, period: str) -> RunSummary:
        """The venue's submissions changed since the last good run."""
        return self._claimed(feed.key, period, [feed], lambda run: self._venue(run, feed))

    def _venue(self, run: RunSummary, feed: FollowedFeed) -> None:
        state = self._store.feed_state(feed.key)
        watermark = int(state.watermark) if state is not None and state.watermark else None
        newest = watermark
        for page in openreview.submissions(
            self._settings.openreview_url,
            lambda url, params: self._fetcher.get(OPENREVIEW_LANE, url, params),
            feed,
            watermark,
        ):
            run.skipped += page.malformed
            self._stored(run, page.entries)
            if page.newest is not None:
                newest = max(newest or page.newest, page.newest)
        self._store.record_feed(feed.key, watermark=None if newest is None else str(newest))

    # --- shared ----------------------------------------------------------------------------

    def _claimed(
        self,
        source: str,
        period: str,
        feeds: Sequence[FollowedFeed],
        work: Callable[[RunSummary], None],
    ) -> RunSummary:
        """Run ``work`` under the source's claim for ``period``; another process holding it,
        or having done it, means no request here at all."""
        if not feeds:
            return RunSummary(source, period, acquired=False)
        if not self._store.claim_ingest(source, period, self._owner, LEASE, self._owner_gone):
            log.info("feeds: %s for %s is done or under way elsewhere", source, period)
            return RunSummary(source, period, acquired=False)
        run = RunSummary(source, period)
        before = self._fetcher.requests
        try:
            work(run)
        except (FetchError, Malformed) as error:
            run.error = str(error)
            for feed in feeds:
                self._store.record_feed(feed.key, error=run.error)
        run.requests = self._fetcher.requests - before
        self._store.finish_ingest(
            source,
            period,
            self._owner,
            new=run.counts.new,
            updated=run.counts.updated,
            skipped=run.skipped,
            requests=run.requests,
            error=run.error,
        )
        log.info(
            "feeds: %s for %s: %d new, %d updated, %d skipped, %d requests%s",
            source,
            period,
            run.counts.new,
            run.counts.updated,
            run.skipped,
            run.requests,
            f"; failed: {run.error}" if run.error else "",
        )
        return run

    def _pages(self, run: RunSummary, pages: Iterable[arxiv_oai.Page]) -> None:
        for page in pages:
            run.skipped += page.malformed
            self._stored(run, page.entries)

    def _stored(self, run: RunSummary, entries: Sequence[FeedEntry]) -> None:
        """Embed what is new or whose text changed, upsert the page, renew the claim."""
        if entries:
            run.counts += self._store_page(entries)
        if run.source != "backfill":
            self._store.touch_ingest(run.source, run.period, self._owner)
        if self._on_page is not None:
            self._on_page(len(entries))

    def _store_page(self, entries: Sequence[FeedEntry]) -> StoreCounts:
        embedder = self._embedder()
        stored = self._store.stored_entries(entries, embedder.fingerprint)
        vectors = {
            entry.id: embed_entry(embedder, entry)
            for entry in entries
            if not stored.get(entry.id, Stored(False, False)).same_vectors
        }
        return self._store.store_entries(entries, vectors)


def embed_entry(embedder: Embedder, entry: FeedEntry) -> EntryVectors:
    """The entry's vectors, of the texts the search embeds for a paper (its cleaned title,
    and its title and plain abstract)."""
    paper = feed_paper(
        paper_id=entry.id,
        title=entry.title,
        authors=entry.authors,
        status=None,
        url=entry.page_url,
        abstract=entry.abstract or None,
        source=entry.source,
    )
    title = embedder.embed(paper.title)
    text = embedding_text(paper)
    return EntryVectors(
        embedder.fingerprint, title, title if text == paper.title else embedder.embed(text)
    )


def _names(feeds: Sequence[FollowedFeed]) -> str:
    return ", ".join(feed.name for feed in feeds)
