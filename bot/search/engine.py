"""The search facade the bot calls: papers in, ranked hits with matched words and reasons out.

It composes the parts, each with explicit inputs: the query parser (``query``), the planner
(a parsed query → a plan), the author index, the ranker (BM25, filters, paging, the semantic
mix) and the explanations (reasons, never sentences). It keeps no token positions: a quoted
phrase is checked by re-reading the few papers that hold all of its words, which keeps the
index small enough for hundreds of thousands of abstracts.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from bot.clock import Clock, system_clock
from bot.papers.paper import Paper
from bot.papers.urls import linked_paper_id
from bot.search.analyzer import CorpusAnalyzer
from bot.search.authors import AuthorIndex
from bot.search.defined_acronyms import Acronym, AcronymMiner
from bot.search.embedding import DIMENSIONS
from bot.search.explanations import Explanations
from bot.search.fielded import FieldedBM25
from bot.search.filtering import FilterColumns, read_filter
from bot.search.foryou import (
    MAX_SUGGESTIONS,
    NOT_LIKE,
    rank_by_taste,
    rank_for_reader,
    vector_table,
)
from bot.search.growth import extend_index, settle
from bot.search.indexing import ChunkIndexer
from bot.search.lexicon import english_words
from bot.search.model_rule import ModelQuery
from bot.search.plan import Plan
from bot.search.planner import DEFAULT_PLANNER_OPTIONS, PlannerOptions, QueryPlanner
from bot.search.query import MAX_QUERY_CHARS, ParsedQuery, parse_query
from bot.search.query_vectors import Quiet
from bot.search.ranker import DEFAULT_RANKER_OPTIONS, Ranker, RankerOptions
from bot.search.results import (
    FIELDS,
    LIKE,
    MIN_SAVES,
    BadFilterValue,
    EmptyQuery,
    Filter,
    ForYou,
    Hit,
    Liked,
    NoSharedWords,
    NoVectors,
    OnlyCommonWords,
    OnlyExclusions,
    Reason,
    SearchResult,
    Source,
    Suggestion,
    TooFewSaves,
    Truncated,
    UnknownId,
    UnknownLike,
    Usage,
    field_name,
)
from bot.search.saved_papers import id_lookups
from bot.search.semantic import SemanticRanker
from bot.search.spelling import SpellCorrector
from bot.search.vectors import embedding_text


class IndexParts(NamedTuple):
    """An index's parts, in ``SearchIndex``'s order of arguments."""

    papers: Sequence[Paper]
    bm25: FieldedBM25
    acronyms: dict[str, Acronym]
    analyzer: CorpusAnalyzer
    semantic: SemanticRanker | None
    authors: AuthorIndex
    speller: SpellCorrector
    miner: AcronymMiner


class SearchIndex:
    """An immutable index over one corpus; build once per process, query from any thread.

    The planner's and the ranker's options default to everything on, as the bot searches;
    the quality bench builds variants with one part off through them. ``clock`` says what
    day it is, for the filters that count days back (``since:7d``)."""

    def __init__(
        self,
        papers: Sequence[Paper],
        bm25: FieldedBM25,
        acronyms: dict[str, Acronym],
        analyzer: CorpusAnalyzer,
        semantic: SemanticRanker | None = None,
        *,
        planner_options: PlannerOptions = DEFAULT_PLANNER_OPTIONS,
        ranker_options: RankerOptions = DEFAULT_RANKER_OPTIONS,
        miner: AcronymMiner | None = None,
        clock: Clock = system_clock,
        authors: AuthorIndex | None = None,
        speller: SpellCorrector | None = None,
        grown_from: SearchIndex | None = None,
    ) -> None:
        """``speller``, a saved index's typo corrector, is used as it is; ``grown_from``, an
        index of the first of ``papers``, lends its id lookups to be extended by the others
        (an addition) rather than made again (``id_lookups``)."""
        self.papers = papers
        self._clock = clock
        self._columns = FilterColumns(papers)
        self._acronyms = acronyms
        self._semantic = semantic
        self._options = (planner_options, ranker_options)
        self._miner = miner
        self._bm25 = bm25
        self._analyzer = analyzer
        self._authors = AuthorIndex(papers) if authors is None else authors
        self._planner = QueryPlanner(
            papers,
            bm25,
            analyzer,
            acronyms,
            self._authors,
            planner_options,
            self._columns,
            speller,
        )
        self._ranker = Ranker(papers, bm25, analyzer, self._authors, semantic, ranker_options)
        self._explanations = Explanations(
            bm25, self._authors, self._ranker.has_phrase, self._columns
        )
        self.settled = True
        """False for an ``extended`` index read by its old compound rules (see ``settle``)."""
        before = None
        if grown_from is not None:
            before = (grown_from._by_id, grown_from._by_folded_id), len(grown_from.papers)
        self._by_id, self._by_folded_id = id_lookups(papers, before)

    @classmethod
    def build(
        cls,
        papers: Sequence[Paper],
        semantic: Callable[[Sequence[Paper]], SemanticRanker | None] | None = None,
        *,
        planner_options: PlannerOptions = DEFAULT_PLANNER_OPTIONS,
        ranker_options: RankerOptions = DEFAULT_RANKER_OPTIONS,
        clock: Clock = system_clock,
    ) -> SearchIndex:
        """The index of ``papers``; ``semantic`` makes the re-ranker over them (None: BM25
        alone)."""
        papers = tuple(papers)
        analyzer, bm25 = ChunkIndexer().index(papers)
        miner = AcronymMiner()
        miner.read(map(_acronym_text, papers))
        ranker = semantic(papers) if semantic is not None else None
        return cls(
            papers,
            bm25,
            miner.best(),
            analyzer,
            ranker,
            planner_options=planner_options,
            ranker_options=ranker_options,
            miner=miner,
            clock=clock,
        )

    def extended(
        self, papers: Sequence[Paper], vectors: Sequence[np.ndarray | None] = ()
    ) -> SearchIndex:
        """This index plus ``papers`` (new ids), built beside this one, which is left as it
        is: ranking exactly as ``build`` over all of them would, or, where the new papers
        teach the analyzer a compound, as the old compound rules read them until ``settled``
        builds it again (``bot.search.growth``; ``settled`` says which). ``vectors`` are the
        new papers' text vectors where known (None where not); the others are embedded by
        ``prepare``."""
        new = tuple(papers)
        grown = extend_index(self._analyzer, self._bm25, new)
        miner = self._mined().copy()
        miner.read(map(_acronym_text, new))
        semantic = None if self._semantic is None else self._semantic.extended(new, vectors)
        papers = self.papers + new
        authors = self._authors.extended(papers)
        index = self._like(papers, grown.analyzer, grown.bm25, semantic, miner, authors)
        index._planner.grow(self._planner, grown.added, grown.chunks)
        index.settled = grown.settled
        return index

    def settle(self) -> SearchIndex:
        """This index as a full build gives it (itself when it is one already), its vectors
        and acronyms kept: what replaces an unsettled ``extended`` index."""
        if self.settled:
            return self
        analyzer, bm25 = settle(self.papers)
        assert self._miner is not None  # an extended index keeps the miner it grew
        return self._like(self.papers, analyzer, bm25, self._semantic, self._miner, self._authors)

    def _like(
        self,
        papers: tuple[Paper, ...],
        analyzer: CorpusAnalyzer,
        bm25: FieldedBM25,
        semantic: SemanticRanker | None,
        miner: AcronymMiner,
        authors: AuthorIndex,
    ) -> SearchIndex:
        """An index with this one's options over this one's papers and maybe more after them,
        or other BM25 parts."""
        planner_options, ranker_options = self._options
        return SearchIndex(
            papers,
            bm25,
            miner.best(),
            analyzer,
            semantic,
            planner_options=planner_options,
            ranker_options=ranker_options,
            miner=miner,
            clock=self._clock,
            authors=authors,
            grown_from=self,
        )

    def parts(self) -> IndexParts:
        """What this index is made of, for ``bot.search.snapshot`` to save (the typo
        corrector built now if it was not): an index made again of the same parts answers
        as this one does."""
        return IndexParts(
            self.papers,
            self._bm25,
            self._acronyms,
            self._analyzer,
            self._semantic,
            self._authors,
            self._planner.speller,
            self._mined(),
        )

    def _mined(self) -> AcronymMiner:
        """The acronym miner's counts over this index's papers, mined now where an index was
        made without them (``SearchIndex(...)`` given no ``miner``), then kept."""
        if self._miner is None:
            self._miner = AcronymMiner()
            self._miner.read(map(_acronym_text, self.papers))
        return self._miner

    @property
    def model(self) -> str | None:
        """The fingerprint of the model whose vectors re-rank this index (None: BM25 alone),
        so papers added from the store bring vectors of that model only."""
        return None if self._semantic is None else self._semantic.model

    @property
    def unembedded(self) -> int:
        """How many papers have no vector yet, and rank by BM25 alone until embedded."""
        return 0 if self._semantic is None else self._semantic.missing

    def prepare(self, *, embed: bool = True, quiet: Quiet | None = None) -> None:
        """Build what is otherwise built on first use: the typo corrector, whether each
        acronym's long form is usual (``QueryPlanner.prepare``), the English lexicon, the
        author map and its names' corrector, and the ranker's tables (``Ranker.prepare``).
        At hundreds of thousands of papers each takes seconds, which a long-running bot had
        better spend while it is idle after start-up than in a researcher's query. Given
        ``quiet``, which says when nothing else needs the CPU, open the model's session on
        which a lone query runs on both cores (``bot.search.query_vectors``): a served bot
        passes its listener pool's, a process that asks one query at a time
        ``always_quiet``; without it no session is opened that nothing would use. Then, with
        ``embed``, embed the papers that have no stored vector (minutes, for a corpus nobody
        embedded): a bot does so in the background, a batch that waits for its answers not."""
        self._planner.speller  # noqa: B018 - reading a part built once builds it
        self._planner.prepare()
        self._authors.by_token  # noqa: B018
        self._authors.speller  # noqa: B018
        self._ranker.prepare()
        english_words()
        if self._semantic is not None:
            if quiet is not None:
                self._semantic.run_alone_when(quiet)
            if embed:
                self._semantic.fill_missing()

    def get(self, ref: str) -> Paper | None:
        """A paper by id, OpenReview id, arXiv id, or a link to its OpenReview or arXiv page."""
        ref = ref.strip()
        key = linked_paper_id(ref) or ref
        doc = self._by_id.get(key)
        if doc is None:
            doc = self._by_folded_id.get(key.casefold())
        return None if doc is None else self.papers[doc]

    def _doc(self, paper: Paper) -> int:
        return self._by_id[paper.id]

    def parse(self, query: str) -> ParsedQuery:
        """The query taken apart once, its ``author:`` names continued as this corpus's
        authors' names go (see ``QueryPlanner.resolve``)."""
        return self._planner.resolve(parse_query(query))

    def paper_reference(self, query: str) -> str | None:
        """The paper id or link a query names instead of searching: its id or link alone, or
        the one OpenReview link among plain words (see ``ParsedQuery``)."""
        parsed = parse_query(query)
        return parsed.named_reference or parsed.linked_reference

    # --- searching --------------------------------------------------------------------------

    def search(self, query: str, *, limit: int = 5, offset: int = 0) -> SearchResult:
        """Run the full query language and return one page of hits."""
        limit, offset = max(limit, 0), max(offset, 0)
        parsed = self.parse(query)
        reasons: list[Reason] = [Truncated(MAX_QUERY_CHARS)] * parsed.truncated
        if parsed.reference:
            paper = self.get(parsed.reference)
            if paper is None:
                return _nothing(query, 0, [*reasons, UnknownId(parsed.reference)])
            return SearchResult(query, (Hit(paper, None),), 1, 0, None, tuple(reasons))
        if parsed.bare_fields:
            return replace(_nothing(query, offset, reasons), usage=self._usage(parsed))
        if parsed.is_empty:
            reasons.append(OnlyExclusions() if parsed.excluded else EmptyQuery())
            return _nothing(query, offset, reasons)
        filters = self._read_filters(parsed)
        if bad := [read for read in filters if isinstance(read, BadFilterValue)]:
            return _nothing(query, offset, [*reasons, *bad])
        named = self.get(parsed.named_reference) if parsed.named_reference else None
        if named is not None:
            return SearchResult(query, (Hit(named, None),), 1, 0, None, tuple(reasons))
        similar_to = None
        if parsed.like:
            similar_to = self.get(parsed.like)
            if similar_to is None:
                return _nothing(query, offset, [*reasons, UnknownLike(parsed.like)])
        similar_doc = None if similar_to is None else self._doc(similar_to)
        read = [one for one in filters if isinstance(one, Filter)]
        plan = self._planner.plan(parsed, similar_doc, read)
        if plan.is_empty:
            reasons.append(OnlyCommonWords())
            return _nothing(query, offset, reasons, similar_to)
        meaning = None
        if self._semantic is not None:
            meaning = self._meaning(self._semantic, parsed, plan, similar_to)
        return self._ranked(query, plan, parsed, limit, offset, reasons, similar_to, meaning)

    def _read_filters(self, parsed: ParsedQuery) -> list[Filter | BadFilterValue]:
        """The query's filters as read, days back counted from the clock's today (asked
        only of a query with filters)."""
        if not parsed.filters:
            return []
        today = self._clock().date()
        return [read_filter(typed, today) for typed in parsed.filters]

    def _usage(self, parsed: ParsedQuery) -> Usage:
        """How to write the first field typed with nothing after it."""
        (operator,) = (op for op in FIELDS if field_name(op) == parsed.bare_fields[0])
        return Usage(operator, self.papers[0].id if operator is LIKE else None)

    def _meaning(
        self,
        semantic: SemanticRanker,
        parsed: ParsedQuery,
        plan: Plan,
        similar_to: Paper | None,
    ) -> ModelQuery | None:
        """What the semantic ranking compares papers with: the paper asked for by
        ``like:``, else the query's words and phrases (as corrected, every word typed),
        without its operators; None for an author filter alone."""
        if similar_to is not None:
            doc = self._doc(similar_to)
            return ModelQuery(embedding_text(similar_to), lambda: semantic.paper_vector(doc))
        if plan.corrections:
            typed = sorted((*parsed.words, *parsed.name_words), key=lambda span: span.start)
            words = [_corrected(span.text, span.start, plan) for span in typed]
        else:
            words = [span.text for span in parsed.words]
        text = " ".join([*words, *parsed.phrases])
        return ModelQuery(text, functools.partial(semantic.embed, text)) if text else None

    def _ranked(
        self,
        query: str,
        plan: Plan,
        parsed: ParsedQuery | None,
        limit: int,
        offset: int,
        reasons: list[Reason],
        similar_to: Paper | None = None,
        meaning: ModelQuery | None = None,
    ) -> SearchResult:
        """One page of a planned query, with what to know about it (``parsed`` is None for
        a paper or text that is no query)."""
        hits, total = self._ranker.page(plan, limit, offset, meaning)
        if not total:
            reasons.append(self._explanations.of_nothing(plan, parsed))
        else:
            reasons.extend(self._explanations.of_matches(plan, parsed))
        return SearchResult(
            query,
            hits,
            total,
            offset,
            plan.corrected_text,
            tuple(reasons),
            similar_to,
            counted=plan.counted,
        )

    def similar(self, paper_id: str, *, limit: int = 5, offset: int = 0) -> SearchResult:
        """Papers like ``paper_id``, the paper itself excluded."""
        return self.search(f"{LIKE.prefix}{paper_id}", limit=limit, offset=offset)

    def like_paper(self, paper: Paper, *, limit: int = 5, offset: int = 0) -> SearchResult:
        """Papers like ``paper``, which may be outside this corpus (a catalogue paper that a
        link or a reading list brought): its most distinctive words and its text's vector,
        as ``like:`` takes them from a paper of the corpus."""
        if self.get(paper.id) is not None:
            return self.similar(paper.id, limit=limit, offset=offset)
        limit, offset = max(limit, 0), max(offset, 0)
        query = f"{LIKE.prefix}{paper.id}"
        plan = Plan(tokens=self._planner.paper_terms(paper), counted=False)
        if not plan.tokens:
            return _nothing(query, offset, [NoSharedWords(Source.PAPER)], paper)
        return self._ranked(query, plan, None, limit, offset, [], paper, self._text_meaning(paper))

    def related(self, text: str, *, limit: int = 5, offset: int = 0) -> SearchResult:
        """Papers related to a free text (a Slack message), which is not read as a query
        (see ``QueryPlanner.for_text``). BM25 takes all of the text's words and, with the
        semantic part, the text's vector re-ranks."""
        limit, offset = max(limit, 0), max(offset, 0)
        plan = self._planner.for_text(text)
        if not plan.tokens:
            return _nothing(text, offset, [NoSharedWords(Source.TEXT)])
        return self._ranked(text, plan, None, limit, offset, [], meaning=self._text_meaning(text))

    def _text_meaning(self, source: Paper | str) -> ModelQuery | None:
        """What the model reads of a paper outside the corpus or of a free text."""
        if self._semantic is None:
            return None
        text = source if isinstance(source, str) else embedding_text(source)
        return ModelQuery(text, functools.partial(self._semantic.embed, text))

    def results(self, query: str) -> list[Paper]:
        """Every paper ``search(query)`` pages through, in its order: the papers a topic
        subscription's rotation walks, so a channel gets exactly what ``/paper TOPIC`` lists
        (``Ranker.ordered`` says which papers those are). None for a query that names a
        paper rather than a topic."""
        parsed = self.parse(query)
        named = parsed.named_reference
        if parsed.reference or (named and self.get(named) is not None):
            return []
        return [hit.paper for hit in self.search(query, limit=len(self.papers)).hits]

    # --- recommending -----------------------------------------------------------------------

    def for_you(
        self, saved: Sequence[str], dismissed: Sequence[str], *, limit: int = 5, offset: int = 0
    ) -> ForYou:
        """One page of the papers a model of this reading list ranks highest (see
        ``bot.search.foryou``): never a saved or dismissed one; ids outside the corpus, and
        saved papers without a vector yet, are not learned from."""
        limit, offset = max(limit, 0), max(offset, 0)
        if self._semantic is None:
            return ForYou((), 0, offset, 0, NoVectors())
        vectors, ready = vector_table(self._semantic.paper_vector, len(self.papers))
        if not ready.any():
            return ForYou((), 0, offset, 0, NoVectors())
        saved_docs = self._docs_of(saved)
        dismissed_docs = [doc for doc in self._docs_of(dismissed) if doc not in saved_docs]
        learned = [doc for doc in saved_docs if ready[doc]]
        if len(learned) < MIN_SAVES:
            return ForYou((), 0, offset, len(learned), TooFewSaves(len(learned), MIN_SAVES))
        seed_key = "\n".join(sorted(self.papers[doc].id for doc in learned))
        ranked = rank_for_reader(vectors, ready, learned, dismissed_docs, seed_key)
        total = min(len(ranked.docs), MAX_SUGGESTIONS)
        page = range(offset, min(offset + limit, total))
        suggestions = tuple(
            Suggestion(
                self.papers[ranked.docs[at]],
                self.papers[ranked.like[at]],
                float(ranked.scores[at]),
            )
            for at in page
        )
        return ForYou(suggestions, total, offset, len(learned), None)

    @functools.cached_property
    def announced_papers(self) -> tuple[Paper, ...]:
        """The papers a feed announced (``Paper.announced``), in index order: the few that
        ``/paper new`` looks through, kept once per index so no request walks the whole
        catalogue for them."""
        return tuple(paper for paper in self.papers if paper.announced is not None)

    def by_taste(
        self, candidates: Sequence[str], taste: Mapping[str, float]
    ) -> tuple[Liked, ...] | None:
        """``candidates`` ordered by ``taste`` (paper id to weight: what a channel or a person
        engaged with, see ``rank_by_taste``), those without a vector yet after them in the
        order given; None when the taste says nothing: no vectors, or none of its papers
        (with a weight other than 0) has one."""
        if self._semantic is None:
            return None
        docs = self._docs_of(candidates)
        vectors = {doc: self._semantic.paper_vector(doc) for doc in docs}
        weights = {
            doc: weight
            for ref, weight in taste.items()
            if weight and (paper := self.get(ref)) is not None
            for doc in (self._doc(paper),)
        }
        vectors |= {doc: self._semantic.paper_vector(doc) for doc in weights}
        liked = np.array([doc for doc in weights if vectors[doc] is not None], dtype=np.intp)
        if not len(liked):
            return None
        ready = np.array([doc for doc in docs if vectors[doc] is not None], dtype=np.intp)
        rows = {doc: row for row, doc in enumerate(vectors)}
        table = np.stack([vectors[doc] if vectors[doc] is not None else _ZERO for doc in rows])
        ranked = rank_by_taste(
            table,
            np.array([rows[doc] for doc in ready], dtype=np.intp),
            np.array([rows[doc] for doc in liked], dtype=np.intp),
            np.array([weights[doc] for doc in liked], dtype=np.float32),
        )
        order = list(rows)
        placed = [
            Liked(self.papers[order[row]], None if like == NOT_LIKE else self.papers[order[like]])
            for row, like in zip(ranked.docs, ranked.like, strict=True)
        ]
        unranked = [Liked(self.papers[doc], None) for doc in docs if vectors[doc] is None]
        return tuple(placed + unranked)

    def _docs_of(self, refs: Sequence[str]) -> list[int]:
        """The corpus papers ``refs`` name, each once, in order; unknown ids left out."""
        papers = (self.get(ref) for ref in refs)
        return list(dict.fromkeys(self._doc(paper) for paper in papers if paper is not None))


_ZERO = np.zeros(DIMENSIONS, dtype=np.float32)
"""The row of a paper without a vector in a table of a few papers' vectors (never ranked)."""


def _acronym_text(paper: Paper) -> str:
    """What acronyms are mined from: the title and the abstract."""
    return f"{paper.title}. {paper.plain_abstract}"


def _nothing(
    query: str, offset: int, reasons: list[Reason], similar_to: Paper | None = None
) -> SearchResult:
    """A result without hits, and why."""
    return SearchResult(query, (), 0, offset, None, tuple(reasons), similar_to)


def _corrected(word: str, start: int, plan: Plan) -> str:
    """A word of the query (at ``start`` in its text) with the plan's typo fixes in it."""
    end = start + len(word)
    for fix_start, fix_end, fix in sorted(plan.corrections, reverse=True):
        if start <= fix_start and fix_end <= end:
            word = word[: fix_start - start] + fix + word[fix_end - start :]
    return word
