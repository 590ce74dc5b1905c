"""A saved index answers exactly as the index it was saved from; a snapshot that is missing,
damaged, or made by other rules or another model is never used, and the index is built again
with one log line saying why; two processes open one snapshot and answer alike."""

from __future__ import annotations

import gc
import json
import logging
import subprocess
import sys
import weakref
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path

import numpy as np
import pytest
from project import PROJECT_ROOT
from slack_harness import LiveBot, all_text
from test_blind_results_under_load import _blind_queries, _ranked, _recorded
from test_spelling import _slips

from bot.papers.corpus import LoadedCorpus, feed_paper, load_corpus
from bot.search import snapshot
from bot.search.defined_acronyms import AcronymMiner
from bot.search.engine import SearchIndex
from bot.search.library import Library
from bot.search.mapped import MappedSlices, MappedTable
from bot.search.saved_papers import paper_line, paper_of
from bot.search.semantic import ranker_for, shared_embedder
from bot.search.snapshot import (
    index_key,
    key_name,
    open_snapshot,
    saved_index,
    write_snapshot,
)
from bot.settings import Settings
from bot.shell.fake_slack import RESPONSE_URL
from bot.wiring.root import build_services

QUERIES = (
    "graph neural networks over-smoothing",
    "author:bengio",
    '"large language models" reasoning',
    "sparse mixture-of-experts routing",
    "difusion modles",  # corrected
    "like:odjMSBSWRt",
)


def _seen(index: SearchIndex, query: str) -> tuple:
    """All of a page a reader is shown, and the scores that ordered it."""
    result = index.search(query, limit=10)
    hits = [
        (h.paper, h.score, h.matched_terms, h.bm25_score, h.semantic_score, h.named_authors)
        for h in result.hits
    ]
    return hits, result.total, result.corrected_query, result.reasons, result.counted


def _opened_only(caplog: pytest.LogCaptureFixture) -> bool:
    """Whether the snapshot was opened, said in one line, and nothing else was said."""
    lines = _lines(caplog)
    return len(lines) == 1 and lines[0].startswith("index: opened the snapshot in ")


def _lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "bot.search.snapshot"]


@pytest.fixture(scope="module")
def catalogue() -> tuple:
    return load_corpus("catalogue").papers


def test_a_reopened_catalogue_index_ranks_every_blind_query_as_the_one_saved(
    catalogue, tmp_path
) -> None:
    built = SearchIndex.build(catalogue, ranker_for("catalogue"))
    key = index_key("catalogue", built.model)
    corpus = load_corpus("catalogue")
    write_snapshot(tmp_path, key, "catalogue", built, corpus)
    opened, reopened_corpus = open_snapshot(tmp_path, key, "catalogue", shared_embedder())

    assert tuple(opened.papers) == built.papers
    assert reopened_corpus.description == corpus.description
    queries = _blind_queries()
    ranked = [_ranked(opened, query) for query in queries]
    assert list(zip(queries, ranked, strict=True)) == _recorded()
    for query in QUERIES:
        assert _seen(opened, query) == _seen(built, query)
    reading_list = [paper.id for paper in catalogue[:40:8]]
    assert opened.for_you(reading_list, []) == built.for_you(reading_list, [])


@pytest.fixture(scope="module")
def catalogue_opened(catalogue, tmp_path_factory) -> tuple[SearchIndex, SearchIndex]:
    """The catalogue's index (BM25 alone) as built, and as opened from its snapshot."""
    built, root = SearchIndex.build(catalogue), tmp_path_factory.mktemp("catalogue")
    key = index_key("catalogue", None)
    write_snapshot(root, key, "catalogue", built, load_corpus("catalogue"))
    opened, _ = open_snapshot(root, key, "catalogue", None)
    return built, opened


