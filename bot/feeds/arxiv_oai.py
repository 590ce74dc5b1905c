"""Missed days and first loads through arXiv's OAI-PMH interface, harvested with sickle.

``ListRecords`` in the ``arXivRaw`` format (authors in order, categories with the primary
first, every version with its date) for the archive's set (``cs`` for ``cs.LG``), from a
datestamp: a record's datestamp is its last change, so a harvest from the last good day
brings every paper announced or replaced since. The server chooses the page size (arXiv
serves up to 1,000 records a page, then a ``resumptionToken``); sickle follows the tokens,
and every page is fetched here, in its turn of arXiv's pace (one request every 3 s).
"""

from __future__ import annotations

import email.utils
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from bot.feeds.arxiv_common import Malformed, arxiv_entry, taken_by
from bot.feeds.http import FetchError
from bot.settings import FollowedFeed
from bot.store.records import FeedEntry

if TYPE_CHECKING:
    from sickle import Sickle
    from sickle.response import OAIResponse

METADATA_PREFIX = "arXivRaw"
RECORDS_PER_PAGE = 1000
"""What arXiv's OAI-PMH server returns a page (ListRecords); the harvester cannot choose."""
_RAW = "{http://arxiv.org/OAI/arXivRaw/}"


@dataclass(frozen=True)
class Page:
    """One harvested page: the entries the followed categories take, and the records
    skipped as malformed."""

    entries: tuple[FeedEntry, ...]
    malformed: int


class _Fetched:
    """The bytes a request brought, in the shape sickle reads a response in."""

    def __init__(self, content: bytes) -> None:
        self.content = content
        self.text = content.decode("utf-8", errors="replace")
        self.status_code = 200


def _paced_sickle(endpoint: str, fetch: Callable[[str, dict[str, Any]], bytes]) -> Sickle:
    """sickle with its requests made by the bot's fetch (paced, timed, retried there).
    Built on first use: sickle brings requests, a quarter of a second to import, which a
    bot following no arXiv category should not pay at every start."""
    from sickle import Sickle
    from sickle.iterator import OAIResponseIterator
    from sickle.response import OAIResponse

    class PacedSickle(Sickle):
        def harvest(self, **kwargs: Any) -> OAIResponse:
            return OAIResponse(_Fetched(fetch(self.endpoint, kwargs)), params=kwargs)

    return PacedSickle(endpoint, iterator=OAIResponseIterator, max_retries=0)


def archive_set(category: str) -> str:
    """The OAI set holding a category: its archive (``cs``), physics archives under
    ``physics:`` (``physics:hep-th``)."""
    archive = category.split(".", 1)[0]
    if archive in {"cs", "math", "nlin", "q-bio", "q-fin", "stat", "econ", "eess"}:
        return archive
    return f"physics:{archive}"


def harvest(
    endpoint: str,
    fetch: Callable[[str, dict[str, Any]], bytes],
    feeds: Sequence[FollowedFeed],
    since: date,
    until: date | None = None,
) -> Iterator[Page]:
    """Every page of the followed categories' sets changed from ``since`` (to ``until``,
    inclusive), one set at a time; ``FetchError`` when a page cannot be read."""
    from sickle.oaiexceptions import NoRecordsMatch, OAIError

    sickle = _paced_sickle(endpoint, fetch)
    for spec in sorted({archive_set(feed.name) for feed in feeds}):
        params: dict[str, Any] = {
            "metadataPrefix": METADATA_PREFIX,
            "set": spec,
            "from": since.isoformat(),
        }
        if until is not None:
            params["until"] = until.isoformat()
        try:
            for response in sickle.ListRecords(**params):
                yield _page(response, sickle, feeds)
        except NoRecordsMatch:
            continue
        except OAIError as error:
            raise FetchError(f"arXiv OAI-PMH refused the harvest: {error}") from None


def _page(response: OAIResponse, sickle: Sickle, feeds: Sequence[FollowedFeed]) -> Page:
    from sickle.models import Record

    entries: list[FeedEntry] = []
    malformed = 0
    for element in response.xml.iterfind(f".//{sickle.oai_namespace}record"):
        try:
            record = Record(element, strip_ns=False)
            if record.deleted:
                continue
            entry = _entry(record.xml, feeds)
        except (Malformed, AttributeError, ValueError, TypeError, IndexError):
            malformed += 1
            continue
        if entry is not None:
            entries.append(entry)
    return Page(tuple(entries), malformed)


def _text(element: Any, name: str) -> str:
    found = element.find(f".//{_RAW}{name}")
    return "" if found is None or found.text is None else found.text


def _entry(xml: Any, feeds: Sequence[FollowedFeed]) -> FeedEntry | None:
    raw = xml.find(f".//{_RAW}arXivRaw")
    if raw is None:
        raise Malformed("no arXivRaw metadata")
    categories = _text(raw, "categories").split()
    feed = taken_by(categories, feeds)
    if feed is None:
        return None
    arxiv_id = _text(raw, "id").strip()
    if not arxiv_id:
        raise Malformed("a record without an id")
    versions = [
        (int(element.get("version", "v1").lstrip("v")), _date(_text(element, "date")))
        for element in raw.iterfind(f"{_RAW}version")
    ]
    number, revised = max(versions, default=(1, None))
    first = min(versions, default=(1, None))[1]
    return arxiv_entry(
        arxiv_id=arxiv_id,
        version=number,
        title=_text(raw, "title"),
        authors=_authors(_text(raw, "authors")),
        abstract=_text(raw, "abstract"),
        categories=categories,
        feed=feed,
        announced=None,
        published=first,
        revised=revised,
    )


def _authors(text: str) -> list[str]:
    """arXivRaw's author line: ``A, B and C`` (affiliations in parentheses dropped)."""
    names: list[str] = []
    depth = 0
    current = ""
    for char in " ".join(text.split()).replace(" and ", ", "):
        depth += char == "("
        if depth == 0 and char == ",":
            names.append(current)
            current = ""
        elif depth == 0:
            current += char
        depth -= char == ")" and depth > 0
    names.append(current)
    return [name.strip() for name in names if name.strip()]


def _date(text: str) -> datetime | None:
    try:
        return email.utils.parsedate_to_datetime(text).astimezone(UTC)
    except (TypeError, ValueError):
        return None
