"""The real app served over HTTP on 127.0.0.1, with ``SlackRecorder`` as Slack's Web API.

Requests are built by ``bot.slack.payloads`` in Slack's real shapes and signed with the
test signing secret; answers are read back from the recorder. Listeners run on a
single-worker executor so ``drain()`` can wait for every request already acknowledged,
which lets tests assert that something did *not* happen without sleeping.
"""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from faulty_slack import FaultySlackRecorder
from slack_sdk import WebClient
from waitress import wasyncore

from bot.papers.corpus import LoadedCorpus
from bot.settings import Settings
from bot.slack import payloads as payloads
from bot.slack.app import create_http_server
from bot.slack.client import make_web_client
from bot.slack.work import listener_pool
from bot.wiring.root import Services, build_app, build_services

SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
BOT_TOKEN = "xoxb-test-paperbot"
FIXED_NOW = datetime(2025, 4, 24, 8, 0, tzinfo=UTC)
STOP_SECONDS = 30.0
"""How long closing a bot waits for waitress's threads, however loaded the machine."""


def fixed_clock() -> datetime:
    return FIXED_NOW


@dataclass(frozen=True)
class Reply:
    """The HTTP answer to one request."""

    status: int
    body: str


def find_button(blocks: list[dict[str, Any]], action_id: str, index: int = 0) -> tuple[dict, str]:
    """The ``index``-th button with ``action_id`` in ``blocks``, and its block's id."""
    found = [
        (element, block.get("block_id", ""))
        for block in blocks
        if block["type"] == "actions"
        for element in block["elements"]
        if element["action_id"] == action_id
    ]
    if len(found) <= index:
        raise AssertionError(f"no button {action_id!r} #{index} in {len(blocks)} blocks")
    return found[index]


def all_text(blocks: list[dict[str, Any]]) -> str:
    """Every text a person could see in ``blocks``, joined: for content assertions."""
    texts: list[str] = []

    def collect(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("text"), str):
                texts.append(node["text"])
            for value in node.values():
                if isinstance(value, dict | list):
                    collect(value)
        elif isinstance(node, list):
            for item in node:
                collect(item)

    collect(blocks)
    return "\n".join(texts)


