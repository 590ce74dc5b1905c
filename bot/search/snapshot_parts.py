"""How each part of an index is written to a snapshot and opened from it (``bot.search.snapshot``
says what a snapshot is; ``bot.search.saved_papers`` writes and reads the papers): arrays as
they are, memory-mapped when opened; the tables looked up by a word or an id (vocabularies,
the author index's words, the papers' ids) as ``bot.search.mapped`` tables over such arrays;
the few other Python structures (the analyzer's compound rules, the acronyms) as JSON."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import astuple
from typing import Any

import numpy as np

from bot.papers.paper import Paper
from bot.search.analyzer import CompoundUses, CorpusAnalyzer
from bot.search.authors import AuthorIndex
from bot.search.bm25 import BM25Index
from bot.search.defined_acronyms import Acronym
from bot.search.fielded import FieldedBM25
from bot.search.mapped import MappedSlices, MappedStrings, MappedTable
from bot.search.saved_papers import IdLookups, id_lookups, lookup_keys
from bot.search.snapshot_files import SnapshotReader, SnapshotWriter
from bot.search.spelling import DeletionMap, SpellCorrector


def write_table(out: SnapshotWriter, name: str, mapping: Mapping[str, int]) -> None:
    """A ``str`` → ``int`` mapping as the arrays of a ``MappedTable``, its order kept."""
    for part, array in MappedTable.arrays(mapping).items():
        out.array(f"{name}.{part}", array)


def open_table(snapshot: SnapshotReader, name: str) -> MappedTable:
    """A table ``write_table`` saved, read from its memory-mapped arrays: the pages every
    process on the host shares, where a dict would be each process's own."""
    return MappedTable(**{part: snapshot.array(f"{name}.{part}") for part in MappedTable.PARTS})


def write_strings(out: SnapshotWriter, name: str, strings: Iterable[str]) -> None:
    for part, array in MappedStrings.arrays(strings).items():
        out.array(f"{name}.{part}", array)


def open_strings(snapshot: SnapshotReader, name: str) -> MappedStrings:
    return MappedStrings(*(snapshot.array(f"{name}.{part}") for part in MappedStrings.PARTS))


def _write_field(out: SnapshotWriter, prefix: str, field: BM25Index) -> dict[str, Any]:
    write_table(out, f"{prefix}vocabulary", field.vocabulary)
    dense = sorted(field._dense_codes)
    codes = [field._dense_codes[term] for term in dense]
    out.array(f"{prefix}dense_terms", np.array(dense, dtype=np.int64))
    out.array(
        f"{prefix}dense_codes",
        np.stack(codes) if codes else np.zeros((0, field.corpus_size), dtype=np.uint16),
    )
    for name in ("doc_len", "idf", "_indptr", "_docs", "_codes", "_ratio"):
        out.array(prefix + name.lstrip("_"), getattr(field, name))
    return {
        "k1": field.k1,
        "b": field.b,
        "epsilon": field.epsilon,
        "avgdl": field.avgdl,
        "average_idf": field.average_idf,
        "idf_positive": field.idf_positive,
    }


def _open_field(snapshot: SnapshotReader, prefix: str, meta: dict[str, Any]) -> BM25Index:
    """The field as ``BM25Builder.build`` left it, its arrays memory-mapped."""
    field = BM25Index.__new__(BM25Index)
    field.k1, field.b, field.epsilon = meta["k1"], meta["b"], meta["epsilon"]
    field.vocabulary = open_table(snapshot, f"{prefix}vocabulary")
    field.doc_len = snapshot.array(f"{prefix}doc_len")
    field.corpus_size = len(field.doc_len)
    field.avgdl = meta["avgdl"]
    field.idf = snapshot.array(f"{prefix}idf")
    field.average_idf = meta["average_idf"]
    field.idf_positive = meta["idf_positive"]
    field._indptr = snapshot.array(f"{prefix}indptr")
    field._docs = snapshot.array(f"{prefix}docs")
    field._codes = snapshot.array(f"{prefix}codes")
    field._ratio = snapshot.array(f"{prefix}ratio")
    if len(field.vocabulary) != len(field._indptr) - 1:
        raise ValueError(f"{prefix}vocabulary and {prefix}indptr differ in terms")
    dense_codes = snapshot.array(f"{prefix}dense_codes")
    dense_terms = snapshot.array(f"{prefix}dense_terms").tolist()
    field._dense_codes = {term: dense_codes[row] for row, term in enumerate(dense_terms)}
    return field


