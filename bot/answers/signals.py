"""What channels do with the bot's papers, handed to the store as it happens: a share posted,
a reaction added to or taken off one of the bot's posts. (A Save is not one: a reading list
is private, and a channel's choice may use only what its people did in the open.)

These are passive signals: none of them is a request anyone waits on, so a database that
cannot take one loses that one signal (logged) rather than failing the click or the event.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.store import DatabaseUnavailable, Store, is_reaction_name

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reaction:
    """A person's emoji on a message, as Slack's ``reaction_added``/``reaction_removed`` name
    it; ``event_id`` is the delivery's, so a retry is recognised."""

    event_id: str | None
    team_id: str
    channel: str
    ts: str
    user_id: str
    emoji: str


class ChannelActivity:
    def __init__(self, store: Store) -> None:
        self.store = store

    def shared(
        self, team_id: str, channel: str, user_id: str, paper_id: str, ts: str | None
    ) -> None:
        try:
            self.store.record_share(team_id, channel, user_id, paper_id, ts)
        except DatabaseUnavailable as error:
            log.warning("a share in %s not recorded: %s", channel, error)

    def reacted(self, reaction: Reaction, *, added: bool) -> bool:
        """Record (or take back) the reaction; False when it is not counted: a retried
        delivery, a message that is not one of the bot's paper posts, or a name Slack never
        sends (``is_reaction_name``), which is dropped before the database."""
        if not is_reaction_name(reaction.emoji):
            log.debug("a reaction in %s not recorded: not an emoji name", reaction.channel)
            return False
        store = self.store
        try:
            if reaction.event_id is not None and not store.claim_event(reaction.event_id):
                return False
            change = store.record_reaction if added else store.remove_reaction
            return change(
                reaction.team_id, reaction.channel, reaction.ts, reaction.user_id, reaction.emoji
            )
        except DatabaseUnavailable as error:
            log.warning("a reaction in %s not recorded: %s", reaction.channel, error)
            return False
