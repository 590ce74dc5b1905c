"""``/paper`` searches and **More like this**: private pages of results, and the one question
asked before searching, whether the query names a single paper."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.answers.paging import ResultPages
from bot.answers.viewer import Viewer
from bot.buttons import PageKind
from bot.papers.catalogue import PaperLookup
from bot.render import papers as render
from bot.render.message import Message
from bot.render.replies import Aside
from bot.store import SEARCH, DatabaseUnavailable, Store

if TYPE_CHECKING:
    from bot.papers.paper import Paper
    from bot.search.engine import SearchIndex


@dataclass(frozen=True)
class PrivateSearches:
    """Private result lists, remembered by key so **Next 5** and **Back to results** work."""

    index: SearchIndex
    store: Store
    papers: PaperLookup
    pages: ResultPages

    def named_paper(self, query: str) -> Paper | None:
        """The paper a query names (search decides whether it names one, see
        ``SearchIndex.paper_reference``). A catalogue paper outside the corpus searched is
        still one to show, not a word to search for."""
        reference = self.index.paper_reference(query)
        return self.papers.get(reference) if reference else None

    def search(
        self, query: str, viewer: Viewer, offset: int = 0, *, aside: Aside | None = None
    ) -> Message:
        """A page of ``/paper`` results, with **Previous 5**/**Next 5** where there are more.

        The query is remembered under a short key even on a single page, so an abstract
        opened from the list can lead back to it; while the database is unavailable the
        page has no paging buttons and says so. ``aside`` says how a ``/paper new …`` text
        was read as this search.
        """
        result = self.index.search(query, limit=render.PAGE_SIZE, offset=offset)
        if not result.hits:
            return self.pages.nothing_more(result)
        key = self.remembered(query)
        return self.pages.page(result, PageKind.QUERY, key, viewer, aside=aside)

    def remembered(self, query: str, kind: str = SEARCH) -> str | None:
        """The query's key for the paging buttons, or None while the database cannot keep
        it: searching needs no database, so the page is shown without them."""
        try:
            return self.store.remember_query(query, kind)
        except DatabaseUnavailable:
            return None

    def remembered_page(self, key: str, viewer: Viewer, offset: int) -> Message:
        """A page of a search remembered under ``key``, unless it has expired."""
        remembered = self.store.recall_query(key)
        if remembered is None or remembered.kind != SEARCH:
            return render.expired_message()
        return self.search(remembered.query, viewer, offset)

    def more_like_this(self, paper_id: str, viewer: Viewer, offset: int = 0) -> Message:
        """**More like this**, also on a catalogue paper outside the corpus searched (from a
        link preview or a reading list): its neighbours in the corpus."""
        paper = self.papers.get(paper_id)
        if paper is None:
            return render.not_found_message(paper_id)
        result = self.index.like_paper(paper, limit=render.PAGE_SIZE, offset=offset)
        if not result.hits:
            return self.pages.nothing_more(result)
        return self.pages.page(result, PageKind.SIMILAR, paper_id, viewer)
