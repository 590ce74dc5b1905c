"""Link previews: a card for each pasted OpenReview or arXiv link that names a paper the bot
has (in the catalogue, or brought by a feed)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from bot.papers.catalogue import PaperLookup
from bot.papers.paper import Paper
from bot.papers.urls import linked_paper_id
from bot.render import papers as render
from bot.store import DatabaseUnavailable, Store

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LinkPreviews:
    """Previews rendered once a day per link: the store keeps them for every process.

    ``has_rotation`` says whether a channel has a paper of the day or a weekly digest: only
    there do linked papers count as seen (a direct message, a group DM, a channel with
    neither keeps nothing)."""

    papers: PaperLookup
    store: Store
    has_rotation: Callable[[str], bool]

    def unfurls(self, links: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Previews for the pasted links that name papers the bot has, keyed by link as Slack
        sent it; other links are left out (Slack then shows nothing extra for them).

        A preview rendered in the last day by this version of the card is reused from the
        store.
        """
        return {link: self._unfurl(link, paper) for link, paper in self._linked(links).items()}

    def record_shown(self, team_id: str | None, channel: str, links: Sequence[str]) -> None:
        """The papers a message posted in ``channel`` links count as seen there, so
        its rotation passes over them, as after a Share; only in a channel with a rotation.
        Called once the previews are out: a database that fails here is logged and costs
        only the count."""
        papers = {paper.id for paper in self._linked(links).values()}
        if not papers:
            return
        try:
            if self.has_rotation(channel):
                self.store.record_shown(team_id, channel, papers)
        except DatabaseUnavailable as error:
            log.warning("papers linked in %s not counted as seen: %s", channel, error)

    def _linked(self, links: Sequence[str]) -> dict[str, Paper]:
        """The paper each link names, by link (once each, in order)."""
        found = {}
        for link in dict.fromkeys(links):
            paper_id = linked_paper_id(link)
            paper = self.papers.get(paper_id) if paper_id else None
            if paper is not None:
                found[link] = paper
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
