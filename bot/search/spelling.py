"""The typo corrector: the corpus word closest to a misspelt one, found through a map of
deletions held as plain arrays, so that a snapshot can save it and every process on a host
map the same pages instead of each building its own (``bot.search.snapshot``), and an
addition to the corpus merge its new words into instead of building it again (``extended``).

Which words the corrector knows and how often is decided in ``bot.search.spelling_words``,
which a saved map and a built one are both made of.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property

import numpy as np

from bot.search.query import edit_distance

MAX_UNCORRECTED_LENGTH = 3
LONG_WORD_LENGTH = 8

_BASE = 0x9E3779B97F4A7C15
"""The polynomial hash's base: odd, so it has an inverse modulo 2**64."""
_INVERSE = np.uint64(pow(_BASE, -1, 2**64))


def _correctable(word: str) -> bool:
    return len(word) >= 3 and word.isalpha()


def _deletions(word: str, depth: int) -> set[str]:
    found = {word}
    frontier = {word}
    for _ in range(depth):
        frontier = {w[:i] + w[i + 1 :] for w in frontier for i in range(len(w))}
        found |= frontier
    return found


@cache
def _powers(length: int) -> np.ndarray:
    """The base's powers 0 to ``length`` - 1, modulo 2**64."""
    powers = np.full(length, _BASE, dtype=np.uint64)
    powers[:1] = 1
    np.cumprod(powers, out=powers)  # wraps around: modulo 2**64
    powers.flags.writeable = False
    return powers


def _code_points(words: list[str]) -> np.ndarray:
    """The words as a matrix of their code points, one row each, the shorter ones padded
    with zeros (which add nothing to a hash)."""
    if not words:
        return np.zeros((0, 0), dtype=np.uint64)
    padded = np.array(words, dtype=str)
    width = padded.dtype.itemsize // 4
    return padded.view(np.uint32).reshape(len(words), width).astype(np.uint64)


def stable_hashes(words: Iterable[str]) -> np.ndarray:
    """Each word's polynomial hash, the sum of its code points times the base's powers,
    modulo 2**64: the same in every process and release, unlike Python's salted ``hash``,
    so a map of them can be saved, and computed for many words in a few array operations."""
    code_points = _code_points(list(words))
    return (code_points * _powers(code_points.shape[1])).sum(axis=1, dtype=np.uint64)


def _with_one_deleted(code_points: np.ndarray) -> list[np.ndarray]:
    """The hashes of words of one length (a row of code points each), then of the words with
    their letter at each position deleted, from the sums before and after it: the letters
    after move one power down, which multiplying by the base's inverse does."""
    terms = code_points * _powers(code_points.shape[1])
    before = np.zeros((len(terms), terms.shape[1] + 1), dtype=np.uint64)
    np.cumsum(terms, axis=1, dtype=np.uint64, out=before[:, 1:])
    whole = before[:, -1]
    return [whole] + [
        before[:, at] + (whole - before[:, at + 1]) * _INVERSE for at in range(terms.shape[1])
    ]


