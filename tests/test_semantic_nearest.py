"""The nearest papers of a large corpus: found by an index past a size, compared one by one
below it (where every blind set's rankings are decided)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hand_vectors import axis, index_with_vectors

from bot.search import nearest, semantic
from bot.search.embedding import DIMENSIONS
from bot.search.engine import SearchIndex
from bot.search.nearest import APPROXIMATE_FROM, NearestIndex, lists_to_probe
from bot.search.semantic import NEAREST_CANDIDATES, RERANK_DEPTH

WORDS = "spectral sparsifier resistance sampling laplacian"


def _twin_corpus(tmp_path: Path) -> SearchIndex:
    """Papers repeating every word of the asked-about paper but meaning something else, and
    one that means the same in other words, sharing one of them: BM25 ranks it past its best,
    so only the nearest candidates bring it up."""
    echoes = RERANK_DEPTH + NEAREST_CANDIDATES + 200
    papers = {
        "ASKED": ("Spectral sparsifiers", f"We study {WORDS}.", axis(0)),
        "TWIN": ("Fewer edges", "Each edge survives with odds set by its resistance.", axis(0)),
        **{f"ECHO{n}": (f"Echo {n}", f"{WORDS} " * 3, axis(1 + n % 50)) for n in range(echoes)},
        **{f"OTHER{n}": (f"Other {n}", f"Unrelated text {n}.", axis(60)) for n in range(200)},
    }
    return index_with_vectors(tmp_path, papers)


def _refuse_to_build(*_: object, **__: object) -> NearestIndex:
    raise AssertionError("the index was built below the threshold")


def test_below_the_threshold_every_paper_is_compared_and_no_index_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(NearestIndex, "build", _refuse_to_build)
    index = _twin_corpus(tmp_path)
    assert len(index.papers) < APPROXIMATE_FROM
    index.prepare(embed=True)
    assert index.similar("ASKED", limit=1).hits[0].paper.id == "TWIN"


def test_above_the_threshold_the_index_finds_the_nearest_and_then_the_papers_added(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(semantic, "APPROXIMATE_FROM", 100)
    monkeypatch.setattr(semantic, "_EXACT_POOL", 10)
    monkeypatch.setattr(nearest, "PAPERS_PER_LIST", 40)  # 13 lists, of which 8 are scanned
    built: list[int] = []
    build = NearestIndex.build

    def counted(vectors: np.ndarray, ready: np.ndarray) -> NearestIndex:
        built.append(int(np.count_nonzero(ready)))
        return build(vectors, ready)

    monkeypatch.setattr(NearestIndex, "build", counted)
    index = _twin_corpus(tmp_path)
    index.prepare(embed=True)  # as the bot does in the background once started
    assert built == [len(index.papers)]
    hits = index.similar("ASKED", limit=5).hits
    assert hits[0].paper.id == "TWIN"
    assert hits[0].semantic_score == pytest.approx(1)

    # A paper added later is found at once, by the same index grown, not one built again.
    (tmp_path / "new").mkdir()
    papers = index_with_vectors(
        tmp_path / "new",
        {"TRIPLET": ("Cuts kept", "Cuts and walks survive dropping edges by resistance.", axis(0))},
    ).papers
    grown = index.extended(papers, [axis(0)])
    near = [hit.paper.id for hit in grown.similar("ASKED", limit=3).hits]
    assert sorted(near[:2]) == ["TRIPLET", "TWIN"]
    assert len(built) == 1


def test_the_index_finds_the_true_nearest_of_clustered_vectors() -> None:
    """On an easy set (500 groups of 40 near copies of a random unit vector, in random
    order), the rows the index returns for a group's centre hold the exact scan's nearest,
    which the caller then re-scores exactly; rows outside ``among`` are never returned."""
    rng = np.random.default_rng(7)
    centres = rng.normal(size=(500, DIMENSIONS))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    group = rng.permutation(np.repeat(np.arange(500), 40))
    rows = centres[group] + rng.normal(0, 0.01, (len(group), DIMENSIONS))
    table = (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float16)
    ready = rng.random(len(table)) < 0.95  # rows without a vector yet are not indexed
    index = NearestIndex.build(table, ready)
    among = ready & (rng.random(len(table)) < 0.8)
    widened = table.astype(np.float32)
    for centre in centres[:25].astype(np.float32):
        cosines = np.where(among, widened @ centre, -np.inf)
        truth = set(np.argsort(-cosines)[:NEAREST_CANDIDATES].tolist())
        found = index.search(centre, among, 2 * NEAREST_CANDIDATES)
        assert among[found].all()
        assert truth <= set(found.tolist())


def test_a_sparse_mask_widens_the_scan_at_most_fourfold() -> None:
    assert lists_to_probe(1024, 1.0) == 26  # a fortieth of the lists
    assert lists_to_probe(1024, 0.5) == 52
    assert lists_to_probe(1024, 0.01) == lists_to_probe(1024, 0.25) == 103
    assert lists_to_probe(100, 1.0) == 8 and lists_to_probe(100, 0.001) == 32
    assert lists_to_probe(5, 0.5) == 5  # never more lists than there are


def test_a_query_matching_few_papers_near_its_meaning_still_finds_their_nearest() -> None:
    """The mask as BM25 makes it for a selective query: under 1% of the rows, most of them
    on the query's topic (200 topics of 10 groups of 40 near copies), the rest scattered.
    The widest scan a sparse mask gets (``WIDEST_PROBE``) holds the exact scan's nearest."""
    rng = np.random.default_rng(11)

    def unit(rows: np.ndarray) -> np.ndarray:
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    topics = unit(rng.normal(size=(200, DIMENSIONS)))
    groups = unit(np.repeat(topics, 10, axis=0) + rng.normal(0, 0.04, (2000, DIMENSIONS)))
    group = rng.permutation(np.repeat(np.arange(2000), 40))
    table = unit(groups[group] + rng.normal(0, 0.02, (len(group), DIMENSIONS)))
    table = table.astype(np.float16)
    index = NearestIndex.build(table, np.ones(len(table), dtype=bool))
    assert lists_to_probe(index._index.nlist, 0.01) < index._index.nlist  # the widest scan
    widened = table.astype(np.float32)
    for topic, centre in enumerate(topics[:10].astype(np.float32)):
        on_topic = group // 10 == topic
        among = (on_topic & (rng.random(len(table)) < 0.5)) | (rng.random(len(table)) < 0.003)
        assert np.count_nonzero(among) < 0.01 * len(table)
        cosines = np.where(among, widened @ centre, -np.inf)
        truth = set(np.argsort(-cosines)[:NEAREST_CANDIDATES].tolist())
        found = index.search(centre, among, 2 * NEAREST_CANDIDATES)
        assert among[found].all()
        assert truth <= set(found.tolist()), topic
