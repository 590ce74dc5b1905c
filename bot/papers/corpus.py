"""Loading the papers the bot knows: seed files, the ICLR 2025 catalogue, or the operator's own.

Bad input is reported, not fatal: a file that cannot be read is named in ``problems`` and the
rest still load, because a team would rather have 57 papers than a bot that will not start.
Only an empty result is an error.
"""

from __future__ import annotations

import gc
import hashlib
import importlib.resources
import json
import logging
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from bot.papers.paper import ACCEPTED_STATUSES, Paper
from bot.papers.plain import clean_normalised_text
from bot.papers.repair import Wordbook, repair_abstract
from bot.papers.summary import derive_title
from bot.papers.text import match_key, normalise_whitespace
from bot.papers.urls import extract_code_urls
from bot.settings import StartupError

SEEDS_DIR = Path(str(importlib.resources.files("seeds")))
"""The seed files and the catalogue are the ``seeds`` data package (package data in the
wheel), so a bot finds them wherever it is installed and whatever directory it runs from."""
CATALOGUE_PATH = SEEDS_DIR / "iclr2025.jsonl"
_IMPORT_ROOT = SEEDS_DIR.parent
"""The directory holding the ``seeds`` package: a checkout or ``site-packages``."""
CATALOGUE_ACCEPTED_PAPERS = 3706
"""Accepted papers in the catalogue, which ``PAPERBOT_CORPUS=catalogue`` serves: stated, not
counted, so that a seeds bot can name it without reading the catalogue (a test counts)."""
SEED_SPECS = frozenset({"", "seeds"})
"""``PAPERBOT_CORPUS`` values meaning the seed papers."""
logger = logging.getLogger(__name__)

_HEADER_MAX_CHARS = 100
_MIN_ABSTRACT_CHARS = 40


class CorpusError(StartupError):
    """No paper at all could be loaded; the message says why."""


@dataclass(frozen=True)
class LoadedCorpus:
    """The papers, the inputs that were skipped or odd (one line each), a log line for the
    operator (``description``, with paths) and a phrase for users (``label``, without)."""

    papers: tuple[Paper, ...]
    problems: tuple[str, ...]
    description: str
    label: str


@dataclass(frozen=True)
class _SeedAbstract:
    text: str
    source: str
    line: int


class _Record(NamedTuple):
    """A catalogue line, kept raw until it becomes a paper (most never do in seeds mode).

    A named tuple, not a frozen dataclass: one is made per line, and a frozen dataclass
    takes several times longer to build.
    """

    data: dict
    line: int


# --- ids and paper records ------------------------------------------------------------------


def hash_id(abstract: str | None, title: str) -> str:
    """The id of a paper without an OpenReview id: stable across restarts and file order.

    ``abstract`` has been through ``normalise_whitespace``, as ``_paper`` keeps it, so when
    NFKC leaves it as it is (Python then returns the same object) it is its own
    ``match_key``: that spares a second whitespace pass over every abstract of a large file.
    """
    if abstract:
        folded = unicodedata.normalize("NFKC", abstract)
        basis = abstract if folded is abstract else match_key(folded)
    else:
        basis = match_key(title)
    return "h" + hashlib.sha256(basis.encode("utf-8")).hexdigest()[:12]


def _join_key(text: str) -> str:
    """Catalogue abstracts from Semantic Scholar lost their final period; ignore it when joining.

    Joining reads the files' own text, before ``repair_abstract`` gives the period back.
    """
    return match_key(text).rstrip(". ").casefold()


def _wordbook(records: Sequence[_Record], texts: Sequence[str] = ()) -> Wordbook:
    """The words of these records' titles and abstracts and of ``texts``: what decides how
    a word split at a line break is written again (``bot.papers.repair``)."""

    def corpus_text() -> Iterator[str]:
        yield from texts
        for record in records:
            yield from filter(None, (record.data.get("title"), record.data.get("abstract")))

    return Wordbook(corpus_text)


