"""The one "did my post land?" check: look for the message in the conversation.

After a failure that ``bot.slack.delivery.retry`` says may have delivered the message (a timeout,
a 5xx, a dropped connection), the only way to know is to read the conversation back. A
mention's reply looks in its thread before apologising; the daily post looks in the
channel's history before posting again, and when it settles a post a dead process left.
Each says what its message looks like (``matches``); reading, paging and what a failed
read means are the same for both. A post that carries Slack message metadata is matched on it
(``tagged``), so another bot post since (someone else's Share, the daily post) is not taken
for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

PAGE_SIZE = 200

Message = dict[str, Any]


class Unreadable(Exception):
    """The conversation could not be read far enough to tell whether the message is there."""


def find_post(
    client: WebClient,
    channel: str,
    matches: Callable[[Message], bool],
    *,
    oldest: str | None = None,
    thread_ts: str | None = None,
    pages: int = 1,
    complete: bool = False,
) -> Message | None:
    """The first message after ``oldest`` that ``matches``, in the channel's history or, with
    ``thread_ts``, in that thread (its ``ts``, and what it says for a caller that reads it);
    None when it is not there.

    At most ``pages`` pages are read. With ``complete``, running out of them raises
    ``Unreadable`` instead of answering "not there"; so does a read Slack refuses or that
    does not reach it.
    """
    cursor = None
    for _page in range(pages):
        try:
            response = _read(client, channel, thread_ts, oldest=oldest, cursor=cursor)
        except (SlackApiError, OSError) as error:
            raise Unreadable(str(error)) from None
        for message in response.get("messages", []):
            if matches(message):
                return message
        cursor = (response.get("response_metadata") or {}).get("next_cursor")
        if not cursor:
            return None
    if complete:
        raise Unreadable(f"more than {pages} pages of messages since {oldest}")
    return None


def _read(client: WebClient, channel: str, thread_ts: str | None, **page: str | None) -> Any:
    if thread_ts is None:
        return client.conversations_history(
            channel=channel, include_all_metadata=True, limit=PAGE_SIZE, **page
        )
    return client.conversations_replies(
        channel=channel, ts=thread_ts, include_all_metadata=True, limit=PAGE_SIZE, **page
    )


def posted_by(user_id: str | None, after_ts: str) -> Callable[[Message], bool]:
    """Matches a message ``user_id`` posted after ``after_ts`` (a reply to that message)."""
    return lambda message: message.get("user") == user_id and float(message["ts"]) > float(after_ts)


def tagged(metadata: Message) -> Callable[[Message], bool]:
    """Matches a message posted with exactly this message metadata (``event_type`` and
    ``event_payload``, as Slack returns it with ``include_all_metadata``)."""
    return lambda message: message.get("metadata") == metadata
