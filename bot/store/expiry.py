"""Expiry of what no request can need any more, done on the way by the busiest writes
rather than by a job of its own, so a bot with no scheduler still forgets."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.engine import Connection

from bot.store.tables import (
    bot_posts,
    channel_signals,
    post_reactions,
    saved_queries,
    slack_events,
    thread_searches,
)

EVENT_RETENTION = timedelta(days=1)
"""Slack retries an event for minutes, not days; older ids can go."""

QUERY_RETENTION = timedelta(days=7)
"""How long result buttons and ``@paperbot more`` can go back to a search: a week covers
a conversation picked up after a weekend; older remembered searches go."""

SIGNAL_RETENTION = timedelta(days=365)
"""How long a share, a reaction, and which paper a shared card showed are kept: a year of a
channel's reading is what its paper of the day follows; older signals say little about
what it reads now."""

PRUNE_EVERY = timedelta(hours=1)


class Expiry:
    """Remembers when this process last pruned, so a burst of writes prunes once."""

    def __init__(self) -> None:
        self._last_prune: datetime | None = None

    def prune(self, connection: Connection, now: datetime) -> None:
        """Forget, at most once every ``PRUNE_EVERY``, what no request can need any more:
        event ids Slack no longer retries, searches no button reaches, and channel signals
        older than ``SIGNAL_RETENTION``."""
        if self._last_prune is not None and now - self._last_prune < PRUNE_EVERY:
            return
        connection.execute(
            slack_events.delete().where(slack_events.c.seen_at < now - EVENT_RETENTION)
        )
        connection.execute(
            saved_queries.delete().where(saved_queries.c.saved_at < now - QUERY_RETENTION)
        )
        connection.execute(
            thread_searches.delete().where(thread_searches.c.updated_at < now - QUERY_RETENTION)
        )
        for table, stamp in (
            (channel_signals, channel_signals.c.recorded_at),
            (post_reactions, post_reactions.c.reacted_at),
            (bot_posts, bot_posts.c.posted_at),
        ):
            connection.execute(table.delete().where(stamp < now - SIGNAL_RETENTION))
        self._last_prune = now
