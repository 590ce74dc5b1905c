"""Running the paper of the day inside the bot process with APScheduler.

One job per subscribed channel and kind (paper of the day, weekly digest, new papers), whose
trigger asks ``bot.digest.subscriptions`` for the next post instant, so the DST rules live in
one place. The scheduler only decides *when to try*: whether to post is decided by
``DigestService.serve`` under the database claim, so a job that fires twice, late, or in
several replicas at once still posts once. That is also why a database that cannot be used
at the post's minute (stopped, restarting, locked by another process) costs a retry, with
backoff, until the channel's local day ends, never the day: the next attempt goes through
the same claim.

Every scheduling process also reads the subscriptions' watermark every ``watch_interval``
(``WATCH_INTERVAL`` unless ``PAPERBOT_WATCH_SECONDS`` says otherwise) and, when another
process moved it, re-reads them and adds, moves or drops its jobs (``reconcile``): a
subscription made through another replica posts here at its minute without a restart.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime, timedelta

from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.base import STATE_STOPPED
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.clock import Clock, system_clock
from bot.digest.channels import KINDS
from bot.digest.posting import DigestOutcome, post_name
from bot.digest.service import DigestService
from bot.digest.subscriptions import Schedule
from bot.store import DAILY, UNAVAILABLE, first_line

log = logging.getLogger(__name__)

MISFIRE_GRACE = timedelta(hours=24)
"""Run a late job rather than drop it: ``serve`` itself refuses once the local day is over."""

CATCH_UP_JOB = "digest-catch-up"
WATCH_JOB = "digest-watch"

WATCH_INTERVAL = timedelta(seconds=30)
"""How often a scheduler reads the subscriptions' watermark, and so how soon a subscription
made, changed or removed through another process reaches its jobs: one small read when
nothing changed. A post whose minute passed before it arrived is served then, the same
local day (``_refresh``)."""

DATABASE_RETRY_FIRST = timedelta(seconds=5)
DATABASE_RETRY_LONGEST = timedelta(minutes=5)
"""A database restart is over in seconds; after a long outage the post still follows within
minutes of its end, without a try every few seconds in between."""


def database_retry_delay(failures: int) -> timedelta:
    """The wait after the ``failures``-th attempt in a row (from 0) found no database:
    5 s, 15 s, 45 s, ... up to ``DATABASE_RETRY_LONGEST``."""
    return min(DATABASE_RETRY_LONGEST, DATABASE_RETRY_FIRST * 3 ** min(failures, 4))


class DigestTrigger(BaseTrigger):
    """Fires at each post instant of a ``Schedule`` (DST-safe, one fire per local date)."""

    __slots__ = ("schedule",)

    def __init__(self, schedule: Schedule) -> None:
        self.schedule = schedule

    def get_next_fire_time(
        self, previous_fire_time: datetime | None, now: datetime
    ) -> datetime | None:
        if previous_fire_time is not None:
            return self.schedule.next_run(previous_fire_time)
        return self.schedule.next_run(now - timedelta(microseconds=1))

    def __str__(self) -> str:
        return f"digest[{self.schedule.describe()}]"


class RecurringTrigger(BaseTrigger):
    """Fires at each time ``next_time`` gives after the last (another part's rule: the
    feeds' ``timing``)."""

    __slots__ = ("next_time",)

    def __init__(self, next_time: Callable[[datetime], datetime]) -> None:
        self.next_time = next_time

    def get_next_fire_time(
        self, previous_fire_time: datetime | None, now: datetime
    ) -> datetime | None:
        return self.next_time(previous_fire_time or now)

    def __str__(self) -> str:
        return "recurring"


def feed_key(channel: str, kind: str) -> str:
    """A channel's post of one kind, as the scheduler names it: the channel alone for the
    paper of the day (as before the weekly digest), ``C1:weekly`` for the weekly digest."""
    return channel if kind == DAILY else f"{channel}:{kind}"


def _feed(key: str) -> tuple[str, str]:
    channel, _, kind = key.partition(":")
    return channel, kind or DAILY


def job_id(channel: str, kind: str = DAILY) -> str:
    return f"digest:{feed_key(channel, kind)}"


def _retry_job_id(channel: str, kind: str) -> str:
    return f"digest-retry:{feed_key(channel, kind)}"


class StoppableScheduler(BackgroundScheduler):
    """A ``BackgroundScheduler`` that can be stopped while it finishes a one-off job.

    APScheduler 3 removes a one-off job (the catch-up, a retry) once it is handed to the
    executor; if ``shutdown`` comes from another thread in between, the removal looks for
    the job among those waiting for a start, finds nothing and raises ``JobLookupError`` in
    the scheduler's thread, which prints a traceback (a shell that exits at once did, every
    other run). The job has run, and the scheduler is stopping: nothing is lost."""

    def _process_jobs(self) -> float | None:
        try:
            return super()._process_jobs()
        except JobLookupError:
            if self.state == STATE_STOPPED:
                return None
            raise


class DigestScheduler:
    """APScheduler jobs for every active subscription, kept in step with the service.

    ``DigestScheduler(service)`` builds a ``StoppableScheduler``; ``start()`` adds the jobs
    and runs a catch-up for posts that fell due while the bot was down; ``stop()`` shuts it
    down. The service notifies it when a subscription changes through this process; a change
    made through another process reaches it through the watermark (``reconcile``).
    """

    def __init__(
        self,
        service: DigestService,
        *,
        channels: Collection[str] | None = None,
        on_outcome: Callable[[DigestOutcome], None] | None = None,
        clock: Clock = system_clock,
        watch_interval: timedelta = WATCH_INTERVAL,
    ) -> None:
        """``channels`` limits the jobs to those channels (the shell schedules only its own,
        never a real channel whose post it would claim and then lose); ``on_outcome`` hears
        every attempt (the shell prints what was posted); ``clock`` dates the catch-up;
        ``watch_interval`` is how often the watermark is read."""
        self._service = service
        self._watch_interval = watch_interval
        self._channels = None if channels is None else frozenset(channels)
        self._on_outcome = on_outcome
        self._clock = clock
        self._database_failures: dict[str, int] = {}
        """Attempts in a row per feed (``feed_key``) that found no database, for the backoff."""
        self._retry_lock = threading.Lock()
        """Attempts run on a pool: two failing at once must not both schedule the retry."""
        self._refreshing = threading.Lock()
        """A command's refresh and the watermark's may move one feed at once: taken in turn,
        each reading the subscription afresh, the later leaves the newer schedule."""
        self._attempts = threading.Condition()
        self._running = 0
        """Attempts under way, which a stop may wait for (``stop``)."""
        self._revision: int | None = None
        """The subscriptions' watermark the jobs were last brought in step with."""
        self._watch_failing = False
        """Whether the last read of the watermark found no database (logged once)."""
        self._scheduler = StoppableScheduler(
            timezone=UTC,
            job_defaults={
                "coalesce": True,
                "max_instances": 1,
                "misfire_grace_time": int(MISFIRE_GRACE.total_seconds()),
            },
        )
        service.add_listener(self.refresh)

    def start(self) -> None:
        self._scheduler.start()
        self._revision = self._service.subscriptions_revision()
        for sub in self._service.active_subscriptions():
            if self._serves(sub.channel):
                self._add(sub.channel, sub.kind, sub.schedule)
        self._scheduler.add_job(
            self._catch_up,
            DateTrigger(run_date=self._clock()),
            id=CATCH_UP_JOB,
            replace_existing=True,
        )
        self._scheduler.add_job(
            self._watch,
            IntervalTrigger(seconds=self._watch_interval.total_seconds(), timezone=UTC),
            id=WATCH_JOB,
            replace_existing=True,
        )
        log.info("digest scheduler started with %d subscription(s)", len(self.next_runs()))

    def add_recurring(
        self,
        name: str,
        next_time: Callable[[datetime], datetime],
        run: Callable[[], datetime | None],
    ) -> None:
        """Another part's recurring work on this scheduler (the feeds' ingest runs): at each
        ``next_time``, and once at once, so a run missed while the bot was down happens now.
        ``run`` answers when to try again after a failure (None: not before the next time);
        a stop waits for a run under way as for a post."""

        def attempt() -> None:
            with self._attempt():
                retry = run()
            if retry is not None:
                self._scheduler.add_job(
                    attempt, DateTrigger(run_date=retry), id=f"{name}:retry", replace_existing=True
                )

        self._scheduler.add_job(
            attempt, RecurringTrigger(next_time), id=name, name=name, replace_existing=True
        )
        self._scheduler.add_job(
            attempt, DateTrigger(run_date=self._clock()), id=f"{name}:now", replace_existing=True
        )

    def stop(self, wait_seconds: float = 0.0) -> bool:
        """Start no more attempts, and wait up to ``wait_seconds`` for those under way;
        whether none is left. One left is stranded (a post waiting for Slack, a claim for the
        database): its claim lets the next attempt, here or elsewhere, finish it."""
        if self._scheduler.running:
            self._scheduler.shutdown(wait=False)
        with self._attempts:
            return self._attempts.wait_for(lambda: self._running == 0, wait_seconds)

    @contextmanager
    def _attempt(self) -> Iterator[None]:
        with self._attempts:
            self._running += 1
        try:
            yield
        finally:
            with self._attempts:
                self._running -= 1
                self._attempts.notify_all()

    def next_runs(self) -> dict[str, datetime]:
        """Each subscribed feed's next scheduled post, by ``feed_key``."""
        return self._pending(job_id(""))

    def _schedules(self) -> dict[str, Schedule]:
        """Each scheduled feed's schedule, as its job holds it: known without the database."""
        return {
            job.id.removeprefix(job_id("")): job.trigger.schedule
            for job in self._scheduler.get_jobs()
            if job.id.startswith(job_id("")) and isinstance(job.trigger, DigestTrigger)
        }

    def _pending(self, prefix: str) -> dict[str, datetime]:
        return {
            job.id.removeprefix(prefix): job.next_run_time
            for job in self._scheduler.get_jobs()
            if job.id.startswith(prefix) and job.next_run_time is not None
        }

    def refresh(self, channel: str) -> None:
        """Re-read one channel's subscriptions (each kind): add, move or drop its jobs."""
        for kind in KINDS:
            self._refresh(channel, kind)

    def _watch(self) -> None:
        with self._attempt():
            self.reconcile()

    def reconcile(self) -> None:
        """Bring the jobs in step with the stored subscriptions if the watermark moved since
        they last were: refresh each feed whose schedule differs from its job's (a job to
        add, move or drop).

        The watermark is read before the subscriptions, so a change committed in between
        is seen now or moves it again for the next run, never lost. A change this process
        made itself was applied at once by ``refresh``: its schedule matches, nothing moves.
        While the database cannot be read, or a feed's refresh could not read its
        subscription, the watermark is not taken as seen, and the next run tries again.
        """
        try:
            revision = self._service.subscriptions_revision()
            if revision == self._revision:
                return
            wanted = {
                feed_key(sub.channel, sub.kind): sub.schedule
                for sub in self._service.active_subscriptions()
                if self._serves(sub.channel)
            }
        except UNAVAILABLE as error:
            if not self._watch_failing:
                log.warning(
                    "digest: subscriptions changed elsewhere cannot be seen while the "
                    "database is unavailable: %s",
                    first_line(error),
                )
            self._watch_failing = True
            return
        self._watch_failing = False
        held = self._schedules()
        moved = sorted(
            key for key in wanted.keys() | held.keys() if wanted.get(key) != held.get(key)
        )
        if moved:
            log.info("digest: subscriptions changed elsewhere: %s", ", ".join(moved))
        if all([self._refresh(*_feed(key)) for key in moved]):
            self._revision = revision

    def _refresh(self, channel: str, kind: str) -> bool:
        """Re-read one channel's subscription of ``kind``: add, move or drop its job.

        A subscription whose time already passed today, unposted, is served at once, so
        ``/paper subscriptions`` saying "today" is true whether or not the bot restarts.
        The subscription is read before anything is removed: when it cannot be read, the
        jobs the channel has stay as they are rather than leave it with none until a restart;
        whether it could be read.
        """
        if not self._serves(channel):
            return True
        with self._refreshing:
            return self._reschedule(channel, kind)

    def _reschedule(self, channel: str, kind: str) -> bool:
        try:
            sub = self._service.subscription(channel, kind)
        except UNAVAILABLE as error:
            log.warning(
                "digest for %s: kept its schedule, the subscription could not be read: %s",
                feed_key(channel, kind),
                str(error).partition("\n")[0],
            )
            return False
        self._remove(job_id(channel, kind))
        self._remove(_retry_job_id(channel, kind))
        self._database_failures.pop(feed_key(channel, kind), None)
        self._service.retry_pending(channel, None, kind)
        if sub is None or sub.paused_reason is not None:
            log.info("no digest job for %s any more", feed_key(channel, kind))
            return True
        self._add(channel, kind, sub.schedule)
        if self._service.is_due(sub):
            self._retry_at(channel, kind, self._clock())
        return True

    def _add(self, channel: str, kind: str, schedule: Schedule) -> None:
        self._scheduler.add_job(
            self._run,
            DigestTrigger(schedule),
            args=[channel, kind],
            id=job_id(channel, kind),
            name=f"{post_name(kind)} in {channel}",
            replace_existing=True,
        )

    def _remove(self, identifier: str) -> None:
        """Drop a job if it is there: a one-off retry may be run, and removed, meanwhile."""
        with suppress(JobLookupError):
            self._scheduler.remove_job(identifier)

    def _retry_at(self, channel: str, kind: str, when: datetime) -> None:
        self._scheduler.add_job(
            self._run,
            DateTrigger(run_date=when),
            args=[channel, kind],
            id=_retry_job_id(channel, kind),
            replace_existing=True,
        )

    def _run(self, channel: str, kind: str) -> None:
        with self._attempt():
            self._serve(channel, kind)

    def _serve(self, channel: str, kind: str) -> None:
        try:
            outcome = self._service.serve(channel, kind=kind)
        except UNAVAILABLE as error:
            self._database_unavailable(channel, kind, error)
            return
        self._follow_up(outcome)

    def _catch_up(self) -> None:
        with self._attempt():
            self._serve_due()

    def _serve_due(self) -> None:
        try:
            outcomes = self._service.serve_due(self._channels)
        except UNAVAILABLE as error:
            now = self._clock()
            for key, schedule in self._schedules().items():
                if schedule.due(now):
                    self._database_unavailable(*_feed(key), error)
            return
        for outcome in outcomes:
            self._follow_up(outcome)

    def _database_unavailable(self, channel: str, kind: str, error: Exception) -> None:
        """Try the channel again later, with backoff, while its local day lasts: whatever
        the attempt had done is in the claim, which the next attempt goes through."""
        schedules, key = self._schedules(), feed_key(channel, kind)
        if key not in schedules:
            log.warning("digest for %s: no database, and no longer scheduled here", key)
            return
        reason = first_line(error)
        with self._retry_lock:
            now = self._clock()
            pending = self._scheduler.get_job(_retry_job_id(channel, kind))
            if pending is not None and pending.next_run_time > now:
                return  # another attempt failing at the same time (the catch-up) counts once
            failures = self._database_failures.get(key, 0)
            retry_at = now + database_retry_delay(failures)
            if retry_at >= schedules[key].end_of_day(now):
                self._database_failures.pop(key, None)
                self._service.retry_pending(channel, None, kind)
                log.error(
                    "no %s in %s today: the database was still unavailable as its local day "
                    "ended (%s)",
                    post_name(kind),
                    channel,
                    reason,
                )
                return
            self._database_failures[key] = failures + 1
            self._retry_at(channel, kind, retry_at)
            self._service.retry_pending(channel, retry_at, kind)
        log.warning(
            "digest for %s: the database is unavailable (%s); trying again at %s",
            key,
            reason,
            retry_at.isoformat(),
        )

    def _serves(self, channel: str) -> bool:
        return self._channels is None or channel in self._channels

    def _follow_up(self, outcome: DigestOutcome) -> None:
        channel, kind = outcome.channel, outcome.kind
        log.info("digest for %s: %s", feed_key(channel, kind), outcome.detail)
        self._database_failures.pop(feed_key(channel, kind), None)
        if self._on_outcome is not None:
            self._on_outcome(outcome)
        if outcome.retry_at is not None:
            self._retry_at(channel, kind, outcome.retry_at)
        failed = outcome.status == "failed" and outcome.retry_at is not None
        self._service.retry_pending(channel, outcome.retry_at if failed else None, kind)
