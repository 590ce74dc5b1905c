"""End to end with the listener pool overloaded: what each kind of request gets, over HTTP,
and the same admission over Socket Mode.

The pool's clock stands still and its measured work time is set, so the verdicts do not
depend on how fast this machine is; the slow work waits on an event the test releases.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from slack_harness import LiveBot, Reply, all_text
from test_socket_mode import socket_mode_bot

from bot.render import papers as render
from bot.shell.fake_slack import RESPONSE_URL
from bot.slack import payloads as payloads
from bot.slack.work import WorkPool
from handlers.commands import COMMAND

MOG_ID = "7ANDviElAo"
MOG_TITLE = "Graph Sparsification via Mixture of Graphs"
BUSY = "too many requests at once"


def acked(reply: Reply, body: str = "") -> None:
    assert (reply.status, reply.body) == (200, body)


class Held:
    """Makes one method of ``answers`` wait until ``release``; counts the calls that began."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, answers: Any, name: str) -> None:
        self._released = threading.Event()
        self._began = threading.Semaphore(0)
        answer: Callable[..., Any] = getattr(answers, name)

        def held(*args: Any, **kwargs: Any) -> Any:
            self._began.release()
            self._released.wait(10)
            return answer(*args, **kwargs)

        monkeypatch.setattr(answers, name, held)

    def wait_until_running(self, count: int) -> None:
        for _ in range(count):
            assert self._began.acquire(timeout=5)

    def release(self) -> None:
        self._released.set()


@pytest.fixture
def overloaded(seed_corpus, tmp_path) -> Iterator[Callable[[int, float], tuple[LiveBot, Any]]]:
    """A bot on a pool of ``workers`` whose work was measured at ``seconds`` each, and that
    pool; the first search's results are on the recorder."""
    bots: list[LiveBot] = []

    def start(workers: int, seconds: float) -> tuple[LiveBot, Any]:
        pool = WorkPool(workers, first_guess=seconds, clock=lambda: 0.0)
        bot = LiveBot(seed_corpus, tmp_path, listener_executor=pool)
        bots.append(bot)
        acked(bot.slash("graph"))
        bot.recorder.wait_for(RESPONSE_URL)
        assert pool.wait_idle(5)
        pool._lanes.work_times.clear()  # the search took no time on the frozen clock: forget it
        return bot, pool

    yield start
    for bot in bots:
        bot.close()


def test_clicks_that_fill_the_pool_leave_room_for_a_search(overloaded, monkeypatch):
    """Two workers, 4 s of work each: two clicks run, four queue (their answers expected in
    4, 6, 8 and 10 s), the seventh would wait 12 s and is told so; a search then has one
    click ahead of it, not four (6 s), and is answered."""
    bot, pool = overloaded(2, 4.0)
    [results] = bot.recorder.calls_to(RESPONSE_URL)
    held = Held(monkeypatch, bot.services.answers, "page")
    try:
        for _ in range(2):
            acked(bot.click(results.blocks, render.ACTION_NEXT_PAGE))
        held.wait_until_running(2)
        for _ in range(5):
            acked(bot.click(results.blocks, render.ACTION_NEXT_PAGE))
        acked(bot.slash("graph sparsification"))
    finally:
        held.release()
    assert pool.wait_idle(10)
    answers = bot.recorder.calls_to(RESPONSE_URL)[1:]
    [busy] = [call for call in answers if BUSY in call.text]
    assert (busy.args["response_type"], busy.args["replace_original"]) == ("ephemeral", False)
    pages = [call for call in answers if "(6\u201310 of" in all_text(call.blocks)]
    assert len(pages) == 6
    [search] = [call for call in answers if "graph sparsification" in all_text(call.blocks)]
    assert MOG_TITLE in all_text(search.blocks)


