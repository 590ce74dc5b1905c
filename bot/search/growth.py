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

**When the old papers read differently, the merge is made under the old rules first.** The
analyzer's compound rules are corpus-wide (``CorpusAnalyzer``): a compound is split once any
paper hyphenates it, its words written apart count as the compound from the first two words
that begin one (``openings``), and only where the corpus writes it as one word often enough
(``apart``, from counts over every paper: ``indexing.apart_compounds``). New papers that add
or change a split or an opening, or move a compound in or out of ``apart``, change the tokens
of old papers, which the postings cannot say without reading those papers again. With real
papers that is most additions (one new hyphenated word is enough), and a rebuild takes
minutes at 250,000 papers, so the new papers would wait minutes to be found. Instead the new
papers are merged as read by the *old* rules (``Extension.settled`` false: every paper is
read by one set of rules, the scores are BM25's over those tokens, only a compound the new
papers teach is not yet joined), and the caller builds the index again in the background
(``settle``) and swaps it in: the rankings are then exactly a full build's. Additions that
leave the rules as they are (``settled`` true) are exact at once.

Costs of a merge grow with the postings (a few numpy passes), not with the text: at 250,000
papers an addition takes seconds where a rebuild takes minutes. What the index builds beside
the postings is extended too, from what the merge says of the new papers (``added``,
``chunks``): the typo corrector's words (``bot.search.spelling_words``) and map
(``SpellCorrector.extended``), the author index (``AuthorIndex.extended``), the id lookups.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, count

import numpy as np

from bot.papers.paper import Paper
from bot.search.analyzer import CompoundUses, CorpusAnalyzer
from bot.search.bm25 import BM25Builder, BM25Index
from bot.search.fielded import FieldedBM25
from bot.search.indexing import ChunkIndexer, apart_compounds, field_texts


@dataclass(frozen=True)
class Extension:
    """An index grown by some papers: ``settled`` when it is exactly a full build's, else
    merged under the old compound rules until ``settle`` builds it again."""

    analyzer: CorpusAnalyzer
    bm25: FieldedBM25
    settled: bool
    added: Counter[str]
    """How many of the new papers hold each token (in any field)."""
    chunks: dict[str, tuple[str, ...]]
    """The new papers' whitespace-delimited chunks, with their tokens."""


def extend_index(analyzer: CorpusAnalyzer, bm25: FieldedBM25, new: Sequence[Paper]) -> Extension:
    """The analyzer and BM25 index of the old papers + ``new``, given those of the old ones:
    merged, under the new rules where the new papers leave them as they were, else under the
    old ones (not ``settled``)."""
    texts = [field_texts(paper) for paper in new]
    grown, changed = analyzer.extended(chain.from_iterable(texts))
    analysed: dict[str, tuple[str, ...]] = {}
    uses = _counted(analyzer.uses, (grown.compound_uses(t, analysed) for t in chain(*texts)))
    changed = changed or apart_compounds(uses) != analyzer.apart
    reader = analyzer.copy() if changed else grown
    reader.uses = uses
    bags = [[reader.indexed_tokens(paper[n]) for paper in texts] for n in range(len(bm25.fields))]
    fields = [_merged(field, bags[number]) for number, field in enumerate(bm25.fields)]
    added = Counter(token for paper in zip(*bags, strict=True) for token in set().union(*paper))
    chunks = reader.forget_chunks()
    return Extension(reader, FieldedBM25(fields, bm25.weights), not changed, added, chunks)


def _counted(uses: CompoundUses, more: Iterable[CompoundUses]) -> CompoundUses:
    """``uses`` plus ``more``, counted in place in one copy: ``sum`` would copy the corpus's
    counts once per text added."""
    total = CompoundUses(Counter(uses.one_word), Counter(uses.apart))
    for text_uses in more:
        total.one_word.update(text_uses.one_word)
        total.apart.update(text_uses.apart)
    return total


def settle(papers: Sequence[Paper]) -> tuple[CorpusAnalyzer, FieldedBM25]:
    """The analyzer and BM25 index a full build over ``papers`` gives: what an unsettled
    ``Extension`` is replaced by."""
    return ChunkIndexer().index(papers)


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
