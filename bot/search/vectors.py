"""Precomputed paper vectors: the file beside a corpus, and what a paper's vector is made of.

A vector is keyed by a hash of the exact text embedded, not by paper id: an abstract edited
in the corpus no longer matches its old vector and is embedded again, and one file serves
every corpus built from the same records (the seeds, the catalogue, all its records). The
file also names the model's hash, so vectors of another model are never mixed in.
"""

from __future__ import annotations

import hashlib
import logging
import os
import zipfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bot.papers.corpus import CATALOGUE_PATH
from bot.papers.paper import Paper

logger = logging.getLogger(__name__)

VECTORS_SUFFIX = ".vectors.npz"
FOLDER_VECTORS = "vectors.npz"


def embedding_text(paper: Paper) -> str:
    """What a paper's vector is computed from: its title, then its abstract."""
    if not paper.plain_abstract:
        return paper.title
    return f"{paper.title}. {paper.plain_abstract}"


def vector_texts(paper: Paper) -> tuple[str, ...]:
    """Every text of a paper the semantic ranking keeps a vector of: its title, and its
    text when it has an abstract (``bot.search.semantic`` compares each with its own
    kind)."""
    text = embedding_text(paper)
    return (paper.title,) if text == paper.title else (paper.title, text)


def text_key(text: str) -> int:
    """A 64-bit hash of an embedded text (collisions among millions: about one in 10⁷)."""
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def vectors_path(corpus: str) -> Path:
    """Where the vectors of a corpus spec live: the built-in corpora share the catalogue's,
    an operator's ``.jsonl`` file has them beside it, a folder of seed files inside it."""
    spec = corpus.strip()
    if spec in ("", "seeds", "catalogue"):
        return CATALOGUE_PATH.with_suffix(VECTORS_SUFFIX)
    path = Path(spec).expanduser().resolve()
    if path.is_dir():
        return path / FOLDER_VECTORS
    return path.with_suffix(VECTORS_SUFFIX)


@dataclass(frozen=True)
class StoredVectors:
    """Unit vectors (float16) and the text key of each row, from one model."""

    model: str
    keys: np.ndarray  # uint64
    vectors: np.ndarray  # float16, one row per text

    def rows(self) -> dict[int, int]:
        """Text key → row."""
        return dict(zip(self.keys.tolist(), range(len(self.keys)), strict=True))

    def merged(self, keys: Iterable[int], vectors: np.ndarray) -> StoredVectors:
        """These vectors plus others (a key already here keeps its new vector)."""
        new_keys = np.fromiter(keys, dtype=np.uint64)
        keep = ~np.isin(self.keys, new_keys)
        return StoredVectors(
            self.model,
            np.concatenate([self.keys[keep], new_keys]),
            np.concatenate([self.vectors[keep], vectors.astype(np.float16)]),
        )

    def only(self, keys: Iterable[int]) -> StoredVectors:
        """The vectors of these text keys only: the texts a corpus no longer has drop out."""
        wanted = np.isin(self.keys, np.fromiter(keys, dtype=np.uint64))
        return StoredVectors(self.model, self.keys[wanted], self.vectors[wanted])


def embed_missing(
    stored: StoredVectors,
    texts: Mapping[int, str],
    embed: Callable[[str], np.ndarray],
    *,
    each: Callable[[list[int]], Iterable[int]] = iter,
    done: Callable[[int, np.ndarray], None] | None = None,
) -> tuple[StoredVectors, int]:
    """``stored`` plus a vector for each of ``texts`` (by text key) it lacks, and how many
    were embedded. Texts are embedded one by one through ``each`` (a progress display), and
    ``done`` hears of each vector as it comes, so a ranker can use it before the rest."""
    rows = stored.rows()
    todo = [key for key in texts if key not in rows]
    vectors = np.zeros((len(todo), stored.vectors.shape[1]), dtype=np.float32)
    for row, key in zip(range(len(todo)), each(todo), strict=True):
        vectors[row] = embed(texts[key])
        if done is not None:
            done(key, vectors[row])
    return stored.merged(todo, vectors), len(todo)


def empty_vectors(model: str, dimensions: int) -> StoredVectors:
    return StoredVectors(
        model, np.zeros(0, dtype=np.uint64), np.zeros((0, dimensions), dtype=np.float16)
    )


def read_vectors(path: Path, model: str) -> StoredVectors | None:
    """The vectors stored at ``path`` for ``model``; None (with a warning if the file is
    there) when there are none to use."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            stored = StoredVectors(str(data["model"]), data["keys"], data["vectors"])
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as error:
        logger.warning("semantic: %s cannot be read (%s), ignored", path, error)
        return None
    if stored.model != model:
        logger.warning(
            "semantic: %s holds vectors of another model (%s…), ignored", path, stored.model[:12]
        )
        return None
    return stored


def write_vectors(path: Path, stored: StoredVectors) -> None:
    """Write atomically, so a bot starting meanwhile reads the old file or the new, whole."""
    partial = path.with_name(path.name + ".partial")
    with partial.open("wb") as out:
        np.savez(out, model=np.array(stored.model), keys=stored.keys, vectors=stored.vectors)
    os.replace(partial, path)
