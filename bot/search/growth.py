"""New papers without a rebuild: the BM25 index of a corpus plus some papers, equal to the one
a full build over all of them would give.

BM25's idf and average lengths are corpus-wide, so one paper more changes every score a
little; what an addition keeps is the expensive part, the postings. The merge, per field:

1. The new papers' fields are analysed and counted (``BM25Builder``), new tokens numbered
   after the field's own, in the order they first occur: the order a full build, which reads
   the papers in order, gives them.
2. Each term's postings are its old ones, then the new papers' (whose numbers come after
   every old paper's), so the merged posting lists stay sorted by document: one ``np.insert``.
   The old postings' term frequencies are read back from their codes
   (``BM25Index.term_frequencies``).
3. The idf, the average length, the (tf, length) ratios and every posting's code are computed
   again from the merged postings by ``BM25Index.from_postings``, the same operations as a
   full build: the scores are bit-identical to a rebuild's, and to rank-bm25's.

The analyzer is the one exception to "old papers are not read again": it splits a compound
once any paper hyphenates it (``CorpusAnalyzer``), so a new paper writing ``test-time`` gives
every old paper writing ``testtime`` the tokens ``test`` and ``time`` too. The few old papers
holding a compound whose split is new or changed are analysed again, and their postings
replaced (step 2 then places them by binary search). A token that only such a paper brings
is numbered after the field's others, where a rebuild would number it earlier; that changes
only the order the average idf is summed in, so a floored idf may differ in its last bits.

Costs grow with the postings (a few numpy passes), not with the text: at 250,000 papers an
addition takes seconds where a rebuild takes minutes.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import count

import numpy as np

from bot.papers.paper import Paper
from bot.search.analyzer import CorpusAnalyzer
from bot.search.bm25 import BM25Builder, BM25Index
from bot.search.fielded import FieldedBM25
from bot.search.indexing import field_texts


def extend_index(
    analyzer: CorpusAnalyzer, bm25: FieldedBM25, old: Sequence[Paper], new: Sequence[Paper]
) -> tuple[CorpusAnalyzer, FieldedBM25]:
    """The analyzer and BM25 index of ``old`` + ``new``, given those of ``old``."""
    grown, changed = analyzer.extended(text for paper in new for text in field_texts(paper))
    redone = _holding(bm25, changed)
    fields = []
    for number, field in enumerate(bm25.fields):
        read = grown.indexed_tokens
        redone_bags = [read(field_texts(old[doc])[number]) for doc in redone.tolist()]
        new_bags = [read(field_texts(paper)[number]) for paper in new]
        fields.append(_merged(field, redone, redone_bags, new_bags))
    grown.forget_chunks()
    return grown, FieldedBM25(fields, bm25.weights)


def _holding(bm25: FieldedBM25, tokens: Sequence[str]) -> np.ndarray:
    """The papers holding any of ``tokens`` in some field, ascending."""
    found = [bm25.documents(token) for token in tokens]
    if not found:
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.concatenate(found).astype(np.int64))


def _merged(
    field: BM25Index,
    redone: np.ndarray,
    redone_bags: Sequence[Sequence[str]],
    new_bags: Sequence[Sequence[str]],
) -> BM25Index:
    """``field`` with the documents ``redone`` given new bags and ``new_bags`` appended."""
    vocabulary = dict(field.vocabulary)
    builder = BM25Builder()
    builder._ids.default_factory = count(len(vocabulary)).__next__
    builder._ids.update(vocabulary)
    for tokens in (*redone_bags, *new_bags):
        builder.add(tokens)
    incoming_docs = np.concatenate(
        [redone, field.corpus_size + np.arange(len(new_bags), dtype=np.int64)]
    )
    unique = np.frombuffer(builder._unique, dtype=np.intc)
    terms = np.frombuffer(builder._terms, dtype=np.intc).astype(np.int64)
    tfs = np.frombuffer(
        builder._tfs, dtype=np.uint16 if builder._tfs.itemsize == 2 else np.uint32
    ).astype(np.uint32)
    docs = np.repeat(incoming_docs, unique)
    lengths = np.frombuffer(builder._lengths, dtype=np.int64)
    size = len(builder._ids)
    old_docs, old_tfs, old_indptr = field._docs, field.term_frequencies(), field._indptr
    doc_len = np.concatenate([field.doc_len, lengths[len(redone) :]])
    if len(redone):
        doc_len[redone] = lengths[: len(redone)]
        kept = ~np.isin(old_docs, redone)
        removed = np.bincount(
            np.repeat(np.arange(len(old_indptr) - 1), np.diff(old_indptr))[~kept],
            minlength=len(old_indptr) - 1,
        )
        old_docs, old_tfs = old_docs[kept], old_tfs[kept]
        old_indptr = old_indptr - np.concatenate(([0], np.cumsum(removed)))
    ends = np.concatenate([old_indptr, np.full(size - len(old_indptr) + 1, old_indptr[-1])])
    # Each incoming posting goes after its term's old postings of lower documents: for the
    # new papers that is the end of the term's list, for a paper analysed again a search.
    at = ends[terms + 1].copy()
    for posting in np.flatnonzero(docs < field.corpus_size).tolist():
        term = terms[posting]
        start = ends[term]
        at[posting] = start + np.searchsorted(old_docs[start : ends[term + 1]], docs[posting])
    order = np.lexsort((docs, terms))
    merged_docs = np.insert(old_docs, at[order], docs[order].astype(old_docs.dtype))
    merged_tfs = np.insert(old_tfs, at[order], tfs[order])
    frequencies = np.diff(ends) + np.bincount(terms, minlength=size)
    indptr = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(frequencies, out=indptr[1:])
    builder._ids.default_factory = None
    return BM25Index.from_postings(
        builder._ids,
        indptr,
        merged_docs,
        merged_tfs,
        doc_len,
        k1=field.k1,
        b=field.b,
        epsilon=field.epsilon,
    )
