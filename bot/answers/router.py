"""``Answers``: the one object the listeners ask, handing each request to its feature.

Built once at start-up from the shared index and store; the features share one reading list
(every private card shows the reader's Save state) and one way of paging results.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from bot.answers.cards import PaperCards
from bot.answers.digest import DigestCommands, digest_reply
from bot.answers.foryou import Suggestions
from bot.answers.home import AppHome, HomeClick
from bot.answers.new import NewPapers
from bot.answers.paging import ResultPages
from bot.answers.reading_list import Export, ReadingList
from bot.answers.related import RelatedToMessage
from bot.answers.search import PrivateSearches
from bot.answers.signals import ChannelActivity
from bot.answers.sources import sources_reply
from bot.answers.threads import ThreadReplies, delivery_memory
from bot.answers.typed import Intent, Request
from bot.answers.unfurls import LinkPreviews
from bot.answers.viewer import Viewer
from bot.buttons import FIRST_PAGES, HomePlaces, PageCursor, PageKind, PaperButton, RelatedTarget
from bot.clock import Clock, system_clock
from bot.feeds.service import FeedService
from bot.papers.catalogue import PaperLookup
from bot.render import papers as render
from bot.render.digest import mistyped_mention_message
from bot.render.help_card import help_message
from bot.render.message import Message
from bot.render.replies import RANDOM_PAPER_INTRO, mention_usage_message
from bot.store import Store

if TYPE_CHECKING:
    from bot.search.engine import SearchIndex


class Answers:
    """The bot's replies, built from the shared index and store (built once at start-up)."""

    def __init__(
        self,
        index: SearchIndex,
        store: Store,
        digest: DigestCommands | None = None,
        *,
        description: str | None = None,
        wider_corpus: str | None = None,
        rng: random.Random | None = None,
        papers: PaperLookup | None = None,
        clock: Clock = system_clock,
        feeds: FeedService | None = None,
    ) -> None:
        self.papers = papers or PaperLookup(index.get)
        """Any paper by id: the corpus, then the whole catalogue (links, reading lists)."""
        self.wider_corpus = wider_corpus
        """A hint (mrkdwn) that the bot searches only part of the conference, for searches
        that find little and for the help card; None when it serves the whole catalogue."""
        self._index = index
        self._store = store
        self._feeds = feeds
        """The followed feeds, for ``/paper sources`` (None: none followed)."""
        self._digest = digest
        self._description = description
        self._rng = rng or random.Random()
        self._reading_list = ReadingList(store, self.papers)
        pages = ResultPages(index, self._reading_list, lambda: self.wider_corpus)
        self._searches = PrivateSearches(index, store, self.papers, pages)
        self._cards = PaperCards(self.papers, self._reading_list)
        self._new = NewPapers(
            index, store, self._searches, pages, clock, lambda: bool(feeds and feeds.feeds)
        )
        self._threads = ThreadReplies(index, store, pages, delivery_memory(clock), self._new)
        self._related = RelatedToMessage(index, store, pages, self._threads)
        self._for_you = Suggestions(index, store, self.papers)
        self._home = AppHome(self._reading_list, self._for_you, self.papers, digest, clock)
        self._previews = LinkPreviews(self.papers, store, self._has_rotation)
        self.channel_activity = ChannelActivity(store)
        """Shares into channels and reactions on the bot's posts, as the listeners see them."""

    # /paper

    def command(self, request: Request, channel_id: str, viewer: Viewer) -> Message:
        """The ephemeral reply to ``/paper`` (``saved export`` is ``export``'s)."""
        if request.intent is Intent.HELP:
            return self.help()
        if request.intent is Intent.RANDOM:
            paper = self._rng.choice(self._index.papers)
            return self._cards.paper_page(paper, viewer, intro=RANDOM_PAPER_INTRO)
        if request.intent is Intent.SAVED:
            return self._reading_list.page(viewer)
        if request.intent is Intent.FOR_YOU:
            return self._for_you.page(viewer)
        if request.intent is Intent.FORGET_ME:
            return self._for_you.forget(viewer)
        if request.intent is Intent.SOURCES:
            return sources_reply(self._feeds)
        if request.intent is Intent.NEW:
            return self._new.answer(request.argument, channel_id, viewer)
        if request.intent is Intent.SEARCH:
            paper = self._searches.named_paper(request.argument)
            if paper is not None:
                return self._cards.paper_page(paper, viewer)
            return self._searches.search(request.argument, viewer)
        return digest_reply(self._digest, request, channel_id, viewer.team_id)

    def describe(self, description: str | None, wider_corpus: str | None) -> None:
        """What the help card says is searched, and the wider corpus's hint, once the corpus
        is loaded (a served bot answers before it is: see ``bot.wiring.root``)."""
        self._description = description
        self.wider_corpus = wider_corpus

    def help(self) -> Message:
        return help_message(description=self._description, hint=self.wider_corpus)

    def search(self, query: str, viewer: Viewer) -> Message:
        """The first page of ``/paper`` results for ``query``."""
        return self._searches.search(query, viewer)

    # buttons

    def page(self, cursor: PageCursor | None, viewer: Viewer) -> Message:
        """The private page a **Next**, **Previous**, **Back to results** or **Save** button
        leads to (or redraws)."""
        if cursor is None:
            return render.expired_message()
        key = cursor.key
        if isinstance(key, PaperButton):
            return self.abstract(key, viewer)
        if isinstance(key, RelatedTarget):
            return self._related.page(key, viewer, cursor.offset)
        if cursor.kind == PageKind.SIMILAR:
            return self._searches.more_like_this(key, viewer, cursor.offset)
        if cursor.kind == PageKind.SAVED:
            return self._reading_list.page(viewer, cursor.offset)
        if cursor.kind == PageKind.FOR_YOU:
            return self._for_you.page(viewer, cursor.offset)
        if cursor.kind == PageKind.NEW:
            return self._new.remembered_page(key, viewer, cursor.offset)
        if cursor.kind in {PageKind.PAPER, PageKind.NOTICE}:
            return self._cards.card_page(cursor.kind, key, viewer)
        return self._searches.remembered_page(key, viewer, cursor.offset)

    def abstract(
        self, button: PaperButton | None, viewer: Viewer, *, public: bool = False
    ) -> Message:
        """The abstract for an **Abstract** click; a private one leads back to its list."""
        if button is None:
            return render.expired_message()
        return self._cards.abstract(button, viewer, public=public)

    def share(self, paper_id: str, user_id: str) -> Message | None:
        """The public message for a shared paper, or ``None`` when the id is unknown."""
        return self._cards.share(paper_id, user_id)

    def more_like_this(self, paper_id: str, viewer: Viewer) -> Message:
        return self._searches.more_like_this(paper_id, viewer)

    # reading lists

    def set_saved(self, button: PaperButton | None, viewer: Viewer, *, saved: bool) -> Message:
        """**Save** or **Saved ✓**/**Undo**: the list changes (idempotently, so a double
        click or a click seen by two processes counts once), then the answer.

        A button that names its page (a private card) gets that page redrawn with the new
        state (or, when that page does not decode, the list saves anyway and the answer says
        it expired); one on a card everyone sees gets a private notice with **Undo**.
        """
        if button is None:
            return render.expired_message()
        if saved and self.papers.get(button.paper_id) is None:
            return render.not_found_message(button.paper_id)
        if saved:
            self._reading_list.save(viewer, button.paper_id)
        else:
            self._reading_list.remove(viewer, button.paper_id)
        if button.page is not None and button.page.kind == PageKind.FOR_YOU:
            return self._for_you.saved_from_page(button, viewer, saved=saved)
        if button.on_private_page:
            return self.page(button.page, viewer)
        return self.page(PageCursor(PageKind.NOTICE, button.paper_id), viewer)

    # For you

    def set_dismissed(
        self, button: PaperButton | None, viewer: Viewer, *, dismissed: bool
    ) -> Message:
        """**Not relevant** on a For you card, or its **Undo**: the page redrawn."""
        if button is None:
            return render.expired_message()
        return self._for_you.set_dismissed(button, viewer, dismissed=dismissed)

    def home_click(self, viewer: Viewer, paper_id: str, click: HomeClick) -> None:
        """A paper's button in the App Home (which then redraws itself)."""
        if click is HomeClick.REMOVE:
            self._reading_list.remove(viewer, paper_id)
        elif click is HomeClick.SAVE and self.papers.get(paper_id) is not None:
            self._reading_list.save(viewer, paper_id)
        elif click in {HomeClick.HIDE, HomeClick.UNHIDE} and self.papers.get(paper_id) is not None:
            self._for_you.set_hidden(viewer, paper_id, hidden=click is HomeClick.HIDE)

    def saved_list(self, viewer: Viewer, offset: int = 0) -> Message:
        """``/paper saved``: a private page of the reading list, newest first."""
        return self._reading_list.page(viewer, offset)

    def export(self, viewer: Viewer) -> Export | None:
        """The reading list as BibTeX, or None when it is empty."""
        return self._reading_list.export(viewer)

    # App Home

    def home(
        self,
        viewer: Viewer,
        can_see: Callable[[str], bool | None],
        places: HomePlaces = FIRST_PAGES,
    ) -> dict[str, Any]:
        """The App Home with its two lists at ``places``."""
        return self._home.view(viewer, can_see, places)

    def abstract_view(self, paper_id: str) -> dict[str, Any]:
        return self._home.abstract_view(paper_id)

    # link previews

    def unfurls(self, links: Sequence[str]) -> dict[str, dict[str, Any]]:
        return self._previews.unfurls(links)

    def record_linked(self, team_id: str | None, channel: str, links: Sequence[str]) -> None:
        """The papers a message posted in ``channel`` links are seen there (where it has a
        rotation)."""
        self._previews.record_shown(team_id, channel, links)

    def _has_rotation(self, channel: str) -> bool:
        """Whether the channel gets a paper of the day or a weekly digest (paused ones not):
        never a direct message, where ``/paper subscribe`` is refused."""
        subscriptions = self._digest.active_subscriptions() if self._digest else ()
        return any(sub.channel == channel for sub in subscriptions)

    # "Find related papers" on a message

    def related_to_message(
        self, text: str, viewer: Viewer, *, post_to: tuple[str, str] | None
    ) -> Message:
        return self._related.first_page(text, viewer, post_to=post_to)

    def post_related(
        self, target: RelatedTarget | None, team_id: str | None = None
    ) -> tuple[str, str, Message] | None:
        """The public thread reply for **Post in thread**: (channel, thread ts, message)."""
        return self._related.post(target, team_id) if target is not None else None

    # mentions and direct messages

    def first_delivery(self, channel_id: str, message_ts: str) -> bool:
        return self._threads.first_delivery(channel_id, message_ts)

    def mention(
        self,
        request: Request,
        channel_id: str,
        thread_ts: str,
        *,
        in_thread: bool,
        viewer: Viewer,
    ) -> Message:
        """The reply to a mention or DM, except a bare one (see ``thread_related``);
        ``viewer`` is who asked, in the channel's workspace."""
        if request.intent is Intent.HELP:
            return self.help()
        if request.intent is Intent.RANDOM:
            return render.paper_message(
                self._rng.choice(self._index.papers),
                intro=RANDOM_PAPER_INTRO,
                buttons=render.PUBLIC_BUTTONS,
            )
        if request.intent is Intent.MORE:
            return self._threads.more(channel_id, thread_ts, viewer)
        if request.intent is Intent.NEW:
            return self._threads.new(request.argument, channel_id, thread_ts, viewer)
        if request.intent is Intent.MISTYPED:
            return mistyped_mention_message(request.argument)
        if request.intent is Intent.THREAD and not in_thread:
            return mention_usage_message()
        paper = self._searches.named_paper(request.argument)
        if paper is not None:
            return render.paper_message(paper, buttons=render.PUBLIC_BUTTONS)
        return self._threads.search(request.argument, channel_id, thread_ts, viewer.team_id or None)

    def thread_related(
        self, first_message: str, channel_id: str, thread_ts: str, team_id: str | None = None
    ) -> Message:
        return self._threads.related(first_message, channel_id, thread_ts, team_id)

    # the app uninstalled

    def forget_workspace(self, team_id: str) -> dict[str, int]:
        """Delete every row of a workspace that uninstalled the app; rows deleted, by table."""
        return self._store.forget_workspace(team_id)
