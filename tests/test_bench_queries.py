"""The quality benchmark's query file is well-formed and labels only papers that exist; its
measures, verdicts and report work, checked on a tiny synthetic corpus with stub systems.

A mislabelled query would silently score 0 and make the engine look worse (or a broken
benchmark look fine), so the labels are checked against the real corpora.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest
from project import PROJECT_ROOT, bench_script

from bot.papers.corpus import LoadedCorpus, load_corpus

QUALITY_SCRIPT = PROJECT_ROOT / "bench" / "quality.py"


@pytest.fixture(scope="module")
def quality() -> ModuleType:
    return bench_script("quality")


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
        ({"query": "attention sinks", "kind": "topic", "relevant": ["x"]}, "empty list"),
    ],
)
def test_a_malformed_query_line_is_rejected_with_its_line_number(
    quality: ModuleType, tmp_path: Path, record: dict[str, object], problem: str
) -> None:
    path = tmp_path / "queries.jsonl"
    good = {"query": "graph sparsification", "kind": "keyword", "relevant": ["x"]}
    path.write_text(json.dumps(good) + "\n" + json.dumps(record) + "\n", encoding="utf-8")

    with pytest.raises(ValueError, match=rf"queries\.jsonl:2: .*{problem}"):
        quality.load_queries(path, (*quality.REGRESSION_SET.kinds, "topic"))


def test_metrics_follow_their_textbook_definitions(quality: ModuleType) -> None:
    relevant = frozenset({"a", "b"})
    ranked = ["x", "a", "y", "z", "w", "b"]

    scores = quality.query_scores(ranked, relevant)

    assert scores["MRR@10"] == pytest.approx(1 / 2)
    assert scores["Recall@5"] == pytest.approx(1 / 2)
    found_at_2_and_6 = 1 / math.log2(3) + 1 / math.log2(7)
    best_possible = 1 / math.log2(2) + 1 / math.log2(3)
    assert scores["nDCG@10"] == pytest.approx(found_at_2_and_6 / best_possible)


# --- the measures, on a tiny synthetic corpus -----------------------------------------------

BARE = ("B1", "B2", "B3")  # papers without an abstract


def _tiny_corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "tiny.jsonl"
    records = [
        {"id": f"A{n}", "title": f"Paper A{n}", "abstract": "We study things.", "authors": []}
        for n in range(1, 4)
    ] + [{"id": paper_id, "title": f"Paper {paper_id}", "authors": []} for paper_id in BARE]
    corpus.write_text("".join(json.dumps(record) + "\n" for record in records), "utf-8")
    return corpus


def _query_file(path: Path, records: list[tuple[str, str, list[str]]]) -> Path:
    lines = [json.dumps({"query": q, "kind": kind, "relevant": ids}) for q, kind, ids in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _stub(answers: dict[str, list[str]], name: str, quality: ModuleType):
    """A system that answers each query with the papers listed for it."""

    def build(papers, corpus):
        by_id = {paper.id: paper for paper in papers}
        return lambda query, thread=False: [by_id[i] for i in answers.get(query, [])]

    return quality.System(name, build, name)


@pytest.fixture
def tiny_run(quality: ModuleType, tmp_path: Path):
    """A blind set (two kinds of two queries), a set whose file is missing, and topics."""
    corpus = str(_tiny_corpus(tmp_path))
    blind = quality.QuerySet(
        "tiny (blind)",
        _query_file(
            tmp_path / "queries_tiny.jsonl",
            [
                ("q1", "question", ["A1"]),
                ("q2", "question", ["A2"]),
                ("t1", "title", ["A3"]),
                ("t2", "title", ["B1"]),
            ],
        ),
        corpus,
        ("question", "title"),
    )
    missing = quality.QuerySet("later (blind)", tmp_path / "none.jsonl", corpus, ("question",))
    topics = quality.QuerySet(
        "tiny topics",
        _query_file(tmp_path / "topics.jsonl", [("broad", "topic", []), ("wide", "topic", [])]),
        corpus,
        ("topic",),
    )
    right = {"q1": ["A1"], "q2": ["A2"], "t1": ["A3"], "t2": ["B1"]}
    off = right | {"broad": ["B1", "B2", "B3", "A1", "A2"], "wide": ["B1", "B2"]}
    # Semantic on loses one title query (within one query's worth: 1/2) and fills no topic
    # query's top 5 with bare titles.
    on = right | {"t2": [], "broad": ["A1", "A2", "A3", "B1"], "wide": ["A1"]}
    chosen = [
        _stub(right, "plain BM25Okapi", quality),
        _stub(right, "stem+stop BM25Okapi", quality),
        _stub(off, quality.SEMANTIC_OFF, quality),
        _stub(on, quality.SEMANTIC_ON, quality),
    ]
    return quality.measure((blind, missing), (topics,), chosen), chosen


def test_topics_count_the_top_5_hits_without_an_abstract(tiny_run) -> None:
    measured, _ = tiny_run
    (topics,) = measured.topics
    off, on = topics.shares["engine, semantic off"], topics.shares["engine, semantic on"]
    assert (off.queries, off.hits, off.bare, off.all_bare) == (2, 7, 5, 1)
    assert (on.hits, on.bare, on.all_bare) == (5, 1, 0)
    assert on.share == pytest.approx(1 / 5)


def test_semantic_on_may_lose_one_query_of_a_kind_and_the_union_gain_is_reported(
    quality: ModuleType, tiny_run
) -> None:
    measured, chosen = tiny_run
    before = quality.RecordedGain(("queries_tiny.jsonl",), -0.25, "a test")
    assert quality.verdicts(measured, before) == []
    text = quality.report(measured, chosen, [], "commit test", before)
    assert "| tiny (blind) | title (2) | 1.000 | 0.500 | -0.500 | 0.500 |" in text
    assert "On the union of the blind sets (4 queries): semantic on 0.750, off 1.000" in text
    assert "On queries_tiny.jsonl: gain -0.250 now, -0.250 before" in text
    assert "- later (blind): `none.jsonl` does not exist yet." in text
    assert "In the corpus, 3 of 6 papers (50.0%) have no abstract." in text
    assert "| engine, semantic on | 5 | 1 | 20.0% | 0 of 2 |" in text
    assert [run.query_set.name for run in measured.runs] == ["tiny (blind)"]


def test_losing_more_than_one_query_of_a_kind_or_the_union_gain_fails(
    quality: ModuleType, tiny_run
) -> None:
    measured, _ = tiny_run
    (run,) = measured.runs
    worse = run.outcomes["engine, semantic on"]
    worse[0] = quality.QueryOutcome(worse[0].query, (), {metric: 0.0 for metric in quality.METRICS})
    before = quality.RecordedGain(("queries_tiny.jsonl",), 0.0, "a test")
    failures = quality.verdicts(measured, before)
    assert len(failures) == 1 and failures[0].startswith("semantic on gains -0.500")
    worse[1] = quality.QueryOutcome(worse[1].query, (), {metric: 0.0 for metric in quality.METRICS})
    failures = quality.verdicts(measured, before)
    assert failures[0].startswith("tiny (blind) question: semantic on MRR@10 0.000 < semantic off")
