"""What only tests ask of the digest: the scheduler's jobs, and the service's next paper
and claim owner. Subclasses, so the product classes carry no member nobody else calls."""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Any

from apscheduler.job import Job

from bot.digest.rotation import Pick
from bot.digest.schedule import DigestScheduler, job_id
from bot.digest.service import DigestService

RETRY_JOB_PREFIX = "digest-retry:"
"""How the scheduler names a channel's extra attempt: the prefix, then the channel."""


class ProbedScheduler(DigestScheduler):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.caught_up = threading.Event()
        """Set once the start-up catch-up has run, so a test's fault meets the jobs it means."""

    def _catch_up(self) -> None:
        try:
            super()._catch_up()
        finally:
            self.caught_up.set()

    def job(self, channel: str) -> Job | None:
        """The channel's APScheduler job, for inspecting its options."""
        return self._scheduler.get_job(job_id(channel))

    def retries(self) -> dict[str, datetime]:
        """Channels with an extra attempt pending (busy claim, failed post), and when."""
        return self._pending(RETRY_JOB_PREFIX)

    def wake(self) -> None:
        """Have the scheduler look at its jobs now: after a test moved the frozen clock, a job
        is due that the scheduler's thread is still waiting for in real time."""
        self._scheduler.wakeup()


class ProbedDigestService(DigestService):
    @property
    def owner(self) -> str:
        """The id this process writes into the claims it holds."""
        return self._poster.owner

    def pick(self, channel: str, topic: str | None) -> Pick | None:
        """The channel's next paper: the first of its round's order not yet posted."""
        return self._rotation.next(channel, topic)
