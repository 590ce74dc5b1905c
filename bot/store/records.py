"""The plain values the store hands to callers and takes from them: no SQL here, so the
digest and answers read them as ordinary data."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import NamedTuple

import numpy as np

# The sources a feed's paper comes from (``ingested_papers.source``), as papers name them.
from bot.papers.paper import ARXIV_SOURCE as ARXIV_SOURCE
from bot.papers.paper import OPENREVIEW_SOURCE as OPENREVIEW_SOURCE

SEARCH, RELATED, NEW_PAPERS = "search", "related", "new"
"""Kinds of remembered search: a query typed in the query language, free text (a message or
a thread's first message) to find related papers for, or a ``/paper new`` list (its day,
topic and whose engagement ranks it, as ``bot.answers.new`` writes them)."""

CLAIMED, POSTING, POSTED = "claimed", "posting", "posted"
"""States of a digest claim, in the order it goes through them."""

DAILY, WEEKLY, NEW_PAPERS = "daily", "weekly", "new"
"""Kinds of digest a channel subscribes to: the paper of the day (claimed per local date),
the weekly team digest (claimed per ISO week) and the new papers post (claimed per
announcement day: the day the papers it shows were announced, not the day it is posted)."""


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
    kind: str  # SEARCH, RELATED or NEW_PAPERS


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


ACCEPTED, REJECTED, WITHDRAWN, UNDER_REVIEW = "accepted", "rejected", "withdrawn", "under review"
"""An OpenReview submission's decision, as its ``content.venueid`` says."""


@dataclass(frozen=True)
class FeedEntry:
    """One paper as a source gave it, ready to be stored (``IngestedPapers.store_entries``).

    ``id`` is namespaced for arXiv (``arxiv:2501.01234``, ``version`` apart) and OpenReview's
    forum id otherwise; ``arxiv_id`` is an arXiv record's own id, or the preprint an
    OpenReview record names; ``revised`` is when the source last changed the record (a
    stale copy never overwrites a newer one); ``feed`` is the followed feed that gave it."""

    source: str
    id: str
    title: str
    authors: tuple[str, ...]
    abstract: str
    version: int | None = None
    arxiv_id: str | None = None
    categories: tuple[str, ...] = ()
    venue: str | None = None
    venue_id: str | None = None
    decision: str | None = None
    announced: date | None = None
    published: datetime | None = None
    revised: datetime | None = None
    page_url: str | None = None
    pdf_url: str | None = None
    feed: str | None = None


@dataclass(frozen=True)
class EntryVectors:
    """A paper's two vectors (its title; its title and abstract), by the model ``model``
    (the embedder's hash): unit float32 rows, stored as float16."""

    model: str
    title: np.ndarray
    text: np.ndarray


class Stored(NamedTuple):
    """What the store holds of an entry already: whether its record is the same, and
    whether its vectors are of the same text and model (then it needs no embedding)."""

    same_record: bool
    same_vectors: bool


@dataclass(frozen=True)
class StoreCounts:
    """What one ``store_entries`` call did: papers new to the store, papers changed (a
    ``replace``, a decision), and records that were already stored as they are."""

    new: int = 0
    updated: int = 0
    unchanged: int = 0

    def __add__(self, other: StoreCounts) -> StoreCounts:
        return StoreCounts(
            self.new + other.new, self.updated + other.updated, self.unchanged + other.unchanged
        )


@dataclass(frozen=True)
class FeedState:
    """A followed feed's standing: where its last good fetch ended, and how its last attempt
    went (``/paper sources``)."""

    feed: str
    watermark: str | None
    last_success_at: datetime | None
    last_attempt_at: datetime | None
    last_error: str | None
    failures: int


@dataclass(frozen=True)
class IngestClaim:
    """One source's ingest for one period (``ingest_claims``)."""

    source: str
    period: str
    state: str
    owner: str | None
    claimed_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    new: int
    updated: int
    skipped: int
    requests: int
    error: str | None
