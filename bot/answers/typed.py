"""What a person asked for: ``/paper`` text and bot mentions parsed into intents.

Pure functions, so the rules users rely on are unit-tested without Slack: a command word is a
command only when it is the whole text (``/paper random forests`` searches), ``subscribe`` and
``unsubscribe`` only as the first word, a misspelt one of the subscription commands is
answered with the command it looks like (never a search, never a change), and quoting a
word (``/paper "help"``) always searches.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bot.render.mrkdwn import unescape_mrkdwn
from bot.search.lexicon import english_words
from bot.search.query import edit_distance, slipped


class Intent(StrEnum):
    HELP = "help"
    RANDOM = "random"
    TODAY = "today"
    SUBSCRIPTIONS = "subscriptions"
    SOURCES = "sources"
    """Where new papers come from: the followed feeds and how their fetches went."""
    UNSUBSCRIBE = "unsubscribe"
    SUBSCRIBE = "subscribe"
    SEARCH = "search"
    MORE = "more"
    THREAD = "thread"
    """A bare mention: papers related to the thread it was made in."""
    SAVED = "saved"
    SAVED_EXPORT = "saved export"
    FOR_YOU = "for me"
    """Papers like the ones the person saved."""
    FORGET_ME = "forget me"
    """Delete everything kept about the person."""
    NEW = "new"
    """Papers announced since the last announcement day; the argument is what followed
    ``new`` (a topic, filters), which ``bot.answers.new`` may still read as a search."""
    MISTYPED = "mistyped"
    """A subscription command or ``new`` with a typo in its word: the argument is the
    command meant."""


_WHOLE_TEXT_COMMANDS = {
    intent.value: intent
    for intent in (
        Intent.HELP,
        Intent.RANDOM,
        Intent.TODAY,
        Intent.SUBSCRIPTIONS,
        Intent.SOURCES,
        Intent.UNSUBSCRIBE,
        Intent.SAVED,
        Intent.SAVED_EXPORT,
        Intent.FOR_YOU,
        Intent.FORGET_ME,
    )
} | {"foryou": Intent.FOR_YOU, "for you": Intent.FOR_YOU}
"""Each a command only as the whole text: ``/paper for me`` is the suggestions, while
``/paper papers for me`` and ``/paper "for me"`` search (as a search for those two common
words alone would find nothing worth having, taking them costs nobody a search)."""
WEEKLY_ARGUMENT = "weekly"
_WEEKLY_COMMANDS = {
    f"{intent.value} {argument}": (intent, argument)
    for intent in (Intent.TODAY, Intent.UNSUBSCRIBE)
    for argument in (WEEKLY_ARGUMENT, Intent.NEW.value)
}
"""``/paper today weekly`` and ``/paper unsubscribe weekly``, whole texts as well, for the
weekly team digest (``/paper subscribe weekly DAY …`` is parsed with the digest's schedule),
and the same with ``new`` for the new papers post."""
_ARGUMENT_COMMANDS = {
    Intent.SUBSCRIBE.value: Intent.SUBSCRIBE,
    Intent.UNSUBSCRIBE.value: Intent.UNSUBSCRIBE,
}
"""Commands as the first word, whatever follows: ``subscribe`` takes a schedule and a topic,
``unsubscribe`` a kind, and both answer anything else they are given (nobody searches for
papers starting with "unsubscribe")."""
_SUBSCRIPTION_WORDS = (
    Intent.SUBSCRIBE.value,
    Intent.UNSUBSCRIBE.value,
    Intent.SUBSCRIPTIONS.value,
)
NEW_WORD = Intent.NEW.value
"""``new`` as the first word: the new papers, unless what follows reads as a search (the rule
is ``bot.answers.new``'s, which needs the index to decide)."""
_MENTION_COMMANDS = {"help": Intent.HELP, "random": Intent.RANDOM, "more": Intent.MORE}
_MENTION_WORDS = (*_MENTION_COMMANDS, NEW_WORD)


@dataclass(frozen=True)
class Request:
    """An intent and its argument: the query for a search, the rest for ``subscribe``."""

    intent: Intent
    argument: str = ""


_SLACK_LINK = re.compile(r"<([^<>|]*)(?:\|([^<>]*))?>")


def _unwrap(match: re.Match[str]) -> str:
    target, label = match.group(1), match.group(2)
    if target.startswith(("@", "!")):
        return ""  # people and groups addressed (@channel, @here, @team) are not a topic
    if target.startswith("#"):
        return "#" + (label or target[1:])
    return target


def slack_to_plain(text: str) -> str:
    """What the person typed, from Slack's wire form.

    Slack wraps links and mentions in ``<…>`` and escapes ``& < >``; undoing both gives the
    query as typed (``<https://openreview.net/forum?id=X>`` is the URL again, a channel
    is its ``#name``), less whom it addresses: mentions of people, ``@channel``, ``@here``
    and user groups drop out, as they say nothing of what to search for. Renderers escape
    it again when echoing.
    """
    plain = unescape_mrkdwn(_SLACK_LINK.sub(_unwrap, text))
    return " ".join(_without_control_characters(plain).split())


def _without_control_characters(text: str) -> str:
    """Control characters (NUL, BEL, tabs) become spaces and invisible format characters (bidi
    overrides, zero-width marks) vanish: they carry no meaning in a query and, echoed back,
    could reorder or hide the surrounding text."""
    categories = {"Cc": " ", "Cf": ""}
    return "".join(categories.get(unicodedata.category(char), char) for char in text)


def message_text(message: dict[str, Any]) -> str:
    """What a message is about, as plain text: its words, its files' names and the titles of
    the links it unfurled (a pasted link's title says more than its URL)."""
    parts = [slack_to_plain(message.get("text") or "")]
    for file in message.get("files") or ():
        parts.append(file.get("title") or file.get("name") or "")
    for attachment in message.get("attachments") or ():
        parts.append(attachment.get("title") or "")
    return " ".join(_without_control_characters(" ".join(parts)).split())


_QUOTES = " \"'\u201c\u201d\u2018\u2019"
"""Quotes and spaces: ``/paper ""`` asks for nothing, so it gets the help."""


def parse_command(text: str) -> Request:
    """Parse the text after ``/paper`` (in Slack's wire form)."""
    plain = slack_to_plain(text)
    if not plain.strip(_QUOTES):
        return Request(Intent.HELP)
    word = plain.lower()
    if word in _WHOLE_TEXT_COMMANDS:
        return Request(_WHOLE_TEXT_COMMANDS[word])
    if word in _WEEKLY_COMMANDS:
        return Request(*_WEEKLY_COMMANDS[word])
    first, _, rest = plain.partition(" ")
    if first.lower() in _ARGUMENT_COMMANDS:
        return Request(_ARGUMENT_COMMANDS[first.lower()], rest.strip())
    if new := _new_request(plain):
        return new
    meant = _mistyped(first)
    if meant is not None:
        return Request(Intent.MISTYPED, f"{meant} {rest}".strip())
    return Request(Intent.SEARCH, plain)


def _new_request(plain: str) -> Request | None:
    """``new`` as the first word, in a ``/paper`` text, a mention or a direct message: the
    new papers with what follows, which ``bot.answers.new`` may still read as a search."""
    first, _, rest = plain.partition(" ")
    return Request(Intent.NEW, rest.strip()) if first.lower() == NEW_WORD else None


def _mistyped(word: str) -> str | None:
    """The subscription command ``word`` is a typo of (``subscibe``, ``unsubscrbe``,
    ``subscriptons``): within two edits, and no English word (no paper search starts with
    a misspelt ``subscribe``, while ``description`` or ``subscript`` may); or ``new`` with
    two letters swapped or one doubled, and no English word (``nwe``, ``neww``): a three-letter
    word one other edit away is as likely an acronym searched for (``NER``, ``NEO``)."""
    lowered = word.lower()
    if _slip_of(lowered, (NEW_WORD,)):
        return NEW_WORD
    if len(lowered) < len(Intent.SUBSCRIBE.value) - 2 or lowered in english_words():
        return None
    near = [
        (distance, command[0] != lowered[0], command)
        for command in _SUBSCRIPTION_WORDS
        if (distance := edit_distance(lowered, command, 2)) <= 2
    ]
    return min(near)[2] if near else None


def _slip_of(word: str, commands: tuple[str, ...]) -> str | None:
    """The command among ``commands`` that ``word`` (lower case) is a slip of a finger from
    (``nwe``, ``hlep``, ``mroe``), unless it is an English word or a command itself."""
    if word in commands or word in english_words():
        return None
    return next((command for command in commands if slipped(word, command)), None)


def parse_mention(text: str, bot_user_id: str | None) -> Request:
    """Parse a mention or a direct message: the bot's own mention is removed first. Its
    commands are the whole text (``help``, ``random``, ``more``), or ``new`` as the first
    word as in ``/paper``; a lone word that is one of them with a slip of a finger
    (``@paperbot nwe``) is asked about, as ``/paper nwe`` is; anything else searches.

    Without a known bot user id, a leading mention is taken to be the bot's.
    """
    if bot_user_id:
        text = re.sub(rf"<@{re.escape(bot_user_id)}(?:\|[^>]*)?>", " ", text)
    else:
        text = re.sub(r"^\s*<@[A-Z0-9]+(?:\|[^>]*)?>", " ", text)
    plain = slack_to_plain(text)
    if not plain:
        return Request(Intent.THREAD)
    intent = _MENTION_COMMANDS.get(plain.lower())
    if intent is not None:
        return Request(intent)
    meant = _slip_of(plain.lower(), _MENTION_WORDS) if " " not in plain else None
    if meant is not None:
        return Request(Intent.MISTYPED, meant)
    return _new_request(plain) or Request(Intent.SEARCH, plain)
