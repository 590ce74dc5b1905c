"""A page of search results on a private list: its paging buttons, the reader's Save state,
and what to say when a page comes back empty."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.answers.reading_list import ReadingList
from bot.answers.viewer import Viewer
from bot.buttons import PageCursor, PageKey, PageKind, RelatedTarget
from bot.render import papers as render
from bot.render.message import Message
from bot.render.replies import Aside, RelatedTo, page_footer
from bot.store import DatabaseUnavailable

if TYPE_CHECKING:
    from bot.search.engine import SearchIndex
    from bot.search.results import SearchResult


def has_more(result: SearchResult) -> bool:
    return result.offset + len(result.hits) < result.total


@dataclass(frozen=True)
class ResultPages:
    """Pages of results for every private list (``/paper``, **More like this**, related
    papers) and the ends of every list, threads' included."""

    index: SearchIndex
    reading_list: ReadingList
    wider_corpus: Callable[[], str | None]
    """The hint that more papers exist elsewhere (``Answers.wider_corpus``), as it is now."""

    def hint(self, result: SearchResult, page_size: int) -> str | None:
        """The wider corpus, when a search found nothing or less than a page."""
        found_little = result.offset == 0 and len(result.hits) < page_size
        return self.wider_corpus() if found_little and result.usage is None else None

    def nothing_more(
        self, result: SearchResult, first: Callable[[], SearchResult] | None = None
    ) -> Message:
        """No hits: nothing matched, or a page past the last one. Past the last page, that
        was all, and the best hit's **More like this** is where to go next (``first`` runs
        the same search for its best hit; by default, ``/paper``'s search)."""
        if not result.offset:
            return render.results_message(result, footer=self.hint(result, 1))
        if first is None and result.similar_to is not None:
            best = self.index.like_paper(result.similar_to, limit=1)
        elif first is None:
            best = self.index.search(result.query, limit=1)
        else:
            best = first()
        return render.end_of_results_message(result, best.hits[0].paper if best.hits else None)

    def page(
        self,
        result: SearchResult,
        kind: PageKind,
        key: PageKey | None,
        viewer: Viewer,
        *,
        about: RelatedTo | None = None,
        post_in_thread: RelatedTarget | None = None,
        aside: Aside | None = None,
    ) -> Message:
        """A private page; with no ``key`` (its search could not be remembered) it has no
        paging buttons and says so, and its cards lead back to no list. ``aside`` says how
        a ``/paper new …`` text was read as this search."""
        offset = result.offset
        next_page = previous_page = this_page = None
        if key is not None and has_more(result):
            next_page = PageCursor(kind, key, offset + len(result.hits))
        if key is not None and offset > 0:
            previous_page = PageCursor(kind, key, max(offset - render.PAGE_SIZE, 0))
        if key is not None:
            this_page = PageCursor(kind, key, offset)
        footer = self.footer(result, remembered=key is not None)
        return render.results_message(
            result,
            next_page=next_page,
            previous_page=previous_page,
            this_page=this_page,
            saved=self._saved_among(result, viewer),
            about=about,
            post_in_thread=post_in_thread,
            footer=footer,
            aside=aside,
        )

    def footer(self, result: SearchResult, *, remembered: bool) -> str | None:
        """Below a private page: why **Next** is missing, and the wider corpus's hint."""
        return page_footer(
            more=has_more(result), hint=self.hint(result, render.PAGE_SIZE), remembered=remembered
        )

    def _saved_among(self, result: SearchResult, viewer: Viewer) -> frozenset[str]:
        return self.saved_among([hit.paper.id for hit in result.hits], viewer)

    def saved_among(self, paper_ids: list[str], viewer: Viewer) -> frozenset[str]:
        """Which of the papers the viewer saved; none while the database is unavailable, so
        the results still show (a second **Save** is harmless)."""
        try:
            return self.reading_list.saved_among(viewer, paper_ids)
        except DatabaseUnavailable:
            return frozenset()
