"""What a researcher typed, taken apart: free words, phrases, exclusions, filters, references.

Parsing knows nothing about the index; ``bot.search.planner`` decides what each part means for
a given corpus. The operators it reads are those of ``bot.search.results.OPERATORS``, the
table renderers and the command line write the usage text from. The edit distance typo
correction measures lives here too (``bot.search.spelling`` has the corrector itself).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache

from bot.papers.urls import linked_paper_id
from bot.search.lexicon import english_words
from bot.search.results import AUTHOR, EXCLUSION, FIELDS, FILTERS, LIKE, PHRASE, field_name

MAX_QUERY_CHARS = 1000

_SMART_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"'})
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\ufeff]")
_FIELDS_BY_NAME = {field_name(field): field for field in FIELDS}
_NEAR_NAMES = tuple(field_name(operator) for operator in (AUTHOR, *FILTERS))
"""The operators a misspelt name is read as by nearness (``like:`` only by a slip)."""
_OPEN, _CLOSE = re.escape(PHRASE.prefix), re.escape(PHRASE.closing)


@cache
def _chunk_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    """A query's pieces, reading ``names`` as fields: the operators' names, and the misspelt
    names a query types for them (``sinse:``)."""
    return re.compile(
        rf"""(?P<neg>{re.escape(EXCLUSION.prefix)})?(?:
            (?P<field>{"|".join(map(re.escape, names))}):
                (?:{_OPEN}(?P<fquoted>[^{_CLOSE}]*){_CLOSE}?|(?P<fvalue>\S+))?
          | {_OPEN}(?P<quoted>[^{_CLOSE}]*){_CLOSE}?
          | (?P<word>\S+)
        )""",
        re.VERBOSE | re.IGNORECASE,
    )


_NAMED_VALUE = re.compile(rf"(?:^|(?<=\s)){re.escape(EXCLUSION.prefix)}?(?P<name>[^\W\d_]+):(?=\S)")
"""A word that looks like an operator with its value (``sinse:2026-11-01``)."""
_AROUND_A_LINK = "(.,;:!?)\"'\u201c\u201d\u2018\u2019"
"""Punctuation a sentence puts around a link, which no OpenReview or arXiv link starts or
ends with."""
_LONE_LINK = re.compile(r"<(?P<wrapped>https?://[^\s|<>]+)(?:\|[^<>]*)?>|(?P<bare>https?://\S+)")
"""A query that is one link, as typed or as Slack sends it (``<url|label>``, the label may
have spaces): it asks for the paper of that link, never for papers mentioning "https"."""


@dataclass(frozen=True)
class Span:
    """A free word as typed, with its place in ``ParsedQuery.text`` (for rewriting it)."""

    text: str
    start: int
    end: int


@dataclass(frozen=True)
class TypedFilter:
    """A filter as typed: its field's name (``since``), the value after it, and whether a
    minus excludes what it allows (``-source:arxiv``)."""

    field: str
    value: str
    negated: bool = False


@dataclass(frozen=True)
class ParsedQuery:
    text: str
    words: tuple[Span, ...] = ()
    phrases: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    like: str | None = None
    reference: str | None = None
    """The OpenReview id of a query that is one paper's link, or the link when it names no
    paper on OpenReview (an arXiv link)."""
    truncated: bool = False
    author_tails: tuple[tuple[int, ...], ...] = ()
    """For each of ``authors``: the free words (indices into ``words``) right after an
    unquoted ``author:NAME``, which may continue the name (``author:Stefanie Jegelka``); the
    planner decides, since only the corpus knows its authors' names."""
    bare_fields: tuple[str, ...] = ()
    """Fields typed with nothing after them (``like:``), which need their usage, not a search."""
    name_words: tuple[Span, ...] = ()
    """Free words the planner took into an ``author:`` name (no longer in ``words``)."""
    filters: tuple[TypedFilter, ...] = ()
    """The filters (``since:``, ``source:``, …) as typed, in order; the planner reads them."""
    field_fixes: tuple[tuple[int, int, str], ...] = ()
    """Misspelt operator names read as the operator they are nearest (``sinse`` as
    ``since``), as (start, end, name) in ``text``, for "showing results for"."""

    @property
    def is_empty(self) -> bool:
        return not (
            self.words
            or self.phrases
            or self.authors
            or self.like
            or self.reference
            or self.filters
        )

    @property
    def named_reference(self) -> str | None:
        """The paper id or link the query only names, if any: such a query asks for that
        paper (when there is one), not for papers like its words."""
        if self.reference:
            return self.reference
        only_word = len(self.words) == 1 and not (
            self.phrases or self.excluded or self.authors or self.like or self.filters
        )
        return self.words[0].text if only_word else None

    @property
    def linked_reference(self) -> str | None:
        """The one link to a paper (on OpenReview or arXiv) among plain words (``has anyone
        read <link>?`` asks about that paper, not for papers about "anyone"); None when the
        query uses an operator (``author:X <link>`` is a search to run)."""
        if (
            self.phrases
            or self.excluded
            or self.authors
            or self.like
            or self.bare_fields
            or self.filters
        ):
            return None
        linked = {
            paper_id
            for span in self.words
            if (paper_id := linked_paper_id(span.text.strip(_AROUND_A_LINK)))
        }
        return linked.pop() if len(linked) == 1 else None


def clean_query(raw: str) -> tuple[str, bool]:
    """Drop control characters, NFKC-normalise (as the analyzer does), unify quotes, and cut
    very long input (the flag says whether it was cut). Most queries are ASCII, which NFKC
    and the quotes leave as it is: they are spared both passes."""
    text = _CONTROL.sub(" ", raw)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).translate(_SMART_QUOTES)
    text = text.strip()
    if len(text) > MAX_QUERY_CHARS:
        return text[:MAX_QUERY_CHARS].rsplit(" ", 1)[0], True
    return text, False


