"""The nearest-candidates index saved in the snapshot and opened memory-mapped: it answers
exactly as the index it was saved from, takes papers added after it beside the mapped base
(never copying it), and a damaged or unreadable file refuses the snapshot."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hand_vectors import axis, index_with_vectors
from test_semantic_nearest import _twin_corpus

from bot.papers.corpus import load_corpus
from bot.search import nearest, semantic, snapshot
from bot.search.embedding import DIMENSIONS
from bot.search.nearest import NearestIndex
from bot.search.semantic import shared_embedder
from bot.search.snapshot import (
    NEAREST_FILE,
    index_key,
    key_name,
    open_snapshot,
    write_snapshot,
)
from bot.search.snapshot_files import SnapshotMissing, SnapshotRefused


def _clustered(rows: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors in groups of 40 near copies of a random centre; and the centres."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(rows // 40, DIMENSIONS))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    group = rng.permutation(np.repeat(np.arange(len(centres)), 40))
    table = centres[group] + rng.normal(0, 0.01, (len(group), DIMENSIONS))
    table /= np.linalg.norm(table, axis=1, keepdims=True)
    return table.astype(np.float16), centres.astype(np.float32)


def _mapped_files() -> str:
    return Path("/proc/self/maps").read_text()


def test_a_saved_index_opened_mapped_answers_exactly_as_the_one_saved(tmp_path) -> None:
    table, centres = _clustered(8_000, seed=3)
    rng = np.random.default_rng(4)
    ready = rng.random(len(table)) < 0.95
    built = NearestIndex.build(table, ready)
    path = tmp_path / NEAREST_FILE
    held = built.save(path)
    opened = NearestIndex.mapped(path, held.copy())
    assert str(path) in _mapped_files()
    for share in (1.0, 0.5, 0.05):  # the fewer rows allowed, the more lists scanned
        among = ready & (rng.random(len(table)) < share)
        for centre in centres[:20]:
            expected = built.search(centre, among, 50)
            assert opened.search(centre, among, 50).tolist() == expected.tolist()


def test_rows_added_after_opening_are_found_beside_the_mapped_base(tmp_path) -> None:
    table, centres = _clustered(8_000, seed=5)
    first = np.zeros(len(table), dtype=bool)
    first[:6_000] = True
    path = tmp_path / NEAREST_FILE
    opened = NearestIndex.mapped(path, NearestIndex.build(table, first).save(path))
    everything = np.ones(len(table), dtype=bool)
    grown = opened.caught_up(table, everything)
    assert grown._index is opened._index  # the base shared, not copied
    assert not len(grown.tail(everything))
    again = grown.caught_up(table, everything)
    assert again is grown
    widened = table.astype(np.float32)
    for centre in centres[:20]:
        truth = np.argsort(-(widened @ centre))[:10]
        found = grown.search(centre, everything, 40)
        assert set(truth.tolist()) <= set(found.tolist())
        assert (found >= 6_000).any() or (truth < 6_000).all()
    # saved again, the added rows are merged into one file that answers alike
    saved_again = tmp_path / "again.faiss"
    reopened = NearestIndex.mapped(saved_again, grown.save(saved_again))
    for centre in centres[:20]:
        alike = set(reopened.search(centre, everything, 10).tolist())
        assert alike == set(grown.search(centre, everything, 10).tolist())


def test_a_file_that_is_not_such_an_index_is_refused(tmp_path) -> None:
    table, _ = _clustered(4_000, seed=6)
    ready = np.ones(len(table), dtype=bool)
    path = tmp_path / NEAREST_FILE
    held = NearestIndex.build(table, ready).save(path)
    with pytest.raises(ValueError, match="rows"):
        NearestIndex.mapped(path, held[:-1])  # the rows saved beside it disagree
    path.write_bytes(path.read_bytes()[:1000])
    with pytest.raises(ValueError, match="not a faiss index"):
        NearestIndex.mapped(path, held)
    path.write_bytes(b"no faiss index at all")
    with pytest.raises(ValueError, match="not a faiss index"):
        NearestIndex.mapped(path, held)


@pytest.fixture
def large(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A corpus past the (lowered) threshold from which the index finds the nearest, saved."""
    monkeypatch.setattr(semantic, "APPROXIMATE_FROM", 100)
    monkeypatch.setattr(semantic, "_EXACT_POOL", 10)
    monkeypatch.setattr(nearest, "PAPERS_PER_LIST", 40)
    built = _twin_corpus(tmp_path)
    spec = str(tmp_path / "hand.jsonl")
    key = index_key(spec, built.model)
    root = tmp_path / "index"
    write_snapshot(root, key, spec, built, load_corpus(spec))
    return built, spec, key, root


def _refuse_to_build(*_: object, **__: object) -> NearestIndex:
    raise AssertionError("an opened snapshot built its nearest-candidates index again")


def test_an_index_opened_from_its_snapshot_finds_the_nearest_above_the_threshold(large) -> None:
    _, spec, key, root = large
    opened, _ = open_snapshot(root, key, spec, shared_embedder())
    opened.prepare(embed=True)
    assert opened.similar("ASKED", limit=1).hits[0].paper.id == "TWIN"


def test_a_reopened_snapshot_finds_the_nearest_as_the_built_index_from_the_mapped_file(
    large, monkeypatch
) -> None:
    built, spec, key, root = large
    monkeypatch.setattr(NearestIndex, "build", _refuse_to_build)
    opened, _ = open_snapshot(root, key, spec, shared_embedder())
    opened.prepare(embed=True)
    assert str(root / key_name(key) / NEAREST_FILE) in _mapped_files()
    for paper in ("ASKED", "TWIN", "ECHO3", "OTHER7"):
        expected = [(h.paper.id, h.score) for h in built.similar(paper, limit=10).hits]
        assert [(h.paper.id, h.score) for h in opened.similar(paper, limit=10).hits] == expected
    (root.parent / "new").mkdir()
    new = index_with_vectors(
        root.parent / "new",
        {"TRIPLET": ("Cuts kept", "Cuts and walks survive dropping edges by resistance.", axis(0))},
    ).papers
    grown = opened.extended(new, [axis(0)])
    near = [hit.paper.id for hit in grown.similar("ASKED", limit=3).hits]
    assert sorted(near[:2]) == ["TRIPLET", "TWIN"]


def test_a_truncated_nearest_file_refuses_the_snapshot(large) -> None:
    _, spec, key, root = large
    path = root / key_name(key) / NEAREST_FILE
    path.write_bytes(path.read_bytes()[:-64])
    with pytest.raises(SnapshotRefused, match="bytes where"):
        open_snapshot(root, key, spec, shared_embedder())


def test_a_snapshot_saved_by_another_faiss_release_is_not_opened(large, monkeypatch) -> None:
    _, spec, _, root = large
    monkeypatch.setattr(snapshot, "_faiss_version", lambda: "0.0.1")
    other = index_key(spec, shared_embedder().fingerprint)
    with pytest.raises(SnapshotMissing):
        open_snapshot(root, other, spec, shared_embedder())