def test_every_kind_is_turned_away_when_its_answer_would_come_too_late(overloaded, monkeypatch):
    """One worker held by a search, 60 s of work each: whatever comes next is turned away,
    each kind with what Slack lets it say, and none of their listeners runs."""
    bot, pool = overloaded(1, 60.0)
    [results] = bot.recorder.calls_to(RESPONSE_URL)
    bot.recorder.clear()
    held = Held(monkeypatch, bot.services.answers, "command")
    workspace = bot.workspace
    try:
        acked(bot.slash("diffusion"))
        held.wait_until_running(1)
        refused = bot.slash("graph sparsification")
        assert refused.status == 200 and BUSY in refused.body
        acked(bot.click(results.blocks, render.ACTION_NEXT_PAGE))
        mentioned, mention = bot.mention("graph sparsification")
        acked(mentioned)
        direct = payloads.direct_message(workspace, "graph", "1700000100.000200")
        acked(bot.event(direct))
        question = bot.recorder.add_message(workspace.channel_id, "sparsifiers for GNNs?")
        acked(bot.shortcut(question))
        acked(bot.link([f"https://openreview.net/forum?id={MOG_ID}"])[0])
        acked(bot.open_home())
    finally:
        held.release()
    assert pool.wait_idle(10)
    # the click and the shortcut: the busy sentence, privately, through their response_urls
    answered, *notes = bot.recorder.calls_to(RESPONSE_URL)
    assert "diffusion" in all_text(answered.blocks)
    assert [note.text for note in notes] == [render.busy_message().text] * 2
    assert all(note.args["response_type"] == "ephemeral" for note in notes)
    # the mention in its thread, the direct message in the conversation
    in_thread, in_dm = bot.recorder.calls_to("chat.postMessage")
    assert (in_thread.args["channel"], in_thread.args["thread_ts"]) == (
        workspace.channel_id,
        mention["ts"],
    )
    assert in_dm.args["channel"] == workspace.dm_channel_id and not in_dm.args.get("thread_ts")
    assert in_thread.text == in_dm.text == render.busy_message().text
    # a link preview and the App Home: nothing at all
    assert bot.recorder.calls_to("chat.unfurl", "views.publish") == []


def test_a_mention_in_a_direct_message_turned_away_twice_gets_one_busy_notice(
    overloaded, monkeypatch
):
    """A mention in the bot's DM arrives as ``message.im`` and ``app_mention``: both are
    turned away, and the person is told once."""
    bot, pool = overloaded(1, 60.0)
    bot.recorder.clear()
    held = Held(monkeypatch, bot.services.answers, "command")
    text = f"<@{bot.workspace.bot_user_id}> graph sparsification"
    as_dm = payloads.direct_message(bot.workspace, text, "1700000100.000900")
    as_mention = dict(as_dm, type="app_mention")
    del as_mention["channel_type"]
    try:
        acked(bot.slash("diffusion"))
        held.wait_until_running(1)
        acked(bot.event(as_dm))
        acked(bot.event(as_mention))
    finally:
        held.release()
    assert pool.wait_idle(10)
    [notice] = bot.recorder.calls_to("chat.postMessage")
    assert notice.text == render.busy_message().text


def test_socket_mode_turns_a_search_away_in_its_ack_as_http_does(seed_corpus, tmp_path):
    """The Procfile's worker takes the same pool and admission: with its one worker held and
    60 s of work per search, a ``/paper`` over Socket Mode is told it is busy in the envelope's
    ack and its search never runs; once the worker is free, the next one is answered."""
    release = threading.Event()
    pool = WorkPool(1, first_guess=60.0, clock=lambda: 0.0)
    workspace = payloads.Workspace()
    with socket_mode_bot(seed_corpus, tmp_path, listener_executor=pool) as (server, recorder):
        try:
            assert pool.admit(COMMAND)
            pool.submit(release.wait, 10)
            command = payloads.slash_command(workspace, "diffusion", recorder.response_url())
            refused = server.ack_for(server.send("slash_commands", command))
        finally:
            release.set()
        assert pool.wait_idle(10)
        assert refused["payload"]["text"] == render.busy_message().text
        assert recorder.calls_to(RESPONSE_URL) == []
        command = payloads.slash_command(workspace, "graph sparsification", recorder.response_url())
        taken = server.ack_for(server.send("slash_commands", command))
        [answer] = recorder.wait_for(RESPONSE_URL)
    assert "text" not in taken.get("payload", {})
    assert MOG_TITLE in all_text(answer.blocks)
