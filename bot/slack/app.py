"""Assembling the bot: services, the Bolt app, the rules that pick a mode, and serving the
app over Socket Mode or HTTP.

``bot.cli`` acts on the mode (the shell builds the same app with ``build_services`` and
``build_app``). Everything (the listeners, the answers, the renderer) is the same object in
all three modes, built once at start-up: loading the corpus and building the index is the
slow part, so it is never per request.
"""

from __future__ import annotations

import io
import logging
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import waitress
from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.answers import Answers
from bot.clock import Clock, system_clock
from bot.digest.schedule import DigestScheduler
from bot.digest.service import DigestService
from bot.papers.corpus import (
    CATALOGUE_ACCEPTED_PAPERS,
    SEED_SPECS,
    LoadedCorpus,
    load_corpus,
)
from bot.render import papers as render
from bot.search.engine import SearchIndex
from bot.search.semantic import ranker_for
from bot.settings import Settings, StartupError
from bot.slack import gate, respond
from bot.slack.client import digest_client, make_web_client
from bot.slack.work import WorkPool, never_busy
from bot.store import Store
from handlers import register_all

log = logging.getLogger(__name__)

SOCKET, HTTP, SHELL = "socket", "http", "shell"
MODE_NAMES = {SOCKET: "Socket Mode", HTTP: "HTTP", SHELL: "local shell"}
EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
HTTP_THREADS = 8
LISTENER_THREADS = 32
"""Workers for what follows an ack: they mostly wait on Slack (``response_url``,
``chat.postMessage``, rate-limit sleeps), so the pool is sized for waiting, not for CPU."""
LISTENER_BACKLOG = 96
"""Requests that may queue for a worker before ``/paper`` is turned away with a message."""


class ModeError(StartupError, ValueError):
    """The chosen mode cannot start; the message names the variable or service to fix."""


@dataclass(frozen=True)
class Services:
    """What the listeners and the scheduler need, built once and shared by every request."""

    corpus: LoadedCorpus
    index: SearchIndex
    store: Store
    digest: DigestService
    answers: Answers

    def close(self) -> None:
        self.store.close()


def build_services(
    settings: Settings,
    client: WebClient | None,
    *,
    clock: Clock = system_clock,
    corpus: LoadedCorpus | None = None,
) -> Services:
    """Load the corpus (unless given), build the index, open the store.

    ``client`` is what the daily paper is posted with (``slack.client.digest_client``).
    """
    corpus = corpus or load_corpus(settings.corpus)
    index = SearchIndex.build(
        corpus.papers, ranker_for(settings.corpus) if settings.semantic else None
    )
    store = Store(settings.database_url, clock)
    digest = DigestService(store, index, client, settings, clock=clock)
    seeds_only = settings.corpus.strip() in SEED_SPECS
    wider = None
    if seeds_only:
        wider = render.wider_corpus_hint(len(corpus.papers), CATALOGUE_ACCEPTED_PAPERS)
    # The help card says what is searched in a reader's words; the corpus's own description
    # (with its paths) is for the operator's log.
    searched = f"Searching {corpus.label}."
    answers = Answers(index, store, digest, description=searched, wider_corpus=wider, clock=clock)
    return Services(corpus, index, store, digest, answers)


def build_app(
    settings: Settings,
    answers: Answers,
    client: WebClient,
    *,
    listener_executor: Executor | None = None,
) -> App:
    """The Bolt app with every listener registered; ``client`` carries the bot token.

    The app processes before responding, so each listener's ack runs on the request's own
    thread (waitress's, or the Socket Mode client's) and the response leaves as soon as it
    returns; the work is a lazy listener on ``listener_executor``, a ``WorkPool`` of
    ``LISTENER_THREADS`` by default (the shell runs it inline, so its reply is complete when
    dispatch returns). Requests are verified whenever a signing secret is set (HTTP and the
    shell).
    """
    secret = settings.slack_signing_secret
    executor = listener_executor or WorkPool(LISTENER_THREADS, LISTENER_BACKLOG)
    app = App(
        client=client,
        logger=gate.bolt_logger(),
        signing_secret=secret or "",
        process_before_response=True,
        request_verification_enabled=bool(secret),
        listener_executor=executor,
    )
    respond.install(app)
    register_all(app, answers, executor.busy if isinstance(executor, WorkPool) else never_busy)
    return app


def _require(settings: Settings, names: Iterable[str]) -> None:
    values = {
        "SLACK_BOT_TOKEN": settings.slack_bot_token,
        "SLACK_APP_TOKEN": settings.slack_app_token,
        "SLACK_SIGNING_SECRET": settings.slack_signing_secret,
    }
    prefixes = {"SLACK_BOT_TOKEN": "xoxb-", "SLACK_APP_TOKEN": "xapp-"}
    for name in names:
        value = values[name]
        if not value:
            raise ModeError(f"{name} is not set")
        prefix = prefixes.get(name)
        if prefix and not value.startswith(prefix):
            raise ModeError(f"{name} must be a token starting with {prefix!r}")


