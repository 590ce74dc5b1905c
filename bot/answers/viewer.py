"""Who asked or clicked."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Viewer:
    """Who asked or clicked: reading lists belong to a person in a workspace (user ids are
    unique only within one)."""

    team_id: str
    user_id: str
