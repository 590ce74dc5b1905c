"""Which paper a channel gets next.

Each channel walks a shuffled order of every shipped paper (a feed's papers are new papers,
shown once each: ``bot.digest.new_papers``), seeded by channel and round, so
the order is random but reproducible and survives restarts; only the papers already posted
are stored. When every paper has been posted, the next round starts with a new order; a
weekly digest's picks start it when fewer than they need are left (``Rotation._draw``), so a
channel with only a weekly digest never runs out. A topic subscription walks the papers
about its topic instead, in ``/paper TOPIC``'s order.

What the channel engages with in public (``store.channel_interest``: shares and reactions
there) moves papers like those forward within the round's unseen papers: each engaged paper
lends its weight to its nearest papers (the search index's ``like:``), the nearest most, and
the unseen papers are ordered by that score, ties kept in the round's order. A 👎 lends a
negative weight, which moves papers like it back. Nothing else is stored: the order is
recomputed from the signals, the seen papers and the index, so it survives restarts, and a
channel with no signal gets exactly the round's order.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.papers.paper import Paper
from bot.store import DigestClaim, Store

if TYPE_CHECKING:
    from bot.search.engine import SearchIndex
    from bot.search.results import Reason

ENGAGED_PAPERS = 20
"""The channel's most engaged papers that lend weight (strongest first): enough for a
channel's taste, few enough that a choice costs a few ``like:`` searches."""
NEIGHBOURS = 20
"""How many nearest papers each engaged paper lends its weight to."""


@dataclass(frozen=True)
class Pick:
    """A paper and where it stands in the pool it was drawn from: ``position`` of
    ``pool_size`` papers on ``topic`` (``None``: every paper)."""

    paper: Paper
    round: int
    position: int
    pool_size: int
    topic: str | None


@dataclass(frozen=True)
class Picks:
    """A weekly digest's picks, the channel's round they were drawn from (the next one when
    they start it, which their post records) and whether the channel's signals chose them."""

    papers: list[Paper]
    round: int
    follow_channel: bool


@dataclass(frozen=True)
class _Draw:
    """Papers drawn for a channel, the round they belong to and what it had seen of it."""

    papers: list[Paper]
    round: int
    seen: frozenset[str]


class Rotation:
    def __init__(self, store: Store, index: SearchIndex) -> None:
        self._store = store
        self._index = index

    def pool(self, topic: str | None) -> list[Paper]:
        """The papers a subscription draws from: every shipped paper, or those about its
        topic, in the order ``/paper TOPIC`` pages through them (``SearchIndex.results``).
        Papers the feeds brought are left out: they reach a channel once each, in its new
        papers post and its weekly digest's new papers (``bot.digest.new_papers``), and a
        rotation that grew every day would never come round."""
        papers = self._index.results(topic) if topic else self._index.papers
        return [paper for paper in papers if not paper.from_feed]

    def why_empty(self, topic: str) -> tuple[Reason, ...]:
        """Why no paper is about ``topic``, as its search says."""
        return self._index.search(topic, limit=0).reasons

    def next(self, channel: str, topic: str | None) -> Pick | None:
        """The channel's next paper: the first of its round's order not yet posted."""
        pool = self.pool(topic)
        if not pool:
            return None
        draw = self._draw(
            channel,
            lambda round_: pool if topic else _shuffled(pool, channel, round_),
            1,
            frozenset(),
            self._store.channel_interest(channel),
        )
        position = len({paper.id for paper in pool} & draw.seen) + 1
        return Pick(draw.papers[0], draw.round, position, len(pool), topic or None)

    def _draw(
        self,
        channel: str,
        order: Callable[[int], list[Paper]],
        count: int,
        passed: AbstractSet[str],
        interest: dict[str, float],
    ) -> _Draw:
        """Up to ``count`` papers of the round's ``order`` the channel has not seen in its
        current round, none of ``passed``, like its engaged papers first. When fewer are
        left, the rest come from the next round, which starts here (the only place one does):
        every paper is seen once before any comes again, and the papers never run out."""
        round_, seen = self._store.rotation(channel)
        skipped = seen | passed
        left = [paper for paper in order(round_) if paper.id not in skipped]
        papers = self.by_interest(left, interest)[:count]
        if len(papers) == count:
            return _Draw(papers, round_, seen)
        taken = passed | {paper.id for paper in papers}
        fresh = [paper for paper in order(round_ + 1) if paper.id not in taken]
        papers += self.by_interest(fresh, interest)[: count - len(papers)]
        return _Draw(papers, round_ + 1, frozenset())

    def by_interest(self, remaining: list[Paper], interest: dict[str, float]) -> list[Paper]:
        """``remaining`` with the papers like the channel's engaged ones first (stable)."""
        if not interest or not remaining:
            return remaining
        scores: defaultdict[str, float] = defaultdict(float)
        strongest = sorted(interest.items(), key=lambda item: (-abs(item[1]), item[0]))
        for paper_id, weight in strongest[:ENGAGED_PAPERS]:
            if weight == 0:
                continue
            for rank, hit in enumerate(self._index.similar(paper_id, limit=NEIGHBOURS).hits):
                scores[hit.paper.id] += weight / (rank + 1)
        return sorted(remaining, key=lambda paper: -scores.get(paper.id, 0.0))

    def picks(
        self, channel: str, topic: str | None, period: str, count: int, excluded: set[str]
    ) -> Picks:
        """A few papers for the channel's weekly digest, none of ``excluded``, of those it
        engaged with, nor of those it has seen this round (its papers of the day, shared or
        linked there, earlier weeks' picks): like its engaged papers first, else its topic's
        best or a sample seeded by ``period``. When the round has too few left, the next
        round starts with them (``_draw``), so a channel with only a weekly digest gets its
        picks every week."""
        interest = self._store.channel_interest(channel)
        pool = self.pool(topic)
        ordered = pool if topic else _shuffled(pool, channel, period)
        draw = self._draw(
            channel, lambda _round: ordered, count, excluded | interest.keys(), interest
        )
        return Picks(draw.papers, draw.round, bool(interest))

    def shaped_by(self, channel: str) -> int:
        """How many papers the channel engaged with in public: when any, they shape its
        order (``/paper subscriptions`` says so)."""
        return len(self._store.channel_interest(channel))

    def claimed(self, claim: DigestClaim) -> Pick | None:
        """The pick a claim recorded, if its paper is still in the corpus: with the topic it
        was drawn for, which the channel's topic may no longer be."""
        paper = self._index.get(claim.paper_id)
        if paper is None:
            return None
        return Pick(paper, claim.round, claim.position, claim.pool_size, claim.topic)

    def for_day(self, channel: str, topic: str | None, claim: DigestClaim | None) -> Pick | None:
        """The claimed paper when there is a claim (so a retry posts the same one)."""
        claimed = self.claimed(claim) if claim is not None else None
        return claimed or self.next(channel, topic)


def _shuffled(pool: Sequence[Paper], channel: str, round_: int | str) -> list[Paper]:
    """The round's order (or a week's sample): random, but the same for the same channel and
    round, always."""
    ordered = sorted(pool, key=lambda paper: paper.id)
    random.Random(f"paperbot-digest/{channel}/{round_}").shuffle(ordered)
    return ordered