def _paper(
    *,
    paper_id: str | None,
    title: str | None,
    authors: Iterable[str],
    status: str | None,
    url: str | None,
    abstract: str | None,
    source: str,
    wordbook: Wordbook,
    authors_in_order: bool = False,
    **feed_fields: Any,
) -> Paper:
    as_written = normalise_whitespace(abstract) if abstract else None
    abstract = repair_abstract(as_written, wordbook) if as_written else None
    cleaned = clean_normalised_text(abstract) if abstract else None
    title = normalise_whitespace(title) if title else None
    title_derived = title is None
    if title is None:
        shown_title = derive_title(cleaned.plain if cleaned else "")
    else:
        shown_title = clean_normalised_text(title).plain
    links = cleaned.links if cleaned else ()
    return Paper(
        # The id hashes the text as written, so repairs never change a paper's id.
        id=paper_id or hash_id(as_written, title or shown_title),
        title=shown_title,
        authors=tuple(filter(None, map(normalise_whitespace, authors))),
        status=status,
        url=url,
        abstract=abstract,
        plain_abstract=cleaned.plain if cleaned else "",
        code_urls=extract_code_urls(links),
        links=links,
        title_derived=title_derived,
        source=source,
        authors_in_order=authors_in_order,
        **feed_fields,
    )


def feed_paper(
    *,
    paper_id: str,
    title: str,
    authors: Iterable[str],
    status: str | None,
    url: str | None,
    abstract: str | None,
    source: str,
    **feed_fields: Any,
) -> Paper:
    """A paper a feed brought (``bot.feeds``, kept by the store), cleaned as a corpus
    file's is; its authors are in the paper's order, as arXiv and OpenReview list them.
    ``feed_fields`` are ``Paper``'s feed-only fields (arXiv id, venue, dates, pages)."""
    return _paper(
        paper_id=paper_id,
        title=title,
        authors=authors,
        status=status,
        url=url,
        abstract=abstract,
        source=source,
        wordbook=Wordbook(tuple),
        authors_in_order=True,
        **feed_fields,
    )


def _paper_from_record(
    record: _Record, source: str, wordbook: Wordbook, abstract: str | None = None
) -> Paper:
    data = record.data
    return _paper(
        paper_id=data.get("id") or None,
        title=data.get("title"),
        authors=data.get("authors") or (),
        status=data.get("status"),
        url=data.get("url"),
        abstract=abstract if abstract is not None else data.get("abstract"),
        source=source,
        wordbook=wordbook,
        authors_in_order=data.get("authors_in_order") is True,
    )


# --- reading files --------------------------------------------------------------------------


def _display_path(path: Path) -> str:
    """A path as people should see it in logs: the bundled files by their place in the
    package (``seeds/…``), the same in a checkout and an installed wheel."""
    try:
        return str(path.resolve().relative_to(_IMPORT_ROOT))
    except ValueError:
        return str(path)


def _read_text(path: Path, problems: list[str]) -> str | None:
    """The file's text (BOM removed, CR/CRLF kept), or None with the reason recorded."""
    name = _display_path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        problems.append(f"{name}: cannot be read ({error.strerror or error}), skipped")
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = _decodable_lines(data, name, problems)
    if not text or text.isspace():  # not strip(): that would copy a large file
        problems.append(f"{name}: empty file, skipped")
        return None
    return text


def _decodable_lines(data: bytes, name: str, problems: list[str]) -> str:
    """The text of a file that is not all UTF-8, with each line that is not left empty (so
    the rest keep their numbers): one stray byte costs its line, not the whole file."""
    lines = data.split(b"\n")
    for number, raw in enumerate(lines):
        try:
            lines[number] = raw.decode("utf-8-sig" if number == 0 else "utf-8")
        except UnicodeDecodeError as error:
            problems.append(
                f"{name}: line {number + 1}: not UTF-8 (byte 0x{raw[error.start]:02x}), "
                "line skipped"
            )
            lines[number] = ""
    return "\n".join(lines)


def _is_header(line: str) -> bool:
    """A seed file's title line (``ICLR 2025 论文列表``): short and not a sentence."""
    stripped = line.strip()
    return len(stripped) <= _HEADER_MAX_CHARS and not stripped.endswith((".", "?", "!"))


