"""Who sent a request, and the workspace it belongs to, from whichever shape Slack gave it."""

from __future__ import annotations

from typing import Any

from slack_bolt.request.internals import extract_enterprise_id, extract_is_enterprise_install

from bot.answers import Viewer


def workspace_of(body: dict[str, Any]) -> str | None:
    """The workspace the request's rows are kept under: its team id, or, for an app installed
    org-wide on an Enterprise Grid organisation, the organisation's enterprise id, which is
    how that one installation is keyed (``bot.store.installations``)."""
    if extract_is_enterprise_install(body):
        return extract_enterprise_id(body)
    user = body.get("user")
    if isinstance(user, dict):
        return (body.get("team") or {}).get("id") or user.get("team_id")
    return body.get("team_id")


def viewer_of(body: dict[str, Any]) -> Viewer:
    """The person behind a command (flat fields), an interaction (``user``/``team`` objects)
    or an event (``event.user``, the envelope's ``team_id``)."""
    user = body.get("user")
    if isinstance(user, dict):
        return Viewer(workspace_of(body) or "", user["id"])
    if "user_id" in body:
        return Viewer(workspace_of(body) or "", body["user_id"])
    event = body.get("event") or {}
    return Viewer(workspace_of(body) or "", event.get("user") or "")
