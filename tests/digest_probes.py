"""What only tests ask of the digest: the scheduler's jobs, and the service's next paper
and claim owner. Subclasses, so the product classes carry no member nobody else calls."""

from __future__ import annotations

from datetime import datetime

from apscheduler.job import Job

from bot.digest.rotation import Pick
from bot.digest.schedule import DigestScheduler, job_id
from bot.digest.service import DigestService

RETRY_JOB_PREFIX = "digest-retry:"
"""How the scheduler names a channel's extra attempt: the prefix, then the channel."""


class ProbedScheduler(DigestScheduler):
    def job(self, channel: str) -> Job | None:
        """The channel's APScheduler job, for inspecting its options."""
        return self._scheduler.get_job(job_id(channel))

    def retries(self) -> dict[str, datetime]:
        """Channels with an extra attempt pending (busy claim, failed post), and when."""
        return self._pending(RETRY_JOB_PREFIX)


class ProbedDigestService(DigestService):
    @property
    def owner(self) -> str:
        """The id this process writes into the claims it holds."""
        return self._poster.owner

    def pick(self, channel: str, topic: str | None) -> Pick | None:
        """The channel's next paper: the first of its round's order not yet posted."""
        return self._rotation.next(channel, topic)
