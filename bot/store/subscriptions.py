"""Digest subscriptions: each channel's post time, zone, cadence and topic for each kind
(the paper of the day, the weekly digest), and whether it unsubscribed or was paused."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from bot.store.part import Part, bounded
from bot.store.records import DAILY, SubscriptionRecord
from bot.store.revisions import SUBSCRIPTIONS, advance, revision
from bot.store.tables import subscriptions


class SubscriptionRows(Part):
    @bounded
    def save_subscription(self, record: SubscriptionRecord) -> None:
        """Create or replace a channel's subscription of the record's kind (unpausing it); a
        record that does not know its workspace keeps the one stored (a new row takes the
        served one: ``Part._workspace``)."""
        values = {
            "post_time": record.post_time,
            "zone": record.zone,
            "cadence": record.cadence,
            "topic": record.topic,
            "source": record.source,
            "active": record.active,
            "paused_reason": record.paused_reason,
            "updated_at": self._database.now(),
        }
        known = {} if record.team_id is None else {"team_id": record.team_id}
        with self._database.begin() as connection:
            connection.execute(
                self._database.insert(subscriptions)
                .values(
                    channel=record.channel,
                    kind=record.kind,
                    **values,
                    team_id=self._workspace(record.team_id),
                )
                .on_conflict_do_update(index_elements=["channel", "kind"], set_={**values, **known})
            )
            advance(self._database, connection, SUBSCRIPTIONS)

    @bounded
    def pause_subscription(self, channel: str, reason: str, *, kind: str = DAILY) -> bool:
        with self._database.begin() as connection:
            result = connection.execute(
                subscriptions.update()
                .where(subscriptions.c.channel == channel, subscriptions.c.kind == kind)
                .values(paused_reason=reason, updated_at=self._database.now())
            )
            if result.rowcount == 1:
                advance(self._database, connection, SUBSCRIPTIONS)
        return result.rowcount == 1

    @bounded
    def subscription(self, channel: str, *, kind: str = DAILY) -> SubscriptionRecord | None:
        with self._database.connect() as connection:
            row = connection.execute(
                select(subscriptions).where(
                    subscriptions.c.channel == channel, subscriptions.c.kind == kind
                )
            ).first()
        return None if row is None else _record(row)

    @bounded
    def subscriptions(self) -> list[SubscriptionRecord]:
        """Every stored row, unsubscribed and paused ones included, by channel and kind."""
        with self._database.connect() as connection:
            rows = connection.execute(
                select(subscriptions).order_by(subscriptions.c.channel, subscriptions.c.kind)
            )
            return [_record(row) for row in rows]

    @bounded
    def subscriptions_revision(self) -> int:
        """The subscriptions' watermark: it moves with every create, change, pause and
        delete, whichever process made it (``revisions``)."""
        with self._database.connect() as connection:
            return revision(connection, SUBSCRIPTIONS)


def _record(row: Any) -> SubscriptionRecord:
    return SubscriptionRecord(
        channel=row.channel,
        post_time=row.post_time,
        zone=row.zone,
        cadence=row.cadence,
        topic=row.topic,
        source=row.source,
        active=row.active,
        paused_reason=row.paused_reason,
        team_id=row.team_id,
        kind=row.kind,
    )
