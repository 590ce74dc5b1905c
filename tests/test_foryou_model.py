"""The per-person model behind "For you" (``SearchIndex.for_you``), on the seed corpus with
its shipped vectors: what it must never suggest, when it declines to guess, that it follows a
reading list's topic and a dismissal, and that its pages add up; and the taste that orders
``/paper new`` (``SearchIndex.by_taste``)."""

from __future__ import annotations

import numpy as np
import pytest

from bot.papers.corpus import LoadedCorpus
from bot.papers.paper import Paper
from bot.search.engine import SearchIndex
from bot.search.foryou import MAX_SUGGESTIONS, fit_logistic
from bot.search.results import MIN_SAVES, NoVectors, TooFewSaves
from bot.search.semantic import SemanticRanker, ranker_for


@pytest.fixture(scope="module")
def ranker(seed_corpus: LoadedCorpus) -> SemanticRanker:
    loaded = ranker_for("seeds")(seed_corpus.papers)
    assert loaded is not None and not loaded.missing
    return loaded


@pytest.fixture(scope="module")
def learning(seed_corpus: LoadedCorpus, ranker: SemanticRanker) -> SearchIndex:
    return SearchIndex.build(seed_corpus.papers, lambda _papers: ranker)


@pytest.fixture(scope="module")
def graph_papers(seed_corpus: LoadedCorpus) -> list[Paper]:
    found = [paper for paper in seed_corpus.papers if "graph" in paper.title.casefold()]
    assert len(found) == 8
    return found


def every_suggestion(index: SearchIndex, saved: list[str], dismissed: list[str]) -> list[Paper]:
    return [s.paper for s in index.for_you(saved, dismissed, limit=MAX_SUGGESTIONS).suggestions]


def test_five_graph_papers_saved_bring_the_other_graph_papers_first(
    learning: SearchIndex, graph_papers: list[Paper]
) -> None:
    saved = [paper.id for paper in graph_papers[:5]]
    result = learning.for_you(saved, [], limit=3)
    assert result.reason is None and result.saves == 5
    assert {s.paper.id for s in result.suggestions} == {paper.id for paper in graph_papers[5:]}


def test_each_suggestion_names_the_saved_paper_with_the_highest_cosine(
    learning: SearchIndex, ranker: SemanticRanker, graph_papers: list[Paper], seed_corpus
) -> None:
    docs = {paper.id: doc for doc, paper in enumerate(seed_corpus.papers)}
    saved = graph_papers[:5]
    for suggestion in learning.for_you([p.id for p in saved], [], limit=10).suggestions:
        mine = ranker.paper_vector(docs[suggestion.paper.id])
        cosines = [float(ranker.paper_vector(docs[p.id]) @ mine) for p in saved]
        assert suggestion.like == saved[int(np.argmax(cosines))]


def test_never_a_saved_or_dismissed_paper(
    learning: SearchIndex, graph_papers: list[Paper], seed_corpus: LoadedCorpus
) -> None:
    saved = [paper.id for paper in graph_papers[:4]]
    dismissed = [graph_papers[5].id, seed_corpus.papers[0].id, seed_corpus.papers[1].id]
    offered = {paper.id for paper in every_suggestion(learning, saved, dismissed)}
    assert offered and not offered & {*saved, *dismissed}


def test_a_dismissed_paper_never_returns_and_its_neighbours_lose_most(
    learning: SearchIndex, ranker: SemanticRanker, graph_papers: list[Paper], seed_corpus
) -> None:
    saved = [paper.id for paper in graph_papers[:5]]
    before = {s.paper.id: s.score for s in learning.for_you(saved, [], limit=50).suggestions}
    dismissed = list(before)[1]
    after = {
        s.paper.id: s.score for s in learning.for_you(saved, [dismissed], limit=50).suggestions
    }
    assert dismissed not in after
    docs = {paper.id: doc for doc, paper in enumerate(seed_corpus.papers)}
    target = ranker.paper_vector(docs[dismissed])
    both = [paper_id for paper_id in after if paper_id in before]
    nearest = sorted(
        both, key=lambda paper_id: -float(ranker.paper_vector(docs[paper_id]) @ target)
    )
    drop = {paper_id: before[paper_id] - after[paper_id] for paper_id in both}
    typical = float(np.median(list(drop.values())))
    assert all(drop[paper_id] > typical for paper_id in nearest[:3])


