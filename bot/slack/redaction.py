"""Keeps secrets out of the log: the URLs that work as keys (``response_url``s and file-upload
URLs), Slack's tokens, OAuth codes and the app's client secret.

Whoever holds a ``response_url`` can post into its conversation for 30 minutes, and whoever
holds an upload URL can send the file's bytes. slack_sdk writes both into its records: each
webhook request with its URL and body at DEBUG, each Web API answer with its body (where
``files.getUploadURLExternal`` names the ``upload_url``), and its retry notices, with the URL,
at INFO. A token in a request's header never reaches the log (slack_sdk writes
``Authorization: (redacted)``), but an install's and a refresh's answers carry tokens in their
bodies (``oauth.v2.access``: ``access_token``, ``refresh_token``), their requests the code and
the client secret, and Bolt's failure notices the code: all are redacted the same way.
``install`` wraps the log record factory, so a record is cleaned as it is made, whichever
handler then writes it (the console, a test's capture).
"""

from __future__ import annotations

import logging
import re
from typing import Any

REDACTED = "(redacted)"

_SLACK_SECRET_URL = re.compile(
    r"https?://(?:hooks\.slack\.com|files\.slack\.com/upload)/[^\s'\"<>,]+"
)
"""Where Slack's ``response_url``s and upload URLs point, wherever a record names them."""
_NAMED_SECRET = re.compile(
    r"""(?P<name>\b(?:response_url|upload_url)["']?\s*[:=]\s*["']?)[^\s'"&,}]+"""
)
"""Such a URL under its own name (JSON, a dict's repr, a form), whatever its host."""
_TOKEN = re.compile(r"\bx(?:ox[a-z](?:\.xox[a-z])?|app)-[A-Za-z0-9-]+")
"""A bot, user, app or configuration token (``xoxb-``, ``xoxp-``, ``xapp-``), a rotating one
(``xoxe.xoxb-``), or a refresh token (``xoxe-``)."""
_NAMED_CREDENTIAL = re.compile(
    r"""(?P<name>\b(?:code|client_secret|refresh_token|access_token)["']?\s*[:=]\s*["']?)"""
    r"""[^\s'"&,}]+"""
)
"""An OAuth code, the client secret or a token under its own name (a query string, a form,
JSON, a dict's repr, Bolt's "with code: …")."""
_ANY_URL = re.compile(r"https?://[^\s'\"<>,]+")
_WEBHOOK_LOGGER = "slack_sdk.webhook"
"""The logger of the client that posts to ``response_url``s: every URL it names is one."""


_SECRETS: set[str] = set()
"""Secrets known by value (the client secret), redacted wherever they appear."""


def redacted(message: str, *, from_webhook: bool = False) -> str:
    """``message`` with each secret URL, token, code and known secret replaced by
    ``(redacted)``."""
    if from_webhook:
        message = _ANY_URL.sub(REDACTED, message)
    message = _SLACK_SECRET_URL.sub(REDACTED, message)
    for secret in _SECRETS:
        message = message.replace(secret, REDACTED)
    message = _TOKEN.sub(REDACTED, message)
    for named in (_NAMED_SECRET, _NAMED_CREDENTIAL):
        message = named.sub(lambda match: match["name"] + REDACTED, message)
    return message


def _redact(record: logging.LogRecord) -> None:
    try:
        message = record.getMessage()
    except (TypeError, ValueError):
        return  # a record whose arguments do not fit its format; logging reports it itself
    cleaned = redacted(message, from_webhook=record.name.startswith(_WEBHOOK_LOGGER))
    if cleaned != message:
        record.msg, record.args = cleaned, ()


def install(*secrets: str | None) -> None:
    """Clean every log record made from now on (once, however often it is called), also of
    ``secrets`` by value."""
    _SECRETS.update(secret for secret in secrets if secret)
    previous = logging.getLogRecordFactory()
    if getattr(previous, "redacts_secret_urls", False):
        return

    def make_record(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        _redact(record)
        return record

    make_record.redacts_secret_urls = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(make_record)
