"""A fake Slack Web API on 127.0.0.1 that records every call and answers like Slack.

It lives in ``bot/`` rather than ``tests/`` because the local shell runs the real Bolt app
against it in-process: the shell's "Slack" and the tests' "Slack" are the same object, so
what the shell shows and what the tests assert cannot drift apart.

Supported methods: ``auth.test``, ``bots.info``, ``chat.postMessage``, ``chat.postEphemeral``,
``chat.update``, ``chat.unfurl``, ``conversations.replies``, ``conversations.history``,
``conversations.info``, ``conversations.members``, ``conversations.open``, ``users.info``,
``views.publish``, ``views.open``, the two-step file upload ``files_upload_v2`` makes
(``files.getUploadURLExternal``, a ``POST`` of the bytes to the URL it hands out, then
``files.completeUploadExternal``) and ``apps.connections.open`` (for Socket Mode); any other
method answers ``unknown_method``. Channels are public with the bot in them unless a test
describes them otherwise. Slash-command and action replies are posted to
``response_url(...)`` addresses (``POST /response/<id>``), recorded under the method name
``RESPONSE_URL``. Every call is answered the way a healthy Slack answers it; the tests'
rate limits, server errors and slow answers, and the questions only tests ask of it, live in
``tests/faulty_slack.py``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

RESPONSE_URL = "response_url"
"""Method name under which posts to a ``response_url`` are recorded."""
FILE_UPLOAD = "file_upload"
"""Method name under which the bytes posted to an upload URL are recorded."""

_FIRST_TS = 1_700_000_000


@dataclass(frozen=True)
class ChannelInfo:
    """What ``conversations.info`` and ``conversations.members`` say about a channel."""

    id: str
    is_private: bool = False
    bot_is_member: bool = True
    members: tuple[str, ...] = ()


@dataclass(frozen=True)
class SharedFile:
    """A file uploaded and shared through the v2 flow, with its bytes."""

    id: str
    filename: str
    title: str | None
    content: bytes
    channel_id: str | None
    initial_comment: str | None


@dataclass(frozen=True)
class RecordedCall:
    """One request the recorder received; ``args`` merges query string and body."""

    method: str
    args: dict[str, Any]
    token: str | None
    status: int
    response: dict[str, Any]
    response_id: str | None = None

    @property
    def blocks(self) -> list[dict[str, Any]]:
        return list(_decoded(self.args.get("blocks") or []))

    @property
    def text(self) -> str:
        return str(self.args.get("text") or "")

    @property
    def unfurls(self) -> dict[str, dict[str, Any]]:
        """A ``chat.unfurl`` call's preview per link."""
        return dict(_decoded(self.args.get("unfurls") or {}))


