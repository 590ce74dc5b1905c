"""A saved index: written once, opened in seconds by every process after, its pages shared.

Building an index means reading and mending the corpus's text and analysing every word of it:
a minute at 100,000 papers. A snapshot keeps what that made, as files
(``bot.search.snapshot_files``): each field's postings, codes, lengths and idf, the ratio
table and the dense terms' codes (``bot.search.bm25``); the author index; the highlighting
map of chunks by token and the analyzer's compound rules; the typo corrector's words and
deletion map (``bot.search.spelling``); the acronyms the abstracts define; the vectors
(``bot.search.semantic``) and, in a corpus large enough for it, the index that finds the
nearest of them (``nearest.faiss``, ``bot.search.nearest``, opened mapped and read-only; its
key holds faiss's release, which alone reads its format); and the papers themselves, mended,
as JSON lines. A process opens the arrays, and the papers' file, memory-mapped and read-only
(the vectors copy-on-write), so every process on the host reads the same pages of the page
cache instead of holding a copy (``bot.search.saved_papers`` builds a paper only when it is
asked for). The tables looked up by a word or an id (each field's vocabulary, the author
index's words, the papers' ids) are read the same way, as ``bot.search.mapped`` tables; what
each process builds for itself is the model and what the searches build on first use.

**Which snapshot.** Its directory is named by its key (``index_key``), the digest of: the
corpus (``corpus_watermark``: every file the corpus is read from, with its size and
modification time, and the vectors file), the analyzer's version
(``bot.search.analyzer.ANALYZER_VERSION``), the indexing parameters, a digest of the source of
the modules that build an index, and the model's fingerprint. A process opens the snapshot
with its own key, or none: one built by other rules, of another corpus or another model is
simply another directory. Papers the feeds brought are not in it: the follower adds them to
the opened index, as to a built one (``bot.feeds.following``).

**What is never used.** A snapshot missing, partial (a temporary directory, never renamed), of
another version, truncated or corrupt (its manifest's sizes and checksums,
``SnapshotReader``) is refused: the process builds the index, saves a new snapshot in place of
a refused one, and says why in one log line (``saved_index``). The two newest snapshots of a
corpus are kept and older ones deleted (a process still mapping one keeps its pages).

Not saved: the author names' typo corrector and the pruned ranking's tables; each is built as
a built index builds it, by ``SearchIndex.prepare`` or on first use. The acronym miner's
counts are saved, so an opened index's first addition reads the new papers only, as a built
index's does. An index with papers
added builds its typo corrector again, its words being another corpus's.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

from bot.clock import Clock, system_clock
from bot.papers.corpus import LoadedCorpus, corpus_sources, load_corpus, log_problems
from bot.search import indexing
from bot.search.analyzer import ANALYZER_VERSION
from bot.search.defined_acronyms import AcronymMiner
from bot.search.embedding import Embedder, ModelError
from bot.search.engine import SearchIndex
from bot.search.nearest import NearestIndex
from bot.search.saved_papers import SavedPapers, paper_line
from bot.search.semantic import SemanticRanker, one_blas_thread, ranker_for, shared_embedder
from bot.search.snapshot_files import (
    MANIFEST,
    SnapshotMissing,
    SnapshotReader,
    SnapshotRefused,
    SnapshotWriter,
    discard,
)
from bot.search.snapshot_parts import (
    acronyms_of,
    acronyms_state,
    open_analyzer,
    open_authors,
    open_fields,
    open_paper_ids,
    open_speller,
    write_analyzer,
    write_authors,
    write_fields,
    write_paper_ids,
    write_speller,
)
from bot.search.vectors import vectors_path

log = logging.getLogger(__name__)

SNAPSHOT_FORMAT = 3
"""The layout of a snapshot's files: bump it with any change to what ``write_snapshot``
writes or ``open_snapshot`` reads."""
NEAREST_FILE = "nearest.faiss"
NEAREST_HELD = "nearest.held"
KEEP = 2
"""Snapshots of one corpus kept: the newest, and the one before (a process of the previous
release may still be starting from it)."""
_BUILDERS = (
    "analyzer.py",
    "indexing.py",
    "spaced_compounds.py",
    "bm25.py",
    "fielded.py",
    "authors.py",
    "defined_acronyms.py",
    "vectors.py",
    "saved_papers.py",
    "mapped.py",
    "snapshot_parts.py",
    "snapshot.py",
    "snapshot_files.py",
    "spelling.py",
    "nearest.py",
)
"""The modules of ``bot.search`` whose source decides what a snapshot holds (with every
module of ``bot.papers``, which reads and mends the text)."""


def source_digest() -> str:
    """A digest of the source of the modules that build an index."""
    search = Path(__file__).resolve().parent
    papers = search.parent / "papers"
    digest = hashlib.blake2b(digest_size=16)
    for path in [*(search / name for name in _BUILDERS), *sorted(papers.glob("*.py"))]:
        digest.update(path.name.encode())
        try:
            digest.update(path.read_bytes())
        except OSError:  # an install without sources: the version alone then keys it
            digest.update(b"\0")
    return digest.hexdigest()


def corpus_watermark(spec: str, vectors: Path | None) -> str:
    """What says the corpus ``spec`` is the one a snapshot was made of: each file it is read
    from (and the vectors file, when the model re-ranks) by path, size and modification time.
    A file edited, replaced, added or removed, or vectors embedded and saved, give another."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(spec.strip().encode())
    for path in [*corpus_sources(spec), *([vectors] if vectors else [])]:
        try:
            stat = path.stat()
            digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
        except OSError:
            digest.update(f"{path}\0missing\n".encode())
    return digest.hexdigest()


