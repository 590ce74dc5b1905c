"""End to end: a bare mention in a thread whose first message is natural text full of what
the query language would misread (quotes, hyphens, a minus sign, a misspelling)."""

from __future__ import annotations

from slack_harness import all_text

MOG_TITLE = "Graph Sparsification via Mixture of Graphs"


def test_bare_mention_reads_the_first_message_as_text_and_more_continues(bot):
    root = bot.recorder.add_message(
        bot.workspace.channel_id,
        'Anyone read about "mixture of graphs" for sparsifying GNNs? Not the usual '
        "-sparsification heuristics - a spikng idea, maybe?",
    )
    bot.mention("", thread_ts=root["ts"])
    [first] = bot.recorder.wait_for("chat.postMessage")
    text = all_text(first.blocks)
    assert text.startswith("Papers related to this thread's first message (top 3)\n")
    assert first.args["thread_ts"] == root["ts"]
    assert MOG_TITLE in text
    assert "showing results for" not in text.lower()
    bot.mention("more", thread_ts=root["ts"])
    posts = bot.recorder.wait_for("chat.postMessage", 2)
    assert posts[1].args["thread_ts"] == root["ts"]
    more = all_text(posts[1].blocks)
    assert more.startswith("Papers related to the same message (4\u20136)\n")
    assert MOG_TITLE not in more


def test_bare_mention_reads_a_first_message_of_only_a_file_and_a_link_by_their_titles(bot):
    """The words are in the file's and the link's titles, as "Find related papers" reads."""
    root = bot.recorder.add_message(
        bot.workspace.channel_id,
        "<https://x.org/p/1>",
        files=[{"id": "F1", "name": "notes.pdf", "title": "Mixture of graphs"}],
        attachments=[{"title": "Graph sparsification survey", "title_link": "https://x.org"}],
    )
    bot.mention("", thread_ts=root["ts"])
    [reply] = bot.recorder.wait_for("chat.postMessage")
    assert MOG_TITLE in all_text(reply.blocks)


def test_a_bare_mention_under_a_command_to_the_bot_finds_nothing_to_relate_to(bot):
    """``@paperbot more`` with nothing to continue got its answer in a thread; a bare
    mention there must not search for the word "more"."""
    root = bot.recorder.add_message(
        bot.workspace.channel_id, f"<@{bot.workspace.bot_user_id}> more"
    )
    bot.mention("", thread_ts=root["ts"])
    [reply] = bot.recorder.wait_for("chat.postMessage")
    assert all_text(reply.blocks) == (
        "The thread's first message has no words to search for. Mention me with some."
    )
