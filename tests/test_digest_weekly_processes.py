"""Two real bot processes on one database post each channel's weekly digest once, beside its
paper of the day: ``test_digest_processes``'s approach (``python -m bot digest`` twice at
once, Slack slowed down so each process meets the other's claims) with both kinds due."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from faulty_slack import FaultySlackRecorder
from test_digest_processes import (
    CHANNELS,
    PROCESSES,
    bot_environment,
    database_url,
    recorder,
    slow_slack,
)

from bot.digest.subscriptions import DAYS_OF_WEEK
from bot.store import DAILY, WEEKLY, Store, SubscriptionRecord

__all__ = ["database_url", "recorder", "slow_slack"]  # fixtures, shared with that test


def subscribe_to_both(database_url: str) -> None:
    """Every channel's paper of the day and weekly digest due whenever the test runs: at
    midnight UTC, the weekly one on today's day of the week."""
    today = DAYS_OF_WEEK[datetime.now(UTC).weekday()]
    store = Store(database_url)
    for channel in CHANNELS:
        for kind, cadence in ((DAILY, "daily"), (WEEKLY, today)):
            store.save_subscription(
                SubscriptionRecord(channel, "00:00", "UTC", cadence, None, "command", kind=kind)
            )
    store.close()


def test_two_processes_post_each_kind_once_per_channel(
    database_url: str, recorder: FaultySlackRecorder, slow_slack: str, tmp_path: Path
) -> None:
    subscribe_to_both(database_url)
    environment = bot_environment(database_url, slow_slack)
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "bot", "digest"],
            cwd=tmp_path,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(PROCESSES)
    ]
    results = [process.communicate(timeout=90) for process in processes]
    for process, (out, err) in zip(processes, results, strict=True):
        assert process.returncode == 0, f"{out}\n{err}"
    posted = Counter(
        (call.args["channel"], call.args["metadata"]["event_payload"].get("kind", DAILY))
        for call in recorder.calls_to("chat.postMessage")
        if call.response.get("ok")
    )
    assert posted == Counter(
        {(channel, kind): 1 for channel in CHANNELS for kind in (DAILY, WEEKLY)}
    )
    lines = [line for out, _ in results for line in out.splitlines()]
    weekly_posts = [line for line in lines if " weekly: posted " in line]
    assert len(weekly_posts) == len(CHANNELS), lines
    assert any("another process" in line for line in lines), "the processes never met"
