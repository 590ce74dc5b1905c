"""Link previews: a card for each pasted OpenReview link that names a catalogue paper."""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from bot.papers.catalogue import PaperLookup
from bot.papers.openreview import openreview_link_id
from bot.papers.paper import Paper
from bot.render import papers as render
from bot.store import DatabaseUnavailable, Store


@dataclass(frozen=True)
class LinkPreviews:
    """Previews rendered once a day per link: the store keeps them for every process."""

    papers: PaperLookup
    store: Store

    def unfurls(self, links: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Previews for the pasted links that name catalogue papers, keyed by link as Slack
        sent it; other links are left out (Slack then shows nothing extra for them).

        A preview rendered in the last day by this version of the card is reused from the
        store.
        """
        found: dict[str, dict[str, Any]] = {}
        for link in dict.fromkeys(links):
            paper_id = openreview_link_id(link)
            paper = self.papers.get(paper_id) if paper_id else None
            if paper is None:
                continue
            found[link] = self._unfurl(link, paper)
        return found

    def _unfurl(self, link: str, paper: Paper) -> dict[str, Any]:
        """The cached preview, else a fresh one, cached; rendering needs no database, so
        while it is unavailable the preview is rendered and not kept."""
        try:
            cached = self.store.cached_unfurl(link, render.RENDER_VERSION)
        except DatabaseUnavailable:
            cached = None
        if cached is not None:
            return dict(json.loads(cached))
        unfurl = {"blocks": list(render.unfurl_message(paper).blocks)}
        with suppress(DatabaseUnavailable):
            self.store.cache_unfurl(link, render.RENDER_VERSION, paper.id, json.dumps(unfurl))
        return unfurl
