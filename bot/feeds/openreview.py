"""OpenReview venues (ICLR, NeurIPS, ICML, TMLR, …) through API v2, as a guest: each
venue's submissions and their decisions, metadata only, never a PDF.

openreview-py's client is never built: it logs in by itself when ``OPENREVIEW_USERNAME`` is
in the environment, fetches with no timeout and retries a 429 eight times on its own clock.
The pages are fetched here (paced, timed; a 429's reset time honoured) and each note is read
by the client's own ``Note.from_json``.

A venue's submissions are the notes of its ``…/-/Submission`` invitation; where each stands
is its ``content.venueid``: the venue's id once accepted, ``…/Rejected_Submission``,
``…/Withdrawn_Submission`` (or ``Desk_Rejected``), else still under review. Incremental by
modification: the notes are read newest change first (``sort=tmdate:desc``; ``get_notes``
has no ``mintmdate``) down to the newest change the last good run saw, so a new submission
(its creation is its first change) and a decision arriving later are both read, and nothing
older is read again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from bot.feeds.arxiv_common import Malformed
from bot.papers.sameness import arxiv_id_in
from bot.papers.text import normalise_whitespace
from bot.papers.urls import openreview_forum_url, openreview_pdf_url
from bot.settings import FollowedFeed
from bot.store.records import (
    ACCEPTED,
    OPENREVIEW_SOURCE,
    REJECTED,
    UNDER_REVIEW,
    WITHDRAWN,
    FeedEntry,
)

if TYPE_CHECKING:
    from openreview.api import Note

NOTES_PER_PAGE = 1000
"""API v2's largest page (``limit``)."""


@dataclass(frozen=True)
class NotesPage:
    """One page of a venue's submissions, newest change first: the entries, the malformed
    notes skipped, the newest change on the page (epoch ms), and whether the scan reached
    changes the last run had seen (nothing further to read)."""

    entries: tuple[FeedEntry, ...]
    malformed: int
    newest: int | None
    reached_watermark: bool


def submissions(
    endpoint: str,
    fetch: Callable[[str, dict[str, Any]], bytes],
    feed: FollowedFeed,
    watermark: int | None,
    page_size: int = NOTES_PER_PAGE,
) -> Iterator[NotesPage]:
    """The venue's submissions changed after ``watermark`` (epoch ms; None: all)."""
    offset = 0
    while True:
        data = fetch(
            endpoint.rstrip("/") + "/notes",
            {
                "invitation": f"{feed.name}/-/Submission",
                "sort": "tmdate:desc",
                "limit": page_size,
                "offset": offset,
            },
        )
        try:
            notes = json.loads(data)["notes"]
        except (ValueError, KeyError, TypeError):
            raise Malformed("OpenReview answered something that is not a list of notes") from None
        page = _page(notes, feed, watermark)
        yield page
        if page.reached_watermark or len(notes) < page_size:
            return
        offset += page_size


def _page(notes: list[Any], feed: FollowedFeed, watermark: int | None) -> NotesPage:
    # Imported here: openreview-py takes 0.6 s to import, which a bot following no venue
    # (most) should not pay at every start.
    from openreview.api import Note

    entries: list[FeedEntry] = []
    malformed = 0
    newest: int | None = None
    reached = False
    for raw in notes:
        try:
            note = Note.from_json(raw)
            changed = int(note.tmdate or note.mdate or note.cdate)
        except (AttributeError, TypeError, ValueError):
            malformed += 1
            continue
        if watermark is not None and changed <= watermark:
            reached = True
            break
        newest = max(newest or changed, changed)
        try:
            entries.append(_entry(note, feed))
        except (Malformed, AttributeError, KeyError, TypeError, ValueError):
            malformed += 1
    return NotesPage(tuple(entries), malformed, newest, reached)


def _value(content: dict[str, Any], name: str) -> Any:
    field = content.get(name)
    return field.get("value") if isinstance(field, dict) else field


def decision(venue: str, venue_id: str | None) -> str:
    """Where a submission stands, from its ``content.venueid``."""
    if venue_id == venue:
        return ACCEPTED
    ending = (venue_id or "").rsplit("/", 1)[-1]
    if ending in {"Rejected_Submission", "Desk_Rejected_Submission"}:
        return REJECTED
    if ending == "Withdrawn_Submission":
        return WITHDRAWN
    return UNDER_REVIEW


def _instant(milliseconds: Any) -> datetime | None:
    return None if not milliseconds else datetime.fromtimestamp(int(milliseconds) / 1000, UTC)


def _entry(note: Note, feed: FollowedFeed) -> FeedEntry:
    content = note.content or {}
    title = normalise_whitespace(str(_value(content, "title") or ""))
    forum = note.forum or note.id
    if not title or not forum:
        raise Malformed(f"note {note.id!r} has no title or forum")
    authors = _value(content, "authors") or ()
    if not isinstance(authors, list):
        raise Malformed(f"note {note.id!r}: authors is not a list")
    venue_id = _value(content, "venueid")
    external = " ".join(str(name) for name in (note.external_ids or ()))
    abstract = str(_value(content, "abstract") or "")
    return FeedEntry(
        source=OPENREVIEW_SOURCE,
        id=str(forum),
        title=title,
        authors=tuple(normalise_whitespace(str(name)) for name in authors if name),
        abstract=normalise_whitespace(abstract),
        arxiv_id=arxiv_id_in(
            external.replace("arxiv:", "arxiv.org/abs/"),
            _value(content, "arxiv"),
            _value(content, "arxiv_link"),
        ),
        venue=_value(content, "venue"),
        venue_id=venue_id,
        decision=decision(feed.name, venue_id),
        published=_instant(note.pdate or note.odate or note.cdate),
        revised=_instant(note.tmdate or note.mdate),
        page_url=openreview_forum_url(str(forum)),
        pdf_url=openreview_pdf_url(str(forum)) if _value(content, "pdf") else None,
        feed=feed.key,
    )
