"""End to end, as a demanding user clicks around: private lists never strand the person
(Back to results, Previous/Next), clicks on public and DM messages behave, and odd events
Slack really sends (edits, broadcasts, bot posts) are handled without a crash or a reply."""

from __future__ import annotations

from faulty_slack import slack_error
from slack_harness import LiveBot, Reply, all_text, find_button

from bot.render import papers as render
from bot.render.blocks import validate
from bot.render.message import Message
from bot.shell.fake_slack import RESPONSE_URL, RecordedCall
from bot.slack import payloads as payloads

MOG_TITLE = "Graph Sparsification via Mixture of Graphs"
MOG_ID = "7ANDviElAo"


def acked(reply: Reply) -> None:
    assert reply.status == 200, reply.body


def nth_response(bot: LiveBot, number: int) -> RecordedCall:
    """The ``number``-th (1-based) post to a response_url, validated as Slack would."""
    call = bot.recorder.wait_for(RESPONSE_URL, number)[number - 1]
    validate(Message(call.text, tuple(call.blocks)))
    assert call.text.strip()
    return call


def labels(blocks: list[dict]) -> list[str]:
    return [
        element["text"]["text"]
        for block in blocks
        if block["type"] == "actions"
        for element in block["elements"]
    ]


def test_back_to_results_restores_the_list_page_the_abstract_came_from(bot):
    bot.slash("graph")
    first = nth_response(bot, 1)
    acked(bot.click(first.blocks, render.ACTION_NEXT_PAGE))
    second = nth_response(bot, 2)
    assert "(6\u201310 of 10)" in all_text(second.blocks)
    acked(bot.click(second.blocks, render.ACTION_ABSTRACT, index=1))
    abstract = nth_response(bot, 3)
    assert abstract.args["replace_original"] is True
    assert labels(abstract.blocks) == ["Back to results", "Save", "Share", "More like this"]
    acked(bot.click(abstract.blocks, render.ACTION_BACK))
    back = nth_response(bot, 4)
    assert back.args["replace_original"] is True
    assert all_text(back.blocks) == all_text(second.blocks)


def test_the_last_page_has_previous_but_no_next_and_previous_goes_back(bot):
    bot.slash("graph")
    bot.click(nth_response(bot, 1).blocks, render.ACTION_NEXT_PAGE)
    last = nth_response(bot, 2)
    assert "Next 5" not in labels(last.blocks)
    assert labels(last.blocks)[-1] == "Previous 5"
    bot.click(last.blocks, render.ACTION_PREVIOUS_PAGE)
    assert "(1\u20135 of 10)" in all_text(nth_response(bot, 3).blocks)


def test_a_single_page_list_still_leads_back_from_an_abstract(bot):
    bot.slash('"graph sparsification"')
    first = nth_response(bot, 1)
    assert "Next 5" not in labels(first.blocks)
    bot.click(first.blocks, render.ACTION_ABSTRACT)
    bot.click(nth_response(bot, 2).blocks, render.ACTION_BACK)
    assert all_text(nth_response(bot, 3).blocks) == all_text(first.blocks)


def test_more_like_this_list_leads_back_from_its_abstracts(bot):
    bot.slash("graph sparsification")
    bot.click(nth_response(bot, 1).blocks, render.ACTION_MORE_LIKE_THIS)
    similar = nth_response(bot, 2)
    assert all_text(similar.blocks).startswith("Papers like")
    bot.click(similar.blocks, render.ACTION_ABSTRACT)
    bot.click(nth_response(bot, 3).blocks, render.ACTION_BACK)
    assert all_text(nth_response(bot, 4).blocks) == all_text(similar.blocks)


def test_a_paper_looked_up_by_id_comes_back_after_its_abstract(bot):
    bot.slash(MOG_ID)
    card = nth_response(bot, 1)
    bot.click(card.blocks, render.ACTION_ABSTRACT)
    bot.click(nth_response(bot, 2).blocks, render.ACTION_BACK)
    assert all_text(nth_response(bot, 3).blocks) == all_text(card.blocks)


def test_abstract_on_a_public_message_offers_no_way_back_to_a_private_list(bot):
    bot.mention("graph sparsification")
    [post] = bot.recorder.wait_for("chat.postMessage")
    acked(bot.click(post.blocks, render.ACTION_ABSTRACT, is_ephemeral=False))
    private = nth_response(bot, 1)
    assert private.args["replace_original"] is False
    assert private.args["response_type"] == "ephemeral"
    assert labels(private.blocks) == ["Save", "More like this"]


