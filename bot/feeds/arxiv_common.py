"""What the three arXiv adapters share: which papers a followed category takes, and the
arXiv record as the store keeps it."""

from __future__ import annotations

import calendar
from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any

from bot.papers.sameness import ARXIV_ID
from bot.papers.text import normalise_whitespace
from bot.papers.urls import arxiv_abstract_url, arxiv_paper_id, arxiv_pdf_url
from bot.settings import ARXIV, FollowedFeed
from bot.store.records import ARXIV_SOURCE, FeedEntry


class Malformed(ValueError):
    """An entry the source sent that cannot be a paper (no id, no title): skipped, counted."""


def arxiv_feeds(feeds: Sequence[FollowedFeed]) -> list[FollowedFeed]:
    return [feed for feed in feeds if feed.source == ARXIV]


def taken_by(categories: Sequence[str], feeds: Sequence[FollowedFeed]) -> FollowedFeed | None:
    """The followed feed that takes a paper of these categories (primary first): the one of
    its primary category, else one following cross-lists into another of them; None when
    it is only cross-listed into categories followed without ``+cross``."""
    if not categories:
        return None
    primary, others = categories[0], set(categories[1:])
    for feed in feeds:
        if _in_category(primary, feed.name):
            return feed
    for feed in feeds:
        if feed.cross and any(_in_category(category, feed.name) for category in others):
            return feed
    return None


def _in_category(category: str, followed: str) -> bool:
    """``cs.LG`` is in ``cs.LG`` and in the whole archive ``cs``."""
    return category == followed or category.startswith(f"{followed}.")


def split_id(text: str) -> tuple[str, int | None]:
    """An arXiv id and its version from ``2501.01234v2``, ``oai:arXiv.org:2501.01234``, an
    abstract link, …; ``Malformed`` when there is none."""
    found = ARXIV_ID.search(text or "")
    if found is None:
        raise Malformed(f"no arXiv id in {text!r}")
    return found.group(1), int(found.group(2)) if found.group(2) else None


def arxiv_entry(
    *,
    arxiv_id: str,
    version: int | None,
    title: str,
    authors: Sequence[str],
    abstract: str,
    categories: Sequence[str],
    feed: FollowedFeed,
    announced: date | None,
    published: datetime | None,
    revised: datetime | None,
) -> FeedEntry:
    title = normalise_whitespace(title or "")
    if not title:
        raise Malformed(f"arXiv {arxiv_id} has no title")
    return FeedEntry(
        source=ARXIV_SOURCE,
        id=arxiv_paper_id(arxiv_id),
        title=title,
        authors=tuple(name for name in map(normalise_whitespace, authors) if name),
        abstract=normalise_whitespace(abstract or ""),
        version=version,
        arxiv_id=arxiv_id,
        categories=tuple(categories),
        announced=announced,
        published=published,
        revised=revised,
        page_url=arxiv_abstract_url(arxiv_id),
        pdf_url=arxiv_pdf_url(arxiv_id, version or 1),
        feed=feed.key,
    )


def instant(parsed: Any) -> datetime | None:
    """feedparser's parsed date (a UTC ``struct_time``) as an aware instant."""
    return None if not parsed else datetime.fromtimestamp(calendar.timegm(parsed), UTC)
