"""The filters of a query (``since:``, ``before:``, ``source:``, ``venue:``, ``category:``):
their values read, and the papers each allows as a mask over one index's papers.

A paper's day is when arXiv announced it, else when its source published it; the catalogue's
papers have neither, so a date filter leaves them out. A paper's sources are those that gave
it: arXiv for a paper with an arXiv id, OpenReview for one with a venue or an OpenReview page
(the catalogue's are ICLR 2025 papers on OpenReview). Its venue is OpenReview's words
(``ICLR 2026 Poster``, ``Submitted to ICLR 2026``), or for a catalogue paper the same words
for ICLR 2025; a preprint has none. Its categories are arXiv's.

The columns these read are built once per index, on the first query that filters, so a
plain search pays nothing for them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import date, timedelta

import numpy as np

from bot.papers.openreview import openreview_link_id
from bot.papers.paper import CATALOGUE_VENUE, OPENREVIEW_SOURCE, Paper
from bot.search.built_once import built_once
from bot.search.query import TypedFilter, closest_words
from bot.search.results import (
    BEFORE,
    CATEGORY,
    FILTERS,
    SINCE,
    SOURCE,
    SOURCE_NAMES,
    VENUE,
    BadFilterValue,
    Filter,
    NoFilterMatch,
    field_name,
)

_BY_NAME = {field_name(operator): operator for operator in FILTERS}
_ISO_DAY = re.compile(r"(?P<year>\d{4})(?:-(?P<month>\d{1,2})(?:-(?P<day>\d{1,2}))?)?")
_DAYS_BACK = re.compile(r"(?P<count>\d{1,4})(?P<unit>[dw])", re.IGNORECASE)
_NAMED_DAYS = {"today": 0, "yesterday": 1}
_UNIT_DAYS = {"d": 1, "w": 7}
_WORDS = re.compile(r"\w+")
_CATEGORY = re.compile(r"[a-z-]+(?:\.[a-z-]+)?", re.IGNORECASE)
KNOWN_SHOWN = 5
"""How many of the values the library does have a note about a filter that matches nothing
names."""
_NO_DAY = 0
"""The day ordinal of a paper without a date (real ordinals start at 1)."""


def read_filter(typed: TypedFilter, today: date) -> Filter | BadFilterValue:
    """A typed filter's meaning, or why its value means nothing: a day (``2026-11-01``, a
    month ``2026-11`` or a year ``2026`` from their first day, ``7d`` or ``2w`` back from
    ``today``, ``today``, ``yesterday``), a source, a venue's words, or a category."""
    operator = _BY_NAME[typed.field]
    value = typed.value.strip()
    if operator in (SINCE, BEFORE):
        day = _day(value, today)
        if day is None:
            return BadFilterValue(operator, value, _nearest(value, tuple(_NAMED_DAYS)))
        return Filter(operator, value, day, typed.negated)
    if operator is SOURCE:
        folded = value.casefold()
        if folded not in SOURCE_NAMES:
            return BadFilterValue(operator, value, _nearest(folded, SOURCE_NAMES))
        return Filter(operator, value, folded, typed.negated)
    if operator is CATEGORY:
        if not _CATEGORY.fullmatch(value):
            return BadFilterValue(operator, value)
        return Filter(operator, value, value.casefold(), typed.negated)
    words = " ".join(_WORDS.findall(value.casefold()))
    if not words:
        return BadFilterValue(operator, value)
    return Filter(operator, value, words, typed.negated)


def is_days_back(one: Filter) -> bool:
    """Whether a date filter counts days back from today (``7d``, ``yesterday``): the day
    it names changes from one day to the next."""
    return isinstance(one.value, date) and not _ISO_DAY.fullmatch(one.typed)


def _day(value: str, today: date) -> date | None:
    """The day a date filter's value names, or None when it names none."""
    folded = value.casefold()
    if folded in _NAMED_DAYS:
        return today - timedelta(days=_NAMED_DAYS[folded])
    if back := _DAYS_BACK.fullmatch(value):
        try:
            return today - timedelta(days=int(back["count"]) * _UNIT_DAYS[back["unit"].lower()])
        except OverflowError:
            return None
    if iso := _ISO_DAY.fullmatch(value):
        try:
            return date(int(iso["year"]), int(iso["month"] or 1), int(iso["day"] or 1))
        except ValueError:
            return None
    return None


def _nearest(value: str, known: tuple[str, ...]) -> str | None:
    near = closest_words(value, known)
    return near[0] if len(near) == 1 else None


def paper_day(paper: Paper) -> date | None:
    """The day a paper is dated by: announced (arXiv), else published."""
    if paper.announced is not None:
        return paper.announced
    return paper.published.date() if paper.published is not None else None


def paper_venue(paper: Paper) -> str | None:
    """Where a paper appeared, in OpenReview's words: a feed's venue, or for a catalogue
    paper its ICLR 2025 decision said the same way."""
    if paper.from_feed or paper.venue:
        return paper.venue
    if not paper.openreview_id:
        return None
    if paper.accepted:
        return f"{CATALOGUE_VENUE} {paper.status}"
    return f"Submitted to {CATALOGUE_VENUE}"


