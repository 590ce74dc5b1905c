"""The reading list: **Save** and **Remove**, a private page of it, and its BibTeX export."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.answers.viewer import Viewer
from bot.buttons import PageCursor, PageKind
from bot.papers.bibtex import bibtex
from bot.papers.catalogue import PaperLookup
from bot.render import export as render_export
from bot.render import papers as render
from bot.render.message import Message
from bot.store import Store

if TYPE_CHECKING:
    from bot.papers.paper import Paper

_LIST_KEY = "me"
"""The key of a reading-list page: a placeholder, since the clicker is known."""


@dataclass(frozen=True)
class Export:
    """A reading list as a file, for the caller to send (``files:write``)."""

    filename: str
    title: str
    content: str
    count: int
    comment: str


def last_page_start(offset: int, total: int, page_size: int) -> int:
    """``offset``, or the start of the last page when removals left ``offset`` past the end."""
    return min(offset, max(total - 1, 0)) // page_size * page_size


@dataclass(frozen=True)
class ReadingList:
    """A person's saved papers, as the store keeps them and the catalogue still knows them."""

    store: Store
    papers: PaperLookup

    def save(self, viewer: Viewer, paper_id: str) -> None:
        """Idempotent, so a double click or a click seen by two processes counts once."""
        self.store.save_paper(viewer.team_id, viewer.user_id, paper_id)

    def remove(self, viewer: Viewer, paper_id: str) -> None:
        self.store.remove_paper(viewer.team_id, viewer.user_id, paper_id)

    def count(self, viewer: Viewer) -> int:
        return self.store.saved_count(viewer.team_id, viewer.user_id)

    def saved_papers(
        self, viewer: Viewer, *, limit: int | None = None, offset: int = 0
    ) -> list[Paper]:
        """Saved papers the bot still knows (a paper can leave a custom corpus)."""
        ids = self.store.saved_papers(viewer.team_id, viewer.user_id, limit=limit, offset=offset)
        return [paper for paper in map(self.papers.get, ids) if paper is not None]

    def saved_among(self, viewer: Viewer, paper_ids: Sequence[str]) -> frozenset[str]:
        return self.store.saved_among(viewer.team_id, viewer.user_id, paper_ids)

    def is_saved(self, viewer: Viewer, paper_id: str) -> bool:
        return paper_id in self.saved_among(viewer, [paper_id])

    def page(self, viewer: Viewer, offset: int = 0) -> Message:
        """``/paper saved``: a private page of the reading list, newest first."""
        total = self.count(viewer)
        offset = last_page_start(offset, total, render.PAGE_SIZE)
        papers = self.saved_papers(viewer, limit=render.PAGE_SIZE, offset=offset)

        def cursor(at: int) -> PageCursor:
            return PageCursor(PageKind.SAVED, _LIST_KEY, at)

        more = offset + render.PAGE_SIZE < total
        return render.saved_list_message(
            papers,
            total=total,
            offset=offset,
            this_page=cursor(offset),
            next_page=cursor(offset + render.PAGE_SIZE) if more else None,
            previous_page=cursor(max(offset - render.PAGE_SIZE, 0)) if offset > 0 else None,
        )

    def export(self, viewer: Viewer) -> Export | None:
        """The reading list as BibTeX, or None when it is empty."""
        papers = self.saved_papers(viewer)
        if not papers:
            return None
        return Export(
            filename="paperbot-reading-list.bib",
            title=render_export.EXPORT_TITLE,
            content=bibtex(papers),
            count=len(papers),
            comment=render_export.export_comment(len(papers)),
        )
