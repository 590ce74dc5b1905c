"""One paper at a time: its private card, its abstract, and the copy shared with a channel."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.answers.reading_list import ReadingList
from bot.answers.viewer import Viewer
from bot.buttons import PageCursor, PageKind, PaperButton
from bot.papers.catalogue import PaperLookup
from bot.render import papers as render
from bot.render.message import Message

if TYPE_CHECKING:
    from bot.papers.paper import Paper


@dataclass(frozen=True)
class PaperCards:
    """Cards for any paper the catalogue knows, with the reader's Save state where the card
    is theirs alone."""

    papers: PaperLookup
    reading_list: ReadingList

    def paper_page(self, paper: Paper, viewer: Viewer, *, intro: str | None = None) -> Message:
        this_page = PageCursor(PageKind.PAPER, paper.id)
        saved = self.reading_list.is_saved(viewer, paper.id)
        return render.paper_message(paper, intro=intro, this_page=this_page, saved=saved)

    def card_page(self, kind: PageKind, paper_id: str, viewer: Viewer) -> Message:
        """A single paper's page (``PageKind.PAPER``), or the private "Saved ✓ · Undo" notice
        about it (``PageKind.NOTICE``)."""
        paper = self.papers.get(paper_id)
        if paper is None:
            return render.not_found_message(paper_id)
        if kind == PageKind.PAPER:
            return self.paper_page(paper, viewer)
        saved = self.reading_list.is_saved(viewer, paper.id)
        this_page = PageCursor(PageKind.NOTICE, paper.id)
        return render.saved_notice_message(paper, saved=saved, this_page=this_page)

    def abstract(self, button: PaperButton, viewer: Viewer, *, public: bool = False) -> Message:
        """The abstract for an **Abstract** click; a private one leads back to its list."""
        paper = self.papers.get(button.paper_id)
        if paper is None:
            return render.not_found_message(button.paper_id)
        if public:
            return render.abstract_message(paper, buttons=render.PUBLIC_BUTTONS)
        return render.abstract_message(
            paper,
            buttons=render.RESULT_BUTTONS,
            back=button.page,
            this_page=PageCursor(PageKind.ABSTRACT, button),
            saved=self.reading_list.is_saved(viewer, paper.id),
        )

    def share(self, paper_id: str, user_id: str) -> Message | None:
        """The public message for a shared paper, or ``None`` when the id is unknown."""
        paper = self.papers.get(paper_id)
        return render.shared_message(paper, user_id) if paper is not None else None
