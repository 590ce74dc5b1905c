"""The ranker: a plan's matching papers scored, filtered and cut to a page, by BM25 alone or
by the semantic mix when the query has a vector.

A plain query over a large corpus is ranked by the pruned ranking (``bot.search.pruned``),
which scores only the papers that can make the page; anything with a filter scores every
match.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import reduce

import numpy as np

from bot.papers.paper import Paper
from bot.search.analyzer import CorpusAnalyzer
from bot.search.authors import AuthorIndex
from bot.search.bm25 import top_k
from bot.search.built_once import built_once
from bot.search.fielded import FieldedBM25
from bot.search.indexing import written_texts
from bot.search.matched_words import MatchedWords, PhraseReader, marker_for
from bot.search.model_rule import ModelQuery, model_say
from bot.search.paper_sets import Bitmap, bits_of, count_of, holding_enough, words_of
from bot.search.plan import Plan, Variants
from bot.search.pruned import PrunedRanking
from bot.search.results import Hit
from bot.search.saved_papers import paper_ids
from bot.search.semantic import NEAREST_CANDIDATES, RERANK_DEPTH, SemanticRanker

PRUNING_MIN_PAPERS = 200_000
"""Corpora this large rank a plain query by the pruned ranking (``bot.search.pruned``); smaller
ones score every matching paper, which is as fast there and far simpler
(``bench/results/pruning.md``)."""

ABOUT_SHARE = 2 / 3
"""The share of a query's weight a paper's words must carry for the paper to be about the
query (``Ranker.about``). On the catalogue, with the ranking's first ten, it keeps
"reinforcement learning from human feedback" to 62 of the 1,774 papers holding one of its
words, the papers on feedback from people with learning or reward (a half would let in safe
RL and bandits), "graph neural networks" to 142 of 856, "label noise" to 25 of 405 and
"spiking neural networks" to 14 of 729; "federated learning" is the 48 papers saying
"federated", whose weight is 83% of the query's."""
KEPT_SHARE = 16
"""Below ``PRUNING_MIN_PAPERS``, a word held by at least 1/16 of the papers has its bitmap
kept (``Ranker._holders_bitmap``), made by ``Ranker.prepare`` or by the first query naming
it: marking a common word's holders is a pass over most papers (115 µs for "model" at
100,000 papers), for every query naming it. Few words are that common (498 of the text's at
100,000 papers, some 6 MB of bitmaps)."""
RANKED_HEAD = 10
"""The first results of every query are the ranking's own, about the query by its words or
not: a question asked in other words finds its paper there by meaning (the quality bench's
MRR@10 and nDCG@10 read these ten; cutting them cost the blind sets' questions most of
theirs). Only the deeper pages, where a reader pages to see more of the topic, are cut to
the papers about it."""

_Ordered = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]
"""Papers best first, their scores, BM25 scores and cosines, and how many there are in all."""

_STATUS_ORDER = ("Oral", "Spotlight", "Poster")
"""How a named author's equally scored papers follow their position on the paper: oral,
spotlight, then poster, as the conference ranks them."""
_UNKNOWN_POSITION = 1 << 16
"""Where an author stands on a paper whose author order is not known: after every known one."""


@dataclass(frozen=True)
class RankerOptions:
    """Which parts of the ranking are on: all of them in the bot; the quality bench
    (``bench/quality.py``) turns one off at a time to measure what it is worth."""

    nearest_candidates: bool = True
    """Whether the semantic mix re-ranks, besides BM25's best, the matching papers nearest
    to the query's vector."""


DEFAULT_RANKER_OPTIONS = RankerOptions()


