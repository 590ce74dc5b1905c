"""The message a channel's next post of any kind would be, and what its claim records: one
place the service (to post) and ``/paper today`` (to preview) ask."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from bot.digest.channels import ChannelSubscription
from bot.digest.new_papers import NewPapers
from bot.digest.rotation import Rotation
from bot.digest.weekly import WeeklyDigest
from bot.render import digest as render
from bot.render.message import Message
from bot.render.new_papers import new_papers_post
from bot.store import NEW_PAPERS, WEEKLY, DigestClaim, Place, Shown


@dataclass(frozen=True)
class Draft:
    """A post's message, what it shows (which the channel will have seen once it is posted)
    and the values its claim keeps (a weekly digest's paper is its first, its round its
    picks', its counts 0)."""

    message: Message
    shown: Shown
    round: int = 0
    topic: str | None = None

    @property
    def paper_id(self) -> str:
        return self.shown.paper_ids[0] if self.shown.paper_ids else ""

    @property
    def position(self) -> int:
        return self.shown.place.position if self.shown.place is not None else 0

    @property
    def pool_size(self) -> int:
        return self.shown.place.pool_size if self.shown.place is not None else 0


class Drafts:
    def __init__(self, rotation: Rotation, weekly: WeeklyDigest, new_papers: NewPapers) -> None:
        self._rotation = rotation
        self._weekly = weekly
        self._new_papers = new_papers

    def draft(self, sub: ChannelSubscription, day: date, claim: DigestClaim | None) -> Draft | None:
        """The post for ``day`` (a new papers post's announcement day): the claimed paper of
        the day when there is a claim (so a retry posts the same one); ``None`` when no paper
        matches the topic."""
        if sub.kind == WEEKLY:
            return self.weekly(sub, day)
        if sub.kind == NEW_PAPERS:
            return self._new(sub, day)
        pick = self._rotation.for_day(sub.channel, sub.topic, claim)
        if pick is None:
            return None
        message = render.digest_post(
            pick.paper, day, position=pick.position, pool_size=pick.pool_size, topic=pick.topic
        )
        place = Place(pick.position, pick.pool_size, pick.topic)
        return Draft(message, Shown((pick.paper.id,), place), pick.round, pick.topic)

    def _new(self, sub: ChannelSubscription, day: date) -> Draft | None:
        """The new papers post for announcement day ``day``; None when no new paper the
        channel has not seen matches its topic."""
        pick = self._new_papers.for_post(sub.channel, sub.topic, day)
        if not pick.papers:
            return None
        message = new_papers_post(
            day,
            pick.papers,
            matching=pick.matching,
            first=pick.first,
            topic=sub.topic,
            follow_channel=pick.follow_channel,
        )
        return Draft(message, Shown(tuple(paper.id for paper in pick.papers)), 0, sub.topic)

    def weekly(self, sub: ChannelSubscription, day: date) -> Draft:
        """The weekly digest for the week of ``day``: always a message, even a quiet week's."""
        message, papers, round_ = self._weekly.compose(sub, day)
        return Draft(message, Shown(papers), round_, sub.topic)
