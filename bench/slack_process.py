"""The fake Slack in a process of its own, for a bench whose own threads send the load.

``python bench/slack_process.py [--socket-url URL]`` serves the fake Web API and
``response_url`` on a loopback port, prints ``ready <root url>``, then
``landed <response id> <monotonic seconds>`` as each ``response_url`` post arrives, until its
stdin is closed; ``SlackProcess`` is the parent's side. ``time.monotonic`` is one clock for
every process of the machine, so the parent can subtract its own send times.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from benchkit import ROOT

from bot.shell.fake_slack import RESPONSE_URL, SlackRecorder


class LandingSlack(SlackRecorder):
    """The fake Slack, printing when each ``response_url`` post landed, and keeping none of
    the calls: thousands would only take memory."""

    def __init__(self) -> None:
        super().__init__()
        self._print_lock = threading.Lock()

    def handle(
        self, method: str, args: dict[str, Any], token: str | None, response_id: str | None = None
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        landed = time.monotonic()
        with self._condition:
            status, body, headers = self._respond(method, args, response_id)
        if method == RESPONSE_URL:
            with self._print_lock:
                print(f"landed {response_id} {landed:.6f}", flush=True)
        return status, body, headers


class SlackProcess:
    """The parent's side: the fake Slack's URLs, and when each answer landed."""

    def __init__(self, socket_url: str | None) -> None:
        command = [sys.executable, str(Path(__file__).resolve())]
        if socket_url:
            command += ["--socket-url", socket_url]
        self._process = subprocess.Popen(
            command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self._process.stdout is not None
        ready = self._process.stdout.readline().split()
        if ready[:1] != ["ready"]:
            self._process.kill()
            raise RuntimeError("the fake Slack did not start")
        self.root_url = ready[1]
        self._landed: dict[str, float] = {}
        self._changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/api/"

    def response_url(self, response_id: str) -> str:
        return f"{self.root_url}/response/{response_id}"

    def landed(self, response_id: str) -> float | None:
        """When the first post to ``response_id``'s URL arrived (``time.monotonic``)."""
        with self._changed:
            return self._landed.get(response_id)

    def wait_for_landing(self, timeout: float) -> None:
        """Return when another answer landed, or after ``timeout`` seconds."""
        with self._changed:
            self._changed.wait(timeout)

    def _read(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            _, response_id, landed = line.split()
            with self._changed:
                self._landed.setdefault(response_id, float(landed))
                self._changed.notify_all()

    def close(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--socket-url", help="what apps.connections.open hands out")
    args = parser.parse_args(argv)
    slack = LandingSlack().start()
    slack.socket_mode_url = args.socket_url
    print(f"ready {slack.root_url}", flush=True)
    sys.stdin.read()
    slack.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
