"""End to end: a served bot listens before its index is built. It answers the platform's
probes at once, says it is not ready yet, turns Slack requests away with the busy notice
(never a timeout), and answers them as soon as its index is in."""

from __future__ import annotations

import json

import pytest
from slack_harness import LiveBot

from bot.render import papers as render
from bot.shell.fake_slack import RESPONSE_URL

MOG_TITLE = "Graph Sparsification via Mixture of Graphs"


@pytest.fixture
def starting_bot(seed_corpus, tmp_path):
    live = LiveBot(seed_corpus, tmp_path, deferred=True)
    yield live
    live.close()


def test_probes_and_paper_before_and_after_the_index_is_built(starting_bot):
    bot = starting_bot
    alive = bot.get("/healthz")
    assert (alive.status, json.loads(alive.body)) == (
        200,
        {"status": "ok", "database": "ok", "index": "building"},
    )
    unready = bot.get("/readyz")
    assert (unready.status, json.loads(unready.body)) == (
        503,
        {"status": "unready", "database": "ok", "index": "building"},
    )

    early = bot.slash("graph sparsification")
    assert early.status == 200
    assert json.loads(early.body)["text"] == render.busy_message().text

    bot.load_index()  # the background build finishing
    ready = bot.get("/readyz")
    assert (ready.status, json.loads(ready.body)) == (
        200,
        {"status": "ok", "database": "ok", "index": "ok"},
    )
    assert bot.slash("graph sparsification").status == 200
    [answer] = bot.recorder.wait_for(RESPONSE_URL, 1)
    assert MOG_TITLE in answer.text + json.dumps(answer.blocks)


def test_a_mention_before_the_index_hears_the_busy_notice_in_its_thread(starting_bot):
    bot = starting_bot
    reply, event = bot.mention("graph sparsification")
    assert reply.status == 200
    [said] = bot.recorder.wait_for("chat.postMessage", 1)
    assert said.text == render.busy_message().text
    assert said.args["thread_ts"] == event["ts"]
