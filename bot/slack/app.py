"""The Bolt app and the two ways of serving it to Slack: Socket Mode and HTTP.

``bolt_app`` builds the app with no listeners: the composition root (``bot.wiring.root``)
registers them, so nothing in this package imports ``handlers``. The same app object
serves all three modes (the shell dispatches into it directly).
"""

from __future__ import annotations

import io
import logging
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from typing import Any

import waitress
from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_sdk import WebClient

from bot.settings import Settings
from bot.slack import gate, own_app, redaction, respond
from bot.slack.modes import SOCKET

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
HTTP_THREADS = 8


def bolt_app(settings: Settings, client: WebClient, listener_executor: Executor) -> App:
    """The Bolt app, before any listener is registered; ``client`` carries the bot token.

    The app processes before responding, so each listener's ack runs on the request's own
    thread (waitress's, or the Socket Mode client's) and the response leaves as soon as it
    returns; the work is a lazy listener on ``listener_executor`` (the shell runs it inline,
    so its reply is complete when dispatch returns). Requests are verified whenever a signing
    secret is set (HTTP and the shell). From then on no log record names a ``response_url``
    or an upload URL (``bot.slack.redaction``).
    """
    secret = settings.slack_signing_secret
    redaction.install()
    app = App(
        client=client,
        logger=gate.bolt_logger(),
        signing_secret=secret or "",
        process_before_response=True,
        request_verification_enabled=bool(secret),
        listener_executor=listener_executor,
    )
    respond.install(app)
    own_app.install(app, client)
    return app


def wsgi_app(app: App) -> Callable[..., Iterable[bytes]]:
    """Bolt's WSGI adapter at ``/slack/events``, behind ``gate.malformed``; plus
    ``GET /healthz`` for the platform."""
    bolt = SlackRequestHandler(app, path=EVENTS_PATH)

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if environ.get("PATH_INFO") == HEALTH_PATH and environ.get("REQUEST_METHOD") == "GET":
            start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8")])
            return [b"ok\n"]
        if environ.get("REQUEST_METHOD") == "POST":
            length = int(environ.get("CONTENT_LENGTH") or 0)
            body = environ["wsgi.input"].read(length) if length > 0 else b""
            problem = gate.malformed(body, environ)
            if problem is not None:
                log.warning(
                    "answered 400 to a request to %s: %s", environ.get("PATH_INFO"), problem
                )
                start_response("400 Bad Request", [("Content-Type", "text/plain; charset=utf-8")])
                return [b"bad request\n"]
            environ["wsgi.input"] = io.BytesIO(body)
        return bolt(environ, start_response)

    return application


def create_http_server(app: App, *, host: str = "0.0.0.0", port: int = 3000) -> Any:
    """A waitress server (multi-threaded WSGI) for the app; ``.run()`` serves, ``.close()``.

    Bodies over ``gate.MAX_BODY_BYTES`` are refused by waitress with a 413 before they are
    read into memory."""
    return waitress.create_server(
        wsgi_app(app),
        host=host,
        port=port,
        threads=HTTP_THREADS,
        ident="paperbot",
        max_request_body_size=gate.MAX_BODY_BYTES,
    )


def serve(app: App, settings: Settings, client: WebClient, mode: str) -> None:
    """Serve Slack in ``mode`` (``SOCKET`` or ``HTTP``) until interrupted."""
    try:
        if mode == SOCKET:
            SocketModeHandler(app, settings.slack_app_token, web_client=client).connect()
            print("paperbot: connected to Slack in Socket Mode", flush=True)
            threading.Event().wait()
        else:
            server = create_http_server(app, port=settings.port)
            print(f"paperbot: listening on port {settings.port} at {EVENTS_PATH}", flush=True)
            server.run()
    except KeyboardInterrupt:
        pass
