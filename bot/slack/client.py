"""The Web API client every part of the bot posts through.

One constructor so that retries follow the one policy everywhere (``bot.slack.delivery.retry``):
Slack answers bursts with HTTP 429 and ``Retry-After``, and has the odd 5xx or dropped
connection; the client waits and retries those instead of surfacing them to users, as long
as the wait is worth it (a reply: a few seconds; the daily post: longer).
``base_url`` lets the shell and the tests point the client at ``bot.shell.fake_slack``
(``SLACK_API_URL``).
"""

from __future__ import annotations

from slack_sdk import WebClient

from bot.settings import Settings
from bot.slack.delivery.retry import DIGEST_PATIENCE, REPLY_PATIENCE, PolicyRetryHandler


def make_web_client(
    token: str | None,
    base_url: str | None = None,
    *,
    retry_maybe_delivered: bool = True,
    patience: float = REPLY_PATIENCE,
) -> WebClient:
    """A ``WebClient`` that retries what never reached Slack (rate limits, a connection not
    made), and also server errors and dropped connections unless ``retry_maybe_delivered``
    is off; each call waits at most ``patience`` seconds in all before giving up.

    A 5xx or a dropped connection may come after Slack already posted the message: the daily
    paper turns those retries off and checks the channel's history itself before posting
    again, so it never posts twice.
    """
    client = WebClient(token=token, base_url=base_url or WebClient.BASE_URL)
    client.retry_handlers = [
        PolicyRetryHandler(duplicates_tolerated=retry_maybe_delivered, patience=patience)
    ]
    return client


def digest_client(settings: Settings) -> WebClient | None:
    """The client the paper of the day is posted with (None without a bot token): no retries
    of a post Slack may have made, since the digest checks the channel itself first; and more
    patience than a reply, on the scheduler's own thread."""
    if not settings.slack_bot_token:
        return None
    return make_web_client(
        settings.slack_bot_token,
        settings.slack_api_url,
        retry_maybe_delivered=False,
        patience=DIGEST_PATIENCE,
    )