def paper_sources(paper: Paper) -> tuple[str, ...]:
    """The sources that gave a paper (``SOURCE_NAMES``)."""
    arxiv = paper.arxiv_id is not None
    openreview = (
        paper.source == OPENREVIEW_SOURCE
        or paper.venue is not None
        or any(openreview_link_id(url) for url in (paper.url, *paper.pages) if url)
    )
    return tuple(name for name, has in zip(SOURCE_NAMES, (arxiv, openreview), strict=True) if has)


class FilterColumns:
    """What the filters read of one index's papers, each column built on first use."""

    def __init__(self, papers: Sequence[Paper]) -> None:
        self._papers = papers

    @built_once
    def days(self) -> np.ndarray:
        """Each paper's day as an ordinal (``_NO_DAY`` where it has none)."""
        return np.fromiter(
            ((day.toordinal() if (day := paper_day(p)) else _NO_DAY) for p in self._papers),
            dtype=np.int64,
            count=len(self._papers),
        )

    @built_once
    def newest_first(self) -> np.ndarray:
        """A tiebreak (lower first) putting the newest papers first, undated ones last, each
        day's by id: the order of a query of filters alone."""
        ids = np.argsort(np.argsort([paper.id for paper in self._papers], kind="stable"))
        order = np.lexsort((ids, -self.days))
        ranks = np.empty(len(order), dtype=np.int64)
        ranks[order] = np.arange(len(order))
        return ranks

    @built_once
    def sources(self) -> dict[str, np.ndarray]:
        masks = {name: np.zeros(len(self._papers), dtype=bool) for name in SOURCE_NAMES}
        for doc, paper in enumerate(self._papers):
            for name in paper_sources(paper):
                masks[name][doc] = True
        return masks

    @built_once
    def venues(self) -> tuple[np.ndarray, tuple[str, ...]]:
        """Each paper's venue as a number into the venues named (-1: none)."""
        return _coded(paper_venue(paper) for paper in self._papers)

    @built_once
    def categories(self) -> dict[str, np.ndarray]:
        """The papers of each category, by its folded name."""
        docs: dict[str, list[int]] = {}
        for doc, paper in enumerate(self._papers):
            for category in paper.categories:
                docs.setdefault(category.casefold(), []).append(doc)
        return {name: np.array(held, dtype=np.intp) for name, held in docs.items()}

    def newest_day(self) -> date | None:
        """The day of the newest dated paper (None: no paper has a date)."""
        newest = int(self.days.max(initial=_NO_DAY))
        return None if newest == _NO_DAY else date.fromordinal(newest)

    def mask(self, filters: Sequence[Filter]) -> np.ndarray:
        """The papers every filter allows."""
        allowed = np.ones(len(self._papers), dtype=bool)
        for one in filters:
            allowed &= self.allows(one)
        return allowed

    def allows(self, one: Filter) -> np.ndarray:
        """The papers one filter allows."""
        held = self._holding(one)
        return ~held if one.negated else held

    def _holding(self, one: Filter) -> np.ndarray:
        operator, value = one.operator, one.value
        if isinstance(value, date):
            days = self.days
            if operator is SINCE:
                return days >= value.toordinal()
            return (days < value.toordinal()) & (days != _NO_DAY)
        if operator is SOURCE:
            return self.sources[value]
        if operator is VENUE:
            codes, names = self.venues
            wanted = [number for number, name in enumerate(names) if _holds_words(name, value)]
            return np.isin(codes, wanted)
        held = np.zeros(len(self._papers), dtype=bool)
        for name, docs in self.categories.items():
            if name == value or name.startswith(f"{value}."):
                held[docs] = True
        return held

    def no_match(self, one: Filter) -> NoFilterMatch:
        """What to say of a filter that allows no paper: the library's date range, or a few
        of the values it does have."""
        if isinstance(one.value, date):
            dated = self.days[self.days != _NO_DAY]
            if not len(dated):
                return NoFilterMatch(one)
            return NoFilterMatch(one, self.newest_day(), date.fromordinal(int(dated.min())))
        if one.operator is SOURCE:
            known = tuple(name for name, held in self.sources.items() if held.any())
        elif one.operator is VENUE:
            codes, names = self.venues
            counts = Counter(codes[codes >= 0].tolist())
            known = tuple(names[code] for code, _ in counts.most_common(KNOWN_SHOWN))
        else:
            by_size = sorted(self.categories.items(), key=lambda item: (-len(item[1]), item[0]))
            known = tuple(self._category_names()[name] for name, _ in by_size[:KNOWN_SHOWN])
        return NoFilterMatch(one, known=known)

    def _category_names(self) -> dict[str, str]:
        """Each folded category as papers write it (``cs.LG``)."""
        return {c.casefold(): c for paper in self._papers for c in paper.categories}


def _coded(values: Iterable[str | None]) -> tuple[np.ndarray, tuple[str, ...]]:
    """Values as numbers into the distinct values, in order of appearance (-1: None)."""
    names: dict[str, int] = {}
    codes = [-1 if value is None else names.setdefault(value, len(names)) for value in values]
    return np.array(codes, dtype=np.int64), tuple(names)


def _holds_words(name: str, words: str) -> bool:
    """Whether a venue's words hold ``words`` (folded, space-separated) in a row:
    ``iclr`` and ``iclr 2026`` are in "Submitted to ICLR 2026"."""
    return f" {words} " in f" {' '.join(_WORDS.findall(name.casefold()))} "
