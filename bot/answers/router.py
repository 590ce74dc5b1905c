"""What the bot says back: requests in, rendered messages out.

The Slack listeners stay thin by delegating here: this module decides which search to run,
which page to show, and what state to remember for "Next 5" and "@paperbot more"; the
renderer decides how it looks. It knows nothing about Bolt or HTTP, so every answer the bot
can give is testable as a plain function call.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from bot.answers.typed import Intent, Request
from bot.buttons import PageCursor, PageKind
from bot.clock import Clock, system_clock
from bot.expiring import ExpiringCache
from bot.papers.bibtex import bibtex
from bot.papers.catalogue import PaperLookup
from bot.papers.openreview import openreview_link_id
from bot.render import home as render_home
from bot.render import papers as render
from bot.render.message import Message
from bot.render.mrkdwn import notice_message
from bot.store import RELATED, SEARCH, Remembered, Store

if TYPE_CHECKING:
    from bot.papers.paper import Paper
    from bot.search.engine import SearchIndex, SearchResult

THREAD_PAGE_SIZE = 3
"""Results per mention reply: threads are public, so they stay short."""
THREAD_QUERY_CHARS = 1000
"""How much of a thread's first message becomes the query for "related papers"."""
DM_THREAD = "im"
"""The thread key of a direct-message conversation's top level, for ``more``."""
VISIBILITY_TTL = timedelta(minutes=5)
"""How long the App Home trusts Slack's word that a person can see a subscribed channel:
every publish (each Save, Remove, page) would otherwise ask again for every channel."""
VISIBILITY_ENTRIES = 10_000

_TARGET_SEPARATOR = " "


@dataclass(frozen=True)
class Viewer:
    """Who asked or clicked: reading lists belong to a person in a workspace (user ids are
    unique only within one)."""

    team_id: str
    user_id: str


@dataclass(frozen=True)
class Export:
    """A reading list as a file, for the caller to send (``files:write``)."""

    filename: str
    title: str
    content: str
    count: int
    comment: str


class _Schedule(Protocol):
    def describe(self) -> str: ...


class Subscription(Protocol):
    """A channel's paper of the day, as the digest service reports it."""

    @property
    def channel(self) -> str: ...
    @property
    def schedule(self) -> _Schedule: ...
    @property
    def topic(self) -> str | None: ...


