"""Why a search found nothing, or what to know about what it found: reasons with data, for a
renderer to word."""

from __future__ import annotations

from collections.abc import Callable, Container
from itertools import takewhile

from bot.search.authors import AuthorIndex
from bot.search.plan import Plan, Variants, is_known
from bot.search.query import ParsedQuery
from bot.search.results import (
    AUTHOR,
    Advice,
    AllExcluded,
    AuthorsNamed,
    NoKnownWords,
    NoPhrase,
    NoSuchAuthor,
    NoSuchFullName,
    Reason,
    TooManyConditions,
    Unmatched,
)


class Explanations:
    """Explains plans over one corpus: its vocabulary, its authors, and which phrases its
    papers contain."""

    def __init__(
        self,
        vocabulary: Container[str],
        authors: AuthorIndex,
        has_phrase: Callable[[Variants], bool],
    ) -> None:
        self._vocabulary = vocabulary
        self._authors = authors
        self._has_phrase = has_phrase

    def of_matches(self, plan: Plan) -> list[Reason]:
        """What to know about papers found: whose they are, and which words found nothing
        (so that a reader does not take the rest for them)."""
        reasons: list[Reason] = []
        if plan.authors:
            reasons.append(AuthorsNamed(tuple(plan.authors)))
        if plan.unmatched:
            reasons.append(_unmatched(plan))
        return reasons

    def of_nothing(self, plan: Plan, parsed: ParsedQuery | None) -> Reason:
        """Why a planned query matched no paper: the first condition that fails alone
        (``parsed`` is None for a paper or a text that is no query)."""
        text, excluded = (parsed.text, parsed.excluded) if parsed else ("", ())
        name = plan.authors[0] if len(plan.authors) == 1 and " " not in plan.authors[0] else None
        after = text.partition(f"{AUTHOR.prefix}{name}")[2].split() if name else []
        capitalised = list(takewhile(lambda word: word[:1].isupper(), after))
        full = " ".join([name, *capitalised]) if name and capitalised else None
        if plan.authors and not self._authors.mask(plan.authors).any():
            return NoSuchAuthor(tuple(plan.authors), full)
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
        if excluded:
            return AllExcluded(excluded)
        return TooManyConditions()


def _unmatched(plan: Plan, advice: Advice | None = None) -> Unmatched:
    searched = " ".join(dict.fromkeys(plan.searched)) or None
    return Unmatched(tuple(dict.fromkeys(plan.unmatched)), searched, advice)
