"""The Bolt app and the two ways of serving it to Slack: Socket Mode and HTTP.

``bolt_app`` builds the app with no listeners: the composition root (``bot.wiring.root``)
registers them, so nothing in this package imports ``handlers``. The same app object
serves all three modes (the shell dispatches into it directly).
"""

from __future__ import annotations

import functools
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
from bot.slack import gate, health, own_app, redaction, respond, workspaces
from bot.slack.drain import Drain
from bot.slack.modes import SOCKET
from bot.slack.oauth import TOKEN_ROTATION_MINUTES, Distribution, oauth_flow

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HTTP_THREADS = 8


def bolt_app(
    settings: Settings,
    client: WebClient,
    listener_executor: Executor,
    distribution: Distribution | None = None,
) -> App:
    """The Bolt app, before any listener is registered; ``client`` carries the bot token,
    or, with ``distribution`` (a distributed app, ``Settings.distributed``), none: then the
    app serves the install pages and answers each workspace with its installation's token
    (``bot.slack.oauth``, ``bot.slack.workspaces``).

    The app processes before responding, so each listener's ack runs on the request's own
    thread (waitress's, or the Socket Mode client's) and the response leaves as soon as it
    returns; the work is a lazy listener on ``listener_executor`` (the shell runs it inline,
    so its reply is complete when dispatch returns). Requests are verified whenever a signing
    secret is set (HTTP and the shell). From then on no log record names a ``response_url``
    or an upload URL (``bot.slack.redaction``).
    """
    secret = settings.slack_signing_secret
    redaction.install(settings.slack_client_secret)
    app = App(
        client=client,
        logger=gate.bolt_logger(),
        signing_secret=secret or "",
        process_before_response=True,
        request_verification_enabled=bool(secret),
        listener_executor=listener_executor,
        **(_distributed(settings, client, distribution) if distribution else {}),
    )
    if distribution is not None:
        app.use(workspaces.not_installed)
    respond.install(app)
    own_app.install(app, client)
    return app


def _distributed(
    settings: Settings, client: WebClient, distribution: Distribution
) -> dict[str, Any]:
    """The App's options for a distributed app: the OAuth flow, and Bolt's authorization
    from the installation store, given to the App so that it refreshes rotating tokens."""
    return {
        "oauth_flow": oauth_flow(settings, client, distribution),
        "installation_store": distribution.installation_store,
        "authorize": workspaces.InstalledWorkspaces(
            logger=log,
            installation_store=distribution.installation_store,
            client_id=settings.slack_client_id,
            client_secret=settings.slack_client_secret,
            token_rotation_expiration_minutes=TOKEN_ROTATION_MINUTES,
            bot_only=True,
            client=client,
        ),
    }


def wsgi_app(
    app: App,
    drain: Drain | None = None,
    database: health.DatabaseHealth | None = None,
    index_ready: Callable[[], bool] | None = None,
) -> Callable[..., Iterable[bytes]]:
    """Bolt's WSGI adapter at ``/slack/events``, behind ``gate.malformed``; plus
    ``GET /healthz`` and ``GET /readyz`` for the platform, which tell the ``database``'s
    state (``bot.slack.health``). Once ``drain`` has begun, all answer 503: the
    platform stops routing here, and Slack gets no ack this process could not keep.
    ``index_ready`` says whether the index is built yet, for a bot serving before it is."""
    bolt = SlackRequestHandler(app, path=EVENTS_PATH)
    health_check = health.HealthCheck(database, index_ready=index_ready)

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        path = environ.get("PATH_INFO") or ""
        if path in health.PATHS and environ.get("REQUEST_METHOD") == "GET":
            if drain is not None and drain.started:
                return _draining(start_response)
            status, body = health_check.reply(path)
            start_response(status, [("Content-Type", "application/json")])
            return [body]
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
        if drain is None:
            return bolt(environ, start_response)
        with drain.admission() as admitted:
            if not admitted:
                return _draining(start_response)
            return bolt(environ, start_response)

    return application


def _draining(start_response: Callable[..., Any]) -> list[bytes]:
    start_response("503 Service Unavailable", [("Content-Type", "text/plain; charset=utf-8")])
    return [b"draining\n"]


def create_http_server(
    app: App,
    *,
    host: str = "0.0.0.0",
    port: int = 3000,
    drain: Drain | None = None,
    database: health.DatabaseHealth | None = None,
    index_ready: Callable[[], bool] | None = None,
) -> Any:
    """A waitress server (multi-threaded WSGI) for the app; ``.run()`` serves, ``.close()``.

    Bodies over ``gate.MAX_BODY_BYTES`` are refused by waitress with a 413 before they are
    read into memory."""
    return waitress.create_server(
        wsgi_app(app, drain, database, index_ready),
        host=host,
        port=port,
        threads=HTTP_THREADS,
        ident="paperbot",
        max_request_body_size=gate.MAX_BODY_BYTES,
    )


def start_serving(
    app: App,
    settings: Settings,
    client: WebClient,
    mode: str,
    drain: Drain,
    database: health.DatabaseHealth | None = None,
    index_ready: Callable[[], bool] | None = None,
) -> Callable[[], None]:
    """Serve Slack in ``mode`` (``SOCKET`` or ``HTTP``) on background threads; what stops
    accepting requests when ``drain`` runs.

    Socket Mode closes its connection (Slack sends to the app's other connections). HTTP
    keeps serving until the process exits, so ``/healthz`` can say 503 while ``drain``
    refuses new requests; waitress's threads are daemons and end with the process.
    """
    if mode == SOCKET:
        handler = SocketModeHandler(app, settings.slack_app_token, web_client=client)
        handler.connect()
        print("paperbot: connected to Slack in Socket Mode", flush=True)
        return functools.partial(close_socket_mode, handler)
    server = create_http_server(
        app, port=settings.port, drain=drain, database=database, index_ready=index_ready
    )
    threading.Thread(target=server.run, name="http", daemon=True).start()
    print(f"paperbot: listening on port {settings.port} at {EVENTS_PATH}", flush=True)
    if app.oauth_flow is not None:
        print(f"paperbot: the install page is at {app.oauth_flow.install_path}", flush=True)
    return _keep_serving


def close_socket_mode(handler: SocketModeHandler) -> None:
    """Close the connection for good: the SDK, if it is reconnecting just then, turns
    auto-reconnect back on as it connects (to its default), so the default goes off first."""
    handler.client.default_auto_reconnect_enabled = False
    handler.close()


def _keep_serving() -> None:
    """HTTP stops accepting through the drain's admission, not by closing its socket."""
