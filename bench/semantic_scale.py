"""What the semantic re-ranking adds to a question's search at 100,000 and 1,000,000 papers.

Run from the repository root: ``python bench/semantic_scale.py [--sizes 100000,1000000]``.

Each size is measured in a fresh process on every core, as the bot runs. The corpus is
``bench/speed.py``'s (the catalogue's papers with an abstract, then synthetic ones). The
real papers keep their stored vectors; each synthetic paper's title and text vectors mix
two real papers' with noise (embedding 1,000,000 papers would take about a day of CPU, and
issue 33 allows synthetic vectors there), so the vectors are clustered as real ones are. The
queries are ``bench/semantic.py``'s question-length ones (12-25 words of the catalogue's blind
sets), embedded by the real model. The process builds the vectors' tables, the index that
finds the nearest papers (``bot.search.nearest``), then the BM25 index, and answers each
question with the semantic part and without it (BM25 alone over the same index), taking
turns, top 5. For the first ``--recall-queries`` questions it also finds the nearest
candidates by the exact scan, to count how many of its the index found and how many top-5
rankings changed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from quality import code_version
from semantic import question_queries
from speed import ALL_CORES, SEED, build_corpus, last_json_line, machine_description, run_pinned

from bot.papers.paper import Paper
from bot.search import semantic
from bot.search.embedding import DIMENSIONS
from bot.search.engine import SearchIndex
from bot.search.query_vectors import always_quiet
from bot.search.semantic import NEAREST_CANDIDATES, SemanticRanker, shared_embedder
from bot.search.vectors import (
    StoredVectors,
    embedding_text,
    read_vectors,
    text_key,
    vectors_path,
)

BENCH_DIR = Path(__file__).resolve().parent
RESULTS_PATH = BENCH_DIR / "results" / "semantic_scale.md"
SIZES = (100_000, 1_000_000)
RECALL_QUERIES = 40
WARMUP = 10
TOP = 5
NOISE = 0.02  # per dimension: a synthetic vector's noise has about 0.4 of a unit vector's norm
_CHUNK = 100_000

TARGET_ADDED_P50_MS = 15.0
TARGET_ADDED_P99_MS = 60.0
TARGET_MEMORY_GB = 6.0  # the whole process at 1,000,000 papers (issue 33)


def rss_mb() -> float:
    """This process's resident memory now, in MB."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def synthetic_vectors(papers: Sequence[Paper], real_count: int) -> StoredVectors:
    """The stored vectors of the real papers, and for each synthetic one a title and a text
    vector made of two real papers' (weights 0.5-1 and the rest) and noise."""
    model = shared_embedder().fingerprint
    stored = read_vectors(vectors_path("catalogue"), model)
    if stored is None:
        raise SystemExit("the catalogue's stored vectors are missing")
    rows = stored.rows()
    real = papers[:real_count]
    texts = stored.vectors[[rows[text_key(embedding_text(p))] for p in real]].astype(np.float32)
    titles = stored.vectors[[rows[text_key(p.title)] for p in real]].astype(np.float32)
    rng = np.random.default_rng(SEED)
    keys = np.zeros(2 * len(papers), dtype=np.uint64)
    vectors = np.zeros((2 * len(papers), DIMENSIONS), dtype=np.float16)
    for start in range(0, len(papers), _CHUNK):
        chunk = papers[start : start + _CHUNK]
        first, second = (rng.integers(0, real_count, len(chunk)) for _ in range(2))
        weight = rng.uniform(0.5, 1.0, (len(chunk), 1)).astype(np.float32)
        for half, table in enumerate((texts, titles)):
            mixed = weight * table[first] + (1 - weight) * table[second]
            mixed += rng.normal(0, NOISE, mixed.shape).astype(np.float32)
            mixed /= np.linalg.norm(mixed, axis=1, keepdims=True)
            if start == 0:  # the real papers keep their own vectors
                mixed[:real_count] = table
            at = 2 * start + half * len(chunk)
            vectors[at : at + len(chunk)] = mixed
            text_of = embedding_text if half == 0 else (lambda paper: paper.title)
            keys[at : at + len(chunk)] = [text_key(text_of(paper)) for paper in chunk]
    return StoredVectors(model, keys, vectors)


