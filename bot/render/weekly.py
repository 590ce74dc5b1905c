"""The weekly team digest as one Slack message: pure functions.

Counts shown in a channel never point at a person: a paper reads "shared by 3 people", never
with names, and a count below ``FEWEST_PEOPLE_SHOWN`` is not shown at all (the store already
reports such counts as 0; this is the last line of that rule).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from bot.papers.paper import Paper
from bot.render import blocks as bk
from bot.render.digest import NEW, KindWords, kind_lines, long_date, subscribe_verb
from bot.render.message import Message
from bot.render.mrkdwn import notice_message, quoted
from bot.render.papers import PUBLIC_BUTTONS, paper_buttons, title_mrkdwn

FEWEST_PEOPLE_SHOWN = 2


@dataclass(frozen=True)
class NewThisWeek:
    """The week's best new papers for the channel, of ``matching`` it had not been shown
    (on ``topic``)."""

    papers: Sequence[Paper] = ()
    matching: int = 0
    topic: str | None = None


@dataclass(frozen=True)
class WeekPaper:
    """A paper of the workspace's week and how many people shared it and reacted to it."""

    paper: Paper
    sharers: int
    reactors: int


def people_line(entry: WeekPaper) -> str | None:
    """``shared by 3 people · 2 people reacted``; ``None`` when no count may be shown."""
    parts = []
    if entry.sharers >= FEWEST_PEOPLE_SHOWN:
        parts.append(f"shared by {entry.sharers} people")
    if entry.reactors >= FEWEST_PEOPLE_SHOWN:
        parts.append(f"{entry.reactors} people reacted")
    return " · ".join(parts) or None


def weekly_post(
    day: date,
    engaged: Sequence[WeekPaper],
    picks: Sequence[Paper],
    *,
    since: date,
    picks_follow_channel: bool,
    new_papers: NewThisWeek = NewThisWeek(),
) -> Message:
    """The digest posted on ``day``: the workspace's most shared and reacted-to papers of
    the days from ``since`` (the window is the digest's to choose), then a few picks for
    the channel (like what it engaged with, when ``picks_follow_channel``). The days are
    named, never "this week": a preview is read days before the post, and a Monday's digest
    is about the week before. The week's ``new_papers`` follow, where there are any."""
    first_day = long_date(since)
    blocks: list[dict] = [bk.header(f"Team digest · {long_date(day)}")]
    shown = [(entry, line) for entry in engaged if (line := people_line(entry))]
    if shown:
        blocks.append(
            bk.section(f"*Most shared and reacted to in the workspace since {first_day}*")
        )
        for entry, line in shown:
            blocks.append(bk.section(f"{title_mrkdwn(entry.paper)}\n{line}"))
    else:
        blocks.append(
            bk.context(
                f"No paper was shared or reacted to by two people or more since {first_day}."
            )
        )
    if picks:
        why = (
            "like the papers shared and reacted to here"
            if picks_follow_channel
            else "from the collection (react to the bot's posts and the picks follow)"
        )
        blocks.append(bk.divider())
        blocks.append(bk.section(f"*Picked for this channel*, {why}"))
        blocks.extend(_titles(picks))
    blocks.extend(_new_papers_blocks(new_papers, first_day))
    text = f"Team digest, {long_date(day)}: {len(shown)} papers shared since {first_day}, "
    new = f", {len(new_papers.papers)} new papers" if new_papers.papers else ""
    return bk.message(f"{text}{len(picks)} picks{new}", blocks)


def _new_papers_blocks(new: NewThisWeek, first_day: str) -> list[dict]:
    if not new.papers:
        return []
    about = f" on {quoted(new.topic)}" if new.topic else ""
    count = len(new.papers)
    best = f"the {count} best of {new.matching}" if new.matching > count else "new papers"
    return [
        bk.divider(),
        bk.section(f"*New papers{about}*, {best} announced since {first_day} not shown here"),
        *_titles(new.papers),
    ]


def _titles(papers: Sequence[Paper]) -> list[dict]:
    """Each paper's linked title and its buttons."""
    blocks = []
    for paper in papers:
        blocks.append(bk.section(title_mrkdwn(paper)))
        buttons = paper_buttons(paper, PUBLIC_BUTTONS)
        if buttons:
            blocks.append(buttons)
    return blocks


def weekly_preview(status: str, post: Message) -> Message:
    """``/paper today weekly``: the coming digest under a line saying when it comes."""
    return bk.message(f"{status} {post.text}", [bk.section(status), *post.blocks])


def subscribed_weekly_message(
    description: str,
    topic: str | None,
    next_post: str,
    *,
    status: str = NEW,
    notes: Sequence[str] = (),
) -> Message:
    """``notes`` say what the command changed and kept (``digest.change_notes``)."""
    picks = f"picks on {quoted(topic)}" if topic else "picks for this channel"
    return notice_message(
        f"{subscribe_verb(status)}: this channel gets the weekly team digest at {description}: "
        f"the week's most shared and reacted-to papers of the workspace, and {picks}.\n"
        + "".join(f"{note}\n" for note in notes)
        + f"Next digest: {next_post}. See it now with `/paper today weekly`, "
        "stop it with `/paper unsubscribe weekly`."
    )


WEEKLY_WORDS = KindWords(
    "Weekly picks on", "Weekly digest paused", "/paper subscribe weekly DAY", "Next digest"
)


def subscription_lines(
    description: str, topic: str | None, *, paused_reason: str | None, next_post: str
) -> list[str]:
    """The weekly digest's lines in ``/paper subscriptions``."""
    return kind_lines(
        f"*Weekly team digest:* {description}",
        topic,
        WEEKLY_WORDS,
        paused_reason=paused_reason,
        next_post=next_post,
    )


def no_weekly_message() -> Message:
    return notice_message(
        "This channel has no weekly team digest. Start one with "
        "`/paper subscribe weekly DAY [TIME] [TIMEZONE] [TOPIC…]`, "
        "e.g. `/paper subscribe weekly monday 9am Europe/Berlin`."
    )
