"""The short replies of a conversation: what a mention, a thread, the message shortcut or a
digest command is told when there is nothing to search or show, what a list of related
papers is about, and how a thread's page says there is more."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, auto
from typing import TYPE_CHECKING

from bot.render.message import Message
from bot.render.mrkdwn import notice_message

if TYPE_CHECKING:
    from bot.render.blocks import ButtonElement

RANDOM_PAPER_INTRO = "A random paper:"
"""Above the card of ``/paper random`` and ``@paperbot random``."""


class RelatedTo(Enum):
    """Which message a list of related papers is about: a message is too long to quote, so
    the heading names it."""

    MESSAGE = auto()
    """The message the "Find related papers" shortcut was used on."""
    THREAD_START = auto()
    """The first message of the thread a bare mention was made in."""
    SAME_MESSAGE = auto()
    """``@paperbot more`` paging on from an earlier related search."""


_RELATED_TO_WORDS = {
    RelatedTo.MESSAGE: "this message",
    RelatedTo.THREAD_START: "this thread's first message",
    RelatedTo.SAME_MESSAGE: "the same message",
}


def related_to_words(subject: RelatedTo) -> str:
    return _RELATED_TO_WORDS[subject]


@dataclass(frozen=True)
class Aside:
    """A note under a page's heading (trusted mrkdwn) and a button beside its paging ones:
    how a ``/paper new …`` text was read, and the other reading (``bot.render.new``)."""

    note: str
    button: ButtonElement | None = None


PAGING_UNAVAILABLE = "I can't page through these results right now: ask again in a while."
"""Below a page that has more results but whose search could not be remembered (the
database is unavailable), in place of **Next** or ``@paperbot more``."""


def thread_footer(*, more: bool, hint: str | None, remembered: bool = True) -> str | None:
    """Below a thread's page: how to get the next results (when the search could be
    ``remembered``), and the wider corpus's ``hint``."""
    more_line = None
    if more:
        more_line = (
            "Say `@paperbot more` for the next results." if remembered else PAGING_UNAVAILABLE
        )
    return _lines(more_line, hint)


def page_footer(*, more: bool, hint: str | None, remembered: bool) -> str | None:
    """Below a private page: that **Next** is missing when its search could not be
    ``remembered``, and the wider corpus's ``hint``."""
    return _lines(PAGING_UNAVAILABLE if more and not remembered else None, hint)


def _lines(*lines: str | None) -> str | None:
    return "\n".join(filter(None, lines)) or None


def database_unavailable_message() -> Message:
    """What needs the bot's records (a reading list, a remembered search, a subscription)
    while the database cannot be used."""
    return notice_message(
        "I can't reach my records right now, so I can't do that: please try again in a few minutes."
    )


def mention_usage_message() -> Message:
    """A bare mention outside a thread: there is nothing to relate to."""
    return notice_message(
        "Mention me with some words, e.g. `@paperbot graph sparsification`, or mention "
        "me alone inside a thread to find papers related to it."
    )


def no_earlier_search_message() -> Message:
    """``@paperbot more`` where the bot has not searched yet."""
    return notice_message(
        "There is no earlier search here to continue: mention me with some words "
        "first, e.g. `@paperbot graph sparsification`."
    )


def thread_start_without_words_message() -> Message:
    return notice_message(
        "The thread's first message has no words to search for. Mention me with some."
    )


def message_without_words_message() -> Message:
    """The "Find related papers" shortcut on a message with nothing to search for."""
    return notice_message("That message has no words to search for. Try `/paper` with some.")


def digest_unavailable_message() -> Message:
    """A digest command on a bot run without the paper of the day."""
    return notice_message("The paper of the day is not available on this bot.")
