"""Fixtures shared by every test file."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from slack_harness import LiveBot

from bot.corpus import LoadedCorpus, load_corpus


@pytest.fixture(scope="session")
def seed_corpus() -> LoadedCorpus:
    """The default corpus (the 76 seed papers joined with the catalogue), loaded once."""
    return load_corpus("seeds")


@pytest.fixture
def bot(seed_corpus, tmp_path) -> Iterator[LiveBot]:
    """The real app served over loopback HTTP against a fresh recorder and database."""
    live = LiveBot(seed_corpus, tmp_path)
    yield live
    live.close()
