"""The model's memory and opening (issue 33): its float32 weights widened in each process or
mapped from one file (``bot.search.model_weights``), and ONNX Runtime's options.

Each variant runs in fresh processes pinned to CPU 0 (``python bench/model_memory.py
--worker``), each opening the model as the bot does (``Embedder``, then its lone-query session,
which a bot on two cores opens after start-up), then embedding every query of the blind
catalogue set and ``PAPERS`` seed papers (title and abstract, up to 256 tokens) one at a
time, as the bot embeds a paper, three rounds, on the one-thread session every run but a
lone one takes. For each variant:

- **opening**: the CPU and wall seconds of ``Embedder(...)`` and of its second session, in the
  first process (the weights file already written, except for the "first start" row);
- **memory**: ``/proc/PID/smaps_rollup`` of one process alone, then of two at once: PSS, and
  its split into ``Pss_Anon`` (pages the process holds alone: the heap, widened weights,
  ONNX Runtime's packed matrices and arena) and ``Pss_File`` (file pages, split among the
  processes mapping them: the libraries, a mapped weights file); and the model's own
  ``Pss_Anon``, what it grew by from just before the model was opened to the end;
- **speed**: p50 of a query's run and of a paper's, from the last two rounds;
- **vectors**: whether every vector is bit for bit the vector of today's widening in memory.

Then, the opening alone, in one more process pinned to CPU 0 (``--opening``): the model opened
``OPENINGS`` times each way, alternately (the libraries loaded and the file in the page cache,
as for every process after the first on a host), with the median CPU and wall seconds of
``Embedder(...)`` each way.

The variants differ only in where the weights are and in two of ONNX Runtime's session
options, set here by wrapping ``InferenceSession``: ``session.disable_prepacking`` (the
matrices are not packed for the products ahead of time; each product reads them as they are)
and ``enable_cpu_mem_arena`` off (each run's buffers from the allocator, not a kept arena).

    python bench/model_memory.py
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's bot

from quality import CATALOGUE_SET, code_version, load_queries
from speed import ONE_CORE, PROJECT_ROOT, machine_description, run_pinned, table

from bot.papers.corpus import load_corpus

RESULTS_PATH = Path(__file__).resolve().parent / "results" / "model_memory.md"
ROUNDS = 3
OPENINGS = 7
QUERIES = 100
PAPERS = 20
# variant: (weights mapped from a file, prepacking on, arena on)
VARIANTS = {
    "in memory (before)": (False, True, True),
    "mapped, first start (writes the file)": (True, True, True),
    "mapped": (True, True, True),
    "mapped, no prepacking": (True, False, True),
    "mapped, no arena": (True, True, False),
}


def smaps(pid: int) -> dict[str, float]:
    """The MB of each line of a process's ``smaps_rollup``."""
    values = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, amount, *_ = line.split()
        values[name.rstrip(":")] = int(amount) / 1024
    return values


def run_worker(home: str, prepacking: bool, arena: bool) -> int:
    """One process: open the model, say what it cost, embed, say how fast and which vectors,
    then wait for its input to close so that its memory can be read."""
    import onnxruntime

    from bot.search import embedding

    session = onnxruntime.InferenceSession

    def with_options(graph: bytes, options: Any, **kwargs: Any) -> Any:
        if not prepacking:
            options.add_session_config_entry("session.disable_prepacking", "1")
        options.enable_cpu_mem_arena = arena
        return session(graph, options, **kwargs)

    onnxruntime.InferenceSession = with_options  # type: ignore[misc]
    embedding._cores = lambda: 2  # open the lone session as a bot on two cores does
    queries = [q.query for q in load_queries(CATALOGUE_SET.path, CATALOGUE_SET.kinds)][:QUERIES]
    papers = load_corpus("seeds").papers[:PAPERS]
    texts = [f"{paper.title}. {paper.plain_abstract}" for paper in papers]

    def say(**values: object) -> None:
        print(json.dumps(values), flush=True)

    before = smaps(os.getpid())["Pss_Anon"]
    cpu, wall = time.process_time(), time.perf_counter()
    embedder = embedding.Embedder(weights_home=Path(home) if home else None)
    opened_cpu, opened_wall = time.process_time() - cpu, time.perf_counter() - wall
    cpu, wall = time.process_time(), time.perf_counter()
    embedder.open_lone_session()
    say(
        open_cpu=opened_cpu,
        open_wall=opened_wall,
        lone_cpu=time.process_time() - cpu,
        lone_wall=time.perf_counter() - wall,
    )
    query_tokens = [embedder.tokens(query) for query in queries]
    paper_tokens = [embedder.tokens(text) for text in texts]
    query_ms: list[float] = []
    paper_ms: list[float] = []
    digest = hashlib.sha256()
    for round_number in range(ROUNDS):
        for texts_tokens, times in ((query_tokens, query_ms), (paper_tokens, paper_ms)):
            for ids in texts_tokens:
                began = time.perf_counter_ns()
                vector = embedder.embed_tokens([ids])
                if round_number:
                    times.append((time.perf_counter_ns() - began) / 1e6)
                else:
                    digest.update(vector.tobytes())
    say(
        query_p50=statistics.median(query_ms),
        paper_p50=statistics.median(paper_ms),
        vectors=digest.hexdigest(),
        model_anon=smaps(os.getpid())["Pss_Anon"] - before,
    )
    sys.stdin.read()
    return 0


