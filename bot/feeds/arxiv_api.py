"""A first load through arXiv's search API instead of OAI-PMH (``paperbot ingest --via
api``): the papers *submitted* in a date range to each followed category, newest version,
as the API's Atom, parsed with feedparser.

The API's documented limits: at most 2,000 results a request (``max_results``), at most
30,000 for one query, and one request every 3 s (the pace). OAI-PMH is the better choice for
catching up (it follows changes, replacements included); the API's ``submittedDate`` range
selects exactly one category and period, which suits a first load of a small category.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import date
from typing import Any

import feedparser

from bot.feeds.arxiv_common import Malformed, arxiv_entry, instant, split_id, taken_by
from bot.feeds.arxiv_oai import Page
from bot.settings import FollowedFeed

RESULTS_PER_PAGE = 2000
"""The API's largest page (``max_results``)."""
MOST_RESULTS = 30000
"""The API returns no result past this many for one query: a longer range is split."""


def search(
    endpoint: str,
    fetch: Callable[[str, dict[str, Any]], bytes],
    feeds: Sequence[FollowedFeed],
    since: date,
    until: date,
    page_size: int = RESULTS_PER_PAGE,
) -> Iterator[Page]:
    """Every page of each followed category's papers submitted from ``since`` to ``until``."""
    for feed in feeds:
        query = f"cat:{feed.name} AND submittedDate:[{since:%Y%m%d}0000 TO {until:%Y%m%d}2359]"
        start = 0
        while start < MOST_RESULTS:
            data = fetch(
                endpoint,
                {
                    "search_query": query,
                    "start": start,
                    "max_results": page_size,
                    "sortBy": "submittedDate",
                    "sortOrder": "ascending",
                },
            )
            parsed = feedparser.parse(data)
            page = _page(parsed.entries, feeds)
            yield page
            total = int(parsed.feed.get("opensearch_totalresults") or 0)
            start += page_size
            if not parsed.entries or start >= total:
                break


def _page(items: Sequence[Any], feeds: Sequence[FollowedFeed]) -> Page:
    entries = []
    malformed = 0
    for item in items:
        try:
            primary = (item.get("arxiv_primary_category") or {}).get("term")
            tags = [tag["term"] for tag in item.get("tags", ()) if tag.get("term")]
            categories = [primary, *(tag for tag in tags if tag != primary)] if primary else tags
            feed = taken_by(categories, feeds)
            if feed is None:
                continue
            arxiv_id, version = split_id(item.get("id") or "")
            entries.append(
                arxiv_entry(
                    arxiv_id=arxiv_id,
                    version=version,
                    title=item.get("title") or "",
                    authors=[author.get("name", "") for author in item.get("authors", ())],
                    abstract=item.get("summary") or "",
                    categories=categories,
                    feed=feed,
                    announced=None,
                    published=instant(item.get("published_parsed")),
                    revised=instant(item.get("updated_parsed")),
                )
            )
        except (Malformed, KeyError, TypeError, ValueError):
            malformed += 1
    return Page(tuple(entries), malformed)
