"""For you end to end over HTTP, through the real app and the fake Slack: five papers saved on
one topic bring suggestions on that topic to the App Home; **Not relevant** removes one for
good (in the tab and in ``/paper for me``, page after page, even after the model learns
more); ``/paper forget me`` leaves no row of the person in any table."""

from __future__ import annotations

import sqlite3
from typing import Any

from slack_harness import LiveBot, all_text, find_button

from bot.buttons import HomePlaces, PaperButton, decode_home_paper
from bot.render import blocks as bk
from bot.render import foryou as render_foryou
from bot.render import home as render_home
from bot.render import papers as render
from bot.render.message import Message
from bot.shell.fake_slack import RESPONSE_URL, RecordedCall

TOPIC = "graph neural networks"
PERSONAL_MARKER = "forgotten_people"
"""The one table that may name a forgotten person: by design it holds their two ids (and
nothing else) until they save again, so no new signal about them is kept meanwhile."""


def _last_answer(bot: LiveBot) -> RecordedCall:
    """The latest private answer, validated as Slack would take it."""
    bot.drain()
    call = bot.recorder.calls_to(RESPONSE_URL)[-1]
    bk.validate(Message(call.text, tuple(call.blocks)))
    assert call.text.strip()
    return call


def _home(bot: LiveBot) -> dict[str, Any]:
    """The App Home as last published, validated."""
    bot.drain()
    view = bot.recorder.calls_to("views.publish")[-1].args["view"]
    bk.validate_view(view)
    return view


def _values(blocks: list[dict[str, Any]], action_id: str) -> list[str]:
    return [
        element["value"]
        for block in blocks
        if block["type"] == "actions"
        for element in block["elements"]
        if element["action_id"] == action_id
    ]


def _home_suggestions(view: dict[str, Any]) -> list[str]:
    values = _values(view["blocks"], render_foryou.ACTION_HOME_DISMISS)
    return [decode_home_paper(value, for_you=True)[0] for value in values]


def _page_suggestions(blocks: list[dict[str, Any]]) -> list[str]:
    values = _values(blocks, render_foryou.ACTION_DISMISS)
    return [PaperButton.decode(value).paper_id for value in values]


def _save_five_on_the_topic(bot: LiveBot) -> list[str]:
    bot.slash(TOPIC)
    page = _last_answer(bot).blocks
    saved = []
    for number in range(5):
        button, _ = find_button(page, render.ACTION_SAVE, number)
        saved.append(PaperButton.decode(button["value"]).paper_id)
        bot.click(page, render.ACTION_SAVE, index=number)
    bot.drain()
    return saved


def _every_for_you_page(bot: LiveBot) -> list[str]:
    """``/paper for me``, then **Next 5** until there is none: every suggestion, in order."""
    bot.slash("for me")
    answer = _last_answer(bot)
    shown = _page_suggestions(answer.blocks)
    while _values(answer.blocks, render.ACTION_NEXT_PAGE):
        bot.click(answer.blocks, render.ACTION_NEXT_PAGE)
        answer = _last_answer(bot)
        shown += _page_suggestions(answer.blocks)
    return shown


def _on_topic(bot: LiveBot, paper_id: str) -> bool:
    paper = bot.services.answers.papers.get(paper_id)
    assert paper is not None
    return "graph" in f"{paper.title} {paper.abstract}".lower()


def test_five_saves_on_a_topic_bring_unsaved_papers_on_it_to_the_app_home(bot):
    before = bot.open_home()
    assert before.status == 200
    assert "Save at least 3 papers (you have 0)" in all_text(_home(bot)["blocks"])
    saved = _save_five_on_the_topic(bot)
    bot.open_home()
    view = _home(bot)
    suggested = _home_suggestions(view)
    assert len(suggested) == render_foryou.HOME_PAGE_SIZE
    assert not set(suggested) & set(saved)
    on_topic = [paper_id for paper_id in suggested if _on_topic(bot, paper_id)]
    assert len(on_topic) >= 4 and _on_topic(bot, suggested[0]), on_topic
    assert view["blocks"][0]["text"]["text"] == "For you"
    assert "which you saved" in all_text(view["blocks"])


def _places(view: dict[str, Any]) -> tuple[HomePlaces, HomePlaces]:
    """Where each list is, as its own first paper button says: (For you's, the reading list's)."""
    [on_for_you, *_] = _values(view["blocks"], render_foryou.ACTION_HOME_DISMISS)
    [on_reading_list, *_] = _values(view["blocks"], render_home.ACTION_REMOVE)
    return (
        decode_home_paper(on_for_you, for_you=True)[1],
        decode_home_paper(on_reading_list, for_you=False)[1],
    )


