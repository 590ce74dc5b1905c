"""The bot's durable state, and the only package that talks to the database.

Everything that must survive a restart or be shared by several bot processes lives here,
one module per kind of state: Slack event ids already handled (``events``), remembered
searches for buttons and threads (``searches``), reading lists (``reading_lists``), each
person's dismissals and "forget me" (``people``), a workspace's deletion on uninstall
(``workspaces``), rendered link unfurls (``unfurls``), the digest's subscriptions
(``subscriptions``) and its daily claims and rotation (``claims``), what channels do with
the bot's papers (``signals``: shares, reactions on its posts), each a ``part.Part``
over one shared database. ``tables`` is the schema, ``migrations`` upgrades it, ``expiry``
forgets what no request needs, ``database`` is the engine plumbing, ``records`` the plain
values handed out, and ``facade.Store`` (every part at once) is the one object callers
hold. Callers import it, and the values they name, from here.
"""

from bot.store.database import UNAVAILABLE, DatabaseUnavailable, first_line
from bot.store.facade import Store
from bot.store.records import (
    DAILY,
    NEW_PAPERS,
    POSTED,
    POSTING,
    RELATED,
    SEARCH,
    WEEKLY,
    DigestClaim,
    PaperEngagement,
    Place,
    Remembered,
    Shown,
    SubscriptionRecord,
)
from bot.store.signals import is_reaction_name

__all__ = [
    "DAILY",
    "NEW_PAPERS",
    "POSTED",
    "POSTING",
    "RELATED",
    "SEARCH",
    "UNAVAILABLE",
    "WEEKLY",
    "DatabaseUnavailable",
    "DigestClaim",
    "PaperEngagement",
    "Place",
    "Remembered",
    "Shown",
    "Store",
    "SubscriptionRecord",
    "first_line",
    "is_reaction_name",
]
