"""Does embedding queries together in one model run cost less per query than one by one?

Run from the repository root: ``python bench/batching.py [--rounds 5]``.

One process pinned to one core (so the model runs on one thread; ``bench/model_threads.py``
compares one thread with the bot's two) embeds the
same texts taken 1, 2, 4, 8 and 16 at a time as queries waiting together, for three kinds of
text: 3-word phrases of abstracts, the 12-25 word queries of the blind sets
(``semantic.question_queries``), and the two mixed, which is what queries waiting together
at load look like. Each group is run two ways: as one batch padded to the longest (with an
attention mask), and split by length as ``QueryVectors`` does. Each round runs every size
both ways in a shuffled order, on a shuffled order of the texts, so they compare like with
like on a machine whose speed drifts; cost is CPU time, which other processes do not add to.
Every text's vector in every padded batch is compared with its vector alone.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from quality import code_version
from semantic import question_queries
from speed import SEED, machine_description, peak_rss_mb, pin_to_one_core, real_papers

from bot.search.embedding import Embedder
from bot.search.query_vectors import PADDING_TOKENS, QueryVectors, batch_from

RESULTS_PATH = Path(__file__).resolve().parent / "results" / "batching.md"
BATCH_SIZES = (1, 2, 4, 8, 16)
TEXTS_PER_KIND = 128  # a multiple of every batch size: each size embeds the same texts
ROUNDS = 5
SHORT_WORDS = 3
THREADS = (1, 4, 16)

Tokens = tuple[int, ...]

HOW = {
    "padded": "all in one run, padded to the longest",
    "split": "split by length as `QueryVectors` does",
}


def three_word_phrases(count: int) -> list[str]:
    """Consecutive words of random real abstracts, as a short search reads."""
    rng = random.Random(SEED)
    papers = real_papers()
    phrases = []
    while len(phrases) < count:
        words = rng.choice(papers).plain_abstract.split()
        start = rng.randrange(max(1, len(words) - SHORT_WORDS))
        phrase = " ".join(w.strip(".,;:()[]{}\"'") for w in words[start : start + SHORT_WORDS])
        phrases.append(phrase.lower())
    return phrases


def text_kinds(count: int) -> dict[str, list[str]]:
    short = three_word_phrases(count)
    questions = random.Random(SEED).sample(question_queries(), count)
    mixed = short[: count // 2] + questions[: count - count // 2]
    return {"3 words": short, "12-25 words": questions, "mixed": mixed}


def batches(items: Sequence[Tokens], size: int) -> list[list[Tokens]]:
    return [list(items[start : start + size]) for start in range(0, len(items), size)]


def largest_difference(embedder: Embedder, texts: Sequence[Tokens]) -> dict[int, float]:
    """Per batch size, the largest absolute difference of any coordinate of any text's vector
    from that text's vector embedded alone."""
    alone = np.concatenate([embedder.embed_tokens([tokens]) for tokens in texts])
    return {
        size: float(
            np.abs(
                np.concatenate([embedder.embed_tokens(batch) for batch in batches(texts, size)])
                - alone
            ).max()
        )
        for size in BATCH_SIZES
    }


def split_as_the_batcher_does(waiting: list[Tokens]) -> list[list[Tokens]]:
    """The runs ``QueryVectors`` makes of these queries waiting together."""
    runs = []
    while waiting:
        taken = batch_from([len(tokens) for tokens in waiting], len(waiting))
        runs.append([waiting[position] for position in taken])
        waiting = [tokens for position, tokens in enumerate(waiting) if position not in taken]
    return runs


def timed_round(
    embedder: Embedder, texts: Sequence[Tokens], rng: random.Random
) -> dict[tuple[str, int], tuple[float, list[float]]]:
    """Per way of running and number waiting: CPU ms per text over all the texts, and each
    run's wall ms. "split" runs each group of queries waiting together as ``QueryVectors``
    would; "padded" runs the group as one batch."""
    figures = {}
    trials = [(how, size) for how in HOW for size in BATCH_SIZES]
    for how, size in rng.sample(trials, len(trials)):
        order = rng.sample(list(texts), len(texts))
        runs, cpu_ns = [], 0
        for waiting in batches(order, size):
            for batch in split_as_the_batcher_does(waiting) if how == "split" else [waiting]:
                started, started_cpu = time.perf_counter_ns(), time.thread_time_ns()
                embedder.embed_tokens(batch)
                runs.append((time.perf_counter_ns() - started) / 1e6)
                cpu_ns += time.thread_time_ns() - started_cpu
        figures[how, size] = (cpu_ns / 1e6 / len(texts), runs)
    return figures


