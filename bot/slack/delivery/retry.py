"""The one retry policy for Slack calls: which failures may be sent again, and when.

A failed call either never reached Slack, and sending it again is always safe (a 429: Slack
did nothing and says when to come back with ``Retry-After``; a connection that could not be
made), or it failed after Slack had the request, and the message may already be posted (a
5xx, a connection dropped before the answer, a timeout). Any other answer (a Slack error
code, a 4xx) is final. What a caller does with "may already be posted" depends on what it
can do: the daily post looks in the channel first (``bot.slack.delivery.landed``); the Web
API client sends an ordinary reply again after a 5xx or a dropped connection, where a rare
duplicate is better than no answer, but not after a timeout (Slack is slow, not failing: the
post usually lands), and a mention's reply then looks in its thread before apologising;
``respond()`` sends to its ``response_url`` again after a 5xx, and after a connection that
failed once the request was out it sends the reply once by ``chat.postEphemeral`` instead.

No call waits longer than its work is worth: the client's waits come out of a budget (a reply
to a person, a few seconds; the daily post, on its own thread and retried by a later job,
longer), and a call site whose work is worth less narrows it for its calls (``waiting_at_most``:
the App Home, published again on the next open, a second or two). A ``Retry-After`` longer
than what is left is not waited for at all: the call fails at once, and the worker it held is
free for the next person.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from time import sleep
from typing import Any, TypeVar
from urllib.error import HTTPError, URLError

from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.handler import RetryHandler
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState

log = logging.getLogger(__name__)

T = TypeVar("T")

RATE_LIMITED = 429


@dataclass(frozen=True)
class Failure:
    """Why a call failed, in the policy's terms; ``reason`` is a phrase for the log."""

    reason: str
    maybe_delivered: bool
    """Slack may have acted on the request (posted the message) before it failed."""
    timed_out: bool = False
    """No answer (or no connection) in time: Slack or the network is slow; after the request
    was out, the message has usually landed."""
    status: int | None = None
    """Slack's HTTP status when it answered (a 429, a 5xx); None when the connection failed."""
    retry_after: float | None = None
    """Seconds Slack asked to wait (``Retry-After``), None when it did not say."""


def answer_failure(status: int, headers: Mapping[str, Any] | None) -> Failure | None:
    """What an HTTP answer means; None when it is a success or final (sending again would
    get the same answer)."""
    if status == RATE_LIMITED:
        return Failure(
            "rate limited", maybe_delivered=False, status=status, retry_after=_retry_after(headers)
        )
    if status >= 500:
        return Failure(f"HTTP {status}", maybe_delivered=True, status=status)
    return None


def error_failure(error: BaseException) -> Failure | None:
    """What an exception from a Slack call means; None when it is final (a Slack error code,
    a 4xx, or something that is not about reaching Slack)."""
    if isinstance(error, SlackApiError):
        return answer_failure(error.response.status_code, error.response.headers)
    if isinstance(error, HTTPError):
        return answer_failure(error.code, error.headers)
    if isinstance(error, URLError):
        # urllib raises URLError while connecting and sending; a failure while waiting for
        # the answer comes out as the bare OSError below.
        if isinstance(error.reason, TimeoutError):
            return Failure("no connection in time", maybe_delivered=False, timed_out=True)
        return Failure(f"could not reach Slack ({error.reason})", maybe_delivered=False)
    if isinstance(error, TimeoutError):
        return Failure("no answer in time", maybe_delivered=True, timed_out=True)
    if isinstance(error, OSError):
        return Failure(f"connection lost ({error})", maybe_delivered=True)
    return None


def send_again_blindly(failure: Failure, *, duplicates_tolerated: bool) -> bool:
    """Whether to send again without looking whether the first attempt landed: always when
    it never reached Slack; after a 5xx or a dropped connection only where a duplicate is
    tolerated (an ordinary reply, which cannot look); never after a timeout once the request
    was out."""
    if not failure.maybe_delivered:
        return True
    return duplicates_tolerated and not failure.timed_out


def resend_to_response_url(failure: Failure) -> bool:
    """Whether ``respond()`` posts to its ``response_url`` again: when it never reached Slack,
    and after a 5xx, Slack's answer that the URL's handler failed. After a connection that
    failed once the request was out (a timeout, a dropped connection) the URL's state is
    unknown, and the reply goes once by ``chat.postEphemeral`` instead."""
    return not failure.maybe_delivered or failure.status is not None


@dataclass(frozen=True)
class Backoff:
    """How patient one kind of caller is: the waits before its 2nd, 3rd, ... attempt, and
    the longest ``Retry-After`` it honours."""

    waits: tuple[float, ...]
    longest: float
    retry_after_replaces: bool = False
    """Slack's ``Retry-After`` is the wait itself, also when shorter than the backoff (a person
    waits for ``respond()``); otherwise it is the least Slack asks for, under the backoff."""

    def wait(self, failure: Failure, attempt: int) -> float | None:
        """Seconds to wait after ``failure`` of attempt number ``attempt`` (from 0) before
        the next, or None when the attempts are used up."""
        if attempt >= len(self.waits):
            return None
        asked = failure.retry_after
        if asked is None:
            wait = self.waits[attempt]
        elif self.retry_after_replaces:
            wait = asked
        else:
            wait = max(self.waits[attempt], asked)
        return min(self.longest, wait)


