"""``Store``: the one object answers, the digest and the shell hold for durable state.

It is every part over one database: callers keep one handle and one vocabulary
(``store.save_paper``, ``store.claim_digest``) while each kind's SQL lives in a module of
its own. The parts are composed by inheritance rather than wrapped, so a method is written
once, in its part, and not repeated by a forwarding layer; their names never overlap.
"""

from __future__ import annotations

from bot.clock import Clock, system_clock
from bot.store.claims import DigestClaims
from bot.store.database import DEADLINE_S, DIGEST_DEADLINE_S, Database, unusable_database_refused
from bot.store.events import SlackEvents
from bot.store.expiry import Expiry
from bot.store.ingest_claims import IngestClaims
from bot.store.ingested import IngestedPapers
from bot.store.installations import Installations
from bot.store.migrations import migrate
from bot.store.people import People
from bot.store.reading_lists import ReadingLists
from bot.store.searches import StoredSearches
from bot.store.signals import ChannelSignals
from bot.store.subscriptions import SubscriptionRows
from bot.store.unfurls import Unfurls
from bot.store.workspaces import Workspaces


class Store(
    SlackEvents,
    StoredSearches,
    ReadingLists,
    People,
    Unfurls,
    SubscriptionRows,
    DigestClaims,
    Workspaces,
    ChannelSignals,
    Installations,
    IngestedPapers,
    IngestClaims,
):
    """Durable state for one bot process; safe to share a database with other processes."""

    def __init__(
        self,
        database_url: str,
        clock: Clock = system_clock,
        *,
        deadline: float = DEADLINE_S,
        digest_deadline: float = DIGEST_DEADLINE_S,
        workspace: str | None = None,
    ) -> None:
        """``deadline``: how long a request waits for the database (``DEADLINE_S``);
        ``digest_deadline``: how long the paper of the day's work does; ``workspace``: the
        one this process serves, when known (``Workspaces.serve_workspace``)."""
        with unusable_database_refused(database_url):
            database = Database(database_url, clock, deadline, digest_deadline)
            migrate(database)
            super().__init__(database, Expiry())
            if workspace is not None:
                self.serve_workspace(workspace)

    def reachable(self) -> bool:
        """Whether the database answers now, within the deadline (for readiness checks)."""
        return self._database.reachable()

    def answered_last(self) -> bool:
        """Whether the database answered the last request in time, known without waiting."""
        return self._database.answered_last

    def close(self) -> None:
        self._database.close()
