"""The one retry policy for Slack calls: which failures may be sent again, and when.

A failed call either never reached Slack, and sending it again is always safe (a 429: Slack
did nothing and says when to come back with ``Retry-After``; a connection that could not be
made), or it failed after Slack had the request, and the message may already be posted (a
5xx, a connection dropped before the answer, a timeout). Any other answer (a Slack error
code, a 4xx) is final. What a caller does with "may already be posted" depends on what it
can do: the daily post looks in the channel first (``bot.slack.delivery.landed``); an ordinary
reply sends again after a 5xx or a dropped connection, where a rare duplicate is better than
no answer, but never after a timeout (Slack is slow, not failing: the post usually lands, and
a mention's reply looks in its thread instead).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.error import URLError

from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.handler import RetryHandler
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState

RATE_LIMITED = 429


@dataclass(frozen=True)
class Failure:
    """Why a call failed, in the policy's terms; ``reason`` is a phrase for the log."""

    reason: str
    maybe_delivered: bool
    """Slack may have acted on the request (posted the message) before it failed."""
    timed_out: bool = False
    """No answer in time: Slack is slow, and the message has usually landed."""
    retry_after: float = 0.0
    """Seconds Slack asked to wait (``Retry-After``), 0 when it did not say."""


def answer_failure(status: int, headers: Mapping[str, Any] | None) -> Failure | None:
    """What an HTTP answer means; None when it is a success or final (sending again would
    get the same answer)."""
    if status == RATE_LIMITED:
        return Failure("rate limited", maybe_delivered=False, retry_after=_retry_after(headers))
    if status >= 500:
        return Failure(f"HTTP {status}", maybe_delivered=True)
    return None


def error_failure(error: BaseException) -> Failure | None:
    """What an exception from a Slack call means; None when it is final (a Slack error code,
    a 4xx, or something that is not about reaching Slack)."""
    if isinstance(error, SlackApiError):
        return answer_failure(error.response.status_code, error.response.headers)
    if isinstance(error, URLError):
        # urllib raises URLError while connecting and sending; a failure while waiting for
        # the answer comes out as the bare OSError below.
        return Failure(f"could not reach Slack ({error.reason})", maybe_delivered=False)
    if isinstance(error, TimeoutError):
        return Failure("no answer in time", maybe_delivered=True, timed_out=True)
    if isinstance(error, OSError):
        return Failure(f"connection lost ({error})", maybe_delivered=True)
    return None


def send_again_blindly(failure: Failure, *, duplicates_tolerated: bool) -> bool:
    """Whether to send again without looking whether the first attempt landed: always when
    it never reached Slack; after a 5xx or a dropped connection only where a duplicate is
    tolerated (an ordinary reply, which cannot look); never after a timeout."""
    if not failure.maybe_delivered:
        return True
    return duplicates_tolerated and not failure.timed_out


@dataclass(frozen=True)
class Backoff:
    """How patient one kind of caller is: the waits before its 2nd, 3rd, ... attempt, and
    the longest ``Retry-After`` it honours."""

    waits: tuple[float, ...]
    longest: float

    def wait(self, failure: Failure, attempt: int) -> float | None:
        """Seconds to wait after ``failure`` of attempt number ``attempt`` (from 0) before
        the next, or None when the attempts are used up. Slack's ``Retry-After`` is the
        least it asks for, so the wait is never shorter."""
        if attempt >= len(self.waits):
            return None
        return min(self.longest, max(self.waits[attempt], failure.retry_after))


CLIENT_BACKOFF = Backoff((0.5, 1.0, 2.0), longest=300.0)
"""The Web API client's own retries: a listener's worker or the scheduler's thread waits."""
CLIENT_RETRIES_MAYBE_DELIVERED = 2
"""Of the client's attempts, how many may follow a failure after which the post may exist."""


class PolicyRetryHandler(RetryHandler):
    """The policy as ``slack_sdk``'s retry hook, for every ``WebClient`` the bot makes.

    ``duplicates_tolerated`` is off for a client whose caller looks before sending again
    (the daily post): it then retries only what never reached Slack.
    """

    def __init__(self, *, duplicates_tolerated: bool) -> None:
        super().__init__(max_retry_count=len(CLIENT_BACKOFF.waits))
        self._duplicates_tolerated = duplicates_tolerated

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
        return send_again_blindly(failure, duplicates_tolerated=self._duplicates_tolerated)

    def prepare_for_next_attempt(self, *, state: RetryState, **call: Any) -> None:
        failure = _failure(call.get("response"), call.get("error"))
        wait = CLIENT_BACKOFF.wait(failure, state.current_attempt) if failure else None
        state.next_attempt_requested = True
        time.sleep(wait or 0.0)
        state.increment_current_attempt()


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


def _retry_after(headers: Mapping[str, Any] | None) -> float:
    value = _header(headers, "retry-after")
    try:
        return max(0.0, float(value)) if value is not None else 0.0
    except ValueError:
        return 0.0
