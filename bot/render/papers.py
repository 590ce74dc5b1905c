"""Papers and search results as Slack messages: pure functions, no I/O.

Everything a user typed is escaped here before it is echoed, so ``/paper <!channel>`` pings
nobody. Button values carry only what the click handler needs to find its way back (a paper
id, or a page cursor, written here with ``bot.buttons``), because a value holds at most 2,000
characters while a query can be far longer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from bot.buttons import PageCursor, PaperButton, RelatedTarget
from bot.papers.paper import Paper
from bot.papers.urls import ARXIV_PREFIX, is_code_repository
from bot.render import blocks as bk
from bot.render.markup import abstract_mrkdwn
from bot.render.message import Message
from bot.render.mrkdwn import (
    escape_mrkdwn,
    fallback_text,
    mrkdwn_link,
    mrkdwn_literal,
    notice_message,
    quoted,
)
from bot.render.notes import advises, notes_mrkdwn, usage_mrkdwn
from bot.render.origin import is_followed, named_ids, origin_line, read_links, site_name
from bot.render.replies import Aside, RelatedTo, related_to_words
from bot.search.results import UnknownId

if TYPE_CHECKING:
    from bot.search.results import SearchResult

ACTION_ABSTRACT = "paper_abstract"
ACTION_SHARE = "paper_share"
ACTION_MORE_LIKE_THIS = "paper_more_like_this"
ACTION_SAVE = "paper_save"
ACTION_UNSAVE = "paper_unsave"
ACTION_POST_RELATED = "related_post_in_thread"
ACTION_NEXT_PAGE = "results_next_page"
ACTION_PREVIOUS_PAGE = "results_previous_page"
ACTION_BACK = "results_back"
ACTION_OTHER_READING = "results_other_reading"
"""The other reading of a ``/paper new …`` text: a page like the others (``Aside``)."""
PAGE_ACTIONS = (ACTION_NEXT_PAGE, ACTION_PREVIOUS_PAGE, ACTION_BACK, ACTION_OTHER_READING)
"""Buttons whose value is a page cursor: each replaces the private message with that page."""

PAGE_SIZE = 5
"""Results per ``/paper`` page; the **Next 5** button shows the following five."""

RESULT_BUTTONS = (ACTION_ABSTRACT, ACTION_SAVE, ACTION_SHARE, ACTION_MORE_LIKE_THIS)
"""Buttons on a private result list: the clicker may share a paper with the channel."""
PUBLIC_BUTTONS = (ACTION_ABSTRACT, ACTION_SAVE, ACTION_MORE_LIKE_THIS)
"""Buttons on a message everyone sees (thread replies, shared papers, the daily post)."""
UNFURL_BUTTONS = (ACTION_ABSTRACT, ACTION_SAVE)
"""Buttons on a link preview: compact, and every one answers the clicker privately."""
RENDER_VERSION = 4
"""The version of the paper card, part of the key of a cached link preview: bump it when a
card's content or shape changes, so no preview drawn before the change is shown after it.
2: abstracts mended at load, and a card without one links to it on OpenReview. 3: TeX quotes
and citation keys mended, and TL;DRs without a purpose that points back. 4: a paper a feed
brought says its venue and standing, arXiv id, dates, and links each source's page and PDF."""

_BUTTON_LABELS = {
    ACTION_ABSTRACT: "Abstract",
    ACTION_SHARE: "Share",
    ACTION_MORE_LIKE_THIS: "More like this",
    ACTION_SAVE: "Save",
    ACTION_UNSAVE: "Saved ✓",
}
_AUTHORS_CITED = 3
ABSTRACT_ELSEWHERE = "Abstract on {site} \u2197"
"""What a card says in place of the TL;DR when the catalogue has no abstract for the paper:
where to read it, in a neutral voice (many catalogue papers are like that)."""


def highlight(pieces: Iterable[tuple[str, bool]]) -> str:
    """Escaped mrkdwn of a text in pieces (``Hit.tldr_pieces``), the flagged pieces bold."""
    return "".join(f"*{mrkdwn_literal(t)}*" if bold else mrkdwn_literal(t) for t, bold in pieces)


