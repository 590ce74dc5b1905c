"""What ``bench/speed.py`` writes: its tables, and the targets of issue 33 and issue #3 with
their verdicts.

Kept apart from the measuring so that the verdicts are plain functions of the figures (pinned
by ``tests/test_bench_speed.py``) and neither module outgrows a read.
"""

from __future__ import annotations

import math
import os
import platform
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from quality import code_version
from speed_corpus import TOP_K, VECTOR_TABLES, WARMUP_QUERIES
from speed_start import SnapshotStart

from bot.search.embedding import DIMENSIONS

if TYPE_CHECKING:
    from speed import StartupMeasurement

BAR_SIZE = 100_000  # the corpus size of issue #3's bar
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
    """Issue 33's targets at one corpus size."""

    start_s: float  # process start to the first answer, from a snapshot
    p50_ms: float  # BM25 alone
    p99_ms: float  # BM25 alone, the worst run's
    memory_mb: float  # one serving process, vectors included
    second_share: float = 0.25  # a second serving process on the host, summed PSS
    speedup: float | None = None  # p50 against get_scores
    model_added_ms: tuple[float, float] | None = None  # p50, p99 the model adds to BM25 alone


ISSUE_BARS = {
    100_000: IssueBar(start_s=5, p50_ms=1, p99_ms=10, memory_mb=1024, speedup=200),
    1_000_000: IssueBar(
        start_s=30, p50_ms=10, p99_ms=60, memory_mb=6 * 1024, model_added_ms=(15, 60)
    ),
}


def format_row(cells: Sequence[object]) -> str:
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    return [format_row(header), "|" + "---|" * len(header), *(format_row(row) for row in rows)]