def test_a_click_in_one_app_home_list_leaves_the_other_where_it_was(bot):
    saved = _save_five_on_the_topic(bot)
    more = [paper.id for paper in bot.services.index.papers if paper.id not in saved][:20]
    for paper_id in more:
        bot.services.store.save_paper(bot.workspace.team_id, bot.workspace.user_id, paper_id)
    bot.open_home()
    bot.click_in_view(_home(bot), render_foryou.ACTION_HOME_PAGE)
    hidden = _home_suggestions(_home(bot))[0]
    bot.click_in_view(_home(bot), render_foryou.ACTION_HOME_DISMISS)
    for_you_page_2 = _home(bot)
    assert _places(for_you_page_2) == (HomePlaces(0, 5), HomePlaces(0, 5, hidden))
    assert _values(for_you_page_2["blocks"], render_foryou.ACTION_HOME_UNDISMISS)

    bot.click_in_view(for_you_page_2, render_home.ACTION_PAGE)
    reading_list_page_2 = _home(bot)
    assert "21\u201325 of 25" in all_text(reading_list_page_2["blocks"])
    assert _places(reading_list_page_2) == (HomePlaces(20, 5), HomePlaces(20, 5, hidden))
    assert _values(reading_list_page_2["blocks"], render_foryou.ACTION_HOME_UNDISMISS)

    bot.click_in_view(reading_list_page_2, render_home.ACTION_REMOVE)
    removed = _home(bot)
    assert "21\u201324 of 24" in all_text(removed["blocks"])
    assert _places(removed)[0] == HomePlaces(20, 5)
    assert _values(removed["blocks"], render_foryou.ACTION_HOME_UNDISMISS)

    bot.click_in_view(removed, render_foryou.ACTION_HOME_SAVE)
    saved_from_for_you = _home(bot)
    assert "21\u201325 of 25" in all_text(saved_from_for_you["blocks"])
    assert _places(saved_from_for_you) == (HomePlaces(20, 5), HomePlaces(20, 5))


def test_not_relevant_removes_a_suggestion_for_good(bot):
    _save_five_on_the_topic(bot)
    bot.open_home()
    first = _home(bot)
    hidden = _home_suggestions(first)[0]
    bot.click_in_view(first, render_foryou.ACTION_HOME_DISMISS)
    after = _home(bot)
    assert hidden not in _home_suggestions(after)
    assert "I won't suggest it again" in all_text(after["blocks"])
    assert _values(after["blocks"], render_foryou.ACTION_HOME_UNDISMISS)

    bot.slash("for me")
    page = _last_answer(bot)
    second = _page_suggestions(page.blocks)[0]
    bot.click(page.blocks, render_foryou.ACTION_DISMISS)
    redrawn = _last_answer(bot)
    assert redrawn.args.get("replace_original") is True
    assert second not in _page_suggestions(redrawn.blocks)
    assert _values(redrawn.blocks, render_foryou.ACTION_UNDISMISS)

    learned_more = _page_suggestions(redrawn.blocks)[0]
    bot.click(redrawn.blocks, render.ACTION_SAVE)
    every = _every_for_you_page(bot)
    assert every and not {hidden, second, learned_more} & set(every)


def test_forget_me_leaves_no_row_of_the_person(bot, tmp_path):
    _save_five_on_the_topic(bot)
    bot.slash("for me")
    bot.click(_last_answer(bot).blocks, render_foryou.ACTION_DISMISS)
    bot.drain()
    bot.slash("forget me")
    answer = _last_answer(bot)
    assert answer.text == (
        "Deleted your reading list (5 papers) and 1 dismissal. paperbot keeps nothing new "
        "about you until you save or hide a paper again."
    )
    user_id = bot.workspace.user_id
    with sqlite3.connect(tmp_path / "paperbot.db") as database:
        tables = [
            row[0] for row in database.execute("SELECT name FROM sqlite_master WHERE type='table'")
        ]
        for table in tables:
            rows = database.execute(f'SELECT * FROM "{table}"').fetchall()
            naming = [row for row in rows if user_id in map(str, row)]
            if table == PERSONAL_MARKER:
                assert all(len(row) == 2 for row in naming), table
            else:
                assert not naming, table
    assert "(you have 0)" in all_text(_home(bot)["blocks"])
    bot.slash("for me")
    assert "(you have 0)" in _last_answer(bot).text
