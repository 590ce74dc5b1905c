"""The message a channel's next post of either kind would be, and what its claim records: one
place the service (to post) and ``/paper today`` (to preview) ask."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from bot.digest.channels import ChannelSubscription
from bot.digest.rotation import Rotation
from bot.digest.weekly import WeeklyDigest
from bot.render import digest as render
from bot.render.message import Message
from bot.store import WEEKLY, DigestClaim, Place, Shown


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
    def __init__(self, rotation: Rotation, weekly: WeeklyDigest) -> None:
        self._rotation = rotation
        self._weekly = weekly

    def draft(self, sub: ChannelSubscription, day: date, claim: DigestClaim | None) -> Draft | None:
        """The post for ``day``: the claimed paper of the day when there is a claim (so a
        retry posts the same one); ``None`` when no paper matches the topic."""
        if sub.kind == WEEKLY:
            return self.weekly(sub, day)
        pick = self._rotation.for_day(sub.channel, sub.topic, claim)
        if pick is None:
            return None
        message = render.digest_post(
            pick.paper, day, position=pick.position, pool_size=pick.pool_size, topic=pick.topic
        )
        place = Place(pick.position, pick.pool_size, pick.topic)
        return Draft(message, Shown((pick.paper.id,), place), pick.round, pick.topic)

    def weekly(self, sub: ChannelSubscription, day: date) -> Draft:
        """The weekly digest for the week of ``day``: always a message, even a quiet week's."""
        message, papers, round_ = self._weekly.compose(sub, day)
        return Draft(message, Shown(papers), round_, sub.topic)