class Recorded:
    """A ranker whose nearest candidates are recorded, with how long finding them took:
    from the query's cosines (``SemanticRanker.cosines``, where the exact scan makes its
    product with every row) to ``SemanticRanker.nearest``'s answer."""

    def __init__(self, ranker: SemanticRanker) -> None:
        self._cosines, self._nearest = ranker.cosines, ranker.nearest
        ranker.cosines, ranker.nearest = self._timed_cosines, self._recorded_nearest  # type: ignore[method-assign]
        self.found: list[np.ndarray] = []
        self.ms: list[float] = []
        self._started = 0
        self._embed = ranker.embed
        ranker.embed = self._timed_embed  # type: ignore[method-assign]
        self.embed_ms: list[float] = []

    def _timed_embed(self, text: str) -> np.ndarray:
        started = time.perf_counter_ns()
        vector = self._embed(text)
        self.embed_ms.append((time.perf_counter_ns() - started) / 1e6)
        return vector

    def _timed_cosines(self, *args: Any) -> Any:
        self._started = time.perf_counter_ns()
        return self._cosines(*args)

    def _recorded_nearest(self, *args: Any) -> np.ndarray:
        found = self._nearest(*args)
        self.ms.append((time.perf_counter_ns() - self._started) / 1e6)
        self.found.append(found)
        return found


def percentiles(values: Sequence[float]) -> tuple[float, float]:
    """p50 and p99 (NaN when nothing was timed: no question asked the model)."""
    if not values:
        return float("nan"), float("nan")
    p50, p99 = np.percentile(values, [50, 99])
    return float(p50), float(p99)


def measure(size: int, recall_queries: int, with_bm25: bool) -> dict[str, object]:
    figures: dict[str, object] = {"size": size}
    started = time.perf_counter()
    papers, real = build_corpus(size)
    stored = synthetic_vectors(papers, len(real))
    figures["corpus_seconds"] = time.perf_counter() - started
    ranker = SemanticRanker(shared_embedder(), papers, stored, None)
    del stored
    figures["tables_mb"] = 2 * size * DIMENSIONS * 2 / 1e6
    before, started = rss_mb(), time.perf_counter()
    ranker.prepare_nearest()
    figures["index_seconds"] = time.perf_counter() - started
    figures["index_rss_mb"] = rss_mb() - before
    index_of = ranker._nearest_index
    figures["index_mb"] = 0.0 if index_of is None else index_of.nbytes / 1e6
    questions = question_queries()
    if not with_bm25:
        figures["rss_mb"] = rss_mb()
        return figures
    started = time.perf_counter()
    on = SearchIndex.build(papers, lambda _: ranker)
    # BM25 alone over the very same index (built once: at 1,000,000 papers one is all the
    # memory holds), so on and off differ only in the semantic part.
    off = on._like(on.papers, on._analyzer, on._bm25, None, on._miner)
    on.prepare(embed=False, quiet=always_quiet)
    off.prepare(embed=False)
    figures["bm25_seconds"] = time.perf_counter() - started
    figures["rss_mb"] = rss_mb()
    recorded = Recorded(ranker)
    for query in questions[:WARMUP]:
        on.search(query, limit=TOP)
        off.search(query, limit=TOP)
    timed = {"on": [], "off": []}
    pages: dict[str, list[list[str]]] = {"on": []}
    recorded.ms.clear()
    recorded.found.clear()
    recorded.embed_ms.clear()
    for turn, query in enumerate(questions[WARMUP:]):
        for mode in ("on", "off") if turn % 2 else ("off", "on"):
            index = on if mode == "on" else off
            started_ns = time.perf_counter_ns()
            hits = index.search(query, limit=TOP).hits
            timed[mode].append((time.perf_counter_ns() - started_ns) / 1e6)
            if mode == "on":
                pages["on"].append([hit.paper.id for hit in hits])
    for mode, latencies in timed.items():
        figures[f"{mode}_p50_ms"], figures[f"{mode}_p99_ms"] = percentiles(latencies)
    figures["nearest_p50_ms"], figures["nearest_p99_ms"] = percentiles(recorded.ms)
    figures["model_p50_ms"], figures["model_p99_ms"] = percentiles(recorded.embed_ms)
    figures["questions"] = len(timed["on"])
    # The exact scan's nearest for the first questions, by the same searches.
    approximate = recorded.found
    recorded.found = []
    recorded.ms.clear()
    semantic.APPROXIMATE_FROM = size + 1
    exact_pages = [
        [hit.paper.id for hit in on.search(query, limit=TOP).hits]
        for query in questions[WARMUP : WARMUP + recall_queries]
    ]
    found = [
        len(np.intersect1d(a, e)) / max(1, len(e))
        for a, e in zip(approximate, recorded.found, strict=False)
    ]
    figures["compared"] = len(found)
    figures["recall"] = float(np.mean(found)) if found else float("nan")
    figures["recall_min"] = float(np.min(found)) if found else float("nan")
    figures["exact_nearest_p50_ms"] = percentiles(recorded.ms)[0]
    figures["same_top"] = sum(a == e for a, e in zip(pages["on"], exact_pages, strict=False))
    figures["recall_queries"] = len(exact_pages)
    return figures


