"""The paper of the day and the subscription messages, as Slack messages: pure functions.

The daily post reuses the paper card from ``bot.render.papers`` so a paper looks the same
wherever it appears; only the dated header and the "Paper 12 of 76" progress are added. Topics
are user-typed and are escaped before they are echoed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

from bot.papers.paper import Paper
from bot.render import blocks as bk
from bot.render.message import Message
from bot.render.mrkdwn import (
    command_code,
    escape_mrkdwn,
    fallback_text,
    notice_message,
    quoted,
)
from bot.render.notes import notes_mrkdwn
from bot.render.papers import PUBLIC_BUTTONS, paper_blocks
from bot.render.subscribe import SubscribeProblem, refusal_text
from bot.search.results import Reason


def long_date(day: date) -> str:
    """``Friday 28 March 2025``: unambiguous for every reader, whatever their locale."""
    return f"{day:%A} {day.day} {day:%B %Y}"


def local_moment(instant: datetime, zone: ZoneInfo) -> str:
    """``Monday 31 March 2025 at 09:00 (Europe/Berlin)``."""
    local = instant.astimezone(zone)
    return f"{long_date(local.date())} at {local:%H:%M} ({zone.key})"


def next_post_words(
    posting_now: bool,
    following: datetime,
    zone: ZoneInfo,
    *,
    now: datetime,
    retry_at: datetime | None = None,
) -> str:
    """When the next paper comes. Today's, when its time has come, is posted at once, so the
    reader may see it arrive with this line: it is named as today's, and the one after it
    (``following``) is dated, rather than a "next" that would read as another paper. When
    posting it failed (the database or Slack was unavailable), ``retry_at`` is when it is
    tried again: "being posted now" would promise what is not happening. A retry within the
    minute the reader is in (``now``) is named to the second: "retried at 09:00" read at
    09:00 says nothing."""
    when = local_moment(following, zone)
    if not posting_now:
        return when
    if retry_at is not None:
        retry = _retry_time(retry_at, now, zone)
        return f"today's is late and will be retried at {retry}, then {when}"
    return f"today's is being posted now, then {when}"


def _retry_time(retry_at: datetime, now: datetime, zone: ZoneInfo) -> str:
    retry = retry_at.astimezone(zone)
    minute = now.astimezone(zone).replace(second=0, microsecond=0)
    return (
        f"{retry:%H:%M:%S}"
        if retry.replace(second=0, microsecond=0) == minute
        else f"{retry:%H:%M}"
    )


def _topic_words(topic: str | None) -> str:
    return f" on {quoted(topic)}" if topic else ""


def progress_line(position: int, pool_size: int, topic: str | None) -> str:
    return f"Paper {position} of {pool_size}{_topic_words(topic)}"


def _card(paper: Paper, day: date, position: int, pool_size: int, topic: str | None) -> list[dict]:
    """The paper of the day's card; a place not known (``pool_size`` 0: a post an older
    version made, found in the channel) is left unsaid rather than guessed."""
    place = [bk.context(progress_line(position, pool_size, topic))] if pool_size else []
    return [
        bk.header(f"Paper of the day · {long_date(day)}"),
        *paper_blocks(paper, buttons=PUBLIC_BUTTONS),
        *place,
    ]


def digest_post(
    paper: Paper, day: date, *, position: int, pool_size: int, topic: str | None = None
) -> Message:
    """The message posted in the channel; ``day`` is the date in the channel's zone."""
    text = f"Paper of the day, {long_date(day)}: {escape_mrkdwn(paper.title)}"
    return bk.message(text, _card(paper, day, position, pool_size, topic))


def today_message(
    paper: Paper,
    day: date,
    *,
    position: int,
    pool_size: int,
    topic: str | None,
    status: str,
) -> Message:
    """``/paper today``: the day's card under a line saying whether it is out yet."""
    blocks = [bk.section(status), *_card(paper, day, position, pool_size, topic)]
    return bk.message(f"{fallback_text(status)} {escape_mrkdwn(paper.title)}", blocks)


NEW, AGAIN, UPDATED, UNCHANGED = "new", "again", "updated", "unchanged"
"""What a ``/paper subscribe`` did: started a subscription, brought back a stopped or
paused one, changed one, or found nothing to change."""
_VERBS = {
    NEW: "Subscribed",
    AGAIN: "Subscribed again",
    UPDATED: "Updated",
    UNCHANGED: "Nothing to change",
}
_PARTS = {"time": "time", "zone": "time zone", "days": "days", "topic": "topic"}
_KINDS = {"daily": "paper of the day", "weekly": "weekly digest", "new": "new papers post"}


def subscribe_verb(status: str) -> str:
    return _VERBS[status]


def days_words(cadence: str) -> str:
    """``weekdays`` → ``on weekdays``, ``daily`` → ``every day``, ``monday`` → ``on
    Mondays``."""
    if cadence == "daily":
        return "every day"
    if cadence == "announced":
        return "on days with new papers"
    return "on weekdays" if cadence == "weekdays" else f"on {cadence.capitalize()}s"


