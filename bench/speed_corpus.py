"""The corpus and queries of the speed benches: the catalogue's real abstracts topped up with
synthetic ones, as ``Paper`` objects or as a catalogue-format file, and the benchmark queries.

``bench/speed.py``, ``bench/speed_opened.py`` and the other benches measuring search at scale
share them, so a size means the same papers everywhere (the synthesizer's seed is fixed: a
smaller corpus is a prefix of a larger one).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from quality import load_queries

from bot.papers.corpus import CATALOGUE_PATH, load_corpus
from bot.papers.paper import Paper
from bot.search.analyzer import analyze

PROJECT_ROOT = Path(__file__).resolve().parent.parent
QUERY_COUNT = 200
WARMUP_QUERIES = 10
TOP_K = 10
SEED = 2025
VECTOR_TABLES = 2  # the semantic ranker's float16 tables: a title's vector and a text's

SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
SYLLABLES = tuple(c + v for c in "bdfgklmnprstvwz" for v in "aeiou")
ACCEPTED = {"Oral", "Spotlight", "Poster"}


def paper_id_for(text: str) -> str:
    """An id of the same shape as the corpus gives papers without an OpenReview id."""
    return "h" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class SyntheticPaper:
    title: str
    abstract: str
    authors: tuple[str, ...]


class Synthesizer:
    """Makes abstracts that look like the real ones to an index, from a fixed seed.

    Each synthetic abstract takes its target length (in words) from a randomly chosen real
    abstract, so the length distribution is the real one, and is filled with whole sentences
    drawn at random from all the real abstracts, so word frequencies and co-occurrences are
    real too. A corpus made only of recombined sentences would stop growing its vocabulary at
    2,139 abstracts, whereas real ones keep adding method names and rare terms (Heaps' law).
    So each abstract also gets, on average, ``NEW_WORDS`` brand-new pseudo-words and
    ``REUSED_WORDS`` pseudo-words minted earlier (chosen with a bias towards older ones, so a
    few become common and most stay rare), each replacing a word at a random position.
    Titles are real titles whose method name (before a colon) becomes a pseudo-word; authors
    are drawn from the real author pool with a real paper's author count.
    """

    NEW_WORDS = 1.0
    REUSED_WORDS = 2.0

    def __init__(self, real: Sequence[Paper], seed: int = SEED) -> None:
        self._random = random.Random(seed)
        self._sentences = [
            (sentence, len(sentence.split()))
            for paper in real
            for sentence in SENTENCE_END.split(paper.plain_abstract)
            if sentence
        ]
        self._lengths = [len(paper.plain_abstract.split()) for paper in real]
        self._titles = [paper.title for paper in real]
        self._author_counts = [len(paper.authors) for paper in real]
        self._authors = sorted({author for paper in real for author in paper.authors})
        self._minted: list[str] = []

    def _poisson(self, mean: float) -> int:
        threshold, count, product = math.exp(-mean), 0, self._random.random()
        while product > threshold:
            count += 1
            product *= self._random.random()
        return count

    def _mint(self) -> str:
        number = len(self._minted) + len(SYLLABLES) ** 2
        syllables = []
        while number:
            number, digit = divmod(number, len(SYLLABLES))
            syllables.append(SYLLABLES[digit])
        word = "".join(syllables)
        self._minted.append(word)
        return word

    def _reuse(self) -> str:
        if not self._minted:
            return self._mint()
        return self._minted[int(len(self._minted) * self._random.random() ** 2)]

    def _abstract(self) -> str:
        target = self._random.choice(self._lengths)
        sentences, length = [], 0
        while length < target:
            sentence, words = self._random.choice(self._sentences)
            sentences.append(sentence)
            length += words
        words = " ".join(sentences).split()
        fresh = [self._mint() for _ in range(self._poisson(self.NEW_WORDS))]
        fresh += [self._reuse() for _ in range(self._poisson(self.REUSED_WORDS))]
        for word in fresh:
            words[self._random.randrange(len(words))] = word
        return " ".join(words)

    def _title(self) -> str:
        title = self._random.choice(self._titles)
        name, colon, rest = title.partition(":")
        return f"{self._mint().capitalize()}:{rest}" if colon and len(name) < 30 else title

    def __call__(self) -> SyntheticPaper:
        authors = self._random.sample(self._authors, self._random.choice(self._author_counts))
        return SyntheticPaper(self._title(), self._abstract(), tuple(authors))


def real_papers() -> list[Paper]:
    """The catalogue's papers that have an abstract (2,139), in catalogue order."""
    return [paper for paper in load_corpus("catalogue").papers if paper.abstract]


def synthetic_paper(number: int, fake: SyntheticPaper) -> Paper:
    """A ``Paper`` built directly, skipping the text cleaner: synthetic text is already plain."""
    return Paper(
        id=paper_id_for(fake.abstract),
        title=fake.title,
        authors=fake.authors,
        status="Poster",
        url=None,
        abstract=fake.abstract,
        plain_abstract=fake.abstract,
        code_urls=(),
        links=(),
        title_derived=False,
        source=f"synthetic#{number}",
    )


def build_corpus(size: int) -> tuple[list[Paper], list[Paper]]:
    """The first ``size`` papers of the real ones followed by synthetic ones, and the real ones.

    The synthesizer's seed is fixed, so a smaller corpus is a prefix of a larger one.
    """
    real = real_papers()
    synthesize = Synthesizer(real)
    synthetic = [synthetic_paper(n, synthesize()) for n in range(max(0, size - len(real)))]
    return (real + synthetic)[:size], real


def benchmark_queries(real: Sequence[Paper], count: int = QUERY_COUNT) -> list[str]:
    """The hand-written quality queries, then 1-4 word phrases cut from random real abstracts.

    Phrases made only of stopwords ("in the") are skipped: the engine answers them without
    touching the index, which would flatter its latency.
    """
    rng = random.Random(SEED)
    queries = [query.query for query in load_queries()][:count]
    while len(queries) < count:
        words = rng.choice(real).plain_abstract.split()
        length = rng.randint(1, 4)
        start = rng.randrange(max(1, len(words) - length))
        phrase = " ".join(word.strip(".,;:()[]{}\"'") for word in words[start : start + length])
        if analyze(phrase):
            queries.append(phrase.lower())
    rng.shuffle(queries)
    return queries


def write_catalogue_jsonl(size: int, path: Path) -> None:
    """The same corpus as ``build_corpus(size)``, as a file in the catalogue's format.

    Real papers are copied from the catalogue verbatim; synthetic ones get no id, so the
    corpus layer hashes their abstracts as it would for any paper without an OpenReview id.
    """
    real_records = []
    with CATALOGUE_PATH.open(encoding="utf-8") as catalogue:
        for line in catalogue:
            record = json.loads(line)
            if record["abstract"] and record["status"] in ACCEPTED:
                real_records.append(line.rstrip("\n"))
    synthesize = Synthesizer(real_papers())
    with path.open("w", encoding="utf-8") as out:
        for line in real_records[:size]:
            out.write(line + "\n")
        for _ in range(max(0, size - len(real_records))):
            fake = synthesize()
            record = {
                "id": None,
                "title": fake.title,
                "authors": list(fake.authors),
                "abstract": fake.abstract,
                "keywords": [],
                "status": "Poster",
                "venue": "ICLR 2025 Poster",
                "url": None,
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
