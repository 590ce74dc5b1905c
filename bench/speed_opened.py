"""Issue 33's rows from a saved snapshot: start → first answer, p50 / p99, the memory of one
process and of two, at 100,000 and 1,000,000 papers.

For each size, the corpus of ``bench/speed.py`` (the real catalogue, then synthetic papers) is
written as a catalogue-format file under ``--data``, with synthetic float16 unit vectors for
every paper's title and text beside it (the issue allows them at 1,000,000: embedding that many
abstracts takes about a day of CPU), so the model re-ranks and the vectors are held as the bot
holds them. ``--prepare`` then builds the index once and saves its snapshot (a long step at a
million papers: it can run alone, ahead of the measurement). Then, each a fresh interpreter
pinned to one core:

1. **A** opens the snapshot (``bot.search.snapshot.saved_index``, the model on, its weights
   mapped from the data folder as the bot maps them from ``PAPERBOT_INDEX_DIR``) and answers
   one query: *start → first answer* is the wall time from the process's start to that answer,
   with its CPU seconds beside it. Then it builds what a served bot builds in the background
   once it answers (``SearchIndex.prepare``: the typo correctors, and from 200,000 papers the
   pruned ranking's tables), timed, and answers ``bench/speed.py``'s queries (p50 / p99 of
   each query's wall time, after ``WARMUP_QUERIES`` untimed) with the model on, and waits: its
   RSS and PSS are read from ``/proc``.
2. **B** does the same while A waits: the PSS of A and B together over A's alone is what a
   second process on the host costs (pages both map counted half to each). B stops.
3. A answers the queries again with BM25 alone (the same parts without the model's ranker, as
   ``bench/speed.py`` times it and as the issue's latency targets read). Then, on every core
   as a served bot answers a lone query (the model's run on two threads), it answers
   ``bench/semantic.py``'s questions with the model and with BM25 alone, by turns: issue 33's
   semantic target is about questions. It stops.

The snapshot's pages are in the page cache (written, or opened, just before, as on a host where
another process runs or ran): a cold disk adds its read time of the snapshot's size.

    python bench/speed_opened.py --data /tmp/million_data --sizes 100000 --prepare
    python bench/speed_opened.py --data /tmp/million_data --sizes 100000,1000000
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

# This checkout's bot, unless the caller's PYTHONPATH names one: ``speed.py --before`` imports
# an earlier commit's that way, and this module, which speed.py imports, must not override it.
if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from quality import code_version
from speed_corpus import (
    PROJECT_ROOT,
    TOP_K,
    WARMUP_QUERIES,
    benchmark_queries,
    real_papers,
    write_catalogue_jsonl,
)
from speed_report import (
    ISSUE_BARS,
    issue_targets,
    machine_description,
    opened_row,
    opened_table,
    targets_section,
)

RESULTS_PATH = Path(__file__).resolve().parent / "results" / "million.md"
FIRST_QUERY = "graph neural networks for molecules"
ABOUT_ROUNDS = 5
VECTOR_CHUNK = 65_536  # rows drawn at once: float32 scratch stays ~100 MB at any corpus size


def corpus_path(data: Path, size: int) -> Path:
    return data / f"corpus-{size}.jsonl"


def snapshot_root(data: Path, size: int) -> Path:
    return snapshots_beside(str(corpus_path(data, size)))


def write_synthetic_vectors(spec: str) -> None:
    """Random unit vectors (float16, as stored) for every title and text of the corpus, drawn
    in chunks so that a million papers' float32 scratch never exists at once."""
    from bot.papers.corpus import load_corpus
    from bot.search.embedding import DIMENSIONS
    from bot.search.semantic import shared_embedder
    from bot.search.vectors import (
        StoredVectors,
        text_key,
        vector_texts,
        vectors_path,
        write_vectors,
    )

    papers = load_corpus(spec).papers
    keys = np.fromiter(
        dict.fromkeys(text_key(text) for p in papers for text in vector_texts(p)), dtype=np.uint64
    )
    del papers
    rng = np.random.default_rng(2025)
    vectors = np.empty((len(keys), DIMENSIONS), dtype=np.float16)
    for start in range(0, len(keys), VECTOR_CHUNK):
        rows = rng.standard_normal((min(VECTOR_CHUNK, len(keys) - start), DIMENSIONS), np.float32)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        vectors[start : start + len(rows)] = rows
    write_vectors(vectors_path(spec), StoredVectors(shared_embedder().fingerprint, keys, vectors))


