"""Typo correction fixes slips and leaves English, names and acronyms alone; its saved map
corrects as the map of strings it replaced did.

The seed corpus is the hard case: 76 abstracts lack most of English, so a corrector that
knew only the corpus would turn ordinary words into whatever corpus word lies an edit away.
"""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from bot.papers.corpus import load_corpus
from bot.search.engine import SearchIndex
from bot.search.lexicon import english_words, is_english
from bot.search.query import edit_distance
from bot.search.spelling import SpellCorrector
from bot.search.spelling_words import SpellingWords

# Each was "corrected" into a corpus word before the English lexicon was consulted
# (``lawyers`` → ``layers``, ``write`` → ``white``, ``older`` → ``order``, ...), and the rest
# are just as ordinary.
ENGLISH = [
    "unreliable",
    "wrong",
    "lawyers",
    "lawyer",
    "write",
    "wrote",
    "teaching",
    "cheating",
    "wiser",
    "wider",
    "newer",
    "older",
    "loud",
    "later",
    "early",
    "hidden",
    "honest",
    "cheap",
    "faster",
    "quickly",
    "forget",
    "remember",
    "tiny",
    "huge",
    "safer",
    "doctors",
    "patients",
    "listens",
    "speaking",
    "photos",
    "videos",
    "songs",
    "music",
    "guess",
    "mistakes",
    "broken",
    "lies",
    "truth",
    "trust",
    "hiring",
    "kitchen",
    "garden",
    "farmers",
    "weather",
    "angry",
    "lonely",
    "careful",
    "sleepy",
    "quiet",
    "seldom",
]

TYPOS = {
    "spikng nueral netwroks": "spiking neural networks",
    "grpah sparsifcation": "graph sparsification",
    "nosiy labls": "noisy labels",
    "diffusoin trasformer": "diffusion transformer",
    "halucination": "hallucination",
    "machine unlearnign": "machine unlearning",
    "atention sink": "attention sink",
    # inside hyphenated words, only the misspelt part
    "text-to-moton": "text-to-motion",
    "self-atention": "self-attention",
}


@pytest.mark.parametrize("word", ENGLISH)
def test_an_english_word_is_never_corrected(index: SearchIndex, word: str) -> None:
    assert index.search(word).corrected_query is None


def test_the_issue_s_example_is_left_as_typed(index: SearchIndex) -> None:
    assert index.search("unreliable wrong labels").corrected_query is None


# Words of the lexicon behind a prefix, which it does not list. Each but ``selfattention``
# (which a seed paper writes) was "corrected" into the word without its prefix, or its opposite.
PREFIXED = ["unlabeled", "nonconvex", "semisupervised", "pretrained", "reweighting"]


@pytest.mark.parametrize("word", [*PREFIXED, "selfattention"])
def test_a_prefixed_english_word_is_never_corrected(index: SearchIndex, word: str) -> None:
    assert index.search(word).corrected_query is None
    assert index.search(f"{word} data").corrected_query is None


def test_prefixed_words_count_as_english_only_before_an_english_word() -> None:
    assert all(map(is_english, [*PREFIXED, "selfattention", "Unlabeled"]))
    assert not any(map(is_english, ["unet", "reinforcment", "prenueral", "nonconvx"]))


def test_a_typo_its_stem_hides_is_corrected_to_the_word_papers_write(
    index: SearchIndex,
) -> None:
    """``reinforcment`` stems as ``reinforcement`` does, so it always found the papers, but
    the reader was never told how the word is spelt."""
    result = index.search("reinforcment learning")
    assert result.corrected_query == "reinforcement learning"
    assert [hit.paper.id for hit in result.hits] == [
        hit.paper.id for hit in index.search("reinforcement learning").hits
    ]
    assert index.search("Reinforcment").corrected_query == "Reinforcement"


def test_an_inflection_papers_do_not_write_is_not_corrected(index: SearchIndex) -> None:
    """Known by its stem, in no paper as typed, and no misspelling of an English word."""
    assert index.search("sparsifying graphs").corrected_query is None


@pytest.mark.parametrize(("typed", "meant"), TYPOS.items())
def test_a_typo_is_corrected(index: SearchIndex, typed: str, meant: str) -> None:
    assert index.search(typed).corrected_query == meant


