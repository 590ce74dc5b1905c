"""The feeds for one process: which runs are due, running them under their claims, and
where each followed feed stands (``/paper sources``).

The scheduler (``bot.digest.schedule``, the bot's one scheduler) asks ``jobs`` for what to
schedule and calls ``run``; ``paperbot ingest --scheduled`` runs ``run_due`` once. Every
replica schedules the same runs and the claim picks one; a failed run says when to try
again (``timing.retry_delay``), and the claim of its period is released for that retry.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from bot.clock import Clock, system_clock
from bot.feeds import timing
from bot.feeds.ingest import Ingester, RunSummary
from bot.settings import ARXIV, FollowedFeed, Settings
from bot.store import UNAVAILABLE, Store, first_line

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FeedJob:
    """A recurring run: its name, when it next falls due after an instant, and the run,
    which returns when to try again after a failure (None: done until the next time)."""

    name: str
    next_time: Callable[[datetime], datetime]
    run: Callable[[], datetime | None]


@dataclass(frozen=True)
class SourceStatus:
    """One followed feed, as ``/paper sources`` shows it."""

    feed: FollowedFeed
    papers: int
    last_success: datetime | None
    next_run: datetime
    error: str | None
    failures: int


class FeedService:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        ingester: Ingester,
        *,
        clock: Clock = system_clock,
    ) -> None:
        self._store = store
        self._feeds = settings.feeds
        self._ingester = ingester
        self._clock = clock
        self._failures: dict[str, int] = {}

    @property
    def feeds(self) -> tuple[FollowedFeed, ...]:
        return self._feeds

    def jobs(self) -> list[FeedJob]:
        """One job for arXiv (every category in one request), one per OpenReview venue;
        none when nothing is followed."""
        jobs = []
        if any(feed.source == ARXIV for feed in self._feeds):
            jobs.append(FeedJob("feeds:arxiv", timing.next_arxiv_run, self.run_arxiv))
        for feed in self._feeds:
            if feed.source != ARXIV:
                jobs.append(
                    FeedJob(
                        f"feeds:{feed.key}",
                        timing.next_openreview_run,
                        lambda feed=feed: self.run_venue(feed),
                    )
                )
        return jobs

    def run_due(self) -> list[RunSummary]:
        """Every source's run for the current period (done ones are skipped by the claim)."""
        done = [
            self._guarded(job.name, functools.partial(self._summary_of, job)) for job in self.jobs()
        ]
        return [summary for summary, _retry in done if summary is not None]

    def _summary_of(self, job: FeedJob) -> RunSummary:
        now = self._clock()
        if job.name == "feeds:arxiv":
            period, day = timing.arxiv_period(now)
            return self._ingester.run_arxiv(period, day)
        feed = next(feed for feed in self._feeds if f"feeds:{feed.key}" == job.name)
        return self._ingester.run_openreview(feed, timing.openreview_period(now))

    def run_arxiv(self) -> datetime | None:
        period, day = timing.arxiv_period(self._clock())
        return self._guarded("feeds:arxiv", lambda: self._ingester.run_arxiv(period, day))[1]

    def run_venue(self, feed: FollowedFeed) -> datetime | None:
        period = timing.openreview_period(self._clock())
        return self._guarded(
            f"feeds:{feed.key}", lambda: self._ingester.run_openreview(feed, period)
        )[1]

    def _guarded(
        self, name: str, work: Callable[[], RunSummary]
    ) -> tuple[RunSummary | None, datetime | None]:
        """Run one source: its summary, and when to retry it after a failure (the
        source's, or the database's), which is logged and never stops the other sources."""
        summary: RunSummary | None = None
        try:
            summary = work()
            failed = summary.error is not None
        except UNAVAILABLE as error:
            log.warning("feeds: %s: the database is unavailable: %s", name, first_line(error))
            failed = True
        if not failed:
            self._failures.pop(name, None)
            return summary, None
        failures = self._failures.get(name, 0)
        self._failures[name] = failures + 1
        retry = self._clock() + timing.retry_delay(failures)
        log.warning("feeds: %s failed; trying again at %s", name, retry.isoformat())
        return summary, retry

    def statuses(self) -> list[SourceStatus]:
        """Each followed feed's papers, last good fetch, next run and last failure."""
        states = self._store.feed_states()
        counts = self._store.feed_paper_counts()
        now = self._clock()
        lines = []
        for feed in self._feeds:
            state = states.get(feed.key)
            next_run = (
                timing.next_arxiv_run(now)
                if feed.source == ARXIV
                else timing.next_openreview_run(now)
            )
            lines.append(
                SourceStatus(
                    feed,
                    counts.get(feed.key, 0),
                    state.last_success_at if state else None,
                    next_run,
                    state.last_error if state else None,
                    state.failures if state else 0,
                )
            )
        return lines
