"""Slack listeners: thin adapters from Bolt requests to the core in ``bot``.

Each listener acks first (Slack allows 3 seconds), then parses, asks ``bot.answers`` and
sends what it returns. No ranking, no SQL and no Block Kit literals live here.
"""

from __future__ import annotations

import logging

from slack_bolt import App

from bot.answers import Answers
from handlers import actions, commands, events


def register_all(app: App, answers: Answers) -> None:
    commands.register(app, answers)
    events.register(app, answers)
    actions.register(app, answers)

    @app.error
    def log_unhandled(error: Exception, logger: logging.Logger) -> None:
        """Last resort for failures outside a listener's own guard: log, never crash."""
        logger.error("unhandled error for a Slack request", exc_info=error)
