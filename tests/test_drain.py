"""SIGTERM, as every platform stops a process: a real bot process stops taking requests,
answers every one it had acked (within the grace period), says so in its log, and exits 0."""

from __future__ import annotations

import re
import signal
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from faulty_slack import FaultySlackRecorder
from project import free_port, start_bot
from slack_harness import BOT_TOKEN, SIGNING_SECRET, Reply
from test_socket_mode import APP_TOKEN, FakeSocketModeServer

from bot.shell.fake_slack import RESPONSE_URL
from bot.slack import payloads as payloads

SLOW_SLACK_SECONDS = 1.0
COMMANDS = 4
WAIT_SECONDS = 20.0
"""Generous bounds for a loaded machine; each test takes a few seconds when all is well."""
DRAINING = re.compile(r"draining: (\d+) requests in flight")
DRAINED = re.compile(r"drained: (\d+) finished, (\d+) unfinished")


class BotProcess:
    """``python -m bot`` in a child process, its log read line by line as it comes."""

    def __init__(self, tmp_path: Path, **variables: str) -> None:
        self._process = start_bot(
            tmp_path,
            **{
                "PAPERBOT_DATABASE_URL": f"sqlite:///{tmp_path / 'bot.db'}",
                "PAPERBOT_SEMANTIC": "off",
                "PAPERBOT_LOG_LEVEL": "INFO",
                **variables,
            },
        )
        self._lines: list[str] = []
        self._new_line = threading.Condition()
        self._readers = [
            threading.Thread(target=self._read, args=(stream,), daemon=True)
            for stream in (self._process.stdout, self._process.stderr)
        ]
        for reader in self._readers:
            reader.start()

    def _read(self, stream) -> None:
        for line in stream:
            with self._new_line:
                self._lines.append(line.rstrip("\n"))
                self._new_line.notify_all()

    def wait_for_line(self, pattern: str | re.Pattern[str]) -> re.Match[str]:
        """The first line (stdout or log) matching ``pattern``, waiting for it."""
        found: list[re.Match[str]] = []

        def seen() -> bool:
            found.extend(m for line in self._lines if (m := re.search(pattern, line)))
            return bool(found) or self._process.poll() is not None

        with self._new_line:
            self._new_line.wait_for(seen, WAIT_SECONDS)
        assert found, f"no line matching {pattern!r} in:\n" + "\n".join(self._lines)
        return found[0]

    def terminate(self) -> None:
        self._process.send_signal(signal.SIGTERM)

    def exit_code(self) -> int:
        code = self._process.wait(timeout=WAIT_SECONDS)
        for reader in self._readers:
            reader.join(timeout=WAIT_SECONDS)
        return code

    @property
    def log(self) -> str:
        with self._new_line:
            return "\n".join(self._lines)

    def kill(self) -> None:
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait(timeout=WAIT_SECONDS)


class SlackOverHttp:
    """What Slack and the platform send to a bot process's port."""

    def __init__(self, port: int, recorder: FaultySlackRecorder) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self.recorder = recorder
        self.workspace = payloads.Workspace()

    def slash(self, response_id: str, text: str = "graph sparsification") -> Reply:
        fields = payloads.slash_command(
            self.workspace, text, self.recorder.response_url(response_id)
        )
        body, content_type = payloads.form_body(fields)
        headers = payloads.signed_headers(SIGNING_SECRET, body, content_type)
        return self._send(
            urllib.request.Request(self.url + "/slack/events", body.encode(), headers)
        )

    def health(self) -> Reply:
        return self._send(urllib.request.Request(self.url + "/healthz"))

    @staticmethod
    def _send(request: urllib.request.Request) -> Reply:
        try:
            with urllib.request.urlopen(request, timeout=WAIT_SECONDS) as response:
                status, body = response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            status, body = error.code, error.read().decode()
        return Reply(status, body)


def _over_http(recorder: FaultySlackRecorder, port: int) -> dict[str, str]:
    """The environment of a bot serving HTTP on ``port`` through the fake Slack."""
    return {
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_URL": recorder.base_url,
        "PORT": str(port),
    }


@contextmanager
def _http_bot(tmp_path: Path, drain_seconds: str) -> Iterator[tuple[BotProcess, SlackOverHttp]]:
    """A bot process in HTTP mode, and what talks to it (the fake Slack it answers through)."""
    recorder = FaultySlackRecorder().start()
    port = free_port()
    bot = BotProcess(
        tmp_path,
        **_over_http(recorder, port),
        PAPERBOT_DRAIN_SECONDS=drain_seconds,
    )
    try:
        bot.wait_for_line(f"listening on port {port}")
        bot.wait_for_line("paperbot: ready")  # the index built: requests answered
        yield bot, SlackOverHttp(port, recorder)
    finally:
        bot.kill()
        recorder.stop()


def _assert_drained_everything(bot: BotProcess) -> None:
    in_flight = int(bot.wait_for_line(DRAINING).group(1))
    finished, unfinished = map(int, bot.wait_for_line(DRAINED).groups())
    assert 1 <= in_flight <= finished <= COMMANDS
    assert unfinished == 0


