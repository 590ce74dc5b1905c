"""Sets of papers as arrays: flags, bitmaps of 64-bit words, and which papers hold enough of
a query's words.

A set of papers is, by turns, a list of paper numbers (a posting list: small for a rare word,
cheap to read), a flag per paper (cheap to combine), or a bitmap, a bit per paper in 64-bit
words (an eighth of the flags' memory, so a frequent term's can be kept; a paper's bit, and
with the count of set bits before each word its place in the term's list, is a few vectorised
operations). The pruned ranking (``bot.search.pruned``) keeps frequent terms' bitmaps, and the
ranker (``bot.search.ranker``) asks which papers are about a query (``holding_enough``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import reduce

import numpy as np

COMBINED_WORDS = 8
"""Up to this many words, ``holding_enough`` combines their bitmaps by the combinations of
words that reach the bar (at most 70 of them); more (a question) add up each paper's weights
(``_summed``)."""


_MARGIN = 1e-12  # relative, far above the rounding of a sum of a query's weights
_CANDIDATE_COST = 8  # a paper's weights read from bitmaps cost about 8 times a flag's


def holding_enough(
    bitmaps: Sequence[np.ndarray], weights: Sequence[float], least: float, size: int
) -> np.ndarray:
    """The bitmap (as ``Bitmap.of``) of the papers, numbered below ``size``, whose positive
    weights of the bitmaps holding them, added in the bitmaps' order from 0.0, reach
    ``least``: a bitmap, as a reply needs only how many they are and whether a few of them
    are (``bits_of``), not a flag per paper.

    A paper's sum depends only on which bitmaps hold it, so each combination's sum is
    computed once, in a paper's order of additions (so the same float, and the same flags, as
    a sum per paper gives). Sums only grow as a combination gains words, so the papers
    reaching the bar are those holding all the words of one of the smallest combinations that
    reach it: ands and ors of 64 papers at a time, instead of a float added per posting (a
    common word's postings are most of a million papers, ``bench/results/million.md``)."""
    if len(bitmaps) > COMBINED_WORDS:
        return _summed(bitmaps, weights, least, size)
    sums = [0.0]
    for weight in weights:  # with a word's bit set, its weight is the last one added
        sums += [total + weight for total in sums]
    reaching = [combination for combination, total in enumerate(sums) if total >= least]
    smallest = [
        combination
        for combination in reaching
        if all(sums[combination & ~(1 << bit)] < least for bit in _bits(combination))
    ]
    about = np.zeros(len(bitmaps[0]) if bitmaps else 0, dtype=np.uint64)
    for combination in smallest:
        held_all = reduce(np.bitwise_and, (bitmaps[bit] for bit in _bits(combination)))
        about |= held_all
    return about


def _summed(
    bitmaps: Sequence[np.ndarray], weights: Sequence[float], least: float, size: int
) -> np.ndarray:
    """``holding_enough`` for many words (a question): each paper's weights added up, in the
    bitmaps' order. Only a paper holding one of the heaviest words can reach ``least`` when
    the other words together fall short of it (with a margin far above rounding), so when
    those papers are few, only theirs are added up (at 1,000,000 papers a question's 20
    words cost 25 ms added up for every paper)."""
    heaviest = sorted(range(len(weights)), key=lambda word: -weights[word])
    kept = 0
    while (
        kept < len(heaviest)
        and math.fsum(weights[word] for word in heaviest[kept:]) * (1 + _MARGIN) >= least
    ):
        kept += 1
    if kept < len(heaviest):
        held_one = reduce(np.bitwise_or, (bitmaps[word] for word in heaviest[:kept]))
        papers = np.flatnonzero(flags_of(held_one, size))
        if len(papers) * _CANDIDATE_COST < size:
            at, shift = papers >> 6, (papers & 63).astype(np.uint64)  # as ``bits_of``
            held = np.zeros(len(papers))
            for words, weight in zip(bitmaps, weights, strict=True):
                held += (np.take(words, at) >> shift & np.uint64(1)) * weight  # as below
            return Bitmap.of([papers[held >= least]], size)
    held = np.zeros(size)
    for words, weight in zip(bitmaps, weights, strict=True):
        held += flags_of(words, size) * weight  # a paper without the word adds 0.0
    return words_of(held >= least)


def flags_of(words: np.ndarray, size: int) -> np.ndarray:
    """A bitmap's words as a flag per paper number below ``size``."""
    return np.unpackbits(words.view(np.uint8), count=size, bitorder="little").view(bool)


def words_of(flags: np.ndarray) -> np.ndarray:
    """The bitmap (as ``Bitmap.of``) of the papers flagged in ``flags``: 64 flags a word, the
    last word's missing flags unset."""
    if len(flags) % 64:
        padded = np.zeros((len(flags) + 63) // 64 * 64, dtype=bool)
        padded[: len(flags)] = flags
        flags = padded
    return np.packbits(flags, bitorder="little").view("<u8")


def count_of(words: np.ndarray) -> int:
    """How many papers a bitmap holds."""
    return int(np.bitwise_count(words).sum())


def _bits(combination: int) -> list[int]:
    return [bit for bit in range(combination.bit_length()) if combination >> bit & 1]


def distinct(doc_lists: list[np.ndarray], corpus_size: int) -> int:
    """How many documents the lists hold (each list has no repeats)."""
    if len(doc_lists) <= 1:
        return sum(map(len, doc_lists))
    return int(np.count_nonzero(marks(doc_lists, corpus_size)))


def bits_of(words: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """Each document's bit (0 or 1) in the bitmap of ``words``."""
    return (np.take(words, docs >> 6) >> (docs & 63).astype(np.uint64)) & np.uint64(1)


def marks(doc_lists: Iterable[np.ndarray], size: int) -> np.ndarray:
    """A flag per document number below ``size``, set for those in ``doc_lists``.

    The postings' 4-byte document numbers are widened to the platform's index type first:
    numpy sets flags at an index array of another type through a slower, casting path: the
    bitmap of a word in 95,054 of 100,000 papers took 277 µs that way, 115 µs with the cast
    (``bench/results/p50.md``)."""
    flags = np.zeros(size, dtype=bool)
    for docs in doc_lists:
        flags[docs.astype(np.intp, copy=False)] = True
    return flags


class Bitmap:
    """Which documents hold a term, a bit each, with the count of set bits before each
    64-bit word: whether a document holds the term, and where in the term's posting list,
    is then a few vectorised operations per document instead of a binary search."""

    def __init__(self, docs: np.ndarray, corpus_size: int) -> None:
        self.words = self.of([docs], corpus_size)
        self._before = np.zeros(len(self.words), dtype=np.uint32)
        np.cumsum(np.bitwise_count(self.words[:-1]), out=self._before[1:])

    @staticmethod
    def of(doc_lists: Iterable[np.ndarray], corpus_size: int) -> np.ndarray:
        """The 64-bit words of a bitmap of every document in ``doc_lists``."""
        return words_of(marks(doc_lists, (corpus_size + 63) // 64 * 64))

    def find(self, probe: Probe) -> tuple[np.ndarray, np.ndarray]:
        """Which of the probed documents (their indices) hold the term, and their posting
        positions."""
        words = np.take(self.words, probe.word_numbers)
        held = np.flatnonzero(words & probe.bits)
        below = np.take(words, held) & np.take(probe.lower_bits, held)
        before = np.take(self._before, np.take(probe.word_numbers, held))
        return held, before + np.bitwise_count(below)


class Probe:
    """Where documents sit in any bitmap (word, bit, the bits below it), worked out once for
    all of a query's frequent terms."""

    def __init__(self, docs: np.ndarray) -> None:
        self.word_numbers = docs >> 6
        self.bits = np.left_shift(np.uint64(1), (docs & 63).astype(np.uint64))
        self.lower_bits = self.bits - np.uint64(1)
