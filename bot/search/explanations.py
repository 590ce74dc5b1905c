"""Why a search found nothing, or what to know about what it found: reasons with data, for a
renderer to word."""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Sequence
from dataclasses import replace
from itertools import takewhile

from bot.search.authors import NEAR_NAMES, AuthorIndex
from bot.search.filtering import FilterColumns
from bot.search.plan import Plan, Variants, is_known
from bot.search.query import ParsedQuery
from bot.search.results import (
    AUTHOR,
    Advice,
    AllExcluded,
    AuthorsNamed,
    NearName,
    NoJointPaper,
    NoKnownWords,
    NoPhrase,
    NoSuchAuthor,
    NoSuchFullName,
    NothingByAuthor,
    NothingFiltered,
    Reason,
    TooManyConditions,
    Unmatched,
    written,
)


class Explanations:
    """Explains plans over one corpus: its vocabulary, its authors, and which phrases its
    papers contain."""

    def __init__(
        self,
        vocabulary: Container[str],
        authors: AuthorIndex,
        has_phrase: Callable[[Variants], bool],
        columns: FilterColumns,
    ) -> None:
        self._vocabulary = vocabulary
        self._authors = authors
        self._has_phrase = has_phrase
        self._columns = columns

    def of_matches(self, plan: Plan, parsed: ParsedQuery | None) -> list[Reason]:
        """What to know about papers found: whose they are, the full name nobody has that
        the author's papers were found without (``author:Stefanie Jegleka``), and which
        words found nothing (so that a reader does not take the rest for them)."""
        reasons: list[Reason] = []
        unmatched = plan.unmatched
        full, capitalised = _full_name(plan, parsed)
        if misnamed := self._misnamed(parsed, full):
            reasons.append(misnamed)
            unmatched = [word for word in unmatched if word not in capitalised]
        if plan.authors:
            reasons.append(AuthorsNamed(tuple(plan.authors)))
        if unmatched:
            reasons.append(_unmatched(replace(plan, unmatched=unmatched)))
        return reasons

    def of_nothing(self, plan: Plan, parsed: ParsedQuery | None) -> Reason:
        """Why a planned query matched no paper: the first condition that fails alone
        (``parsed`` is None for a paper or a text that is no query). A filter that allows
        no paper comes first: nothing else typed could have helped."""
        for one in plan.filters:
            if not self._columns.allows(one).any():
                return self._columns.no_match(one)
        if plan.allowed is not None and not plan.allowed.any():
            return TooManyConditions()
        text, excluded = (parsed.text, parsed.excluded) if parsed else ("", ())
        full, capitalised = _full_name(plan, parsed)
        if misnamed := self._misnamed(parsed, full):
            return misnamed
        if plan.authors and not self._authors.mask(plan.authors).any():
            return self._no_author(plan.authors, full, text)
        names_only = all(
            self._authors.is_name(word) and not is_known(self._vocabulary, word)
            for word in capitalised
        )
        if full is not None and names_only and not self._authors.mask([full]).any():
            # ``author:Tri Dao``: papers by a Tri exist, but no author is called Tri Dao (and
            # "Dao" can only be a name: ``author:LeCun Diffusion`` is a name and a topic).
            return NoSuchFullName(full)
        if plan.tokens and not any(token in self._vocabulary for token in plan.tokens):
            letters = [letter for word in plan.unmatched for letter in word if letter.isalpha()]
            if letters and not any(letter.isascii() for letter in letters):
                return _unmatched(plan, Advice.ENGLISH)
            if plan.unmatched:
                return _unmatched(plan, Advice.SPELLING)
            return NoKnownWords()
        for phrase, variants in plan.phrases:
            if not self._has_phrase(variants):
                return NoPhrase(phrase)
        if plan.filters:
            alone = " ".join(one.query for one in plan.filters)
            return NothingFiltered(tuple(plan.filters), alone)
        if excluded:
            return AllExcluded(excluded)
        if plan.authors:
            alone = " ".join(map(author_query, plan.authors))
            return NothingByAuthor(tuple(plan.authors), alone)
        return TooManyConditions()

    def _no_author(self, names: Sequence[str], full: str | None, text: str) -> Reason:
        """No paper has all of the ``author:`` names: some name finds nobody (and these
        are the authors' names near it), or the names never wrote a paper together."""
        missing = [name for name in names if not self._authors.mask([name]).any()]
        if not missing:
            return NoJointPaper(tuple(names))
        near = tuple(suggestion for name in missing for suggestion in self._near(text, name))
        return NoSuchAuthor(tuple(names), full, near[:NEAR_NAMES])

    def _misnamed(self, parsed: ParsedQuery | None, full: str | None) -> NoSuchFullName | None:
        """A full name typed after ``author:`` that nobody has, when authors' names are near
        it (``author:Sergei Levine``: Sergey Levine)."""
        if parsed is None or full is None or self._authors.mask([full]).any():
            return None
        near = self._near(parsed.text, full)
        return NoSuchFullName(full, near) if near else None

    def _near(self, text: str, name: str) -> tuple[NearName, ...]:
        """The authors' names near ``name``, each with the query ``text`` rewritten to ask
        for it instead."""
        typed = re.compile(
            re.escape(AUTHOR.prefix)
            + '"?'
            + r"\s+".join(map(re.escape, name.split()))
            + '"?(?!\\S)',
            re.IGNORECASE,
        )
        found = typed.search(text)
        if found is None:
            return ()
        before, after = text[: found.start()], text[found.end() :]
        return tuple(
            NearName(near, f"{before}{author_query(near)}{after}")
            for near in self._authors.near_names(name)
        )


def _full_name(plan: Plan, parsed: ParsedQuery | None) -> tuple[str | None, list[str]]:
    """The longer name a query's one one-word ``author:`` name and the capitalised words
    typed right after it may mean (``author:Sergei Levine``), if any, and those words."""
    if parsed is None or len(plan.authors) != 1 or " " in plan.authors[0]:
        return None, []
    name = plan.authors[0]
    typed = re.search(re.escape(f"{AUTHOR.prefix}{name}") + r"(?!\S)", parsed.text, re.IGNORECASE)
    after = parsed.text[typed.end() :].split() if typed else []
    capitalised = list(takewhile(lambda word: word[:1].isupper(), after))
    return (" ".join([name, *capitalised]) if capitalised else None), capitalised


def author_query(name: str) -> str:
    """``author:`` with a name, quoted when it has more than one word."""
    return written(AUTHOR, name)


def _unmatched(plan: Plan, advice: Advice | None = None) -> Unmatched:
    searched = " ".join(dict.fromkeys(plan.searched)) or None
    return Unmatched(tuple(dict.fromkeys(plan.unmatched)), searched, advice)
