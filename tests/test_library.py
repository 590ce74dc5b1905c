"""The library: one index per request across a swap, a replaced index freed despite the
heap freeze, and papers added without a rebuild ranking exactly as a rebuild would."""

from __future__ import annotations

import gc
import threading
import weakref

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import FieldedBM25Okapi

from bot.papers.corpus import LoadedCorpus, load_corpus
from bot.papers.paper import Paper
from bot.search.engine import SearchIndex
from bot.search.library import Library, return_freed_memory

QUERIES = (
    "graph neural networks",
    "diffusion models for video generation",
    "commonsense reasoning in language models",
    "lifelong learning agents",
    "author:bengio",
    '"in-context learning"',
    "sparse autoencoders -vision",
    "protein structure",
)


@pytest.fixture(scope="module")
def catalogue() -> LoadedCorpus:
    return load_corpus("catalogue")


def _top(index, query: str) -> list[tuple[str, float | None]]:
    return [(hit.paper.id, hit.score) for hit in index.search(query, limit=10).hits]


def test_a_request_reads_one_index_from_start_to_end_across_a_swap(seed_corpus):
    papers = seed_corpus.papers
    before, after = SearchIndex.build(papers[:40]), SearchIndex.build(papers)
    library = Library(before)
    view = library.view()
    answered: list[tuple[int, int]] = []
    swapped, asked_again = threading.Event(), threading.Event()

    def request() -> None:
        with library.request():
            first = len(view.papers)
            swapped.wait(5)  # the swap happens in the middle of the request
            answered.append((first, len(view.search("graph", limit=100).hits) and len(view.papers)))
            asked_again.set()

    worker = threading.Thread(target=request)
    worker.start()
    library.swap(after)
    swapped.set()
    asked_again.wait(5)
    worker.join(5)
    assert answered == [(40, 40)]
    assert len(view.papers) == len(papers)  # a new request reads the new index
    with library.request():
        assert view.search("graph").total == after.search("graph").total


def test_a_replaced_index_is_freed_with_the_heap_frozen_and_no_collection(seed_corpus):
    library = Library(SearchIndex.build(seed_corpus.papers))
    library.index.prepare(embed=False)
    for query in QUERIES:
        library.index.search(query)
    replaced = weakref.ref(library.index)
    gc.disable()
    gc.freeze()  # as the served bot does once it is prepared
    try:
        library.swap(SearchIndex.build(seed_corpus.papers[:10]))
        assert replaced() is None
    finally:
        gc.unfreeze()
        gc.enable()


def test_papers_added_in_batches_rank_as_a_full_build(catalogue: LoadedCorpus):
    papers = catalogue.papers
    full = SearchIndex.build(papers)
    library = Library(SearchIndex.build(papers[:3000]))
    assert library.add(papers[3000:3300]) == 300
    assert library.add(papers[2990:3700]) == 400  # the ones it has are left out
    assert library.add(papers[3700:]) == len(papers) - 3700
    grown = library.index
    assert grown.papers == full.papers
    for query in QUERIES:
        assert _top(grown, query) == _top(full, query), query
    for mine, theirs in zip(grown._bm25.fields, full._bm25.fields, strict=True):
        assert (mine.avgdl, mine.average_idf) == (theirs.avgdl, theirs.average_idf)
    assert library.index.settled
    # Each batch of real papers teaches a compound: merged first, then built again.
    assert library.swaps == 6


WORDS = st.sampled_from(
    [
        "graph",
        "graphs",
        "sparse",
        "sparsity",
        "model",
        "models",
        "learning",
        "language",
        "vision",
        "robot",
        "agent",
        "diffusion",
        "token",
        "tokens",
        "reason",
        "reasoning",
        "auto-regressive",
        "autoregressive",
        "test-time",
        "testtime",
        "self-supervised",
        "supervised",
        "LLM",
        "LLMs",
        "(LLMs)",
        "attention",
    ]
)
TEXTS = st.lists(WORDS, min_size=1, max_size=12).map(" ".join)
PAPERS = st.lists(st.tuples(st.lists(WORDS, min_size=1, max_size=6).map(" ".join), TEXTS))