def test_share_in_the_bots_direct_message_posts_there(bot):
    dm = bot.workspace.dm_channel_id
    bot.slash("graph sparsification")
    acked(bot.click(nth_response(bot, 1).blocks, render.ACTION_SHARE, channel_id=dm))
    [post] = bot.recorder.wait_for("chat.postMessage")
    assert post.args["channel"] == dm
    assert MOG_TITLE in all_text(post.blocks)


def test_share_in_someone_elses_direct_message_explains_without_suggesting_invite(bot):
    bot.slash("graph sparsification")
    bot.recorder.fail_next("chat.postMessage", slack_error("channel_not_found"))
    bot.click(nth_response(bot, 1).blocks, render.ACTION_SHARE, channel_id="D0OTHERPAIR")
    explanation = nth_response(bot, 2)
    text = all_text(explanation.blocks)
    assert "direct message I'm not part of" in text
    assert "/invite" not in text


def test_share_where_the_bot_is_not_a_member_keeps_the_list_and_says_how_to_invite(bot):
    bot.slash("graph sparsification")
    bot.recorder.fail_next("chat.postMessage", slack_error("not_in_channel"))
    bot.click(nth_response(bot, 1).blocks, render.ACTION_SHARE)
    explanation = nth_response(bot, 2)
    assert explanation.args["replace_original"] is False
    assert "invite me with `/invite @paperbot`" in all_text(explanation.blocks)


def test_a_stale_button_says_the_list_expired(bot):
    bot.slash("graph")
    first = nth_response(bot, 1)
    button, _ = find_button(first.blocks, render.ACTION_NEXT_PAGE)
    button["value"] = "q:5:0000000000000000"
    bot.click(first.blocks, render.ACTION_NEXT_PAGE)
    assert "expired" in all_text(nth_response(bot, 2).blocks)


def test_events_that_are_not_a_persons_question_get_no_reply_and_no_crash(bot):
    workspace = bot.workspace
    changed = {
        "type": "message",
        "subtype": "message_changed",
        "hidden": True,
        "channel": workspace.dm_channel_id,
        "channel_type": "im",
        "ts": "1700000300.000100",
        "event_ts": "1700000300.000100",
        "message": {"type": "message", "user": workspace.user_id, "text": "graph"},
        "previous_message": {"type": "message", "user": workspace.user_id, "text": "grph"},
    }
    deleted = {
        "type": "message",
        "subtype": "message_deleted",
        "hidden": True,
        "channel": workspace.dm_channel_id,
        "channel_type": "im",
        "ts": "1700000300.000200",
        "deleted_ts": "1700000200.000100",
        "event_ts": "1700000300.000200",
    }
    bot_post = payloads.direct_message(
        workspace, "graph", "1700000300.000300", subtype="bot_message", bot_id="B0OTHER"
    )
    del bot_post["user"]
    for event in (changed, deleted, bot_post):
        acked(bot.event(event))
    bot.drain()
    assert bot.recorder.calls_to("chat.postMessage") == []


def test_a_thread_reply_broadcast_in_a_dm_is_answered_in_its_thread(bot):
    event = payloads.direct_message(
        bot.workspace,
        "graph sparsification",
        "1700000400.000200",
        subtype="thread_broadcast",
        thread_ts="1700000400.000100",
    )
    acked(bot.event(event))
    [post] = bot.recorder.wait_for("chat.postMessage")
    assert post.args["thread_ts"] == "1700000400.000100"
    assert MOG_TITLE in all_text(post.blocks)


def test_a_huge_query_is_echoed_briefly_and_the_advice_survives(bot):
    bot.slash("zqxj" * 2500)
    text = all_text(nth_response(bot, 1).blocks)
    assert "I found no papers matching “zqxj" in text
    assert "…”" in text
    assert len(text) < 1000
    assert "`/paper random`" in text


def test_emoji_and_right_to_left_text_are_echoed_as_typed(bot):
    bot.slash("graph 🚀 שלום sparsification")
    call = nth_response(bot, 1)
    assert "“graph 🚀 שלום sparsification”" in all_text(call.blocks)
    assert MOG_TITLE in all_text(call.blocks)
