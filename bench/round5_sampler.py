"""The sampler that shows round 5's writers one paper at a time (``bench/round5.md``).

Round 5 is thread posts only: the long message a researcher posts in a thread before
mentioning the bot. ``python bench/round5_sampler.py A 1`` prints the first paper writer A
sees. Papers are accepted ones with an abstract in the shared catalogue, drawn in no earlier
round, in three strata: an abstract the shared catalogue added after issue 18 (not yet in
``seeds/``), an abstract filled in issue 18 (``seeds/abstracts_filled.tsv``), and an abstract
the catalogue always had. The shared copy is read so the newest abstracts can be drawn
before the project takes them.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED_CATALOGUE = ROOT.parent / "shared" / "data" / "iclr2025.jsonl"
PROJECT_CATALOGUE = ROOT / "seeds" / "iclr2025.jsonl"
FILLED_IN_ISSUE_18 = ROOT / "seeds" / "abstracts_filled.tsv"
EARLIER_ROUNDS = ("queries_catalogue.jsonl", "queries_holdout.jsonl", "queries_round4.jsonl")
WRITERS = "ABC"
PAPERS_PER_WRITER = 20
# Papers per writer from each stratum: newest abstract, issue-18 abstract, original abstract.
SHARES = {"N": 7, "F": 6, "O": 7}
ACCEPTED = ("Oral", "Spotlight", "Poster")
SEED = 20261203


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def papers_of(writer: str) -> list[dict]:
    """The papers shown to ``writer``, in the order shown."""
    shared = _records(SHARED_CATALOGUE)
    had_abstract = {r["id"] for r in _records(PROJECT_CATALOGUE) if r["abstract"]}
    filled = {line.split("\t")[0] for line in FILLED_IN_ISSUE_18.read_text().splitlines()[1:]}
    used: set[str] = set()
    for name in EARLIER_ROUNDS:
        for line in (ROOT / "bench" / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                used.update(json.loads(line)["relevant"])
    candidates = [
        r
        for r in shared
        if r["status"] in ACCEPTED and r["id"] and r["abstract"] and r["id"] not in used
    ]
    strata = {
        "N": [r for r in candidates if r["id"] not in had_abstract],
        "F": [r for r in candidates if r["id"] in had_abstract and r["id"] in filled],
        "O": [r for r in candidates if r["id"] in had_abstract and r["id"] not in filled],
    }
    draw = random.Random(SEED)
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
    random.Random(2000 + number).shuffle(mine)
    return mine


def main(argv: list[str]) -> None:
    writer, n = argv[0].upper(), int(argv[1])
    if writer not in WRITERS or not 1 <= n <= PAPERS_PER_WRITER:
        raise SystemExit(f"usage: round5_sampler.py {WRITERS[0]}..{WRITERS[-1]} 1..20")
    paper = papers_of(writer)[n - 1]
    print(f"Paper {n} of {PAPERS_PER_WRITER} for writer {writer}. Write ONE thread post.")
    print(f"id: {paper['id']}")
    print(f"title: {paper['title']}")
    print(f"authors: {', '.join(paper['authors'])}")
    print(f"status: {paper['status']}")
    print("abstract:", paper["abstract"])


if __name__ == "__main__":
    main(sys.argv[1:])
