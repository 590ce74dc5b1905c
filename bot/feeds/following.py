"""Following the store: the papers the feeds ingested become searchable in every process.

One process ingests (``bot.feeds.ingest``) and stores each paper once, with its vectors; every
process that answers (the HTTP and Socket Mode bots, ``paperbot digest``) reads them back by
watermark (``Store.papers_since``) and puts them in its own library. Only when feeds are
followed (``PAPERBOT_FEEDS``): without them nothing reads the store and no thread starts.

**When.** Once as soon as the index is loaded (everything stored so far: watermark 0), then
every ``PAPERBOT_WATCH_SECONDS`` on a daemon thread, the interval the digest's scheduler
watches its subscriptions at: a paper stored anywhere is searchable everywhere within it.

**How.** The shipped corpus stays the base. A paper new to the index goes in through
``Library.add`` with its stored text vector of the index's own model (``SearchIndex.model``;
another model's are never mixed in, and without a model none are asked for), ranking as a
rebuild would. A paper the index already holds is one of two things: an ingested paper that
changed (an arXiv ``replace``, an OpenReview decision), or a catalogue paper with the same
OpenReview id, which stays as the catalogue has it and is never added twice. A change cannot
be merged (``add`` keeps existing ids), so the index is built again: the base index extended
by every ingested paper in its current version (``SearchIndex.extended``), prepared on this
thread and swapped in (``Library.put``, which builds it again where the papers teach a new
compound, so the rankings end exactly as a full build's); searches go on over the old one
meanwhile. The base index is kept for that, at the cost of holding it beside
the current one; extending it spares re-analysing the corpus and re-reading its vectors.
A paper added before its vectors were stored (``paperbot embed`` after a model change) comes
back when they are, and is counted as changed: it then ranks by its vectors too.

**Failures.** A tick that fails (the database down, a row that cannot be read) is logged,
once per run of failures, and leaves the watermark where it was: the next tick reads the
same papers again. The thread never dies of it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

import numpy as np

from bot.papers.paper import Paper
from bot.search.engine import SearchIndex
from bot.search.library import Library
from bot.store import Store, first_line

log = logging.getLogger(__name__)


class Follower:
    """Keeps one library in step with the store's ingested papers; ``tick`` is one step."""

    def __init__(
        self,
        library: Library,
        store: Store,
        interval: float,
        *,
        wait: Callable[[float], bool] | None = None,
    ) -> None:
        """``library`` must hold its base index already. ``wait(seconds)`` pauses between
        ticks and says whether to stop (by default: until ``close``)."""
        self._library = library
        self._store = store
        self._interval = interval
        self._base = library.index
        self._stopped = threading.Event()
        self._wait = wait or self._stopped.wait
        self._watermark = 0
        self._ingested: dict[str, Paper] = {}
        self._unvectored: set[str] = set()
        self._failing = False
        self._thread: threading.Thread | None = None
        self.rebuilds = 0
        """How many times a changed paper made the index be built again."""

    def start(self) -> None:
        """Tick now, then every interval, on a daemon thread, until ``close``."""
        self._thread = threading.Thread(target=self._run, name="follow-feeds", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stopped.set()

    def _run(self) -> None:
        self.tick()
        while not self._wait(self._interval) and not self._stopped.is_set():
            self.tick()

    def tick(self) -> int:
        """Read what was stored since the last tick and put it in the library; how many
        papers were new or changed (0 as well when the store could not be read)."""
        try:
            papers, watermark = self._store.papers_since(self._watermark)
            taken = self._take(papers)
        except Exception as error:
            if not self._failing:
                log.warning(
                    "feeds: ingested papers cannot be read into the index; retrying every %g s: %s",
                    self._interval,
                    first_line(error),
                    exc_info=not isinstance(error, OSError | ConnectionError),
                )
            self._failing = True
            return 0
        if self._failing:
            log.info("feeds: ingested papers are read into the index again")
        self._failing = False
        self._watermark = watermark
        return taken

    def _take(self, papers: Sequence[Paper]) -> int:
        index = self._library.index
        new: dict[str, Paper] = {}
        changed: dict[str, Paper] = {}
        for paper in papers:
            if paper.id in self._ingested:
                if self._ingested[paper.id] != paper or paper.id in self._unvectored:
                    changed[paper.id] = paper
            elif index.get(paper.id) is None:
                new[paper.id] = paper
        if changed:
            current = {**self._ingested, **changed, **new}
            self._rebuild(list(current.values()))
            self._ingested = current
        elif new:
            fresh = list(new.values())
            self._library.add(fresh, self._vectors(fresh))
            self._ingested.update(new)
        return len(new) + len(changed)

    def _rebuild(self, ingested: Sequence[Paper]) -> None:
        index = self._base.extended(ingested, self._vectors(ingested))
        self._library.put(index)
        self.rebuilds += 1
        log.info(
            "feeds: ingested papers changed; index built again (%d papers, %d ingested)",
            len(index.papers),
            len(ingested),
        )

    def _vectors(self, papers: Sequence[Paper]) -> list[np.ndarray | None]:
        model = self._base.model
        if model is None:
            return []
        found = self._store.ingested_vectors([paper.id for paper in papers], model)
        self._unvectored.difference_update(found)
        self._unvectored.update(paper.id for paper in papers if paper.id not in found)
        return [found[paper.id].text if paper.id in found else None for paper in papers]


def follow(library: Library, store: Store, feeds: bool, interval: float) -> Follower | None:
    """Start following (see the module) when ``feeds`` are followed; the follower to close."""
    if not feeds:
        return None
    follower = Follower(library, store, interval)
    follower.start()
    return follower


def followed_once(library: Library, store: Store, feeds: bool) -> SearchIndex:
    """For a one-shot command: the library's index with what is stored now, read once."""
    if feeds:
        Follower(library, store, 0).tick()
    return library.index
