"""Ingesting N papers from the loopback fakes, embedding included, on one core: the time,
the requests made and the peak memory, written to ``bench/results/ingest.md``.

    taskset -c 0 python bench/ingest.py 1000 10000

The papers come through arXiv's OAI-PMH fake (a first load: 1,000 records a page, as arXiv
serves them) into a fresh SQLite database, with the real model. arXiv's pace (one request
every 3 s) is kept on a stepped clock and reported, not slept: it is the same 3 s a page
whatever the machine, and would only hide the bot's own time.
"""

from __future__ import annotations

import ast
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "ingest.md"
os.environ.setdefault("OMP_NUM_THREADS", "1")


def one_run(count: int) -> dict[str, float]:
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    from feed_fakes import FeedFake, paper, running
    from feed_harness import SteppedClock, feed_settings

    from bot.feeds.ingest import Ingester
    from bot.search.semantic import shared_embedder
    from bot.store import Store

    clock = SteppedClock(datetime(2025, 1, 31, 6, 0, tzinfo=UTC))
    first = date(2025, 1, 1)
    with tempfile.TemporaryDirectory() as folder, running(FeedFake(clock=clock)) as fake:
        fake.papers = [
            paper(n, datestamp=first + timedelta(days=n % 30)) for n in range(1, count + 1)
        ]
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        store = Store(url, clock)
        settings = feed_settings(fake, "arxiv:cs.LG", url)
        embedder = shared_embedder()
        embedder.embed("warm up")
        ingester = Ingester(
            store, settings, lambda: embedder, owner="bench", clock=clock, sleep=clock.sleep
        )
        paced_from = clock()
        started = time.perf_counter()
        run = ingester.backfill(settings.feeds, first, first + timedelta(days=30))
        seconds = time.perf_counter() - started
        assert run.error is None and run.counts.new == count, run
        stored = len(store.papers_since(0)[0])
        store.close()
    return {
        "papers": count,
        "stored": stored,
        "seconds": seconds,
        "requests": run.requests,
        "pace_seconds": (clock() - paced_from).total_seconds(),
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main(counts: list[int]) -> None:
    rows = []
    for count in counts:
        # One process per size, so each peak is its own.
        result = subprocess.run(
            [sys.executable, __file__, "--one", str(count)],
            check=True,
            capture_output=True,
            text=True,
        )
        rows.append(ast.literal_eval(result.stdout.strip().splitlines()[-1]))
        print(rows[-1], flush=True)
    lines = [
        "# Ingesting papers from the fakes",
        "",
        f"`python bench/ingest.py {' '.join(map(str, counts))}` on {os.cpu_count()} cores "
        f"(pinned to one with `taskset -c 0`, `OMP_NUM_THREADS=1`), {datetime.now(UTC):%Y-%m-%d}.",
        "A first load through arXiv's OAI-PMH fake (1,000 records a page) into a fresh SQLite",
        "database, every paper embedded with the real model (a title and a text vector each).",
        "arXiv's pace (3 s a request) is reported, not slept; the wall time to expect is the",
        "bot's time plus the pace.",
        "",
        "| papers | requests | bot's time | per paper | arXiv's pace | peak memory |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        lines.append(
            f"| {row['papers']:,} | {row['requests']} | {row['seconds']:.1f} s | "
            f"{1000 * row['seconds'] / row['papers']:.1f} ms | {row['pace_seconds']:.0f} s | "
            f"{row['peak_mb']:.0f} MB |"
        )
    RESULTS.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"written to {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        print(repr(one_run(int(sys.argv[2]))))
    else:
        main([int(arg) for arg in sys.argv[1:]] or [1000, 10000])