def test_an_opened_index_holds_the_same_parts_its_arrays_mapped_from_the_files(
    catalogue_opened,
) -> None:
    built, opened = catalogue_opened
    mine, theirs = opened.parts(), built.parts()
    assert mine.acronyms == theirs.acronyms
    assert mine.miner.state() == theirs.miner.state()
    for field, source in zip(mine.bm25.fields, theirs.bm25.fields, strict=True):
        assert vars(field).keys() == vars(source).keys()  # a new table would be saved too
        for name, value in vars(source).items():
            if isinstance(value, np.ndarray):
                assert isinstance(getattr(field, name).base, np.memmap), name
                assert np.array_equal(getattr(field, name), value), name
            elif name == "_dense_codes":
                assert value.keys() == field._dense_codes.keys()
                assert all(np.array_equal(field._dense_codes[t], v) for t, v in value.items())
            else:
                assert getattr(field, name) == value, name
    analyzer, source = mine.analyzer, theirs.analyzer
    assert vars(analyzer).keys() == vars(source).keys()
    assert (analyzer.splits, analyzer.openings, analyzer.apart, analyzer.uses) == (
        source.splits,
        source.openings,
        source.apart,
        source.uses,
    )
    for token in ("graph", "diffus", "mixtureofexpert", "llm", "nowhere"):
        assert analyzer._chunks_by_token.get(token) == source._chunks_by_token.get(token)
    assert mine.authors.by_token.keys() == theirs.authors.by_token.keys()
    assert all(
        np.array_equal(mine.authors.by_token[t], d) for t, d in theirs.authors.by_token.items()
    )
    saved, source = mine.speller.deletions, theirs.speller.deletions
    assert saved.longest == source.longest
    for name, table in source.tables().items():
        assert isinstance(getattr(saved, name).base, np.memmap), name
        assert np.array_equal(getattr(saved, name), table), name


def test_a_reopened_index_corrects_every_word_and_typo_as_the_built_one(
    catalogue_opened,
) -> None:
    """The corrector comes mapped from the snapshot, nothing built, and corrects alike."""
    built, opened = catalogue_opened
    assert "speller" in vars(opened._planner)  # opened with the index, not built on first use
    mine, theirs = opened.parts().speller, built.parts().speller
    words = [theirs.deletions.word(n) for n in range(len(theirs.deletions.counts))]
    typed = [*words, *_slips(words, 2000)]
    assert [mine.correct(w) for w in typed] == [theirs.correct(w) for w in typed]
    for query in ("difusion modles", "reinforcment lerning for robotcs", "Transfomrer"):
        assert opened.search(query).corrected_query == built.search(query).corrected_query


