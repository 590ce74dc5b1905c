"""Where a paper comes from, since when, and where to read it: the facts under a card's title.

A paper a feed brought says so in its sources' words: its arXiv id and version, its venue and
where it stands there (``ICLR 2026 · Poster``), the day arXiv announced it (or its source
published it) and the day it was last updated, and a link to the abstract page and to the PDF
of each source that has it, so a paper on arXiv and OpenReview shows both. A catalogue paper
(ICLR 2025, on OpenReview) keeps its decision and its one "Read on OpenReview" link.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from urllib.parse import urlsplit

from bot.papers.openreview import openreview_link_id, venue_name
from bot.papers.paper import Paper
from bot.papers.urls import (
    ARXIV_HOSTS,
    ARXIV_PREFIX,
    OPENREVIEW_SITE,
    arxiv_abstract_url,
    arxiv_pdf_url,
    openreview_forum_url,
    openreview_pdf_url,
)
from bot.render.mrkdwn import mrkdwn_link, quoted

ARXIV, OPENREVIEW = "arXiv", "OpenReview"


def is_followed(paper: Paper) -> bool:
    """Whether a feed brought the paper: only such a paper knows these facts."""
    return bool(paper.arxiv_id or paper.venue or paper.decision or paper.pages)


def status_label(paper: Paper) -> str | None:
    """Where the paper stands: for a paper a feed brought, its venue and standing there
    (``ICLR 2026 · Poster``, ``ICLR 2026 · Under review``) and its arXiv id and version; for a
    catalogue paper, its ICLR 2025 decision."""
    if is_followed(paper):
        standing = [item for item in (_venue_standing(paper), _preprint(paper)) if item]
        return " · ".join(standing) or None
    if not paper.status:
        return None
    if paper.accepted:
        return f"ICLR 2025 {paper.status}"
    return f"ICLR 2025 submission ({paper.status})"


def _venue_standing(paper: Paper) -> str | None:
    if not paper.venue:
        return paper.status
    if not paper.status:
        return paper.venue  # OpenReview's own words say all there is
    return f"{venue_name(paper.venue)} · {paper.status}"


def _preprint(paper: Paper) -> str | None:
    if not paper.arxiv_id:
        return None
    version = f"v{paper.arxiv_version}" if paper.arxiv_version else ""
    return f"arXiv {paper.arxiv_id}{version}"


def short_date(day: date) -> str:
    """``2 Dec 2026``: short enough for a card's line, unambiguous in every locale."""
    return f"{day.day} {day:%b %Y}"


def when_label(paper: Paper) -> str | None:
    """Since when the paper is out: the day arXiv announced it, else the day its source
    published it, and the day it was last updated when later (a new version, a decision):
    the days are one fact, so a comma, not the card's dots, parts them."""
    said = []
    first = None
    if paper.announced is not None:
        first = paper.announced
        said.append(f"announced {short_date(first)}")
    elif paper.published is not None:
        first = paper.published.date()
        said.append(f"published {short_date(first)}")
    if paper.updated is not None and (first is None or paper.updated.date() > first):
        said.append(f"updated {short_date(paper.updated.date())}")
    return ", ".join(said) or None


def origin_line(paper: Paper) -> str | None:
    """Where the paper stands and since when, in one line."""
    return " · ".join(item for item in (status_label(paper), when_label(paper)) if item) or None


def site_name(url: str) -> str:
    """The site a paper's page is on, as a reader knows it."""
    return ARXIV if urlsplit(url).hostname in ARXIV_HOSTS else OPENREVIEW


def read_links(paper: Paper) -> list[str]:
    """Where to read the paper, said in words: a linked title alone does not tell a reader
    where it leads. A paper a feed brought links each source's abstract page and its PDF,
    the source of the title's link first."""
    if is_followed(paper):
        return [_read(site, page, pdf) for site, page, pdf in _sources(paper)]
    return [mrkdwn_link(paper.url, f"Read on {site_name(paper.url)}")] if paper.url else []


def _read(site: str, page: str, pdf: str | None) -> str:
    read = mrkdwn_link(page, f"Read on {site}")
    return f"{read} · {mrkdwn_link(pdf, 'PDF')}" if pdf else read


def _sources(paper: Paper) -> list[tuple[str, str, str | None]]:
    """Each source's (name, abstract page, PDF), the one of the paper's own page first."""
    pages = [page for page in (paper.url, *paper.pages) if page]
    sources = []
    forum = next(
        (
            found
            for page in pages
            if page.startswith(OPENREVIEW_SITE) and (found := openreview_link_id(page))
        ),
        None,
    )
    if forum is not None:
        pdf = openreview_pdf_url(forum)
        sources.append((OPENREVIEW, openreview_forum_url(forum), pdf if pdf in pages else None))
    if paper.arxiv_id:
        abstract = arxiv_abstract_url(paper.arxiv_id)
        sources.append((ARXIV, abstract, arxiv_pdf_url(paper.arxiv_id, paper.arxiv_version)))
    first = site_name(paper.url) if paper.url else None
    return sorted(sources, key=lambda source: source[0] != first)


def named_ids(references: Sequence[str]) -> str:
    """The papers links named and the bot lacks, by source: ``the OpenReview id “X”``,
    ``the arXiv ids “2501.01234”, “cs/0112017”``, the sources joined by "or"."""
    by_site: dict[str, list[str]] = {}
    for reference in references:
        if reference.startswith(ARXIV_PREFIX):
            by_site.setdefault(ARXIV, []).append(reference.removeprefix(ARXIV_PREFIX))
        else:
            by_site.setdefault(OPENREVIEW, []).append(reference)
    return " or ".join(
        f"the {site} id{'s' if len(ids) > 1 else ''} " + ", ".join(map(quoted, ids))
        for site, ids in by_site.items()
    )
