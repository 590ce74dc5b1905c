"""The App Home tab: the reading list, the subscribed channels the person can see, and the
abstract modal its **Abstract** opens (a tab has no thread to answer in)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from enum import Enum
from functools import partial
from typing import Any

from bot.answers.digest import DigestCommands
from bot.answers.expiring import ExpiringCache
from bot.answers.foryou import Suggestions
from bot.answers.reading_list import ReadingList, last_page_start
from bot.answers.viewer import Viewer
from bot.buttons import FIRST_PAGES, HomePlaces
from bot.clock import Clock
from bot.papers.catalogue import PaperLookup
from bot.render import home as render_home
from bot.store import NEW_PAPERS, WEEKLY

VISIBILITY_TTL = timedelta(minutes=5)
"""How long the App Home trusts Slack's word that a person can see a subscribed channel:
every publish (each Save, Remove, page) would otherwise ask again for every channel."""
VISIBILITY_ENTRIES = 10_000


class HomeClick(Enum):
    """A paper's button in the App Home: what it changes before the tab is drawn again."""

    REMOVE = "remove"
    """**Remove** on the reading list."""
    SAVE = "save"
    """**Save** on a For you card."""
    HIDE = "hide"
    """**Not relevant** on a For you card."""
    UNHIDE = "unhide"
    """Its **Undo**."""


class AppHome:
    """The tab, drawn again on every change (Save, Remove, a page), so it is never stale."""

    def __init__(
        self,
        reading_list: ReadingList,
        suggestions: Suggestions,
        papers: PaperLookup,
        digest: DigestCommands | None,
        clock: Clock,
    ) -> None:
        self._reading_list = reading_list
        self._suggestions = suggestions
        self._papers = papers
        self._digest = digest
        self._visible: ExpiringCache[tuple[str, str, str], bool] = ExpiringCache(
            VISIBILITY_ENTRIES, VISIBILITY_TTL, clock
        )

    def view(
        self,
        viewer: Viewer,
        can_see: Callable[[str], bool | None],
        places: HomePlaces = FIRST_PAGES,
    ) -> dict[str, Any]:
        """The App Home view at ``places``: the suggestions, the reading list, the subscribed
        channels the person can see, and how to use the bot."""
        total = self._reading_list.count(viewer)
        offset = last_page_start(places.reading_list, total, render_home.PAGE_SIZE)
        places = replace(places, reading_list=offset)
        papers = self._reading_list.saved_papers(viewer, limit=render_home.PAGE_SIZE, offset=offset)
        shown, more = self._visible_channels(viewer, can_see)
        suggestions = self._suggestions.home_section(viewer, places)
        return render_home.home_view(
            papers,
            total=total,
            places=places,
            subscriptions=shown,
            more_channels=more,
            for_you=suggestions,
        )

    def _visible_channels(
        self, viewer: Viewer, can_see: Callable[[str], bool | None]
    ) -> tuple[list[render_home.SubscribedChannel], bool]:
        """The subscribed channels the tab lists, and whether the person sees more of them.

        ``can_see`` asks Slack, one call or more per channel at a rate Slack limits, so only
        the channels the tab shows are asked about, and one more to know whether there are
        more; its answers are kept a few minutes, but a channel Slack did not answer about
        (None) is left out this time only.
        """
        shown: list[render_home.SubscribedChannel] = []
        subscriptions = self._digest.active_subscriptions() if self._digest else ()
        for sub in subscriptions:
            key = (viewer.team_id, viewer.user_id, sub.channel)
            if not self._visible.get(key, partial(can_see, sub.channel)):
                continue
            if len(shown) == render_home.MAX_CHANNELS_SHOWN:
                return shown, True
            when = sub.schedule.describe()
            shown.append(
                render_home.SubscribedChannel(
                    sub.channel, when, sub.topic, sub.kind == WEEKLY, sub.kind == NEW_PAPERS
                )
            )
        return shown, False

    def abstract_view(self, paper_id: str) -> dict[str, Any]:
        """The abstract as a modal, for **Abstract** in the App Home (a tab has no thread)."""
        paper = self._papers.get(paper_id)
        return render_home.abstract_modal(paper) if paper else render_home.gone_modal(paper_id)