def choose_mode(settings: Settings, forced: str | None) -> str:
    """The mode to run in: forced by a flag, else from which variables are set.

    Raises ``ModeError`` naming the variable that is missing or holds the wrong kind of token.
    """
    mode = forced
    if mode is None:
        if settings.slack_bot_token and settings.slack_app_token:
            mode = SOCKET
        elif settings.slack_bot_token and settings.slack_signing_secret:
            mode = HTTP
        elif not settings.any_slack_variable:
            mode = SHELL
        elif not settings.slack_bot_token:
            raise ModeError("SLACK_BOT_TOKEN is not set")
        else:
            raise ModeError(
                "SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP) is not set"
            )
    if mode == SOCKET:
        _require(settings, ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"))
    elif mode == HTTP:
        _require(settings, ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"))
    elif mode != SHELL:
        raise ModeError(f"unknown mode {mode!r}")
    return mode


def mode_configured(settings: Settings, mode: str) -> bool:
    """Whether the environment asks for ``mode`` at all: its own variable is set (the app
    token for Socket Mode, the signing secret for HTTP)."""
    if mode == SOCKET:
        return settings.slack_app_token is not None
    if mode == HTTP:
        return settings.slack_signing_secret is not None
    return True


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


_QUIET = logging.getLogger("paperbot.preflight")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False


def check_slack(settings: Settings, mode: str) -> None:
    """Ask Slack who the bot is (and, for Socket Mode, for a connection) before loading
    anything, so a revoked token or an unreachable API stops the start-up with one line
    instead of failing every request later.

    One attempt, through a client that logs nothing: its retries and error logs would put a
    dozen lines in front of the one that says what to fix.
    """
    client = WebClient(
        token=settings.slack_bot_token,
        base_url=settings.slack_api_url or WebClient.BASE_URL,
        logger=_QUIET,
    )
    checks = [("SLACK_BOT_TOKEN", client.auth_test)]
    if mode == SOCKET:
        checks.append(
            (
                "SLACK_APP_TOKEN",
                lambda: client.apps_connections_open(app_token=settings.slack_app_token),
            )
        )
    for variable, check in checks:
        try:
            check()
        except SlackApiError as error:
            raise ModeError(_refusal(variable, client, error)) from None
        except OSError as error:
            raise ModeError(_unreachable(client, error)) from None


def _refusal(variable: str, client: WebClient, error: SlackApiError) -> str:
    """Slack refuses a token with HTTP 200 and an error code (``invalid_auth``); anything
    else is not Slack speaking (an outage, a proxy, a wrong ``SLACK_API_URL``)."""
    status = error.response.status_code
    code = error.response.data.get("error") if isinstance(error.response.data, dict) else None
    if status != 200 or not isinstance(code, str) or not code.isidentifier():
        return (
            f"the Slack API at {client.base_url} answered HTTP {status}, not as Slack does: "
            "check SLACK_API_URL, or try again later"
        )
    return f"Slack rejected {variable} ({code}): copy the token from the app's settings again"


def _unreachable(client: WebClient, error: OSError) -> str:
    reason = getattr(error, "reason", None) or error.strerror or error
    return f"cannot reach the Slack API at {client.base_url} ({reason}): check SLACK_API_URL"


def _serve_socket_mode(app: App, settings: Settings, client: WebClient) -> None:
    SocketModeHandler(app, settings.slack_app_token, web_client=client).connect()
    print("paperbot: connected to Slack in Socket Mode", flush=True)
    threading.Event().wait()


def run(settings: Settings, mode: str) -> int:
    """Serve Slack in ``mode`` (``SOCKET`` or ``HTTP``, as ``choose_mode`` gave it) until
    interrupted; the process exit code."""
    check_slack(settings, mode)
    client = make_web_client(settings.slack_bot_token, settings.slack_api_url)
    services = build_services(settings, digest_client(settings))
    print(f"paperbot: {MODE_NAMES[mode]}; {services.corpus.description}", flush=True)
    threading.Thread(target=services.index.prepare, name="prepare-index", daemon=True).start()
    threading.Thread(
        target=services.answers.papers.prepare, name="prepare-catalogue", daemon=True
    ).start()
    app = build_app(settings, services.answers, client)
    scheduler = DigestScheduler(services.digest) if settings.scheduler_enabled else None
    if scheduler is not None:
        scheduler.start()
    try:
        if mode == SOCKET:
            _serve_socket_mode(app, settings, client)
        else:
            server = create_http_server(app, port=settings.port)
            print(f"paperbot: listening on port {settings.port} at {EVENTS_PATH}", flush=True)
            server.run()
    except KeyboardInterrupt:
        pass
    finally:
        if scheduler is not None:
            scheduler.stop()
        services.close()
    return 0
