"""The figures behind issue #11's hostile-request cases, measured on a real bot process.

1. An unsigned 200 MiB POST to ``/slack/events``: its status and the server's peak memory
   (the issue saw 1.3 GB and a 209 MB log line before bodies were capped).
2. Forty ``/paper`` commands at once while ``response_url`` takes 5 seconds: every ack's
   latency (Slack's limit is 3 s; before, the 33rd waited for one of 32 busy workers).
3. Three batches of 30,000 queries of random words: how much the process grows (the issue
   saw 57 MB for 30,000, growing without bound).

Run by hand from the repository root: ``python bench/hardening.py`` writes
``bench/results/hardening.md``.
"""

from __future__ import annotations

import argparse
import random
import resource
import socket
import string
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from faulty_slack import FaultySlackRecorder  # noqa: E402

from bot.papers.corpus import load_corpus  # noqa: E402
from bot.search.engine import SearchIndex  # noqa: E402
from bot.shell.fake_slack import RESPONSE_URL  # noqa: E402
from bot.slack import payloads  # noqa: E402

SECRET = "bench-signing-secret"
BIG_BODY = 200 << 20


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _start_bot(recorder: FaultySlackRecorder, folder: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = {
        "SLACK_BOT_TOKEN": "xoxb-bench",
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": recorder.base_url,
        "PORT": str(port),
        "PAPERBOT_DATABASE_URL": f"sqlite:///{folder / 'bench.db'}",
        "PAPERBOT_SCHEDULER": "off",
        "PAPERBOT_LOG_LEVEL": "INFO",
        "PYTHONPATH": str(ROOT),
        "PATH": "/usr/bin:/bin",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", "--http"],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=open(folder / "bot.log", "w"),  # noqa: SIM115 - closed with the process
        text=True,
    )
    while "listening on port" not in (process.stdout.readline() if process.stdout else ""):
        if process.poll() is not None:
            raise RuntimeError("the bot did not start; see its log")
    return process, f"http://127.0.0.1:{port}/slack/events"


def big_post(url: str, process: subprocess.Popen, folder: Path) -> dict[str, object]:
    before = _peak_rss_mb(process.pid)
    host, port = url.removeprefix("http://").split("/")[0].split(":")
    with socket.create_connection((host, int(port))) as client:
        client.sendall(
            b"POST /slack/events HTTP/1.1\r\nHost: bench\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n"
            + f"Content-Length: {BIG_BODY}\r\n\r\n".encode()
        )
        chunk = b"x" * (1 << 20)
        try:
            for _ in range(BIG_BODY // len(chunk)):
                client.sendall(chunk)
        except OSError:
            pass  # the server answered and closed before the body was all sent
        status = client.makefile("rb").readline().decode().strip()
    time.sleep(0.5)
    log_bytes = (folder / "bot.log").stat().st_size
    return {
        "status": status,
        "peak_rss_before_mb": before,
        "peak_rss_after_mb": _peak_rss_mb(process.pid),
        "log_bytes": log_bytes,
    }


def burst(
    url: str, recorder: FaultySlackRecorder, count: int = 40, slow: float = 5.0
) -> list[float]:
    recorder.slow_down(RESPONSE_URL, slow)
    workspace = payloads.Workspace()

    def send(n: int) -> float:
        fields = payloads.slash_command(workspace, f"graph {n}", recorder.response_url())
        body, content_type = payloads.form_body(fields)
        headers = payloads.signed_headers(SECRET, body, content_type)
        request = urllib.request.Request(url, data=body.encode(), headers=headers, method="POST")
        started = time.perf_counter()
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
        return time.perf_counter() - started

    with ThreadPoolExecutor(max_workers=count) as pool:
        seconds = sorted(pool.map(send, range(count)))
    recorder.wait_for(RESPONSE_URL, count, timeout=60)
    return seconds


def query_growth(queries: int = 30_000) -> list[float]:
    """Peak RSS before and after each of three batches of ``queries`` random-word queries:
    the bounded caches (65,536 words at most) fill during the first two, and the third must
    not grow the process."""
    index = SearchIndex.build(load_corpus("seeds").papers)
    index.prepare()
    rng = random.Random(7)

    def word() -> str:
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(5, 10)))

    marks = [resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024]
    for _ in range(3):
        for _ in range(queries):
            index.search(f"{word()} {word()}")
        marks.append(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return marks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "results" / "hardening.md")
    args = parser.parse_args(argv)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp, FaultySlackRecorder() as recorder:
        folder = Path(tmp)
        process, url = _start_bot(recorder, folder)
        try:
            big = big_post(url, process, folder)
            acks = burst(url, recorder)
        finally:
            process.terminate()
            process.wait(timeout=10)
    start, first, second, third = query_growth()
    lines = [
        "# Hardening figures (`python bench/hardening.py`)",
        "",
        f"Commit {commit}; one run on this machine.",
        "",
        "| case | result |",
        "| --- | --- |",
        f"| unsigned 200 MiB POST | `{big['status']}`; bot peak RSS "
        f"{big['peak_rss_before_mb']:.0f} MB before, {big['peak_rss_after_mb']:.0f} MB after; "
        f"whole bot log {big['log_bytes']:,} bytes |",
        f"| 40 `/paper` at once, response_url 5 s | acks: median {acks[len(acks) // 2]:.3f} s, "
        f"slowest {acks[-1]:.3f} s (limit 3 s) |",
        f"| three batches of 30,000 random-word queries | peak RSS {start:.0f} MB → {first:.0f} → "
        f"{second:.0f} MB while the bounded caches fill → {third:.0f} MB "
        f"(+{third - second:.0f} MB in the third batch) |",
        "",
    ]
    args.output.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