def _refs(papers) -> list[str]:
    """What a reader may look a paper up by: its id as written, in another case, as a link,
    and ids no paper has."""
    ids = [paper.id for paper in papers[:: max(1, len(papers) // 12)]]
    return [
        *ids,
        *(paper_id.swapcase() for paper_id in ids),
        *(f"https://openreview.net/forum?id={paper_id}" for paper_id in ids),
        "nowhere",
        "",
        "\ud800",
        "2501.99999",
    ]


def test_an_opened_index_looks_words_names_and_ids_up_in_the_mapped_files(saved) -> None:
    root, built = saved
    opened, _ = open_snapshot(root, index_key("seeds", None), "seeds", None)
    mine, theirs = opened.parts(), built.parts()
    for field, source in zip(mine.bm25.fields, theirs.bm25.fields, strict=True):
        assert isinstance(field.vocabulary, MappedTable) and not isinstance(source, MappedTable)
        assert list(field.vocabulary.items()) == list(source.vocabulary.items())
    assert isinstance(mine.authors.by_token, MappedSlices)
    assert list(mine.authors.by_token) == list(theirs.authors.by_token)
    refs = _refs(built.papers)
    assert [opened.get(ref) for ref in refs] == [built.get(ref) for ref in refs]
    assert all(opened.get(ref) for ref in refs[:-4])
    new = feed_paper(
        paper_id="2501.01234",
        title="Sparse Routing for Mixture-of-Experts Graphs",
        authors=["Zoë Müller"],
        status=None,
        url="https://arxiv.org/abs/2501.01234",
        abstract="We route tokens over graphs with sparse experts.",
        source="arxiv",
        arxiv_id="2501.01234",
    )
    library = Library(opened)
    assert library.add([new]) == 1
    grown = library.index
    assert grown.get("2501.01234") == new == grown.get("https://arxiv.org/abs/2501.01234")
    assert [grown.get(ref) for ref in refs[:-1]] == [built.get(ref) for ref in refs[:-1]]


def test_papers_added_to_an_opened_index_rank_as_a_full_build(catalogue, tmp_path) -> None:
    first, more = catalogue[:3000], catalogue[3000:]
    key = index_key("catalogue", None)
    write_snapshot(
        tmp_path, key, "catalogue", SearchIndex.build(first), LoadedCorpus(first, (), "", "")
    )
    opened, _ = open_snapshot(tmp_path, key, "catalogue", None)
    library = Library(opened)
    assert library.add(more) == len(more)
    full = SearchIndex.build(catalogue)
    for query in QUERIES:
        assert _seen(library.index, query) == _seen(full, query)


def test_an_addition_to_an_opened_index_reads_the_new_papers_only_as_to_a_built_one(
    catalogue, tmp_path, monkeypatch
) -> None:
    first, more = catalogue[:3000], catalogue[3000:]
    key = index_key("catalogue", None)
    built = SearchIndex.build(first)
    write_snapshot(tmp_path, key, "catalogue", built, LoadedCorpus(first, (), "", ""))
    opened, _ = open_snapshot(tmp_path, key, "catalogue", None)
    read: list[int] = []
    mine = AcronymMiner.read

    def counted(miner: AcronymMiner, texts) -> None:
        texts = list(texts)
        read.append(len(texts))
        mine(miner, texts)

    monkeypatch.setattr(AcronymMiner, "read", counted)
    grown, grown_built = opened.extended(more), built.extended(more)
    assert read == [len(more), len(more)]  # not the 3,000 saved papers again
    assert grown.parts().miner.state() == grown_built.parts().miner.state()
    assert grown.parts().acronyms == grown_built.parts().acronyms


def test_an_opened_index_saved_again_and_reopened_answers_alike(saved, tmp_path) -> None:
    root, original = saved
    key = index_key("seeds", None)
    opened, corpus = open_snapshot(root, key, "seeds", None)
    write_snapshot(tmp_path / "again", key, "seeds", opened, corpus)
    again, _ = open_snapshot(tmp_path / "again", key, "seeds", None)
    assert [_seen(again, q) for q in QUERIES] == [_seen(original, q) for q in QUERIES]


def test_an_opened_index_replaced_is_freed_with_the_heap_frozen(saved) -> None:
    root, _ = saved
    opened, _ = open_snapshot(root, index_key("seeds", None), "seeds", None)
    library = Library(opened)
    for query in QUERIES:
        library.index.search(query)
    library.index.prepare(embed=False)
    replaced = weakref.ref(library.index)
    del opened
    gc.disable()
    gc.freeze()  # as the served bot does once it is prepared
    try:
        library.swap(SearchIndex.build(load_corpus("seeds").papers[:10]))
        assert replaced() is None
    finally:
        gc.unfreeze()
        gc.enable()


def test_a_paper_with_every_field_comes_back_equal() -> None:
    paper = feed_paper(
        paper_id="2501.01234",
        title="Sparse Routing — in Ünïcode",
        authors=["Zoë Müller", "Ada Lovelace"],
        status="Poster",
        url="https://arxiv.org/abs/2501.01234v2",
        abstract="We route $x^2$ tokens.\nSecond line.",
        source="arxiv",
        arxiv_id="2501.01234",
        arxiv_version=2,
        venue="ICLR 2026",
        decision="Accept",
        announced=date(2025, 1, 3),
        published=datetime(2025, 1, 2, 18, 0, tzinfo=UTC),
        updated=datetime(2025, 2, 1, 9, 30, tzinfo=UTC),
        pages=("https://arxiv.org/abs/2501.01234", "https://openreview.net/forum?id=abc"),
    )
    assert paper_of(paper_line(paper)) == paper
    paper.tldr  # noqa: B018 - derived on first read, then saved as it is
    assert paper_of(paper_line(paper)) == paper


@pytest.fixture
def saved(tmp_path: Path) -> tuple[Path, SearchIndex]:
    index, _ = saved_index("seeds", tmp_path, semantic=False)
    return tmp_path, index


def _answers(index: SearchIndex) -> list[list[str]]:
    return [[h.paper.id for h in index.search(q, limit=10).hits] for q in QUERIES]


def _array_file(root: Path, name: str = "field1.docs.npy") -> Path:
    (directory,) = root.glob("index-*")
    return directory / name


def _truncate(root: Path, name: str = "field1.docs.npy") -> None:
    path = _array_file(root, name)
    path.write_bytes(path.read_bytes()[:-4])


def _flip(root: Path, name: str = "field1.docs.npy") -> None:
    path = _array_file(root, name)
    data = bytearray(path.read_bytes())
    data[-3] ^= 0x40
    path.write_bytes(bytes(data))


def _other_version(monkeypatch: pytest.MonkeyPatch, part: str = "ANALYZER_VERSION") -> None:
    monkeypatch.setattr(snapshot, part, getattr(snapshot, part) + 1)


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda root, _: _truncate(root), "field1.docs.npy is"),
        (lambda root, _: _flip(root), "field1.docs.npy does not match its checksum"),
        (
            lambda root, _: _flip(root, "field1.vocabulary.slots.npy"),
            "field1.vocabulary.slots.npy does not match its checksum",
        ),
        (lambda root, _: _array_file(root, "manifest.json").unlink(), "none of this corpus"),
        (lambda _, monkeypatch: _other_version(monkeypatch), "another analyzer version"),
        (lambda root, _: _truncate(root, "speller.owners.npy"), "speller.owners.npy is"),
        (
            lambda root, _: _flip(root, "speller.keys.npy"),
            "speller.keys.npy does not match its checksum",
        ),
        (
            lambda _, monkeypatch: _other_version(monkeypatch, "SNAPSHOT_FORMAT"),
            "another snapshot format",
        ),
    ],
    ids=[
        "truncated",
        "flipped-byte",
        "flipped-table",
        "partial",
        "other-analyzer-version",
        "truncated-corrector",
        "flipped-corrector-byte",
        "other-format",
    ],
)
def test_a_damaged_or_other_version_snapshot_is_refused_and_built_again(
    saved, damage, why, caplog, monkeypatch
) -> None:
    root, original = saved
    damage(root, monkeypatch)
    with caplog.at_level(logging.INFO, logger="bot.search.snapshot"):
        index, _ = saved_index("seeds", root, semantic=False)
    (line,) = _lines(caplog)
    assert why in line and "building the index" in line
    assert _answers(index) == _answers(original)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="bot.search.snapshot"):
        again, _ = saved_index("seeds", root, semantic=False)  # the new one, whole
    assert _opened_only(caplog)
    assert _answers(again) == _answers(original)
    assert len(list(root.glob("index-*"))) <= snapshot.KEEP


