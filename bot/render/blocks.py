"""Block Kit building and checking: the one place Slack's size limits are known.

Every block is built with ``slack_sdk.models.blocks`` (which refuses malformed or oversized
objects) and every text is cut to fit before it is built, so a long abstract or a hostile
query can shorten a message but never make Slack reject it. ``validate`` re-checks a finished
message and is what the tests run over every message the bot can produce.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from slack_sdk.errors import SlackObjectFormationError
from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)
from slack_sdk.models.views import View

from bot.render.message import Message

MAX_BLOCKS = 50
MAX_VIEW_BLOCKS = 100
MAX_VIEW_TITLE = 24
MAX_SECTION_TEXT = 3000
MAX_HEADER_TEXT = 150
MAX_BUTTON_LABEL = 75
MAX_BUTTON_VALUE = 2000
MAX_CONTEXT_TEXT = 3000
MAX_CONTEXT_ELEMENTS = 10
MAX_ACTIONS_ELEMENTS = 25
MAX_ID = 255
MAX_FALLBACK_TEXT = 3000
"""Slack truncates ``text`` beyond 40,000 characters; notifications need far less."""

ELLIPSIS = "…"

# A mrkdwn "atom" that must never be split: a <link|label>, a mention, or an &escape;.
_ATOM = re.compile(r"<[^<>]*>|&[a-zA-Z]+;|&#\d+;")


class BlockLimitError(ValueError):
    """A message breaks a Block Kit rule; the message lists every problem found."""


def _safe_cut(text: str, limit: int) -> int:
    """The largest index <= ``limit`` that is not inside a link, mention or escape."""
    for atom in _ATOM.finditer(text):
        if atom.start() >= limit:
            break
        if atom.end() > limit:
            return atom.start()
    return limit


def _word_cut(text: str, cut: int) -> int:
    """Back up to the last space before ``cut`` when one is reasonably close."""
    space = text.rfind(" ", 0, cut)
    return space if space > cut * 0.6 else cut


def truncate_mrkdwn(text: str, limit: int) -> str:
    """Shorten mrkdwn to ``limit`` characters (ellipsis included) without breaking markup."""
    if len(text) <= limit:
        return text
    cut = _safe_cut(text, _word_cut(text, limit - len(ELLIPSIS)))
    head = text[:cut].rstrip()
    if head.count("*") % 2:
        head = head[: head.rfind("*")] + head[head.rfind("*") + 1 :]
    return head + ELLIPSIS


def truncate_plain(text: str, limit: int) -> str:
    """Shorten plain text (labels, headers, fallbacks) to ``limit`` characters."""
    if len(text) <= limit:
        return text
    return text[: _word_cut(text, limit - len(ELLIPSIS))].rstrip() + ELLIPSIS


def split_mrkdwn(text: str, limit: int = MAX_SECTION_TEXT) -> list[str]:
    """Cut long mrkdwn (a whole abstract) into pieces that each fit one section."""
    pieces: list[str] = []
    rest = text.strip()
    while len(rest) > limit:
        cut = _safe_cut(rest, _word_cut(rest, limit))
        if cut == 0:
            cut = limit
        pieces.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        pieces.append(rest)
    return pieces


def header(text: str) -> dict[str, Any]:
    return HeaderBlock(text=truncate_plain(text, MAX_HEADER_TEXT)).to_dict()


def section(mrkdwn: str, *, block_id: str | None = None) -> dict[str, Any]:
    text = MarkdownTextObject(text=truncate_mrkdwn(mrkdwn, MAX_SECTION_TEXT))
    return SectionBlock(text=text, block_id=block_id).to_dict()


def context(*mrkdwn: str) -> dict[str, Any]:
    elements = [
        MarkdownTextObject(text=truncate_mrkdwn(item, MAX_CONTEXT_TEXT))
        for item in mrkdwn[:MAX_CONTEXT_ELEMENTS]
        if item
    ]
    return ContextBlock(elements=elements).to_dict()


def divider() -> dict[str, Any]:
    return DividerBlock().to_dict()


def button(label: str, action_id: str, value: str, *, style: str | None = None) -> ButtonElement:
    """A button; ``value`` must already fit, since cutting it would corrupt what it encodes."""
    if len(value) > MAX_BUTTON_VALUE:
        raise BlockLimitError(f"button value of {len(value)} characters for {action_id}")
    return ButtonElement(
        text=truncate_plain(label, MAX_BUTTON_LABEL),
        action_id=action_id,
        value=value,
        style=style,
    )


def actions(buttons: Sequence[ButtonElement], *, block_id: str | None = None) -> dict[str, Any]:
    return ActionsBlock(
        elements=list(buttons[:MAX_ACTIONS_ELEMENTS]),
        block_id=block_id[:MAX_ID] if block_id else None,
    ).to_dict()


def message(text: str, blocks: Iterable[dict[str, Any]]) -> Message:
    """Assemble and check a message; raises ``BlockLimitError`` rather than send a bad one.

    Its blocks must come from the builders above, which build, and so validate, each with
    ``slack_sdk``; what no block can check alone (their number, the fallback, unique ids) and
    the limits are checked here. Parsing every block back as ``validate`` does took 2.3 of the
    9.3 ms of CPU a page of ``/paper`` results cost in process (the query vectors cached), so
    that round trip is the tests' check, not every reply's.
    """
    built = Message(text=truncate_plain(text, MAX_FALLBACK_TEXT), blocks=tuple(blocks))
    _raise_problems(_message_problems(built, _limit_problems))
    return built


def validate(message: Message) -> None:
    """Check a finished message against Slack's rules and the limits above: what the tests
    run over every message they make (``message`` leaves the round trip to the builders).

    Each block is parsed back into a ``slack_sdk`` model and must serialise unchanged (an
    unknown key or a wrong type would be dropped and show up as a difference) and pass the
    model's own validators; the limits Slack enforces per message are checked here too.
    """
    _raise_problems(_message_problems(message, _block_problems))


def _message_problems(
    message: Message, block_problems: Callable[[dict[str, Any]], Iterable[str]]
) -> list[str]:
    problems: list[str] = []
    if not message.text.strip():
        problems.append("the plain-text fallback is empty")
    if len(message.text) > MAX_FALLBACK_TEXT:
        problems.append(f"fallback text has {len(message.text)} characters")
    if len(message.blocks) > MAX_BLOCKS:
        problems.append(f"{len(message.blocks)} blocks (limit {MAX_BLOCKS})")
    problems.extend(_blocks_problems(message.blocks, block_problems))
    return problems


def _blocks_problems(
    blocks: Sequence[dict[str, Any]], block_problems: Callable[[dict[str, Any]], Iterable[str]]
) -> Iterator[str]:
    block_ids: set[str] = set()
    for index, block in enumerate(blocks):
        where = f"block {index} ({block.get('type')})"
        yield from (f"{where}: {problem}" for problem in block_problems(block))
        block_id = block.get("block_id")
        if block_id is not None:
            if block_id in block_ids:
                yield f"{where}: duplicate block_id {block_id!r}"
            block_ids.add(block_id)


def _raise_problems(problems: list[str]) -> None:
    if problems:
        raise BlockLimitError("; ".join(problems))


def view(
    kind: str, blocks: Sequence[dict[str, Any]], *, title: str | None = None
) -> dict[str, Any]:
    """A ``home`` tab or a ``modal`` (with ``title``); checked like a message, with the
    view's own limit of 100 blocks."""
    fields: dict[str, Any] = {"type": kind, "blocks": list(blocks)}
    if title is not None:
        fields["title"] = {"type": "plain_text", "text": truncate_plain(title, MAX_VIEW_TITLE)}
        fields["close"] = {"type": "plain_text", "text": "Close"}
    validate_view(fields)
    return fields


