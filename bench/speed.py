"""Search speed benchmark: the project's engine against rank-bm25's get_scores at 10k-1M papers.

Run from the repository root: ``python bench/speed.py [--sizes 10000,100000,250000,1000000]``.

Every measurement runs in its own subprocess pinned to one core, so each engine's peak
resident memory is its own and no measurement borrows a second core. The corpora are the
catalogue's real abstracts topped up with synthetic ones (see ``Synthesizer``); the queries are
the quality benchmark's hand-written ones plus short phrases cut from real abstracts.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import math
import os
import platform
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from quality import code_version, load_queries
from rank_bm25 import BM25Okapi
from speed_start import SnapshotStart, measure_snapshot_start, snapshots_available

from bot.papers.corpus import CATALOGUE_PATH, load_corpus
from bot.papers.paper import Paper
from bot.search import indexing
from bot.search.analyzer import analyze
from bot.search.embedding import DIMENSIONS
from bot.search.engine import SearchIndex

BENCH_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = BENCH_DIR.parent
RESULTS_PATH = BENCH_DIR / "results" / "speed.md"
SIZES = (10_000, 100_000, 250_000, 1_000_000)
START_SIZE = 100_000
SKIP_BASELINE_ABOVE = 250_000  # rank-bm25 at 1,000,000 papers: ~9 GB and over 1 s a query
SNAPSHOT_MIN_SIZE = 100_000  # sizes from here on also start from a saved index
VECTOR_TABLES = 2  # the semantic ranker's float16 tables: a title's vector and a text's
QUERY_COUNT = 200
WARMUP_QUERIES = 10
REPEATS = 3  # search measurements per engine and size, alternating engines
TOP_K = 10
SEED = 2025
ENGINES = ("engine", "get_scores")

TARGET_P50_MS = 2.0
TARGET_P99_MS = 10.0
TARGET_SPEEDUP = 200.0
TARGET_BUILD_S = 60.0
TARGET_PEAK_RSS_MB = 1536.0
TARGET_START_S = 20.0
TARGET_CATALOGUE_S = 3.0
TARGET_SEEDS_S = 1.0


@dataclass(frozen=True)
class IssueBar:
    """Issue 33's targets at one corpus size (semantic off, vectors held)."""

    start_s: float  # process start to the first answer, from a snapshot
    p50_ms: float
    p99_ms: float  # the worst run's
    memory_mb: float  # one process, vectors included
    second_share: float = 0.25  # a second process on the host, summed PSS
    speedup: float | None = None  # p50 against get_scores


ISSUE_BARS = {
    100_000: IssueBar(start_s=5, p50_ms=1, p99_ms=10, memory_mb=1024, speedup=200),
    1_000_000: IssueBar(start_s=30, p50_ms=10, p99_ms=60, memory_mb=6 * 1024),
}

SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
SYLLABLES = tuple(c + v for c in "bdfgklmnprstvwz" for v in "aeiou")
ACCEPTED = {"Oral", "Spotlight", "Poster"}


ONE_CORE = frozenset({0})
ALL_CORES = frozenset(os.sched_getaffinity(0))


