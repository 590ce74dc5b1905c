"""Papers the feeds brought, stored once for every process: written with an upsert on
(source, id), linked to the same paper from the other source, and read back by what
changed since a watermark, with the vectors the ingesting process computed.

A record is rewritten only when what the source says changed (its content hash), and never
by an older copy of itself (``revised``), so a fetch that is repeated, retried or run by two
processes at once writes nothing twice and moves no watermark.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any

import numpy as np
from sqlalchemy import and_, func, or_, select, true, tuple_
from sqlalchemy.engine import Connection, Row

from bot.papers.corpus import feed_paper
from bot.papers.paper import ACCEPTED_STATUSES, Paper
from bot.papers.sameness import match_key
from bot.store.part import Part, bounded, digest_bounded
from bot.store.records import (
    ACCEPTED,
    ARXIV_SOURCE,
    OPENREVIEW_SOURCE,
    EntryVectors,
    FeedEntry,
    StoreCounts,
    Stored,
)
from bot.store.revisions import INGESTED_PAPERS, advance, revision
from bot.store.tables import ingested_papers

_BATCH = 500
"""Rows read or written per statement: well under SQLite's 32,766 bound parameters."""


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def content_hash(entry: FeedEntry) -> str:
    """What a record says, whichever feed fetched it: a change to any of it is an update."""
    return _digest({key: value for key, value in asdict(entry).items() if key != "feed"})


def text_hash(entry: FeedEntry) -> str:
    """What its vectors are computed from: a decision arriving changes the record, not
    the text, and needs no embedding."""
    return _digest([entry.title, entry.abstract])


def _vector_bytes(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float16).tobytes()


def _categories(entry: FeedEntry) -> str:
    return f" {' '.join(entry.categories)} " if entry.categories else " "


def _status(decision: str | None, venue: str | None) -> str | None:
    """How ``Paper.status`` names a decision: the accepted presentation when the venue
    says it (``ICLR 2026 Poster``), else the decision, capitalised (None: a preprint)."""
    if decision is None:
        return None
    if decision == ACCEPTED and venue:
        last = venue.rsplit(" ", 1)[-1]
        if last in ACCEPTED_STATUSES:
            return last
    return decision.capitalize()


