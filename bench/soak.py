"""Issue 20's soak: the real bot as an HTTP process, minutes of mixed traffic, a Slack that fails.

Unit tests show each fault once; this shows what a few minutes of them do together. The bot
runs as ``python -m bot --http`` against a fake Slack on 127.0.0.1 that answers a share of
calls with 429 (``Retry-After``) or 500 and hangs on a few for half a minute (the call lands
at once, only its answer is late, as with a Slack under load). Signed requests arrive at a
fixed open-loop rate, whether or not earlier ones were answered: ``/paper`` searches and
``/paper saved``, clicks on the buttons of a real reply, mentions, ``link_shared`` events and
App Home opens, each from its own pretend person so every answer can be traced to its request.

A request is *acked* when the bot answered its HTTP request with 200 within Slack's 3 s,
*answered* when a reply to it reached the fake Slack (a ``response_url`` post, a thread reply,
an ephemeral message, a link preview or a published Home tab), and *lost* when it was acked
but never answered; a request whose ack or first answer was the busy sentence counts as
turned away, not lost (a preview or a Home tab turned away is told nothing, so it counts as
lost; the bot's log lines say how many of each kind it turned away). Latencies run from the
moment a request was due, so a slow bot cannot hide queueing by slowing the sender. The
bot's threads, open file descriptors and resident memory are read from ``/proc`` at the
start, middle and end; the run ends with SIGTERM and reports how the bot stopped.

Run by hand from the repository root (never by the tests):
``python bench/soak.py [--seconds 180] [--rate 20]`` writes ``bench/results/soak.md``.
Everything stays on loopback, the request count is ``seconds * rate``, and every wait is
bounded, so it stops by itself.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from benchkit import BOT_READY, ROOT, BotProcess, commit_words, percentile, signed_post
from faulty_slack import FaultySlackRecorder, rate_limited, server_error
from project import free_port

from bot.render import papers as render_papers
from bot.shell.fake_slack import RESPONSE_URL
from bot.slack import payloads

SECRET = "soak-signing-secret"
BUSY_TEXT = render_papers.busy_message().as_kwargs()["text"]
ACK_LIMIT_SECONDS = 3.0
"""Slack's deadline for an ack."""
HTTP_TIMEOUT_SECONDS = 10.0
"""How long the sender waits for an ack before counting the request as not acked."""
SENDERS = 200
"""Requests in flight at most; at 20/s with a 10 s timeout the sender never runs short."""
STOP_GRACE_SECONDS = 45.0
"""How long the bot may take to stop after SIGTERM before it is killed."""
KIND_SHARES = {"command": 0.35, "click": 0.2, "mention": 0.15, "link": 0.15, "home": 0.15}
CLICKED_ACTIONS = (
    render_papers.ACTION_NEXT_PAGE,
    render_papers.ACTION_ABSTRACT,
    render_papers.ACTION_MORE_LIKE_THIS,
    render_papers.ACTION_SAVE,
)
"""Buttons of a ``/paper`` reply that answer the clicker privately (Share would post in the
channel for everyone)."""


