"""Search speed benchmark: the project's engine against rank-bm25's get_scores at 10k-1M papers,
and issue 33's table, in one run.

Run from the repository root: ``python bench/speed.py [--sizes 10000,100000,250000,1000000]
[--data DIR]``.

Every measurement runs in its own subprocess pinned to one core, so each engine's peak
resident memory is its own and no measurement borrows a second core. The corpora are the
catalogue's real abstracts topped up with synthetic ones (``speed_corpus.Synthesizer``); the
queries are the quality benchmark's hand-written ones plus short phrases cut from real
abstracts. At issue 33's sizes the index is also opened from a prepared snapshot as the bot
serves it (``speed_opened``); from ``OPENED_MIN_SIZE`` papers that opened index is the
engine measured, instead of one built in each run. The report and its verdicts are
``speed_report``'s.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import speed_opened
from rank_bm25 import BM25Okapi
from speed_corpus import (
    PROJECT_ROOT,
    QUERY_COUNT,
    SEED,
    TOP_K,
    VECTOR_TABLES,
    WARMUP_QUERIES,
    benchmark_queries,
    build_corpus,
    real_papers,
    write_catalogue_jsonl,
)
from speed_report import (
    ISSUE_BARS,
    IssueBar,
    bar_targets,
    issue_targets,
    opened_row,
    report,
    speedups,
)
from speed_report import machine_description as machine_description  # the other benches' too
from speed_report import table as table
from speed_start import SnapshotStart, measure_snapshot_start, snapshots_available

from bot.papers.paper import Paper
from bot.search import indexing
from bot.search.analyzer import analyze
from bot.search.embedding import DIMENSIONS
from bot.search.engine import SearchIndex

RESULTS_PATH = Path(__file__).resolve().parent / "results" / "speed.md"
SIZES = (10_000, 100_000, 250_000, 1_000_000)
START_SIZE = 100_000
SNAPSHOT_MIN_SIZE = 100_000  # sizes from here on also start from a saved index, model off
# From here the engine is opened from its snapshot (bench/speed_opened.py), once, not built in
# each of REPEATS runs (a million papers take ~15 minutes to build), and rank-bm25, which
# needs ~9 GB and ~1 s a query there, runs once.
OPENED_MIN_SIZE = 1_000_000
REPEATS = 3  # search measurements per engine and size, alternating engines


ONE_CORE = frozenset({0})
ALL_CORES = frozenset(os.sched_getaffinity(0))


def pin_to_one_core() -> None:
    os.sched_setaffinity(0, ONE_CORE)


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far (Linux reports ``ru_maxrss`` in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


Searcher = Callable[[str], object]


@dataclass(frozen=True)
class Built:
    search: Searcher
    build_seconds: float


def build_engine(papers: Sequence[Paper]) -> Built:
    """The index, then what the bot builds in the background right after start-up
    (``SearchIndex.prepare``: typo corrector, English lexicon, author map, pruned tables):
    the bot's queries do not pay for those, so the timed ones must not either. Both count as
    build time."""
    started = time.perf_counter()
    index = SearchIndex.build(papers)
    index.prepare(embed=False)
    seconds = time.perf_counter() - started
    return Built(lambda query: index.search(query, limit=TOP_K), seconds)


def synthetic_vectors(size: int) -> list[np.ndarray]:
    """Tables of the size and kind the semantic ranker holds for ``size`` papers (float16,
    ``VECTOR_TABLES`` vectors a paper), filled, so the memory measured holds them as a bot
    re-ranking by meaning would: embedding a million papers takes a day of CPU, and the
    searches measured here are BM25's (the semantic part is off)."""
    rng = np.random.default_rng(SEED)
    tables = []
    for _ in range(VECTOR_TABLES):
        table = np.empty((size, DIMENSIONS), dtype=np.float16)
        for start in range(0, size, 65_536):
            rows = rng.standard_normal((min(65_536, size - start), DIMENSIONS), np.float32)
            rows /= np.linalg.norm(rows, axis=1, keepdims=True)
            table[start : start + len(rows)] = rows
        tables.append(table)
    return tables