def index_key(spec: str, model: str | None) -> dict[str, Any]:
    """Everything a snapshot must agree on to be opened (see the module), as its manifest's
    JSON gives it back."""
    key = {
        "format": SNAPSHOT_FORMAT,
        "analyzer": ANALYZER_VERSION,
        "indexing": [
            indexing.FIELD_WEIGHTS,
            indexing.FIELD_K1,
            indexing.FIELD_B,
            indexing.ONE_WORD_SHARE,
        ],
        "source": source_digest(),
        "corpus": corpus_watermark(spec, None if model is None else vectors_path(spec)),
        "model": model,
        # The nearest-candidates index is faiss's own file format: only faiss's release reads it.
        "faiss": None if model is None else _faiss_version(),
    }
    return json.loads(json.dumps(key))


def _faiss_version() -> str:
    try:
        return version("faiss-cpu")
    except PackageNotFoundError:  # another build of faiss
        return "unknown"


def key_name(key: Mapping[str, Any]) -> str:
    canonical = json.dumps(key, sort_keys=True).encode()
    return "index-" + hashlib.blake2b(canonical, digest_size=16).hexdigest()


_KEY_PARTS = {
    "format": "snapshot format",
    "analyzer": "analyzer version",
    "indexing": "indexing parameters",
    "source": "indexing code",
    "corpus": "corpus files",
    "model": "model",
    "faiss": "faiss release",
}
_ABANDONED = 3600.0  # seconds after which a temporary directory is a dead writer's


