"""Who sent a request, from whichever shape Slack gave it."""

from __future__ import annotations

from typing import Any

from bot.answers import Viewer


def viewer_of(body: dict[str, Any]) -> Viewer:
    """The person behind a command (flat fields), an interaction (``user``/``team`` objects)
    or an event (``event.user``, the envelope's ``team_id``)."""
    user = body.get("user")
    if isinstance(user, dict):
        team = (body.get("team") or {}).get("id") or user.get("team_id") or ""
        return Viewer(team, user["id"])
    if "user_id" in body:
        return Viewer(body.get("team_id") or "", body["user_id"])
    event = body.get("event") or {}
    return Viewer(body.get("team_id") or "", event.get("user") or "")
