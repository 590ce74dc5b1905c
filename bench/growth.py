"""A corpus that grows (issue 33): adding papers to a live index while it answers searches.

For each size: the corpus of ``bench/speed.py`` (the real catalogue, then synthetic papers),
less the papers to add, is built and prepared as the bot prepares it; then batches of
``--batch`` papers are added through ``Library.add`` while another thread searches the
benchmark queries without pause. Reported: each addition's seconds until the new papers
are searchable by BM25 (the first swap) and until the index ranks exactly as a full build
(the second swap, where the papers taught a compound: ``bot.search.growth``), the searches'
p50/p99 during the additions (swaps included) and outside them, the swaps, and the
process's RSS after each addition (memory that should not grow beyond the papers' own).
Semantic part off, as ``bench/speed.py``. Each run adds its rows, marked with the commit,
to those of earlier runs in ``bench/results/growth.md``; run it pinned to one CPU
(``taskset -c 1 python bench/growth.py ...``) where other work shares the machine, and
compare the adding thread's CPU seconds.

    python bench/growth.py --sizes 10000,100000 --batches 5

``--memory`` measures instead whether memory grows beyond the papers' own: a 10,000-paper
index, as the served bot holds it (``gc.freeze`` once prepared), then 50 additions of 1,000
papers and 20 swaps of the whole index built again, the process's RSS after each; a leak
shows as RSS rising over the swaps, which add nothing. Its rows go to the file's second table.
"""

from __future__ import annotations

import argparse
import gc
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from quality import code_version
from speed import TOP_K, benchmark_queries, build_corpus, machine_description

from bot.search.engine import SearchIndex
from bot.search.library import Library

RESULTS_PATH = Path(__file__).resolve().parent / "results" / "growth.md"


def rss_mb() -> float:
    """The process's resident memory now (not its peak)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure(size: int, batch: int, batches: int) -> dict[str, object]:
    papers, real = build_corpus(size)
    base = len(papers) - batch * batches
    started = time.perf_counter()
    index = SearchIndex.build(papers[:base])
    index.prepare(embed=False)
    build_seconds = time.perf_counter() - started
    library = Library(index)
    swapped_at: list[tuple[float, float]] = []
    swap = library.swap

    def timed_swap(index: SearchIndex) -> None:
        swap(index)
        swapped_at.append((time.perf_counter(), time.thread_time()))

    library.swap = timed_swap  # type: ignore[method-assign]
    queries = benchmark_queries(real, 200)
    quiet: list[float] = []
    during: list[float] = []
    adding = threading.Event()
    stop = threading.Event()

    def search() -> None:
        at = 0
        while not stop.is_set():
            query = queries[at % len(queries)]
            at += 1
            begun = time.perf_counter_ns()
            with library.request():
                library.index.search(query, limit=TOP_K)
            (during if adding.is_set() else quiet).append((time.perf_counter_ns() - begun) / 1e6)

    searcher = threading.Thread(target=search, daemon=True)
    searcher.start()
    time.sleep(2.0)
    searchable, searchable_cpu, exact, rss = [], [], [], [rss_mb()]
    for number in range(batches):
        chunk = papers[base + number * batch : base + (number + 1) * batch]
        adding.set()
        begun, begun_cpu = time.perf_counter(), time.thread_time()
        swapped_at.clear()
        library.add(chunk)
        searchable.append(swapped_at[0][0] - begun)
        searchable_cpu.append(swapped_at[0][1] - begun_cpu)
        exact.append(swapped_at[-1][0] - begun)
        adding.clear()
        time.sleep(1.0)
        rss.append(rss_mb())
    stop.set()
    searcher.join()
    return {
        "size": size,
        "base": base,
        "build_seconds": build_seconds,
        "searchable": searchable,
        "searchable_cpu": searchable_cpu,
        "exact": exact,
        "swaps": library.swaps - 1,
        "quiet": np.percentile(quiet, [50, 99]).tolist() if quiet else [float("nan")] * 2,
        "during": np.percentile(during, [50, 99]).tolist() if during else [float("nan")] * 2,
        "searches_during": len(during),
        "rss": rss,
    }


def measure_memory(size: int, batch: int, batches: int, swaps: int) -> dict[str, object]:
    papers, _ = build_corpus(size + batch * batches)
    index = SearchIndex.build(papers[:size])
    index.prepare(embed=False)
    gc.freeze()  # as the served bot does once its first index is prepared
    library = Library(index)
    del index
    rss = [rss_mb()]
    for number in range(batches):
        library.add(papers[size + number * batch : size + (number + 1) * batch])
        rss.append(rss_mb())
    after_swaps = []
    for _ in range(swaps):
        rebuilt = SearchIndex.build(library.index.papers)
        rebuilt.prepare(embed=False)
        library.swap(rebuilt)
        del rebuilt
        after_swaps.append(rss_mb())
    return {"size": size, "batches": batches, "rss": rss, "after_swaps": after_swaps}


def _slope(samples: Sequence[float]) -> float:
    """MB per step over the last half of ``samples`` (least squares): what keeps growing."""
    half = list(samples[len(samples) // 2 :])
    return float(np.polyfit(np.arange(len(half)), half, 1)[0]) if len(half) > 1 else float("nan")


def memory_row(r: dict[str, object], batch: int, code: str) -> str:
    rss, swapped = r["rss"], r["after_swaps"]
    return (
        f"| {code} | {_pinning()} | {r['size']:,} | {r['batches']} of {batch:,} | "
        f"{rss[0]:.0f}, {rss[1]:.0f}, {rss[-1]:.0f} | "  # type: ignore[index]
        f"{_slope(rss):.2f} | {len(swapped)} | "  # type: ignore[arg-type]
        f"{swapped[0]:.0f}, {swapped[-1]:.0f} | {_slope(swapped):.2f} |"  # type: ignore[index, arg-type]
    )


MEMORY_HEAD = (
    "| code | CPUs | papers at first | additions | RSS before, after first, after last "
    "addition (MB) | MB per addition, last half | swaps | RSS after first, last swap (MB) "
    "| MB per swap, last half |"
)


def report(
    results: Sequence[dict[str, object]],
    batch: int,
    kept: Sequence[str],
    code: str,
    memory: Sequence[str] = (),
) -> str:
    """The results file: its header, the rows of earlier runs (``kept``), then these, of the
    commit ``code`` (read when the run began), then the memory table's rows (``memory``)."""
    lines = [
        "# Growth: adding papers to a live index",
        "",
        f"Measured by `bench/growth.py` on {machine_description(_pinning())} (earlier rows: "
        "as their CPUs column says).",
        f"Each addition is {batch:,} papers through `Library.add`; searches run throughout on "
        "another thread (semantic part off). CPU seconds are the adding thread's own, which "
        "other processes on the machine do not inflate.",
        "",
        TABLE_HEAD,
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        *kept,
        *(_addition_row(result, code) for result in results),
    ]
    if memory:
        lines += [
            "",
            "## Memory",
            "",
            "`--memory`: RSS after each addition to an index held as the served bot holds it "
            "(frozen heap), then after each swap of the whole index built again; the slopes "
            "are least-squares fits over the last half of each series (a leak: swaps' slope "
            "above zero).",
            "",
            MEMORY_HEAD,
            "|---|---|---|---|---|---|---|---|---|",
            *memory,
        ]
    return "\n".join(lines) + "\n"


