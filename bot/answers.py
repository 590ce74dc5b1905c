"""What the bot says back: requests in, rendered messages out.

The Slack listeners stay thin by delegating here: this module decides which search to run,
which page to show, and what state to remember for "Next 5" and "@paperbot more"; the
renderer decides how it looks. It knows nothing about Bolt or HTTP, so every answer the bot
can give is testable as a plain function call.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from bot.commands import Intent, Request, slack_to_plain
from bot.render import papers as render
from bot.render.message import Message

if TYPE_CHECKING:
    from bot.papers.paper import Paper
    from bot.search.engine import SearchIndex, SearchResult
    from bot.store import Store

THREAD_PAGE_SIZE = 3
"""Results per mention reply: threads are public, so they stay short."""
THREAD_QUERY_CHARS = 1000
"""How much of a thread's first message becomes the query for "related papers"."""
DM_THREAD = "im"
"""The thread key of a direct-message conversation's top level, for ``more``."""

_RELATED_MARK = "\x1frelated\x1f"
"""Prefix of a remembered thread search that is a free text for ``related``, not a query:
a control character no one types, so ``@paperbot more`` continues the same results."""
_QUERY_PAGE = "q"
_SIMILAR_PAGE = "s"
_PAPER_PAGE = "p"


class DigestCommands(Protocol):
    """The part of the digest service ``/paper`` reaches; each returns an ephemeral reply."""

    def subscribe(self, channel_id: str, args: str) -> Message: ...
    def unsubscribe(self, channel_id: str) -> Message: ...
    def subscriptions(self, channel_id: str) -> Message: ...
    def today(self, channel_id: str) -> Message: ...


@dataclass(frozen=True)
class PageCursor:
    """A private page a button leads to (**Next**, **Previous**, **Back to results**): a
    remembered query, a paper's neighbours, or a single paper; and an offset."""

    kind: str
    key: str
    offset: int

    def encode(self) -> str:
        return f"{self.kind}:{self.offset}:{self.key}"

    @classmethod
    def decode(cls, value: str) -> PageCursor | None:
        kind, _, rest = value.partition(":")
        offset, _, key = rest.partition(":")
        if kind not in {_QUERY_PAGE, _SIMILAR_PAGE, _PAPER_PAGE} or not offset.isdigit() or not key:
            return None
        return cls(kind, key, int(offset))


