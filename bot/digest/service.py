"""The paper of the day for one process: which channels are due, and serving them.

The parts live beside it: ``channels`` (who subscribes, to what), ``rotation`` (which paper),
``posting`` (exactly once per channel and local date) and ``replies`` (the ``/paper``
commands). ``DigestService`` builds them over one store, index and client, and is what the
scheduler, the command line and the answers use.
"""

from __future__ import annotations

import logging
import time as time_module
from collections.abc import Callable, Container
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from slack_sdk import WebClient

from bot.clock import Clock, system_clock
from bot.digest.channels import ChannelSubscription, Subscriptions
from bot.digest.owner import new_owner, owner_gone
from bot.digest.posting import LEASE, DigestOutcome, Poster, paused_detail
from bot.digest.replies import DigestReplies
from bot.digest.rotation import Rotation
from bot.render import digest as render
from bot.render.message import Message
from bot.settings import Settings
from bot.store import POSTED, Store

if TYPE_CHECKING:
    from bot.search.engine import SearchIndex

log = logging.getLogger(__name__)


class DigestService:
    """Subscriptions, the choice of paper, and the claim-guarded post, for one process.

    ``client`` may be ``None`` only for a process that never posts (``--dry-run``).
    Listeners added with ``add_listener`` hear each channel whose subscription changed
    (the scheduler moves that channel's job).
    """

    def __init__(
        self,
        store: Store,
        index: SearchIndex,
        client: WebClient | None,
        settings: Settings,
        *,
        clock: Clock = system_clock,
        sleep: Callable[[float], None] = time_module.sleep,
        owner: str | None = None,
    ) -> None:
        self._store = store
        self._clock = clock
        self._subscriptions = Subscriptions(store, settings)
        self._rotation = Rotation(store, index)
        self._poster = Poster(
            store,
            client,
            clock=clock,
            sleep=sleep,
            owner=owner or new_owner(),
        )
        self._retries: dict[str, datetime] = {}
        self._replies = DigestReplies(
            self._subscriptions, self._rotation, store, clock, self._retries.get
        )

    def add_listener(self, listener: Callable[[str], None]) -> None:
        self._subscriptions.add_listener(listener)

    def retry_pending(self, channel: str, at: datetime | None) -> None:
        """Remember when this process tries today's post in ``channel`` again after a failure
        (``None``: no retry is pending), so ``/paper subscriptions`` can say the post is late
        rather than being posted; the scheduler, which holds the retry, keeps it current."""
        if at is None:
            self._retries.pop(channel, None)
        else:
            self._retries[channel] = at

    def subscription(self, channel: str) -> ChannelSubscription | None:
        """The channel's subscription: a command's settings (even "unsubscribed") win."""
        return self._subscriptions.of(channel)

    def active_subscriptions(self) -> list[ChannelSubscription]:
        """Every subscription that should be posting (paused ones excluded)."""
        return self._subscriptions.active()

    def subscribe(self, channel_id: str, args: str, team_id: str | None = None) -> Message:
        return self._replies.subscribe(channel_id, args, team_id)

    def unsubscribe(self, channel_id: str) -> Message:
        return self._replies.unsubscribe(channel_id)

    def subscriptions(self, channel_id: str) -> Message:
        return self._replies.subscriptions(channel_id)

    def today(self, channel_id: str) -> Message:
        return self._replies.today(channel_id)

    def serve_due(self, only: Container[str] | None = None) -> list[DigestOutcome]:
        """Post for every subscribed channel (of ``only``, if given) whose time has come
        today and has no post yet.

        Run at start-up (catch-up after down-time) and by ``python -m bot digest``; a post
        missed on an earlier local day is logged, never sent late.
        """
        outcomes = []
        for sub in self._subscriptions.active():
            if only is not None and sub.channel not in only:
                continue
            self._log_missed_days(sub)
            if self.is_due(sub):
                outcomes.append(self.serve(sub.channel))
        return outcomes

    def is_due(self, sub: ChannelSubscription) -> bool:
        """Today is a post day and its time has come (posted or not)."""
        return sub.schedule.due(self._clock())

    def _log_missed_days(self, sub: ChannelSubscription) -> None:
        latest = self._store.latest_claim_date(sub.channel)
        if latest is None:
            return
        today = sub.schedule.local_date(self._clock())
        missed = [
            latest + timedelta(days=offset)
            for offset in range(1, (today - latest).days)
            if sub.schedule.posts_on(latest + timedelta(days=offset))
        ]
        if missed:
            log.warning(
                "no paper of the day was posted in %s on %s: the bot was not running at the "
                "scheduled time, and a day is never posted late",
                sub.channel,
                ", ".join(day.isoformat() for day in missed),
            )

    def serve(self, channel: str, *, force: bool = False, dry_run: bool = False) -> DigestOutcome:
        """Post today's paper in ``channel`` unless it already has it.

        ``force`` posts even before the scheduled time or on a day off (the CLI's
        ``--channel``); ``dry_run`` only renders the message.
        """
        sub = self._subscriptions.of(channel)
        now = self._clock()
        if sub is None:
            record = self._store.subscription(channel)
            if record is not None and record.paused_reason:
                return DigestOutcome(channel, None, "paused", paused_detail(record.paused_reason))
            if record is not None or not force:
                return DigestOutcome(channel, None, "not_subscribed", "not subscribed here")
            sub = self._subscriptions.env_default(channel)
        schedule = sub.schedule
        day = schedule.local_date(now)
        if sub.paused_reason:
            return DigestOutcome(channel, day, "paused", paused_detail(sub.paused_reason))
        if not force and not self.is_due(sub):
            return DigestOutcome(channel, day, "not_due", "not due yet today")
        if not dry_run:
            self._poster.settle_earlier_days(channel, day)
        claim = self._store.digest_claim(channel, day)
        if claim is not None and claim.state == POSTED:
            return DigestOutcome(channel, day, "already_posted", "already posted", claim.ts)
        pick = self._rotation.for_day(channel, sub.topic, claim)
        if pick is None:
            return DigestOutcome(channel, day, "no_papers", "no paper matches the topic")
        message = render.digest_post(
            pick.paper, day, position=pick.position, pool_size=pick.pool_size, topic=pick.topic
        )
        if dry_run:
            return DigestOutcome(channel, day, "dry_run", "not posted (dry run)", message=message)
        attempt = self._store.claim_digest(
            channel,
            day,
            paper_id=pick.paper.id,
            round=pick.round,
            position=pick.position,
            pool_size=pick.pool_size,
            topic=pick.topic,
            owner=self._poster.owner,
            lease=LEASE,
            owner_gone=owner_gone,
        )
        claim = attempt.claim
        if not attempt.acquired:
            if claim.state == POSTED:
                return DigestOutcome(channel, day, "already_posted", "already posted", claim.ts)
            return DigestOutcome(
                channel,
                day,
                "busy",
                f"another process ({claim.owner}) is posting it",
                retry_at=claim.updated_at + LEASE,
            )
        if claim.paper_id != pick.paper.id:
            pick = self._rotation.for_day(channel, sub.topic, claim) or pick
            message = render.digest_post(
                pick.paper, day, position=pick.position, pool_size=pick.pool_size, topic=pick.topic
            )
        return self._poster.post(
            claim, message, lambda reason: self._subscriptions.pause(sub, reason)
        )
