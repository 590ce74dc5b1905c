"""End to end, with Slack failing the calls an answer can do without: a rate limit worth less
than its wait, the App Home's channel lookups, a Find related papers lookup, a Share that
timed out but landed, and the three steps of the ``.bib`` upload.

Waits between attempts are recorded instead of slept (``retry_waits``).
"""

from __future__ import annotations

import pytest
from faulty_slack import Fault, rate_limited, server_error, slack_error
from slack_harness import LiveBot, all_text

from bot.render import home as render_home
from bot.render import papers as render
from bot.shell.fake_slack import FILE_UPLOAD, RESPONSE_URL
from bot.slack import conversations
from bot.slack.delivery import retry
from bot.store import SubscriptionRecord

MOG_ID = "7ANDviElAo"
MOG_TITLE = "Graph Sparsification via Mixture of Graphs"
BEFORE_THE_POST = "1700000000.000000"
"""A click's ``action_ts`` on the fake Slack's clock: before any message it stores."""
OK_WITHOUT_CHANNEL = Fault(200, {"ok": True})


def _answers(bot: LiveBot, count: int = 1) -> list:
    return bot.recorder.wait_for(RESPONSE_URL, count)


def _subscribe(bot: LiveBot, *channels: str) -> None:
    for channel in channels:
        bot.services.store.save_subscription(
            SubscriptionRecord(channel, "09:30", "Europe/Berlin", "weekdays", None, "command")
        )


def _home_text(bot: LiveBot, count: int = 1) -> str:
    return all_text(bot.recorder.wait_for("views.publish", count)[count - 1].args["view"]["blocks"])


# --- defect 5: a wait longer than the work is worth ------------------------------------------


def test_a_rate_limited_home_tab_gives_up_and_the_next_search_is_answered(bot, retry_waits):
    bot.recorder.fail_next("views.publish", rate_limited(retry_after=60))
    bot.open_home()
    bot.slash("graph sparsification")
    [answer] = _answers(bot)
    bot.drain()
    assert MOG_TITLE in all_text(answer.blocks)
    assert len(bot.recorder.calls_to("views.publish")) == 1
    assert retry_waits == []


def test_a_short_retry_after_is_still_waited_for_on_the_home_tab(bot, retry_waits):
    bot.recorder.fail_next("views.publish", rate_limited(retry_after=1))
    bot.open_home()
    bot.drain()
    assert [call.status for call in bot.recorder.calls_to("views.publish")] == [429, 200]
    assert retry_waits == [1.0]


# --- defect 6: the App Home asks only about what it shows ----------------------------------


def test_the_home_asks_about_the_channels_it_shows_and_one_more(bot):
    channels = [f"C{n:04d}" for n in range(120)]
    _subscribe(bot, *channels)
    bot.open_home()
    text = _home_text(bot)
    shown = [channel for channel in channels if f"<#{channel}>" in text]
    assert len(shown) == render_home.MAX_CHANNELS_SHOWN
    assert "…and more" in text
    assert len(bot.recorder.calls_to("conversations.info")) == render_home.MAX_CHANNELS_SHOWN + 1


def test_a_failed_lookup_is_not_remembered_as_unseen(bot, retry_waits):
    _subscribe(bot, "C0PUBLIC")
    bot.recorder.fail_next("conversations.info", rate_limited(retry_after=60))
    bot.open_home()
    assert "C0PUBLIC" not in _home_text(bot)
    bot.open_home()
    assert "<#C0PUBLIC>" in _home_text(bot, 2)


def test_hanging_lookups_are_given_up_in_time_and_asked_again_next_open(bot, monkeypatch):
    monkeypatch.setattr(conversations, "HOME_LOOKUP_TIMEOUT", 0.2)
    monkeypatch.setattr(conversations, "HOME_LOOKUPS_SECONDS", 0.5)
    channels = [f"C0HANG{n}" for n in range(4)]
    _subscribe(bot, *channels)
    bot.recorder.slow_down("conversations.info", 1.0)
    bot.open_home()
    assert not any(channel in _home_text(bot) for channel in channels)
    assert len(bot.recorder.calls_to("conversations.info")) < len(channels)
    bot.recorder.slow_down("conversations.info", 0.0)
    bot.open_home()
    assert all(f"<#{channel}>" in _home_text(bot, 2) for channel in channels)


# --- defect 8: an optional call that fails does not spoil the answer -----------------------


def test_a_lookup_that_times_out_leaves_the_rest_of_the_home(bot):
    _subscribe(bot, "C0SLOW")
    bot.services.store.save_paper(bot.workspace.team_id, bot.workspace.user_id, MOG_ID)
    bot.app.client.timeout = 1
    bot.recorder.slow_down("conversations.info", 2.0)
    bot.open_home()
    text = _home_text(bot)
    assert MOG_TITLE in text
    assert "C0SLOW" not in text


