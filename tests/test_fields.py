"""Title and abstract are ranked as fields with their own lengths (``bot.search.fielded``): a
paper without an abstract ranks by its title's match, never for being short, and a paper with
an abstract does not lose rank because others lack one. BM25 alone (no semantic re-ranker)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from bot.papers.corpus import load_corpus
from bot.papers.paper import Paper
from bot.search.engine import SearchIndex

BLANKED_SHARE = 0.4
TOPICS = (
    "graph neural networks",
    "diffusion models for image generation",
    "reinforcement learning from human feedback",
    "federated learning",
    "large language model reasoning",
    "adversarial robustness",
    "protein structure",
    "time series forecasting",
    "mixture of experts",
    "in-context learning",
    "knowledge distillation",
    "continual learning catastrophic forgetting",
    "offline reinforcement learning",
    "neural radiance fields",
    "machine unlearning",
    "retrieval augmented generation",
    "model quantization",
    "causal inference",
    "speech recognition",
    "molecule generation",
)
"""Broad topics, each with hundreds of matching papers, written for this test."""


@pytest.fixture(scope="module")
def papers() -> tuple[Paper, ...]:
    return tuple(load_corpus("catalogue").papers)


@pytest.fixture(scope="module")
def index(papers: tuple[Paper, ...]) -> SearchIndex:
    return SearchIndex.build(papers)


@pytest.fixture(scope="module")
def blanked(papers: tuple[Paper, ...]) -> tuple[SearchIndex, frozenset[str]]:
    blank, chosen = blank_abstracts(papers)
    return SearchIndex.build(blank), chosen


def blank_abstracts(papers: tuple[Paper, ...]) -> tuple[list[Paper], frozenset[str]]:
    """The papers with a random (fixed) 40% of their abstracts blanked, and their ids."""
    with_abstract = [paper.id for paper in papers if paper.abstract]
    chosen = frozenset(
        random.Random(18).sample(with_abstract, int(BLANKED_SHARE * len(with_abstract)))
    )
    blank = [
        replace(paper, abstract="", plain_abstract="") if paper.id in chosen else paper
        for paper in papers
    ]
    return blank, chosen


def distinctive_words(index: SearchIndex, paper: Paper, count: int) -> str:
    """The words of the paper, as written, of its ``count`` most distinctive terms: what
    someone who read it may remember."""
    written: dict[str, str] = {}
    for word in f"{paper.title} {paper.plain_abstract}".split():
        word = word.strip(".,;:()[]{}\"'")
        tokens = index._analyzer.tokens(word)
        if len(tokens) == 1:
            written.setdefault(tokens[0], word)
    # The "more like this" query repeats a term as often as the paper uses it: once each here.
    terms = [term for term in dict.fromkeys(index._planner.paper_terms(paper)) if term in written]
    return " ".join(written[term] for term in terms[:count])


def rank(index: SearchIndex, query: str, paper_id: str) -> int | None:
    found = [hit.paper.id for hit in index.search(query, limit=20).hits]
    return found.index(paper_id) + 1 if paper_id in found else None


def test_a_paper_without_an_abstract_is_found_first_by_its_exact_title(
    index: SearchIndex, papers: tuple[Paper, ...]
) -> None:
    """By its title's match alone, against papers whose abstracts also say the title's words:
    nine in ten come first (91% of the catalogue's 1,072 when this was written; the single
    text of title and abstract put them all first, for being short), and every one in the
    first page of ten."""
    bare = [paper for paper in papers if not paper.abstract]
    ranks = [rank(index, paper.title, paper.id) for paper in bare]
    assert all(found is not None and found <= 10 for found in ranks)
    assert ranks.count(1) >= 0.9 * len(bare)


def test_topic_searches_do_not_fill_the_top_five_with_papers_that_lost_their_abstract(
    blanked: tuple[SearchIndex, frozenset[str]],
) -> None:
    """Short as they now are, the blanked papers may only rank by what their titles say:
    their share of the top 5 stays below their share of the corpus (40%)."""
    share = top_five_share(*blanked)
    assert share < BLANKED_SHARE / 2, share


def top_five_share(index: SearchIndex, chosen: frozenset[str]) -> float:
    """The share of the ``TOPICS``' top 5 hits that are among ``chosen``."""
    top = [hit.paper.id for topic in TOPICS for hit in index.search(topic, limit=5).hits]
    assert len(top) == 5 * len(TOPICS)
    return sum(paper_id in chosen for paper_id in top) / len(top)


def test_known_item_searches_for_papers_that_kept_their_abstract_do_not_drop(
    index: SearchIndex,
    papers: tuple[Paper, ...],
    blanked: tuple[SearchIndex, frozenset[str]],
) -> None:
    """A paper's title, or its three most distinctive words, finds it as high when 40% of
    the other papers have no abstract: no paper that lost its abstract gets ahead of it, and
    the sum of reciprocal ranks over the 160 queries does not fall by more than two queries'
    moves from first to second (the other papers' idfs change, which may swap two papers
    that kept theirs; with the text field holding titles too, blanking moves the idfs of
    title words as well)."""
    overtaken, before_rr, after_rr = known_items_moved(index, index, *blanked, papers)
    assert not overtaken
    assert after_rr >= before_rr - 1.0


def known_items_moved(
    words_from: SearchIndex,
    index: SearchIndex,
    blank_index: SearchIndex,
    chosen: frozenset[str],
    papers: tuple[Paper, ...],
) -> tuple[list[tuple[str, str]], float, float]:
    """For the title and the three most distinctive words (as ``words_from`` reads them) of
    80 papers that kept their abstract: the (query, paper) of blanked papers ranked ahead of
    the paper in ``blank_index`` but not in ``index``, and the sum of the paper's reciprocal
    ranks in each."""
    kept = [paper for paper in papers if paper.abstract and paper.id not in chosen]
    overtaken = []
    before_rr = after_rr = 0.0
    for paper in random.Random(5).sample(kept, 80):
        for query in (paper.title, distinctive_words(words_from, paper, 3)):
            before, after = ahead(index, query, paper.id), ahead(blank_index, query, paper.id)
            overtaken += [(query, other) for other in after - before if other in chosen]
            before_rr += 1 / (len(before) + 1)
            after_rr += 1 / (len(after) + 1)
    return overtaken, before_rr, after_rr


def ahead(index: SearchIndex, query: str, paper_id: str) -> set[str]:
    """The papers ranked above ``paper_id`` for ``query`` (it must be in the top 20)."""
    found = [hit.paper.id for hit in index.search(query, limit=20).hits]
    assert paper_id in found, query
    return set(found[: found.index(paper_id)])