CLIENT_BACKOFF = Backoff((0.5, 1.0, 2.0), longest=300.0)
"""The Web API client's own retries: a listener's worker or the scheduler's thread waits."""
CLIENT_RETRIES_MAYBE_DELIVERED = 2
"""Of the client's attempts, how many may follow a failure after which the post may exist."""

REPLY_PATIENCE = 5.0
"""Seconds a call made for a person who waits (a reply, a click's answer) may spend waiting to
be sent again: more, and the worker it holds is missed by everyone queued behind it."""
HOME_TAB_PATIENCE = 2.0
"""Seconds an App Home publish, with its channel lookups, may spend waiting: the tab is drawn
again on the next open."""
DIGEST_PATIENCE = 60.0
"""Seconds the paper of the day's calls may wait: they run on the scheduler's own thread, and
what cannot wait that long is tried again by the digest's own later job."""
UPLOAD_PATIENCE = REPLY_PATIENCE
"""Seconds the bytes of a file sent to a person may wait to be sent again."""


class WaitBudget:
    """Seconds a piece of work may still spend waiting between attempts, however many calls it
    makes; shared by the calls made under one ``waiting_at_most``."""

    def __init__(self, seconds: float) -> None:
        self._left = seconds
        self._lock = threading.Lock()

    def take(self, wait: float) -> bool:
        """Spend ``wait`` seconds if that many are left; False (nothing spent) otherwise."""
        with self._lock:
            if wait > self._left:
                return False
            self._left -= wait
            return True


_narrowed: ContextVar[WaitBudget | None] = ContextVar("slack_wait_budget", default=None)


@contextmanager
def waiting_at_most(seconds: float) -> Iterator[None]:
    """Let the Slack calls made inside (on this thread) wait at most ``seconds`` in all, for
    work worth less than a reply (the App Home)."""
    token = _narrowed.set(WaitBudget(seconds))
    try:
        yield
    finally:
        _narrowed.reset(token)


def next_wait(failure: Failure, attempt: int, backoff: Backoff, budget: WaitBudget) -> float | None:
    """Seconds to wait before sending again after ``failure`` of attempt ``attempt``, or None
    when the attempts are used up or the wait is longer than the work is worth."""
    wait = backoff.wait(failure, attempt)
    if wait is None:
        return None
    if not budget.take(wait):
        log.info("not waiting %.1fs to send again after %s: not worth it", wait, failure.reason)
        return None
    return wait


def sending_again(send: Callable[[], T], *, patience: float) -> T:
    """``send()``, sent again after any failure to reach Slack for as long as ``patience``
    lasts; only for what may be sent again whether or not it landed (the bytes of a file
    upload, shared only when the upload is completed)."""
    budget = WaitBudget(patience)
    attempt = 0
    while True:
        try:
            return send()
        except OSError as error:
            failure = error_failure(error)
            wait = next_wait(failure, attempt, CLIENT_BACKOFF, budget) if failure else None
            if wait is None:
                raise
            log.info("sending again in %.1fs after %s", wait, failure.reason)
            sleep(wait)
            attempt += 1


class PolicyRetryHandler(RetryHandler):
    """The policy as ``slack_sdk``'s retry hook, for every ``WebClient`` the bot makes.

    ``duplicates_tolerated`` is off for a client whose caller looks before sending again
    (the daily post): it then retries only what never reached Slack. ``patience`` is the
    seconds each call may wait in all, unless its call site narrowed it (``waiting_at_most``).
    """

    def __init__(self, *, duplicates_tolerated: bool, patience: float) -> None:
        super().__init__(max_retry_count=len(CLIENT_BACKOFF.waits))
        self._duplicates_tolerated = duplicates_tolerated
        self._patience = patience

    def _can_retry(
        self,
        *,
        state: RetryState,
        response: HttpResponse | None = None,
        error: Exception | None = None,
        **_request: Any,
    ) -> bool:
        failure = _failure(response, error)
        if failure is None:
            return False
        if failure.maybe_delivered and state.current_attempt >= CLIENT_RETRIES_MAYBE_DELIVERED:
            return False
        if not send_again_blindly(failure, duplicates_tolerated=self._duplicates_tolerated):
            return False
        wait = next_wait(failure, state.current_attempt, CLIENT_BACKOFF, self._budget(state))
        if wait is None:
            return False
        state.custom_values = {**(state.custom_values or {}), "wait": wait}
        return True

    def prepare_for_next_attempt(self, *, state: RetryState, **_call: Any) -> None:
        state.next_attempt_requested = True
        sleep((state.custom_values or {}).get("wait", 0.0))
        state.increment_current_attempt()

    def _budget(self, state: RetryState) -> WaitBudget:
        """The call site's budget, else this call's own (kept in the call's retry state)."""
        narrowed = _narrowed.get()
        if narrowed is not None:
            return narrowed
        values = state.custom_values = state.custom_values or {}
        return values.setdefault("budget", WaitBudget(self._patience))


def _failure(response: HttpResponse | None, error: Exception | None) -> Failure | None:
    """An HTTP error comes with its answer: the status decides, not the exception."""
    if response is not None:
        return answer_failure(response.status_code, response.headers)
    return error_failure(error) if error is not None else None


def _header(headers: Mapping[str, Any] | None, name: str) -> str | None:
    """A header's value whatever its case, whether the client keeps one value or a list."""
    for key, value in (headers or {}).items():
        if key.lower() == name:
            return value[0] if isinstance(value, list) else str(value)
    return None


def _retry_after(headers: Mapping[str, Any] | None) -> float | None:
    value = _header(headers, "retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