class SavedChunks(dict[str, list[str]]):
    """The analyzer's map from a token to the chunks written with it (highlighting and
    spelling read it; see ``CorpusAnalyzer.index_chunk``), opened from a snapshot: the saved
    chunks are read from the memory-mapped arrays when a token is asked for, and the chunks
    of papers added since are held in the dict itself, which is what ``setdefault`` (the only
    way the analyzer adds to it) reaches. ``get`` gives both."""

    def __init__(
        self,
        vocabulary: Mapping[str, int],
        starts: np.ndarray,
        numbers: np.ndarray,
        text: np.ndarray,
        offsets: np.ndarray,
        others: dict[str, list[str]],
    ) -> None:
        super().__init__()
        self._vocabulary = vocabulary  # the text field's: every token of a chunk is in it
        self._starts, self._numbers = starts, numbers
        self._text, self._offsets = text, offsets
        self._others = others  # tokens outside that vocabulary: none unless the rules change

    def _saved(self, token: str) -> list[str]:
        term = self._vocabulary.get(token)
        if term is None:
            return self._others.get(token, [])
        start, end = int(self._starts[term]), int(self._starts[term + 1])
        bounds = self._offsets
        return [
            self._text[bounds[n] : bounds[n + 1]].tobytes().decode("utf-8")
            for n in self._numbers[start:end].tolist()
        ]

    def tokens(self) -> list[str]:
        """Every token with chunks, saved or added."""
        starts = np.asarray(self._starts)
        held = [t for t, term in self._vocabulary.items() if starts[term + 1] > starts[term]]
        return list(dict.fromkeys([*held, *self._others, *self]))

    def get(self, token: str, default: Any = None) -> Any:  # type: ignore[override]
        saved, added = self._saved(token), super().get(token)
        if not saved:
            return default if added is None else added
        return saved if added is None else saved + added


def _write_chunks(out: SnapshotWriter, analyzer: CorpusAnalyzer, text: BM25Index) -> None:
    by_token = analyzer._chunks_by_token
    numbers: dict[str, int] = {}
    starts = np.zeros(len(text.vocabulary) + 1, dtype=np.int64)
    held: list[list[int]] = [[] for _ in range(len(text.vocabulary))]
    others: dict[str, list[str]] = {}
    for token in by_token.tokens() if isinstance(by_token, SavedChunks) else list(by_token):
        chunks = by_token.get(token) or []
        term = text.vocabulary.get(token)
        if term is None:
            others[token] = list(chunks)
            continue
        held[term] = [numbers.setdefault(chunk, len(numbers)) for chunk in chunks]
    np.cumsum([len(chunks) for chunks in held], out=starts[1:])
    encoded = [chunk.encode("utf-8") for chunk in numbers]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(chunk) for chunk in encoded], out=offsets[1:])
    out.array("chunks.starts", starts)
    out.array("chunks.numbers", np.fromiter((n for h in held for n in h), dtype=np.int32))
    out.array("chunks.text", np.frombuffer(b"".join(encoded), dtype=np.uint8))
    out.array("chunks.offsets", offsets)
    out.json("chunks.others", others)


def _analyzer_state(analyzer: CorpusAnalyzer) -> dict[str, Any]:
    return {
        "splits": {joined: list(parts) for joined, parts in analyzer.splits.items()},
        "openings": [[*opening, most] for opening, most in analyzer.openings.items()],
        "split_from": analyzer._split_from,
        "apart": None if analyzer.apart is None else sorted(analyzer.apart),
        "one_word": dict(analyzer.uses.one_word),
        "written_apart": dict(analyzer.uses.apart),
    }


def open_analyzer(snapshot: SnapshotReader, text: BM25Index) -> CorpusAnalyzer:
    state = snapshot.json("analyzer")
    chunks = SavedChunks(
        text.vocabulary,
        snapshot.array("chunks.starts"),
        snapshot.array("chunks.numbers"),
        snapshot.array("chunks.text"),
        snapshot.array("chunks.offsets"),
        snapshot.json("chunks.others"),
    )
    analyzer = CorpusAnalyzer(
        {joined: tuple(parts) for joined, parts in state["splits"].items()},
        {(first, second): most for first, second, most in state["openings"]},
        state["split_from"],
        chunks,
    )
    analyzer.apart = None if state["apart"] is None else frozenset(state["apart"])
    analyzer.uses = CompoundUses(Counter(state["one_word"]), Counter(state["written_apart"]))
    analyzer.forget_chunks()  # as the indexer leaves it: its word cache bounded
    return analyzer


