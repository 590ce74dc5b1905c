"""The sampler that showed round 4's writers one paper at a time (``bench/round4.md``).

Kept as it ran, so the draw can be checked: ``python bench/round4_sampler.py A 1`` prints the
first paper writer A saw and the kind of query asked for. Papers are accepted ones drawn in
neither earlier round, in three strata: an abstract new in issue 18 (OpenReview's text, listed
in ``seeds/abstracts_filled.tsv``), an older abstract, and a title only.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = ROOT / "seeds" / "iclr2025.jsonl"
FILLED = ROOT / "seeds" / "abstracts_filled.tsv"
EARLIER_ROUNDS = ("queries_catalogue.jsonl", "queries_holdout.jsonl")
WRITERS = "ABCD"
PAPERS_PER_WRITER = 36
# Papers per writer from each stratum: new abstract, older abstract, title only.
SHARES = {"E": 12, "B": 15, "T": 9}
ACCEPTED = ("Oral", "Spotlight", "Poster")
KINDS_WITH_ABSTRACT = ("question", "paraphrase", "memory", "title")
KINDS_TITLE_ONLY = ("title", "memory")


def papers_of(writer: str) -> list[dict]:
    """The 36 papers shown to ``writer``, in the order shown."""
    records = [json.loads(line) for line in CATALOGUE.read_text(encoding="utf-8").splitlines()]
    filled = {line.split("\t")[0] for line in FILLED.read_text().splitlines()[1:]}
    used: set[str] = set()
    for name in EARLIER_ROUNDS:
        for line in (ROOT / "bench" / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                used.update(json.loads(line)["relevant"])
    accepted = [r for r in records if r["status"] in ACCEPTED and r["id"] and r["id"] not in used]
    strata = {
        "E": [r for r in accepted if r["abstract"] and r["id"] in filled],
        "B": [r for r in accepted if r["abstract"] and r["id"] not in filled],
        "T": [r for r in accepted if not r["abstract"]],
    }
    draw = random.Random(20261201)
    picked = {
        stratum: draw.sample(sorted(rows, key=lambda r: r["id"]), SHARES[stratum] * len(WRITERS))
        for stratum, rows in strata.items()
    }
    number = WRITERS.index(writer)
    mine = [
        paper
        for stratum, share in SHARES.items()
        for paper in picked[stratum][number * share : (number + 1) * share]
    ]
    random.Random(1000 + number).shuffle(mine)
    return mine


def kind_for(writer: str, n: int, paper: dict) -> str:
    kinds = KINDS_WITH_ABSTRACT if paper["abstract"] else KINDS_TITLE_ONLY
    return kinds[(n + WRITERS.index(writer)) % len(kinds)]


def main(argv: list[str]) -> None:
    writer, n = argv[0].upper(), int(argv[1])
    if writer not in WRITERS or not 1 <= n <= PAPERS_PER_WRITER:
        raise SystemExit(f"usage: round4_sampler.py {WRITERS[0]}..{WRITERS[-1]} 1..36")
    paper = papers_of(writer)[n - 1]
    kind = kind_for(writer, n, paper)
    print(f"Paper {n} of 36 for writer {writer}. Write ONE query of kind: {kind}")
    print(f"id: {paper['id']}")
    print(f"title: {paper['title']}")
    print(f"authors: {', '.join(paper['authors'])}")
    print(f"status: {paper['status']}")
    print("abstract:", paper["abstract"] or "(none: this paper has only its title)")


if __name__ == "__main__":
    main(sys.argv[1:])
