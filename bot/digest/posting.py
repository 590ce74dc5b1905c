"""Posting the paper of the day exactly once per channel and local date, and the weekly
digest once per channel and week.

Exactly once, across restarts and replicas, rests on the store's claim row, never on the
scheduler: whoever inserts the (channel, kind, period) row posts; the row is marked ``posting`` just
before ``chat.postMessage`` and ``posted`` with the ``ts`` after. Before its first attempt
the owner looks for the post's message metadata in ``conversations.history``: a process that
inherits a ``posting`` claim without a ``ts`` (its owner died between the post and the
write) must, and a fresh claim's row may have been lost after a post (a restored backup,
rows deleted), so every post is looked for first, at the cost of one history read per post.
A post found there is recorded as its message metadata says (``PostTag``): the papers it
showed, not those the rotation would draw now. A history the bot may not read (a missing
scope) is logged and the post goes ahead. What may be sent again, and how the post is looked
for, are the bot's one retry policy and one "did my post land?" check
(``bot.slack.delivery``), used here on the client the digest is handed.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, Literal

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.clock import Clock
from bot.render.message import Message
from bot.slack.delivery.landed import Unreadable, find_post
from bot.slack.delivery.retry import Backoff, error_failure
from bot.store import DAILY, NEW_PAPERS, POSTING, DigestClaim, Place, Shown, Store

log = logging.getLogger(__name__)

EVENT_TYPE = "paperbot_digest"
"""Slack message metadata type marking a digest post, so a post can be found again (its
payload is ``PostTag``'s)."""

PAUSING_ERRORS = frozenset({"not_in_channel", "channel_not_found", "is_archived"})
"""Slack errors that will not go away by retrying: the bot is no longer in the channel."""

LEASE = timedelta(minutes=2)
"""How long a claim's owner may go silent before another process may take the claim over."""

BACKOFF = Backoff((5.0, 15.0, 45.0), longest=60.0)
"""Waits between attempts once the client's own retries gave up (longer when Slack's
``Retry-After`` says so); each wait renews the lease."""
RETRY_LATER = timedelta(minutes=10)
HISTORY_PAGES = 5
FIRST_LOOK_PAGES = 1
"""How much history a fresh claim reads before posting (200 messages, one call): enough to
find a post made earlier in the period whose claim row was lost, at one call per post."""
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
    "nothing_new",
    "not_subscribed",
    "dry_run",
]


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
    kind: str = DAILY


@dataclass(frozen=True)
class PostTag:
    """A digest post's message metadata, the one codec for it: the date and kind it is for,
    so the post can be found again, and what it shows, so a post found in the channel is
    recorded as posted rather than as the rotation would draw it now.

    The payload's ``paper_id`` is the post's first paper (every version wrote it); a paper of
    the day adds its place in its pool, a weekly digest every paper it shows, space-separated
    (ids have no spaces: ``bot.buttons`` relies on it too). Posts from before the weekly
    digest name no kind (they are daily ones); from before the places and lists, ``shown``
    is what they still tell, or None.
    """

    day: date
    kind: str
    shown: Shown | None

    def metadata(self) -> dict[str, Any]:
        payload: dict[str, Any] = {"date": self.day.isoformat()}
        if self.kind != DAILY:
            payload["kind"] = self.kind
        if self.shown is not None:
            papers = self.shown.paper_ids
            payload["paper_id"] = papers[0] if papers else ""
            if self.kind != DAILY:
                payload["papers"] = " ".join(papers)
            if self.shown.place is not None:
                place = self.shown.place
                payload |= {"position": place.position, "pool_size": place.pool_size}
                if place.topic is not None:
                    payload["topic"] = place.topic
        return {"event_type": EVENT_TYPE, "event_payload": payload}

    @classmethod
    def read(cls, message: dict[str, Any]) -> PostTag | None:
        """The tag of a digest post; None for any other message."""
        metadata = message.get("metadata") or {}
        payload = metadata.get("event_payload") or {}
        if metadata.get("event_type") != EVENT_TYPE or not isinstance(payload, dict):
            return None
        try:
            day = date.fromisoformat(str(payload.get("date")))
        except ValueError:
            return None
        kind = str(payload.get("kind", DAILY))
        return cls(day, kind, _read_shown(payload, kind))


