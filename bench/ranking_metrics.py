"""The quality bench's metrics, by their textbook definitions, over binary relevance."""

from __future__ import annotations

import math
from collections.abc import Sequence

CUTOFF = 10
RECALL_CUTOFF = 5
SUCCESS_CUTOFF = 3  # a reply in a thread shows three papers (``THREAD_PAGE_SIZE``)
METRICS = ("MRR@10", "Success@3", "Recall@5", "nDCG@10")


def reciprocal_rank(ranked: Sequence[str], relevant: frozenset[str]) -> float:
    for rank, paper_id in enumerate(ranked[:CUTOFF], start=1):
        if paper_id in relevant:
            return 1.0 / rank
    return 0.0


def recall(ranked: Sequence[str], relevant: frozenset[str]) -> float:
    return len(relevant.intersection(ranked[:RECALL_CUTOFF])) / len(relevant)


def success(ranked: Sequence[str], relevant: frozenset[str]) -> float:
    """Whether any labelled paper is among the first three: in a thread, on the reply."""
    return float(not relevant.isdisjoint(ranked[:SUCCESS_CUTOFF]))


def ndcg(ranked: Sequence[str], relevant: frozenset[str]) -> float:
    """Binary-relevance nDCG: every labelled paper counts the same, wherever it was found."""
    gain = sum(
        1.0 / math.log2(rank + 1)
        for rank, paper_id in enumerate(ranked[:CUTOFF], start=1)
        if paper_id in relevant
    )
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(relevant), CUTOFF) + 1))
    return gain / ideal


def query_scores(ranked: Sequence[str], relevant: frozenset[str]) -> dict[str, float]:
    return {
        "MRR@10": reciprocal_rank(ranked, relevant),
        "Success@3": success(ranked, relevant),
        "Recall@5": recall(ranked, relevant),
        "nDCG@10": ndcg(ranked, relevant),
    }
