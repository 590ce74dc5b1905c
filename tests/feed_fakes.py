"""Loopback fakes of arXiv (RSS, OAI-PMH, the search API) and OpenReview's API v2, one
server on 127.0.0.1, answering in the sources' own formats: RSS 2.0 with ``arxiv:`` and
``dc:`` elements and ``skipDays``, OAI-PMH ``ListRecords`` of ``arXivRaw`` records paged by
``resumptionToken``, the API's Atom with OpenSearch totals, and API v2's ``{"notes": …}``
JSON with ``{"value": …}`` content fields and millisecond dates.

Tests script it: the papers it knows, the day's announcement (an empty weekend feed, ``new``,
``cross``, ``replace`` items, a malformed item), and faults queued per endpoint (a 429 with
OpenReview's reset time, a 503 with ``Retry-After``, a timeout). It records every request
with the time on the test's clock, so a test can check the pace.
"""

# ruff: noqa: E501 (the XML templates keep the sources' own lines, attributes and all)
from __future__ import annotations

import json
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from xml.sax.saxutils import escape, quoteattr

WORDS = [
    "sparse",
    "attention",
    "graph",
    "diffusion",
    "reward",
    "shaping",
    "contrastive",
    "token",
    "routing",
    "kernel",
    "bandit",
    "causal",
    "retrieval",
    "memory",
    "distillation",
    "pruning",
    "federated",
    "spectral",
    "robust",
]
SURNAMES = [
    "Lovelace",
    "Turing",
    "Hopper",
    "Noether",
    "Gauss",
    "Euler",
    "Curie",
    "Shannon",
    "Ramanujan",
    "Hamilton",
]


@dataclass
class FakePaper:
    """A paper arXiv knows: ``announce`` is how the day's feed lists it."""

    arxiv_id: str
    title: str
    authors: tuple[str, ...]
    abstract: str
    categories: tuple[str, ...] = ("cs.LG",)
    version: int = 1
    submitted: datetime = datetime(2025, 1, 3, 18, 0, tzinfo=UTC)
    datestamp: date = date(2025, 1, 6)
    announce: str = "new"


def paper(number: int, **changes: object) -> FakePaper:
    """A deterministic paper: ``2501.NNNNN``, a title of words drawn from its number."""
    words = [WORDS[(number * 7 + k * 3) % len(WORDS)] for k in range(5)]
    first, second = SURNAMES[number % len(SURNAMES)], SURNAMES[(number + 3) % len(SURNAMES)]
    values: dict[str, object] = {
        "arxiv_id": f"2501.{number:05d}",
        "title": f"{' '.join(words).capitalize()} number {number}",
        "authors": (f"Ada {first}", f"Alan {second}"),
        "abstract": f"We study {words[0]} and {words[1]} for problem {number}. It works well.",
    }
    return FakePaper(**(values | changes))  # type: ignore[arg-type]


@dataclass
class Fault:
    """What the next matching request gets instead of an answer."""

    status: int = 0  # 0: a timeout (no answer for ``hang`` seconds)
    reset_in: timedelta | None = None
    retry_after: int | None = None
    hang: float = 2.0


@dataclass
class Recorded:
    at: datetime
    lane: str
    path: str
    query: dict[str, str]
    user_agent: str


