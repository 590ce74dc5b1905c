"""The shapes of a Slack payload that Bolt and the listeners take on trust.

Bolt reads ``body["actions"][0]``, ``"id" in body["user"]`` and the first authorization without
checking their types, and the listeners read ``event["channel"]`` as text and ``body["team"]``
as an object; a signed payload with ``"actions": []`` or ``"user": 0`` made Bolt answer 500
with a traceback. Each field either of them reads is named here with the JSON types it may
have, so the gate can answer 400 instead. The types admit what Slack really sends:
``"enterprise": null`` and ``"team": null`` (org-wide installs), interactions with no
``channel`` (App Home clicks), an ``event.user`` that is an object (``user_change``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

NULL = type(None)


@dataclass(frozen=True)
class Shape:
    """What a field may hold: one of ``types``; when it is an object, its own ``fields``
    (and those ``required``); when it is a list, objects shaped as ``items``."""

    types: tuple[type, ...]
    fields: Mapping[str, Shape] = field(default_factory=dict)
    required: frozenset[str] = frozenset()
    items: Shape | None = None
    non_empty: bool = False


TEXT = Shape((str,))
_IDENTIFIED = {"id": TEXT}

_AUTHORIZATION = Shape(
    (dict,), {"enterprise_id": Shape((str, NULL)), "team_id": Shape((str, NULL)), "user_id": TEXT}
)
_ACTION = Shape(
    (dict,), {"action_id": TEXT, "block_id": TEXT, "value": TEXT}, frozenset({"action_id"})
)
_EVENT = Shape(
    (dict,),
    {
        "type": TEXT,
        "user": Shape((str, dict), _IDENTIFIED),
        "channel": Shape((str, dict), _IDENTIFIED),
        "ts": TEXT,
        "thread_ts": TEXT,
        "text": TEXT,
        "subtype": TEXT,
        "channel_type": TEXT,
        "tab": TEXT,
        "source": TEXT,
        "unfurl_id": TEXT,
        "message_ts": TEXT,
        "app_id": TEXT,
        "links": Shape((list,)),
    },
)
_ANSWERED_EVENT_TEXT = frozenset({"user", "channel"})
"""Fields of the events the listeners answer (mentions, messages, links, the App Home) that
they read as text; other event types may carry objects there."""
ANSWERED_EVENTS = frozenset({"app_mention", "message", "link_shared", "app_home_opened"})

ENVELOPE: Mapping[str, Shape] = {
    "type": TEXT,
    "api_app_id": TEXT,
    "enterprise": Shape((NULL, str, dict), _IDENTIFIED),
    "team": Shape((NULL, dict), _IDENTIFIED),
    "user": Shape((NULL, str, dict), {"id": TEXT, "team_id": TEXT}, frozenset({"id"})),
    "channel": Shape((NULL, dict), _IDENTIFIED),
    "container": Shape((NULL, dict), {"channel_id": TEXT, "message_ts": TEXT}),
    "message": Shape((NULL, dict), {"ts": TEXT, "thread_ts": TEXT, "text": TEXT}),
    "authorizations": Shape((NULL, list), items=_AUTHORIZATION),
    "actions": Shape((list,), items=_ACTION, non_empty=True),
    "response_url": TEXT,
    "response_urls": Shape((list,), items=Shape((dict,), {"response_url": TEXT})),
    "view": Shape((dict,)),
    "event": _EVENT,
    "trigger_id": TEXT,
    "callback_id": TEXT,
    "message_ts": TEXT,
    "command": TEXT,
    "text": TEXT,
    "channel_id": TEXT,
    "user_id": TEXT,
    "team_id": TEXT,
}
"""Every field of a payload (slash command, event envelope or interaction) that is read."""

_TYPE_NAMES = {NULL: "null", str: "text", dict: "an object", list: "a list"}


def misshapen(body: Mapping[str, object]) -> str | None:
    """Which field of ``body`` is not what Bolt or a listener reads it as (a phrase for the
    log), or None when every one is."""
    problem = _fields_problem(body, ENVELOPE, frozenset(), "")
    if problem is not None:
        return problem
    event = body.get("event")
    if isinstance(event, dict) and event.get("type") in ANSWERED_EVENTS:
        for name in _ANSWERED_EVENT_TEXT & event.keys():
            if not isinstance(event[name], str):
                return f"the payload's event.{name} is not text"
    return None


def _fields_problem(
    value: Mapping[str, object], fields: Mapping[str, Shape], required: frozenset[str], path: str
) -> str | None:
    if missing := sorted(required - value.keys()):
        return f"the payload's {path}{missing[0]} is missing"
    for name, shape in fields.items():
        if name in value and (problem := _problem(value[name], shape, f"{path}{name}")):
            return problem
    return None


def _problem(value: object, shape: Shape, path: str) -> str | None:
    if not isinstance(value, shape.types):
        expected = " or ".join(_TYPE_NAMES[kind] for kind in shape.types)
        return f"the payload's {path} is not {expected}"
    if isinstance(value, dict):
        return _fields_problem(value, shape.fields, shape.required, f"{path}.")
    if isinstance(value, list):
        if shape.non_empty and not value:
            return f"the payload's {path} is an empty list"
        if shape.items is not None:
            for index, item in enumerate(value):
                if problem := _problem(item, shape.items, f"{path}[{index}]"):
                    return problem
    return None
