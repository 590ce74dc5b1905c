"""The semantic re-ranking of BM25's best candidates.

BM25 finds papers that share the query's words; a sentence vector knows that "follow
instructions" and "instruction adherence" mean the same. Dense retrieval alone ranks the
catalogue worse than BM25, so it does not rank on its own: BM25's ``RERANK_DEPTH`` best,
joined by the ``NEAREST_CANDIDATES`` matching papers nearest to the query's vector, are
re-scored as ``alpha * minmax(BM25) + (1 - alpha) * cosine`` and the rest keep BM25's order.
The nearest papers are there for the question whose paper BM25 ranks beyond its best 100
because it says the same thing in other words; they must still match the query (share a word
with it and pass its filters), so the hit count and the bolded words stay true.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bot.papers.paper import Paper
from bot.search.embedding import DIMENSIONS, Embedder, ModelError
from bot.search.query_vectors import QueryVectors
from bot.search.vectors import (
    StoredVectors,
    embed_missing,
    embedding_text,
    empty_vectors,
    read_vectors,
    text_key,
    vectors_path,
    write_vectors,
)

logger = logging.getLogger(__name__)

RERANK_DEPTH = 100
# Declared with the held-out round of blind queries before it was measured (bench/README.md).
NEAREST_CANDIDATES = 20
ALPHA = 0.25  # weight of BM25 in the mix, chosen on the blind set (bench/semantic_alpha.py)
_RECENT_QUERIES = 512  # query vectors kept (1.5 KB each)
_PROGRESS_EVERY = 60.0  # seconds between progress lines while embedding in the background


@dataclass(frozen=True)
class Reranked:
    """Candidates in their new order, with the mixed score and the parts it was mixed from
    (``cosine`` is NaN for a paper that has no vector yet)."""

    docs: np.ndarray
    scores: np.ndarray
    bm25: np.ndarray
    cosine: np.ndarray


def mix(bm25: np.ndarray, cosine: np.ndarray, alpha: float) -> np.ndarray:
    """``alpha * minmax(bm25) + (1 - alpha) * cosine``. A NaN cosine (no vector yet) counts as the
    candidates' mean cosine, so such a paper places by its BM25 score alone."""
    low, high = float(bm25.min()), float(bm25.max())
    scaled = (bm25 - low) / (high - low) if high > low else np.ones_like(bm25)
    known = ~np.isnan(cosine)
    neutral = float(cosine[known].mean()) if known.any() else 0.0
    return alpha * scaled + (1 - alpha) * np.where(known, cosine, neutral)


