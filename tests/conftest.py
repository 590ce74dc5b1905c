"""Fixtures shared by every test file."""

from __future__ import annotations

import pytest

from bot.corpus import LoadedCorpus, load_corpus


@pytest.fixture(scope="session")
def seed_corpus() -> LoadedCorpus:
    """The default corpus (the 76 seed papers joined with the catalogue), loaded once."""
    return load_corpus("seeds")
