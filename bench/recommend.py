"""How well "For you" finds what a reader would want, judged offline from the catalogue alone.

Readers are simulated from authorship, which the text vectors never saw: a reader follows a
group of authors who publish together (a connected component of the authors who wrote at
least two accepted papers together), saves ``k`` of the group's papers (k = 3, 10, 30 where
the group is big enough) and should be shown the rest, which are hidden. For each reader: hit
rate @10 (any hidden paper among the first ten) and MRR (one over the rank of the first
hidden paper), for the per-person model (``bot.search.foryou``) against two baselines: the
papers nearest to the mean of the saved vectors, and a seeded random pick among papers
sharing a title word with a saved paper. With dismissals, a reader of ten also dismisses five
papers of the group nearest to theirs (by mean vector), and the table says how many of that
group's other papers still reach the first ten.

Where scikit-learn is importable (``pip install scikit-learn`` in a scratch venv), its
LogisticRegression on the same rows and weights and a LinearSVC as arxiv-sanity trains one
are measured beside the numpy model, with the time per fit, and, in a fresh interpreter each,
the peak memory of the catalogue's index with the semantic part plus 30 calls of each.

The channel case (``--channels``) runs the paper of the day's real rotation
(``bot.digest.rotation``) over a scratch database: each simulated channel follows one author
group of more than ten papers; on day 0 a member shares one of the group's papers, and each
day the paper posted is 👍'd by two members when it is the group's (nothing otherwise; in the
noisy variant a member also reacts 👀 to one other paper in ten). It reports how many of the
group's papers the channel is shown in its first week, month and two months, and the day of
the first after the share, against today's fixed order (the same channels with no signal).

    python bench/recommend.py            # ~2 min; writes bench/results/recommend.md
    python bench/recommend.py --channels # writes bench/results/recommend_channels.md
"""

from __future__ import annotations

import os

# One BLAS thread, as the bot runs (bot/__init__.py), set before this script loads numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import re
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import recommend_channels as channels  # noqa: E402

from bot.papers.corpus import load_corpus  # noqa: E402
from bot.papers.paper import Paper  # noqa: E402
from bot.search import foryou  # noqa: E402
from bot.search.engine import SearchIndex  # noqa: E402
from bot.search.semantic import ranker_for  # noqa: E402

SEED = 22
SAVES = (3, 10, 30)
READERS_PER_GROUP = {3: 1, 10: 4, 30: 10}
"""Draws of saves per group: big groups are few, so they give more readers each."""
DISMISSALS = 5
TOP = 10
TITLE_WORD_MAX_SHARE = 0.02
"""A title word in more than 2% of titles ("learning", "models") says nothing of a topic."""

Ranking = Callable[[np.ndarray, list[int], list[int], str], np.ndarray]
"""(vectors, saved, dismissed, seed key) → every other paper's index, best first."""


@dataclass(frozen=True)
class Reader:
    saved: list[int]
    hidden: set[int]
    dismissed: list[int]
    others: set[int]  # the dismissed group's papers not dismissed (for the leak count)


def author_groups(papers: Sequence[Paper]) -> list[list[int]]:
    """The papers of each connected component of authors who wrote two or more papers
    together, largest first (ties by first paper)."""
    together: Counter[tuple[str, str]] = Counter()
    for paper in papers:
        together.update(combinations(sorted(set(paper.authors)), 2))
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        while parent.setdefault(name, name) != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    for (first, second), count in sorted(together.items()):
        if count >= 2:
            parent[root(first)] = root(second)
    groups: dict[str, list[int]] = defaultdict(list)
    for doc, paper in enumerate(papers):
        for group in sorted({root(name) for name in paper.authors if name in parent}):
            groups[group].append(doc)
    return sorted(groups.values(), key=lambda docs: (-len(docs), docs[0]))