class SemanticRanker:
    """The model and one unit vector per paper of a corpus (in the index's paper order)."""

    def __init__(
        self,
        embedder: Embedder,
        papers: Sequence[Paper],
        stored: StoredVectors,
        path: Path,
        alpha: float = ALPHA,
    ) -> None:
        self._embedder = embedder
        self._papers = papers
        self._path = path
        self._alpha = alpha
        self._vectors = np.zeros((len(papers), DIMENSIONS), dtype=np.float32)
        self._ready = np.zeros(len(papers), dtype=bool)
        self._keys = [text_key(embedding_text(paper)) for paper in papers]
        rows = stored.rows()
        found = [(doc, rows[key]) for doc, key in enumerate(self._keys) if key in rows]
        if found:
            docs, at = (np.array(column) for column in zip(*found, strict=True))
            self._vectors[docs] = stored.vectors[at]
            self._ready[docs] = True
        # Kept only to be saved again with the vectors ``fill_missing`` adds.
        self._stored = stored if self.missing else empty_vectors(stored.model, DIMENSIONS)
        self._fill_lock = threading.Lock()
        self._recent = QueryVectors(embedder, _RECENT_QUERIES)

    @property
    def missing(self) -> int:
        """Papers still without a vector."""
        return int(len(self._ready) - np.count_nonzero(self._ready))

    def embed(self, text: str) -> np.ndarray:
        """The vector of a query or message; paging through its results ("Next 5",
        ``@paperbot more``) asks again for the same text, so recent ones are kept."""
        return self._recent.vector(text)

    def paper_vector(self, doc: int) -> np.ndarray | None:
        return self._vectors[doc] if self._ready[doc] else None

    def nearest(
        self, vector: np.ndarray, among: np.ndarray, k: int, tiebreak: np.ndarray
    ) -> np.ndarray:
        """The ``k`` papers of the mask ``among`` (that have a vector) nearest to ``vector``,
        nearest first; ties go by ``tiebreak``, as in every other ranking."""
        docs = np.flatnonzero(among & self._ready)
        # One product with every vector, not a copy of the rows asked for: a long query
        # matches most papers, and the copy would cost more than the product.
        cosine = (self._vectors @ vector)[docs]
        if len(docs) > k > 0:
            kth = np.partition(cosine, len(docs) - k)[len(docs) - k]
            keep = cosine >= kth  # ties at the cut included, for the tiebreak to settle
            docs, cosine = docs[keep], cosine[keep]
        return docs[np.lexsort((tiebreak[docs], -cosine))][:k]

    def rerank(
        self,
        docs: np.ndarray,
        bm25: np.ndarray,
        vector: np.ndarray,
        tiebreak: np.ndarray,
        ahead: np.ndarray | None = None,
    ) -> Reranked:
        """Re-order the candidates ``docs``, whose BM25 scores are ``bm25``, by the mix; ties
        go by ``tiebreak``. The candidates flagged in ``ahead`` come before the others,
        each group in the mix's order: what the model cannot judge (an author's name) but
        the query asked for stays first."""
        cosine = np.where(self._ready[docs], self._vectors[docs] @ vector, np.nan)
        mixed = mix(bm25, cosine, self._alpha)
        behind = np.zeros(len(docs), dtype=bool) if ahead is None else ~ahead
        order = np.lexsort((tiebreak[docs], -mixed, behind))
        return Reranked(docs[order], mixed[order], bm25[order], cosine[order])

    def fill_missing(self) -> None:
        """Embed the papers without a vector, then save them beside the corpus so a restart
        need not embed them again. Slow (a model run per paper): run in the
        background; those papers rank by BM25 alone until their vector is in."""
        with self._fill_lock:
            todo = np.flatnonzero(~self._ready).tolist()
            if not todo:
                return
            logger.info("semantic: embedding %d papers that have no stored vector", len(todo))
            started = time.monotonic()
            docs_of: dict[int, list[int]] = {}
            for doc in todo:
                docs_of.setdefault(self._keys[doc], []).append(doc)

            def ready(key: int, vector: np.ndarray) -> None:
                for doc in docs_of[key]:
                    self._vectors[doc] = vector
                    self._ready[doc] = True

            texts = {key: embedding_text(self._papers[docs[0]]) for key, docs in docs_of.items()}
            self._stored, _ = embed_missing(
                self._stored, texts, self._embedder.embed, each=_logged_progress, done=ready
            )
            logger.info(
                "semantic: embedded %d papers in %.0f s", len(todo), time.monotonic() - started
            )
            try:
                write_vectors(self._path, self._stored)
            except OSError as error:
                logger.warning("semantic: cannot save vectors to %s (%s)", self._path, error)
            else:
                logger.info("semantic: saved the vectors to %s", self._path)


def _logged_progress(keys: list[int]) -> Iterator[int]:
    """The keys, with a log line now and then: a background fill can take many minutes."""
    last_report = time.monotonic()
    for done, key in enumerate(keys, start=1):
        yield key
        if time.monotonic() - last_report >= _PROGRESS_EVERY:
            last_report = time.monotonic()
            logger.info("semantic: embedded %d of %d papers", done, len(keys))


@functools.cache
def shared_embedder() -> Embedder:
    """The process's one model session (loading it takes a third of a second; a session
    serves any number of threads)."""
    return Embedder()


def ranker_for(corpus: str) -> Callable[[Sequence[Paper]], SemanticRanker | None]:
    """What ``SearchIndex.build`` takes to re-rank the papers of the corpus spec ``corpus``
    with the vectors stored for it."""
    return functools.partial(load_ranker, path=vectors_path(corpus))


def load_ranker(papers: Sequence[Paper], path: Path) -> SemanticRanker | None:
    """The ranker over ``papers`` with the vectors stored at ``path``; None, said in one log
    line, when the model cannot run (the bot then ranks by BM25 alone)."""
    try:
        embedder = shared_embedder()
    except ModelError as error:
        logger.warning("semantic: off, ranking by BM25 alone: %s", error)
        return None
    stored = read_vectors(path, embedder.fingerprint) or empty_vectors(
        embedder.fingerprint, DIMENSIONS
    )
    ranker = SemanticRanker(embedder, papers, stored, path)
    if ranker.missing:
        logger.info(
            "semantic: %d of %d papers have no stored vector in %s; they rank by BM25 alone "
            "until they are embedded (a running bot does so in the background; "
            "`python -m bot embed --corpus` does so ahead of time)",
            ranker.missing,
            len(papers),
            path,
        )
    return ranker
