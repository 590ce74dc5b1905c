"""What an HTTP request must be before Bolt reads it, and what of it may reach the log.

Anyone can POST to ``/slack/events``. The body is capped (waitress refuses anything over
``MAX_BODY_BYTES`` with a 413 before the app sees it; Slack's payloads are a few kilobytes),
and a body Bolt could not parse — not UTF-8, a timestamp that is not a number, a ``payload=``
or JSON body that is not a JSON object, or one with a field that is not what Bolt or a
listener reads it as (``bot.slack.shapes``: ``"actions": []``, ``"user": 0``) — is answered
400 with one log line, where Bolt would raise and answer 500 with a traceback. Request
bodies are never logged, at any level: Bolt writes the whole body into its log when a
signature is wrong (a 200 MB line for a 200 MB POST), and ``BodylessLogs`` rewrites those
records.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from urllib.parse import parse_qs

from bot.slack.shapes import misshapen

MAX_BODY_BYTES = 1 << 20
"""1 MiB: Slack's largest payloads (a view submission) are far below it."""

_JSON = "application/json"

_BODY_MESSAGES = (
    "Invalid request signature detected",
    "request body:",
    "Request body:",
    "A global middleware",
)
"""How Bolt's log records that hold a request body begin."""


def malformed(body: bytes, headers: Mapping[str, str]) -> str | None:
    """Why Bolt could not read this request (a phrase for the log), or None if it can.

    ``headers`` are the WSGI ones (``CONTENT_TYPE``, ``HTTP_X_SLACK_REQUEST_TIMESTAMP``).
    """
    timestamp = headers.get("HTTP_X_SLACK_REQUEST_TIMESTAMP")
    if timestamp is not None and not (timestamp.isascii() and timestamp.isdigit()):
        return "the request timestamp is not a number"
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"the body is not UTF-8 (byte {error.start})"
    if not text:
        return None
    content_type = (headers.get("CONTENT_TYPE") or "").split(";", 1)[0].strip().lower()
    if content_type == _JSON or text.startswith("{"):  # how Bolt tells JSON from a form
        envelope = _object(text)
        if envelope is None:
            return "the JSON body is not a JSON object"
        return misshapen(envelope)
    try:
        fields = parse_qs(text, keep_blank_values=True, errors="strict")
    except UnicodeDecodeError:
        return "a form field is not UTF-8"
    for field in fields.get("payload", ()):
        payload = _object(field)
        if payload is None:
            return "the payload field is not a JSON object"
        if problem := misshapen(payload):
            return problem
    return None


def _object(text: str) -> dict[str, object] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class BodylessLogs(logging.Filter):
    """Keeps request bodies out of Bolt's log records: each record that would carry one is
    replaced by its first words."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.msg if isinstance(record.msg, str) else ""
        for start in _BODY_MESSAGES:
            if message.startswith(start):
                record.msg = f"{start.rstrip(':')} (request body not logged)"
                record.args = ()
                break
        return True


def bolt_logger() -> logging.Logger:
    """The base logger to give Bolt: every logger Bolt makes from it copies its filter."""
    logger = logging.getLogger("paperbot.bolt")
    if not any(isinstance(existing, BodylessLogs) for existing in logger.filters):
        logger.addFilter(BodylessLogs())
    return logger
