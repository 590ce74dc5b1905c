"""Start-up failures: one line naming what to fix, exit code 2, no traceback, no secret.

Most cases run ``bot.cli.main`` in this process with the environment a platform would give
it (the working directory is a fresh folder, so no ``.env`` is read); one runs
``python -m bot`` for real to see what a person at a terminal sees.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from faulty_slack import FaultySlackRecorder, server_error, slack_error
from project import PROJECT_ROOT

from bot.cli import main

BOT = "xoxb-1-startup"
APP = "xapp-1-startup"
SECRET = "startup-signing-secret"
DB_PASSWORD = "hunter2-db-password"


@pytest.fixture
def environment(tmp_path, monkeypatch):
    """A clean environment in an empty folder; returns a setter for variables."""
    for name in list(os.environ):
        if name.startswith(("SLACK_", "PAPERBOT_")) or name == "PORT":
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PAPERBOT_DATABASE_URL", f"sqlite:///{tmp_path / 'bot.db'}")
    monkeypatch.setenv("PAPERBOT_SCHEDULER", "off")

    def set_variables(**values: str) -> None:
        for name, value in values.items():
            monkeypatch.setenv(name, value)

    return set_variables


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _one_line_failure(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err + captured.out
    for secret in (BOT, APP, SECRET, DB_PASSWORD):
        assert secret not in captured.err + captured.out
    return lines[0]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PAPERBOT_DIGEST_TIME", "25:99"),
        ("PAPERBOT_DIGEST_TIME", "soon"),
        ("PAPERBOT_LOG_LEVEL", "chatty"),
        ("SLACK_API_URL", "slack.com/api"),
    ],
)
def test_invalid_settings_name_the_variable(environment, capsys, name, value):
    environment(**{name: value})
    line = _one_line_failure(capsys, ["search", "graph"])
    assert line.startswith(f"paperbot: {name} must be")
    assert repr(value) in line


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--bogus"], "unknown option '--bogus'"),
        (["--http", "extra"], "unknown argument 'extra'"),
        (["digest", "--chanel", "C1"], "unrecognized arguments: --chanel"),
        (["shell", "--onse", "hi"], "unrecognized arguments: --onse"),
        (["search", "-k", "many", "graph"], "argument -k/--limit: invalid int value: 'many'"),
    ],
)
def test_unknown_flags_are_named_in_one_line(environment, capsys, argv, named):
    assert named in _one_line_failure(capsys, argv)


def _python_dash_m_bot(tmp_path, argv: list[str], **variables: str) -> str:
    """Run ``python -m bot`` as a platform would; the one line it printed on failure."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
    env.update(
        {
            "PAPERBOT_DATABASE_URL": f"sqlite:///{tmp_path / 'bot.db'}",
            "PAPERBOT_SCHEDULER": "off",
            "PYTHONPATH": str(PROJECT_ROOT),
            **variables,
        }
    )
    done = subprocess.run(
        [sys.executable, "-m", "bot", *argv],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    for secret in (BOT, APP, SECRET, DB_PASSWORD):
        assert secret not in done.stderr
    return lines[0]


def test_an_unreachable_database_is_one_line_without_its_password(tmp_path):
    url = f"postgresql+psycopg://paperbot:{DB_PASSWORD}@127.0.0.1:{_closed_port()}/paperbot"
    line = _python_dash_m_bot(
        tmp_path, ["--shell", "--once", "/paper graph"], PAPERBOT_DATABASE_URL=url
    )
    assert line.startswith("paperbot: cannot use the database postgresql+psycopg://paperbot:***@")
    assert "(PAPERBOT_DATABASE_URL)" in line and "Connection refused" in line


def test_a_token_slack_rejects_is_named(tmp_path):
    with FaultySlackRecorder() as recorder:
        recorder.fail_next("auth.test", slack_error("invalid_auth"))
        line = _python_dash_m_bot(
            tmp_path,
            ["--http"],
            SLACK_BOT_TOKEN=BOT,
            SLACK_SIGNING_SECRET=SECRET,
            SLACK_API_URL=recorder.base_url,
        )
    assert line.startswith("paperbot: Slack rejected SLACK_BOT_TOKEN (invalid_auth)")


def test_an_app_token_slack_rejects_is_named(tmp_path):
    with FaultySlackRecorder() as recorder:
        recorder.fail_next("apps.connections.open", slack_error("invalid_auth"))
        line = _python_dash_m_bot(
            tmp_path,
            [],
            SLACK_BOT_TOKEN=BOT,
            SLACK_APP_TOKEN=APP,
            SLACK_API_URL=recorder.base_url,
        )
    assert line.startswith("paperbot: Slack rejected SLACK_APP_TOKEN (invalid_auth)")


def test_a_slack_api_that_answers_unlike_slack_is_not_called_a_token_refusal(tmp_path):
    with FaultySlackRecorder() as recorder:
        recorder.fail_next("auth.test", server_error(503))
        line = _python_dash_m_bot(
            tmp_path,
            ["--http"],
            SLACK_BOT_TOKEN=BOT,
            SLACK_SIGNING_SECRET=SECRET,
            SLACK_API_URL=recorder.base_url,
        )
        assert line.startswith(f"paperbot: the Slack API at {recorder.base_url} answered HTTP 503")


def test_an_unreachable_slack_api_is_named(tmp_path):
    api = f"http://127.0.0.1:{_closed_port()}/api/"
    line = _python_dash_m_bot(
        tmp_path, [], SLACK_BOT_TOKEN=BOT, SLACK_APP_TOKEN=APP, SLACK_API_URL=api
    )
    assert line.startswith(f"paperbot: cannot reach the Slack API at {api}")
    assert "SLACK_API_URL" in line


@pytest.mark.parametrize(
    ("flag", "variables", "line"),
    [
        ("--socket", {"SLACK_SIGNING_SECRET": SECRET}, "Socket Mode is not configured here"),
        ("--http", {"SLACK_APP_TOKEN": APP}, "HTTP is not configured here"),
    ],
)
def test_the_procfile_process_without_its_mode_exits_0(environment, capsys, flag, variables, line):
    environment(SLACK_BOT_TOKEN=BOT, **variables)
    assert main([flag, "--if-configured"]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"paperbot: {line}; exiting\n"
    assert captured.err == ""


def test_the_procfile_names_if_configured_on_both_processes():
    procfile = (PROJECT_ROOT / "Procfile").read_text().splitlines()
    assert procfile == [
        "web: python -m bot --http --if-configured",
        "worker: python -m bot --socket --if-configured",
    ]


def test_dash_dash_shell_equals_shell(environment, capsys):
    assert main(["--shell", "--once", "/paper graph sparsification"]) == 0
    assert "Graph Sparsification via Mixture of Graphs" in capsys.readouterr().out


@pytest.mark.parametrize("text", ["", "   "])
def test_shell_once_with_nothing_to_send_says_what_it_expects(environment, capsys, text):
    line = _one_line_failure(capsys, ["shell", "--once", text])
    assert line == (
        "paperbot: --once expects the line to send, as typed at the prompt: "
        "--once '/paper graph sparsification' (see paperbot shell --help)"
    )


def test_python_dash_m_bot_with_a_bad_log_level_prints_one_line(tmp_path):
    line = _python_dash_m_bot(tmp_path, ["search", "graph"], PAPERBOT_LOG_LEVEL="loud")
    assert line == (
        "paperbot: PAPERBOT_LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL, "
        "not 'loud'"
    )


PAPERBOT_SCRIPT = str(Path(sys.executable).parent / "paperbot")


@pytest.mark.parametrize(
    ("command", "usage"),
    [
        ([PAPERBOT_SCRIPT, "--help"], "usage: paperbot [--socket | --http]"),
        ([PAPERBOT_SCRIPT, "search", "--help"], "usage: paperbot search [-h]"),
        ([PAPERBOT_SCRIPT, "embed", "--help"], "usage: paperbot embed [-h]"),
        ([sys.executable, "-m", "bot", "--help"], "usage: python -m bot [--socket | --http]"),
        ([sys.executable, "-m", "bot", "search", "--help"], "usage: python -m bot search [-h]"),
    ],
)
def test_help_spells_the_command_as_it_was_typed(tmp_path, command, usage):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
    done = subprocess.run(
        command,
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(PROJECT_ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(usage)
    typed = usage.split(" [")[0].removeprefix("usage: ").split()[0]
    other = "python -m bot" if typed == "paperbot" else "paperbot "
    assert other not in done.stdout
