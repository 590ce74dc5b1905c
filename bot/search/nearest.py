"""The papers nearest to a query's vector in a corpus too large to compare it with each one.

The semantic re-ranking joins BM25's best with the matching papers nearest to the query
(``SemanticRanker.nearest``). Comparing the query with every paper's two float16 vectors
costs 2-5 µs a paper on the project's two-core machine (widening float16 to float32 is
numpy's slow part): 0.3 s at 100,000 papers, 2 s at 1,000,000, when the whole semantic part
may add 15 ms to a question (issue 33). From ``APPROXIMATE_FROM``
papers an inverted-file index (faiss's ``IndexIVFScalarQuantizer``) finds them instead: the
text vectors are clustered around ``lists`` centroids, each held as 8-bit numbers (384 bytes
a paper beside the table's 768), and a query scans only the lists whose centroids are nearest
to it, skipping the papers it may not return (``IDSelectorBitmap``). What it finds is then
re-scored exactly from the table, so only which papers are found is approximate, never their
cosines (``bench/semantic_scale.py`` measures how many of the exact scan's it finds).

An index is never changed once built: searches running on it need no lock. Papers added
after it (``SemanticRanker.extended``, vectors embedded later) are its tail, which the caller
scans exactly, until ``caught_up`` builds a copy that holds them.
"""

from __future__ import annotations

import logging
import math
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import faiss

APPROXIMATE_FROM = 5_000
"""Papers from which the nearest are found by the index. At 2-5 µs a paper
(``bench/results/semantic_scale.md``'s exact scan) the exact scan costs 10-25 ms at 5,000
papers, already the whole +15 ms the semantic part may add. Below it the
catalogue (3,706 papers), and every blind set ranked on it, keep the exact scan; and up to
``MIN_PROBED`` lists (8,000 papers) the index scans every list anyway."""

PAPERS_PER_LIST = 1_000  # about sqrt(N) lists at 1,000,000 papers, faiss's usual choice
MAX_LISTS = 1_024  # training more centroids (k-means) costs minutes at 1,000,000 papers
PROBED_SHARE = 1 / 40  # of the lists, scanned for a query whose candidates are every paper
MIN_PROBED = 8
TRAINING_PER_LIST = 40  # training vectors per centroid: faiss warns below 39
_ADD_ROWS = 1 << 16  # rows widened to float32 at a time while adding


@cache
def _faiss() -> Any:
    """faiss, imported when a corpus first needs an index (the shipped ones never do), its
    loader's lines about which CPU build it tried kept out of the bot's log, and one thread
    per search, as numpy's products (``semantic.one_blas_thread``): a query runs on the
    listener's thread, beside the model's."""
    logging.getLogger("faiss.loader").setLevel(logging.WARNING)
    import faiss

    faiss.omp_set_num_threads(1)
    return faiss


class NearestIndex:
    """An inverted-file index of some rows of a float16 table of unit vectors, found by
    inner product (their cosine)."""

    def __init__(self, index: faiss.IndexIVFScalarQuantizer, held: np.ndarray) -> None:
        self._index = index
        self.held = held  # which rows the index holds, by row number
        self._count = int(np.count_nonzero(held))

    @classmethod
    def build(cls, vectors: np.ndarray, ready: np.ndarray, seed: int = 0) -> NearestIndex:
        """The index of the ``ready`` rows of ``vectors``, its centroids trained on an even
        sample of them (the same rows every time: the same index for the same table)."""
        faiss = _faiss()
        rows = np.flatnonzero(ready)
        lists = max(1, min(MAX_LISTS, len(rows) // PAPERS_PER_LIST))
        quantizer = faiss.IndexFlatIP(vectors.shape[1])
        index = faiss.IndexIVFScalarQuantizer(
            quantizer,
            vectors.shape[1],
            lists,
            faiss.ScalarQuantizer.QT_8bit,
            faiss.METRIC_INNER_PRODUCT,
            False,  # the vectors themselves are quantized, not their distance to a centroid
        )
        index.cp.seed = seed
        training = rows[:: max(1, len(rows) // (TRAINING_PER_LIST * lists))]
        index.train(np.asarray(vectors[training], dtype=np.float32))
        held = np.zeros(len(ready), dtype=bool)
        nearest = cls(index, held)
        nearest._add(vectors, rows)
        return nearest

    def caught_up(self, vectors: np.ndarray, ready: np.ndarray) -> NearestIndex:
        """This index plus the ``ready`` rows it lacks (a copy: this one stays as it is for
        the searches running on it); itself when it lacks none."""
        tail = self.tail(ready)
        if not len(tail):
            return self
        held = np.zeros(len(ready), dtype=bool)
        held[: len(self.held)] = self.held
        grown = NearestIndex(_faiss().clone_index(self._index), held)
        grown._add(vectors, tail)
        return grown

    def _add(self, vectors: np.ndarray, rows: np.ndarray) -> None:
        for start in range(0, len(rows), _ADD_ROWS):
            chunk = rows[start : start + _ADD_ROWS]
            self._index.add_with_ids(np.asarray(vectors[chunk], dtype=np.float32), chunk)
        self.held[rows] = True
        self._count = int(np.count_nonzero(self.held))

    def tail(self, ready: np.ndarray) -> np.ndarray:
        """The ``ready`` rows this index does not hold."""
        unheld = ready.copy()
        unheld[: len(self.held)] &= ~self.held
        return np.flatnonzero(unheld)

    def search(self, vector: np.ndarray, among: np.ndarray, k: int) -> np.ndarray:
        """About the ``k`` rows of the mask ``among`` (those the index holds) nearest to
        ``vector``, by their 8-bit vectors. The fewer rows ``among`` allows, the more lists
        are scanned, so that about as many allowed rows are compared whatever the mask."""
        allowed = among[: len(self.held)] & self.held
        count = int(np.count_nonzero(allowed))
        if not count or k <= 0:
            return np.zeros(0, dtype=np.intp)
        lists = self._index.nlist
        share = count / max(1, self._count)
        probed = min(lists, math.ceil(max(MIN_PROBED, lists * PROBED_SHARE) / share))
        bitmap = np.packbits(allowed, bitorder="little")
        faiss = _faiss()
        selector = faiss.IDSelectorBitmap(len(bitmap), faiss.swig_ptr(bitmap))
        parameters = faiss.SearchParametersIVF(sel=selector, nprobe=probed)
        query = np.asarray(vector, dtype=np.float32).reshape(1, -1)
        _, found = self._index.search(query, k, params=parameters)
        return found[0][found[0] >= 0].astype(np.intp)

    @property
    def nbytes(self) -> int:
        """Memory the index holds: its codes, their row numbers and the centroids."""
        return int(self._index.ntotal) * (self._index.code_size + 8) + self._index.nlist * (
            self._index.d * 4
        )