def write_analyzer(out: SnapshotWriter, analyzer: CorpusAnalyzer, text: BM25Index) -> None:
    out.json("analyzer", _analyzer_state(analyzer))
    _write_chunks(out, analyzer, text)


def write_fields(out: SnapshotWriter, bm25: FieldedBM25) -> dict[str, Any]:
    """Every field's arrays; what the manifest's metadata keeps of them."""
    return {
        "weights": list(bm25.weights),
        "fields": [_write_field(out, f"field{n}.", field) for n, field in enumerate(bm25.fields)],
    }


def open_fields(snapshot: SnapshotReader, meta: dict[str, Any]) -> FieldedBM25:
    fields_ = [_open_field(snapshot, f"field{n}.", m) for n, m in enumerate(meta["fields"])]
    return FieldedBM25(fields_, meta["weights"])


def write_authors(out: SnapshotWriter, authors: AuthorIndex) -> None:
    """The author index's name words and each one's papers (built here if not yet)."""
    by_token = authors.by_token
    write_table(out, "authors.tokens", {token: row for row, token in enumerate(by_token)})
    sizes = [len(docs) for docs in by_token.values()]
    starts = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=starts[1:])
    docs = [*by_token.values()]
    out.array("authors.starts", starts)
    out.array("authors.docs", np.concatenate(docs) if docs else np.zeros(0, dtype=np.int64))


def open_authors(snapshot: SnapshotReader, papers: Sequence[Paper]) -> AuthorIndex:
    tokens = open_table(snapshot, "authors.tokens")
    by_token = MappedSlices(
        tokens, snapshot.array("authors.starts"), snapshot.array("authors.docs")
    )
    return AuthorIndex(papers, by_token)


def acronyms_state(acronyms: Mapping[str, Acronym]) -> dict[str, list[Any]]:
    return {token: list(astuple(acronym)) for token, acronym in acronyms.items()}


def acronyms_of(state: dict[str, list[Any]]) -> dict[str, Acronym]:
    return {
        token: Acronym(written, token_, long_form, tuple(tokens), tuple(phrase))
        for token, (written, token_, long_form, tokens, phrase) in state.items()
    }


def write_speller(out: SnapshotWriter, speller: SpellCorrector) -> None:
    """The typo corrector's words and deletion map (built here if not yet)."""
    deletions = speller.deletions
    for name, array in deletions.tables().items():
        out.array(f"speller.{name}", array)
    out.json("speller", {"longest": deletions.longest})


def open_speller(snapshot: SnapshotReader) -> SpellCorrector:
    """The typo corrector over the saved map, its arrays memory-mapped: nothing is built."""
    tables = {name: snapshot.array(f"speller.{name}") for name in DeletionMap.TABLES}
    return SpellCorrector.opened(DeletionMap.opened(tables, snapshot.json("speller")["longest"]))


def write_paper_ids(out: SnapshotWriter, papers: Sequence[Paper]) -> None:
    """Each paper's id and OpenReview id (empty where none: the shipped corpus's papers are
    linked by their OpenReview id alone), and the tables that find a paper by them."""
    keys = lookup_keys(papers)
    write_strings(out, "papers.ids", (str(paper_keys[0]) for paper_keys in keys))
    write_strings(out, "papers.openreview_ids", ((*k[1:], None)[0] or "" for k in keys))
    by_id, by_folded_id = id_lookups(papers)
    write_table(out, "papers.by_id", by_id)
    write_table(out, "papers.by_folded_id", by_folded_id)


def open_paper_ids(
    snapshot: SnapshotReader, papers: int
) -> tuple[MappedStrings, MappedStrings, IdLookups]:
    """What ``write_paper_ids`` saved of ``papers`` papers, read where it is mapped."""
    ids, openreview_ids = (
        open_strings(snapshot, "papers.ids"),
        open_strings(snapshot, "papers.openreview_ids"),
    )
    if not len(ids) == len(openreview_ids) == papers:
        raise ValueError("papers.ids and papers.openreview_ids are not one per paper")
    lookups = open_table(snapshot, "papers.by_id"), open_table(snapshot, "papers.by_folded_id")
    return ids, openreview_ids, lookups
