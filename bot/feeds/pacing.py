"""The one pace every request to a source waits for, on the injected clock.

arXiv asks for one request every 3 seconds across all its endpoints (RSS, OAI-PMH, the API),
on one connection; OpenReview answers too many requests with 429 and the time its limit
resets. Each source is a lane: a request waits for the lane's next slot, and a lane told to
hold off (a 429's reset time, a 503's ``Retry-After``) waits until then. Waiting is done by
the injected ``sleep``, so tests run on a fake clock without waiting.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from bot.clock import Clock, system_clock

ARXIV_LANE, OPENREVIEW_LANE = "arxiv", "openreview"
ARXIV_SPACING = timedelta(seconds=3)
"""arXiv's terms of use for its APIs: no more than one request every three seconds."""
OPENREVIEW_SPACING = timedelta(seconds=1)
"""OpenReview publishes no rate; one a second keeps a guest well under its per-minute limit,
and a 429 says when to go on."""
SPACINGS = {ARXIV_LANE: ARXIV_SPACING, OPENREVIEW_LANE: OPENREVIEW_SPACING}


class Pace:
    """Request slots per lane (``ARXIV_LANE``, ``OPENREVIEW_LANE``), shared by every fetch of
    one process; only the process holding the ingest claim makes requests at all."""

    def __init__(
        self,
        clock: Clock = system_clock,
        sleep: Callable[[float], None] = time.sleep,
        spacings: dict[str, timedelta] | None = None,
    ) -> None:
        self._clock = clock
        self._sleep = sleep
        self._spacings = spacings or SPACINGS
        self._next: dict[str, datetime] = {}
        self._lock = threading.Lock()

    def wait_turn(self, lane: str) -> None:
        """Wait for the lane's next slot and take it: its spacing after the last request
        began, and no earlier than a hold-off the source asked for."""
        with self._lock:
            now = self._clock()
            slot = max(now, self._next.get(lane, now))
            self._next[lane] = slot + self._spacings[lane]
        if slot > now:
            self._sleep((slot - now).total_seconds())

    def finished(self, lane: str) -> None:
        """A request of the lane got its answer (or gave up): the next one waits the
        spacing from now, so requests are spaced on the source's side too, whatever the
        network's delays, and never overlap."""
        with self._lock:
            now = self._clock()
            self._next[lane] = max(self._next.get(lane, now), now + self._spacings[lane])

    def hold_off(self, lane: str, until: datetime) -> None:
        """The source asked for no request before ``until`` (429, 503)."""
        with self._lock:
            self._next[lane] = max(self._next.get(lane, until), until)
