"""The schema: every table the bot keeps, one place to read what is stored and why.

Uniqueness is always enforced by these primary keys (with ``ON CONFLICT`` in the parts that
write), never by a check-then-insert, because two processes may race for the same row.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Date,
    DateTime,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
)

from bot.store.records import SEARCH

QUERY_KEY_LENGTH = 16
REACTION_NAME_LENGTH = 255
"""The longest emoji name kept (``post_reactions.reaction``): Slack names a reaction by its
emoji's name, a custom one's as long as its workspace made it, with a ``::skin-tone-N``
suffix for each tone. Schema 8 widened it from 64, which lost real reactions on
PostgreSQL; a longer name is none Slack sends, and is refused before the database."""


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in, aware UTC datetimes out, on every backend.

    SQLite has no time zone type and would hand back naive values, so instants are stored
    as naive UTC everywhere and made aware again on the way out.
    """

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the store; pass an aware UTC instant")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


metadata = MetaData()

schema_version = Table(
    "schema_version",
    metadata,
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("applied_at", UTCDateTime, nullable=False),
)

slack_events = Table(
    "slack_events",
    metadata,
    Column("event_id", String(255), primary_key=True),
    Column("seen_at", UTCDateTime, nullable=False, index=True),
)

saved_queries = Table(
    "saved_queries",
    metadata,
    Column("key", String(QUERY_KEY_LENGTH), primary_key=True),
    Column("query", Text, nullable=False),
    Column("kind", String(16), nullable=False, server_default=SEARCH),
    Column("saved_at", UTCDateTime, nullable=False),
)