def readers(groups: list[list[int]], k: int, vectors: np.ndarray, dismiss: bool) -> list[Reader]:
    """Seeded readers of every group with more than ``k`` papers; with ``dismiss``, the same
    readers (the same saves), each also dismissing papers of the group nearest to theirs."""
    draws, picks = np.random.default_rng([SEED, k]), np.random.default_rng([SEED, k, 1])
    centres = np.stack([vectors[docs].mean(axis=0) for docs in groups])
    made = []
    for docs in (docs for docs in groups if len(docs) > k):
        for _ in range(READERS_PER_GROUP[k]):
            saved = sorted(draws.choice(docs, size=k, replace=False).tolist())
            hidden = set(docs) - set(saved)
            for at in np.argsort(-(centres @ vectors[saved].mean(axis=0))):
                rest = sorted(set(groups[at]) - set(docs))
                if len(rest) > DISMISSALS:
                    dismissed = sorted(picks.choice(rest, DISMISSALS, replace=False).tolist())
                    break
            others = set(rest) - set(dismissed)
            made.append(Reader(saved, hidden, dismissed if dismiss else [], others))
    return made


# --- the rankings ------------------------------------------------------------------------------


def _candidates(count: int, saved: list[int], dismissed: list[int]) -> np.ndarray:
    keep = np.ones(count, dtype=bool)
    keep[saved + dismissed] = False
    return np.flatnonzero(keep)


def per_person(vectors: np.ndarray, saved, dismissed, key: str) -> np.ndarray:
    ready = np.ones(len(vectors), dtype=bool)
    return foryou.rank_for_reader(vectors, ready, saved, dismissed, key).docs


def mean_vector(vectors: np.ndarray, saved, dismissed, key: str) -> np.ndarray:
    pool = _candidates(len(vectors), saved, dismissed)
    centre = vectors[saved].mean(axis=0)
    return pool[np.lexsort((pool, -(vectors[pool] @ centre)))]


def title_word_ranking(papers: Sequence[Paper]) -> Ranking:
    """Papers sharing a title word with a saved paper in seeded random order, then the rest
    in seeded random order."""
    words = [set(re.findall(r"[a-z0-9]{3,}", paper.title.casefold())) for paper in papers]
    share = Counter(word for titled in words for word in titled)
    limit = TITLE_WORD_MAX_SHARE * len(papers)
    words = [{word for word in titled if share[word] <= limit} for titled in words]

    def rank(vectors: np.ndarray, saved, dismissed, key: str) -> np.ndarray:
        pool = _candidates(len(vectors), saved, dismissed)
        rng = np.random.default_rng(foryou.reader_seed(key))
        mine = set().union(*(words[doc] for doc in saved))
        sharing = np.array([bool(words[doc] & mine) for doc in pool])
        order = rng.permutation(len(pool))
        return pool[order[np.argsort(~sharing[order], kind="stable")]]

    return rank


def sklearn_rankings() -> dict[str, Ranking]:
    """scikit-learn's classifiers on the model's rows and weights, when it is installed."""
    try:
        from sklearn.linear_model import LogisticRegression
        from sklearn.svm import LinearSVC
    except ImportError:
        return {}

    def fitted(make) -> Ranking:
        def rank(vectors: np.ndarray, saved, dismissed, key: str) -> np.ndarray:
            pool = _candidates(len(vectors), saved, dismissed)
            rng = np.random.default_rng(foryou.reader_seed(key))
            size = min(foryou.NEGATIVE_SAMPLE, len(pool))
            sample = np.sort(rng.choice(pool, size=size, replace=False))
            rows = np.concatenate([saved, dismissed, sample]).astype(int)
            labels = np.zeros(len(rows))
            labels[: len(saved)] = 1
            weights = foryou.class_weights(len(saved), len(dismissed), len(sample))
            model = make().fit(vectors[rows], labels, sample_weight=weights)
            scores = model.decision_function(vectors[pool])
            return pool[np.lexsort((pool, -scores))]

        return rank

    return {
        f"scikit-learn LogisticRegression (C={foryou.REGULARISATION})": fitted(
            lambda: LogisticRegression(C=foryou.REGULARISATION)
        ),
        "scikit-learn LinearSVC (C=0.1, as arxiv-sanity)": fitted(lambda: LinearSVC(C=0.1)),
    }


# --- measuring --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Score:
    hit_rate: float
    mrr: float
    leak: float  # papers of the nearest other group (not dismissed) in the first ten, a reader
    fit_ms: float


