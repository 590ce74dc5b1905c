"""A query resolved against one corpus (what to score, require and exclude), and the test of
whether the corpus knows a word, which the planner and the explanations both ask."""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass, field

import numpy as np

from bot.search.analyzer import word_tokens
from bot.search.results import Filter

Variants = list[tuple[str, ...]]
"""The token sequences a phrase may appear as (see ``QueryPlanner.phrase_variants``)."""


@dataclass
class Plan:
    """What the ranker scores and filters by, and what the explanations read."""

    tokens: list[str] = field(default_factory=list)
    phrases: list[tuple[str, Variants]] = field(default_factory=list)
    excluded: list[tuple[str, Variants]] = field(default_factory=list)
    corrections: list[tuple[int, int, str]] = field(default_factory=list)
    """Typo fixes as (start, end, replacement) in the query's text."""
    corrected_text: str | None = None
    exclude_doc: int | None = None
    # Per paper, what the author names a query types add to its score (None: it names
    # nobody); see ``AuthorIndex.scores``.
    author_scores: np.ndarray | None = None
    searched: list[str] = field(default_factory=list)  # free words papers use, as searched
    unmatched: list[str] = field(default_factory=list)  # free words no paper uses, as typed
    counted: bool = True  # see ``SearchResult.counted``
    authors: list[str] = field(default_factory=list)  # names to filter by (``author:``)
    author_runs: list[frozenset[str]] = field(default_factory=list)  # names typed as words
    # The query's words and phrases as typed, each as the token sequences of which a paper
    # must hold one to hold it (``Ranker.about``); none for a paper's or a text's terms.
    words: list[list[tuple[str, ...]]] = field(default_factory=list)
    filters: list[Filter] = field(default_factory=list)  # ``since:``, ``source:``, …
    # The papers the filters allow (None: the query has none); the ranker ANDs it in.
    allowed: np.ndarray | None = None
    # The order of equal scores, lower first, when not the ranker's own (by id): newest
    # first for a query of filters alone, whose papers all score 0.
    tiebreak: np.ndarray | None = None

    @property
    def names_authors(self) -> bool:
        """Whether the query asks for authors, by ``author:`` or by names typed as words."""
        return bool(self.authors) or self.author_scores is not None

    @property
    def is_empty(self) -> bool:
        """Nothing to search for: only stopwords or punctuation, and no filter."""
        return not self.tokens and not self.names_authors and self.allowed is None


def is_known(vocabulary: Container[str], word: str) -> bool:
    """Whether a paper's title or abstract has the word: one of its tokens, or for a
    hyphenated word its joined form or every part (``text-to-moton`` is not known)."""
    tokens = word_tokens(word)
    if tokens.joined is None:  # a plain word (``map``: no generator step per token)
        return any(map(vocabulary.__contains__, tokens.tokens))
    return tokens.joined in vocabulary or all(token in vocabulary for token in tokens.parts)