def test_fewer_than_three_usable_saves_is_too_few(
    learning: SearchIndex, graph_papers: list[Paper]
) -> None:
    saved = [graph_papers[0].id, graph_papers[1].id, "NotAPaper0", graph_papers[0].id]
    result = learning.for_you(saved, [])
    assert result.suggestions == () and result.total == 0
    assert result.reason == TooFewSaves(saves=2, needed=MIN_SAVES)


def test_without_vectors_nothing_is_learned(index: SearchIndex, graph_papers) -> None:
    result = index.for_you([paper.id for paper in graph_papers], [])
    assert result.suggestions == () and result.reason == NoVectors()


def test_the_same_reading_list_gets_the_same_suggestions(
    learning: SearchIndex, graph_papers: list[Paper]
) -> None:
    saved = [paper.id for paper in graph_papers[:3]]
    first = learning.for_you(saved, [graph_papers[4].id], limit=20)
    assert learning.for_you(list(reversed(saved)), [graph_papers[4].id], limit=20) == first


def test_pages_add_up_to_the_whole_list(learning: SearchIndex, graph_papers: list[Paper]) -> None:
    saved = [paper.id for paper in graph_papers[:3]]
    whole = learning.for_you(saved, [], limit=MAX_SUGGESTIONS)
    assert whole.total == len(whole.suggestions) == MAX_SUGGESTIONS
    pages = [learning.for_you(saved, [], limit=7, offset=at) for at in range(0, whole.total, 7)]
    assert all(page.total == whole.total and page.offset == at * 7 for at, page in enumerate(pages))
    assert [s for page in pages for s in page.suggestions] == list(whole.suggestions)
    past = learning.for_you(saved, [], offset=whole.total)
    assert past.suggestions == () and past.total == whole.total and past.reason is None


def test_the_fit_separates_what_it_was_given() -> None:
    features = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    labels = np.array([1.0, 1.0, 0.0, 0.0])
    weight, bias = fit_logistic(features, labels, np.ones(4))
    scores = features @ weight + bias
    assert scores[:2].min() > 0 > scores[2:].max()


def test_a_taste_ranks_candidates_like_its_papers_first_and_unlike_its_downvotes_last(
    learning: SearchIndex, graph_papers: list[Paper]
) -> None:
    """``by_taste`` (``/paper new`` without a topic): one liked paper is enough, a negative
    weight pushes its neighbours back, and each placed paper names the liked one behind it."""
    language = [hit.paper for hit in learning.search("large language models", limit=4).hits]
    candidates = [paper.id for paper in language + graph_papers[1:]]
    liked = learning.by_taste(candidates, {graph_papers[0].id: 1.0})
    assert liked is not None
    assert {one.paper.id for one in liked[: len(graph_papers) - 1]} == {
        paper.id for paper in graph_papers[1:]
    }
    assert liked[0].like == graph_papers[0]
    disliked = learning.by_taste(candidates, {graph_papers[0].id: -1.0})
    assert disliked is not None
    assert {one.paper.id for one in disliked[-(len(graph_papers) - 1) :]} == {
        paper.id for paper in graph_papers[1:]
    }
    assert all(one.like is None for one in disliked)


def test_a_taste_without_a_usable_paper_or_vectors_says_nothing(
    learning: SearchIndex, index: SearchIndex, graph_papers: list[Paper]
) -> None:
    candidates = [paper.id for paper in graph_papers]
    assert learning.by_taste(candidates, {}) is None
    assert learning.by_taste(candidates, {"no-such-paper": 1.0, graph_papers[0].id: 0.0}) is None
    assert index.by_taste(candidates, {graph_papers[0].id: 1.0}) is None


def test_a_liked_paper_among_the_candidates_is_ranked_by_the_others(
    learning: SearchIndex, graph_papers: list[Paper]
) -> None:
    first, second = graph_papers[0], graph_papers[1]
    liked = learning.by_taste([first.id, second.id], {first.id: 1.0, second.id: 1.0})
    assert liked is not None
    assert {(one.paper.id, one.like.id if one.like else None) for one in liked} == {
        (first.id, second.id),
        (second.id, first.id),
    }
