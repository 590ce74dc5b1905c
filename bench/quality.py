"""Search quality benchmark: the project's engine against plain BM25 on hand-labelled queries.

Run from the repository root: ``python bench/quality.py [--verbose]``.

The queries in ``bench/queries.jsonl`` were written from the seed abstracts before the engine
was tuned, so the scores say how well the engine finds what a researcher means rather than how
well it was fitted to its own test. The baseline is what one gets with no analyzer at all:
rank-bm25's BM25Okapi over lowercased whitespace tokens. The script exits non-zero when the
engine misses the issue's quality bar, so it can gate changes to the analyzer.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from rank_bm25 import BM25Okapi

from bot.papers.corpus import load_corpus
from bot.papers.paper import Paper
from bot.search.engine import SearchIndex

BENCH_DIR = Path(__file__).resolve().parent
QUERIES_PATH = BENCH_DIR / "queries.jsonl"
RESULTS_PATH = BENCH_DIR / "results" / "quality.md"

KINDS = ("keyword", "question", "acronym", "broad", "inflected", "hyphenated", "typo")
CUTOFF = 10
RECALL_CUTOFF = 5
MIN_OVERALL_MRR = 0.95
METRICS = ("MRR@10", "Recall@5", "nDCG@10")
QUERY_FIELDS = {"query", "kind", "relevant", "note"}

Ranker = Callable[[str], list[Paper]]


@dataclass(frozen=True)
class BenchQuery:
    """One labelled query: what was typed, its kind, and the ids of every relevant seed paper."""

    query: str
    kind: str
    relevant: frozenset[str]
    note: str | None


def load_queries(path: Path = QUERIES_PATH) -> list[BenchQuery]:
    """Parse the query file strictly, so a malformed label fails loudly instead of scoring 0."""
    queries = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        record = json.loads(line)
        where = f"{path.name}:{number}"
        if not isinstance(record, dict) or not {"query", "kind", "relevant"} <= record.keys():
            raise ValueError(f"{where}: needs query, kind and relevant")
        if extra := record.keys() - QUERY_FIELDS:
            raise ValueError(f"{where}: unknown fields {sorted(extra)}")
        query, kind, relevant = record["query"], record["kind"], record["relevant"]
        note = record.get("note")
        if not isinstance(query, str) or not query.strip():
            raise ValueError(f"{where}: query must be a non-empty string")
        if kind not in KINDS:
            raise ValueError(f"{where}: kind {kind!r} is not one of {KINDS}")
        if (
            not isinstance(relevant, list)
            or not relevant
            or not all(isinstance(paper_id, str) and paper_id for paper_id in relevant)
            or len(set(relevant)) != len(relevant)
        ):
            raise ValueError(f"{where}: relevant must be a non-empty list of distinct ids")
        if note is not None and not isinstance(note, str):
            raise ValueError(f"{where}: note must be a string")
        queries.append(BenchQuery(query, kind, frozenset(relevant), note))
    return queries


def label_id(paper: Paper) -> str:
    """The id the labels use: seed papers are labelled with their OpenReview ids."""
    return paper.openreview_id or paper.id


def reciprocal_rank(ranked: Sequence[str], relevant: frozenset[str]) -> float:
    for rank, paper_id in enumerate(ranked[:CUTOFF], start=1):
        if paper_id in relevant:
            return 1.0 / rank
    return 0.0


def recall(ranked: Sequence[str], relevant: frozenset[str]) -> float:
    return len(relevant.intersection(ranked[:RECALL_CUTOFF])) / len(relevant)


def ndcg(ranked: Sequence[str], relevant: frozenset[str]) -> float:
    """Binary-relevance nDCG: every labelled paper counts the same, wherever it was found."""
    gain = sum(
        1.0 / math.log2(rank + 1)
        for rank, paper_id in enumerate(ranked[:CUTOFF], start=1)
        if paper_id in relevant
    )
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(relevant), CUTOFF) + 1))
    return gain / ideal


def query_scores(ranked: Sequence[str], relevant: frozenset[str]) -> dict[str, float]:
    return {
        "MRR@10": reciprocal_rank(ranked, relevant),
        "Recall@5": recall(ranked, relevant),
        "nDCG@10": ndcg(ranked, relevant),
    }


def engine_ranker(papers: Sequence[Paper]) -> Ranker:
    index = SearchIndex.build(papers)

    def rank(query: str) -> list[Paper]:
        return [hit.paper for hit in index.search(query, limit=CUTOFF).hits]

    return rank


def plain_tokens(text: str) -> list[str]:
    return text.lower().split()


def baseline_ranker(papers: Sequence[Paper]) -> Ranker:
    """BM25Okapi with no analysis: what a researcher would get from rank-bm25 out of the box.

    Papers that share no token with the query are left out, as any search engine would, and
    ties go to the lower paper id so the ranking is deterministic.
    """
    documents = [
        plain_tokens(" ".join([paper.title, paper.abstract or "", *paper.authors]))
        for paper in papers
    ]
    vocabularies = [set(tokens) for tokens in documents]
    bm25 = BM25Okapi(documents)

    def rank(query: str) -> list[Paper]:
        tokens = plain_tokens(query)
        if not tokens:
            return []
        scores = bm25.get_scores(tokens)
        matching = [i for i, vocabulary in enumerate(vocabularies) if vocabulary & set(tokens)]
        matching.sort(key=lambda i: (-scores[i], papers[i].id))
        return [papers[i] for i in matching[:CUTOFF]]

    return rank


@dataclass(frozen=True)
class QueryOutcome:
    query: BenchQuery
    ranked: tuple[Paper, ...]
    scores: dict[str, float]


def evaluate(ranker: Ranker, queries: Sequence[BenchQuery]) -> list[QueryOutcome]:
    outcomes = []
    for query in queries:
        ranked = tuple(ranker(query.query))
        scores = query_scores([label_id(paper) for paper in ranked], query.relevant)
        outcomes.append(QueryOutcome(query, ranked, scores))
    return outcomes


def mean_scores(outcomes: Sequence[QueryOutcome]) -> dict[str, float]:
    return {
        metric: sum(outcome.scores[metric] for outcome in outcomes) / len(outcomes)
        for metric in METRICS
    }


Summary = dict[str, dict[str, float]]


def summarise(outcomes: Sequence[QueryOutcome]) -> Summary:
    """Mean of every metric per kind and over all queries (key ``overall``)."""
    summary = {
        kind: mean_scores([outcome for outcome in outcomes if outcome.query.kind == kind])
        for kind in KINDS
        if any(outcome.query.kind == kind for outcome in outcomes)
    }
    summary["overall"] = mean_scores(outcomes)
    return summary


def gate_failures(engine: Summary, baseline: Summary) -> list[str]:
    """Why the engine misses the issue's quality bar; empty when it meets it.

    "At least as good on every kind" is checked on every metric, so a gain in MRR cannot
    hide a loss in recall; "better overall" means no overall metric worse and MRR@10 higher.
    """
    failures = []
    for kind, scores in engine.items():
        for metric in METRICS:
            if scores[metric] < baseline[kind][metric] - 1e-12:
                failures.append(
                    f"{kind}: engine {metric} {scores[metric]:.3f}"
                    f" < baseline {baseline[kind][metric]:.3f}"
                )
    if engine["overall"]["MRR@10"] <= baseline["overall"]["MRR@10"]:
        failures.append("overall: engine MRR@10 is not better than the baseline's")
    if engine["overall"]["MRR@10"] < MIN_OVERALL_MRR:
        failures.append(
            f"overall: engine MRR@10 {engine['overall']['MRR@10']:.3f} < {MIN_OVERALL_MRR}"
        )
    return failures


def markdown_table(engine: Summary, baseline: Summary, counts: dict[str, int]) -> str:
    header = "| kind | queries | " + " | ".join(
        f"{metric} engine | {metric} plain BM25" for metric in METRICS
    )
    lines = [header + " |", "|" + "---|" * (2 + 2 * len(METRICS))]
    for kind in engine:
        cells = [kind if kind != "overall" else "**overall**", str(counts[kind])]
        for metric in METRICS:
            cells += [f"{engine[kind][metric]:.3f}", f"{baseline[kind][metric]:.3f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def first_relevant_rank(outcome: QueryOutcome) -> int | None:
    for rank, paper in enumerate(outcome.ranked, start=1):
        if label_id(paper) in outcome.query.relevant:
            return rank
    return None


def describe_misses(
    engine: Sequence[QueryOutcome], baseline: Sequence[QueryOutcome], papers: Sequence[Paper]
) -> str:
    """Every query the engine does not answer perfectly, with what it showed instead.

    Perfect means the first hit is relevant and the top 5 hold as many relevant papers as
    they can (a broad topic with 9 relevant papers cannot have Recall@5 above 5/9).
    """
    titles = {label_id(paper): paper.title for paper in papers}
    lines = []
    for mine, plain in zip(engine, baseline, strict=True):
        best_recall = min(len(mine.query.relevant), RECALL_CUTOFF) / len(mine.query.relevant)
        if mine.scores["MRR@10"] == 1.0 and mine.scores["Recall@5"] >= best_recall:
            continue
        query = mine.query
        lines.append(
            f"- [{query.kind}] {query.query!r}: first relevant at engine rank"
            f" {first_relevant_rank(mine) or '-'} (plain BM25 {first_relevant_rank(plain) or '-'}),"
            f" Recall@5 {mine.scores['Recall@5']:.2f}"
        )
        shown = {label_id(paper) for paper in mine.ranked[:RECALL_CUTOFF]}
        for paper in mine.ranked[:3]:
            mark = "relevant" if label_id(paper) in query.relevant else "not relevant"
            lines.append(f"    shown: {paper.title} ({mark})")
        for paper_id in sorted(query.relevant - shown):
            lines.append(f"    missed in top {RECALL_CUTOFF}: {titles.get(paper_id, paper_id)}")
    return "\n".join(lines) if lines else "(none)"


def code_version() -> str:
    """Which code was measured: the commit, and whether ``bot/`` had uncommitted changes."""

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=BENCH_DIR, capture_output=True, text=True, check=False
        )
        return done.stdout.strip()

    commit = git("rev-parse", "--short", "HEAD") or "unknown commit"
    dirty = git("status", "--porcelain", "--", "../bot")
    return f"commit {commit}" + (" with uncommitted changes in bot/" if dirty else "")


def report(
    engine: Summary, baseline: Summary, counts: dict[str, int], failures: Sequence[str]
) -> str:
    verdict = (
        "The engine meets the quality bar."
        if not failures
        else "The engine misses the quality bar:\n\n" + "\n".join(f"- {f}" for f in failures)
    )
    return "\n".join(
        [
            "# Search quality on the seed corpus",
            "",
            f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC with Python"
            f" {platform.python_version()} by `python bench/quality.py` ({code_version()}):"
            f" {counts['overall']} queries from `bench/queries.jsonl`, binary relevance."
            " *Engine* is `bot.search.engine.SearchIndex`; *plain BM25* is rank-bm25's"
            " BM25Okapi over"
            " lowercased whitespace tokens of title, abstract and authors.",
            "",
            markdown_table(engine, baseline, counts),
            "",
            verdict,
            "",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--verbose", action="store_true", help="list every query the engine misses")
    parser.add_argument("--queries", type=Path, default=QUERIES_PATH)
    parser.add_argument("--output", type=Path, default=RESULTS_PATH)
    args = parser.parse_args(argv)

    queries = load_queries(args.queries)
    papers = load_corpus("seeds").papers
    engine_outcomes = evaluate(engine_ranker(papers), queries)
    baseline_outcomes = evaluate(baseline_ranker(papers), queries)

    engine, baseline = summarise(engine_outcomes), summarise(baseline_outcomes)
    counts = {kind: sum(query.kind == kind for query in queries) for kind in KINDS}
    counts["overall"] = len(queries)
    failures = gate_failures(engine, baseline)
    text = report(engine, baseline, counts, failures)

    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(text)
    if args.verbose:
        print("## Queries the engine does not answer perfectly\n")
        print(describe_misses(engine_outcomes, baseline_outcomes, papers))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
