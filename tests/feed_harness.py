"""What the feed tests share: a clock that the ingest's waits move (so the pace is checked
without waiting), a fast stand-in for the model, and an ingester over a store and the fakes."""

from __future__ import annotations

import hashlib
import threading
from datetime import datetime, timedelta

import numpy as np
from feed_fakes import FeedFake

from bot.feeds.ingest import Ingester
from bot.settings import Settings
from bot.store import Store


class SteppedClock:
    """Now, moved only by the ingest's own waits (its ``sleep``) and by the test."""

    def __init__(self, start: datetime) -> None:
        self.now = start
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        with self._lock:
            return self.now

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.now += timedelta(seconds=seconds)


class HashEmbedder:
    """A model stand-in: a fixed unit vector per text, and a count of texts embedded."""

    def __init__(self, fingerprint: str = "hash-model-1") -> None:
        self.fingerprint = fingerprint
        self.embedded = 0

    def embed(self, text: str) -> np.ndarray:
        self.embedded += 1
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
        vector = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
        return vector / np.linalg.norm(vector)


def feed_settings(fake: FeedFake, feeds: str, database_url: str) -> Settings:
    return Settings.from_env(
        fake.environment | {"PAPERBOT_FEEDS": feeds, "PAPERBOT_DATABASE_URL": database_url},
        dotenv=False,
    )


def ingester(
    store: Store,
    settings: Settings,
    clock: SteppedClock,
    embedder: HashEmbedder,
    owner: str = "process-1",
    timeout: float = 5.0,
) -> Ingester:
    return Ingester(
        store,
        settings,
        lambda: embedder,
        owner=owner,
        clock=clock,
        sleep=clock.sleep,
        timeout=timeout,
    )
