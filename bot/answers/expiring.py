"""A small in-process cache whose answers go stale: for what only Slack knows and may change
(who can see a channel), asked again on every App Home publish."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from datetime import datetime, timedelta
from typing import Generic, TypeVar

from bot.clock import Clock

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class ExpiringCache(Generic[K, V]):
    """At most ``size`` answers, each trusted for ``ttl``; the oldest go first when full.

    Shared by every request thread, so it locks; the answer itself is computed outside the
    lock (a Web API call must not hold up other people's App Home)."""

    def __init__(self, size: int, ttl: timedelta, clock: Clock) -> None:
        self._size = size
        self._ttl = ttl
        self._clock = clock
        self._entries: OrderedDict[K, tuple[datetime, V]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K, compute: Callable[[], V | None]) -> V | None:
        """The answer for ``key``: remembered if fresh, else ``compute``'s, remembered unless
        it is None (it could not tell: a failed lookup is asked again next time)."""
        now = self._clock()
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and now - entry[0] < self._ttl:
                return entry[1]
        value = compute()
        if value is None:
            return None
        with self._lock:
            self._keep(key, now, value)
        return value

    def add(self, key: K, value: V) -> bool:
        """Remember ``value`` unless a fresh answer for ``key`` is kept; whether it was added.

        Looked up and kept under one lock, so of two threads adding one key only one wins."""
        now = self._clock()
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and now - entry[0] < self._ttl:
                return False
            self._keep(key, now, value)
        return True

    def _keep(self, key: K, now: datetime, value: V) -> None:
        self._entries.pop(key, None)
        self._entries[key] = (now, value)
        while len(self._entries) > self._size:
            self._entries.popitem(last=False)
