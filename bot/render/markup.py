"""Slack mrkdwn of an abstract: its parse tree (``bot.papers.markup``) with the formatting
Slack can show, everything else escaped to read as written."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from bot.papers.latex import script_text
from bot.papers.markup import Link, Node, Script, Text, may_hold_markup, parse_markup
from bot.papers.plain import plain_text
from bot.papers.text import normalise_whitespace, tidy
from bot.render.mrkdwn import escape_mrkdwn, mrkdwn_literal

ABSTRACTS_KEPT = 512
"""Abstracts whose mrkdwn is kept: a page of cards and the abstracts opened from them are
rendered once, however often they are shown."""


@functools.lru_cache(maxsize=ABSTRACTS_KEPT)
def abstract_mrkdwn(abstract: str) -> str:
    """An abstract (or any text) written in LaTeX/Markdown as Slack mrkdwn, escaped."""
    text = normalise_whitespace(abstract)
    if not may_hold_markup(text):
        return escape_mrkdwn(text)
    return tidy(_display(parse_markup(text)))


@dataclass(frozen=True)
class _Marker:
    """An opening or closing Slack formatting character, kept only if Slack would honour it."""

    pair: int
    char: str


_SLACK_MARKERS = {"b": "*", "i": "_", "code": "`"}


def _display_parts(
    nodes: Iterable[Node],
    active: frozenset[str],
    parts: list[str | _Marker],
    pairs: Iterator[int],
) -> None:
    for node in nodes:
        if isinstance(node, Text):
            parts.append(mrkdwn_literal(node.text))
        elif isinstance(node, Script):
            parts.append(mrkdwn_literal(script_text(node.kind, plain_text(node.children))))
        elif isinstance(node, Link):
            parts.append(_display_link(node))
        elif node.style in active or node.style == "" or "code" in active:
            _display_parts(node.children, active, parts, pairs)
        else:
            inner: list[str | _Marker] = []
            _display_parts(node.children, active | {node.style}, inner, pairs)
            leading, trailing = _strip_edges(inner)
            marker = _Marker(next(pairs), _SLACK_MARKERS[node.style])
            parts.extend([leading, marker, *inner, marker, trailing])


def _display_link(link: Link) -> str:
    label = normalise_whitespace(plain_text(link.children)).replace("|", "¦")
    url = escape_mrkdwn(link.url)
    return f"<{url}|{escape_mrkdwn(label)}>" if label else f"<{url}>"


def _strip_edges(parts: list[str | _Marker]) -> tuple[str, str]:
    """Strip whitespace at both ends of a formatted run; return what was there.

    Slack only formats ``*bold*`` when no space sits just inside the stars.
    """
    edges = []
    for indices in (range(len(parts)), range(len(parts) - 1, -1, -1)):
        found = ""
        for index in indices:
            part = parts[index]
            if isinstance(part, _Marker):
                break
            stripped = part.lstrip() if indices.step == 1 else part.rstrip()
            if stripped != part:
                found = " "
            parts[index] = stripped
            if stripped:
                break
        edges.append(found)
    return edges[0], edges[1]


def _display(nodes: list[Node]) -> str:
    """Slack mrkdwn, keeping a formatting pair only where Slack will render it.

    Slack ignores ``*`` and ``_`` inside a word (``$\\textbf{Di}$rected`` would show literal
    stars), so a pair touching a letter or digit on the outside, or with nothing inside, is
    dropped.
    """
    parts: list[str | _Marker] = []
    _display_parts(nodes, frozenset(), parts, itertools.count())
    texts = ["" if isinstance(part, _Marker) else part for part in parts]
    opened: dict[int, int] = {}
    kept: set[int] = set()
    for index, part in enumerate(parts):
        if not isinstance(part, _Marker):
            continue
        if part.pair not in opened:
            opened[part.pair] = index
            continue
        start = opened[part.pair]
        before = "".join(texts[:start])[-1:]
        after = "".join(texts[index + 1 :])[:1]
        inside = "".join(texts[start + 1 : index])
        if inside.strip() and not before.isalnum() and not after.isalnum():
            kept.add(part.pair)
    tokens: list[str | tuple[str, bool]] = []
    for index, part in enumerate(parts):
        if not isinstance(part, _Marker):
            if texts[index]:
                tokens.append(texts[index])
        elif part.pair in kept:
            closing = opened[part.pair] != index
            previous = tokens[-1] if tokens else None
            if not closing and previous == (part.char, True):
                tokens.pop()  # two adjacent runs of one style (``**a****b**``) become one
                continue
            tokens.append((part.char, closing))
    output = [token if isinstance(token, str) else token[0] for token in tokens]
    return "".join(output)
