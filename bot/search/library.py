"""The library: which index answers now, one index per request, swapped at once.

A process holds one ``Library``. Its ``index`` is the ``SearchIndex`` searches read; a new
one (a first build at start-up, the same papers and more after ``add``) is built off to the
side while searches go on over the old one, then put in its place by one assignment
(``swap``): no search ever waits for a build.

**One index per request.** A request may ask the index several times (a search, then the
same search again for the best hit of an empty page; a paper's card, then its neighbours).
Inside ``request()`` the first question pins the index current at that moment and every
later one, on that thread, gets the same index, even if a swap happened meanwhile; outside a
request each question reads the current one. The served bot runs every listener's work in a
request (``bot.slack.work.WorkPool``'s ``scope``).

**Paging across a swap.** A page (**Next 5**, ``@paperbot more``) is its query run again, at
its offset, on the index current when it is asked for. Papers added since may rank ahead of
the ones already shown and shift the later pages by as many places, as any search engine
whose corpus grows does; nothing is lost or shown from a mixture of two indexes.

**What a swap replaces is freed.** Nothing but the library and the requests pinning it holds
an index, and an index has no reference cycles (``tests/test_library.py`` checks it with the
collector off), so its memory goes back when its last request ends, by reference counting
alone: the served bot's ``gc.freeze`` at start-up, which takes the first index out of the
collector's sight, does not keep it alive. Freed is not yet returned: glibc's allocator keeps
the freed arenas for the next allocations and the process's memory would only ever rise by
each swap's peak, so after a swap and after an addition, once nothing of the replaced index
is held on this thread, the library asks it to give the free pages back (``malloc_trim``;
nothing elsewhere).

**New papers** go through ``add`` alone (see ``bot.search.growth``), from any thread, one
addition at a time: the longer index is built off to the side, the prepared parts of the
old one extended by the new papers (the typo correctors, the author index, the id lookups)
rather than built again, then swapped in.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

import numpy as np

from bot.papers.paper import Paper

if TYPE_CHECKING:
    from bot.search.engine import SearchIndex
    from bot.search.foryou import ForYou
    from bot.search.query import ParsedQuery
    from bot.search.results import Liked, SearchResult

log = logging.getLogger(__name__)


def _load_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, where the C library is glibc."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        return ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None


_malloc_trim = _load_trim()


def return_freed_memory() -> None:
    """Give the allocator's free pages back to the operating system (see the module's
    docstring); a no-op where the C library has no ``malloc_trim``."""
    if _malloc_trim is not None:
        _malloc_trim(0)


class NotReady(RuntimeError):
    """The library has no index yet (the first one is still being built)."""


class Library:
    """The current ``SearchIndex`` of a process; ``index`` is None-free once ``ready``."""

    def __init__(self, index: SearchIndex | None = None) -> None:
        self._index = index
        self._ready = threading.Event()
        if index is not None:
            self._ready.set()
        self._pin: ContextVar[list[SearchIndex] | None] = ContextVar("pinned", default=None)
        self._adding = threading.Lock()
        self.swaps = 0
        """How many times an index was put in place (the first one counts)."""

    @property
    def ready(self) -> bool:
        """Whether an index answers (until then the served bot turns requests away)."""
        return self._ready.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until an index answers; whether one does."""
        return self._ready.wait(timeout)

    @property
    def index(self) -> SearchIndex:
        """The index this request reads (see ``request``), else the current one. Before the
        first index is in, this waits for it: only the digest's schedule can ask then, as
        the served bot turns requests away until it is ``ready``."""
        pin = self._pin.get()
        if pin:
            return pin[0]
        index = self._index
        if index is None:
            self._ready.wait()
            index = self._index
            assert index is not None
        if pin is not None:
            pin.append(index)
        return index

    @contextmanager
    def request(self) -> Iterator[None]:
        """One request: every ``index`` read inside gets the index the first one got. A
        request inside a request keeps the outer one's index."""
        if self._pin.get() is not None:
            yield
            return
        token = self._pin.set([])
        try:
            yield
        finally:
            self._pin.reset(token)

    def swap(self, index: SearchIndex) -> None:
        """Put ``index`` in place; requests already running keep the one they pinned."""
        self._index = index
        self.swaps += 1
        self._ready.set()
        return_freed_memory()

    def view(self) -> CurrentIndex:
        """What the answers and the digest hold instead of an index."""
        return CurrentIndex(self)

    def add(self, papers: Sequence[Paper], vectors: Sequence[np.ndarray | None] = ()) -> int:
        """Add ``papers`` (ids the index already has are left out) with their text vectors
        where known, the others embedded later by ``prepare``; how many were added. Safe
        from any thread while searches run; additions run one at a time.

        The papers are searchable once merged, in seconds; the rankings are then exactly
        those of an index built over all the papers at once, except where they teach the
        analyzer a compound: that index is built again on this thread and swapped in when
        done (``bot.search.growth``)."""
        with self._adding:
            added = self._add(papers, vectors)
        return_freed_memory()  # the first extension, held until now, is gone
        return added

    def _add(self, papers: Sequence[Paper], vectors: Sequence[np.ndarray | None]) -> int:
        """``add`` under the lock."""
        base = self._index
        if base is None:
            raise NotReady("the index is still being built")
        started = time.monotonic()
        fresh = [(p, v) for p, v in _with_vectors(papers, vectors) if base.get(p.id) is None]
        fresh = list({paper.id: (paper, v) for paper, v in fresh}.values())
        if not fresh:
            return 0
        grown = base.extended([p for p, _ in fresh], [v for _, v in fresh])
        self.put(grown)
        log.info(
            "library: added %d papers (%d in all) in %.1f s",
            len(fresh),
            len(grown.papers),
            time.monotonic() - started,
        )
        return len(fresh)

    def put(self, index: SearchIndex) -> None:
        """Prepare ``index`` and swap it in; when it is an unsettled extension, build it
        again as a full build would and swap that in too (the caller waits for both)."""
        index.prepare(embed=False)
        self.swap(index)
        if index.settled:
            return
        started = time.monotonic()
        settled = index.settle()
        settled.prepare(embed=False)
        self.swap(settled)
        log.info(
            "library: new compounds, index built again (%d papers) in %.1f s",
            len(settled.papers),
            time.monotonic() - started,
        )