def opened_index(spec: str, data: str) -> Any:
    """The index of the corpus file ``spec`` as the bot opens it: the host's shared files
    (the model's weights, its packed graph, the lexicon) under ``data``, as under the bot's
    ``PAPERBOT_INDEX_DIR``, and the snapshot beside the corpus, the model on (built and saved
    there when it is missing or not current)."""
    from bot.search.semantic import share_host_files
    from bot.search.snapshot import saved_index

    share_host_files(Path(data))
    index, _ = saved_index(spec, snapshots_beside(spec), semantic=True)
    return index


def snapshots_beside(spec: str) -> Path:
    """Where the snapshots of the corpus file ``spec`` are (``snapshot_root``)."""
    return Path(spec).with_name(Path(spec).stem.replace("corpus", "snapshots"))


def snapshot_name(spec: str) -> str:
    """The name of the snapshot the model-on index of ``spec`` opens. A saved one of another
    name (other indexing code, or other corpus files) is not opened: the index is built anew."""
    from bot.search.semantic import shared_embedder
    from bot.search.snapshot import index_key, key_name

    return key_name(index_key(spec, shared_embedder().fingerprint))


def run_worker(mode: str, spec: str, data: str, queries: str) -> int:
    """One process: ``build`` writes the vectors and saves the snapshot; ``open`` opens it,
    answers, reports, and waits for a line (then times BM25 alone) or the end of its input."""
    from bot.search.engine import SearchIndex
    from bot.search.query_vectors import always_quiet

    def say(**values: object) -> None:
        print(json.dumps(values), flush=True)

    if mode == "build":
        started = time.perf_counter()
        write_synthetic_vectors(spec)
        vectors_done = time.perf_counter()
        opened_index(spec, data)
        say(vectors_s=vectors_done - started, build_s=time.perf_counter() - vectors_done)
        return 0
    root = snapshots_beside(spec)
    saved = set(os.listdir(root)) if root.is_dir() else set()
    index = opened_index(spec, data)
    index.search(FIRST_QUERY, limit=TOP_K)
    say(cpu_seconds=time.process_time())
    name = snapshot_name(spec)  # after the answer: its digest of the code is not the bot's work
    say(opened=name in saved, snapshot=name)
    started = time.perf_counter()
    index.prepare(embed=False)  # what a served bot builds once it answers (its pruned tables)
    prepared = time.perf_counter() - started
    asked = json.loads(Path(queries).read_text(encoding="utf-8"))
    say(prepare_s=prepared, **latencies(index, asked, "model"))
    if not sys.stdin.readline():  # the memory is read meanwhile; a closed input: done
        return 0
    # BM25 alone, as bench/speed.py times it: the same parts, the model's ranker left out.
    bm25_alone = SearchIndex(
        index.papers,
        index._bm25,
        index._acronyms,
        index._analyzer,
        authors=index._authors,
        speller=index._planner.speller,
        grown_from=index,
    )
    bm25_alone.prepare(embed=False)
    pinned = latencies(bm25_alone, asked, "bm25")
    # The questions as a served bot answers a lone one: every core, the model's run on two
    # threads when nothing else waits (``bot.search.query_vectors``); BM25 uses one.
    os.sched_setaffinity(0, range(os.cpu_count() or 1))
    index.prepare(embed=False, quiet=always_quiet)
    say(**pinned, **question_latencies(index, bm25_alone))
    sys.stdin.read()
    return 0


def about_cost(spec: str, data: str, queries: str) -> int:
    """CPU milliseconds of ``Ranker.about`` per benchmark query (the least of ``ABOUT_ROUNDS``
    rounds over them all): the ranker's part that ``bot.search.paper_sets.holding_enough``
    computes, timed alone so that checkouts compare on a loaded machine."""
    index = opened_index(spec, data)
    index.prepare(embed=False)  # as a served bot, whose pruned ranking keeps bitmaps
    plans = [
        index._planner.plan(index.parse(query), None, [])
        for query in json.loads(Path(queries).read_text(encoding="utf-8"))
    ]
    rounds = []
    for _ in range(ABOUT_ROUNDS):
        started = time.process_time()
        for plan in plans:
            index._ranker.about(plan)
        rounds.append((time.process_time() - started) / len(plans) * 1e3)
    print(json.dumps({"about_cpu_ms": min(rounds)}), flush=True)
    return 0


