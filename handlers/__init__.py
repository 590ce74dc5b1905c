"""Slack listeners: thin adapters from Bolt requests to the core in ``bot``.

One module per kind of request (``commands``, ``events``, ``actions``). Each listener is a
module-level function whose first parameter is the ``Answers`` it asks; each module's
``register`` binds it with ``functools.partial``, so a test can call a listener directly with
its own ``answers``. The binding is positional: Bolt injects arguments by the names of a
listener's positional parameters, and a keyword-bound partial would make them keyword-only.
Services never travel in Bolt's ``context``: Bolt copies the context for lazy listeners, and
``Answers`` cannot be copied.

Each listener acks first (Slack allows 3 seconds), then parses, asks ``bot.answers`` and
sends what it returns. No ranking, no SQL and no Block Kit literals live here.
"""

from __future__ import annotations

from slack_bolt import App

from bot.answers import Answers
from handlers import actions, commands, errors, events, shortcuts


def register_all(app: App, answers: Answers) -> None:
    commands.register(app, answers)
    events.register(app, answers)
    actions.register(app, answers)
    shortcuts.register(app, answers)
    app.error(errors.log_unhandled)