def score(rank: Ranking, vectors: np.ndarray, papers, people: list[Reader]) -> Score:
    hits, reciprocal, leaks, times = [], [], [], []
    for reader in people:
        key = "\n".join(sorted(papers[doc].id for doc in reader.saved))
        started = time.perf_counter()
        order = rank(vectors, reader.saved, reader.dismissed, key)
        times.append(time.perf_counter() - started)
        found = np.flatnonzero(np.isin(order, list(reader.hidden)))
        first = int(found[0]) + 1 if len(found) else None
        hits.append(first is not None and first <= TOP)
        reciprocal.append(1 / first if first else 0.0)
        leaks.append(len(set(order[:TOP].tolist()) & reader.others))
    return Score(
        float(np.mean(hits)),
        float(np.mean(reciprocal)),
        float(np.mean(leaks)),
        1000 * statistics.median(times),
    )


MEMORY_SCRIPT = """
import sys, numpy as np
sys.path.insert(0, sys.argv[2])
from bot.papers.corpus import load_corpus
from bot.search.engine import SearchIndex
from bot.search.semantic import ranker_for
papers = load_corpus("catalogue").papers
index = SearchIndex.build(papers, ranker_for("catalogue"))
index.search("graph neural networks")
if sys.argv[1] == "sklearn":
    from sklearn.linear_model import LogisticRegression
    from bot.search import foryou
    original = foryou.fit_logistic
    def fit(features, labels, weights):
        model = LogisticRegression(C=foryou.REGULARISATION)
        model.fit(features, labels, sample_weight=weights)
        return model.coef_[0].astype(np.float32), float(model.intercept_[0])
    foryou.fit_logistic = fit
for start in range(0, 300, 10):
    index.for_you([p.id for p in papers[start:start + 10]], [papers[start + 11].id])
for line in open("/proc/self/status"):
    if line.startswith("VmHWM"):
        print(int(line.split()[1]) // 1024)
"""


def peak_memory_mb(kind: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_SCRIPT, kind, str(ROOT)],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout.split()[-1])


def call_ms(index: SearchIndex, papers: Sequence[Paper]) -> float:
    """Median time of ``SearchIndex.for_you`` for readers of ten saves, as the bot calls it."""
    times = []
    for start in range(0, 600, 20):
        saved = [paper.id for paper in papers[start : start + 10]]
        began = time.perf_counter()
        index.for_you(saved, [papers[start + 11].id])
        times.append(time.perf_counter() - began)
    return 1000 * statistics.median(times)


def commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout

    dirty = " (with uncommitted changes in bot/)" if git("status", "--porcelain", "bot") else ""
    return git("rev-parse", "--short", "HEAD").strip() + dirty


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path)
    parser.add_argument("--channels", action="store_true", help="run the channel case only")
    args = parser.parse_args(argv)
    papers = load_corpus("catalogue").papers
    semantic = ranker_for("catalogue")(papers)
    index = SearchIndex.build(papers, lambda _papers: semantic)
    assert semantic is not None and not semantic.missing, "the catalogue needs its vectors"
    groups = author_groups(papers)
    if args.channels:
        output = args.output or ROOT / "bench/results/recommend_channels.md"
        output.write_text(channels.report(channels.run(index, papers, groups), commit()))
        print(f"wrote {output}")
        return 0
    args.output = args.output or ROOT / "bench/results/recommend.md"
    vectors, _ = foryou.vector_table(semantic.paper_vector, len(papers))
    learned = sklearn_rankings()
    systems: dict[str, Ranking] = {
        MODEL: per_person,
        **learned,
        "baseline: nearest to the mean of the saved vectors": mean_vector,
        "baseline: random among papers sharing a title word": title_word_ranking(papers),
    }
    rows: list[Row] = []
    for k, dismiss in [(k, False) for k in SAVES] + [(10, True)]:
        people = readers(groups, k, vectors, dismiss)
        for name, rank in systems.items():
            rows.append(
                Row(
                    k,
                    "yes" if dismiss else "no",
                    len(people),
                    name,
                    score(rank, vectors, papers, people),
                )
            )
            print(rows[-1], flush=True)
    memory = {
        kind: peak_memory_mb(kind) for kind in (["numpy", "sklearn"] if learned else ["numpy"])
    }
    args.output.write_text(report(rows, groups, call_ms(index, papers), memory))
    print(f"wrote {args.output}")
    return 0


