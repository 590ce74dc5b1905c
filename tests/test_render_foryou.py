"""For you as Slack shows it: every card says why, the reasons are what to do instead, the
**Not relevant** and **Undo** values decode, titles are escaped, and every message and the
App Home stay within Block Kit's limits."""

from __future__ import annotations

from dataclasses import replace

from slack_harness import all_text

from bot.buttons import (
    FIRST_PAGES,
    HomePlaces,
    PageCursor,
    PageKind,
    PaperButton,
    decode_home_paper,
)
from bot.render import blocks as bk
from bot.render import foryou as render_foryou
from bot.render import home as render_home
from bot.render import papers as render
from bot.render.help_card import help_message
from bot.search.results import ForYou, NoVectors, Suggestion, TooFewSaves

THIS_PAGE = PageCursor(PageKind.FOR_YOU, "me", 5)


def _suggestions(index, count: int) -> tuple[Suggestion, ...]:
    papers = index.papers
    like = papers[0]
    return tuple(
        Suggestion(paper, like, 1.0 - rank / 100)
        for rank, paper in enumerate(papers[1 : count + 1])
    )


def _page(index, count: int = 5, *, offset: int = 5, total: int = 50) -> ForYou:
    return ForYou(_suggestions(index, count), total, offset, 5, None)


def _buttons(blocks, action_id: str) -> list[dict]:
    return [
        element
        for block in blocks
        if block["type"] == "actions"
        for element in block["elements"]
        if element["action_id"] == action_id
    ]


def test_each_card_says_which_saved_paper_it_is_like_and_offers_not_relevant(index):
    result = _page(index)
    message = render_foryou.for_you_message(
        result,
        this_page=THIS_PAGE,
        next_page=replace(THIS_PAGE, offset=10),
        previous_page=replace(THIS_PAGE, offset=0),
    )
    text = all_text(list(message.blocks))
    like = index.papers[0].title
    assert text.count(f"Like *{like}*, which you saved") == 5
    assert "*For you* (6\u201310 of 50)" in text
    assert "Learned from the 5 papers you saved" in text
    dismisses = _buttons(message.blocks, render_foryou.ACTION_DISMISS)
    assert [PaperButton.decode(button["value"]) for button in dismisses] == [
        PaperButton(suggestion.paper.id, THIS_PAGE) for suggestion in result.suggestions
    ]
    assert {button["text"]["text"] for button in dismisses} == {"Not relevant"}
    assert len(_buttons(message.blocks, render.ACTION_SAVE)) == 5
    assert len(_buttons(message.blocks, render.ACTION_ABSTRACT)) == 5
    labels = [b["text"]["text"] for b in _buttons(message.blocks, render.ACTION_NEXT_PAGE)]
    assert labels == ["Next 5"]
    assert message.text.startswith("For you (6\u201310 of 50): ")


def test_too_few_saves_says_what_to_do_instead():
    result = ForYou((), 0, 0, 1, TooFewSaves(saves=1, needed=3))
    message = render_foryou.for_you_message(result, this_page=THIS_PAGE)
    assert message.text == (
        "Save at least 3 papers (you have 1) and I'll suggest papers like them: search with "
        "`/paper WORDS` and press Save on the ones you want to read."
    )
    assert not _buttons(message.blocks, render.ACTION_NEXT_PAGE)


def test_no_vectors_is_a_sentence_and_so_is_having_seen_them_all():
    no_vectors = render_foryou.for_you_message(
        ForYou((), 0, 0, 0, NoVectors()), this_page=THIS_PAGE
    )
    assert "I can't suggest papers here" in no_vectors.text
    seen_all = render_foryou.for_you_message(ForYou((), 0, 0, 4, None), this_page=THIS_PAGE)
    assert seen_all.text.startswith("I have no more papers to suggest")


def test_a_hidden_paper_is_named_with_an_undo_that_names_it_and_its_page(index):
    hidden = index.papers[9]
    changed = render_foryou.Changed(hidden, render_foryou.Change.HIDDEN)
    message = render_foryou.for_you_message(_page(index), this_page=THIS_PAGE, changed=changed)
    assert "I won't suggest it again" in all_text([message.blocks[0]])
    [undo] = _buttons(message.blocks, render_foryou.ACTION_UNDISMISS)
    assert undo["text"]["text"] == "Undo"
    assert PaperButton.decode(undo["value"]) == PaperButton(hidden.id, THIS_PAGE)
    saved = render_foryou.Changed(hidden, render_foryou.Change.SAVED)
    message = render_foryou.for_you_message(_page(index), this_page=THIS_PAGE, changed=saved)
    [undo] = _buttons(message.blocks, render.ACTION_UNSAVE)
    assert PaperButton.decode(undo["value"]) == PaperButton(hidden.id, THIS_PAGE)


