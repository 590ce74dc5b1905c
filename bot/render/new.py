"""``/paper new [TOPIC]``: the papers announced since the last announcement day, how their
order was chosen, the other reading of a text starting with "new", and what is said when
there are none.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from enum import Enum, auto
from typing import Any

from bot.buttons import PageCursor
from bot.papers.paper import Paper
from bot.render import blocks as bk
from bot.render.digest import long_date
from bot.render.message import Message
from bot.render.mrkdwn import fallback_text, mrkdwn_literal, notice_message, quoted
from bot.render.papers import (
    ACTION_OTHER_READING,
    RESULT_BUTTONS,
    count_span,
    paging_buttons,
    paper_blocks,
)
from bot.render.replies import Aside
from bot.search.results import Pieces

FEEDS_EXAMPLE = "PAPERBOT_FEEDS=arxiv:cs.LG"


class RankedBy(Enum):
    """What put a list of new papers in its order."""

    TOPIC = auto()
    """The topic: the search's order among the new papers."""
    CHANNEL = auto()
    """What the channel's people shared and reacted to there."""
    PERSON = auto()
    """What the person saved (and marked *Not relevant*)."""
    NEWEST = auto()
    """Nothing to learn from: the newest first."""


@dataclass(frozen=True)
class NewCard:
    """A new paper on a page: its TL;DR with the topic's words flagged (a topic's list), and
    the engaged paper that put it where it is (a list ranked by engagement)."""

    paper: Paper
    tldr: Pieces | None = None
    like: Paper | None = None


@dataclass(frozen=True)
class NewList:
    """One page of new papers: announced on ``since`` (the last announcement day) or, when
    ``since_typed``, since the day the person gave; about ``topic`` ("" for none); in the
    order ``ranked_by`` says, for ``channel`` (a channel's list) and with ``channel_quiet``
    when the channel had nothing to learn from and the person's taste or the date stood in;
    ``public`` for a list everyone in the channel sees (a mention's thread), which no
    person's saves rank."""

    since: date
    since_typed: bool
    topic: str
    ranked_by: RankedBy
    cards: tuple[NewCard, ...]
    total: int
    offset: int
    channel: str | None = None
    channel_quiet: bool = False
    public: bool = False


def _when(listing: NewList) -> str:
    if listing.since_typed:
        return f"announced since {long_date(listing.since)}"
    return f"announced {long_date(listing.since)}"


def _what(listing: NewList) -> str:
    about = f" about {quoted(listing.topic)}" if listing.topic else ""
    return f"new papers{about} {_when(listing)}"


def _order_note(listing: NewList) -> str | None:
    """How the list was ordered, so a person knows what their clicks change."""
    quiet = (
        f"<#{listing.channel}> has no shares or reactions to learn from yet, so "
        if listing.channel_quiet and listing.channel
        else ""
    )
    if listing.ranked_by is RankedBy.CHANNEL:
        return f"Papers like the ones shared and reacted to in <#{listing.channel}> come first."
    if listing.ranked_by is RankedBy.PERSON:
        first = "papers" if quiet else "Papers"
        return f"{quiet}{first} like the ones you saved come first."
    if listing.ranked_by is RankedBy.NEWEST and listing.channel and listing.public:
        return (
            "Newest first: there is nothing yet to learn from. Papers like the ones shared and "
            f"reacted to in <#{listing.channel}> will come first."
        )
    if listing.ranked_by is RankedBy.NEWEST and listing.channel:
        return (
            "Newest first: there is nothing yet to learn from. Papers like the ones shared and "
            f"reacted to in <#{listing.channel}>, or like the ones you save, will come first."
        )
    if listing.ranked_by is RankedBy.NEWEST:
        return (
            "Newest first: there is nothing yet to learn from. Papers like the ones you save "
            "will come first."
        )
    return None


def _why(card: NewCard, listing: NewList) -> str | None:
    like = card.like
    if like is None or like.id == card.paper.id:
        return None
    title = f"*{mrkdwn_literal(like.title)}*"
    if listing.ranked_by is RankedBy.CHANNEL:
        return f"Like {title}, which <#{listing.channel}> engaged with"
    return f"Like {title}, which you saved"


def _card(
    card: NewCard,
    rank: int,
    listing: NewList,
    back: PageCursor | None,
    saved: bool,
    buttons: tuple[str, ...],
) -> list[dict[str, Any]]:
    first, *rest = paper_blocks(
        card.paper, tldr=card.tldr, buttons=buttons, rank=rank, back=back, saved=saved
    )
    why = _why(card, listing)
    return [first, *([bk.context(why)] if why else []), *rest]


