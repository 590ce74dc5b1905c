"""The pruned ranking: a page of the best BM25 documents without scoring every posting.

Full scoring (``FieldedBM25.scores``) adds every posting of every query term into a score per
document, field by field, then sorts the matches. That is simple and, on this machine, as fast
as anything up to about a hundred thousand documents (``bench/results/pruning.md``), so the ranker
uses this module only for corpora of ``bot.search.ranker.PRUNING_MIN_PAPERS`` papers or more.
Above that, a common query word has hundreds of thousands of postings, and almost none of
their documents can reach the page. This module finds the ones that can, and scores only
those. The answer is the same as full scoring's, document for document, in the same order,
with bit-identical scores: the tests compare the two through ``SearchIndex.search``.

A document's score is a weighted sum of its fields' BM25 scores (``bot.search.fielded``), so
the pruning works on *terms* that are (field, token) pairs: a token of the query is one term
per field that holds it, each weighing the field's weight times its BM25 weight there. The
bounds below are over those weighted terms; the exact scores are each field's, summed in
query order and weighted as full scoring does.

The idea, in order:

1. **A floor θ for the k-th best score.** The rarest query term's highest-weighted
   documents (``leaders``: its top ``_SAMPLE`` postings by code) are scored exactly. The
   k-th best of those scores is θ: at least k documents score θ or more, so the k-th best
   overall is at least θ, and a document scoring below θ cannot make the page.

2. **Shares of θ per term.** A document's score is the sum of its terms' weights. If, for
   every query term, its weight is below that term's *share* of θ (shares summing to θ),
   its score is below θ. So only documents holding at least one term at or above that term's
   share are candidates. Weights follow a posting's *code* (``bm25``: codes are numbered in
   the order of the (tf, length) ratio they stand for, in each field), so "weight at least the
   share" is "code at least some code", a comparison of small integers over a term's postings.

3. **Choosing the shares** (``_PrunedQuery.candidates``). All of θ on one term is best when
   that term alone can carry it (its highest weight reaches θ): its postings reaching θ are
   few. Otherwise θ is split across terms by a Lagrangian search (``_balanced``) that trades
   score share against candidate count, read off each frequent term's *sketch* (its codes
   at ranks about 10% apart, so "how many postings reach this code" is a binary search).
   Bounds carry a relative slack (``_SLACK``) far above float64 rounding, so rounding can
   never exclude a document that ties the k-th score.

4. **Giving up when it does not pay.** A query whose candidates would cost more to look up
   than scoring every posting (the budget compares the two, ``_LOOKUP_COST`` against
   ``_DENSE_COST``) returns None, and the caller scores in full. So does a corpus so small
   that some idf is not positive (rank-bm25 floors negative idfs, which breaks the bounds).

5. **Scoring the candidates exactly, in query order** (``exact_scores``), the same
   floating-point additions, field by field, and the same weighting as full scoring, so a
   candidate's score is bit-identical. Large
   candidate sets are first thinned term by term (``contenders``): after each term, those
   whose score so far plus the remaining terms' bounds cannot reach θ are dropped. Looking a
   candidate up in a term's postings uses whichever is cheapest: the term's code per
   document (terms in most documents), its bitmap (``bot.search.paper_sets.Bitmap``, terms
   in 1/16 of the documents or more), a binary search, or a pass over the postings against
   a map of the candidates (``_Lookup``).

6. **Counting the matches** (``matching_documents``), since the reply says how many papers
   matched: the frequent terms' bitmaps or-ed together, plus the rarer terms' documents
   outside them.

The tables this needs beyond the index (each term's highest code, bitmaps of frequent
terms, sketches of terms in many documents) are built by ``PrunedRanking`` from the
index's posting arrays, once, and only for a corpus that uses them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bot.search.bm25 import _NO_DOCS, _NO_WEIGHTS, BM25Index, top_k
from bot.search.fielded import FieldedBM25
from bot.search.paper_sets import Bitmap, Probe, bits_of, distinct

Term = tuple[int, int]
"""A weighted term: (field number, the token's term id in that field)."""

_SAMPLE = 512  # documents of the rarest term scored first, to know how high the k-th goes
_SLACK = 1e-9  # relative margin on pruning bounds, far above float64 rounding
_FEW_CONTENDERS = 1024  # candidates scored at once; more are first thinned term by term
_SMALL_QUERY = 1024  # candidates always worth scoring one by one, whatever the postings
_BITMAP_SHARE = 16  # a term in at least 1/16 of the documents has a bitmap
_SKETCHED = 1024  # a term in more documents has its codes sampled by rank; fewer are scanned
# The ranks (1 = highest code) a sketch samples: about 10% apart, so a count read off a
# sketch is at most ~10% above the true one.
_SKETCH_RANKS = np.unique(np.ceil(1.1 ** np.arange(240)).astype(np.int64))
_PRICES = np.geomspace(1e-1, 1e7, 24)  # of a unit of score in candidates, tried by _balanced
# A binary search per candidate costs about _PROBE_COST posting reads; marking the candidates
# in a map of every document costs _MARKING_COST reads more (measured at 300k documents).
_PROBE_COST = 16
_MARKING_COST = 8000
# In the full scoring, a dense term's gather-and-add costs _DENSE_COST of a posting's
# scattered add per document (bench/results/pruning.md); pruning budgets a candidate's
# lookup in one term at _LOOKUP_COST posting adds.
_DENSE_COST = 0.25
_LOOKUP_COST = 2
_EVERY = slice(None)


class PrunedRanking:
    """The pruned ranking over one index, with the tables it needs (built here, once)."""

    def __init__(self, index: FieldedBM25) -> None:
        self.index = index
        self.top_code: list[np.ndarray] = []
        self.bitmaps: dict[Term, Bitmap] = {}
        self.sketches: dict[Term, np.ndarray] = {}
        for number, field in enumerate(index.fields):
            document_frequency = np.diff(field._indptr)
            codes = field._codes
            # Each term's highest code: the upper bound of its weight.
            top_code = np.zeros(len(field.vocabulary), dtype=codes.dtype)
            present = np.flatnonzero(document_frequency)
            if len(present):
                top_code[present] = np.maximum.reduceat(codes, field._indptr[present])
            self.top_code.append(top_code)
            # Frequent terms get a bitmap: 1.5 bits a document, at most
            # half of what the term's postings take (48 bits each, in 1/16 of the documents).
            frequent = np.flatnonzero(document_frequency * _BITMAP_SHARE >= index.corpus_size)
            for term in frequent.tolist():
                docs = field._docs[field._indptr[term] : field._indptr[term + 1]]
                self.bitmaps[number, term] = Bitmap(docs, index.corpus_size)
            # Terms in many documents get their codes at ``_SKETCH_RANKS`` (ascending), so
            # how many postings reach a weight, or which code the n-th highest has, is a
            # binary search rather than a pass over the postings (a sort per query costs more
            # than it saves).
            for term in np.flatnonzero(document_frequency > _SKETCHED).tolist():
                term_codes = codes[field._indptr[term] : field._indptr[term + 1]]
                self.sketches[number, term] = _sketch(term_codes)

    def best(
        self, query_tokens: Sequence[str], k: int, tiebreak: np.ndarray | None = None
    ) -> Ranking | None:
        """What ``top_k`` over ``FieldedBM25.scores`` gives for the matching documents (the
        same documents, order and bit-identical scores) plus how many documents match, scoring
        only the few that can make the cut.

        A document whose weight for every query term is below that term's share of a score
        ``θ`` scores below θ. So once θ is known to be at most the k-th best score, only the
        postings weighing at least their term's share need scoring, and as codes follow the
        ratio, finding them is a comparison of small integers rather than a scattered add per
        posting. θ is the k-th best score among the rarest term's highest-weighted documents
        (the likeliest to score high). None when that does not pay: idfs that are not all
        positive (a tiny corpus), no term in k documents, or a query whose candidates would
        cost more to look up than scoring every posting."""
        if k <= 0 or not self.index.idf_positive:
            return None
        query = _PrunedQuery(self, query_tokens)
        if not query.terms:
            return Ranking(_NO_DOCS, _NO_WEIGHTS, 0)
        single_term = len(query.terms) == 1  # then its k highest codes are the answer
        candidates = query.leaders(k, k if single_term else max(k, _SAMPLE))
        if candidates is None:
            return None
        scores = query.exact_scores(candidates)
        if not single_term:
            theta = float(np.partition(scores, len(scores) - k)[len(scores) - k])
            leaders, candidates = candidates, query.candidates(theta, candidates)
            if candidates is None:
                return None
            if candidates is not leaders:  # else every candidate is scored already
                if len(candidates.docs) > _FEW_CONTENDERS:
                    candidates = query.contenders(candidates, theta)
                scores = query.exact_scores(candidates)
        docs = candidates.docs
        chosen = top_k(scores, k, tiebreak=None if tiebreak is None else tiebreak[docs])
        return Ranking(docs[chosen], scores[chosen], query.matching_documents())


@dataclass(frozen=True)
class Ranking:
    """The best documents of a query, best first, their scores, and how many matched."""

    docs: np.ndarray
    scores: np.ndarray
    total: int


@dataclass(frozen=True, eq=False)
class _Candidates:
    """Documents to score, sorted, with the weights already read for some terms, one per
    candidate (0.0 where it lacks the term: adding 0.0 changes no score), so no term is
    looked up twice."""

    docs: np.ndarray
    known: dict[Term, np.ndarray]
    # (term, code) when these are exactly the documents whose term reaches that code.
    selected_by: tuple[Term, int] | None = None

    def __getitem__(self, kept: np.ndarray) -> _Candidates:
        return _Candidates(self.docs[kept], {t: w[kept] for t, w in self.known.items()})

    def knowing(self, term: Term, weights: np.ndarray) -> _Candidates:
        return _Candidates(self.docs, {**self.known, term: weights})


class _PrunedQuery:
    """One query's terms, their bounds and the candidate sets of ``PrunedRanking.best``.

    A term is a (field, token) pair (``Term``); its weight in a document is the field's
    weight times the token's BM25 weight in the document's field, and every bound is in
    those units. Bounds carry a relative slack far above float64 rounding, so a document is
    only ever left out when even a rounded sum of its weights could not reach θ.
    """

    def __init__(self, ranking: PrunedRanking, query_tokens: Sequence[str]) -> None:
        index = ranking.index
        self._fields = index.fields
        self._field_weights = index.weights
        self._corpus_size = index.corpus_size
        self._tables = ranking
        # Each field's terms in query order, repeats included, as full scoring adds them.
        self._sequences = [
            [term for term in map(field.vocabulary.get, query_tokens) if term is not None]
            for field in index.fields
        ]
        repeats = Counter(
            (number, term) for number, terms in enumerate(self._sequences) for term in terms
        )
        self.terms = list(repeats)
        # What a term's weight counts for in a score, per unit of its BM25 weight.
        self._scale = {t: repeats[t] * index.weights[t[0]] for t in self.terms}
        self._per_ratio = {t: self._scale[t] * float(self._field(t).idf[t[1]]) for t in self.terms}
        self._bounds = {
            t: self._per_ratio[t] * float(self._field(t)._ratio[ranking.top_code[t[0]][t[1]]])
            for t in self.terms
        }
        self.ceiling = sum(self._bounds.values())
        self._slack = self.ceiling * _SLACK
        self._postings = {
            t: (int(self._field(t)._indptr[t[1]]), int(self._field(t)._indptr[t[1] + 1]))
            for t in self.terms
        }
        # A candidate costs a lookup per term; the full scoring costs an add per posting, or
        # a gather and add per document for a term in most documents.
        full = sum(
            self._corpus_size * _DENSE_COST
            if t[1] in self._field(t)._dense_codes
            else self._length(t)
            for t in self.terms
        )
        self._budget = max(int(full / (max(len(self.terms), 1) * _LOOKUP_COST)), _SMALL_QUERY)

    def _field(self, term: Term) -> BM25Index:
        return self._fields[term[0]]

    def _selected(self, term: Term, code: int) -> _Candidates:
        """The documents whose ``term`` has at least ``code``, with their weights for it."""
        field = self._field(term)
        start, end = self._postings[term]
        codes = field._codes[start:end]
        chosen = np.flatnonzero(codes >= code)
        weights = field._weights(term[1], np.take(codes, chosen))
        docs = np.take(field._docs[start:end], chosen)
        return _Candidates(docs, {term: weights}, selected_by=(term, code))

    def leaders(self, least: int, count: int) -> _Candidates | None:
        """About ``count`` documents of the rarest query term holding at least ``least`` (or
        of the only term), its highest weights first (with every document at the cut's code);
        None when no term is that frequent."""
        frequent_enough = [t for t in self.terms if self._length(t) >= least]
        if len(self.terms) == 1:
            frequent_enough = self.terms
        if not frequent_enough:
            return None
        term = min(frequent_enough, key=self._length)
        return self._selected(term, self._cut(term, count))

    def _cut(self, term: Term, count: int) -> int:
        """A code that about ``count`` of ``term``'s postings reach (at least ``count``,
        unless the term has fewer)."""
        length = self._length(term)
        if length <= count:
            return 0
        sketch = self._tables.sketches.get(term)
        if sketch is None:
            start, end = self._postings[term]
            codes = self._field(term)._codes[start:end]
            return int(np.partition(codes, length - count)[length - count])
        rank = int(np.searchsorted(_SKETCH_RANKS[: len(sketch)], count))
        return 0 if rank == len(sketch) else int(sketch[len(sketch) - 1 - rank])

    def _first_code(self, term: Term, share: float) -> int:
        """The lowest code whose weight for ``term`` may reach ``share``."""
        ratio = share / self._per_ratio[term] * (1 - _SLACK)
        return int(np.searchsorted(self._field(term)._ratio, ratio))

    def _length(self, term: Term) -> int:
        start, end = self._postings[term]
        return end - start

    def _count(self, term: Term, code: int) -> int:
        """How many of ``term``'s postings reach ``code``, or (from a sketch) slightly more."""
        sketch = self._tables.sketches.get(term)
        if sketch is None:
            start, end = self._postings[term]
            return int(np.count_nonzero(self._field(term)._codes[start:end] >= code))
        reached = len(sketch) - int(np.searchsorted(sketch, code))
        if reached == len(sketch):
            return self._length(term)
        return int(_SKETCH_RANKS[reached]) - 1 if reached else 0

    def candidates(self, theta: float, leaders: _Candidates) -> _Candidates | None:
        """Every document that may score at least ``θ`` (``leaders`` itself when they hold
        them all); None if too many.

        θ is split into term shares, a document being a candidate when one of its weights
        reaches its term's share. Preferably all of θ goes to one term, every other term's
        share above its bound (the term whose qualifying postings are fewest); when no single
        term can carry it within the budget, θ is also split in proportion to the bounds and
        by ``_balanced``, and the split with the fewest candidates wins."""
        reachable = theta - self._slack
        target = reachable - len(self.terms) * self._slack
        options = []
        for term, bound in self._bounds.items():
            share = target - (self.ceiling - bound)
            if share > 0:
                code = self._first_code(term, share)
                options.append((self._count(term, code), {term: code}))
        if not options or min(size for size, _ in options) > self._budget:
            shares = {
                t: self._first_code(t, reachable * bound / self.ceiling)
                for t, bound in self._bounds.items()
            }
            options.append((sum(map(self._count, shares, shares.values())), shares))
            options.append(self._balanced(target))
        size, allocation = min(options, key=lambda option: option[0])
        if size > self._budget:
            return None
        if leaders.selected_by is not None and len(allocation) == 1:
            term, cut = leaders.selected_by
            if allocation.get(term, -1) >= cut:
                return leaders
        parts = [self._selected(term, code) for term, code in allocation.items()]
        if len(parts) == 1:
            return parts[0]
        merged = np.sort(np.concatenate([part.docs for part in parts]))
        return _Candidates(merged[np.concatenate(([True], merged[1:] != merged[:-1]))], {})

    def _balanced(self, target: float) -> tuple[float, dict[Term, int]]:
        """The split of θ with the fewest candidates that a Lagrangian search finds.

        Each term offers (share, count) points: its bound with no postings, or the weight at
        each sketched rank with the postings reaching it. For a price λ per unit of share,
        each term takes the point of least ``count + λ·share``; over a grid of prices, the
        cheapest choice whose shares add up to at most ``target`` wins."""
        points = [self._points(term) for term in self.terms]
        width = max(len(shares) for shares, _ in points)
        shares = np.full((len(points), width), np.inf)
        counts = np.full((len(points), width), np.inf)
        for row, (term_shares, term_counts) in enumerate(points):
            shares[row, : len(term_shares)] = term_shares
            counts[row, : len(term_counts)] = term_counts
        choice = (counts + _PRICES[:, None, None] * shares).argmin(axis=2)
        rows = np.arange(len(points))
        total = counts[rows, choice].sum(axis=1)
        total[shares[rows, choice].sum(axis=1) > target] = np.inf
        best = int(total.argmin())
        allocation = {
            term: self._first_code(term, float(shares[row, choice[best, row]]))
            for row, term in enumerate(self.terms)
            if choice[best, row]
        }
        return float(total[best]), allocation

    def _points(self, term: Term) -> tuple[np.ndarray, np.ndarray]:
        """Shares ``term`` may take (its bound, its weights at ``_SKETCH_RANKS``, then 0) and
        how many of its postings reach each, at most."""
        field = self._field(term)
        sketch = self._tables.sketches.get(term)
        length = self._length(term)
        if sketch is None:  # few postings: their codes sorted, and the counts exact
            start, end = self._postings[term]
            codes = np.sort(field._codes[start:end])
            at_ranks = codes[
                length - _SKETCH_RANKS[: np.searchsorted(_SKETCH_RANKS, length, "right")]
            ]
            counts = length - np.searchsorted(codes, at_ranks)
        else:  # a rank's code is reached by the postings up to the first rank below it
            at_ranks = sketch[::-1]
            reached = len(sketch) - np.searchsorted(sketch, at_ranks)
            ranks = np.append(_SKETCH_RANKS[: len(sketch)][1:] - 1, length)
            counts = ranks[reached - 1]
        shares = field._ratio[at_ranks[::2]] * self._per_ratio[term]  # every other: enough
        return (
            np.concatenate(([self._bounds[term]], shares, [0.0])),
            np.concatenate(([0], counts[::2], [length])),
        )

    def exact_scores(self, candidates: _Candidates) -> np.ndarray:
        """The candidates' scores as ``FieldedBM25.scores`` computes them: each field's
        weights added in query order, times the field's weight, the fields added in order."""
        lookup = _Lookup(self, candidates)
        total = np.zeros(len(candidates.docs), dtype=np.float64)
        for number, sequence in enumerate(self._sequences):
            found = {term: lookup.weights((number, term)) for term in set(sequence)}
            scores = np.zeros(len(candidates.docs), dtype=np.float64)
            for term in sequence:
                hits, weights = found[term]
                scores[hits] += weights
            scores *= self._field_weights[number]
            total = scores if number == 0 else total + scores
        return total

    def contenders(self, candidates: _Candidates, theta: float) -> _Candidates:
        """The candidates that can still reach ``θ``: starting from the weights already
        known, the other terms' weights are read, heaviest bound first, and a candidate whose
        weights so far plus the bounds of the terms still unread fall short of θ is dropped
        before the next term is read. (The known weights alone drop nothing: they are what
        selected the candidates.)"""
        floor = theta - self._slack
        partial = np.zeros(len(candidates.docs), dtype=np.float64)
        unread = self.ceiling
        for term, weights in candidates.known.items():
            partial += weights * self._scale[term]
            unread -= self._bounds[term]
        unknown = [t for t in self.terms if t not in candidates.known]
        for term in sorted(unknown, key=self._bounds.__getitem__, reverse=True)[:-1]:
            weights = _Lookup(self, candidates).dense(term)
            candidates = candidates.knowing(term, weights)
            partial += weights * self._scale[term]
            unread -= self._bounds[term]
            keep = np.flatnonzero(partial + unread >= floor)
            candidates, partial = candidates[keep], partial[keep]
        return candidates

    def matching_documents(self) -> int:
        """How many documents hold a query term: the frequent terms' bitmaps or-ed together,
        plus the other terms' documents outside them, each counted once."""
        if len(self.terms) == 1:
            return self._length(self.terms[0])
        size = self._corpus_size
        rare = []
        frequent = []
        for term in self.terms:
            bitmap = self._tables.bitmaps.get(term)
            if bitmap is None:
                start, end = self._postings[term]
                rare.append(self._field(term)._docs[start:end])
            else:
                frequent.append(bitmap.words)
        if not frequent:
            return distinct(rare, size)
        union = frequent[0].copy() if len(frequent) > 1 else frequent[0]
        for words in frequent[1:]:
            union |= words
        if len(rare) > 1:
            union = union | Bitmap.of(rare, size)
            rare = []
        outside = sum(len(docs) - int(np.count_nonzero(bits_of(union, docs))) for docs in rare)
        return int(np.bitwise_count(union).sum()) + outside


def _sketch(codes: np.ndarray) -> np.ndarray:
    """The codes at ``_SKETCH_RANKS`` (rank 1 the highest), ascending."""
    descending = np.sort(codes)[::-1]
    ranks = _SKETCH_RANKS[: np.searchsorted(_SKETCH_RANKS, len(codes), side="right")]
    return descending[ranks - 1][::-1].copy()


class _Lookup:
    """Finds a set of candidates in one term's postings after another, by code per document,
    bitmap, binary search or a map of the candidates, whichever is cheapest at hand."""

    def __init__(self, query: _PrunedQuery, candidates: _Candidates) -> None:
        self._query = query
        self._candidates = candidates
        self._marked: np.ndarray | None = None
        self._probe: Probe | None = None

    def dense(self, term: Term) -> np.ndarray:
        """``term``'s weight in each candidate, 0.0 where it is absent."""
        hits, weights = self.weights(term)
        dense = np.zeros(len(self._candidates.docs), dtype=np.float64)
        dense[hits] = weights
        return dense

    def weights(self, term: Term) -> tuple[np.ndarray | slice, np.ndarray]:
        """Which candidates (indices, or all of them) hold ``term``, and its BM25 weight in
        each (in its field, unweighted)."""
        known = self._candidates.known.get(term)
        if known is not None:
            return _EVERY, known
        candidates = self._candidates.docs
        field, term_id = self._query._field(term), term[1]
        dense_codes = field._dense_codes.get(term_id)
        if dense_codes is not None:  # a gather of codes, the absent ones past the last
            codes = np.take(dense_codes, candidates)
            hits = np.flatnonzero(codes != len(field._ratio))
            return hits, field._weights(term_id, np.take(codes, hits))
        start, end = self._query._postings[term]
        docs = field._docs[start:end]
        bitmap = self._query._tables.bitmaps.get(term)
        if bitmap is not None:
            self._probe = self._probe or Probe(candidates)
            hits, positions = bitmap.find(self._probe)
        elif len(candidates) * _PROBE_COST < _MARKING_COST + len(docs):
            positions = np.searchsorted(docs, candidates)
            positions[positions == len(docs)] = 0
            hits = np.flatnonzero(docs[positions] == candidates)
            positions = positions[hits]
        else:  # many candidates: read the whole posting list once instead of probing
            if self._marked is None:
                self._marked = np.zeros(field.corpus_size, dtype=bool)
                self._marked[candidates] = True
            positions = np.flatnonzero(np.take(self._marked, docs))
            hits = np.searchsorted(candidates, docs[positions])
        return hits, field._weights(term_id, np.take(field._codes[start:end], positions))
