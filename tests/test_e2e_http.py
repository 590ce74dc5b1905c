"""End to end: signed Slack requests over HTTP into the real app, answers read from the
fake Web API. What is asserted is what a person in Slack would see, and where."""

from __future__ import annotations

import json
import logging
import time

import pytest
from faulty_slack import rate_limited, slack_error
from project import PROJECT_ROOT
from slack_harness import (
    SIGNING_SECRET,
    LiveBot,
    Reply,
    all_text,
)

from bot.render import papers as render
from bot.render.blocks import validate
from bot.render.markup import abstract_mrkdwn
from bot.render.message import Message
from bot.shell.fake_slack import RESPONSE_URL
from bot.slack import payloads as payloads

MOG_TITLE = "Graph Sparsification via Mixture of Graphs"
MOG_ID = "7ANDviElAo"


def acked(reply: Reply) -> None:
    assert reply.status == 200, reply.body


def responses(bot: LiveBot, count: int = 1) -> list:
    return bot.recorder.wait_for(RESPONSE_URL, count)


def assert_valid(call) -> None:
    validate(Message(call.text, tuple(call.blocks)))


# --- plumbing ------------------------------------------------------------------------------


def test_url_verification_echoes_the_challenge(bot):
    reply = bot.signed_post(*payloads.json_body(payloads.url_verification("3eZbrw1aBm2rZgRNFdxV")))
    acked(reply)
    assert "3eZbrw1aBm2rZgRNFdxV" in reply.body


def test_health_check(bot):
    reply = bot.get("/healthz")
    assert (reply.status, json.loads(reply.body)) == (200, {"status": "ok", "database": "ok"})


def test_readiness_check(bot):
    reply = bot.get("/readyz")
    assert (reply.status, json.loads(reply.body)) == (200, {"status": "ok", "database": "ok"})


def test_forged_signature_is_rejected_without_work(bot):
    fields = payloads.slash_command(bot.workspace, "graphs", bot.recorder.response_url())
    reply = bot.signed_post(*payloads.form_body(fields), secret="not-the-secret")
    assert reply.status == 401
    bot.drain()
    assert bot.recorder.calls_to(RESPONSE_URL) == []


def test_stale_timestamp_is_rejected(bot):
    fields = payloads.slash_command(bot.workspace, "graphs", bot.recorder.response_url())
    six_minutes_ago = int(time.time()) - 6 * 60
    reply = bot.signed_post(*payloads.form_body(fields), timestamp=six_minutes_ago)
    assert reply.status == 401
    bot.drain()
    assert bot.recorder.calls_to(RESPONSE_URL) == []


def test_unsigned_request_is_rejected(bot):
    body, content_type = payloads.json_body(payloads.url_verification("x"))
    assert bot.post(body, {"Content-Type": content_type}).status == 401
    assert SIGNING_SECRET not in body


# --- /paper --------------------------------------------------------------------------------


def test_paper_search_answers_privately_with_five_papers_and_buttons(bot):
    acked(bot.slash("graph sparsification"))
    [call] = responses(bot)
    assert call.args["response_type"] == "ephemeral"
    assert_valid(call)
    text = all_text(call.blocks)
    assert "Papers for “graph sparsification” (top 5)" in text
    assert f"<https://openreview.net/forum?id={MOG_ID}|{MOG_TITLE}>" in text
    assert "*sparsification*" in text or "*graph*" in text
    assert "first author" not in text.lower()
    for action in render.RESULT_BUTTONS:
        assert sum(1 for _ in _buttons(call.blocks, action)) == 5
    assert [b["text"]["text"] for b in _buttons(call.blocks, render.ACTION_NEXT_PAGE)] == ["Next 5"]
    assert MOG_TITLE in call.text


def _buttons(blocks, action_id):
    for block in blocks:
        if block["type"] == "actions":
            for element in block["elements"]:
                if element["action_id"] == action_id:
                    yield element


def test_next_five_replaces_the_list_with_the_next_page(bot):
    bot.slash("graph")
    [first] = responses(bot)
    acked(bot.click(first.blocks, render.ACTION_NEXT_PAGE))
    second = responses(bot, 2)[1]
    assert second.args["replace_original"] is True
    assert "(6\u201310 of" in all_text(second.blocks)
    assert_valid(second)


def test_abstract_replaces_the_private_list_with_the_whole_abstract(bot):
    bot.slash("graph sparsification")
    [first] = responses(bot)
    acked(bot.click(first.blocks, render.ACTION_ABSTRACT))
    second = responses(bot, 2)[1]
    assert second.args["replace_original"] is True
    paper = bot.services.index.get(MOG_ID)
    assert abstract_mrkdwn(paper.abstract)[-200:] in all_text(second.blocks)
    assert_valid(second)