@dataclass
class FeedFake:
    clock: Callable[[], datetime]
    papers: list[FakePaper] = field(default_factory=list)
    announced: list[FakePaper] | None = field(default_factory=list)
    """Today's RSS items (``[]``: an empty day, as on a weekend)."""
    announcement_day: date = date(2025, 1, 6)
    malformed_item: bool = False
    notes: list[dict] = field(default_factory=list)
    oai_page_size: int = 1000
    faults: dict[str, list[Fault]] = field(default_factory=dict)
    requests: list[Recorded] = field(default_factory=list)
    base: str = ""

    # --- what tests read ---------------------------------------------------------------------

    def lane_times(self, lane: str) -> list[datetime]:
        return [request.at for request in self.requests if request.lane == lane]

    def count(self, lane: str | None = None) -> int:
        return sum(1 for request in self.requests if lane is None or request.lane == lane)

    def fail_next(self, endpoint: str, *faults: Fault) -> None:
        """Queue faults for ``rss``, ``oai``, ``api`` or ``notes``."""
        self.faults.setdefault(endpoint, []).extend(faults)

    @property
    def environment(self) -> dict[str, str]:
        return {
            "PAPERBOT_ARXIV_RSS_URL": f"{self.base}/rss/",
            "PAPERBOT_ARXIV_OAI_URL": f"{self.base}/oai",
            "PAPERBOT_ARXIV_API_URL": f"{self.base}/api/query",
            "PAPERBOT_OPENREVIEW_URL": self.base,
        }

    # --- answers -----------------------------------------------------------------------------

    def answer(self, path: str, query: dict[str, str], user_agent: str) -> tuple[int, dict, bytes]:
        endpoint = {"/rss": "rss", "/oai": "oai", "/api": "api", "/notes": "notes"}.get(
            "/" + path.strip("/").split("/", 1)[0], "unknown"
        )
        lane = "openreview" if endpoint == "notes" else "arxiv"
        self.requests.append(Recorded(self.clock(), lane, path, query, user_agent))
        queued = self.faults.get(endpoint)
        if queued:
            return self._fault(queued.pop(0))
        if endpoint == "rss":
            return 200, {"Content-Type": "application/rss+xml"}, self._rss()
        if endpoint == "oai":
            return 200, {"Content-Type": "text/xml"}, self._oai(query)
        if endpoint == "api":
            return 200, {"Content-Type": "application/atom+xml"}, self._api(query)
        if endpoint == "notes":
            return 200, {"Content-Type": "application/json"}, self._notes(query)
        return 404, {}, b"not found"

    def _fault(self, fault: Fault) -> tuple[int, dict, bytes]:
        if fault.status == 0:
            time.sleep(fault.hang)
            return 504, {}, b""
        headers: dict[str, str] = {"Content-Type": "application/json"}
        body: dict[str, object] = {"name": "Error", "message": "Service unavailable"}
        if fault.retry_after is not None:
            headers["Retry-After"] = str(fault.retry_after)
        if fault.reset_in is not None:
            reset = (self.clock() + fault.reset_in).astimezone(UTC)
            body = {
                "name": "RateLimitError",
                "message": "Too many requests: 1000 per 1 minute. Please try again later.",
                "status": 429,
                "details": {"resetTime": reset.isoformat().replace("+00:00", "Z")},
            }
        return fault.status, headers, json.dumps(body).encode()

    def _rss(self) -> bytes:
        day = self.announcement_day.strftime("%a, %d %b %Y")
        items = []
        for known in self.announced or ():
            items.append(
                f"""    <item>
      <title>{escape(known.title)}</title>
      <link>https://arxiv.org/abs/{known.arxiv_id}</link>
      <description>arXiv:{known.arxiv_id}v{known.version} Announce Type: {known.announce}
Abstract: {escape(known.abstract)}</description>
      <guid isPermaLink="false">oai:arXiv.org:{known.arxiv_id}v{known.version}</guid>
{"".join(f"      <category>{c}</category>{chr(10)}" for c in known.categories)}      <pubDate>{day} 00:00:00 -0500</pubDate>
      <arxiv:announce_type>{known.announce}</arxiv:announce_type>
      <dc:rights>http://creativecommons.org/licenses/by/4.0/</dc:rights>
      <dc:creator>{escape(", ".join(known.authors))}</dc:creator>
    </item>
"""
            )
        if self.malformed_item:
            items.append(
                "    <item>\n      <title>No id at all</title>\n      <description>Announce "
                "Type: new</description>\n      <category>cs.LG</category>\n    </item>\n"
            )
        return f"""<?xml version='1.0' encoding='UTF-8'?>
<rss xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/" version="2.0">
  <channel>
    <title>cs.LG updates on arXiv.org</title>
    <link>http://rss.arxiv.org/rss/cs.LG</link>
    <description>cs.LG updates on the arXiv.org e-print archive.</description>
    <atom:link href="http://rss.arxiv.org/rss/cs.LG" rel="self" type="application/rss+xml"/>
    <docs>http://www.rssboard.org/rss-specification</docs>
    <language>en-us</language>
    <lastBuildDate>{day} 05:00:00 +0000</lastBuildDate>
    <managingEditor>rss-help@arxiv.org</managingEditor>
    <pubDate>{day} 00:00:00 -0500</pubDate>
    <skipDays>
      <day>Saturday</day>
      <day>Sunday</day>
    </skipDays>
{"".join(items)}  </channel>
</rss>
""".encode()

    def _oai(self, query: dict[str, str]) -> bytes:
        token = query.get("resumptionToken")
        if token:
            spec, since, until, cursor = token.split("|")
        else:
            spec, since, until, cursor = (
                query.get("set", ""),
                query.get("from", ""),
                query.get("until", ""),
                "0",
            )
        chosen = [
            known
            for known in self.papers
            if known.categories[0].split(".")[0] == spec
            and (not since or known.datestamp.isoformat() >= since)
            and (not until or known.datestamp.isoformat() <= until)
        ]
        start = int(cursor)
        page = chosen[start : start + self.oai_page_size]
        head = (
            '<?xml version="1.0" encoding="UTF-8"?>\n<OAI-PMH xmlns="http://www.openarchives.org/'
            'OAI/2.0/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation'
            '="http://www.openarchives.org/OAI/2.0/ http://www.openarchives.org/OAI/2.0/OAI-PMH.'
            f'xsd">\n<responseDate>{self.clock():%Y-%m-%dT%H:%M:%SZ}</responseDate>\n'
            f'<request verb="ListRecords">{escape(self.base)}/oai</request>\n'
        )
        if not chosen:
            return (
                head + '<error code="noRecordsMatch">No records match.</error>\n</OAI-PMH>\n'
            ).encode()
        records = "".join(_raw_record(known) for known in page)
        end = start + len(page)
        following = f"{spec}|{since}|{until}|{end}" if end < len(chosen) else ""
        resumption = (
            f'<resumptionToken cursor="{start}" completeListSize="{len(chosen)}">'
            f"{escape(following)}</resumptionToken>"
        )
        return (
            f"{head}<ListRecords>\n{records}{resumption}\n</ListRecords>\n</OAI-PMH>\n"
        ).encode()

    def _api(self, query: dict[str, str]) -> bytes:
        search = query.get("search_query", "")
        category = search.split("cat:", 1)[1].split(" ", 1)[0]
        low, high = search.split("[", 1)[1].rstrip("]").split(" TO ")
        chosen = [
            known
            for known in self.papers
            if category in known.categories
            and low[:8] <= known.submitted.strftime("%Y%m%d") <= high[:8]
        ]
        start, size = int(query.get("start", "0")), int(query.get("max_results", "10"))
        entries = "".join(_atom_entry(known) for known in chosen[start : start + size])
        return f"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <id>https://arxiv.org/api/fake</id>
  <title>arXiv Query: {escape(search)}</title>
  <updated>{self.clock():%Y-%m-%dT%H:%M:%SZ}</updated>
  <link href="https://arxiv.org/api/query" type="application/atom+xml"/>
  <opensearch:itemsPerPage>{size}</opensearch:itemsPerPage>
  <opensearch:totalResults>{len(chosen)}</opensearch:totalResults>
  <opensearch:startIndex>{start}</opensearch:startIndex>
{entries}</feed>
""".encode()

    def _notes(self, query: dict[str, str]) -> bytes:
        invitation = query.get("invitation", "")
        chosen = [note for note in self.notes if invitation in note.get("invitations", ())]
        chosen.sort(key=lambda note: note["tmdate"], reverse=True)
        offset, limit = int(query.get("offset", "0")), int(query.get("limit", "1000"))
        page = chosen[offset : offset + limit]
        return json.dumps({"notes": page, "count": len(chosen)}).encode()


def _raw_record(known: FakePaper) -> str:
    versions = "".join(
        f'<version version="v{number}"><date>'
        f"{(known.submitted + timedelta(days=number - 1)):%a, %d %b %Y %H:%M:%S} GMT</date>"
        f"<size>120kb</size><source_type>D</source_type></version>"
        for number in range(1, known.version + 1)
    )
    return f"""<record><header><identifier>oai:arXiv.org:{known.arxiv_id}</identifier><datestamp>{known.datestamp}</datestamp><setSpec>{known.categories[0].split(".")[0]}</setSpec></header><metadata>
