"""Is the pruned ranking worth its complexity? Pruned against full scoring, by corpus size.

Run from the repository root: ``python bench/pruning.py [--sizes 3706,100000] [--k 10,100]``.

Both rankings give the same papers, order and scores (the tests check that); this measures
only how long ``SearchIndex.search`` takes with each, on the speed benchmark's queries and
corpora: the real catalogue at 3,706 papers, the catalogue grown with synthetic abstracts
above that. The two are timed query by query in alternation, in one process pinned to one
core, so a drift in the machine's speed hits both alike. ``k`` is the page asked for: 10 for
a Slack page and its successor, 100 for the candidates a semantic re-ranker reads. The
results decide ``bot.search.ranker.PRUNING_MIN_PAPERS``.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from quality import code_version
from speed import benchmark_queries, build_corpus, pin_to_one_core

from bot.papers.corpus import load_corpus
from bot.search import ranker
from bot.search.engine import SearchIndex

RESULTS_PATH = Path(__file__).resolve().parent / "results" / "pruning.md"
REPEATS = 3
WARMUP = 10
ALWAYS, NEVER = 0, sys.maxsize


def timings(index: SearchIndex, queries: list[str], k: int, threshold: int) -> np.ndarray:
    ranker.PRUNING_MIN_PAPERS = threshold
    found = np.empty(len(queries))
    for number, query in enumerate(queries):
        started = time.perf_counter()
        index.search(query, limit=k)
        found[number] = time.perf_counter() - started
    return found


def measure(size: int, ks: list[int]) -> list[list[str]]:
    if size <= 3706:
        papers = list(load_corpus("catalogue").papers)[:size]
        real = papers
    else:
        papers, real = build_corpus(size)
    queries = benchmark_queries(real)
    index = SearchIndex.build(papers)
    index.prepare()
    rows = []
    for k in ks:
        for threshold in (ALWAYS, NEVER):
            timings(index, queries[:WARMUP], k, threshold)
        pruned, full = [], []
        for _ in range(REPEATS):
            pruned.append(timings(index, queries, k, ALWAYS))
            full.append(timings(index, queries, k, NEVER))
        both = (np.concatenate(pruned), np.concatenate(full))
        p50 = [np.percentile(times, 50) * 1000 for times in both]
        p99 = [np.percentile(times, 99) * 1000 for times in both]
        rows.append(
            [
                f"{len(papers):,}",
                str(k),
                f"{p50[0]:.2f} ms",
                f"{p50[1]:.2f} ms",
                f"{p99[0]:.2f} ms",
                f"{p99[1]:.2f} ms",
                f"{p50[1] / p50[0]:.2f}x",
            ]
        )
        print(" | ".join(rows[-1]), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="3706,100000")
    parser.add_argument("--k", default="10,100")
    args = parser.parse_args()
    pin_to_one_core()
    ks = [int(k) for k in args.k.split(",")]
    rows = [row for size in args.sizes.split(",") for row in measure(int(size), ks)]
    header = ["papers", "k", "pruned p50", "full p50", "pruned p99", "full p99", "full/pruned"]
    lines = [
        "# Pruned against full ranking",
        "",
        f"`python bench/pruning.py --sizes {args.sizes} --k {args.k}` at {code_version()}, "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.processor() or platform.machine()}, "
        f"one core; {REPEATS} alternating runs of the speed benchmark's queries, through "
        "`SearchIndex.search`.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + " --- |" * len(header),
        *("| " + " | ".join(row) + " |" for row in rows),
        "",
    ]
    RESULTS_PATH.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {RESULTS_PATH}")


if __name__ == "__main__":
    main()
