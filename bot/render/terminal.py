"""A Slack message as terminal text, for the shell.

The shell shows exactly the blocks Slack would get, only readable, as Slack would show them:
mrkdwn links become ``label (url)``, escapes are undone, emphasis markers go, emoji codes become
their characters, channels are named, and every button gets a number the person can type to
press it.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.render.mrkdwn import terminal_text

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