class LiveBot:
    """One running bot: waitress on a loopback port, the recorder, a fresh database."""

    def __init__(
        self,
        corpus: LoadedCorpus,
        tmp_path: Path,
        *,
        app_listener_pool: bool = False,
        listener_executor: Executor | None = None,
        digest_channel: str | None = None,
        deferred: bool = False,
    ) -> None:
        """``app_listener_pool`` runs listeners on the app's own pool, as in production, and
        ``listener_executor`` on the one given; by default one worker runs them in order, so
        ``drain()`` can wait for them. ``digest_channel`` is ``PAPERBOT_DIGEST_CHANNEL``. The
        bot serves the recorder's workspace, as ``auth.test`` tells a served bot.

        ``deferred`` serves as ``paperbot`` does before its index is built: on the app's
        pool, which turns requests away until the test calls ``load_index``."""
        self._corpus = corpus
        self._deferred = deferred
        self.workspace = payloads.Workspace()
        self.recorder = FaultySlackRecorder(bot_user_id=self.workspace.bot_user_id).start()
        self.settings = Settings(
            slack_bot_token=BOT_TOKEN,
            slack_signing_secret=SIGNING_SECRET,
            slack_api_url=self.recorder.base_url,
            database_url=f"sqlite:///{tmp_path / 'paperbot.db'}",
            scheduler_enabled=False,
            digest_channel=digest_channel,
        )
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="listener")
        self._serve(
            corpus,
            make_web_client(BOT_TOKEN, self.recorder.base_url),
            workspace=self.recorder.team_id,
            listener_executor=listener_executor or (None if app_listener_pool else self._executor),
        )

    def _serve(
        self,
        corpus: LoadedCorpus,
        client: WebClient,
        *,
        workspace: str | None,
        listener_executor: Executor | None,
        clock: Callable[[], datetime] = fixed_clock,
    ) -> None:
        """Build the bot for ``self.settings`` and serve it on a loopback port."""
        self.services: Services = build_services(
            self.settings,
            client,
            clock=clock,
            corpus=corpus,
            workspace=workspace,
            deferred=self._deferred,
        )
        library = self.services.library
        if self._deferred:
            listener_executor = listener_pool(ready=lambda: library.ready, scope=library.request)
        self.app = build_app(
            self.settings,
            self.services.answers,
            client,
            listener_executor=listener_executor,
            distribution=self.services.distribution,
        )
        self._server = create_http_server(
            self.app,
            host="127.0.0.1",
            port=0,
            database=self.services.store,
            index_ready=(lambda: library.ready) if self._deferred else None,
        )
        self.url = f"http://127.0.0.1:{self._server.effective_port}"
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()

    def load_index(self) -> None:
        """What a deferred bot does in the background once it listens."""
        self.services.load(self._corpus)

    def close(self) -> None:
        self._stop_server()
        self._executor.shutdown(wait=True)
        self.recorder.stop()
        self.services.close()

    def _stop_server(self) -> None:
        """Close waitress's descriptors only once no other thread can still use them.

        A task thread pulls the trigger (a bare pipe descriptor) after it has answered, and the
        loop selects on every socket it owns. Closing them from inside the loop, as soon as
        waitress's own 5 s wait for its task threads gave up, let a thread the busy machine
        had descheduled pull the trigger afterwards: "Bad file descriptor" or, once the next
        test had opened its database or sockets under the same number, a stray byte written
        into them. So the task threads finish first, with the loop still there to take their
        last pulls; the loop then hands its sockets over and returns; only then are they
        closed, here. A wait that runs out fails the test instead of closing under a thread.
        """
        server = self._server
        tasks = server.task_dispatcher
        tasks.shutdown(timeout=STOP_SECONDS)
        if tasks.threads:
            raise RuntimeError(f"waitress task threads still busy after {STOP_SECONDS}s")
        owned: dict[int, wasyncore.dispatcher] = {}

        def hand_over() -> None:
            owned.update(server._map)
            server._map.clear()

        server.trigger.pull_trigger(hand_over)
        self._thread.join(timeout=STOP_SECONDS)
        if self._thread.is_alive():
            raise RuntimeError(f"waitress's loop still running after {STOP_SECONDS}s")
        wasyncore.close_all(owned)

    def drain(self) -> None:
        """Wait until every listener started so far has finished."""
        self._executor.submit(lambda: None).result(timeout=10)

    # raw HTTP

    def post(self, body: str, headers: dict[str, str], path: str = "/slack/events") -> Reply:
        request = urllib.request.Request(
            self.url + path, data=body.encode("utf-8"), headers=headers, method="POST"
        )
        return self._send(request)

    def get(self, path: str) -> Reply:
        return self._send(urllib.request.Request(self.url + path, method="GET"))

    @staticmethod
    def _send(request: urllib.request.Request) -> Reply:
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                status, body = response.status, response.read().decode("utf-8")
        except urllib.error.HTTPError as error:
            status, body = error.code, error.read().decode("utf-8")
        return Reply(status, body)

    def signed_post(
        self,
        body: str,
        content_type: str,
        *,
        timestamp: int | None = None,
        retry_num: int | None = None,
        secret: str = SIGNING_SECRET,
    ) -> Reply:
        headers = payloads.signed_headers(
            secret, body, content_type, timestamp=timestamp, retry_num=retry_num
        )
        return self.post(body, headers)

    # what a person does in Slack

    def slash(self, text: str, *, channel_id: str | None = None) -> Reply:
        """``/paper text`` typed in #research, or in ``channel_id`` (a ``D…`` id is a DM)."""
        workspace = self.workspace
        if channel_id is not None:
            name = "directmessage" if channel_id.startswith("D") else "elsewhere"
            workspace = replace(workspace, channel_id=channel_id, channel_name=name)
        fields = payloads.slash_command(workspace, text, self.recorder.response_url())
        return self.signed_post(*payloads.form_body(fields))

    def event(
        self, event: dict[str, Any], *, event_id: str | None = None, retry_num: int | None = None
    ) -> Reply:
        envelope = payloads.event_callback(self.workspace, event, event_id=event_id)
        return self.signed_post(*payloads.json_body(envelope), retry_num=retry_num)

    def mention(self, text: str, *, thread_ts: str | None = None) -> tuple[Reply, dict]:
        """A person's message mentioning the bot (stored in the channel) and its event."""
        wire = f"<@{self.workspace.bot_user_id}> {text}".strip()
        posted = self.recorder.add_message(
            self.workspace.channel_id, wire, user=self.workspace.user_id, thread_ts=thread_ts
        )
        event = payloads.app_mention(self.workspace, wire, posted["ts"], thread_ts=thread_ts)
        return self.event(event), event

    def click(
        self,
        blocks: list[dict[str, Any]],
        action_id: str,
        *,
        index: int = 0,
        is_ephemeral: bool = True,
        message_ts: str = "1700000000.000001",
        channel_id: str | None = None,
        action_ts: str | None = None,
    ) -> Reply:
        """Click a button on a message showing ``blocks``; a public message is sent along,
        as Slack does, an ephemeral one is not. ``action_ts`` is when it was clicked, on the
        recorder's clock (by default, now)."""
        button, block_id = find_button(blocks, action_id, index)
        message = {
            "type": "message",
            "user": self.workspace.bot_user_id,
            "bot_id": self.recorder.bot_id,
            "text": "",
            "ts": message_ts,
            "blocks": blocks,
        }
        payload = payloads.block_actions(
            self.workspace,
            button,
            block_id,
            self.recorder.response_url(),
            message_ts=message_ts,
            is_ephemeral=is_ephemeral,
            channel_id=channel_id,
            message=message,
        )
        if action_ts is not None:
            payload["actions"][0]["action_ts"] = action_ts
        return self.signed_post(*payloads.interactive_body(payload))

    def link(self, urls: list[str], **options: Any) -> tuple[Reply, dict[str, Any]]:
        """Links pasted in a message: the ``link_shared`` event Slack sends, and the event."""
        event = payloads.link_shared(self.workspace, urls, "1700000500.000100", **options)
        return self.event(event), event

    def shortcut(self, message: dict[str, Any], *, channel_id: str | None = None) -> Reply:
        """ "Find related papers" chosen in the menu of ``message``."""
        payload = payloads.message_action(
            self.workspace, message, self.recorder.response_url(), channel_id=channel_id
        )
        return self.signed_post(*payloads.interactive_body(payload))

    def open_home(self) -> Reply:
        return self.event(payloads.app_home_opened(self.workspace))

    def click_in_view(self, view: dict[str, Any], action_id: str, *, index: int = 0) -> Reply:
        """Click a button of the App Home ``view`` (as published)."""
        button, block_id = find_button(view["blocks"], action_id, index)
        payload = payloads.view_block_actions(self.workspace, button, block_id, view)
        return self.signed_post(*payloads.interactive_body(payload))
