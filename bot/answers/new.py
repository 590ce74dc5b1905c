"""``/paper new [TOPIC]``: the papers announced since the last announcement day, ranked by the
topic, or without one by what the channel (or, privately, the person) engages with.

**Which reading.** A text starting with the English word "new" may be a search ("new methods
for graph pruning"), so ``/paper new …`` is read as follows, and the reply says which
reading it took and offers the other one as a button when it has papers:

- ``new`` alone is the command;
- ``new`` and words that read as a sentence (a function word such as *for*, *of*, *the*, as
  the search's own rule for sentences has it) is a search of every paper for the whole text;
- ``new`` and keywords ("new graph pruning") is the command about those words, unless no new
  paper is about them: then it is the search of the whole text, saying so;
- a bot with no announced papers (no feed followed, or none announced yet) reads every
  ``new`` and words as a search, as it always did; ``new`` alone says where new papers
  would come from.

**Which papers.** First versions only, as the channel's new papers post has them
(``bot.papers.announcements.is_new`` says why): an arXiv ``replace`` announced that day is
a paper announced before, so it is neither listed nor counted, and the last announcement
day is the last that brought a new paper. A search of every paper still finds it.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, replace
from datetime import date
from functools import partial
from typing import TYPE_CHECKING

from bot.answers.paging import ResultPages
from bot.answers.search import PrivateSearches
from bot.answers.typed import NEW_WORD
from bot.answers.viewer import Viewer
from bot.buttons import PageCursor, PageKind
from bot.clock import Clock
from bot.papers.announcements import is_new, last_announcement_day
from bot.render import new as render_new
from bot.render import papers as render
from bot.render.message import Message
from bot.render.new import NewCard, NewList, RankedBy
from bot.render.replies import Aside, page_footer
from bot.search.filtering import read_filter
from bot.search.model_rule import reads_as_sentence
from bot.search.query import ParsedQuery, parse_query
from bot.search.results import SINCE, Filter, Hit, field_name
from bot.store import NEW_PAPERS, DatabaseUnavailable, Store

if TYPE_CHECKING:
    from collections.abc import Callable

    from bot.search.engine import SearchIndex

log = logging.getLogger(__name__)

_SINCE_TYPED = re.compile(rf"(?<!\S){re.escape(SINCE.prefix)}\S+", re.IGNORECASE)


@dataclass(frozen=True)
class NewQuery:
    """What a list of new papers shows, remembered for its paging buttons: the papers
    announced on ``since`` or later (``since_typed``: a day the person gave), about ``topic``
    ("" for none), asked in ``channel`` (None: privately), and the whole text ``typed``."""

    since: date
    topic: str
    channel: str | None
    typed: str
    since_typed: bool = False

    def encode(self) -> str:
        return json.dumps(
            {
                "since": self.since.isoformat(),
                "topic": self.topic,
                "channel": self.channel,
                "typed": self.typed,
                "since_typed": self.since_typed,
            }
        )

    @classmethod
    def decode(cls, text: str) -> NewQuery | None:
        try:
            fields = json.loads(text)
            return cls(
                date.fromisoformat(fields["since"]),
                str(fields["topic"]),
                fields["channel"],
                str(fields["typed"]),
                bool(fields["since_typed"]),
            )
        except (ValueError, KeyError, TypeError):
            return None

    @property
    def search(self) -> str:
        """The search among the new papers, in the query language: the topic's words and
        filters, since the day (unless the topic gives it)."""
        if self.since_typed:
            return self.topic
        return f"{self.topic} {SINCE.prefix}{self.since.isoformat()}".strip()

    @property
    def shown_topic(self) -> str:
        """The topic as a list's heading names it: without the ``since:`` its day says."""
        if not self.since_typed:
            return self.topic
        return " ".join(_SINCE_TYPED.sub(" ", self.topic).split())

    @property
    def searches(self) -> bool:
        """Whether the topic searches for something (words, a phrase, an author, a paper's
        neighbours) rather than only filtering the new papers."""
        return _searches(parse_query(self.topic))


@dataclass(frozen=True)
class AllPapers:
    """``new`` and words read as the search of every paper for the whole text ``typed``;
    ``aside`` says why and offers the new papers about the words."""

    typed: str
    aside: Aside | None = None


