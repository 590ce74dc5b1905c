"""The search facade the bot calls: papers in, ranked hits with matched words out.

It joins the analyzer, the BM25Okapi index and the query language. It keeps no token
positions: a quoted phrase is checked by re-reading the few papers that hold all of its words,
which keeps the index small enough for hundreds of thousands of abstracts.
"""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache, reduce
from itertools import compress, filterfalse, islice, product, takewhile
from typing import Any, Generic, TypeVar, overload

import numpy as np

from bot.papers.openreview import openreview_link_id
from bot.papers.paper import Paper
from bot.search.analyzer import (
    WORD_PATTERN,
    Acronym,
    CorpusAnalyzer,
    marked_words,
    mine_acronyms,
    word_tokens,
    written_words,
)
from bot.search.bm25 import K1, BM25Builder, BM25Index, top_k
from bot.search.lexicon import english_words
from bot.search.pruned import PrunedRanking
from bot.search.query import (
    ParsedQuery,
    SpellCorrector,
    parse_query,
    unit_spans,
)
from bot.search.semantic import NEAREST_CANDIDATES, RERANK_DEPTH, SemanticRanker
from bot.search.vectors import embedding_text

TITLE_WEIGHT = 2  # title tokens are indexed twice: a title word says more than an abstract word
LIKE_TERMS = 25  # how many of a paper's most distinctive terms make its "more like this" query
MAX_PHRASE_VARIANTS = 16
PRUNING_MIN_PAPERS = 200_000
"""Corpora this large rank a plain query by the pruned ranking (``bot.search.pruned``); smaller
ones score every matching paper, which is as fast there and far simpler (measured by
``bench/pruning.py``, results in ``bench/results/pruning.md``)."""
_INDEX_BLOCK = 4096  # papers whose terms are counted in one numpy step while indexing
# Papers whose chunk numbers are stored together while indexing: big enough (~60 MB) for the
# allocator to hand the memory back to the system when a block is dropped.
_RUN_BLOCK = 1 << 16
_NO_PAPERS = np.zeros(0, dtype=np.int64)
_NAME_TOKEN = re.compile(r"[^\W_]+")
_LETTERS = re.compile(r"[^\W\d_]+")
_SENTENCE_ENDS = (".", "?", "!", ":", ";")
_LEAST_NAME_IDF = 0.1
_LEAST_CITED_NAME_PAPERS = 3
_HYPHENATED_LETTERS = re.compile(r"[^\W\d_]+(?:[-\u2010\u2011][^\W\d_]+)+")
T = TypeVar("T")


@dataclass(frozen=True)
class Hit:
    paper: Paper
    score: float | None  # the ranking score; None for a lookup by id
    matched_terms: tuple[str, ...]  # words of the paper's text that matched, as written there
    bm25_score: float | None = None
    # Cosine of the paper's and the query's vectors, when the semantic ranking placed it
    # (BM25's best RERANK_DEPTH and the matching papers nearest to the query's vector, once
    # the paper has a vector); score is then the mix.
    semantic_score: float | None = None
    # Its authors the query named (``author:`` or a name typed as words), as the paper
    # writes their names.
    named_authors: tuple[str, ...] = ()

    @cached_property
    def tldr_pieces(self) -> tuple[tuple[str, bool], ...]:
        """The paper's TL;DR in pieces, flagged where a word matched (a renderer bolds those).

        Worked out only for the cards a renderer shows, not for every hit of a page.
        """
        return marked_words(self.paper.tldr, self.matched_terms)


@dataclass(frozen=True)
class Note:
    """A sentence about a search. What the person typed stays apart from the wording, as
    ``words`` (one ``{}`` in ``text`` each), so a renderer quotes it as typed: a word like
    ``*Jegelka*`` must reach Slack as two stars, not bold."""

    text: str
    words: tuple[str, ...] = ()
    advises: bool = False
    """Whether the note says what to try instead: a renderer's general tips ("check the
    spelling") would then repeat it, or mislead (an unknown id is no misspelt word)."""

    @property
    def plain(self) -> str:
        """The sentence for a terminal, each word in curly quotes."""
        return self.text.format(*(f"\u201c{word}\u201d" for word in self.words))


UNMATCHED_NAMED = 3
"""How many words that found nothing a note names before "and N more words"."""


@dataclass(frozen=True)
class SearchResult:
    query: str  # what the user typed
    hits: tuple[Hit, ...]  # the requested page (offset..offset+limit)
    total: int  # how many papers matched in all
    offset: int
    corrected_query: str | None  # query after typo correction, None if nothing was corrected
    notes: tuple[Note, ...]  # what needs saying about the search, in order
    similar_to: Paper | None = None  # set for like:ID results
    # Whether ``total`` counts what a reader would call matches: papers holding the query's
    # one word, phrase or filter. A query of several words ranks every paper holding any of
    # them ("MLLMs" reaches 70 of 76 papers through "language" and "models"), and that
    # count is only good for paging.
    counted: bool = True
    usage: str | None = None  # how to write the query, when it was not a search at all

    @property
    def notice(self) -> str | None:
        """The notes as one plain-text paragraph, or None."""
        return " ".join(note.plain for note in self.notes) or None


def _texts(paper: Paper) -> tuple[str, str]:
    """The ranked fields: title and abstract. Authors are a field of their own (see
    ``SearchIndex._authors_by_token``): in the ranked text, a paper with 80 authors would have
    its length doubled by names and sink for every topical query."""
    return (paper.title, paper.plain_abstract)


def _fields(analyzer: CorpusAnalyzer, paper: Paper) -> tuple[list[str], list[str]]:
    """Index tokens of the title and the abstract."""
    title, abstract = _texts(paper)
    return analyzer.tokens(title), analyzer.tokens(abstract)


def _bm25_tokens(fields: tuple[list[str], list[str]]) -> list[str]:
    title, abstract = fields
    return title * TITLE_WEIGHT + abstract


@lru_cache(maxsize=1 << 16)  # a corpus names the same authors over and over
def _name_tokens(name: str) -> tuple[str, ...]:
    """Author-name words without accents or case, so ``author:muller`` finds Müller."""
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return tuple(_NAME_TOKEN.findall(bare.casefold()))


