"""The stock BM25 systems the engine is measured against: rank-bm25's ``BM25Okapi`` out of the
box over plain whitespace tokens, and over a re-creation of Lucene's EnglishAnalyzer (the stock
"stem+stop" analyzer of a search engine), and the shape every system of the bench has.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol

import Stemmer
from rank_bm25 import BM25Okapi
from ranking_metrics import CUTOFF

from bot.papers.paper import Paper


class Ranker(Protocol):
    """A system over one corpus: the papers it answers ``query`` with, best first. A
    ``thread`` query is a thread's first message the bot was mentioned under with no words of
    its own (the engine reads it as a message, not a typed query; BM25 alone sees words
    either way)."""

    def __call__(self, query: str, thread: bool = False) -> list[Paper]: ...


# Makes a system's ranker for the papers of one corpus (and its spec, for stored vectors).
Builder = Callable[[Sequence[Paper], str], Ranker]


def plain_tokens(text: str) -> list[str]:
    return text.lower().split()


# Lucene's EnglishAnalyzer, re-created: standard tokens, possessives dropped, lower case,
# Lucene's English stop set, Porter stemming. The stock "stem+stop" analyzer of a search engine.
_LUCENE_STOPWORDS = frozenset(
    re.findall(
        r"\w+",
        "a an and are as at be but by for if in into is it no not of on or such that the"
        " their then there these they this to was will with",
    )
)
_STANDARD_TOKEN = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
_PORTER = Stemmer.Stemmer("porter")


def stem_stop_tokens(text: str) -> list[str]:
    words = (re.sub(r"['\u2019]s$", "", word) for word in _STANDARD_TOKEN.findall(text.lower()))
    return _PORTER.stemWords([word for word in words if word not in _LUCENE_STOPWORDS])


def bm25okapi_ranker(tokenize: Callable[[str], list[str]]) -> Builder:
    """BM25Okapi out of the box over title, abstract and author names, as one text.

    Papers that share no token with the query are left out, as any search engine would, and
    ties go to the lower paper id so the ranking is deterministic."""

    def build(papers: Sequence[Paper], corpus: str) -> Ranker:
        documents = [
            tokenize(" ".join([paper.title, paper.abstract or "", *paper.authors]))
            for paper in papers
        ]
        vocabularies = [set(tokens) for tokens in documents]
        bm25 = BM25Okapi(documents)

        def rank(query: str, thread: bool = False) -> list[Paper]:
            tokens = tokenize(query)
            if not tokens:
                return []
            scores = bm25.get_scores(tokens)
            matching = [i for i, vocabulary in enumerate(vocabularies) if vocabulary & set(tokens)]
            matching.sort(key=lambda i: (-scores[i], papers[i].id))
            return [papers[i] for i in matching[:CUTOFF]]

        return rank

    return build
