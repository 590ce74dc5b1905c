"""Indexes whose stored vectors are set by hand, so that what is near what in a test is decided
by the test, not by the model (the model still embeds the queries)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from bot.papers.corpus import load_corpus
from bot.search.embedding import DIMENSIONS
from bot.search.engine import SearchIndex
from bot.search.semantic import ranker_for, shared_embedder
from bot.search.vectors import empty_vectors, text_key, vector_texts, vectors_path, write_vectors


def axis(number: int) -> np.ndarray:
    vector = np.zeros(DIMENSIONS)
    vector[number] = 1
    return vector


def at_cosine(query: np.ndarray, cosine: float, number: int) -> np.ndarray:
    """A unit vector whose cosine with the unit vector ``query`` is ``cosine``, turned
    towards axis ``number`` (vectors towards different axes are near only through
    ``query``)."""
    aside = axis(number) - query * float(query[number])
    aside /= np.linalg.norm(aside)
    return cosine * query + np.sqrt(1 - cosine**2) * aside


def index_with_vectors(
    tmp_path: Path,
    papers: dict[str, tuple[str, str, np.ndarray]],
    authors: dict[str, list[str]] | None = None,
    titles: dict[str, np.ndarray] | None = None,
) -> SearchIndex:
    """An index over ``papers`` (id → title, abstract, vector) whose stored vectors are the
    ones given: each paper's vector is stored for every text the ranker keeps one of (its
    title, and its title and abstract), except that ``titles`` may give a paper's title a
    vector of its own; ``authors`` by paper id."""
    corpus = tmp_path / "hand.jsonl"
    corpus.write_text(
        "".join(
            json.dumps(
                {
                    "id": paper_id,
                    "title": title,
                    "abstract": abstract,
                    "authors": (authors or {}).get(paper_id, []),
                }
            )
            + "\n"
            for paper_id, (title, abstract, _) in papers.items()
        ),
        encoding="utf-8",
    )
    loaded = load_corpus(str(corpus)).papers
    by_key: dict[int, np.ndarray] = {}
    for paper in loaded:
        for text in vector_texts(paper):
            by_key[text_key(text)] = papers[paper.id][2]
        if titles and paper.id in titles:
            by_key[text_key(paper.title)] = titles[paper.id]
    stored = empty_vectors(shared_embedder().fingerprint, DIMENSIONS).merged(
        by_key, np.array(list(by_key.values()))
    )
    write_vectors(vectors_path(str(corpus)), stored)
    return SearchIndex.build(loaded, ranker_for(str(corpus)))
