"""When each source is read, and which period a run is for (the claim's key).

arXiv announces at 20:00 US Eastern, Sunday to Thursday, and its RSS feeds carry that
announcement from midnight Eastern; the bot reads them at 00:30 Eastern every day (on a day
off the feed is empty, which costs one request). OpenReview changes at any hour: every four
hours, at ten past. A failed run is retried with backoff within its period; the next period's
run starts where the last good one ended anyway.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

ARXIV_ZONE = ZoneInfo("America/New_York")
ARXIV_READ_AT = time(0, 30)
OPENREVIEW_EVERY = timedelta(hours=4)
OPENREVIEW_OFFSET = timedelta(minutes=10)
RETRY_FIRST = timedelta(minutes=5)
RETRY_LONGEST = timedelta(hours=2)


def arxiv_period(now: datetime) -> tuple[str, date]:
    """The announcement day a run at ``now`` reads: the Eastern date once its read time has
    come, else the day before."""
    local = now.astimezone(ARXIV_ZONE)
    day = local.date() if local.time() >= ARXIV_READ_AT else local.date() - timedelta(days=1)
    return day.isoformat(), day


def next_arxiv_run(now: datetime) -> datetime:
    """The next 00:30 Eastern after ``now`` (daylight saving time included)."""
    local = now.astimezone(ARXIV_ZONE)
    candidate = datetime.combine(local.date(), ARXIV_READ_AT, ARXIV_ZONE)
    if candidate <= local:
        candidate = datetime.combine(local.date() + timedelta(days=1), ARXIV_READ_AT, ARXIV_ZONE)
    return candidate.astimezone(UTC)


def openreview_period(now: datetime) -> str:
    """The four-hour slot a run at ``now`` is for: ``2025-01-06T08``."""
    start = _slot_start(now)
    return f"{start:%Y-%m-%dT%H}"


def next_openreview_run(now: datetime) -> datetime:
    return _slot_start(now) + OPENREVIEW_EVERY + OPENREVIEW_OFFSET


def _slot_start(now: datetime) -> datetime:
    shifted = now.astimezone(UTC) - OPENREVIEW_OFFSET
    hours = OPENREVIEW_EVERY.seconds // 3600
    return shifted.replace(
        hour=shifted.hour - shifted.hour % hours, minute=0, second=0, microsecond=0
    )


def retry_delay(failures: int) -> timedelta:
    """After the ``failures``-th failed run in a row (from 0): 5 min, 15, 45, … 2 h."""
    return min(RETRY_LONGEST, RETRY_FIRST * 3 ** min(failures, 4))
