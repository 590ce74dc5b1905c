"""The digest's ``/paper`` commands: ``subscribe``, ``unsubscribe``, ``subscriptions`` and
``today``, each answered with a private message, for the paper of the day, the weekly digest
and (but ``today``) the new papers post."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from bot.clock import Clock
from bot.digest.channels import KINDS, ChannelSubscription, Subscriptions
from bot.digest.command import Outcome, parse_subscribe_args, resolve
from bot.digest.drafts import Drafts
from bot.digest.new_papers import NewPapers
from bot.digest.rotation import Rotation
from bot.digest.subscriptions import Schedule, SubscriptionError, parse_zone
from bot.render import digest as render
from bot.render import new_papers as render_new
from bot.render import weekly as render_weekly
from bot.render.message import Message
from bot.store import DAILY, NEW_PAPERS, POSTED, WEEKLY, Store

DIRECT_MESSAGE_PREFIX = "D"
"""Conversation ids of direct messages: ``/paper`` works there, but between two people the
bot cannot post at all, so a daily paper could never arrive."""


class DigestReplies:
    def __init__(
        self,
        subscriptions: Subscriptions,
        rotation: Rotation,
        drafts: Drafts,
        new_papers: NewPapers,
        store: Store,
        clock: Clock,
        pending_retry: Callable[[str, str], datetime | None],
        *,
        follows_feeds: bool,
    ) -> None:
        """``pending_retry`` says when a channel's failed post of a kind is tried again, if
        it is; ``follows_feeds`` whether any feed brings new papers."""
        self._subscriptions = subscriptions
        self._rotation = rotation
        self._drafts = drafts
        self._new_papers = new_papers
        self._follows_feeds = follows_feeds
        self._store = store
        self._clock = clock
        self._pending_retry = pending_retry

    def subscribe(self, channel_id: str, args: str, team_id: str | None = None) -> Message:
        if channel_id.startswith(DIRECT_MESSAGE_PREFIX):
            return render.direct_message_subscription_message()
        try:
            request = parse_subscribe_args(args, year=self._clock().year)
        except SubscriptionError as error:
            return render.subscription_error_message(error.problem)
        kind = request.kind
        current = self._subscriptions.latest(channel_id, kind)
        other = next(
            (
                sub
                for other_kind in KINDS
                if other_kind != kind and (sub := self._subscriptions.of(channel_id, other_kind))
            ),
            None,
        )
        outcome = resolve(
            request,
            None if current is None else (current.schedule, current.topic),
            None if other is None else other.schedule,
            parse_zone(self._subscriptions.default_zone),
        )
        pool = [] if kind == NEW_PAPERS else self._rotation.pool(outcome.topic)
        if kind != NEW_PAPERS and not pool:
            topic = outcome.topic or ""
            return render.no_papers_for_topic_message(
                topic,
                self._rotation.why_empty(topic),
                new_papers=self._new_papers.matching(topic) if topic else 0,
            )
        status = self._status(channel_id, kind, current, outcome)
        schedule = outcome.schedule
        self._subscriptions.save(
            channel_id, schedule, outcome.topic, "command", team_id=team_id, kind=kind
        )
        self._subscriptions.changed(channel_id)
        notes = render.change_notes(
            [(change.part, change.before, change.after) for change in outcome.changed],
            [(change.part, change.before, change.after) for change in outcome.kept],
            inherited=outcome.inherited,
            inherited_from=other.kind if other is not None else DAILY,
            zone_word=request.zone_word,
            zone=schedule.zone_name,
        )
        next_post = self._next_post_text(channel_id, kind, schedule)
        if kind == NEW_PAPERS:
            return render_new.subscribed_new_message(
                schedule.describe(),
                outcome.topic,
                next_post,
                status=status,
                notes=notes,
                follows_feeds=self._follows_feeds,
                matching=self._new_papers.matching(outcome.topic) if outcome.topic else None,
            )
        if kind == WEEKLY:
            return render_weekly.subscribed_weekly_message(
                schedule.describe(), outcome.topic, next_post, status=status, notes=notes
            )
        return render.subscribed_message(
            schedule.describe(), outcome.topic, len(pool), next_post, status=status, notes=notes
        )

    def _status(
        self, channel_id: str, kind: str, current: ChannelSubscription | None, outcome: Outcome
    ) -> str:
        """New, back after a stop or a pause, changed, or as it was."""
        if current is None:
            return render.NEW
        stopped = self._subscriptions.of(channel_id, kind) is None
        if stopped or current.paused_reason is not None:
            return render.AGAIN
        return render.UPDATED if outcome.changed else render.UNCHANGED

    def unsubscribe(
        self, channel_id: str, kind: str = DAILY, team_id: str | None = None
    ) -> Message:
        """Kept as an inactive row (``tables.subscriptions``), with the channel's workspace, so
        uninstalling the app deletes it like any other row of the workspace."""
        previous = self._subscriptions.of(channel_id, kind)
        if previous is None:
            return render.unsubscribed_message(False, kind=kind)
        self._subscriptions.save(
            channel_id,
            previous.schedule,
            previous.topic,
            "command",
            active=False,
            team_id=team_id,
            kind=kind,
        )
        self._subscriptions.changed(channel_id)
        return render.unsubscribed_message(True, kind=kind)

    def subscriptions(self, channel_id: str) -> Message:
        sub = self._subscriptions.of(channel_id)
        weekly = self._subscriptions.of(channel_id, WEEKLY)
        new = self._subscriptions.of(channel_id, NEW_PAPERS)
        if sub is None and weekly is None and new is None:
            return self._not_subscribed(channel_id)
        weekly_lines = self._lines(weekly, render_weekly.subscription_lines)
        new_lines = self._lines(new, render_new.subscription_lines)
        if sub is None:
            return render.subscriptions_message(
                None, None, weekly=weekly_lines, new=new_lines, follows_feeds=self._follows_feeds
            )
        return render.subscriptions_message(
            sub.schedule.describe(),
            sub.topic,
            source=sub.source,
            paused_reason=sub.paused_reason,
            next_post=self._next_post_text(channel_id, DAILY, sub.schedule),
            engaged_papers=self._rotation.shaped_by(channel_id),
            weekly=weekly_lines,
            new=new_lines,
            follows_feeds=self._follows_feeds,
        )

    def _lines(self, sub: ChannelSubscription | None, lines: Callable[..., list[str]]) -> list[str]:
        """A weekly digest's or new papers' lines in ``/paper subscriptions`` (none without)."""
        if sub is None:
            return []
        return lines(
            sub.schedule.describe(),
            sub.topic,
            paused_reason=sub.paused_reason,
            next_post=self._next_post_text(sub.channel, sub.kind, sub.schedule),
        )

    def today(self, channel_id: str, kind: str = DAILY) -> Message:
        sub = self._subscriptions.of(channel_id, kind)
        if sub is None:
            return self._not_subscribed(channel_id, kind)
        if kind == WEEKLY:
            return self._weekly_preview(sub)
        if kind == NEW_PAPERS:
            return self._new_preview(sub)
        schedule = sub.schedule
        now = self._clock()
        day = schedule.local_date(now)
        claim = self._store.digest_claim(channel_id, day)
        posted = self._rotation.claimed(claim) if claim and claim.state == POSTED else None
        if posted is not None:
            return render.today_message(
                posted.paper,
                day,
                position=posted.position,
                pool_size=posted.pool_size,
                topic=posted.topic,
                status="Today's paper, already posted in this channel:",
            )
        pick = self._rotation.for_day(channel_id, sub.topic, claim)
        if pick is None:
            return render.no_papers_for_topic_message(sub.topic or "")
        if sub.paused_reason:
            status = f"The paper of the day is paused here (`{sub.paused_reason}`); next up:"
        elif schedule.posts_on(day):
            when = render.local_moment(schedule.instant_on(day), schedule.zone)
            late = now >= schedule.instant_on(day)
            status = f"Today's paper, {'due since' if late else 'coming'} {when}:"
        else:
            when = render.local_moment(schedule.next_run(now), schedule.zone)
            status = f"No paper today (weekdays only). Next, on {when}:"
            day = schedule.local_date(schedule.next_run(now))
        return render.today_message(
            pick.paper,
            day,
            position=pick.position,
            pool_size=pick.pool_size,
            topic=pick.topic,
            status=status,
        )

    def _weekly_preview(self, sub: ChannelSubscription) -> Message:
        """The weekly digest as it would be posted now: this week's if its day has come and
        it is not out yet, else the next one."""
        schedule, now = sub.schedule, self._clock()
        day = schedule.local_date(now)
        claim = self._store.digest_claim(sub.channel, day, kind=WEEKLY)
        if schedule.due(now) and (claim is None or claim.state != POSTED):
            status = "This week's digest, due since " + render.local_moment(
                schedule.instant_on(day), schedule.zone
            )
        else:
            upcoming = schedule.next_run(now)
            day = schedule.local_date(upcoming)
            status = "The next weekly digest, coming " + render.local_moment(
                upcoming, schedule.zone
            )
        if sub.paused_reason:
            status = f"The weekly digest is paused here (`{sub.paused_reason}`); it would be"
        return render_weekly.weekly_preview(f"{status}:", self._drafts.weekly(sub, day).message)

    def _new_preview(self, sub: ChannelSubscription) -> Message:
        """The new papers post as it would be posted now, or why there is none: nothing
        announced since the channel's last post, or nothing new on its topic."""
        schedule, now = sub.schedule, self._clock()
        day = self._new_papers.latest_day(schedule.local_date(now))
        claim = self._store.digest_claim(sub.channel, day, kind=NEW_PAPERS) if day else None
        posted = claim is not None and claim.state == POSTED
        draft = self._drafts.draft(sub, day, claim) if day and not posted else None
        upcoming = render.local_moment(schedule.next_run(now), schedule.zone)
        if draft is None:
            return render_new.nothing_new_message(day, sub.topic, posted=posted, then=upcoming)
        if sub.paused_reason:
            status = f"The new papers post is paused here (`{sub.paused_reason}`); it would be"
        elif schedule.due(now):
            status = "New papers, due since " + render.local_moment(
                schedule.instant_on(schedule.local_date(now)), schedule.zone
            )
        else:
            status = f"The next new papers post, coming {upcoming}"
        return render_weekly.weekly_preview(f"{status}:", draft.message)

    @staticmethod
    def _not_subscribed(channel_id: str, kind: str = DAILY) -> Message:
        """How to get a paper of the day or a weekly digest: here, or (from a DM) in a
        channel."""
        if channel_id.startswith(DIRECT_MESSAGE_PREFIX):
            return render.direct_message_subscription_message()
        if kind == WEEKLY:
            return render_weekly.no_weekly_message()
        if kind == NEW_PAPERS:
            return render_new.no_new_papers_message()
        return render.subscriptions_message(None, None)

    def _next_post_text(self, channel: str, kind: str, schedule: Schedule) -> str:
        now = self._clock()
        day = schedule.local_date(now)
        if kind == NEW_PAPERS:  # claimed by announcement day: posting now if one is unposted
            announced = self._new_papers.latest_day(day)
            claim = self._store.digest_claim(channel, announced, kind=kind) if announced else None
            unposted = announced is not None and (claim is None or claim.state != POSTED)
        else:
            claim = self._store.digest_claim(channel, day, kind=kind)
            unposted = claim is None or claim.state != POSTED
        posting_now = schedule.due(now) and unposted
        retry_at = self._pending_retry(channel, kind) if posting_now else None
        if retry_at is not None and schedule.local_date(retry_at) != day:
            retry_at = None
        return render.next_post_words(
            posting_now, schedule.next_run(now), schedule.zone, now=now, retry_at=retry_at
        )