def pin_to_one_core() -> None:
    os.sched_setaffinity(0, ONE_CORE)


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far (Linux reports ``ru_maxrss`` in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def paper_id_for(text: str) -> str:
    """An id of the same shape as the corpus gives papers without an OpenReview id."""
    return "h" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class SyntheticPaper:
    title: str
    abstract: str
    authors: tuple[str, ...]


class Synthesizer:
    """Makes abstracts that look like the real ones to an index, from a fixed seed.

    Each synthetic abstract takes its target length (in words) from a randomly chosen real
    abstract, so the length distribution is the real one, and is filled with whole sentences
    drawn at random from all the real abstracts, so word frequencies and co-occurrences are
    real too. A corpus made only of recombined sentences would stop growing its vocabulary at
    2,139 abstracts, whereas real ones keep adding method names and rare terms (Heaps' law).
    So each abstract also gets, on average, ``NEW_WORDS`` brand-new pseudo-words and
    ``REUSED_WORDS`` pseudo-words minted earlier (chosen with a bias towards older ones, so a
    few become common and most stay rare), each replacing a word at a random position.
    Titles are real titles whose method name (before a colon) becomes a pseudo-word; authors
    are drawn from the real author pool with a real paper's author count.
    """

    NEW_WORDS = 1.0
    REUSED_WORDS = 2.0

    def __init__(self, real: Sequence[Paper], seed: int = SEED) -> None:
        self._random = random.Random(seed)
        self._sentences = [
            (sentence, len(sentence.split()))
            for paper in real
            for sentence in SENTENCE_END.split(paper.plain_abstract)
            if sentence
        ]
        self._lengths = [len(paper.plain_abstract.split()) for paper in real]
        self._titles = [paper.title for paper in real]
        self._author_counts = [len(paper.authors) for paper in real]
        self._authors = sorted({author for paper in real for author in paper.authors})
        self._minted: list[str] = []

    def _poisson(self, mean: float) -> int:
        threshold, count, product = math.exp(-mean), 0, self._random.random()
        while product > threshold:
            count += 1
            product *= self._random.random()
        return count

    def _mint(self) -> str:
        number = len(self._minted) + len(SYLLABLES) ** 2
        syllables = []
        while number:
            number, digit = divmod(number, len(SYLLABLES))
            syllables.append(SYLLABLES[digit])
        word = "".join(syllables)
        self._minted.append(word)
        return word

    def _reuse(self) -> str:
        if not self._minted:
            return self._mint()
        return self._minted[int(len(self._minted) * self._random.random() ** 2)]

    def _abstract(self) -> str:
        target = self._random.choice(self._lengths)
        sentences, length = [], 0
        while length < target:
            sentence, words = self._random.choice(self._sentences)
            sentences.append(sentence)
            length += words
        words = " ".join(sentences).split()
        fresh = [self._mint() for _ in range(self._poisson(self.NEW_WORDS))]
        fresh += [self._reuse() for _ in range(self._poisson(self.REUSED_WORDS))]
        for word in fresh:
            words[self._random.randrange(len(words))] = word
        return " ".join(words)

    def _title(self) -> str:
        title = self._random.choice(self._titles)
        name, colon, rest = title.partition(":")
        return f"{self._mint().capitalize()}:{rest}" if colon and len(name) < 30 else title

    def __call__(self) -> SyntheticPaper:
        authors = self._random.sample(self._authors, self._random.choice(self._author_counts))
        return SyntheticPaper(self._title(), self._abstract(), tuple(authors))


def real_papers() -> list[Paper]:
    """The catalogue's papers that have an abstract (2,139), in catalogue order."""
    return [paper for paper in load_corpus("catalogue").papers if paper.abstract]


def synthetic_paper(number: int, fake: SyntheticPaper) -> Paper:
    """A ``Paper`` built directly, skipping the text cleaner: synthetic text is already plain."""
    return Paper(
        id=paper_id_for(fake.abstract),
        title=fake.title,
        authors=fake.authors,
        status="Poster",
        url=None,
        abstract=fake.abstract,
        plain_abstract=fake.abstract,
        code_urls=(),
        links=(),
        title_derived=False,
        source=f"synthetic#{number}",
    )


def build_corpus(size: int) -> tuple[list[Paper], list[Paper]]:
    """The first ``size`` papers of the real ones followed by synthetic ones, and the real ones.

    The synthesizer's seed is fixed, so a smaller corpus is a prefix of a larger one.
    """
    real = real_papers()
    synthesize = Synthesizer(real)
    synthetic = [synthetic_paper(n, synthesize()) for n in range(max(0, size - len(real)))]
    return (real + synthetic)[:size], real


def benchmark_queries(real: Sequence[Paper], count: int = QUERY_COUNT) -> list[str]:
    """The hand-written quality queries, then 1-4 word phrases cut from random real abstracts.

    Phrases made only of stopwords ("in the") are skipped: the engine answers them without
    touching the index, which would flatter its latency.
    """
    rng = random.Random(SEED)
    queries = [query.query for query in load_queries()][:count]
    while len(queries) < count:
        words = rng.choice(real).plain_abstract.split()
        length = rng.randint(1, 4)
        start = rng.randrange(max(1, len(words) - length))
        phrase = " ".join(word.strip(".,;:()[]{}\"'") for word in words[start : start + length])
        if analyze(phrase):
            queries.append(phrase.lower())
    rng.shuffle(queries)
    return queries


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


def write_token_lists(size: int, path: Path) -> None:
    """The token lists the engine indexes for the corpus of ``size``, one paper a line: its
    title's tokens, a tab, its abstract's.

    They come from a ``SearchIndex`` (its analysis depends on the whole corpus) built in a
    process of its own, so that index never counts towards rank-bm25's memory. Tokens never
    contain whitespace, so a space-joined field round-trips.
    """
    papers, _ = build_corpus(size)
    index = SearchIndex.build(papers)
    with path.open("w", encoding="utf-8") as out:
        for paper in papers:
            fields = indexing.field_tokens(index._analyzer, paper)
            out.write("\t".join(" ".join(tokens) for tokens in fields) + "\n")


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
    """One engine at one size: corpus, build, then timed top-10 searches (after a warm-up)."""
    started = time.perf_counter()
    papers, real = build_corpus(size)
    corpus_seconds = time.perf_counter() - started
    queries = benchmark_queries(real, query_count)
    vectors: list[np.ndarray] = []
    if engine == "engine":
        corpus_rss = peak_rss_mb()
        built = build_engine(papers)
        vectors = synthetic_vectors(size)
    else:
        if tokens is None:
            raise ValueError("get_scores needs the engine's token lists")
        fields = read_token_lists(tokens)
        if len(fields[0]) != len(papers):
            raise ValueError(f"{tokens} has {len(fields[0])} token lists for {size} papers")
        corpus_rss = peak_rss_mb()
        built = build_get_scores(fields)
        del fields
    search = built.search

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


def write_catalogue_jsonl(size: int, path: Path) -> None:
    """The same corpus as ``build_corpus(size)``, as a file in the catalogue's format.

    Real papers are copied from the catalogue verbatim; synthetic ones get no id, so the
    corpus layer hashes their abstracts as it would for any paper without an OpenReview id.
    """
    real_records = []
    with CATALOGUE_PATH.open(encoding="utf-8") as catalogue:
        for line in catalogue:
            record = json.loads(line)
            if record["abstract"] and record["status"] in ACCEPTED:
                real_records.append(line.rstrip("\n"))
    synthesize = Synthesizer(real_papers())
    with path.open("w", encoding="utf-8") as out:
        for line in real_records[:size]:
            out.write(line + "\n")
        for _ in range(max(0, size - len(real_records))):
            fake = synthesize()
            record = {
                "id": None,
                "title": fake.title,
                "authors": list(fake.authors),
                "abstract": fake.abstract,
                "keywords": [],
                "status": "Poster",
                "venue": "ICLR 2025 Poster",
                "url": None,
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


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


def format_row(cells: Sequence[object]) -> str:
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    return [format_row(header), "|" + "---|" * len(header), *(format_row(row) for row in rows)]


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


def search_section(results: Sequence[dict[str, object]]) -> list[str]:
    rows = [
        [
            f"{r['size']:,}",
            r["engine"],
            f"{r['build_seconds']:.1f}",
            f"{r['peak_rss_mb']:.0f} ({r['corpus_rss_mb']:.0f})",
            f"{r['serving_rss_mb']:.0f}",
            f"{r['p50_ms']:.2f}",
            f"{r['p99_ms']:.2f}",
            f"{r['max_ms']:.2f}",
            " / ".join(f"{p50:.2f}" for p50 in r["p50_runs"]),
            " / ".join(f"{p99:.2f}" for p99 in r["p99_runs"]),
        ]
        for r in results
    ]
    return table(
        [
            "papers",
            "engine",
            "build s",
            "peak RSS MB (corpus alone)",
            "serving RSS MB",
            "p50 ms",
            "p99 ms",
            "max ms",
            "p50 ms of each run",
            "p99 ms of each run",
        ],
        rows,
    )


def times(ratio: float) -> str:
    return f"{ratio:.0f}x" if ratio >= 10 else f"{ratio:.2g}x"


def speedups(
    results: Sequence[dict[str, object]], engine: str = "engine"
) -> dict[int, tuple[float, float]]:
    """Per size, how many times faster ``engine`` is than get_scores at p50 and p99."""
    by_key = {(r["size"], r["engine"]): r for r in results}
    return {
        size: (
            baseline["p50_ms"] / by_key[size, engine]["p50_ms"],
            baseline["p99_ms"] / by_key[size, engine]["p99_ms"],
        )
        for (size, name), baseline in by_key.items()
        if name == "get_scores" and (size, engine) in by_key
    }


def issue_targets(
    results: Sequence[dict[str, object]], starts: dict[int, SnapshotStart | None]
) -> list[Target]:
    """Issue 33's table, at each size it names that this run measured. Memory is the
    serving process's resident memory with the vector tables held (``synthetic_vectors``);
    a start or a second process not measured is said so, and missed."""
    engine = {r["size"]: r for r in results if r["engine"] == "engine"}
    ratios = speedups(results)
    targets = []
    for size, bar in ISSUE_BARS.items():
        at = f"at {size:,}"
        start = starts.get(size)
        if start is not None:
            targets.append(
                _bounded(
                    f"start → first answer from a snapshot {at}",
                    start.start_seconds,
                    bar.start_s,
                    "s",
                )
            )
            share = start.second_share
            targets.append(
                Target(
                    f"a second process on the host {at} (sum of PSS)",
                    f"≤ +{bar.second_share:.0%}",
                    f"+{share:.0%} ({start.one_pss_mb:.0f} → {start.two_pss_mb:.0f} MB)",
                    share <= bar.second_share,
                )
            )
        elif size in starts:
            for what in ("start → first answer from a snapshot", "a second process on the host"):
                targets.append(Target(f"{what} {at}", "", "not measured: no saved index", False))
        measured = engine.get(size)
        if measured is None:
            continue
        targets.append(_bounded(f"p50 {at}", measured["p50_ms"], bar.p50_ms, "ms"))
        if bar.speedup is not None and size in ratios:
            ratio = ratios[size][0]
            targets.append(
                Target(
                    f"p50 speed-up over get_scores {at}",
                    f"≥ {bar.speedup:g}x",
                    times(ratio),
                    ratio >= bar.speedup,
                )
            )
        targets.append(
            _bounded(f"p99 (the worst run's) {at}", max(measured["p99_runs"]), bar.p99_ms, "ms")
        )
        targets.append(
            _bounded(
                f"memory, one process with vectors {at}",
                measured["serving_rss_mb"],
                bar.memory_mb,
                "MB",
            )
        )
    return targets


def _bounded(what: str, value: float, limit: float, unit: str) -> Target:
    return Target(what, f"≤ {limit:g} {unit}", f"{value:.2f} {unit}", value <= limit)


@dataclass(frozen=True)
class Target:
    what: str
    bar: str
    measured: str
    met: bool


def bar_targets(
    results: Sequence[dict[str, object]],
    startups: Sequence[StartupMeasurement],
    cli_seconds: float | None,
) -> list[Target]:
    """The issue's speed bar, checked against whatever this run measured."""
    targets = []
    engine_results = {r["size"]: r for r in results if r["engine"] == "engine"}
    if engine_results:
        largest = engine_results[max(engine_results)]
        at = f"at {largest['size']:,}"
        for what, value, limit, unit in (
            ("p50", largest["p50_ms"], TARGET_P50_MS, "ms"),
            ("p99 (the worst run's)", max(largest["p99_runs"]), TARGET_P99_MS, "ms"),
            ("build", largest["build_seconds"], TARGET_BUILD_S, "s"),
            ("peak RSS", largest["peak_rss_mb"], TARGET_PEAK_RSS_MB, "MB"),
        ):
            targets.append(
                Target(f"{what} {at}", f"≤ {limit:g} {unit}", f"{value:.2f} {unit}", value <= limit)
            )
    if ratios := speedups(results):
        size = max(ratios)
        median_ratio = ratios[size][0]
        targets.append(
            Target(
                f"p50 speed-up over get_scores at {size:,}",
                f"≥ {TARGET_SPEEDUP:g}x",
                times(median_ratio),
                median_ratio >= TARGET_SPEEDUP,
            )
        )
    for startup in startups:
        if startup.label == "catalogue":
            seconds = startup.report["load_seconds"] + startup.report["index_seconds"]
            targets.append(
                Target(
                    "catalogue load + index",
                    f"< {TARGET_CATALOGUE_S:g} s",
                    f"{seconds:.2f} s",
                    seconds < TARGET_CATALOGUE_S,
                )
            )
        elif startup.label == "seeds":
            targets.append(
                Target(
                    "seeds: process start + load + index",
                    f"well under {TARGET_SEEDS_S:g} s",
                    f"{startup.wall_seconds:.2f} s",
                    startup.wall_seconds < TARGET_SEEDS_S,
                )
            )
        else:
            targets.append(
                Target(
                    f"{startup.label}: process start + load + index",
                    f"≤ {TARGET_START_S:g} s",
                    f"{startup.wall_seconds:.1f} s",
                    startup.wall_seconds <= TARGET_START_S,
                )
            )
    if cli_seconds is not None:
        targets.append(
            Target(
                "`python -m bot search` on the seeds",
                f"well under {TARGET_SEEDS_S:g} s",
                f"{cli_seconds:.2f} s",
                cli_seconds < TARGET_SEEDS_S,
            )
        )
    return targets


def machine_description(pinning: str = "each measurement pinned to CPU 0") -> str:
    cpu = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return (
        f"{cpu}, {os.cpu_count()} logical CPUs ({pinning}),"
        f" Python {platform.python_version()}, numpy {np.__version__}, {platform.platform()}"
    )


def report(
    results: Sequence[dict[str, object]],
    startups: Sequence[StartupMeasurement],
    targets: Sequence[Target],
    query_count: int,
    repeats: int,
    starts: dict[int, SnapshotStart | None] | None = None,
    issue: Sequence[Target] = (),
) -> str:
    lines = [
        "# Search speed",
        "",
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by `python bench/speed.py`"
        f" ({code_version()}) on {machine_description()}.",
        "",
        f"Top-{TOP_K} search over {query_count} queries per run ({WARMUP_QUERIES} untimed"
        f" warm-up queries first), {repeats} runs per row, each in a fresh process, the two"
        " engines taking turns: a row gives the median of its runs' times (every run's p50"
        " and p99 are listed) and the highest peak memory. *engine* is `SearchIndex.search`"
        " (query parsing, typo correction, analysis, BM25, ranking, matched terms);"
        " *get_scores* is rank-bm25's"
        " `BM25Okapi.get_scores` + `argsort` over the token lists the engine indexes (one"
        " `BM25Okapi` per field, title and abstract, weighted as the engine weighs them), with"
        " queries analysed by `bot.search.analyzer.analyze` (no expansions). Engine build time"
        " includes analysing every paper and what the bot builds in the background after"
        " start-up (`SearchIndex.prepare`: typo corrector, lexicon, author map), which its"
        " queries then need not; get_scores build time is the `BM25Okapi`"
        " construction only. Peak RSS is the subprocess's `ru_maxrss`, which includes the"
        " corpus itself (in brackets: the peak before indexing; for get_scores that includes"
        " the token lists, computed by the engine in another process). *Serving RSS* is the"
        " engine's resident memory once its searches are done, with synthetic float16 vector"
        f" tables of the size the semantic ranker holds ({VECTOR_TABLES} vectors of"
        f" {DIMENSIONS} a paper, {VECTOR_TABLES * DIMENSIONS * 2 / 1024:.1f} KB) allocated"
        " beside the index; the searches themselves are BM25's. An *engine* row naming a"
        " commit (`--before`) is that commit's code measured in the same run.",
        "",
        *search_section(results),
        "",
    ]
    for engine in dict.fromkeys(r["engine"] for r in results if r["engine"] != "get_scores"):
        if ratios := speedups(results, engine):
            lines += [
                f"Speed-up of {engine} over get_scores: "
                + "; ".join(
                    f"{size:,} papers: {times(p50)} at the median, {times(p99)} at p99"
                    for size, (p50, p99) in sorted(ratios.items())
                )
                + ".",
                "",
            ]
    measured_starts = {size: start for size, start in (starts or {}).items() if start}
    if measured_starts:
        lines += [
            "Start-up from a saved index (`bench/speed_start.py`: each a fresh process on one"
            " core, semantic off; the second process's PSS is summed with the first's):",
            "",
            *table(
                [
                    "papers",
                    "build and save s",
                    "start → first answer s",
                    "of which opening s",
                    "RSS MB",
                    "PSS alone MB",
                    "PSS of two MB",
                ],
                [
                    [
                        f"{start.papers:,}",
                        f"{start.build_and_save_seconds:.1f}",
                        f"{start.start_seconds:.2f}",
                        f"{start.open_seconds:.2f}",
                        f"{start.rss_mb:.0f}",
                        f"{start.one_pss_mb:.0f}",
                        f"{start.two_pss_mb:.0f}",
                    ]
                    for start in measured_starts.values()
                ],
            ),
            "",
        ]
    if startups:
        lines += [
            "Start-up, each in a fresh single-core `python -c` (wall time includes the"
            " interpreter start and imports):",
            "",
            *table(
                [
                    "corpus",
                    "papers",
                    "process wall s",
                    "imports s",
                    "load s",
                    "index s",
                    "peak RSS MB",
                ],
                [
                    [
                        s.label,
                        f"{s.report['papers']:,}",
                        f"{s.wall_seconds:.2f}",
                        f"{s.report['import_seconds']:.2f}",
                        f"{s.report['load_seconds']:.2f}",
                        f"{s.report['index_seconds']:.2f}",
                        f"{s.report['peak_rss_mb']:.0f}",
                    ]
                    for s in startups
                ],
            ),
            "",
        ]
    if issue:
        lines += targets_section("Targets (issue 33's table):", issue)
    lines += targets_section("Targets (issue #3, speed bar):", targets)
    return "\n".join(lines)


def targets_section(title: str, targets: Sequence[Target]) -> list[str]:
    return [
        title,
        "",
        *table(
            ["target", "bar", "measured", "verdict"],
            [[t.what, t.bar, t.measured, "met" if t.met else "**missed**"] for t in targets],
        ),
        "",
    ]


def run_worker(args: Sequence[str]) -> int:
    """Entry point of a measurement subprocess: prints one JSON line with its figures."""
    pin_to_one_core()
    match args:
        case ["search", "engine", size, query_count]:
            figures = measure_search("engine", int(size), int(query_count))
        case ["search", "get_scores", size, query_count, tokens]:
            figures = measure_search("get_scores", int(size), int(query_count), Path(tokens))
        case ["tokens", size, path]:
            write_token_lists(int(size), Path(path))
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
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=parse_sizes, default=SIZES, help="e.g. 10000,100000")
    parser.add_argument("--queries", type=int, default=QUERY_COUNT)
    parser.add_argument(
        "--skip-baseline-above",
        type=int,
        default=SKIP_BASELINE_ABOVE,
        metavar="N",
        help=f"do not run get_scores on corpora larger than N papers ({SKIP_BASELINE_ABOVE:,})",
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
    parser.add_argument("--output", type=Path, default=RESULTS_PATH)
    args = parser.parse_args(argv)

    results: list[dict[str, object]] = []
    starts: dict[int, SnapshotStart | None] = {}
    with tempfile.TemporaryDirectory() as scratch:
        before = None if args.before is None else checkout(args.before, Path(scratch) / "before")
        for size in args.sizes:
            results += measure_size(size, args, Path(scratch), before)
            if size >= SNAPSHOT_MIN_SIZE and not args.skip_startup:
                starts[size] = measure_start(size, Path(scratch))
    startups = [] if args.skip_startup else measure_startups(args.start_size)
    cli_seconds = None if args.skip_startup else measure_cli_seconds()

    targets = bar_targets(results, startups, cli_seconds)
    issue = issue_targets(results, starts)
    text = report(results, startups, targets, args.queries, args.repeats, starts, issue)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(text)
    return 0 if all(target.met for target in [*targets, *issue]) else 1


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
    size: int, args: argparse.Namespace, scratch: Path, before: tuple[str, Path] | None
) -> list[dict[str, object]]:
    """Every engine at one size, the engines taking turns, each run combined over repeats."""
    search = ["search", "engine", str(size), str(args.queries)]
    commands: dict[str, tuple[list[str], Path | None]] = {"engine": (search, None)}
    if before is not None:
        commands[before[0]] = (search, before[1])
    if args.skip_baseline_above is None or size <= args.skip_baseline_above:
        tokens = scratch / f"tokens-{size}.txt"
        run_pinned(worker_command("tokens", str(size), str(tokens)))
        command = ["search", "get_scores", str(size), str(args.queries), str(tokens)]
        commands["get_scores"] = (command, None)
    runs: dict[str, list[dict[str, object]]] = {engine: [] for engine in commands}
    for repeat in range(args.repeats):
        for engine, (command, code) in commands.items():
            print(
                f"measuring {engine} at {size:,} papers ({repeat + 1}/{args.repeats})…",
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
