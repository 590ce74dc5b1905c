"""End to end: link previews, "Find related papers", Save, the reading list and the App Home,
each through the real app over HTTP in Slack's payload shapes, answered through the fake Web
API. Assertions are about what a person sees, and where."""

from __future__ import annotations

import json
import threading

import pytest
from project import PROJECT_ROOT
from pybtex.database import parse_string
from slack_harness import LiveBot, Reply, all_text, find_button
from slack_sdk.models.views import View

from bot.answers import Viewer
from bot.buttons import HomePlaces, RelatedTarget
from bot.papers.corpus import catalogue_by_openreview_id
from bot.render import home as render_home
from bot.render import papers as render
from bot.render.blocks import MAX_VIEW_BLOCKS, validate, validate_view
from bot.render.message import Message
from bot.shell.fake_slack import RESPONSE_URL
from bot.slack import payloads
from bot.store import SubscriptionRecord
from handlers.shortcuts import FIND_RELATED

MOG_ID = "7ANDviElAo"
MOG_TITLE = "Graph Sparsification via Mixture of Graphs"
DARK_ID = "odjMSBSWRt"
"""An oral paper in the catalogue but not among the seed papers the bot searches."""
DARK_TITLE = "DarkBench: Benchmarking Dark Patterns in Large Language Models"


def acked(reply: Reply) -> None:
    assert reply.status == 200, reply.body


def labels(blocks) -> list[str]:
    return [
        element["text"]["text"]
        for block in blocks
        if block["type"] == "actions"
        for element in block["elements"]
    ]


def viewer(bot: LiveBot) -> Viewer:
    return Viewer(bot.workspace.team_id, bot.workspace.user_id)


# --- link previews -------------------------------------------------------------------------


def test_openreview_links_unfurl_as_compact_cards_and_others_get_nothing(bot):
    forum = f"https://www.openreview.net/forum?id={MOG_ID}&noteId=abc&referrer=%5Bthe%5D"
    pdf = f"https://openreview.net/pdf?id={DARK_ID}"
    ignored = [
        "https://openreview.net/forum?id=NoSuchPaper1",
        f"https://example.com/forum?id={MOG_ID}",
        "https://openreview.net/group?id=ICLR.cc/2025/Conference",
    ]
    reply, event = bot.link([forum, pdf, *ignored], is_bot_user_member=False)
    acked(reply)
    [call] = bot.recorder.wait_for("chat.unfurl")
    assert (call.args["channel"], call.args["ts"]) == (event["channel"], event["message_ts"])
    unfurls = call.args["unfurls"]
    assert set(unfurls) == {forum, pdf}
    card = unfurls[forum]["blocks"]
    validate(Message("preview", tuple(card)))
    text = all_text(card)
    assert f"<https://openreview.net/forum?id={MOG_ID}|{MOG_TITLE}>" in text
    assert "ICLR 2025 Spotlight" in text
    assert "Guibin Zhang, Xiangguo Sun, Yanwei Yue" in text
    assert "*TL;DR:*" in text
    assert "Code: <https://github.com/yanweiyue/MoG|github.com/yanweiyue/MoG>" in text
    assert labels(card) == ["Abstract", "Save"]
    assert DARK_TITLE in all_text(unfurls[pdf]["blocks"])
    assert "ICLR 2025 Oral" in all_text(unfurls[pdf]["blocks"])


def test_links_as_slack_escapes_them_unfurl_under_slacks_own_string(bot):
    """Slack sends ``&`` in a link_shared URL as ``&amp;``, and wants the same string back."""
    second = f"https://openreview.net/forum?noteId=abc&amp;id={MOG_ID}"
    first = f"https://openreview.net/pdf?id={DARK_ID}&amp;noteId=xyz"
    acked(bot.link([second, first], is_bot_user_member=False)[0])
    [call] = bot.recorder.wait_for("chat.unfurl")
    unfurls = call.args["unfurls"]
    assert set(unfurls) == {second, first}
    assert MOG_TITLE in all_text(unfurls[second]["blocks"])
    assert DARK_TITLE in all_text(unfurls[first]["blocks"])


