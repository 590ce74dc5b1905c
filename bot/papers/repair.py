"""Undoing what the catalogue's sources did to abstracts: words split at a PDF line break
(``vari- ous``), final periods stripped (Semantic Scholar's copies end mid-air), and what
LaTeX sources leave in running text: TeX quotes (````judgements''``, ``\\`maximal'``) and
citation keys (``[leviathan2023, chen2023]``).

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


_TEX_DOUBLE_QUOTE = re.compile(
    r"(?<![\w$'`\\])(?:\\?`\\?`|''|(?P<straight>[\"\u201d]))(?=\S)"
    r"(?P<quoted>(?:[^`'\"$\\]|'(?!'))*?[^\s`'\"$\\])(?:''|(?(straight)(?!)|\"))(?![\w'])"
)
"""````words''``, ````words"``, ``''words''``, ``\\`\\`words''`` and ``"words''``: a TeX double
quote (or half of one), whose backticks would otherwise read as Markdown code or (escaped)
as a grave accent (``C̀``)."""
_TEX_SINGLE_QUOTE = re.compile(
    r"(?<![\w$'`\\])\\?`(?=[^\W\d_])(?P<quoted>[^`'\"$\\\n]*?[^\s`'\"$\\])\\?'(?![\w'])"
)
"""```word'`` and ``\\`word'``: a TeX single quote (a grave accent sits inside a word)."""
_YEAR_KEY = r"[A-Za-z][A-Za-z'-]*(?:19|20)\d\d[a-z]?"
_CITATION_KEYS = re.compile(rf"\s?\[{_YEAR_KEY}(?:\s*[,;]\s*{_YEAR_KEY})*\]")
"""``[leviathan2023, chen2023]``: BibTeX keys pasted from ``\\cite``, which name the works
to a bibliography the abstract does not have (``[Grohe, 2021]`` reads as a citation, and
stays)."""


def tex_quotes(text: str) -> str:
    """``text`` with TeX's quotes written as the curly quotes they typeset."""
    if "`" not in text and "''" not in text:
        return text
    text = _TEX_DOUBLE_QUOTE.sub("\u201c\\g<quoted>\u201d", text)
    return _TEX_SINGLE_QUOTE.sub("\u2018\\g<quoted>\u2019", text)


def without_citation_keys(text: str) -> str:
    """``text`` without bracketed citation keys (see ``_CITATION_KEYS``)."""
    return _CITATION_KEYS.sub("", text) if "[" in text else text


def mend(text: str) -> str:
    """The mending of an abstract (whitespace already normalised) that needs no corpus: its
    TeX quotes, citation keys and end."""
    return with_closing_punctuation(without_citation_keys(tex_quotes(text)))


def repair_abstract(text: str, wordbook: Wordbook) -> str:
    """An abstract (whitespace already normalised) with split words, TeX quotes, citation
    keys and its end mended."""
    return mend(join_line_breaks(text, wordbook))
