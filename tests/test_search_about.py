"""Which papers a query of several words pages through: after the ranking's first ten, only
those about it (``Ranker.about``), which is also the list a topic subscription walks."""

from __future__ import annotations

import math
import re
import sys

import pytest

from bot.papers.corpus import load_corpus
from bot.papers.paper import Paper
from bot.search import ranker
from bot.search.engine import SearchIndex
from bot.search.paper_sets import flags_of
from bot.search.ranker import RANKED_HEAD


@pytest.fixture(scope="module")
def catalogue_index() -> SearchIndex:
    return SearchIndex.build(load_corpus("catalogue").papers)


def says(paper: Paper, pattern: str) -> bool:
    return re.search(pattern, f"{paper.title} {paper.plain_abstract}", re.IGNORECASE) is not None


def test_past_the_first_page_every_result_is_about_the_topic(
    catalogue_index: SearchIndex,
) -> None:
    results = catalogue_index.results("spiking neural networks")
    assert all(says(paper, r"\bspik") for paper in results[RANKED_HEAD:])
    holding_a_word = [
        paper for paper in catalogue_index.papers if says(paper, r"\b(spik|neural|network)")
    ]
    assert len(results) < 30 < 500 < len(holding_a_word)
    result = catalogue_index.search("spiking neural networks")
    assert result.total == len(results)
    past_the_end = catalogue_index.search("spiking neural networks", offset=len(results))
    assert past_the_end.hits == ()


def test_a_topic_of_a_common_and_a_rare_word_is_the_rare_words_papers(
    catalogue_index: SearchIndex,
) -> None:
    results = catalogue_index.results("federated learning")
    federated = [paper for paper in catalogue_index.papers if says(paper, r"\bfederat")]
    assert {paper.id for paper in results} == {paper.id for paper in federated}


def test_a_hyphenated_word_is_held_as_written_and_an_acronym_by_its_long_form(
    catalogue_index: SearchIndex,
) -> None:
    in_context = catalogue_index.results("in-context learning")[RANKED_HEAD:]
    assert in_context and all(says(paper, r"\bin[- ]context") for paper in in_context)
    ood = catalogue_index.results("OOD detection")
    long_form_only = [
        paper
        for paper in ood
        if says(paper, r"out-of-distribution") and not says(paper, r"\bOODs?\b")
    ]
    assert long_form_only


def test_one_word_keeps_every_match_and_its_count(catalogue_index: SearchIndex) -> None:
    result = catalogue_index.search("protein")
    assert result.counted
    assert result.total == len(catalogue_index.results("protein"))
    assert result.total == len(
        [paper for paper in catalogue_index.papers if says(paper, r"\bproteins?\b")]
    )


def test_a_question_keeps_its_first_page_as_ranked(catalogue_index: SearchIndex) -> None:
    question = "can a model tell it is ignoring the prompt?"
    results = catalogue_index.results(question)
    first = catalogue_index.search(question, limit=RANKED_HEAD)
    assert len(results) >= RANKED_HEAD
    assert [paper.id for paper in results[:RANKED_HEAD]] == [hit.paper.id for hit in first.hits]
    about = results[RANKED_HEAD:]
    assert all(says(paper, r"\btell") for paper in about)


@pytest.mark.parametrize("prunes", [True, False])
def test_the_about_set_is_the_papers_whose_words_carry_the_share(
    catalogue_index: SearchIndex, prunes: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From the pruned ranking's kept bitmaps (a large corpus) or from the holders' lists (a
    common word's kept once made, ``ranker.KEPT_SHARE``), the papers about a query are those
    whose words' idfs, added in query order, reach the share, asked once or again."""
    monkeypatch.setattr(ranker, "PRUNING_MIN_PAPERS", 0 if prunes else sys.maxsize)
    index = SearchIndex.build(catalogue_index.papers)
    if prunes:
        index.prepare(embed=False)  # builds the pruned ranking's tables
    assert ranker.Ranker.pruned.built(index._ranker) == prunes
    bm25 = index._bm25
    size = len(index.papers)
    for query in (
        "reinforcement learning from human feedback",
        "graph neural networks",
        "label noise",
        "spiking neural networks for energy efficient learning",
        "the a of learning models large language",
    ):
        plan = index._planner.plan(index.parse(query), None, [])
        tokens = [tokens[0] for (tokens,) in plan.words if tokens and tokens[0] in bm25]
        frequencies = map(bm25.document_frequency, tokens)
        idfs = [math.log(1 + (size - n + 0.5) / (n + 0.5)) for n in frequencies]
        held = [0.0] * size
        for token, idf in zip(tokens, idfs, strict=True):
            for doc in bm25.holders(token).tolist():
                held[doc] += idf
        least = ranker.ABOUT_SHARE * sum(idfs) * (1 - 1e-9)
        expected = [total >= least for total in held]
        assert flags_of(index._ranker.about(plan), size).tolist() == expected, query
        assert flags_of(index._ranker.about(plan), size).tolist() == expected, query
    assert bool(index._ranker._kept_bitmaps) != prunes