@dataclass(frozen=True)
class DeletionMap:
    """The corrector's words and its symmetric-deletion map (SymSpell), as arrays.

    The words, sorted, are UTF-8 bytes (``text``) cut at ``starts``, each with its
    frequency (``counts``). Every word and every form of it with one letter deleted is hashed
    (``stable_hashes``); ``keys`` holds those hashes sorted and ``owners`` the number of the
    word each came from, so the words sharing a deletion with a typo are found by binary
    search. A dict of strings would hold millions of small objects at hundreds of thousands
    of words: hundreds of MB, seconds to build, and nothing a snapshot could map. A hash
    collision only adds a candidate, which the edit distance then rejects."""

    text: np.ndarray
    starts: np.ndarray
    counts: np.ndarray
    keys: np.ndarray
    owners: np.ndarray
    longest: int
    """Characters in the longest word."""

    TABLES = ("text", "starts", "counts", "keys", "owners")
    """The arrays, by name, as a snapshot saves them (``tables``) and ``opened`` takes them."""

    @classmethod
    def build(cls, frequencies: Mapping[str, int]) -> DeletionMap:
        words = sorted(filter(_correctable, frequencies))
        encoded = [word.encode("utf-8") for word in words]
        starts = np.zeros(len(words) + 1, dtype=np.int64)
        np.cumsum([len(word) for word in encoded], out=starts[1:])
        by_length: dict[int, list[int]] = {}
        for number, word in enumerate(words):
            by_length.setdefault(len(word), []).append(number)
        hashes: list[np.ndarray] = [np.zeros(0, dtype=np.uint64)]
        owners: list[np.ndarray] = [np.zeros(0, dtype=np.int32)]
        for numbers in by_length.values():
            code_points = _code_points([words[n] for n in numbers])
            owner = np.array(numbers, dtype=np.int32)
            variants = _with_one_deleted(code_points)
            hashes += variants
            owners += [owner] * len(variants)
        keys = np.concatenate(hashes)
        order = np.argsort(keys, kind="stable")
        return cls(
            text=np.frombuffer(b"".join(encoded), dtype=np.uint8),
            starts=starts,
            counts=np.array([frequencies[word] for word in words], dtype=np.int64),
            keys=keys[order],
            owners=np.concatenate(owners)[order],
            longest=max(map(len, words), default=0),
        )

    def with_words(self, changes: Mapping[str, int]) -> DeletionMap:
        """This map with the frequencies of ``changes`` (words new to it and words whose
        count moved: an addition to the corpus) made, the same as ``build`` over all its
        words gives it, in time of the changes but for copying the arrays: the new words'
        map is built alone and merged in, sorted keys into sorted keys."""
        held, new = [], []
        for word in sorted(filter(_correctable, changes)):
            at = bisect_left(range(len(self.counts)), word, key=self.word)
            (held if at < len(self.counts) and self.word(at) == word else new).append((at, word))
        counts = np.array(self.counts)
        counts[[at for at, _ in held]] = [changes[word] for _, word in held]
        if not new:
            return DeletionMap(self.text, self.starts, counts, self.keys, self.owners, self.longest)
        added = DeletionMap.build({word: changes[word] for _, word in new})
        at = np.array([at for at, _ in new], dtype=np.int64)
        # Old word ``n`` moves up by the new words sorted before it; new word ``j`` lands
        # after the ``j`` new words and the old words sorted before it.
        old_numbers = np.arange(len(self.counts))
        renumbered = old_numbers + np.searchsorted(at, old_numbers, side="right")
        placed = at + np.arange(len(new))
        lengths = np.insert(np.diff(self.starts), at, np.diff(added.starts))
        starts = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=starts[1:])
        into = np.searchsorted(self.keys, added.keys, side="right")
        return DeletionMap(
            text=np.insert(
                self.text, np.repeat(self.starts[at], np.diff(added.starts)), added.text
            ),
            starts=starts,
            counts=np.insert(counts, at, added.counts),
            keys=np.insert(self.keys, into, added.keys),
            owners=np.insert(renumbered[self.owners].astype(np.int32), into, placed[added.owners]),
            longest=max(self.longest, added.longest),
        )

    def tables(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in self.TABLES}

    @classmethod
    def opened(cls, tables: Mapping[str, np.ndarray], longest: int) -> DeletionMap:
        return cls(**tables, longest=longest)

    def word(self, number: int) -> str:
        start, end = self.starts[number : number + 2].tolist()
        return self.text[start:end].tobytes().decode("utf-8")

    def sharing_a_deletion(self, word: str, depth: int) -> list[int]:
        """The numbers of the words one of whose forms with at most one letter deleted is
        ``word`` with at most ``depth`` deleted (and a few whose hash only collides)."""
        wanted = stable_hashes(_deletions(word, depth))
        starts = np.searchsorted(self.keys, wanted, side="left")
        ends = np.searchsorted(self.keys, wanted, side="right")
        bounds = zip(starts.tolist(), ends.tolist(), strict=True)
        found = [self.owners[start:end] for start, end in bounds if end > start]
        return np.unique(np.concatenate(found)).tolist() if found else []


