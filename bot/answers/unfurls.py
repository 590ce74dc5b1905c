"""Link previews: a card for each pasted OpenReview link that names a catalogue paper."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from bot.papers.catalogue import PaperLookup
from bot.papers.openreview import openreview_link_id
from bot.papers.paper import Paper
from bot.render import papers as render
from bot.store import DatabaseUnavailable, Store

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LinkPreviews:
    """Previews rendered once a day per link: the store keeps them for every process."""

    papers: PaperLookup
    store: Store

    def unfurls(
        self, links: Sequence[str], *, shown_in: tuple[str | None, str] | None = None
    ) -> dict[str, dict[str, Any]]:
        """Previews for the pasted links that name catalogue papers, keyed by link as Slack
        sent it; other links are left out (Slack then shows nothing extra for them).
        ``shown_in`` is the workspace and channel of a posted message: its papers count as
        seen there (its paper of the day passes over them), as a Share does.

        A preview rendered in the last day by this version of the card is reused from the
        store.
        """
        found: dict[str, dict[str, Any]] = {}
        shown: list[str] = []
        for link in dict.fromkeys(links):
            paper_id = openreview_link_id(link)
            paper = self.papers.get(paper_id) if paper_id else None
            if paper is None:
                continue
            found[link] = self._unfurl(link, paper)
            shown.append(paper.id)
        if shown_in is not None and shown:
            try:
                self.store.record_shown(*shown_in, shown)
            except DatabaseUnavailable as error:
                log.warning("papers linked in %s not counted as seen: %s", shown_in[1], error)
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