def _value(part: str, value: str | None) -> str:
    if part == "topic":
        return quoted(value) if value else "all papers"
    return days_words(value or "") if part == "days" else escape_mrkdwn(value or "")


def change_notes(
    changed: Sequence[tuple[str, str | None, str | None]],
    kept: Sequence[tuple[str, str | None, str | None]],
    *,
    inherited: Sequence[str] = (),
    inherited_from: str = "daily",
    zone_word: str | None = None,
    zone: str = "",
) -> list[str]:
    """The lines saying what a ``/paper subscribe`` changed and kept, each part as
    ``(part, before, after)`` (``time``, ``zone``, ``days``, ``topic``); ``inherited`` parts of
    a new subscription came from the channel's subscription of kind ``inherited_from``
    (``daily``, ``weekly`` or ``new``); ``zone_word`` is the
    city or abbreviation typed for ``zone``."""
    notes = []
    if zone_word:
        notes.append(f"{quoted(zone_word)} read as {escape_mrkdwn(zone)}.")
    if changed:
        notes.append(
            "Changed: "
            + "; ".join(
                f"{_PARTS[part]} {_value(part, before)} → {_value(part, after)}"
                for part, before, after in changed
            )
            + "."
        )
    if kept:
        kept_words = [
            _value(part, after) if part == "days" else f"{_PARTS[part]} {_value(part, after)}"
            for part, _before, after in kept
        ]
        notes.append("Kept: " + "; ".join(kept_words) + ".")
    if inherited:
        parts = " and ".join(_PARTS[part] for part in inherited)
        notes.append(f"Same {parts} as this channel's {_KINDS[inherited_from]}.")
    return notes


def subscribed_message(
    description: str,
    topic: str | None,
    pool_size: int,
    next_post: str,
    *,
    status: str = NEW,
    notes: Sequence[str] = (),
) -> Message:
    what = f"papers{_topic_words(topic)} ({pool_size} in the rotation)"
    return notice_message(
        f"{subscribe_verb(status)}: this channel gets one of the {what} at {description}.\n"
        + "".join(f"{note}\n" for note in notes)
        + f"Next paper: {next_post}. Change it with `/paper subscribe …`, "
        "stop it with `/paper unsubscribe`.\n"
        "I can only post where I'm a member: if I'm not in this channel yet, "
        "`/invite @paperbot`."
    )


def mistyped_command_message(
    meant: str, *, changes: bool = True, invocation: str = "/paper"
) -> Message:
    """A command with a typo in its word (``/paper subscibe 9am``, ``/paper nwe``,
    ``@paperbot hlep``): nothing is searched or changed; ``meant`` is the command it looks
    like, with what followed, ``changes`` whether that command changes anything (a
    subscription) or only answers, and ``invocation`` how it is given (``@paperbot`` in a
    mention)."""
    changed = " Nothing was changed." if changes else ""
    return notice_message(
        f":warning: Did you mean {command_code(f'{invocation} {meant}')}?{changed} "
        "To search for those words instead, put them in quotes."
    )


def mistyped_mention_message(meant: str) -> Message:
    """``@paperbot nwe``: the mention's commands only answer, they change nothing."""
    return mistyped_command_message(meant, changes=False, invocation="@paperbot")


def unsubscribe_usage_message(argument: str, near: str | None) -> Message:
    """``near`` is the kind the argument looks like a misspelling of (``wekly``)."""
    meant = f"Did you mean `/paper unsubscribe {near}`? " if near else ""
    return notice_message(
        f":warning: {quoted(argument)} is not something to unsubscribe from. {meant}"
        "`/paper unsubscribe` stops the paper of the day, `/paper unsubscribe weekly` the "
        "weekly digest, `/paper unsubscribe new` the new papers post. Nothing was stopped."
    )


def direct_message_subscription_message() -> Message:
    return notice_message(
        ":warning: The paper of the day goes to channels, not direct messages. Run "
        "`/paper subscribe` in the channel that should get it, e.g. "
        "`/paper subscribe 9:30am Europe/Berlin`, and `/invite @paperbot` there."
    )


def subscription_error_message(problem: SubscribeProblem) -> Message:
    """Why a command was refused: its sentence holds pieces of what the person typed, so it
    is escaped as a whole (its backticks are not markup Slack reserves). A refused command
    changes nothing, and says so."""
    return notice_message(f":warning: {escape_mrkdwn(refusal_text(problem))}\nNothing was changed.")


