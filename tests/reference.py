"""What tests compare the engine with: rank-bm25 over the very token lists the index holds."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rank_bm25 import BM25Okapi

from bot.papers.paper import Paper
from bot.search import indexing
from bot.search.bm25 import K1, B
from bot.search.engine import SearchIndex


def document_tokens(index: SearchIndex, paper: Paper) -> tuple[list[str], list[str]]:
    """Exactly the token lists ``index`` holds for ``paper``'s title and abstract, rebuilt
    the way it builds them."""
    return indexing.field_tokens(index._analyzer, paper)


class FieldedBM25Okapi:
    """rank-bm25's BM25Okapi over each field's token lists, weighted as the engine weighs
    them: the score every engine score must equal bit for bit."""

    def __init__(
        self,
        fields: list[list[list[str]]],
        weights: tuple[float, ...],
        k1: tuple[float, ...] | None = None,
        b: float = B,
    ) -> None:
        k1 = k1 or (K1,) * len(fields)
        self.fields = [BM25Okapi(docs, k1=k, b=b) for docs, k in zip(fields, k1, strict=True)]
        self.weights = weights

    @classmethod
    def of(cls, index: SearchIndex, papers: Sequence[Paper]) -> FieldedBM25Okapi:
        documents = [document_tokens(index, paper) for paper in papers]
        fields = [[fields[number] for fields in documents] for number in range(2)]
        return cls(fields, indexing.FIELD_WEIGHTS, indexing.FIELD_K1, indexing.FIELD_B)

    def get_scores(self, query: list[str]) -> np.ndarray:
        total = self.fields[0].get_scores(query) * self.weights[0]
        for field, weight in zip(self.fields[1:], self.weights[1:], strict=True):
            total += field.get_scores(query) * weight
        return total
