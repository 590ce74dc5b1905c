"""Where a paper's text writes what a query searched for: the words bolded in a hit's
title and abstract (``Highlighter``, ``marked_words``) and the token sequences a quoted phrase
is looked for in (``PhraseReader``). Each reads texts with the corpus's analyzer, one chunk or
word at a time, so the text keeps its own characters; they live apart from the analyzer,
which only turns text into tokens."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import chain, compress

from bot.search.analyzer import HYPHENS, WORD_PATTERN, CorpusAnalyzer, word_tokens


def highlighter_for(analyzer: CorpusAnalyzer, wanted: Iterable[str]) -> Highlighter:
    """Finds, in analysed texts, the words written with any of the ``wanted`` tokens (see
    ``CorpusAnalyzer.shown``)."""
    shown = set(analyzer.shown(wanted))
    return Highlighter(analyzer, shown, analyzer.chunks_holding(shown))


def marker_for(analyzer: CorpusAnalyzer, wanted: Iterable[str]) -> WordMarker:
    """``WordMarker`` for a search of ``wanted`` tokens (see ``CorpusAnalyzer.shown``)."""
    return WordMarker(analyzer.shown(wanted))


class Highlighter:
    """The words of a text that a query matched, as written (for bolding).

    Made once per query: it knows every chunk of the corpus holding a wanted token, so a text
    is marked up with a split and a set lookup per chunk, and only the distinct chunks found
    are read word by word, each once per query however many hits repeat it.
    """

    def __init__(self, analyzer: CorpusAnalyzer, wanted: set[str], chunks: set[str]) -> None:
        self._analyzer = analyzer
        self._wanted = wanted
        self._chunks = chunks
        self._matched: dict[str, list[str]] = {}

    def words(self, texts: Iterable[str]) -> tuple[str, ...]:
        """The matched words of ``texts``, each once, in reading order."""
        wanted = self._chunks.__contains__
        chunks = dict.fromkeys(
            chain.from_iterable(compress(c, map(wanted, c)) for c in map(str.split, texts))
        )
        return tuple(dict.fromkeys(chain.from_iterable(map(self._words_of, chunks))))

    def _words_of(self, chunk: str) -> list[str]:
        matched = self._matched.get(chunk)
        if matched is None:
            written = WORD_PATTERN.findall(chunk)
            if len(written) > 1 or not chunk.isascii():
                written = [w for w in written if self._holds_wanted(w)]
            # else the chunk's tokens are its one word's (NFKC leaves ASCII be), and it is
            # only here because one of them is wanted: no need to analyse the word again.
            matched = self._matched[chunk] = written
        return matched

    def _holds_wanted(self, written: str) -> bool:
        tokens = self._analyzer.word(unicodedata.normalize("NFKC", written)).tokens
        return not self._wanted.isdisjoint(tokens)


def marked_words(text: str, wanted: Iterable[str]) -> tuple[tuple[str, bool], ...]:
    """``text`` in pieces that join back to it, a piece flagged when it is a word written with
    one of the ``wanted`` tokens (so "graphs" is flagged when "graph" was searched).

    Only what carries a searched token is flagged: of a hyphenated word, the parts that do
    (``Mixture-of-*Graphs*`` for "graph"), and the whole word only when its joined form was
    searched (``auto-regressive`` for "autoregressive"). Flagging the whole word would bold
    its other parts as if they had been typed too.

    Renderers bold the flagged pieces without knowing the analyzer. Words are found in
    ``text`` as written and normalised one at a time, so the text keeps its own characters.
    """
    wanted = frozenset(wanted)
    pieces: list[tuple[str, bool]] = []
    position = 0
    for start, end in _marked_spans(text, wanted) if wanted else ():
        if start > position:
            pieces.append((text[position:start], False))
        pieces.append((text[start:end], True))
        position = end
    if position < len(text):
        pieces.append((text[position:], False))
    return tuple(pieces)


@dataclass(frozen=True)
class WordMarker:
    """``marked_words`` for one search's tokens, which each hit carries until a renderer asks
    for its TL;DR's pieces (``bot.search.results.TextMarker``)."""

    wanted: frozenset[str]

    def __call__(self, text: str) -> tuple[tuple[str, bool], ...]:
        return marked_words(text, self.wanted)


def _marked_spans(text: str, wanted: frozenset[str]) -> Iterator[tuple[int, int]]:
    """Where ``text`` writes a ``wanted`` token: whole words, or parts of hyphenated ones."""
    for match in WORD_PATTERN.finditer(text):
        tokens = word_tokens(unicodedata.normalize("NFKC", match.group()))
        if wanted.isdisjoint(tokens.tokens):
            continue
        chunks = HYPHENS.split(match.group())
        if len(chunks) == 1 or tokens.joined in wanted:
            yield match.span()
            continue
        start = match.start()
        for chunk in chunks:
            if not wanted.isdisjoint(word_tokens(unicodedata.normalize("NFKC", chunk)).tokens):
                yield start, start + len(chunk)
            start += len(chunk) + 1


class PhraseReader(dict[str, str]):
    """A paper text's tokens in reading order without joined forms, space-separated and
    space-framed, so a phrase is found with a substring test.

    Made once per query: a text is read a whitespace-delimited chunk at a time, and each
    distinct chunk is analysed once however many of the re-read papers repeat it (a dict
    from chunk to its tokens, filled on first sight).
    """

    def __init__(self, analyzer: CorpusAnalyzer) -> None:
        super().__init__()
        self._word = analyzer.word

    def tokens(self, text: str) -> str:
        return " " + " ".join(filter(None, map(self.__getitem__, text.split()))) + " "

    def __missing__(self, chunk: str) -> str:
        written = WORD_PATTERN.findall(unicodedata.normalize("NFKC", chunk))
        tokens = self[chunk] = " ".join(t for word in written for t in self._word(word).parts)
        return tokens