def parse_seed_file(path: Path, problems: list[str]) -> list[_SeedAbstract]:
    """The abstracts of one seed file: an optional header line, then blank-line-separated
    paragraphs (a paragraph may be wrapped over several lines)."""
    text = _read_text(path, problems)
    if text is None:
        return []
    name = _display_path(path)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    first = next((index for index, line in enumerate(lines) if line.strip()), len(lines))
    if first < len(lines) and _is_header(lines[first]):
        first += 1
    abstracts: list[_SeedAbstract] = []
    paragraph: list[str] = []
    start_line = 0
    for number, line in enumerate([*lines[first:], ""], start=first + 1):
        if line.strip():
            if not paragraph:
                start_line = number
            paragraph.append(line)
            continue
        if not paragraph:
            continue
        body = normalise_whitespace(" ".join(paragraph))
        paragraph = []
        if len(body) < _MIN_ABSTRACT_CHARS:
            problems.append(f"{name}: line {start_line}: too short for an abstract, skipped")
            continue
        abstracts.append(_SeedAbstract(body, f"{name}#{len(abstracts) + 1}", start_line))
    if not abstracts:
        problems.append(f"{name}: no abstracts found, skipped")
    return abstracts


def _seed_files(folder: Path, problems: list[str]) -> list[Path]:
    files = sorted(path for path in folder.glob("*.txt") if path.is_file())
    if not files:
        problems.append(f"{_display_path(folder)}: no .txt seed files")
    return files


def read_catalogue(
    path: Path, problems: list[str], *, with_abstract_only: bool = False
) -> Iterator[_Record]:
    """Records of a catalogue-format ``.jsonl`` file; a bad line is reported and skipped.

    ``with_abstract_only`` skips, without parsing them, the lines whose abstract is written
    as null: joining seeds needs only the 3,087 of 11,672 records that have one, and parsing
    the rest would be most of the default start-up time. Any other line is parsed.
    """
    text = _read_text(path, problems)
    if text is None:
        return
    name = _display_path(path)
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip() or (with_abstract_only and '"abstract": null' in line):
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(f"{name}: line {number}: not JSON ({error.msg}), skipped")
            continue
        if not isinstance(data, dict) or not (data.get("title") or data.get("abstract")):
            problems.append(f"{name}: line {number}: no title or abstract, skipped")
            continue
        if wrong := _badly_typed_field(data):
            problems.append(f"{name}: line {number}: {wrong}, skipped")
            continue
        yield _Record(data, number)


def _badly_typed_field(data: dict) -> str | None:
    """What is wrong with a record's field types, if anything (operators write these files)."""
    for field in ("id", "title", "abstract", "status", "url"):
        if data.get(field) is not None and not isinstance(data[field], str):
            return f"{field!r} must be text"
    authors = data.get("authors")
    if authors is not None and not (
        isinstance(authors, list) and all(isinstance(name, str) for name in authors)
    ):
        return "'authors' must be a list of names"
    return None


# --- assembling corpora ---------------------------------------------------------------------


def _quick_key(text: str) -> str:
    """The start of ``_join_key``, cheap enough to compute for every catalogue abstract."""
    return " ".join(text[:200].split())[:80].casefold()


def _unmatched_seed_paper(seed: _SeedAbstract, wordbook: Wordbook) -> Paper:
    """A seed the catalogue does not know: its title is derived from its abstract."""
    return _paper(
        paper_id=None,
        title=None,
        authors=(),
        status=None,
        url=None,
        abstract=seed.text,
        source=seed.source,
        wordbook=wordbook,
    )


def _join_seeds(
    seed_abstracts: list[_SeedAbstract], catalogue: Iterable[_Record], problems: list[str]
) -> tuple[list[Paper], int]:
    """Seed papers with their catalogue metadata; returns them and how many matched."""
    seed_starts = {_quick_key(seed.text) for seed in seed_abstracts}
    by_abstract = {
        _join_key(record.data["abstract"]): record
        for record in catalogue
        if isinstance(record.data.get("abstract"), str)
        and _quick_key(record.data["abstract"]) in seed_starts
    }
    # The words of the papers loaded: the seeds and the titles of those the catalogue knows.
    wordbook = _wordbook(list(by_abstract.values()), [seed.text for seed in seed_abstracts])
    papers: list[Paper] = []
    seen: dict[str, str] = {}
    matched = 0
    for seed in seed_abstracts:
        key = _join_key(seed.text)
        if key in seen:
            problems.append(
                f"{seed.source.rsplit('#', 1)[0]}: line {seed.line}: "
                f"same abstract as {seen[key]}, kept once"
            )
            continue
        seen[key] = seed.source
        record = by_abstract.get(key)
        if record is None:
            papers.append(_unmatched_seed_paper(seed, wordbook))
            continue
        matched += 1
        papers.append(_paper_from_record(record, seed.source, wordbook, abstract=seed.text))
    return papers, matched


