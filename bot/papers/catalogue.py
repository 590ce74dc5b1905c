"""Papers by OpenReview link, across the whole ICLR 2025 catalogue.

Searching covers the configured corpus; a pasted link may name any catalogue paper, and a
reading list may hold papers from an unfurl. ``PaperLookup`` answers both: the corpus first
(seed papers there carry their full abstracts), then the catalogue, read once on first use or
by ``prepare`` in the background at start-up.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from bot.papers.corpus import catalogue_by_openreview_id
from bot.papers.paper import Paper
from bot.papers.urls import linked_paper_id


class PaperLookup:
    """A paper by id from the corpus, else from the catalogue."""

    def __init__(
        self,
        corpus_get: Callable[[str], Paper | None],
        load_catalogue: Callable[[], dict[str, Paper]] = catalogue_by_openreview_id,
    ) -> None:
        self._corpus_get = corpus_get
        self._load_catalogue = load_catalogue
        self._catalogue: dict[str, Paper] | None = None
        self._lock = threading.Lock()

    def prepare(self) -> None:
        """Read the catalogue now, so the first link pasted does not wait for it."""
        self._papers()

    def _papers(self) -> dict[str, Paper]:
        if self._catalogue is None:
            with self._lock:
                if self._catalogue is None:
                    self._catalogue = self._load_catalogue()
        return self._catalogue

    def get(self, reference: str) -> Paper | None:
        """The paper a paper id, OpenReview id or a link to its OpenReview or arXiv page names."""
        reference = reference.strip()
        paper = self._corpus_get(reference)
        if paper is None and reference:
            paper = self._papers().get(linked_paper_id(reference) or reference)
        return paper
