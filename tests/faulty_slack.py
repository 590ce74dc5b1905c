"""The fake Slack Web API with scripted faults: rate limits, server errors, Slack errors and
slow answers, so tests can show what a user sees when Slack misbehaves; and the questions
only tests ask of it (the calls of a method, a channel's messages, private channels).

Only tests and the soak bench break Slack on purpose, so this lives beside them and
the product's ``SlackRecorder`` (which the local shell also runs) always answers healthily.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from bot.shell.fake_slack import ChannelInfo, RecordedCall, SlackRecorder

WAIT_SECONDS = 30.0
"""How long a test waits for the bot's call to Slack before failing: a bound, never a measure
of speed. The recorder's own 5 s failed tests while other work filled the machine's cores."""


@dataclass(frozen=True)
class Fault:
    """One scripted answer that replaces the normal one for the next call of a method."""

    status: int = 200
    body: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)


def rate_limited(retry_after: int = 1) -> Fault:
    """HTTP 429 with ``Retry-After``, as Slack answers when a method's tier is exhausted."""
    return Fault(429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(retry_after)})


def server_error(status: int = 500) -> Fault:
    return Fault(status, {"ok": False, "error": "internal_error"})


def slack_error(error: str) -> Fault:
    """A well-formed ``{"ok": false}`` answer, e.g. ``not_in_channel``."""
    return Fault(200, {"ok": False, "error": error})


class FaultySlackRecorder(SlackRecorder):
    """A ``SlackRecorder`` whose answers tests can script per method; a faulty call is
    recorded like any other, with the status and body it was answered with."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._script_lock = threading.Lock()
        self._faults: dict[str, deque[Fault]] = defaultdict(deque)
        self._latency: dict[str, float] = {}
        self._lands_late: set[str] = set()
        self._held: dict[str, threading.Event] = {}

    def wait_for(
        self,
        method: str,
        count: int = 1,
        *,
        timeout: float = WAIT_SECONDS,
        where: Callable[[RecordedCall], bool] | None = None,
    ) -> list[RecordedCall]:
        """``SlackRecorder.wait_for`` with a bound for a busy machine: a call that comes is
        returned at once, and one that never comes still fails the test."""
        return super().wait_for(method, count, timeout=timeout, where=where)

    def calls_to(self, *methods: str) -> list[RecordedCall]:
        with self._condition:
            return [call for call in self._calls if call.method in methods]

    def messages(self, channel: str) -> list[dict[str, Any]]:
        """The channel's stored messages, oldest first."""
        with self._condition:
            return [dict(message) for message in self._messages[channel]]

    def clear(self) -> None:
        """Forget recorded calls (stored messages stay)."""
        with self._condition:
            self._calls.clear()

    def add_channel(
        self,
        channel: str,
        *,
        is_private: bool = False,
        bot_is_member: bool = True,
        members: tuple[str, ...] = (),
    ) -> None:
        """Describe a channel for ``conversations.info``/``members`` (others are public and
        have the bot in them)."""
        with self._condition:
            self._channels[channel] = ChannelInfo(channel, is_private, bot_is_member, members)

    def fail_next(self, method: str, *faults: Fault) -> None:
        """Answer the next calls of ``method`` with ``faults``, in order, then normally."""
        with self._script_lock:
            self._faults[method].extend(faults)

    def slow_down(self, method: str, seconds: float, *, lands_late: bool = False) -> None:
        """Answer every later call of ``method`` ``seconds`` late, like a Slack under load:
        the call takes effect at once (a message is posted), only its answer is slow; with
        ``lands_late`` it takes effect (and is recorded) only then, so a bot that dies while
        waiting leaves no trace of the call."""
        with self._script_lock:
            self._latency[method] = seconds
            if lands_late:
                self._lands_late.add(method)

    @contextmanager
    def holding(self, method: str) -> Iterator[None]:
        """Keep every call of ``method`` made inside the block waiting, unanswered and
        unrecorded, until the block ends: a Slack that has not answered yet, for as long as
        a test looks at what the bot did meanwhile (an ack that waited for the call would
        never come), however busy the machine."""
        held = threading.Event()
        with self._script_lock:
            self._held[method] = held
        try:
            yield
        finally:
            with self._script_lock:
                del self._held[method]
            held.set()

    def handle(
        self, method: str, args: dict[str, Any], token: str | None, response_id: str | None = None
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        with self._script_lock:
            delay = self._latency.get(method, 0.0)
            late = method in self._lands_late
            held = self._held.get(method)
        if held is not None:
            held.wait()
        if delay and late:
            time.sleep(delay)
        answer = super().handle(method, args, token, response_id)
        if delay and not late:
            time.sleep(delay)
        return answer

    def _respond(
        self, method: str, args: dict[str, Any], response_id: str | None
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        with self._script_lock:
            queue = self._faults.get(method)
            fault = queue.popleft() if queue else None
        if fault is None:
            return super()._respond(method, args, response_id)
        return fault.status, dict(fault.body), dict(fault.headers)
