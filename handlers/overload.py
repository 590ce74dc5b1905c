"""The acks that ask the listener pool first, and what each kind says when it is turned away.

Every ack names its request's kind to ``admit`` (``bot.slack.work``), which decides by the
expected wait and queues the work in that kind's lane, so no kind starves another. A request
turned away never runs its listener; what the person sees instead depends on what Slack
lets the bot say at that point:

- ``/paper``: the ack itself says the bot is busy (``commands.acknowledge_command``);
- a click on a message, a message shortcut: the busy sentence, privately, through the
  request's ``response_url``; a click in the App Home has none, so nothing is said (and
  the tab stays as it was: clicking again later works);
- a mention or a direct message: the busy sentence in the thread (``events``), since an
  event's ack carries no text and Slack does not send an acked event again;
- a link preview and the App Home tab: nothing (Slack shows no preview; the tab keeps what
  it showed last).
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from slack_bolt import Ack, Respond

from bot.render import papers as render
from bot.slack.work import Admit
from handlers.errors import logging_failures

log = logging.getLogger(__name__)

CLICK = "click"
MENTION = "mention"
SHORTCUT = "shortcut"
PREVIEW = "preview"
HOME = "home tab"
REACTION = "reaction"


def acknowledge_click(admit: Admit, ack: Ack, body: dict[str, Any], respond: Respond) -> None:
    """A click on a message says "busy" privately; one in the App Home cannot."""
    admit(CLICK, partial(tell_busy, respond) if body.get("response_url") else None)
    ack()


def acknowledge_shortcut(admit: Admit, ack: Ack, respond: Respond) -> None:
    admit(SHORTCUT, partial(tell_busy, respond))
    ack()


def acknowledge_quietly(kind: str, admit: Admit, ack: Ack) -> None:
    """The ack of a kind with nobody to tell when it is turned away (previews, the tab)."""
    admit(kind, None)
    ack()


def tell_busy(respond: Respond) -> None:
    """The busy sentence, seen only by the person who asked, below what they clicked."""
    with logging_failures(log):
        busy = render.busy_message()
        respond(response_type="ephemeral", replace_original=False, **busy.as_kwargs())
