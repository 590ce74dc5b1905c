"""The semantic re-ranking of BM25's best candidates.

BM25 finds papers that share the query's words; a sentence vector knows that "follow
instructions" and "instruction adherence" mean the same. Dense retrieval alone ranks the
catalogue worse than BM25, so it does not rank on its own: BM25's ``RERANK_DEPTH`` best,
joined by the ``NEAREST_CANDIDATES`` matching papers nearest to the query's vector, are
re-scored and the rest keep BM25's order. The nearest papers are there for the question whose
paper BM25 ranks beyond its best 100 because it says the same thing in other words; they must
still match the query (share a word with it and pass its filters), so the hit count and the
bolded words stay true.

The re-score compares like with like (declared in ``bench/round4.md`` before it was
measured). A paper's evidence is the cosine of its text vector (title and abstract) when it
has an abstract, of its title vector when it has none, each standardised against the same
kind of cosine among the candidates: a bare title sits closer to a short query than a whole
abstract does, and would otherwise win for being short. BM25's scores are standardised too,
and ``beta * z(BM25) + (1 - beta) * share * evidence`` orders the candidates: a query whose
rare words single out one paper puts it standard deviations ahead, while a query of common
words leaves BM25 flat for the model to decide. When the model is asked, with what share and
``beta``, is one rule: ``bot.search.model_rule``.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import threadpoolctl

from bot.papers.paper import Paper
from bot.search.built_once import built_once
from bot.search.embedding import DIMENSIONS, Embedder, ModelError
from bot.search.lexicon import share_lexicon
from bot.search.model_rule import ModelSay
from bot.search.model_weights import MODEL_DIR
from bot.search.nearest import APPROXIMATE_FROM, NearestIndex
from bot.search.query_vectors import QueryVectors, Quiet
from bot.search.vectors import (
    StoredVectors,
    embed_missing,
    embedding_text,
    empty_vectors,
    read_vectors,
    text_key,
    vectors_path,
    write_vectors,
)

logger = logging.getLogger(__name__)

RERANK_DEPTH = 100
# Declared with the held-out round of blind queries before it was measured (bench/README.md).
NEAREST_CANDIDATES = 20
_RECENT_QUERIES = 512  # query vectors kept (1.5 KB each)
_PROGRESS_EVERY = 60.0  # seconds between progress lines while embedding in the background
# Past APPROXIMATE_FROM papers: papers the index is asked for per nearest candidate wanted
# (their exact cosines then pick the best), the matching papers below which every one is
# compared exactly, and how many of them give the mean and spread their evidence is
# standardised with (the mean of 512 is within 0.1 of a spread of it, 19 times in 20).
_SHORTLIST = 2
_EXACT_POOL = 1_024
_SPREAD_SAMPLE = 512


@dataclass(frozen=True)
class Reranked:
    """Candidates in their new order, with the mixed score and the parts it was mixed from
    (``cosine`` is the cosine the evidence was made of, NaN for a paper with no vector
    yet)."""

    docs: np.ndarray
    scores: np.ndarray
    bm25: np.ndarray
    cosine: np.ndarray


def standardised(values: np.ndarray, against: np.ndarray | None = None) -> np.ndarray:
    """z-scores of the known (non-NaN) values by the mean and spread of the known values of
    ``against`` (by default, of ``values`` themselves); NaN stays NaN, and values that do
    not vary score 0, the mean, so they neither lift nor sink a paper."""
    against = values if against is None else against
    known, reference = ~np.isnan(values), against[~np.isnan(against)]
    if len(reference) < 2:
        return np.where(known, 0.0, np.nan)
    spread = float(reference.std())
    if spread == 0.0:
        return np.where(known, 0.0, np.nan)
    return (values - float(reference.mean())) / spread


def mix(bm25: np.ndarray, evidence: np.ndarray, say: ModelSay) -> np.ndarray:
    """``beta * z(bm25) + (1 - beta) * evidence``; a paper without evidence (no vector
    yet) counts as the candidates' mean, so it places by its BM25 score alone."""
    return say.beta * standardised(bm25) + (1 - say.beta) * np.nan_to_num(evidence, nan=0.0)