<arXivRaw xmlns="http://arxiv.org/OAI/arXivRaw/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://arxiv.org/OAI/arXivRaw/ http://arxiv.org/OAI/arXivRaw.xsd">
<id>{known.arxiv_id}</id><submitter>{escape(known.authors[0])}</submitter>{versions}
<title>{escape(known.title)}</title><authors>{escape(", ".join(known.authors[:-1]) + " and " + known.authors[-1] if len(known.authors) > 1 else known.authors[0])}</authors>
<categories>{" ".join(known.categories)}</categories><license>http://creativecommons.org/licenses/by/4.0/</license>
<abstract>  {escape(known.abstract)}
</abstract></arXivRaw></metadata></record>
"""


def _atom_entry(known: FakePaper) -> str:
    authors = "".join(f"<author><name>{escape(name)}</name></author>" for name in known.authors)
    categories = "".join(
        f'<category term="{c}" scheme="http://arxiv.org/schemas/atom"/>' for c in known.categories
    )
    return f"""  <entry>
    <id>http://arxiv.org/abs/{known.arxiv_id}v{known.version}</id>
    <updated>{known.submitted:%Y-%m-%dT%H:%M:%SZ}</updated>
    <published>{known.submitted:%Y-%m-%dT%H:%M:%SZ}</published>
    <title>{escape(known.title)}</title>
    <summary>{escape(known.abstract)}</summary>
    {authors}
    <link href="http://arxiv.org/abs/{known.arxiv_id}v{known.version}" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/{known.arxiv_id}v{known.version}" rel="related" type="application/pdf"/>
    <arxiv:primary_category term={quoteattr(known.categories[0])} scheme="http://arxiv.org/schemas/atom"/>
    {categories}
  </entry>