MODEL = "per-person model (numpy; what the bot runs)"


@dataclass(frozen=True)
class Row:
    saves: int
    dismissals: str
    readers: int
    system: str
    score: Score


def report(rows: list[Row], groups: list[list[int]], call: float, memory: dict[str, int]) -> str:
    sizes = [len(docs) for docs in groups]
    lines = [
        "# For you: the per-person model, offline",
        "",
        f"`python bench/recommend.py`, commit {commit()}, over the accepted catalogue "
        f"and its shipped vectors; seed {SEED}.",
        "",
        "Readers follow a group of authors who publish together (a connected component of the "
        "authors who co-wrote two or more accepted papers; a paper belongs to each group one "
        f"of its authors is in): {len(groups)} groups, {sum(s > 3 for s in sizes)} with more "
        f"than 3 papers, {sum(s > 10 for s in sizes)} with more than 10, "
        f"{sum(s > 30 for s in sizes)} with more than 30 (the largest {max(sizes)}). A reader "
        "saves k of a group's papers (seeded draws; "
        + ", ".join(f"{n} per group for k = {k}" for k, n in READERS_PER_GROUP.items())
        + ") and the group's other papers are hidden. Hit@10: a hidden paper among the first "
        "ten; MRR: one over the rank of the first hidden paper, over every paper not saved "
        "or dismissed. With dismissals, the reader also dismisses "
        f"{DISMISSALS} papers of the group nearest to theirs by mean vector; *leak@10* counts "
        "that group's other papers among the first ten (in both rows of k = 10: the "
        "same readers, the same saves).",
        "",
        "| saves | dismissals | readers | system | hit@10 | MRR | leak@10 | ms a fit |",
        "|---:|---|---:|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row.saves} | {row.dismissals} | {row.readers} | {row.system} | "
            f"{row.score.hit_rate:.3f} | {row.score.mrr:.3f} | {row.score.leak:.2f} | "
            f"{row.score.fit_ms:.1f} |"
        )
    lines += [
        "",
        f"`SearchIndex.for_you` as the bot calls it (10 saves, 1 dismissal, the vector table "
        f"taken afresh): median {call:.0f} ms a call on this shared machine.",
        "",
        "Peak resident memory of a process that loads the catalogue's index with the semantic "
        "part, searches once and answers 30 For you calls: "
        + ", ".join(f"{kind}: {mb} MB" for kind, mb in memory.items())
        + " (the bot's limit is 450 MB).",
        "",
        "## The choice: numpy",
        "",
        "The numpy model and scikit-learn's LogisticRegression fit the same objective (the "
        "same rows, weights and C) and rank alike: their hit rates above agree for every "
        "setting, MRR within noise. A fit takes a few milliseconds either way. Memory does not "
        "decide it (scikit-learn imports SciPy lazily). Install size does: scikit-learn 1.9.1 "
        "needs SciPy, joblib, threadpoolctl and narwhals, 45 MB of wheels and about 200 MB "
        "installed (measured by hand: `pip download` of the wheels, `du` of site-packages: "
        "sklearn 51 MB, scipy 143 MB, narwhals 6 MB, joblib 3 MB), none of which the bot "
        "otherwise needs. LinearSVC, as arxiv-sanity trains one, is no better. So the bot "
        "runs the numpy fit (`bot/search/foryou.py`) and scikit-learn stays out of "
        "`pyproject.toml`; its rows come from a scratch venv with it installed.",
        "",
        "C = 0.3 was chosen among 0.1, 0.3, 1 and 3 on readers drawn with seed 7, not the seed "
        "reported here. Readers are few where groups are few (8 groups give the 80 readers "
        "of k = 30), so differences of a few hundredths are noise. The per-person model finds "
        "a hidden paper of the group in the first ten more often than the nearest-to-the-mean "
        "baseline at every k, and far more often than title words; a dismissal of five "
        "papers of the nearest group halves how many of that group's other papers reach the "
        "first ten, at some cost in hit rate for the group followed.",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
