"""Undoing what the catalogue's sources did to abstracts: words split at a PDF line break
(``vari- ous``) and final periods stripped (Semantic Scholar's copies end mid-air).

Whether ``non- linear`` was ``nonlinear`` or ``non-linear`` cannot be read from the text
itself, so the corpus decides: the split is joined when the corpus's own titles and abstracts
write the joined word more often than the hyphenated pair, and kept as a hyphen otherwise
(``human- like`` → ``human-like``, ``NV-Embed- v1`` → ``NV-Embed-v1``). A hyphen before
"and", "or", "to"… is a suspended one (``pre- and post-training``) and stays as written
unless the joined word is a word (``in- to`` → ``into``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from functools import cached_property
from itertools import pairwise

_LINE_BREAK = re.compile(r"(?<![\w-])([^\W_]+(?:-[^\W_]+)*)- ([^\W_]+)\b")
"""A word, maybe a compound (``NV-Embed``), a hyphen, one space and the next word."""
_PUNCTUATION = "\"'()[]{}<>.,;:!?*_$`\u201c\u201d\u2018\u2019"
"""What surrounds a word in running text (stripped before counting it)."""
_SUSPENDING = frozenset({"and", "or", "nor", "to", "vs", "versus", "than", "through", "but"})
"""Words after a suspended hyphen: ``first- and second-order``, ``single- to multi-view``."""
_CLOSERS = ")]}\"'\u201d\u2019\u00bb*_"
"""What may follow a sentence's own punctuation: brackets, quotes, markdown emphasis."""
_SENTENCE_ENDS = (".", "!", "?", "\u2026", "\u3002", "\uff01", "\uff1f")
"""``. ! ?``, an ellipsis, and the full stop, exclamation and question marks of CJK text."""


class Wordbook:
    """How often a corpus writes each word and each hyphenated pair, counted on first need.

    Most abstracts have no split word, so a corpus whose abstracts have none never counts.
    """

    def __init__(self, texts: Callable[[], Iterable[str]]) -> None:
        self._texts = texts

    @cached_property
    def _counts(self) -> tuple[Counter[str], Counter[str]]:
        # A split of each text and a pass over the distinct tokens, folded one by one: a
        # regular expression over every word took three times as long, and this runs at
        # every start-up (about 0.15 s for the catalogue). Text by text, not all the text
        # at once: at 100,000 papers one split held 25 million strings, 1.4 GB at its peak.
        tokens: Counter[str] = Counter()
        for text in self._texts():
            tokens.update(text.split())
        words: Counter[str] = Counter()
        pairs: Counter[str] = Counter()
        for token, count in tokens.items():
            word = token.strip(_PUNCTUATION).casefold()
            words[word] += count
            if "-" in word:
                parts = word.split("-")
                for left, right in pairwise(parts):
                    pairs[f"{left}-{right}"] += count
        return words, pairs

    def prefers_joined(self, left: str, right: str) -> bool:
        """Whether the corpus writes ``left`` + ``right`` as one word more often than with a
        hyphen (and at least once)."""
        words, pairs = self._counts
        joined = words[(left + right).casefold()]
        return joined > 0 and joined > pairs[f"{left}-{right}".casefold()]


def join_line_breaks(text: str, wordbook: Wordbook) -> str:
    """``text`` with each word a line break split written whole or hyphenated (see module)."""
    if "- " not in text:
        return text

    def rejoin(match: re.Match[str]) -> str:
        compound, right = match.groups()
        left = compound.rsplit("-", 1)[-1]
        if left.isalpha() and right.isalpha() and wordbook.prefers_joined(left, right):
            return compound + right
        if right.casefold() in _SUSPENDING:
            return match.group()
        return f"{compound}-{right}"

    return _LINE_BREAK.sub(rejoin, text)


_OPEN_ENDS = ",;:"
"""Marks a sentence does not end on (``available at:``): the period takes their place."""


def with_closing_punctuation(text: str) -> str:
    """``text`` ending as a sentence does: a period is added unless one of ``. ! ?`` ends it,
    maybe inside closing brackets, quotes or emphasis (``(… by LLMs.)``). A final URL gets
    one too: every renderer and the link finder leave trailing punctuation out of a URL."""
    body = text.rstrip()
    if not body or body.rstrip(_CLOSERS).endswith(_SENTENCE_ENDS):
        return text
    return body.rstrip(_OPEN_ENDS) + "."


def repair_abstract(text: str, wordbook: Wordbook) -> str:
    """An abstract (whitespace already normalised) with split words and its end mended."""
    return with_closing_punctuation(join_line_breaks(text, wordbook))