def report(results: Sequence[dict[str, object]], load: tuple[float, float]) -> str:
    rows = []
    for r in results:
        size = int(r["size"])
        line = (
            f"| {size:,} | {r['index_seconds']:.1f} s | {r['tables_mb']:.0f} MB"
            f" | {r['index_mb']:.0f} MB ({r['index_rss_mb']:.0f} MB)"
            f" | {float(r['rss_mb']) / 1e3:.2f} GB"
        )
        if "on_p50_ms" not in r:
            rows.append(line + " | — | — | — | — | — | — | — | — |")
            continue
        added50 = float(r["on_p50_ms"]) - float(r["off_p50_ms"])
        added99 = float(r["on_p99_ms"]) - float(r["off_p99_ms"])
        rows.append(
            line + f" | {r['off_p50_ms']:.1f} / {r['off_p99_ms']:.1f} ms"
            f" | {r['on_p50_ms']:.1f} / {r['on_p99_ms']:.1f} ms"
            f" | {added50:+.1f} ms ({'met' if added50 <= TARGET_ADDED_P50_MS else '**missed**'})"
            f" | {added99:+.1f} ms ({'met' if added99 <= TARGET_ADDED_P99_MS else '**missed**'})"
            f" | {r['model_p50_ms']:.1f} / {r['model_p99_ms']:.1f} ms"
            f" | {r['nearest_p50_ms']:.2f} / {r['nearest_p99_ms']:.2f} ms"
            f" (exact: {r['exact_nearest_p50_ms']:.0f} ms)"
            f" | {r['recall']:.3f} (worst {r['recall_min']:.2f}, {r['compared']} searches)"
            f" | {r['same_top']} of {r['recall_queries']} |"
        )
    return "\n".join(
        [
            "# Semantic re-ranking at scale: the nearest candidates by an index",
            "",
            f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by `python bench/semantic_scale.py`"
            f" ({code_version()}) on {machine_description('each size on every CPU')}.",
            "",
            (__doc__ or "").split("\n\n", 2)[2].replace("\n", " ").strip(),
            "",
            "*index build* is `SemanticRanker.prepare_nearest` (faiss IVF, 8-bit, one thread);"
            " *tables* are the two float16 vector tables the ranker held before (2 x 768"
            " bytes a paper), *index* what the index adds (codes, row numbers, centroids; in"
            " brackets, the resident memory its build added); *process RSS* is the whole"
            " process once BM25 is built too (the vectors' tables, their key maps and the"
            " index included). Latencies are top-5 `SearchIndex.search` wall"
            " times, p50 / p99; *added* is on minus off (issue 33's bars: +15 ms p50, +60 ms"
            " p99), *model* the query's embedding alone, on the same searches; *nearest* is"
            " finding the nearest candidates alone (`SemanticRanker.cosines`, then `nearest`),"
            " by the index and by the exact scan. *recall* is the share of the"
            f" exact scan's {NEAREST_CANDIDATES} nearest candidates the index found, and"
            " *same top 5* how many questions kept their top-5 ranking.",
            "",
            "| papers | index build | tables | index (RSS) | process RSS"
            " | BM25 alone | semantic on | added p50 | added p99 | model | nearest p50 / p99"
            " | recall | same top 5 |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
            *rows,
            "",
            f"The machine's load average (1 minute) was {load[0]:.1f} before and {load[1]:.1f}"
            f" after, on {os.cpu_count()} CPUs shared with other work.",
            "",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--worker"]:
        size, recall_queries, with_bm25 = argv[1:]
        print(json.dumps(measure(int(size), int(recall_queries), with_bm25 == "bm25")))
        return 0
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--recall-queries", type=int, default=RECALL_QUERIES)
    parser.add_argument(
        "--vectors-only",
        default="",
        help="sizes measured without BM25 (the vectors and the index only), comma-separated",
    )
    parser.add_argument("--output", type=Path, default=RESULTS_PATH)
    args = parser.parse_args(argv)
    vectors_only = {int(size) for size in args.vectors_only.split(",") if size}
    load_before = os.getloadavg()[0]
    results = []
    for size in (int(text) for text in args.sizes.split(",")):
        mode = "vectors" if size in vectors_only else "bm25"
        command = [sys.executable, str(Path(__file__).resolve()), "--worker", str(size)]
        _, output = run_pinned([*command, str(args.recall_queries), mode], ALL_CORES)
        results.append(last_json_line(output))
        print(json.dumps(results[-1]), file=sys.stderr)
    text = report(results, (load_before, os.getloadavg()[0]))
    args.output.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