def write_snapshot(
    root: Path, key: dict[str, Any], spec: str, index: SearchIndex, corpus: LoadedCorpus
) -> Path:
    """Save ``index`` (of the corpus ``spec``, loaded as ``corpus``) under ``root``, named by
    ``key``; its directory. Older snapshots of the same corpus beyond ``KEEP`` are deleted."""
    parts = index.parts()
    out = SnapshotWriter(root, key_name(key))
    try:
        out.array("papers.starts", out.lines("papers.jsonl", map(paper_line, parts.papers)))
        write_paper_ids(out, parts.papers)
        bm25 = write_fields(out, parts.bm25)
        write_analyzer(out, parts.analyzer, parts.bm25.fields[-1])
        write_authors(out, parts.authors)
        write_speller(out, parts.speller)
        out.json("acronyms", acronyms_state(parts.acronyms))
        out.json("acronym_miner", parts.miner.state())
        tables = {} if parts.semantic is None else parts.semantic.tables()
        for name, array in tables.items():
            out.array(f"vectors.{name}", array)
        nearest = None if parts.semantic is None else parts.semantic.nearest_to_save()
        if nearest is not None:
            out.array(NEAREST_HELD, nearest.save(out.directory / NEAREST_FILE))
        meta = {
            "key": key,
            "spec": spec.strip(),
            "papers": len(parts.papers),
            "bm25": bm25,
            "vectors": list(tables),
            "nearest": nearest is not None,
            "problems": list(corpus.problems),
            "description": corpus.description,
            "label": corpus.label,
        }
        directory = out.commit(meta)
    except BaseException:
        out.abandon()
        raise
    _prune(root, spec.strip(), directory)
    return directory


def open_snapshot(
    root: Path,
    key: dict[str, Any],
    spec: str,
    embedder: Embedder | None,
    *,
    verify: bool = True,
    clock: Clock = system_clock,
) -> tuple[SearchIndex, LoadedCorpus]:
    """The index saved under ``root`` with ``key`` (re-ranked with ``embedder``'s model when
    it was saved with one), and its corpus; ``SnapshotRefused`` says why it cannot be."""
    directory = root / key_name(key)
    if not (directory / MANIFEST).is_file():
        raise SnapshotMissing(_why_none(root, spec.strip(), key))
    snapshot = SnapshotReader(directory, verify=verify)
    meta = snapshot.meta
    if meta.get("key") != key:
        raise SnapshotRefused("its manifest holds another key")
    try:
        lines, starts = snapshot.mapped("papers.jsonl"), snapshot.array("papers.starts")
        ids, openreview_ids, lookups = open_paper_ids(snapshot, len(starts) - 1)
        papers = SavedPapers(lines, starts, ids, openreview_ids, lookups=lookups)
        bm25 = open_fields(snapshot, meta["bm25"])
        analyzer = open_analyzer(snapshot, bm25.fields[-1])
        authors = open_authors(snapshot, papers)
        speller = open_speller(snapshot)
        acronyms = acronyms_of(snapshot.json("acronyms"))
        miner = AcronymMiner.of_state(snapshot.json("acronym_miner"))
        semantic = None
        if meta["vectors"] and embedder is not None:
            one_blas_thread()
            tables = {n: snapshot.array(f"vectors.{n}", writable=True) for n in meta["vectors"]}
            nearest = _opened_nearest(snapshot) if meta["nearest"] else None
            semantic = SemanticRanker.opened(embedder, papers, tables, vectors_path(spec), nearest)
        corpus = LoadedCorpus(papers, tuple(meta["problems"]), meta["description"], meta["label"])
    except (OSError, KeyError, ValueError, TypeError, IndexError) as error:
        raise SnapshotRefused(f"it cannot be read ({type(error).__name__}: {error})") from None
    if len(papers) != meta["papers"] or len(bm25) != len(papers):
        raise SnapshotRefused("its papers and its index do not agree")
    index = SearchIndex(
        papers,
        bm25,
        acronyms,
        analyzer,
        semantic,
        clock=clock,
        authors=authors,
        speller=speller,
        miner=miner,
    )
    return index, corpus


def _opened_nearest(snapshot: SnapshotReader) -> NearestIndex:
    """The nearest-candidates index, mapped read-only once its file is checksummed."""
    snapshot.mapped(NEAREST_FILE)
    held = np.asarray(snapshot.array(NEAREST_HELD))
    return NearestIndex.mapped(snapshot.directory / NEAREST_FILE, held)