@pytest.mark.parametrize(
    "reference",
    [f"<https://openreview.net/forum?noteId=abc&amp;id={DARK_ID}>", DARK_ID],
)
def test_paper_with_a_catalogue_link_or_id_shows_the_paper_its_preview_shows(bot, reference):
    acked(bot.slash(reference))
    [reply] = bot.recorder.wait_for(RESPONSE_URL)
    assert DARK_TITLE in reply.text
    assert "No paper with id" not in all_text(reply.blocks)


@pytest.mark.parametrize(
    "named",
    [
        DARK_ID,
        f"<https://openreview.net/forum?id={DARK_ID}>",
        MOG_ID,
        f"has anyone read <https://openreview.net/forum?id={DARK_ID}>? is it any good",
        f"see (<https://openreview.net/forum?id={DARK_ID}>)",
    ],
)
def test_a_mention_naming_a_paper_shows_its_card_in_the_thread(bot, named):
    root = bot.recorder.add_message(bot.workspace.channel_id, "Which benchmark was it?")
    acked(bot.mention(named, thread_ts=root["ts"])[0])
    [post] = bot.recorder.wait_for("chat.postMessage")
    assert post.args["thread_ts"] == root["ts"]
    paper_id, title = (MOG_ID, MOG_TITLE) if named == MOG_ID else (DARK_ID, DARK_TITLE)
    text = all_text(post.blocks)
    assert text.startswith(f"*<https://openreview.net/forum?id={paper_id}|{title}>*")
    assert "found no papers" not in text and "Papers for" not in text
    assert labels(post.blocks) == ["Abstract", "Save", "More like this"]
    validate(Message(post.args["text"], tuple(post.blocks)))


def test_a_link_among_query_syntax_is_part_of_the_search_not_a_card(bot):
    bot.slash(f"author:Bengio <https://openreview.net/forum?id={DARK_ID}>")
    [reply] = bot.recorder.wait_for(RESPONSE_URL)
    assert not all_text(reply.blocks).startswith(f"*<https://openreview.net/forum?id={DARK_ID}|")


def test_more_like_this_on_a_catalogue_paper_lists_its_neighbours_in_the_corpus(bot):
    acked(bot.slash(DARK_ID))
    [card] = bot.recorder.wait_for(RESPONSE_URL)
    acked(bot.click(card.blocks, render.ACTION_MORE_LIKE_THIS))
    similar = bot.recorder.wait_for(RESPONSE_URL, 2)[1]
    text = all_text(similar.blocks)
    assert text.startswith(f"Papers like *<https://openreview.net/forum?id={DARK_ID}|{DARK_TITLE}>")
    assert "I don't know" not in text
    assert DARK_TITLE not in similar.text.partition(": ")[2]
    assert "Next 5" in labels(similar.blocks)


def test_save_and_abstract_in_a_preview_answer_the_clicker_privately(bot):
    link = f"https://openreview.net/forum?id={MOG_ID}"
    bot.link([link], is_bot_user_member=False)
    [call] = bot.recorder.wait_for("chat.unfurl")
    card = call.args["unfurls"][link]["blocks"]
    for action in (render.ACTION_SAVE, render.ACTION_ABSTRACT):
        button, block_id = find_button(card, action)
        click = payloads.block_actions(
            bot.workspace,
            button,
            block_id,
            bot.recorder.response_url(),
            message_ts="1700000500.000100",
            is_ephemeral=False,
            unfurl_url=link,
        )
        acked(bot.signed_post(*payloads.interactive_body(click)))
    saved, abstract = bot.recorder.wait_for(RESPONSE_URL, 2)
    assert saved.args["response_type"] == "ephemeral"
    assert saved.text.startswith("Saved ✓")
    assert abstract.args["response_type"] == "ephemeral"
    assert "Mixture-of-Graphs" in all_text(abstract.blocks)
    assert bot.services.store.saved_papers(*_ids(bot)) == [MOG_ID]


