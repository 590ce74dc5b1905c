"""Which paper a channel gets next.

Each channel walks a shuffled order of every eligible paper, seeded by channel and round, so
the order is random but reproducible and survives restarts; only the papers already posted
are stored. When every paper has been posted, the next round starts with a new order. A
topic subscription walks the papers about its topic instead, in ``/paper TOPIC``'s order.

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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.papers.paper import Paper
from bot.store import DigestClaim, Store

if TYPE_CHECKING:
    from bot.search.engine import SearchIndex

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


class Rotation:
    def __init__(self, store: Store, index: SearchIndex) -> None:
        self._store = store
        self._index = index

    def pool(self, topic: str | None) -> list[Paper]:
        """The papers a subscription draws from: every paper, or those about its topic, the
        very list ``/paper TOPIC`` pages through, in its order (``SearchIndex.results``)."""
        if topic:
            return self._index.results(topic)
        return list(self._index.papers)

    def next(self, channel: str, topic: str | None) -> Pick | None:
        """The channel's next paper: the first of its round's order not yet posted."""
        pool = self.pool(topic)
        if not pool:
            return None
        round_, seen = self._store.rotation(channel)
        if {paper.id for paper in pool} <= seen:
            round_, seen = round_ + 1, frozenset()
        ordered = pool if topic else _shuffled(pool, channel, round_)
        remaining = self._by_interest(
            [paper for paper in ordered if paper.id not in seen],
            self._store.channel_interest(channel),
        )
        position = len(pool) - len(remaining) + 1
        return Pick(remaining[0], round_, position, len(pool), topic or None)

    def _by_interest(self, remaining: list[Paper], interest: dict[str, float]) -> list[Paper]:
        """``remaining`` with the papers like the channel's engaged ones first (stable)."""
        if not interest:
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
    ) -> tuple[list[Paper], bool]:
        """A few papers for the channel's weekly digest, none of ``excluded``, of those it
        engaged with, nor of those it has seen this round (its papers of the day, shared or
        linked there): like its engaged papers first, else its topic's best or a sample
        seeded by ``period``; and whether the channel's signals chose them."""
        interest = self._store.channel_interest(channel)
        _round, seen = self._store.rotation(channel)
        pool = self.pool(topic)
        ordered = pool if topic else _shuffled(pool, channel, period)
        passed = excluded | seen | interest.keys()
        candidates = [paper for paper in ordered if paper.id not in passed]
        return self._by_interest(candidates, interest)[:count], bool(interest)

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
