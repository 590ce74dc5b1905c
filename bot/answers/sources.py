"""``/paper sources``: the followed feeds as the store and the schedule know them."""

from __future__ import annotations

from bot.feeds.service import FeedService
from bot.render.message import Message
from bot.render.replies import database_unavailable_message
from bot.render.sources import SourceLine, sources_message
from bot.store import UNAVAILABLE


def sources_reply(feeds: FeedService | None) -> Message:
    """What is followed, each feed's papers, last good fetch, next one and last failure."""
    if feeds is None or not feeds.feeds:
        return sources_message([])
    try:
        statuses = feeds.statuses()
    except UNAVAILABLE:
        return database_unavailable_message()
    return sources_message(
        [
            SourceLine(
                status.feed.source,
                status.feed.name,
                status.feed.cross,
                status.papers,
                status.last_success,
                status.next_run,
                status.error,
                status.failures,
            )
            for status in statuses
        ]
    )
