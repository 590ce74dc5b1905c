"""BM25Okapi scores, exactly as rank-bm25 computes them, without its per-query corpus walk.

rank-bm25's ``get_scores`` rebuilds, for every query term, a Python list over all documents;
at 300k abstracts that is hundreds of milliseconds. Here each term's posting list (document
ids + the term's precomputed BM25Okapi weight in each) is a slice of two numpy arrays, and a
query adds its terms' weights into a float64 score vector in query order. Every weight is
computed with the same floating-point operations, in the same order, as rank-bm25's
expression, and the idf (including its average-idf floor, summed in the same first-seen term
order) likewise, so the scores are bit-identical to ``BM25Okapi(...).get_scores``.

rank-bm25's quirks are kept on purpose because the scores must equal its own: only negative
idfs are floored (to ``epsilon`` times the mean idf, which can itself be negative in corpora of
1 to 3 documents), and a repeated query token counts once per repetition.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from itertools import count

import numpy as np

K1 = 1.5
B = 0.75
EPSILON = 0.25

_WEIGHT_BLOCK = 1 << 22  # postings per vectorised step: bounds the build's peak memory


class BM25Builder:
    """Accumulates documents one at a time, so a caller can stream a large corpus without
    holding every token list. Term ids follow first occurrence, like rank-bm25's ``nd`` dict,
    whose order its average idf is summed in; a caller that assigns ids itself while reading
    documents in order (``vocabulary``, then ``add_ids``) keeps that order and skips a lookup
    per token."""

    def __init__(self, vocabulary: defaultdict[str, int] | None = None) -> None:
        self._ids: defaultdict[str, int] = (
            defaultdict(count().__next__) if vocabulary is None else vocabulary
        )
        self._terms = array("i")
        self._tfs = array("i")
        self._docs = array("i")
        self._lengths = array("q")

    @property
    def vocabulary(self) -> Mapping[str, int]:
        return self._ids

    def add(self, tokens: Sequence[str]) -> int:
        """Index one document; returns its number."""
        return self.add_ids(list(map(self._ids.__getitem__, tokens)))

    def add_ids(self, term_ids: Sequence[int]) -> int:
        """Index one document given as term ids from ``vocabulary``; returns its number."""
        doc = len(self._lengths)
        frequencies = Counter(term_ids)
        self._terms.fromlist(list(frequencies))
        self._tfs.fromlist(list(frequencies.values()))
        self._docs.fromlist([doc] * len(frequencies))
        self._lengths.append(len(term_ids))
        return doc

    def build(self, *, k1: float = K1, b: float = B, epsilon: float = EPSILON) -> BM25Index:
        index = BM25Index.__new__(BM25Index)
        index._init_from(self, k1=k1, b=b, epsilon=epsilon)
        self.__init__(self._ids)  # the arrays now belong to the index
        return index


class BM25Index:
    """An immutable BM25Okapi index over pre-tokenised documents.

    ``BM25Index(token_lists).scores(query)`` equals ``BM25Okapi(token_lists).get_scores(query)``
    element for element.
    """

    def __init__(
        self,
        token_lists: Iterable[Sequence[str]],
        *,
        k1: float = K1,
        b: float = B,
        epsilon: float = EPSILON,
    ) -> None:
        builder = BM25Builder()
        for tokens in token_lists:
            builder.add(tokens)
        self._init_from(builder, k1=k1, b=b, epsilon=epsilon)

    def _init_from(self, builder: BM25Builder, *, k1: float, b: float, epsilon: float) -> None:
        self.k1, self.b, self.epsilon = k1, b, epsilon
        self.vocabulary: Mapping[str, int] = dict(builder._ids)
        terms = np.frombuffer(builder._terms, dtype=np.intc)
        docs = np.frombuffer(builder._docs, dtype=np.intc)
        tfs = np.frombuffer(builder._tfs, dtype=np.intc)
        self.doc_len = np.frombuffer(builder._lengths, dtype=np.int64)
        self.corpus_size = len(self.doc_len)
        total_length = int(self.doc_len.sum())
        self.avgdl = total_length / self.corpus_size if self.corpus_size else 0.0

        document_frequency = np.bincount(terms, minlength=len(self.vocabulary))
        self.idf, self.average_idf = _okapi_idf(
            document_frequency.tolist(), self.corpus_size, epsilon
        )
        # Every weight positive (any corpus but the tiniest): scores > 0 marks the matches.
        self.idf_positive = bool((self.idf > 0).all())

        order = np.argsort(terms, kind="stable")
        self._indptr = np.zeros(len(self.vocabulary) + 1, dtype=np.int64)
        np.cumsum(document_frequency, out=self._indptr[1:])
        self._docs = docs[order]
        self._weights = np.empty(len(order), dtype=np.float64)
        if self.avgdl:
            # Same expression, same operation order as rank-bm25's get_scores.
            length_norm = k1 * (1 - b + b * self.doc_len / self.avgdl)
            for start in range(0, len(order), _WEIGHT_BLOCK):
                block = order[start : start + _WEIGHT_BLOCK]
                tf = tfs[block].astype(np.int64)
                ratio = tf * (k1 + 1) / (tf + length_norm[docs[block]])
                self._weights[start : start + len(block)] = self.idf[terms[block]] * ratio

    def __len__(self) -> int:
        return self.corpus_size

    def postings(self, token: str) -> tuple[np.ndarray, np.ndarray]:
        """Documents containing ``token`` (ascending) and the token's BM25 weight in each."""
        term = self.vocabulary.get(token)
        if term is None:
            return _NO_DOCS, _NO_WEIGHTS
        start, end = self._indptr[term], self._indptr[term + 1]
        return self._docs[start:end], self._weights[start:end]

    def document_frequency(self, token: str) -> int:
        term = self.vocabulary.get(token)
        return 0 if term is None else int(self._indptr[term + 1] - self._indptr[term])

    def weight(self, token: str, tf: int, doc: int) -> float:
        """The BM25Okapi contribution of ``token`` occurring ``tf`` times in document ``doc``."""
        term = self.vocabulary.get(token)
        if term is None or not self.avgdl:
            return 0.0
        length_norm = self.k1 * (1 - self.b + self.b * self.doc_len[doc] / self.avgdl)
        return float(self.idf[term] * (tf * (self.k1 + 1) / (tf + length_norm)))

    def scores(self, query_tokens: Iterable[str]) -> np.ndarray:
        """BM25Okapi score of every document, terms added in query order as rank-bm25 does."""
        scores = np.zeros(self.corpus_size, dtype=np.float64)
        untouched = True
        for token in query_tokens:
            docs, weights = self.postings(token)
            if untouched and len(docs):
                scores[docs] = weights  # 0.0 + w is w: skipping the read changes no bit
                untouched = False
            else:
                scores[docs] += weights
        return scores

    def matches(self, query_tokens: Iterable[str]) -> np.ndarray:
        """Which documents contain at least one query token (a score can be 0 or negative)."""
        found = np.zeros(self.corpus_size, dtype=bool)
        for token in set(query_tokens):
            found[self.postings(token)[0]] = True
        return found

    def top_k(self, query_tokens: Sequence[str], k: int) -> list[tuple[int, float]]:
        """The ``k`` best documents containing a query token, as (document, score), best
        first, ties broken by document number."""
        scores = self.scores(query_tokens)
        candidates = np.flatnonzero(self.matches(query_tokens))
        return [(int(doc), float(scores[doc])) for doc in top_k(scores, k, candidates=candidates)]


