""" "More like this" (``like:ID``) judged blind: how related the first five papers are.

Run from the repository root: ``python bench/like.py``; writes ``bench/results/like.md``.

A known-item set cannot judge "more like this": many papers are rightly like one. So the set
is pooled, as TREC judges systems: for 41 accepted papers (40 drawn at random with seed
20261203 from those in no blind round, and the attention-sink paper issue 34 names), the
first five of three systems (the engine's ``like:`` with each term counted once and with its
terms repeated, and the nearest papers by text vector) were shuffled together, and one
judge, shown a source paper and its pool one at a time and never the systems, graded each
candidate: 2 about the same problem or method, 1 the same broader area, 0 not useful
(``bench/queries_like.jsonl``). A paper no judge saw counts 0, so a system that finds
unjudged papers is under-rated, never over-rated: the share of its first five that were
judged is reported beside the scores.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from quality import code_version

from bot.papers.corpus import load_corpus
from bot.search.engine import SearchIndex
from bot.search.planner import PlannerOptions
from bot.search.semantic import ranker_for

BENCH_DIR = Path(__file__).resolve().parent
SET_PATH = BENCH_DIR / "queries_like.jsonl"
RESULTS_PATH = BENCH_DIR / "results" / "like.md"
SHOWN = 5  # the cards a "More like this" reply shows


def load_set() -> list[tuple[str, dict[str, int]]]:
    """(source paper id, grade of each judged candidate) per judged source."""
    rows = [json.loads(line) for line in SET_PATH.read_text("utf-8").splitlines() if line]
    return [(row["query"].removeprefix("like:"), row["grades"]) for row in rows]


def _dcg(grades: list[int]) -> float:
    return sum(grade / math.log2(rank + 2) for rank, grade in enumerate(grades))


def measure(rank: Callable[[str], list[str]], judged: list[tuple[str, dict[str, int]]]) -> dict:
    grade_sum = related = ndcg = seen = 0.0
    for source, grades in judged:
        shown = [grades.get(paper_id, 0) for paper_id in rank(source)[:SHOWN]]
        ideal = sorted(grades.values(), reverse=True)[:SHOWN]
        grade_sum += sum(shown) / SHOWN
        related += sum(grade >= 1 for grade in shown) / SHOWN
        ndcg += _dcg(shown) / _dcg(ideal) if _dcg(ideal) else 0.0
        seen += sum(paper_id in grades for paper_id in rank(source)[:SHOWN]) / SHOWN
    n = len(judged)
    return {
        "mean grade": grade_sum / n,
        "related (grade ≥ 1)": related / n,
        "nDCG@5": ndcg / n,
        "judged": seen / n,
    }


def engine_like(index: SearchIndex) -> Callable[[str], list[str]]:
    def rank(source: str) -> list[str]:
        return [hit.paper.id for hit in index.search(f"like:{source}", limit=SHOWN).hits]

    return rank


def main() -> int:
    judged = load_set()
    papers = load_corpus("catalogue").papers
    once = PlannerOptions(repeat_like_terms=False)
    model = ranker_for("catalogue")
    systems = {
        "engine, semantic on (the bot)": SearchIndex.build(papers, model),
        "engine, semantic on, each term once": SearchIndex.build(
            papers, model, planner_options=once
        ),
        "engine, semantic off": SearchIndex.build(papers),
        "engine, semantic off, each term once": SearchIndex.build(papers, planner_options=once),
    }
    results = {name: measure(engine_like(index), judged) for name, index in systems.items()}
    metrics = list(next(iter(results.values())))
    lines = [
        '# "More like this", judged blind',
        "",
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by `python bench/like.py`"
        f" ({code_version()}), over the catalogue's {len(papers):,} accepted papers;"
        f" {len(judged)} source papers, {sum(len(g) for _, g in judged)} graded candidates"
        " (`bench/queries_like.jsonl`, how it was made in the script's docstring).",
        "",
        "| system | " + " | ".join(metrics) + " |",
        "|---" * (len(metrics) + 1) + "|",
        *(
            f"| {name} | " + " | ".join(f"{value:.3f}" for value in scores.values()) + " |"
            for name, scores in results.items()
        ),
        "",
    ]
    RESULTS_PATH.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