@dataclass(frozen=True)
class QueryCosines:
    """One query's cosines, paper by paper: ``title`` with its title's vector, ``text`` with
    its text's where it has an abstract; NaN where there is none, no vector yet, or the
    paper was not asked about. In a corpus of ``APPROXIMATE_FROM`` papers or more they are
    computed as they are needed: ``pending`` says which are still to compute for
    ``vector``."""

    title: np.ndarray
    text: np.ndarray
    vector: np.ndarray
    pending: np.ndarray | None = None


class SemanticRanker:
    """The model, and for every paper of a corpus (in the index's paper order) its title's
    vector and, when it has an abstract, its text's."""

    def __init__(
        self,
        embedder: Embedder,
        papers: Sequence[Paper],
        stored: StoredVectors,
        path: Path | None,
    ) -> None:
        self._embedder = embedder
        self._papers = papers
        self._path = path
        self._has_abstract = np.array([bool(paper.plain_abstract) for paper in papers], bool)
        # A title-only paper's text is its title: one key, one vector, in both tables.
        self._text = _VectorTable([text_key(embedding_text(paper)) for paper in papers])
        self._title = _VectorTable([text_key(paper.title) for paper in papers])
        rows = stored.rows()
        self._text.load(rows, stored.vectors)
        self._title.load(rows, stored.vectors)
        # Kept only to be saved again with the vectors ``fill_missing`` adds.
        self._stored = stored if self.missing else empty_vectors(stored.model, DIMENSIONS)
        self._fill_lock = threading.Lock()
        self._recent = QueryVectors(embedder, _RECENT_QUERIES)
        self._nearest_from(None)

    def extended(
        self, papers: Sequence[Paper], vectors: Sequence[np.ndarray | None] = ()
    ) -> SemanticRanker:
        """The ranker of this corpus plus ``papers``, their text vectors given where known
        (a paper without an abstract: its title's); the rest, and their title vectors, are
        embedded by ``fill_missing``. Its vectors are not saved beside the corpus file: new
        papers come from the store, which keeps theirs (``Library.add``)."""
        grown = SemanticRanker.__new__(SemanticRanker)
        grown._embedder = self._embedder
        grown._papers = self._papers + tuple(papers)  # saved papers stay unread
        grown._path = None
        grown._has_abstract = np.concatenate(
            [self._has_abstract, np.array([bool(p.plain_abstract) for p in papers], bool)]
        )
        grown._text = self._text.extended([text_key(embedding_text(p)) for p in papers])
        grown._title = self._title.extended([text_key(p.title) for p in papers])
        for paper, vector in zip(papers, vectors, strict=False):
            if vector is not None:
                grown._text.fill(text_key(embedding_text(paper)), vector)
                if not paper.plain_abstract:
                    grown._title.fill(text_key(paper.title), vector)
        grown._stored = empty_vectors(self._stored.model, DIMENSIONS)
        grown._fill_lock = threading.Lock()
        grown._recent = self._recent
        index = self._nearest_index
        if index is not None:
            index = index.caught_up(grown._text.vectors, grown._text.ready)
        grown._nearest_from(index)
        return grown

    def _nearest_from(self, index: NearestIndex | None) -> None:
        """The nearest-candidates index to start from (None: not built yet) and its locks, set
        here by every way of making a ranker (built, grown, opened), so that none lacks them."""
        self._nearest_index = index
        self._index_lock = threading.Lock()  # held while the index is built
        self._start_lock = threading.Lock()
        self._index_started = index is not None

    def tables(self) -> dict[str, np.ndarray]:
        """The vectors and what they belong to, as arrays, for ``bot.search.snapshot`` to save
        and ``opened`` to take back."""
        return {
            "has_abstract": self._has_abstract,
            **{f"text.{name}": array for name, array in self._text.arrays().items()},
            **{f"title.{name}": array for name, array in self._title.arrays().items()},
        }

    @classmethod
    def opened(
        cls,
        embedder: Embedder,
        papers: Sequence[Paper],
        tables: dict[str, np.ndarray],
        path: Path | None,
        nearest: NearestIndex | None = None,
    ) -> SemanticRanker:
        """The ranker over ``papers`` whose ``tables`` were saved (memory-mapped: the vectors
        stay in the page cache every process shares, a page copied only if a vector missing
        when they were saved is filled in), with the ``nearest`` index saved beside them
        (mapped too; None: built as a built ranker builds it). The vectors stored at
        ``path`` are read only when some are missing, to be saved again with those
        ``fill_missing`` adds."""
        ranker = cls.__new__(cls)
        ranker._embedder = embedder
        ranker._papers = papers
        ranker._path = path
        ranker._has_abstract = tables["has_abstract"]
        ranker._text = _VectorTable.of_arrays(tables, "text.")
        ranker._title = _VectorTable.of_arrays(tables, "title.")
        model = embedder.fingerprint
        stored = read_vectors(path, model) if path is not None and ranker.missing else None
        ranker._stored = stored or empty_vectors(model, DIMENSIONS)
        ranker._fill_lock = threading.Lock()
        ranker._recent = QueryVectors(embedder, _RECENT_QUERIES)
        ranker._nearest_from(nearest)
        return ranker

    def nearest_to_save(self) -> NearestIndex | None:
        """The nearest-candidates index of an ``approximate`` corpus, built now if it was
        not yet, for ``bot.search.snapshot`` to save; None in a smaller corpus."""
        if not self.approximate:
            return None
        self.prepare_nearest()
        return self._nearest_index

    @property
    def model(self) -> str:
        """The model's fingerprint: which stored vectors this ranker may take."""
        return self._stored.model

    @property
    def missing(self) -> int:
        """Papers still without their vectors."""
        ready = self._text.ready & self._title.ready
        return int(len(ready) - np.count_nonzero(ready))

    def embed(self, text: str) -> np.ndarray:
        """The vector of a query or message; paging through its results ("Next 5",
        ``@paperbot more``) asks again for the same text, so recent ones are kept."""
        return self._recent.vector(text)

    def run_alone_when(self, quiet: Quiet) -> None:
        """Let a query that finds nothing else waiting for the model run on both cores
        while ``quiet()`` and no papers are being embedded (``fill_missing``'s batches need
        the CPU as much as the listeners do)."""
        try:
            self._embedder.open_lone_session()
        except ModelError as error:
            logger.warning("semantic: every query on one thread: %s", error)
            return
        self._recent.run_alone_when(lambda: not self._fill_lock.locked() and quiet())

    def paper_vector(self, doc: int) -> np.ndarray | None:
        """The vector of a paper's text (its title when it has no abstract)."""
        return self._text.vectors[doc].astype(np.float32) if self._text.ready[doc] else None

    @property
    def approximate(self) -> bool:
        """Whether the nearest papers are found by an index rather than compared with
        every paper (``bot.search.nearest``)."""
        return len(self._has_abstract) >= APPROXIMATE_FROM

    def cosines(self, vector: np.ndarray, docs: np.ndarray) -> QueryCosines:
        """The cosines with ``vector`` of the papers ``docs``: one product with each table,
        which the candidates nearest to the query and the re-ranked head then share. Papers
        not asked about may be left NaN. In a corpus large enough to be ``approximate``,
        only those the candidates and the head need are computed, when they need them."""
        if self.approximate:
            size = len(self._has_abstract)
            nothing = np.full(size, np.nan, dtype=np.float32)
            return QueryCosines(nothing, nothing.copy(), vector, np.ones(size, dtype=bool))
        title = self._title.cosines(vector, docs)
        text = np.where(self._has_abstract, self._text.cosines(vector, docs), np.nan)
        return QueryCosines(title, text, vector)

    def _computed(self, cosines: QueryCosines, docs: np.ndarray) -> None:
        """Compute the cosines of ``docs`` still pending, from the rows of each table."""
        if cosines.pending is None:
            return
        todo = docs[cosines.pending[docs]]
        if len(todo):
            cosines.title[todo] = self._title.cosines_of(cosines.vector, todo)
            text = self._text.cosines_of(cosines.vector, todo)
            cosines.text[todo] = np.where(self._has_abstract[todo], text, np.nan)
            cosines.pending[todo] = False

    def evidence(
        self, cosines: QueryCosines, docs: np.ndarray, against: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """For the papers ``docs``: how near each is to the query against papers of its
        kind (the z-score of its text cosine among those with an abstract, of its title
        cosine among all of them), and the cosine that was made of; NaN where a paper has
        no vector yet. The mean and spread are those of the papers ``against`` (by default,
        ``docs`` themselves)."""
        self._computed(cosines, docs)
        title, text = cosines.title[docs], cosines.text[docs]
        if against is not None:
            self._computed(cosines, against)
        others = (
            (title, text) if against is None else (cosines.title[against], cosines.text[against])
        )
        by_text = ~np.isnan(text)
        return (
            np.where(by_text, standardised(text, others[1]), standardised(title, others[0])),
            np.where(by_text, text, title),
        )

    def nearest(
        self, cosines: QueryCosines, among: np.ndarray, k: int, tiebreak: np.ndarray
    ) -> np.ndarray:
        """The ``k`` papers of the mask ``among`` (that have a vector) nearest to the query
        by the same evidence as the mix, nearest first; ties go by ``tiebreak``, as in every
        other ranking. In an ``approximate`` corpus, when more than a few papers match, the
        index finds those it compares (``_approximately_nearest``)."""
        docs = np.flatnonzero(among & (self._text.ready | self._title.ready))
        if cosines.pending is not None and len(docs) > _EXACT_POOL:
            return self._approximately_nearest(cosines, docs, among, k, tiebreak)
        near, _ = self.evidence(cosines, docs)
        if len(docs) > k > 0:
            kth = np.partition(near, len(docs) - k)[len(docs) - k]
            keep = near >= kth  # ties at the cut included, for the tiebreak to settle
            docs, near = docs[keep], near[keep]
        return docs[np.lexsort((tiebreak[docs], -near))][:k]

    def _approximately_nearest(
        self,
        cosines: QueryCosines,
        docs: np.ndarray,
        among: np.ndarray,
        k: int,
        tiebreak: np.ndarray,
    ) -> np.ndarray:
        """``nearest`` among the candidates the index finds: those of each kind (with an
        abstract, by their text vector; without, by their title's, which is their text
        row) nearest to the query, and every paper added since the index was built. Their
        evidence is standardised against an even sample of the papers ``docs``, which only
        matters when both kinds are among them. Until the index is built (in the background,
        started here if nothing started it), the papers it would find are left out."""
        index = self._nearest_index
        if index is None:
            self._build_index_in_background()
            return np.zeros(0, dtype=np.intp)
        ready = among & self._text.ready
        found = [index.tail(ready)]
        for kind in (self._has_abstract, ~self._has_abstract):
            found.append(index.search(cosines.vector, ready & kind, _SHORTLIST * k))
        candidates = np.unique(np.concatenate(found))
        both_kinds = 0 < np.count_nonzero(self._has_abstract[candidates]) < len(candidates)
        sample = docs[:: -(-len(docs) // _SPREAD_SAMPLE)] if both_kinds else None
        near, _ = self.evidence(cosines, candidates, sample)
        return candidates[np.lexsort((tiebreak[candidates], -near))][:k]

    def prepare_nearest(self) -> None:
        """Build the index that finds the nearest papers of an ``approximate`` corpus, or
        add to it the papers it lacks (under a minute at 1,000,000 papers on one core, a
        second at 100,000: ``bench/results/semantic_scale.md``). Searches go on meanwhile."""
        if not self.approximate:
            return
        with self._start_lock:
            self._index_started = True
        with self._index_lock:
            index = self._nearest_index
            if index is None:
                started = time.monotonic()
                logger.info("semantic: indexing %d vectors to find the nearest", len(self._papers))
                index = NearestIndex.build(self._text.vectors, self._text.ready)
                logger.info("semantic: indexed them in %.0f s", time.monotonic() - started)
            self._nearest_index = index.caught_up(self._text.vectors, self._text.ready)

    def _build_index_in_background(self) -> None:
        with self._start_lock:
            if self._index_started:
                return
            self._index_started = True
        threading.Thread(target=self.prepare_nearest, name="nearest-index", daemon=True).start()

    def rerank(
        self,
        docs: np.ndarray,
        bm25: np.ndarray,
        cosines: QueryCosines,
        say: ModelSay,
        tiebreak: np.ndarray,
        ahead: np.ndarray | None = None,
    ) -> Reranked:
        """Re-order the candidates ``docs``, whose BM25 scores are ``bm25``, by the mix
        ``say`` weighs; ties go by ``tiebreak``. The candidates flagged in ``ahead`` come
        before the others, each group in the mix's order: what the model cannot judge (an
        author's name) but the query asked for stays first."""
        evidence, cosine = self.evidence(cosines, docs)
        mixed = mix(bm25, evidence, say)
        behind = np.zeros(len(docs), dtype=bool) if ahead is None else ~ahead
        order = np.lexsort((tiebreak[docs], -mixed, behind))
        return Reranked(docs[order], mixed[order], bm25[order], cosine[order])

    def fill_missing(self) -> None:
        """Embed the titles and texts without a vector, then save them beside the corpus so
        a restart need not embed them again. Slow (a model run per text): run in the
        background; those papers rank by BM25 alone until their vectors are in. Then, in a
        large corpus, index the vectors to find the nearest (``prepare_nearest``)."""
        self._fill_missing()
        self.prepare_nearest()

    def _fill_missing(self) -> None:
        with self._fill_lock:
            texts = {
                **self._text.missing_texts(lambda doc: embedding_text(self._papers[doc])),
                **self._title.missing_texts(lambda doc: self._papers[doc].title),
            }
            if not texts:
                return
            logger.info("semantic: embedding %d texts that have no stored vector", len(texts))
            started = time.monotonic()

            def ready(key: int, vector: np.ndarray) -> None:
                self._text.fill(key, vector)
                self._title.fill(key, vector)

            self._stored, _ = embed_missing(
                self._stored, texts, self._embedder.embed, each=_logged_progress, done=ready
            )
            logger.info(
                "semantic: embedded %d texts in %.0f s", len(texts), time.monotonic() - started
            )
            if self._path is None:
                return
            try:
                write_vectors(self._path, self._stored)
            except OSError as error:
                logger.warning("semantic: cannot save vectors to %s (%s)", self._path, error)
            else:
                logger.info("semantic: saved the vectors to %s", self._path)


_PRODUCT_ROWS = 1 << 14  # rows widened to float32 at a time for a product with every row


class _VectorTable:
    """One vector per paper, found by the key of the text it is made of; the table fills
    as vectors are stored or embedded.

    Held as float16, as they are stored (2 bytes a number where float32 took 4: 768 bytes a
    vector): every stored vector is a float16 already, so widening rows to float32 for each
    product gives the very numbers, and the very cosines, a float32 table gave. Only a
    vector embedded while the bot runs is rounded to float16 here, as saving it rounds it.

    The keys are an array (memory-mapped from a snapshot: shared by every process), and the
    papers of a key are found through their sort order, built when a vector is first filled
    in: a list of keys and a dict of a list per key cost each process 39 MB at 100,000
    papers (about ten times that at 1,000,000), for lookups a fully embedded corpus never
    makes."""

    def __init__(self, keys: Sequence[int]) -> None:
        self._keys = np.fromiter(keys, dtype=np.uint64, count=len(keys))
        self.vectors = np.zeros((len(keys), DIMENSIONS), dtype=np.float16)
        self.ready = np.zeros(len(keys), dtype=bool)

    def arrays(self) -> dict[str, np.ndarray]:
        return {"keys": self._keys, "vectors": self.vectors, "ready": self.ready}

    @classmethod
    def of_arrays(cls, arrays: dict[str, np.ndarray], prefix: str) -> _VectorTable:
        """The table ``arrays`` holds under ``prefix`` (as ``arrays`` gave them)."""
        table = cls.__new__(cls)
        table._keys = arrays[f"{prefix}keys"]
        table.vectors = arrays[f"{prefix}vectors"]
        table.ready = arrays[f"{prefix}ready"]
        return table

    @built_once
    def _order(self) -> np.ndarray:
        """The papers in the order of their keys (papers of one key in their own order)."""
        return np.argsort(self._keys, kind="stable")

    def _docs_of(self, key: int) -> np.ndarray:
        """The papers whose text has ``key``, first to last."""
        probe = np.array([key], dtype=np.uint64)
        first, end = (
            np.searchsorted(self._keys, probe, side, sorter=self._order)[0]
            for side in ("left", "right")
        )
        return self._order[first:end]

    def extended(self, keys: Sequence[int]) -> _VectorTable:
        """This table with rows for ``keys`` after its own, empty until filled (a key this
        table has ready is filled at once)."""
        added = np.fromiter(keys, dtype=np.uint64, count=len(keys))
        grown = _VectorTable.__new__(_VectorTable)
        grown._keys = np.concatenate([self._keys, added])
        grown.vectors = np.concatenate(
            [self.vectors, np.zeros((len(keys), self.vectors.shape[1]), self.vectors.dtype)]
        )
        grown.ready = np.concatenate([self.ready, np.zeros(len(keys), dtype=bool)])
        if len(self._keys) and len(added):
            at = np.searchsorted(self._keys, added, sorter=self._order)
            first = self._order[np.minimum(at, len(self._keys) - 1)]  # a key's first paper
            known = (self._keys[first] == added) & self.ready[first]
            rows = len(self._keys) + np.flatnonzero(known)
            grown.vectors[rows] = self.vectors[first[known]]
            grown.ready[rows] = True
        return grown

    def load(self, rows: dict[int, int], stored: np.ndarray) -> None:
        found = [(doc, rows[key]) for doc, key in enumerate(self._keys.tolist()) if key in rows]
        if found:
            docs, at = (np.array(column) for column in zip(*found, strict=True))
            self.vectors[docs] = stored[at]
            self.ready[docs] = True

    def missing_texts(self, text_of: Callable[[int], str]) -> dict[int, str]:
        """Key → text of every vector still missing."""
        missing = np.flatnonzero(~self.ready)
        keys = self._keys[missing].tolist()
        return {key: text_of(doc) for doc, key in zip(missing.tolist(), keys, strict=True)}

    def fill(self, key: int, vector: np.ndarray) -> None:
        docs = self._docs_of(key)
        self.vectors[docs] = vector
        self.ready[docs] = True

    def cosines(self, vector: np.ndarray, docs: np.ndarray) -> np.ndarray:
        """Each paper's cosine with ``vector``, NaN where a paper has no vector yet. Only
        ``docs`` are sure to be computed: when they are few, copying their rows costs less
        than a product with every row, and the others are left NaN."""
        kind = np.result_type(np.float32, vector.dtype)  # a float32 table's product's
        if 4 * len(docs) >= len(self.ready):
            products = np.empty(len(self.ready), dtype=kind)
            for start in range(0, len(self.ready), _PRODUCT_ROWS):
                rows = self.vectors[start : start + _PRODUCT_ROWS].astype(np.float32)
                products[start : start + _PRODUCT_ROWS] = rows @ vector
            return np.where(self.ready, products, np.nan)
        products = np.full(len(self.ready), np.nan, dtype=np.float32)  # as it always was
        products[docs] = self.vectors[docs].astype(np.float32) @ vector
        return np.where(self.ready, products, np.nan)

    def cosines_of(self, vector: np.ndarray, docs: np.ndarray) -> np.ndarray:
        """The cosines of the papers ``docs`` alone, NaN where one has no vector yet."""
        products = self.vectors[docs].astype(np.float32) @ vector
        return np.where(self.ready[docs], products, np.nan)


def _logged_progress(keys: list[int]) -> Iterator[int]:
    """The keys, with a log line now and then: a background fill can take many minutes."""
    last_report = time.monotonic()
    for done, key in enumerate(keys, start=1):
        yield key
        if time.monotonic() - last_report >= _PROGRESS_EVERY:
            last_report = time.monotonic()
            logger.info("semantic: embedded %d of %d papers", done, len(keys))


_weights_home: Path | None = None


def share_host_files(index_dir: Path | None) -> None:
    """Keep the model's float32 weights in a file under ``index_dir`` (``PAPERBOT_INDEX_DIR``)
    that every process of the host maps (``bot.search.model_weights``), and the English
    lexicon too (``bot.search.lexicon.share_lexicon``: a process with the model off needs
    it as much); None keeps them in this process's memory. Called at start-up, before
    ``shared_embedder`` opens the model, which stays as it was opened."""
    global _weights_home
    _weights_home = None if index_dir is None else index_dir / MODEL_DIR
    share_lexicon(index_dir)


@functools.cache
def shared_embedder() -> Embedder:
    """The process's one model (its sessions take a third of a second each to open, and
    serve any number of threads)."""
    return Embedder(weights_home=_weights_home)


def ranker_for(corpus: str) -> Callable[[Sequence[Paper]], SemanticRanker | None]:
    """What ``SearchIndex.build`` takes to re-rank the papers of the corpus spec ``corpus``
    with the vectors stored for it."""
    return functools.partial(load_ranker, path=vectors_path(corpus))


def one_blas_thread() -> None:
    """Keep numpy's products (the cosines, For you's scores) on the thread that asks for
    them. Its BLAS would run a product on two threads, whose second then spins for a while
    on the core the model's lone-query session needs: a question's search took 14.8 ms at
    p50 that way, against 11.6 with one BLAS thread, and twice the CPU (30.1 against 19.0
    ms; ``bench/semantic.py``'s measure, the same machine, one after the other)."""
    threadpoolctl.threadpool_limits(limits=1, user_api="blas")


def load_ranker(
    papers: Sequence[Paper], path: Path, embedder: Callable[[], Embedder] | None = None
) -> SemanticRanker | None:
    """The ranker over ``papers`` with the vectors stored at ``path`` for the model
    ``embedder`` makes (None: the bot's own, ``shared_embedder``; ``bench/models.py``
    measures candidate models in its place); None, said in one log line, when the model
    cannot run (the bot then ranks by BM25 alone)."""
    try:
        model = (embedder or shared_embedder)()
    except ModelError as error:
        logger.warning("semantic: off, ranking by BM25 alone: %s", error)
        return None
    one_blas_thread()
    stored = read_vectors(path, model.fingerprint) or empty_vectors(model.fingerprint, DIMENSIONS)
    ranker = SemanticRanker(model, papers, stored, path)
    if ranker.missing:
        logger.info(
            "semantic: %d of %d papers have no stored vector in %s; they rank by BM25 alone "
            "until they are embedded (a running bot does so in the background; "
            "`python -m bot embed --corpus` does so ahead of time)",
            ranker.missing,
            len(papers),
            path,
        )
    return ranker