def test_a_link_in_the_composer_is_answered_by_unfurl_id(bot):
    link = f"https://openreview.net/forum?id={MOG_ID}"
    reply, event = bot.link([link], composer=True)
    acked(reply)
    [call] = bot.recorder.wait_for("chat.unfurl")
    assert call.args["unfurl_id"] == event["unfurl_id"]
    assert call.args["source"] == "composer"
    assert "channel" not in call.args and "ts" not in call.args
    assert set(call.args["unfurls"]) == {link}


def test_unknown_links_get_no_unfurl_and_no_error(bot):
    acked(bot.link(["https://openreview.net/forum?id=Nope", "https://arxiv.org/abs/2401.1"])[0])
    bot.drain()
    assert bot.recorder.calls_to("chat.unfurl", RESPONSE_URL, "chat.postMessage") == []


def test_a_link_pasted_in_ten_channels_is_rendered_once(bot, monkeypatch):
    renders = []
    real = render.unfurl_message
    monkeypatch.setattr(
        render, "unfurl_message", lambda paper: renders.append(paper) or real(paper)
    )
    link = f"https://openreview.net/forum?id={MOG_ID}"
    for number in range(10):
        bot.link([link], channel_id=f"C0CHANNEL{number}")
    calls = bot.recorder.wait_for("chat.unfurl", 10)
    assert len(renders) == 1
    assert {call.args["channel"] for call in calls} == {f"C0CHANNEL{n}" for n in range(10)}
    assert len({str(call.args["unfurls"]) for call in calls}) == 1


# --- "Find related papers" -----------------------------------------------------------------


def _message(bot: LiveBot, text: str, **extra) -> dict:
    return bot.recorder.add_message(bot.workspace.channel_id, text, **extra)


def test_the_shortcut_answers_privately_and_posts_into_the_thread_on_request(bot):
    message = _message(
        bot,
        "Has anyone compared sparsifiers for GNNs &lt;!channel&gt;?",
        files=[{"id": "F1", "name": "mixture-of-graphs-notes.pdf", "title": "Mixture of graphs"}],
        attachments=[{"title": "Graph sparsification survey", "title_link": "https://x.org"}],
    )
    acked(bot.shortcut(message))
    [reply] = bot.recorder.wait_for(RESPONSE_URL)
    assert reply.args["response_type"] == "ephemeral"
    validate(Message(reply.text, tuple(reply.blocks)))
    text = all_text(reply.blocks)
    assert text.startswith("Papers related to this message (top 5)\n")
    assert "Papers for" not in text  # the message is not quoted back at its reader
    assert MOG_TITLE in text
    assert "<!channel>" not in text
    for action in render.RESULT_BUTTONS:
        find_button(reply.blocks, action)
    post, _ = find_button(reply.blocks, render.ACTION_POST_RELATED)
    assert post["text"]["text"] == "Post in thread"

    acked(bot.click(reply.blocks, render.ACTION_POST_RELATED))
    [posted] = bot.recorder.wait_for("chat.postMessage")
    assert posted.args["channel"] == bot.workspace.channel_id
    assert posted.args["thread_ts"] == message["ts"]
    assert MOG_TITLE in all_text(posted.blocks)
    assert "Posted them in the thread." in bot.recorder.wait_for(RESPONSE_URL, 2)[1].text


def test_the_shortcuts_list_pages_and_keeps_its_post_button(bot):
    message = _message(bot, "graph neural networks and sparsification of large graphs")
    bot.shortcut(message)
    [first] = bot.recorder.wait_for(RESPONSE_URL)
    acked(bot.click(first.blocks, render.ACTION_NEXT_PAGE))
    second = bot.recorder.wait_for(RESPONSE_URL, 2)[1]
    assert second.args["replace_original"] is True
    # A message's many words match most papers: no count, which would say nothing.
    assert all_text(second.blocks).startswith("Papers related to this message (6\u201310)\n")
    assert "Post in thread" in labels(second.blocks)
    acked(bot.click(second.blocks, render.ACTION_ABSTRACT))
    abstract = bot.recorder.wait_for(RESPONSE_URL, 3)[2]
    assert labels(abstract.blocks)[0] == "Back to results"


