"""Saved indexes (issue 33): process start to first answer from a snapshot against a build,
and the memory a second process on the same host adds.

For each size, the corpus of ``bench/speed.py`` (the real catalogue, then synthetic papers)
is written as a catalogue-format file, with synthetic unit vectors saved beside it for every
paper's title and text, so the model re-ranks and the vectors are held as the bot holds them
(the issue allows synthetic vectors: embedding 100,000 abstracts takes hours of CPU). Then,
each a fresh process pinned to CPU 0 (``python bench/snapshot.py --worker``):

1. **built**: loads the corpus, builds the index (``PAPERBOT_INDEX_DIR`` off), answers one
   query; then saves the snapshot (timed apart), answers the benchmark queries and waits.
2. **opened A**: opens that snapshot (``bot.search.snapshot.saved_index``, every file
   checksummed), answers one query, then the benchmark queries, and waits: its PSS alone is
   read from ``/proc/PID/smaps_rollup``.
3. **opened B**: the same while A runs; the PSS of A and B together is read.

In the built process and in A, after the first answer, the spelling corrector is measured
on its own: the time to have it (built from the vocabulary; for A, opened from the
snapshot's files and checked, as at open, timed in the built process after saving), the
private memory it adds (``Pss_Anon`` of ``/proc/self/smaps_rollup`` before it and after it
corrected the typos: pages of a mapped file are not private), and the latency of correcting
``TYPOS`` typos of real title words (one random slip each, a fixed seed).

Start → first answer is the wall time from starting the process to its first answer (the
interpreter, the imports and the model included), with the process's CPU seconds beside it:
on a shared machine the CPU time says what the work costs. The snapshot's pages are in the
page cache (just written, as on a host where another process runs or ran): a cold disk adds
its read time of the snapshot's size.

    python bench/snapshot.py --sizes 10000,100000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's bot

from quality import code_version
from speed import (
    ONE_CORE,
    PROJECT_ROOT,
    TOP_K,
    benchmark_queries,
    machine_description,
    real_papers,
    write_catalogue_jsonl,
)

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

RESULTS_PATH = Path(__file__).resolve().parent / "results" / "snapshot.md"
FIRST_QUERY = "graph neural networks for molecules"
TARGET_START_S = 5.0  # at 100,000 papers, from a snapshot
TARGET_SECOND_PROCESS = 1.25  # PSS of two processes over one's
TYPOS = 2000


def write_vectors_for(path: Path) -> None:
    """Synthetic unit vectors (float16, as stored) for every title and text of the corpus."""
    papers = load_corpus(str(path)).papers
    keys = list(dict.fromkeys(text_key(text) for p in papers for text in vector_texts(p)))
    rng = np.random.default_rng(2025)
    vectors = rng.standard_normal((len(keys), DIMENSIONS), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    model = shared_embedder().fingerprint
    stored = StoredVectors(model, np.array(keys, dtype=np.uint64), vectors.astype(np.float16))
    write_vectors(vectors_path(str(path)), stored)


def pss_mb(pid: int) -> float:
    """A process's proportional set size: its own pages, plus each shared page divided by the
    number of processes mapping it."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no Pss in /proc/{pid}/smaps_rollup")


def pss_anon_mb() -> float:
    """This process's private anonymous memory (its heap): what a second process adds."""
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss_Anon:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no Pss_Anon in /proc/self/smaps_rollup")


def typos(count: int = TYPOS) -> list[str]:
    """Real title words of six letters or more, each with one slip: a letter dropped,
    doubled, changed or swapped with the next."""
    rng = random.Random(33)
    words = sorted(
        {w.lower() for p in real_papers() for w in p.title.split() if w.isalpha() and len(w) > 5}
    )
    slipped = []
    for word in rng.choices(words, k=count):
        at = rng.randrange(len(word) - 1)
        slip = rng.choice("dict")
        letter = rng.choice("abcdefghijklmnopqrstuvwxyz")
        slipped.append(
            {
                "d": word[:at] + word[at + 1 :],
                "i": word[:at] + word[at] + word[at:],
                "c": word[:at] + letter + word[at + 1 :],
                "t": word[:at] + word[at + 1] + word[at] + word[at + 2 :],
            }[slip]
        )
    return slipped


def corrector_costs(index: Any) -> dict[str, float]:
    """The corrector's time to be built (0 when the index was opened with it), its private
    memory, and its latency on typos."""
    slipped = typos()  # the catalogue they are made from is not the corrector's memory
    before = pss_anon_mb()
    started, cpu = time.perf_counter(), time.process_time()
    speller = index._planner.speller
    ready, ready_cpu = time.perf_counter() - started, time.process_time() - cpu
    latencies = []
    for typo in slipped:
        began = time.perf_counter_ns()
        speller.correct(typo)
        latencies.append((time.perf_counter_ns() - began) / 1e3)
    return {
        "speller_s": ready,
        "speller_cpu_s": ready_cpu,
        "speller_mb": pss_anon_mb() - before,
        "speller_p50_us": float(np.percentile(latencies, 50)),
        "speller_p99_us": float(np.percentile(latencies, 99)),
    }