class Answers:
    """The bot's replies, built from the shared index and store (built once at start-up)."""

    def __init__(
        self,
        index: SearchIndex,
        store: Store,
        digest: DigestCommands | None = None,
        *,
        description: str | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.index = index
        self.store = store
        self.digest = digest
        self.description = description
        self._rng = rng or random.Random()

    # /paper

    def command(self, request: Request, channel_id: str) -> Message:
        """The ephemeral reply to ``/paper``."""
        if request.intent is Intent.HELP:
            return self.help()
        if request.intent is Intent.RANDOM:
            return self.random_paper()
        if request.intent is Intent.SEARCH:
            paper = self.index.get(request.argument) if " " not in request.argument else None
            if paper is not None:
                return self._paper_page(paper)
            return self.search(request.argument)
        return self._digest_command(request, channel_id)

    def _digest_command(self, request: Request, channel_id: str) -> Message:
        if self.digest is None:
            return render.notice_message("The paper of the day is not available on this bot.")
        if request.intent is Intent.SUBSCRIBE:
            return self.digest.subscribe(channel_id, request.argument)
        if request.intent is Intent.UNSUBSCRIBE:
            return self.digest.unsubscribe(channel_id)
        if request.intent is Intent.SUBSCRIPTIONS:
            return self.digest.subscriptions(channel_id)
        return self.digest.today(channel_id)

    def help(self) -> Message:
        return render.help_message(description=self.description)

    def random_paper(self) -> Message:
        paper = self._rng.choice(self.index.papers)
        return self._paper_page(paper, intro="A random paper:")

    def _paper_page(self, paper: Paper, *, intro: str | None = None) -> Message:
        this_page = PageCursor(_PAPER_PAGE, paper.id, 0).encode()
        return render.paper_message(paper, intro=intro, this_page=this_page)

    def search(self, query: str, offset: int = 0) -> Message:
        """A page of ``/paper`` results, with **Previous 5**/**Next 5** where there are more.

        The query is remembered under a short key even on a single page, so an abstract
        opened from the list can lead back to it.
        """
        result = self.index.search(query, limit=render.PAGE_SIZE, offset=offset)
        if not result.hits:
            return render.results_message(result)
        key = self.store.remember_query(query)
        return self._page(result, _QUERY_PAGE, key)

    def _page(self, result: SearchResult, kind: str, key: str) -> Message:
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
        )

    # buttons

    def page(self, value: str) -> Message:
        """The private page a **Next**, **Previous** or **Back to results** button leads to."""
        cursor = PageCursor.decode(value)
        if cursor is not None and cursor.kind == _SIMILAR_PAGE:
            return self.more_like_this(cursor.key, cursor.offset)
        if cursor is not None and cursor.kind == _PAPER_PAGE:
            paper = self.index.get(cursor.key)
            return self._paper_page(paper) if paper else render.not_found_message(cursor.key)
        query = self.store.recall_query(cursor.key) if cursor is not None else None
        if cursor is None or query is None:
            return render.notice_message(
                "That result list has expired. Run `/paper` again to search."
            )
        return self.search(query, cursor.offset)

    def abstract(self, value: str, *, public: bool = False) -> Message:
        """The abstract for an **Abstract** click; a private one leads back to its list."""
        paper_id, back = render.split_abstract_value(value)
        paper = self.index.get(paper_id)
        if paper is None:
            return render.not_found_message(paper_id)
        if public:
            return render.abstract_message(paper, buttons=render.PUBLIC_BUTTONS)
        return render.abstract_message(paper, buttons=render.RESULT_BUTTONS, back=back)

    def share(self, paper_id: str, user_id: str) -> Message | None:
        """The public message for a shared paper, or ``None`` when the id is unknown."""
        paper = self.index.get(paper_id)
        return render.shared_message(paper, user_id) if paper is not None else None

    def more_like_this(self, paper_id: str, offset: int = 0) -> Message:
        if self.index.get(paper_id) is None:
            return render.not_found_message(paper_id)
        result = self.index.similar(paper_id, limit=render.PAGE_SIZE, offset=offset)
        if not result.hits:
            return render.results_message(result)
        return self._page(result, _SIMILAR_PAGE, paper_id)

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
                return render.notice_message(
                    "There is no earlier search here to continue: mention me with some words "
                    "first, e.g. `@paperbot graph sparsification`."
                )
            query, shown = remembered
            return self._thread_page(query, channel_id, thread_ts, shown)
        if request.intent is Intent.THREAD and not in_thread:
            return render.notice_message(
                "Mention me with some words, e.g. `@paperbot graph sparsification`, or mention "
                "me alone inside a thread to find papers related to it."
            )
        return self._thread_page(request.argument, channel_id, thread_ts, 0)

    def thread_related(self, first_message: str, channel_id: str, thread_ts: str) -> Message:
        """Papers related to a thread's first message (a bare mention inside a thread)."""
        text = slack_to_plain(first_message)[:THREAD_QUERY_CHARS]
        if not text.strip():
            return render.notice_message(
                "The thread's first message has no words to search for. Mention me with some."
            )
        intro = "Papers related to this thread's first message:"
        return self._thread_page(_RELATED_MARK + text, channel_id, thread_ts, 0, intro=intro)

    def _thread_page(
        self,
        query: str,
        channel_id: str,
        thread_ts: str,
        offset: int,
        *,
        intro: str | None = None,
    ) -> Message:
        if query.startswith(_RELATED_MARK):
            text = query.removeprefix(_RELATED_MARK)
            result = self.index.related(text, limit=THREAD_PAGE_SIZE, offset=offset)
        else:
            result = self.index.search(query, limit=THREAD_PAGE_SIZE, offset=offset)
        self.store.remember_thread_search(channel_id, thread_ts, query, offset + len(result.hits))
        footer = "Say `@paperbot more` for the next results." if _has_more(result) else None
        return render.results_message(
            result, buttons=render.PUBLIC_BUTTONS, intro=intro, footer=footer
        )


def _has_more(result: SearchResult) -> bool:
    return result.offset + len(result.hits) < result.total