def latencies(index: Any, queries: Sequence[str], name: str) -> dict[str, float]:
    """p50, p99 and the longest of each query's wall time (ms) after ``WARMUP_QUERIES``
    untimed ones, which build what an index builds on its first queries (the pruned ranking's
    tables)."""
    for query in queries[:WARMUP_QUERIES]:
        index.search(query, limit=TOP_K)
    return _summary(_timed(index, queries), name)


def question_latencies(index: Any, bm25_alone: Any) -> dict[str, float]:
    """``latencies`` of ``bench/semantic.py``'s questions (12-25 words, from the blind sets:
    what issue 33's semantic target is about) with the model and with BM25 alone, taking
    turns question by question so that both see the same load. No warm-up of their own: the
    benchmark queries before them warmed the process, and a question asked twice would find
    its vector kept."""
    from semantic import question_queries  # semantic imports speed, which imports this

    timed: dict[str, list[float]] = {"model": [], "bm25": []}
    for question in question_queries():
        for name, engine in (("bm25", bm25_alone), ("model", index)):
            timed[name] += _timed(engine, [question])
    return {
        key: value
        for name, times in timed.items()
        for key, value in _summary(times, f"questions_{name}").items()
    }


def _timed(index: Any, queries: Sequence[str]) -> list[float]:
    timed = []
    for query in queries:
        began = time.perf_counter_ns()
        index.search(query, limit=TOP_K)
        timed.append((time.perf_counter_ns() - began) / 1e6)
    return timed


def _summary(timed: Sequence[float], name: str) -> dict[str, float]:
    return {
        f"{name}_p50_ms": float(np.percentile(timed, 50)),
        f"{name}_p99_ms": float(np.percentile(timed, 99)),
        f"{name}_max_ms": max(timed),
    }