class IngestedPapers(Part):
    @digest_bounded
    def stored_entries(self, entries: Sequence[FeedEntry], model: str) -> dict[str, Stored]:
        """For each entry already stored (by ``id``): whether the record and its vectors (of
        ``model``) are the same as the entry's, so the ingest embeds only what changed."""
        found: dict[str, Stored] = {}
        with self._database.connect() as connection:
            for start in range(0, len(entries), _BATCH):
                chunk = entries[start : start + _BATCH]
                hashes = {entry.id: (content_hash(entry), text_hash(entry)) for entry in chunk}
                rows = connection.execute(
                    select(
                        ingested_papers.c.id,
                        ingested_papers.c.content_hash,
                        ingested_papers.c.text_hash,
                        ingested_papers.c.model,
                    ).where(
                        tuple_(ingested_papers.c.source, ingested_papers.c.id).in_(
                            [(entry.source, entry.id) for entry in chunk]
                        )
                    )
                )
                for row in rows:
                    record, text = hashes[row.id]
                    found[row.id] = Stored(
                        row.content_hash == record, row.text_hash == text and row.model == model
                    )
        return found

    @digest_bounded
    def store_entries(
        self, entries: Iterable[FeedEntry], vectors: dict[str, EntryVectors] | None = None
    ) -> StoreCounts:
        """Upsert the entries on (source, id) in one transaction, with their vectors (by
        id) where given; a record stored as it is, or newer, is left alone. A new record
        joins the paper the other source already has under the same ids or title and first
        author (``bot.papers.sameness``), else it is its own paper."""
        latest: dict[tuple[str, str], FeedEntry] = {}
        for entry in entries:
            latest[(entry.source, entry.id)] = entry
        vectors = vectors or {}
        counts = StoreCounts()
        batch = list(latest.values())
        with self._database.begin() as connection:
            for start in range(0, len(batch), _BATCH):
                counts += self._store_batch(connection, batch[start : start + _BATCH], vectors)
        return counts

    def _store_batch(
        self, connection: Connection, batch: list[FeedEntry], vectors: dict[str, EntryVectors]
    ) -> StoreCounts:
        table = ingested_papers
        stored = {
            row.id: row
            for row in connection.execute(
                select(table.c.id, table.c.paper_id, table.c.content_hash, table.c.revised).where(
                    tuple_(table.c.source, table.c.id).in_([(e.source, e.id) for e in batch])
                )
            )
        }
        changed = [
            entry
            for entry in batch
            if entry.id not in stored
            or (
                stored[entry.id].content_hash != content_hash(entry)
                and not _older(entry, stored[entry.id].revised)
            )
        ]
        if not changed:
            return StoreCounts(unchanged=len(batch))
        now = self._database.now()
        mark = advance(self._database, connection, INGESTED_PAPERS)
        for entry in changed:
            row = stored.get(entry.id)
            paper_id = row.paper_id if row is not None else self._paper_of(connection, entry)
            values = _row_values(entry) | {"changed_at": now, "revision": mark}
            found = vectors.get(entry.id)
            if found is not None:
                values |= {
                    "model": found.model,
                    "title_vector": _vector_bytes(found.title),
                    "text_vector": _vector_bytes(found.text),
                }
            newer = or_(table.c.revised.is_(None), table.c.revised <= values["revised"])
            connection.execute(
                self._database.insert(table)
                .values(
                    source=entry.source,
                    id=entry.id,
                    paper_id=paper_id,
                    ingested_at=now,
                    **values,
                )
                .on_conflict_do_update(
                    index_elements=["source", "id"],
                    set_=values,
                    where=and_(
                        table.c.content_hash != values["content_hash"],
                        newer if values["revised"] is not None else true(),
                    ),
                )
            )
        new = sum(1 for entry in changed if entry.id not in stored)
        return StoreCounts(new, len(changed) - new, len(batch) - len(changed))

    def _paper_of(self, connection: Connection, entry: FeedEntry) -> str:
        """The paper a record new to the store belongs to (``bot.papers.sameness``): the
        other source's record with the same arXiv id, else with the same match key."""
        table = ingested_papers
        other = OPENREVIEW_SOURCE if entry.source == ARXIV_SOURCE else ARXIV_SOURCE
        conditions = []
        if entry.arxiv_id:
            conditions.append(table.c.arxiv_id == entry.arxiv_id)
        conditions.append(table.c.match_key == match_key(entry.title, entry.authors))
        for condition in conditions:
            found = connection.execute(
                select(table.c.paper_id)
                .where(table.c.source == other, condition)
                .order_by(table.c.ingested_at)
                .limit(1)
            ).scalar()
            if found is not None:
                return found
        return entry.id

    def papers_since(self, watermark: int) -> tuple[list[Paper], int]:
        """The papers ingested or changed after ``watermark`` (0: every one), each with
        both sources' records merged, and the watermark to ask with next time.

        One statement reads the rows, so they come from one snapshot; a write committed
        later has a higher revision (``revisions.advance``) and is in the next answer."""
        table = ingested_papers
        changed = select(table.c.paper_id).where(table.c.revision > watermark)
        with self._database.connect() as connection:
            rows = connection.execute(
                select(table).where(table.c.paper_id.in_(changed)).order_by(table.c.revision)
            ).all()
        groups: dict[str, list[Row[Any]]] = {}
        for row in rows:
            groups.setdefault(row.paper_id, []).append(row)
        newest = max((row.revision for row in rows), default=watermark)
        return [_merged(paper_id, group) for paper_id, group in groups.items()], max(
            newest, watermark
        )

    def ingested_revision(self) -> int:
        """The ingested papers' watermark now (0 before the first)."""
        with self._database.connect() as connection:
            return revision(connection, INGESTED_PAPERS)

    def ingested_vectors(self, paper_ids: Iterable[str], model: str) -> dict[str, EntryVectors]:
        """The stored vectors of these papers (of each paper's main record), where they are
        of ``model``: vectors of another model are never handed out."""
        wanted = list(dict.fromkeys(paper_ids))
        table = ingested_papers
        found: dict[str, EntryVectors] = {}
        with self._database.connect() as connection:
            for start in range(0, len(wanted), _BATCH):
                rows = connection.execute(
                    select(table.c.id, table.c.title_vector, table.c.text_vector).where(
                        table.c.id.in_(wanted[start : start + _BATCH]),
                        table.c.id == table.c.paper_id,
                        table.c.model == model,
                    )
                )
                for row in rows:
                    found[row.id] = EntryVectors(
                        model,
                        np.frombuffer(row.title_vector, dtype=np.float16).astype(np.float32),
                        np.frombuffer(row.text_vector, dtype=np.float16).astype(np.float32),
                    )
        return found

    @digest_bounded
    def entries_to_embed(self, model: str, limit: int) -> list[FeedEntry]:
        """Up to ``limit`` stored records without vectors of ``model`` (another model's, or
        none): what ``paperbot embed`` embeds again."""
        table = ingested_papers
        with self._database.connect() as connection:
            rows = connection.execute(
                select(table)
                .where(or_(table.c.model.is_(None), table.c.model != model))
                .order_by(table.c.source, table.c.id)
                .limit(limit)
            ).all()
        return [_entry(row) for row in rows]

    @digest_bounded
    def count_entries_to_embed(self, model: str) -> int:
        table = ingested_papers
        with self._database.connect() as connection:
            return connection.execute(
                select(func.count()).where(or_(table.c.model.is_(None), table.c.model != model))
            ).scalar_one()

    @digest_bounded
    def store_vectors(self, vectors: dict[tuple[str, str], EntryVectors]) -> None:
        """Replace the vectors of these records (by source and id), in one transaction that
        moves the watermark, so whoever indexes them reads the new vectors."""
        if not vectors:
            return
        table = ingested_papers
        with self._database.begin() as connection:
            mark = advance(self._database, connection, INGESTED_PAPERS)
            for (source, entry_id), found in vectors.items():
                connection.execute(
                    table.update()
                    .where(table.c.source == source, table.c.id == entry_id)
                    .values(
                        model=found.model,
                        title_vector=_vector_bytes(found.title),
                        text_vector=_vector_bytes(found.text),
                        revision=mark,
                    )
                )

    @bounded
    def feed_paper_counts(self) -> dict[str, int]:
        """Records each followed feed gave (by the feed that first brought them)."""
        table = ingested_papers
        with self._database.connect() as connection:
            rows = connection.execute(
                select(table.c.feed, func.count()).group_by(table.c.feed)
            ).all()
        return {row[0]: row[1] for row in rows if row[0] is not None}