def _with_vectors(
    papers: Sequence[Paper], vectors: Sequence[np.ndarray | None]
) -> Iterator[tuple[Paper, np.ndarray | None]]:
    if vectors and len(vectors) != len(papers):
        raise ValueError("one vector (or None) per paper, or none at all")
    for at, paper in enumerate(papers):
        yield paper, (vectors[at] if vectors else None)


class CurrentIndex:
    """Stands where a ``SearchIndex`` is read: each call asks the library which index this
    request reads (``Library.index``), so the answers and the digest, built once at start-up,
    follow every swap. Its methods are the index's, by the same names."""

    def __init__(self, library: Library) -> None:
        self._library = library

    @property
    def papers(self) -> tuple[Paper, ...]:
        return self._library.index.papers

    def get(self, ref: str) -> Paper | None:
        return self._library.index.get(ref)

    def parse(self, query: str) -> ParsedQuery:
        return self._library.index.parse(query)

    def paper_reference(self, query: str) -> str | None:
        return self._library.index.paper_reference(query)

    def search(self, query: str, *, limit: int = 5, offset: int = 0) -> SearchResult:
        return self._library.index.search(query, limit=limit, offset=offset)

    def similar(self, paper_id: str, *, limit: int = 5, offset: int = 0) -> SearchResult:
        return self._library.index.similar(paper_id, limit=limit, offset=offset)

    def like_paper(self, paper: Paper, *, limit: int = 5, offset: int = 0) -> SearchResult:
        return self._library.index.like_paper(paper, limit=limit, offset=offset)

    def related(self, text: str, *, limit: int = 5, offset: int = 0) -> SearchResult:
        return self._library.index.related(text, limit=limit, offset=offset)

    def results(self, query: str) -> list[Paper]:
        return self._library.index.results(query)

    def for_you(
        self, saved: Sequence[str], dismissed: Sequence[str], *, limit: int = 5, offset: int = 0
    ) -> ForYou:
        return self._library.index.for_you(saved, dismissed, limit=limit, offset=offset)

    @property
    def announced_papers(self) -> tuple[Paper, ...]:
        return self._library.index.announced_papers

    def by_taste(
        self, candidates: Sequence[str], taste: Mapping[str, float]
    ) -> tuple[Liked, ...] | None:
        return self._library.index.by_taste(candidates, taste)
