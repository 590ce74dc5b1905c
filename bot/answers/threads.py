"""Public replies in threads and direct messages: a search, ``@paperbot new``,
``@paperbot more``, and papers related to a thread's first message; and the claim that
answers each message once.

``@paperbot new [TOPIC]`` is read as ``/paper new`` is (``bot.answers.new``): the list of
new papers is then a short public page like a search's, paged by ``@paperbot more``, and
ranked by what the channel engages with, never by the asker's saves (everyone sees it; in
a direct message, the person's saves do rank it). Its buttons to the other reading answer
the clicker privately, as every click on a public message does.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING

from bot.answers.expiring import ExpiringCache
from bot.answers.new import AllPapers, NewPapers, NewQuery, is_direct_message
from bot.answers.paging import ResultPages, has_more
from bot.answers.typed import Intent, parse_mention
from bot.answers.viewer import Viewer
from bot.render import new as render_new
from bot.render import papers as render
from bot.render.message import Message
from bot.render.replies import (
    Aside,
    RelatedTo,
    no_earlier_search_message,
    thread_footer,
    thread_start_without_words_message,
)
from bot.store import NEW_PAPERS, RELATED, SEARCH, DatabaseUnavailable, Remembered, Store

if TYPE_CHECKING:
    from bot.clock import Clock
    from bot.search.engine import SearchIndex

THREAD_PAGE_SIZE = 3
"""Results per mention reply: threads are public, so they stay short."""
THREAD_QUERY_CHARS = 1000
"""How much of a thread's first message becomes the query for "related papers"."""
DM_THREAD = "im"
"""The thread key of a direct-message conversation's top level, for ``more``."""
DELIVERIES_KEPT = 10_000
"""Messages this process remembers answering, beside the store's claims: far more than
arrive in the hour they are kept."""
DELIVERY_MEMORY = timedelta(hours=1)
"""How long this process remembers a message it answered: Slack retries an event within
minutes (at once, after a minute, after five)."""

log = logging.getLogger(__name__)


def delivery_memory(clock: Clock) -> ExpiringCache[str, bool]:
    """The messages this process answered, in its own memory (see ``first_delivery``)."""
    return ExpiringCache(DELIVERIES_KEPT, DELIVERY_MEMORY, clock)


