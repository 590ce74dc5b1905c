"""Where a paper's text writes what a query searched for: the words shown as matched in a
hit's title and abstract (``MatchedWords``, ``Highlighter``), those bolded (``marked_words``)
and the token sequences a quoted phrase is looked for in (``PhraseReader``). Each reads
texts with the corpus's analyzer, one chunk or word at a time, so the text keeps its own
characters; they live apart from the analyzer, which only turns text into tokens."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain, compress

from bot.papers.paper import Paper
from bot.search.analyzer import HYPHENS, WORD_PATTERN, CorpusAnalyzer, word_tokens
from bot.search.indexing import written_texts


@dataclass(frozen=True)
class MatchedWords:
    """The matched words of a search's hits (``bot.search.results.WordFinder``), found only
    for the hits something reads them of (a note, the CLI), each hit once: a Slack card
    shows none, and finding them for every hit of every page was a quarter of a search's
    time at 100,000 papers (``bench/results/p50.md``). The highlighter, whose chunk set is the
    costly part, is made on the first hit asked; a paper's chunks were analysed when it
    was indexed, so what it finds does not depend on when it is asked."""

    analyzer: CorpusAnalyzer = field(compare=False)
    wanted: frozenset[str]  # the tokens shown as matched (``CorpusAnalyzer.shown``)

    @cached_property
    def _highlighter(self) -> Highlighter:
        chunks = self.analyzer.chunks_holding(self.wanted)
        return Highlighter(self.analyzer, set(self.wanted), chunks)

    def __call__(self, paper: Paper) -> tuple[str, ...]:
        """Words of ``paper``'s title and abstract, as written, whose tokens were searched."""
        return self._highlighter.words(written_texts(paper))


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
