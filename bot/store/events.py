"""Slack event ids already handled, so a retried event is answered once."""

from __future__ import annotations

from bot.store.part import Part, bounded
from bot.store.tables import slack_events


class SlackEvents(Part):
    @bounded
    def claim_event(self, event_id: str) -> bool:
        """True the first time an event id is seen; False for Slack's retries of it."""
        now = self._database.now()
        with self._database.begin() as connection:
            inserted = connection.execute(
                self._database.insert(slack_events)
                .values(event_id=event_id, seen_at=now)
                .on_conflict_do_nothing(index_elements=["event_id"])
                .returning(slack_events.c.event_id)
            ).first()
            self._expiry.prune(connection, now)
        return inserted is not None
