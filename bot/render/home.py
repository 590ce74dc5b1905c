"""The App Home tab and its modal: pure functions from a reading list to Slack views.

A view holds at most 100 blocks, so the reading list is shown ``PAGE_SIZE`` papers at a time
(two blocks each) with **Previous**/**Next** buttons; everything else on the tab is a fixed,
small number of blocks. Topics are user-typed and escaped like everywhere else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from bot.buttons import HomePlaces, home_page_value, home_paper_value
from bot.papers.paper import Paper
from bot.render import blocks as bk
from bot.render.mrkdwn import escape_mrkdwn, quoted
from bot.render.origin import origin_line
from bot.render.papers import (
    abstract_blocks,
    authors_line,
    count_span,
    title_mrkdwn,
)

PAGE_SIZE = 20
MAX_CHANNELS_SHOWN = 20
"""Channel lines on the tab, so the view never outgrows 100 blocks; more are only mentioned."""

ACTION_ABSTRACT = "home_abstract"
ACTION_REMOVE = "home_remove"
ACTION_PAGE = "home_page"

HOW_TO = (
    "• `/paper WORDS` searches ICLR 2025 papers; only you see the answer.\n"
    "• *Save* on any paper card puts it here; `/paper saved` lists it in any channel and "
    "`/paper saved export` sends it to you as a BibTeX file.\n"
    "• *For you* above suggests papers like the ones you saved (`/paper for me` anywhere); "
    "*Not relevant* hides one for good, and `/paper forget me` deletes all I keep about you.\n"
    "• `@paperbot WORDS` in a channel answers in a thread; `@paperbot` alone in a thread finds "
    "papers related to it.\n"
    "• On any message, *More actions → Find related papers* shows related papers to you alone.\n"
    "• Paste an OpenReview link and I show a preview of the paper.\n"
    "• `/paper subscribe 9:00 Europe/Berlin` brings a paper of the day to a channel, "
    "`/paper subscribe weekly monday 9am` a weekly team digest."
)


@dataclass(frozen=True)
class SubscribedChannel:
    """A channel that gets the paper of the day, the weekly team digest (``weekly``) or the
    new papers post (``new``): when (already worded) and on what topic."""

    channel: str
    when: str
    topic: str | None
    weekly: bool = False
    new: bool = False


def _paper_rows(paper: Paper, places: HomePlaces) -> list[dict[str, Any]]:
    facts = " · ".join(line for line in (origin_line(paper), authors_line(paper)) if line)
    text = f"{title_mrkdwn(paper)}\n{facts}" if facts else title_mrkdwn(paper)
    buttons = [
        bk.button("Abstract", ACTION_ABSTRACT, paper.id),
        bk.button("Remove", ACTION_REMOVE, home_paper_value(paper.id, places, for_you=False)),
    ]
    return [bk.section(text), bk.actions(buttons, block_id=f"home:{paper.id}")]


def _reading_list(papers: Sequence[Paper], total: int, places: HomePlaces) -> list[dict[str, Any]]:
    if not papers:
        return [
            bk.section(
                "Your reading list is empty. Click *Save* on any paper I show you and it "
                "appears here, newest first."
            )
        ]
    offset = places.reading_list
    blocks = [bk.context(f"Newest first · {count_span(offset, len(papers), total)}")]
    for paper in papers:
        blocks.extend(_paper_rows(paper, places))
    paging = []
    if offset > 0:
        paging.append(bk.button("Previous", ACTION_PAGE, _page(places, max(offset - PAGE_SIZE, 0))))
    if offset + len(papers) < total:
        paging.append(
            bk.button("Next", ACTION_PAGE, _page(places, offset + PAGE_SIZE), style="primary")
        )
    if paging:
        blocks.append(bk.actions(paging, block_id="home:pages"))
    return blocks


def _page(places: HomePlaces, offset: int) -> str:
    """A reading list page button's value: For you stays where it is."""
    return home_page_value(replace(places, reading_list=offset), for_you=False)


def _subscription_line(sub: SubscribedChannel) -> str:
    topic = f" · {quoted(sub.topic)}" if sub.topic else " · all papers"
    return f"<#{escape_mrkdwn(sub.channel)}> · {escape_mrkdwn(sub.when)}{topic}"


def _channels(subscriptions: Sequence[SubscribedChannel], more: bool) -> list[dict[str, Any]]:
    """The channels that get a paper of the day, then those that get the weekly digest, then
    those that get new papers, each kind under its own heading (a weekly digest is no paper
    of the day); "and more" ends the last."""
    shown = subscriptions[:MAX_CHANNELS_SHOWN]
    more = more or len(subscriptions) > MAX_CHANNELS_SHOWN
    daily = [sub for sub in shown if not sub.weekly and not sub.new]
    others = [
        (heading, subs)
        for heading, subs in (
            ("Weekly team digest", [sub for sub in shown if sub.weekly]),
            ("New papers", [sub for sub in shown if sub.new]),
        )
        if subs
    ]
    blocks = [bk.header("Paper of the day")]
    if daily:
        blocks.extend(_channel_lines(daily, more and not others))
    else:
        blocks.append(
            bk.section(
                "None of the channels you can see gets the paper of the day yet. "
                "Type `/paper subscribe 9:00` in one (and `/invite @paperbot` there)."
            )
        )
    for at, (heading, subs) in enumerate(others, start=1):
        blocks.append(bk.header(heading))
        blocks.extend(_channel_lines(subs, more and at == len(others)))
    return blocks


def _channel_lines(subscriptions: Sequence[SubscribedChannel], more: bool) -> list[dict[str, Any]]:
    lines = [_subscription_line(sub) for sub in subscriptions]
    if more:
        lines.append("…and more")
    return [bk.section(piece) for piece in bk.split_mrkdwn("\n".join(lines))]


def home_view(
    papers: Sequence[Paper],
    *,
    total: int,
    places: HomePlaces,
    subscriptions: Sequence[SubscribedChannel],
    more_channels: bool = False,
    for_you: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """The tab: the For you section (``bot.render.foryou.home_blocks``: a short list, so it
    comes first and the reading list stays in reach below it), the reading list page at
    ``places.reading_list`` (its buttons carry For you's place too), the subscribed channels
    (``more_channels``: the person sees more than those), a how-to."""
    blocks = [
        *for_you,
        *([bk.divider()] if for_you else []),
        bk.header("Your reading list"),
        *_reading_list(papers, total, places),
        bk.divider(),
        *_channels(subscriptions, more_channels),
        bk.divider(),
        bk.header("How to use paperbot"),
        bk.section(HOW_TO),
    ]
    return bk.view("home", blocks)


def abstract_modal(paper: Paper) -> dict[str, Any]:
    return bk.view("modal", abstract_blocks(paper), title="Abstract")


def gone_modal(paper_id: str) -> dict[str, Any]:
    text = f"I no longer know the paper {quoted(paper_id)}."
    return bk.view("modal", [bk.section(text)], title="Abstract")
