"""The papers of a saved index: one JSON line each, read from the memory-mapped file when asked.

A corpus's papers, as Python objects, are most of what a process holds (at 100,000 papers,
some 300 MB of strings and records, against 40 MB for everything else an opened index builds
for itself). Read from a snapshot one by one instead (``SavedPapers``), they stay in the page
cache every process on the host shares; a process builds only the papers it is asked for
(a page of hits, a card, a phrase's candidates), keeps the most recent, and holds their ids.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields
from datetime import date, datetime
from typing import Any, overload

import numpy as np

from bot.papers.paper import Paper
from bot.search.mapped import Layered

IdLookups = tuple[Mapping[str, int], Mapping[str, int]]
"""A paper's number by its id, and by its id case-folded (``id_lookups``)."""

_NAMES = tuple(field.name for field in fields(Paper))
_TUPLES = tuple(
    index for index, paper_field in enumerate(fields(Paper)) if "tuple" in str(paper_field.type)
)
_DATES = tuple(
    (_NAMES.index(name), parse)
    for name, parse in (
        ("announced", date.fromisoformat),
        ("published", datetime.fromisoformat),
        ("updated", datetime.fromisoformat),
    )
)
_ABSTRACT, _PLAIN = _NAMES.index("abstract"), _NAMES.index("plain_abstract")


def paper_line(paper: Paper) -> str:
    """A paper as one JSON array of its fields in order: a field derived on first read and not
    read yet (the TL;DR) is null, and a plain abstract the same as the abstract is null too,
    so the opened paper holds one string for both."""
    row: list[Any] = []
    for name in _NAMES:
        try:
            value = object.__getattribute__(paper, name)  # an empty slot is not derived here
        except AttributeError:
            value = None
        row.append(value.isoformat() if isinstance(value, date) else value)
    if row[_PLAIN] == row[_ABSTRACT]:
        row[_PLAIN] = None
    return json.dumps(row, ensure_ascii=False, separators=(",", ":"))


def paper_of(line: str) -> Paper:
    row = json.loads(line)
    for at in _TUPLES:
        row[at] = tuple(row[at])
    for at, parse in _DATES:
        if row[at] is not None:
            row[at] = parse(row[at])
    if row[_PLAIN] is None:
        row[_PLAIN] = row[_ABSTRACT]
    return Paper(*row)


KEPT = 4096
"""Papers an opened index keeps built (about 10 MB): a page of hits and its cards, a
phrase's candidates, the papers a digest rotation draws from."""