def _read_shown(payload: dict[str, Any], kind: str) -> Shown | None:
    papers, first = payload.get("papers"), payload.get("paper_id")
    if kind != DAILY:
        return Shown(tuple(papers.split())) if isinstance(papers, str) else None
    if not isinstance(first, str) or not first:
        return None
    position, pool_size, topic = (payload.get(key) for key in ("position", "pool_size", "topic"))
    place = (
        Place(position, pool_size, topic if isinstance(topic, str) else None)
        if isinstance(position, int) and isinstance(pool_size, int)
        else None
    )
    return Shown((first,), place)


class Poster:
    """Posts claimed days for one process (``owner`` names it in the claims it holds)."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock,
        sleep: Callable[[float], None],
        owner: str,
    ) -> None:
        self._store = store
        self._clock = clock
        self._sleep = sleep
        self.owner = owner

    def settle_earlier_days(
        self, client: WebClient, channel: str, today: date, kind: str = DAILY
    ) -> None:
        """Settle the posts of earlier periods that a dead process left ``posting``, looking
        through ``client`` (the channel's workspace's).

        The channel's history says whether each was sent: if so what it showed counts as
        seen (else the rotation would offer it again today); if not, the day is marked
        unsent.
        """
        for claim in self._store.unsettled_claims(channel, today, LEASE, kind=kind):
            try:
                found = self._post_in_history(
                    client,
                    channel,
                    kind,
                    claim.local_date,
                    since=claim.claimed_at - HISTORY_MARGIN,
                )
            except Unreadable as error:
                log.warning(
                    "could not settle the %s post in %s: %s", claim.local_date, channel, error
                )
                continue
            if found is None:
                self._store.settle_claim(claim, None)
                continue
            ts, shown = found
            self._store.settle_claim(claim, ts, shown)
            log.info(
                "found the %s post in %s (ts %s); %s counts as seen",
                claim.local_date,
                channel,
                ts,
                " ".join(shown.paper_ids) if shown is not None else claim.paper_id,
            )

    def post(
        self,
        client: WebClient,
        claim: DigestClaim,
        message: Message,
        shown: Shown,
        pause: Callable[[str], None],
    ) -> DigestOutcome:
        """Post a claimed day's message, which shows ``shown``, through ``client`` (the
        channel's workspace's), retrying what Slack may not
        have done and looking for the post first, and again whenever it may have been made
        since (a post found there is recorded as it says, or else as ``shown``); ``pause`` is
        told the error when Slack will not let the bot post in the channel at all."""
        channel, day, kind = claim.channel, claim.local_date, claim.kind
        maybe_sent = claim.state == POSTING
        for attempt in itertools.count():
            if attempt == 0 or maybe_sent:
                found = self._find_post(
                    client,
                    channel,
                    kind,
                    day,
                    pages=HISTORY_PAGES if maybe_sent else FIRST_LOOK_PAGES,
                )
                if found is not None:
                    ts, posted = found
                    self._store.record_post(
                        channel, day, ts, self.owner, kind=kind, shown=posted or shown
                    )
                    log.info("found the %s post already in %s (ts %s)", day, channel, ts)
                    return DigestOutcome(channel, day, "recovered", "found already posted", ts)
            if not self._store.mark_posting(channel, day, self.owner, kind=kind):
                return self._lost(channel, day)
            try:
                ts = self._send(client, claim, message, shown)
            except (SlackApiError, OSError) as error:
                failure = error_failure(error)
                if failure is None:
                    return self._give_up(claim, _slack_error(error), pause)
                maybe_sent = maybe_sent or failure.maybe_delivered
                delay = BACKOFF.wait(failure, attempt)
                if delay is None:
                    break
                log.warning(
                    "posting in %s failed (%s); retrying in %.0fs", channel, failure.reason, delay
                )
                self._sleep(delay)
                if not self._store.touch_claim(channel, day, self.owner, kind=kind):
                    return self._lost(channel, day)
                continue
            self._store.record_post(channel, day, ts, self.owner, kind=kind, shown=shown)
            log.info("posted the %s in %s for %s (ts %s)", post_name(kind), channel, day, ts)
            return DigestOutcome(channel, day, "posted", f"posted {claim.paper_id}", ts)
        self._store.release_claim(channel, day, self.owner, sent=maybe_sent, kind=kind)
        retry_at = self._clock() + RETRY_LATER
        log.error("could not post in %s; trying again at %s", channel, retry_at.isoformat())
        return DigestOutcome(channel, day, "failed", "Slack kept failing", retry_at=retry_at)

    def _lost(self, channel: str, day: date) -> DigestOutcome:
        log.warning("another process took over the %s post in %s", day, channel)
        return DigestOutcome(channel, day, "busy", "another process took it over")

    def _give_up(
        self, claim: DigestClaim, error: str, pause: Callable[[str], None]
    ) -> DigestOutcome:
        channel, day = claim.channel, claim.local_date
        self._store.release_claim(channel, day, self.owner, sent=False, kind=claim.kind)
        if error not in PAUSING_ERRORS:
            log.error("Slack refused the %s in %s: %s", post_name(claim.kind), channel, error)
            return DigestOutcome(channel, day, "failed", f"Slack refused it: {error}")
        pause(error)
        log.warning("paused the %s in %s: Slack says %s", post_name(claim.kind), channel, error)
        return DigestOutcome(channel, day, "paused", paused_detail(error))

    def _send(self, client: WebClient, claim: DigestClaim, message: Message, shown: Shown) -> str:
        response = client.chat_postMessage(
            channel=claim.channel,
            **message.as_kwargs(),
            metadata=PostTag(claim.local_date, claim.kind, shown).metadata(),
        )
        return str(response["ts"])

    def _find_post(
        self, client: WebClient, channel: str, kind: str, day: date, *, pages: int
    ) -> tuple[str, Shown | None] | None:
        """This period's post if it is already in the channel (metadata match): its ``ts``
        and what its metadata says it showed.

        Only the newest ``pages`` pages are read: an unrecorded post is recent (a lease old,
        when its owner died; earlier in the period, when its claim was lost).
        """
        try:
            return self._post_in_history(client, channel, kind, day, pages=pages)
        except Unreadable as error:
            log.warning("could not read %s's history to find its post: %s", channel, error)
            return None

    def _post_in_history(
        self,
        client: WebClient,
        channel: str,
        kind: str,
        day: date,
        *,
        since: datetime | None = None,
        pages: int = HISTORY_PAGES,
    ) -> tuple[str, Shown | None] | None:
        """Like ``_find_post``; with ``since``, every message after it is read, and if there
        are too many to read, ``Unreadable`` says so rather than "not posted"."""
        found = find_post(
            client,
            channel,
            lambda message: _is_digest_post(PostTag.read(message), kind, day),
            oldest=f"{since.timestamp():.6f}" if since is not None else None,
            pages=pages,
            complete=since is not None,
        )
        if found is None:
            return None
        tag = PostTag.read(found)
        return str(found["ts"]), tag.shown if tag is not None else None


def post_name(kind: str) -> str:
    """What a post of ``kind`` is called in log lines: "paper of the day", "weekly digest",
    "new papers post"."""
    return {DAILY: "paper of the day", NEW_PAPERS: "new papers post"}.get(kind, f"{kind} digest")


def paused_detail(reason: str) -> str:
    """The outcome line of a channel paused because Slack said ``reason``, with the way back."""
    return (
        f"paused (Slack said {reason}): invite the bot back with /invite @paperbot, then run "
        "/paper subscribe in the channel to resume"
    )


def _is_digest_post(tag: PostTag | None, kind: str, day: date) -> bool:
    return tag is not None and tag.day == day and tag.kind == kind


def _slack_error(error: SlackApiError | OSError) -> str:
    """Slack's error code for a refusal (``not_in_channel``)."""
    if isinstance(error, SlackApiError):
        return str(error.response.get("error"))
    return str(error)
