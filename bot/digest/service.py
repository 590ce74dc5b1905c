"""The paper of the day, the weekly digest and the new papers post for one process: which
channels are due, and serving them.

The parts live beside it: ``channels`` (who subscribes, to what), ``rotation`` (which paper),
``weekly`` (what the weekly digest says), ``new_papers`` (which announcement day, which new
papers), ``drafts`` (each kind's next message),
``posting`` (exactly once per channel, kind and period) and ``replies`` (the ``/paper``
commands). ``DigestService`` builds them over one store, index and client, and is what the
scheduler, the command line and the answers use.
"""

from __future__ import annotations

import logging
import time as time_module
from collections.abc import Callable, Container
from dataclasses import replace
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from slack_sdk import WebClient

from bot.clock import Clock, system_clock
from bot.digest.channels import ChannelSubscription, Subscriptions
from bot.digest.drafts import Drafts
from bot.digest.new_papers import NewPapers
from bot.digest.owner import new_owner, owner_gone
from bot.digest.posting import LEASE, DigestOutcome, Poster, paused_detail
from bot.digest.replies import DigestReplies
from bot.digest.rotation import Rotation
from bot.digest.weekly import WeeklyDigest
from bot.render.message import Message
from bot.settings import Settings
from bot.store import DAILY, NEW_PAPERS, POSTED, Store

if TYPE_CHECKING:
    from bot.search.engine import SearchIndex

log = logging.getLogger(__name__)

ClientFor = Callable[[str | None], WebClient | None]
"""The client that posts in a workspace's channels, by the workspace the channel's rows
carry; None where the app is not installed (nothing is then posted there)."""


