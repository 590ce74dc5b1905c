"""The round-4 semantic mix (``bench/round4.md``) with the real model: a bare title is weighed
against other titles, never against full abstracts; a query the model is not asked about
costs no model run and gets exactly BM25's page; and papers that lose their abstract do not
crowd the semantic ranking's top hits (the semantic-on half of ``tests/test_fields.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hand_vectors import at_cosine, axis, index_with_vectors
from test_fields import (
    BLANKED_SHARE,
    blank_abstracts,
    distinctive_words,
    known_items_moved,
    top_five_share,
)

from bot.papers.corpus import LoadedCorpus, load_corpus
from bot.papers.paper import Paper
from bot.search.engine import SearchIndex
from bot.search.model_rule import SENTENCE_BETA, ModelSay
from bot.search.semantic import SemanticRanker, ranker_for, shared_embedder

# --- like with like --------------------------------------------------------------------------

FIELDS = ("chemistry", "biology", "finance", "music", "weather", "traffic", "robotics")
TEXT_COSINES = (0.10, 0.15, 0.20, 0.25, 0.30, 0.35)
"""How near the query the texts of the other papers with an abstract are; their titles, and
the titles of as many title-only papers, are ``TITLE_LIFT`` nearer: a title alone sits closer
to a short query than a whole abstract does."""
TITLE_LIFT = 0.3


def _like_with_like(tmp_path: Path, bare_title_cosine: float) -> list[tuple[str, float | None]]:
    """The top two (id, cosine) for "sparse graphs" when BM25 scores every paper alike,
    re-ranked by the mix: FULL, whose text is the nearest of the texts (0.5), and BARE, a
    title alone at ``bare_title_cosine``. BM25 is held equal here (its text field makes a
    bare title the shorter text) so that only the model's evidence decides."""
    query = shared_embedder().embed("sparse graphs").astype(np.float64)
    papers: dict[str, tuple[str, str, np.ndarray]] = {}
    titles: dict[str, np.ndarray] = {}
    for n, (field, cosine) in enumerate(zip(FIELDS, TEXT_COSINES, strict=False)):
        abstract = f"A study of {field} data, number {n}."
        papers[f"TEXT{n}"] = (f"Sparse graphs {field} {n}", abstract, at_cosine(query, cosine, n))
        titles[f"TEXT{n}"] = at_cosine(query, cosine + TITLE_LIFT, 50 + n)
        bare = at_cosine(query, cosine + TITLE_LIFT, 100 + n)
        papers[f"TITLE{n}"] = (f"Sparse graphs {field} {n}", "", bare)
    papers["FULL"] = (
        "Sparse graphs geology 7",
        "Rocks and their layers.",
        at_cosine(query, 0.5, 7),
    )
    titles["FULL"] = at_cosine(query, 0.5 + TITLE_LIFT, 57)
    papers["BARE"] = ("Sparse graphs astronomy 8", "", at_cosine(query, bare_title_cosine, 107))
    papers |= {f"OTHER{n}": (f"Other {n}", f"Unrelated text {n}.", axis(200)) for n in range(30)}
    index = index_with_vectors(tmp_path, papers, titles=titles)
    semantic = index._semantic
    assert semantic is not None
    docs = np.array([doc for doc, paper in enumerate(index.papers) if "OTHER" not in paper.id])
    alike = np.ones(len(docs))
    cosines = semantic.cosines(query.astype(np.float32), docs)
    reranked = semantic.rerank(
        docs, alike, cosines, ModelSay(SENTENCE_BETA), np.arange(len(index.papers))
    )
    return [
        (index.papers[doc].id, cosine)
        for doc, cosine in zip(reranked.docs[:2], reranked.cosine[:2], strict=True)
    ]


def test_a_bare_title_near_a_short_query_does_not_beat_an_abstract_as_near_among_abstracts(
    tmp_path: Path,
) -> None:
    """BARE's title is far nearer the query (0.78) than FULL's text (0.5), as titles are; but
    among titles it stands a little below where FULL's text stands among texts, so FULL
    comes first. By the raw cosine (the mix before round 4), BARE would."""
    (first, first_cosine), (second, second_cosine) = _like_with_like(tmp_path, 0.78)
    assert (first, second) == ("FULL", "BARE")
    assert first_cosine == pytest.approx(0.5, abs=0.01)
    assert second_cosine == pytest.approx(0.78, abs=0.01)


def test_a_bare_title_that_stands_higher_among_titles_does_come_first(tmp_path: Path) -> None:
    """The mirror: titles are not held back for having no abstract, only weighed by their
    own kind."""
    ranked = [paper_id for paper_id, _ in _like_with_like(tmp_path, 0.82)]
    assert ranked == ["BARE", "FULL"]


# --- what the model is not asked about -------------------------------------------------------


@pytest.fixture(scope="module")
def semantic_index(seed_corpus: LoadedCorpus) -> SearchIndex:
    return SearchIndex.build(seed_corpus.papers, ranker_for("seeds"))