def test_sigterm_over_http_answers_every_acked_command_and_exits_0(tmp_path):
    with _http_bot(tmp_path, drain_seconds="15") as (bot, slack):
        slack.recorder.slow_down(RESPONSE_URL, SLOW_SLACK_SECONDS, lands_late=True)
        with ThreadPoolExecutor(max_workers=COMMANDS) as senders:
            acks = list(senders.map(lambda n: slack.slash(f"c{n}"), range(COMMANDS)))
        assert [(ack.status, ack.body) for ack in acks] == [(200, "")] * COMMANDS
        bot.terminate()
        bot.wait_for_line(DRAINING)

        health = slack.health()
        assert (health.status, health.body) == (503, "draining\n")
        assert slack.slash("late").status == 503

        assert bot.exit_code() == 0
        _assert_drained_everything(bot)
        answered = slack.recorder.calls_to(RESPONSE_URL)
        assert sorted(call.response_id for call in answered) == [f"c{n}" for n in range(COMMANDS)]
    assert "Traceback" not in bot.log


def test_work_left_at_the_end_of_the_grace_period_is_logged_and_the_exit_is_0(tmp_path):
    with _http_bot(tmp_path, drain_seconds="0.2") as (bot, slack):
        slack.recorder.slow_down(RESPONSE_URL, 5.0, lands_late=True)
        assert slack.slash("stuck").status == 200
        bot.terminate()
        assert bot.exit_code() == 0
        assert bot.wait_for_line(DRAINING).group(1) == "1"
        assert bot.wait_for_line(DRAINED).groups() == ("0", "1")


@contextmanager
def _bot_posting_the_digest(tmp_path: Path, drain_seconds: str) -> Iterator[BotProcess]:
    """A bot process serving HTTP whose paper of the day (due at start-up) waits for a
    Slack that answers its post only long after any test ends."""
    recorder = FaultySlackRecorder().start()
    recorder.slow_down("chat.postMessage", 3 * WAIT_SECONDS)
    bot = BotProcess(
        tmp_path,
        **_over_http(recorder, free_port()),
        PAPERBOT_DRAIN_SECONDS=drain_seconds,
        PAPERBOT_DIGEST_CHANNEL="C0DIGEST",
        PAPERBOT_DIGEST_TIME="00:00",
    )
    try:
        bot.wait_for_line("listening on port")
        bot.wait_for_line("paperbot: ready")  # the index built: requests answered
        recorder.wait_for("chat.postMessage", timeout=WAIT_SECONDS)
        yield bot
    finally:
        bot.kill()
        recorder.stop()


def test_a_digest_post_under_way_does_not_hold_the_exit_past_the_grace_period(tmp_path):
    """The paper of the day waits for a slow Slack on APScheduler's thread, which the
    interpreter would join at exit: the stop waits for it only for what is left of the grace
    period, then exits 0 (the claim lets the next attempt finish the post)."""
    with _bot_posting_the_digest(tmp_path, "0.2") as bot:
        bot.terminate()
        assert bot.exit_code() == 0
        bot.wait_for_line("stopping while the paper of the day is being posted")


def test_a_signal_after_the_drain_is_ignored(tmp_path):
    """The platform (or an impatient person) signals again while the stop waits out the
    digest's attempt: nothing is left to cut short, so no traceback and still exit 0."""
    with _bot_posting_the_digest(tmp_path, "2") as bot:
        bot.terminate()
        bot.wait_for_line(DRAINED)
        bot.terminate()
        assert bot.exit_code() == 0
        bot.wait_for_line("stopping while the paper of the day is being posted")
        assert "Traceback" not in bot.log


def test_sigterm_during_start_up_exits_0_after_one_line(tmp_path):
    """A platform may stop a process that is still starting (a deploy replaced at once). The
    start-up is held here by a database that accepts the connection and never answers."""
    recorder = FaultySlackRecorder().start()
    with socket.create_server(("127.0.0.1", 0)) as silent_database:
        port = silent_database.getsockname()[1]
        bot = BotProcess(
            tmp_path,
            **_over_http(recorder, free_port()),
            PAPERBOT_DATABASE_URL=f"postgresql://bot@127.0.0.1:{port}/paperbot",
        )
        try:
            silent_database.settimeout(WAIT_SECONDS)
            connection, _ = silent_database.accept()
            with connection:
                bot.terminate()
                assert bot.exit_code() == 0
        finally:
            bot.kill()
            recorder.stop()
    assert "stopped while starting" in bot.log
    assert "Traceback" not in bot.log


def test_sigterm_in_socket_mode_closes_the_connection_and_answers_what_was_acked(tmp_path):
    server = FakeSocketModeServer()
    recorder = FaultySlackRecorder().start()
    recorder.socket_mode_url = server.url
    bot = BotProcess(
        tmp_path,
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_APP_TOKEN=APP_TOKEN,
        SLACK_API_URL=recorder.base_url,
        PAPERBOT_DRAIN_SECONDS="15",
    )
    try:
        bot.wait_for_line("connected to Slack in Socket Mode")
        bot.wait_for_line("paperbot: ready")  # the index built: requests answered
        recorder.slow_down(RESPONSE_URL, SLOW_SLACK_SECONDS, lands_late=True)
        workspace = payloads.Workspace()
        envelopes = [
            server.send(
                "slash_commands",
                payloads.slash_command(
                    workspace, "graph sparsification", recorder.response_url(f"s{n}")
                ),
            )
            for n in range(COMMANDS)
        ]
        waiting = set(envelopes)
        while waiting:
            waiting.discard(server.received.get(timeout=WAIT_SECONDS).get("envelope_id"))
        bot.terminate()
        bot.wait_for_line(DRAINING)
        assert server.disconnected.wait(WAIT_SECONDS)

        assert bot.exit_code() == 0
        _assert_drained_everything(bot)
        answered = recorder.calls_to(RESPONSE_URL)
        assert sorted(call.response_id for call in answered) == [f"s{n}" for n in range(COMMANDS)]
        assert "Traceback" not in bot.log
    finally:
        bot.kill()
        server.close()
        recorder.stop()