def saved_index(
    spec: str, root: Path, *, semantic: bool = True, clock: Clock = system_clock
) -> tuple[SearchIndex, LoadedCorpus]:
    """The index of the corpus ``spec`` (re-ranked by meaning with ``semantic``): opened from
    its snapshot under ``root``, else built, saved there for the next process, and said why in
    one log line."""
    embedder = _embedder() if semantic else None
    key = index_key(spec, None if embedder is None else embedder.fingerprint)
    started = time.monotonic()
    try:
        index, corpus = open_snapshot(root, key, spec, embedder, clock=clock)
    except SnapshotRefused as refused:
        reason, damaged = str(refused), not isinstance(refused, SnapshotMissing)
    else:
        log_problems(corpus.problems)
        log.info(
            "index: opened the snapshot in %s (%d papers) in %.1f s",
            root / key_name(key),
            len(index.papers),
            time.monotonic() - started,
        )
        return index, corpus
    log.log(
        logging.WARNING if damaged else logging.INFO,
        "index: snapshot not used (%s): building the index and saving it in %s",
        reason,
        root,
    )
    discard(root / key_name(key))
    corpus = load_corpus(spec)
    semantic_ranker = None if embedder is None else ranker_for(spec)
    index = SearchIndex.build(corpus.papers, semantic_ranker, clock=clock)
    try:
        write_snapshot(root, key, spec, index, corpus)
    except OSError as error:
        log.warning(
            "index: cannot save the snapshot in %s (%s): the next start builds it", root, error
        )
    return index, corpus


def index_of(
    spec: str, root: Path | None, *, semantic: bool = True, clock: Clock = system_clock
) -> tuple[SearchIndex, LoadedCorpus]:
    """The index every command serves the corpus ``spec`` from: the one saved under ``root``
    (``PAPERBOT_INDEX_DIR``), so the bot, ``paperbot search`` and ``paperbot digest`` open
    one snapshot and rank alike, or, with ``root`` None (``off``), one built here. Raises
    ``CorpusError`` when the corpus cannot be read."""
    if root is not None:
        return saved_index(spec, root, semantic=semantic, clock=clock)
    corpus = load_corpus(spec)
    index = SearchIndex.build(corpus.papers, ranker_for(spec) if semantic else None, clock=clock)
    return index, corpus


def _embedder() -> Embedder | None:
    """The process's model, or None (said in one line, as ``load_ranker`` says it) when it
    cannot run: the index then ranks by BM25 alone."""
    try:
        return shared_embedder()
    except ModelError as error:
        log.warning("semantic: off, ranking by BM25 alone: %s", error)
        return None


def _saved(root: Path, spec: str) -> list[tuple[float, Path, dict[str, Any]]]:
    """The snapshots of the corpus ``spec`` under ``root``: (when written, directory, key),
    newest first. Their manifests are read, not checked: this only names and prunes them."""
    found = []
    for directory in root.glob("index-*"):
        try:
            manifest = directory / MANIFEST
            meta = json.loads(manifest.read_text(encoding="utf-8"))["body"]["meta"]
            if meta["spec"] == spec:
                found.append((manifest.stat().st_mtime, directory, meta["key"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return sorted(found, key=lambda entry: entry[0], reverse=True)


def _why_none(root: Path, spec: str, key: dict[str, Any]) -> str:
    """Why no snapshot has ``key``: none of this corpus, or what the newest one differs in."""
    saved = _saved(root, spec) if root.is_dir() else []
    if not saved:
        return f"none of this corpus in {root}"
    _, directory, other = saved[0]
    differ = [label for part, label in _KEY_PARTS.items() if other.get(part) != key[part]]
    return f"the newest, {directory.name}, has another {', '.join(differ) or 'key'}"


def _prune(root: Path, spec: str, kept: Path) -> None:
    """Delete the snapshots of ``spec`` beyond the ``KEEP`` newest (``kept`` among them), and
    temporary directories writers left behind."""
    older = [directory for _, directory, _ in _saved(root, spec) if directory != kept]
    for directory in older[KEEP - 1 :]:
        discard(directory)
    now = time.time()
    for partial in root.glob(".index-*.partial"):
        try:
            if now - partial.stat().st_mtime > _ABANDONED:
                discard(partial)
        except OSError:
            continue
