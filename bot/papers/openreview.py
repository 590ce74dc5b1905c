"""The one rule for which paper an OpenReview link names.

A link reaches the bot in many forms: typed into ``/paper`` with or without ``www.``, as a
forum, PDF, attachment or revisions link, with more parameters than ``id``, at the end of a
sentence (``…?id=X.``), or as Slack sends it, wrapped as ``<url>`` or ``<url|label>`` with
``&`` escaped as ``&amp;``.
The query parser, the search index, the catalogue lookup, link previews and a paper's own
``url`` all ask here, so a link names the same paper (or none) wherever it is pasted; the
arXiv rule beside it (``bot.papers.urls``) reads a link the same way (``link_parts``).

A venue's name is read here too, out of OpenReview's wording of where a submission stands.
"""

from __future__ import annotations

import re
from urllib.parse import SplitResult, parse_qs, urlsplit

OPENREVIEW_HOSTS = frozenset({"openreview.net", "www.openreview.net"})
PAPER_PATHS = frozenset({"/forum", "/pdf", "/attachment", "/revisions"})
"""The pages whose ``id`` is a paper's; other pages' (``/group?id=ICLR.cc/2025``) are not."""
_PAPER_ID = re.compile(r"[\w-]+")
"""OpenReview ids are letters, digits, ``_`` and ``-``: what follows is the sentence's."""


def _unwrapped(link: str) -> str:
    """The URL of Slack's ``<url>`` or ``<url|label>``, either bracket optional."""
    return link.strip().removeprefix("<").split("|", 1)[0].removesuffix(">")


def link_parts(link: str, hosts: frozenset[str]) -> SplitResult | None:
    """The parts of a pasted http(s) link to one of ``hosts``, as typed or as Slack sends it;
    None for other sites and schemes, or text with a space in it (no link).

    Slack escapes ``&`` in the links it sends as ``&amp;``, so that is undone first, and only
    that (``<`` and ``>`` never occur in a URL, and ``html.unescape`` would also read
    ``&noteId`` as ``¬eId``)."""
    url = _unwrapped(link).replace("&amp;", "&")
    if not url or any(char.isspace() for char in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme not in {"http", "https"} or (parts.hostname or "") not in hosts:
        return None
    return parts


def openreview_link_id(link: str) -> str | None:
    """The paper id of an OpenReview link to one of a paper's pages (``PAPER_PATHS``), else
    None: other pages and other domains name no paper, nor does text with a space in it
    (``link_parts``). Callers keep the string they were sent as the key they answer under."""
    parts = link_parts(link, OPENREVIEW_HOSTS)
    if parts is None or parts.path.rstrip("/") not in PAPER_PATHS:
        return None
    ids = parse_qs(parts.query).get("id")
    found = _PAPER_ID.match(ids[0].strip()) if ids else None
    return found.group() if found else None


_STANDING = re.compile(
    r"^(?:Submitted\s+to\s+)?(?P<name>.+?)"
    r"(?:\s+(?:Conference\s+)?(?:Withdrawn|Desk\s+Rejected|Rejected)\s+Submission"
    r"|\s+(?:Oral|Spotlight|Poster))?$",
    re.IGNORECASE,
)


def venue_name(venue: str) -> str:
    """The venue in OpenReview's ``content.venue`` without the submission's standing in it:
    ``ICLR 2026`` of ``ICLR 2026 Poster``, ``Submitted to ICLR 2026`` and ``ICLR 2026
    Conference Withdrawn Submission``; a wording it does not know stays whole."""
    found = _STANDING.fullmatch(venue.strip())
    return found["name"] if found else venue.strip()