def _medians(
    per_round: Sequence[dict[tuple[str, int], tuple[float, list[float]]]], how: str
) -> dict[str, dict[int, float]]:
    return {
        "per_text_ms": {
            size: statistics.median(round_[how, size][0] for round_ in per_round)
            for size in BATCH_SIZES
        },
        "run_p50_ms": {
            size: statistics.median(run for round_ in per_round for run in round_[how, size][1])
            for size in BATCH_SIZES
        },
    }


class _CountedRuns:
    """The model, counting its runs: how many queries shared one."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._lock = threading.Lock()
        self.runs = 0

    def tokens(self, text: str) -> Tokens:
        return self._embedder.tokens(text)

    def embed_tokens(self, batch: Sequence[Sequence[int]], *, lone: bool = False) -> np.ndarray:
        with self._lock:
            self.runs += 1
        return self._embedder.embed_tokens(batch, lone=lone)


def concurrent_trial(
    embedder: Embedder, texts: Sequence[str], threads: int, batched: bool
) -> tuple[float, float]:
    """``threads`` threads each ask for their share of ``texts``, one after another, through
    ``QueryVectors`` or each running the model itself: the process's CPU ms per query, and
    queries per model run."""
    model = _CountedRuns(embedder)
    if batched:
        ask = QueryVectors(model, capacity=len(texts)).vector
    else:

        def ask(text: str) -> np.ndarray:
            return model.embed_tokens([model.tokens(text)])[0]

    start = threading.Barrier(threads + 1)

    def work(share: Sequence[str]) -> None:
        start.wait()
        for text in share:
            ask(text)

    workers = [threading.Thread(target=work, args=(texts[n::threads],)) for n in range(threads)]
    for worker in workers:
        worker.start()
    start.wait()
    started_cpu = time.process_time()
    for worker in workers:
        worker.join()
    return (time.process_time() - started_cpu) * 1e3 / len(texts), len(texts) / model.runs


def measure_concurrent(embedder: Embedder, rounds: int) -> dict[tuple[str, int, bool], tuple]:
    """Per kind of text, number of threads and way: median CPU ms per query and queries per
    run over the rounds (distinct texts, so no vector is reused)."""
    kinds = text_kinds(TEXTS_PER_KIND)
    trials = [
        (kind, n, batched)
        for kind in ("3 words", "mixed")
        for n in THREADS
        for batched in (False, True)
    ]
    figures: dict[tuple[str, int, bool], list[tuple[float, float]]] = {t: [] for t in trials}
    rng = random.Random(SEED)
    for _ in range(rounds):
        for kind, threads, batched in rng.sample(trials, len(trials)):
            texts = list({embedder.tokens(t): t for t in kinds[kind]}.values())
            figures[kind, threads, batched].append(
                concurrent_trial(embedder, texts, threads, batched)
            )
    return {
        trial: tuple(statistics.median(values) for values in zip(*runs, strict=True))
        for trial, runs in figures.items()
    }


def measure(rounds: int) -> tuple[dict[str, dict[str, object]], dict[tuple, tuple], float]:
    """Per kind of text: its median length, the largest difference from the vectors alone, and
    the timings padded to the longest and split as the batcher does."""
    embedder = Embedder()
    results: dict[str, dict[str, object]] = {}
    rng = random.Random(SEED)
    for kind, texts in text_kinds(TEXTS_PER_KIND).items():
        tokens = [embedder.tokens(text) for text in texts]
        for warmup in batches(tokens, 16)[:2]:
            embedder.embed_tokens(warmup)
        results[kind] = {
            "words": statistics.median(len(text.split()) for text in texts),
            "tokens": statistics.median(map(len, tokens)),
            "max_difference": largest_difference(embedder, tokens),
        }
        per_round = [timed_round(embedder, tokens, rng) for _ in range(rounds)]
        for how in HOW:
            results[kind][how] = _medians(per_round, how)
        print(f"{kind}: {results[kind]}", file=sys.stderr)
    concurrent = measure_concurrent(embedder, rounds)
    print(f"concurrent: {concurrent}", file=sys.stderr)
    return results, concurrent, peak_rss_mb()


def concurrent_table(concurrent: dict[tuple, tuple]) -> list[str]:
    rows = []
    for kind, threads, batched in concurrent:
        if batched:
            alone, _ = concurrent[kind, threads, False]
            cpu, per_run = concurrent[kind, threads, True]
            rows.append(
                f"| {kind} | {threads} | {alone:.2f} ms | {cpu:.2f} ms | {alone / cpu:.1f}x"
                f" | {per_run:.1f} |"
            )
    return [
        "| texts | threads | each thread runs the model: CPU ms per query"
        " | through `QueryVectors` | speed-up | queries per run |",
        "| --- | --- | --- | --- | --- | --- |",
        *rows,
    ]


def report(
    results: dict[str, dict[str, object]],
    concurrent: dict[tuple, tuple],
    rounds: int,
    rss_mb: float,
) -> str:
    header = " | ".join(f"{size} waiting" for size in BATCH_SIZES)
    rows = []
    for kind, figures in results.items():
        for how, label in HOW.items():
            per_text, run_p50 = figures[how]["per_text_ms"], figures[how]["run_p50_ms"]
            cells = " | ".join(
                f"{per_text[s]:.2f} ms ({per_text[1] / per_text[s]:.1f}x), run {run_p50[s]:.1f} ms"
                for s in BATCH_SIZES
            )
            rows.append(
                f"| {kind} (median {figures['words']:.0f} words, {figures['tokens']:.0f}"
                f" tokens), {label} | {cells} |"
            )
    differences = "; ".join(
        f"{kind}: " + ", ".join(f"{s}: {d:.1e}" for s, d in figures["max_difference"].items())
        for kind, figures in results.items()
    )
    identical = all(d == 0.0 for f in results.values() for d in f["max_difference"].values())
    return "\n".join(
        [
            "# Embedding queries together: cost per query by how many wait",
            "",
            f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by `python bench/batching.py`"
            f" ({code_version()}) on {machine_description()}.",
            "",
            f"{TEXTS_PER_KIND} texts of each kind, taken 1, 2, 4, 8 or 16 at a time as queries"
            " waiting together, either all in one run (padded to the longest, with an attention"
            " mask) or split into runs of lengths within"
            f" {PADDING_TOKENS} tokens of each other, oldest first, as `QueryVectors` does;"
            f" {rounds} rounds with the sizes in a shuffled order and the texts shuffled each"
            " time, the two ways taking turns; the model on one thread. Each cell: the median"
            " over rounds of the CPU ms per text (the runs' CPU time over the texts: on a"
            " shared machine the wall time also counts other processes' turns), the speed-up"
            " on one by one, and the median wall time of one run (what a query waits for the"
            " run it is in).",
            "",
            f"| texts | {header} |",
            "| --- |" + " --- |" * len(BATCH_SIZES),
            *rows,
            "",
            "Largest absolute difference of any coordinate of any text's vector in a padded run"
            f" from that text's vector alone, by run size: {differences}."
            + (
                " Every vector is bit-identical to the text's vector alone, so every ranking"
                " is the same."
                if identical
                else ""
            ),
            "",
            "## Threads asking at once",
            "",
            f"The {TEXTS_PER_KIND} texts of a kind (each once: no vector is reused) shared out"
            " between threads that each ask for theirs one after another, as the bot's workers"
            " do under a burst: either each thread runs the model itself, or they all go"
            f" through `QueryVectors`. CPU time of the whole process per query, median of"
            f" {rounds} rounds taking turns; the model on one thread, the process on one core.",
            "",
            *concurrent_table(concurrent),
            "",
            f"Peak resident memory of the process: {rss_mb:.0f} MB.",
            "",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--output", type=Path, default=RESULTS_PATH)
    args = parser.parse_args(argv)
    pin_to_one_core()
    results, concurrent, rss_mb = measure(args.rounds)
    text = report(results, concurrent, args.rounds, rss_mb)
    args.output.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