class DigestService:
    """Subscriptions, the choice of paper, and the claim-guarded post, for one process.

    ``client`` may be ``None`` only for a process that never posts (``--dry-run``), or one
    that posts with each workspace's own token (``clients``, for a distributed app).
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
        clients: ClientFor | None = None,
    ) -> None:
        self._store = store
        self._client_for: ClientFor = clients or (lambda _workspace: client)
        self._clock = clock
        self._subscriptions = Subscriptions(store, settings)
        self._rotation = Rotation(store, index)
        self._new_papers = NewPapers(store, index, self._rotation)
        self._drafts = Drafts(
            self._rotation,
            WeeklyDigest(store, index, self._rotation, self._new_papers),
            self._new_papers,
        )
        self._poster = Poster(
            store,
            clock=clock,
            sleep=sleep,
            owner=owner or new_owner(),
        )
        self._retries: dict[tuple[str, str], datetime] = {}
        self._replies = DigestReplies(
            self._subscriptions,
            self._rotation,
            self._drafts,
            self._new_papers,
            store,
            clock,
            lambda channel, kind: self._retries.get((channel, kind)),
            follows_feeds=bool(settings.feeds),
        )

    def add_listener(self, listener: Callable[[str], None]) -> None:
        self._subscriptions.add_listener(listener)

    def retry_pending(self, channel: str, at: datetime | None, kind: str = DAILY) -> None:
        """Remember when this process tries the current post of ``kind`` in ``channel``
        again after a failure (``None``: no retry is pending), so ``/paper subscriptions``
        can say the post is late rather than being posted; the scheduler, which holds the
        retry, keeps it current."""
        if at is None:
            self._retries.pop((channel, kind), None)
        else:
            self._retries[(channel, kind)] = at

    def subscription(self, channel: str, kind: str = DAILY) -> ChannelSubscription | None:
        """The channel's subscription of ``kind``: a command's settings (even
        "unsubscribed") win."""
        return self._subscriptions.of(channel, kind)

    def subscriptions_revision(self) -> int:
        """The subscriptions' watermark: it moves whenever any process creates, changes,
        pauses or removes one, so a scheduler re-reads them only then."""
        return self._store.subscriptions_revision()

    def active_subscriptions(self) -> list[ChannelSubscription]:
        """Every subscription that should be posting (paused ones excluded)."""
        return self._subscriptions.active()

    def subscribe(self, channel_id: str, args: str, team_id: str | None = None) -> Message:
        return self._replies.subscribe(channel_id, args, team_id)

    def unsubscribe(
        self, channel_id: str, kind: str = DAILY, team_id: str | None = None
    ) -> Message:
        return self._replies.unsubscribe(channel_id, kind, team_id)

    def subscriptions(self, channel_id: str) -> Message:
        return self._replies.subscriptions(channel_id)

    def today(self, channel_id: str, kind: str = DAILY) -> Message:
        return self._replies.today(channel_id, kind)

    def serve_due(self, only: Container[str] | None = None) -> list[DigestOutcome]:
        """Post for every subscription (in a channel of ``only``, if given) whose time has
        come in its period and has no post yet.

        Run at start-up (catch-up after down-time) and by ``python -m bot digest``; a post
        missed on an earlier local day is logged, never sent late.
        """
        outcomes = []
        for sub in self._subscriptions.active():
            if only is not None and sub.channel not in only:
                continue
            self._log_missed_days(sub)
            if self.is_due(sub):
                outcomes.append(self.serve(sub.channel, kind=sub.kind))
        return outcomes

    def is_due(self, sub: ChannelSubscription) -> bool:
        """Today is a post day and its time has come (posted or not)."""
        return sub.schedule.due(self._clock())

    def _log_missed_days(self, sub: ChannelSubscription) -> None:
        """A new papers post misses no day: its next post takes up where its last ended."""
        if sub.kind == NEW_PAPERS:
            return
        latest = self._store.latest_claim_date(sub.channel, kind=sub.kind)
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
                "no %s digest was posted in %s on %s: the bot was not running at the "
                "scheduled time, and a post is never sent late",
                sub.kind,
                sub.channel,
                ", ".join(day.isoformat() for day in missed),
            )

    def serve(
        self, channel: str, *, kind: str = DAILY, force: bool = False, dry_run: bool = False
    ) -> DigestOutcome:
        """Post the channel's current post of ``kind`` unless it already has it.

        ``force`` posts even before the scheduled time or on a day off (the CLI's
        ``--channel``); ``dry_run`` only renders the message.
        """
        return replace(self._serve(channel, kind, force, dry_run), kind=kind)

    def _serve(self, channel: str, kind: str, force: bool, dry_run: bool) -> DigestOutcome:
        sub = self._subscriptions.of(channel, kind)
        now = self._clock()
        if sub is None:
            record = self._store.subscription(channel, kind=kind)
            if record is not None and record.paused_reason:
                return DigestOutcome(channel, None, "paused", paused_detail(record.paused_reason))
            if record is not None or not force or kind != DAILY:
                return DigestOutcome(channel, None, "not_subscribed", "not subscribed here")
            sub = self._subscriptions.env_default(channel)
        schedule = sub.schedule
        day = schedule.local_date(now)
        if sub.paused_reason:
            return DigestOutcome(channel, day, "paused", paused_detail(sub.paused_reason))
        if not force and not self.is_due(sub):
            return DigestOutcome(channel, day, "not_due", "not due yet today")
        client = None if dry_run else self._client_for(sub.team_id)
        if client is not None:
            self._poster.settle_earlier_days(client, channel, day, kind)
        elif not dry_run:
            return DigestOutcome(
                channel, day, "not_installed", "not posted: the app is not installed there"
            )
        local = day
        if kind == NEW_PAPERS:
            announced = self._new_papers.latest_day(local)
            if announced is None:
                return self._nothing_new(channel, local, "no feed has announced a paper yet")
            day = announced
        claim = self._store.digest_claim(channel, day, kind=kind)
        if claim is not None and claim.state == POSTED:
            posted_on = schedule.local_date(claim.posted_at) if claim.posted_at else local
            if kind == NEW_PAPERS and posted_on != local:
                return self._nothing_new(
                    channel, local, f"nothing announced since {day}, posted on {posted_on}"
                )
            return DigestOutcome(channel, day, "already_posted", "already posted", claim.ts)
        draft = self._drafts.draft(sub, day, claim)
        if draft is None:
            if kind == NEW_PAPERS:
                return self._nothing_new(
                    channel, local, f"no new paper announced up to {day} matches, unseen here"
                )
            return DigestOutcome(channel, day, "no_papers", "no paper matches the topic")
        if dry_run:
            return DigestOutcome(
                channel, day, "dry_run", "not posted (dry run)", message=draft.message
            )
        attempt = self._store.claim_digest(
            channel,
            day,
            paper_id=draft.paper_id,
            round=draft.round,
            position=draft.position,
            pool_size=draft.pool_size,
            topic=draft.topic,
            owner=self._poster.owner,
            lease=LEASE,
            owner_gone=owner_gone,
            kind=kind,
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
        if claim.paper_id != draft.paper_id:
            draft = self._drafts.draft(sub, day, claim) or draft
        return self._poster.post(
            client,
            claim,
            draft.message,
            draft.shown,
            lambda reason: self._subscriptions.pause(sub, reason),
        )

    @staticmethod
    def _nothing_new(channel: str, local: date, why: str) -> DigestOutcome:
        """A day without a new papers post (a weekend, a holiday, nothing on the topic):
        logged, and nothing is claimed, so a later run the same day posts what came since."""
        log.info("no new papers post in %s on %s: %s", channel, local, why)
        return DigestOutcome(channel, local, "nothing_new", why)
