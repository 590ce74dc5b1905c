"""Where the checkout is, and ``python -m bot`` started in a child process, for tests that
run the real bot or read project files."""

import os
import socket
import subprocess
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """A loopback port nothing listens on, for a bot process to serve HTTP on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_bot(cwd: Path, **variables: str) -> subprocess.Popen[str]:
    """``python -m bot`` in ``cwd`` with this environment less its ``SLACK_*`` variables,
    plus ``variables``; its stdout and stderr are pipes of text. It serves the seed papers
    unless ``variables`` say otherwise (``PAPERBOT_CORPUS=""`` for a served bot's default,
    the catalogue, which takes seconds more to load)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("SLACK_")}
    env.update(PYTHONPATH=str(PROJECT_ROOT), PAPERBOT_CORPUS="seeds")
    env.update(variables)
    return subprocess.Popen(
        [sys.executable, "-m", "bot"],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
