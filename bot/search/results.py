"""What a search returns, and the one table of query operators: the only part of search that
renderers read.

A result says *why* as reasons with data (which words matched nothing, which name was used,
which paper id was unknown), never as sentences: wording is the renderer's, so a reason
carries exactly what was typed, for the renderer to quote.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from enum import Enum, auto
from functools import cached_property
from typing import Protocol

from bot.papers.paper import Paper


@dataclass(frozen=True)
class Operator:
    """A piece of query syntax: what it starts with and what a person writes after it."""

    prefix: str
    placeholder: str
    examples: tuple[str, ...] = ()
    """Values to show after ``prefix`` in a usage text (``Bengio``, ``Le Song``; ``written``
    quotes those with a space)."""
    closing: str = ""
    """What ends the value (a phrase's closing quote); the parser reads up to it."""

    @property
    def syntax(self) -> str:
        return f"{self.prefix}{self.placeholder}{self.closing}"


AUTHOR = Operator("author:", "NAME", ("Bengio", "Le Song"))
LIKE = Operator("like:", "ID")
PHRASE = Operator('"', "a phrase", closing='"')
EXCLUSION = Operator("-", "word")
SINCE = Operator("since:", "DATE", ("2026-11-01", "2026-11", "7d", "2w", "yesterday"))
BEFORE = Operator("before:", "DATE", ("2026-11-15", "2026-11", "30d"))
SOURCE = Operator("source:", "SOURCE", ("arxiv", "openreview"))
VENUE = Operator("venue:", "VENUE", ("ICLR 2026", "iclr"))
CATEGORY = Operator("category:", "CATEGORY", ("cs.LG", "cs"))
FILTERS = (SINCE, BEFORE, SOURCE, VENUE, CATEGORY)
"""The fields that narrow a search to some papers without searching for any word: a query
of filters alone lists every paper they allow, newest first."""
DATE_FILTERS = (SINCE, BEFORE)
FIELDS = (AUTHOR, LIKE, *FILTERS)
"""The operators written ``name:value``; the parser reads a field by its name."""
OPERATORS = (PHRASE, EXCLUSION, *FIELDS)
"""Every operator, in the order a usage text lists them."""


def field_name(operator: Operator) -> str:
    """``author`` for ``author:``: how a parsed query names the field."""
    return operator.prefix.removesuffix(":")


SOURCE_NAMES = ("arxiv", "openreview")
"""What ``source:`` takes: the sources a paper can come from (the catalogue's papers are
OpenReview's, as are the papers of a followed OpenReview venue)."""


@dataclass(frozen=True)
class Filter:
    """A filter as the query wrote it and as it was read: ``typed`` is the value after the
    operator, ``value`` the day it names (for ``since:`` and ``before:``, relative days
    counted from today) or the value folded to compare; ``negated`` for ``-source:arxiv``."""

    operator: Operator
    typed: str
    value: date | str
    negated: bool = False

    @property
    def query(self) -> str:
        """The filter as a query writes it."""
        return written(self.operator, self.typed, self.negated)


def written(operator: Operator, value: str, negated: bool = False) -> str:
    """A field with its value as a query writes it, the value quoted when it has a space
    (``venue:"ICLR 2026"``)."""
    if " " in value:
        value = f"{PHRASE.prefix}{value}{PHRASE.closing}"
    return f"{EXCLUSION.prefix if negated else ''}{operator.prefix}{value}"


Pieces = tuple[tuple[str, bool], ...]
"""A text in pieces that join back to it, a piece flagged where a searched word is written."""


class TextMarker(Protocol):
    """Flags where a text writes what a search searched for.
    ``bot.search.matched_words.WordMarker`` is the one a search hands its hits: results,
    which renderers read, imports no analyzer, so a renderer does not load the stemmer."""

    def __call__(self, text: str) -> Pieces: ...


def unmarked(text: str) -> Pieces:
    """A text with nothing flagged: a hit found by id searched for no word."""
    return ((text, False),) if text else ()


class WordFinder(Protocol):
    """Finds the words of a paper's title and abstract, as written there, that a search
    matched. ``bot.search.matched_words.MatchedWords`` is the one a search hands its hits."""

    def __call__(self, paper: Paper) -> tuple[str, ...]: ...


def no_words(paper: Paper) -> tuple[str, ...]:
    """No matched words: a hit found by id searched for no word."""
    return ()


@dataclass(frozen=True)
class Hit:
    paper: Paper
    score: float | None  # the ranking score; None for a lookup by id
    bm25_score: float | None = None
    # Cosine of the paper's and the query's vectors, when the semantic ranking placed it
    # (BM25's best RERANK_DEPTH and the matching papers nearest to the query's vector, once
    # the paper has a vector); score is then the mix.
    semantic_score: float | None = None
    # Its authors the query named (``author:`` or a name typed as words), as the paper
    # writes their names.
    named_authors: tuple[str, ...] = ()
    # Flags what carries a token the query searched for: the TL;DR bolds that, not every
    # part of a matched word (``matched_terms`` holds ``Mixture-of-Graphs`` whole).
    marker: TextMarker = field(default=unmarked, repr=False)
    words: WordFinder = field(default=no_words, repr=False)

    @cached_property
    def matched_terms(self) -> tuple[str, ...]:
        """Words of the paper's text that matched, as written there, each once in reading
        order. Found only for the hits something reads them of (a note, the CLI), not for
        every hit of a page."""
        return self.words(self.paper)

    @cached_property
    def tldr_pieces(self) -> Pieces:
        """The paper's TL;DR in pieces, flagged where a searched word is written (a renderer
        bolds those).

        Worked out only for the cards a renderer shows, not for every hit of a page.
        """
        return self.marker(self.paper.tldr)


# --- reasons ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Truncated:
    """The query was cut: only its first ``chars`` characters were searched."""

    chars: int


@dataclass(frozen=True)
class UnknownId:
    """A link alone, naming no paper the bot has: ``reference`` is the OpenReview id it
    names, or the link itself when it is no OpenReview paper's (``ParsedQuery.reference``)."""

    reference: str


@dataclass(frozen=True)
class OnlyExclusions:
    """Nothing to search for but ``-exclusions``."""


@dataclass(frozen=True)
class EmptyQuery:
    """Nothing typed to search for."""


@dataclass(frozen=True)
class UnknownLike:
    """``like:`` an id naming no paper."""

    reference: str


@dataclass(frozen=True)
class OnlyCommonWords:
    """Every word typed is a stopword or punctuation."""


class Source(Enum):
    """What a search for related papers started from (render names it)."""

    PAPER = auto()
    TEXT = auto()


@dataclass(frozen=True)
class NoSharedWords:
    """A paper or a message with no word the corpus uses."""

    source: Source


@dataclass(frozen=True)
class AuthorsNamed:
    """The papers are those of the authors an ``author:`` filter named."""

    names: tuple[str, ...]


class Advice(Enum):
    """What to try instead, when words matched nothing."""

    SPELLING = "spelling"
    ENGLISH = "english"  # every letter typed is of another script


@dataclass(frozen=True)
class Unmatched:
    """Free words no paper uses (as typed, each once, in order), and the words that were
    searched instead (joined, or None when none were)."""

    words: tuple[str, ...]
    searched: str | None
    advice: Advice | None = None


@dataclass(frozen=True)
class NoKnownWords:
    """No word of the query is in the corpus, and none is worth naming as unmatched."""


@dataclass(frozen=True)
class NearName:
    """An author's name, as the papers write it, close to a name that finds nobody, and the
    query with it in that name's place, to run instead."""

    name: str
    query: str


@dataclass(frozen=True)
class NoSuchAuthor:
    """No paper has an author of these ``author:`` names; ``full`` is the longer name the
    capitalised words after ``author:NAME`` may have meant (to be quoted), if any; ``near``
    the authors' names close to the names (see ``AuthorIndex.near_names``)."""

    names: tuple[str, ...]
    full: str | None = None
    near: tuple[NearName, ...] = ()


@dataclass(frozen=True)
class NoSuchFullName:
    """Nobody has this full name (``author:Tri Dao``, ``author:Sergei Levine``), though
    authors of its first word exist; ``near`` the names close to it."""

    name: str
    near: tuple[NearName, ...] = ()


@dataclass(frozen=True)
class NoJointPaper:
    """Each ``author:`` name has papers, but no paper has all of them as authors."""

    names: tuple[str, ...]


@dataclass(frozen=True)
class NothingByAuthor:
    """The ``author:`` names have papers, but none matches the rest of the query; ``alone``
    is the query of the names alone."""

    names: tuple[str, ...]
    alone: str


@dataclass(frozen=True)
class NoPhrase:
    """No paper contains the quoted phrase."""

    phrase: str


@dataclass(frozen=True)
class AllExcluded:
    """Papers matched, but the ``-exclusions`` removed every one."""

    exclusions: tuple[str, ...]


@dataclass(frozen=True)
class BadFilterValue:
    """A filter's value that means nothing to it (``since:yesterdy``, ``source:biorxiv``),
    as typed; ``suggestion`` is the value it was closest to, if any. Nothing is searched:
    results without the filter would look like results with it."""

    operator: Operator
    typed: str
    suggestion: str | None = None


@dataclass(frozen=True)
class NoFilterMatch:
    """No paper of the library passes ``filter`` alone. For a date, ``newest`` and
    ``oldest`` are the days of the library's newest and oldest dated papers (None: no paper
    has a date, as the catalogue's have none); for a venue, source or category, ``known``
    are a few values the library does have."""

    filter: Filter
    newest: date | None = None
    oldest: date | None = None
    known: tuple[str, ...] = ()


@dataclass(frozen=True)
class DaysCounted:
    """The days that date filters written as days back (``since:7d``, ``yesterday``) named
    today, for the reader to see which papers they let through."""

    filters: tuple[Filter, ...]


@dataclass(frozen=True)
class NothingFiltered:
    """Each filter allows papers and the rest of the query matches some, but none of those
    pass the filters; ``alone`` is the query of the filters alone, which lists the papers
    they allow."""

    filters: tuple[Filter, ...]
    alone: str


@dataclass(frozen=True)
class TooManyConditions:
    """Each condition matches papers, but no paper matches all of them."""


MIN_SAVES = 3
"""Saved papers (in the corpus, with a vector) a reading list needs before "For you" guesses:
a line through two points says little about which way a person reads."""


@dataclass(frozen=True)
class TooFewSaves:
    """Too few saved papers to learn from: ``saves`` usable of the ``needed``."""

    saves: int
    needed: int


@dataclass(frozen=True)
class NoVectors:
    """The semantic part is off or the corpus has no paper vectors, so nothing can be
    learned from a reading list."""


Reason = (
    Truncated
    | UnknownId
    | OnlyExclusions
    | EmptyQuery
    | UnknownLike
    | OnlyCommonWords
    | NoSharedWords
    | AuthorsNamed
    | Unmatched
    | NoKnownWords
    | NoSuchAuthor
    | NoSuchFullName
    | NoJointPaper
    | NothingByAuthor
    | NoPhrase
    | AllExcluded
    | BadFilterValue
    | DaysCounted
    | NoFilterMatch
    | NothingFiltered
    | TooManyConditions
    | TooFewSaves
    | NoVectors
)


@dataclass(frozen=True)
class Usage:
    """A field typed with nothing after it: how to write it; ``example`` is a value from this
    corpus (a paper id for ``like:``), when the field needs one."""

    operator: Operator
    example: str | None = None


@dataclass(frozen=True)
class SearchResult:
    query: str  # what the user typed
    hits: tuple[Hit, ...]  # the requested page (offset..offset+limit)
    total: int  # how many papers matched in all
    offset: int
    corrected_query: str | None  # query after typo correction, None if nothing was corrected
    reasons: tuple[Reason, ...] = ()  # what needs saying about the search, in order
    similar_to: Paper | None = None  # set for like:ID results
    # Whether ``total`` counts what a reader would call matches: papers holding the query's
    # one word, phrase or filter. A query of several words ranks every paper holding any of
    # them ("MLLMs" reaches 70 of 76 papers through "language" and "models"), and that
    # count is only good for paging.
    counted: bool = True
    usage: Usage | None = None  # how to write the query, when it was not a search at all


@dataclass(frozen=True)
class Suggestion:
    """A paper the person's model ranks high, and the saved paper it is most like (the
    highest cosine), for the card to say why."""

    paper: Paper
    like: Paper
    score: float


@dataclass(frozen=True)
class ForYou:
    """One page of a person's suggestions."""

    suggestions: tuple[Suggestion, ...]  # the requested page (offset..offset+limit)
    total: int  # how many suggestions there are in all (for paging)
    offset: int
    saves: int  # saved papers the model learned from (those in the corpus with a vector)
    reason: Reason | None  # why there are none: TooFewSaves or NoVectors


@dataclass(frozen=True)
class Liked:
    """A paper in the order a taste put it (``SearchIndex.by_taste``), and the paper of that
    taste that put it there; ``like`` is None when none did (only a 👎'd or dismissed paper
    is near it) or the paper has no vector yet (those follow the ranked ones)."""

    paper: Paper
    like: Paper | None
