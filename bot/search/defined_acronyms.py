"""Acronyms that abstracts define (``Out-of-distribution (OOD)``), mined across a corpus.

A long form is analyzed by the analyzer's own rules (``bot.search.analyzer``), so a query
typing the acronym can be matched against the words the papers spell out, and the other way
round (``bot.search.planner``)."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Container, Iterable, Iterator
from dataclasses import astuple, dataclass
from functools import lru_cache
from typing import Any

from bot.papers.acronyms import acronym_letters, long_form
from bot.search.analyzer import analyze, analyze_phrase, word_tokens

_DEFINITION = re.compile(r"\(\s*([A-Za-z][A-Za-z0-9\-]{1,14})\s*[;,)]")


@dataclass(frozen=True, slots=True)
class Acronym:
    """An acronym token and the long form an abstract defined it with (``written`` is the
    acronym as written there, case-folded)."""

    written: str
    token: str
    long_form: str
    long_tokens: tuple[str, ...]
    long_phrase: tuple[str, ...]


@lru_cache(maxsize=1 << 16)
def _definition(written: str, window: tuple[str, ...]) -> Acronym | None:
    """The pair defined by ``written`` in parentheses after the words of ``window``, if any.

    Cached on the few words a long form can span rather than on a longer look back, so a
    phrase many abstracts define the same way ("large language models (LLMs)") is matched
    once."""
    token = word_tokens(written)
    if len(token.tokens) != 1 or token.joined:
        return None
    spelled = long_form(acronym_letters(written), " ".join(window))
    if spelled is None:
        return None
    long_tokens = tuple(analyze(spelled))
    if not long_tokens or token.tokens[0] in long_tokens:
        return None
    phrase = tuple(analyze_phrase(spelled))
    return Acronym(written.casefold(), token.tokens[0], spelled, long_tokens, phrase)


def find_acronyms(text: str, settled: Container[str] = ()) -> Iterator[Acronym]:
    """Pairs like ``Multimodal Large Language Models (MLLMs)`` defined in one plain text,
    except for acronyms (tokens) in ``settled``."""
    for match in _DEFINITION.finditer(text):
        written = match.group(1)
        if sum(c.isupper() for c in written) < 2 or written.casefold() in settled:
            continue
        # 15 letters at most, so 20 words at most: a bounded look back, not the whole text.
        before = text[max(0, match.start() - 400) : match.start()]
        words_before = unicodedata.normalize("NFKC", before).split()[-20:]
        written = unicodedata.normalize("NFKC", written)
        letters = len(acronym_letters(written))
        window = tuple(words_before[-min(letters + 5, 2 * letters) :])
        acronym = _definition(written, window)
        if acronym is not None:
            yield acronym


def mine_acronyms(texts: Iterable[str], enough: int = 50) -> dict[str, Acronym]:
    """Each acronym's most common long form across the corpus (ties: the first one seen)."""
    miner = AcronymMiner(enough)
    miner.read(texts)
    return miner.best()


class AcronymMiner:
    """Counts the acronyms texts define, text after text, so that a corpus that grows is
    mined from where it stopped (``copy``, then ``read`` the new texts) with the very result
    of mining all of it at once.

    After ``enough`` definitions of an acronym its winner is clear, and later definitions are
    skipped unread, so a huge corpus that repeats its acronyms costs little more to mine."""

    def __init__(self, enough: int = 50) -> None:
        self._enough = enough
        self._counts: Counter[tuple[str, tuple[str, ...]]] = Counter()
        self._first: dict[tuple[str, tuple[str, ...]], Acronym] = {}
        self._definitions: Counter[str] = Counter()
        self._settled: set[str] = set()

    def copy(self) -> AcronymMiner:
        miner = AcronymMiner(self._enough)
        miner._counts = self._counts.copy()
        miner._first = dict(self._first)
        miner._definitions = self._definitions.copy()
        miner._settled = set(self._settled)
        return miner

    def state(self) -> dict[str, Any]:
        """The counts as JSON, for a snapshot: an index opened from one goes on mining from
        where the saved one stopped instead of reading all its papers again."""
        return {
            "enough": self._enough,
            "counts": [[list(astuple(self._first[key])), n] for key, n in self._counts.items()],
            "definitions": dict(self._definitions),
            "settled": sorted(self._settled),
        }

    @classmethod
    def of_state(cls, state: dict[str, Any]) -> AcronymMiner:
        """The miner whose ``state`` was saved."""
        miner = cls(state["enough"])
        for (written, token, spelled, tokens, phrase), times in state["counts"]:
            acronym = Acronym(written, token, spelled, tuple(tokens), tuple(phrase))
            key = (acronym.token, acronym.long_phrase)
            miner._counts[key] = times
            miner._first[key] = acronym
        miner._definitions = Counter(state["definitions"])
        miner._settled = set(state["settled"])
        return miner

    def read(self, texts: Iterable[str]) -> None:
        for text in texts:
            if "(" not in text:
                continue
            for acronym in find_acronyms(text, self._settled):
                key = (acronym.token, acronym.long_phrase)
                self._counts[key] += 1
                self._first.setdefault(key, acronym)
                self._definitions[acronym.written] += 1
                if self._definitions[acronym.written] >= self._enough:
                    self._settled.add(acronym.written)

    def best(self) -> dict[str, Acronym]:
        best: dict[str, Acronym] = {}
        best_count: dict[str, int] = {}
        for key, times in self._counts.items():
            if times > best_count.get(key[0], 0):
                best[key[0]] = self._first[key]
                best_count[key[0]] = times
        return best
