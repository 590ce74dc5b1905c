"""Which mode ``python -m bot`` runs in, and the one-line errors when it cannot start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request

import pytest
from project import PROJECT_ROOT, free_port, start_bot

from bot.cli import main
from bot.settings import Settings
from bot.shell.fake_slack import SlackRecorder
from bot.slack.modes import HTTP, SHELL, SOCKET, ModeError, choose_mode

BOT = "xoxb-1-abc"
APP = "xapp-1-abc"
SECRET = "s3cr3t"


@pytest.mark.parametrize(
    ("settings", "forced", "mode"),
    [
        (Settings(slack_bot_token=BOT, slack_app_token=APP), None, SOCKET),
        (
            Settings(slack_bot_token=BOT, slack_app_token=APP, slack_signing_secret=SECRET),
            None,
            SOCKET,
        ),
        (Settings(slack_bot_token=BOT, slack_signing_secret=SECRET), None, HTTP),
        (Settings(), None, SHELL),
        (
            Settings(slack_bot_token=BOT, slack_app_token=APP, slack_signing_secret=SECRET),
            "http",
            HTTP,
        ),
        (Settings(slack_bot_token=BOT, slack_app_token=APP), "shell", SHELL),
    ],
)
def test_mode_follows_the_environment_or_the_flag(settings, forced, mode):
    assert choose_mode(settings, forced) == mode


@pytest.mark.parametrize(
    ("settings", "forced", "message"),
    [
        (
            Settings(slack_bot_token=BOT),
            None,
            "SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET",
        ),
        (Settings(slack_app_token=APP), None, "SLACK_BOT_TOKEN is not set"),
        (Settings(slack_signing_secret=SECRET), None, "SLACK_BOT_TOKEN is not set"),
        (
            Settings(slack_bot_token=BOT, slack_signing_secret=SECRET),
            "socket",
            "SLACK_APP_TOKEN is not set",
        ),
        (
            Settings(slack_bot_token=BOT, slack_app_token=APP),
            "http",
            "SLACK_SIGNING_SECRET is not set",
        ),
        (Settings(), "socket", "SLACK_BOT_TOKEN is not set"),
        (
            Settings(slack_bot_token=APP, slack_app_token=APP),
            None,
            "SLACK_BOT_TOKEN must be a token starting with 'xoxb-'",
        ),
        (
            Settings(slack_bot_token=BOT, slack_app_token=BOT),
            None,
            "SLACK_APP_TOKEN must be a token starting with 'xapp-'",
        ),
    ],
)
def test_missing_or_wrong_kind_of_token_names_the_variable(settings, forced, message):
    with pytest.raises(ModeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        choose_mode(settings, forced)


def test_a_forced_mode_names_the_missing_variable(monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(tmp_path)
    for name in [key for key in os.environ if key.startswith("SLACK_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("SLACK_BOT_TOKEN", BOT)
    assert main(["--socket"]) == 2
    assert capsys.readouterr().err == "paperbot: SLACK_APP_TOKEN is not set\n"


def test_python_dash_m_bot_prints_no_traceback(tmp_path):
    env = {key: value for key, value in os.environ.items() if not key.startswith("SLACK_")}
    env.update(SLACK_BOT_TOKEN="xapp-wrong-kind", SLACK_SIGNING_SECRET=SECRET)
    done = subprocess.run(
        [sys.executable, "-m", "bot", "--http"],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(PROJECT_ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == "paperbot: SLACK_BOT_TOKEN must be a token starting with 'xoxb-'\n"


def test_http_mode_prints_its_mode_and_serves_health_on_port(tmp_path):
    """With no ``PAPERBOT_CORPUS``, a bot serving Slack searches the whole conference."""
    port = free_port()
    with SlackRecorder() as recorder:
        process = start_bot(
            tmp_path,
            SLACK_BOT_TOKEN=BOT,
            SLACK_SIGNING_SECRET=SECRET,
            SLACK_API_URL=recorder.base_url,
            PORT=str(port),
            PAPERBOT_DATABASE_URL=f"sqlite:///{tmp_path / 'bot.db'}",
            PAPERBOT_SCHEDULER="off",
            PAPERBOT_CORPUS="",
        )
        try:
            first = process.stdout.readline()
            second = process.stdout.readline()
            third = process.stdout.readline()
            assert first == "paperbot: HTTP; building the index\n"
            assert second == f"paperbot: listening on port {port} at /slack/events\n"
            assert third.startswith("paperbot: ready; 3,706 accepted papers from the ICLR 2025")
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as reply:
                assert json.loads(reply.read()) == {"status": "ok", "database": "ok", "index": "ok"}
        finally:
            process.terminate()
            _, errors = process.communicate(timeout=10)
    assert "will be unused" not in errors
