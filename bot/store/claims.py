"""The digest's claims and rotation: at most one post per channel, kind and period (the
local date of a paper of the day, the ISO week of a weekly digest), taken over when its
owner goes quiet, and which papers each channel has had in its round.

Every method names a post by channel, kind and the local date it is for; the period is
derived here, so the two kinds share one claiming mechanism.

A claim goes ``claimed`` → ``posting`` (set just before the API call) → ``posted``; posting
records every paper the post showed as seen in the same transaction (a paper of the day's
one, a weekly digest's all), so the rotation and the claims agree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import date, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from bot.store.database import Database, log
from bot.store.part import Part, bounded, digest_bounded
from bot.store.records import (
    CLAIMED,
    DAILY,
    POSTED,
    POSTING,
    UNKNOWN_PLACE,
    WEEKLY,
    ClaimAttempt,
    DigestClaim,
    Shown,
)
from bot.store.tables import digest_claims, digest_seen, subscriptions

_BATCH = 500
"""Paper ids asked about per statement: well under SQLite's bound parameters."""


def never_gone(_owner: str) -> bool:
    """The default liveness check: only the lease tells that an owner stopped."""
    return False


def claim_period(kind: str, local_date: date) -> str:
    """The period one post of ``kind`` covers: its local date, or its ISO week (``2025-W13``)."""
    if kind == WEEKLY:
        year, week, _weekday = local_date.isocalendar()
        return f"{year}-W{week:02d}"
    return local_date.isoformat()


def mark_seen(
    database: Database,
    connection: Connection,
    channel: str,
    paper_id: str,
    local_date: date,
    team_id: str | None,
    round_: int | None = None,
) -> None:
    """The channel has seen the paper in ``round_`` (None: its current round), so its
    rotation passes over it until a new round begins."""
    if round_ is None:
        round_ = current_round(connection, channel) or 0
    connection.execute(
        database.insert(digest_seen)
        .values(
            channel=channel, round=round_, paper_id=paper_id, local_date=local_date, team_id=team_id
        )
        .on_conflict_do_nothing(index_elements=["channel", "round", "paper_id"])
    )


def current_round(connection: Connection, channel: str) -> int | None:
    """The channel's latest round, the one its rotation draws from (None: it has seen
    nothing yet)."""
    return connection.execute(
        select(func.max(digest_seen.c.round)).where(digest_seen.c.channel == channel)
    ).scalar()


