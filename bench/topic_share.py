"""The topic measure: how many of a broad query's first cards are bare titles.

A paper without an abstract shows as a card with no summary, which a reader cannot judge. On a
topic query (``kind`` ``topic``, no labelled answer) no paper is *the* answer, so the measure is
not a rank but a share: of the top-5 hits over all topic queries, how many have no abstract,
set against the share of such papers in the corpus (what a ranking blind to abstracts would
show on average).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.papers.paper import Paper

TOPIC = "topic"
TOPIC_DEPTH = 5  # the cards a reply shows


def is_bare(paper: Paper) -> bool:
    return not paper.plain_abstract


@dataclass(frozen=True)
class BareShare:
    """One system's top-5 hits over the topic queries."""

    queries: int
    hits: int
    bare: int  # hits without an abstract
    all_bare: int  # queries whose hits all lack an abstract (none of their cards has a summary)

    @property
    def share(self) -> float:
        return self.bare / self.hits if self.hits else 0.0


def bare_share(rankings: Sequence[Sequence[Paper]]) -> BareShare:
    """The share over every topic query's first ``TOPIC_DEPTH`` hits (a query with no hit
    adds none)."""
    shown = [ranking[:TOPIC_DEPTH] for ranking in rankings]
    return BareShare(
        queries=len(shown),
        hits=sum(map(len, shown)),
        bare=sum(is_bare(paper) for hits in shown for paper in hits),
        all_bare=sum(bool(hits) and all(map(is_bare, hits)) for hits in shown),
    )


def corpus_line(papers: Sequence[Paper]) -> str:
    bare = sum(map(is_bare, papers))
    return (
        f"In the corpus, {bare:,} of {len(papers):,} papers ({bare / len(papers):.1%}) have no"
        " abstract."
    )


def share_table(shares: dict[str, BareShare]) -> str:
    """A row per system: its top-5 hits, how many lack an abstract, and the queries all of
    whose hits lack one."""
    lines = [
        f"| system | top-{TOPIC_DEPTH} hits | without an abstract | share |"
        f" queries with no abstract in their top {TOPIC_DEPTH} |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, share in shares.items():
        lines.append(
            f"| {name} | {share.hits} | {share.bare} | {share.share:.1%} |"
            f" {share.all_bare} of {share.queries} |"
        )
    return "\n".join(lines)
