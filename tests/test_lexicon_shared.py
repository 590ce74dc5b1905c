"""The English lexicon as a table every process of a host maps: written once, answering as
the frozenset each process held, never used when damaged."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.search import lexicon
from bot.search.mapped import MappedTable


@pytest.fixture
def shared(tmp_path: Path) -> Iterator[Path]:
    lexicon.english_words.cache_clear()
    lexicon.share_lexicon(tmp_path)
    yield tmp_path / lexicon.LEXICON_DIR
    lexicon.share_lexicon(None)
    lexicon.english_words.cache_clear()


def _again() -> object:
    lexicon.english_words.cache_clear()
    return lexicon.english_words()


def _lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == lexicon.__name__]


def test_the_table_is_written_once_mapped_and_answers_as_the_set(shared, caplog) -> None:
    in_memory = lexicon._read(lexicon.dictionary_path())
    with caplog.at_level(logging.INFO):
        words = lexicon.english_words()
    (line,) = _lines(caplog)
    assert "none was written yet" in line.getMessage()
    assert isinstance(words, MappedTable)
    (table,) = shared.iterdir()
    assert str(table) in Path("/proc/self/maps").read_text()
    caplog.clear()
    with caplog.at_level(logging.INFO):
        again = _again()
    assert _lines(caplog) == []
    assert len(again) == len(in_memory) and set(again) == in_memory
    for word in ("lawyers", "unreliable", "layers", "qzxv", "Lawyers", "", "naïve"):
        assert (word in again) == (word in in_memory)
    assert lexicon.is_english("unlabeled") and not lexicon.is_english("unlabelled-ish")


def test_a_truncated_table_is_refused_and_written_again(shared, caplog) -> None:
    lexicon.english_words()
    (table,) = shared.iterdir()
    slots = table / "words.slots.npy"
    slots.write_bytes(slots.read_bytes()[:-64])
    with caplog.at_level(logging.INFO):
        words = _again()
    (line,) = _lines(caplog)
    assert line.levelno == logging.WARNING and "bytes where" in line.getMessage()
    assert isinstance(words, MappedTable) and "lawyers" in words


def test_where_no_table_can_be_written_the_set_is_held(tmp_path, caplog) -> None:
    blocked = tmp_path / "a file"
    blocked.write_text("in the way of the folder")
    lexicon.english_words.cache_clear()
    lexicon.share_lexicon(blocked)
    try:
        with caplog.at_level(logging.INFO):
            words = lexicon.english_words()
    finally:
        lexicon.share_lexicon(None)
        lexicon.english_words.cache_clear()
    (line,) = _lines(caplog)
    assert "held in memory" in line.getMessage()
    assert isinstance(words, frozenset) and "lawyers" in words