def test_the_shortcut_offers_no_post_where_the_bot_cannot_post(bot):
    bot.recorder.add_channel("G0SECRET", is_private=True, bot_is_member=False)
    message = {"type": "message", "user": "U0OTHER", "ts": "1700000600.000100"}
    message["text"] = "mixture of graphs for sparsification"
    acked(bot.shortcut(message, channel_id="G0SECRET"))
    [reply] = bot.recorder.wait_for(RESPONSE_URL)
    assert MOG_TITLE in all_text(reply.blocks)
    assert "Post in thread" not in labels(reply.blocks)


def test_the_shortcut_on_a_message_without_words_says_so(bot):
    acked(bot.shortcut({"type": "message", "user": "U0OTHER", "ts": "1.2", "text": ""}))
    [reply] = bot.recorder.wait_for(RESPONSE_URL)
    assert "no words to search for" in reply.text


# --- Save and the reading list -------------------------------------------------------------


def _card_labels(blocks, paper_id: str) -> list[str]:
    [block] = [block for block in blocks if block.get("block_id") == f"paper:{paper_id}"]
    return [element["text"]["text"] for element in block["elements"]]


def test_save_on_a_private_list_redraws_it_with_saved_and_refreshes_the_home(bot):
    acked(bot.slash("graph sparsification"))
    [listing] = bot.recorder.wait_for(RESPONSE_URL)
    assert _card_labels(listing.blocks, MOG_ID)[1] == "Save"
    index = [b.get("block_id") for b in listing.blocks if b["type"] == "actions"].index(
        f"paper:{MOG_ID}"
    )
    acked(bot.click(listing.blocks, render.ACTION_SAVE, index=index))
    redrawn = bot.recorder.wait_for(RESPONSE_URL, 2)[1]
    assert redrawn.args["replace_original"] is True
    assert _card_labels(redrawn.blocks, MOG_ID)[1] == "Saved ✓"
    assert "Papers for “graph sparsification” (top 5)" in all_text(redrawn.blocks)
    [home] = bot.recorder.wait_for("views.publish")
    assert MOG_TITLE in all_text(home.args["view"]["blocks"])

    acked(bot.click(redrawn.blocks, render.ACTION_UNSAVE))
    again = bot.recorder.wait_for(RESPONSE_URL, 3)[2]
    assert _card_labels(again.blocks, MOG_ID)[1] == "Save"
    homes = bot.recorder.wait_for("views.publish", 2)
    assert MOG_TITLE not in all_text(homes[1].args["view"]["blocks"])
    assert bot.services.store.saved_papers(*_ids(bot)) == []


def _ids(bot: LiveBot) -> tuple[str, str]:
    return bot.workspace.team_id, bot.workspace.user_id


def test_save_on_a_public_card_answers_privately_with_undo(bot):
    bot.mention("mixture of graphs sparsification")
    [post] = bot.recorder.wait_for("chat.postMessage")
    acked(bot.click(post.blocks, render.ACTION_SAVE, is_ephemeral=False))
    [notice] = bot.recorder.wait_for(RESPONSE_URL)
    assert notice.args["response_type"] == "ephemeral"
    assert notice.args["replace_original"] is False
    assert notice.text.startswith("Saved ✓")
    assert labels(notice.blocks) == ["Undo"]
    saved = bot.services.store.saved_papers(*_ids(bot))
    assert len(saved) == 1

    acked(bot.click(notice.blocks, render.ACTION_UNSAVE))
    undone = bot.recorder.wait_for(RESPONSE_URL, 2)[1]
    assert undone.args["replace_original"] is True
    assert undone.text.startswith("Removed")
    assert labels(undone.blocks) == ["Save again"]
    assert bot.services.store.saved_papers(*_ids(bot)) == []


