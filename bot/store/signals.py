"""What a channel does with the bot's papers: shares into it, and reactions on the bot's own
posts there. It is what lets a channel's paper of the day follow
what its people read (``channel_interest``) and the weekly digest name the workspace's most
shared papers (``workspace_week``); docs/privacy.md says what is kept and for how long.

A person who asked to be forgotten is not recorded until they save again, and a person counts
once per paper and kind however often they repeat it (the primary keys).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.engine import Connection

from bot.store.claims import mark_seen
from bot.store.part import Part, bounded
from bot.store.people import is_forgotten, person_transaction
from bot.store.records import DAILY, POSTED, PaperEngagement
from bot.store.tables import (
    REACTION_NAME_LENGTH,
    bot_posts,
    channel_signals,
    digest_claims,
    post_reactions,
)

SHARE = "share"
"""The kind of ``channel_signals`` row a share is (the one kind kept today)."""

THUMBS_UP, THUMBS_DOWN = frozenset({"+1", "thumbsup"}), frozenset({"-1", "thumbsdown"})
"""Slack's names for 👍 and 👎 (skin tones arrive as a ``::skin-tone-N`` suffix)."""
OTHER_REACTION_WEIGHT = 0.5
"""Any other emoji on a post is interest, weaker than a 👍."""

FEWEST_PEOPLE_SHOWN = 2
"""A count of people below this is never reported: "shared by 1 person" names them."""


def is_reaction_name(name: object) -> bool:
    """Whether ``name`` is a reaction's name as Slack sends one, and so one to keep: an
    emoji's name, optionally followed by ``::`` and a modifier (``+1::skin-tone-2``), at
    most ``REACTION_NAME_LENGTH`` long, with no colon, space or control character of its
    own. Anything else (empty, 2,000 characters, ``:tada:`` with its colons) is no reaction
    Slack makes, and storing it would only fail or keep junk."""
    if not isinstance(name, str) or not 0 < len(name) <= REACTION_NAME_LENGTH:
        return False
    parts = name.split("::")
    return all(
        part and ":" not in part and part.isprintable() and not any(c.isspace() for c in part)
        for part in parts
    )


def reaction_weight(reaction: str) -> float:
    """👍 +1, 👎 -1, any other reaction +0.5."""
    name = reaction.split("::", 1)[0]
    if name in THUMBS_UP:
        return 1.0
    if name in THUMBS_DOWN:
        return -1.0
    return OTHER_REACTION_WEIGHT


def person_votes(rows: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str], float]:
    """One vote per person and paper from their reactions ``(paper_id, user_id, reaction)``:
    the sum of their distinct reactions' weights, kept within [-1, 1], so ten emoji on a post,
    or the same one on two posts of the paper, weigh no more than one 👍."""
    reactions: dict[tuple[str, str], set[str]] = defaultdict(set)
    for paper_id, user_id, reaction in rows:
        reactions[paper_id, user_id].add(reaction.split("::", 1)[0])
    return {
        key: max(-1.0, min(1.0, sum(reaction_weight(name) for name in names)))
        for key, names in reactions.items()
    }


