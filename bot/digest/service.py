"""The paper of the day: which paper, for whom, and posting it exactly once.

Exactly once per channel per local date, across restarts and replicas, rests on the store's
claim row, never on the scheduler: whoever inserts the (channel, date) row posts; the row is
marked ``posting`` just before ``chat.postMessage`` and ``posted`` with the ``ts`` after. A
process that inherits a ``posting`` claim without a ``ts`` (its owner died between the post
and the write) first looks for the post's message metadata in ``conversations.history``.

Which paper: each channel walks a shuffled order of every eligible paper, seeded by channel
and round, so the order is random but reproducible and survives restarts; only the papers
already posted are stored. A topic subscription walks its matches best first instead.
"""

from __future__ import annotations

import logging
import random
import time as time_module
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal
from urllib.error import URLError
from zoneinfo import ZoneInfo

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.clock import Clock, system_clock
from bot.digest.owner import new_owner, owner_gone
from bot.digest.subscriptions import (
    Schedule,
    SubscriptionError,
    format_time,
    parse_subscribe_args,
    parse_time,
    parse_zone,
)
from bot.papers.paper import Paper
from bot.render import digest as render
from bot.render.message import Message
from bot.settings import Settings
from bot.store import POSTED, POSTING, DigestClaim, Store, SubscriptionRecord

if TYPE_CHECKING:
    from bot.search.engine import SearchIndex

log = logging.getLogger(__name__)

EVENT_TYPE = "paperbot_digest"
"""Slack message metadata type marking a daily post, so a post can be found again."""

DIRECT_MESSAGE_PREFIX = "D"
"""Conversation ids of direct messages: ``/paper`` works there, but between two people the
bot cannot post at all, so a daily paper could never arrive."""

PAUSING_ERRORS = frozenset({"not_in_channel", "channel_not_found", "is_archived"})
"""Slack errors that will not go away by retrying: the bot is no longer in the channel."""

LEASE = timedelta(minutes=2)
"""How long a claim's owner may go silent before another process may take the claim over."""

BACKOFF = (5.0, 15.0, 45.0)
"""Waits between attempts once the client's own retries gave up; each wait renews the lease."""
MAX_WAIT = 60.0
RETRY_LATER = timedelta(minutes=10)
HISTORY_PAGES = 5
HISTORY_MARGIN = timedelta(minutes=1)
"""Read history from this long before a claim was made (clocks of Slack and the database)."""

Status = Literal[
    "posted",
    "recovered",
    "already_posted",
    "busy",
    "not_due",
    "failed",
    "paused",
    "no_papers",
    "not_subscribed",
    "dry_run",
]


@dataclass(frozen=True)
class ChannelSubscription:
    """A channel's effective subscription: its own settings, or the environment's default."""

    channel: str
    schedule: Schedule
    topic: str | None
    source: str
    paused_reason: str | None = None


@dataclass(frozen=True)
class Pick:
    paper: Paper
    round: int
    position: int
    pool_size: int


@dataclass(frozen=True)
class DigestOutcome:
    """What one attempt to serve a channel did; ``detail`` is a line for logs and the CLI."""

    channel: str
    local_date: date | None
    status: Status
    detail: str
    ts: str | None = None
    retry_at: datetime | None = None
    message: Message | None = None


class _HistoryUnread(Exception):
    """The channel's history could not be read far enough to tell whether a post is there."""