def _load_seed_folder(folder: Path, label: str) -> LoadedCorpus:
    problems: list[str] = []
    if not folder.is_dir():
        raise CorpusError(f"{folder}: no such folder of seed files")
    files = _seed_files(folder, problems)
    seeds = [seed for path in files for seed in parse_seed_file(path, problems)]
    papers, matched = _join_seeds(seeds, _catalogue_with_abstracts(problems), problems)
    if not papers:
        raise CorpusError(f"no papers could be loaded from {folder}: " + "; ".join(problems))
    file_count = len({seed.source.rsplit("#", 1)[0] for seed in seeds})
    description = (
        f"{len(papers):,} papers from {file_count:,} {label} files in {_display_path(folder)}/ "
        f"({matched:,} matched the ICLR 2025 catalogue)"
    )
    kind = "seed papers" if label == "seed" else "papers"
    return LoadedCorpus(tuple(papers), tuple(problems), description, f"{len(papers):,} {kind}")


def _with_abstract(papers: Sequence[Paper]) -> str:
    """How many papers have an abstract, for the start-up line: the others show a title
    alone, and an operator should see how many before users do."""
    return f"{sum(1 for paper in papers if paper.abstract):,} with an abstract"


def _catalogue_with_abstracts(problems: list[str]) -> Iterator[_Record]:
    if not CATALOGUE_PATH.is_file():
        problems.append(f"{CATALOGUE_PATH}: catalogue missing, titles derived from text")
        return iter(())
    return read_catalogue(CATALOGUE_PATH, problems, with_abstract_only=True)


def _load_catalogue() -> LoadedCorpus:
    """Every accepted paper, with the seed abstracts in place of the catalogue's copies."""
    problems: list[str] = []
    if not CATALOGUE_PATH.is_file():
        raise CorpusError(f"{CATALOGUE_PATH}: the ICLR 2025 catalogue is missing")
    records = list(read_catalogue(CATALOGUE_PATH, problems))
    seed_problems: list[str] = []
    seeds = [
        seed
        for path in _seed_files(SEEDS_DIR, seed_problems)
        for seed in parse_seed_file(path, seed_problems)
    ]
    problems.extend(seed_problems)
    seed_by_key: dict[str, _SeedAbstract] = {}
    for seed in seeds:
        seed_by_key.setdefault(_join_key(seed.text), seed)
    accepted = [record for record in records if record.data.get("status") in ACCEPTED_STATUSES]
    wordbook = _wordbook(accepted, [seed.text for seed in seeds])
    papers: list[Paper] = []
    with_seed = 0
    for record in accepted:
        abstract = record.data.get("abstract")
        seed = seed_by_key.pop(_join_key(abstract), None) if abstract else None
        if seed is None:
            papers.append(_paper_from_record(record, "catalogue", wordbook))
        else:
            with_seed += 1
            papers.append(_paper_from_record(record, seed.source, wordbook, abstract=seed.text))
    # A seed paper the catalogue lacks is still one the team asked for.
    papers.extend(_unmatched_seed_paper(seed, wordbook) for seed in seed_by_key.values())
    if not papers:
        raise CorpusError(f"{CATALOGUE_PATH}: no accepted papers in the catalogue")
    statuses = Counter(paper.status for paper in papers)
    breakdown = ", ".join(f"{statuses[name]:,} {name}" for name in ("Oral", "Spotlight", "Poster"))
    description = (
        f"{len(papers):,} accepted papers from the ICLR 2025 catalogue "
        f"{_display_path(CATALOGUE_PATH)} ({breakdown}; {_with_abstract(papers)}; "
        f"{with_seed:,} with seed abstracts)"
    )
    label = f"{len(papers):,} accepted ICLR 2025 papers"
    return LoadedCorpus(tuple(papers), tuple(problems), description, label)


