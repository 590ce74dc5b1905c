"""The platform's two questions over HTTP: is the process alive (``/healthz``), and should it
get traffic (``/readyz``).

Liveness never fails because of the database: a platform restarts a process that fails it,
and restarting every replica during a database outage adds cold starts to the outage while
the bot could still answer searches. It reports the database's state as last seen, without
waiting for it (a liveness probe times out in a second or so). Readiness asks the database,
within the store's deadline, and fails while it cannot be used, so a router that checks it
sends traffic where saving and paging work.
"""

from __future__ import annotations

import json
from typing import Protocol

HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"
PATHS = frozenset({HEALTH_PATH, READY_PATH})

OK = "200 OK"
UNAVAILABLE = "503 Service Unavailable"


class DatabaseHealth(Protocol):
    """What the store tells about the database (``bot.store.Store``)."""

    def answered_last(self) -> bool: ...

    def reachable(self) -> bool: ...


def health_reply(path: str, database: DatabaseHealth | None) -> tuple[str, bytes]:
    """The status line and JSON body for ``path`` (one of ``PATHS``); with no ``database``
    (a bot built without one) there is nothing to report on it."""
    if database is None:
        return OK, _body({"status": "ok"})
    if path == READY_PATH and not database.reachable():
        return UNAVAILABLE, _body({"status": "unready", "database": "unavailable"})
    if path == READY_PATH:
        return OK, _body({"status": "ok", "database": "ok"})
    state = "ok" if database.answered_last() else "unavailable"
    return OK, _body({"status": "ok", "database": state})


def _body(fields: dict[str, str]) -> bytes:
    return (json.dumps(fields) + "\n").encode()
