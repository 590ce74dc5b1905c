"""Compounds written apart in a corpus being indexed (``mixture of experts``), found once.

The indexer needs them twice: every compound written apart is counted first, which decides
the compounds whose words apart count as the compound (``indexing.apart_compounds``), and
only then are those joined. Both read the same places of the same texts, so the places are
found once, in numpy: every position whose chunk ends with a word that begins a compound and
whose next chunk begins with its second word (``CorpusAnalyzer.openings``), with the window
of chunks a compound beginning there may span (the longest compound of that opening, within
the paper). A text repeats its windows, so each distinct window is read in Python once
(``CorpusAnalyzer.compound_at``) under each rule, and only the places where a compound was
found are walked left to right, a compound starting no other inside it, as
``CorpusAnalyzer.compound_ends`` reads a text.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from bot.search.analyzer import CorpusAnalyzer, chunk_edges

Found = tuple[int, str] | None
"""What a window holds: how many chunks its compound spans and its joined token, or None."""


class Edges:
    """Each chunk's part in a compound written apart, as numbers numpy can compare: its
    last word as a compound's first (``opening``) and its first word as a compound's second
    (``following``), -1 for none (see ``CorpusAnalyzer.compound_at``)."""

    def __init__(self, openings: dict[tuple[str, str], int], chunks: int) -> None:
        pairs = list(openings)
        self._firsts = {first: n for n, first in enumerate(dict.fromkeys(f for f, _ in pairs))}
        self._seconds = {key: n for n, key in enumerate(dict.fromkeys(k for _, k in pairs))}
        width = max(len(self._seconds), 1)
        codes = np.array([self._firsts[f] * width + self._seconds[k] for f, k in pairs], np.int64)
        order = np.argsort(codes)
        self.codes = codes[order]
        self.longest = np.array([openings[pair] for pair in pairs], dtype=np.int64)[order]
        self.opening = np.full(chunks if pairs else 0, -1, dtype=np.int32)
        self.following = np.full(chunks if pairs else 0, -1, dtype=np.int32)
        self._width = width

    def add(self, number: int, chunk: str) -> None:
        if len(self.codes):
            first, second = chunk_edges(chunk)
            self.opening[number] = self._firsts.get(first, -1)
            self.following[number] = self._seconds.get(second, -1)

    def starts(self, run: np.ndarray, papers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where in ``run`` (the chunk numbers of papers whose runs start at ``papers``) a
        compound written apart may begin (its first two words begin one, in one paper), and
        the most chunks a compound beginning there has."""
        none = np.zeros(0, dtype=np.int64)
        if len(run) < 2 or not len(self.codes):
            return none, none
        first = self.opening[run[:-1]]
        places = np.flatnonzero(first >= 0)  # few: the rest of the run is read no more
        second = self.following[run[places + 1]]
        same_paper = np.searchsorted(papers, places, "right") == np.searchsorted(
            papers, places + 1, "right"
        )
        kept = (second >= 0) & same_paper
        places, second = places[kept], second[kept]
        codes = first[places].astype(np.int64) * self._width + second
        slots = np.minimum(np.searchsorted(self.codes, codes), len(self.codes) - 1)
        opens = self.codes[slots] == codes
        return places[opens], self.longest[slots[opens]]


