"""The quality benchmark's query file is well-formed and labels only papers that exist.

A mislabelled query would silently score 0 and make the engine look worse (or a broken
benchmark look fine), so the labels are checked against the real corpora.
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest
from project import PROJECT_ROOT

from bot.papers.corpus import LoadedCorpus, load_corpus

QUALITY_SCRIPT = PROJECT_ROOT / "bench" / "quality.py"


@pytest.fixture(scope="module")
def quality() -> ModuleType:
    """The benchmark script, loaded from its path because ``bench/`` is not a package."""
    spec = importlib.util.spec_from_file_location("bench_quality", QUALITY_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve string annotations through it
    spec.loader.exec_module(module)
    return module


def test_there_are_at_least_60_queries_and_8_of_every_kind(quality: ModuleType) -> None:
    queries = quality.load_queries()
    kinds = Counter(query.kind for query in queries)

    assert len(queries) >= 60
    assert {kind: count for kind, count in kinds.items() if count < 8} == {}
    assert set(kinds) == set(quality.REGRESSION_SET.kinds)


def test_the_blind_set_has_150_paper_queries_and_author_queries(quality: ModuleType) -> None:
    blind = quality.CATALOGUE_SET
    kinds = Counter(query.kind for query in quality.load_queries(blind.path, blind.kinds))

    assert sum(kinds.values()) - kinds["author"] >= 150
    assert set(kinds) == set(blind.kinds)


def test_the_held_out_round_asks_about_120_papers_the_headline_set_never_did(
    quality: ModuleType,
) -> None:
    held_out, blind = quality.HOLDOUT_SET, quality.CATALOGUE_SET
    queries = quality.load_queries(held_out.path, held_out.kinds)
    earlier = {
        paper_id
        for query in quality.load_queries(blind.path, blind.kinds)
        if query.kind != "author"
        for paper_id in query.relevant
    }
    papers = {quality.label_id(paper) for paper in load_corpus("catalogue").papers}
    asked = [paper_id for query in queries for paper_id in query.relevant]

    assert Counter(query.kind for query in queries) == {kind: 40 for kind in held_out.kinds}
    assert len(set(asked)) == len(asked) == 120
    assert set(asked) <= papers
    assert set(asked) & earlier == set()


@pytest.mark.parametrize("query_set", ["REGRESSION_SET", "CATALOGUE_SET", "HOLDOUT_SET"])
def test_no_query_is_asked_twice(quality: ModuleType, query_set: str) -> None:
    chosen = getattr(quality, query_set)
    queries = quality.load_queries(chosen.path, chosen.kinds)
    typed = Counter(query.query.casefold() for query in queries)

    assert [query for query, count in typed.items() if count > 1] == []


def test_every_relevant_id_is_a_seed_paper(quality: ModuleType, seed_corpus: LoadedCorpus) -> None:
    seed_ids = {quality.label_id(paper) for paper in seed_corpus.papers}
    labelled = {paper_id for query in quality.load_queries() for paper_id in query.relevant}

    assert len(seed_ids) == 76
    assert labelled - seed_ids == set()


def test_blind_labels_are_catalogue_papers_and_every_paper_of_an_author(
    quality: ModuleType,
) -> None:
    """An author query's relevant set is every accepted paper listing that author (the
    name is in its note), so a paper missing from it would count against the engine."""
    papers = load_corpus("catalogue").papers
    blind = quality.CATALOGUE_SET
    queries = quality.load_queries(blind.path, blind.kinds)
    by_author: dict[str, set[str]] = {}
    for paper in papers:
        for author in paper.authors:
            by_author.setdefault(author, set()).add(quality.label_id(paper))

    labelled = {paper_id for query in queries for paper_id in query.relevant}
    assert labelled <= {quality.label_id(paper) for paper in papers}
    for query in queries:
        if query.kind == "author":
            author = re.search(r"author (.+)$", query.note or "").group(1)
            assert query.relevant == by_author[author], query.query


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        ({"query": "attention sink", "kind": "slang", "relevant": ["x"]}, "kind"),
        ({"query": "attention sink", "kind": "keyword", "relevant": []}, "relevant"),
        ({"query": " ", "kind": "keyword", "relevant": ["x"]}, "query"),
        ({"query": "sink", "kind": "keyword", "relevant": ["x"], "score": 1}, "unknown"),
    ],
)
def test_a_malformed_query_line_is_rejected_with_its_line_number(
    quality: ModuleType, tmp_path: Path, record: dict[str, object], problem: str
) -> None:
    path = tmp_path / "queries.jsonl"
    good = {"query": "graph sparsification", "kind": "keyword", "relevant": ["x"]}
    path.write_text(json.dumps(good) + "\n" + json.dumps(record) + "\n", encoding="utf-8")

    with pytest.raises(ValueError, match=rf"queries\.jsonl:2: .*{problem}"):
        quality.load_queries(path)


def test_metrics_follow_their_textbook_definitions(quality: ModuleType) -> None:
    relevant = frozenset({"a", "b"})
    ranked = ["x", "a", "y", "z", "w", "b"]

    scores = quality.query_scores(ranked, relevant)

    assert scores["MRR@10"] == pytest.approx(1 / 2)
    assert scores["Recall@5"] == pytest.approx(1 / 2)
    found_at_2_and_6 = 1 / math.log2(3) + 1 / math.log2(7)
    best_possible = 1 / math.log2(2) + 1 / math.log2(3)
    assert scores["nDCG@10"] == pytest.approx(found_at_2_and_6 / best_possible)