def authors_line(paper: Paper, *, every: bool = False, named: Sequence[str] = ()) -> str | None:
    """Authors as a paper is cited: the first three in the paper's order and how many more
    ("Guibin Zhang, Xiangguo Sun, Yanwei Yue +4 more"); ``every`` lists them all, for a view
    of one paper. A list the catalogue holds only alphabetically says so, because its first
    name is no first author. The ``named`` authors (those a search asked for) are bold, and
    named after the count when the first three leave them out, so a reader sees why the
    paper is there."""
    if not paper.authors:
        return None
    names = paper.authors if every else paper.authors[:_AUTHORS_CITED]

    def shown_name(name: str) -> str:
        return f"*{escape_mrkdwn(name)}*" if name in named else escape_mrkdwn(name)

    shown = ", ".join(map(shown_name, names))
    hidden = len(paper.authors) - len(names)
    more = f" +{hidden} more" if hidden > 0 else ""
    if left_out := [name for name in named if name not in names]:
        more += ", among them " + ", ".join(map(shown_name, left_out))
    if len(paper.authors) == 1:
        noun = "Author"
    elif paper.authors_in_order:
        noun = "Authors"
    else:
        noun = "Authors (not in paper order)"
    return f"{noun}: {shown}{more}"


def code_line(paper: Paper) -> str | None:
    """The first two code links, each under what it is: "Code:" for a repository, "Website:"
    for a project's own site."""
    shown = paper.code_urls[:2]
    groups = (
        ("Code", [url for url in shown if is_code_repository(url)]),
        ("Website", [url for url in shown if not is_code_repository(url)]),
    )
    return (
        " · ".join(f"{label}: " + ", ".join(map(_url_link, urls)) for label, urls in groups if urls)
        or None
    )


def _url_link(url: str) -> str:
    parts = urlsplit(url)
    return mrkdwn_link(url, escape_mrkdwn((parts.netloc + parts.path).rstrip("/") or url))


def links_line(paper: Paper) -> str | None:
    """Where to read the paper (``read_links``), and its code next to it."""
    return " · ".join(item for item in (*read_links(paper), code_line(paper)) if item) or None


def title_mrkdwn(paper: Paper) -> str:
    """The bold title, linked to the paper's page (OpenReview's forum, or arXiv's)."""
    if paper.url:
        return f"*{mrkdwn_link(paper.url, mrkdwn_literal(paper.title))}*"
    return f"*{mrkdwn_literal(paper.title)}*"


def card_button(
    paper: Paper, action: str, back: PageCursor | None, saved: bool
) -> bk.ButtonElement:
    if action == ACTION_SAVE and saved:
        action = ACTION_UNSAVE
    with_page = action in {ACTION_ABSTRACT, ACTION_SAVE, ACTION_UNSAVE}
    value = PaperButton(paper.id, back).encode() if with_page else paper.id
    return bk.button(_BUTTON_LABELS[action], action, value)


def paper_buttons(
    paper: Paper, buttons: Sequence[str], *, back: PageCursor | None = None, saved: bool = False
) -> dict[str, Any] | None:
    """The card's buttons; ``back`` (the page shown) rides along in **Abstract**'s and
    **Save**'s values. ``saved`` shows **Saved ✓** instead of **Save**: only on a private
    card, the one place where the viewer is known."""
    if not buttons:
        return None
    elements = [card_button(paper, action, back, saved) for action in buttons]
    return bk.actions(elements, block_id=f"paper:{paper.id}")