class DigestCommands(Protocol):
    """The part of the digest service ``/paper`` reaches; each returns an ephemeral reply."""

    def subscribe(self, channel_id: str, args: str) -> Message: ...
    def unsubscribe(self, channel_id: str) -> Message: ...
    def subscriptions(self, channel_id: str) -> Message: ...
    def today(self, channel_id: str) -> Message: ...
    def active_subscriptions(self) -> Sequence[Subscription]: ...


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
    ) -> None:
        self.index = index
        self.store = store
        self.digest = digest
        self.description = description
        self.papers = papers or PaperLookup(index.get)
        """Any paper by id: the corpus, then the whole catalogue (links, reading lists)."""
        self.wider_corpus = wider_corpus
        """A hint (mrkdwn) that a bigger corpus is one setting away, for searches that find
        little and for the help card; None when the bot already serves the whole catalogue."""
        self._rng = rng or random.Random()
        self._visible: ExpiringCache[tuple[str, str, str], bool] = ExpiringCache(
            VISIBILITY_ENTRIES, VISIBILITY_TTL, clock
        )

    # /paper

    def command(self, request: Request, channel_id: str, viewer: Viewer) -> Message:
        """The ephemeral reply to ``/paper`` (``saved export`` is ``export``'s)."""
        if request.intent is Intent.HELP:
            return self.help()
        if request.intent is Intent.RANDOM:
            return self.random_paper(viewer)
        if request.intent is Intent.SAVED:
            return self.saved_list(viewer)
        if request.intent is Intent.SEARCH:
            paper = self._named_paper(request.argument)
            if paper is not None:
                return self._paper_page(paper, viewer)
            return self.search(request.argument, viewer)
        return self._digest_command(request, channel_id)

    def _digest_command(self, request: Request, channel_id: str) -> Message:
        if self.digest is None:
            return notice_message("The paper of the day is not available on this bot.")
        if request.intent is Intent.SUBSCRIBE:
            return self.digest.subscribe(channel_id, request.argument)
        if request.intent is Intent.UNSUBSCRIBE:
            return self.digest.unsubscribe(channel_id)
        if request.intent is Intent.SUBSCRIPTIONS:
            return self.digest.subscriptions(channel_id)
        return self.digest.today(channel_id)

    def help(self) -> Message:
        return render.help_message(description=self.description, hint=self.wider_corpus)

    def _named_paper(self, query: str) -> Paper | None:
        """The paper a query names: by its id or link alone, or by the one OpenReview link
        among other words (``has anyone read <link>?`` asks about that paper, not for papers
        about "anyone"). A catalogue paper outside the corpus searched is still one to show,
        not a word to search for."""
        named = self.index.named_paper(query)
        if named is not None:
            return named
        words = query.split()
        if len(words) == 1:
            return self.papers.get(words[0])
        if _QUERY_SYNTAX.search(query):
            return None  # ``author:X <link>`` or ``"a phrase" <link>`` is a search to run
        linked = {
            paper_id
            for word in words
            if (paper_id := openreview_link_id(word.strip(_AROUND_A_LINK)))
        }
        return self.papers.get(linked.pop()) if len(linked) == 1 else None

    def random_paper(self, viewer: Viewer) -> Message:
        paper = self._rng.choice(self.index.papers)
        return self._paper_page(paper, viewer, intro="A random paper:")

    def _paper_page(self, paper: Paper, viewer: Viewer, *, intro: str | None = None) -> Message:
        this_page = PageCursor(PageKind.PAPER, paper.id, 0).encode()
        saved = self._is_saved(viewer, paper.id)
        return render.paper_message(paper, intro=intro, this_page=this_page, saved=saved)

    def search(self, query: str, viewer: Viewer, offset: int = 0) -> Message:
        """A page of ``/paper`` results, with **Previous 5**/**Next 5** where there are more.

        The query is remembered under a short key even on a single page, so an abstract
        opened from the list can lead back to it.
        """
        result = self.index.search(query, limit=render.PAGE_SIZE, offset=offset)
        if not result.hits:
            return self._nothing_more(result)
        key = self.store.remember_query(query)
        return self._page(result, PageKind.QUERY, key, viewer)

    def _hint(self, result: SearchResult, page_size: int) -> str | None:
        """The wider corpus, when a search found nothing or less than a page."""
        found_little = result.offset == 0 and len(result.hits) < page_size
        return self.wider_corpus if found_little and result.usage is None else None

    def _nothing_more(
        self, result: SearchResult, first: Callable[[], SearchResult] | None = None
    ) -> Message:
        """No hits: nothing matched, or a page past the last one. Past the last page, that
        was all, and the best hit's **More like this** is where to go next (``first`` runs
        the same search for its best hit; by default, ``/paper``'s search)."""
        if not result.offset:
            return render.results_message(result, footer=self._hint(result, 1))
        if first is None and result.similar_to is not None:
            best = self.index.like_paper(result.similar_to, limit=1)
        elif first is None:
            best = self.index.search(result.query, limit=1)
        else:
            best = first()
        return render.end_of_results_message(result, best.hits[0].paper if best.hits else None)

    def _page(
        self,
        result: SearchResult,
        kind: PageKind,
        key: str,
        viewer: Viewer,
        *,
        about: str | None = None,
        post_button: render.PostButton | None = None,
    ) -> Message:
        offset = result.offset
        next_page = previous_page = None
        if _has_more(result):
            next_page = PageCursor(kind, key, offset + len(result.hits)).encode()
        if offset > 0:
            previous_page = PageCursor(kind, key, max(offset - render.PAGE_SIZE, 0)).encode()
        return render.results_message(
            result,
            next_page=next_page,
            previous_page=previous_page,
            this_page=PageCursor(kind, key, offset).encode(),
            saved=self._saved_among(viewer, [hit.paper.id for hit in result.hits]),
            about=about,
            post_button=post_button,
            footer=self._hint(result, render.PAGE_SIZE),
        )

    # buttons

    def page(self, value: str, viewer: Viewer) -> Message:
        """The private page a **Next**, **Previous**, **Back to results** or **Save** button
        leads to (or redraws)."""
        cursor = PageCursor.decode(value)
        if cursor is None:
            return render.expired_message()
        if cursor.kind == PageKind.SIMILAR:
            return self.more_like_this(cursor.key, viewer, cursor.offset)
        if cursor.kind == PageKind.ABSTRACT:
            return self.abstract(cursor.key, viewer)
        if cursor.kind == PageKind.SAVED:
            return self.saved_list(viewer, cursor.offset)
        if cursor.kind == PageKind.RELATED:
            return self._related_page(cursor.key, viewer, cursor.offset)
        if cursor.kind in {PageKind.PAPER, PageKind.NOTICE}:
            paper = self.papers.get(cursor.key)
            if paper is None:
                return render.not_found_message(cursor.key)
            if cursor.kind == PageKind.PAPER:
                return self._paper_page(paper, viewer)
            return render.saved_notice_message(
                paper, saved=self._is_saved(viewer, paper.id), this_page=value
            )
        remembered = self.store.recall_query(cursor.key)
        if remembered is None or remembered.kind != SEARCH:
            return render.expired_message()
        return self.search(remembered.query, viewer, cursor.offset)

    def abstract(self, value: str, viewer: Viewer, *, public: bool = False) -> Message:
        """The abstract for an **Abstract** click; a private one leads back to its list."""
        paper_id, back = render.split_abstract_value(value)
        paper = self.papers.get(paper_id)
        if paper is None:
            return render.not_found_message(paper_id)
        if public:
            return render.abstract_message(paper, buttons=render.PUBLIC_BUTTONS)
        return render.abstract_message(
            paper,
            buttons=render.RESULT_BUTTONS,
            back=back,
            this_page=PageCursor(PageKind.ABSTRACT, value, 0).encode(),
            saved=self._is_saved(viewer, paper.id),
        )

    def share(self, paper_id: str, user_id: str) -> Message | None:
        """The public message for a shared paper, or ``None`` when the id is unknown."""
        paper = self.papers.get(paper_id)
        return render.shared_message(paper, user_id) if paper is not None else None

    def more_like_this(self, paper_id: str, viewer: Viewer, offset: int = 0) -> Message:
        """**More like this**, also on a catalogue paper outside the corpus searched (from a
        link preview or a reading list): its neighbours in the corpus."""
        paper = self.papers.get(paper_id)
        if paper is None:
            return render.not_found_message(paper_id)
        result = self.index.like_paper(paper, limit=render.PAGE_SIZE, offset=offset)
        if not result.hits:
            return self._nothing_more(result)
        return self._page(result, PageKind.SIMILAR, paper_id, viewer)

    # reading lists

    def set_saved(self, value: str, viewer: Viewer, *, saved: bool) -> Message:
        """**Save** or **Saved ✓**/**Undo**: the list changes (idempotently, so a double
        click or a click seen by two processes counts once), then the answer.

        A button that names its page (a private card) gets that page redrawn with the new
        state; one on a card everyone sees gets a private notice with **Undo**.
        """
        paper_id, this_page = render.split_abstract_value(value)
        paper = self.papers.get(paper_id)
        if saved and paper is None:
            return render.not_found_message(paper_id)
        if saved:
            self.store.save_paper(viewer.team_id, viewer.user_id, paper_id)
        else:
            self.remove_saved(viewer, paper_id)
        return self.page(this_page or PageCursor(PageKind.NOTICE, paper_id, 0).encode(), viewer)

    def remove_saved(self, viewer: Viewer, paper_id: str) -> None:
        """**Remove** in the App Home (which then redraws itself)."""
        self.store.remove_paper(viewer.team_id, viewer.user_id, paper_id)

    def saved_list(self, viewer: Viewer, offset: int = 0) -> Message:
        """``/paper saved``: a private page of the reading list, newest first."""
        total = self.store.saved_count(viewer.team_id, viewer.user_id)
        offset = _last_page_start(offset, total, render.PAGE_SIZE)
        papers = self._saved_papers(viewer, limit=render.PAGE_SIZE, offset=offset)

        def cursor(at: int) -> str:
            return PageCursor(PageKind.SAVED, "me", at).encode()

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
        papers = self._saved_papers(viewer)
        if not papers:
            return None
        return Export(
            filename="paperbot-reading-list.bib",
            title="Reading list (BibTeX)",
            content=bibtex(papers),
            count=len(papers),
            comment=render.export_comment(len(papers)),
        )

    def _saved_papers(
        self, viewer: Viewer, *, limit: int | None = None, offset: int = 0
    ) -> list[Paper]:
        """Saved papers the bot still knows (a paper can leave a custom corpus)."""
        ids = self.store.saved_papers(viewer.team_id, viewer.user_id, limit=limit, offset=offset)
        return [paper for paper in map(self.papers.get, ids) if paper is not None]

    def _saved_among(self, viewer: Viewer, paper_ids: Sequence[str]) -> frozenset[str]:
        return self.store.saved_among(viewer.team_id, viewer.user_id, paper_ids)

    def _is_saved(self, viewer: Viewer, paper_id: str) -> bool:
        return paper_id in self._saved_among(viewer, [paper_id])

    # App Home

    def home(
        self, viewer: Viewer, can_see: Callable[[str], bool], offset: int = 0
    ) -> dict[str, Any]:
        """The App Home view: the reading list from ``offset``, the subscribed channels the
        person can see (``can_see`` asks Slack; its answers are kept a few minutes), and how
        to use the bot."""
        total = self.store.saved_count(viewer.team_id, viewer.user_id)
        offset = _last_page_start(offset, total, render_home.PAGE_SIZE)
        papers = self._saved_papers(viewer, limit=render_home.PAGE_SIZE, offset=offset)
        subscriptions = self.digest.active_subscriptions() if self.digest else ()
        visible = [
            render_home.SubscribedChannel(sub.channel, sub.schedule.describe(), sub.topic)
            for sub in subscriptions
            if self._visible.get(
                (viewer.team_id, viewer.user_id, sub.channel), partial(can_see, sub.channel)
            )
        ]
        return render_home.home_view(papers, total=total, offset=offset, subscriptions=visible)

    def abstract_view(self, paper_id: str) -> dict[str, Any]:
        """The abstract as a modal, for **Abstract** in the App Home (a tab has no thread)."""
        paper = self.papers.get(paper_id)
        return render_home.abstract_modal(paper) if paper else render_home.gone_modal(paper_id)

    # link previews

    def unfurls(self, links: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Previews for the pasted links that name catalogue papers, keyed by link as Slack
        sent it; other links are left out (Slack then shows nothing extra for them).

        A preview rendered in the last day is reused from the store.
        """
        found: dict[str, dict[str, Any]] = {}
        for link in dict.fromkeys(links):
            paper_id = openreview_link_id(link)
            paper = self.papers.get(paper_id) if paper_id else None
            if paper is None:
                continue
            cached = self.store.cached_unfurl(link)
            if cached is None:
                unfurl = {"blocks": list(render.unfurl_message(paper).blocks)}
                self.store.cache_unfurl(link, paper.id, json.dumps(unfurl))
            else:
                unfurl = json.loads(cached)
            found[link] = unfurl
        return found

    # "Find related papers" on a message

    def related_to_message(
        self, text: str, viewer: Viewer, *, post_to: tuple[str, str] | None
    ) -> Message:
        """Private related papers for a message shortcut; ``post_to`` is the (channel,
        thread) they may be posted in, when the bot can post there."""
        if not text.strip():
            return notice_message(
                "That message has no words to search for. Try `/paper` with some."
            )
        key = self.store.remember_query(text[:THREAD_QUERY_CHARS], RELATED)
        if post_to is not None:
            key = _TARGET_SEPARATOR.join((key, *post_to))
        return self._related_page(key, viewer, 0)

    def _related_page(self, key: str, viewer: Viewer, offset: int) -> Message:
        text_key, *target = key.split(_TARGET_SEPARATOR)
        remembered = self.store.recall_query(text_key)
        if remembered is None or remembered.kind != RELATED:
            return render.expired_message()
        result = self.index.related(remembered.query, limit=render.PAGE_SIZE, offset=offset)
        if not result.hits:
            return render.results_message(result)
        post_button = render.PostButton(key) if len(target) == 2 else None
        return self._page(
            result,
            PageKind.RELATED,
            key,
            viewer,
            about="this message",
            post_button=post_button,
        )

    def post_related(self, value: str) -> tuple[str, str, Message] | None:
        """The public thread reply for **Post in thread**: (channel, thread ts, message)."""
        text_key, *target = value.split(_TARGET_SEPARATOR)
        remembered = self.store.recall_query(text_key)
        if remembered is None or remembered.kind != RELATED or len(target) != 2:
            return None
        channel, thread_ts = target
        page = self._thread_page(remembered, channel, thread_ts, 0, about="this message")
        return channel, thread_ts, page

    # mentions and direct messages
    def first_delivery(self, channel_id: str, message_ts: str) -> bool:
        """Whether this message is new to the bot.

        Keyed by the message, not the event id: Slack redelivers an event it thinks was lost
        under the same id, but one message can also arrive as two events with different ids
        (a mention in a direct message is both ``app_mention`` and ``message.im``); either
        way the person gets one reply.
        """
        return self.store.claim_event(f"{channel_id}:{message_ts}")

    def mention(
        self, request: Request, channel_id: str, thread_ts: str, *, in_thread: bool
    ) -> Message:
        """The reply to a mention or DM, except a bare one (see ``thread_related``)."""
        if request.intent is Intent.HELP:
            return self.help()
        if request.intent is Intent.RANDOM:
            return render.paper_message(
                self._rng.choice(self.index.papers),
                intro="A random paper:",
                buttons=render.PUBLIC_BUTTONS,
            )
        if request.intent is Intent.MORE:
            remembered = self.store.thread_search(channel_id, thread_ts)
            if remembered is None:
                return notice_message(
                    "There is no earlier search here to continue: mention me with some words "
                    "first, e.g. `@paperbot graph sparsification`."
                )
            search = Remembered(remembered.query, remembered.kind)
            return self._thread_page(search, channel_id, thread_ts, remembered.shown)
        if request.intent is Intent.THREAD and not in_thread:
            return notice_message(
                "Mention me with some words, e.g. `@paperbot graph sparsification`, or mention "
                "me alone inside a thread to find papers related to it."
            )
        paper = self._named_paper(request.argument)
        if paper is not None:
            return render.paper_message(paper, buttons=render.PUBLIC_BUTTONS)
        search = Remembered(request.argument, SEARCH)
        return self._thread_page(search, channel_id, thread_ts, 0)

    def thread_related(self, first_message: str, channel_id: str, thread_ts: str) -> Message:
        """Papers related to a thread's first message (a bare mention inside a thread), as
        plain text (``message_text``: its words, file names and link titles)."""
        text = first_message[:THREAD_QUERY_CHARS]
        if not text.strip():
            return notice_message(
                "The thread's first message has no words to search for. Mention me with some."
            )
        search = Remembered(text, RELATED)
        about = "this thread's first message"
        return self._thread_page(search, channel_id, thread_ts, 0, about=about)

    def _thread_page(
        self,
        search: Remembered,
        channel_id: str,
        thread_ts: str,
        offset: int,
        *,
        about: str | None = None,
    ) -> Message:
        """A page of a thread's search; ``about`` names the message a related search was
        for (``@paperbot more`` pages on from an earlier one: "the same message")."""
        find = self.index.related if search.kind == RELATED else self.index.search
        if search.kind == RELATED and about is None:
            about = "the same message"
        run = partial(find, search.query, limit=THREAD_PAGE_SIZE)
        result = run(offset=offset)
        shown = offset + len(result.hits)
        self.store.remember_thread_search(channel_id, thread_ts, search.query, shown, search.kind)
        if not result.hits:
            return self._nothing_more(result, partial(run, limit=1))
        more = "Say `@paperbot more` for the next results." if _has_more(result) else None
        footer = "\n".join(filter(None, (more, self._hint(result, THREAD_PAGE_SIZE))))
        return render.results_message(
            result, buttons=render.PUBLIC_BUTTONS, about=about, footer=footer or None
        )


_AROUND_A_LINK = "(.,;:!?)\"'\u201c\u201d\u2018\u2019"
"""Punctuation a sentence puts around a link, which no OpenReview link starts or ends with."""
_QUERY_SYNTAX = re.compile(r"\b(?:author|like):|[\"\u201c\u201d]|(?:^|\s)-\w")
"""What makes a query more than words: a field, a quoted phrase, an exclusion."""


def _last_page_start(offset: int, total: int, page_size: int) -> int:
    """``offset``, or the start of the last page when removals left ``offset`` past the end."""
    return min(offset, max(total - 1, 0)) // page_size * page_size


def _has_more(result: SearchResult) -> bool:
    return result.offset + len(result.hits) < result.total
