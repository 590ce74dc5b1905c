"""New papers for a channel: its new papers post, and the weekly digest's new papers.

**Which day.** A new papers post is for an announcement day, the latest one up to the
channel's local date (``bot.papers.announcements``), and is claimed for that day, not for the
date it is posted on: whichever process, run or day tries, one announcement day is posted
once. A day with nothing announced since the channel's last post (a weekend, a holiday)
posts nothing (the service logs it). A post covers the days after the channel's last posted
one, so papers stored after a morning's post are in the next post rather than lost; a first
post, or one after a long stop, covers at most ``CATCH_UP_DAYS``.

**Which papers.** The first versions announced on those days: a ``replace`` is a new version
of a paper announced before and is never new again (``announcements.is_new``, the rule
``/paper new`` lists by too). None the channel was ever shown, in any
round of its rotation (``Store.ever_seen``): each new paper reaches a channel once, whether
in this post, the weekly digest or a link posted there. They are ranked by the channel's
topic as ``/paper TOPIC since:FIRST before:LAST+1`` ranks them (the search's own date
filter, and the topic's ``category:`` and ``venue:``), else in the order they were
announced; then, as in the paper of the day's rotation, the papers like those the channel
shared and reacted to come first (``Rotation.by_interest``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING

from bot.digest.rotation import Rotation
from bot.papers.announcements import announced_since, is_new, last_announcement_day
from bot.papers.paper import Paper
from bot.store import NEW_PAPERS, Store

if TYPE_CHECKING:
    from bot.search.engine import SearchIndex

POST_PAPERS = 5
"""Papers in one new papers post: the day's best, not the day's list (``/paper new`` pages
through every one)."""
WEEK_PAPERS = 3
"""New papers in a weekly digest: beside the workspace's week and the channel's picks."""
CATCH_UP_DAYS = 7
"""The most announcement days' worth of papers one post draws from."""


@dataclass(frozen=True)
class NewPick:
    """The new papers chosen for a channel, how many new papers it had not seen matched
    (its topic, if any), the first and last days those were announced on, and whether the
    channel's reactions and shares ordered them."""

    papers: list[Paper]
    matching: int
    first: date
    last: date
    follow_channel: bool


class NewPapers:
    def __init__(self, store: Store, index: SearchIndex, rotation: Rotation) -> None:
        self._store = store
        self._index = index
        self._rotation = rotation

    def latest_day(self, today: date) -> date | None:
        """The announcement day a post made on ``today`` is for (None: no feed has
        announced anything yet)."""
        return last_announcement_day(self._index.announced_papers, today)

    def matching(self, topic: str) -> int:
        """How many of the stored new papers ``topic`` finds."""
        return sum(1 for paper in self._index.results(topic) if paper.from_feed)

    def for_post(self, channel: str, topic: str | None, day: date) -> NewPick:
        """The post for announcement day ``day``: the papers announced after the channel's
        last posted day, up to ``day``."""
        posted = self._store.latest_claim_date(channel, kind=NEW_PAPERS, posted=True)
        first = (
            day
            if posted is None
            else max(posted + timedelta(days=1), day - timedelta(days=CATCH_UP_DAYS - 1))
        )
        return self.pick(channel, topic, first, day, POST_PAPERS)

    def pick(
        self,
        channel: str,
        topic: str | None,
        first: date,
        last: date,
        count: int,
        excluded: frozenset[str] = frozenset(),
    ) -> NewPick:
        """Up to ``count`` papers first announced from ``first`` to ``last``, none of
        ``excluded`` nor any the channel was shown, best first for the channel."""
        fresh = [
            paper
            for paper in announced_since(self._index.announced_papers, first, last)
            if is_new(paper) and paper.id not in excluded
        ]
        seen = self._store.ever_seen(channel, (paper.id for paper in fresh))
        unseen = sorted((paper for paper in fresh if paper.id not in seen), key=_announced)
        if topic:
            wanted = {paper.id for paper in unseen}
            days = f"since:{first.isoformat()} before:{(last + timedelta(days=1)).isoformat()}"
            found = self._index.results(f"{topic} {days}")
            unseen = [paper for paper in found if paper.id in wanted]
        interest = self._store.channel_interest(channel)
        ranked = self._rotation.by_interest(unseen, interest)
        announced = min((paper.announced for paper in ranked if paper.announced), default=last)
        return NewPick(ranked[:count], len(ranked), announced, last, bool(interest))


def _announced(paper: Paper) -> tuple[date, str]:
    """Announcement order: by day, then by id (arXiv numbers its papers as they come)."""
    return paper.announced or date.min, paper.id
