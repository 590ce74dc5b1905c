"""The platform's two questions over HTTP: is the process alive (``/healthz``), and should it
get traffic (``/readyz``).

Liveness never fails because of the database: a platform restarts a process that fails it,
and restarting every replica during a database outage adds cold starts to the outage while
the bot could still answer searches. It reports the database's state as last seen, without
waiting for it (a liveness probe times out in a second or so). Readiness asks the database,
within the store's deadline, and fails while it cannot be used, so a router that checks it
sends traffic where saving and paging work. A bot that binds its port before its index is
built (the served bot does, so a platform that wants a port bound within a minute gets one)
also says, while it builds, that it is alive but not ready: ``"index": "building"``. The
probes run on the threads that ack Slack:
the database is asked at most once every ``READY_FOR_SECONDS``, by one probe at a time
(the others answer with the state last seen), and only a change of state is logged.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger(__name__)

HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"
PATHS = frozenset({HEALTH_PATH, READY_PATH})

OK = "200 OK"
UNAVAILABLE = "503 Service Unavailable"
READY_FOR_SECONDS = 5.0
"""How long a readiness probe's answer stands: a platform probes every few seconds per
replica, and each probe may wait up to the store's deadline."""


class DatabaseHealth(Protocol):
    """What the store tells about the database (``bot.store.Store``)."""

    def answered_last(self) -> bool: ...

    def reachable(self) -> bool: ...


class HealthCheck:
    """The answers to ``PATHS`` for one process; with no ``database`` (a bot built without
    one) there is nothing to report on it, and with no ``index_ready`` nothing on the
    index (it was built before the port was bound)."""

    def __init__(
        self,
        database: DatabaseHealth | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        index_ready: Callable[[], bool] | None = None,
    ) -> None:
        self._database = database
        self._index_ready = index_ready
        self._clock = clock
        self._lock = threading.Lock()
        self._probing = False
        self._ready: bool | None = None
        self._probed_at = 0.0

    def reply(self, path: str) -> tuple[str, bytes]:
        """The status line and JSON body for ``path`` (one of ``PATHS``)."""
        status, body = self._database_reply(path)
        if self._index_ready is None:
            return status, _body(body)
        built = self._index_ready()
        body["index"] = "ok" if built else "building"
        if path == READY_PATH and not built:
            status, body["status"] = UNAVAILABLE, "unready"
        return status, _body(body)

    def _database_reply(self, path: str) -> tuple[str, dict[str, str]]:
        if self._database is None:
            return OK, {"status": "ok"}
        if path == READY_PATH and not self._is_ready(self._database):
            return UNAVAILABLE, {"status": "unready", "database": "unavailable"}
        if path == READY_PATH:
            return OK, {"status": "ok", "database": "ok"}
        state = "ok" if self._database.answered_last() else "unavailable"
        return OK, {"status": "ok", "database": state}

    def _is_ready(self, database: DatabaseHealth) -> bool:
        with self._lock:
            last = self._ready
            fresh = last is not None and self._clock() - self._probed_at < READY_FOR_SECONDS
            if fresh or self._probing:
                return last if last is not None else database.answered_last()
            self._probing = True
        ready = False
        try:
            ready = database.reachable()
        finally:
            with self._lock:
                self._probing = False
                self._ready, self._probed_at = ready, self._clock()
        if not ready and last is not False:
            log.warning("not ready: the database does not answer")
        elif ready and last is False:
            log.info("ready again: the database answers")
        return ready


def _body(fields: dict[str, str]) -> bytes:
    return (json.dumps(fields) + "\n").encode()
