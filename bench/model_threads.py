"""How many threads should the model run on, and should they spin?

Run from the repository root: ``python bench/model_threads.py [--rounds 3]``.

Four ways to run the model are compared: one thread (the bot's way when busy,
``bot.search.embedding``); two threads that sleep whenever they wait; two threads that spin
up to ``SPIN_US`` between a run's steps before they sleep (the bot's way for a lone query
when it is quiet); two threads that spin as long as
ONNX Runtime's own bound allows. No way spins once a run is over. Each way runs in a fresh
process on every core, the ways taking turns round after round, over two kinds of text: the
12-25 word queries of the catalogue's blind sets (``semantic.question_queries``) and 3-word
phrases of abstracts. Each kind is embedded alone, one run per query with a pause of 5 ms
between runs (a lone query finds the model's threads asleep, as in the bot), and 8 at a time
as ``QueryVectors`` splits queries waiting together (the runs of a busy bot, back to back).
Reported: the median wall time of a run, and the process's CPU time per run, every thread's,
spinning included. Every text's vector, alone and in each run it shared, is compared bit for
bit with its vector alone on one thread."""

from __future__ import annotations

import hashlib
import json
import random
import resource
import statistics
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from batching import batches, split_as_the_batcher_does, three_word_phrases
from quality import code_version
from semantic import question_queries
from speed import SEED, machine_description
from turns import rounds_parser, rounds_taking_turns

from bot.search.embedding import LONE_SPIN_US, Embedder

RESULTS_PATH = Path(__file__).resolve().parent / "results" / "model_threads.md"
ROUNDS = 3
TEXTS_PER_KIND = 128
PAUSE_S = 0.005  # between lone runs: long enough for sleeping threads to go to sleep
SPIN_US = LONE_SPIN_US
BOT = "one thread (the bot, busy)"
WAYS = {
    BOT: (1, 0),
    "two threads, sleeping when they wait": (2, 0),
    f"two threads, spinning up to {SPIN_US} µs (the bot, quiet)": (2, SPIN_US),
    "two threads, spinning as long as ONNX Runtime likes": (2, None),
}
GROUPS = (1, 8)
KINDS = ("12-25 words", "3 words")


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(way: str) -> dict[str, object]:
    """One way's run times, CPU per run and vector digests, for each kind and group size."""
    threads, spin_us = WAYS[way]
    embedder = Embedder(threads=threads, spin_us=spin_us)
    kinds = {
        "12-25 words": random.Random(SEED).sample(question_queries(), TEXTS_PER_KIND),
        "3 words": three_word_phrases(TEXTS_PER_KIND),
    }
    figures: dict[str, object] = {}
    for kind, texts in kinds.items():
        tokens = [embedder.tokens(text) for text in texts]
        for group in GROUPS:
            runs = [
                run
                for waiting in batches(tokens, group)
                for run in split_as_the_batcher_does(waiting)
            ]
            walls, cpu, digest_of = [], 0.0, {}
            for run in runs:
                started_cpu, started = _cpu_seconds(), time.perf_counter()
                vectors = embedder.embed_tokens(run)
                walls.append((time.perf_counter() - started) * 1e3)
                for ids, vector in zip(run, vectors, strict=True):
                    digest_of[ids] = hashlib.sha256(vector.tobytes()).hexdigest()
                if group == 1:
                    time.sleep(PAUSE_S)  # a sleeping pool's wake-up is part of the next run
                cpu += _cpu_seconds() - started_cpu
            figures[f"{kind} {group}"] = {
                "run_p50_ms": statistics.median(walls),
                "cpu_per_run_ms": cpu * 1e3 / len(runs),
                "queries_per_run": len(tokens) / len(runs),
                "digests": [digest_of[ids] for ids in tokens],  # the texts' order, not the runs'
            }
    return figures


def report(runs: dict[str, list[dict[str, object]]], rounds: int, note: str) -> str:
    pause_ms = PAUSE_S * 1e3
    rows = []
    for kind in KINDS:
        for group in GROUPS:
            base = statistics.median(r[f"{kind} {group}"]["run_p50_ms"] for r in runs[BOT])
            for way, measured in runs.items():
                cells = [measured_round[f"{kind} {group}"] for measured_round in measured]
                wall = statistics.median(cell["run_p50_ms"] for cell in cells)
                cpu = statistics.median(cell["cpu_per_run_ms"] for cell in cells)
                alone = (
                    f"alone, {pause_ms:g} ms apart"
                    if group == 1
                    else f"{group} waiting, back to back"
                )
                per_run = cells[0]["queries_per_run"]
                rows.append(
                    f"| {kind}, {alone} ({per_run:.1f} a run) | {way} | {wall:.2f} ms"
                    f" ({base / wall:.2f}x) | {cpu:.2f} ms |"
                )
    # Every text's vector, alone and in each run it shared, against its vector on one thread.
    alone_on_one = {kind: runs[BOT][0][f"{kind} 1"]["digests"] for kind in KINDS}
    identical = all(
        measured_round[f"{kind} {group}"]["digests"] == alone_on_one[kind]
        for measured in runs.values()
        for measured_round in measured
        for kind in KINDS
        for group in GROUPS
    )
    return "\n".join(
        [
            "# The model's threads: one or two, sleeping or spinning",
            "",
            f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by `python bench/model_threads.py`"
            f" ({code_version()}) on {machine_description('each way on every CPU')}.",
            "",
            f"{rounds} rounds, the {len(WAYS)} ways taking turns, each in a fresh process; each"
            f" kind's {TEXTS_PER_KIND} texts embedded alone (one run each, {pause_ms:g} ms apart,"
            " so the pool's threads are asleep when a run starts) and"
            f" {GROUPS[-1]} at a time split as `QueryVectors`"
            " splits them (runs back to back, as in a busy bot). *Run*: the median wall time"
            " of one run (median over rounds) and the speed-up on one thread; *CPU per run*:"
            " the process's CPU time over the runs (every thread, spinning included, and the"
            " pauses after lone runs, when spinning threads may go on burning), per run.",
            "",
            "| texts | way | run | CPU per run |",
            "| --- | --- | --- | --- |",
            *rows,
            "",
            (
                "Every text's vector, alone and in every run it shared, in every way and round,"
                " is bit-identical to its vector alone on one thread."
                if identical
                else "**Some vectors differ from their vectors on one thread.**"
            ),
            "",
            *([note, ""] if note else []),
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--worker"]:
        print(json.dumps(measure(argv[1])))
        return 0
    args = rounds_parser(__doc__, ROUNDS, RESULTS_PATH).parse_args(argv)
    runs = rounds_taking_turns(Path(__file__), {way: [] for way in WAYS}, args.rounds)
    text = report(runs, args.rounds, args.note)
    args.output.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