def test_a_double_click_on_save_saves_once(seed_corpus, tmp_path):
    bot = LiveBot(seed_corpus, tmp_path, app_listener_pool=True)
    try:
        bot.slash(MOG_ID)
        [card] = bot.recorder.wait_for(RESPONSE_URL)
        replies: list[Reply] = []
        clicks = [
            threading.Thread(
                target=lambda: replies.append(bot.click(card.blocks, render.ACTION_SAVE))
            )
            for _ in range(2)
        ]
        for click in clicks:
            click.start()
        for click in clicks:
            click.join()
        for reply in replies:
            acked(reply)
        answers = bot.recorder.wait_for(RESPONSE_URL, 3)[1:]
        assert all(_card_labels(a.blocks, MOG_ID)[1] == "Saved ✓" for a in answers)
        assert bot.services.store.saved_papers(*_ids(bot)) == [MOG_ID]
        bot.recorder.wait_for("views.publish", 2)
    finally:
        bot.close()


def test_one_click_delivered_to_two_bot_processes_saves_once(seed_corpus, tmp_path):
    """Two apps (each its own server, store connection and Slack) on one database."""
    bots = [LiveBot(seed_corpus, tmp_path, app_listener_pool=True) for _ in range(2)]
    try:
        bots[0].slash(MOG_ID)
        [card] = bots[0].recorder.wait_for(RESPONSE_URL)
        replies: list[Reply] = []
        clicks = [
            threading.Thread(
                target=lambda bot=bot: replies.append(bot.click(card.blocks, render.ACTION_SAVE))
            )
            for bot in bots
        ]
        for click in clicks:
            click.start()
        for click in clicks:
            click.join()
        for reply in replies:
            acked(reply)
        answered = [
            bots[0].recorder.wait_for(RESPONSE_URL, 2)[1],
            *bots[1].recorder.wait_for(RESPONSE_URL),
        ]
        assert all(_card_labels(a.blocks, MOG_ID)[1] == "Saved ✓" for a in answered)
        for bot in bots:
            assert bot.services.store.saved_papers(*_ids(bot)) == [MOG_ID]
            bot.recorder.wait_for("views.publish")
    finally:
        for bot in bots:
            bot.close()


def test_paper_saved_lists_the_reading_list_newest_first(bot):
    store = bot.services.store
    acked(bot.slash("saved"))
    [empty] = bot.recorder.wait_for(RESPONSE_URL)
    assert "Your reading list is empty." in empty.text
    store.save_paper(*_ids(bot), MOG_ID)
    store.save_paper(*_ids(bot), DARK_ID)
    acked(bot.slash("saved"))
    listing = bot.recorder.wait_for(RESPONSE_URL, 2)[1]
    validate(Message(listing.text, tuple(listing.blocks)))
    text = all_text(listing.blocks)
    assert "Your reading list (2 papers)" in text
    assert MOG_TITLE in text and DARK_TITLE in text
    assert _card_labels(listing.blocks, DARK_ID)[1] == "Saved ✓"


