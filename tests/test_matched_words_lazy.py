"""A hit's matched words are found when something reads them, not for every hit a search
returns, and are the words an eager search found (``bot.search.matched_words.MatchedWords``)."""

from __future__ import annotations

import pytest

from bot.search.engine import SearchIndex
from bot.search.indexing import written_texts
from bot.search.matched_words import Highlighter, MatchedWords
from bot.search.results import Hit

QUERIES = (
    "sparsifying graphs",
    "autoregressive",
    "out-of-distribution detection",
    "mixture of experts",
    '"graph neural networks"',
    "schrodinger bridge",
    "spiking neural networks -energy",
)


def eager_words(index: SearchIndex, hit: Hit) -> tuple[str, ...]:
    """What the search computed for every hit before the words were lazy: a highlighter of
    the query's shown tokens (those its TL;DR marker flags) over the title and abstract."""
    analyzer = index._analyzer
    shown = set(hit.marker.wanted)  # type: ignore[attr-defined]
    highlighter = Highlighter(analyzer, shown, analyzer.chunks_holding(shown))
    return highlighter.words(written_texts(hit.paper))


@pytest.mark.parametrize("query", QUERIES)
def test_matched_terms_equal_the_eager_words(index: SearchIndex, query: str) -> None:
    result = index.search(query, limit=20)
    assert any(hit.matched_terms for hit in result.hits)
    for hit in result.hits:
        assert hit.matched_terms == eager_words(index, hit)


def test_words_are_not_found_until_read(
    index: SearchIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[str] = []
    found = MatchedWords.__call__

    def counting(self: MatchedWords, paper):  # type: ignore[no-untyped-def]
        read.append(paper.id)
        return found(self, paper)

    monkeypatch.setattr(MatchedWords, "__call__", counting)
    result = index.search("sparsifying graphs", limit=10)
    assert len(result.hits) > 1 and read == []
    first = result.hits[0]
    assert first.matched_terms and read == [first.paper.id]
    assert first.matched_terms is first.matched_terms and read == [first.paper.id]  # once


def test_a_hit_by_id_matches_no_words(index: SearchIndex) -> None:
    paper = index.papers[0]
    assert Hit(paper, None).matched_terms == ()
