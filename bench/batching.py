"""Does embedding queries together in one model run cost less per query than one by one?

Run from the repository root: ``python bench/batching.py [--rounds 5]``.

One process pinned to one core (the model runs on one thread, as in the bot) embeds the
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
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from quality import code_version
from semantic import question_queries
from speed import SEED, machine_description, peak_rss_mb, pin_to_one_core, real_papers

from bot.search.embedding import Embedder
from bot.search.query_vectors import PADDING_TOKENS, batch_from

RESULTS_PATH = Path(__file__).resolve().parent / "results" / "batching.md"
BATCH_SIZES = (1, 2, 4, 8, 16)
TEXTS_PER_KIND = 128  # a multiple of every batch size: each size embeds the same texts
ROUNDS = 5
SHORT_WORDS = 3

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


def measure(rounds: int) -> tuple[dict[str, dict[str, object]], float]:
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
    return results, peak_rss_mb()


def report(results: dict[str, dict[str, object]], rounds: int, rss_mb: float) -> str:
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
    results, rss_mb = measure(args.rounds)
    text = report(results, args.rounds, rss_mb)
    args.output.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
