"""What ``/paper`` asks of the paper of the day: the digest service as answers see it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from bot.answers.typed import NEW_WORD, WEEKLY_ARGUMENT, Intent, Request
from bot.render.digest import mistyped_command_message, unsubscribe_usage_message
from bot.render.message import Message
from bot.render.replies import digest_unavailable_message
from bot.search.query import closest_words
from bot.store import DAILY, NEW_PAPERS, WEEKLY


class _Schedule(Protocol):
    def describe(self) -> str: ...


class Subscription(Protocol):
    """A channel's paper of the day or weekly digest (``kind``), as the digest service
    reports it."""

    @property
    def channel(self) -> str: ...
    @property
    def schedule(self) -> _Schedule: ...
    @property
    def topic(self) -> str | None: ...
    @property
    def kind(self) -> str: ...


class DigestCommands(Protocol):
    """The part of the digest service ``/paper`` reaches; each returns an ephemeral reply."""

    def subscribe(self, channel_id: str, args: str, team_id: str | None = None) -> Message: ...
    def unsubscribe(
        self, channel_id: str, kind: str = ..., team_id: str | None = None
    ) -> Message: ...
    def subscriptions(self, channel_id: str) -> Message: ...
    def today(self, channel_id: str, kind: str = ...) -> Message: ...
    def active_subscriptions(self) -> Sequence[Subscription]: ...


def digest_reply(
    digest: DigestCommands | None, request: Request, channel_id: str, team_id: str | None
) -> Message:
    """``/paper subscribe``, ``unsubscribe``, ``subscriptions`` and ``today`` (the last two
    of a kind: ``weekly`` as their argument, ``new`` for ``unsubscribe``, else the paper of
    the day); ``team_id`` is the channel's workspace, kept with its subscription."""
    if request.intent is Intent.MISTYPED:
        changes = request.argument.partition(" ")[0] != NEW_WORD
        return mistyped_command_message(request.argument, changes=changes)
    if digest is None:
        return digest_unavailable_message()
    if request.intent is Intent.SUBSCRIBE:
        return digest.subscribe(channel_id, request.argument, team_id)
    if request.intent is Intent.SUBSCRIPTIONS:
        return digest.subscriptions(channel_id)
    kind = _KIND_ARGUMENTS.get(request.argument.lower())
    if request.intent is Intent.UNSUBSCRIBE:
        if kind is None:
            return unsubscribe_usage_message(request.argument, _near_kind(request.argument))
        return digest.unsubscribe(channel_id, kind, team_id)
    return digest.today(channel_id, kind or DAILY)


_KIND_ARGUMENTS = {"": DAILY, DAILY: DAILY, WEEKLY_ARGUMENT: WEEKLY, NEW_WORD: NEW_PAPERS}
"""``/paper unsubscribe`` stops the paper of the day (``daily`` says so too), ``weekly`` the
weekly digest, ``new`` the new papers post: anything else stops nothing, as a guess could stop
the wrong one. ``/paper today`` previews them alike."""


def _near_kind(argument: str) -> str | None:
    """``wekly``, ``weeklly``: the weekly digest was probably meant (it is still not
    stopped)."""
    near = closest_words(argument, (WEEKLY_ARGUMENT, NEW_WORD))
    return near[0] if near else None