def test_a_lookup_answered_without_its_channel_is_unknown(bot):
    _subscribe(bot, "C0ODD")
    bot.recorder.fail_next("conversations.info", OK_WITHOUT_CHANNEL)
    bot.open_home()
    assert "C0ODD" not in _home_text(bot)
    bot.open_home()
    assert "<#C0ODD>" in _home_text(bot, 2)


def _find_related(bot: LiveBot) -> str:
    message = {"type": "message", "user": "U0ASKER", "text": "graph sparsification", "ts": "1.2"}
    bot.shortcut(message)
    [answer] = _answers(bot)
    text = all_text(answer.blocks)
    assert MOG_TITLE in text
    return str(answer.blocks)


def test_find_related_answers_without_post_in_thread_when_slack_omits_the_channel(bot):
    bot.recorder.fail_next("conversations.info", OK_WITHOUT_CHANNEL)
    assert render.ACTION_POST_RELATED not in _find_related(bot)


def test_find_related_answers_without_post_in_thread_when_the_lookup_times_out(bot):
    bot.app.client.timeout = 1
    bot.recorder.slow_down("conversations.info", 2.0)
    assert render.ACTION_POST_RELATED not in _find_related(bot)


def test_a_share_that_timed_out_but_landed_gets_no_apology(bot):
    bot.slash("graph sparsification")
    [results] = _answers(bot)
    bot.app.client.timeout = 1
    bot.recorder.slow_down("chat.postMessage", 2.0)
    bot.click(results.blocks, render.ACTION_SHARE, action_ts=BEFORE_THE_POST)
    bot.drain()
    [post] = bot.recorder.calls_to("chat.postMessage")
    assert MOG_TITLE in all_text(post.blocks)
    assert len(bot.recorder.calls_to(RESPONSE_URL)) == 1
    assert bot.recorder.calls_to("conversations.history")


def test_a_share_that_failed_is_not_mistaken_for_another_bot_post(bot, retry_waits):
    bot.slash("graph sparsification")
    [results] = _answers(bot)
    bot.app.client.chat_postMessage(channel=bot.workspace.channel_id, text="The paper of the day")
    bot.recorder.fail_next("chat.postMessage", *[server_error()] * 4)
    bot.click(results.blocks, render.ACTION_SHARE, action_ts=BEFORE_THE_POST)
    bot.drain()
    shared = [
        message
        for message in bot.recorder.messages(bot.workspace.channel_id)
        if MOG_TITLE in all_text(message.get("blocks", []))
    ]
    assert shared == []
    [apology] = bot.recorder.calls_to(RESPONSE_URL)[1:]
    assert MOG_TITLE not in apology.text


# --- defect 12: the .bib upload ------------------------------------------------------------


@pytest.mark.parametrize(
    "step", ["files.getUploadURLExternal", FILE_UPLOAD, "files.completeUploadExternal"]
)
def test_a_server_error_on_any_upload_step_is_retried(bot, retry_waits, step):
    bot.services.store.save_paper(bot.workspace.team_id, bot.workspace.user_id, MOG_ID)
    bot.recorder.fail_next(step, server_error())
    bot.slash("saved export")
    [said] = _answers(bot)
    assert "as a BibTeX file in a direct message" in said.text
    assert [call.status for call in bot.recorder.calls_to(step)] == [500, 200]
    assert len(bot.recorder.files) == 1
    assert retry_waits == [retry.CLIENT_BACKOFF.waits[0]]


@pytest.mark.parametrize("code", ["cannot_dm_bot", "user_disabled"])
def test_a_permanent_upload_error_says_what_is_wrong(bot, code):
    bot.services.store.save_paper(bot.workspace.team_id, bot.workspace.user_id, MOG_ID)
    bot.recorder.fail_next("conversations.open", slack_error(code))
    bot.slash("saved export")
    [said] = _answers(bot)
    assert "couldn't send you your reading list" in said.text
    assert "Trying again won't help" in said.text
    assert "try again in a moment" not in said.text
    assert bot.recorder.files == []


def test_a_client_error_from_the_upload_url_is_a_permanent_refusal(bot, retry_waits):
    """The upload URL refusing the bytes (an expired or rejected upload) would refuse them
    again: the person hears that trying again won't help, not "try again"."""
    bot.services.store.save_paper(bot.workspace.team_id, bot.workspace.user_id, MOG_ID)
    bot.recorder.fail_next(FILE_UPLOAD, Fault(404, {"ok": False, "error": "not_found"}))
    bot.slash("saved export")
    [said] = _answers(bot)
    assert "couldn't send you your reading list" in said.text
    assert "Trying again won't help" in said.text
    assert "try again in a moment" not in said.text
    assert [call.status for call in bot.recorder.calls_to(FILE_UPLOAD)] == [404]
    assert bot.recorder.calls_to("files.completeUploadExternal") == []
    assert retry_waits == []
