"""Which channels get the paper of the day or the weekly digest, and how: a channel's own
``/paper subscribe`` settings, or (for the paper of the day) the environment's default
channel (``PAPERBOT_DIGEST_CHANNEL``).

A command's settings win over the default, even "unsubscribed", so an operator's default
never comes back in a channel that turned it off. Listeners hear each channel whose
subscription changed (the scheduler moves that channel's job).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from zoneinfo import ZoneInfo

from bot.digest.subscriptions import (
    Schedule,
    SubscriptionError,
    format_time,
    parse_time,
    parse_zone,
)
from bot.settings import Settings
from bot.store import DAILY, NEW_PAPERS, WEEKLY, Store, SubscriptionRecord

KINDS = (DAILY, WEEKLY, NEW_PAPERS)
"""What a channel can subscribe to: the paper of the day, the weekly digest, new papers."""


@dataclass(frozen=True)
class ChannelSubscription:
    """A channel's effective subscription of one kind: its own settings, or the
    environment's default."""

    channel: str
    schedule: Schedule
    topic: str | None
    source: str
    paused_reason: str | None = None
    kind: str = DAILY
    team_id: str | None = None
    """The workspace the channel belongs to (whose token posts there), when known."""


class Subscriptions:
    """The subscriptions in the store, resolved against the environment's default."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self._store = store
        self.default_zone = settings.timezone
        self._env_channel = settings.digest_channel
        try:
            self._env_time = parse_time(settings.digest_time)
        except SubscriptionError as error:
            raise ValueError(f"PAPERBOT_DIGEST_TIME: {error}") from None
        self._listeners: list[Callable[[str], None]] = []

    def add_listener(self, listener: Callable[[str], None]) -> None:
        self._listeners.append(listener)

    def changed(self, channel: str) -> None:
        for listener in self._listeners:
            listener(channel)

    def env_default(self, channel: str) -> ChannelSubscription:
        schedule = Schedule(self._env_time, parse_zone(self.default_zone))
        return ChannelSubscription(channel, schedule, None, "env")

    def _effective(self, record: SubscriptionRecord) -> ChannelSubscription | None:
        if not record.active:
            return None
        if record.source == "env":
            if record.channel != self._env_channel:
                return None
            default = self.env_default(record.channel)
            return ChannelSubscription(
                record.channel,
                default.schedule,
                None,
                "env",
                record.paused_reason,
                team_id=record.team_id,
            )
        schedule = Schedule(parse_time(record.post_time), ZoneInfo(record.zone), record.cadence)
        return ChannelSubscription(
            record.channel,
            schedule,
            record.topic,
            record.source,
            record.paused_reason,
            record.kind,
            record.team_id,
        )

    def of(self, channel: str, kind: str = DAILY) -> ChannelSubscription | None:
        """The channel's subscription of ``kind``: a command's settings (even
        "unsubscribed") win over the environment's default paper of the day."""
        record = self._store.subscription(channel, kind=kind)
        if record is not None:
            return self._effective(record)
        if kind == DAILY and channel == self._env_channel:
            return self.env_default(channel)
        return None

    def latest(self, channel: str, kind: str = DAILY) -> ChannelSubscription | None:
        """The channel's subscription of ``kind`` as last set, even if it was stopped since:
        subscribing again starts from it (``/paper unsubscribe`` says ``/paper subscribe``
        brings it back)."""
        record = self._store.subscription(channel, kind=kind)
        if record is not None and not record.active and record.source != "env":
            record = replace(record, active=True)
            return self._effective(record)
        return self.of(channel, kind)

    def active(self) -> list[ChannelSubscription]:
        """Every subscription that should be posting (paused ones excluded)."""
        records = self._store.subscriptions()
        found = [self._effective(record) for record in records]
        daily = {record.channel for record in records if record.kind == DAILY}
        if self._env_channel and self._env_channel not in daily:
            found.append(self.env_default(self._env_channel))
        return [sub for sub in found if sub is not None and sub.paused_reason is None]

    def save(
        self,
        channel: str,
        schedule: Schedule,
        topic: str | None,
        source: str,
        *,
        active: bool = True,
        team_id: str | None = None,
        kind: str = DAILY,
    ) -> None:
        """Store a channel's settings of ``kind``, unpaused (the caller tells the listeners);
        without ``team_id`` the channel keeps the workspace stored with it."""
        self._store.save_subscription(
            SubscriptionRecord(
                channel=channel,
                post_time=format_time(schedule.at),
                zone=schedule.zone_name,
                cadence=schedule.cadence,
                topic=topic,
                source=source,
                active=active,
                team_id=team_id,
                kind=kind,
            )
        )

    def pause(self, sub: ChannelSubscription, reason: str) -> None:
        """Stop posting where Slack will not let the bot post; the environment's default
        gets a row of its own to carry the pause."""
        if self._store.subscription(sub.channel, kind=sub.kind) is None:
            self.save(sub.channel, sub.schedule, sub.topic, sub.source, kind=sub.kind)
        self._store.pause_subscription(sub.channel, reason, kind=sub.kind)
        self.changed(sub.channel)
