"""BM25Okapi scores, exactly as rank-bm25 computes them, without its per-query corpus walk.

rank-bm25's ``get_scores`` rebuilds, for every query term, a Python list over all documents;
at 300k abstracts that is hundreds of milliseconds. Here each term's posting list is a slice
of numpy arrays, and a query adds its terms' weights into a float64 score vector in query
order. A weight is ``idf * ratio`` where the ratio, ``tf·(k1+1) / (tf + k1·(1-b+b·dl/avgdl))``,
depends only on the term frequency and the document length; the few thousand distinct
(tf, length) pairs of a corpus each get their ratio computed once, and a posting stores a
2-byte code for its pair instead of an 8-byte weight (a term in most documents also keeps a
code per document, so adding it is a gather rather than a scatter). Ratios, weights and the
idf (with its average-idf floor, summed in the same first-seen term order) are computed with
the same floating-point operations, in the same order, as rank-bm25's expression, so the
scores are bit-identical to ``BM25Okapi(...).get_scores``. ``best`` finds a page of top documents
without scoring every posting: codes are numbered in weight order, so the postings that can
matter are found by comparing codes, and only those documents are scored, in query order.

rank-bm25's quirks are kept on purpose because the scores must equal its own: only negative
idfs are floored (to ``epsilon`` times the mean idf, which can itself be negative in corpora of
1 to 3 documents), and a repeated query token counts once per repetition.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import count

import numpy as np

K1 = 1.5
B = 0.75
EPSILON = 0.25

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
# scattered add per document (1.9 ns against 7-10 ns at 300k); pruning budgets a candidate's
# lookup in one term at _LOOKUP_COST posting adds.
_DENSE_COST = 0.25
_LOOKUP_COST = 2

_BLOCK = 1 << 19  # postings per vectorised step while building: bounds the peak memory
_DENSE_SHARE = 2.5  # a term in over 1/2.5 of the documents also has a code per document
_MAX_PAIR_GRID = 1 << 24  # (tf, length) cells marked directly; beyond, pairs are sorted


class BM25Builder:
    """Accumulates documents one at a time, so a caller can stream a large corpus without
    holding every token list. Term ids follow first occurrence, like rank-bm25's ``nd`` dict,
    whose order its average idf is summed in."""

    def __init__(self) -> None:
        self._ids: defaultdict[str, int] = defaultdict(count().__next__)
        self._terms = array("i")
        self._tfs = array("H")  # widened to "I" if a term ever occurs 65,536 times in one
        self._unique = array("i")  # distinct terms per document
        self._lengths = array("q")

    def add(self, tokens: Sequence[str]) -> int:
        """Index one document; returns its number."""
        frequencies = Counter(tokens)
        self._terms.fromlist(list(map(self._ids.__getitem__, frequencies)))
        try:
            self._tfs.fromlist(list(frequencies.values()))
        except OverflowError:
            self._tfs = array("I", self._tfs)
            self._tfs.fromlist(list(frequencies.values()))
        self._unique.append(len(frequencies))
        self._lengths.append(len(tokens))
        return len(self._lengths) - 1

    def terms(self, tokens: Iterable[str]) -> list[int]:
        """The numbers of ``tokens``, numbering new tokens in the order they are first asked
        for (which must be the order they first occur in the corpus)."""
        return list(map(self._ids.__getitem__, tokens))

    def add_chunked(
        self,
        chunk_starts: np.ndarray,
        chunk_terms: np.ndarray,
        occurrences: np.ndarray,
        documents: np.ndarray,
        count: int,
    ) -> None:
        """Index ``count`` documents given as chunk numbers, counting their terms in numpy
        rather than token by token in Python: chunk ``c`` stands for the terms
        ``chunk_terms[chunk_starts[c]:chunk_starts[c + 1]]``, and ``occurrences[i]`` is a
        chunk of document ``documents[i]`` (0 to ``count - 1``, in any order). A document is
        the same bag of terms as ``add`` of its chunks' tokens."""
        sizes = chunk_starts[occurrences + 1] - chunk_starts[occurrences]
        lengths = np.bincount(documents, weights=sizes, minlength=count)
        ends = np.cumsum(sizes)
        positions = np.repeat(chunk_starts[occurrences] - (ends - sizes), sizes)
        positions += np.arange(int(ends[-1]) if len(ends) else 0)
        width = len(self._ids)
        keys = np.repeat(documents * width, sizes) + chunk_terms[positions]
        keys, tfs = np.unique(keys, return_counts=True)  # by document, then term
        self._terms.frombytes((keys % width).astype(np.intc).tobytes())
        if self._tfs.itemsize == 2 and len(tfs) and tfs.max() > np.iinfo(np.uint16).max:
            self._tfs = array("I", self._tfs)
        tf_type = np.uint16 if self._tfs.itemsize == 2 else np.uint32
        self._tfs.frombytes(tfs.astype(tf_type).tobytes())
        unique = np.bincount(keys // width, minlength=count)
        self._unique.frombytes(unique.astype(np.intc).tobytes())
        self._lengths.frombytes(lengths.astype(np.int64).tobytes())

    def build(self, *, k1: float = K1, b: float = B, epsilon: float = EPSILON) -> BM25Index:
        index = BM25Index.__new__(BM25Index)
        index._init_from(self, k1=k1, b=b, epsilon=epsilon)
        self.__init__()  # the arrays now belong to the index
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
        builder._ids.default_factory = None  # the index now owns it, as a plain mapping
        self.vocabulary: Mapping[str, int] = builder._ids
        terms = np.frombuffer(builder._terms, dtype=np.intc)
        tfs = np.frombuffer(
            builder._tfs, dtype=np.uint16 if builder._tfs.itemsize == 2 else np.uint32
        )
        self.doc_len = np.frombuffer(builder._lengths, dtype=np.int64).copy()
        self.corpus_size = len(self.doc_len)
        self.avgdl = int(self.doc_len.sum()) / self.corpus_size if self.corpus_size else 0.0
        # Counted block by block: np.bincount copies its input to 8-byte integers, which
        # for every posting at once would be the build's peak.
        document_frequency = np.zeros(len(self.vocabulary), dtype=np.int64)
        for start in range(0, len(terms), _BLOCK):
            document_frequency += np.bincount(
                terms[start : start + _BLOCK], minlength=len(self.vocabulary)
            )
        self.idf, self.average_idf = _okapi_idf(
            document_frequency.tolist(), self.corpus_size, epsilon
        )
        # Every weight positive (any corpus but the tiniest): scores > 0 marks the matches.
        self.idf_positive = bool((self.idf > 0).all())
        self._indptr = np.zeros(len(self.vocabulary) + 1, dtype=np.int64)
        np.cumsum(document_frequency, out=self._indptr[1:])
        first_posting = np.zeros(self.corpus_size + 1, dtype=np.int64)
        np.cumsum(np.frombuffer(builder._unique, dtype=np.intc), out=first_posting[1:])
        # The document of every posting, which the builder did not store (4 bytes each).
        posting_docs = _BlockDocs(first_posting)
        pair_codes = _PairCodes(tfs, self.doc_len, posting_docs, self._ratio_of)
        self._ratio = pair_codes.ratios
        codes_dtype = pair_codes.dtype
        # Codes first, then documents: the term frequencies can go before the documents'
        # array is filled, so input and output never both hold 12 bytes a posting. The sort
        # leaves each posting's slot where its term was, so the documents need no second sort.
        self._codes = np.empty(len(terms), dtype=codes_dtype)
        slots = _sort_by_term(terms, self._indptr, self._codes, pair_codes)
        del terms, tfs, pair_codes
        builder._tfs = array("H")
        self._docs = np.empty(len(slots), dtype=np.intc)
        for start in range(0, len(slots), _BLOCK):
            end = min(start + _BLOCK, len(slots))
            self._docs[slots[start:end]] = posting_docs(start, end)
        del slots
        builder._terms = array("i")
        document_frequency = np.diff(self._indptr)
        # Each term's highest code: its weight's upper bound, for pruning in ``best``.
        self._top_code = np.zeros(len(self.vocabulary), dtype=codes_dtype)
        present = np.flatnonzero(document_frequency)
        if len(present):
            self._top_code[present] = np.maximum.reduceat(self._codes, self._indptr[present])
        # Frequent terms also get a bitmap, for pruned ranking: 1.5 bits a document, at most
        # half of what the term's postings take (48 bits each, in 1/16 of the documents).
        frequent = np.flatnonzero(document_frequency * _BITMAP_SHARE >= self.corpus_size)
        self._bitmaps = {
            term: _Bitmap(self._docs[self._indptr[term] : self._indptr[term + 1]], self.corpus_size)
            for term in frequent.tolist()
        }
        # Terms in most documents also get a code per document (one past the last code where
        # the term is absent): 2 bytes a document, so scoring them is one gather, no scatter.
        dense = np.flatnonzero(document_frequency * _DENSE_SHARE > self.corpus_size)
        absent = len(self._ratio)
        dense_type = np.uint16 if absent <= np.iinfo(np.uint16).max else np.uint32
        self._dense_codes: dict[int, np.ndarray] = {}
        for term in dense.tolist():
            start, end = self._indptr[term], self._indptr[term + 1]
            dense_codes = np.full(self.corpus_size, absent, dtype=dense_type)
            dense_codes[self._docs[start:end]] = self._codes[start:end]
            self._dense_codes[term] = dense_codes
        # Terms in many documents get their codes at ``_SKETCH_RANKS`` (ascending), so
        # how many postings reach a weight, or which code the n-th highest has, is a binary
        # search rather than a pass over the postings (radix sorts: 0.1 s at 300k documents).
        self._sketches = {
            term: _sketch(self._codes[self._indptr[term] : self._indptr[term + 1]])
            for term in np.flatnonzero(document_frequency > _SKETCHED).tolist()
        }

    def _ratio_of(self, tf: np.ndarray, length: np.ndarray) -> np.ndarray:
        """rank-bm25's ``q_freq * (k1 + 1) / (q_freq + k1 * (1 - b + b * doc_len / avgdl))``,
        operation for operation."""
        k1, b = self.k1, self.b
        if not self.avgdl:
            return np.zeros(len(tf), dtype=np.float64)
        return tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / self.avgdl))

    def __len__(self) -> int:
        return self.corpus_size

    def _slice(self, token: str) -> tuple[int, int, int] | None:
        term = self.vocabulary.get(token)
        if term is None:
            return None
        return term, int(self._indptr[term]), int(self._indptr[term + 1])

    def documents(self, token: str) -> np.ndarray:
        """Documents containing ``token``, ascending."""
        found = self._slice(token)
        return _NO_DOCS if found is None else self._docs[found[1] : found[2]]

    def postings(self, token: str) -> tuple[np.ndarray, np.ndarray]:
        """Documents containing ``token`` (ascending) and the token's BM25 weight in each."""
        found = self._slice(token)
        if found is None:
            return _NO_DOCS, _NO_WEIGHTS
        term, start, end = found
        codes = self._codes[start:end]
        if end - start > len(self._ratio):  # one weight per (tf, length) pair, then look up
            return self._docs[start:end], np.take(self._ratio * self.idf[term], codes)
        return self._docs[start:end], self._weights(term, codes)

    def _weights(self, term: int, codes: np.ndarray) -> np.ndarray:
        """``term``'s weight for each code: ratio * idf, the product every path computes, so
        whichever path scores a document, its score is the same bit for bit. (``np.take``
        gathers about twice as fast as fancy indexing.)"""
        weights = np.take(self._ratio, codes)
        weights *= self.idf[term]
        return weights

    @property
    def document_frequencies(self) -> np.ndarray:
        """How many documents hold each term, by term id (the vocabulary's values)."""
        return np.diff(self._indptr)

    def document_frequency(self, token: str) -> int:
        found = self._slice(token)
        return 0 if found is None else found[2] - found[1]

    def weight(self, token: str, tf: int, length: int) -> float:
        """The BM25Okapi contribution of ``token`` occurring ``tf`` times in a document of
        ``length`` tokens (a free text is weighed as if it were one more document)."""
        term = self.vocabulary.get(token)
        if term is None:
            return 0.0
        ratio = self._ratio_of(np.array([tf]), np.array([length]))
        return float(self.idf[term] * ratio[0])

    def scores(self, query_tokens: Iterable[str]) -> np.ndarray:
        """BM25Okapi score of every document, terms added in query order as rank-bm25 does."""
        tokens = list(query_tokens)
        repeated = {token: None for token, count in Counter(tokens).items() if count > 1}
        scores = np.zeros(self.corpus_size, dtype=np.float64)
        untouched = True
        for token in tokens:
            addend = repeated.get(token)  # a repeat reuses weights
            if addend is None:
                addend = self._addend(token)
                if token in repeated:
                    repeated[token] = addend
            if isinstance(addend, np.ndarray):  # every document's weight, 0.0 where absent
                scores += addend
                untouched = False
                continue
            docs, weights = addend
            if untouched and len(docs):
                scores[docs] = weights  # 0.0 + w is w: skipping the read changes no bit
                untouched = False
            else:
                scores[docs] += weights
        return scores

    def _addend(self, token: str) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """What ``token`` adds to the scores: for a term in most documents, a weight per
        document (0.0 where absent, which changes no score: a dense add beats a scattered
        read-add-write); else its postings."""
        term = self.vocabulary.get(token)
        dense_codes = None if term is None else self._dense_codes.get(term)
        if dense_codes is None:
            return self.postings(token)
        # The weights of the postings' path, ratio * idf bit for bit, and 0.0 for "absent".
        return np.take(np.append(self._ratio * self.idf[term], 0.0), dense_codes)

    def matches(self, query_tokens: Iterable[str]) -> np.ndarray:
        """Which documents contain at least one query token (a score can be 0 or negative)."""
        found = np.zeros(self.corpus_size, dtype=bool)
        for token in set(query_tokens):
            found[self.documents(token)] = True
        return found

    def best(
        self, query_tokens: Sequence[str], k: int, tiebreak: np.ndarray | None = None
    ) -> Ranking | None:
        """What ``top_k(scores(...), k)`` gives over the matching documents (the same
        documents, order and bit-identical scores) plus how many documents match, scoring
        only the few that can make the cut.

        A document whose weight for every query term is below that term's share of a score
        ``θ`` scores below θ. So once θ is known to be at most the k-th best score, only the
        postings weighing at least their term's share need scoring, and as codes follow the
        ratio, finding them is a comparison of small integers rather than a scattered add per
        posting. θ is the k-th best score among the rarest term's highest-weighted documents
        (the likeliest to score high). None when that does not pay: idfs that are not all
        positive (a tiny corpus), no term in k documents, or a query whose candidates would
        cost more to look up than scoring every posting."""
        if k <= 0 or not self.idf_positive:
            return None
        sequence = [term for term in map(self.vocabulary.get, query_tokens) if term is not None]
        if not sequence:
            return Ranking(_NO_DOCS, _NO_WEIGHTS, 0)
        query = _PrunedQuery(self, sequence)
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
    known: dict[int, np.ndarray]
    # (term, code) when these are exactly the documents whose term reaches that code.
    selected_by: tuple[int, int] | None = None

    def __getitem__(self, kept: np.ndarray) -> _Candidates:
        return _Candidates(self.docs[kept], {t: w[kept] for t, w in self.known.items()})

    def knowing(self, term: int, weights: np.ndarray) -> _Candidates:
        return _Candidates(self.docs, {**self.known, term: weights})


