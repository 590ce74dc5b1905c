"""The English words a typo corrector must leave alone.

A corpus of a few thousand abstracts lacks most of English, so a corrector that only knows
the corpus "fixes" ordinary words into whatever corpus word lies an edit or two away
(``lawyers`` → ``layers``, ``unreliable`` → ``reliable``). A word in a well-kept English
lexicon is never a typo, whether or not the papers use it.

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