thread_searches = Table(
    "thread_searches",
    metadata,
    Column("channel", String(64), primary_key=True),
    Column("thread_ts", String(64), primary_key=True),
    Column("query", Text, nullable=False),
    Column("shown", Integer, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("kind", String(16), nullable=False, server_default=SEARCH),
    Column("team_id", String(64), index=True),
)
"""Each thread's last search. ``team_id`` (like every channel-keyed table's) is the workspace
the channel belongs to, for deleting a workspace's rows on uninstall; ``NULL`` means
unknown (rows written before schema 5)."""

subscriptions = Table(
    "subscriptions",
    metadata,
    Column("channel", String(64), primary_key=True),
    Column("kind", String(16), primary_key=True),
    Column("post_time", String(5), nullable=False),
    Column("zone", String(64), nullable=False),
    Column("cadence", String(16), nullable=False),
    Column("topic", Text),
    Column("source", String(16), nullable=False),
    Column("active", Boolean, nullable=False),
    Column("paused_reason", String(64)),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("team_id", String(64), index=True),
)
"""One row per channel and kind (``daily``, ``weekly``, ``new``) that ever used a command (or
was paused while on the env default). A weekly row's ``cadence`` is its weekday (``monday``),
a new papers row's ``announced`` (it looks every day, and posts when papers were announced).

``active = false`` is the "unsubscribed" marker: it must outlive the row's subscription so
that ``/paper unsubscribe`` keeps beating ``PAPERBOT_DIGEST_CHANNEL`` after a restart.
"""

revisions = Table(
    "revisions",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("revision", BigInteger, nullable=False),
)
"""A counter per kind of shared state, raised in the same transaction as every change to it
(``subscriptions``: each create, change, pause and delete), so another process learns that
something changed by reading one row, a watermark, instead of re-reading the state."""

digest_seen = Table(
    "digest_seen",
    metadata,
    Column("channel", String(64), primary_key=True),
    Column("round", Integer, primary_key=True, autoincrement=False),
    Column("paper_id", String(128), primary_key=True),
    Column("local_date", Date, nullable=False),
    Column("team_id", String(64), index=True),
)
"""The rotation: which papers each channel has had in each round. The order itself is not
stored; it is recomputed from a per-channel, per-round seed, so it survives restarts."""

digest_claims = Table(
    "digest_claims",
    metadata,
    Column("channel", String(64), primary_key=True),
    Column("kind", String(16), primary_key=True),
    Column("period", String(16), primary_key=True),
    Column("local_date", Date, nullable=False),
    Column("state", String(16), nullable=False),
    Column("paper_id", String(128), nullable=False),
    Column("round", Integer, nullable=False),
    Column("position", Integer, nullable=False),
    Column("pool_size", Integer, nullable=False),
    Column("owner", String(64)),
    Column("ts", String(32)),
    Column("claimed_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("posted_at", UTCDateTime),
    Column("topic", Text),
    Column("team_id", String(64), index=True),
)
"""At most one post per (channel, kind, period): the primary key is the guarantee. The period
is the local date for the paper of the day, the ISO week (``2025-W13``) for the weekly digest
and the announcement day of its papers for the new papers post; ``local_date`` is the day the
post is for each way. A weekly or new papers claim's paper is the post's first, its
``position`` and ``pool_size`` 0, and a weekly claim's ``round`` the channel's round its picks
were drawn from (the next one when they started it); a paper of the day found in the channel
from a version that did not write its place has 0 for both too (not known).

``state`` goes ``claimed`` → ``posting`` (set just before the API call) → ``posted`` (with
the message ``ts``). ``owner`` is the process working on it, ``None`` once released; a claim
whose owner stopped updating it for longer than the lease may be taken over. ``topic`` is the
subscription's topic the paper was drawn for (``position`` and ``pool_size`` count that
topic's papers), so the paper keeps its progress line after the channel changes topic."""

saved_papers = Table(
    "saved_papers",
    metadata,
    Column("team_id", String(64), primary_key=True),
    Column("user_id", String(64), primary_key=True),
    Column("paper_id", String(128), primary_key=True),
    Column("saved_at", UTCDateTime, nullable=False),
    Index("saved_papers_by_user", "team_id", "user_id", "saved_at"),
)
"""Reading lists: a person's saved papers, per workspace (user ids are only unique within
one). The primary key makes saving idempotent, whoever clicks twice or wherever."""

unfurls = Table(
    "unfurls",
    metadata,
    Column("link_key", String(64), primary_key=True),
    Column("paper_id", String(128), nullable=False),
    Column("payload", Text, nullable=False),
    Column("rendered_at", UTCDateTime, nullable=False, index=True),
)
"""Rendered link previews, keyed by a hash of the link as Slack sent it."""

dismissals = Table(
    "dismissals",
    metadata,
    Column("team_id", String(64), primary_key=True),
    Column("user_id", String(64), primary_key=True),
    Column("paper_id", String(128), primary_key=True),
    Column("dismissed_at", UTCDateTime, nullable=False),
)
"""Papers a person marked "not relevant": never suggested to them again, and negatives for
their model. Keyed like ``saved_papers``, so dismissing twice is one row."""

forgotten_people = Table(
    "forgotten_people",
    metadata,
    Column("team_id", String(64), primary_key=True),
    Column("user_id", String(64), primary_key=True),
)
"""People who asked to be forgotten and have not saved since: signals kept passively about a
person (reactions, shares) must not be recorded for them. Only the two ids, nothing else;
their next save removes the row (they are using their reading list again)."""

bot_posts = Table(
    "bot_posts",
    metadata,
    Column("channel", String(64), primary_key=True),
    Column("ts", String(32), primary_key=True),
    Column("paper_id", String(128), nullable=False),
    Column("posted_at", UTCDateTime, nullable=False, index=True),
    Column("team_id", String(64), index=True),
)
"""Which paper each of the bot's shared cards shows, by the message's ``ts``, so a reaction
on it (which names only the message) counts for that paper. The daily post's ``ts`` is in
``digest_claims``. Nothing about a person."""

channel_signals = Table(
    "channel_signals",
    metadata,
    Column("channel", String(64), primary_key=True),
    Column("paper_id", String(128), primary_key=True),
    Column("user_id", String(64), primary_key=True),
    Column("kind", String(16), primary_key=True),
    Column("recorded_at", UTCDateTime, nullable=False, index=True),
    Column("team_id", String(64), nullable=False),
    Index("channel_signals_by_user", "team_id", "user_id"),
)
"""A person's share of a paper into a channel: one row per person, paper and kind (the primary
key), so repeating it counts once. Saves are not kept here: a reading list is private."""

post_reactions = Table(
    "post_reactions",
    metadata,
    Column("channel", String(64), primary_key=True),
    Column("ts", String(32), primary_key=True),
    Column("user_id", String(64), primary_key=True),
    Column("reaction", String(REACTION_NAME_LENGTH), primary_key=True),
    Column("paper_id", String(128), nullable=False),
    Column("reacted_at", UTCDateTime, nullable=False, index=True),
    Column("team_id", String(64), nullable=False),
    Index("post_reactions_by_user", "team_id", "user_id"),
)
"""A person's reaction on one of the bot's posts, keyed like Slack's (message, person,
emoji), so ``reaction_removed`` deletes exactly what ``reaction_added`` wrote."""

ingested_papers = Table(
    "ingested_papers",
    metadata,
    Column("source", String(16), primary_key=True),
    Column("id", String(128), primary_key=True),
    Column("paper_id", String(128), nullable=False, index=True),
    Column("version", Integer),
    Column("title", Text, nullable=False),
    Column("authors", Text, nullable=False),
    Column("abstract", Text, nullable=False),
    Column("categories", Text, nullable=False),
    Column("venue", Text),
    Column("venue_id", String(255)),
    Column("decision", String(32)),
    Column("arxiv_id", String(32), index=True),
    Column("match_key", String(255), nullable=False, index=True),
    Column("announced", Date),
    Column("published", UTCDateTime),
    Column("revised", UTCDateTime),
    Column("page_url", Text),
    Column("pdf_url", Text),
    Column("feed", String(255)),
    Column("content_hash", String(32), nullable=False),
    Column("text_hash", String(32), nullable=False),
    Column("model", String(64)),
    Column("title_vector", LargeBinary),
    Column("text_vector", LargeBinary),
    Column("ingested_at", UTCDateTime, nullable=False),
    Column("changed_at", UTCDateTime, nullable=False),
    Column("revision", BigInteger, nullable=False, index=True),
)
"""Papers the feeds brought (schema 10), one row per source's record: ``id`` is namespaced
for arXiv (``arxiv:2501.01234``, the version apart in ``version``) and OpenReview's own
forum id otherwise, so no id of the shipped catalogue ever changes meaning. ``paper_id`` is
the paper the row belongs to: its own id, or the id of the same paper first stored from the
other source (``bot.papers.sameness`` states the rule), fixed once written. ``authors`` is a
JSON list in the paper's order; ``categories`` arXiv's, space-separated and padded
(`` cs.LG cs.AI ``), primary first. ``revision`` is the ``ingested_papers`` watermark
(``revisions``) of the write that last changed the row, which ``papers_since`` reads.
The vectors (float16) are of ``title`` and of the title and abstract, by ``model``, the
embedder's hash; ``text_hash`` is what they were computed from."""

feed_states = Table(
    "feed_states",
    metadata,
    Column("feed", String(255), primary_key=True),
    Column("watermark", String(64)),
    Column("last_success_at", UTCDateTime),
    Column("last_attempt_at", UTCDateTime),
    Column("last_error", Text),
    Column("failures", Integer, nullable=False),
)
"""Each followed feed (``arxiv:cs.LG``, ``openreview:ICLR.cc/2026/Conference``): where its
last good fetch ended (arXiv: the last announcement day read; OpenReview: the newest
modification time seen, in epoch milliseconds) and how its last attempt went, for ``/paper
sources`` and for the next run to start where that one ended (the papers it gave are
counted in ``ingested_papers.feed``)."""

ingest_claims = Table(
    "ingest_claims",
    metadata,
    Column("source", String(255), primary_key=True),
    Column("period", String(32), primary_key=True),
    Column("state", String(16), nullable=False),
    Column("owner", String(64)),
    Column("claimed_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("finished_at", UTCDateTime),
    Column("new", Integer, nullable=False),
    Column("updated", Integer, nullable=False),
    Column("skipped", Integer, nullable=False),
    Column("requests", Integer, nullable=False),
    Column("error", Text),
)
"""One ingest per source and period across every process (the paper of the day's claims'
pattern): the primary key lets one process insert the claim; ``owner`` works on it until
``done`` or ``failed``, and one silent for longer than the lease is taken over. The counts
are that run's."""
