"""What every part of the store is built on, so the parts can be composed into one ``Store``
(or used alone) without each keeping its own connection or clock."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Concatenate, ParamSpec, TypeVar

from bot.store.database import Database
from bot.store.expiry import Expiry

P = ParamSpec("P")
T = TypeVar("T")
SomePart = TypeVar("SomePart", bound="Part")


class Part:
    """A kind of state kept in the shared database; the busiest writes prune on the way."""

    def __init__(self, database: Database, expiry: Expiry) -> None:
        self._database = database
        self._expiry = expiry

    def _workspace(self, team_id: str | None) -> str | None:
        """The workspace of a new row: the one its request named, else the one this process
        serves (``Database.workspace``), else unknown."""
        return team_id if team_id is not None else self._database.workspace


def bounded(
    method: Callable[Concatenate[SomePart, P], T],
) -> Callable[Concatenate[SomePart, P], T]:
    """Mark what a person's request asks of the store: it waits for the database no longer
    than the deadline and raises ``DatabaseUnavailable`` when it cannot be used, so the
    request can answer without it (``Database.bounded``)."""
    return _within(method, digest=False)


def digest_bounded(
    method: Callable[Concatenate[SomePart, P], T],
) -> Callable[Concatenate[SomePart, P], T]:
    """Mark what the paper of the day asks of the store: as ``bounded``, with the digest's
    longer deadline (``database.DIGEST_DEADLINE_S``); its retry takes ``DatabaseUnavailable``."""
    return _within(method, digest=True)


def _within(
    method: Callable[Concatenate[SomePart, P], T], *, digest: bool
) -> Callable[Concatenate[SomePart, P], T]:
    @functools.wraps(method)
    def within_deadline(part: SomePart, /, *args: P.args, **kwargs: P.kwargs) -> T:
        database = part._database
        deadline = database.digest_deadline if digest else None
        return database.bounded(lambda: method(part, *args, **kwargs), deadline)

    return within_deadline
