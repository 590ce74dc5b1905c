"""What ``bench/speed.py`` writes: its tables, and the targets of issue 33 and issue #3 with
their verdicts.

Kept apart from the measuring so that the verdicts are plain functions of the figures (pinned
by ``tests/test_bench_speed.py``) and neither module outgrows a read.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from quality import code_version
from speed_corpus import TOP_K, VECTOR_TABLES, WARMUP_QUERIES
from speed_start import SnapshotStart

from bot.search.embedding import DIMENSIONS

if TYPE_CHECKING:
    from speed import StartupMeasurement

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


def format_row(cells: Sequence[object]) -> str:
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    return [format_row(header), "|" + "---|" * len(header), *(format_row(row) for row in rows)]


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