def validate_view(fields: dict[str, Any]) -> None:
    """Check a view as ``validate`` checks a message: slack_sdk's ``View`` model (which
    enforces 1 to 100 blocks and the modal's title), every block's own limits and unique
    block ids. Views are published far less often than replies, so each keeps the round
    trip."""
    problems: list[str] = []
    try:
        View(**fields).validate_json()
    except SlackObjectFormationError as error:
        problems.append(str(error))
    if len(fields["blocks"]) > MAX_VIEW_BLOCKS:
        problems.append(f"{len(fields['blocks'])} blocks (limit {MAX_VIEW_BLOCKS})")
    problems.extend(_blocks_problems(fields["blocks"], _block_problems))
    _raise_problems(problems)


def _block_problems(block: dict[str, Any]) -> list[str]:
    try:
        parsed = Block.parse(block)
        if parsed is None:
            return ["not a block"]
        parsed.validate_json()
        if parsed.to_dict() != block:
            return ["does not round-trip through slack_sdk (unknown key or wrong type)"]
    except (SlackObjectFormationError, KeyError, TypeError, AttributeError) as error:
        return [str(error)]
    return list(_limit_problems(block))


def _limit_problems(block: dict[str, Any]) -> Iterable[str]:
    kind = block["type"]
    if kind == "section":
        text = block.get("text", {}).get("text", "")
        if len(text) > MAX_SECTION_TEXT:
            yield f"section text has {len(text)} characters"
    elif kind == "header":
        if len(block["text"]["text"]) > MAX_HEADER_TEXT:
            yield f"header has {len(block['text']['text'])} characters"
    elif kind == "context":
        if len(block["elements"]) > MAX_CONTEXT_ELEMENTS:
            yield f"context has {len(block['elements'])} elements"
        for element in block["elements"]:
            if len(element.get("text", "")) > MAX_CONTEXT_TEXT:
                yield f"context element has {len(element['text'])} characters"
    elif kind == "actions":
        if len(block["elements"]) > MAX_ACTIONS_ELEMENTS:
            yield f"actions has {len(block['elements'])} elements"
        for element in block["elements"]:
            label = element.get("text", {}).get("text", "")
            if len(label) > MAX_BUTTON_LABEL:
                yield f"button label has {len(label)} characters"
            if len(element.get("value", "")) > MAX_BUTTON_VALUE:
                yield f"button value has {len(element['value'])} characters"
            if len(element.get("action_id", "")) > MAX_ID:
                yield "action_id is too long"
