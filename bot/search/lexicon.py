"""The English words a typo corrector must leave alone.

A corpus of a few thousand abstracts lacks most of English, so a corrector that only knows
the corpus "fixes" ordinary words into whatever corpus word lies an edit or two away
(``lawyers`` → ``layers``, ``unreliable`` → ``reliable``). A word in a well-kept English
lexicon is never a typo, whether or not the papers use it, and neither is one of the
lexicon's words behind a productive prefix (``unlabeled``, ``nonconvex``, ``selfattention``):
the lexicon lists few of those, and the corrector would otherwise strip the prefix, turning a
word into its opposite (``unlabeled`` → ``labeled``).

The lexicon is SymSpell's English frequency dictionary (82,765 words: Google Books n-grams
intersected with the SCOWL word lists), which ``symspellpy`` ships as a data file. Only the
file is read: the package's own code is neither imported nor needed.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

_PACKAGE = "symspellpy"
_DICTIONARY = "frequency_dictionary_en_82_765.txt"


def dictionary_path() -> Path:
    """Where the installed ``symspellpy`` keeps its English dictionary (found without
    importing the package)."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the {_PACKAGE} package is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / _DICTIONARY


@cache
def english_words() -> frozenset[str]:
    """Every word of the lexicon, lower-case (read once per process: every query may ask it)."""
    with dictionary_path().open(encoding="utf-8") as lines:
        return frozenset(line.split(" ", 1)[0] for line in lines if line.strip())


PREFIXES = ("self", "semi", "non", "pre", "re", "un")
"""Prefixes that make new words of any English word, which a lexicon cannot list in full."""
_SHORTEST_STEM = 3  # ``un`` + ``it`` is no prefixed word


def is_english(word: str) -> bool:
    """Whether ``word`` (any case) is in the lexicon, or is one of its words of three or
    more letters behind one of ``PREFIXES``."""
    lowered = word.casefold()
    words = english_words()
    if lowered in words:
        return True
    return any(
        lowered.startswith(prefix)
        and len(lowered) - len(prefix) >= _SHORTEST_STEM
        and lowered[len(prefix) :] in words
        for prefix in PREFIXES
    )
