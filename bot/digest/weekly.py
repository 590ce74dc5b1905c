"""What the weekly team digest says: the workspace's most shared and reacted-to papers of the
past seven days (counts of people, never names), a few picks for the channel from the
shipped papers and, where feeds bring new papers, the week's best new papers the channel
has not been shown (``bot.digest.new_papers``: its topic, then its reactions and shares)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import TYPE_CHECKING

from bot.digest.channels import ChannelSubscription
from bot.digest.new_papers import NewPapers
from bot.digest.rotation import Rotation
from bot.render import weekly as render
from bot.render.message import Message
from bot.store import WEEKLY, Store

if TYPE_CHECKING:
    from bot.search.engine import SearchIndex

WEEK = timedelta(days=7)
"""What a weekly digest covers: the seven days before its post."""
WEEK_PAPERS = 5
"""The workspace's papers of the week shown at most: a digest, not a leaderboard."""
PICKS = 3
NEW_THIS_WEEK = 3
"""The week's new papers shown at most."""


class WeeklyDigest:
    def __init__(
        self, store: Store, index: SearchIndex, rotation: Rotation, new_papers: NewPapers
    ) -> None:
        self._store = store
        self._index = index
        self._rotation = rotation
        self._new_papers = new_papers

    def compose(self, sub: ChannelSubscription, day: date) -> tuple[Message, tuple[str, ...], int]:
        """The digest for the week of ``day``, every paper it shows, in order (the
        workspace's papers of the week, the channel's picks and the week's new papers, all
        shown in the channel), and the channel's round the picks were drawn from.

        The week is the seven days before the post's instant, so a late retry or a preview
        shows what the post would; the workspace is the one the subscription recorded."""
        since = sub.schedule.instant_on(day) - WEEK
        record = self._store.subscription(sub.channel, kind=WEEKLY)
        team_id = record.team_id if record is not None else None
        engagement = self._store.workspace_week(team_id, since) if team_id else []
        engaged = []
        for entry in engagement:
            paper = self._index.get(entry.paper_id)
            if paper is not None:
                engaged.append(render.WeekPaper(paper, entry.sharers, entry.reactors))
            if len(engaged) == WEEK_PAPERS:
                break
        week_of = day - timedelta(days=day.weekday())
        picks = self._rotation.picks(
            sub.channel, sub.topic, week_of.isoformat(), PICKS, {e.paper.id for e in engaged}
        )
        shown = [entry.paper for entry in engaged] + picks.papers
        new = self._new_papers.pick(
            sub.channel,
            sub.topic,
            day - WEEK,
            day,
            NEW_THIS_WEEK,
            frozenset(paper.id for paper in shown),
        )
        message = render.weekly_post(
            day,
            engaged,
            picks.papers,
            since=day - WEEK,
            picks_follow_channel=picks.follow_channel,
            new_papers=render.NewThisWeek(new.papers, new.matching, sub.topic),
        )
        shown += new.papers
        return message, tuple(paper.id for paper in shown), picks.round
