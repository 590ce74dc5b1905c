"""Which paper a channel gets next.

Each channel walks a shuffled order of every eligible paper, seeded by channel and round, so
the order is random but reproducible and survives restarts; only the papers already posted
are stored. When every paper has been posted, the next round starts with a new order. A
topic subscription walks its matches best first instead.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.papers.paper import Paper
from bot.store import DigestClaim, Store

if TYPE_CHECKING:
    from bot.search.engine import SearchIndex


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
        """The papers a subscription draws from: its topic's matches, or every paper."""
        if topic:
            return [paper for paper, _score in self._index.matching(topic)]
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
        remaining = [paper for paper in ordered if paper.id not in seen]
        position = len(pool) - len(remaining) + 1
        return Pick(remaining[0], round_, position, len(pool), topic or None)

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


def _shuffled(pool: Sequence[Paper], channel: str, round_: int) -> list[Paper]:
    """The round's order: random, but the same for the same channel and round, always."""
    ordered = sorted(pool, key=lambda paper: paper.id)
    random.Random(f"paperbot-digest/{channel}/{round_}").shuffle(ordered)
    return ordered