class _Transient(Exception):
    """A failure worth retrying; ``maybe_sent`` if the message might have been posted."""

    def __init__(self, reason: str, *, maybe_sent: bool, retry_after: float = 0.0) -> None:
        super().__init__(reason)
        self.maybe_sent = maybe_sent
        self.retry_after = retry_after


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
        self._index = index
        self._client = client
        self._clock = clock
        self._sleep = sleep
        self.owner = owner or new_owner()
        self._default_zone = settings.timezone
        self._env_channel = settings.digest_channel
        try:
            self._env_time = parse_time(settings.digest_time)
        except SubscriptionError as error:
            raise ValueError(f"PAPERBOT_DIGEST_TIME: {error.problem}") from None
        self._listeners: list[Callable[[str], None]] = []

    def add_listener(self, listener: Callable[[str], None]) -> None:
        self._listeners.append(listener)

    def _changed(self, channel: str) -> None:
        for listener in self._listeners:
            listener(channel)

    # Subscriptions ------------------------------------------------------------------------

    def _env_default(self, channel: str) -> ChannelSubscription:
        schedule = Schedule(self._env_time, parse_zone(self._default_zone))
        return ChannelSubscription(channel, schedule, None, "env")

    def _effective(self, record: SubscriptionRecord) -> ChannelSubscription | None:
        if not record.active:
            return None
        if record.source == "env":
            if record.channel != self._env_channel:
                return None
            default = self._env_default(record.channel)
            return ChannelSubscription(
                record.channel, default.schedule, None, "env", record.paused_reason
            )
        schedule = Schedule(parse_time(record.post_time), ZoneInfo(record.zone), record.cadence)  # type: ignore[arg-type]
        return ChannelSubscription(
            record.channel, schedule, record.topic, record.source, record.paused_reason
        )

    def subscription(self, channel: str) -> ChannelSubscription | None:
        """The channel's subscription: a command's settings (even "unsubscribed") win."""
        record = self._store.subscription(channel)
        if record is not None:
            return self._effective(record)
        if channel == self._env_channel:
            return self._env_default(channel)
        return None

    def active_subscriptions(self) -> list[ChannelSubscription]:
        """Every subscription that should be posting (paused ones excluded)."""
        records = {record.channel: record for record in self._store.subscriptions()}
        found = [self._effective(record) for record in records.values()]
        if self._env_channel and self._env_channel not in records:
            found.append(self._env_default(self._env_channel))
        return [sub for sub in found if sub is not None and sub.paused_reason is None]

    # Commands (each answers with an ephemeral message) ------------------------------------

    def subscribe(self, channel_id: str, args: str) -> Message:
        if channel_id.startswith(DIRECT_MESSAGE_PREFIX):
            return render.direct_message_subscription_message()
        try:
            request = parse_subscribe_args(args, self._default_zone)
        except SubscriptionError as error:
            return render.subscription_error_message(str(error))
        pool = self._pool(request.topic)
        if not pool:
            return render.no_papers_for_topic_message(request.topic or "")
        previous = self.subscription(channel_id)
        schedule = request.schedule
        self._store.save_subscription(_stored(channel_id, schedule, request.topic, "command"))
        self._changed(channel_id)
        return render.subscribed_message(
            schedule.describe(),
            request.topic,
            len(pool),
            self._next_post_text(channel_id, schedule),
            updated=previous is not None,
        )

    def unsubscribe(self, channel_id: str) -> Message:
        previous = self.subscription(channel_id)
        if previous is None:
            return render.unsubscribed_message(False)
        self._store.save_subscription(
            _stored(channel_id, previous.schedule, previous.topic, "command", active=False)
        )
        self._changed(channel_id)
        return render.unsubscribed_message(True)

    def subscriptions(self, channel_id: str) -> Message:
        sub = self.subscription(channel_id)
        if sub is None:
            return self._not_subscribed(channel_id)
        return render.subscriptions_message(
            sub.schedule.describe(),
            sub.topic,
            source=sub.source,
            paused_reason=sub.paused_reason,
            next_post=self._next_post_text(channel_id, sub.schedule),
        )

    def today(self, channel_id: str) -> Message:
        sub = self.subscription(channel_id)
        if sub is None:
            return self._not_subscribed(channel_id)
        schedule = sub.schedule
        now = self._clock()
        day = schedule.local_date(now)
        claim = self._store.digest_claim(channel_id, day)
        if claim is not None and claim.state == POSTED:
            paper = self._index.get(claim.paper_id)
            if paper is not None:
                return render.today_message(
                    paper,
                    day,
                    position=claim.position,
                    pool_size=claim.pool_size,
                    topic=sub.topic,
                    status="Today's paper, already posted in this channel:",
                )
        pick = self._pick_for(channel_id, sub.topic, claim)
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
            topic=sub.topic,
            status=status,
        )

    @staticmethod
    def _not_subscribed(channel_id: str) -> Message:
        """How to get a paper of the day: here, or (from a DM) in a channel."""
        if channel_id.startswith(DIRECT_MESSAGE_PREFIX):
            return render.direct_message_subscription_message()
        return render.subscriptions_message(None, None)

    def _next_post_text(self, channel: str, schedule: Schedule) -> str:
        now = self._clock()
        day = schedule.local_date(now)
        claim = self._store.digest_claim(channel, day)
        due_today = schedule.posts_on(day) and now >= schedule.instant_on(day)
        if due_today and (claim is None or claim.state != POSTED):
            return "today, any moment now"
        return render.local_moment(schedule.next_run(now), schedule.zone)

    # Choosing the paper -------------------------------------------------------------------

    def _pool(self, topic: str | None) -> list[Paper]:
        if topic:
            return [paper for paper, _score in self._index.matching(topic)]
        return list(self._index.papers)

    def pick(self, channel: str, topic: str | None) -> Pick | None:
        """The channel's next paper: the first of its round's order not yet posted."""
        pool = self._pool(topic)
        if not pool:
            return None
        round_, seen = self._store.rotation(channel)
        if {paper.id for paper in pool} <= seen:
            round_, seen = round_ + 1, frozenset()
        ordered = pool if topic else _shuffled(pool, channel, round_)
        remaining = [paper for paper in ordered if paper.id not in seen]
        return Pick(remaining[0], round_, len(pool) - len(remaining) + 1, len(pool))

    def _pick_for(self, channel: str, topic: str | None, claim: DigestClaim | None) -> Pick | None:
        """The claimed paper when there is a claim (so a retry posts the same one)."""
        if claim is not None:
            paper = self._index.get(claim.paper_id)
            if paper is not None:
                return Pick(paper, claim.round, claim.position, claim.pool_size)
        return self.pick(channel, topic)

    # Serving a channel --------------------------------------------------------------------

    def serve_due(self) -> list[DigestOutcome]:
        """Post for every subscribed channel whose time has come today and has no post yet.

        Run at start-up (catch-up after down-time) and by ``python -m bot digest``; a post
        missed on an earlier local day is logged, never sent late.
        """
        outcomes = []
        for sub in self.active_subscriptions():
            self._log_missed_days(sub)
            if self.is_due(sub):
                outcomes.append(self.serve(sub.channel))
        return outcomes

    def is_due(self, sub: ChannelSubscription) -> bool:
        """Today is a post day and its time has come (posted or not)."""
        now = self._clock()
        day = sub.schedule.local_date(now)
        return sub.schedule.posts_on(day) and now >= sub.schedule.instant_on(day)

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
        sub = self.subscription(channel)
        now = self._clock()
        if sub is None:
            record = self._store.subscription(channel)
            if record is not None and record.paused_reason:
                return DigestOutcome(channel, None, "paused", _paused(record.paused_reason))
            if record is not None or not force:
                return DigestOutcome(channel, None, "not_subscribed", "not subscribed here")
            sub = self._env_default(channel)
        schedule = sub.schedule
        day = schedule.local_date(now)
        if sub.paused_reason:
            return DigestOutcome(channel, day, "paused", _paused(sub.paused_reason))
        if not force and not self.is_due(sub):
            return DigestOutcome(channel, day, "not_due", "not due yet today")
        if not dry_run:
            self._settle_earlier_days(channel, day)
        claim = self._store.digest_claim(channel, day)
        if claim is not None and claim.state == POSTED:
            return DigestOutcome(channel, day, "already_posted", "already posted", claim.ts)
        pick = self._pick_for(channel, sub.topic, claim)
        if pick is None:
            return DigestOutcome(channel, day, "no_papers", "no paper matches the topic")
        message = render.digest_post(
            pick.paper, day, position=pick.position, pool_size=pick.pool_size, topic=sub.topic
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
            owner=self.owner,
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
            pick = self._pick_for(channel, sub.topic, claim) or pick
            message = render.digest_post(
                pick.paper, day, position=pick.position, pool_size=pick.pool_size, topic=sub.topic
            )
        return self._post(claim, message, sub)

    def _settle_earlier_days(self, channel: str, today: date) -> None:
        """Settle the posts of earlier days that a dead process left ``posting``.

        The channel's history says whether each was sent: if so its paper counts as seen
        (else the rotation would offer it again today); if not, the day is marked unsent.
        """
        for claim in self._store.unsettled_claims(channel, today, LEASE):
            try:
                found = self._post_in_history(
                    channel, claim.local_date, since=claim.claimed_at - HISTORY_MARGIN
                )
            except _HistoryUnread as error:
                log.warning(
                    "could not settle the %s post in %s: %s", claim.local_date, channel, error
                )
                continue
            self._store.settle_claim(claim, found)
            if found is not None:
                log.info(
                    "found the %s post in %s (ts %s); %s counts as seen",
                    claim.local_date,
                    channel,
                    found,
                    claim.paper_id,
                )

    def _post(
        self, claim: DigestClaim, message: Message, sub: ChannelSubscription
    ) -> DigestOutcome:
        channel, day = claim.channel, claim.local_date
        maybe_sent = claim.state == POSTING
        waits = [*BACKOFF, None]
        for wait in waits:
            if maybe_sent:
                found = self._find_post(channel, day)
                if found is not None:
                    self._store.record_post(channel, day, found, self.owner)
                    log.info("found the %s post already in %s (ts %s)", day, channel, found)
                    return DigestOutcome(channel, day, "recovered", "found already posted", found)
            if not self._store.mark_posting(channel, day, self.owner):
                return self._lost(channel, day)
            try:
                ts = self._send(channel, day, claim.paper_id, message)
            except _Transient as failure:
                maybe_sent = maybe_sent or failure.maybe_sent
                if wait is None:
                    break
                delay = min(MAX_WAIT, max(wait, failure.retry_after))
                log.warning("posting in %s failed (%s); retrying in %.0fs", channel, failure, delay)
                self._sleep(delay)
                if not self._store.touch_claim(channel, day, self.owner):
                    return self._lost(channel, day)
                continue
            except SlackApiError as error:
                return self._give_up(claim, sub, str(error.response.get("error")))
            self._store.record_post(channel, day, ts, self.owner)
            log.info("posted the paper of the day in %s for %s (ts %s)", channel, day, ts)
            return DigestOutcome(channel, day, "posted", f"posted {claim.paper_id}", ts)
        self._store.release_claim(channel, day, self.owner, sent=maybe_sent)
        retry_at = self._clock() + RETRY_LATER
        log.error("could not post in %s; trying again at %s", channel, retry_at.isoformat())
        return DigestOutcome(channel, day, "failed", "Slack kept failing", retry_at=retry_at)

    def _lost(self, channel: str, day: date) -> DigestOutcome:
        log.warning("another process took over the %s post in %s", day, channel)
        return DigestOutcome(channel, day, "busy", "another process took it over")

    def _give_up(self, claim: DigestClaim, sub: ChannelSubscription, error: str) -> DigestOutcome:
        channel, day = claim.channel, claim.local_date
        self._store.release_claim(channel, day, self.owner, sent=False)
        if error not in PAUSING_ERRORS:
            log.error("Slack refused the paper of the day in %s: %s", channel, error)
            return DigestOutcome(channel, day, "failed", f"Slack refused it: {error}")
        if self._store.subscription(channel) is None:
            self._store.save_subscription(_stored(channel, sub.schedule, sub.topic, sub.source))
        self._store.pause_subscription(channel, error)
        self._changed(channel)
        log.warning("paused the paper of the day in %s: Slack says %s", channel, error)
        return DigestOutcome(channel, day, "paused", _paused(error))

    def _send(self, channel: str, day: date, paper_id: str, message: Message) -> str:
        client = self._require_client()
        try:
            response = client.chat_postMessage(
                channel=channel,
                **message.as_kwargs(),
                metadata={
                    "event_type": EVENT_TYPE,
                    "event_payload": {"date": day.isoformat(), "paper_id": paper_id},
                },
                unfurl_links=False,
                unfurl_media=False,
            )
        except SlackApiError as error:
            status = error.response.status_code
            if status == 429:
                retry_after = float(error.response.headers.get("Retry-After", 0) or 0)
                raise _Transient(
                    "rate limited", maybe_sent=False, retry_after=retry_after
                ) from None
            if status >= 500:
                raise _Transient(f"HTTP {status}", maybe_sent=True) from None
            raise
        except (URLError, OSError) as error:
            raise _Transient(f"network error: {error}", maybe_sent=True) from None
        return str(response["ts"])

    def _find_post(self, channel: str, day: date) -> str | None:
        """The ``ts`` of this day's post if it is already in the channel (metadata match).

        Only the newest messages are read: an unrecorded post is at most a lease old.
        """
        try:
            return self._post_in_history(channel, day)
        except _HistoryUnread as error:
            log.warning("could not read %s's history to find its post: %s", channel, error)
            return None

    def _post_in_history(
        self, channel: str, day: date, *, since: datetime | None = None
    ) -> str | None:
        """Like ``_find_post``; with ``since``, every message after it is read, and if there
        are too many to read, ``_HistoryUnread`` says so rather than "not posted"."""
        client = self._require_client()
        oldest = f"{since.timestamp():.6f}" if since is not None else None
        cursor = None
        for _page in range(HISTORY_PAGES):
            try:
                response = client.conversations_history(
                    channel=channel,
                    include_all_metadata=True,
                    limit=200,
                    cursor=cursor,
                    oldest=oldest,
                )
            except (SlackApiError, URLError, OSError) as error:
                raise _HistoryUnread(str(error)) from None
            for found in response.get("messages", []):
                if _is_digest_post(found, day):
                    return str(found["ts"])
            cursor = (response.get("response_metadata") or {}).get("next_cursor")
            if not cursor:
                return None
        if since is not None:
            raise _HistoryUnread(f"more than {HISTORY_PAGES} pages since {since.isoformat()}")
        return None

    def _require_client(self) -> WebClient:
        if self._client is None:
            raise RuntimeError("this DigestService was built without a Slack client")
        return self._client


def _stored(
    channel: str, schedule: Schedule, topic: str | None, source: str, *, active: bool = True
) -> SubscriptionRecord:
    """A subscription as the store keeps it: plain values, not paused."""
    return SubscriptionRecord(
        channel=channel,
        post_time=format_time(schedule.at),
        zone=schedule.zone_name,
        cadence=schedule.cadence,
        topic=topic,
        source=source,
        active=active,
    )


def _paused(reason: str) -> str:
    return (
        f"paused (Slack said {reason}): invite the bot back with /invite @paperbot, then run "
        "/paper subscribe in the channel to resume"
    )


def _is_digest_post(message: dict[str, Any], day: date) -> bool:
    metadata = message.get("metadata") or {}
    payload = metadata.get("event_payload") or {}
    return metadata.get("event_type") == EVENT_TYPE and payload.get("date") == day.isoformat()


def _shuffled(pool: Sequence[Paper], channel: str, round_: int) -> list[Paper]:
    """The round's order: random, but the same for the same channel and round, always."""
    ordered = sorted(pool, key=lambda paper: paper.id)
    random.Random(f"paperbot-digest/{channel}/{round_}").shuffle(ordered)
    return ordered