class SpacedCompounds:
    """The places of every block of runs (``blocks``: chunk numbers, and where each paper's
    run starts) where a compound written apart may begin, and what each distinct window of
    chunks there holds under the analyzer's rules as they are now (``every`` compound, the
    analyzer's ``apart`` not yet decided)."""

    def __init__(
        self,
        blocks: Iterable[tuple[array, array]],
        chunks: Sequence[str],
        analyzer: CorpusAnalyzer,
        edges: Edges,
    ) -> None:
        self._chunks = chunks
        self._analyzer = analyzer
        self._numbers: dict[tuple[int, ...], int] = {}
        self._windows: list[tuple[int, ...]] = []
        self._every: list[Found] = []
        self._blocks: list[tuple[array, np.ndarray, np.ndarray]] = []
        for occurrences, starts in blocks:
            run = np.frombuffer(occurrences, dtype=np.intc)
            papers = np.frombuffer(starts, dtype=np.int64)
            places, longest = edges.starts(run, papers)
            windows = self._numbered(run, papers, places, longest)
            self._blocks.append((occurrences, places, windows))
        self._every = [self._read(window, every=True) for window in self._windows]

    def _numbered(
        self, run: np.ndarray, papers: np.ndarray, places: np.ndarray, longest: np.ndarray
    ) -> np.ndarray:
        """Each place's window (its chunks up to its compound's longest, within its paper)
        as a number, the same window the same number throughout."""
        if not len(places):
            return np.zeros(0, dtype=np.int64)
        paper_ends = np.append(papers[1:], len(run))
        ends = np.minimum(
            paper_ends[np.searchsorted(papers, places, side="right") - 1], places + longest
        )
        width = int(longest.max())
        at = places[:, None] + np.arange(width)
        rows = np.where(at < ends[:, None], run[np.minimum(at, len(run) - 1)], -1)
        distinct, which = _distinct_rows(rows)
        numbers = np.empty(len(distinct), dtype=np.int64)
        for row, chunks in enumerate(distinct.tolist()):
            window = tuple(chunk for chunk in chunks if chunk >= 0)
            number = self._numbers.get(window)
            if number is None:
                number = self._numbers[window] = len(self._windows)
                self._windows.append(window)
            numbers[row] = number
        return numbers[which.reshape(-1)]

    def _read(self, window: tuple[int, ...], *, every: bool = False) -> Found:
        return self._analyzer.compound_at([self._chunks[c] for c in window], 0, every=every)

    def counted(self) -> Counter[str]:
        """How often the texts write each compound apart (every compound, as
        ``CorpusAnalyzer.compound_uses`` counts them)."""
        return Counter(joined for _, _, _, joined in self._walk(self._every))

    def join(self, first_new: int) -> list[tuple[int, str]]:
        """Give the compounds the analyzer's ``apart`` now keeps their joined token, as
        ``CorpusAnalyzer.tokens`` does: a compound's last chunk is replaced in its run by a
        new chunk, that chunk and the joined token, numbered from ``first_new`` on. Returns
        the new chunks, as (the chunk each extends, the joined token)."""
        apart = self._analyzer.apart
        kept = [
            found if found is None or apart is None or found[1] in apart else self._read(window)
            for window, found in zip(self._windows, self._every, strict=True)
        ]
        added: dict[tuple[int, str], int] = {}
        for occurrences, last, chunk, joined in self._walk(kept):
            occurrences[last] = added.setdefault((chunk, joined), first_new + len(added))
        return list(added)

    def _walk(self, found: list[Found]) -> Iterator[tuple[array, int, int, str]]:
        """Each compound found, read left to right (one starting inside another is not):
        its block's chunk numbers, where its last chunk is in them, that chunk, its token."""
        spans = np.array([0 if each is None else each[0] for each in found], dtype=np.int64)
        for occurrences, places, windows in self._blocks:
            sizes = spans[windows]
            hits = np.flatnonzero(sizes)
            lasts = places[hits] + sizes[hits] - 1
            run = np.frombuffer(occurrences, dtype=np.intc)
            free = 0  # the first place no compound found has taken
            for at, last, chunk, window in zip(
                places[hits].tolist(),
                lasts.tolist(),
                run[lasts].tolist(),
                windows[hits].tolist(),
                strict=True,
            ):
                if at >= free:
                    yield occurrences, last, chunk, found[window][1]  # type: ignore[index]
                    free = last + 1


def _distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``rows`` and each row's among them: by a 64-bit hash of each
    row, a sort of one number a row, then checked row for row (a collision falls back to
    numpy's sort of whole rows, many times slower)."""
    keys = np.zeros(len(rows), dtype=np.uint64)
    for column in rows.T:
        keys = keys * np.uint64(0x9E3779B97F4A7C15) + column.astype(np.uint64)
    _, first, which = np.unique(keys, return_index=True, return_inverse=True)
    distinct = rows[first]
    if np.array_equal(distinct[which], rows):
        return distinct, which
    return np.unique(rows, axis=0, return_inverse=True)
