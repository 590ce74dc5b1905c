"""The cache of Slack's answers the App Home uses: fresh answers are reused, stale ones and
the oldest beyond the size are asked again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.answers.expiring import ExpiringCache


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2025, 4, 24, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def test_an_answer_is_reused_until_it_is_stale() -> None:
    clock, asked = Clock(), []
    cache: ExpiringCache[str, bool] = ExpiringCache(10, timedelta(minutes=5), clock)

    def ask() -> bool:
        asked.append(clock.now)
        return True

    assert cache.get("C1", ask) and cache.get("C1", ask)
    clock.now += timedelta(minutes=4, seconds=59)
    cache.get("C1", ask)
    assert len(asked) == 1
    clock.now += timedelta(seconds=1)
    cache.get("C1", ask)
    assert len(asked) == 2


def test_the_oldest_answer_goes_when_the_cache_is_full() -> None:
    cache: ExpiringCache[str, str] = ExpiringCache(2, timedelta(minutes=5), Clock())
    for key in ("a", "b", "c"):
        cache.get(key, lambda key=key: key)
    assert cache.get("b", lambda: "asked") == "b"
    assert cache.get("c", lambda: "asked") == "c"
    assert cache.get("a", lambda: "asked") == "asked"
