"""Time as a dependency, so schedules and "today" can be tested without sleeping."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]
"""Returns the current instant as an aware UTC datetime."""


def system_clock() -> datetime:
    return datetime.now(UTC)
