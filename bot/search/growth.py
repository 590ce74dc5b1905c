"""New papers without a rebuild: the BM25 index of a corpus plus some papers, equal to the one
a full build over all of them would give.

BM25's idf and average lengths are corpus-wide, so one paper more changes every score a
little; what an addition keeps is the expensive part, the postings. The merge, per field
(fields and their texts as ``bot.search.indexing`` builds them, ``field_texts``, with the
field's own k1 and b):

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

**When the old papers read differently, the whole index is rebuilt.** The analyzer's
compound rules are corpus-wide (``CorpusAnalyzer``): a compound is split once any paper
hyphenates it, its words written apart count as the compound from the first two words that
begin one (``openings``), and only where the corpus writes it as one word often enough
(``apart``, from counts over every paper: ``indexing.apart_compounds``). New papers that
add or change a split or an opening, or move a compound in or out of ``apart``, change the
tokens of old papers, which the postings cannot say without reading those papers again. Then
``extend_index`` simply builds the index of all the papers again (``ChunkIndexer``), which,
like any addition, runs beside the index that answers and is swapped in when done
(``bot.search.library.Library.add``). Additions that leave the rules as they are (most, once
a corpus is large: its compounds are known) take the merge above.

Costs of a merge grow with the postings (a few numpy passes), not with the text: at 250,000
papers an addition takes seconds where a rebuild takes minutes.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, count

import numpy as np

from bot.papers.paper import Paper
from bot.search.analyzer import CorpusAnalyzer
from bot.search.bm25 import BM25Builder, BM25Index
from bot.search.fielded import FieldedBM25
from bot.search.indexing import ChunkIndexer, apart_compounds, field_texts


def extend_index(
    analyzer: CorpusAnalyzer, bm25: FieldedBM25, old: Sequence[Paper], new: Sequence[Paper]
) -> tuple[CorpusAnalyzer, FieldedBM25]:
    """The analyzer and BM25 index of ``old`` + ``new``, given those of ``old``: merged, or
    built again where the new papers change the compound rules."""
    texts = [field_texts(paper) for paper in new]
    grown, changed = analyzer.extended(chain.from_iterable(texts))
    if not changed:
        uses = sum((grown.compound_uses(text) for text in chain(*texts)), analyzer.uses)
        changed = apart_compounds(uses) != analyzer.apart
        grown.uses = uses
    if changed:
        return ChunkIndexer().index((*old, *new))
    fields = [
        _merged(field, [grown.indexed_tokens(paper[number]) for paper in texts])
        for number, field in enumerate(bm25.fields)
    ]
    grown.forget_chunks()
    return grown, FieldedBM25(fields, bm25.weights)


def _merged(field: BM25Index, new_bags: Sequence[Sequence[str]]) -> BM25Index:
    """``field`` with documents of ``new_bags`` appended."""
    vocabulary = dict(field.vocabulary)
    builder = BM25Builder()
    builder._ids.default_factory = count(len(vocabulary)).__next__
    builder._ids.update(vocabulary)
    for tokens in new_bags:
        builder.add(tokens)
    unique = np.frombuffer(builder._unique, dtype=np.intc)
    terms = np.frombuffer(builder._terms, dtype=np.intc).astype(np.int64)
    tfs = np.frombuffer(
        builder._tfs, dtype=np.uint16 if builder._tfs.itemsize == 2 else np.uint32
    ).astype(np.uint32)
    docs = np.repeat(field.corpus_size + np.arange(len(new_bags), dtype=np.int64), unique)
    lengths = np.frombuffer(builder._lengths, dtype=np.int64)
    size = len(builder._ids)
    old_docs, old_tfs, old_indptr = field._docs, field.term_frequencies(), field._indptr
    doc_len = np.concatenate([field.doc_len, lengths])
    ends = np.concatenate([old_indptr, np.full(size - len(old_indptr) + 1, old_indptr[-1])])
    # Each new posting goes at the end of its term's old postings, in document order.
    order = np.lexsort((docs, terms))
    at = ends[terms + 1]
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