class SavedPapers(Sequence[Paper]):
    """The papers of a snapshot in index order, each built from its line when asked for
    (the ``KEPT`` most recent kept), then the papers added since, held as they came."""

    def __init__(
        self,
        text: np.ndarray,
        starts: np.ndarray,
        ids: Sequence[str],
        openreview_ids: Sequence[str | None],
        added: tuple[Paper, ...] = (),
        *,
        lookups: IdLookups | None = None,
    ) -> None:
        """``text`` holds the lines (bytes), line ``n`` from ``starts[n]`` to ``starts[n +
        1]``; ``ids`` and ``openreview_ids`` are each saved paper's (an empty OpenReview id
        is none), and ``lookups``, when saved, their ``id_lookups``."""
        self._text, self._starts = text, starts
        self._saved = len(starts) - 1
        self._ids, self._openreview_ids = ids, openreview_ids
        self._added = added
        self._lookups = lookups
        self._recent: OrderedDict[int, Paper] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return self._saved + len(self._added)

    @overload
    def __getitem__(self, at: int) -> Paper: ...

    @overload
    def __getitem__(self, at: slice) -> tuple[Paper, ...]: ...

    def __getitem__(self, at: int | slice) -> Paper | tuple[Paper, ...]:
        if isinstance(at, slice):
            return tuple(self[n] for n in range(*at.indices(len(self))))
        if at < 0:
            at += len(self)
        if not 0 <= at < len(self):
            raise IndexError("paper number out of range")
        if at >= self._saved:
            return self._added[at - self._saved]
        with self._lock:
            paper = self._recent.get(at)
            if paper is not None:
                self._recent.move_to_end(at)
                return paper
        start, end = int(self._starts[at]), int(self._starts[at + 1])
        paper = paper_of(self._text[start:end].tobytes().decode("utf-8"))
        with self._lock:
            self._recent[at] = paper
            if len(self._recent) > KEPT:
                self._recent.popitem(last=False)
        return paper

    def __add__(self, more: Iterable[Paper]) -> SavedPapers:
        """These papers and ``more`` after them (an addition), the saved ones still read
        from the file."""
        added = (*self._added, *more)
        return SavedPapers(
            self._text,
            self._starts,
            self._ids,
            self._openreview_ids,
            added,
            lookups=self._lookups,
        )

    def keys(self) -> list[tuple[str | None, ...]]:
        """Each paper's id and the ids its links name, without building a saved paper (a
        saved paper, of the shipped corpus, is linked by its OpenReview id alone)."""
        saved = zip(self._ids, (i or None for i in self._openreview_ids), strict=True)
        return [*saved, *((paper.id, *paper.link_ids) for paper in self._added)]

    def lookups(self) -> IdLookups:
        """``id_lookups`` of these papers: the saved tables, read where they are mapped,
        with the keys of the papers added since beside them."""
        if self._lookups is None:
            return _id_dicts(enumerate(self.keys()))
        by_id, by_folded_id = self._lookups
        added = ((self._saved + n, (p.id, *p.link_ids)) for n, p in enumerate(self._added))
        more_by_id, more_by_folded_id = _id_dicts(added, self._lookups)
        if not more_by_id and not more_by_folded_id:
            return self._lookups
        return Layered(by_id, more_by_id), Layered(by_folded_id, more_by_folded_id)


def id_lookups(papers: Sequence[Paper], before: tuple[IdLookups, int] | None = None) -> IdLookups:
    """Where each paper is by its ids (``lookup_keys``): by the id as written, and by the id
    case-folded (a key folding changes nothing is itself); an id two papers share finds the
    first. ``before``, the lookups of the first of ``papers`` and how many those are (an
    addition), are copied and extended by the others' keys rather than made again, unless
    the papers are saved ones, whose saved tables stay mapped (``SavedPapers.lookups``)."""
    if isinstance(papers, SavedPapers):
        return papers.lookups()
    if before is None:
        return _id_dicts(enumerate(lookup_keys(papers)))
    (by_id, by_folded_id), first = before
    more_by_id, more_by_folded_id = _id_dicts(
        enumerate(lookup_keys(papers[first:]), first), (by_id, by_folded_id)
    )
    return {**by_id, **more_by_id}, {**by_folded_id, **more_by_folded_id}


def _id_dicts(
    numbered: Iterable[tuple[int, tuple[str | None, ...]]], known: IdLookups = ({}, {})
) -> tuple[dict[str, int], dict[str, int]]:
    """The lookups of the numbered papers' keys, leaving out the keys ``known`` has."""
    by_id: dict[str, int] = {}
    by_folded_id: dict[str, int] = {}
    known_id, known_folded = known
    for doc, keys in numbered:
        for key in keys:
            if key:
                if key not in known_id:
                    by_id.setdefault(key, doc)
                folded = key.casefold()  # the key itself where folding changes nothing
                folded = key if folded == key else folded
                if folded not in known_folded:
                    by_folded_id.setdefault(folded, doc)
    return by_id, by_folded_id


def lookup_keys(papers: Sequence[Paper]) -> list[tuple[str | None, ...]]:
    """Each paper's id and the ids its links name (``Paper.link_ids``), which a search index
    finds papers by (of saved papers, without building them)."""
    if isinstance(papers, SavedPapers):
        return papers.keys()
    return [(paper.id, *paper.link_ids) for paper in papers]


def paper_ids(papers: Sequence[Paper]) -> list[str]:
    """Each paper's id (of saved papers, without building them): what ties are broken by,
    which need not parse every paper's links as ``lookup_keys`` does."""
    if isinstance(papers, SavedPapers):
        return [*papers._ids, *(paper.id for paper in papers._added)]
    return [paper.id for paper in papers]
