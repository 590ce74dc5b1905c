"""What the benches that run the real bot as a process share: starting and stopping it,
signing a request to it, and the words a report starts with.

``bench/soak.py`` and ``bench/load.py`` both drive ``python -m bot`` from outside, as Slack
would; the bot's log goes to a file as it comes, so its pipe never fills and a failed start
can show why.
"""

from __future__ import annotations

import os
import platform
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from project import start_bot  # noqa: E402

from bot.slack import payloads  # noqa: E402

START_LIMIT_SECONDS = 180.0
"""How long the bot may take to say it is serving (loading the catalogue and its model)."""
BOT_READY = "paperbot: ready"
"""What the bot prints once its index is built: it listens before (turning requests away with
the busy notice), so a bench that sent at "listening" would measure the start-up instead."""


@dataclass
class BotProcess:
    """``python -m bot`` serving, and the thread that copies its log to ``log``."""

    process: subprocess.Popen[str]
    log: Path
    copier: threading.Thread

    @classmethod
    def start(cls, folder: Path, ready: str, **variables: str) -> BotProcess:
        """The bot started in ``folder`` with ``variables``, once its stdout said ``ready``."""
        process = start_bot(folder, **variables)
        log = folder / "bot.log"
        copier = threading.Thread(target=_copy, args=(process.stderr, log), daemon=True)
        copier.start()
        deadline = time.monotonic() + START_LIMIT_SECONDS
        while ready not in (process.stdout.readline() if process.stdout else ""):
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                copier.join(timeout=10)
                raise RuntimeError(f"the bot did not start:\n{log.read_text()}")
        threading.Thread(target=process.stdout.read, daemon=True).start()  # keep it empty
        return cls(process, log, copier)

    def stop(self, grace_seconds: float) -> dict[str, Any]:
        """SIGTERM, as a platform stops a process: exit code, seconds taken, what it logged."""
        logged_before = self.log.stat().st_size
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        try:
            code: int | str = self.process.wait(timeout=grace_seconds)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
            code = f"still running after {grace_seconds:.0f} s, killed"
        self.copier.join(timeout=10)
        with self.log.open(encoding="utf-8", errors="replace") as file:
            file.seek(logged_before)
            lines = [line.rstrip() for line in file if line.strip()]
        return {"code": code, "seconds": time.monotonic() - started, "lines": lines[-6:]}


def _copy(stream: IO[str], path: Path) -> None:
    with path.open("w", encoding="utf-8") as log:
        for line in stream:
            log.write(line)
            log.flush()


def signed_post(
    url: str, secret: str, body: str, content_type: str, timeout: float
) -> tuple[int, str]:
    """POST ``body`` to the bot's events path, signed as Slack signs it: status and body.

    Raises ``OSError`` when no answer came (refused, reset, timed out)."""
    headers = payloads.signed_headers(secret, body, content_type)
    request = urllib.request.Request(
        url + "/slack/events", data=body.encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, ""


def quantile(values: list[float], share: float) -> float | None:
    """The ``share`` percentile of ``values`` (nearest rank); None if there are none."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def percentile(values: list[float], share: float, *, scale: float = 1.0, digits: int = 3) -> str:
    """``quantile`` times ``scale``, as text; "n/a" if there are no values."""
    value = quantile(values, share)
    return "n/a" if value is None else f"{value * scale:.{digits}f}"


def commit_words() -> str:
    """The commit measured, and whether ``bot/`` or ``handlers/`` differed from it."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()

    dirty = git("status", "--porcelain", "--", "bot", "handlers")
    return git("rev-parse", "--short", "HEAD") + (
        " (with uncommitted changes in bot/ or handlers/)" if dirty else ""
    )


def machine_words() -> str:
    """CPU, cores, memory and the load average as the run starts: a shared machine's other
    work moves every figure."""
    cpu = platform.processor() or platform.machine()
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    memory_kb = int(Path("/proc/meminfo").read_text().split()[1])
    one, five, _ = os.getloadavg()
    return (
        f"{cpu}, {os.cpu_count()} cores, {memory_kb / 1024**2:.0f} GiB, "
        f"Python {platform.python_version()}; load average {one:.1f} (1 min), {five:.1f} (5 min)"
    )