@pytest.fixture
def embedded(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The texts whose vectors searches ask for (``SemanticRanker.embed``: every query,
    message and outside paper the model compares papers with)."""
    asked: list[str] = []
    embed = SemanticRanker.embed

    def counted(ranker: SemanticRanker, text: str) -> np.ndarray:
        asked.append(text)
        return embed(ranker, text)

    monkeypatch.setattr(SemanticRanker, "embed", counted)
    yield asked


@pytest.mark.parametrize(
    "query",
    [
        "Graph Sparsification via Mixture of Graphs",  # a copied title
        "graph sparsification mixture graphs",  # its tokens in another order
        "graph sparsification",  # a decisive BM25: "sparsification" is rare
    ],
)
def test_a_query_the_rule_skips_never_computes_its_vector(
    semantic_index: SearchIndex, embedded: list[str], query: str
) -> None:
    hits = semantic_index.search(query, limit=5).hits
    assert hits[0].paper.id == "7ANDviElAo"
    assert embedded == []


def test_a_message_bm25_finds_decisive_never_computes_its_vector(
    semantic_index: SearchIndex, embedded: list[str]
) -> None:
    post = (
        "We keep seeing our chat model comply with some formatting rules and silently ignore "
        "others. Is there any work probing whether the model itself can tell, from its "
        "activations, that it is about to break an instruction?"
    )
    assert semantic_index.related(post, limit=3).hits[0].paper.id == "qIN5VDdEOr"
    assert embedded == []


def test_a_query_that_leaves_bm25_flat_computes_its_vector_once(
    semantic_index: SearchIndex, embedded: list[str]
) -> None:
    hits = semantic_index.search("graph neural networks", limit=5).hits
    assert embedded == ["graph neural networks"]
    assert all(hit.semantic_score is not None for hit in hits)


def _skipped_and_page(
    semantic_index: SearchIndex, embedded: list[str], query: str, offset: int
) -> tuple[bool, list[tuple[str, float]]]:
    embedded.clear()
    hits = semantic_index.search(query, limit=5, offset=offset).hits
    assert all((hit.semantic_score is None) == (not embedded) for hit in hits), query
    return not embedded, [(hit.paper.id, hit.score) for hit in hits]


def test_a_skipped_query_gets_exactly_the_page_of_bm25_alone(
    index: SearchIndex, semantic_index: SearchIndex, embedded: list[str]
) -> None:
    """Every seed paper's title (copied) and its three most distinctive words (mostly a
    decisive BM25), first and second page: where the model is not asked, the same papers in
    the same order with the same scores as with the semantic part off. (When this was
    written, the rule skipped all 152 queries.)"""
    queries = [
        query
        for paper in semantic_index.papers
        for query in (paper.title, distinctive_words(index, paper, 3))
    ]
    skipped = 0
    for query in queries:
        for offset in (0, 5):
            was_skipped, page = _skipped_and_page(semantic_index, embedded, query, offset)
            if was_skipped:
                skipped += offset == 0
                off = index.search(query, limit=5, offset=offset).hits
                assert page == [(hit.paper.id, hit.score) for hit in off], query
    assert skipped >= len(queries) / 2, skipped


# --- papers that lost their abstract, with the semantic part on ------------------------------


@pytest.fixture(scope="module")
def catalogue() -> tuple[Paper, ...]:
    return tuple(load_corpus("catalogue").papers)


@pytest.fixture(scope="module")
def on_index(catalogue: tuple[Paper, ...]) -> SearchIndex:
    return SearchIndex.build(catalogue, ranker_for("catalogue"))


@pytest.fixture(scope="module")
def blanked_on(catalogue: tuple[Paper, ...]) -> tuple[SearchIndex, frozenset[str]]:
    """``tests/test_fields.py``'s blanked catalogue (the same 40% of abstracts, by the same
    seed) with the shipped vectors: every title has its own vector there, so a blanked paper
    is compared by its title's."""
    blank, chosen = blank_abstracts(catalogue)
    index = SearchIndex.build(blank, ranker_for("catalogue"))
    assert index._semantic is not None and index._semantic.missing == 0
    return index, chosen


def test_topic_searches_with_the_semantic_part_do_not_fill_the_top_five_with_blanked_papers(
    blanked_on: tuple[SearchIndex, frozenset[str]],
) -> None:
    """Broad topics leave BM25 flat, so the model decides much of their order: the blanked
    papers, weighed against other titles, keep their share of the top 5 below half their
    share of the corpus (40%), as with BM25 alone. (When this was written: 3% of the top 5
    both ways, 95 of the 100 hits mixed.)"""
    share = top_five_share(*blanked_on)
    assert share < BLANKED_SHARE / 2, share


def test_known_item_searches_with_the_semantic_part_do_not_drop_for_blanked_papers(
    index_off_catalogue: SearchIndex,
    on_index: SearchIndex,
    catalogue: tuple[Paper, ...],
    blanked_on: tuple[SearchIndex, frozenset[str]],
) -> None:
    """A paper's title, or its three most distinctive words, finds it as high with the
    semantic part on when 40% of the other papers have no abstract: no blanked paper gets
    ahead of it, and the mean reciprocal rank falls by at most one query's move from first
    to second. (Titles and distinctive words mostly make BM25 decisive, so most of these
    queries get BM25's page: the mix may not undo that.)"""
    overtaken, before_rr, after_rr = known_items_moved(
        index_off_catalogue, on_index, *blanked_on, catalogue
    )
    assert not overtaken
    assert after_rr >= before_rr - 0.5


@pytest.fixture(scope="module")
def index_off_catalogue(catalogue: tuple[Paper, ...]) -> SearchIndex:
    """The catalogue with BM25 alone: ``distinctive_words`` reads its analyzer and planner,
    as ``tests/test_fields.py`` does, so both halves ask the same queries."""
    return SearchIndex.build(catalogue)
