"""One analyzer for papers and queries: text → index tokens.

Papers and queries must go through exactly the same steps, or a word typed one way never
meets the same word written another way. The steps, and why:

- LaTeX/Markdown are stripped (``bot.papers.plain.clean_text``) and the text is NFKC-normalised, so
  ``$\\mathsf{LSI}$`` reads ``LSI`` and ``HGM³`` reads ``HGM3``.
- A *word* is a run of letters/digits joined by hyphens, apostrophes or digit dots
  (``Mixture-of-Graphs``, ``Llama3.1``, ``1024x1024``). Emoji, punctuation and control
  characters never form words.
- Words are case-folded, their accents dropped (``fold``: ``Schrödinger`` is searched as
  ``Schrodinger`` is typed), English stopwords dropped, and Snowball-stemmed (PyStemmer);
  words with a digit are kept whole because ``GSM8K`` has no stem. Only tokens are folded:
  the text a reader is shown keeps its accents.
- Acronym plurals are folded before stemming (``MLLMs`` → ``mllm``), which Snowball cannot do
  for vowel-less or upper-case acronyms (it keeps ``llms`` and ``sdes``).
- ``-ification`` becomes ``-ify`` first, so ``sparsifying`` meets ``sparsification``, and
  ``generalization`` keeps its own stem instead of Snowball's ``general``.
- A hyphenated word yields its parts *and* the parts joined, so ``auto-regressive`` and
  ``autoregressive`` find each other in both directions.
- One rule for compounds (``CorpusAnalyzer``): a compound is a hyphenated word that some paper
  of the corpus writes (the hyphen is the evidence that its parts make one word), and every
  spelling of it, hyphenated, solid or spaced (``mixture-of-experts``, ``mixtureofexperts``,
  ``mixture of experts``, where the corpus writes it as one word often enough), yields its
  parts and its joined form, in papers and queries alike;
  a query scores a compound it types as one word once (its joined form), and one it types as
  separate words by those words, which every spelling holds too.

Acronyms that abstracts define (``Out-of-distribution (OOD)``) are mined by the same rules
in ``bot.search.defined_acronyms``, so that the long form is matched in queries.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain, filterfalse
from operator import attrgetter
from typing import NamedTuple

import Stemmer

from bot.papers.acronyms import fold_acronym_plural
from bot.papers.plain import clean_text

ANALYZER_VERSION = 1
"""The version of what the analyzer and the indexer make of a text, which a saved index is
keyed by (``bot.search.snapshot``): bump it with any change that gives some text other tokens
(a stopword, a stemming or compound rule, what ``words`` finds) or gives the index other
postings or weights (``bot.search.indexing``'s fields), so no process opens an index saved by
the older rules. The key also holds a digest of the source of the modules that build an
index, a net for a change nobody bumped this number for."""

_STOPWORD_LIST = """
    a about above after again against all am an and any are aren't as at be because been
    before being below between both but by can could couldn't did didn't do does doesn't
    doing don't down during each few for from further had hadn't has hasn't have haven't
    having he her here hers herself him himself his how i if in into is isn't it it's its
    itself just let's me might more most mustn't my myself no nor not now of off on once only
    or other ought our ours ourselves out over own same shall shan't she should shouldn't so
    some such than that that's the their theirs them themselves then there these they this
    those through to too under until up upon us very via was wasn't we were weren't what
    when where which while who whom why will with won't would wouldn't yet you your yours
    yourself yourselves s t d ll m o re ve y e g eg ie et al etc i'm you're we're they're
    i've you've we've they've i'd you'd he'd she'd we'd they'd i'll you'll he'll she'll we'll
    they'll can't cannot
"""
STOPWORDS = frozenset(_STOPWORD_LIST.split())

WORD_PATTERN = re.compile(r"[^\W_]+(?:[-\u2010\u2011.'\u2019][^\W_]+)*")
HYPHENS = re.compile(r"[-\u2010\u2011]")
_DIGIT_DOT = re.compile(r"(?<=\d)\.(?=\d)")
_DIGIT = re.compile(r"\d")
_STEMMER = Stemmer.Stemmer("english")
# Snowball stems "generalization" to "general", one of the commonest words in abstracts;
# in machine learning the two mean different things, so the family keeps its own stem.
_GENERALIZ = ("generaliz", "generalis")


class WordTokens(NamedTuple):
    """What one written word contributes: ``parts`` in reading order (used for phrases) and,
    for hyphenated words, ``joined`` (indexed as well, so either spelling matches);
    ``tokens`` is both, stored because indexing reads it for every word of the corpus.

    A named tuple rather than a dataclass: indexing gathers these with C-level ``map`` and
    ``attrgetter``, which a Python-level ``__eq__`` or property would slow down."""

    parts: tuple[str, ...]
    joined: str | None
    tokens: tuple[str, ...]

    @classmethod
    def of(cls, parts: tuple[str, ...], joined: str | None) -> WordTokens:
        return cls(parts, joined, (*parts, joined) if joined else parts)


@dataclass(frozen=True, slots=True)
class Word:
    """A word as written in the text (for bolding), its position there, and its tokens."""

    surface: str
    start: int
    end: int
    tokens: WordTokens


def _plain(text: str) -> str:
    """Strip LaTeX/Markdown, only when the text has any (most has none, and stays as is)."""
    return clean_text(text).plain if "$" in text or "\\" in text else text


def normalize(text: str) -> str:
    """Strip LaTeX/Markdown and NFKC-normalise."""
    return unicodedata.normalize("NFKC", _plain(text))


_UNDECOMPOSED = str.maketrans(
    {"ø": "o", "ł": "l", "đ": "d", "ð": "d", "\u0131": "i", "æ": "ae", "œ": "oe", "þ": "th"}
)
"""Letters that carry their mark in the letter itself, which NFKD leaves alone (Søren,
Łukasz, Cæsar); ``ß`` needs no entry, as case-folding makes it ``ss``."""


def fold(text: str) -> str:
    """``text`` case-folded and without accents: decomposed (NFKD), its combining marks
    dropped, and the letters NFKD cannot decompose spelt as an English keyboard types them,
    so a word typed without its accents (``Schrodinger``, ``Sebastien``, ``Lukasz``) is the
    word written with them."""
    folded = text.casefold()
    if folded.isascii():
        return folded
    decomposed = unicodedata.normalize("NFKD", folded)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return bare.translate(_UNDECOMPOSED)


def _nfkc(text: str) -> str:
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


@lru_cache(maxsize=1 << 14)
def _joined_term(letters: str) -> str | None:
    """The joined token of a compound's words run together (``_term`` of them: cached, as
    a corpus writes the same compounds apart over and over)."""
    return _term(letters)


def edge_key(word: str) -> str:
    """A whole word as a compound's second word is matched: its token, or folded when it
    has none (``of`` in ``mixture of experts``)."""
    parts = word_tokens(word).parts
    return parts[0] if len(parts) == 1 else fold(word)


@lru_cache(maxsize=1 << 14)
def chunk_edges(chunk: str) -> tuple[str | None, str | None]:
    """How a whitespace-delimited chunk can take part in a compound written apart: its
    last word folded, if the chunk ends with a whole word (one a compound may begin with),
    and its first word's ``edge_key``, if it begins with one (a compound's second word)."""
    text = _nfkc(chunk)
    found = WORD_PATTERN.findall(text)
    if not found:
        return None, None
    last, first = found[-1], found[0]
    opening = fold(last) if last.isalnum() and text.endswith(last) else None
    following = edge_key(first) if first.isalnum() and text.startswith(first) else None
    return opening, following


def _term(piece: str) -> str | None:
    """One hyphen-free piece → its index token, or None for stopwords and stray letters."""
    if piece.replace("\u2019", "'").casefold() in STOPWORDS:
        return None
    folded = fold(fold_acronym_plural(piece.replace("'", "").replace("\u2019", "")))
    if not folded or folded in STOPWORDS:
        return None
    if _DIGIT.search(folded):
        return folded
    if len(folded) == 1:
        return None
    if folded.endswith("ification"):
        folded = folded[: -len("ification")] + "ify"
    if folded.startswith(_GENERALIZ):
        return "generaliz"
    return _STEMMER.stemWord(folded)


def _pieces(chunk: str) -> list[str]:
    """Split a hyphen-free chunk on apostrophes (``model's``) and non-numeric dots (``e.g``)."""
    chunk = re.sub(r"['\u2019]s$", "", chunk)
    protected = _DIGIT_DOT.sub("\0", chunk)
    return [p.replace("\0", ".") for p in protected.split(".") if p]


@lru_cache(maxsize=1 << 16)
def word_tokens(word: str) -> WordTokens:
    """Tokens of one written word (cached: a corpus repeats its words)."""
    if word.isalpha():  # the common case, without splitting on hyphens, dots, apostrophes
        term = _term(word)
        return WordTokens.of(() if term is None else (term,), None)
    chunks = [c for c in HYPHENS.split(word) if c]
    parts: list[str] = []
    for chunk in chunks:
        for piece in _pieces(chunk):
            term = _term(piece)
            if term is not None:
                parts.append(term)
    joined = None
    if len(chunks) > 1:
        joined = _term("".join(p for c in chunks for p in _pieces(c)))
        if joined in parts:
            joined = None
    return WordTokens.of(tuple(parts), joined)


def words(text: str) -> Iterator[Word]:
    """The words of ``text`` with their tokens; positions refer to the normalised text."""
    for match in WORD_PATTERN.finditer(normalize(text)):
        yield Word(match.group(), match.start(), match.end(), word_tokens(match.group()))


def written_words(text: str) -> list[str]:
    """The words of ``text`` as written (after normalisation), in order."""
    return WORD_PATTERN.findall(normalize(text))


def analyze(text: str) -> list[str]:
    """Index tokens of a text: what BM25 sees, for papers and queries alike."""
    tokens: list[str] = []
    for word in written_words(text):
        tokens.extend(word_tokens(word).tokens)
    return tokens


def analyze_phrase(text: str) -> list[str]:
    """Tokens in reading order without the joined forms: the sequence phrases are matched on."""
    tokens: list[str] = []
    for word in written_words(text):
        tokens.extend(word_tokens(word).parts)
    return tokens


# --- the analyzer bound to a corpus ---------------------------------------------------------

_SPELLING_WORD = re.compile(r"[^\W\d_]{3,}")
_TOKENS = attrgetter("tokens")


QUERY_WORDS = 1 << 15
"""Words the analyzer keeps once the index is built. Queries and highlighting fill this
memory, and anyone can type a word never seen before, so it keeps the most recently used."""


class _RecentWords(OrderedDict[str, WordTokens]):
    """A least-recently-used map of written words to their tokens, at most ``limit`` long."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self._limit = limit

    def get(self, word: str, default: WordTokens | None = None) -> WordTokens | None:  # type: ignore[override]
        found = super().get(word, default)
        if found is not default:
            self.move_to_end(word)
        return found

    def __setitem__(self, word: str, tokens: WordTokens) -> None:
        super().__setitem__(word, tokens)
        if len(self) > self._limit:
            self.popitem(last=False)


@dataclass(frozen=True)
class CompoundUses:
    """How often texts write each compound (joined token) as one word and apart."""

    one_word: Counter[str] = field(default_factory=Counter)
    apart: Counter[str] = field(default_factory=Counter)

    def __add__(self, other: CompoundUses) -> CompoundUses:
        return CompoundUses(self.one_word + other.one_word, self.apart + other.apart)


class CorpusAnalyzer:
    """The analyzer with what one corpus teaches it: which compounds it hyphenates.

    ``word_tokens`` gives ``auto-regressive`` the tokens auto, regress and autoregress, but
    ``autoregressive`` only autoregress, so a paper writing the hyphen would outweigh one that
    does not. Once any paper of the corpus hyphenates a compound, every spelling of it gets
    all three tokens, in papers and in queries.

    Indexing caches whole whitespace-delimited chunks (``(Mixture-of-Experts),``): a corpus
    repeats its chunks, so a large one costs a ``str.split`` and a dict lookup per word, with
    no regex or Python per word.

    Paper texts are taken as the corpus layer gives them, already plain (``clean_text``); only
    query text goes through the LaTeX cleaner here, since cleaning a paper's text twice would
    cost the cleaner's time again and could change what it left (a literal ``$``).
    """

    def __init__(
        self,
        splits: Mapping[str, tuple[str, ...]],
        openings: Mapping[tuple[str, str], int] | None = None,
        split_from: Mapping[str, str] | None = None,
        chunks_by_token: dict[str, list[str]] | None = None,
    ) -> None:
        self.splits = dict(splits)
        self.openings = dict(openings or {})
        """How a compound written apart begins: (its first word folded, its second word's
        ``edge_key``) → the most words a compound beginning so has (see ``compound_at``)."""
        # The chunk each split was taken from: the first, in sorted order, of those giving it.
        self._split_from = dict(split_from or {})
        self.apart: frozenset[str] | None = None
        """The compounds (joined tokens) whose words written apart count as the compound:
        those the corpus writes as one word often enough (``indexing.ONE_WORD_SHARE``), set
        by the indexer (None: all). ``large language model`` is hyphenated only as a modifier
        (``large-language-model-based``) and written apart 900 times: a phrase, not a word."""
        self.uses: CompoundUses = CompoundUses()
        """How often the corpus writes each compound as one word and apart, which ``apart``
        is decided from (set by the indexer, kept for additions: ``bot.search.growth``)."""
        self._words: dict[str, WordTokens] = {}
        self._chunks: dict[str, tuple[str, ...]] = {}
        # For highlighting; an addition's analyzer shares it (``extended``).
        self._chunks_by_token: dict[str, list[str]] = (
            {} if chunks_by_token is None else chunks_by_token
        )

    @classmethod
    def for_chunks(cls, chunks: Iterable[str]) -> CorpusAnalyzer:
        """The analyzer for a corpus whose texts have these distinct whitespace-delimited
        chunks (an indexer that has already split every text need not split them again)."""
        analyzer = cls({})
        analyzer._split(chunks)
        return analyzer

    def _split(self, chunks: Iterable[str]) -> bool:
        """Take the compound splits and openings of ``chunks`` in, each compound split as the
        first chunk in sorted order that hyphenates it says, whichever texts came first;
        whether a split or an opening is new or changed."""
        hyphenated = [c for c in chunks if "-" in c or "\u2010" in c or "\u2011" in c]
        changed = False
        for chunk in sorted(hyphenated):
            for word in WORD_PATTERN.findall(unicodedata.normalize("NFKC", chunk)):
                tokens = word_tokens(word)
                if not tokens.joined or len(tokens.parts) <= 1:
                    continue
                joined = tokens.joined
                if joined not in self.splits or chunk < self._split_from[joined]:
                    changed |= self.splits.get(joined) != tokens.parts
                    self.splits[joined] = tokens.parts
                    self._split_from[joined] = chunk
                pieces = [piece for piece in HYPHENS.split(word) if piece]
                if all(map(str.isalnum, pieces)):
                    opening = (fold(pieces[0]), edge_key(pieces[1]))
                    if len(pieces) > self.openings.get(opening, 0):
                        changed = True
                        self.openings[opening] = len(pieces)
        return changed

    def extended(self, texts: Iterable[str]) -> tuple[CorpusAnalyzer, bool]:
        """The analyzer of this corpus plus ``texts`` (splits and openings exactly as
        ``for_chunks`` over all of them), and whether they add or change a split or an
        opening: old papers then read differently (``bot.search.growth`` rebuilds). Its
        ``apart`` and ``uses`` are this one's, for the caller to update. This analyzer is
        left as it is."""
        grown = self.copy()
        changed = grown._split({chunk for text in texts for chunk in text.split()})
        return grown, changed

    def copy(self) -> CorpusAnalyzer:
        """An analyzer reading as this one does, to be taught more without changing this
        one, which an index still answering uses."""
        copy = CorpusAnalyzer(self.splits, self.openings, self._split_from, self._chunks_by_token)
        copy.apart, copy.uses = self.apart, self.uses
        return copy

    def compound_at(
        self, chunks: Sequence[str], at: int, *, every: bool = False
    ) -> tuple[int, str] | None:
        """A compound written apart from ``chunks[at]`` on (``mixture of experts``, where
        some paper writes ``mixture-of-experts``): how many chunks it spans and its joined
        token, or None. The words must be whole and separated by spaces alone: the last
        word of ``chunks[at]`` (``(mixture``), whole chunks within, and the first word of
        its last chunk (``experts,``); the longest compound wins. The test that ends most
        calls, the first two words' ``openings``, is the one the indexer vectorises.
        ``every`` finds compounds outside ``apart`` too (to count them)."""
        if at + 1 >= len(chunks):
            return None
        first, _ = chunk_edges(chunks[at])
        _, second = chunk_edges(chunks[at + 1])
        longest = self.openings.get((first or "", second or ""))
        if longest is None:
            return None
        words = [_nfkc(chunk) for chunk in chunks[at : at + longest]]
        words[0] = WORD_PATTERN.findall(words[0])[-1]
        apart = None if every else self.apart
        for size in range(len(words), 1, -1):
            if not all(map(str.isalnum, words[1 : size - 1])):
                continue
            closing = WORD_PATTERN.match(words[size - 1])
            if closing is None or not closing.group().isalnum():
                continue
            joined = _joined_term("".join([*words[: size - 1], closing.group()]))
            if joined in self.splits and (apart is None or joined in apart):
                return size, joined
        return None

    def compound_ends(self, chunks: Sequence[str], *, every: bool = False) -> dict[int, str]:
        """Where compounds written apart end in a text's chunks, and their joined tokens:
        read left to right, a compound's words starting no other (``every``: as
        ``compound_at``)."""
        ends: dict[int, str] = {}
        if not self.openings or len(chunks) < 2:
            return ends
        # Where the first two words open a compound: the test that ends most positions,
        # each chunk's edges read once.
        edges = list(map(chunk_edges, chunks))
        firsts = [first or "" for first, _ in edges[:-1]]
        keys = zip(firsts, [second or "" for _, second in edges[1:]], strict=True)
        openings = self.openings
        at = 0
        for start in [at for at, key in enumerate(keys) if key in openings]:
            if start < at:
                continue
            found = self.compound_at(chunks, start, every=every)
            if found is not None:
                ends[start + found[0] - 1] = found[1]
                at = start + found[0]
        return ends

    def compound_uses(
        self, text: str, analysed: dict[str, tuple[str, ...]] | None = None
    ) -> CompoundUses:
        """How often a paper text writes each compound as one word (its chunks' tokens, as
        the indexer counts them) and apart (``every`` compound, as the indexer counts
        before it decides ``apart``). ``analysed`` keeps the chunks' tokens across the
        texts of a batch, which repeat most of their chunks."""
        chunks = text.split()
        known = {} if analysed is None else analysed
        for chunk in filterfalse(known.__contains__, chunks):
            known[chunk] = self._analyze_chunk(chunk)
        splits = self.splits
        one_word = Counter(
            token
            for token in chain.from_iterable(map(known.__getitem__, chunks))
            if token in splits
        )
        return CompoundUses(one_word, Counter(self.compound_ends(chunks, every=True).values()))

    def word(self, word: str) -> WordTokens:
        """Tokens of one written word (as found by ``written_words``)."""
        found = self._words.get(word)
        if found is None:
            found = word_tokens(word)
            if not found.joined and len(found.parts) == 1 and found.parts[0] in self.splits:
                found = WordTokens.of(self.splits[found.parts[0]], found.parts[0])
            self._words[word] = found
        return found

    def query_word(self, word: str) -> WordTokens:
        """A query word scores a known compound once: papers hold the joined token in every
        spelling, so adding the parts too would count one concept three times."""
        tokens = self.word(word)
        if tokens.joined and tokens.joined in self.splits:
            return WordTokens.of((tokens.joined,), None)
        return tokens

    def words(self, text: str) -> list[WordTokens]:
        return [self.word(word) for word in written_words(text)]

    def _analyze_chunk(self, chunk: str) -> tuple[str, ...]:
        if chunk.isascii() and chunk.isalpha():  # most chunks: one word, NFKC leaves it be
            return self.word(chunk).tokens
        nfkc = unicodedata.normalize("NFKC", chunk)
        words = [self.word(word) for word in WORD_PATTERN.findall(nfkc)]
        return tuple(chain.from_iterable(map(_TOKENS, words)))

    def index_chunk(self, chunk: str) -> tuple[str, ...]:
        """Tokens of a whitespace-delimited chunk of the corpus, seen for the first time while
        indexing: remembered for highlighting and spelling (the indexer keeps its own map
        from chunks to tokens, so ``tokens``'s cache is not filled with a second copy)."""
        tokens = self._analyze_chunk(chunk)
        for token in set(tokens):
            self._chunks_by_token.setdefault(token, []).append(chunk)
        return tokens

    def tokens(self, text: str) -> list[str]:
        """Index tokens of a paper text, analysed chunk by chunk (what ``analyze`` gives for
        plain text, plus the corpus's compound splits)."""
        return self._text_tokens(text, self._analyze_chunk)

    def indexed_tokens(self, text: str) -> list[str]:
        """``tokens`` of a paper text being added to the index, its chunks remembered for
        highlighting as ``index_chunk`` remembers a full build's."""
        return self._text_tokens(text, self.index_chunk)

    def _text_tokens(self, text: str, analyse: Callable[[str], tuple[str, ...]]) -> list[str]:
        chunks = text.split()
        analysed = self._analysed(chunks, analyse)
        for end, joined in self.compound_ends(chunks).items():
            analysed[end] = (*analysed[end], joined)
        return list(chain.from_iterable(analysed))

    def _analysed(
        self, chunks: list[str], analyse: Callable[[str], tuple[str, ...]]
    ) -> list[tuple[str, ...]]:
        """Each chunk's tokens, chunks never seen before analysed in reading order."""
        try:
            return list(map(self._chunks.__getitem__, chunks))
        except KeyError:
            for chunk in filterfalse(self._chunks.__contains__, chunks):  # checked lazily
                self._chunks[chunk] = analyse(chunk)
            return list(map(self._chunks.__getitem__, chunks))

    def forget_chunks(self) -> dict[str, tuple[str, ...]]:
        """Drop the indexing caches (they refill on demand); highlighting data stays. The
        words met from now on come from queries, so their memory is bounded. Returned: the
        chunks analysed until now, with their tokens (an addition's, to extend the spelling
        words with: ``bot.search.spelling_words``)."""
        chunks, self._chunks = self._chunks, {}
        self._words = _RecentWords(QUERY_WORDS)
        return chunks

    def shown(self, tokens: Iterable[str]) -> frozenset[str]:
        """The tokens whose words a reader is shown as matched: ``tokens`` and the parts of
        each compound among them, as a text writing it apart holds only its parts."""
        tokens = set(tokens)
        parts = (self.splits.get(token, ()) for token in tokens)
        return frozenset(tokens.union(*parts))

    def chunks_holding(self, tokens: Iterable[str]) -> set[str]:
        """Every chunk of the texts analysed so far that is written with one of ``tokens``."""
        return set(chain.from_iterable(self._chunks_by_token.get(t, ()) for t in tokens))

    def spelling_words(self, tokens: Iterable[str]) -> set[str]:
        """The alphabetic words (case-folded, 3+ letters) written with one of ``tokens`` in
        the texts analysed so far."""
        chunks = chain.from_iterable(self._chunks_by_token.get(token, ()) for token in tokens)
        return chunk_spelling_words(set(chunks))


def chunk_spelling_words(chunks: Iterable[str]) -> set[str]:
    """The alphabetic words (case-folded, 3+ letters) of ``chunks``, stopwords aside."""
    found: set[str] = set()
    for chunk in chunks:
        found.update(_SPELLING_WORD.findall(chunk.casefold()))
    return found - STOPWORDS