@pytest.mark.parametrize("table", ["field0.vocabulary", "authors.tokens", "papers.by_id"])
def test_a_table_whose_slots_do_not_number_its_keys_is_refused_unchecked(saved, table) -> None:
    """Even with checksums off, a table a lookup could loop in forever is never opened."""
    root, _ = saved
    path = _array_file(root, f"{table}.slots.npy")
    slots = np.load(path)
    np.save(path, np.zeros_like(slots))  # the same size: only a checksum would tell
    with pytest.raises(snapshot.SnapshotRefused, match="cannot be read"):
        open_snapshot(root, index_key("seeds", None), "seeds", None, verify=False)


def test_a_snapshot_of_another_model_is_refused_and_built_again(tmp_path, caplog) -> None:
    papers = load_corpus("seeds")
    built = SearchIndex.build(papers.papers, ranker_for("seeds"))
    write_snapshot(tmp_path, index_key("seeds", "another-model"), "seeds", built, papers)
    with caplog.at_level(logging.INFO, logger="bot.search.snapshot"):
        index, _ = saved_index("seeds", tmp_path, semantic=True)
    (line,) = _lines(caplog)
    assert "has another model" in line
    assert index.model == shared_embedder().fingerprint
    assert _answers(index) == _answers(built)


def test_a_corpus_file_changed_since_is_another_corpus(tmp_path, caplog) -> None:
    corpus = tmp_path / "papers.jsonl"
    lines = (PROJECT_ROOT / "seeds" / "iclr2025.jsonl").read_text(encoding="utf-8").splitlines()
    corpus.write_text("\n".join(lines[:50]) + "\n", encoding="utf-8")
    saved_index(str(corpus), tmp_path / "index", semantic=False)
    corpus.write_text("\n".join(lines[:60]) + "\n", encoding="utf-8")
    with caplog.at_level(logging.INFO, logger="bot.search.snapshot"):
        index, _ = saved_index(str(corpus), tmp_path / "index", semantic=False)
    (line,) = _lines(caplog)
    assert "has another corpus files" in line
    assert len(index.papers) == 60


