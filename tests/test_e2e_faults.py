"""End to end, with Slack misbehaving: slow, rate-limited, failing, or the bot overloaded.

Each test says what a person would see: an ack that never waits for Slack, and one answer,
never an error message next to a real answer.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

import pytest
from faulty_slack import Fault, FaultySlackRecorder, rate_limited, server_error
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_harness import LiveBot, Reply, all_text
from test_socket_mode import FakeSocketModeServer

from bot.settings import Settings
from bot.shell.fake_slack import RESPONSE_URL
from bot.slack import payloads as payloads
from bot.slack import respond as respond_module
from bot.slack.client import make_web_client
from bot.slack.work import WorkPool
from bot.wiring.root import build_app, build_services

MOG_TITLE = "Graph Sparsification via Mixture of Graphs"
BURST = 40
ACK_WAIT_SECONDS = 10.0
"""How long the test waits for an ack before failing: a bound, never a measure of speed (an
ack that waited for its reply, held by the fake Slack, would never come)."""


def _queries() -> list[str]:
    return [f"graph {word}" for word in ("sparsification", "neural", "learning", "mixture")] * (
        BURST // 4
    )


def test_forty_commands_are_acked_while_response_url_answers_none_over_http(seed_corpus, tmp_path):
    """Forty people type /paper at once while Slack's response_url answers none of the
    replies: every request is acked all the same (more than the 32 workers could hold if acks
    waited for one), and each gets exactly one reply once Slack answers."""
    bot = LiveBot(seed_corpus, tmp_path, app_listener_pool=True)
    try:
        queries = _queries()
        urls = [bot.recorder.response_url(f"burst-{n}") for n in range(BURST)]

        def send(n: int) -> Reply:
            fields = payloads.slash_command(bot.workspace, queries[n], urls[n])
            return bot.signed_post(*payloads.form_body(fields))

        with bot.recorder.holding(RESPONSE_URL), ThreadPoolExecutor(max_workers=BURST) as pool:
            replies = list(pool.map(send, range(BURST)))
            assert not bot.recorder.calls_to(RESPONSE_URL)
        assert [reply.status for reply in replies] == [200] * BURST
        answered = bot.recorder.wait_for(RESPONSE_URL, BURST, timeout=30)
        assert sorted(call.response_id for call in answered) == sorted(
            f"burst-{n}" for n in range(BURST)
        )
        assert len(bot.recorder.calls_to(RESPONSE_URL)) == BURST
    finally:
        bot.close()


def test_forty_commands_are_acked_while_response_url_answers_none_in_socket_mode(
    seed_corpus, tmp_path
):
    server = FakeSocketModeServer()
    recorder = FaultySlackRecorder().start()
    recorder.socket_mode_url = server.url
    settings = Settings(
        slack_bot_token="xoxb-burst",
        slack_app_token="xapp-1-burst",
        slack_api_url=recorder.base_url,
        database_url=f"sqlite:///{tmp_path / 'paperbot.db'}",
        scheduler_enabled=False,
    )
    client = make_web_client(settings.slack_bot_token, recorder.base_url)
    services = build_services(settings, client, corpus=seed_corpus)
    app = build_app(settings, services.answers, client)
    handler = SocketModeHandler(app, settings.slack_app_token, web_client=client)
    handler.connect()
    try:
        workspace = payloads.Workspace()
        with recorder.holding(RESPONSE_URL):
            envelopes = [
                server.send(
                    "slash_commands",
                    payloads.slash_command(workspace, query, recorder.response_url(f"s{n}")),
                )
                for n, query in enumerate(_queries())
            ]
            waiting = set(envelopes)
            while waiting:
                ack = server.received.get(timeout=ACK_WAIT_SECONDS)
                waiting.discard(ack.get("envelope_id"))
            assert not recorder.calls_to(RESPONSE_URL)
        answered = recorder.wait_for(RESPONSE_URL, BURST, timeout=30)
        assert sorted(call.response_id for call in answered) == sorted(
            f"s{n}" for n in range(BURST)
        )
    finally:
        server.close()  # first, so the client stops at once (see test_socket_mode's fixture)
        handler.close()
        recorder.stop()
        services.close()


def test_an_overloaded_bot_says_so_in_the_ack(seed_corpus, tmp_path):
    pool = WorkPool(1, first_guess=60.0, clock=lambda: 0.0)
    bot = LiveBot(seed_corpus, tmp_path, listener_executor=pool)
    try:
        bot.recorder.slow_down(RESPONSE_URL, 1.0)
        first = bot.slash("graph sparsification")
        second = bot.slash("diffusion")
        assert (first.status, first.body) == (200, "")
        assert second.status == 200
        assert "too many requests at once" in second.body
        [answer] = bot.recorder.wait_for(RESPONSE_URL)
        assert MOG_TITLE in all_text(answer.blocks)
        pool.shutdown(wait=True)
        assert len(bot.recorder.calls_to(RESPONSE_URL)) == 1
    finally:
        bot.close()


@pytest.fixture
def waits(monkeypatch) -> list[float]:
    """The waits between response_url attempts, recorded instead of slept."""
    recorded: list[float] = []
    monkeypatch.setattr(respond_module, "sleep", recorded.append)
    return recorded


def test_response_url_429_and_5xx_are_retried_honouring_retry_after(bot, waits):
    bot.recorder.fail_next(RESPONSE_URL, rate_limited(retry_after=7), server_error(503))
    bot.slash("graph sparsification")
    calls = bot.recorder.wait_for(RESPONSE_URL, 3)
    bot.drain()
    assert [call.status for call in calls] == [429, 503, 200]
    assert MOG_TITLE in all_text(calls[2].blocks)
    assert waits == [7.0, respond_module.BACKOFF[1]]
    assert bot.recorder.calls_to("chat.postEphemeral") == []


def test_a_retry_after_shorter_than_the_backoff_is_the_wait(bot, waits):
    bot.recorder.fail_next(RESPONSE_URL, rate_limited(retry_after=0))
    bot.slash("graph sparsification")
    bot.recorder.wait_for(RESPONSE_URL, 2)
    bot.drain()
    assert waits == [0.0]


def test_a_response_url_that_keeps_failing_falls_back_to_an_ephemeral(bot, waits, caplog):
    bot.recorder.fail_next(RESPONSE_URL, *[server_error(502)] * 4)
    with caplog.at_level(logging.WARNING):
        bot.slash("graph sparsification")
        bot.drain()
    assert len(bot.recorder.calls_to(RESPONSE_URL)) == 4
    assert waits == list(respond_module.BACKOFF)
    [fallback] = bot.recorder.calls_to("chat.postEphemeral")
    assert fallback.args["channel"] == bot.workspace.channel_id
    assert fallback.args["user"] == bot.workspace.user_id
    assert MOG_TITLE in all_text(fallback.blocks)
    assert any("reply was not delivered" in record.message for record in caplog.records)


def test_an_expired_response_url_is_not_retried_and_falls_back(bot, waits, caplog):
    bot.recorder.fail_next(RESPONSE_URL, Fault(404, {"ok": False, "error": "expired_url"}))
    with caplog.at_level(logging.WARNING):
        bot.slash("graph sparsification")
        bot.drain()
    assert waits == []
    [fallback] = bot.recorder.calls_to("chat.postEphemeral")
    assert MOG_TITLE in all_text(fallback.blocks)
    assert any("HTTP 404" in record.message for record in caplog.records)


def test_a_post_that_times_out_but_lands_gets_no_apology(bot):
    """Slack posts the answer but answers too late: the bot looks in the thread, finds its
    answer there, and does not apologise next to it."""
    bot.app.client.timeout = 1
    bot.recorder.slow_down("chat.postMessage", 2.0)
    bot.mention("graph sparsification")
    bot.drain()
    posts = bot.recorder.calls_to("chat.postMessage")
    assert len(posts) == 1
    assert MOG_TITLE in all_text(posts[0].blocks)
    assert not any(
        "went wrong" in message["text"]
        for message in bot.recorder.messages(bot.workspace.channel_id)
    )
    assert bot.recorder.calls_to("conversations.replies")