def test_abstract_on_a_public_message_answers_only_the_clicker(bot):
    bot.slash("graph sparsification")
    [first] = responses(bot)
    acked(bot.click(first.blocks, render.ACTION_ABSTRACT, is_ephemeral=False))
    second = responses(bot, 2)[1]
    assert second.args["replace_original"] is False
    assert second.args["response_type"] == "ephemeral"


def test_share_posts_the_paper_to_the_channel_saying_who_shared_it(bot):
    bot.slash("graph sparsification")
    [first] = responses(bot)
    acked(bot.click(first.blocks, render.ACTION_SHARE))
    [post] = bot.recorder.wait_for("chat.postMessage")
    assert post.args["channel"] == bot.workspace.channel_id
    assert "thread_ts" not in post.args
    text = all_text(post.blocks)
    assert f"Shared by <@{bot.workspace.user_id}>" in text
    assert MOG_TITLE in text
    assert_valid(post)


def test_more_like_this_lists_similar_papers_privately(bot):
    bot.slash("graph sparsification")
    [first] = responses(bot)
    acked(bot.click(first.blocks, render.ACTION_MORE_LIKE_THIS))
    second = responses(bot, 2)[1]
    assert second.args["response_type"] == "ephemeral"
    assert second.args["replace_original"] is False
    text = all_text(second.blocks)
    assert text.startswith("Papers like *<https://openreview.net/forum?id=7ANDviElAo|")
    assert f"|{MOG_TITLE}>" not in text.split("\n", 1)[1]


@pytest.mark.parametrize("text", ["", "help"])
def test_help_card(bot, text):
    acked(bot.slash(text))
    [call] = responses(bot)
    assert "/paper random" in all_text(call.blocks)
    assert "Only 76 sample papers are searched here" in all_text(call.blocks)
    assert "PAPERBOT_CORPUS" not in all_text(call.blocks)
    assert "/" + "seeds" not in all_text(call.blocks) and str(PROJECT_ROOT) not in all_text(
        call.blocks
    )


def test_quoted_command_word_searches(bot):
    bot.slash('"help"')
    [call] = responses(bot)
    assert "Papers for" in all_text(call.blocks) or "found no papers" in all_text(call.blocks)
    assert "/paper random` a random paper" not in all_text(call.blocks)


def test_random_and_lookup_by_openreview_url(bot):
    bot.slash("random")
    bot.slash(f"<https://openreview.net/forum?id={MOG_ID}>")
    random_call, lookup = responses(bot, 2)
    assert "A random paper:" in all_text(random_call.blocks)
    assert MOG_TITLE in all_text(lookup.blocks)
    assert "Papers for" not in all_text(lookup.blocks)


def test_hostile_query_is_echoed_escaped(bot):
    bot.slash("&lt;!channel&gt; <!here> <@U0OTHER> zzqx")
    [call] = responses(bot)
    sent = json.dumps(call.args)
    for ping in ("<!channel>", "<!here>", "<@U0OTHER>"):
        assert ping not in sent
    assert "&lt;!channel&gt;" in all_text(call.blocks)


def test_corrected_typo_says_so(bot):
    bot.slash("graph sparsifcation")
    [call] = responses(bot)
    assert (
        "Showing results for “graph sparsification” (top 5; you typed “graph sparsifcation”)"
        in (all_text(call.blocks))
    )


def test_empty_result_says_so_and_suggests(bot):
    bot.slash("xq7z9 kk4w2")
    [call] = responses(bot)
    text = all_text(call.blocks)
    assert "I found no papers" in text
    assert "/paper random" in text


def test_subscribe_reaches_the_digest_and_answers_privately(bot):
    bot.slash("subscribe 09:30")
    bot.slash("subscriptions")
    subscribed, listed = responses(bot, 2)
    assert subscribed.args["response_type"] == "ephemeral"
    assert bot.services.digest.subscription(bot.workspace.channel_id) is not None
    assert "09:30" in all_text(listed.blocks)


# --- mentions and DMs ----------------------------------------------------------------------


def test_mention_in_a_channel_answers_in_a_thread_on_that_message(bot):
    reply, event = bot.mention("graph sparsification")
    acked(reply)
    [post] = bot.recorder.wait_for("chat.postMessage")
    assert post.args["channel"] == bot.workspace.channel_id
    assert post.args["thread_ts"] == event["ts"]
    text = all_text(post.blocks)
    assert "(top 3)" in text
    assert MOG_TITLE in text
    assert not list(_buttons(post.blocks, render.ACTION_SHARE))
    assert_valid(post)


def test_more_in_the_thread_continues_the_last_search(bot):
    _, first = bot.mention("graph")
    bot.recorder.wait_for("chat.postMessage")
    bot.mention("more", thread_ts=first["ts"])
    posts = bot.recorder.wait_for("chat.postMessage", 2)
    assert posts[1].args["thread_ts"] == first["ts"]
    assert "(4\u20136 of" in all_text(posts[1].blocks)


