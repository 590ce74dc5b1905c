"""The plain values the store hands to callers and takes from them: no SQL here, so the
digest and answers read them as ordinary data."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import NamedTuple

SEARCH, RELATED = "search", "related"
"""Kinds of remembered search: a query typed in the query language, or free text (a message
or a thread's first message) to find related papers for."""

CLAIMED, POSTING, POSTED = "claimed", "posting", "posted"
"""States of a digest claim, in the order it goes through them."""

DAILY, WEEKLY = "daily", "weekly"
"""Kinds of digest a channel subscribes to: the paper of the day (claimed per local date)
and the weekly team digest (claimed per ISO week)."""


@dataclass(frozen=True)
class SubscriptionRecord:
    """A channel's stored subscription settings, as plain values (parsing is elsewhere)."""

    channel: str
    post_time: str
    zone: str
    cadence: str
    topic: str | None
    source: str
    active: bool = True
    paused_reason: str | None = None
    team_id: str | None = None
    """The workspace the channel belongs to; ``None`` when unknown (the environment's
    default channel, rows from before schema 5)."""
    kind: str = DAILY


class Remembered(NamedTuple):
    query: str
    kind: str  # SEARCH or RELATED


class ThreadSearch(NamedTuple):
    query: str
    kind: str
    shown: int  # results shown so far in the thread


@dataclass(frozen=True)
class DigestClaim:
    channel: str
    local_date: date
    state: str
    paper_id: str
    round: int
    position: int
    pool_size: int
    owner: str | None
    ts: str | None
    claimed_at: datetime
    updated_at: datetime
    posted_at: datetime | None = None
    topic: str | None = None
    team_id: str | None = None
    kind: str = DAILY
    period: str = ""
    """The local date (daily) or ISO week (weekly) the claim is for: its key with ``kind``."""


@dataclass(frozen=True)
class Place:
    """Where a paper of the day stood in the pool it was drawn from (``/paper today`` says
    it): ``position`` of ``pool_size`` papers on ``topic`` (``None``: every paper)."""

    position: int
    pool_size: int
    topic: str | None


UNKNOWN_PLACE = Place(0, 0, None)
"""The place of a paper of the day posted by a version that did not write it in the post:
0 of 0, which ``/paper today`` leaves unsaid rather than guess."""


@dataclass(frozen=True)
class Shown:
    """What a digest post showed in its channel, as its message says: every paper in it (a
    paper of the day's one, a weekly digest's sections in order), which the channel's rotation
    counts as seen when the post is recorded, and a paper of the day's place in its pool."""

    paper_ids: tuple[str, ...]
    place: Place | None = None


@dataclass(frozen=True)
class ClaimAttempt:
    """What ``claim_digest`` found: ``acquired`` means this owner now holds ``claim``."""

    acquired: bool
    claim: DigestClaim


class PaperEngagement(NamedTuple):
    """How many distinct people of a workspace shared a paper, and reacted to it with
    interest, in a period; a count below ``signals.FEWEST_PEOPLE_SHOWN`` is reported as 0 so
    no count shown in a channel can point at one person."""

    paper_id: str
    sharers: int
    reactors: int