def test_export_sends_a_bibtex_file_by_direct_message(bot):
    acked(bot.slash("saved export"))
    [nothing] = bot.recorder.wait_for(RESPONSE_URL)
    assert "nothing to export" in nothing.text
    bot.services.store.save_paper(*_ids(bot), MOG_ID)
    bot.services.store.save_paper(*_ids(bot), DARK_ID)
    acked(bot.slash("saved export"))
    said = bot.recorder.wait_for(RESPONSE_URL, 2)[1]
    assert said.args["response_type"] == "ephemeral"
    assert "(2 papers) as a BibTeX file in a direct message" in said.text
    [opened] = bot.recorder.calls_to("conversations.open")
    assert opened.args["users"] == bot.workspace.user_id
    [shared] = bot.recorder.files
    assert shared.channel_id == opened.response["channel"]["id"]
    assert shared.filename.endswith(".bib")
    parsed = parse_string(shared.content.decode("utf-8"), "bibtex")
    assert set(parsed.entries) == {MOG_ID, DARK_ID}
    mog = parsed.entries[MOG_ID]
    assert mog.type == "inproceedings"
    assert mog.fields["title"] == "{" + MOG_TITLE + "}"
    assert mog.fields["year"] == "2025"
    assert "ICLR 2025" in mog.fields["booktitle"]
    assert mog.fields["url"] == f"https://openreview.net/forum?id={MOG_ID}"
    authors = [str(person) for person in mog.persons["author"]]
    assert authors[:3] == ["Zhang, Guibin", "Sun, Xiangguo", "Yue, Yanwei"]


# --- the App Home --------------------------------------------------------------------------


def _home(bot: LiveBot, count: int = 1) -> dict:
    return bot.recorder.wait_for("views.publish", count)[count - 1].args["view"]


def test_the_home_tab_pages_a_long_reading_list_within_the_view_limits(bot):
    store = bot.services.store
    papers = list(bot.services.index.papers)
    catalogue_ids = [
        pid for pid in catalogue_by_openreview_id() if pid not in {p.id for p in papers}
    ]
    ids = [paper.id for paper in papers] + catalogue_ids[: 250 - len(papers)]
    for paper_id in ids:
        store.save_paper(*_ids(bot), paper_id)
    assert store.saved_count(*_ids(bot)) == 250

    acked(bot.open_home())
    first = _home(bot)
    _check_view(first)
    text = all_text(first["blocks"])
    assert "1\u201320 of 250" in text
    assert labels(first["blocks"]).count("Remove") == 20
    assert "Previous" not in labels(first["blocks"])

    acked(bot.click_in_view(first, render_home.ACTION_PAGE))
    second = _home(bot, 2)
    _check_view(second)
    assert "21\u201340 of 250" in all_text(second["blocks"])
    assert labels(second["blocks"])[-2:] == ["Previous", "Next"]

    last = bot.services.answers.home(viewer(bot), lambda _channel: True, HomePlaces(240))
    _check_view(last)
    assert "241\u2013250 of 250" in all_text(last["blocks"])
    assert "Next" not in labels(last["blocks"])
    assert labels(last["blocks"]).count("Remove") == 10


def _check_view(view: dict) -> None:
    assert len(view["blocks"]) <= MAX_VIEW_BLOCKS
    validate_view(view)
    View(**view).validate_json()


def test_home_remove_and_abstract(bot):
    store = bot.services.store
    store.save_paper(*_ids(bot), MOG_ID)
    store.save_paper(*_ids(bot), DARK_ID)
    acked(bot.open_home())
    home = _home(bot)
    acked(bot.click_in_view(home, render_home.ACTION_ABSTRACT))
    [modal] = bot.recorder.wait_for("views.open")
    assert modal.args["view"]["type"] == "modal"
    clicked, _ = find_button(home["blocks"], render_home.ACTION_ABSTRACT)
    title = {MOG_ID: MOG_TITLE, DARK_ID: DARK_TITLE}[clicked["value"]]
    assert f"|{title}>*" in all_text(modal.args["view"]["blocks"])
    _check_view(modal.args["view"])
    assert modal.args["trigger_id"]

    acked(bot.click_in_view(home, render_home.ACTION_REMOVE))
    after = _home(bot, 2)
    assert len(store.saved_papers(*_ids(bot))) == 1
    assert labels(after["blocks"]).count("Remove") == 1