class _PrunedQuery:
    """One query's terms, their bounds and the candidate sets of ``BM25Index.best``.

    Bounds carry a relative slack far above float64 rounding, so a document is only ever
    left out when even a rounded sum of its weights could not reach θ.
    """

    def __init__(self, index: BM25Index, sequence: list[int]) -> None:
        self._index = index
        self._sequence = sequence
        repeats = self._repeats = Counter(sequence)
        self.terms = list(repeats)
        self._per_ratio = {t: repeats[t] * float(index.idf[t]) for t in self.terms}
        self._bounds = {
            t: self._per_ratio[t] * float(index._ratio[index._top_code[t]]) for t in self.terms
        }
        self.ceiling = sum(self._bounds.values())
        self._slack = self.ceiling * _SLACK
        self._postings = {t: (int(index._indptr[t]), int(index._indptr[t + 1])) for t in self.terms}
        # A candidate costs a lookup per term; the full scoring costs an add per posting, or
        # a gather and add per document for a term in most documents.
        full = sum(
            index.corpus_size * _DENSE_COST if t in index._dense_codes else self._length(t)
            for t in self.terms
        )
        self._budget = max(int(full / (len(self.terms) * _LOOKUP_COST)), _SMALL_QUERY)

    def _selected(self, term: int, code: int) -> _Candidates:
        """The documents whose ``term`` has at least ``code``, with their weights for it."""
        index = self._index
        start, end = self._postings[term]
        codes = index._codes[start:end]
        chosen = np.flatnonzero(codes >= code)
        weights = index._weights(term, np.take(codes, chosen))
        docs = np.take(index._docs[start:end], chosen)
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

    def _cut(self, term: int, count: int) -> int:
        """A code that about ``count`` of ``term``'s postings reach (at least ``count``,
        unless the term has fewer)."""
        length = self._length(term)
        if length <= count:
            return 0
        sketch = self._index._sketches.get(term)
        if sketch is None:
            start, end = self._postings[term]
            return int(np.partition(self._index._codes[start:end], length - count)[length - count])
        rank = int(np.searchsorted(_SKETCH_RANKS[: len(sketch)], count))
        return 0 if rank == len(sketch) else int(sketch[len(sketch) - 1 - rank])

    def _first_code(self, term: int, share: float) -> int:
        """The lowest code whose weight for ``term`` may reach ``share``."""
        ratio = share / self._per_ratio[term] * (1 - _SLACK)
        return int(np.searchsorted(self._index._ratio, ratio))

    def _length(self, term: int) -> int:
        start, end = self._postings[term]
        return end - start

    def _count(self, term: int, code: int) -> int:
        """How many of ``term``'s postings reach ``code``, or (from a sketch) slightly more."""
        sketch = self._index._sketches.get(term)
        if sketch is None:
            start, end = self._postings[term]
            return int(np.count_nonzero(self._index._codes[start:end] >= code))
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

    def _balanced(self, target: float) -> tuple[float, dict[int, int]]:
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

    def _points(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        """Shares ``term`` may take (its bound, its weights at ``_SKETCH_RANKS``, then 0) and
        how many of its postings reach each, at most."""
        index = self._index
        sketch = index._sketches.get(term)
        length = self._length(term)
        if sketch is None:  # few postings: their codes sorted, and the counts exact
            start, end = self._postings[term]
            codes = np.sort(index._codes[start:end])
            at_ranks = codes[
                length - _SKETCH_RANKS[: np.searchsorted(_SKETCH_RANKS, length, "right")]
            ]
            counts = length - np.searchsorted(codes, at_ranks)
        else:  # a rank's code is reached by the postings up to the first rank below it
            at_ranks = sketch[::-1]
            reached = len(sketch) - np.searchsorted(sketch, at_ranks)
            ranks = np.append(_SKETCH_RANKS[: len(sketch)][1:] - 1, length)
            counts = ranks[reached - 1]
        shares = index._ratio[at_ranks[::2]] * self._per_ratio[term]  # every other: enough
        return (
            np.concatenate(([self._bounds[term]], shares, [0.0])),
            np.concatenate(([0], counts[::2], [length])),
        )

    def exact_scores(self, candidates: _Candidates) -> np.ndarray:
        """The candidates' scores, each term's weight added in query order like ``scores``."""
        lookup = _Lookup(self, candidates)
        found = {term: lookup.weights(term) for term in self.terms}
        scores = np.zeros(len(candidates.docs), dtype=np.float64)
        for term in self._sequence:
            hits, weights = found[term]
            scores[hits] += weights
        return scores

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
            partial += weights * self._repeats[term]
            unread -= self._bounds[term]
        unknown = [t for t in self.terms if t not in candidates.known]
        for term in sorted(unknown, key=self._bounds.__getitem__, reverse=True)[:-1]:
            weights = _Lookup(self, candidates).dense(term)
            candidates = candidates.knowing(term, weights)
            partial += weights * self._repeats[term]
            unread -= self._bounds[term]
            keep = np.flatnonzero(partial + unread >= floor)
            candidates, partial = candidates[keep], partial[keep]
        return candidates

    def matching_documents(self) -> int:
        """How many documents hold a query term: the frequent terms' bitmaps or-ed together,
        plus the other terms' documents outside them, each counted once."""
        index = self._index
        if len(self.terms) == 1:
            return self._length(self.terms[0])
        rare = []
        frequent = []
        for term in self.terms:
            bitmap = index._bitmaps.get(term)
            if bitmap is None:
                start, end = self._postings[term]
                rare.append(index._docs[start:end])
            else:
                frequent.append(bitmap.words)
        if not frequent:
            return _distinct(rare, index.corpus_size)
        union = frequent[0].copy() if len(frequent) > 1 else frequent[0]
        for words in frequent[1:]:
            union |= words
        if len(rare) > 1:
            union = union | _Bitmap.of(rare, index.corpus_size)
            rare = []
        outside = sum(len(docs) - int(np.count_nonzero(_bits_of(union, docs))) for docs in rare)
        return int(np.bitwise_count(union).sum()) + outside


def _distinct(doc_lists: list[np.ndarray], corpus_size: int) -> int:
    """How many documents the lists hold (each list has no repeats)."""
    if len(doc_lists) <= 1:
        return sum(map(len, doc_lists))
    return int(np.count_nonzero(_marks(doc_lists, corpus_size)))


def _bits_of(words: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """Each document's bit (0 or 1) in the bitmap of ``words``."""
    return (np.take(words, docs >> 6) >> (docs & 63).astype(np.uint64)) & np.uint64(1)


def _marks(doc_lists: Iterable[np.ndarray], size: int) -> np.ndarray:
    """A flag per document number below ``size``, set for those in ``doc_lists``."""
    marks = np.zeros(size, dtype=bool)
    for docs in doc_lists:
        marks[docs] = True
    return marks


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
        self._probe: _Probe | None = None

    def dense(self, term: int) -> np.ndarray:
        """``term``'s weight in each candidate, 0.0 where it is absent."""
        hits, weights = self.weights(term)
        dense = np.zeros(len(self._candidates.docs), dtype=np.float64)
        dense[hits] = weights
        return dense

    def weights(self, term: int) -> tuple[np.ndarray | slice, np.ndarray]:
        """Which candidates (indices, or all of them) hold ``term``, and its weight in each."""
        known = self._candidates.known.get(term)
        if known is not None:
            return _EVERY, known
        candidates = self._candidates.docs
        index = self._query._index
        dense_codes = index._dense_codes.get(term)
        if dense_codes is not None:  # a gather of codes, the absent ones past the last
            codes = np.take(dense_codes, candidates)
            hits = np.flatnonzero(codes != len(index._ratio))
            return hits, index._weights(term, np.take(codes, hits))
        start, end = self._query._postings[term]
        docs = index._docs[start:end]
        bitmap = index._bitmaps.get(term)
        if bitmap is not None:
            self._probe = self._probe or _Probe(candidates)
            hits, positions = bitmap.find(self._probe)
        elif len(candidates) * _PROBE_COST < _MARKING_COST + len(docs):
            positions = np.searchsorted(docs, candidates)
            positions[positions == len(docs)] = 0
            hits = np.flatnonzero(docs[positions] == candidates)
            positions = positions[hits]
        else:  # many candidates: read the whole posting list once instead of probing
            if self._marked is None:
                self._marked = np.zeros(index.corpus_size, dtype=bool)
                self._marked[candidates] = True
            positions = np.flatnonzero(np.take(self._marked, docs))
            hits = np.searchsorted(candidates, docs[positions])
        return hits, index._weights(term, np.take(index._codes[start:end], positions))


class _Bitmap:
    """Which documents hold a term, a bit each, with the count of set bits before each
    64-bit word: whether a document holds the term, and where in the term's posting list,
    is then a few vectorised operations per document instead of a binary search."""

    def __init__(self, docs: np.ndarray, corpus_size: int) -> None:
        self.words = self.of([docs], corpus_size)
        self._before = np.zeros(len(self.words), dtype=np.uint32)
        np.cumsum(np.bitwise_count(self.words[:-1]), out=self._before[1:])

    @staticmethod
    def of(doc_lists: Iterable[np.ndarray], corpus_size: int) -> np.ndarray:
        """The 64-bit words of a bitmap of every document in ``doc_lists``."""
        bits = _marks(doc_lists, (corpus_size + 63) // 64 * 64)
        return np.packbits(bits, bitorder="little").view("<u8")

    def find(self, probe: _Probe) -> tuple[np.ndarray, np.ndarray]:
        """Which of the probed documents (their indices) hold the term, and their posting
        positions."""
        words = np.take(self.words, probe.word_numbers)
        held = np.flatnonzero(words & probe.bits)
        below = np.take(words, held) & np.take(probe.lower_bits, held)
        before = np.take(self._before, np.take(probe.word_numbers, held))
        return held, before + np.bitwise_count(below)


class _Probe:
    """Where documents sit in any bitmap (word, bit, the bits below it), worked out once for
    all of a query's frequent terms."""

    def __init__(self, docs: np.ndarray) -> None:
        self.word_numbers = docs >> 6
        self.bits = np.left_shift(np.uint64(1), (docs & 63).astype(np.uint64))
        self.lower_bits = self.bits - np.uint64(1)


def _sort_by_term(
    terms: np.ndarray,
    indptr: np.ndarray,
    out: np.ndarray,
    values: Callable[[int, int], np.ndarray],
) -> np.ndarray:
    """A counting sort by term, block by block: ``out`` gets ``values`` of every posting at its
    term's next slot, postings of a term in their original order. Each posting's slot
    overwrites its term in ``terms`` (4-byte integers: up to 2^31 postings, some 10 million
    abstracts), which is returned."""
    next_slot = indptr[:-1].copy()
    for start in range(0, len(terms), _BLOCK):
        end = min(start + _BLOCK, len(terms))
        block = terms[start:end]
        order = np.argsort(block, kind="stable")
        block_terms = block[order]
        rank = np.arange(end - start) - np.searchsorted(block_terms, block_terms)
        slots = next_slot[block_terms] + rank
        out[slots] = values(start, end)[order]
        next_slot += np.bincount(block_terms, minlength=len(next_slot))
        block[order] = slots
    return terms


class _BlockDocs:
    """The document number of postings ``start..end``, from where each document's begin."""

    def __init__(self, first_posting: np.ndarray) -> None:
        self._first = first_posting

    def __call__(self, start: int, end: int) -> np.ndarray:
        positions = np.arange(start, end)
        return np.searchsorted(self._first, positions, side="right") - 1


class _PairCodes:
    """Numbers the distinct (tf, document length) pairs of the postings and holds each pair's
    ratio; a posting's code is a small integer (2 bytes for up to 65,536 pairs)."""

    def __init__(
        self,
        tfs: np.ndarray,
        lengths: np.ndarray,
        docs: _BlockDocs,
        ratio_of: Callable[[np.ndarray, np.ndarray], np.ndarray],
    ) -> None:
        self._tfs, self._lengths, self._docs = tfs, lengths, docs
        self._width = int(lengths.max()) + 1 if len(lengths) else 1
        size = len(tfs)
        key_range = (int(tfs.max()) + 1) * self._width if size else 1
        blocks = range(0, size, _BLOCK)
        self._dense: np.ndarray | None = None
        if key_range <= _MAX_PAIR_GRID:
            seen = np.zeros(key_range, dtype=bool)
            for start in blocks:
                seen[self._keys(start, min(start + _BLOCK, size))] = True
            self._sorted_keys = np.flatnonzero(seen)
        else:  # a term repeated very often in a very long document: sort the pairs instead
            found = [np.unique(self._keys(s, min(s + _BLOCK, size))) for s in blocks]
            self._sorted_keys = np.unique(np.concatenate(found))
        width = self._width
        ratios = ratio_of(self._sorted_keys // width, self._sorted_keys % width)
        # A code per distinct ratio, numbered in ascending order, so within one term a higher
        # code weighs strictly more and equal weights share a code: "every posting weighing
        # at least w" is a comparison of codes, ties included. (Different pairs can share a
        # ratio exactly: with avgdl 3, tf 1 at length 1 and tf 2 at length 3.)
        self.ratios, codes = np.unique(ratios, return_inverse=True)
        self.dtype = np.uint16 if len(self.ratios) <= 1 << 16 else np.uint32
        self._code_of_key = codes.astype(self.dtype)
        if key_range <= _MAX_PAIR_GRID:
            self._dense = np.zeros(key_range, dtype=self.dtype)
            self._dense[self._sorted_keys] = self._code_of_key

    def _keys(self, start: int, end: int) -> np.ndarray:
        tf = self._tfs[start:end].astype(np.int64)
        return tf * self._width + self._lengths[self._docs(start, end)]

    def __call__(self, start: int, end: int) -> np.ndarray:
        """Codes of postings ``start..end``."""
        keys = self._keys(start, end)
        if self._dense is not None:
            return self._dense[keys]
        return self._code_of_key[np.searchsorted(self._sorted_keys, keys)]


_NO_DOCS = np.zeros(0, dtype=np.intc)
_EVERY = slice(None)
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