def test_bare_mention_in_a_thread_finds_papers_related_to_its_first_message(bot):
    root = bot.recorder.add_message(
        bot.workspace.channel_id, "Has anyone tried mixture of experts for graph sparsification?"
    )
    bot.mention("", thread_ts=root["ts"])
    [post] = bot.recorder.wait_for("chat.postMessage")
    [read] = bot.recorder.calls_to("conversations.replies")
    assert read.args["ts"] == root["ts"]
    assert post.args["thread_ts"] == root["ts"]
    text = all_text(post.blocks)
    assert "related to this thread's first message" in text
    assert MOG_TITLE in text


def test_direct_message_is_answered_in_the_dm(bot):
    event = payloads.direct_message(bot.workspace, "graph sparsification", "1700000100.000200")
    acked(bot.event(event))
    [post] = bot.recorder.wait_for("chat.postMessage")
    assert post.args["channel"] == bot.workspace.dm_channel_id
    assert not post.args.get("thread_ts")
    assert MOG_TITLE in all_text(post.blocks)


def test_a_retried_event_is_answered_once(bot):
    _, event = bot.mention("graph sparsification")
    bot.recorder.wait_for("chat.postMessage")
    envelope_id = "Ev0RETRIED01"
    acked(bot.event(event, event_id=envelope_id))
    acked(bot.event(event, event_id=envelope_id, retry_num=1))
    acked(bot.event(event, event_id=envelope_id, retry_num=2))
    bot.drain()
    assert len(bot.recorder.calls_to("chat.postMessage")) == 1


def test_one_message_delivered_as_two_events_is_answered_once(bot):
    """A mention in the bot's DM can arrive as both ``message.im`` and ``app_mention``."""
    ts = "1700000100.000900"
    text = f"<@{bot.workspace.bot_user_id}> graph sparsification"
    as_dm = payloads.direct_message(bot.workspace, text, ts)
    as_mention = dict(as_dm, type="app_mention")
    del as_mention["channel_type"]
    acked(bot.event(as_dm))
    acked(bot.event(as_mention))
    bot.drain()
    [post] = bot.recorder.calls_to("chat.postMessage")
    assert MOG_TITLE in all_text(post.blocks)


def test_messages_from_bots_are_ignored(bot):
    from_bot = payloads.direct_message(
        bot.workspace, "graph", "1700000100.000300", bot_id="B0OTHER", subtype="bot_message"
    )
    own = payloads.direct_message(bot.workspace, "graph", "1700000100.000400")
    own["user"] = bot.workspace.bot_user_id
    edited = payloads.direct_message(
        bot.workspace, "graph", "1700000100.000500", subtype="message_changed"
    )
    for event in (from_bot, own, edited):
        acked(bot.event(event))
    bot.drain()
    assert bot.recorder.calls_to("chat.postMessage") == []


# --- failures ------------------------------------------------------------------------------


def test_rate_limited_post_is_retried_after_retry_after(bot):
    bot.recorder.fail_next("chat.postMessage", rate_limited(retry_after=1))
    bot.mention("graph sparsification")
    posts = bot.recorder.wait_for("chat.postMessage", 2)
    assert [call.status for call in posts] == [429, 200]
    assert MOG_TITLE in all_text(posts[1].blocks)


def test_share_where_the_bot_is_not_a_member_explains_how_to_invite_it(bot):
    bot.slash("graph sparsification")
    [first] = responses(bot)
    bot.recorder.fail_next("chat.postMessage", slack_error("not_in_channel"))
    bot.click(first.blocks, render.ACTION_SHARE)
    explanation = responses(bot, 2)[1]
    assert explanation.args["response_type"] == "ephemeral"
    assert "/invite @paperbot" in all_text(explanation.blocks)


def test_other_failures_get_an_apology_and_a_logged_traceback(bot, caplog):
    bot.slash("graph sparsification")
    [first] = responses(bot)
    bot.recorder.fail_next("chat.postMessage", slack_error("fatal_error"))
    with caplog.at_level(logging.ERROR):
        bot.click(first.blocks, render.ACTION_SHARE)
        apology = responses(bot, 2)[1]
        bot.drain()
    assert "Sorry, something went wrong" in all_text(apology.blocks)
    assert any(record.exc_info for record in caplog.records)
    acked(bot.slash("graph"))
    assert len(responses(bot, 3)) == 3


def test_replies_ask_slack_not_to_preview_their_links(bot):
    bot.slash("graph sparsification")
    bot.mention("graph sparsification")
    bot.drain()
    [private] = responses(bot)
    [public] = bot.recorder.calls_to("chat.postMessage")
    for call in (private, public):
        assert call.args["unfurl_links"] in (False, "false", "0")
        assert call.args["unfurl_media"] in (False, "false", "0")