def test_the_home_lists_subscribed_channels_the_person_can_see(bot):
    store = bot.services.store
    for channel, topic in (
        ("C0PUBLIC", "graphs <!channel> & <b>"),
        ("G0MINE", None),
        ("G0THEIRS", None),
    ):
        store.save_subscription(
            SubscriptionRecord(channel, "09:30", "Europe/Berlin", "weekdays", topic, "command")
        )
    bot.recorder.add_channel("G0MINE", is_private=True, members=(bot.workspace.user_id,))
    bot.recorder.add_channel("G0THEIRS", is_private=True, members=("U0SOMEONE",))
    acked(bot.open_home())
    text = all_text(_home(bot)["blocks"])
    assert "<#C0PUBLIC> · 09:30 Europe/Berlin, on weekdays" in text
    assert "“graphs &lt;!channel&gt; &amp; &lt;b&gt;”" in text
    assert "<#G0MINE>" in text
    assert "G0THEIRS" not in text
    assert "How to use paperbot" in text
    asked = len(bot.recorder.calls_to("conversations.info", "conversations.members"))
    acked(bot.open_home())
    again = all_text(_home(bot, 2)["blocks"])
    assert "<#G0MINE>" in again and "G0THEIRS" not in again
    assert len(bot.recorder.calls_to("conversations.info", "conversations.members")) == asked


def test_the_messages_tab_publishes_nothing(bot):
    acked(bot.event(payloads.app_home_opened(bot.workspace, tab="messages")))
    bot.drain()
    assert bot.recorder.calls_to("views.publish") == []


@pytest.mark.parametrize(
    ("text", "seen"),
    [
        ("saved", f"Your reading list (1 paper): {MOG_TITLE}"),
        ("saved export", "(1 paper) as a BibTeX file in a direct message"),
    ],
)
def test_reading_list_commands_ack_in_time_and_answer(bot, text, seen):
    bot.services.store.save_paper(*_ids(bot), MOG_ID)
    acked(bot.slash(text))
    [reply] = bot.recorder.wait_for(RESPONSE_URL)
    assert reply.args["response_type"] == "ephemeral"
    assert seen in reply.text


def test_the_manifest_declares_what_these_features_need():
    manifest = json.loads((PROJECT_ROOT / "manifest.json").read_text())
    features = manifest["features"]
    assert features["unfurl_domains"] == ["openreview.net", "arxiv.org"]
    assert features["app_home"]["home_tab_enabled"] is True
    [shortcut] = features["shortcuts"]
    assert (shortcut["type"], shortcut["callback_id"]) == ("message", FIND_RELATED)
    events = set(manifest["settings"]["event_subscriptions"]["bot_events"])
    assert {"link_shared", "app_home_opened"} <= events
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    needed = {"links:read", "links:write", "files:write", "channels:read", "groups:read"}
    assert needed | {"im:write"} <= scopes


def test_removing_the_last_paper_of_a_page_shows_the_page_before(bot):
    store = bot.services.store
    for paper in bot.services.index.papers[:6]:
        store.save_paper(*_ids(bot), paper.id)
    bot.slash("saved")
    [first] = bot.recorder.wait_for(RESPONSE_URL)
    bot.click(first.blocks, render.ACTION_NEXT_PAGE)
    second = bot.recorder.wait_for(RESPONSE_URL, 2)[1]
    assert "(6 of 6)" in all_text(second.blocks)
    acked(bot.click(second.blocks, render.ACTION_UNSAVE))
    third = bot.recorder.wait_for(RESPONSE_URL, 3)[2]
    assert "(5 papers)" in all_text(third.blocks)


def test_post_in_thread_posts_only_a_remembered_message_not_a_search(bot):
    answers = bot.services.answers
    search_key = bot.services.store.remember_query("graph sparsification")
    thread = ("C0RESEARCH", "1700000600.000100")
    assert answers.post_related(RelatedTarget(search_key, thread)) is None
    related_key = bot.services.store.remember_query("graph sparsification", "related")
    posted = answers.post_related(RelatedTarget(related_key, thread))
    assert posted is not None and posted[:2] == ("C0RESEARCH", "1700000600.000100")
