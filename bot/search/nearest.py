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
scans exactly, until ``caught_up`` makes an index that holds them: the same base, and the
added papers in a small index of their own beside it (quantized by the base's centroids and
ranges, its results merged with the base's by score), so that an addition never copies the
base. A saved index (``bot.search.snapshot``) keeps the base as a faiss file, which every
process opens memory-mapped and read-only (``mapped``): its codes are pages of the page
cache, shared by every process of the host, not 39 MB of each at 100,000 papers.
"""

from __future__ import annotations

import logging
import math
from functools import cache
from pathlib import Path
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
WIDEST_PROBE = 4
"""How many times more lists than for a query that allows every paper a query that allows
few may scan. faiss reads a probed list whole and skips only the distances of the rows the
mask leaves out, so scanning every list costs a query that matches 1% of 1,000,000 papers
25 ms (``bench/results/semantic_scale.md``), where 26 lists cost under 3. The papers a query
matches are those BM25 finds for its words, which sit near the query's meaning, in the
lists nearest to it: the widest scan (a tenth of the lists at 1,000,000) still reaches them."""
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

    def __init__(
        self,
        index: faiss.IndexIVFScalarQuantizer,
        held: np.ndarray,
        added: faiss.IndexIVFScalarQuantizer | None = None,
    ) -> None:
        self._index = index  # the base: built here, or mapped from a saved index
        self._added = added  # the rows added since the base, in memory (None: none)
        self._mapped = False  # whether the base is mapped from a file
        self.held = held  # which rows the index holds, by row number
        self._count = int(np.count_nonzero(held))

    @classmethod
    def mapped(cls, path: Path, held: np.ndarray) -> NearestIndex:
        """The base saved at ``path`` (``save``), mapped read-only; ``held`` as saved beside
        it. ``ValueError`` when the file is not such an index, or of other rows."""
        faiss = _faiss()
        try:
            index = faiss.read_index(str(path), faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY)
        except RuntimeError as error:  # faiss's reader refuses what it cannot read
            raise ValueError(f"{path.name} is not a faiss index ({error})") from None
        if not isinstance(index, faiss.IndexIVFScalarQuantizer):
            raise ValueError(f"{path.name} holds a {type(index).__name__}")
        if held.dtype != bool or index.ntotal != np.count_nonzero(held):
            raise ValueError(f"{path.name} holds {index.ntotal:,} rows, not those saved")
        opened = cls(index, held)
        opened._mapped = True
        return opened

    def save(self, path: Path) -> np.ndarray:
        """Write the whole index as one faiss file at ``path``; which rows it holds, to be
        saved beside it. A mapped base, or one with rows added, is first copied into one
        index in memory: faiss writes a mapped base's lists as a reference to the file they
        are mapped from, which a newer snapshot outlives."""
        whole = self._index
        if self._mapped or self._added is not None:
            whole = self._empty_beside()
            for part in [self._index] + ([] if self._added is None else [self._added]):
                lists = part.invlists
                for number in range(part.nlist):
                    if size := lists.list_size(number):
                        codes, ids = lists.get_codes(number), lists.get_ids(number)
                        whole.invlists.add_entries(number, size, ids, codes)
                        lists.release_codes(number, codes)
                        lists.release_ids(number, ids)
                whole.ntotal += part.ntotal
        _faiss().write_index(whole, str(path))
        return self.held

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
        faiss = _faiss()
        added = self._empty_beside() if self._added is None else faiss.clone_index(self._added)
        grown = NearestIndex(self._index, held, added)
        grown._mapped = self._mapped
        grown._add(vectors, tail)
        return grown

    def _empty_beside(self) -> faiss.IndexIVFScalarQuantizer:
        """An empty index whose codes are the base's: its centroids (a copy, 1.5 KB a list)
        and its quantizer's trained ranges, so scores of both compare."""
        faiss, base = _faiss(), self._index
        quantizer = faiss.clone_index(base.quantizer)
        added = faiss.IndexIVFScalarQuantizer(
            quantizer, base.d, base.nlist, base.sq.qtype, base.metric_type, base.by_residual
        )
        added.sq = base.sq
        added.is_trained = True
        return added

    def _add(self, vectors: np.ndarray, rows: np.ndarray) -> None:
        into = self._index if self._added is None else self._added
        for start in range(0, len(rows), _ADD_ROWS):
            chunk = rows[start : start + _ADD_ROWS]
            into.add_with_ids(np.asarray(vectors[chunk], dtype=np.float32), chunk)
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
        are scanned (``lists_to_probe``)."""
        allowed = among[: len(self.held)] & self.held
        count = int(np.count_nonzero(allowed))
        if not count or k <= 0:
            return np.zeros(0, dtype=np.intp)
        probed = lists_to_probe(self._index.nlist, count / max(1, self._count))
        bitmap = np.packbits(allowed, bitorder="little")
        faiss = _faiss()
        selector = faiss.IDSelectorBitmap(len(bitmap), faiss.swig_ptr(bitmap))
        parameters = faiss.SearchParametersIVF(sel=selector, nprobe=probed)
        query = np.asarray(vector, dtype=np.float32).reshape(1, -1)
        scores, found = self._index.search(query, k, params=parameters)
        if self._added is not None:  # the best k of both, by score
            more_scores, more = self._added.search(query, k, params=parameters)
            scores = np.concatenate([scores[0], more_scores[0]])
            found = np.concatenate([found[0], more[0]])
            best = np.argsort(-scores, kind="stable")[:k]
            found = found[best].reshape(1, -1)
        return found[0][found[0] >= 0].astype(np.intp)

    @property
    def nbytes(self) -> int:
        """Memory the index holds (mapped from a file or not): its codes, their row numbers
        and the centroids."""
        parts = [self._index] + ([] if self._added is None else [self._added])
        return sum(
            int(part.ntotal) * (part.code_size + 8) + part.nlist * part.d * 4 for part in parts
        )


def lists_to_probe(lists: int, share: float) -> int:
    """The lists a query scans when its mask allows ``share`` of the rows: so many that about
    as many allowed rows are compared as when every row is allowed, up to ``WIDEST_PROBE``
    times that."""
    base = max(MIN_PROBED, lists * PROBED_SHARE)
    return min(lists, math.ceil(base / max(share, 1 / WIDEST_PROBE)))
