"""The paper record every layer shares.

It lives in its own module so that search, rendering and storage can depend on the shape of
a paper without depending on how the corpus files are parsed.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Paper:
    """One paper the bot knows, immutable once loaded.

    Text comes in three forms because each consumer needs a different one: ``abstract`` is
    the author's original (whitespace collapsed), ``plain_abstract`` feeds the index, and
    ``display_abstract`` is Slack mrkdwn, already escaped, ready to show.
    """

    id: str
    title: str
    authors: tuple[str, ...]
    status: str | None
    url: str | None
    abstract: str | None
    plain_abstract: str
    display_abstract: str
    display_title: str
    code_urls: tuple[str, ...]
    links: tuple[str, ...]
    tldr: str
    title_derived: bool
    source: str

    @property
    def openreview_id(self) -> str | None:
        """The OpenReview forum id, when the paper has one (hash ids start with ``h``)."""
        if self.url and "id=" in self.url:
            return self.url.rsplit("id=", 1)[1]
        return None
