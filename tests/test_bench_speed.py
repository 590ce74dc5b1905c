"""``bench/speed_report.py``'s verdicts on issue 33's table: which figure each target reads
(the search table's p50 and worst p99, the served process's start and memory, a second served
process's PSS, speed_start's bare process as an extra row) and what a size that lacks one says.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from project import bench_script


@pytest.fixture(scope="module")
def report() -> ModuleType:
    return bench_script("speed_report")


def _opened(papers: int, **changes: float) -> dict[str, Any]:
    """``speed_opened.measure``'s figures for one size."""
    figures = {
        "papers": papers,
        "first_s": 14.0,
        "first_cpu_s": 9.1,
        "second_first_s": 12.8,
        "prepare_s": 7.1,
        "bm25_p50_ms": 3.9,
        "bm25_p99_ms": 51.3,
        "bm25_max_ms": 80.0,
        "model_p50_ms": 45.4,
        "model_p99_ms": 151.3,
        "model_max_ms": 200.0,
        "questions_bm25_p50_ms": 6.0,
        "questions_bm25_p99_ms": 60.0,
        "questions_bm25_max_ms": 70.0,
        "questions_model_p50_ms": 19.5,
        "questions_model_p99_ms": 130.0,
        "questions_model_max_ms": 140.0,
        "alone_rss_mb": 3513.0,
        "peak_rss_mb": 3600.0,
        "alone_pss_mb": 3498.0,
        "together_pss_mb": 4668.0,
        "snapshot_mb": 4543.0,
    }
    return {**figures, **changes}


def _verdicts(targets: list) -> list[tuple[str, str, bool]]:
    return [(target.what, target.measured, target.met) for target in targets]


def test_a_million_opened_reads_every_target_from_the_served_process(report: ModuleType) -> None:
    served = _opened(1_000_000)
    engine = {1_000_000: report.opened_row(served)}
    bars = {1_000_000: report.ISSUE_BARS[1_000_000]}
    targets = report.issue_targets(
        bars, engine, {1_000_000: (250.0, 20.0)}, {1_000_000: served}, {}
    )
    assert _verdicts(targets) == [
        (
            "start → first answer from a snapshot at 1,000,000 (the model on)",
            "14.0 s (9.1 s CPU)",
            True,
        ),
        ("p50 at 1,000,000 (BM25 alone)", "3.90 ms", True),
        ("p99 (the worst run's) at 1,000,000", "51.30 ms", True),
        (
            "host memory, one process at 1,000,000 (RSS; the model on, vectors included)",
            "3.43 GB",
            True,
        ),
        (
            "a second process on the same host at 1,000,000 (sum of PSS; both serving: the model"
            " on, vectors, prepared)",
            "+33.4% (3,498 → 4,668 MB)",
            False,
        ),
        (
            "the semantic re-ranking at 1,000,000: question queries' p50 over BM25 alone"
            " (`bench/semantic.py`'s 12-25-word questions, each alone on both cores)",
            "+13.5 ms",
            True,
        ),
        (
            "the semantic re-ranking at 1,000,000: question queries' p99 over BM25 alone"
            " (`bench/semantic.py`'s 12-25-word questions, each alone on both cores)",
            "+70.0 ms",
            False,
        ),
    ]


def test_at_100000_the_search_table_gives_p50_and_the_bare_process_is_an_extra_row(
    report: ModuleType,
) -> None:
    from speed_start import SnapshotStart

    built = {"size": 100_000, "engine": "engine", "p50_ms": 0.68, "p99_runs": [4.13, 3.0, 3.2]}
    bare = SnapshotStart(100_000, 31.6, 0.64, 0.54, one_pss_mb=80, two_pss_mb=130, rss_mb=91)
    bars = {100_000: report.ISSUE_BARS[100_000]}
    served = _opened(100_000, first_s=1.2, alone_rss_mb=738, alone_pss_mb=700, together_pss_mb=861)
    targets = report.issue_targets(
        bars, {100_000: built}, {100_000: (145.0, 111.0)}, {100_000: served}, {100_000: bare}
    )
    what = [target.what.split(" at ")[0] for target in targets]
    assert what == [
        "start → first answer from a snapshot",
        "p50",
        "p50 speed-up over get_scores",
        "p99 (the worst run's)",
        "host memory, one process",
        "a second process on the same host",
        "extra: a bare second process",
    ]
    assert [target.met for target in targets] == [True, True, False, True, True, True, False]
    assert targets[3].measured == "4.13 ms"  # the worst run's
    assert targets[-1].measured == "+62.5% (80 → 130 MB)"


def test_a_size_without_its_served_process_or_ratio_says_not_measured(report: ModuleType) -> None:
    built = {"size": 100_000, "engine": "engine", "p50_ms": 0.5, "p99_runs": [4.0]}
    targets = report.issue_targets(
        {100_000: report.ISSUE_BARS[100_000]}, {100_000: built}, {}, {}, {}
    )
    missing = [(t.what.split(" at ")[0], t.measured, t.met) for t in targets if not t.met]
    assert missing == [
        ("start → first answer from a snapshot", "not measured", False),
        ("p50 speed-up over get_scores", "not measured", False),
        ("host memory, one process", "not measured", False),
    ]
    assert report.issue_targets({5: report.ISSUE_BARS[100_000]}, {}, {}, {}, {}) == []


def test_issue_3s_bar_is_judged_at_100000_built_never_at_a_larger_opened_size(
    report: ModuleType,
) -> None:
    def built(size: int, p50: float) -> dict[str, Any]:
        return {
            "size": size,
            "engine": "engine",
            "p50_ms": p50,
            "p99_ms": 5.0,
            "p99_runs": [5.0],
            "build_seconds": 16.0,
            "peak_rss_mb": 860.0,
        }

    results = [
        built(100_000, 0.68),
        built(250_000, 2.5),
        report.opened_row(_opened(1_000_000)),
        {"size": 100_000, "engine": "get_scores", "p50_ms": 98.6, "p99_ms": 360.0},
    ]
    targets = report.bar_targets(results, [], None)
    assert [t.what for t in targets] == [
        "p50 at 100,000",
        "p99 (the worst run's) at 100,000",
        "build at 100,000",
        "peak RSS at 100,000",
        "p50 speed-up over get_scores at 100,000",
    ]
    assert targets[-1].measured == "145x"
    assert report.bar_targets(results[1:3], [], None)[0].what == "p50 at 250,000"
