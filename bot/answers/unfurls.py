"""Link previews: a card for each pasted OpenReview link that names a catalogue paper."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.papers.catalogue import PaperLookup
from bot.papers.openreview import openreview_link_id
from bot.render import papers as render
from bot.store import Store


@dataclass(frozen=True)
class LinkPreviews:
    """Previews rendered once a day per link: the store keeps them for every process."""

    papers: PaperLookup
    store: Store

    def unfurls(self, links: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Previews for the pasted links that name catalogue papers, keyed by link as Slack
        sent it; other links are left out (Slack then shows nothing extra for them).

        A preview rendered in the last day is reused from the store.
        """
        found: dict[str, dict[str, Any]] = {}
        for link in dict.fromkeys(links):
            paper_id = openreview_link_id(link)
            paper = self.papers.get(paper_id) if paper_id else None
            if paper is None:
                continue
            cached = self.store.cached_unfurl(link)
            if cached is None:
                unfurl = {"blocks": list(render.unfurl_message(paper).blocks)}
                self.store.cache_unfurl(link, paper.id, json.dumps(unfurl))
            else:
                unfurl = json.loads(cached)
            found[link] = unfurl
        return found