def test_a_typo_is_never_corrected_into_an_author_s_name(index: SearchIndex) -> None:
    """``tianlong`` occurs only as a first name in the author lists, not in any text."""
    assert "tianlong" not in index._bm25
    assert index.search("Tianlong").corrected_query is None  # a name, found as one
    corrected = index.search("tianlomg graph").corrected_query
    assert corrected is None or "tianlong" not in corrected


def test_words_typed_in_capitals_are_acronyms_not_typos(index: SearchIndex) -> None:
    assert index.search("GRPO").corrected_query is None
    assert index.search("Grpah").corrected_query == "Graph"  # capitalised as typed


def test_the_lexicon_is_a_real_english_word_list() -> None:
    words = english_words()
    assert len(words) > 80_000
    assert {"unreliable", "lawyers", "write", "colour"} <= words
    assert not {"nueral", "netwroks", "teh"} & words


class _StringDeletions:
    """The corrector as it was before its map was saved, kept here as the reference: its
    deletions as strings in a dict (the map hashed them with Python's salted ``hash``), the
    same reach by word length, the same preference (nearest, most frequent, first in order)."""

    def __init__(self, frequencies: dict[str, int]) -> None:
        self.frequencies = frequencies
        words = [word for word in frequencies if len(word) >= 3 and word.isalpha()]
        self.longest = max(map(len, words), default=0)
        self.by_deletion: defaultdict[str, set[str]] = defaultdict(set)
        for word in words:
            for variant in {word, *(word[:i] + word[i + 1 :] for i in range(len(word)))}:
                self.by_deletion[variant].add(word)

    def near(self, word: str) -> dict[str, int]:
        word = word.casefold()
        limit = 0 if len(word) <= 3 else 1 if len(word) < 8 else 2
        if not limit or len(word) > self.longest + limit:
            return {}
        deletions, frontier = {word}, {word}
        for _ in range(limit):
            frontier = {w[:i] + w[i + 1 :] for w in frontier for i in range(len(w))}
            deletions |= frontier
        candidates = set().union(*(self.by_deletion.get(d, ()) for d in deletions))
        distances = {c: edit_distance(word, c, limit) for c in candidates if c != word}
        return {c: d for c, d in distances.items() if d <= limit}

    def correct(self, word: str) -> str | None:
        near = self.near(word)
        return min(near, key=lambda c: (near[c], -self.frequencies[c], c), default=None)


def _slips(words: list[str], count: int) -> list[str]:
    """Words with one or two random slips (a letter dropped, added, changed or swapped with
    the next), some capitalised, some with a letter outside ASCII."""
    rng = random.Random(33)
    letters = "abcdefghijklmnopqrstuvwxyzéüß"
    typed = []
    for word in rng.choices(words, k=count):
        for _ in range(rng.choice((1, 1, 2))):
            at = rng.randrange(len(word))
            word = rng.choice(
                (
                    word[:at] + word[at + 1 :],
                    word[:at] + rng.choice(letters) + word[at:],
                    word[:at] + rng.choice(letters) + word[at + 1 :],
                    word[:at] + word[at + 1 : at + 2] + word[at] + word[at + 2 :],
                )
            )
        typed.append(word.capitalize() if rng.random() < 0.2 else word)
    return typed


def test_the_saved_map_corrects_every_catalogue_word_and_typo_as_string_deletions_did() -> None:
    """Hashing deletions with a stable hash into arrays changed nothing anyone is shown."""
    parts = SearchIndex.build(load_corpus("catalogue").papers).parts()
    frequencies = SpellingWords.build(len(parts.papers), parts.bm25, parts.analyzer).frequencies
    corrector, reference = SpellCorrector(frequencies), _StringDeletions(frequencies)
    vocabulary = sorted(frequencies)
    typed = [*vocabulary, *_slips(vocabulary, 3000), "a" * 40, "über", "Straße"]
    assert [corrector.correct(w) for w in typed] == [reference.correct(w) for w in typed]
    assert [corrector.near(w) for w in typed[::7]] == [reference.near(w) for w in typed[::7]]
    assert sum(reference.correct(w) not in (None, w) for w in typed) > 2000  # typos fixed
