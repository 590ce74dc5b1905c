"""A Slack message as terminal text, for the shell.

The shell shows exactly the blocks Slack would get, only readable: mrkdwn links become
``label (url)``, escapes are undone, emphasis markers go, and every button gets a number the
person can type to press it.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bot.render.mrkdwn import terminal_text

WIDTH = 88


@dataclass(frozen=True)
class Choice:
    """A numbered button: what to send back when the person types its number."""

    number: int
    button: dict[str, Any]
    block_id: str


@dataclass(frozen=True)
class TerminalView:
    text: str
    choices: tuple[Choice, ...]


def _wrap(text: str, indent: str = "") -> list[str]:
    lines: list[str] = []
    for paragraph in text.split("\n"):
        wrapped = textwrap.wrap(paragraph, WIDTH, initial_indent=indent, subsequent_indent=indent)
        lines.extend(wrapped or [indent.rstrip()])
    return lines


def render(
    blocks: Iterable[dict[str, Any]], fallback: str = "", *, first_number: int = 1
) -> TerminalView:
    """Terminal lines for a message's blocks (or its fallback text when it has none)."""
    lines: list[str] = []
    choices: list[Choice] = []
    blocks = list(blocks)
    if not blocks:
        lines.extend(_wrap(terminal_text(fallback)))
    for block in blocks:
        kind = block.get("type")
        if kind == "header":
            title = block["text"]["text"]
            lines.extend([title, "=" * min(len(title), WIDTH)])
        elif kind == "section":
            lines.extend(_wrap(terminal_text(block.get("text", {}).get("text", ""))))
        elif kind == "context":
            texts = [terminal_text(element.get("text", "")) for element in block["elements"]]
            lines.extend(_wrap(" | ".join(texts), indent="    "))
        elif kind == "divider":
            lines.append("-" * 40)
        elif kind == "actions":
            labels = []
            for button in block["elements"]:
                number = first_number + len(choices)
                choices.append(Choice(number, button, block.get("block_id", "")))
                labels.append(f"[{number}] {button['text']['text']}")
            lines.extend(_wrap("   ".join(labels), indent="    "))
    return TerminalView("\n".join(lines), tuple(choices))
