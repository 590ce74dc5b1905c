"""A reading list as a BibTeX file, written by pybtex rather than by hand.

Hand-built BibTeX breaks on the first title with ``&``, ``%`` or ``#`` in it; pybtex's writer
escapes those and lays out author lists as BibTeX expects (``Last, First and …``). What it
cannot fix is an unbalanced brace, so braces and backslashes are dropped from the text first:
catalogue titles are plain text and never need them.
"""

from __future__ import annotations

from collections.abc import Iterable

from pybtex.database import BibliographyData, Entry, Person

from bot.papers.paper import Paper

YEAR = "2025"
BOOKTITLE = "The Thirteenth International Conference on Learning Representations (ICLR 2025)"
SUBMITTED = "Submitted to ICLR 2025"
_UNSAFE = str.maketrans("", "", "{}\\")


def _safe(text: str) -> str:
    return " ".join(text.translate(_UNSAFE).split())


def citation_key(paper: Paper) -> str:
    """The OpenReview id, which is what people cite ICLR papers by; else the paper's own id."""
    return paper.openreview_id or paper.id


def _entry(paper: Paper) -> Entry:
    accepted = paper.accepted
    fields = [("title", "{" + _safe(paper.title) + "}"), ("year", YEAR)]
    fields.append(("booktitle", BOOKTITLE) if accepted else ("howpublished", SUBMITTED))
    if paper.url:
        fields.append(("url", paper.url))
    authors = [Person(_safe(name)) for name in paper.authors if _safe(name)]
    return Entry(
        "inproceedings" if accepted else "misc",
        fields=fields,
        persons={"author": authors} if authors else None,
    )


def bibtex(papers: Iterable[Paper]) -> str:
    """One entry per paper, in the order given (a paper listed twice appears once)."""
    entries: dict[str, Entry] = {}
    for paper in papers:
        entries.setdefault(citation_key(paper), _entry(paper))
    return BibliographyData(entries=entries).to_string("bibtex")