def corrector_opening(root: Path) -> dict[str, float]:
    """The time to open the corrector from a snapshot's files, checked as at open (measured
    in the building process, so the opened ones measure only what they did themselves)."""
    from bot.search.snapshot_files import SnapshotReader
    from bot.search.snapshot_parts import open_speller

    started, cpu = time.perf_counter(), time.process_time()
    open_speller(SnapshotReader(next(root.glob("index-*"))))
    return {"speller_s": time.perf_counter() - started, "speller_cpu_s": time.process_time() - cpu}


class Worker:
    """A measuring process: its JSON lines read as they come; closing its input stops it."""

    def __init__(self, mode: str, spec: str, root: Path, queries: Path, semantic: bool) -> None:
        self.started = time.perf_counter()
        command = [sys.executable, str(Path(__file__).resolve())]
        command += ["--semantic", "on" if semantic else "off", "--worker", mode]
        self.process = subprocess.Popen(
            [*command, spec, str(root), str(queries)],
            cwd=PROJECT_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: os.sched_setaffinity(0, ONE_CORE),
        )

    def line(self) -> tuple[float, dict[str, Any]]:
        """The next report and the wall seconds from the start to its arrival."""
        assert self.process.stdout is not None
        text = self.process.stdout.readline()
        if not text:
            raise RuntimeError(f"worker exited with {self.process.wait()}")
        return time.perf_counter() - self.started, json.loads(text)

    def stop(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


def measure(size: int, semantic: bool, scratch: Path) -> dict[str, Any]:
    corpus = scratch / f"corpus-{size}.jsonl"
    if not corpus.exists():
        write_catalogue_jsonl(size, corpus)
        write_vectors_for(corpus)
    root = scratch / f"index-{size}-{semantic}"
    queries = scratch / "queries.json"
    queries.write_text(json.dumps(benchmark_queries(real_papers())), encoding="utf-8")
    built = Worker("build", str(corpus), root, queries, semantic)
    built_first, built_report = built.line()
    _, built_speller = built.line()
    _, saved = built.line()
    _, built_served = built.line()
    built_pss = pss_mb(built.process.pid)
    built.stop()
    first = Worker("open", str(corpus), root, queries, semantic)
    first_answer, first_report = first.line()
    _, first_speller = first.line()
    _, first_served = first.line()
    alone = pss_mb(first.process.pid)
    second = Worker("open", str(corpus), root, queries, semantic)
    second_answer, _ = second.line()
    second.line()
    second.line()
    together = pss_mb(first.process.pid) + pss_mb(second.process.pid)
    first.stop()
    second.stop()
    snapshot_bytes = sum(f.stat().st_size for f in next(root.glob("index-*")).iterdir())
    return {
        "papers": size,
        "semantic": semantic,
        "built_first_s": built_first,
        "built_cpu_s": built_report["cpu_seconds"],
        "save_s": saved["save_seconds"],
        "snapshot_mb": snapshot_bytes / 2**20,
        "opened_first_s": first_answer,
        "opened_cpu_s": first_report["cpu_seconds"],
        "second_first_s": second_answer,
        "built_pss_mb": built_pss,
        "alone_pss_mb": alone,
        "together_pss_mb": together,
        "built_p50_ms": built_served["p50_ms"],
        "built_p99_ms": built_served["p99_ms"],
        "opened_p50_ms": first_served["p50_ms"],
        "opened_p99_ms": first_served["p99_ms"],
        "built_speller": built_speller,
        "opened_speller": {**first_speller, **{k: v for k, v in saved.items() if "speller" in k}},
    }


def run_worker(mode: str, spec: str, root: str, queries: str, semantic: bool) -> int:
    """One measuring process: prints a JSON line at each step, then waits for its input to
    close (so its memory can be read while it lives)."""
    from bot.search.engine import SearchIndex
    from bot.search.semantic import ranker_for, share_host_files
    from bot.search.snapshot import index_key, saved_index, write_snapshot

    def say(**values: object) -> None:
        print(json.dumps(values), flush=True)

    share_host_files(Path(root))  # as the bot does with its PAPERBOT_INDEX_DIR

    if mode == "build":
        corpus = load_corpus(spec)
        index = SearchIndex.build(corpus.papers, ranker_for(spec) if semantic else None)
    else:
        index, corpus = saved_index(spec, Path(root), semantic=semantic)
    index.search(FIRST_QUERY, limit=TOP_K)
    say(cpu_seconds=time.process_time())
    say(**corrector_costs(index))
    if mode == "build":
        started = time.perf_counter()
        write_snapshot(Path(root), index_key(spec, index.model), spec, index, corpus)
        say(save_seconds=time.perf_counter() - started, **corrector_opening(Path(root)))
    latencies = []
    for query in json.loads(Path(queries).read_text(encoding="utf-8")):
        began = time.perf_counter_ns()
        index.search(query, limit=TOP_K)
        latencies.append((time.perf_counter_ns() - began) / 1e6)
    say(p50_ms=float(np.percentile(latencies, 50)), p99_ms=float(np.percentile(latencies, 99)))
    sys.stdin.read()
    return 0


def verdict(value: float, target: float) -> str:
    return "met" if value <= target else "missed"


def row(r: dict[str, Any]) -> str:
    opened, built = r["opened_first_s"], r["built_first_s"]
    cells = [
        f"{r['papers']:,}",
        "on" if r["semantic"] else "off",
        f"{built:.1f} s ({r['built_cpu_s']:.1f} s CPU)",
        f"{opened:.1f} s ({r['opened_cpu_s']:.1f} s CPU)",
        f"{opened / built:.2f}",
        f"{r['second_first_s']:.1f} s",
        f"{r['save_s']:.1f} s, {r['snapshot_mb']:.0f} MB",
        f"{r['built_pss_mb']:.0f} MB",
        f"{r['alone_pss_mb']:.0f} MB",
        f"{r['together_pss_mb']:.0f} MB",
        f"{r['together_pss_mb'] / r['alone_pss_mb']:.2f}",
        f"{r['built_p50_ms']:.1f} / {r['built_p99_ms']:.1f}",
        f"{r['opened_p50_ms']:.1f} / {r['opened_p99_ms']:.1f}",
    ]
    return "| " + " | ".join(cells) + " |"


def speller_row(r: dict[str, Any]) -> str:
    cells = [f"{r['papers']:,}", "on" if r["semantic"] else "off"]
    for step in ("built_speller", "opened_speller"):
        costs = r[step]
        cells += [
            f"{costs['speller_s']:.2f} s ({costs['speller_cpu_s']:.2f} s CPU)",
            f"{costs['speller_mb']:.1f} MB",
            f"{costs['speller_p50_us']:.0f} / {costs['speller_p99_us']:.0f}",
        ]
    return "| " + " | ".join(cells) + " |"


SPELLER_HEADER = (
    "papers",
    "model",
    "built: corrector ready",
    "built: its private memory",
    "built: p50 / p99 µs a typo",
    "opened: corrector ready",
    "opened: its private memory",
    "opened: p50 / p99 µs a typo",
)


def verdicts(r: dict[str, Any]) -> list[str]:
    """The issue's two bars at 100,000 papers, for one run."""
    model = "model on" if r["semantic"] else "model off"
    start = r["opened_first_s"]
    second = r["together_pss_mb"] / r["alone_pss_mb"]
    return [
        f"- {model}, start → first answer from a snapshot: {start:.1f} s, target "
        f"≤ {TARGET_START_S:.0f} s: **{verdict(start, TARGET_START_S)}**.",
        f"- {model}, two processes on one host: {second:.2f} times one's PSS, target "
        f"≤ {TARGET_SECOND_PROCESS:.2f}: **{verdict(second, TARGET_SECOND_PROCESS)}**.",
    ]


HEADER = (
    "papers",
    "model",
    "built: start → first answer",
    "opened: start → first answer",
    "opened / built",
    "a second opened process",
    "saving: time, size",
    "PSS, built",
    "PSS, opened",
    "PSS, two opened",
    "two / one",
    "p50 / p99 ms, built",
    "p50 / p99 ms, opened",
)


def report(results: Sequence[dict[str, Any]]) -> str:
    at_target = [line for r in results if r["papers"] == 100_000 for line in verdicts(r)]
    return "\n".join(
        [
            "# Saved indexes: start from a snapshot, and a second process",
            "",
            "`python bench/snapshot.py` (see its docstring for the method). The model off "
            "(BM25 alone, as `bench/speed.py`) and on (the bot's default, with synthetic "
            "vectors for every paper); each process pinned to CPU 0; the snapshot's pages "
            "in the page cache.",
            "",
            f"Machine: {machine_description()}. Measured at {code_version()}.",
            "",
            "| " + " | ".join(HEADER) + " |",
            "|" + "---|" * len(HEADER),
            *map(row, results),
            "",
            f"The spelling corrector alone, after the first answer ({TYPOS:,} typos of real "
            "title words; private memory is the growth of `Pss_Anon`):",
            "",
            "| " + " | ".join(SPELLER_HEADER) + " |",
            "|" + "---|" * len(SPELLER_HEADER),
            *map(speller_row, results),
            "",
            *(["At 100,000 papers:", "", *at_target, ""] if at_target else []),
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--worker", nargs=4, metavar=("MODE", "SPEC", "ROOT", "QUERIES"))
    parser.add_argument("--semantic", choices=("on", "off", "both"), default="both")
    args = parser.parse_args(argv)
    if args.worker:
        return run_worker(*args.worker, semantic=args.semantic == "on")
    sizes = [int(size) for size in args.sizes.split(",")]
    models = {"on": [True], "off": [False], "both": [False, True]}[args.semantic]
    with tempfile.TemporaryDirectory() as scratch:
        results = [measure(size, on, Path(scratch)) for size in sizes for on in models]
    text = report(results)
    RESULTS_PATH.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