def run_openings(home: str) -> int:
    """Open the model ``OPENINGS`` times each way, alternately; say the medians."""
    from bot.search.embedding import Embedder

    costs: dict[str, list[tuple[float, float]]] = {"memory": [], "mapped": []}
    Embedder(weights_home=Path(home))  # the file written, the libraries loaded
    for _ in range(OPENINGS):
        for way, weights_home in (("memory", None), ("mapped", Path(home))):
            cpu, wall = time.process_time(), time.perf_counter()
            Embedder(weights_home=weights_home)
            costs[way].append((time.process_time() - cpu, time.perf_counter() - wall))
    medians = {
        way: [statistics.median(pair[i] for pair in pairs) for i in (0, 1)]
        for way, pairs in costs.items()
    }
    print(json.dumps(medians), flush=True)
    return 0


class Worker:
    def __init__(self, home: Path | None, prepacking: bool, arena: bool) -> None:
        command = [sys.executable, str(Path(__file__).resolve()), "--worker", str(home or "")]
        command += [str(int(prepacking)), str(int(arena))]
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            command,
            cwd=PROJECT_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: os.sched_setaffinity(0, ONE_CORE),
        )

    def line(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        text = self.process.stdout.readline()
        if not text:
            raise RuntimeError(f"worker exited with {self.process.wait()}")
        return json.loads(text)

    def stop(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


def measure(variant: str, scratch: Path) -> dict[str, Any]:
    mapped, prepacking, arena = VARIANTS[variant]
    home = scratch if mapped else None  # the first mapped variant writes the file there
    first = Worker(home, prepacking, arena)
    opened = first.line()
    served = first.line()
    alone = smaps(first.process.pid)
    second = Worker(home, prepacking, arena)
    second.line()
    second.line()
    pair = [smaps(first.process.pid), smaps(second.process.pid)]
    first.stop()
    second.stop()
    together = {name: pair[0][name] + pair[1][name] for name in ("Pss", "Pss_Anon", "Pss_File")}
    return {"variant": variant, **opened, **served, "alone": alone, "together": together}


def cells(r: dict[str, Any], reference: str) -> list[str]:
    alone, together = r["alone"], r["together"]
    return [
        r["variant"],
        f"{r['open_cpu']:.2f} s CPU, {r['open_wall']:.2f} s",
        f"{r['lone_cpu']:.2f} s CPU, {r['lone_wall']:.2f} s",
        f"{alone['Pss']:.0f} ({alone['Pss_Anon']:.0f} + {alone['Pss_File']:.0f})",
        f"{together['Pss']:.0f} ({together['Pss_Anon']:.0f} + {together['Pss_File']:.0f})",
        f"{together['Pss'] / alone['Pss']:.2f}",
        f"{r['model_anon']:.0f}",
        f"{r['query_p50']:.2f}",
        f"{r['paper_p50']:.1f}",
        "yes" if r["vectors"] == reference else "**no**",
    ]


HEADER = (
    "weights, ONNX Runtime",
    "opening the model",
    "its second session",
    "PSS, one process (anon + file), MB",
    "PSS, two processes, MB",
    "two / one",
    "the model's own anon MB",
    "query p50 ms",
    "paper p50 ms",
    "vectors as before, bit for bit",
)


def report(results: Sequence[dict[str, Any]], openings: dict[str, list[float]]) -> str:
    reference = results[0]["vectors"]
    (memory_cpu, memory_wall), (mapped_cpu, mapped_wall) = openings["memory"], openings["mapped"]
    return "\n".join(
        [
            "# The model's memory: weights widened in each process or mapped from one file",
            "",
            "`python bench/model_memory.py` (see its docstring for the method): each process "
            "pinned to CPU 0, the model alone (no index).",
            "",
            f"Machine: {machine_description()}. Measured at {code_version()}.",
            "",
            *table(HEADER, [cells(r, reference) for r in results]),
            "",
            f"Opening the model, median of {OPENINGS} each way, alternately in one process: "
            f"weights widened in memory {memory_cpu:.2f} s CPU ({memory_wall:.2f} s), mapped "
            f"from the file {mapped_cpu:.2f} s CPU ({mapped_wall:.2f} s).",
            "",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", nargs=3, metavar=("HOME", "PREPACKING", "ARENA"))
    parser.add_argument("--opening", metavar="HOME")
    args = parser.parse_args(argv)
    if args.opening:
        return run_openings(args.opening)
    if args.worker:
        home, prepacking, arena = args.worker
        return run_worker(home, prepacking == "1", arena == "1")
    with tempfile.TemporaryDirectory() as scratch:
        results = [measure(variant, Path(scratch)) for variant in VARIANTS]
        _, opening = run_pinned([sys.executable, __file__, "--opening", scratch])
    text = report(results, json.loads(opening))
    RESULTS_PATH.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