class SpellCorrector:
    """Closest corpus word within edit distance 2, preferring frequent words.

    The deletion map (``DeletionMap``) answers in a few lookups instead of scanning the
    vocabulary. To keep it small and quick to build, corpus words are stored with at most one
    letter deleted while the typed word tries up to two, which finds every typo of distance 1
    and the common distance-2 ones (an extra letter plus a slip); two letters missing from the
    typed word are not found. The map is built by ``prepare`` (the bot does so at start-up)
    or else on the first correction, so a one-off search that nobody misspells pays nothing
    for it; the frequencies it was built from are then let go, the map holding them. An
    index opened from a snapshot gets its map from there (``opened``), mapped, not built.
    """

    def __init__(self, frequencies: Mapping[str, int], max_distance: int = 2) -> None:
        self._frequencies = frequencies
        self._longest = max((len(w) for w in frequencies if _correctable(w)), default=0)
        self.max_distance = max_distance

    @classmethod
    def opened(cls, deletions: DeletionMap) -> SpellCorrector:
        """A corrector over a map built before (a snapshot's)."""
        speller = cls({})
        speller._longest = deletions.longest
        speller.__dict__["_by_deletion"] = deletions  # as if the cached property were read
        return speller

    def extended(self, changes: Mapping[str, int]) -> SpellCorrector:
        """This corrector with the frequencies of ``changes`` made (words new to it and
        words whose count moved: an addition to the corpus), answering as one built over
        all its words does: its map, where built, has the new words merged in
        (``DeletionMap.with_words``) rather than every word's deletions hashed again."""
        if "_by_deletion" not in self.__dict__:
            return SpellCorrector({**self._frequencies, **changes}, self.max_distance)
        grown = SpellCorrector.opened(self._by_deletion.with_words(changes))
        grown.max_distance = self.max_distance
        return grown

    @cached_property
    def _by_deletion(self) -> DeletionMap:
        deletions = DeletionMap.build(self._frequencies)
        self._frequencies = {}
        return deletions

    @property
    def deletions(self) -> DeletionMap:
        """The deletion map (built now if it was not), for a snapshot to save."""
        return self._by_deletion

    def prepare(self) -> None:
        """Build the deletion map now rather than on the first correction."""
        self._by_deletion  # noqa: B018 - a cached property: reading it builds it

    def _limit(self, word: str) -> int:
        """How far a typed word may be from its correction.

        Short words are where a plain English word the corpus happens to lack lies one or two
        letters from an unrelated corpus word ("saw" → "law", "never" → "even"), so words of
        three letters are never corrected and words under eight letters only by one edit;
        real typos of short words are overwhelmingly a single slip or swap.
        """
        if len(word) <= MAX_UNCORRECTED_LENGTH:
            return 0
        limit = 1 if len(word) < LONG_WORD_LENGTH else self.max_distance
        # Past the longest corpus word no word is in reach, and a pasted run of letters
        # would otherwise have its deletions (quadratic in its length) hashed for nothing.
        return 0 if len(word) > self._longest + limit else limit

    def _close(self, word: str) -> list[tuple[str, int, int]]:
        """(word, distance, frequency) of each vocabulary word within reach of ``word``
        (case-folded), itself aside."""
        word = word.casefold()
        limit = self._limit(word)
        if limit == 0:
            return []
        deletions = self._by_deletion
        close = []
        for number in deletions.sharing_a_deletion(word, limit):
            candidate = deletions.word(number)
            if candidate != word and (distance := edit_distance(word, candidate, limit)) <= limit:
                close.append((candidate, distance, int(deletions.counts[number])))
        return close

    def near(self, word: str) -> dict[str, int]:
        """The vocabulary's words within reach of ``word`` (case-folded; itself not among
        them), each with its distance."""
        return {candidate: distance for candidate, distance, _ in self._close(word)}

    def correct(self, word: str, accept: Callable[[str], bool] | None = None) -> str | None:
        """The best replacement for ``word`` (case-folded): the nearest, then the most
        frequent, among those ``accept`` takes (all by default); None when none is close."""
        close = [c for c in self._close(word) if accept is None or accept(c[0])]
        best = min(close, key=lambda c: (c[1], -c[2], c[0]), default=None)
        return None if best is None else best[0]
