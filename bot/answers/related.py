"""The message shortcut "Find related papers": a private list for any message, and **Post in
thread**, which posts the same papers where the bot may post."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.answers.paging import ResultPages
from bot.answers.threads import THREAD_QUERY_CHARS, ThreadReplies
from bot.answers.viewer import Viewer
from bot.buttons import PageKind, RelatedTarget
from bot.render import papers as render
from bot.render.message import Message
from bot.render.replies import RelatedTo, message_without_words_message
from bot.store import RELATED, Remembered, Store

if TYPE_CHECKING:
    from bot.search.engine import SearchIndex


@dataclass(frozen=True)
class RelatedToMessage:
    """Related papers, remembered by the message's text so their pages and **Post in
    thread** work after the shortcut's request is long gone."""

    index: SearchIndex
    store: Store
    pages: ResultPages
    threads: ThreadReplies

    def first_page(self, text: str, viewer: Viewer, *, post_to: tuple[str, str] | None) -> Message:
        """Private related papers for a message shortcut; ``post_to`` is the (channel,
        thread) they may be posted in, when the bot can post there."""
        if not text.strip():
            return message_without_words_message()
        key = self.store.remember_query(text[:THREAD_QUERY_CHARS], RELATED)
        return self.page(RelatedTarget(key, post_to), viewer, 0)

    def page(self, target: RelatedTarget, viewer: Viewer, offset: int) -> Message:
        """A page of related papers: the first, or **Next**, **Previous** or **Back to
        results** on their list."""
        remembered = self._recall(target)
        if remembered is None:
            return render.expired_message()
        result = self.index.related(remembered.query, limit=render.PAGE_SIZE, offset=offset)
        if not result.hits:
            return render.results_message(result)
        return self.pages.page(
            result,
            PageKind.RELATED,
            target,
            viewer,
            about=RelatedTo.MESSAGE,
            post_in_thread=target if target.post_to is not None else None,
        )

    def post(
        self, target: RelatedTarget, team_id: str | None = None
    ) -> tuple[str, str, Message] | None:
        """The public thread reply for **Post in thread**: (channel, thread ts, message);
        ``team_id`` is the channel's workspace."""
        remembered = self._recall(target)
        if remembered is None or target.post_to is None:
            return None
        channel, thread_ts = target.post_to
        page = self.threads.page(
            remembered, channel, thread_ts, 0, about=RelatedTo.MESSAGE, team_id=team_id
        )
        return channel, thread_ts, page

    def _recall(self, target: RelatedTarget) -> Remembered | None:
        remembered = self.store.recall_query(target.text_key)
        return remembered if remembered is not None and remembered.kind == RELATED else None
