"""The words the typo corrector knows, kept so that an addition extends them instead of
reading the corpus again.

A corrector's words are the alphabetic words written in chunks of the corpus that hold a
token at least ``least`` papers have (``CorpusAnalyzer.spelling_words``), each weighed by how
many papers have its first token, and only where that token is held by ``least`` papers. At
a few hundred thousand papers finding them all takes seconds (every token's papers counted
across the fields, tens of thousands of words stemmed), which an addition of a thousand
papers must not pay. What is kept for it: each token's paper count (of those counted), and
every such word by its first token, those whose token is still too rare included, so that
when it is no longer rare they are found without the corpus.

An addition only adds: a token's papers only grow, as do the chunks holding it (the old
papers read by the same rules, ``bot.search.growth``), so the words of the grown corpus are
the old ones, those of the new chunks, and those of every chunk of a token that has just
become common enough; and a word's weight changes only where new papers hold its token.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from bot.search.analyzer import CorpusAnalyzer, chunk_spelling_words, word_tokens
from bot.search.fielded import FieldedBM25

TWICE_FROM = 10_000
"""From this many papers on, a word must appear in two papers to be a correction: in a large
corpus a word of a single paper is more often a name or a typo itself than what someone
meant."""


def least_papers(papers: int) -> int:
    """How many papers must hold a word's token for it to be a correction."""
    return 1 if papers < TWICE_FROM else 2


@dataclass(frozen=True)
class SpellingWords:
    """The corrector's words of one corpus (``frequencies``: word → papers of its first
    token), and what an addition needs to extend them."""

    least: int
    papers_of: dict[str, int]
    """Token → how many papers hold it, for the tokens at least ``least`` papers hold."""
    by_token: dict[str, list[str]]
    """First token → the words of that token in chunks holding a counted token."""
    frequencies: dict[str, int]

    @classmethod
    def build(cls, papers: int, bm25: FieldedBM25, analyzer: CorpusAnalyzer) -> SpellingWords:
        least = least_papers(papers)
        papers_of = bm25.document_frequencies(least)
        by_token: dict[str, list[str]] = {}
        for word in analyzer.spelling_words(list(papers_of)):
            tokens = word_tokens(word).tokens
            if tokens:
                by_token.setdefault(tokens[0], []).append(word)
        frequencies = {
            word: papers_of[token]
            for token, words in by_token.items()
            if token in papers_of
            for word in words
        }
        return cls(least, papers_of, by_token, frequencies)

    def extended(
        self,
        papers: int,
        old: FieldedBM25,
        analyzer: CorpusAnalyzer,
        added: Counter[str],
        chunks: Mapping[str, tuple[str, ...]],
    ) -> SpellingWords | None:
        """These words grown by an addition, as ``build`` over the grown corpus gives them:
        ``papers`` in all, ``old`` the index before, ``analyzer`` the grown index's, ``added``
        how many new papers hold each token, ``chunks`` the new papers' chunks with their
        tokens. None when the grown corpus needs more papers per word (``TWICE_FROM``)."""
        if least_papers(papers) != self.least:
            return None
        papers_of = dict(self.papers_of)
        for token, count in added.items():
            before = self.papers_of.get(token)
            if before is None:  # rarer than ``least``: a posting list or two to read
                before = old.document_frequency(token)
            if before + count >= self.least:
                papers_of[token] = before + count
        common = papers_of.__contains__
        newly = [token for token in added if common(token) and token not in self.papers_of]
        found = chunk_spelling_words(
            [chunk for chunk, tokens in chunks.items() if any(map(common, tokens))]
        )
        found |= analyzer.spelling_words(newly)
        by_token = dict(self.by_token)
        changed = set(added)
        for word in found:
            tokens = word_tokens(word).tokens
            if tokens and word not in (held := by_token.get(tokens[0], ())):
                by_token[tokens[0]] = [*held, word]
                changed.add(tokens[0])
        frequencies = dict(self.frequencies)
        for token in filter(common, changed):
            frequencies.update(dict.fromkeys(by_token.get(token, ()), papers_of[token]))
        return SpellingWords(self.least, papers_of, by_token, frequencies)