class _built_once(Generic[T]):
    """``functools.cached_property`` with the lock per attribute it lost in Python 3.12: the
    bot's background ``prepare`` and a query may ask for a part at the same moment, and it
    must be built once (seconds and hundreds of MB at large corpora), not twice."""

    def __init__(self, build: Callable[[Any], T]) -> None:
        self._build = build
        self._lock = threading.Lock()
        self.__doc__ = build.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> _built_once[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> Any:
        if instance is None:
            return self
        values = instance.__dict__  # once built, the instance's own value hides this
        with self._lock:
            if self._name not in values:
                values[self._name] = self._build(instance)
        return values[self._name]


class _ChunkIndexer:
    """Indexes papers a whitespace-delimited chunk at a time, in two passes.

    The first splits every text once and numbers each distinct chunk, so a paper becomes runs
    of chunk numbers (title chunks ``TITLE_WEIGHT`` times); Python does a split and a dict
    lookup per chunk, with no per-token list or Counter. The distinct chunks of the titles
    and abstracts then give the analyzer its compound splits, each chunk is analysed once, in
    order of first occurrence (so new tokens are numbered in the order rank-bm25 first sees
    them), and the BM25 builder counts terms for blocks of papers in numpy. The indexed bag of
    tokens is exactly ``_bm25_tokens(_fields(...))``."""

    def __init__(self) -> None:
        self._numbers: dict[str, int] = {}
        self._text = _Runs()  # titles and abstracts

    def _add(self, run: array, text: str, times: int = 1) -> None:
        numbers = self._numbers
        chunks = text.split()
        try:
            found = list(map(numbers.__getitem__, chunks))
        except KeyError:  # new chunks: number them in reading order, then look up
            for chunk in filterfalse(numbers.__contains__, chunks):
                numbers.setdefault(chunk, len(numbers))  # it may repeat within the text
            found = list(map(numbers.__getitem__, chunks))
        run.fromlist(found * times)

    def index(self, papers: Sequence[Paper]) -> tuple[CorpusAnalyzer, BM25Index]:
        for paper in papers:
            title, abstract = _texts(paper)
            text = self._text.start()
            self._add(text, title, TITLE_WEIGHT)
            self._add(text, abstract)
        chunks = list(self._numbers)
        self._numbers = {}
        analyzer = CorpusAnalyzer.for_chunks(chunks)
        builder = BM25Builder()
        chunk_starts = array("q", [0])
        chunk_terms = array("i")
        for chunk in chunks:
            chunk_terms.fromlist(builder.terms(analyzer.index_chunk(chunk)))
            chunk_starts.append(len(chunk_terms))
        del chunks
        starts = np.array(chunk_starts, dtype=np.int64)
        terms = np.array(chunk_terms, dtype=np.intc)
        del chunk_starts, chunk_terms
        analyzer.forget_chunks()  # before the terms are counted, which sets the peak
        for block, first in enumerate(range(0, len(papers), _RUN_BLOCK)):
            text = self._text.pop(block)
            count = min(_RUN_BLOCK, len(papers) - first)
            for start in range(0, count, _INDEX_BLOCK):
                end = min(start + _INDEX_BLOCK, count)
                builder.add_chunked(starts, terms, *_runs_of(*text, start, end), end - start)
            del text  # counted: a block left alive would sit through the sort
        del starts, terms
        return analyzer, builder.build()


class _Runs:
    """Chunk numbers of the ranked text of every paper, one run per paper, stored in blocks of
    ``_RUN_BLOCK`` papers so each block can be dropped once it is counted: the whole corpus
    as chunk numbers is as large as its postings, and both at once would set the peak."""

    def __init__(self) -> None:
        self._blocks: list[tuple[array, array] | None] = []
        self._papers = 0

    def start(self) -> array:
        """Begin the next paper's run; returns the array to append its chunk numbers to."""
        if self._papers % _RUN_BLOCK == 0:
            self._blocks.append((array("i"), array("q")))
        self._papers += 1
        occurrences, starts = self._blocks[-1]  # type: ignore[misc]
        starts.append(len(occurrences))
        return occurrences

    def pop(self, block: int) -> tuple[np.ndarray, np.ndarray]:
        """Block ``block``'s chunk numbers and where each paper's run starts (one more for
        the end), no longer held here."""
        occurrences, starts = self._blocks[block]  # type: ignore[misc]
        self._blocks[block] = None
        bounds = np.append(np.frombuffer(starts, dtype=np.int64), len(occurrences))
        return np.frombuffer(occurrences, dtype=np.intc), bounds


def _runs_of(
    occurrences: np.ndarray, bounds: np.ndarray, first: int, last: int
) -> tuple[np.ndarray, np.ndarray]:
    """The chunk numbers of papers ``first..last`` of a block and each one's paper (from 0)."""
    chunks = occurrences[bounds[first] : bounds[last]].astype(np.int64)
    papers = np.repeat(np.arange(last - first), np.diff(bounds[first : last + 1]))
    return chunks, papers


@dataclass
class _Plan:
    """A parsed query resolved against this corpus: what to score, require and exclude."""

    tokens: list[str] = field(default_factory=list)
    phrases: list[tuple[str, list[tuple[str, ...]]]] = field(default_factory=list)
    excluded: list[tuple[str, list[tuple[str, ...]]]] = field(default_factory=list)
    corrected_text: str | None = None
    exclude_doc: int | None = None
    # Per paper, what the author names a query types add to its score (None: it names
    # nobody); see ``SearchIndex._author_scores``.
    author_scores: np.ndarray | None = None
    searched: list[str] = field(default_factory=list)  # free words papers use, as searched
    unmatched: list[str] = field(default_factory=list)  # free words no paper uses, as typed
    counted: bool = True  # see ``SearchResult.counted``
    authors: list[str] = field(default_factory=list)  # names to filter by (``author:``)
    author_runs: list[frozenset[str]] = field(default_factory=list)  # names typed as words


@dataclass(frozen=True)
class _Typed:
    """A free word of a query as typed, and as searched (after typo correction);
    ``author_only`` when it can only mean an author (see ``SearchIndex._is_author_word``)."""

    typed: str
    text: str
    author_only: bool = False


class SearchIndex:
    """An immutable index over one corpus; build once per process, query from any thread."""

    def __init__(
        self,
        papers: tuple[Paper, ...],
        bm25: BM25Index,
        acronyms: dict[str, Acronym],
        analyzer: CorpusAnalyzer,
        semantic: SemanticRanker | None = None,
    ) -> None:
        self.papers = papers
        self._semantic = semantic
        self._bm25 = bm25
        self._acronyms = acronyms
        self._usual_long_forms: dict[str, bool] = {}  # by acronym token, filled on demand
        self._analyzer = analyzer
        order = sorted(range(len(papers)), key=lambda doc: papers[doc].id)
        self._tiebreak = np.empty(len(papers), dtype=np.int64)
        self._tiebreak[order] = np.arange(len(papers))
        self._by_id: dict[str, int] = {}
        self._by_folded_id: dict[str, int] = {}
        for doc, paper in enumerate(papers):
            for key in (paper.id, paper.openreview_id):
                if key:
                    self._by_id.setdefault(key, doc)
                    self._by_folded_id.setdefault(key.casefold(), doc)

    @classmethod
    def build(
        cls,
        papers: Sequence[Paper],
        semantic: Callable[[Sequence[Paper]], SemanticRanker | None] | None = None,
    ) -> SearchIndex:
        """The index of ``papers``; ``semantic`` makes the re-ranker over them (None: BM25
        alone)."""
        papers = tuple(papers)
        analyzer, bm25 = _ChunkIndexer().index(papers)
        acronyms = mine_acronyms(f"{p.title}. {p.plain_abstract}" for p in papers)
        ranker = semantic(papers) if semantic is not None else None
        return cls(papers, bm25, acronyms, analyzer, ranker)

    @_built_once
    def _speller(self) -> SpellCorrector:
        """The typo corrector, its deletion map included: built by ``prepare`` at the bot's
        start-up, else on the first unknown query word (a one-off search need not pay)."""
        speller = SpellCorrector(self._spelling_frequencies())
        speller.prepare()
        return speller

    @_built_once
    def _pruned(self) -> PrunedRanking:
        """The pruned ranking's tables (a large corpus only)."""
        return PrunedRanking(self._bm25)

    def prepare(self) -> None:
        """Build what is otherwise built on first use: the typo corrector, the English
        lexicon, the author map and, for a large corpus, the pruned ranking's tables. At
        hundreds of thousands of papers each takes seconds, which a long-running bot had
        better spend while it is idle after start-up than in a researcher's query. Then embed
        the papers that have no stored vector (minutes, for a corpus nobody embedded)."""
        self._speller  # noqa: B018 - reading a part built once builds it
        self._authors_by_token  # noqa: B018
        if len(self.papers) >= PRUNING_MIN_PAPERS:
            self._pruned  # noqa: B018
        english_words()
        if self._semantic is not None:
            self._semantic.fill_missing()

    def _spelling_frequencies(self) -> dict[str, int]:
        """Corpus words a typo may be corrected to, with how many papers use their stem.

        In a large corpus a word of a single paper is more often a name or a typo itself than
        what someone meant, so from 10,000 papers on a word must appear in two."""
        least = 1 if len(self.papers) < 10_000 else 2
        vocabulary = self._bm25.vocabulary
        frequency_of = self._bm25.document_frequencies
        common = list(compress(vocabulary, (frequency_of >= least).tolist()))
        frequencies = {}
        for word in self._analyzer.spelling_words(common):
            tokens = word_tokens(word).tokens
            if tokens:
                term = vocabulary.get(tokens[0])
                if term is not None and frequency_of[term] >= least:
                    frequencies[word] = int(frequency_of[term])
        return frequencies

    def get(self, ref: str) -> Paper | None:
        """A paper by id, OpenReview id or OpenReview URL."""
        ref = ref.strip()
        key = openreview_link_id(ref) or ref
        doc = self._by_id.get(key)
        if doc is None:
            doc = self._by_folded_id.get(key.casefold())
        return None if doc is None else self.papers[doc]

    def _doc(self, paper: Paper) -> int:
        return self._by_id[paper.id]

    # --- searching --------------------------------------------------------------------------

    def search(self, query: str, *, limit: int = 5, offset: int = 0) -> SearchResult:
        """Run the full query language and return one page of hits."""
        limit, offset = max(limit, 0), max(offset, 0)
        parsed = self._parse(query)
        notes = [Note("Only the first 1,000 characters of the query were used.")] * parsed.truncated
        if parsed.reference:
            return self._lookup(query, parsed.reference, notes)
        if parsed.bare_fields:
            usage = self._usage(parsed.bare_fields[0])
            return replace(self._result(query, (), 0, offset, None, notes), usage=usage)
        if parsed.is_empty:
            if parsed.excluded:
                notes.append(
                    Note(
                        "Add a word to search for: a query of only -exclusions has no hits.",
                        advises=True,
                    )
                )
            else:
                notes.append(
                    Note(
                        "Type a few words to search for (e.g. graph sparsification), "
                        '"a quoted phrase", author:name, a paper id, or like:ID.',
                        advises=True,
                    )
                )
            return self._result(query, (), 0, offset, None, notes)
        named = self._named_paper(parsed)
        if named is not None:
            return self._result(query, (Hit(named, None, ()),), 1, 0, None, notes)
        similar_to = None
        if parsed.like:
            similar_to = self.get(parsed.like)
            if similar_to is None:
                notes.append(
                    Note(
                        "No paper with id {} to find similar papers to; use the id in a "
                        "paper's OpenReview link (forum?id=…).",
                        (parsed.like,),
                        advises=True,
                    )
                )
                return self._result(query, (), 0, offset, None, notes)
        plan = self._plan(parsed, similar_to)
        if not plan.tokens and not plan.authors and plan.author_scores is None:
            notes.append(
                Note(
                    "The query has only common words or punctuation; add a more specific word.",
                    advises=True,
                )
            )
            return self._result(query, (), 0, offset, None, notes, similar_to)
        vector = self._query_vector(parsed, plan, similar_to)
        return self._ranked(query, plan, parsed, limit, offset, notes, similar_to, vector)

    def _query_vector(
        self, parsed: ParsedQuery, plan: _Plan, similar_to: Paper | None
    ) -> np.ndarray | None:
        """What the semantic ranking compares papers with: the vector of the paper asked
        for by ``like:``, else of the query's words and phrases (as corrected), without its
        operators; None for an author filter alone or with the semantic part off."""
        if self._semantic is None:
            return None
        if similar_to is not None:
            return self._semantic.paper_vector(self._doc(similar_to))
        if plan.corrected_text is not None:
            parsed = parse_query(plan.corrected_text)
        text = " ".join([*(span.text for span in parsed.words), *parsed.phrases])
        return self._semantic.embed(text) if text else None

    def _ranked(
        self,
        query: str,
        plan: _Plan,
        parsed: ParsedQuery,
        limit: int,
        offset: int,
        notes: list[Note],
        similar_to: Paper | None = None,
        vector: np.ndarray | None = None,
    ) -> SearchResult:
        """One page of the papers a planned query matches, best first: BM25's order, or
        with a ``vector``, the semantic mix's (see ``_mixed_page``)."""
        if vector is None or self._semantic is None:
            page, page_scores, total = self._page(plan, offset + limit)
            bm25_scores, cosines = page_scores, np.full(len(page), np.nan)
        else:
            page, page_scores, bm25_scores, cosines, total = self._mixed_page(
                plan, offset + limit, vector, self._semantic
            )
        highlighter = self._analyzer.highlighter(plan.tokens)
        hits = tuple(
            Hit(
                self.papers[doc],
                score,
                # Words of the paper, as written, whose tokens the query asked for (bolded).
                highlighter.words(_texts(self.papers[doc])),
                bm25,
                None if np.isnan(cosine) else cosine,
                self._named_authors(plan, doc),
            )
            for doc, score, bm25, cosine in zip(
                page[offset : offset + limit].tolist(),
                page_scores[offset : offset + limit].tolist(),
                bm25_scores[offset : offset + limit].tolist(),
                cosines[offset : offset + limit].tolist(),
                strict=True,
            )
        )
        if not total:
            notes.append(self._why_nothing(plan, parsed))
        else:
            if plan.authors:
                names = " and ".join("{}" for _ in plan.authors)
                notes.append(Note(f"Papers with an author named {names}.", tuple(plan.authors)))
            if plan.unmatched:
                notes.append(self._unmatched_note(plan))
        result = self._result(query, hits, total, offset, plan.corrected_text, notes, similar_to)
        return replace(result, counted=plan.counted)

    def _page(self, plan: _Plan, k: int) -> tuple[np.ndarray, np.ndarray, int]:
        """The ``k`` best matches, best first, their scores, and how many papers matched.

        A plain ranked query lets the index score only the papers that can make the page;
        filters (phrases, exclusions, authors, the paper of "more like this") need every
        match's score, and so does a query the index finds not worth pruning."""
        plain = not (plan.phrases or plan.excluded or plan.authors)
        prunable = len(self.papers) >= PRUNING_MIN_PAPERS
        if prunable and plain and plan.exclude_doc is None and plan.author_scores is None:
            ranking = self._pruned.best(plan.tokens, k, self._tiebreak)
            if ranking is not None:
                return ranking.docs, ranking.scores, ranking.total
        scores, matched = self._score(plan)
        candidates = self._contenders(scores, matched, plan.tokens, k)
        page = top_k(scores, k, candidates=candidates, tiebreak=self._tiebreak)
        return page, scores[page], int(np.count_nonzero(matched))

    def _mixed_page(
        self, plan: _Plan, k: int, vector: np.ndarray, semantic: SemanticRanker
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        """The ``k`` best matches by the semantic mix: BM25's ``RERANK_DEPTH`` best and the
        matching papers nearest to ``vector`` (``_nearest``) re-ranked, the papers of authors
        the query names first (as BM25 alone puts them), then BM25's order for any deeper
        page. Also returns the BM25 scores and the cosines the mix was made of
        (cosines are NaN past the re-ranked head), and how many papers matched.

        Every match is scored in full: the re-ranker needs the BM25 score of papers BM25
        itself ranks low, and at a depth of 100 the pruned ranking saves nothing
        (``bench/results/pruning.md``)."""
        scores, matched = self._score(plan)
        total = int(np.count_nonzero(matched))
        if not total:
            nothing = np.zeros(0)
            return nothing.astype(np.intp), nothing, nothing, nothing, 0
        depth = max(k, RERANK_DEPTH)
        candidates = self._contenders(scores, matched, plan.tokens, depth)
        page = top_k(scores, depth, candidates=candidates, tiebreak=self._tiebreak)
        outside = matched.copy()
        outside[page[:RERANK_DEPTH]] = False
        nearest = self._nearest(plan, vector, semantic, outside)
        head = np.concatenate([page[:RERANK_DEPTH], nearest])
        named = None
        if plan.author_runs:
            # Those carrying the whole name typed, not everyone sharing half of it (every
            # He for ``Kaiming He``), as BM25 alone ranks them.
            by_them = reduce(np.union1d, map(self._papers_by, plan.author_runs))
            named = np.isin(head, by_them)
        reranked = semantic.rerank(head, scores[head], vector, self._tiebreak, named)
        rest = page[RERANK_DEPTH:][~np.isin(page[RERANK_DEPTH:], nearest)]
        return (
            np.concatenate([reranked.docs, rest])[:k],
            np.concatenate([reranked.scores, scores[rest]])[:k],
            np.concatenate([reranked.bm25, scores[rest]])[:k],
            np.concatenate([reranked.cosine, np.full(len(rest), np.nan)])[:k],
            total,
        )

    def _nearest(
        self, plan: _Plan, vector: np.ndarray, semantic: SemanticRanker, among: np.ndarray
    ) -> np.ndarray:
        """The papers of the mask ``among`` that join BM25's best for being near the query's
        vector; none for a query that names authors: the model knows topics, not names, so
        near "papers by Mirzaei" is any paper about papers, while the author's own are
        already among BM25's best."""
        if plan.authors or plan.author_scores is not None:
            return np.zeros(0, dtype=np.intp)
        return semantic.nearest(vector, among, NEAREST_CANDIDATES, self._tiebreak)

    def _contenders(
        self, scores: np.ndarray, matched: np.ndarray, tokens: list[str], k: int
    ) -> np.ndarray:
        """The matching papers that can be among the ``k`` best, without sorting them all.

        The k-th best score among the matching papers of the query's rarest term (a small
        sample, and the likeliest to score high) is a floor for the k-th best overall: only
        papers scoring at least that are kept, ties included, so the page is exactly the
        one a full sort gives."""
        sample = min(
            (docs for docs in map(self._bm25.documents, set(tokens)) if len(docs) >= k),
            key=len,
            default=None,
        )
        if k > 0 and sample is not None and 4 * len(sample) < len(scores):
            values = scores[sample[matched[sample]]]
            if len(values) >= k:
                floor = np.partition(values, len(values) - k)[len(values) - k]
                return np.flatnonzero(matched & (scores >= floor))
        return np.flatnonzero(matched)

    def similar(self, paper_id: str, *, limit: int = 5, offset: int = 0) -> SearchResult:
        """Papers like ``paper_id``, the paper itself excluded."""
        return self.search(f"like:{paper_id}", limit=limit, offset=offset)

    def like_paper(self, paper: Paper, *, limit: int = 5, offset: int = 0) -> SearchResult:
        """Papers like ``paper``, which may be outside this corpus (a catalogue paper that a
        link or a reading list brought): its most distinctive words and its text's vector,
        as ``like:`` takes them from a paper of the corpus."""
        if self.get(paper.id) is not None:
            return self.similar(paper.id, limit=limit, offset=offset)
        limit, offset = max(limit, 0), max(offset, 0)
        query = f"like:{paper.id}"
        plan = _Plan(tokens=self._paper_terms(paper), counted=False)
        if not plan.tokens:
            notes = [Note("The paper has no words that papers in this corpus use.")]
            return self._result(query, (), 0, offset, None, notes, paper)
        vector = None if self._semantic is None else self._semantic.embed(embedding_text(paper))
        return self._ranked(query, plan, parse_query(""), limit, offset, [], paper, vector)

    def related(self, text: str, *, limit: int = 5, offset: int = 0) -> SearchResult:
        """Papers related to a free text (a Slack message).

        The text is not read as a query: quotes, hyphens and minus signs are just writing, and
        no word is "corrected". With the semantic part, BM25 takes all of the text's words
        and the text's vector re-ranks; without it, only its most distinctive words, as the
        rest drown them."""
        limit, offset = max(limit, 0), max(offset, 0)
        tokens = [t for word in self._analyzer.words(text) for t in word.tokens]
        # Every paper sharing one of a message's many words is no count worth giving.
        if self._semantic is None:
            plan = _Plan(tokens=self._distinctive_terms(tokens, set(tokens)), counted=False)
            vector = None
        else:
            plan = _Plan(tokens=[t for t in tokens if t in self._bm25.vocabulary], counted=False)
            vector = self._semantic.embed(text)
        if not plan.tokens:
            notes = [Note("The text has no words that papers in this corpus use.")]
            return self._result(text, (), 0, offset, None, notes)
        return self._ranked(text, plan, parse_query(""), limit, offset, [], vector=vector)

    def matching(self, query: str) -> list[tuple[Paper, float]]:
        """Every paper scoring above zero, best first (ties by id): for topic subscriptions."""
        parsed = self._parse(query)
        if parsed.reference or parsed.is_empty:
            return []
        similar_to = self.get(parsed.like) if parsed.like else None
        if parsed.like and similar_to is None:
            return []
        plan = self._plan(parsed, similar_to)
        if not plan.tokens and not plan.authors and plan.author_scores is None:
            return []
        scores, matched = self._score(plan)
        candidates = np.flatnonzero(matched & (scores > 0))
        ranked = top_k(scores, len(candidates), candidates=candidates, tiebreak=self._tiebreak)
        return [(self.papers[doc], float(scores[doc])) for doc in ranked]

    # --- query planning ---------------------------------------------------------------------

    def _parse(self, query: str) -> ParsedQuery:
        """``parse_query``, with each unquoted ``author:`` name continued by the words after
        it while they extend a name some author has: ``author:Stefanie Jegelka graphs`` is
        Stefanie Jegelka's papers about graphs, ``author:Bengio graphs`` Bengio's."""
        parsed = parse_query(query)
        if not any(parsed.author_tails):
            return parsed
        names = list(parsed.authors)
        taken: set[int] = set()
        for number, tail in enumerate(parsed.author_tails):
            for word in tail:
                longer = f"{names[number]} {parsed.words[word].text}"
                if not self._names_an_author(longer):
                    break
                names[number] = longer
                taken.add(word)
        words = tuple(word for number, word in enumerate(parsed.words) if number not in taken)
        return replace(parsed, words=words, authors=tuple(names), author_tails=())

    def _names_an_author(self, name: str) -> bool:
        """Whether some author's name has the words of ``name`` next to each other, in order
        (``Stefanie Jegelka``, ``Yoshua Bengio``, ``Bengio``; not ``Bengio graphs``)."""
        wanted = _name_tokens(name)
        if not wanted:
            return False
        postings = [self._authors_by_token.get(token, _NO_PAPERS) for token in set(wanted)]
        size = len(wanted)
        for doc in reduce(np.intersect1d, postings).tolist():
            for author in self.papers[doc].authors:
                tokens = _name_tokens(author)
                if any(tokens[at : at + size] == wanted for at in range(len(tokens) - size + 1)):
                    return True
        return False

    def _usage(self, field_name: str) -> str:
        """How to write a field typed with nothing after it."""
        if field_name == "like":
            example = self.papers[0].id
            return (
                f"like:ID finds papers like one paper: give its id or OpenReview link, e.g. "
                f"like:{example}, or click More like this under a result."
            )
        return 'author:NAME finds papers by an author, e.g. author:Bengio or author:"Le Song".'

    def named_paper(self, query: str) -> Paper | None:
        """The paper ``query`` only names (its id, OpenReview id or link), if any: such a query
        asks for that paper, not for papers like its words."""
        return self._named_paper(parse_query(query))

    def _named_paper(self, parsed: ParsedQuery) -> Paper | None:
        if parsed.reference:
            return self.get(parsed.reference)
        only_word = len(parsed.words) == 1 and not (
            parsed.phrases or parsed.excluded or parsed.authors or parsed.like
        )
        return self.get(parsed.words[0].text) if only_word else None

    def _plan(self, parsed: ParsedQuery, similar_to: Paper | None) -> _Plan:
        plan = _Plan()
        replacements: list[tuple[int, int, str]] = []
        typed: list[_Typed] = []
        initial = True
        for span in parsed.words:
            if "$" in span.text or "\\" in span.text:
                typed.extend(_Typed(unit, unit) for unit in written_words(span.text))
                initial = span.text.endswith(_SENTENCE_ENDS)
                continue
            for unit, start, _ in unit_spans(span, WORD_PATTERN):
                known = self._is_known(unit)
                if known and not self._is_cited_name(unit):
                    typed.append(_Typed(unit, unit))
                elif known or self._is_author_word(unit, initial):
                    typed.append(_Typed(unit, unit, author_only=True))
                else:
                    fixes = self._corrections(unit)
                    fixed = unit
                    for piece_start, piece_end, fix in reversed(fixes):
                        fixed = fixed[:piece_start] + fix + fixed[piece_end:]
                        replacements.append((start + piece_start, start + piece_end, fix))
                    typed.append(_Typed(unit, fixed))
                initial = False
            initial = span.text.endswith(_SENTENCE_ENDS)
        if not any(self._is_known(word.text) for word in typed):
            # Only names can find anything: ``Manning`` or ``Burns`` alone means the author,
            # however English the word and wherever it stands.
            typed = [
                replace(word, author_only=True)
                if word_tokens(word.typed).tokens and self._is_name(word.typed)
                else word
                for word in typed
            ]
        for word in typed:
            if not word.author_only:
                plan.tokens.extend(self._analyzer.query_word(word.text).tokens)
                if word_tokens(word.text).tokens:
                    known = self._is_known(word.text)
                    (plan.searched if known else plan.unmatched).append(
                        word.text if known else word.typed
                    )
        plan.tokens.extend(self._expansions(typed, plan.tokens))
        runs = plan.author_runs = self._author_runs(typed)
        plan.author_scores = self._author_scores(runs)
        vocabulary = self._bm25.vocabulary
        free = {token for token in plan.tokens if token in vocabulary}
        conditions = len(free) + len(parsed.phrases) + (plan.author_scores is not None)
        # A full name also finds those who share half of it (every He for ``Kaiming He``):
        # that many papers are no count of the person's.
        whole_names = all(len(run) == 1 for run in runs)
        plan.counted = similar_to is None and conditions <= 1 and whole_names
        plan.authors.extend(parsed.authors)
        for phrase in parsed.phrases:
            if self._is_full_name(phrase):
                plan.authors.append(phrase)
                continue
            for word in written_words(phrase):
                plan.tokens.extend(self._analyzer.query_word(word).tokens)
            plan.phrases.append((phrase, self._phrase_variants(phrase)))
        for phrase in parsed.excluded:
            plan.excluded.append((phrase, self._phrase_variants(phrase)))
        if similar_to is not None:
            plan.exclude_doc = self._doc(similar_to)
            plan.tokens.extend(self._paper_terms(similar_to))
        if replacements:
            text = parsed.text
            for start, end, fix in sorted(replacements, reverse=True):
                text = text[:start] + fix + text[end:]
            plan.corrected_text = text
        return plan

    def _is_known(self, word: str) -> bool:
        """Whether a paper's title or abstract has the word: one of its tokens, or for a
        hyphenated word its joined form or every part (``text-to-moton`` is not known)."""
        vocabulary = self._bm25.vocabulary
        tokens = word_tokens(word)
        if tokens.joined is None:
            return any(token in vocabulary for token in tokens.tokens)
        return tokens.joined in vocabulary or all(token in vocabulary for token in tokens.parts)

    def _is_name(self, word: str) -> bool:
        """Whether every name word in ``word`` (as typed) is part of some author's name."""
        names = _name_tokens(word)
        return bool(names) and all(name in self._authors_by_token for name in names)

    def _is_full_name(self, phrase: str) -> bool:
        """Whether a quoted phrase of two or more words is an author's name (``"Yoshua
        Bengio"``). It is then an ``author:`` filter, as titles and abstracts, which phrases
        are looked for in, hold no names."""
        return len(written_words(phrase)) > 1 and self._names_an_author(phrase)

    def _is_author_word(self, word: str, initial: bool) -> bool:
        """A word (as typed) that can only mean an author: part of an author's name, in no
        title or abstract, not a stopword (``He`` and ``Do`` are names too, but in every
        question), and not an English word unless capitalised inside a sentence (``Young``,
        not ``young`` or a sentence's ``Young``; the lexicon lists many names as well, so
        ``Finn`` counts only when written as one). A stopword or English word still counts
        next to such a word, or as part of a full name (``Tianyu He``). Initials alone name
        nobody: ``I'm`` is the initials I. and M. of many authors."""
        return (
            bool(word_tokens(word).tokens)
            and not self._is_known(word)
            and self._is_name(word)
            and any(len(name) > 1 for name in _name_tokens(word))
            and (
                word.casefold() not in english_words()
                or (not initial and word[:1].isupper() and not word.isupper())
            )
        )

    def _is_cited_name(self, word: str) -> bool:
        """A surname some abstracts cite (``Bengio``, ``Zhang``), typed as a name: capitalised,
        not an English word, and the name of authors of more than twice as many papers as
        use it in their title or abstract (and at least three), so it means the people."""
        if not word[:1].isupper() or word.isupper() or word.casefold() in english_words():
            return False
        names = _name_tokens(word)
        if len(names) != 1 or len(names[0]) < 2:
            return False
        authored = len(self._authors_by_token.get(names[0], _NO_PAPERS))
        said = max(map(self._bm25.document_frequency, word_tokens(word).tokens), default=0)
        return authored >= _LEAST_CITED_NAME_PAPERS and authored > 2 * said

    def _corrections(self, word: str) -> list[tuple[int, int, str]]:
        """Typo corrections inside a word the corpus does not know, as (start, end,
        replacement) within it: the word itself if it is all letters, or each unknown part
        of a hyphenated word (``text-to-moton``). Nothing is corrected that the corpus, the
        English lexicon or an author's name vouches for, nor a word typed with two or more
        capitals (an acronym or a name the corpus lacks, not a slip)."""
        if sum(c.isupper() for c in word) >= 2:
            return []
        if word.isalpha():
            pieces = [(word, 0, len(word))]
        elif _HYPHENATED_LETTERS.fullmatch(word):
            pieces = [(m.group(), m.start(), m.end()) for m in _LETTERS.finditer(word)]
        else:
            return []
        english = english_words()
        fixes = []
        for piece, start, end in pieces:
            if (
                not word_tokens(piece).tokens
                or piece.casefold() in english
                or self._is_known(piece)
                or self._is_name(piece)
            ):
                continue
            fix = self._speller.correct(piece)
            if fix is not None:
                # "Showing results for" echoes the fix: ``Bengoi`` reads ``Bengio``.
                shown = fix[:1].upper() + fix[1:] if piece[:1].isupper() else fix
                fixes.append((start, end, shown))
        return fixes

    def _expansions(self, typed: list[_Typed], tokens: list[str]) -> list[str]:
        """Long forms of the acronyms the user typed as acronyms: two or more capitals
        (``OOD``, ``MLLMs``), never a lower-case word that happens to spell one (``clips``,
        ``node``), and never the other way round (``language models`` is not ``LM``)."""
        seen = set(tokens)
        extra: list[str] = []
        for word in typed:
            if word.author_only or sum(c.isupper() for c in word.text) < 2:
                continue
            for token in word_tokens(word.text).tokens:
                acronym = self._acronyms.get(token)
                if acronym is None or not self._long_form_is_usual(acronym):
                    continue
                for long_token in acronym.long_tokens:
                    if long_token not in seen:
                        seen.add(long_token)
                        extra.append(long_token)
        return extra

    def _long_form_is_usual(self, acronym: Acronym) -> bool:
        """Whether more papers hold every word of the long form than the acronym. Only then
        does the long form find papers the acronym would miss; where the acronym is how the
        papers say it (``LoRA``), they already match, and the long form's common words
        (``low``, ``rank``) would lift every paper on the topic over the one the rest of
        the query describes."""
        usual = self._usual_long_forms.get(acronym.token)
        if usual is None:
            postings = [self._bm25.documents(token) for token in set(acronym.long_tokens)]
            holding = len(reduce(np.intersect1d, postings))
            usual = holding > self._bm25.document_frequency(acronym.token)
            self._usual_long_forms[acronym.token] = usual
        return usual

    def _author_runs(self, typed: list[_Typed]) -> list[frozenset[str]]:
        """Name words of the authors a query names: each run of neighbouring words that are
        all parts of author names and either hold a word that can only mean an author, or
        are two or more words one author's name holds in full (``Wei Chen``, though ``chen``
        is in some abstract and ``wei`` in the English lexicon)."""
        runs: list[frozenset[str]] = []
        run: list[_Typed] = []
        for word in [*typed, None]:
            if word is not None and (word.author_only or self._is_name(word.typed)):
                run.append(word)
                continue
            names = frozenset(t for member in run for t in _name_tokens(member.typed))
            if any(member.author_only for member in run) or (
                len(run) > 1 and len(self._papers_by(names)) > 0
            ):
                runs.append(names)
            run = []
        return runs

    def _phrase_variants(self, phrase: str) -> list[tuple[str, ...]]:
        """Token sequences a phrase may appear as: split into its parts (as the index stores
        every compound some paper hyphenates) or, for a hyphenated word no paper hyphenates,
        joined (``self-play`` finds ``selfplay``)."""
        options: list[list[tuple[str, ...]]] = []
        for tokens in self._analyzer.words(phrase):
            choices = [tokens.parts] if tokens.parts else []
            if tokens.joined:
                choices.append((tokens.joined,))
            if choices:
                options.append(choices)
        if not options:
            return []
        combos = islice(product(*options), MAX_PHRASE_VARIANTS)
        return [tuple(t for part in combo for t in part) for combo in combos]

    def _distinctive_terms(self, tokens: list[str], content: set[str]) -> list[str]:
        """The ``content`` terms with the highest BM25 weight in a text of ``tokens``."""
        frequencies = Counter(tokens)
        length = len(tokens)
        weights = {t: self._bm25.weight(t, frequencies[t], length) for t in content}
        ranked = sorted((t for t in content if weights[t] > 0), key=lambda t: (-weights[t], t))
        return ranked[:LIKE_TERMS]

    def _paper_terms(self, paper: Paper) -> list[str]:
        """A paper's most distinctive title and abstract terms: its "more like this" query."""
        fields = _fields(self._analyzer, paper)
        return self._distinctive_terms(_bm25_tokens(fields), {*fields[0], *fields[1]})

    # --- scoring and filtering --------------------------------------------------------------

    def _score(self, plan: _Plan) -> tuple[np.ndarray, np.ndarray]:
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
            matched &= self._phrase_mask(variants)
        for _, variants in plan.excluded:
            matched &= ~self._phrase_mask(variants)
        if plan.authors:
            matched &= self._author_mask(plan.authors)
        if plan.exclude_doc is not None:
            matched[plan.exclude_doc] = False
        return scores, matched

    def _phrase_mask(self, variants: Iterable[tuple[str, ...]]) -> np.ndarray:
        """Papers containing one of the token sequences: the papers holding all its tokens
        are re-read, so no positions need to be kept for the rare quoted query."""
        mask = np.zeros(len(self.papers), dtype=bool)
        reader = self._analyzer.phrase_reader()
        for variant in variants:
            postings = [self._bm25.documents(token) for token in set(variant)]
            candidates = reduce(np.intersect1d, postings)
            if len(variant) == 1:
                mask[candidates] = True
                continue
            wanted = " " + " ".join(variant) + " "
            for doc in candidates.tolist():
                if not mask[doc] and any(
                    wanted in reader.tokens(text) for text in _texts(self.papers[doc])
                ):
                    mask[doc] = True
        return mask

    @_built_once
    def _authors_by_token(self) -> dict[str, np.ndarray]:
        """Name word → papers with an author of that name word (built by ``prepare``, else
        on the first ``author:`` query)."""
        lists: dict[str, list[int]] = {}
        for doc, paper in enumerate(self.papers):
            for token in {t for name in paper.authors for t in _name_tokens(name)}:
                lists.setdefault(token, []).append(doc)
        return {token: np.array(docs, dtype=np.int64) for token, docs in lists.items()}

    def _author_mask(self, names: Iterable[str]) -> np.ndarray:
        """Papers with, for each name asked for, one author carrying all of its words."""
        mask = np.ones(len(self.papers), dtype=bool)
        for name in names:
            wanted = frozenset(_name_tokens(name))
            if not wanted:
                continue
            allowed = np.zeros(len(self.papers), dtype=bool)
            allowed[self._papers_by(wanted)] = True
            mask &= allowed
        return mask

    def _named_authors(self, plan: _Plan, doc: int) -> tuple[str, ...]:
        """The paper's authors each name of the query stands for: those carrying most of its
        words (``Kaiming He`` himself where he is an author, else any He)."""
        wanted = [frozenset(_name_tokens(name)) for name in plan.authors] + plan.author_runs
        if not wanted:
            return ()
        authors = self.papers[doc].authors
        carried = [frozenset(_name_tokens(author)) for author in authors]
        named: dict[str, None] = {}
        for names in wanted:
            shared = [len(names & words) for words in carried]
            most = max(shared, default=0)
            pairs = zip(authors, shared, strict=True)
            named.update((author, None) for author, n in pairs if n and n == most)
        return tuple(named)

    def _papers_by(self, names: frozenset[str]) -> np.ndarray:
        """Papers with one author whose name holds every one of ``names`` (non-empty)."""
        postings = [self._authors_by_token.get(token, _NO_PAPERS) for token in names]
        docs = reduce(np.intersect1d, postings)
        if len(names) == 1:
            return docs
        authors = [self.papers[doc].authors for doc in docs.tolist()]
        return docs[[any(names <= set(_name_tokens(a)) for a in written) for written in authors]]

    def _author_scores(self, runs: list[frozenset[str]]) -> np.ndarray | None:
        """What naming authors adds to each paper's score. Each run of name words is one
        term of an author field: a paper scores the idf of the part of the run that one of
        its authors carries (the best author), counted as a term at its saturation, the most
        any term adds in BM25Okapi (idf * (k1 + 1)), as a name is as telling as a word can
        be, times the share of the run's words the part holds. A long author list costs
        nothing (b = 0). The idf is that of the part as a whole, so ``Wei Chen`` weighs what
        papers by a Wei Chen make rare, not what the many Chens make common, and an author
        who shares only a rare first name gets half of it; a name typed with a topic lifts
        that author's papers on the topic without hiding everyone else's."""
        if not runs:
            return None
        scores = np.zeros(len(self.papers), dtype=np.float64)
        for run in runs:
            scores += self._run_scores(run)
        return scores

    def _run_scores(self, run: frozenset[str]) -> np.ndarray:
        """One run's share of ``_author_scores``. A paper with one of the run's words is
        given that word's weight in one numpy step (the best, if its authors carry several
        words but no two in one name); only papers holding two or more of the words, few but
        for the author asked for, have their author lists read."""
        weights: dict[frozenset[str], float] = {}

        def weight(part: frozenset[str]) -> float:
            if part not in weights:
                weights[part] = self._name_weight(part) * len(part) / len(run)
            return weights[part]

        scores = np.zeros(len(self.papers), dtype=np.float64)
        postings = [self._authors_by_token[name] for name in run]
        for name, docs in zip(run, postings, strict=True):
            scores[docs] = np.maximum(scores[docs], weight(frozenset((name,))))
        if len(run) > 1:
            docs, holding = np.unique(np.concatenate(postings), return_counts=True)
            for doc in docs[holding > 1].tolist():
                carried = {run.intersection(_name_tokens(a)) for a in self.papers[doc].authors}
                scores[doc] = max(weight(part) for part in carried if part)
        return scores

    def _name_weight(self, names: frozenset[str]) -> float:
        """BM25Okapi's saturated weight of a name part over the papers with an author who
        carries all of it; a name on more than half of the papers (a tiny corpus) keeps a
        small positive weight instead of a negative one."""
        papers, holding = len(self.papers), len(self._papers_by(names))
        idf = max(math.log((papers - holding + 0.5) / (holding + 0.5)), _LEAST_NAME_IDF)
        return idf * (K1 + 1)

    # --- presenting -------------------------------------------------------------------------

    @staticmethod
    def _unmatched_note(plan: _Plan, advice: str = "") -> Note:
        """Which words found nothing, so that a reader does not take the rest for them: the
        first few, and how many more (a pasted paragraph must not fill the reply)."""
        unmatched = list(dict.fromkeys(plan.unmatched))
        named = unmatched[:UNMATCHED_NAMED]
        missing = " or ".join("{}" for _ in named)
        if len(unmatched) > len(named):
            hidden = len(unmatched) - len(named)
            missing += f" and {hidden} more word" + ("s" if hidden > 1 else "")
        if not plan.searched:
            return Note(f"No paper mentions {missing}.{advice}", tuple(named), advises=bool(advice))
        found = " ".join(dict.fromkeys(plan.searched))
        text = f"No paper mentions {missing}; showing papers about {{}}.{advice}"
        return Note(text, (*named, found), advises=bool(advice))

    def _why_nothing(self, plan: _Plan, parsed: ParsedQuery) -> Note:
        name = plan.authors[0] if len(plan.authors) == 1 and " " not in plan.authors[0] else None
        after = parsed.text.partition(f"author:{name}")[2].split() if name else []
        capitalised = list(takewhile(lambda word: word[:1].isupper(), after))
        full = " ".join([name, *capitalised]) if name and capitalised else None
        if plan.authors and not self._author_mask(plan.authors).any():
            names = ", ".join("{}" for _ in plan.authors)
            if full is not None:
                return Note(
                    f"No paper has an author named {names} (for a full name, quote it: {{}}).",
                    (*plan.authors, f'author:"{full}"'),
                    advises=True,
                )
            return Note(
                f"No paper has an author named {names} (check the spelling).",
                tuple(plan.authors),
                advises=True,
            )
        names_only = all(self._is_name(word) and not self._is_known(word) for word in capitalised)
        if full is not None and names_only and not self._author_mask([full]).any():
            # ``author:Tri Dao``: papers by a Tri exist, but no author is called Tri Dao (and
            # "Dao" can only be a name: ``author:LeCun Diffusion`` is a name and a topic).
            return Note("No paper has an author named {}.", (full,), advises=True)
        vocabulary = self._bm25.vocabulary
        if plan.tokens and not any(token in vocabulary for token in plan.tokens):
            letters = [letter for word in plan.unmatched for letter in word if letter.isalpha()]
            if letters and not any(letter.isascii() for letter in letters):
                return self._unmatched_note(plan, " The papers are in English: try English words.")
            if plan.unmatched:
                return self._unmatched_note(plan, " Check the spelling or try other words.")
            return Note(
                "No paper mentions these words; check the spelling or try other words.",
                advises=True,
            )
        for phrase, variants in plan.phrases:
            if not self._phrase_mask(variants).any():
                return Note(
                    "No paper contains the phrase {}; try it without quotes.",
                    (phrase,),
                    advises=True,
                )
        if parsed.excluded:
            words = " ".join(f"-{phrase}" for phrase in parsed.excluded)
            return Note("Every paper that matched was excluded by {}.", (words,))
        return Note(
            "No paper matches all of the query's conditions; try fewer of them.", advises=True
        )

    def _lookup(self, query: str, ref: str, notes: list[Note]) -> SearchResult:
        paper = self.get(ref)
        if paper is None:
            notes.append(Note("No paper with id {} in this corpus.", (ref,), advises=True))
            return self._result(query, (), 0, 0, None, notes)
        return self._result(query, (Hit(paper, None, ()),), 1, 0, None, notes)

    @staticmethod
    def _result(
        query: str,
        hits: tuple[Hit, ...],
        total: int,
        offset: int,
        corrected: str | None,
        notes: list[Note],
        similar_to: Paper | None = None,
    ) -> SearchResult:
        return SearchResult(query, hits, total, offset, corrected, tuple(notes), similar_to)
