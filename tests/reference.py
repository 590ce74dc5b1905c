"""What tests compare the engine with: rank-bm25 over the very token lists the index holds."""

from __future__ import annotations

from bot.papers.paper import Paper
from bot.search import indexing
from bot.search.engine import SearchIndex


def document_tokens(index: SearchIndex, paper: Paper) -> list[str]:
    """Exactly the token list ``index`` holds for ``paper``, rebuilt the way it builds it."""
    return indexing.bm25_tokens(indexing.field_tokens(index._analyzer, paper))
