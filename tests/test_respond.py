"""``respond()`` when the connection to the ``response_url`` fails, against a loopback socket
that refuses, drops or stalls it: how often the URL is tried, how long the bot waits between
tries, and that the reply then goes by ``chat.postEphemeral``."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from bot.slack import respond as respond_module
from bot.slack.respond import BACKOFF, ReliableRespond


class Ephemerals(list):
    def __call__(self, **fields: Any) -> dict[str, Any]:
        self.append(fields)
        return {"ok": True}


class Listener:
    """A loopback port that accepts connections, reads the request and then closes the
    connection without answering, after ``stall`` seconds."""

    def __init__(self, stall: float = 0.0) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0))
        self._stall = stall
        self.connections = 0
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}/response"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            self.connections += 1
            with connection:
                connection.recv(65536)
                time.sleep(self._stall)

    def close(self) -> None:
        self._socket.close()


@pytest.fixture
def waits(monkeypatch) -> list[float]:
    recorded: list[float] = []
    monkeypatch.setattr(respond_module, "sleep", recorded.append)
    return recorded


@pytest.fixture
def dropping() -> Iterator[Listener]:
    listener = Listener()
    yield listener
    listener.close()


def _respond(url: str) -> tuple[ReliableRespond, Ephemerals]:
    ephemerals = Ephemerals()
    client = SimpleNamespace(proxy=None, ssl=None, chat_postEphemeral=ephemerals)
    respond = ReliableRespond(response_url=url, client=client, channel_id="C1", user_id="U1")
    return respond, ephemerals


def _closed_port_url() -> str:
    with socket.create_server(("127.0.0.1", 0)) as unused:
        port = unused.getsockname()[1]
    return f"http://127.0.0.1:{port}/response"


def test_a_refused_connection_is_tried_again_with_backoff_then_sent_as_an_ephemeral(waits):
    respond, ephemerals = _respond(_closed_port_url())
    respond("an answer")
    assert waits == list(BACKOFF)
    assert ephemerals == [{"channel": "C1", "user": "U1", "text": "an answer"}]


def test_a_dropped_connection_reaches_the_url_once_then_goes_as_an_ephemeral(waits, dropping):
    """The request was out, so the reply may have landed: no second try at the URL (neither
    ours nor slack_sdk's own), one ephemeral instead."""
    respond, ephemerals = _respond(dropping.url)
    respond("an answer")
    assert dropping.connections == 1
    assert waits == []
    assert len(ephemerals) == 1


def test_a_timeout_reaches_the_url_once_then_goes_as_an_ephemeral(waits, monkeypatch):
    monkeypatch.setattr(respond_module, "TIMEOUT_SECONDS", 0.3)
    stalling = Listener(stall=1.0)
    try:
        respond, ephemerals = _respond(stalling.url)
        respond("an answer")
        assert stalling.connections == 1
    finally:
        stalling.close()
    assert waits == []
    assert len(ephemerals) == 1