def no_papers_for_topic_message(
    topic: str, reasons: Sequence[Reason] = (), *, new_papers: int = 0
) -> Message:
    """No shipped paper matches ``topic``, and why, as ``/paper TOPIC`` would say (a filter's
    bad value, a date after the newest paper); ``new_papers`` of the feeds' papers do, which
    the new papers post can follow."""
    if new_papers:
        count = "1 new paper matches" if new_papers == 1 else f"{new_papers} new papers match"
        return notice_message(
            f":warning: No paper of the collection matches {quoted(topic)}, but {count} it: "
            "`/paper subscribe new` with the topic brings the best of each day's to this "
            "channel. Nothing was changed."
        )
    why = f"\n{notes_mrkdwn(reasons)}" if reasons else ""
    return notice_message(
        f":warning: No paper matches {quoted(topic)}, so there is nothing to send.{why}\n"
        "Try broader words, or subscribe without a topic: `/paper subscribe 9:00`."
    )


FROM_FEEDS = (
    "_The paper of the day and the weekly digest's picks come from the bundled collection; "
    "new papers reach this channel once each, in the new papers post (`/paper subscribe "
    "new`) and the weekly digest's new papers of the week._"
)
"""How the paper of the day and the weekly digest draw from new papers, said in ``/paper
subscriptions`` where the bot follows feeds (the README says the same)."""

_AGAIN = {
    "daily": "`/paper subscribe`",
    "weekly": "`/paper subscribe weekly DAY`",
    "new": "`/paper subscribe new`",
}


def unsubscribed_message(was_subscribed: bool, *, kind: str = "daily") -> Message:
    what, again = _KINDS[kind], _AGAIN[kind]
    if not was_subscribed:
        return notice_message(f"This channel had no {what}; nothing to stop.")
    return notice_message(f"Unsubscribed: no more {what} here. {again} brings it back.")


def subscriptions_message(
    description: str | None,
    topic: str | None,
    *,
    source: str | None = None,
    paused_reason: str | None = None,
    next_post: str | None = None,
    engaged_papers: int = 0,
    weekly: Sequence[str] = (),
    new: Sequence[str] = (),
    follows_feeds: bool = False,
) -> Message:
    """``/paper subscriptions``: what the channel gets, when the next one comes, and
    whether what the channel shares and reacts to shapes the choice; ``weekly`` and ``new``
    are the weekly digest's and the new papers post's lines, when the channel has them;
    where the bot ``follows_feeds`` it says how new papers reach the channel."""
    feeds = [FROM_FEEDS] if follows_feeds else []
    start = (
        "`/paper subscribe [TIME] [TIMEZONE] [weekdays|daily] [TOPIC…]`, "
        "e.g. `/paper subscribe 9:30am Europe/Berlin`"
    )
    if description is None:
        if weekly or new:
            return _by_kind([f"*Paper of the day:* none ({start})"], weekly, new, feeds)
        return notice_message(
            f"This channel has no paper of the day. Start one with {start}. A weekly team "
            "digest: `/paper subscribe weekly monday 9am`. New papers as they are announced: "
            "`/paper subscribe new 9am TOPIC`."
        )
    lines = [f"*Paper of the day:* {description}"]
    lines.append(f"*Topic:* {quoted(topic)}" if topic else "*Topic:* all papers")
    if engaged_papers:
        count = "1 paper" if engaged_papers == 1 else f"{engaged_papers} papers"
        lines.append(
            f"*Shaped by this channel:* {count} shared or reacted to here move papers like "
            "them forward in the rotation."
        )
    if source == "env":
        lines.append("_Set by the bot's configuration; `/paper subscribe` overrides it._")
    if paused_reason:
        lines.append(
            f":double_vertical_bar: *Paused:* I can't post here (`{escape_mrkdwn(paused_reason)}`)."
            " Invite me back with `/invite @paperbot`, then run `/paper subscribe` again."
        )
    elif next_post:
        lines.append(f"*Next paper:* {next_post}")
    return _by_kind(lines, weekly, new, feeds)


@dataclass(frozen=True)
class KindWords:
    """How ``/paper subscriptions`` names one more kind (the weekly digest, new papers): its
    topic's label, its pause's, the command that resumes it and its next post's label."""

    topic: str
    paused: str
    again: str
    next: str


def kind_lines(
    heading: str,
    topic: str | None,
    words: KindWords,
    *,
    paused_reason: str | None,
    next_post: str,
) -> list[str]:
    """One more kind's lines in ``/paper subscriptions``: ``heading``, its topic, then its
    pause and the way back, or when it comes next."""
    lines = [heading]
    if topic:
        lines.append(f"*{words.topic}:* {quoted(topic)}")
    if paused_reason:
        lines.append(
            f":double_vertical_bar: *{words.paused}:* I can't post here "
            f"(`{escape_mrkdwn(paused_reason)}`). Invite me back with `/invite @paperbot`, then "
            f"run `{words.again}` again."
        )
    else:
        lines.append(f"*{words.next}:* {next_post}")
    return lines


def _by_kind(*kinds: Sequence[str]) -> Message:
    """Each kind of subscription's lines in a section of its own, so that no line (a topic,
    a pause) reads as the other kind's."""
    texts = ["\n".join(lines) for lines in kinds if lines]
    return bk.message(fallback_text("\n".join(texts)), [bk.section(text) for text in texts])
