"""When and how much the model is asked: the one rule every search goes through, declared
in ``bench/round4.md`` before the blind round that judges it was measured.

The sentence model lifts questions and paraphrases, but where BM25's answer is already the
one the reader meant, re-ranking can only move it down, and it costs a model run. The
model is not asked, and BM25's page is the answer, when the query

- names a paper by its OpenReview id or link (``SearchIndex.search`` answers with the paper
  before anything is ranked, so that case never reaches this rule);
- has no words to rank by (it names authors and nothing else: the model knows topics, not
  names);
- copies a title: the query's tokens and the title tokens of BM25's first paper are the same
  set (at least ``SAME_SET_TOKENS``), or the query holds every token of that title (at least
  ``COVERED_TITLE_TOKENS``, so a two-word title inside a longer question does not count);
- finds BM25 decisive: its second paper scores below ``DECISIVE_RATIO`` of its first. On
  every earlier blind round, BM25's first was then the paper meant in 95-100% of queries.

Otherwise the model has its full say, and a query of keywords (no stopword) leans on BM25
where a sentence leans on the model: keywords say which words the paper has, a sentence what
it means. (Until issue 34 the model's share grew from nothing at ``DECISIVE_RATIO`` to all of
it at a ratio of 0.95; that ramp cost long thread posts and questions most, and its removal
was declared in ``bench/round5.md`` before the round that judged it was measured.)
Everything here is decided from BM25's scores and the query's words alone, so a query the
model is not asked about never has its vector computed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

import numpy as np

from bot.search.analyzer import STOPWORDS

SAME_SET_TOKENS = 2
COVERED_TITLE_TOKENS = 4
DECISIVE_RATIO = 0.7
SENTENCE_BETA = 0.3  # BM25's weight in the mix for a query that reads as a sentence
KEYWORDS_BETA = 0.7  # and for a query of keywords only


@dataclass(frozen=True)
class ModelQuery:
    """What the model would compare papers with: the words it reads (for how the query
    reads) and its vector, computed only if the model is asked."""

    words: str
    vector: Callable[[], np.ndarray | None]


@dataclass(frozen=True)
class ModelSay:
    """How the mix weighs the model for one query (``bot.search.semantic.mix``)."""

    beta: float  # BM25's weight; the model's evidence has the rest


def model_say(
    query_tokens: Collection[str],
    words: str,
    first_title_tokens: Collection[str],
    first_score: float,
    second_score: float,
) -> ModelSay | None:
    """How much the model is asked about a query whose index tokens are ``query_tokens``
    and whose typed words are ``words``, given BM25's first paper's title tokens and the
    first two BM25 scores; None when it is not asked."""
    if not query_tokens or copies_title(query_tokens, first_title_tokens):
        return None
    ratio = second_score / first_score if first_score > 0 else 1.0
    if ratio < DECISIVE_RATIO:
        return None
    return ModelSay(SENTENCE_BETA if reads_as_sentence(words) else KEYWORDS_BETA)


def copies_title(query_tokens: Collection[str], title_tokens: Collection[str]) -> bool:
    query, title = set(query_tokens), set(title_tokens)
    if len(title) >= SAME_SET_TOKENS and query == title:
        return True
    return len(title) >= COVERED_TITLE_TOKENS and title <= query


def reads_as_sentence(words: str) -> bool:
    """Whether the query has a function word ("the", "of", "how", ...)."""
    return any(word.strip("?!.,;:()\"'").casefold() in STOPWORDS for word in words.split())
