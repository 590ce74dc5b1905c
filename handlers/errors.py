"""How a listener fails: with a short answer to the person, and a traceback in the log.

Work happens after the ack, so an exception there can no longer become an HTTP error; it
must become a message. ``not_in_channel``/``channel_not_found`` are the one failure users can
fix themselves, so they get an explanation instead of an apology; a database that cannot be
used now is said to be so, without a traceback (it is the operator's known outage, not a bug).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

from slack_sdk.errors import SlackApiError

from bot.render import papers as render
from bot.render.message import Message
from bot.render.replies import database_unavailable_message
from bot.store import DatabaseUnavailable

CHANNEL_ERRORS = frozenset({"not_in_channel", "channel_not_found"})

Tell = Callable[[Message], object]


def _tell_safely(tell: Tell, message: Message, logger: logging.Logger) -> None:
    try:
        tell(message)
    except Exception:
        logger.exception("could not tell the user about a failure")


@contextmanager
def answering_failures(
    tell: Tell, logger: logging.Logger, *, channel_id: str | None = None
) -> Iterator[None]:
    """Run a listener's slow path; turn any exception into a message sent with ``tell``.

    ``channel_id`` is where the bot tried to post, which decides the advice it gives.
    """
    try:
        yield
    except SlackApiError as error:
        code = error.response.get("error") if error.response is not None else None
        if code in CHANNEL_ERRORS:
            logger.info("cannot post in the conversation: %s", code)
            _tell_safely(tell, render.not_in_channel_message(channel_id), logger)
        else:
            logger.exception("Slack API call failed: %s", code)
            _tell_safely(tell, render.apology_message(), logger)
    except DatabaseUnavailable as error:
        logger.warning("answered without the database: %s", error)
        _tell_safely(tell, database_unavailable_message(), logger)
    except Exception:
        logger.exception("failed to answer a Slack request")
        _tell_safely(tell, render.apology_message(), logger)


def log_unhandled(error: Exception, logger: logging.Logger) -> None:
    """Last resort for failures outside a listener's own guard: log, never crash."""
    logger.error("unhandled error for a Slack request", exc_info=error)


def logging_failures(logger: logging.Logger) -> AbstractContextManager[None]:
    """``answering_failures`` for work with nobody to answer (an unfurl, the App Home):
    failures are logged, never raised into Bolt."""
    return answering_failures(lambda _message: None, logger)
