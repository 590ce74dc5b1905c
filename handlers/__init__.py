"""Slack listeners: thin adapters from Bolt requests to the core in ``bot``.

One module per kind of request (``commands``, ``events``, ``actions``, ``shortcuts``). The
composition root (``bot.wiring.root``) calls ``register_all`` on the app ``bot.slack`` built;
nothing below it imports this package. Each listener is a module-level function whose first
parameter is the ``Answers`` it asks; each module's ``register`` binds it with
``functools.partial``, so a test can call a listener directly with its own ``answers``. The
binding is positional: Bolt injects arguments by the names of a listener's positional
parameters, and a keyword-bound partial would make them keyword-only. Services never travel
in Bolt's ``context``: Bolt copies the context for lazy listeners, and ``Answers`` cannot be
copied.

Every listener is registered as an ack and a lazy listener: the ack runs on the request's own
thread and returns at once (Slack allows 3 seconds, and the app processes before responding,
so nothing else precedes it); the lazy listener parses, asks ``bot.answers`` and sends what
it returns, on the app's pool. Before it acks, each ack asks that pool whether its answer
could come in time (``admit``); when the bot is overloaded the request is turned away and
its listener never runs, and ``overload`` says what each kind of request tells its person
then. No ranking, no SQL and no Block Kit literals live here.
"""

from __future__ import annotations

from slack_bolt import App

from bot.answers import Answers
from bot.slack.work import Admit
from handlers import actions, commands, errors, events, shortcuts


def register_all(app: App, answers: Answers, admit: Admit) -> None:
    """``admit`` is how each ack asks the pool that runs the work to take it
    (``handlers.overload`` says what each kind answers when it is turned away)."""
    commands.register(app, answers, admit)
    events.register(app, answers, admit)
    actions.register(app, answers, admit)
    shortcuts.register(app, answers, admit)
    app.error(errors.log_unhandled)