def _papers(texts: list[tuple[str, str]], first: int) -> list[Paper]:
    return [
        Paper(
            id=f"p{first + at}",
            title=title,
            authors=("Ada Lovelace",),
            status="Poster",
            url=None,
            abstract=abstract,
            plain_abstract=abstract,
            code_urls=(),
            links=(),
            title_derived=False,
            source="test",
        )
        for at, (title, abstract) in enumerate(texts)
    ]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=PAPERS.filter(len), batches=st.lists(PAPERS.filter(len), min_size=1, max_size=3))
def test_additions_score_as_rank_bm25_and_a_full_rebuild(first, batches):
    """Random corpora, papers added in batches: each field's scores equal rank-bm25's over
    every paper's tokens (within 1e-9), and a rebuild's; rankings, ties by paper, are equal."""
    papers = _papers(first, 0)
    library = Library(SearchIndex.build(papers))
    for batch in batches:
        added = _papers(batch, len(papers))
        library.add(added)
        papers += added
    grown, full = library.index, SearchIndex.build(papers)
    reference = FieldedBM25Okapi.of(full, papers)
    words = sorted({t for field in full._bm25.fields for t in field.vocabulary})
    for query in [[word] for word in words] + [words[::3], words[1::2] * 2]:
        expected = reference.get_scores(query)
        for index in (grown, full):
            scores = index._bm25.scores(query)
            np.testing.assert_allclose(scores, expected, rtol=1e-9, atol=1e-12)
        order = np.lexsort((np.arange(len(papers)), -grown._bm25.scores(query)))
        assert order.tolist() == np.lexsort((np.arange(len(papers)), -expected)).tolist()


def test_papers_teaching_a_compound_are_found_at_once_then_ranked_as_a_full_build():
    """A new hyphenated word changes how old papers read: the new papers are searchable in
    the first index swapped in (read by the old rules), and the second is a full build's."""
    old = _papers([("test time training", "adapting a model at test time")] * 3, 0)
    new = _papers([("test-time scaling", "scaling compute at test-time for reasoning")], 3)
    library = Library(SearchIndex.build(old))
    seen: list[SearchIndex] = []
    swap = library.swap
    library.swap = lambda index: (seen.append(index), swap(index))  # type: ignore[method-assign]
    assert library.add(new) == 1
    interim, final = seen
    assert not interim.settled and final.settled
    assert [hit.paper.id for hit in interim.search("scaling reasoning").hits] == ["p3"]
    full = SearchIndex.build(old + new)
    for query in (["testtim"], ["test", "time"], ["scale"]):
        np.testing.assert_allclose(final._bm25.scores(query), full._bm25.scores(query))
    assert final._bm25.scores(["testtim"])[:3].all()  # the old papers now read the compound
    assert not interim._bm25.scores(["testtim"])[:3].any()


def test_freed_memory_is_returned_once_the_replaced_index_is_gone(seed_corpus, monkeypatch):
    library = Library(SearchIndex.build(seed_corpus.papers[:40]))
    library.index.prepare(embed=False)
    replaced = weakref.ref(library.index)
    alive_at_trim: list[bool] = []

    def trim() -> None:
        alive_at_trim.append(replaced() is not None)

    monkeypatch.setattr("bot.search.library.return_freed_memory", trim)
    gc.disable()
    gc.freeze()
    try:
        assert library.add(seed_corpus.papers[40:]) == len(seed_corpus.papers) - 40
    finally:
        gc.unfreeze()
        gc.enable()
    assert alive_at_trim and alive_at_trim[-1] is False  # the last trim comes after it is freed


def test_returning_freed_memory_is_safe_to_call():
    return_freed_memory()
