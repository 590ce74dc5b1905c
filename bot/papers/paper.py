"""The paper record every layer shares.

It lives in its own module so that search, rendering and storage can depend on the shape of
a paper without depending on how the corpus files are parsed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime

from bot.papers.openreview import openreview_link_id
from bot.papers.summary import paper_tldr

ACCEPTED_STATUSES = frozenset({"Oral", "Spotlight", "Poster"})
"""The catalogue's decisions for an accepted paper (others: rejected, withdrawn, …)."""
ARXIV_SOURCE, OPENREVIEW_SOURCE = "arxiv", "openreview"
"""The ``source`` of a paper a feed brought (a corpus file's papers name their file)."""
FEED_SOURCES = (ARXIV_SOURCE, OPENREVIEW_SOURCE)
CATALOGUE_VENUE = "ICLR 2025"
"""The conference of every paper the catalogue and the seeds hold."""


@dataclass(frozen=True, slots=True)
class Paper:
    """One paper the bot knows, immutable once loaded.

    The abstract comes in two forms because each consumer needs a different one:
    ``abstract`` is the author's original (whitespace collapsed), the source of what render
    shows, and ``plain_abstract`` feeds the index and the TL;DR.

    ``tldr`` may be left out (None): it is then derived from the abstract the first
    time it is read. Only the few papers a reader is shown ever need it, and summarising
    every paper was a large part of the time to load 100,000. Reading it always gives text.

    ``authors_in_order`` is true only where the catalogue vouches that ``authors`` is in the
    paper's own order; elsewhere the list is alphabetical and names no first author.

    The fields after ``tldr`` are known only for a paper a feed brought (arXiv, OpenReview;
    ``bot.feeds``): its arXiv id without version and the version, its venue and decision,
    when it was announced, published and last updated, ``pages``, the abstract pages and
    PDFs of every source that gave it (one paper on arXiv and OpenReview has both), and its
    arXiv ``categories`` (``cs.LG``), the primary one first.
    """

    id: str
    title: str
    authors: tuple[str, ...]
    status: str | None
    url: str | None
    abstract: str | None
    plain_abstract: str
    code_urls: tuple[str, ...]
    links: tuple[str, ...]
    title_derived: bool
    source: str
    authors_in_order: bool = False
    tldr: str = None  # type: ignore[assignment]
    arxiv_id: str | None = None
    arxiv_version: int | None = None
    venue: str | None = None
    decision: str | None = None
    announced: date | None = None
    published: datetime | None = None
    updated: datetime | None = None
    pages: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # An emptied slot makes the first read fall through to ``__getattr__``, which fills
        # it; every later read is a plain slot read.
        for name in _DERIVED:
            if getattr(self, name) is None:
                object.__delattr__(self, name)

    def __getattr__(self, name: str) -> str:
        derive = _DERIVED.get(name)
        if derive is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        value = derive(self)
        object.__setattr__(self, name, value)
        return value

    @property
    def accepted(self) -> bool:
        return self.status in ACCEPTED_STATUSES

    @property
    def from_feed(self) -> bool:
        """Whether a feed brought the paper, rather than a corpus file (the catalogue)."""
        return self.source in FEED_SOURCES

    @property
    def openreview_id(self) -> str | None:
        """The OpenReview forum id, when the paper has one (hash ids start with ``h``)."""
        return openreview_link_id(self.url) if self.url else None


_DERIVED: dict[str, Callable[[Paper], str]] = {
    "tldr": lambda paper: paper_tldr(
        paper.abstract, paper.plain_abstract, None if paper.title_derived else paper.title
    ),
}
