"""Start-up from a saved index, and what a second process on the host adds (issue 33's table).

``bench/speed.py`` runs these for each corpus size it measures from 100,000 papers up. The
corpus is written as a ``.jsonl`` file in the catalogue's format, and each process below is a
fresh interpreter pinned to one core that asks ``bot.search.snapshot.saved_index`` for the
index of that file with the semantic part off:

1. the first process finds no snapshot, builds the index and saves it (its wall time is
   reported as the build and save);
2. a second one opens that snapshot and answers one query: *start → first answer* is its
   wall time from the process's start to the answer;
3. two more open it, one after the other, and stay up: the memory a second process adds is
   the sum of their proportional set sizes (PSS, ``/proc/PID/smaps_rollup``, pages two
   processes share counted half to each) against the first one's PSS while it was alone.

Where ``bot.search.snapshot`` is not there (a commit before the saved index), nothing is
measured and the targets say so.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

SNAPSHOT_SCRIPT = """
import json, resource, sys, time
started = time.perf_counter()
from pathlib import Path
from bot.search.snapshot import saved_index
index, _ = saved_index(sys.argv[1], Path(sys.argv[2]), semantic=False)
opened = time.perf_counter()
index.search(sys.argv[3], limit=10)
answered = time.perf_counter()
print(json.dumps({
    "papers": len(index.papers),
    "open_seconds": opened - started,
    "first_answer_seconds": answered - started,
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}), flush=True)
if sys.argv[4:] == ["stay"]:
    sys.stdin.readline()
"""


def snapshots_available(root: Path) -> bool:
    """Whether the code measured (the checkout at ``root``) has the saved index."""
    return (root / "bot" / "search" / "snapshot.py").is_file()


@dataclass(frozen=True)
class SnapshotStart:
    """One corpus's start-up from its snapshot and the second process's memory."""

    papers: int
    build_and_save_seconds: float
    start_seconds: float  # process start to the first answer, opened from the snapshot
    open_seconds: float  # of which opening the index (imports included)
    one_pss_mb: float  # the first serving process's PSS while alone
    two_pss_mb: float  # both processes' PSS together
    rss_mb: float  # the first serving process's resident memory

    @property
    def second_share(self) -> float:
        """What the second process adds, as a share of one process's memory."""
        return self.two_pss_mb / self.one_pss_mb - 1


def measure_snapshot_start(
    corpus: Path,
    query: str,
    run: Callable[[list[str]], tuple[float, str]],
    cwd: Path,
    cores: frozenset[int],
) -> SnapshotStart:
    """Build and save, then open, then two processes side by side (see the module): ``run``
    runs a command as the bench runs its measurements, in ``cwd`` on ``cores``."""
    root = corpus.parent / f"snapshots-{corpus.stem}"
    command = [sys.executable, "-c", SNAPSHOT_SCRIPT, str(corpus), str(root), query]
    build_seconds, _ = run(command)
    start_seconds, output = run(command)
    opened = json.loads(output.strip().splitlines()[-1])
    first = _Serving(command, cwd, cores)
    try:
        one_pss = first.pss_mb()
        rss = first.rss_mb()
        second = _Serving(command, cwd, cores)
        try:
            two_pss = first.pss_mb() + second.pss_mb()
        finally:
            second.stop()
    finally:
        first.stop()
    return SnapshotStart(
        int(opened["papers"]),
        build_seconds,
        start_seconds,
        float(opened["open_seconds"]),
        one_pss,
        two_pss,
        rss,
    )


class _Serving:
    """A process that opened the snapshot, answered, and stays up until stopped."""

    def __init__(self, command: list[str], cwd: Path, cores: frozenset[int]) -> None:
        self._process = subprocess.Popen(
            [*command, "stay"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=cwd,
            preexec_fn=functools.partial(os.sched_setaffinity, 0, cores),
        )
        assert self._process.stdout is not None
        if not self._process.stdout.readline():
            self.stop()
            raise RuntimeError("a serving process exited before answering")

    def _status(self, name: str, field: str) -> float:
        for line in Path(f"/proc/{self._process.pid}/{name}").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
        raise RuntimeError(f"no {field} in /proc/PID/{name}")

    def pss_mb(self) -> float:
        return self._status("smaps_rollup", "Pss")

    def rss_mb(self) -> float:
        return self._status("status", "VmRSS")

    def stop(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.write("\n")
            self._process.stdin.close()
        self._process.wait(timeout=60)
