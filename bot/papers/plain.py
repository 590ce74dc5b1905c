"""The plain Unicode of a title or abstract and the URLs it mentions: what the index,
the TL;DRs and the code links read.

Most of 100,000 abstracts hold no markup or only bare URLs, so those skip the parser; the
rest are parsed (``bot.papers.markup``) and their tree rendered as plain text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.papers.latex import script_text, tex_dashes
from bot.papers.markup import (
    TOKEN_CHARS,
    Link,
    Node,
    Script,
    Styled,
    Text,
    may_hold_markup,
    parse_markup,
)
from bot.papers.text import normalise_whitespace, tidy
from bot.papers.urls import BARE_URL, TRAILING_URL_PUNCTUATION, link_url


@dataclass(frozen=True)
class CleanText:
    """A text as plain Unicode, plus the URLs it mentions (in order, unique)."""

    plain: str
    links: tuple[str, ...]


def plain_text(nodes: Iterable[Node]) -> str:
    """The words of a parse tree; a link is its label with the URL after it."""
    parts: list[str] = []
    for node in nodes:
        if isinstance(node, Text):
            parts.append(node.text)
        elif isinstance(node, Styled):
            parts.append(plain_text(node.children))
        elif isinstance(node, Script):
            parts.append(script_text(node.kind, plain_text(node.children)))
        else:
            label = normalise_whitespace(plain_text(node.children))
            parts.append(f"{label} ({node.url})" if label else node.url)
    return "".join(parts)


def _links(nodes: Iterable[Node], found: dict[str, None]) -> None:
    for node in nodes:
        if isinstance(node, Link):
            found.setdefault(node.url)
        elif isinstance(node, Styled | Script):
            _links(node.children, found)


def clean_text(raw: str) -> CleanText:
    """Plain text and the URLs of an abstract or title written in LaTeX/Markdown."""
    return clean_normalised_text(normalise_whitespace(raw))


def clean_normalised_text(text: str) -> CleanText:
    """``clean_text`` of text that has been through ``normalise_whitespace`` already.

    The corpus normalises every abstract for its id anyway; a second pass over each of
    100,000 abstracts is a measurable part of loading them.
    """
    if not may_hold_markup(text):
        return CleanText(text, ())
    if not any(char in text for char in TOKEN_CHARS):
        return _clean_bare_urls(text)
    return _parse_and_render(text)


def _clean_bare_urls(text: str) -> CleanText:
    """``clean_text`` of normalised text whose only markup is bare ``http(s)://`` URLs (and
    TeX dashes).

    Many abstracts are like that (a code link at the end). Without any of ``TOKEN_CHARS``
    the parser would only ever make text and link nodes, so the plain text is written
    directly from the text between the URLs, sparing the scan for every other kind of token
    and the tree walks.
    """
    pieces: list[tuple[str, str]] = []  # (text before a URL, the URL), then the rest and ""
    position = 0
    for match in BARE_URL.finditer(text):
        target = match.group().rstrip(TRAILING_URL_PUNCTUATION)
        # A bare URL has its scheme, so it always leads somewhere.
        pieces.append((text[position : match.start()], link_url(target) or ""))
        position = match.start() + len(target)
    pieces.append((text[position:], ""))
    plain = tidy("".join(tex_dashes(before) + url for before, url in pieces))
    links = tuple(dict.fromkeys(url for _, url in pieces if url))
    return CleanText(plain, links)


def _parse_and_render(text: str) -> CleanText:
    """``clean_text`` of whitespace-normalised text, the long way: parse, then render."""
    nodes = parse_markup(text)
    found: dict[str, None] = {}
    _links(nodes, found)
    return CleanText(tidy(plain_text(nodes)), tuple(found))