def test_the_bot_opens_the_saved_index_at_its_next_start(tmp_path, caplog) -> None:
    settings = Settings(corpus="seeds", semantic=False, index_dir=tmp_path)
    first = build_services(settings, None)
    first.close()
    with caplog.at_level(logging.INFO, logger="bot.search.snapshot"):
        second = build_services(settings, None)
    try:
        assert _opened_only(caplog)
        assert _answers(second.library.index) == _answers(first.library.index)
        assert second.corpus.label == first.corpus.label
    finally:
        second.close()


def test_a_served_bot_answers_paper_from_the_saved_index(saved, seed_corpus, caplog) -> None:
    root, _ = saved
    bot = LiveBot(seed_corpus, root.parent, deferred=True)
    try:
        assert bot.get("/readyz").status == 503
        services = bot.services
        services.settings = replace(
            services.settings, corpus="seeds", semantic=False, index_dir=root
        )
        with caplog.at_level(logging.INFO, logger="bot.search.snapshot"):
            services.load()  # what the served bot does once it listens
        assert _opened_only(caplog)
        assert bot.get("/readyz").status == 200
        assert bot.slash("graph sparsification").status == 200
        [answer] = bot.recorder.wait_for(RESPONSE_URL, 1)
        assert "Graph Sparsification via Mixture of Graphs" in all_text(answer.blocks)
    finally:
        bot.close()


OPEN_AND_ANSWER = """
import json, sys
from pathlib import Path
import numpy as np
from bot.search.snapshot import open_snapshot
key = json.loads(sys.argv[2])
index, _ = open_snapshot(Path(sys.argv[1]), key, "seeds", None)
mapped = all(isinstance(f._docs.base, np.memmap) for f in index.parts().bm25.fields)
queries = json.loads(sys.argv[3])
print(json.dumps({
    "mapped": mapped,
    "answers": [[h.paper.id for h in index.search(q, limit=10).hits] for q in queries],
}))
"""


def test_two_processes_open_one_snapshot_and_answer_alike(saved) -> None:
    root, original = saved
    key = json.dumps(index_key("seeds", None))
    assert (root / key_name(json.loads(key))).is_dir()
    command = [sys.executable, "-c", OPEN_AND_ANSWER, str(root), key, json.dumps(QUERIES)]
    processes = [
        subprocess.Popen(command, cwd=PROJECT_ROOT, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [json.loads(process.communicate(timeout=120)[0]) for process in processes]
    assert [process.returncode for process in processes] == [0, 0]
    expected = {"mapped": True, "answers": _answers(original)}
    assert outputs == [expected, expected]
