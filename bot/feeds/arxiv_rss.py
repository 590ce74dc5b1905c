"""arXiv's daily announcements: one RSS request for every followed category
(``https://rss.arxiv.org/rss/cs.LG+cs.CL``), parsed by feedparser.

Each item says how it was announced (``arxiv:announce_type``): ``new`` and ``cross`` are
papers announced today (``cross`` into one of the requested categories from another),
``replace`` and ``replace-cross`` a new version of an older one, which updates the stored
paper and is never new again. The feed is empty on arXiv's days off (Saturdays, Sundays,
holidays: the channel's ``skipDays``); that is a normal day, not a failure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import feedparser

from bot.feeds.arxiv_common import Malformed, arxiv_entry, instant, split_id, taken_by
from bot.settings import FollowedFeed
from bot.store.records import FeedEntry

REPLACED = frozenset({"replace", "replace-cross"})
_SKIP_DAYS = re.compile(rb"<skipDays>(.*?)</skipDays>", re.DOTALL)
_DAY = re.compile(rb"<day>\s*(\w+)\s*</day>")
_PREFIX = re.compile(r"^\s*arXiv:\S+\s+Announce Type:\s*\S+\s*(?:Abstract:\s*)?", re.IGNORECASE)


@dataclass(frozen=True)
class Announcement:
    """One day's feed: the entries the followed categories take, how many items were
    skipped as malformed, how many were cross-lists nobody follows, the day it announces,
    and the weekdays the feed says it skips."""

    entries: tuple[FeedEntry, ...]
    malformed: int
    not_followed: int
    day: date | None
    skip_days: tuple[str, ...]


def rss_url(base: str, feeds: Sequence[FollowedFeed]) -> str:
    """One request for all the categories: ``…/rss/cs.LG+cs.CL``."""
    return base.rstrip("/") + "/" + "+".join(sorted({feed.name for feed in feeds}))


def parse_announcement(data: bytes, feeds: Sequence[FollowedFeed]) -> Announcement:
    parsed = feedparser.parse(data)
    if parsed.bozo and not parsed.entries and not parsed.feed:
        raise Malformed(f"not a feed: {parsed.get('bozo_exception')}")
    day = _day(parsed.feed)
    entries: list[FeedEntry] = []
    malformed = not_followed = 0
    for item in parsed.entries:
        try:
            categories = [tag["term"] for tag in item.get("tags", ()) if tag.get("term")]
            feed = taken_by(categories, feeds)
            if feed is None:
                not_followed += 1
                continue
            entries.append(_entry(item, categories, feed, day))
        except (Malformed, KeyError, TypeError, ValueError):
            malformed += 1
    return Announcement(tuple(entries), malformed, not_followed, day, _skip_days(data))


def _entry(item: Any, categories: list[str], feed: FollowedFeed, day: date | None) -> FeedEntry:
    arxiv_id, version = split_id(item.get("id") or item.get("link") or "")
    summary = item.get("summary") or ""
    if version is None:
        _, version = split_id(summary)
    announced_at = instant(item.get("published_parsed"))
    return arxiv_entry(
        arxiv_id=arxiv_id,
        version=version,
        title=item.get("title") or "",
        authors=_authors(item),
        abstract=_PREFIX.sub("", summary),
        categories=categories,
        feed=feed,
        announced=day,
        published=announced_at if (version or 1) == 1 else None,
        revised=announced_at,
    )


def _skip_days(data: bytes) -> tuple[str, ...]:
    """The channel's ``<skipDays>``, which feedparser does not keep whole."""
    found = _SKIP_DAYS.search(data)
    if found is None:
        return ()
    return tuple(day.decode() for day in _DAY.findall(found.group(1)))


def _authors(item: Any) -> list[str]:
    """``dc:creator`` holds every author, comma-separated, in the paper's order."""
    names = item.get("author") or ""
    return [name.strip() for name in names.replace(" and ", ", ").split(",") if name.strip()]


def _day(feed: Any) -> date | None:
    """The announcement's day as the feed dates it (US Eastern midnight, written with
    its offset): the date as written, not as UTC would shift it."""
    text = feed.get("published") or feed.get("updated") or ""
    try:
        return datetime.strptime(text[:16], "%a, %d %b %Y").date()
    except ValueError:
        published = instant(feed.get("published_parsed"))
        return published.date() if published else None
