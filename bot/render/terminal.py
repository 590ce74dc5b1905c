"""A Slack message as terminal text, for the shell.

The shell shows exactly the blocks Slack would get, only readable, as Slack would show them:
mrkdwn links become ``label (url)``, escapes are undone, emphasis markers go, emoji codes become
their characters, channels are named, and every button gets a number the person can type to
press it.

It also writes the shell's own answers to a line it cannot send as it is (a usage, a typo, a
card number the last answer lacks). The shell decides which answer a line gets and passes
the words it understands, so the words and the sentences around them cannot drift apart.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.render.mrkdwn import terminal_text
from bot.render.origin import named_ids

WIDTH = 88

EMOJI = {"warning": "\u26a0\ufe0f", "double_vertical_bar": "\u23f8\ufe0f"}
"""The emoji codes the bot writes, as the characters Slack shows for them."""
_EMOJI_CODE = re.compile(r":([a-z0-9_+-]+):")
_CHANNEL = re.compile(r"<#([A-Z0-9]+)>")
_CARD_NUMBER = re.compile(r"(\d+)\. \*")
"""A numbered card's first line, as ``papers.paper_blocks`` writes it: the rank, then the
bold title."""


@dataclass(frozen=True)
class Choice:
    """A numbered button: what to send back when the person types its number."""

    number: int
    button: dict[str, Any]
    block_id: str
    card: int | None = None
    """The number printed on the paper card the button is on (``6.`` on the second page of
    results), if it has one: the number a person reads there and types (``save 6``)."""


@dataclass(frozen=True)
class TerminalView:
    text: str
    choices: tuple[Choice, ...]


def readable(mrkdwn: str, channel_names: Mapping[str, str]) -> str:
    """mrkdwn as a terminal shows it: ``<#C…>`` by the channel's name where it is known,
    emoji codes as their characters, then links, escapes and emphasis as ``terminal_text``."""
    named = _CHANNEL.sub(
        lambda match: (
            f"<#{match[1]}|{channel_names[match[1]]}>" if match[1] in channel_names else match[0]
        ),
        mrkdwn,
    )
    return terminal_text(_emoji(named))


def _emoji(text: str) -> str:
    return _EMOJI_CODE.sub(lambda match: EMOJI.get(match[1], match[0]), text)


def paragraph(text: str) -> str:
    """Plain text outside any message (the shell's start-up notes), wrapped as a message's
    lines are: a terminal would otherwise break it inside a word or a setting's name."""
    return "\n".join(_wrap(text))


def _wrap(text: str, indent: str = "") -> list[str]:
    """Lines of at most ``WIDTH`` characters, broken only at spaces: a URL cut in two could
    not be clicked or copied, so a longer word runs over."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        wrapped = textwrap.wrap(
            paragraph,
            WIDTH,
            initial_indent=indent,
            subsequent_indent=indent,
            break_long_words=False,
            break_on_hyphens=False,
        )
        lines.extend(wrapped or [indent.rstrip()])
    return lines


def render(
    blocks: Iterable[dict[str, Any]],
    fallback: str = "",
    *,
    first_number: int = 1,
    channel_names: Mapping[str, str] | None = None,
) -> TerminalView:
    """Terminal lines for a message's blocks (or its fallback text when it has none);
    ``channel_names`` names the channels the caller knows (the shell's ``#research``)."""
    names = channel_names or {}
    lines: list[str] = []
    choices: list[Choice] = []
    blocks = list(blocks)
    if not blocks:
        lines.extend(_wrap(readable(fallback, names)))
    card: int | None = None  # the card being drawn: from its numbered first line to its buttons
    for block in blocks:
        kind = block.get("type")
        if kind == "header":
            title = _emoji(block["text"]["text"])
            lines.extend([title, "=" * min(len(title), WIDTH)])
        elif kind == "section":
            text = block.get("text", {}).get("text", "")
            if numbered := _CARD_NUMBER.match(text):
                card = int(numbered[1])
            lines.extend(_wrap(readable(text, names)))
        elif kind == "context":
            texts = [readable(element.get("text", ""), names) for element in block["elements"]]
            lines.extend(_wrap(" | ".join(texts), indent="    "))
        elif kind == "divider":
            lines.append("-" * 40)
            card = None
        elif kind == "actions":
            labels = []
            for button in block["elements"]:
                number = first_number + len(choices)
                choices.append(Choice(number, button, block.get("block_id", ""), card))
                labels.append(f"[{number}] {button['text']['text']}")
            lines.extend(_wrap("   ".join(labels), indent="    "))
            card = None
    return TerminalView("\n".join(lines), tuple(choices))


def save_usage(save: str) -> str:
    """A ``save`` with no paper's number after it."""
    return f"Write it like `{save} 6`: the number on the paper's card in the last answer.\n"


def dismiss_usage(dismiss: str, for_you: str) -> str:
    """A ``dismiss`` with no suggestion's number after it."""
    return (
        f"Write it like `{dismiss} 2`: the number on the suggestion's card "
        f"(`{for_you}` lists them).\n"
    )


def related_usage(related: str) -> str:
    """A ``related`` with no message to find papers for."""
    return f"Write it like `{related} graph neural networks`: the message to find papers for.\n"


def react_usage(react: str) -> str:
    """A ``react`` missing the post's number or the emoji."""
    return f"Write it like `{react} 1 :+1:`: the post's number (1 is the latest), then an emoji.\n"


def did_you_mean(line: str) -> str:
    """A mistyped shell word, ``/paper`` or ``@paperbot``: ``line`` is the one it was
    meant to be."""
    return f"Did you mean `{line}`? Type `help` for what the shell understands.\n"


def nothing_to_save(example: str) -> str:
    """``save N`` after an answer with no paper on it; ``example`` is a search to try."""
    return f"The last answer has no paper to save. Try `{example}`.\n"


def no_such_paper(number: int, numbers: Iterable[int]) -> str:
    """``save N`` for a number no paper of the last answer has: which ones it has."""
    return f"The last answer has no paper {number} to save: {_numbering('paper', numbers)}.\n"


def already_saved() -> str:
    return "That paper is already on your reading list.\n"


def no_suggestions(number: int, for_you: str) -> str:
    """``dismiss N`` after an answer with no suggestion on it: where suggestions are."""
    return f"The last answer has no suggestion {number}: try `{for_you}` or `home`.\n"


def no_such_suggestion(number: int, numbers: Iterable[int]) -> str:
    """``dismiss N`` for a number no suggestion of the last answer has."""
    return f"The last answer has no suggestion {number}: {_numbering('suggestion', numbers)}.\n"


def _numbering(kind: str, numbers: Iterable[int]) -> str:
    """Which numbers the last answer's papers (or suggestions) have, for a number it lacks."""
    ordered = sorted(numbers)
    if len(ordered) == 1:
        return f"its only {kind} is number {ordered[0]}"
    if ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"its {kind}s are numbered {ordered[0]}\u2013{ordered[-1]}"
    return f"its {kind}s are numbered {', '.join(map(str, ordered))}"


def no_preview(paper_ids: Sequence[str], paper_links: bool) -> str:
    """Why a pasted message got no preview card: ``paper_ids``, the ids its links name (none
    the bot has); ``paper_links``, whether any link is on OpenReview or arXiv at all. In
    Slack each simply stays a link, which the shell would show as no answer at all."""
    if paper_ids:
        why = f"it has no paper with {named_ids(paper_ids)}"
    elif paper_links:
        why = "the link is to no paper's page on OpenReview or arXiv"
    else:
        why = "it previews OpenReview and arXiv links only"
    return paragraph(f"paperbot shows no preview: {why}. In Slack the link stays as it is.") + "\n"