class SlackRecorder:
    """A threaded HTTP server pretending to be ``https://slack.com/api/``.

    Use as a context manager, or ``start()``/``stop()``. Point a ``WebClient`` at
    ``base_url``. All state is guarded by one condition variable, which the ``wait_for``
    helpers use so tests never sleep blindly.
    """

    def __init__(
        self,
        *,
        bot_user_id: str = "UPAPERBOT",
        bot_id: str = "BPAPERBOT",
        app_id: str = "A0PAPERBOT",
        team_id: str = "T0PAPERS",
        user_names: dict[str, str] | None = None,
        first_ts: float | None = None,
    ) -> None:
        """``first_ts`` (seconds) starts message timestamps at that instant, as Slack's are;
        by default they start at a fixed 1,700,000,001 so tests can name them."""
        self.bot_user_id = bot_user_id
        self.bot_id = bot_id
        self.app_id = app_id
        self.team_id = team_id
        self.user_names = dict(user_names or {})
        self._condition = threading.Condition()
        self._calls: list[RecordedCall] = []
        self._messages: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self._ts_counter = itertools.count(1)
        self._first_micros = None if first_ts is None else int(first_ts * 1_000_000)
        self._response_ids = itertools.count(1)
        self._file_ids = itertools.count(1)
        self._channels: dict[str, ChannelInfo] = {}
        self._uploads: dict[str, dict[str, Any]] = {}
        self._files: list[SharedFile] = []
        self.socket_mode_url: str | None = None
        """What ``apps.connections.open`` hands out: a local WebSocket server's URL."""
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle

    def start(self) -> SlackRecorder:
        recorder = self

        class Handler(_RecorderRequestHandler):
            owner = recorder

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="slack-recorder",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> SlackRecorder:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def root_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the recorder is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def base_url(self) -> str:
        """The Web API base URL, in the form ``WebClient(base_url=...)`` expects."""
        return f"{self.root_url}/api/"

    def response_url(self, response_id: str | None = None) -> str:
        """A fresh ``response_url`` for a slash command or an interactive payload."""
        if response_id is None:
            response_id = str(next(self._response_ids))
        return f"{self.root_url}/response/{response_id}"

    # scripting

    def add_message(
        self,
        channel: str,
        text: str,
        *,
        user: str = "UHUMAN",
        thread_ts: str | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        """Seed a message a human wrote, e.g. the first message of a thread."""
        with self._condition:
            message = {"type": "message", "user": user, "text": text, "ts": self._next_ts()}
            if thread_ts:
                message["thread_ts"] = thread_ts
            message.update(extra)
            self._messages[channel].append(message)
            return dict(message)

    # inspection

    @property
    def files(self) -> list[SharedFile]:
        """Files whose upload was completed, oldest first."""
        with self._condition:
            return list(self._files)

    @property
    def calls(self) -> list[RecordedCall]:
        with self._condition:
            return list(self._calls)

    def wait_for(
        self,
        method: str,
        count: int = 1,
        *,
        timeout: float = 5.0,
        where: Callable[[RecordedCall], bool] | None = None,
    ) -> list[RecordedCall]:
        """Block until ``count`` calls of ``method`` (matching ``where``) were recorded."""

        def matching() -> list[RecordedCall]:
            return [
                call
                for call in self._calls
                if call.method == method and (where is None or where(call))
            ]

        with self._condition:
            if not self._condition.wait_for(lambda: len(matching()) >= count, timeout):
                seen = [call.method for call in self._calls]
                raise TimeoutError(
                    f"waited {timeout}s for {count} {method} call(s); recorded: {seen}"
                )
            return matching()

    # request handling (called from server threads)

    def handle(
        self, method: str, args: dict[str, Any], token: str | None, response_id: str | None = None
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        with self._condition:
            status, body, headers = self._respond(method, args, response_id)
            self._calls.append(RecordedCall(method, args, token, status, body, response_id))
            self._condition.notify_all()
        return status, body, headers

    def _respond(
        self, method: str, args: dict[str, Any], response_id: str | None
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        """Status, body and headers of the answer; called with the state locked. The one
        place a subclass may answer otherwise (the tests' faults), so a scripted answer is
        recorded exactly like a real one."""
        return 200, self._answer(method, args, response_id), {}

    def _next_ts(self) -> str:
        if self._first_micros is None:
            return f"{_FIRST_TS + next(self._ts_counter)}.000100"
        micros = self._first_micros + next(self._ts_counter)
        return f"{micros // 1_000_000}.{micros % 1_000_000:06d}"

    def _answer(self, method: str, args: dict[str, Any], response_id: str | None) -> dict:
        answers: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "auth.test": self._auth_test,
            "bots.info": self._bots_info,
            "chat.postMessage": self._post_message,
            "chat.postEphemeral": self._post_ephemeral,
            "chat.update": self._update,
            "chat.unfurl": self._unfurl,
            "conversations.replies": self._replies,
            "conversations.history": self._history,
            "conversations.info": self._conversation_info,
            "conversations.members": self._conversation_members,
            "conversations.open": self._conversation_open,
            "users.info": self._users_info,
            "views.publish": self._views_publish,
            "views.open": self._views_open,
            "files.getUploadURLExternal": self._upload_url,
            "files.completeUploadExternal": self._complete_upload,
            "apps.connections.open": self._connections_open,
        }
        if method == RESPONSE_URL:
            return {"ok": True}
        if method == FILE_UPLOAD:
            return self._receive_upload(args, response_id)
        answer = answers.get(method)
        if answer is None:
            return {"ok": False, "error": "unknown_method"}
        return answer(args)

    def _auth_test(self, args: dict[str, Any]) -> dict[str, Any]:
        return {
            "ok": True,
            "url": "https://paperbot-test.slack.com/",
            "team": "Paperbot Test",
            "user": "paperbot",
            "team_id": self.team_id,
            "user_id": self.bot_user_id,
            "bot_id": self.bot_id,
            "is_enterprise_install": False,
        }

    def _bots_info(self, args: dict[str, Any]) -> dict[str, Any]:
        if args.get("bot") != self.bot_id:
            return {"ok": False, "error": "bot_not_found"}
        bot = {"id": self.bot_id, "app_id": self.app_id, "user_id": self.bot_user_id}
        return {"ok": True, "bot": {**bot, "name": "paperbot", "deleted": False}}

    def _post_message(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = args.get("channel")
        if not channel:
            return {"ok": False, "error": "channel_not_found"}
        if not (args.get("text") or args.get("blocks")):
            return {"ok": False, "error": "no_text"}
        message: dict[str, Any] = {
            "type": "message",
            "user": self.bot_user_id,
            "bot_id": self.bot_id,
            "text": args.get("text") or "",
            "ts": self._next_ts(),
        }
        if args.get("thread_ts"):
            message["thread_ts"] = str(args["thread_ts"])
        for key in ("blocks", "metadata"):
            if args.get(key):
                message[key] = _decoded(args[key])
        self._messages[str(channel)].append(message)
        return {"ok": True, "channel": channel, "ts": message["ts"], "message": dict(message)}

    def _post_ephemeral(self, args: dict[str, Any]) -> dict[str, Any]:
        if not args.get("channel"):
            return {"ok": False, "error": "channel_not_found"}
        if not args.get("user"):
            return {"ok": False, "error": "user_not_found"}
        return {"ok": True, "message_ts": self._next_ts()}

    def _update(self, args: dict[str, Any]) -> dict[str, Any]:
        channel, ts = str(args.get("channel")), str(args.get("ts"))
        for message in self._messages.get(channel, []):
            if message["ts"] == ts:
                message["text"] = args.get("text") or message["text"]
                if args.get("blocks"):
                    message["blocks"] = _decoded(args["blocks"])
                return {"ok": True, "channel": channel, "ts": ts, "text": message["text"]}
        return {"ok": False, "error": "message_not_found"}

    def _replies(self, args: dict[str, Any]) -> dict[str, Any]:
        channel, ts = str(args.get("channel")), str(args.get("ts"))
        stored = self._messages.get(channel, [])
        parent = next((message for message in stored if message["ts"] == ts), None)
        if parent is None:
            return {"ok": False, "error": "thread_not_found"}
        root = parent.get("thread_ts", ts)
        thread = [
            message
            for message in stored
            if message["ts"] == root or message.get("thread_ts") == root
        ]
        limit = int(args.get("limit") or 1000)
        return {
            "ok": True,
            "messages": _shown(thread[:limit], args),
            "has_more": len(thread) > limit,
        }

    def _history(self, args: dict[str, Any]) -> dict[str, Any]:
        """Top-level messages newest first."""
        channel = str(args.get("channel"))
        oldest = float(args.get("oldest") or 0)
        latest = float(args.get("latest") or "inf")
        limit = int(args.get("limit") or 100)
        offset = int(args.get("cursor") or 0)
        top_level = [
            message
            for message in reversed(self._messages.get(channel, []))
            if message.get("thread_ts", message["ts"]) == message["ts"]
            and oldest < float(message["ts"]) < latest
        ]
        has_more = offset + limit < len(top_level)
        return {
            "ok": True,
            "messages": _shown(top_level[offset : offset + limit], args),
            "has_more": has_more,
            "response_metadata": {"next_cursor": str(offset + limit) if has_more else ""},
        }

    def _unfurl(self, args: dict[str, Any]) -> dict[str, Any]:
        """Either ``channel`` and ``ts`` or ``unfurl_id`` and ``source``, and ``unfurls``."""
        by_message = args.get("channel") and args.get("ts")
        by_unfurl_id = args.get("unfurl_id") and args.get("source")
        if not (by_message or by_unfurl_id) or not args.get("unfurls"):
            return {"ok": False, "error": "invalid_arguments"}
        return {"ok": True}

    def _channel(self, channel: str) -> ChannelInfo:
        return self._channels.get(channel) or ChannelInfo(channel)

    def _conversation_info(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = str(args.get("channel"))
        info = self._channel(channel)
        if info.is_private and not info.bot_is_member:
            return {"ok": False, "error": "channel_not_found"}
        is_im = channel.startswith("D")
        return {
            "ok": True,
            "channel": {
                "id": channel,
                "is_channel": not (info.is_private or is_im),
                "is_group": info.is_private,
                "is_im": is_im,
                "is_private": info.is_private or is_im,
                "is_archived": False,
                "is_member": info.bot_is_member and not is_im,
            },
        }

    def _conversation_members(self, args: dict[str, Any]) -> dict[str, Any]:
        info = self._channel(str(args.get("channel")))
        if info.is_private and not info.bot_is_member:
            return {"ok": False, "error": "channel_not_found"}
        return {"ok": True, "members": list(info.members), "response_metadata": {"next_cursor": ""}}

    def _conversation_open(self, args: dict[str, Any]) -> dict[str, Any]:
        user = str(args.get("users") or "")
        if not user or "," in user:
            return {"ok": False, "error": "user_not_found" if not user else "not_implemented"}
        return {"ok": True, "channel": {"id": "D" + user.removeprefix("U")}}

    def _views_publish(self, args: dict[str, Any]) -> dict[str, Any]:
        user, view = args.get("user_id"), _decoded(args.get("view") or "null")
        if not user or not isinstance(view, dict) or view.get("type") != "home":
            return {"ok": False, "error": "invalid_arguments"}
        return {"ok": True, "view": {"id": f"V{user}", **view}}

    def _views_open(self, args: dict[str, Any]) -> dict[str, Any]:
        view = _decoded(args.get("view") or "null")
        if not args.get("trigger_id") or not isinstance(view, dict):
            return {"ok": False, "error": "invalid_arguments"}
        return {"ok": True, "view": {"id": "VMODAL", **view}}

    def _upload_url(self, args: dict[str, Any]) -> dict[str, Any]:
        if not args.get("filename") or not str(args.get("length") or "").isdigit():
            return {"ok": False, "error": "invalid_arguments"}
        file_id = f"F{next(self._file_ids):08d}"
        self._uploads[file_id] = {"filename": args["filename"], "length": int(args["length"])}
        return {"ok": True, "upload_url": f"{self.root_url}/upload/{file_id}", "file_id": file_id}

    def _receive_upload(self, args: dict[str, Any], file_id: str | None) -> dict[str, Any]:
        upload = self._uploads.get(file_id or "")
        if upload is None:
            return {"ok": False, "error": "invalid_upload"}
        upload["content"] = args["content"]
        return {"ok": True}

    def _complete_upload(self, args: dict[str, Any]) -> dict[str, Any]:
        shared = []
        for item in _decoded(args.get("files") or "[]"):
            upload = self._uploads.pop(str(item.get("id")), None)
            if upload is None or "content" not in upload:
                return {"ok": False, "error": "file_not_found"}
            self._files.append(
                SharedFile(
                    id=item["id"],
                    filename=upload["filename"],
                    title=item.get("title"),
                    content=upload["content"],
                    channel_id=args.get("channel_id"),
                    initial_comment=args.get("initial_comment"),
                )
            )
            shared.append(
                {"id": item["id"], "title": item.get("title"), "name": upload["filename"]}
            )
        return {"ok": True, "files": shared}

    def _connections_open(self, args: dict[str, Any]) -> dict[str, Any]:
        if self.socket_mode_url is None:
            return {"ok": False, "error": "socket_mode_not_enabled"}
        return {"ok": True, "url": self.socket_mode_url}

    def _users_info(self, args: dict[str, Any]) -> dict[str, Any]:
        """The bot's own user is a bot; every other id is a person (``user_names`` names
        them; an id it does not name is a person called by the id)."""
        user = str(args.get("user"))
        name = self.user_names.get(user, user)
        bot = user == self.bot_user_id
        return {"ok": True, "user": {"id": user, "name": name, "real_name": name, "is_bot": bot}}


def _shown(messages: list[dict[str, Any]], args: dict[str, Any]) -> list[dict[str, Any]]:
    """Copies of stored messages as a read returns them: ``metadata`` only when asked for
    (``include_all_metadata``), like Slack."""
    with_metadata = str(args.get("include_all_metadata", "")).lower() in {"1", "true"}
    shown = [dict(message) for message in messages]
    if not with_metadata:
        for message in shown:
            message.pop("metadata", None)
    return shown


def _decoded(value: Any) -> Any:
    """Form-encoded calls carry JSON fields as strings; JSON calls carry them as values."""
    return json.loads(value) if isinstance(value, str) else value


class _RecorderRequestHandler(BaseHTTPRequestHandler):
    owner: SlackRecorder
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default stderr access log; calls are inspectable instead."""

    def _dispatch(self) -> None:
        split = urlsplit(self.path)
        parts = [part for part in split.path.split("/") if part]
        if len(parts) == 2 and parts[0] == "upload":
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            status, body, headers = self.owner.handle(FILE_UPLOAD, {"content": raw}, None, parts[1])
            self._reply(status, body, headers)
            return
        args: dict[str, Any] = dict(parse_qsl(split.query))
        args.update(self._body_args())
        auth = self.headers.get("Authorization", "")
        token = auth.removeprefix("Bearer ").strip() or args.pop("token", None)
        if len(parts) == 2 and parts[0] == "api":
            status, body, headers = self.owner.handle(parts[1], args, token)
        elif len(parts) == 2 and parts[0] == "response":
            status, body, headers = self.owner.handle(RESPONSE_URL, args, token, parts[1])
        else:
            status, body, headers = 404, {"ok": False, "error": "not_found"}, {}
        self._reply(status, body, headers)

    def _body_args(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return {}
        content_type = self.headers.get("Content-Type", "")
        if "json" in content_type:
            parsed = json.loads(raw)
            return parsed if isinstance(parsed, dict) else {}
        return dict(parse_qsl(raw.decode("utf-8"), keep_blank_values=True))

    def _reply(self, status: int, body: dict[str, Any], headers: dict[str, str]) -> None:
        payload = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        # A client that gave up waiting (a timeout test) is gone; Slack carries on regardless.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(payload)