def search_section(results: Sequence[dict[str, Any]]) -> list[str]:
    rows = [
        [
            f"{r['size']:,}",
            f"{r['engine']} (opened from its snapshot)" if r.get("opened") else r["engine"],
            "" if r["build_seconds"] is None else f"{r['build_seconds']:.1f}",
            f"{r['peak_rss_mb']:.0f}"
            + ("" if r["corpus_rss_mb"] is None else f" ({r['corpus_rss_mb']:.0f})"),
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


def opened_row(opened: dict[str, Any]) -> dict[str, Any]:
    """A search-table row of the engine opened from its snapshot (``speed_opened.measure``):
    its one run of BM25 alone, and the serving process's memory (the model on, vectors held).
    It was not built here, so it has no build time and no peak before indexing."""
    return {
        "size": opened["papers"],
        "engine": "engine",
        "opened": True,
        "build_seconds": None,
        "corpus_rss_mb": None,
        "peak_rss_mb": opened["peak_rss_mb"],
        "serving_rss_mb": opened["alone_rss_mb"],
        "p50_ms": opened["bm25_p50_ms"],
        "p99_ms": opened["bm25_p99_ms"],
        "max_ms": opened["bm25_max_ms"],
        "p50_runs": [opened["bm25_p50_ms"]],
        "p99_runs": [opened["bm25_p99_ms"]],
    }


OPENED_HEADER = (
    "papers",
    "start → first answer (CPU)",
    "a second process's first answer",
    "then prepared in",
    "p50 / p99 ms, BM25 alone",
    "p50 / p99 ms, the model on",
    "RSS, one",
    "PSS, one",
    "PSS, two",
    "two / one",
    "snapshot on disk",
)


def opened_table(results: Sequence[dict[str, Any]]) -> list[str]:
    """``speed_opened.measure``'s figures, a row a size."""
    return table(
        OPENED_HEADER,
        [
            [
                f"{r['papers']:,}",
                f"{r['first_s']:.1f} s ({r['first_cpu_s']:.1f} s CPU)",
                f"{r['second_first_s']:.1f} s",
                f"{r['prepare_s']:.1f} s",
                f"{r['bm25_p50_ms']:.2f} / {r['bm25_p99_ms']:.1f}",
                f"{r['model_p50_ms']:.2f} / {r['model_p99_ms']:.1f}",
                f"{r['alone_rss_mb']:,.0f} MB",
                f"{r['alone_pss_mb']:,.0f} MB",
                f"{r['together_pss_mb']:,.0f} MB",
                f"{r['together_pss_mb'] / r['alone_pss_mb']:.3f}",
                f"{r['snapshot_mb']:,.0f} MB",
            ]
            for r in results
        ],
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
    bars: Mapping[int, IssueBar],
    engine: Mapping[int, dict[str, Any]],
    ratios: Mapping[int, tuple[float, float]],
    opened: Mapping[int, dict[str, Any]],
    bare: Mapping[int, SnapshotStart | None],
) -> list[Target]:
    """Issue 33's table, at each size of ``bars`` this run measured: per size, the search
    table's ``engine`` row (p50 and the worst run's p99, BM25 alone), its speed-up over
    get_scores (``ratios``), and the process ``speed_opened.measure`` opened from the snapshot
    with the model on and the vectors held (``opened``): its start, its memory, and a second
    such process's. ``bare`` adds speed_start's second process (the model off, no vectors,
    one query answered) as an extra row: it is not the serving configuration, and the
    interpreter's own private memory is most of it. What a size lacks is said, and missed."""
    targets = []
    for size, bar in bars.items():
        if size not in engine and size not in opened:
            continue
        at = f"at {size:,}"
        served = opened.get(size)
        if served is None:
            targets.append(
                Target(f"start → first answer from a snapshot {at}", "", "not measured", False)
            )
        else:
            targets.append(
                Target(
                    f"start → first answer from a snapshot {at} (the model on)",
                    f"≤ {bar.start_s:g} s",
                    f"{served['first_s']:.1f} s ({served['first_cpu_s']:.1f} s CPU)",
                    served["first_s"] <= bar.start_s,
                )
            )
        measured = engine.get(size)
        if measured is not None:
            targets.append(_bounded(f"p50 {at} (BM25 alone)", measured["p50_ms"], bar.p50_ms, "ms"))
        if bar.speedup is not None:
            ratio = ratios.get(size, (math.nan,))[0]
            targets.append(
                Target(
                    f"p50 speed-up over get_scores {at}",
                    f"≥ {bar.speedup:g}x",
                    "not measured" if math.isnan(ratio) else times(ratio),
                    ratio >= bar.speedup,
                )
            )
        if measured is not None:
            worst = max(measured["p99_runs"])
            targets.append(_bounded(f"p99 (the worst run's) {at}", worst, bar.p99_ms, "ms"))
        if served is not None:
            targets += serving_targets(at, bar, served)
        else:
            targets.append(Target(f"host memory, one process {at}", "", "not measured", False))
        start = bare.get(size)
        if start is not None:
            targets.append(
                _share_target(
                    f"extra: a bare second process {at}",
                    "the model off, no vectors, one query answered: `speed_start.py`",
                    bar,
                    start.one_pss_mb,
                    start.two_pss_mb,
                )
            )
    return targets


def serving_targets(at: str, bar: IssueBar, served: dict[str, Any]) -> list[Target]:
    """The memory of one process opened from its snapshot, of a second one beside it, and
    what the model adds to BM25 alone, where the bar has that target."""
    rss = served["alone_rss_mb"]
    targets = [
        Target(
            f"host memory, one process {at} (RSS; the model on, vectors included)",
            f"≤ {bar.memory_mb / 1024:g} GB",
            f"{rss / 1024:.2f} GB",
            rss <= bar.memory_mb,
        ),
        _share_target(
            f"a second process on the same host {at}",
            "both serving: the model on, vectors, prepared",
            bar,
            served["alone_pss_mb"],
            served["together_pss_mb"],
        ),
    ]
    if bar.model_added_ms is not None:
        for name, limit in zip(("p50", "p99"), bar.model_added_ms, strict=True):
            added = served[f"questions_model_{name}_ms"] - served[f"questions_bm25_{name}_ms"]
            targets.append(
                Target(
                    f"the semantic re-ranking {at}: question queries' {name} over BM25 alone"
                    " (`bench/semantic.py`'s 12-25-word questions, each alone on both cores)",
                    f"≤ +{limit:g} ms",
                    f"{added:+.1f} ms",
                    added <= limit,
                )
            )
    return targets


def _share_target(
    what: str, how: str, bar: IssueBar, one_pss_mb: float, two_pss_mb: float
) -> Target:
    share = two_pss_mb / one_pss_mb - 1
    return Target(
        f"{what} (sum of PSS; {how})",
        f"≤ +{bar.second_share:.0%}",
        f"+{share:.1%} ({one_pss_mb:,.0f} → {two_pss_mb:,.0f} MB)",
        share <= bar.second_share,
    )


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
    """Issue #3's speed bar at ``BAR_SIZE`` papers (else the largest size whose engine this
    run built: an engine opened from its snapshot has no build to judge), checked against
    whatever this run measured."""
    targets = []
    built = {r["size"]: r for r in results if r["engine"] == "engine" and not r.get("opened")}
    size = BAR_SIZE if BAR_SIZE in built else max(built, default=None)
    if size is not None:
        at = f"at {size:,}"
        for what, value, limit, unit in (
            ("p50", built[size]["p50_ms"], TARGET_P50_MS, "ms"),
            ("p99 (the worst run's)", max(built[size]["p99_runs"]), TARGET_P99_MS, "ms"),
            ("build", built[size]["build_seconds"], TARGET_BUILD_S, "s"),
            ("peak RSS", built[size]["peak_rss_mb"], TARGET_PEAK_RSS_MB, "MB"),
        ):
            targets.append(
                Target(f"{what} {at}", f"≤ {limit:g} {unit}", f"{value:.2f} {unit}", value <= limit)
            )
    if (ratios := speedups(results)) and size in ratios:
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
    opened: Sequence[dict[str, Any]] = (),
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
        " corpus itself (in brackets: the peak before indexing). get_scores's process holds"
        " the token lists alone, not the papers: they are computed by the engine in another"
        " process, and read from a file. *Serving RSS* is the"
        " engine's resident memory once its searches are done, with synthetic float16 vector"
        f" tables of the size the semantic ranker holds ({VECTOR_TABLES} vectors of"
        f" {DIMENSIONS} a paper, {VECTOR_TABLES * DIMENSIONS * 2 / 1024:.1f} KB) allocated"
        " beside the index; the searches themselves are BM25's. An *engine* row naming a"
        " commit (`--before`) is that commit's code measured in the same run.",
        "",
        *opened_note(results),
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
    if opened:
        lines += [
            "Opened from a saved snapshot as the bot serves (`bench/speed_opened.py`'s method:"
            " the model on, synthetic float16 vectors for every title and text, the snapshot's"
            " pages in the page cache; a fresh process on CPU 0 answers a first query, builds"
            " what a served bot builds then (`prepare`), answers the queries with the model on;"
            " a second one opens the same snapshot on CPU 1 beside it; then the first answers"
            " them with BM25 alone):",
            "",
            *opened_table(opened),
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


def opened_note(results: Sequence[dict[str, Any]]) -> list[str]:
    """What an engine row opened from its snapshot is, where the run has one."""
    sizes = sorted(r["size"] for r in results if r.get("opened"))
    if not sizes:
        return []
    at = ", ".join(f"{size:,}" for size in sizes)
    return [
        f"At {at} papers the engine is not built three times (a million papers take about"
        " 15 minutes to build): its row is the process opened from the prepared snapshot"
        " (below), one run of BM25 alone with the model's ranker left out, its serving RSS with"
        " the model on and the vectors held; its peak is the process's `VmHWM`. get_scores runs"
        " once there, over the same queries, on the token lists of that snapshot's papers.",
        "",
    ]


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