def new_papers_message(
    listing: NewList,
    *,
    next_page: PageCursor | None = None,
    previous_page: PageCursor | None = None,
    this_page: PageCursor | None = None,
    saved: frozenset[str] = frozenset(),
    footer: str | None = None,
    aside: Aside | None = None,
    buttons: tuple[str, ...] = RESULT_BUTTONS,
) -> Message:
    """A page of new papers, paged like every list (``footer`` is trusted mrkdwn); ``aside``
    offers the other reading of the text typed. A list everyone sees (a thread's) has the
    public cards' ``buttons`` and no paging buttons: ``@paperbot more`` pages it."""
    if not listing.cards:
        return new_papers_seen_message(listing)
    span = count_span(listing.offset, len(listing.cards), listing.total)
    what = _what(listing)
    heading = f"{what[0].upper()}{what[1:]} ({span})"
    blocks: list[dict[str, Any]] = [bk.section(heading)]
    notes = [note for note in (aside.note if aside else None, _order_note(listing)) if note]
    if notes:
        blocks.append(bk.context(" ".join(notes)))
    for rank, card in enumerate(listing.cards, start=listing.offset + 1):
        blocks.append(bk.divider())
        blocks.extend(_card(card, rank, listing, this_page, card.paper.id in saved, buttons))
    if footer:
        blocks.append(bk.context(footer))
    pages = paging_buttons(previous_page, next_page)
    if aside is not None and aside.button is not None:
        pages.append(aside.button)
    if pages:
        blocks.append(bk.actions(pages, block_id="results:pages"))
    titles = "; ".join(card.paper.title for card in listing.cards)
    return bk.message(f"{fallback_text(heading)}: {fallback_text(titles)}", blocks)


def new_papers_seen_message(listing: NewList) -> Message:
    """A page past the last one (the papers behind a **Next** went away)."""
    return notice_message(
        f"You have seen all the {_what(listing)}. `/paper new` shows the latest ones."
    )


def no_feeds_message() -> Message:
    """``/paper new`` on a bot that follows no feed: where new papers would come from."""
    return notice_message(
        "New papers come from the arXiv categories and OpenReview venues the bot follows, and "
        "it follows none: it knows the ICLR 2025 papers it ships with. Whoever runs paperbot "
        f"can turn feeds on with `PAPERBOT_FEEDS` (for example `{FEEDS_EXAMPLE}`). Meanwhile, "
        "search those papers with `/paper WORDS`."
    )


def nothing_announced_message() -> Message:
    """Feeds followed, but none has announced a paper yet."""
    return notice_message(
        "No new papers yet: the feeds the bot follows have announced none so far (arXiv "
        "announces on weekdays, not on weekends or its holidays). `/paper sources` says when "
        "they were last fetched."
    )


def nothing_since_message(since: date, last_day: date | None) -> Message:
    """An explicit ``since:`` after the last announcement day."""
    last = (
        f" The last papers were announced {long_date(last_day)}: "
        f"`/paper new since:{last_day.isoformat()}`."
        if last_day is not None
        else ""
    )
    return notice_message(f"No paper was announced since {long_date(since)}.{last}")


def _label(text: str) -> str:
    return bk.truncate_plain(text, bk.MAX_BUTTON_LABEL)


def as_new_papers(typed: str, topic: str, search_all: PageCursor | None) -> Aside:
    """The reply shows the new papers about ``topic``: say so, and offer the search of every
    paper for the whole text ``typed`` (``search_all``; None while it cannot be remembered)."""
    note = f"Showing new papers about {quoted(topic)}."
    if search_all is None:
        return Aside(note)
    label = _label(f"Search all papers for “{typed}” instead")
    return Aside(note, bk.button(label, ACTION_OTHER_READING, search_all.encode()))


def as_search(
    typed: str, topic: str, since: date, new_papers: PageCursor | None, count: int
) -> Aside:
    """The reply searches every paper for the whole text ``typed`` (it reads as a sentence):
    say so, and offer the ``count`` papers matching ``topic`` announced since ``since``."""
    note = f"Showing all papers for {quoted(typed)}, which reads as a sentence."
    if new_papers is None or not count:
        return Aside(note)
    papers = "1 paper" if count == 1 else f"{count} papers"
    label = _label(f"Only new papers about “{topic}”")
    return Aside(
        f"{note} {papers} announced {_short_when(since)} match {quoted(topic)}: "
        f"*{label}* shows them.",
        bk.button(label, ACTION_OTHER_READING, new_papers.encode()),
    )


def nothing_new_about(typed: str, topic: str, since: date) -> Aside:
    """No new paper is about ``topic``: the reply is the search of every paper for ``typed``."""
    return Aside(
        f"No paper announced {_short_when(since)} is about {quoted(topic)}, so these are all "
        f"papers for {quoted(typed)}."
    )


def _short_when(since: date) -> str:
    return f"since {long_date(since)}"
