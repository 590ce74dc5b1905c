"""The new papers post and its subscription's messages: pure functions.

A post names the days its papers were announced on (never "today": it is read later, and a
Monday's post shows Friday's papers when arXiv announced nothing since), how many new papers
there were, and why these come first. Topics are user-typed and escaped when echoed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from bot.papers.paper import Paper
from bot.render import blocks as bk
from bot.render.digest import KindWords, kind_lines, long_date, subscribe_verb
from bot.render.message import Message
from bot.render.mrkdwn import escape_mrkdwn, notice_message, quoted
from bot.render.papers import PUBLIC_BUTTONS, paper_blocks

USAGE = "/paper subscribe new [TIME] [TIMEZONE] [TOPIC…]"
EXAMPLE = "/paper subscribe new 9am Europe/Berlin graph neural networks category:cs.LG"


def announced_days(first: date, last: date) -> str:
    """``on Monday 6 January 2025`` or ``from Friday 3 January 2025 to Monday 6 January
    2025``."""
    if first == last:
        return f"on {long_date(last)}"
    return f"from {long_date(first)} to {long_date(last)}"


def _papers(count: int) -> str:
    return "1 new paper" if count == 1 else f"{count} new papers"


def new_papers_post(
    day: date,
    papers: Sequence[Paper],
    *,
    matching: int,
    first: date,
    topic: str | None,
    follow_channel: bool,
) -> Message:
    """The post for announcement day ``day``: ``papers`` are the best of ``matching`` new
    papers announced from ``first`` to ``day`` (on ``topic``), in order."""
    about = f" on {quoted(topic)}" if topic else ""
    chosen = f"The {len(papers)} best" if topic or follow_channel else f"The first {len(papers)}"
    shown = (
        _papers(len(papers)) if matching <= len(papers) else f"{chosen} of {matching} new papers"
    )
    if follow_channel:
        order = "Papers like those shared and reacted to here come first."
    elif topic:
        order = "Best matches first."
    else:
        order = (
            "In the order they were announced: react to them, and papers like the ones this "
            "channel likes come first."
        )
    blocks: list[dict] = [
        bk.header(f"New papers · {long_date(day)}"),
        bk.context(f"{shown} announced {announced_days(first, day)}{about}. {order}"),
    ]
    for rank, paper in enumerate(papers, start=1):
        blocks.extend(paper_blocks(paper, buttons=PUBLIC_BUTTONS, rank=rank))
    blocks.append(bk.context("Every new paper: `/paper new`."))
    titles = "; ".join(escape_mrkdwn(paper.title) for paper in papers)
    return bk.message(f"New papers announced {announced_days(first, day)}: {titles}", blocks)


def subscribed_new_message(
    description: str,
    topic: str | None,
    next_post: str,
    *,
    status: str,
    notes: Sequence[str] = (),
    follows_feeds: bool = True,
    matching: int | None = None,
) -> Message:
    """``/paper subscribe new``: ``matching`` is how many stored new papers the topic finds
    (None: no topic); ``follows_feeds`` whether the bot follows any feed at all."""
    about = f" on {quoted(topic)}" if topic else ""
    lines = [
        f"{subscribe_verb(status)}: this channel gets the best new papers{about} at "
        f"{description}: up to 5 in one post, once per announcement day, never one it was "
        "shown before.",
        *notes,
    ]
    if not follows_feeds:
        lines.append(
            ":warning: This bot follows no feed yet, so no new papers come in: its operator "
            "sets `PAPERBOT_FEEDS` (e.g. `arxiv:cs.LG`)."
        )
    elif matching == 0:
        lines.append(
            f"No stored paper matches {quoted(topic or '')} yet: a post comes on the first "
            "day one is announced."
        )
    lines.append(
        f"Next look: {next_post}. See it now with `/paper today new`, change it with "
        "`/paper subscribe new …`, stop it with `/paper unsubscribe new`.\nI can only post "
        "where I'm a member: if I'm not in this channel yet, `/invite @paperbot`."
    )
    return notice_message("\n".join(lines))


NEW_WORDS = KindWords(
    "New papers on", "New papers paused", "/paper subscribe new", "Next look for new papers"
)


def subscription_lines(
    description: str, topic: str | None, *, paused_reason: str | None, next_post: str
) -> list[str]:
    """The new papers post's lines in ``/paper subscriptions``."""
    return kind_lines(
        f"*New papers:* {description}, up to 5 a post, each paper once",
        topic,
        NEW_WORDS,
        paused_reason=paused_reason,
        next_post=next_post,
    )


def nothing_new_message(day: date | None, topic: str | None, *, posted: bool, then: str) -> Message:
    """``/paper today new`` when no post is due: nothing announced yet (``day`` None), the
    papers of ``day`` already ``posted``, or none of them new here on ``topic``."""
    if day is None:
        said = "No feed has announced a paper yet."
    elif posted:
        said = f"The papers announced up to {long_date(day)} are posted here already."
    else:
        about = f" on {quoted(topic)}" if topic else ""
        said = f"No paper announced up to {long_date(day)}{about} is new to this channel."
    return notice_message(f"{said} I look again {then}, and post when new papers come.")


def no_new_papers_message() -> Message:
    return notice_message(
        f"This channel does not follow new papers. Start with `{USAGE}`, e.g. `{EXAMPLE}`."
    )
