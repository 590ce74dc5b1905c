"""Socket Mode: the app driven through Bolt's ``SocketModeHandler`` by a local WebSocket
server that speaks Slack's envelope protocol (``hello``, envelopes, acks)."""

from __future__ import annotations

import json
import queue
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from typing import Any

import pytest
from faulty_slack import FaultySlackRecorder
from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_harness import BOT_TOKEN, all_text, find_button, fixed_clock
from websockets.sync.server import ServerConnection, serve

from bot.settings import Settings
from bot.shell.fake_slack import RESPONSE_URL
from bot.slack import payloads as payloads
from bot.slack.app import close_socket_mode
from bot.slack.client import make_web_client
from bot.wiring.root import build_app, build_services

APP_TOKEN = "xapp-1-A0PAPERBOT-1-test"


class FakeSocketModeServer:
    """Accepts one client, greets it with ``hello`` and collects the acks it sends back."""

    def __init__(self) -> None:
        self.received: queue.Queue[dict[str, Any]] = queue.Queue()
        self._connected = threading.Event()
        self.disconnected = threading.Event()
        """Set once the client has closed its connection."""
        self._connection: ServerConnection | None = None
        self._server = serve(self._handle, "127.0.0.1", 0, close_timeout=0.2)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._server.socket.getsockname()[:2]
        return f"ws://{host}:{port}/link/?ticket=local-test"

    def _handle(self, connection: ServerConnection) -> None:
        hello = {
            "type": "hello",
            "num_connections": 1,
            "debug_info": {"host": "local-test", "approximate_connection_time": 18060},
            "connection_info": {"app_id": "A0PAPERBOT"},
        }
        connection.send(json.dumps(hello))
        self._connection = connection
        self._connected.set()
        try:
            for message in connection:
                self.received.put(json.loads(message))
        finally:
            self.disconnected.set()

    def send(self, envelope_type: str, payload: dict[str, Any]) -> str:
        assert self._connected.wait(5), "the Socket Mode client never connected"
        envelope_id = str(uuid.uuid4())
        envelope = {
            "envelope_id": envelope_id,
            "type": envelope_type,
            "payload": payload,
            # Slack takes a reply in the ack for commands (and view submissions), not for
            # events or block_actions clicks.
            "accepts_response_payload": envelope_type == "slash_commands",
        }
        if envelope_type == "events_api":
            envelope.update(retry_attempt=0, retry_reason="")
        self._connection.send(json.dumps(envelope))
        return envelope_id

    def ack_for(self, envelope_id: str, timeout: float = 5.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            message = self.received.get(timeout=max(deadline - time.monotonic(), 0.01))
            if message.get("envelope_id") == envelope_id:
                return message

    def close(self) -> None:
        self._server.shutdown()
        self._thread.join(timeout=5)


@contextmanager
def socket_mode_bot(
    seed_corpus, tmp_path, listener_executor: Executor | None = None
) -> Iterator[tuple[FakeSocketModeServer, FaultySlackRecorder]]:
    """The app served over Socket Mode to a local server, its listeners on
    ``listener_executor`` (the served modes' pool by default)."""
    server = FakeSocketModeServer()
    recorder = FaultySlackRecorder().start()
    recorder.socket_mode_url = server.url
    settings = Settings(
        slack_bot_token=BOT_TOKEN,
        slack_app_token=APP_TOKEN,
        slack_api_url=recorder.base_url,
        database_url=f"sqlite:///{tmp_path / 'paperbot.db'}",
        scheduler_enabled=False,
    )
    client = make_web_client(BOT_TOKEN, recorder.base_url)
    services = build_services(settings, client, clock=fixed_clock, corpus=seed_corpus)
    app = build_app(settings, services.answers, client, listener_executor=listener_executor)
    handler = SocketModeHandler(app, APP_TOKEN, web_client=client)
    handler.connect()
    try:
        yield server, recorder
    finally:
        # The server goes first: a client that is closed while connected waits out its 3 s
        # receive timeout, one that has lost its connection stops at once.
        server.close()
        handler.close()
        recorder.stop()
        services.close()


@pytest.fixture
def socket_bot(seed_corpus, tmp_path) -> Iterator[tuple[FakeSocketModeServer, FaultySlackRecorder]]:
    with socket_mode_bot(seed_corpus, tmp_path) as served:
        yield served


def test_slash_command_and_mention_over_socket_mode(socket_bot):
    server, recorder = socket_bot
    [opened] = recorder.calls_to("apps.connections.open")
    assert opened.token == APP_TOKEN

    workspace = payloads.Workspace()
    command = payloads.slash_command(workspace, "graph sparsification", recorder.response_url())
    envelope_id = server.send("slash_commands", command)
    assert server.ack_for(envelope_id)["envelope_id"] == envelope_id
    [reply] = recorder.wait_for(RESPONSE_URL)
    assert reply.args["response_type"] == "ephemeral"
    assert "Graph Sparsification via Mixture of Graphs" in all_text(reply.blocks)

    event = payloads.app_mention(workspace, "<@UPAPERBOT> diffusion", "1700000200.000100")
    envelope_id = server.send("events_api", payloads.event_callback(workspace, event))
    server.ack_for(envelope_id)
    [post] = recorder.wait_for("chat.postMessage")
    assert post.args["thread_ts"] == event["ts"]
    assert "(1\u20133 of" in all_text(post.blocks)


def test_a_button_click_over_socket_mode_replaces_the_private_list(socket_bot):
    server, recorder = socket_bot
    workspace = payloads.Workspace()
    command = payloads.slash_command(workspace, "graph", recorder.response_url())
    server.ack_for(server.send("slash_commands", command))
    [listing] = recorder.wait_for(RESPONSE_URL)
    button, block_id = find_button(listing.blocks, "results_next_page")
    click = payloads.block_actions(
        workspace,
        button,
        block_id,
        recorder.response_url(),
        message_ts="1700000300.000100",
        is_ephemeral=True,
    )
    assert "message" not in click
    envelope_id = server.send("interactive", click)
    assert server.ack_for(envelope_id)["envelope_id"] == envelope_id
    page = recorder.wait_for(RESPONSE_URL, 2)[1]
    assert page.args["replace_original"] is True
    assert "(6\u201310 of" in all_text(page.blocks)


def _send_and_ack(server: FakeSocketModeServer, kind: str, payload: dict[str, Any]) -> None:
    envelope_id = server.send(kind, payload)
    assert server.ack_for(envelope_id)["envelope_id"] == envelope_id


def test_a_pasted_link_is_unfurled_over_socket_mode(socket_bot):
    server, recorder = socket_bot
    workspace = payloads.Workspace()
    link = "https://openreview.net/forum?id=7ANDviElAo"
    event = payloads.link_shared(workspace, [link], "1700000400.000100")
    _send_and_ack(server, "events_api", payloads.event_callback(workspace, event))
    [call] = recorder.wait_for("chat.unfurl")
    assert "Graph Sparsification via Mixture of Graphs" in all_text(call.args["unfurls"][link])


def test_the_message_shortcut_over_socket_mode(socket_bot):
    server, recorder = socket_bot
    workspace = payloads.Workspace()
    message = {"type": "message", "user": "U0OTHER", "ts": "1700000410.000100"}
    message["text"] = "sparsifying graphs with a mixture of experts"
    shortcut = payloads.message_action(workspace, message, recorder.response_url())
    _send_and_ack(server, "interactive", shortcut)
    [reply] = recorder.wait_for(RESPONSE_URL)
    assert "Graph Sparsification via Mixture of Graphs" in all_text(reply.blocks)


def test_the_app_home_and_its_buttons_over_socket_mode(socket_bot):
    server, recorder = socket_bot
    workspace = payloads.Workspace()
    event = payloads.app_home_opened(workspace)
    _send_and_ack(server, "events_api", payloads.event_callback(workspace, event))
    [published] = recorder.wait_for("views.publish")
    view = published.args["view"]
    assert "Your reading list is empty" in all_text(view["blocks"])

    command = payloads.slash_command(workspace, "7ANDviElAo", recorder.response_url())
    _send_and_ack(server, "slash_commands", command)
    [card] = recorder.wait_for(RESPONSE_URL)
    button, block_id = find_button(card.blocks, "paper_save")
    click = payloads.block_actions(
        workspace, button, block_id, recorder.response_url(), message_ts="1.1", is_ephemeral=True
    )
    _send_and_ack(server, "interactive", click)
    view = recorder.wait_for("views.publish", 2)[1].args["view"]
    assert "Graph Sparsification via Mixture of Graphs" in all_text(view["blocks"])

    button, block_id = find_button(view["blocks"], "home_remove")
    _send_and_ack(
        server, "interactive", payloads.view_block_actions(workspace, button, block_id, view)
    )
    view = recorder.wait_for("views.publish", 3)[2].args["view"]
    assert "Your reading list is empty" in all_text(view["blocks"])


def test_a_reconnect_under_way_as_the_bot_stops_does_not_turn_reconnecting_back_on() -> None:
    """Closing runs while the SDK reconnects (Slack refreshes connections every few hours):
    its ``connect`` sets auto-reconnect to the client's default, which must be off by then."""
    server = FakeSocketModeServer()
    recorder = FaultySlackRecorder().start()
    recorder.socket_mode_url = server.url
    client = make_web_client(BOT_TOKEN, recorder.base_url)
    handler = SocketModeHandler(
        App(client=client, token_verification_enabled=False), APP_TOKEN, web_client=client
    )
    try:
        handler.connect()
        close_socket_mode(handler)
        handler.client.connect()
        assert handler.client.auto_reconnect_enabled is False
    finally:
        handler.client.disconnect()
        server.close()
        recorder.stop()
