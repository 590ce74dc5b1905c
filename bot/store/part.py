"""What every part of the store is built on, so the parts can be composed into one ``Store``
(or used alone) without each keeping its own connection or clock."""

from __future__ import annotations

from bot.store.database import Database
from bot.store.expiry import Expiry


class Part:
    """A kind of state kept in the shared database; the busiest writes prune on the way."""

    def __init__(self, database: Database, expiry: Expiry) -> None:
        self._database = database
        self._expiry = expiry
