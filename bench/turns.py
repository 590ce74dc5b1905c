"""Benches whose ways of running take turns: each way in a fresh process, round after round,
so that the machine's drift falls on every way alike (``model_numerics.py``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from speed import ALL_CORES, last_json_line, run_pinned


def rounds_parser(doc: str, rounds: int, output: Path) -> argparse.ArgumentParser:
    """The options of a bench whose ways take turns: rounds, the report's path, its note."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--output", type=Path, default=output)
    parser.add_argument("--note", default="", help="a paragraph about the run for the report")
    return parser


def rounds_taking_turns(
    script: Path, ways: Mapping[str, Sequence[str]], rounds: int
) -> dict[str, list[dict[str, object]]]:
    """Each way's measurement, ``script --worker WAY *ways[WAY]``, in a fresh process on every
    core, round after round, the ways taking turns so that the machine's drift falls on each
    alike: every run's JSON line, by way."""
    runs: dict[str, list[dict[str, object]]] = {way: [] for way in ways}
    for round_number in range(rounds):
        for way, extra in ways.items():
            command = [sys.executable, str(script.resolve()), "--worker", way, *extra]
            _, output = run_pinned(command, ALL_CORES)
            runs[way].append(last_json_line(output))
            print(f"round {round_number + 1}: {way} done", file=sys.stderr)
    return runs
