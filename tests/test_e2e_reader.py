"""What a reader sees, end to end through the real app: authors as papers are cited, replies
that say which words and names they used, a count a person would call a count, an honest
last page, usage for a bare field, and where the rest of the conference is."""

from __future__ import annotations

from slack_harness import LiveBot, all_text
from test_e2e_ux import MOG_ID, MOG_TITLE, nth_response

from bot.render import papers as render
from bot.settings import Settings
from bot.slack.client import make_web_client
from bot.wiring.root import build_services

MOG_AUTHORS = (
    "Guibin Zhang, Xiangguo Sun, Yanwei Yue, Chonghe Jiang, Kun Wang, Tianlong Chen, Shirui Pan"
)


def _reply(bot: LiveBot, text: str) -> str:
    bot.slash(text)
    return all_text(nth_response(bot, 1).blocks)


def test_a_card_in_a_list_cites_three_authors_and_a_paper_by_id_lists_them_all(bot):
    listed = _reply(bot, "graph sparsification")
    assert "Authors: Guibin Zhang, Xiangguo Sun, Yanwei Yue +4 more" in listed
    assert "not in paper order" not in listed
    bot.slash(MOG_ID)
    alone = all_text(nth_response(bot, 2).blocks)
    assert f"Authors: {MOG_AUTHORS}" in alone


def test_an_unquoted_author_takes_the_words_that_continue_a_name_and_says_which(bot):
    text = _reply(bot, "author:Stefanie Jegelka graphs")
    assert "Papers with an author named “Stefanie Jegelka”." in text
    assert "Fine-grained Expressivity" in text or "pseudometrics" in text


def test_an_unknown_author_suggests_quoting_the_full_name(bot):
    text = _reply(bot, "author:Nobody McNobodyface")
    assert "No paper has an author named “Nobody”" in text
    assert 'quote it: “author:"Nobody McNobodyface"”' in text


def test_a_misspelt_author_is_named_with_the_search_for_the_near_name(bot):
    """Issue 30: the full name nobody has is named, and the name the index has is offered
    as the search to run instead."""
    text = _reply(bot, "author:Guibin Zhnag")
    assert (
        'No paper has an author named “Guibin Zhnag”. Did you mean `/paper author:"Guibin Zhang"`?'
    ) in text
    assert "fewer" not in text and "conditions" not in text


def test_a_word_no_paper_contains_is_named(bot):
    text = _reply(bot, "kitchen models")
    assert "No paper mentions “kitchen”; showing papers about “models”." in text


def test_a_count_is_shown_only_when_it_counts_matches(bot):
    assert "Papers for “graph sparsification” (top 5)" in _reply(bot, "graph sparsification")
    bot.slash("sparsification")
    assert "Papers for “sparsification” (1 paper)" in all_text(nth_response(bot, 2).blocks)
    bot.slash("graph")
    assert "Papers for “graph” (1\u20135 of 10)" in all_text(nth_response(bot, 3).blocks)


def test_more_after_the_last_page_says_that_was_all_and_offers_more_like_this(bot):
    _, event = bot.mention("sparsification")
    [first] = bot.recorder.wait_for("chat.postMessage")
    assert "@paperbot more" not in all_text(first.blocks)
    bot.mention("more", thread_ts=event["ts"])
    last = bot.recorder.wait_for("chat.postMessage", 2)[1]
    text = all_text(last.blocks)
    assert "You have seen all the papers matching “sparsification”." in text
    assert "check the spelling" not in text
    assert MOG_TITLE in text
    [button] = [
        element
        for block in last.blocks
        if block["type"] == "actions"
        for element in block["elements"]
    ]
    assert (button["action_id"], button["value"]) == (render.ACTION_MORE_LIKE_THIS, MOG_ID)


def test_like_alone_answers_with_its_usage(bot):
    text = _reply(bot, "like:")
    assert "`like:ID` finds papers like one paper" in text
    assert "I found no papers" not in text


def test_a_search_that_finds_little_names_the_whole_conference(bot):
    """In words a member of the team can act on: the setting is the operator's, never shown
    in Slack (the shell, where the operator is, names it)."""
    wider = (
        "Only 76 sample papers are searched here, not all 3,706 accepted ICLR 2025 papers: "
        "whoever runs paperbot for this workspace can switch it to all of them."
    )
    reply = _reply(bot, "RLHF reward hacking")
    assert wider in reply and "PAPERBOT_CORPUS" not in reply
    bot.slash("sparsification")
    assert wider in all_text(nth_response(bot, 2).blocks)
    bot.slash("graph")
    assert "sample papers" not in all_text(nth_response(bot, 3).blocks)
    bot.slash("help")
    assert all_text(nth_response(bot, 4).blocks).endswith(wider)
    assert not any("PAPERBOT_" in repr(call.args) for call in bot.recorder.calls)


def test_a_bot_serving_the_catalogue_gives_no_hint(seed_corpus, tmp_path):
    settings = Settings(corpus="catalogue", database_url=f"sqlite:///{tmp_path / 'x.db'}")
    client = make_web_client("xoxb-test", "http://127.0.0.1:9/api/")
    services = build_services(settings, client, corpus=seed_corpus)
    try:
        assert services.answers.wider_corpus is None
        assert "PAPERBOT_CORPUS" not in repr(services.answers.help().blocks)
    finally:
        services.close()