def test_titles_are_escaped_in_cards_reasons_and_the_fallback(index):
    hostile = replace(index.papers[1], title="<!channel> *bold* & <@U1>")
    like = replace(index.papers[0], title="<!here> saved & kept")
    result = ForYou((Suggestion(hostile, like, 0.5),), 1, 0, 3, None)
    message = render_foryou.for_you_message(result, this_page=THIS_PAGE)
    home = render_foryou.home_blocks(result, FIRST_PAGES)
    for text in (all_text(list(message.blocks)), all_text(home), message.text):
        assert "<!channel>" not in text and "<!here>" not in text and "<@U1>" not in text
    assert "&lt;!here&gt; saved &amp; kept" in all_text(list(message.blocks))


def test_the_home_section_pages_five_at_a_time_with_its_own_buttons(index):
    result = _page(index, offset=5, total=12)
    reading_list_page_2 = HomePlaces(reading_list=20)
    blocks = render_foryou.home_blocks(result, reading_list_page_2)
    [previous, following] = _buttons(blocks, render_foryou.ACTION_HOME_PAGE)
    assert (previous["value"], following["value"]) == ("0 20", "10 20")
    assert following["text"]["text"] == "More suggestions"
    values = [
        decode_home_paper(b["value"], for_you=True)
        for b in _buttons(blocks, render_foryou.ACTION_HOME_DISMISS)
    ]
    assert values == [(s.paper.id, HomePlaces(20, 5)) for s in result.suggestions]
    assert len(_buttons(blocks, render_foryou.ACTION_HOME_SAVE)) == 5
    hidden = render_foryou.home_blocks(result, reading_list_page_2, hidden=index.papers[20])
    [undo] = _buttons(hidden, render_foryou.ACTION_HOME_UNDISMISS)
    assert decode_home_paper(undo["value"], for_you=True) == (
        index.papers[20].id,
        HomePlaces(20, 5),
    )


def test_the_fullest_app_home_stays_within_100_blocks(index):
    many_saved = index.papers[: render_home.PAGE_SIZE]
    channels = [
        render_home.SubscribedChannel(f"C{n:08d}", "weekdays at 9:00", "graphs")
        for n in range(render_home.MAX_CHANNELS_SHOWN)
    ]
    for_you = render_foryou.home_blocks(
        _page(index, render_foryou.HOME_PAGE_SIZE, total=50),
        HomePlaces(reading_list=20),
        hidden=index.papers[30],
    )
    view = render_home.home_view(
        many_saved,
        total=100,
        places=HomePlaces(20, render_foryou.HOME_PAGE_SIZE, index.papers[30].id),
        subscriptions=channels,
        more_channels=True,
        for_you=for_you,
    )
    bk.validate_view(view)
    assert len(view["blocks"]) <= bk.MAX_VIEW_BLOCKS
    assert view["blocks"][0]["text"]["text"] == "For you"


def test_forget_me_says_what_it_deleted_by_kind():
    message = render_foryou.forgotten_message({"saved papers": 4, "dismissals": 2, "searches": 0})
    assert message.text == (
        "Deleted your reading list (4 papers) and 2 dismissals. paperbot keeps nothing new "
        "about you until you save or hide a paper again."
    )
    one = render_foryou.forgotten_message({"saved papers": 1, "dismissals": 1, "signals": 3})
    assert one.text.startswith("Deleted your reading list (1 paper), 1 dismissal and 3 signals.")
    nothing = render_foryou.forgotten_message({"saved papers": 0, "dismissals": 0})
    assert nothing.text.startswith("I kept nothing about you")


def test_forget_me_names_the_signals_it_deleted_as_what_the_bot_keeps():
    """Shares and reactions, not Saves in a channel: a Save is kept on the reading list only."""
    message = render_foryou.forgotten_message({"channel signals": 2, "reactions": 1})
    assert message.text.startswith("Deleted 2 shares into channels and 1 reaction.")
    one = render_foryou.forgotten_message({"channel signals": 1})
    assert one.text.startswith("Deleted 1 share into a channel.")


def test_help_lists_for_me_and_forget_me():
    text = all_text(list(help_message().blocks))
    assert "`/paper for me`" in text and "`/paper forget me`" in text
