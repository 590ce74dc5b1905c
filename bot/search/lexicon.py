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

As a frozenset the words are 8.5 MB of Python objects that every process holds for itself
(issue 33: a second process on the host may add at most a quarter). Given a folder
(``share_lexicon``, the bot's ``PAPERBOT_INDEX_DIR``), they are written there once as a
``bot.search.mapped`` table, keyed by the dictionary file's checksum, and every process maps
it: its pages are the page cache's. A table missing, damaged or of another dictionary is
written again (said in one log line); where none can be written, the frozenset it is.
"""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Collection
from functools import cache
from pathlib import Path

from bot.search.mapped import MappedTable
from bot.search.snapshot_files import (
    MANIFEST,
    SnapshotReader,
    SnapshotRefused,
    SnapshotWriter,
    checksum,
    opened_or_written,
)

log = logging.getLogger(__name__)

_PACKAGE = "symspellpy"
_DICTIONARY = "frequency_dictionary_en_82_765.txt"
FORMAT = 1
"""How the mapped table is laid out: bump it with any change to ``_written``."""
LEXICON_DIR = "lexicon"
"""The table's folder under ``PAPERBOT_INDEX_DIR``, beside the saved indexes."""
_TABLE = "words"
_PARTS = MappedTable.PARTS  # (``bot.search.snapshot_parts`` reads tables alike, but imports this)
_home: Path | None = None


def share_lexicon(index_dir: Path | None) -> None:
    """Map the lexicon from a table under ``index_dir`` (None: a frozenset in this process's
    memory). Called at start-up, before the first ``english_words``, which stays as it was
    first read."""
    global _home
    _home = None if index_dir is None else index_dir / LEXICON_DIR


def dictionary_path() -> Path:
    """Where the installed ``symspellpy`` keeps its English dictionary (found without
    importing the package)."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the {_PACKAGE} package is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / _DICTIONARY


@cache
def english_words() -> Collection[str]:
    """Every word of the lexicon, lower-case (read once per process: every query may ask
    it): mapped from ``share_lexicon``'s folder, else a frozenset."""
    path = dictionary_path()
    if _home is None:
        return _read(path)
    digest = checksum(path)
    directory = _home / f"words-{FORMAT}-{digest[:16]}"
    table = opened_or_written(
        directory,
        lambda: _opened(directory, digest),
        lambda: _written(directory, digest, _read(path)),
        what="lexicon: table",
        instead="held in memory",
        log=log,
        write_errors=(OSError, ValueError),
    )
    return _read(path) if table is None else table


def _read(path: Path) -> frozenset[str]:
    with path.open(encoding="utf-8") as lines:
        return frozenset(line.split(" ", 1)[0] for line in lines if line.strip())


def _opened(directory: Path, digest: str) -> MappedTable:
    if not (directory / MANIFEST).is_file():
        raise SnapshotRefused("none was written yet")
    reader = SnapshotReader(directory)
    if reader.meta.get("dictionary") != digest or reader.meta.get("format") != FORMAT:
        raise SnapshotRefused("it holds another dictionary")
    try:
        return MappedTable(**{part: reader.array(f"{_TABLE}.{part}") for part in _PARTS})
    except ValueError as error:
        raise SnapshotRefused(f"its table cannot be read ({error})") from None


def _written(directory: Path, digest: str, words: frozenset[str]) -> MappedTable:
    writer = SnapshotWriter(directory.parent, directory.name)
    try:
        for part, array in MappedTable.arrays(dict.fromkeys(sorted(words), 0)).items():
            writer.array(f"{_TABLE}.{part}", array)
        final = writer.commit({"dictionary": digest, "format": FORMAT})
    except BaseException:
        writer.abandon()
        raise
    return _opened(final, digest)


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