"""


def note(
    forum: str,
    title: str,
    authors: tuple[str, ...],
    venue: str,
    *,
    venue_id: str,
    venue_label: str,
    tmdate: datetime,
    arxiv: str | None = None,
) -> dict:
    """An API v2 submission note of ``venue``."""
    milliseconds = int(tmdate.timestamp() * 1000)
    content: dict[str, dict[str, object]] = {
        "title": {"value": title},
        "authors": {"value": list(authors)},
        "authorids": {"value": [f"~{name.replace(' ', '_')}1" for name in authors]},
        "abstract": {"value": f"We present {title.lower()}."},
        "keywords": {"value": ["learning"]},
        "venue": {"value": venue_label},
        "venueid": {"value": venue_id},
        "pdf": {"value": f"/pdf/{forum}.pdf"},
    }
    return {
        "id": forum,
        "forum": forum,
        "number": 1,
        "cdate": milliseconds - 86_400_000,
        "tcdate": milliseconds - 86_400_000,
        "mdate": milliseconds,
        "tmdate": milliseconds,
        "pdate": None,
        "odate": milliseconds - 86_400_000,
        "content": content,
        "invitations": [f"{venue}/-/Submission", f"{venue}/-/Post_Submission"],
        "domain": venue,
        "readers": ["everyone"],
        "writers": [venue],
        "signatures": [f"{venue}/Submission1/Authors"],
        "externalIds": [f"arxiv:{arxiv}"] if arxiv else [],
        "version": 2,
    }


@contextmanager
def running(fake: FeedFake) -> Iterator[FeedFake]:
    """Serve ``fake`` on 127.0.0.1 while the block runs; ``fake.base`` is its root URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urllib.parse.urlsplit(self.path)
            query = dict(urllib.parse.parse_qsl(parts.query))
            status, headers, body = fake.answer(
                parts.path, query, self.headers.get("User-Agent", "")
            )
            try:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting (a timeout fault)

        def log_message(self, format: str, *args: object) -> None:
            """Quiet: the fake records the requests."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    fake.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