_NO_DOCS = np.zeros(0, dtype=np.intc)
_NO_WEIGHTS = np.zeros(0, dtype=np.float64)


def _okapi_idf(
    document_frequency: list[int], corpus_size: int, epsilon: float
) -> tuple[np.ndarray, float]:
    """rank-bm25's idf: sums raw idfs in term order, then floors only the negative ones."""
    raw = [math.log(corpus_size - df + 0.5) - math.log(df + 0.5) for df in document_frequency]
    if not raw:
        return np.zeros(0, dtype=np.float64), 0.0
    idf_sum = 0.0
    for value in raw:
        idf_sum += value
    average_idf = idf_sum / len(raw)
    idf = np.array(raw, dtype=np.float64)
    idf[idf < 0] = epsilon * average_idf
    return idf, average_idf


def top_k(
    scores: np.ndarray,
    k: int,
    *,
    candidates: np.ndarray | None = None,
    tiebreak: np.ndarray | None = None,
) -> np.ndarray:
    """Indices of the ``k`` highest scores, best first; equal scores ordered by ``tiebreak``
    (default: the index), so the same query always lists papers in the same order.

    ``candidates`` restricts the choice (e.g. to documents that passed the filters). A
    partial sort finds the k-th best score; everything scoring at least that much is then
    fully ordered, so ties at the cut are settled by ``tiebreak`` too, not by the partition.
    """
    values = scores if candidates is None else scores[candidates]
    size = len(values)
    if k <= 0 or size == 0:
        return np.zeros(0, dtype=np.int64)
    if k < size:
        kth = values[np.argpartition(values, size - k)[size - k :]].min()
        chosen = np.flatnonzero(values >= kth)
    else:
        chosen = np.arange(size)
    docs = chosen if candidates is None else np.asarray(candidates)[chosen]
    keys = docs if tiebreak is None else tiebreak[docs]
    return docs[np.lexsort((keys, -scores[docs]))][:k]