def paper_blocks(
    paper: Paper,
    *,
    tldr: Iterable[tuple[str, bool]] | None = None,
    buttons: Sequence[str] = RESULT_BUTTONS,
    rank: int | None = None,
    back: PageCursor | None = None,
    every_author: bool = False,
    saved: bool = False,
    named_authors: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """One paper as a card: title, TL;DR (or a link to the abstract on OpenReview when the
    catalogue has none), then status, authors, code.

    ``tldr`` is a search hit's ``tldr_pieces``, whose matched words are bold, as are the
    ``named_authors`` (see ``authors_line``).

    Reused by the daily post, which passes ``PUBLIC_BUTTONS``, and by link previews. ``back``
    is the cursor of the private page showing the card, so its abstract can offer a way back
    to it; ``saved`` is the viewer's reading-list state, on private cards only. A card in a
    list cites its first authors; one shown alone (``every_author``) names them all.
    """
    prefix = f"{rank}. " if rank is not None else ""
    body = f"{prefix}{title_mrkdwn(paper)}"
    if paper.tldr:
        body += f"\n*TL;DR:* {highlight(tldr or ((paper.tldr, False),))}"
    elif paper.url:
        body += f"\n{mrkdwn_link(paper.url, ABSTRACT_ELSEWHERE.format(site=site_name(paper.url)))}"
    blocks = [bk.section(body)]
    authors = authors_line(paper, every=every_author, named=named_authors)
    details = [line for line in (origin_line(paper), authors) if line]
    facts = [item for item in (" · ".join(details), links_line(paper)) if item]
    if facts:
        blocks.append(bk.context(*facts))
    action_block = paper_buttons(paper, buttons, back=back, saved=saved)
    if action_block:
        blocks.append(action_block)
    return blocks


def count_span(offset: int, shown: int, total: int) -> str:
    """Which papers of a counted list a page shows: "6 papers" when it shows them all, else
    "6\u201310 of 12", or "6 of 6" for one (never "1\u20131 of 1" or "6\u20136 of 6")."""
    if offset == 0 and shown == total:
        return "1 paper" if shown == 1 else f"{shown} papers"
    if shown == 1:
        return f"{offset + 1} of {total}"
    return f"{offset + 1}\u2013{offset + shown} of {total}"


def results_heading(result: SearchResult, *, shown: int, about: RelatedTo | None = None) -> str:
    """What the list is: a search (maybe corrected), papers like another paper, or papers
    related to a message (``about`` names it: a message is too long to quote), and which of
    its papers these are. A count is given only when it counts real matches (see
    ``SearchResult.counted``); otherwise the first page is the "top 5"."""
    if result.counted:
        span = count_span(result.offset, shown, result.total)
    else:
        first = result.offset + 1
        span = f"top {shown}" if first == 1 else f"{first}\u2013{result.offset + shown}"
    if about is not None:
        return f"Papers related to {related_to_words(about)} ({span})"
    if result.similar_to is not None:
        return f"Papers like {title_mrkdwn(result.similar_to)} ({span})"
    if result.corrected_query:
        return (
            f"Showing results for {quoted(result.corrected_query)} "
            f"({span}; you typed {quoted(result.query)})"
        )
    return f"Papers for {quoted(result.query)} ({span})"


def _what(result: SearchResult) -> str:
    if result.similar_to is not None:
        return f"papers like {title_mrkdwn(result.similar_to)}"
    return f"papers matching {quoted(result.query)}"


def empty_message(result: SearchResult, *, footer: str | None = None) -> Message:
    """Nothing found; ``footer`` is trusted mrkdwn (a hint from the caller), left off after a
    link that names no paper: the bot looked it up among all its papers, searched or not."""
    if result.usage:
        return notice_message(usage_mrkdwn(result.usage))
    unknown = [reason.reference for reason in result.reasons if isinstance(reason, UnknownId)]
    if unknown:
        return unknown_link_message(unknown[0])
    text = f"I found no {_what(result)}."
    tips = (
        "Try fewer or broader words, check the spelling, drop quotes or `-excluded` terms, "
        "or try `/paper random`."
    )
    if any(map(advises, result.reasons)):
        tips = "You can also try `/paper random`."
    blocks = [bk.section(f"{text}\n{tips}")]
    if result.reasons:
        blocks.append(bk.context(notes_mrkdwn(result.reasons)))
    if footer:
        blocks.append(bk.context(footer))
    return bk.message(fallback_text(text), blocks)


def end_of_results_message(result: SearchResult, best: Paper | None) -> Message:
    """Asked for more after the last page: that was all, and where to go from here, which
    is the papers like the best hit (**More like this**)."""
    text = f"You have seen all the {_what(result)}."
    blocks = [bk.section(text)]
    if best is not None:
        blocks.append(
            bk.section(f"To go further, find papers like the best match, {title_mrkdwn(best)}.")
        )
        button = bk.button(_BUTTON_LABELS[ACTION_MORE_LIKE_THIS], ACTION_MORE_LIKE_THIS, best.id)
        blocks.append(bk.actions([button], block_id=f"paper:{best.id}"))
    return bk.message(fallback_text(text), blocks)


def results_message(
    result: SearchResult,
    *,
    next_page: PageCursor | None = None,
    previous_page: PageCursor | None = None,
    this_page: PageCursor | None = None,
    buttons: Sequence[str] = RESULT_BUTTONS,
    about: RelatedTo | None = None,
    footer: str | None = None,
    saved: frozenset[str] = frozenset(),
    post_in_thread: RelatedTarget | None = None,
    aside: Aside | None = None,
) -> Message:
    """A page of search results; ``next_page``/``previous_page`` are the pages of the
    **Next 5**/**Previous 5** buttons, ``this_page`` the page an abstract returns to,
    ``post_in_thread`` the related papers **Post in thread** posts, and ``aside`` how a
    ``/paper new …`` text was read as this search.

    ``about`` names the message a list of related papers is about (see
    ``results_heading``); ``footer`` is trusted mrkdwn from the caller (never user text);
    ``saved`` are the ids on the viewer's reading list (private pages only).
    """
    if not result.hits and result.offset:
        return end_of_results_message(result, None)
    if not result.hits:
        return empty_message(result, footer=footer)
    cards = fitting_cards(result, buttons, this_page, saved)
    heading = results_heading(result, shown=len(cards), about=about)
    blocks: list[dict[str, Any]] = [bk.section(heading)]
    if aside is not None:
        blocks.append(bk.context(aside.note))
    if result.reasons:
        blocks.append(bk.context(notes_mrkdwn(result.reasons)))
    for card in cards:
        blocks.append(bk.divider())
        blocks.extend(card)
    if footer:
        blocks.append(bk.context(footer))
    paging = paging_buttons(previous_page, next_page)
    if post_in_thread is not None:
        paging.append(bk.button("Post in thread", ACTION_POST_RELATED, post_in_thread.encode()))
    if aside is not None and aside.button is not None:
        paging.append(aside.button)
    if paging:
        blocks.append(bk.actions(paging, block_id="results:pages"))
    titles = "; ".join(escape_mrkdwn(hit.paper.title) for hit in result.hits[: len(cards)])
    return bk.message(f"{fallback_text(heading)}: {titles}", blocks)


def paging_buttons(
    previous_page: PageCursor | None, next_page: PageCursor | None
) -> list[bk.ButtonElement]:
    paging = []
    if previous_page is not None:
        paging.append(
            bk.button(f"Previous {PAGE_SIZE}", ACTION_PREVIOUS_PAGE, previous_page.encode())
        )
    if next_page is not None:
        paging.append(
            bk.button(f"Next {PAGE_SIZE}", ACTION_NEXT_PAGE, next_page.encode(), style="primary")
        )
    return paging


_RESERVED_BLOCKS = 5
"""Heading, aside, notice, footer and the paging buttons: what a page needs besides cards."""


def fitting_cards(
    result: SearchResult,
    buttons: Sequence[str],
    back: PageCursor | None,
    saved: frozenset[str],
) -> list[list[dict[str, Any]]]:
    """One card per hit, as many as fit in a message (a page is normally far smaller)."""
    cards: list[list[dict[str, Any]]] = []
    used = _RESERVED_BLOCKS
    for rank, hit in enumerate(result.hits, start=result.offset + 1):
        card = paper_blocks(
            hit.paper,
            tldr=hit.tldr_pieces,
            buttons=buttons,
            rank=rank,
            back=back,
            saved=hit.paper.id in saved,
            named_authors=hit.named_authors,
        )
        used += len(card) + 1
        if used > bk.MAX_BLOCKS:
            break
        cards.append(card)
    return cards


def abstract_blocks(paper: Paper) -> list[dict[str, Any]]:
    """Title, the whole abstract over as many sections as it needs, and the facts."""
    blocks = [bk.section(title_mrkdwn(paper))]
    abstract = abstract_mrkdwn(paper.abstract or "") or _no_abstract(paper)
    blocks.extend(bk.section(piece) for piece in bk.split_mrkdwn(abstract))
    facts = (origin_line(paper), authors_line(paper, every=True), links_line(paper))
    details = [line for line in facts if line]
    if details:
        blocks.append(bk.context(*details))
    return blocks


def _no_abstract(paper: Paper) -> str:
    """What the abstract view says of a paper without one: where it may be read."""
    if not paper.url:
        return "_No abstract is available for this paper._"
    if is_followed(paper):
        return f"_The bot has no abstract for this paper; its {site_name(paper.url)} page may._"
    return (
        "_The catalogue the bot reads has no abstract for this paper; its OpenReview page has it._"
    )


def abstract_message(
    paper: Paper,
    *,
    buttons: Sequence[str] = RESULT_BUTTONS,
    back: PageCursor | None = None,
    this_page: PageCursor | None = None,
    saved: bool = False,
) -> Message:
    """The whole abstract.

    Shown in place of a private list, it offers **Back to results** (to the page ``back``)
    so the list is not lost; ``this_page`` is its own cursor, which **Save** redraws.
    """
    blocks = abstract_blocks(paper)
    elements = [
        card_button(paper, action, this_page, saved)
        for action in buttons
        if action != ACTION_ABSTRACT
    ]
    if back is not None:
        elements.insert(0, bk.button("Back to results", ACTION_BACK, back.encode()))
    if elements:
        blocks.append(bk.actions(elements, block_id=f"paper:{paper.id}"))
    return bk.message(f"Abstract of {escape_mrkdwn(paper.title)}", blocks)


def paper_message(
    paper: Paper,
    *,
    intro: str | None = None,
    buttons: Sequence[str] = RESULT_BUTTONS,
    this_page: PageCursor | None = None,
    saved: bool = False,
) -> Message:
    """A single paper (``/paper random``, ``/paper ID``), with all its authors; ``intro`` is
    trusted mrkdwn."""
    blocks = [bk.section(intro)] if intro else []
    blocks.extend(
        paper_blocks(paper, buttons=buttons, back=this_page, every_author=True, saved=saved)
    )
    lead = f"{fallback_text(intro)} " if intro else ""
    return bk.message(f"{lead}{escape_mrkdwn(paper.title)}", blocks)


def unfurl_message(paper: Paper) -> Message:
    """A pasted link's preview: the compact card, with buttons that answer the clicker alone."""
    return bk.message(escape_mrkdwn(paper.title), paper_blocks(paper, buttons=UNFURL_BUTTONS))


def expired_message() -> Message:
    return notice_message("That result list has expired. Run `/paper` again to search.")


def posted_related_message() -> Message:
    return notice_message("Posted them in the thread.")


def shared_message(paper: Paper, user_id: str) -> Message:
    """A paper someone shared with the channel, saying who shared it."""
    who = f"<@{escape_mrkdwn(user_id)}>"
    blocks = [bk.context(f"Shared by {who}"), *paper_blocks(paper, buttons=PUBLIC_BUTTONS)]
    return bk.message(f"{who} shared: {escape_mrkdwn(paper.title)}", blocks)


def saved_notice_message(paper: Paper, *, saved: bool, this_page: PageCursor) -> Message:
    """The private answer to **Save** on a card everyone sees, and to its **Undo**.

    ``this_page`` is the notice's own cursor: **Undo** and **Save again** redraw it in place.
    """
    value = PaperButton(paper.id, this_page).encode()
    if saved:
        text = f"Saved ✓ {title_mrkdwn(paper)} to your reading list."
        action = bk.button("Undo", ACTION_UNSAVE, value)
    else:
        text = f"Removed {title_mrkdwn(paper)} from your reading list."
        action = bk.button("Save again", ACTION_SAVE, value)
    blocks = [
        bk.section(text),
        bk.context(SAVED_HINT),
        bk.actions([action], block_id=f"paper:{paper.id}"),
    ]
    return bk.message(fallback_text(text), blocks)


SAVED_HINT = "Your reading list is in my *Home* tab and in `/paper saved`."


def saved_list_message(
    papers: Sequence[Paper],
    *,
    total: int,
    offset: int,
    this_page: PageCursor,
    next_page: PageCursor | None = None,
    previous_page: PageCursor | None = None,
) -> Message:
    """``/paper saved``: a page of the reading list, newest first, each card **Saved ✓**."""
    if not papers:
        text = "Your reading list is empty."
        tip = "Click *Save* on any paper to keep it here, then `/paper saved export` for BibTeX."
        return bk.message(text, [bk.section(f"{text}\n{tip}")])
    heading = f"Your reading list ({count_span(offset, len(papers), total)})"
    blocks: list[dict[str, Any]] = [
        bk.section(f"*{heading}*"),
        bk.context(f"{SAVED_HINT} `/paper saved export` sends it to you as a BibTeX file."),
    ]
    for paper in papers:
        blocks.append(bk.divider())
        blocks.extend(paper_blocks(paper, back=this_page, saved=True))
    paging = paging_buttons(previous_page, next_page)
    if paging:
        blocks.append(bk.actions(paging, block_id="results:pages"))
    titles = "; ".join(escape_mrkdwn(paper.title) for paper in papers)
    return bk.message(f"{heading}: {titles}", blocks)


def unknown_link_message(reference: str) -> Message:
    """``/paper LINK`` for a link that names no paper the bot has (``UnknownId``): the
    OpenReview or arXiv id it named, or which links the bot looks papers up by. An arXiv
    link is surely right: the bot just has not got the paper."""
    if "://" in reference:
        text = (
            "I look papers up by the link to their OpenReview page (`openreview.net/forum?id=…`) "
            f"or arXiv page (`arxiv.org/abs/…`), and {quoted(reference)} is not one."
        )
        tip = "Search for its title with `/paper WORDS`."
    else:
        text = f"I have no paper with {named_ids([reference])}."
        tip = "Search for the paper's title with `/paper WORDS`."
        if not reference.startswith(ARXIV_PREFIX):
            tip = "Check the link, or search for the paper's title with `/paper WORDS`."
    return bk.message(fallback_text(text), [bk.section(f"{text}\n{tip}")])


def not_found_message(reference: str) -> Message:
    text = f"I don't know a paper {quoted(reference)}."
    tip = "Search with `/paper WORDS`, or use a paper id or an OpenReview link."
    return bk.message(fallback_text(text), [bk.section(f"{text}\n{tip}")])


def not_in_channel_message(channel_id: str | None = None) -> Message:
    """Why the bot could not post, and what the person can do about it.

    A direct message between people (``D…``) cannot take an app, so inviting is no advice there.
    """
    if channel_id and channel_id.startswith("D"):
        return notice_message(
            "I can't post in a direct message I'm not part of. Share the paper from a channel "
            "I'm in, or send me a direct message and share it there."
        )
    return notice_message(
        "I can't post in this conversation yet: invite me with `/invite @paperbot` and try again."
    )


def apology_message() -> Message:
    return notice_message("Sorry, something went wrong on my side. Please try again in a moment.")


def busy_message() -> Message:
    return notice_message(
        "I'm answering too many requests at once right now. Please try again in a minute."
    )


def wider_corpus_hint(searched: int, accepted: int) -> str:
    """Why a search of a bot serving only the seed papers found little: a team searching
    outside them otherwise gets no idea why. It names no setting, which only the operator
    can change (``corpus_setting_note`` is theirs)."""
    return (
        f"Only {searched:,} sample papers are searched here, not all {accepted:,} accepted "
        "ICLR 2025 papers: whoever runs paperbot for this workspace can switch it to all of them."
    )


def corpus_setting_note(searched: int, accepted: int) -> str:
    """The same for the operator, in the shell: the setting that serves the whole
    conference."""
    return (
        f"Only the {searched:,} seed papers are searched here; all {accepted:,} accepted "
        "ICLR 2025 papers are one setting away: `PAPERBOT_CORPUS=catalogue`."
    )