class ChannelSignals(Part):
    @bounded
    def record_share(
        self, team_id: str, channel: str, user_id: str, paper_id: str, ts: str | None
    ) -> None:
        """The bot posted a paper someone shared: its ``ts`` names the paper (for reactions
        on it), the channel has seen it (its rotation passes over it this round), and the
        person's share counts for the channel, unless they asked to be forgotten. ``ts`` is
        None when the post landed but its ts is unknown."""
        now = self._database.now()
        with person_transaction(self._database, team_id, user_id) as connection:
            mark_seen(self._database, connection, channel, paper_id, now.date(), team_id)
            if ts is not None:
                connection.execute(
                    self._database.insert(bot_posts)
                    .values(
                        channel=channel, ts=ts, paper_id=paper_id, posted_at=now, team_id=team_id
                    )
                    .on_conflict_do_nothing(index_elements=["channel", "ts"])
                )
            self._add_signal(connection, team_id, channel, user_id, paper_id, SHARE, now)
            self._expiry.prune(connection, now)

    @bounded
    def record_reaction(
        self, team_id: str, channel: str, ts: str, user_id: str, reaction: str
    ) -> bool:
        """A reaction on a message; False when the message is not a bot post showing one
        paper (nothing is recorded). A person asked to be forgotten is not recorded either."""
        now = self._database.now()
        with person_transaction(self._database, team_id, user_id) as connection:
            paper_id = _paper_posted_at(connection, channel, ts)
            if paper_id is None:
                return False
            if not is_forgotten(connection, team_id, user_id):
                connection.execute(
                    self._database.insert(post_reactions)
                    .values(
                        channel=channel,
                        ts=ts,
                        user_id=user_id,
                        reaction=reaction,
                        paper_id=paper_id,
                        reacted_at=now,
                        team_id=team_id,
                    )
                    .on_conflict_do_nothing(index_elements=["channel", "ts", "user_id", "reaction"])
                )
            self._expiry.prune(connection, now)
        return True

    @bounded
    def remove_reaction(
        self, team_id: str, channel: str, ts: str, user_id: str, reaction: str
    ) -> bool:
        """A reaction taken back: it counts no more. False when none was recorded."""
        with self._database.begin() as connection:
            deleted = connection.execute(
                post_reactions.delete().where(
                    post_reactions.c.channel == channel,
                    post_reactions.c.ts == ts,
                    post_reactions.c.user_id == user_id,
                    post_reactions.c.reaction == reaction,
                    post_reactions.c.team_id == team_id,
                )
            ).rowcount
        return deleted == 1

    @bounded
    def channel_interest(self, channel: str) -> dict[str, float]:
        """Net public engagement with each paper in the channel: a share +1 per person,
        reactions one vote per person (``person_votes``). Saves are private and never count."""
        with self._database.connect() as connection:
            reactions = connection.execute(
                select(
                    post_reactions.c.paper_id, post_reactions.c.user_id, post_reactions.c.reaction
                ).where(post_reactions.c.channel == channel)
            ).all()
            shares = connection.execute(
                select(channel_signals.c.paper_id).where(
                    channel_signals.c.channel == channel, channel_signals.c.kind == SHARE
                )
            ).scalars()
            interest: dict[str, float] = defaultdict(float)
            for paper_id in shares:
                interest[paper_id] += 1.0
        for (paper_id, _), vote in person_votes(reactions).items():
            interest[paper_id] += vote
        return dict(interest)

    @bounded
    def workspace_week(self, team_id: str, since: datetime) -> list[PaperEngagement]:
        """The workspace's papers by how many people shared them and reacted to them with
        interest (a net vote above 0) since ``since``, most engaged first; only papers with a
        count of at least ``FEWEST_PEOPLE_SHOWN``, and only such counts."""
        with self._database.connect() as connection:
            shares = connection.execute(
                select(channel_signals.c.paper_id, channel_signals.c.user_id).where(
                    channel_signals.c.team_id == team_id,
                    channel_signals.c.kind == SHARE,
                    channel_signals.c.recorded_at >= since,
                )
            ).all()
            reactions = connection.execute(
                select(
                    post_reactions.c.paper_id, post_reactions.c.user_id, post_reactions.c.reaction
                ).where(post_reactions.c.team_id == team_id, post_reactions.c.reacted_at >= since)
            ).all()
        sharers: dict[str, set[str]] = defaultdict(set)
        for paper_id, user_id in shares:
            sharers[paper_id].add(user_id)
        reactors: dict[str, set[str]] = defaultdict(set)
        for (paper_id, user_id), vote in person_votes(reactions).items():
            if vote > 0:
                reactors[paper_id].add(user_id)
        engaged = [
            PaperEngagement(
                paper_id, _shown(len(sharers[paper_id])), _shown(len(reactors[paper_id]))
            )
            for paper_id in set(sharers) | set(reactors)
        ]
        return sorted(
            (paper for paper in engaged if paper.sharers or paper.reactors),
            key=lambda paper: (-(paper.sharers + paper.reactors), paper.paper_id),
        )

    def _add_signal(
        self,
        connection: Connection,
        team_id: str,
        channel: str,
        user_id: str,
        paper_id: str,
        kind: str,
        now: datetime,
    ) -> None:
        if is_forgotten(connection, team_id, user_id):
            return
        connection.execute(
            self._database.insert(channel_signals)
            .values(
                channel=channel,
                paper_id=paper_id,
                user_id=user_id,
                kind=kind,
                recorded_at=now,
                team_id=team_id,
            )
            .on_conflict_do_nothing(index_elements=["channel", "paper_id", "user_id", "kind"])
        )


def _shown(people: int) -> int:
    return people if people >= FEWEST_PEOPLE_SHOWN else 0


def _paper_posted_at(connection: Connection, channel: str, ts: str) -> str | None:
    """The paper of the bot's post at ``ts``: a shared card, or a paper of the day (a weekly
    digest shows several papers, so a reaction on it names none)."""
    shared = connection.execute(
        select(bot_posts.c.paper_id).where(bot_posts.c.channel == channel, bot_posts.c.ts == ts)
    ).scalar()
    if shared is not None:
        return shared
    return (
        connection.execute(
            select(digest_claims.c.paper_id).where(
                digest_claims.c.channel == channel,
                digest_claims.c.ts == ts,
                digest_claims.c.kind == DAILY,
                digest_claims.c.state == POSTED,
            )
        ).scalar()
        or None
    )
