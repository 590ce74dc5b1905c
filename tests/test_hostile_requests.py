"""Requests an attacker (or a broken proxy) would send: huge, undecodable, unsigned, random.

Whatever arrives, the bot answers 4xx or acks, never 500; a request body never reaches the
log; and nothing the bot posts carries a mention or link it did not write itself.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import socket
import time
import urllib.request
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from slack_harness import SIGNING_SECRET, LiveBot, Reply, all_text

from bot.render import home as render_home
from bot.render import papers as render
from bot.shell.fake_slack import RESPONSE_URL
from bot.slack import payloads as payloads
from bot.slack.shapes import misshapen

MARKER = "hostile-marker-7f3a"
PAPER_ID = "7ANDviElAo"


def _raw_post(bot: LiveBot, body: bytes, headers: dict[str, str]) -> Reply:
    request = urllib.request.Request(
        bot.url + "/slack/events", data=body, headers=headers, method="POST"
    )
    return bot._send(request)


def _signed_raw(body: bytes, content_type: str, timestamp: str | None = None) -> dict[str, str]:
    timestamp = timestamp or str(int(time.time()))
    base = b"v0:" + timestamp.encode() + b":" + body
    signature = "v0=" + hmac.new(SIGNING_SECRET.encode(), base, hashlib.sha256).hexdigest()
    return {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": timestamp,
        "X-Slack-Signature": signature,
    }


def test_a_body_over_the_cap_is_refused_unread(bot, caplog):
    """A client announcing a body over the cap gets 413 as soon as the headers arrive."""
    host, port = bot.url.removeprefix("http://").split(":")
    with caplog.at_level(logging.DEBUG), socket.create_connection((host, int(port))) as client:
        client.sendall(
            b"POST /slack/events HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n"
            + f"Content-Length: {200 << 20}\r\n\r\n".encode()
            + b"text=xxxxxxxx"
        )
        status_line = client.makefile("rb").readline()
    assert status_line.split()[1] == b"413"
    assert not any("xxxxxxxx" in record.getMessage() for record in caplog.records)


def test_an_unsigned_request_is_refused_and_its_body_never_logged(bot, caplog):
    body = urlencode({"command": "/paper", "text": MARKER})
    headers = payloads.signed_headers("not-the-secret", body, payloads.FORM)
    with caplog.at_level(logging.DEBUG):
        reply = bot.post(body, headers)
    assert reply.status == 401
    assert any("signature" in record.getMessage() for record in caplog.records)
    assert not any(MARKER in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize(
    ("body", "content_type", "timestamp", "reason"),
    [
        (b"command=%2Fpaper&text=\xff", payloads.FORM, None, "not UTF-8"),
        (b"command=%2Fpaper&text=%FF", payloads.FORM, None, "not UTF-8"),
        (b"command=%2Fpaper&text=graph", payloads.FORM, "soon", "timestamp is not a number"),
        (b"payload=not-json", payloads.FORM, None, "payload field is not a JSON object"),
        (b"payload=%5B1%2C2%5D", payloads.FORM, None, "payload field is not a JSON object"),
        (b"{not json", payloads.JSON, None, "JSON body is not a JSON object"),
        (b"[1, 2]", payloads.JSON, None, "JSON body is not a JSON object"),
        (b'{"type": "event_callback", "event": 7}', payloads.JSON, None, "event is not an"),
        (
            b"payload=%7B%22type%22%3A%22block_actions%22%2C%22actions%22%3A%5Bnull%5D%7D",
            payloads.FORM,
            None,
            "actions[0] is not an object",
        ),
        (
            b"payload=%7B%22type%22%3A+%22block_actions%22%2C+%22view%22%3A+null%7D",
            payloads.FORM,
            None,
            "view is not an object",
        ),
        (
            b"payload=%7B%22type%22%3A%22block_actions%22%2C%22actions%22%3A%5B%5D%7D",
            payloads.FORM,
            None,
            "actions is an empty list",
        ),
        (
            b"payload=%7B%22type%22%3A%22block_actions%22%2C%22user%22%3A0%7D",
            payloads.FORM,
            None,
            "user is not null or text or an object",
        ),
        (
            b'{"type": "event_callback", "event": {"type": "app_mention", "channel": 0}}',
            payloads.JSON,
            None,
            "event.channel is not text",
        ),
    ],
)
def test_an_undecodable_body_is_a_400_and_one_log_line(
    bot, caplog, body, content_type, timestamp, reason
):
    headers = _signed_raw(body, content_type, timestamp)
    with caplog.at_level(logging.INFO):
        reply = _raw_post(bot, body, headers)
        bot.drain()
    assert reply.status == 400
    # Waitress's own "Task queue depth" warning comes with a busy machine, not with the body.
    records = [record for record in caplog.records if not record.name.startswith("waitress")]
    assert len(records) == 1, [record.getMessage() for record in records]
    [record] = records
    assert reason in record.getMessage() and record.exc_info is None
    assert bot.recorder.calls_to(RESPONSE_URL, "chat.postMessage") == []


# --- random signed payloads ----------------------------------------------------------------

_HOSTILE_PIECES = (
    "<!channel>",
    "<!here>",
    "<!everyone>",
    "<@UEVIL0001>",
    "<#CEVIL0001>",
    "<!subteam^SEVIL>",
    "<https://evil.example/x|click>",
    "<mailto:evil@example.com>",
    "&lt;!channel&gt;",
    "*bold*",
    "`code`",
    "\u202e",
    "\x00",
    "graph",
    "sparsification",
    "author:",
    "like:",
    '"',
    "-",
    "more",
    "subscribe",
    "today",
    "random",
    "help",
)
_FORBIDDEN = re.compile(r"<(?:!|@UEVIL|#CEVIL|https://evil|mailto:evil)")
"""What must never appear in anything posted: a broadcast, a mention or a link the bot did
not write (Slack would turn each into a live ping or link)."""

_ACTION_IDS = (
    render.ACTION_ABSTRACT,
    render.ACTION_MORE_LIKE_THIS,
    render.ACTION_SHARE,
    render.ACTION_SAVE,
    render.ACTION_UNSAVE,
    render.ACTION_POST_RELATED,
    render_home.ACTION_ABSTRACT,
    render_home.ACTION_REMOVE,
    render_home.ACTION_PAGE,
    *render.PAGE_ACTIONS,
    "unknown_action",
)

hostile_text = st.lists(
    st.one_of(st.sampled_from(_HOSTILE_PIECES), st.text(max_size=12)), max_size=6
).map(" ".join)
ids = st.one_of(st.sampled_from(("C0RESEARCH", "D0ASKER", "")), st.text(max_size=10))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | hostile_text,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


@pytest.fixture(scope="module")
def module_bot(seed_corpus, tmp_path_factory) -> Iterator[LiveBot]:
    live = LiveBot(seed_corpus, tmp_path_factory.mktemp("hostile"))
    yield live
    live.close()


def _command(bot: LiveBot, text: str, channel: str) -> tuple[str, str]:
    fields = payloads.slash_command(bot.workspace, text, bot.recorder.response_url())
    fields["channel_id"] = channel
    return payloads.form_body(fields)


def _mention(bot: LiveBot, text: str, channel: str, thread: bool) -> tuple[str, str]:
    ts = f"{1_700_000_000 + int(time.time() * 1000) % 10_000_000}.{time.time_ns() % 1_000_000:06d}"
    event = payloads.app_mention(
        bot.workspace,
        f"<@{bot.workspace.bot_user_id}> {text}",
        ts,
        thread_ts=ts if thread else None,
    )
    event["channel"] = channel
    return payloads.json_body(payloads.event_callback(bot.workspace, event))


def _click(bot: LiveBot, action_id: str, value: str, ephemeral: bool) -> tuple[str, str]:
    """A click on a button carrying ``value``, whatever the bot wrote there."""
    button = {
        "type": "button",
        "action_id": action_id,
        "text": {"type": "plain_text", "text": "x"},
        "value": value,
    }
    payload = payloads.block_actions(
        bot.workspace,
        button,
        "block",
        bot.recorder.response_url(),
        message_ts="1700000000.000001",
        is_ephemeral=ephemeral,
    )
    return payloads.interactive_body(payload)


def _shaped(bot: LiveBot, draw: st.DrawFn) -> tuple[bytes, str]:
    body, content_type = _drawn(bot, draw)
    return (body if isinstance(body, bytes) else body.encode()), content_type


def _drawn(bot: LiveBot, draw: st.DrawFn) -> tuple[bytes | str, str]:
    kinds = ("command", "mention", "click", "event", "interactive", "raw", "swapped")
    kind = draw(st.sampled_from(kinds))
    if kind == "raw":
        prefix = draw(st.sampled_from((b"command=%2Fpaper&text=", b"payload=", b"{", b"")))
        return prefix + draw(st.binary(max_size=40)), draw(
            st.sampled_from((payloads.FORM, payloads.JSON))
        )
    if kind == "command":
        return _command(bot, draw(hostile_text), draw(ids))
    if kind == "mention":
        return _mention(bot, draw(hostile_text), draw(ids), draw(st.booleans()))
    if kind == "click":
        value = draw(st.one_of(hostile_text, st.sampled_from(("q:5:abc", "p:0:x", "s:²:x"))))
        return _click(bot, draw(st.sampled_from(_ACTION_IDS)), value, draw(st.booleans()))
    if kind == "swapped":
        return _swapped(bot, draw)
    shape = draw(st.dictionaries(st.text(max_size=8), json_values, max_size=4))
    if kind == "event":
        envelope = payloads.event_callback(bot.workspace, {"type": "app_mention", **shape})
        return payloads.json_body(envelope)
    return payloads.interactive_body({"type": "block_actions", **shape})


_SWAPS = (None, 0, True, "", "x", [], [0], {}, [{}])
"""What a field of a real payload is swapped for: every JSON type, empty and not."""


def _real_payloads(bot: LiveBot) -> list[tuple[dict[str, Any], bool]]:
    """One payload of every shape Slack sends the bot, and whether it travels as JSON."""
    workspace = bot.workspace
    button = {
        "type": "button",
        "action_id": render.ACTION_SAVE,
        "text": {"type": "plain_text", "text": "x"},
        "value": PAPER_ID,
    }
    message = {"type": "message", "user": "U0OTHER", "text": "graphs", "ts": "1700000000.000001"}
    url = bot.recorder.response_url()
    ts = "1700000001.000001"
    events = (
        payloads.app_mention(workspace, "<@UPAPERBOT> graphs", ts, thread_ts=ts),
        payloads.direct_message(workspace, "graphs", ts),
        payloads.link_shared(workspace, [f"https://openreview.net/forum?id={PAPER_ID}"], ts),
        payloads.app_home_opened(workspace),
    )
    interactions = (
        payloads.block_actions(workspace, button, "b", url, message_ts=ts, is_ephemeral=False),
        payloads.view_block_actions(workspace, button, "b", {"type": "home", "blocks": []}),
        payloads.message_action(workspace, message, url),
    )
    return [
        *((payloads.event_callback(workspace, event), True) for event in events),
        *((interaction, False) for interaction in interactions),
        (payloads.url_verification("challenge"), True),
    ]


def _key_paths(node: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    children = node.items() if isinstance(node, dict) else enumerate(node)
    for key, child in children:
        yield (*path, key)
        if isinstance(child, dict | list):
            yield from _key_paths(child, (*path, key))


def _swapped(bot: LiveBot, draw: st.DrawFn) -> tuple[str, str]:
    """A real payload with one field, at any depth, of another JSON type."""
    payload, as_json = draw(st.sampled_from(_real_payloads(bot)))
    *parents, key = draw(st.sampled_from(list(_key_paths(payload))))
    node = payload
    for parent in parents:
        node = node[parent]
    node[key] = draw(st.sampled_from(_SWAPS))
    return payloads.json_body(payload) if as_json else payloads.interactive_body(payload)


@st.composite
def swapped_requests(draw: st.DrawFn, bot: LiveBot) -> tuple[str, str]:
    return _swapped(bot, draw)


@st.composite
def requests(draw: st.DrawFn, bot: LiveBot) -> tuple[bytes, str]:
    return _shaped(bot, draw)


def _posted_texts(bot: LiveBot) -> list[str]:
    texts = []
    for call in bot.recorder.calls:
        texts.append(call.text)
        texts.append(all_text(call.blocks))
        for key in ("view", "unfurls"):
            if call.args.get(key):
                texts.append(json.dumps(call.args[key]))
    return texts


def test_random_signed_payloads_never_500_and_never_post_a_foreign_mention_or_link(module_bot):
    bot = module_bot

    @settings(
        max_examples=120,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.data())
    def exchange(data: st.DataObject) -> None:
        body, content_type = data.draw(requests(bot))
        reply = _raw_post(bot, body, _signed_raw(body, content_type))
        assert reply.status < 500, (reply.status, body[:300])
        bot.drain()
        for text in _posted_texts(bot):
            assert not _FORBIDDEN.search(text), text

    exchange()


def test_real_payloads_with_a_field_of_another_type_are_never_a_500(module_bot):
    """Every field Bolt or a listener reads, swapped for another JSON type, is a 4xx (or
    acked, where nothing reads it as anything in particular)."""
    bot = module_bot

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def post(data: st.DataObject) -> None:
        body, content_type = data.draw(swapped_requests(bot))
        reply = bot.signed_post(body, content_type)
        assert reply.status < 500, (reply.status, body[:300])

    post()
    bot.drain()


def test_what_slack_really_sends_passes_the_gate(module_bot):
    """Org-wide installs send ``"team": null`` and ``"enterprise": null``; App Home clicks
    have no channel; none of it is refused."""
    for payload, _ in _real_payloads(module_bot):
        assert misshapen(payload) is None, payload
        assert misshapen({**payload, "team": None, "enterprise": None}) is None, payload
        assert misshapen({**payload, "enterprise": {"id": "E0ORG", "name": "org"}}) is None


@pytest.mark.parametrize("value", ["q:\u00b2:abcdef", "q:\u0663:abcdef", "p:\u00b9:7ANDviElAo"])
def test_forged_page_values_with_non_ascii_digits_are_ignored_not_apologised_for(bot, value):
    reply = bot.signed_post(*_click(bot, render.PAGE_ACTIONS[0], value, True))
    assert reply.status == 200
    bot.drain()
    [answer] = bot.recorder.calls_to(RESPONSE_URL)
    assert "went wrong" not in all_text(answer.blocks)
    assert "expired" in all_text(answer.blocks)


def test_a_save_whose_page_does_not_decode_still_saves(bot):
    reply = bot.signed_post(*_click(bot, render.ACTION_SAVE, f"{PAPER_ID} q:\u00b2:k", True))
    assert reply.status == 200
    bot.drain()
    [answer] = bot.recorder.calls_to(RESPONSE_URL)
    assert answer.args["replace_original"] is True
    assert "expired" in all_text(answer.blocks)
    team, user = bot.workspace.team_id, bot.workspace.user_id
    assert bot.services.store.saved_papers(team, user) == [PAPER_ID]


def test_an_abstract_whose_back_page_does_not_decode_still_shows_the_abstract(bot):
    reply = bot.signed_post(*_click(bot, render.ACTION_ABSTRACT, f"{PAPER_ID} garbage", True))
    assert reply.status == 200
    bot.drain()
    [answer] = bot.recorder.calls_to(RESPONSE_URL)
    paper = bot.services.answers.papers.get(PAPER_ID)
    assert paper is not None and paper.abstract[:40] in all_text(answer.blocks)
    assert "expired" not in all_text(answer.blocks)
