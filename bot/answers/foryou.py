"""For you: suggestions learned from a person's reading list, **Not relevant** and its
**Undo**, and ``/paper forget me``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.answers.viewer import Viewer
from bot.buttons import HomePlaces, PageCursor, PageKind, PaperButton
from bot.papers.catalogue import PaperLookup
from bot.render import foryou as render_foryou
from bot.render import papers as render
from bot.render.message import Message
from bot.store import Store

if TYPE_CHECKING:
    from bot.search.engine import SearchIndex
    from bot.search.results import ForYou

_LIST_KEY = "me"
"""The key of a For you page: a placeholder, since the clicker is known."""


def _cursor(offset: int) -> PageCursor:
    return PageCursor(PageKind.FOR_YOU, _LIST_KEY, offset)


def for_you_offset(button: PaperButton) -> int:
    """The offset of the For you page a button was on (its first page when it was on none)."""
    page = button.page
    return page.offset if page is not None and page.kind is PageKind.FOR_YOU else 0


@dataclass(frozen=True)
class Suggestions:
    """A person's suggestions, from what the store keeps of them and the index's model."""

    index: SearchIndex
    store: Store
    papers: PaperLookup

    def suggest(self, viewer: Viewer, *, limit: int, offset: int = 0) -> ForYou:
        """A page of suggestions; past the last page (after hides and saves), the last one."""
        saved = self.store.saved_papers(viewer.team_id, viewer.user_id)
        dismissed = self.store.dismissed(viewer.team_id, viewer.user_id)
        result = self.index.for_you(saved, dismissed, limit=limit, offset=offset)
        if result.suggestions or not result.total or offset == 0:
            return result
        last = (result.total - 1) // limit * limit
        return self.index.for_you(saved, dismissed, limit=limit, offset=last)

    def page(
        self, viewer: Viewer, offset: int = 0, *, changed: render_foryou.Changed | None = None
    ) -> Message:
        """``/paper for me`` and its pages; ``changed`` is what the last click did."""
        result = self.suggest(viewer, limit=render.PAGE_SIZE, offset=offset)
        at = result.offset
        more = at + len(result.suggestions) < result.total
        return render_foryou.for_you_message(
            result,
            this_page=_cursor(at),
            next_page=_cursor(at + render.PAGE_SIZE) if more else None,
            previous_page=_cursor(max(at - render.PAGE_SIZE, 0)) if at > 0 else None,
            changed=changed,
        )

    def set_dismissed(self, button: PaperButton, viewer: Viewer, *, dismissed: bool) -> Message:
        """**Not relevant** (the page again, saying which paper went, with **Undo**) or its
        **Undo** (the page again, the paper back in its place); both idempotent."""
        paper = self.papers.get(button.paper_id)
        if paper is None:
            return render.not_found_message(button.paper_id)
        offset = for_you_offset(button)
        if not dismissed:
            self.store.undismiss(viewer.team_id, viewer.user_id, paper.id)
            return self.page(viewer, offset)
        self.store.dismiss(viewer.team_id, viewer.user_id, paper.id)
        changed = render_foryou.Changed(paper, render_foryou.Change.HIDDEN)
        return self.page(viewer, offset, changed=changed)

    def saved_from_page(self, button: PaperButton, viewer: Viewer, *, saved: bool) -> Message:
        """The For you page after **Save** on one of its cards (the paper leaves the
        suggestions, so the page says where it went, with **Undo**) or after that **Undo**."""
        paper = self.papers.get(button.paper_id)
        changed = None
        if saved and paper is not None:
            changed = render_foryou.Changed(paper, render_foryou.Change.SAVED)
        return self.page(viewer, for_you_offset(button), changed=changed)

    def home_section(self, viewer: Viewer, places: HomePlaces) -> list[dict[str, Any]]:
        """The App Home's For you blocks at ``places.for_you``, with **Undo** for the paper
        ``places.hidden`` (the last **Not relevant** there)."""
        result = self.suggest(viewer, limit=render_foryou.HOME_PAGE_SIZE, offset=places.for_you)
        hidden_paper = self.papers.get(places.hidden) if places.hidden else None
        return render_foryou.home_blocks(result, places, hidden=hidden_paper)

    def set_hidden(self, viewer: Viewer, paper_id: str, *, hidden: bool) -> None:
        """**Not relevant** in the App Home, or its **Undo** (both idempotent)."""
        if hidden:
            self.store.dismiss(viewer.team_id, viewer.user_id, paper_id)
        else:
            self.store.undismiss(viewer.team_id, viewer.user_id, paper_id)

    def forget(self, viewer: Viewer) -> Message:
        """``/paper forget me``: everything kept about the person deleted, and what it was."""
        deleted = self.store.forget_person(viewer.team_id, viewer.user_id)
        return render_foryou.forgotten_message(deleted)