class Ranker:
    """Ranks plans over one corpus; immutable but for the pruned ranking built on demand."""

    def __init__(
        self,
        papers: Sequence[Paper],
        bm25: FieldedBM25,
        analyzer: CorpusAnalyzer,
        authors: AuthorIndex,
        semantic: SemanticRanker | None,
        options: RankerOptions = DEFAULT_RANKER_OPTIONS,
    ) -> None:
        self._papers = papers
        self._bm25 = bm25
        self._analyzer = analyzer
        self._authors = authors
        self._semantic = semantic
        self._options = options
        ids = paper_ids(papers)
        order = sorted(range(len(ids)), key=ids.__getitem__)
        self._tiebreak = np.empty(len(papers), dtype=np.int64)
        self._tiebreak[order] = np.arange(len(papers))
        self._kept_bitmaps: dict[str, np.ndarray] = {}  # see KEPT_SHARE

    @built_once
    def pruned(self) -> PrunedRanking:
        """The pruned ranking's tables (a large corpus only)."""
        return PrunedRanking(self._bm25)

    def prepare(self) -> None:
        """Build what a query would otherwise build on first use: for a large corpus the
        pruned ranking's tables, for a smaller one the bitmaps of its common words
        (``KEPT_SHARE``), each a pass over most papers the first query naming it pays
        (115 µs for "model" at 100,000 papers), and the answer of ``FieldedBM25.holders``
        that the text holds a word's title papers (63 ms for the 47,154 title words at
        100,000 papers; a common word's first lookup took 100 µs)."""
        if self.prunes:
            self.pruned  # noqa: B018 - reading a part built once builds it
            return
        least = len(self._papers) / KEPT_SHARE
        for field in self._bm25.fields:
            frequencies = field.document_frequencies.tolist()
            for token, term in field.vocabulary.items():
                if frequencies[term] >= least and token not in self._kept_bitmaps:
                    self._holders_bitmap(token, self._bm25.holders(token))
        for token in self._bm25.fields[0].vocabulary:  # the first call looks the title up
            self._bm25.holders(token)

    @property
    def prunes(self) -> bool:
        """Whether the corpus is large enough for the pruned ranking."""
        return len(self._papers) >= PRUNING_MIN_PAPERS

    def page(
        self,
        plan: Plan,
        limit: int,
        offset: int,
        meaning: ModelQuery | None = None,
    ) -> tuple[tuple[Hit, ...], int]:
        """The hits ``offset..offset+limit`` of the papers a plan matches, best first, and
        how many matched: BM25's order, or, given what the query means to the model (whose
        vector is computed only if the model is asked, see ``bot.search.model_rule``), the
        semantic mix's (see ``_mixed_page``), cut to the papers about the query past the
        first ``RANKED_HEAD`` (``ordered``)."""
        page, page_scores, bm25_scores, cosines, total = self.ordered(plan, offset + limit, meaning)
        marker = marker_for(self._analyzer, plan.tokens)
        # Words of a hit's paper, as written, whose tokens the query asked for: found when read.
        words = MatchedWords(self._analyzer, marker.wanted)
        names = plan.authors or plan.author_runs
        hits = tuple(
            Hit(
                self._papers[doc],
                score,
                bm25,
                None if math.isnan(cosine) else cosine,  # np.isnan takes 1 µs a float
                self._authors.named_authors(plan.authors, plan.author_runs, doc) if names else (),
                marker,
                words,
            )
            for doc, score, bm25, cosine in zip(
                page[offset : offset + limit].tolist(),
                page_scores[offset : offset + limit].tolist(),
                bm25_scores[offset : offset + limit].tolist(),
                cosines[offset : offset + limit].tolist(),
                strict=True,
            )
        )
        return hits, total

    def ordered(self, plan: Plan, k: int, meaning: ModelQuery | None = None) -> _Ordered:
        """The first ``k`` results of a plan, best first, their scores (the ranking's, BM25's
        and the cosines), and how many results there are in all: the ranking's first
        ``RANKED_HEAD`` papers, then only the papers ``about`` the query, in the ranking's
        order. Every list a query pages through is this one, and so is a topic's rotation."""
        about = self.about(plan)
        if about is None:
            return self._ranked(plan, k, meaning)
        depth = max(k, RANKED_HEAD)
        while True:
            ranked = self._ranked(plan, depth, meaning, counted=False)
            head, rest = ranked[0][:RANKED_HEAD], ranked[0][RANKED_HEAD:]
            keep = bits_of(about, rest) > 0 if len(rest) else np.ones(0, dtype=bool)
            if len(head) + np.count_nonzero(keep) >= k or len(ranked[0]) < depth:
                break
            depth *= 4  # a cut list is shorter than the ranking: look deeper
        # The head is the ranking's own, so of the papers about the query only those outside it add.
        total = len(head) + count_of(about) - np.count_nonzero(bits_of(about, head))
        if keep.all():  # a first page: the ranking's own head
            return *(array[:k] for array in ranked[:4]), total
        kept = np.concatenate((np.ones(len(head), dtype=bool), keep))
        docs, scores, bm25, cosines = (array[kept][:k] for array in ranked[:4])
        return docs, scores, bm25, cosines, total

    def about(self, plan: Plan) -> np.ndarray | None:
        """The bitmap (``Bitmap.of``) of the matching papers about a query of several words:
        those holding words that carry at least ``ABOUT_SHARE`` of the query's weight, a word
        weighing its idf, ln(1 + (N - n + 0.5) / (n + 0.5)) for the n of the N papers holding
        it, so the rare words that name a topic count and "learning" or "models" hardly.
        Papers by an author the query names are about it too. None when every match is: a
        query of one word or phrase (whose count the reply gives), a paper's or a text's
        terms."""
        held_as = [
            [tokens for tokens in word if tokens and all(token in self._bm25 for token in tokens)]
            for word in plan.words
        ]
        words = [word for word in held_as if word]
        if len(words) < 2:
            return None
        bitmaps: list[np.ndarray] = []
        weights = []
        for word in words:
            if len(word) == 1 and len(word[0]) == 1:  # most words: one token
                docs = self._bm25.holders(word[0][0])
                frequencies = [len(docs)]
                bitmaps.append(self._holders_bitmap(word[0][0], docs))
            else:  # one of its token sequences, each token in some field
                frequencies = [self._bm25.document_frequency(t) for ts in word for t in ts]
                held = map(self._bm25.holding_every, word)  # marked once each, repeats and all
                bitmaps.append(Bitmap.of(held, len(self._papers)))
            weights.append(max(map(self._idf, frequencies)))
        # A paper's held weight, words added in query order.
        least = ABOUT_SHARE * sum(weights) * (1 - 1e-9)
        about = holding_enough(bitmaps, weights, least, len(self._papers))
        if plan.author_scores is not None:
            about |= words_of(plan.author_scores > 0)
        if plan.phrases or plan.excluded or plan.authors or plan.allowed is not None:
            about &= words_of(self.score(plan)[1])  # otherwise holding a word is matching
        return about

    def _holders_bitmap(self, token: str, holders: np.ndarray) -> np.ndarray:
        """The bitmap (``Bitmap.of``) of ``holders``, the papers holding ``token``: a large
        corpus's pruned ranking keeps a bitmap of each field's frequent terms, and one field
        whose term is in every holder (the text, which holds the title's words) is all of
        them, where marking a common word's postings would be a pass over most papers. Not
        built yet (an opened index builds it after start-up, ``SearchIndex.prepare``), it is
        not waited for: the holders are marked, with the same result. A smaller corpus keeps
        its common words' bitmaps as queries make them (``KEPT_SHARE``)."""
        if Ranker.pruned.built(self):
            for number, field in enumerate(self._bm25.fields):
                kept = self.pruned.bitmaps.get((number, field.vocabulary.get(token, -1)))
                if kept is not None and len(field.documents(token)) == len(holders):
                    return kept.words
        words = self._kept_bitmaps.get(token)
        if words is None:
            words = Bitmap.of([holders], len(self._papers))
            if not self.prunes and len(holders) * KEPT_SHARE >= len(self._papers):
                self._kept_bitmaps[token] = words
        return words

    def _idf(self, frequency: int) -> float:
        """A word's weight when ``frequency`` papers hold it."""
        return math.log(1 + (len(self._papers) - frequency + 0.5) / (frequency + 0.5))

    def _ranked(
        self, plan: Plan, k: int, meaning: ModelQuery | None, *, counted: bool = True
    ) -> _Ordered:
        """The ranking's ``k`` best matches, uncut, and how many papers matched (which
        BM25's ranking may leave uncounted, 0, unless ``counted``: ``ordered`` counts the
        papers about the query instead)."""
        if meaning is None or self._semantic is None:
            page, page_scores, total = self._bm25_page(plan, k, counted)
            return page, page_scores, page_scores, np.full(len(page), np.nan), total
        return self._mixed_page(plan, k, meaning, self._semantic)

    def score(self, plan: Plan) -> tuple[np.ndarray, np.ndarray]:
        """Every paper's score, and which papers match the plan."""
        scores = self._bm25.scores(plan.tokens)
        if plan.tokens and self._bm25.idf_positive:  # then a query token means a score > 0
            matched = scores > 0
        elif plan.tokens:
            matched = self._bm25.matches(plan.tokens)
        else:  # everything, for a filter to narrow down; nothing, for named authors to add to
            matched = np.full(len(scores), plan.author_scores is None)
        if plan.author_scores is not None:
            scores += plan.author_scores
            matched |= plan.author_scores > 0
        for _, variants in plan.phrases:
            matched &= self.phrase_mask(variants)
        for _, variants in plan.excluded:
            matched &= ~self.phrase_mask(variants)
        if plan.authors:
            matched &= self._authors.mask(plan.authors)
        if plan.allowed is not None:
            matched &= plan.allowed
        if plan.exclude_doc is not None:
            matched[plan.exclude_doc] = False
        return scores, matched

    def phrase_mask(self, variants: Iterable[tuple[str, ...]]) -> np.ndarray:
        """Papers containing one of the token sequences: the papers holding all its tokens
        in one field are re-read, so no positions need to be kept for the rare quoted
        query."""
        mask = np.zeros(len(self._papers), dtype=bool)
        reader = PhraseReader(self._analyzer)
        for variant in variants:
            in_fields = (
                reduce(np.intersect1d, [field.documents(token) for token in set(variant)])
                for field in self._bm25.fields
            )
            candidates = reduce(np.union1d, in_fields)
            if len(variant) == 1:
                mask[candidates] = True
                continue
            wanted = " " + " ".join(variant) + " "
            for doc in candidates.tolist():
                if not mask[doc] and any(
                    wanted in reader.tokens(text) for text in written_texts(self._papers[doc])
                ):
                    mask[doc] = True
        return mask

    def has_phrase(self, variants: Variants) -> bool:
        """Whether any paper contains the phrase."""
        return bool(self.phrase_mask(variants).any())

    def _bm25_page(
        self, plan: Plan, k: int, counted: bool = True
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """The ``k`` best matches, best first, their scores, and how many papers matched
        (0 for a plain query not ``counted``).

        A plain ranked query lets the index score only the papers that can make the page;
        filters (phrases, exclusions, authors, ``since:`` and the other filters, the paper of
        "more like this") need every match's score, and so does a query the index finds not
        worth pruning. A plain query's matches are the papers scoring above 0 when every
        weight is positive, so it marks none of them: its contenders reach a floor above 0,
        and its count, when asked, is of the scores that are not 0 (none is below)."""
        plain = not (plan.phrases or plan.excluded or plan.authors or plan.allowed is not None)
        plain = plain and plan.exclude_doc is None and plan.author_scores is None
        if self.prunes and plain:
            ranking = self.pruned.best(plan.tokens, k, self._tiebreak)
            if ranking is not None:
                return ranking.docs, ranking.scores, ranking.total
        matched: np.ndarray | None = None
        if plain and plan.tokens and self._bm25.idf_positive:
            scores = self._bm25.scores(plan.tokens)
        else:
            scores, matched = self.score(plan)
        candidates = self._contenders(scores, matched, plan.tokens, k)
        tiebreak = self._tiebreak_for(plan, candidates)
        page = top_k(scores, k, candidates=candidates, tiebreak=tiebreak)
        if matched is not None:
            return page, scores[page], int(np.count_nonzero(matched))
        return page, scores[page], int(np.count_nonzero(scores)) if counted else 0

    def _tiebreak_for(self, plan: Plan, candidates: np.ndarray) -> np.ndarray:
        """The order of equal scores: by id, except among the papers of the authors a query
        names, which ``author:Yoshua Bengio`` scores alike: there a reader expects the
        papers the author leads first, so they go by the author's position on the paper
        (where its author order is known), then oral, spotlight, poster, then id; and as the
        plan says for a query of filters alone (newest first)."""
        if plan.tiebreak is not None:
            return plan.tiebreak
        if not plan.names_authors:
            return self._tiebreak
        named = candidates
        if not plan.authors and plan.author_scores is not None:
            named = candidates[plan.author_scores[candidates] > 0]
        statuses = len(_STATUS_ORDER) + 1  # the last for a paper with none of them
        tiebreak = self._tiebreak.copy()
        for doc in named.tolist():
            paper = self._papers[doc]
            position = _UNKNOWN_POSITION
            if paper.authors_in_order:
                names = self._authors.named_authors(plan.authors, plan.author_runs, doc)
                position = min(map(paper.authors.index, names), default=_UNKNOWN_POSITION)
            status = (
                _STATUS_ORDER.index(paper.status)
                if paper.status in _STATUS_ORDER
                else len(_STATUS_ORDER)
            )
            tiebreak[doc] += (position * statuses + status) * len(self._papers)
        return tiebreak

    def _mixed_page(
        self,
        plan: Plan,
        k: int,
        meaning: ModelQuery,
        semantic: SemanticRanker,
    ) -> _Ordered:
        """The ``k`` best matches by the semantic mix, or BM25's own when the model is not
        asked (``bot.search.model_rule``): BM25's ``RERANK_DEPTH`` best and the matching
        papers nearest to ``vector`` (``SemanticRanker.nearest``) re-ranked, the papers of
        authors the query names first (as BM25 alone puts them), then BM25's order for any
        deeper page. Also returns the BM25 scores and the cosines the mix was made of
        (cosines are NaN past the re-ranked head), and how many papers matched.

        Every match is scored in full: the re-ranker needs the BM25 score of papers BM25
        itself ranks low, and at a depth of 100 the pruned ranking saves nothing
        (``bench/results/pruning.md``)."""
        scores, matched = self.score(plan)
        total = int(np.count_nonzero(matched))
        if not total:
            nothing = np.zeros(0)
            return nothing.astype(np.intp), nothing, nothing, nothing, 0
        depth = max(k, RERANK_DEPTH)
        candidates = self._contenders(scores, matched, plan.tokens, depth)
        tiebreak = self._tiebreak_for(plan, candidates)
        page = top_k(scores, depth, candidates=candidates, tiebreak=tiebreak)
        first, second = (*scores[page[:2]].tolist(), 0.0)[:2]
        first_title = self._analyzer.tokens(self._papers[page[0]].title)
        say = model_say(plan.tokens, meaning.words, first_title, first, second)
        vector = None if say is None else meaning.vector()
        if say is None or vector is None:
            bm25_scores = scores[page[:k]]
            return page[:k], bm25_scores, bm25_scores, np.full(len(bm25_scores), np.nan), total
        if plan.names_authors:  # the mix's candidates break ties by id (``_tiebreak_for``)
            page = top_k(scores, depth, candidates=candidates, tiebreak=self._tiebreak)
        if self._wants_nearest(plan):
            outside = matched.copy()
            outside[page[:RERANK_DEPTH]] = False
            cosines = semantic.cosines(vector, np.flatnonzero(matched))
            nearest = semantic.nearest(cosines, outside, NEAREST_CANDIDATES, self._tiebreak)
        else:
            cosines = semantic.cosines(vector, page[:RERANK_DEPTH])
            nearest = np.zeros(0, dtype=np.intp)
        head = np.concatenate([page[:RERANK_DEPTH], nearest])
        named = None
        if plan.author_runs:
            # Those carrying the whole name typed, not everyone sharing half of it (every
            # He for ``Kaiming He``), as BM25 alone ranks them.
            by_them = reduce(np.union1d, map(self._authors.papers_by, plan.author_runs))
            named = np.isin(head, by_them)
        reranked = semantic.rerank(head, scores[head], cosines, say, self._tiebreak, named)
        rest = page[RERANK_DEPTH:]  # empty unless the page reaches past the re-ranked head
        if len(rest):
            rest = rest[~np.isin(rest, nearest)]
        return (
            np.concatenate([reranked.docs, rest])[:k],
            np.concatenate([reranked.scores, scores[rest]])[:k],
            np.concatenate([reranked.bm25, scores[rest]])[:k],
            np.concatenate([reranked.cosine, np.full(len(rest), np.nan)])[:k],
            total,
        )

    def _wants_nearest(self, plan: Plan) -> bool:
        """Whether papers near the query's vector join BM25's best: not for a query that
        names authors, since the model knows topics, not names, so near "papers by Mirzaei"
        is any paper about papers, while the author's own are already among BM25's best."""
        return not plan.names_authors and self._options.nearest_candidates

    def _contenders(
        self, scores: np.ndarray, matched: np.ndarray | None, tokens: list[str], k: int
    ) -> np.ndarray:
        """The matching papers (``matched``; None: those scoring above 0) that can be among
        the ``k`` best, without sorting them all.

        The k-th best score among the matching papers holding the query's rarest term in
        one field (a small sample, and the likeliest to score high) is a floor for the k-th
        best overall: only papers scoring at least that are kept, ties included, so the page
        is exactly the one a full sort gives.

        The sample's 4-byte document numbers are read with ``np.take``, which takes them as
        they are, where indexing with them copies them to 8-byte ones first; and only the
        few papers reaching the floor are looked up in ``matched``, not every paper."""
        postings = (field.documents(token) for field in self._bm25.fields for token in set(tokens))
        sample = min((docs for docs in postings if len(docs) >= k), key=len, default=None)
        if k > 0 and sample is not None and 4 * len(sample) < len(scores):
            values = np.take(scores, sample)
            if matched is not None:
                values = values[np.take(matched, sample)]
            if len(values) >= k:
                floor = np.partition(values, len(values) - k)[len(values) - k]
                reaching = np.flatnonzero(scores >= floor)
                return reaching if matched is None else reaching[matched[reaching]]
        return np.flatnonzero(scores > 0 if matched is None else matched)