def _load_jsonl(path: Path) -> LoadedCorpus:
    """Every record of an operator's catalogue-format file is a paper, whatever its status."""
    problems: list[str] = []
    name = _display_path(path)
    papers: list[Paper] = []
    seen: dict[str, int] = {}
    records = list(read_catalogue(path, problems))
    wordbook = _wordbook(records)
    for record in records:
        paper = _paper_from_record(record, f"{name}#{record.line}", wordbook)
        if paper.id in seen:
            problems.append(f"{name}: line {record.line}: same paper as line {seen[paper.id]}")
            continue
        seen[paper.id] = record.line
        papers.append(paper)
    if not papers:
        raise CorpusError(f"no papers could be loaded from {path}: " + "; ".join(problems))
    description = f"{len(papers):,} papers from {name} ({_with_abstract(papers)})"
    return LoadedCorpus(tuple(papers), tuple(problems), description, f"{len(papers):,} papers")


def catalogue_by_openreview_id(path: Path | None = None) -> dict[str, Paper]:
    """Every catalogue paper that has an OpenReview id, by that id, whatever its status.

    Link previews need these whatever corpus the bot searches: a team on the seed papers
    still pastes links to the others. Records without an id cannot be linked to and are left
    out; unreadable lines are skipped, as everywhere.
    """
    path = path or CATALOGUE_PATH
    if not path.is_file():
        return {}
    with _cyclic_gc_paused():
        records = [record for record in read_catalogue(path, []) if record.data.get("id")]
        wordbook = _wordbook(records)
        return {
            record.data["id"]: _paper_from_record(record, "catalogue", wordbook)
            for record in records
        }


@contextmanager
def _cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cycle collector while papers are built.

    Loading makes millions of objects and keeps them all, so the collector would run hundreds
    of times and walk every paper made so far each time, finding nothing: papers, records and
    their strings hold no reference cycles. That is a tenth of the time to load 100,000
    papers. Reference counting still frees everything as usual.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load_corpus(spec: str = "seeds") -> LoadedCorpus:
    """Load ``seeds`` (default), ``catalogue``, a folder of seed-format ``.txt`` files, or a
    catalogue-format ``.jsonl`` file (relative paths resolve against the working directory)."""
    with _cyclic_gc_paused():
        corpus = _load(spec.strip())
    log_problems(corpus.problems)
    return corpus


def log_problems(problems: Sequence[str]) -> None:
    """The same report whichever mode loaded the corpus: each problem, then the count."""
    if not problems:
        return
    for problem in problems:
        logger.warning("corpus: %s", problem)
    lines = sum(": line " in problem for problem in problems)
    logger.warning(
        "corpus: %d line(s) and %d file(s) skipped or odd, each listed above",
        lines,
        len(problems) - lines,
    )


def corpus_sources(spec: str) -> list[Path]:
    """Every file ``load_corpus(spec)`` reads: what a saved index of the corpus is keyed by
    (``bot.search.snapshot``), so that a file changed, added or removed means another corpus.
    The seed folders are read with the catalogue, whose abstracts they are matched to."""
    spec = spec.strip()
    if spec in ("", "seeds", "catalogue"):
        return [CATALOGUE_PATH, *sorted(SEEDS_DIR.glob("*.txt"))]
    path = Path(spec).expanduser().resolve()
    if path.is_dir():
        return [CATALOGUE_PATH, *sorted(path.glob("*.txt"))]
    return [path]


def _load(spec: str) -> LoadedCorpus:
    if spec in ("", "seeds"):
        return _load_seed_folder(SEEDS_DIR, "seed")
    if spec == "catalogue":
        return _load_catalogue()
    path = Path(spec).expanduser().resolve()
    if path.is_dir():
        return _load_seed_folder(path, ".txt")
    if path.suffix == ".jsonl" and path.is_file():
        return _load_jsonl(path)
    raise CorpusError(
        f"PAPERBOT_CORPUS={spec!r}: expected 'seeds', 'catalogue', a folder of .txt seed files "
        f"or a .jsonl file, and {path} is neither"
    )
