"""The bot's durable state, and the only package that talks to the database.

Everything that must survive a restart or be shared by several bot processes lives here,
one module per kind of state: Slack event ids already handled (``events``), remembered
searches for buttons and threads (``searches``), reading lists (``reading_lists``), rendered
link unfurls (``unfurls``), the digest's subscriptions (``subscriptions``) and its daily
claims and rotation (``claims``), each a ``part.Part`` over one shared database. ``tables``
is the schema, ``migrations`` upgrades it, ``expiry`` forgets what no request needs,
``database`` is the engine plumbing, ``records`` the plain values handed out, and
``facade.Store`` (every part at once) is the one object callers hold. Callers import from
here.
"""

from bot.store.database import StoreError
from bot.store.expiry import QUERY_RETENTION
from bot.store.facade import Store
from bot.store.migrations import SCHEMA_VERSION
from bot.store.records import (
    CLAIMED,
    POSTED,
    POSTING,
    RELATED,
    SEARCH,
    ClaimAttempt,
    DigestClaim,
    Remembered,
    SubscriptionRecord,
    ThreadSearch,
)
from bot.store.unfurls import UNFURL_RETENTION

__all__ = [
    "CLAIMED",
    "POSTED",
    "POSTING",
    "QUERY_RETENTION",
    "RELATED",
    "SCHEMA_VERSION",
    "SEARCH",
    "UNFURL_RETENTION",
    "ClaimAttempt",
    "DigestClaim",
    "Remembered",
    "Store",
    "StoreError",
    "SubscriptionRecord",
    "ThreadSearch",
]
