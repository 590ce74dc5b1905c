"""Two real bot processes on one database post exactly once per channel per day, and the
weekly digest, when a channel has one too, once per week; and a subscription made through a
process that does not schedule is posted by one that does, without a restart.

Each process is ``python -m bot digest`` (the scheduler's own code path: serve every due
channel under the claim), started at the same moment against the fake Slack server, first
on a shared SQLite file and then on PostgreSQL. Slack is made slow (a delaying proxy in front
of the recorder) so that each process meets the other's claims while they are still being
posted, rather than finding every channel already done.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from faulty_slack import FaultySlackRecorder
from project import PROJECT_ROOT, free_port
from test_drain import WAIT_SECONDS, BotProcess, SlackOverHttp, _over_http
from test_store import throwaway_postgres_database

from bot.digest.subscriptions import DAYS_OF_WEEK
from bot.shell.fake_slack import RESPONSE_URL
from bot.store import DAILY, WEEKLY, Store, SubscriptionRecord

CHANNELS = [f"CPROC{number:02d}" for number in range(8)]
PROCESSES = 2
SLACK_DELAY = 0.15


@pytest.fixture
def recorder() -> Iterator[FaultySlackRecorder]:
    with FaultySlackRecorder() as running:
        yield running


@pytest.fixture
def slow_slack(recorder: FaultySlackRecorder) -> Iterator[str]:
    """A Web API base URL that answers like the recorder, ``SLACK_DELAY`` seconds later."""

    class Delaying(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            time.sleep(SLACK_DELAY)
            forwarded = urllib.request.Request(
                recorder.root_url + self.path,
                data=body,
                headers={
                    name: value
                    for name, value in self.headers.items()
                    if name.lower() in {"content-type", "authorization"}
                },
            )
            with urllib.request.urlopen(forwarded) as answer:
                payload = answer.read()
            self.send_response(200)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: object) -> None:
            """Quiet: the recorder keeps the calls."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Delaying)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/api/"
    server.shutdown()
    server.server_close()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'shared.db'}"
        return
    with throwaway_postgres_database() as url:
        yield url


def subscribe_everywhere(database_url: str, kinds: tuple[str, ...]) -> None:
    """Channels whose posts are due whenever the test runs: at midnight UTC, daily, and the
    weekly digest on today's day of the week."""
    cadences = {DAILY: "daily", WEEKLY: DAYS_OF_WEEK[datetime.now(UTC).weekday()]}
    store = Store(database_url)
    for channel in CHANNELS:
        for kind in kinds:
            store.save_subscription(
                SubscriptionRecord(
                    channel, "00:00", "UTC", cadences[kind], None, "command", kind=kind
                )
            )
    store.close()


def bot_environment(database_url: str, slack_url: str) -> dict[str, str]:
    keep = {name: os.environ[name] for name in ("PATH", "HOME", "LANG") if name in os.environ}
    return {
        **keep,
        "PYTHONPATH": str(PROJECT_ROOT),
        "SLACK_BOT_TOKEN": "xoxb-test",
        "SLACK_API_URL": slack_url,
        "PAPERBOT_DATABASE_URL": database_url,
        "PAPERBOT_TIMEZONE": "UTC",
        "PAPERBOT_LOG_LEVEL": "WARNING",
        "PAPERBOT_CORPUS": "seeds",
    }


def digest_processes_at_once(database_url: str, slack_url: str, tmp_path: Path) -> list[str]:
    """Run ``PROCESSES`` times ``python -m bot digest`` at the same moment; each one's output,
    once all succeeded."""
    environment = bot_environment(database_url, slack_url)
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "bot", "digest"],
            cwd=tmp_path,  # away from any developer .env in the checkout
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
    return [out for out, _ in results]


@pytest.mark.parametrize("kinds", [(DAILY,), (DAILY, WEEKLY)], ids=["daily", "and-weekly"])
def test_two_processes_post_once_per_channel(
    database_url: str,
    recorder: FaultySlackRecorder,
    slow_slack: str,
    tmp_path: Path,
    kinds: tuple[str, ...],
) -> None:
    subscribe_everywhere(database_url, kinds)
    outputs = digest_processes_at_once(database_url, slow_slack, tmp_path)
    posted = Counter(
        (call.args["channel"], call.args["metadata"]["event_payload"].get("kind", DAILY))
        for call in recorder.calls_to("chat.postMessage")
        if call.response.get("ok")
    )
    assert posted == Counter({(channel, kind): 1 for channel in CHANNELS for kind in kinds})
    lines = [line for out in outputs for line in out.splitlines()]
    for channel in CHANNELS:
        reports = [line for line in lines if line.startswith(f"{channel} ")]
        assert len(reports) == PROCESSES * len(kinds)
        assert sum(": posted " in line for line in reports) == len(kinds), reports
    contended = [line for line in lines if "another process" in line]
    assert contended, "the processes never met a claim in progress; the test proves nothing"


@pytest.mark.parametrize(
    "database_url", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True
)
def test_a_subscription_made_through_the_serving_process_is_posted_by_the_scheduling_one(
    database_url: str, recorder: FaultySlackRecorder, tmp_path: Path
) -> None:
    """The run-book's replica layout, served over HTTP: the process that answers
    ``/paper subscribe`` does not schedule, the one that schedules started with no
    subscription, and posts it, without a restart, at its next read of the watermark
    (every ``PAPERBOT_WATCH_SECONDS``, set to one here). 00:00 UTC is due all day."""
    scheduling = BotProcess(
        tmp_path,
        **_over_http(recorder, free_port()),
        PAPERBOT_DATABASE_URL=database_url,
        PAPERBOT_WATCH_SECONDS="1",
    )
    port = free_port()
    serving = BotProcess(
        tmp_path,
        **_over_http(recorder, port),
        PAPERBOT_DATABASE_URL=database_url,
        PAPERBOT_SCHEDULER="off",
    )
    slack = SlackOverHttp(port, recorder)
    channel = slack.workspace.channel_id
    try:
        scheduling.wait_for_line("digest scheduler started with 0 subscription")
        serving.wait_for_line(f"listening on port {port}")
        serving.wait_for_line("paperbot: ready")  # the index built: requests answered
        assert slack.slash("subscribe", "subscribe 00:00 UTC daily").status == 200
        [reply] = recorder.wait_for(RESPONSE_URL, timeout=WAIT_SECONDS)
        assert "Next paper: today's is being posted now" in reply.args["text"]
        [post] = recorder.wait_for(
            "chat.postMessage",
            timeout=WAIT_SECONDS,
            where=lambda call: call.args["channel"] == channel,
        )
        assert post.response["ok"]
        scheduling.wait_for_line(f"digest: subscriptions changed elsewhere: {channel}")
    finally:
        serving.kill()
        scheduling.kill()
    assert "Traceback" not in scheduling.log + serving.log
