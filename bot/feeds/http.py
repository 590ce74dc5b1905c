"""Every request to a source: fetched here as bytes and handed to the source's parser.

feedparser and openreview-py would fetch by themselves with no timeout, and openreview-py
and sickle retry on their own clocks (openreview-py eight times, sleeping up to 120 s); so
no client is let near the network. A request waits its turn in the pace, has a timeout,
names the bot in its User-Agent, and on failure is tried again after a backoff, or after
the hold-off the source asked for (a 429's reset time, a 503's ``Retry-After``), a few times
before the run gives up and the scheduler tries later.
"""

from __future__ import annotations

import email.utils
import json
import logging
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from importlib.metadata import PackageNotFoundError, version

from bot.clock import Clock
from bot.feeds.pacing import Pace

log = logging.getLogger(__name__)

TIMEOUT_S = 30.0
"""A source that has not answered in this long is not going to: the run retries or fails,
and the scheduler tries again later."""
ATTEMPTS = 3
BACKOFF_FIRST = timedelta(seconds=10)
"""Backoff after a failed request: 10 s, 30 s (then the run gives up), unless the source
said how long to wait."""
LONGEST_HOLD_OFF = timedelta(minutes=15)
"""A reset time further off than this fails the run instead of holding the claim idle."""
HOLD_OFF_STATUSES = frozenset({429, 503})


def _user_agent() -> str:
    try:
        release = version("paperbot")
    except PackageNotFoundError:
        release = "dev"
    return (
        f"paperbot/{release} (a Slack bot for research teams, reading the arXiv and "
        "OpenReview feeds it follows: metadata only, one request at a time)"
    )


USER_AGENT = _user_agent()


class FetchError(Exception):
    """A source could not be read; the message says what happened, in one line."""


class Fetcher:
    """Paced, timed, retried GETs; counts the requests it made (``requests``)."""

    def __init__(
        self,
        pace: Pace,
        clock: Clock,
        sleep: Callable[[float], None],
        *,
        timeout: float = TIMEOUT_S,
        attempts: int = ATTEMPTS,
    ) -> None:
        self._pace = pace
        self._clock = clock
        self._sleep = sleep
        self._timeout = timeout
        self._attempts = attempts
        self.requests = 0

    def get(self, lane: str, url: str, params: Mapping[str, object] | None = None) -> bytes:
        """The body at ``url`` (with ``params`` as its query), or ``FetchError``."""
        if params:
            url = f"{url}{'&' if '?' in url else '?'}{urllib.parse.urlencode(params)}"
        for attempt in range(self._attempts):
            self._pace.wait_turn(lane)
            self.requests += 1
            try:
                return self._once(url)
            except urllib.error.HTTPError as error:
                reason = f"{urllib.parse.urlsplit(url).netloc} answered {error.code}"
                if self._held_off(lane, error, reason):
                    continue
                if error.code < 500 and error.code != 429:
                    raise FetchError(reason) from None
            except (urllib.error.URLError, TimeoutError, OSError) as error:
                reason = f"{urllib.parse.urlsplit(url).netloc}: {_why(error)}"
            finally:
                self._pace.finished(lane)
            if attempt + 1 < self._attempts:
                wait = BACKOFF_FIRST * 3**attempt
                log.warning("feeds: %s; trying again in %d s", reason, wait.total_seconds())
                self._sleep(wait.total_seconds())
        raise FetchError(reason)

    def _held_off(self, lane: str, error: urllib.error.HTTPError, reason: str) -> bool:
        """Whether the source said when to come back (then the lane waits until then);
        ``FetchError`` when that is further off than a run should hold its claim idle."""
        if error.code not in HOLD_OFF_STATUSES:
            return False
        hold = _hold_off(error, error.read(), self._clock())
        if hold is None:
            return False
        if hold - self._clock() > LONGEST_HOLD_OFF:
            raise FetchError(f"{reason}: asked to wait until {hold:%H:%M} UTC") from None
        self._pace.hold_off(lane, hold)
        log.warning("feeds: %s; waiting until %s", reason, hold.isoformat())
        return True

    def _once(self, url: str) -> bytes:
        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
        with urllib.request.urlopen(request, timeout=self._timeout) as response:
            return response.read()


def _why(error: Exception) -> str:
    if isinstance(error, TimeoutError) or "timed out" in str(error):
        return "no answer within the timeout"
    if isinstance(error, urllib.error.URLError):
        return str(error.reason)
    return str(error) or type(error).__name__


def _hold_off(error: urllib.error.HTTPError, body: bytes, now: datetime) -> datetime | None:
    """When the source said to try again: OpenReview's JSON ``details.resetTime``, else
    ``Retry-After`` (seconds or an HTTP date), else ``X-RateLimit-Reset`` (epoch seconds);
    None when it said nothing (then the usual backoff)."""
    try:
        details = json.loads(body or b"{}").get("details") or {}
        reset = details.get("resetTime") if isinstance(details, dict) else None
        if reset:
            return datetime.fromisoformat(str(reset).replace("Z", "+00:00")).astimezone(UTC)
    except (ValueError, AttributeError):
        pass
    retry_after = error.headers.get("Retry-After") if error.headers else None
    if retry_after:
        if retry_after.strip().isdigit():
            return now + timedelta(seconds=int(retry_after))
        try:
            return email.utils.parsedate_to_datetime(retry_after).astimezone(UTC)
        except (TypeError, ValueError):
            pass
    epoch = error.headers.get("X-RateLimit-Reset") if error.headers else None
    if epoch and epoch.strip().isdigit():
        return datetime.fromtimestamp(int(epoch), UTC)
    return None
