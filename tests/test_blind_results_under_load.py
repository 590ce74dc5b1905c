"""Batching and caching change what a search costs, never what it answers (issue 21).

Every query of the blind sets runs through the catalogue's default engine (semantic part on)
three ways: one at a time on a fresh index, prepared as the bot prepares one (so each query
runs the model on both cores), from eight threads at once on another fresh index
(so queries wait together and share model runs in ``bot.search.query_vectors``), and again on
that index, newest first (so the vectors still kept, the most recent 512, come from the
cache). The three must rank the same papers in the
same order, and the order recorded in ``tests/data/blind_rankings.jsonl`` (the top 10 of
every blind query as issue 18 left the ranking, recorded before issue 21 changed how the
model runs and how cosines are computed). A deliberate change of the ranking records it
again: ``python tests/test_blind_results_under_load.py`` (with the project installed). The
order recorded is this machine kind's, which CI shares: another CPU may take other kernels
whose last bits could swap two papers the mix scores all but equal.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bot.papers.corpus import load_corpus
from bot.search.engine import SearchIndex
from bot.search.query_vectors import always_quiet
from bot.search.semantic import ranker_for

BENCH = Path(__file__).resolve().parent.parent / "bench"
BLIND_SETS = (
    "queries_catalogue.jsonl",
    "queries_holdout.jsonl",
    "queries_round4.jsonl",
    "queries_round5.jsonl",
    "queries_like.jsonl",
    "queries_topics.jsonl",
)


RECORDED = Path(__file__).resolve().parent / "data" / "blind_rankings.jsonl"


def _blind_queries() -> list[str]:
    return [
        json.loads(line)["query"]
        for name in BLIND_SETS
        for line in (BENCH / name).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def _recorded() -> list[tuple[str, tuple[str, ...]]]:
    rows = map(json.loads, RECORDED.read_text(encoding="utf-8").splitlines())
    return [(row["query"], tuple(row["top10"])) for row in rows]


def _ranked(index: SearchIndex, query: str) -> tuple[str, ...]:
    return tuple(hit.paper.id for hit in index.search(query, limit=10).hits)


@pytest.fixture(scope="module")
def papers() -> tuple:
    return load_corpus("catalogue").papers


def test_every_blind_query_ranks_the_same_alone_together_and_from_the_cache(papers) -> None:
    queries = _blind_queries()
    assert len(queries) > 500
    alone_index = SearchIndex.build(papers, ranker_for("catalogue"))
    # One query at a time is quiet: each runs on both cores, as a lone query in the bot does.
    alone_index.prepare(embed=False, quiet=always_quiet)
    alone = [_ranked(alone_index, query) for query in queries]

    together_index = SearchIndex.build(papers, ranker_for("catalogue"))
    with ThreadPoolExecutor(max_workers=8) as pool:
        together = list(pool.map(lambda query: _ranked(together_index, query), queries))
    cached = [_ranked(together_index, query) for query in reversed(queries)][::-1]

    assert together == alone
    assert cached == alone
    assert list(zip(queries, alone, strict=True)) == _recorded()


def record() -> None:
    """Write every blind query's top 10, as the engine ranks them now, to ``RECORDED``."""
    papers = load_corpus("catalogue").papers
    ranker = ranker_for("catalogue")(papers)
    if ranker is None or ranker.missing:
        raise SystemExit("the model or stored vectors are missing: that is not the bot's ranking")
    index = SearchIndex.build(papers, lambda _papers: ranker)
    lines = (
        json.dumps({"query": query, "top10": list(_ranked(index, query))}, ensure_ascii=False)
        for query in _blind_queries()
    )
    RECORDED.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


if __name__ == "__main__":
    record()