def _addition_row(r: dict[str, object], code: str) -> str:
    searchable, exact, rss = r["searchable"], r["exact"], r["rss"]
    quiet, during = r["quiet"], r["during"]
    return (
        f"| {code} | {_pinning()} | {r['size']:,} | "
        f"{r['build_seconds']:.1f} | {len(searchable)} | "  # type: ignore[arg-type]
        f"{np.median(searchable):.1f}, {max(searchable):.1f} | "  # type: ignore[arg-type, type-var]
        f"{np.median(r['searchable_cpu']):.1f} | "  # type: ignore[arg-type]
        f"{np.median(exact):.1f}, {max(exact):.1f} | {r['swaps']} | "  # type: ignore[arg-type, type-var]
        f"{quiet[0]:.1f} / {quiet[1]:.1f} | {during[0]:.1f} / {during[1]:.1f} | "  # type: ignore[index]
        f"{r['searches_during']:,} | {rss[0]:.0f}, {rss[1]:.0f}, {rss[-1]:.0f} |"  # type: ignore[index]
    )


TABLE_HEAD = (
    "| code | CPUs | papers | build + prepare (s) | additions | until searchable (s): median, max "
    "| CPU until searchable (s): median | until exact (s): median, max | swaps "
    "| p50/p99 outside additions (ms) | p50/p99 during additions (ms) | searches during "
    "| RSS before, after first, after last (MB) |"
)


def earlier_rows(head: str = TABLE_HEAD) -> list[str]:
    """The rows of the results file's table under ``head`` as it is (earlier runs)."""
    if not RESULTS_PATH.exists():
        return []
    lines = RESULTS_PATH.read_text().splitlines()
    if head not in lines:
        return []
    rows: list[str] = []
    for row in lines[lines.index(head) + 2 :]:
        if not row.startswith("| "):
            break
        rows.append(row)
    return rows


def _pinning() -> str:
    cpus = sorted(os.sched_getaffinity(0))
    return f"pinned to CPU {cpus[0]}" if len(cpus) == 1 else "unpinned"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--memory", action="store_true", help="RSS over additions and swaps")
    parser.add_argument("--swaps", type=int, default=20)
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.sizes.split(",")]
    code = code_version().removeprefix("commit ")
    memory = earlier_rows(MEMORY_HEAD)
    if args.memory:
        for size in sizes:
            result = measure_memory(size, args.batch, args.batches, args.swaps)
            memory.append(memory_row(result, args.batch, code))
        results = []
    else:
        results = [measure(size, args.batch, args.batches) for size in sizes]
    RESULTS_PATH.write_text(report(results, args.batch, earlier_rows(), code, memory))
    print(RESULTS_PATH.read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
