"""Keeps the URLs that work as keys out of the log: ``response_url``s and file-upload URLs.

Whoever holds a ``response_url`` can post into its conversation for 30 minutes, and whoever
holds an upload URL can send the file's bytes. slack_sdk writes both into its records: each
webhook request with its URL and body at DEBUG, each Web API answer with its body (where
``files.getUploadURLExternal`` names the ``upload_url``), and its retry notices, with the URL,
at INFO. The bot token never reaches the log (slack_sdk writes ``Authorization: (redacted)``);
these are redacted the same way. ``install`` wraps the log record factory, so a record is
cleaned as it is made, whichever handler then writes it (the console, a test's capture).
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
_ANY_URL = re.compile(r"https?://[^\s'\"<>,]+")
_WEBHOOK_LOGGER = "slack_sdk.webhook"
"""The logger of the client that posts to ``response_url``s: every URL it names is one."""


def redacted(message: str, *, from_webhook: bool = False) -> str:
    """``message`` with each secret URL replaced by ``(redacted)``."""
    if from_webhook:
        message = _ANY_URL.sub(REDACTED, message)
    message = _SLACK_SECRET_URL.sub(REDACTED, message)
    return _NAMED_SECRET.sub(lambda match: match["name"] + REDACTED, message)


def _redact(record: logging.LogRecord) -> None:
    try:
        message = record.getMessage()
    except (TypeError, ValueError):
        return  # a record whose arguments do not fit its format; logging reports it itself
    cleaned = redacted(message, from_webhook=record.name.startswith(_WEBHOOK_LOGGER))
    if cleaned != message:
        record.msg, record.args = cleaned, ()


def install() -> None:
    """Clean every log record made from now on (once, however often it is called)."""
    previous = logging.getLogRecordFactory()
    if getattr(previous, "redacts_secret_urls", False):
        return

    def make_record(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        _redact(record)
        return record

    make_record.redacts_secret_urls = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(make_record)