class DigestClaims(Part):
    @bounded
    def rotation(self, channel: str) -> tuple[int, frozenset[str]]:
        """The channel's current round and the papers it has had in that round."""
        with self._database.connect() as connection:
            current = current_round(connection, channel)
            if current is None:
                return 0, frozenset()
            seen = connection.execute(
                select(digest_seen.c.paper_id).where(
                    digest_seen.c.channel == channel, digest_seen.c.round == current
                )
            ).scalars()
            return current, frozenset(seen)

    @bounded
    def record_shown(self, team_id: str | None, channel: str, paper_ids: Iterable[str]) -> None:
        """Papers shown in the channel other than in a digest post (a link someone posted
        there): its rotation counts them as seen this round. Without ``team_id`` the row
        names the served workspace, so an uninstall deletes it."""
        today = self._database.now().date()
        workspace = self._workspace(team_id)
        with self._database.begin() as connection:
            for paper_id in dict.fromkeys(paper_ids):
                mark_seen(self._database, connection, channel, paper_id, today, workspace)

    @bounded
    def digest_claim(
        self, channel: str, local_date: date, *, kind: str = DAILY
    ) -> DigestClaim | None:
        """The channel's claim of ``kind`` for the period of ``local_date``."""
        with self._database.connect() as connection:
            row = connection.execute(_claim_query(channel, kind, local_date)).first()
        return None if row is None else DigestClaim(**row._mapping)

    @digest_bounded
    def latest_claim_date(
        self, channel: str, *, kind: str = DAILY, posted: bool = False
    ) -> date | None:
        """The last local date the channel's post of ``kind`` was claimed (to notice missed
        days), or with ``posted`` was posted (where a new papers post takes up)."""
        conditions = [digest_claims.c.channel == channel, digest_claims.c.kind == kind]
        if posted:
            conditions.append(digest_claims.c.state == POSTED)
        with self._database.connect() as connection:
            return connection.execute(
                select(func.max(digest_claims.c.local_date)).where(*conditions)
            ).scalar()

    @digest_bounded
    def ever_seen(self, channel: str, paper_ids: Iterable[str]) -> frozenset[str]:
        """Which of ``paper_ids`` the channel was ever shown, in any round: a new paper is
        shown once, while the rotation of the shipped papers starts again after a round."""
        wanted = list(dict.fromkeys(paper_ids))
        found: set[str] = set()
        with self._database.connect() as connection:
            for start in range(0, len(wanted), _BATCH):
                found.update(
                    connection.execute(
                        select(digest_seen.c.paper_id)
                        .where(
                            digest_seen.c.channel == channel,
                            digest_seen.c.paper_id.in_(wanted[start : start + _BATCH]),
                        )
                        .distinct()
                    ).scalars()
                )
        return frozenset(found)

    @digest_bounded
    def claim_digest(
        self,
        channel: str,
        local_date: date,
        *,
        paper_id: str,
        round: int,
        position: int,
        pool_size: int,
        topic: str | None = None,
        owner: str,
        lease: timedelta,
        owner_gone: Callable[[str], bool] = never_gone,
        kind: str = DAILY,
    ) -> ClaimAttempt:
        """Claim the channel's post of ``kind`` for the period of ``local_date``, or take
        over an abandoned claim.

        The insert relies on the primary key, so of several processes racing only one gets
        the row. A claim that is released, whose owner has not touched it within ``lease``,
        or whose owner ``owner_gone`` says is dead, is taken over with a compare-and-set
        update, again so only one wins; the
        taken-over claim keeps its paper and state (``posting`` tells the new owner that a
        message may already be in the channel).
        """
        now = self._database.now()
        with self._database.begin() as connection:
            inserted = connection.execute(
                self._database.insert(digest_claims)
                .values(
                    channel=channel,
                    kind=kind,
                    period=claim_period(kind, local_date),
                    local_date=local_date,
                    state=CLAIMED,
                    paper_id=paper_id,
                    round=round,
                    position=position,
                    pool_size=pool_size,
                    topic=topic,
                    owner=owner,
                    claimed_at=now,
                    updated_at=now,
                    team_id=func.coalesce(_workspace_of(channel, kind), self._workspace(None)),
                )
                .on_conflict_do_nothing(index_elements=["channel", "kind", "period"])
                .returning(*digest_claims.c)
            ).first()
            if inserted is not None:
                return ClaimAttempt(True, DigestClaim(**inserted._mapping))
            existing = DigestClaim(
                **connection.execute(_claim_query(channel, kind, local_date)).one()._mapping
            )
            abandoned = (
                existing.owner is None
                or now - existing.updated_at >= lease
                or owner_gone(existing.owner)
            )
            if existing.state == POSTED or not abandoned:
                return ClaimAttempt(False, existing)
            taken = connection.execute(
                digest_claims.update()
                .where(
                    *_claim_key(channel, kind, local_date),
                    digest_claims.c.state == existing.state,
                    digest_claims.c.updated_at == existing.updated_at,
                    digest_claims.c.owner.is_(None)
                    if existing.owner is None
                    else digest_claims.c.owner == existing.owner,
                )
                .values(owner=owner, updated_at=now)
            )
            if taken.rowcount != 1:
                return ClaimAttempt(False, existing)
            log.warning(
                "took over the %s %s digest claim of %s for %s from %s",
                existing.state,
                kind,
                channel,
                local_date,
                existing.owner or "a released claim",
            )
            return ClaimAttempt(True, replace(existing, owner=owner, updated_at=now))

    def _update_owned_claim(
        self, channel: str, kind: str, local_date: date, owner: str, values: dict[str, Any]
    ) -> bool:
        with self._database.begin() as connection:
            result = connection.execute(
                digest_claims.update()
                .where(
                    *_claim_key(channel, kind, local_date),
                    digest_claims.c.owner == owner,
                    digest_claims.c.state != POSTED,
                )
                .values(updated_at=self._database.now(), **values)
            )
        return result.rowcount == 1

    @digest_bounded
    def mark_posting(
        self, channel: str, local_date: date, owner: str, *, kind: str = DAILY
    ) -> bool:
        """Record that the post is about to be sent; False if the claim was lost."""
        return self._update_owned_claim(channel, kind, local_date, owner, {"state": POSTING})

    @digest_bounded
    def touch_claim(self, channel: str, local_date: date, owner: str, *, kind: str = DAILY) -> bool:
        """Renew the lease while retrying; False if another process took the claim over."""
        return self._update_owned_claim(channel, kind, local_date, owner, {})

    @digest_bounded
    def release_claim(
        self, channel: str, local_date: date, owner: str, *, sent: bool, kind: str = DAILY
    ) -> bool:
        """Give the claim up so another attempt can take it at once.

        ``sent`` says whether the message may have reached Slack (a timeout after sending);
        if so the claim stays ``posting`` so the next owner looks in the channel first.
        """
        return self._update_owned_claim(
            channel,
            kind,
            local_date,
            owner,
            {"owner": None, "state": POSTING if sent else CLAIMED},
        )

    @digest_bounded
    def record_post(
        self,
        channel: str,
        local_date: date,
        ts: str,
        owner: str,
        *,
        kind: str = DAILY,
        shown: Shown | None = None,
    ) -> bool:
        """Mark the claim posted with the message ``ts``; the papers it ``shown`` count as
        seen (None: the claim's own paper of the day), and the claim keeps the paper and place
        the message shows, which a post found in the channel may have drawn before the
        rotation changed."""
        return self._mark_posted(
            channel, kind, local_date, ts, digest_claims.c.owner == owner, shown
        )

    def _mark_posted(
        self,
        channel: str,
        kind: str,
        local_date: date,
        ts: str,
        condition: Any,
        shown: Shown | None,
    ) -> bool:
        now = self._database.now()
        values: dict[str, Any] = {"state": POSTED, "ts": ts, "posted_at": now, "updated_at": now}
        if shown is not None and shown.paper_ids:
            values["paper_id"] = shown.paper_ids[0]
        if shown is not None and kind == DAILY:
            # A post from before places were written says none: no place is better than the
            # new draw's next to the post's paper.
            place = shown.place or UNKNOWN_PLACE
            values |= {"position": place.position, "pool_size": place.pool_size}
            values["topic"] = place.topic
        with self._database.begin() as connection:
            row = connection.execute(
                digest_claims.update()
                .where(
                    *_claim_key(channel, kind, local_date),
                    digest_claims.c.state != POSTED,
                    condition,
                )
                .values(**values)
                .returning(digest_claims.c.round, digest_claims.c.paper_id, digest_claims.c.team_id)
            ).first()
            if row is None:
                return False
            if shown is not None:
                papers = shown.paper_ids
            else:
                papers = (row.paper_id,) if kind == DAILY else ()
            # A weekly digest's papers join the channel's current round, or the next one when
            # its picks started it (they ran short in the current one; older claims say 0).
            round_ = (
                row.round
                if kind == DAILY
                else max(row.round, current_round(connection, channel) or 0)
            )
            for paper_id in dict.fromkeys(papers):
                mark_seen(
                    self._database, connection, channel, paper_id, local_date, row.team_id, round_
                )
        return True

    @digest_bounded
    def unsettled_claims(
        self, channel: str, before: date, lease: timedelta, *, kind: str = DAILY
    ) -> list[DigestClaim]:
        """Earlier periods' claims left ``posting`` by an owner silent for longer than
        ``lease``: their message may or may not be in the channel, and a paper of the day's
        paper is not yet seen."""
        with self._database.connect() as connection:
            rows = connection.execute(
                select(digest_claims)
                .where(
                    digest_claims.c.channel == channel,
                    digest_claims.c.kind == kind,
                    digest_claims.c.period != claim_period(kind, before),
                    digest_claims.c.local_date < before,
                    digest_claims.c.state == POSTING,
                    digest_claims.c.updated_at <= self._database.now() - lease,
                )
                .order_by(digest_claims.c.local_date)
            )
            return [DigestClaim(**row._mapping) for row in rows]

    @digest_bounded
    def settle_claim(self, claim: DigestClaim, ts: str | None, shown: Shown | None = None) -> bool:
        """Settle an abandoned ``posting`` claim from what the channel's history showed: posted
        as ``ts`` (what it ``shown`` counts as seen, as in ``record_post``), or, with no
        ``ts``, never sent. Only the claim as it was read is changed, so a process that
        revived it in between wins."""
        unchanged = (digest_claims.c.state == POSTING) & (
            digest_claims.c.updated_at == claim.updated_at
        )
        if ts is not None:
            return self._mark_posted(
                claim.channel, claim.kind, claim.local_date, ts, unchanged, shown
            )
        with self._database.begin() as connection:
            result = connection.execute(
                digest_claims.update()
                .where(
                    *_claim_key(claim.channel, claim.kind, claim.local_date),
                    unchanged,
                )
                .values(state=CLAIMED, owner=None, updated_at=self._database.now())
            )
        return result.rowcount == 1


def _claim_query(channel: str, kind: str, local_date: date) -> Any:
    return select(digest_claims).where(*_claim_key(channel, kind, local_date))


def _claim_key(channel: str, kind: str, local_date: date) -> tuple[Any, Any, Any]:
    """The claim's primary key as conditions: one channel's post of a kind for one period."""
    return (
        digest_claims.c.channel == channel,
        digest_claims.c.kind == kind,
        digest_claims.c.period == claim_period(kind, local_date),
    )


def _workspace_of(channel: str, kind: str) -> Any:
    """The channel's workspace as its subscription records it (``NULL`` for the environment's
    default channel with no row, which then takes the served one): the digest itself never
    sees a Slack payload."""
    return (
        select(subscriptions.c.team_id)
        .where(subscriptions.c.channel == channel, subscriptions.c.kind == kind)
        .scalar_subquery()
    )