def parse_query(raw: str) -> ParsedQuery:
    text, truncated = clean_query(raw)
    if (link := _LONE_LINK.fullmatch(text.strip())) is not None:
        url = link["wrapped"] or link["bare"]
        return ParsedQuery(text, reference=linked_paper_id(url) or url, truncated=truncated)
    words: list[Span] = []
    phrases: list[str] = []
    excluded: list[str] = []
    authors: list[str] = []
    tails: list[list[int]] = []
    bare: list[str] = []
    filters: list[TypedFilter] = []
    fixes: list[tuple[int, int, str]] = []
    like: str | None = None
    tail: list[int] | None = None  # the words following an unquoted author:, while they do
    misspelt = _misspelt_fields(text)
    for match in _chunk_pattern((*_FIELDS_BY_NAME, *misspelt)).finditer(text):
        negative = bool(match.group("neg"))
        if not (match.group("word") and not negative and tail is not None):
            tail = None
        if match.group("field"):
            field = match.group("field").lower()
            if field in misspelt:
                field = misspelt[field]
                fixes.append((match.start("field"), match.end("field"), field))
            value = (match.group("fquoted") or match.group("fvalue") or "").strip()
            if not value:
                if match.group("fquoted") is None and field not in bare:
                    bare.append(field)
                continue
            operator = _FIELDS_BY_NAME[field]
            if operator is AUTHOR:
                authors.append(value)
                tail = [] if match.group("fvalue") else None
                tails.append(tail if tail is not None else [])
            elif operator is LIKE:
                like = value
            else:
                filters.append(TypedFilter(field, value, negative))
        elif match.group("quoted") is not None:
            phrase = match.group("quoted").strip()
            if phrase:
                (excluded if negative else phrases).append(phrase)
        elif negative and not match.group("word").startswith("-"):
            excluded.append(match.group("word"))
        else:
            start = match.start("neg") if negative else match.start("word")
            if tail is not None:
                tail.append(len(words))
            words.append(Span(text[start : match.end()], start, match.end()))
    return ParsedQuery(
        text,
        tuple(words),
        tuple(phrases),
        tuple(excluded),
        tuple(authors),
        like,
        truncated=truncated,
        author_tails=tuple(map(tuple, tails)),
        bare_fields=tuple(bare),
        filters=tuple(filters),
        field_fixes=tuple(fixes),
    )


def _misspelt_fields(text: str) -> dict[str, str]:
    """The words a query types as operators that are none but near one (``sinse:7d``,
    ``catgory:cs.LG``, ``auther:Bengio``), folded, each with the operator's name; a word
    near two stays a word. ``like:`` is short enough for ordinary words (``lime:``, ``life:``)
    to sit one letter away, so of its misspellings only a finger's slips that are no English
    word are read as it (``lkie:``, ``liek:``, ``likke:``; ``slipped``)."""
    misspelt: dict[str, str] = {}
    if ":" not in text:  # no ``name:value``, as in most queries: no regex pass
        return misspelt
    like = field_name(LIKE)
    for match in _NAMED_VALUE.finditer(text):
        typed = match.group("name").lower()
        if typed not in _FIELDS_BY_NAME and typed not in misspelt:
            near = closest_words(typed, _NEAR_NAMES)
            if len(near) == 1:
                misspelt[typed] = near[0]
            elif not near and slipped(typed, like) and typed not in english_words():
                misspelt[typed] = like
    return misspelt


# --- typo correction ------------------------------------------------------------------------


def edit_distance(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment distance (a swap of neighbours costs 1), or ``limit + 1``
    as soon as it must exceed ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return previous[-1]


def slipped(typed: str, word: str) -> bool:
    """Whether ``typed`` is ``word`` with two neighbouring letters swapped or one letter
    doubled: the slips of a finger, never a different word. The only typos read in a short
    word (``new``, ``like``), where one letter changed is as likely another word meant."""
    swapped = sorted(typed) == sorted(word) and edit_distance(typed, word, 1) == 1
    doubled = any(typed == word[:at] + word[at] + word[at:] for at in range(len(word)))
    return swapped or doubled


SHORTEST_TYPO = 4
"""Shorter words are never read as a misspelling: ``sat`` or ``mon`` could be anything."""


def closest_words(
    word: str,
    vocabulary: Iterable[str],
    forms: Callable[[str], Iterable[str]] = lambda known: (known,),
) -> tuple[str, ...]:
    """The words of ``vocabulary`` closest to ``word`` (each also as its other ``forms``),
    case aside: within one edit for a word of up to five letters and two for a longer one;
    a word under four letters is never compared. So ``fridy``, ``wekly``, ``daly`` and
    ``weekdys`` are caught, while ``tail`` (two from ``daily``) and ``modal`` (two from
    ``monday``) are not."""
    typed = word.lower()
    if len(typed) < SHORTEST_TYPO:
        return ()
    limit = 1 if len(typed) <= 5 else 2
    scored = sorted(
        (min(edit_distance(typed, form, limit) for form in forms(known)), known)
        for known in vocabulary
    )
    best = scored[0][0] if scored else limit + 1
    return tuple(known for distance, known in scored if distance == best <= limit)


def unit_spans(span: Span, pattern: re.Pattern[str]) -> Iterator[tuple[str, int, int]]:
    """Words inside a free chunk (``netwroks,`` → ``netwroks``) with absolute positions."""
    for match in pattern.finditer(span.text):
        yield match.group(), span.start + match.start(), span.start + match.end()