def _older(entry: FeedEntry, stored_revised: Any) -> bool:
    return (
        entry.revised is not None and stored_revised is not None and entry.revised < stored_revised
    )


def _row_values(entry: FeedEntry) -> dict[str, Any]:
    return {
        "version": entry.version,
        "title": entry.title,
        "authors": json.dumps(list(entry.authors), ensure_ascii=False),
        "abstract": entry.abstract,
        "categories": _categories(entry),
        "venue": entry.venue,
        "venue_id": entry.venue_id,
        "decision": entry.decision,
        "arxiv_id": entry.arxiv_id,
        "match_key": match_key(entry.title, entry.authors),
        "announced": entry.announced,
        "published": entry.published,
        "revised": entry.revised,
        "page_url": entry.page_url,
        "pdf_url": entry.pdf_url,
        "feed": entry.feed,
        "content_hash": content_hash(entry),
        "text_hash": text_hash(entry),
    }


def _entry(row: Row[Any]) -> FeedEntry:
    return FeedEntry(
        source=row.source,
        id=row.id,
        title=row.title,
        authors=tuple(json.loads(row.authors)),
        abstract=row.abstract,
        version=row.version,
        arxiv_id=row.arxiv_id,
        categories=tuple(row.categories.split()),
        venue=row.venue,
        venue_id=row.venue_id,
        decision=row.decision,
        announced=row.announced,
        published=row.published,
        revised=row.revised,
        page_url=row.page_url,
        pdf_url=row.pdf_url,
        feed=row.feed,
    )


def _merged(paper_id: str, rows: list[Row[Any]]) -> Paper:
    """One paper from its records: the text of the record that made it (its id), the
    decision and venue of the OpenReview one, the arXiv id and announcement of the arXiv
    one, and every record's pages."""
    main = next((row for row in rows if row.id == paper_id), rows[0])
    reviewed = next((row for row in rows if row.source == OPENREVIEW_SOURCE), None)
    preprint = next((row for row in rows if row.source == ARXIV_SOURCE), None)
    published = [row.published for row in rows if row.published is not None]
    revised = [row.revised for row in rows if row.revised is not None]
    pages = tuple(dict.fromkeys(url for row in rows for url in (row.page_url, row.pdf_url) if url))
    return feed_paper(
        paper_id=paper_id,
        title=main.title,
        authors=json.loads(main.authors),
        status=_status(reviewed.decision, reviewed.venue) if reviewed is not None else None,
        url=main.page_url,
        abstract=main.abstract or None,
        source=main.source,
        arxiv_id=preprint.arxiv_id if preprint is not None else main.arxiv_id,
        arxiv_version=preprint.version if preprint is not None else None,
        venue=reviewed.venue if reviewed is not None else None,
        decision=reviewed.decision if reviewed is not None else None,
        announced=preprint.announced if preprint is not None else None,
        published=min(published, default=None),
        updated=max(revised, default=None),
        pages=pages,
        categories=tuple(dict.fromkeys(c for row in rows for c in row.categories.split())),
    )