def _searches(parsed: ParsedQuery) -> bool:
    return bool(parsed.words or parsed.phrases or parsed.authors or parsed.like)


def _typed_since(parsed: ParsedQuery, today: date) -> date | None:
    """The day of the topic's own ``since:``, when it gives one that reads as a day."""
    for typed in parsed.filters:
        if typed.field == field_name(SINCE) and not typed.negated:
            read = read_filter(typed, today)
            if isinstance(read, Filter) and isinstance(read.value, date):
                return read.value
    return None


def is_direct_message(channel_id: str) -> bool:
    """A direct message (``D…``): what is asked there is asked privately."""
    return channel_id.startswith("D")


@dataclass(frozen=True)
class NewPapers:
    """The ``/paper new`` lists and their pages."""

    index: SearchIndex
    store: Store
    searches: PrivateSearches
    pages: ResultPages
    clock: Clock
    follows_feeds: Callable[[], bool]
    """Whether any feed is followed (``PAPERBOT_FEEDS``), for what ``/paper new`` says when
    no paper was announced."""

    def answer(self, rest: str, channel_id: str, viewer: Viewer) -> Message:
        """``/paper new`` and what followed it (``rest``), read as the module says."""
        reading = self.read(rest, channel_id)
        if isinstance(reading, NewQuery):
            return self.page(reading, viewer)
        if isinstance(reading, AllPapers):
            return self.searches.search(reading.typed, viewer, aside=reading.aside)
        return reading

    def read(self, rest: str, channel_id: str) -> NewQuery | AllPapers | Message:
        """How ``new`` and what followed it (``rest``) is read, wherever it was typed
        (``/paper``, a mention, a direct message): the list of new papers, the search of
        every paper, or what is said when there are no new papers."""
        typed = f"{NEW_WORD} {rest}".strip()
        today = self.clock().date()
        new_papers = filter(is_new, self.index.announced_papers)
        last_day = last_announcement_day(new_papers, today)
        parsed = self.index.parse(rest)
        words = " ".join(span.text for span in parsed.words)
        searches = _searches(parsed)
        typed_since = _typed_since(parsed, today)
        since = typed_since or last_day
        if since is None and searches:
            return AllPapers(typed)
        if since is None:
            if self.follows_feeds():
                return render_new.nothing_announced_message()
            return render_new.no_feeds_message()
        channel = None if is_direct_message(channel_id) else channel_id
        query = NewQuery(since, rest, channel, typed, since_typed=typed_since is not None)
        if not searches:
            return query
        if reads_as_sentence(words):
            count = len(self._new_hits(query))
            cursor = self._cursor(query) if count else None
            return AllPapers(typed, render_new.as_search(typed, rest, query.since, cursor, count))
        if not self._new_hits(query):
            return AllPapers(typed, render_new.nothing_new_about(typed, rest, query.since))
        return query

    def remembered_page(self, key: str, viewer: Viewer, offset: int) -> Message:
        """A page of a list remembered under ``key``, unless it has expired."""
        remembered = self.store.recall_query(key)
        query = NewQuery.decode(remembered.query) if remembered is not None else None
        if remembered is None or remembered.kind != NEW_PAPERS or query is None:
            return render.expired_message()
        return self.page(query, viewer, offset)

    def page(self, query: NewQuery, viewer: Viewer, offset: int = 0) -> Message:
        """A page of the list: the topic's search among the new papers, else the new papers
        in the order the channel's or the person's engagement gives them."""
        key = self.searches.remembered(query.encode(), NEW_PAPERS)
        this_page = PageCursor(PageKind.NEW, key, offset) if key is not None else None
        listing = self.listing(query, viewer, offset, render.PAGE_SIZE)
        if not listing.total:
            return self.searches.search(query.search, viewer)
        more = offset + len(listing.cards) < listing.total
        return render_new.new_papers_message(
            listing,
            next_page=_at(this_page, offset + render.PAGE_SIZE) if more else None,
            previous_page=_at(this_page, max(offset - render.PAGE_SIZE, 0)) if offset else None,
            this_page=this_page,
            saved=self.pages.saved_among([card.paper.id for card in listing.cards], viewer),
            footer=page_footer(more=more, hint=None, remembered=key is not None),
            aside=self.search_all(query),
        )

    def listing(self, query: NewQuery, viewer: Viewer | None, offset: int, size: int) -> NewList:
        """``size`` papers of the list from ``offset``. ``viewer`` is who asked privately;
        None for a list everyone in the channel sees (a mention's thread), which is never
        ranked by one person's saves: its cards would tell the channel what they saved."""
        if query.searches:
            return self._topic_list(query, offset, size)
        listing = self._list(query, viewer)
        return replace(listing, cards=listing.cards[offset : offset + size], offset=offset)

    def _topic_list(self, query: NewQuery, offset: int, size: int) -> NewList:
        hits = self._new_hits(query)
        shown = hits[offset : offset + size]
        cards = tuple(NewCard(hit.paper, tldr=hit.tldr_pieces) for hit in shown)
        return NewList(
            query.since,
            query.since_typed,
            query.shown_topic,
            RankedBy.TOPIC,
            cards,
            len(hits),
            offset,
        )

    def _new_hits(self, query: NewQuery) -> list[Hit]:
        """Every hit of the topic's search among the papers announced since the day, in its
        order, replaced papers left out (paged here, so that pages and counts leave them out
        too)."""
        result = self.index.search(query.search, limit=len(self.index.papers))
        return [hit for hit in result.hits if is_new(hit.paper)]

    def _list(self, query: NewQuery, viewer: Viewer | None) -> NewList:
        """Every new paper (the page is cut by the caller), by what the channel engages
        with, else what the person does (asked privately), else newest first."""
        papers = [paper for paper in self.index.results(query.search) if is_new(paper)]
        ids = [paper.id for paper in papers]
        tastes: list[tuple[RankedBy, Callable[[], dict[str, float]]]] = []
        if viewer is not None:
            tastes.append((RankedBy.PERSON, partial(self._person_taste, viewer)))
        if query.channel is not None:
            channel = query.channel
            tastes.insert(0, (RankedBy.CHANNEL, lambda: self.store.channel_interest(channel)))
        for ranked_by, taste in tastes:
            try:
                ranked = self.index.by_taste(ids, taste())
            except DatabaseUnavailable as error:
                log.warning("new papers ranked without what was engaged with: %s", error)
                break
            if ranked is not None:
                cards = tuple(NewCard(liked.paper, like=liked.like) for liked in ranked)
                return self._listing(query, ranked_by, cards, public=viewer is None)
        cards = tuple(NewCard(paper) for paper in papers)
        return self._listing(query, RankedBy.NEWEST, cards, public=viewer is None)

    def _listing(
        self, query: NewQuery, ranked_by: RankedBy, cards: tuple[NewCard, ...], *, public: bool
    ) -> NewList:
        return NewList(
            query.since,
            query.since_typed,
            query.shown_topic,
            ranked_by,
            cards,
            len(cards),
            0,
            channel=query.channel,
            channel_quiet=query.channel is not None and ranked_by is not RankedBy.CHANNEL,
            public=public,
        )

    def _person_taste(self, viewer: Viewer) -> dict[str, float]:
        """A save pulls papers like it forward, a *Not relevant* pushes them back."""
        saved = self.store.saved_papers(viewer.team_id, viewer.user_id)
        dismissed = self.store.dismissed(viewer.team_id, viewer.user_id)
        return {paper_id: -1.0 for paper_id in dismissed} | {paper_id: 1.0 for paper_id in saved}

    def _cursor(self, query: NewQuery) -> PageCursor | None:
        key = self.searches.remembered(query.encode(), NEW_PAPERS)
        return PageCursor(PageKind.NEW, key) if key is not None else None

    def search_all(self, query: NewQuery) -> Aside | None:
        """On a list about a topic: the other reading, the search of every paper."""
        if not query.searches:
            return None
        key = self.searches.remembered(query.typed)
        search_all = PageCursor(PageKind.QUERY, key) if key is not None else None
        return render_new.as_new_papers(query.typed, query.topic, search_all)


def _at(page: PageCursor | None, offset: int) -> PageCursor | None:
    return PageCursor(page.kind, page.key, offset) if page is not None else None
