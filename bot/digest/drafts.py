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
from bot.store import WEEKLY, DigestClaim


@dataclass(frozen=True)
class Draft:
    """A post's message and the values its claim keeps (a weekly digest has no rotation:
    its paper is its first, its round and counts 0)."""

    message: Message
    paper_id: str
    round: int = 0
    position: int = 0
    pool_size: int = 0
    topic: str | None = None


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
        return Draft(message, pick.paper.id, pick.round, pick.position, pick.pool_size, pick.topic)

    def weekly(self, sub: ChannelSubscription, day: date) -> Draft:
        """The weekly digest for the week of ``day``: always a message, even a quiet week's."""
        message, paper_id = self._weekly.compose(sub, day)
        return Draft(message, paper_id, topic=sub.topic)
