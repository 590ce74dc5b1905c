"""``bench/results/quality.md``: the quality bench's measurements as Markdown.

It reads what ``quality.py`` measured and writes no figure of its own, so the tables and the
verdict cannot disagree with the run. It names what it reads as protocols rather than
importing ``quality``'s classes, so ``quality`` imports it and nothing imports back.
"""

from __future__ import annotations

import platform
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from ranking_metrics import METRICS
from semantic_gain import BlindSet, RecordedGain, gain_section
from topic_share import BareShare, corpus_line, share_table

from bot.papers.paper import Paper

ROOT = Path(__file__).resolve().parent.parent

Summary = dict[str, dict[str, float]]  # kind (or "overall") → metric → mean


class QuerySet(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def path(self) -> Path: ...
    @property
    def corpus(self) -> str: ...


class System(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def about(self) -> str: ...


class SetRun(Protocol):
    """Every system's outcomes on one labelled set."""

    @property
    def query_set(self) -> QuerySet: ...
    @property
    def papers(self) -> Sequence[Paper]: ...
    @property
    def queries(self) -> Sequence[object]: ...
    @property
    def results(self) -> dict[str, Summary]: ...
    @property
    def counts(self) -> dict[str, int]: ...


class TopicRun(Protocol):
    @property
    def query_set(self) -> QuerySet: ...
    @property
    def papers(self) -> Sequence[Paper]: ...
    @property
    def shares(self) -> dict[str, BareShare]: ...


class Measured(Protocol):
    @property
    def runs(self) -> Sequence[SetRun]: ...
    @property
    def topics(self) -> Sequence[TopicRun]: ...
    @property
    def missing(self) -> Sequence[QuerySet]: ...
    @property
    def blind(self) -> Sequence[BlindSet]: ...


def markdown_table(results: dict[str, Summary], metric: str, counts: dict[str, int]) -> str:
    """One metric: a row per system, a column per kind and overall."""
    columns = list(counts)
    header = "| system | " + " | ".join(f"{kind} ({counts[kind]})" for kind in columns) + " |"
    lines = [header, "|---|" + "---:|" * len(columns)]
    best = {kind: max(summary[kind][metric] for summary in results.values()) for kind in columns}
    for name, summary in results.items():
        cells = [
            f"**{summary[kind][metric]:.3f}**"
            if summary[kind][metric] >= best[kind] - 1e-12
            else f"{summary[kind][metric]:.3f}"
            for kind in columns
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def heading(query_set: QuerySet) -> str:
    path = query_set.path
    return f"## {query_set.name}: `{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}`"


def topic_section(run: TopicRun) -> list[str]:
    query_set = run.query_set
    queries = next(iter(run.shares.values())).queries
    return [
        heading(query_set),
        "",
        f"{queries} topic queries over the `{query_set.corpus}` corpus, with no labelled answer:"
        " the share of each system's top-5 hits that have no abstract (a card without a"
        f" summary). {corpus_line(run.papers)}",
        "",
        share_table(run.shares),
        "",
    ]


def report(
    measured: Measured,
    chosen: Sequence[System],
    failures: Sequence[str],
    version: str,
    before: RecordedGain,
) -> str:
    verdict = (
        "Every target is met."
        if not failures
        else "Targets missed:\n\n" + "\n".join(f"- {failure}" for failure in failures)
    )
    lines = [
        "# Search quality",
        "",
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC with Python"
        f" {platform.python_version()} by `python bench/quality.py` ({version}),"
        " binary relevance, every system in the same run. The best value of each column is"
        " in bold.",
        "",
        "Systems:",
        "",
        *(f"- *{system.name}*: {system.about}." for system in chosen),
        "",
    ]
    for run in measured.runs:
        query_set = run.query_set
        lines += [
            heading(query_set),
            "",
            f"{len(run.queries)} queries over the `{query_set.corpus}` corpus"
            f" ({len(run.papers):,} papers); columns are kinds, with their number of queries.",
            "",
        ]
        for metric in METRICS:
            lines += [f"### {metric}", "", markdown_table(run.results, metric, run.counts), ""]
    lines += gain_section(measured.blind, before)
    for topics in measured.topics:
        lines += topic_section(topics)
    if measured.missing:
        lines += [
            "## Not measured",
            "",
            *(
                f"- {query_set.name}: `{query_set.path.name}` does not exist yet."
                for query_set in measured.missing
            ),
            "",
        ]
    lines += ["## Verdict", "", verdict, ""]
    return "\n".join(lines)
