"""The semantic mix's weight alpha, chosen on the blind query set: the curve it was chosen from.

Run from the repository root: ``python bench/semantic_alpha.py``.

For each alpha the catalogue index is built with a re-ranker of that weight
(``alpha * minmax(BM25) + (1 - alpha) * cosine`` over BM25's best 100 and the matching papers
nearest to the query's vector) and every query of
``bench/queries_catalogue.jsonl`` is run through ``SearchIndex.search``, as in
``bench/quality.py``; thread posts are also run through ``SearchIndex.related``, the path of
``@paperbot`` alone in a thread. The seed regression set is run at each alpha as well, to see
that the choice costs it nothing. alpha = 1 is BM25's order; the row "off" is the engine without
the semantic part (``related`` then keeps only the post's most distinctive words).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from baselines import bm25okapi_ranker, stem_stop_tokens
from quality import (
    CATALOGUE_SET,
    REGRESSION_SET,
    BenchQuery,
    QuerySet,
    code_version,
    evaluate,
    load_queries,
    summarise,
)
from ranking_metrics import CUTOFF, METRICS

from bot.papers.corpus import load_corpus
from bot.papers.paper import Paper
from bot.search.engine import SearchIndex
from bot.search.semantic import ALPHA, SemanticRanker, shared_embedder
from bot.search.vectors import empty_vectors, read_vectors, vectors_path

BENCH_DIR = Path(__file__).resolve().parent
RESULTS_PATH = BENCH_DIR / "results" / "semantic_alpha.md"
ALPHAS = tuple(round(0.05 * step, 2) for step in range(21))


def _index(papers: Sequence[Paper], corpus: str, alpha: float | None) -> SearchIndex:
    if alpha is None:
        return SearchIndex.build(papers)
    embedder = shared_embedder()
    path = vectors_path(corpus)
    stored = read_vectors(path, embedder.fingerprint) or empty_vectors(embedder.fingerprint, 384)

    def ranker(indexed: Sequence[Paper]) -> SemanticRanker:
        return SemanticRanker(embedder, indexed, stored, path, alpha=alpha)

    return SearchIndex.build(papers, ranker)


def _mrr(index: SearchIndex, queries: Sequence[BenchQuery], kinds, *, related: bool = False):
    def rank(text: str) -> list[Paper]:
        found = index.related(text, limit=CUTOFF) if related else index.search(text, limit=CUTOFF)
        return [hit.paper for hit in found.hits]

    return summarise(evaluate(rank, queries), kinds)


def _row(label: str, cells: Sequence[float], chosen: bool) -> str:
    values = [f"**{value:.3f}**" if chosen else f"{value:.3f}" for value in cells]
    return f"| {label} | " + " | ".join(values) + " |"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=RESULTS_PATH)
    args = parser.parse_args(argv)
    sets: list[tuple[QuerySet, tuple[Paper, ...], list[BenchQuery]]] = [
        (s, load_corpus(s.corpus).papers, load_queries(s.path, s.kinds))
        for s in (CATALOGUE_SET, REGRESSION_SET)
    ]
    (catalogue, papers, queries), (regression, seed_papers, seed_queries) = sets
    threads = [query for query in queries if query.kind == "thread"]
    kinds = catalogue.kinds
    stem_stop = summarise(
        evaluate(bm25okapi_ranker(stem_stop_tokens)(papers, catalogue.corpus), queries), kinds
    )
    rows = []
    for alpha in (None, *ALPHAS):
        index = _index(papers, catalogue.corpus, alpha)
        summary = _mrr(index, queries, kinds)
        related = _mrr(index, threads, ("thread",), related=True)["overall"]["MRR@10"]
        seeds = _mrr(_index(seed_papers, regression.corpus, alpha), seed_queries, regression.kinds)
        cells = [summary[kind]["MRR@10"] for kind in kinds]
        cells += [summary["overall"][metric] for metric in METRICS]
        cells += [related, seeds["overall"]["MRR@10"]]
        label = "off" if alpha is None else f"{alpha:.2f}"
        rows.append(_row(label, cells, alpha == ALPHA))
        print(rows[-1], file=sys.stderr)
    baseline = [stem_stop[kind]["MRR@10"] for kind in kinds]
    baseline += [stem_stop["overall"][metric] for metric in METRICS]
    header = [
        "alpha",
        *(f"{kind} MRR@10" for kind in kinds),
        *(f"overall {metric}" for metric in METRICS),
        "thread via related MRR@10",
        "seeds set MRR@10",
    ]
    lines = [
        "# Semantic mix: choosing alpha",
        "",
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by `python bench/semantic_alpha.py`"
        f" ({code_version()}). {len(queries)} blind queries over the catalogue"
        f" ({len(papers):,} papers; {len(threads)} of them thread posts, also run through"
        f" `related`), and the {len(seed_queries)} seed regression queries. The chosen alpha"
        f" ({ALPHA}) is in bold; *off* is the engine without the semantic part.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *rows,
        "| stem+stop BM25Okapi | " + " | ".join(f"{v:.3f}" for v in baseline) + " | | |",
        "",
    ]
    args.output.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