def resident_mb() -> float:
    """This process's resident memory now (``VmRSS``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def write_token_lists(index: SearchIndex, path: Path) -> None:
    """The token lists ``index`` indexes, one paper a line: its title's tokens, a tab, its
    abstract's.

    They come from a ``SearchIndex`` (its analysis depends on the whole corpus), built or
    opened in a process of its own, so that index never counts towards rank-bm25's memory.
    Tokens never contain whitespace, so a space-joined field round-trips. The file appears
    whole or not at all (written beside, then renamed), so a kept one is never a cut one.
    """
    part = path.with_name(path.name + ".part")
    with part.open("w", encoding="utf-8") as out:
        for paper in index.papers:
            fields = indexing.field_tokens(index._analyzer, paper)
            out.write("\t".join(" ".join(tokens) for tokens in fields) + "\n")
    part.replace(path)


def read_token_lists(path: Path) -> list[list[list[str]]]:
    """Each field's token lists, sharing one string per distinct token, as they would in
    memory after analysis; a fresh string per occurrence would triple rank-bm25's resident
    memory."""
    fields: list[list[list[str]]] = [[] for _ in indexing.FIELD_WEIGHTS]
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            for documents, text in zip(fields, line.rstrip("\n").split("\t"), strict=True):
                documents.append([sys.intern(token) for token in text.split()])
    return fields


def build_get_scores(fields: list[list[list[str]]]) -> Built:
    """rank-bm25 over exactly the token lists the engine indexes, one ``BM25Okapi`` per field
    weighted as the engine weighs them, ranked by a full sort.

    Queries are analysed with ``bot.search.analyzer.analyze`` alone, without the engine's
    acronym and compound expansions, so rank-bm25 scores no more terms than the engine does.
    """
    started = time.perf_counter()
    indexes = [
        BM25Okapi(documents, k1=k1) for documents, k1 in zip(fields, indexing.FIELD_K1, strict=True)
    ]
    seconds = time.perf_counter() - started

    def search(query: str) -> object:
        tokens = analyze(query)
        scores = sum(
            bm25.get_scores(tokens) * weight
            for bm25, weight in zip(indexes, indexing.FIELD_WEIGHTS, strict=True)
        )
        return np.argsort(-scores, kind="stable")[:TOP_K]

    return Built(search, seconds)


def measure_search(
    engine: str, size: int, query_count: int, tokens: Path | None = None
) -> dict[str, object]:
    """One engine at one size: corpus, build, then timed top-10 searches (after a warm-up).
    get_scores holds the token lists alone, not the papers: at a million papers its
    ``BM25Okapi`` needs ~9 GB, and a million papers beside it would add ~3 GB."""
    started = time.perf_counter()
    vectors: list[np.ndarray] = []
    if engine == "engine":
        papers, real = build_corpus(size)
        corpus_seconds = time.perf_counter() - started
        corpus_rss = peak_rss_mb()
        built = build_engine(papers)
        vectors = synthetic_vectors(size)
    else:
        if tokens is None:
            raise ValueError("get_scores needs the engine's token lists")
        real = real_papers()
        fields = read_token_lists(tokens)
        corpus_seconds = time.perf_counter() - started
        if len(fields[0]) != size:
            raise ValueError(f"{tokens} has {len(fields[0])} token lists for {size} papers")
        corpus_rss = peak_rss_mb()
        built = build_get_scores(fields)
        del fields
    search = built.search
    queries = benchmark_queries(real, query_count)

    for query in queries[:WARMUP_QUERIES]:
        search(query)
    latencies = []
    for query in queries:
        started = time.perf_counter_ns()
        search(query)
        latencies.append((time.perf_counter_ns() - started) / 1e6)
    p50, p99 = np.percentile(latencies, [50, 99])
    return {
        "engine": engine,
        "serving_rss_mb": resident_mb(),
        "vectors_mb": sum(table.nbytes for table in vectors) / 2**20,
        "size": size,
        "corpus_seconds": corpus_seconds,
        "corpus_rss_mb": corpus_rss,
        "build_seconds": built.build_seconds,
        "peak_rss_mb": peak_rss_mb(),
        "p50_ms": float(p50),
        "p99_ms": float(p99),
        "max_ms": max(latencies),
        "queries": len(latencies),
    }


def run_pinned(
    command: Sequence[str], cores: frozenset[int] = ONE_CORE, code: Path | None = None
) -> tuple[float, str]:
    """Run a command in a fresh process pinned to ``cores``, importing ``bot`` from the
    checkout ``code`` when given (an earlier commit's, ``--before``); return its wall time
    and output."""
    env = None
    if code is not None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(code), str(PROJECT_ROOT)])}
    started = time.perf_counter()
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        check=False,
        cwd=PROJECT_ROOT,
        env=env,
        preexec_fn=functools.partial(os.sched_setaffinity, 0, cores),
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    return wall, done.stdout


def last_json_line(output: str) -> dict[str, object]:
    return json.loads(output.strip().splitlines()[-1])


def worker_command(*args: str) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--worker", *args]


STARTUP_SCRIPT = """
import json, resource, sys, time
started = time.perf_counter()
from bot.papers.corpus import CATALOGUE_PATH, load_corpus
from bot.search import engine
from bot.search.engine import SearchIndex
imported = time.perf_counter()
papers = load_corpus(sys.argv[1]).papers
loaded = time.perf_counter()
SearchIndex.build(papers)
built = time.perf_counter()
print(json.dumps({
    "papers": len(papers),
    "import_seconds": imported - started,
    "load_seconds": loaded - imported,
    "index_seconds": built - loaded,
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


@dataclass(frozen=True)
class StartupMeasurement:
    label: str
    wall_seconds: float
    report: dict[str, object]


def measure_startup(label: str, spec: str) -> StartupMeasurement:
    """A fresh ``python -c`` that imports the bot, loads a corpus and indexes it, as at start-up."""
    wall, output = run_pinned([sys.executable, "-c", STARTUP_SCRIPT, spec])
    return StartupMeasurement(label, wall, last_json_line(output))


def measure_startups(start_size: int) -> list[StartupMeasurement]:
    measurements = [measure_startup("seeds", "seeds"), measure_startup("catalogue", "catalogue")]
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / f"corpus-{start_size}.jsonl"
        write_catalogue_jsonl(start_size, path)
        measurements.append(measure_startup(f"{start_size:,} papers (.jsonl)", str(path)))
    return measurements


def measure_cli_seconds(query: str = "graph sparsification") -> float:
    """Wall time of one ``python -m bot search`` on the default corpus, as a user runs it."""
    wall, _ = run_pinned([sys.executable, "-m", "bot", "search", "--corpus", "seeds", "--", query])
    return wall


def combine(runs: Sequence[dict[str, object]]) -> dict[str, object]:
    """One engine at one size over its repeated runs: the median of each time, the highest
    peak memory, and every run's p50 and p99 (so the spread is on record)."""
    combined = dict(runs[0])
    for key in ("corpus_seconds", "build_seconds", "p50_ms", "p99_ms", "max_ms"):
        combined[key] = float(np.median([run[key] for run in runs]))
    for key in ("corpus_rss_mb", "peak_rss_mb", "serving_rss_mb"):
        combined[key] = max(run.get(key, math.nan) for run in runs)
    combined["p50_runs"] = [run["p50_ms"] for run in runs]
    combined["p99_runs"] = [run["p99_ms"] for run in runs]
    return combined


def run_worker(args: Sequence[str]) -> int:
    """Entry point of a measurement subprocess: prints one JSON line with its figures."""
    pin_to_one_core()
    match args:
        case ["search", "engine", size, query_count]:
            figures = measure_search("engine", int(size), int(query_count))
        case ["search", "get_scores", size, query_count, tokens]:
            figures = measure_search("get_scores", int(size), int(query_count), Path(tokens))
        case ["tokens", size, path]:
            write_token_lists(SearchIndex.build(build_corpus(int(size))[0]), Path(path))
            figures = {"written": path}
        case ["tokens-opened", spec, data, path]:
            write_token_lists(speed_opened.opened_index(spec, data), Path(path))
            figures = {"written": path}
        case _:
            raise SystemExit(f"unknown worker arguments: {args}")
    print(json.dumps(figures))
    return 0


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def parse_sizes(text: str) -> tuple[int, ...]:
    return tuple(int(part.replace("_", "")) for part in text.split(",") if part.strip())


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--worker"]:
        return run_worker(argv[1:])
    args = parser().parse_args(argv)
    if len(args.issue_sizes) != len(ISSUE_BARS):
        raise SystemExit(f"--issue-sizes names {len(ISSUE_BARS)} sizes, one per bar")
    bars = dict(zip(args.issue_sizes, ISSUE_BARS.values(), strict=True))

    results: list[dict[str, Any]] = []
    starts: dict[int, SnapshotStart | None] = {}
    opened: dict[int, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        data = args.data or Path(scratch) / "opened"
        before = None if args.before is None else checkout(args.before, Path(scratch) / "before")
        for size in args.sizes:
            if size >= args.opened_from or size in bars:
                print(f"preparing {size:,} papers under {data}…", file=sys.stderr, flush=True)
                speed_opened.prepare(size, data, min(ONE_CORE))
            if size >= args.opened_from:
                opened[size] = measure_opened(size, data, args.queries)
                results.append(opened_row(opened[size]))
            results += measure_size(size, args, Path(scratch), before, data)
            if args.snapshot_from <= size < args.opened_from and not args.skip_startup:
                starts[size] = measure_start(size, Path(scratch))
            if size in bars and size not in opened:
                opened[size] = measure_opened(size, data, args.queries)
            # What is measured so far, written as it comes: a run of an hour that dies at a
            # million papers keeps the smaller sizes' report.
            write_report(args, bars, results, [], None, starts, opened)
    startups = [] if args.skip_startup else measure_startups(args.start_size)
    cli_seconds = None if args.skip_startup else measure_cli_seconds()
    met = write_report(args, bars, results, startups, cli_seconds, starts, opened)
    print(args.output.read_text(encoding="utf-8"))
    return 0 if met else 1


def write_report(
    args: argparse.Namespace,
    bars: dict[int, IssueBar],
    results: list[dict[str, Any]],
    startups: list[StartupMeasurement],
    cli_seconds: float | None,
    starts: dict[int, SnapshotStart | None],
    opened: dict[int, dict[str, Any]],
) -> bool:
    """Write the report of what was measured to ``--output``; whether every target is met."""
    targets = bar_targets(results, startups, cli_seconds)
    engine = {r["size"]: r for r in results if r["engine"] == "engine"}
    issue = issue_targets(bars, engine, speedups(results), opened, starts)
    text = report(
        results, startups, targets, args.queries, args.repeats, starts, issue, list(opened.values())
    )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    return all(target.met for target in [*targets, *issue])


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=parse_sizes, default=SIZES, help="e.g. 10000,100000")
    parser.add_argument("--queries", type=int, default=QUERY_COUNT)
    parser.add_argument(
        "--skip-baseline-above",
        type=int,
        metavar="N",
        help="do not run get_scores on corpora larger than N papers (it runs at every size)",
    )
    parser.add_argument(
        "--start-size", type=int, default=START_SIZE, help="papers in the start-up measurement"
    )
    parser.add_argument("--skip-startup", action="store_true", help="skip start-up timings")
    parser.add_argument(
        "--repeats", type=positive_int, default=REPEATS, help="search runs per engine and size"
    )
    parser.add_argument(
        "--before",
        metavar="REV",
        help="also measure the engine of this commit (git archive of its bot/ and seeds/)",
    )
    parser.add_argument(
        "--data",
        type=Path,
        help="where bench/speed_opened.py prepares its corpora, vectors and snapshots, and finds"
        " them prepared (default: a temporary folder, prepared in this run)",
    )
    parser.add_argument(
        "--opened-from",
        type=int,
        default=OPENED_MIN_SIZE,
        metavar="N",
        help=f"open the engine from its prepared snapshot from N papers ({OPENED_MIN_SIZE:,})"
        " instead of building it each run",
    )
    parser.add_argument(
        "--snapshot-from",
        type=int,
        default=SNAPSHOT_MIN_SIZE,
        metavar="N",
        help=f"measure speed_start.py's bare start from N papers ({SNAPSHOT_MIN_SIZE:,})",
    )
    parser.add_argument(
        "--issue-sizes",
        type=parse_sizes,
        default=tuple(ISSUE_BARS),
        metavar="A,B",
        help="the sizes issue 33's two bars are judged at (small ones try the plumbing)",
    )
    parser.add_argument("--output", type=Path, default=RESULTS_PATH)
    return parser


def measure_opened(size: int, data: Path, query_count: int) -> dict[str, Any]:
    """The prepared corpus of ``size`` opened from its snapshot, as the bot serves it
    (``bench/speed_opened.py``), answering the queries the search table's rows answer."""
    print(f"measuring {size:,} papers opened from a snapshot…", file=sys.stderr, flush=True)
    asked = benchmark_queries(real_papers(), query_count)
    return speed_opened.measure(size, data, min(ONE_CORE), asked)


def checkout(revision: str, directory: Path) -> tuple[str, Path]:
    """The engine of ``revision``: its label and a directory holding its ``bot`` and
    ``seeds`` (the bench's own scripts stay the ones measuring)."""
    directory.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "archive", revision, "bot", "seeds"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        check=True,
    )
    subprocess.run(["tar", "-x", "-C", str(directory)], input=archive.stdout, check=True)
    label = subprocess.run(
        ["git", "rev-parse", "--short", revision],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return f"engine at {label}", directory


def measure_size(
    size: int,
    args: argparse.Namespace,
    scratch: Path,
    before: tuple[str, Path] | None,
    data: Path,
) -> list[dict[str, object]]:
    """Every engine at one size, the engines taking turns, each run combined over repeats.
    From ``--opened-from`` papers the engine is the one opened from its snapshot (measured
    apart, once), and get_scores runs once, on the token lists of that snapshot's papers."""
    opened = size >= args.opened_from
    search = ["search", "engine", str(size), str(args.queries)]
    commands: dict[str, tuple[list[str], Path | None]] = {}
    if not opened:
        commands["engine"] = (search, None)
        if before is not None:
            commands[before[0]] = (search, before[1])
    if args.skip_baseline_above is None or size <= args.skip_baseline_above:
        if opened:  # kept under --data: analysing a million papers takes ~8 minutes
            spec = speed_opened.corpus_path(data, size)
            tokens = data / f"tokens-{size}.txt"
            if not tokens.exists() or tokens.stat().st_mtime < spec.stat().st_mtime:
                run_pinned(worker_command("tokens-opened", str(spec), str(data), str(tokens)))
        else:
            tokens = scratch / f"tokens-{size}.txt"
            run_pinned(worker_command("tokens", str(size), str(tokens)))
        command = ["search", "get_scores", str(size), str(args.queries), str(tokens)]
        commands["get_scores"] = (command, None)
    repeats = 1 if opened else args.repeats
    runs: dict[str, list[dict[str, object]]] = {engine: [] for engine in commands}
    for repeat in range(repeats):
        for engine, (command, code) in commands.items():
            print(
                f"measuring {engine} at {size:,} papers ({repeat + 1}/{repeats})…",
                file=sys.stderr,
                flush=True,
            )
            _, output = run_pinned(worker_command(*command), code=code)
            runs[engine].append({**last_json_line(output), "engine": engine})
    return [combine(engine_runs) for engine_runs in runs.values()]


def measure_start(size: int, scratch: Path) -> SnapshotStart | None:
    """Start-up from a saved index of the corpus of ``size`` (``bench/speed_start.py``);
    None where the code has no saved index."""
    if not snapshots_available(PROJECT_ROOT):
        return None
    print(f"measuring the start from a snapshot at {size:,} papers…", file=sys.stderr, flush=True)
    corpus = scratch / f"corpus-{size}.jsonl"
    if not corpus.exists():
        write_catalogue_jsonl(size, corpus)
    query = benchmark_queries(real_papers(), 1)[0]
    return measure_snapshot_start(corpus, query, run_pinned, PROJECT_ROOT, ONE_CORE)


if __name__ == "__main__":
    sys.exit(main())