class FailingSlack(FaultySlackRecorder):
    """The fake Slack with faults drawn at random once ``arm()`` is called, which also notes
    when each answer landed, by the keys a request's answer can be found under."""

    def __init__(
        self,
        *,
        seed: int,
        rate_limited_share: float,
        error_share: float,
        hang_share: float,
        hang_seconds: float,
    ) -> None:
        super().__init__()
        self._random = random.Random(seed)
        self._shares = (rate_limited_share, error_share, hang_share)
        self._hang_seconds = hang_seconds
        self._armed = False
        self._landing_lock = threading.Lock()
        self.landed: dict[str, tuple[float, str]] = {}
        """Per answer key, when the first successful call under it arrived and its text."""
        self.faults: Counter[str] = Counter()

    def arm(self) -> None:
        self._armed = True

    def handle(
        self, method: str, args: dict[str, Any], token: str | None, response_id: str | None = None
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        hang = self._armed and self._draw() < self._shares[2]
        status, body, headers = super().handle(method, args, token, response_id)
        if status == 200 and body.get("ok"):
            now = time.monotonic()
            with self._landing_lock:
                for key in _answer_keys(method, args, response_id):
                    self.landed.setdefault(key, (now, str(args.get("text") or "")))
        if hang:
            self.faults["hang"] += 1
            time.sleep(self._hang_seconds)
        return status, body, headers

    def _respond(
        self, method: str, args: dict[str, Any], response_id: str | None
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        draw = self._draw() if self._armed else 1.0
        rate_limited_share, error_share, _ = self._shares
        if draw < rate_limited_share:
            self.faults["429"] += 1
            fault = rate_limited(retry_after=1)
        elif draw < rate_limited_share + error_share:
            self.faults["500"] += 1
            fault = server_error()
        else:
            return super()._respond(method, args, response_id)
        return fault.status, dict(fault.body), dict(fault.headers)

    def _draw(self) -> float:
        with self._landing_lock:
            return self._random.random()


def _answer_keys(method: str, args: dict[str, Any], response_id: str | None) -> list[str]:
    """The keys under which a successful call answers a request (see ``Request.keys``)."""
    if method == RESPONSE_URL:
        return [f"response:{response_id}"]
    if method == "chat.postEphemeral":
        return [f"user:{args.get('user')}"]
    if method == "chat.postMessage" and args.get("thread_ts"):
        return [f"thread:{args['thread_ts']}"]
    if method == "chat.unfurl":
        return [f"unfurl:{args.get('ts') or args.get('unfurl_id')}"]
    if method == "views.publish":
        return [f"user:{args.get('user_id')}"]
    return []


@dataclass
class Request:
    """One signed request and where its answer will be found."""

    kind: str
    body: str
    content_type: str
    keys: tuple[str, ...]
    due: float = 0.0
    status: int | None = None
    acked_after: float | None = None
    turned_away: bool = False
    answered_after: float | None = None
    error: str = ""


@dataclass
class Traffic:
    """Builds the mixed requests, each from a fresh pretend person."""

    slack: FailingSlack
    queries: list[str]
    paper_ids: list[str]
    buttons: list[tuple[dict[str, Any], str]]
    rng: random.Random
    count: int = 0
    builders: dict[str, Callable[[payloads.Workspace], Request]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.builders = {
            "command": self._command,
            "click": self._click,
            "mention": self._mention,
            "link": self._link,
            "home": self._home,
        }

    def next(self) -> Request:
        self.count += 1
        person = replace(payloads.Workspace(), user_id=f"USOAK{self.count:06d}")
        kind = self.rng.choices(list(KIND_SHARES), weights=list(KIND_SHARES.values()))[0]
        return self.builders[kind](person)

    def _command(self, person: payloads.Workspace) -> Request:
        response_id = f"soak-{self.count}"
        text = "saved" if self.rng.random() < 0.1 else self.rng.choice(self.queries)
        fields = payloads.slash_command(person, text, self.slack.response_url(response_id))
        keys = (f"response:{response_id}", f"user:{person.user_id}")
        return Request("command", *payloads.form_body(fields), keys)

    def _click(self, person: payloads.Workspace) -> Request:
        response_id = f"soak-{self.count}"
        button, block_id = self.rng.choice(self.buttons)
        payload = payloads.block_actions(
            person,
            button,
            block_id,
            self.slack.response_url(response_id),
            message_ts="1700000000.000001",
            is_ephemeral=True,
        )
        keys = (f"response:{response_id}", f"user:{person.user_id}")
        return Request("click", *payloads.interactive_body(payload), keys)

    def _mention(self, person: payloads.Workspace) -> Request:
        wire = f"<@{person.bot_user_id}> {self.rng.choice(self.queries)}"
        posted = self.slack.add_message(person.channel_id, wire, user=person.user_id)
        event = payloads.app_mention(person, wire, posted["ts"])
        keys = (f"thread:{posted['ts']}", f"user:{person.user_id}")
        return self._event("mention", person, event, keys)

    def _link(self, person: payloads.Workspace) -> Request:
        url = f"https://openreview.net/forum?id={self.rng.choice(self.paper_ids)}"
        ts = f"{1_800_000_000 + self.count}.000100"
        event = payloads.link_shared(person, [url], ts)
        return self._event("link", person, event, (f"unfurl:{ts}",))

    def _home(self, person: payloads.Workspace) -> Request:
        event = payloads.app_home_opened(person)
        return self._event("home", person, event, (f"user:{person.user_id}",))

    @staticmethod
    def _event(
        kind: str, person: payloads.Workspace, event: dict[str, Any], keys: tuple[str, ...]
    ) -> Request:
        envelope = payloads.event_callback(person, event)
        return Request(kind, *payloads.json_body(envelope), keys)


def _start_bot(slack: FailingSlack, folder: Path) -> tuple[BotProcess, str]:
    """The bot serving HTTP on a free loopback port, and its URL."""
    port = free_port()
    bot = BotProcess.start(
        folder,
        BOT_READY,
        SLACK_BOT_TOKEN="xoxb-soak",
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_URL=slack.base_url,
        PORT=str(port),
        PAPERBOT_DATABASE_URL=f"sqlite:///{folder / 'soak.db'}",
        PAPERBOT_SCHEDULER="off",
        PAPERBOT_LOG_LEVEL="INFO",
    )
    return bot, f"http://127.0.0.1:{port}"


def sample(pid: int, moment: str) -> dict[str, Any]:
    """Threads, open file descriptors and resident memory of the bot right now."""
    status = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return {
        "moment": moment,
        "threads": int(status["Threads"]),
        "fds": len(os.listdir(f"/proc/{pid}/fd")),
        "rss_mb": int(status["VmRSS"].split()[0]) / 1024,
        "peak_rss_mb": int(status["VmHWM"].split()[0]) / 1024,
    }


def send(url: str, request: Request) -> None:
    """Post ``request`` once it is due; note its status and when its ack arrived."""
    try:
        status, text = signed_post(
            url, SECRET, request.body, request.content_type, HTTP_TIMEOUT_SECONDS
        )
    except OSError as error:
        request.error = type(error).__name__
        return
    request.status = status
    request.acked_after = time.monotonic() - request.due
    request.turned_away = status == 200 and bool(text.strip())


def warm_up(url: str, slack: FailingSlack) -> list[tuple[dict[str, Any], str]]:
    """One healthy ``/paper`` before the faults start: the buttons the clicks will press."""
    response_id = "soak-warm-up"
    fields = payloads.slash_command(
        payloads.Workspace(), "graph neural networks", slack.response_url(response_id)
    )
    request = Request("command", *payloads.form_body(fields), ())
    request.due = time.monotonic()
    send(url, request)
    if request.status != 200:
        raise RuntimeError(f"the warm-up /paper got {request.status or request.error}")
    (reply,) = slack.wait_for(
        RESPONSE_URL, timeout=60, where=lambda call: call.response_id == response_id
    )
    buttons = [
        (element, block.get("block_id", ""))
        for block in reply.blocks
        if block.get("type") == "actions"
        for element in block["elements"]
        if element.get("action_id") in CLICKED_ACTIONS
    ]
    if not buttons:
        raise RuntimeError("the warm-up reply has none of the buttons the soak clicks")
    return buttons


def run_traffic(
    url: str, traffic: Traffic, *, seconds: float, rate: float, at_middle: Callable[[], None]
) -> list[Request]:
    """Send ``seconds * rate`` requests at a fixed rate, not waiting for answers."""
    total = int(seconds * rate)
    requests: list[Request] = []
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=SENDERS, thread_name_prefix="sender") as pool:
        for n in range(total):
            request = traffic.next()
            request.due = started + n / rate
            time.sleep(max(0.0, request.due - time.monotonic()))
            requests.append(request)
            pool.submit(send, url, request)
            if n == total // 2:
                at_middle()
            if n % 200 == 0:
                traffic.slack.clear()  # the recorded calls are not needed: landings are noted
    return requests


def wait_for_answers(slack: FailingSlack, requests: list[Request], limit: float) -> float:
    """Wait until every acked request is answered or ``limit`` seconds passed; the wait."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        with slack._landing_lock:
            landed = set(slack.landed)
        if all(
            any(key in landed for key in request.keys)
            for request in requests
            if request.status == 200 and not request.turned_away
        ):
            break
        time.sleep(0.5)
    return time.monotonic() - started


def settle(slack: FailingSlack, requests: list[Request]) -> None:
    """Note when each request was first answered, and whether that answer was the busy
    sentence (a click or a mention turned away is told so after its ack)."""
    with slack._landing_lock:
        landed = dict(slack.landed)
    for request in requests:
        answers = sorted(landed[key] for key in request.keys if key in landed)
        if answers:
            first_at, first_text = answers[0]
            request.answered_after = first_at - request.due
            request.turned_away = request.turned_away or first_text == BUSY_TEXT


def table(requests: list[Request]) -> list[str]:
    lines = [
        "| kind | sent | acked ≤ 3 s | acked late | not acked | turned away | answered | lost "
        "| ack p50 / p99 (s) | answer p50 / p99 (s) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for kind in [*KIND_SHARES, "all"]:
        group = [r for r in requests if kind in ("all", r.kind)]
        ok = [r for r in group if r.status == 200]
        acks = [r.acked_after for r in ok if r.acked_after is not None]
        on_time = sum(1 for r in ok if (r.acked_after or 0) <= ACK_LIMIT_SECONDS)
        turned_away = [r for r in ok if r.turned_away]
        answered = [r for r in ok if not r.turned_away and r.answered_after is not None]
        lost = len(ok) - len(turned_away) - len(answered)
        waits = [r.answered_after for r in answered if r.answered_after is not None]
        lines.append(
            f"| {kind} | {len(group)} | {on_time} | {len(ok) - on_time} | {len(group) - len(ok)} "
            f"| {len(turned_away)} | {len(answered)} | {lost} "
            f"| {percentile(acks, 0.5)} / {percentile(acks, 0.99)} "
            f"| {percentile(waits, 0.5)} / {percentile(waits, 0.99)} |"
        )
    return lines


def _turned_away_in_log(log: str) -> str:
    kinds = Counter(re.findall(r"turned an? (.+?) away", log))
    return ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items())) or "nothing"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=180.0, help="traffic duration")
    parser.add_argument("--rate", type=float, default=20.0, help="requests per second")
    parser.add_argument("--rate-limited", type=float, default=0.05, help="share of 429s")
    parser.add_argument("--errors", type=float, default=0.03, help="share of 500s")
    parser.add_argument("--hangs", type=float, default=0.003, help="share of hung calls")
    parser.add_argument("--hang-seconds", type=float, default=35.0)
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--note", default="", help="a sentence about the run for the report")
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "results" / "soak.md")
    args = parser.parse_args(argv)
    if not (0 < args.seconds <= 3600 and 0 < args.rate <= 200):
        parser.error("--seconds must be in (0, 3600] and --rate in (0, 200]")
    seed_queries = [
        json.loads(line) for line in (ROOT / "bench" / "queries.jsonl").read_text().splitlines()
    ]
    slack = FailingSlack(
        seed=args.seed,
        rate_limited_share=args.rate_limited,
        error_share=args.errors,
        hang_share=args.hangs,
        hang_seconds=args.hang_seconds,
    )
    with tempfile.TemporaryDirectory() as tmp, slack:
        folder = Path(tmp)
        bot, url = _start_bot(slack, folder)
        process = bot.process
        try:
            traffic = Traffic(
                slack,
                queries=[entry["query"] for entry in seed_queries],
                paper_ids=sorted({pid for entry in seed_queries for pid in entry["relevant"]}),
                buttons=warm_up(url, slack),
                rng=random.Random(args.seed),
            )
            samples = [sample(process.pid, "start (after one warm-up /paper)")]
            slack.arm()
            requests = run_traffic(
                url,
                traffic,
                seconds=args.seconds,
                rate=args.rate,
                at_middle=lambda: samples.append(sample(process.pid, "middle of the traffic")),
            )
            waited = wait_for_answers(slack, requests, args.hang_seconds + 15)
            samples.append(sample(process.pid, f"end ({waited:.0f} s after the last request)"))
            settle(slack, requests)
        finally:
            alive = process.poll() is None
            stopped = bot.stop(STOP_GRACE_SECONDS) if alive else None
            log = (folder / "bot.log").read_text(encoding="utf-8", errors="replace")
    report = [
        "# Soak (`python bench/soak.py`)",
        "",
        f"Commit {commit_words()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. "
        f"{args.seconds:.0f} s of traffic at {args.rate:g} requests/s (open loop), "
        f"kinds {', '.join(f'{kind} {share:.0%}' for kind, share in KIND_SHARES.items())}; "
        f"Slack calls failing at random: {args.rate_limited:.0%} HTTP 429 (`Retry-After: 1`), "
        f"{args.errors:.0%} HTTP 500, {args.hangs:.1%} answered {args.hang_seconds:.0f} s late; "
        f"seed {args.seed}. {args.note}".rstrip(),
        "",
        "Acked: HTTP 200 from the bot (on time: within Slack's 3 s). Turned away: the ack "
        "or the first answer was the busy sentence. Answered: another reply reached Slack. "
        "Lost: acked, not turned away, never answered (previews and Home tabs turned away "
        "are told nothing, so they count here). Latencies count from when each request was "
        "due.",
        "",
        f"The bot's log says it turned away: {_turned_away_in_log(log)}.",
        "",
        *table(requests),
        "",
        f"Faults injected: {', '.join(f'{n} {k}' for k, n in sorted(slack.faults.items()))}.",
        "",
        "| bot process | threads | open fds | RSS (MB) | peak RSS (MB) |",
        "| --- | ---: | ---: | ---: | ---: |",
        *(
            f"| {s['moment']} | {s['threads']} | {s['fds']} | {s['rss_mb']:.0f} "
            f"| {s['peak_rss_mb']:.0f} |"
            for s in samples
        ),
        "",
    ]
    if stopped is not None:
        report += [
            f"SIGTERM after the run: exit {stopped['code']} in {stopped['seconds']:.1f} s; "
            "its last log lines:",
            "",
            "```",
            *stopped["lines"],
            "```",
            "",
        ]
    text = "\n".join(report)
    args.output.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