@dataclass(frozen=True)
class ThreadReplies:
    """Short public pages of results; each thread remembers its last search for ``more``."""

    index: SearchIndex
    store: Store
    pages: ResultPages
    answered: ExpiringCache[str, bool]
    """Messages this process answered (``delivery_memory``)."""
    new_papers: NewPapers
    """The reading of ``new …`` and the lists of new papers, shared with ``/paper new``."""

    def first_delivery(self, channel_id: str, message_ts: str) -> bool:
        """Whether this message is new to the bot.

        Keyed by the message, not the event id: Slack redelivers an event it thinks was lost
        under the same id, but one message can also arrive as two events with different ids
        (a mention in a direct message is both ``app_mention`` and ``message.im``); either
        way the person gets one reply. The store's claim covers every process; this
        process's memory covers the time the store cannot record it: the message is then
        answered anyway (Slack got its 200 and will not ask again), and a retry reaching
        this process is still recognised.
        """
        message = f"{channel_id}:{message_ts}"
        if not self.answered.add(message, True):
            return False
        try:
            return self.store.claim_event(message)
        except DatabaseUnavailable as error:
            log.warning("answering %s without recording it: %s", message, error)
            return True

    def search(
        self,
        query: str,
        channel_id: str,
        thread_ts: str,
        team_id: str | None = None,
        *,
        aside: Aside | None = None,
    ) -> Message:
        search = Remembered(query, SEARCH)
        return self.page(search, channel_id, thread_ts, 0, team_id=team_id, aside=aside)

    def new(self, rest: str, channel_id: str, thread_ts: str, viewer: Viewer) -> Message:
        """``@paperbot new`` and what followed it (``rest``), read as ``/paper new`` is."""
        reading = self.new_papers.read(rest, channel_id)
        if isinstance(reading, NewQuery):
            return self.new_page(reading, channel_id, thread_ts, 0, viewer)
        if isinstance(reading, AllPapers):
            return self.search(
                reading.typed, channel_id, thread_ts, _workspace(viewer), aside=reading.aside
            )
        return reading

    def more(self, channel_id: str, thread_ts: str, viewer: Viewer) -> Message:
        """``@paperbot more``: the next page of the thread's last search or list."""
        remembered = self.store.thread_search(channel_id, thread_ts)
        if remembered is None:
            return no_earlier_search_message()
        if remembered.kind == NEW_PAPERS:
            query = NewQuery.decode(remembered.query)
            if query is None:
                return render.expired_message()
            return self.new_page(query, channel_id, thread_ts, remembered.shown, viewer)
        search = Remembered(remembered.query, remembered.kind)
        return self.page(
            search, channel_id, thread_ts, remembered.shown, team_id=_workspace(viewer)
        )

    def new_page(
        self, query: NewQuery, channel_id: str, thread_ts: str, offset: int, viewer: Viewer
    ) -> Message:
        """A page of new papers in a thread: ranked for the person only in a direct
        message (see the module)."""
        asker = viewer if is_direct_message(channel_id) else None
        listing = self.new_papers.listing(query, asker, offset, THREAD_PAGE_SIZE)
        if not listing.total:
            return self.search(query.search, channel_id, thread_ts, _workspace(viewer))
        shown = offset + len(listing.cards)
        remembered = self._remember(
            channel_id, thread_ts, query.encode(), shown, NEW_PAPERS, _workspace(viewer)
        )
        footer = thread_footer(more=shown < listing.total, hint=None, remembered=remembered)
        return render_new.new_papers_message(
            listing,
            footer=footer,
            aside=self.new_papers.search_all(query),
            buttons=render.PUBLIC_BUTTONS,
        )

    def _remember(
        self,
        channel_id: str,
        thread_ts: str,
        query: str,
        shown: int,
        kind: str,
        team_id: str | None,
    ) -> bool:
        """Keep what the thread showed last, for ``@paperbot more``; False while the
        database cannot keep it."""
        try:
            self.store.remember_thread_search(
                channel_id, thread_ts, query, shown, kind, team_id=team_id
            )
        except DatabaseUnavailable:
            return False
        return True

    def related(
        self, first_message: str, channel_id: str, thread_ts: str, team_id: str | None = None
    ) -> Message:
        """Papers related to a thread's first message (a bare mention inside a thread), as
        plain text (``message_text``: its words, file names and link titles)."""
        text = first_message[:THREAD_QUERY_CHARS]
        if parse_mention(text, None).intent not in (Intent.SEARCH, Intent.NEW, Intent.MISTYPED):
            # Empty, or a command such as ``@paperbot more``: nothing to find papers about.
            return thread_start_without_words_message()
        search = Remembered(text, RELATED)
        return self.page(
            search, channel_id, thread_ts, 0, about=RelatedTo.THREAD_START, team_id=team_id
        )

    def page(
        self,
        search: Remembered,
        channel_id: str,
        thread_ts: str,
        offset: int,
        *,
        about: RelatedTo | None = None,
        team_id: str | None = None,
        aside: Aside | None = None,
    ) -> Message:
        """A page of a thread's search; ``about`` names the message a related search was
        for (``@paperbot more`` pages on from an earlier one: the same message);
        ``team_id`` is the channel's workspace, when the request said; ``aside`` how an
        ``@paperbot new …`` text was read as this search."""
        find = self.index.related if search.kind == RELATED else self.index.search
        if search.kind == RELATED and about is None:
            about = RelatedTo.SAME_MESSAGE
        run = partial(find, search.query, limit=THREAD_PAGE_SIZE)
        result = run(offset=offset)
        shown = offset + len(result.hits)
        remembered = self._remember(
            channel_id, thread_ts, search.query, shown, search.kind, team_id
        )
        if not result.hits:
            return self.pages.nothing_more(result, partial(run, limit=1))
        footer = thread_footer(
            more=has_more(result),
            hint=self.pages.hint(result, THREAD_PAGE_SIZE),
            remembered=remembered,
        )
        return render.results_message(
            result, buttons=render.PUBLIC_BUTTONS, about=about, footer=footer, aside=aside
        )


def _workspace(viewer: Viewer) -> str | None:
    """The workspace a thread's rows are kept under; None when the request did not say."""
    return viewer.team_id or None