class Worker:
    """A worker process pinned to ``core``: its JSON lines read as they come."""

    def __init__(self, mode: str, spec: Path, data: Path, queries: Path, core: int) -> None:
        self.started = time.perf_counter()
        command = [sys.executable, str(Path(__file__).resolve()), "--worker", mode]
        self.process = subprocess.Popen(
            [*command, str(spec), str(data), str(queries)],
            cwd=PROJECT_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: os.sched_setaffinity(0, {core}),
        )

    def line(self) -> tuple[float, dict[str, Any]]:
        """The next report and the wall seconds from the process's start to its arrival."""
        assert self.process.stdout is not None
        text = self.process.stdout.readline()
        if not text:
            raise RuntimeError(f"worker exited with {self.process.wait()}")
        return time.perf_counter() - self.started, json.loads(text)

    def memory_mb(self, field: str) -> float:
        """``Pss`` (from smaps_rollup), or ``VmRSS`` or ``VmHWM`` (from status), in MB."""
        name = "smaps_rollup" if field == "Pss" else "status"
        for line in Path(f"/proc/{self.process.pid}/{name}").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
        raise RuntimeError(f"no {field} in /proc/PID/{name}")

    def go_on(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("\n")
        self.process.stdin.flush()

    def stop(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=120)


def prepare(size: int, data: Path, core: int) -> dict[str, Any]:
    """The corpus file, its vectors and its snapshot (once: a second call finds them)."""
    spec = corpus_path(data, size)
    record = data / f"prepared-{size}.json"
    if snapshot_root(data, size).is_dir() and record.exists():
        return json.loads(record.read_text(encoding="utf-8"))
    data.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    write_catalogue_jsonl(size, spec)
    written = time.perf_counter() - started
    built = Worker("build", spec, data, spec, core)
    _, report = built.line()
    built.process.wait()
    prepared = {"corpus_s": written, **report}
    record.write_text(json.dumps(prepared), encoding="utf-8")
    return prepared


def measure(size: int, data: Path, core: int, asked: Sequence[str]) -> dict[str, Any]:
    """The prepared corpus of ``size`` opened from its snapshot (see the module), answering
    ``asked``: the first process on ``core``, the second on the other one."""
    spec = corpus_path(data, size)
    queries = data / "queries.json"
    queries.write_text(json.dumps(list(asked)), encoding="utf-8")
    first = Worker("open", spec, data, queries, core)
    first_answer, first_report = first.line()
    _, snapshot = first.line()
    if not snapshot["opened"]:  # built anew (the snapshot was not current): it is now
        print(f"{size:,} papers: the snapshot was rebuilt; opening it", file=sys.stderr)
        first.process.kill()
        first.process.wait()
        first = Worker("open", spec, data, queries, core)
        first_answer, first_report = first.line()
        _, snapshot = first.line()
    _, served = first.line()
    alone_pss, alone_rss = first.memory_mb("Pss"), first.memory_mb("VmRSS")
    peak_rss = first.memory_mb("VmHWM")
    second = Worker("open", spec, data, queries, 1 - core)
    second_answer, _ = second.line()
    second.line()  # which snapshot
    second.line()  # prepared, the queries answered
    together = first.memory_mb("Pss") + second.memory_mb("Pss")
    second.stop()
    first.go_on()
    _, alone = first.line()
    first.stop()
    opened = snapshot_root(data, size) / snapshot["snapshot"]
    snapshot_bytes = sum(f.stat().st_size for f in opened.rglob("*") if f.is_file())
    return {
        "papers": size,
        "first_s": first_answer,
        "first_cpu_s": first_report["cpu_seconds"],
        "second_first_s": second_answer,
        **served,
        **alone,
        "alone_rss_mb": alone_rss,
        "peak_rss_mb": peak_rss,
        "alone_pss_mb": alone_pss,
        "together_pss_mb": together,
        "snapshot_mb": snapshot_bytes / 2**20,
    }


def report(results: Sequence[dict[str, Any]], prepared: dict[int, dict[str, Any]]) -> str:
    opened = {r["papers"]: r for r in results}
    targets = issue_targets(
        ISSUE_BARS, {size: opened_row(r) for size, r in opened.items()}, {}, opened, {}
    )
    builds = [
        f"- {size:,} papers: corpus file {p['corpus_s']:.0f} s, synthetic vectors "
        f"{p['vectors_s']:.0f} s, build and save {p['build_s']:.0f} s."
        for size, p in prepared.items()
        if p
    ]
    return "\n".join(
        [
            "# Issue 33's rows from a saved snapshot",
            "",
            "`python bench/speed_opened.py` (see its docstring for the method): the model on, "
            "synthetic float16 vectors for every paper, the real catalogue mixed in; each "
            "process pinned to one CPU, the second to the other; the snapshot's pages in the "
            "page cache.",
            "",
            f"Machine: {machine_description('each process pinned to one CPU')}. "
            f"Measured at {code_version()}.",
            "",
            *opened_table(results),
            "",
            *(
                ["Preparing (once per corpus, not part of a start):", "", *builds, ""]
                * bool(builds)
            ),
            *(targets_section("Targets (issue 33's table):", targets) if targets else []),
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--data", type=Path, default=Path("/tmp/million_data"))
    parser.add_argument("--core", type=int, choices=(0, 1), default=0)
    parser.add_argument("--prepare", action="store_true", help="only write and build")
    parser.add_argument("--about", action="store_true", help="time Ranker.about alone")
    parser.add_argument("--worker", nargs=4, metavar=("MODE", "SPEC", "DATA", "QUERIES"))
    args = parser.parse_args(argv)
    if args.worker:
        return run_worker(*args.worker)
    if args.about:
        size = int(args.sizes.split(",")[0])
        queries = args.data / "queries.json"
        queries.write_text(json.dumps(benchmark_queries(real_papers())), encoding="utf-8")
        return about_cost(str(corpus_path(args.data, size)), str(args.data), str(queries))
    sizes = [int(size) for size in args.sizes.split(",")]
    prepared = {size: prepare(size, args.data, args.core) for size in sizes}
    if args.prepare:
        print(json.dumps(prepared))
        return 0
    asked = benchmark_queries(real_papers())
    text = report([measure(size, args.data, args.core, asked) for size in sizes], prepared)
    RESULTS_PATH.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
