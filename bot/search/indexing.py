"""Building the BM25 index of a corpus: which text of a paper is ranked, and the indexer that
turns every paper into counted terms without a token list per paper."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import filterfalse

import numpy as np

from bot.papers.paper import Paper
from bot.search.analyzer import CorpusAnalyzer
from bot.search.bm25 import BM25Builder, BM25Index

TITLE_WEIGHT = 2  # title tokens are indexed twice: a title word says more than an abstract word
_INDEX_BLOCK = 4096  # papers whose terms are counted in one numpy step while indexing
# Papers whose chunk numbers are stored together while indexing: big enough (~60 MB) for the
# allocator to hand the memory back to the system when a block is dropped.
_RUN_BLOCK = 1 << 16


def field_texts(paper: Paper) -> tuple[str, str]:
    """The ranked fields: title and abstract. Authors are a field of their own (see
    ``bot.search.authors.AuthorIndex``): in the ranked text, a paper with 80 authors would have
    its length doubled by names and sink for every topical query."""
    return (paper.title, paper.plain_abstract)


def field_tokens(analyzer: CorpusAnalyzer, paper: Paper) -> tuple[list[str], list[str]]:
    """Index tokens of the title and the abstract."""
    title, abstract = field_texts(paper)
    return analyzer.tokens(title), analyzer.tokens(abstract)


def bm25_tokens(fields: tuple[list[str], list[str]]) -> list[str]:
    title, abstract = fields
    return title * TITLE_WEIGHT + abstract


class ChunkIndexer:
    """Indexes papers a whitespace-delimited chunk at a time, in two passes.

    The first splits every text once and numbers each distinct chunk, so a paper becomes runs
    of chunk numbers (title chunks ``TITLE_WEIGHT`` times); Python does a split and a dict
    lookup per chunk, with no per-token list or Counter. The distinct chunks of the titles
    and abstracts then give the analyzer its compound splits, each chunk is analysed once, in
    order of first occurrence (so new tokens are numbered in the order rank-bm25 first sees
    them), and the BM25 builder counts terms for blocks of papers in numpy. The indexed bag of
    tokens is exactly ``bm25_tokens(field_tokens(...))``."""

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
            title, abstract = field_texts(paper)
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
