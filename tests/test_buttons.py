"""The button-value codec: values already posted in Slack keep decoding.

Every value below is written exactly as the bot wrote it before the codec had one home
(private lists, thread replies, link previews, the App Home and the daily post), so a change
of format that would strand a button already in a channel fails here first.
"""

from __future__ import annotations

from datetime import date

import pytest

from bot.buttons import (
    FIRST_PAGES,
    HomePlaces,
    PageCursor,
    PageKind,
    PaperButton,
    RelatedTarget,
    ascii_count,
    decode_home_page,
    decode_home_paper,
    home_page_value,
    home_paper_value,
)
from bot.render import digest as render_digest
from bot.render import home as render_home
from bot.render import papers as render

PAPER = "7ANDviElAo"
KEY = "0123456789abcdef"


@pytest.mark.parametrize(
    ("value", "cursor"),
    [
        (f"q:5:{KEY}", PageCursor(PageKind.QUERY, KEY, 5)),
        (f"s:10:{PAPER}", PageCursor(PageKind.SIMILAR, PAPER, 10)),
        (f"p:0:{PAPER}", PageCursor(PageKind.PAPER, PAPER, 0)),
        (
            f"a:0:{PAPER} q:5:{KEY}",
            PageCursor(PageKind.ABSTRACT, PaperButton(PAPER, PageCursor(PageKind.QUERY, KEY, 5))),
        ),
        (f"a:0:{PAPER}", PageCursor(PageKind.ABSTRACT, PaperButton(PAPER), 0)),
        (f"n:0:{PAPER}", PageCursor(PageKind.NOTICE, PAPER, 0)),
        ("r:5:me", PageCursor(PageKind.SAVED, "me", 5)),
        (f"w:5:{KEY}", PageCursor(PageKind.NEW, KEY, 5)),
        (f"t:0:{KEY}", PageCursor(PageKind.RELATED, RelatedTarget(KEY), 0)),
        (
            f"t:5:{KEY} C0CHANNEL 1700000000.000100",
            PageCursor(PageKind.RELATED, RelatedTarget(KEY, ("C0CHANNEL", "1700000000.000100")), 5),
        ),
    ],
)
def test_page_values_already_posted_decode_and_encode_back_unchanged(value, cursor):
    assert PageCursor.decode(value) == cursor
    assert cursor.encode() == value


@pytest.mark.parametrize(
    "value",
    [
        "",
        "q",
        "q:5",
        "q:5:",
        "x:0:key",
        "Q:0:key",
        "q:\u00b2:key",
        "q:\u0663:key",
        "q:-1:key",
        f"a:0: q:5:{KEY}",
        f"t:0:{KEY} C0CHANNEL",
    ],
)
def test_page_values_the_bot_never_wrote_decode_to_nothing(value):
    assert PageCursor.decode(value) is None


@pytest.mark.parametrize(
    ("value", "button"),
    [
        (PAPER, PaperButton(PAPER)),
        (f"{PAPER} q:5:{KEY}", PaperButton(PAPER, PageCursor(PageKind.QUERY, KEY, 5))),
        (f"{PAPER} n:0:{PAPER}", PaperButton(PAPER, PageCursor(PageKind.NOTICE, PAPER))),
        (
            f"{PAPER} a:0:{PAPER} q:5:{KEY}",
            PaperButton(
                PAPER,
                PageCursor(
                    PageKind.ABSTRACT, PaperButton(PAPER, PageCursor(PageKind.QUERY, KEY, 5))
                ),
            ),
        ),
    ],
)
def test_abstract_and_save_values_already_posted_decode(value, button):
    assert PaperButton.decode(value) == button
    assert button.encode() == value


@pytest.mark.parametrize("value", ["", f" q:5:{KEY}"])
def test_abstract_and_save_values_the_bot_never_wrote_decode_to_nothing(value):
    assert PaperButton.decode(value) is None


@pytest.mark.parametrize("value", [f"{PAPER} garbage", f"{PAPER} q:\u00b2:k"])
def test_an_unreadable_page_still_leaves_the_paper_to_act_on(value):
    button = PaperButton.decode(value)
    assert button == PaperButton(PAPER, page_unreadable=True)
    assert button.on_private_page


def test_post_in_thread_values_already_posted_decode():
    value = f"{KEY} C0CHANNEL 1700000000.000100"
    target = RelatedTarget(KEY, ("C0CHANNEL", "1700000000.000100"))
    assert RelatedTarget.decode(value) == target
    assert target.encode() == value
    assert RelatedTarget.decode(KEY) == RelatedTarget(KEY)
    assert RelatedTarget(KEY).encode() == KEY
    assert RelatedTarget.decode(f"{KEY} C0CHANNEL") is None
    assert RelatedTarget.decode("") is None


def test_app_home_values_already_posted_decode_with_the_other_list_on_its_first_page():
    assert decode_home_paper(f"{PAPER} 20", for_you=False) == (PAPER, HomePlaces(reading_list=20))
    assert decode_home_paper(f"{PAPER} 5", for_you=True) == (PAPER, HomePlaces(for_you=5))
    assert decode_home_paper(f"{PAPER} \u00b2", for_you=False) == (PAPER, FIRST_PAGES)
    assert decode_home_paper(PAPER, for_you=True) == (PAPER, FIRST_PAGES)
    assert decode_home_page("40", for_you=False) == HomePlaces(reading_list=40)
    assert decode_home_page("10", for_you=True) == HomePlaces(for_you=10)
    forged = ("", "-20", "\u0663", "1" * 10, "-1 -1")
    assert [decode_home_page(value, for_you=False) for value in forged] == [FIRST_PAGES] * 5


def test_app_home_values_carry_both_lists_places():
    places = HomePlaces(reading_list=40, for_you=10, hidden="hIdDeNpApEr")
    on_reading_list = home_paper_value(PAPER, places, for_you=False)
    assert on_reading_list == f"{PAPER} 40 10 hIdDeNpApEr"
    assert decode_home_paper(on_reading_list, for_you=False) == (PAPER, places)
    assert home_page_value(places, for_you=False) == "40 10 hIdDeNpApEr"
    assert decode_home_page("40 10 hIdDeNpApEr", for_you=False) == places
    on_for_you = home_paper_value(PAPER, places, for_you=True)
    assert on_for_you == f"{PAPER} 10 40"
    assert decode_home_paper(on_for_you, for_you=True) == (PAPER, HomePlaces(40, 10))
    assert decode_home_page(home_page_value(places, for_you=True), for_you=True) == HomePlaces(
        40, 10
    )
    largest = HomePlaces(10**9 - 1, 10**9 - 1, "x" * 100)
    assert len(home_paper_value("y" * 100, largest, for_you=False)) < 2000


def test_ascii_count_takes_ascii_digits_only():
    assert [ascii_count(text) for text in ("0", "42", "\u00b2", "\u0663", "", "-1", "1" * 10)] == [
        0,
        42,
        None,
        None,
        None,
        None,
        None,
    ]


def _values(blocks: list[dict]) -> dict[str, str]:
    return {
        element["action_id"]: element["value"]
        for block in blocks
        if block["type"] == "actions"
        for element in block["elements"]
    }


def test_render_writes_todays_formats(seed_corpus):
    paper = seed_corpus.papers[0]
    post = render_digest.digest_post(paper, date(2025, 3, 28), position=1, pool_size=76)
    assert _values(list(post.blocks)) == {
        render.ACTION_ABSTRACT: paper.id,
        render.ACTION_SAVE: paper.id,
        render.ACTION_MORE_LIKE_THIS: paper.id,
    }
    card = render.paper_message(paper, this_page=PageCursor(PageKind.PAPER, paper.id), saved=True)
    assert _values(list(card.blocks)) == {
        render.ACTION_ABSTRACT: f"{paper.id} p:0:{paper.id}",
        render.ACTION_UNSAVE: f"{paper.id} p:0:{paper.id}",
        render.ACTION_SHARE: paper.id,
        render.ACTION_MORE_LIKE_THIS: paper.id,
    }
    assert PaperButton(paper.id).encode() == paper.id
    home = render_home.home_view([paper], total=45, places=HomePlaces(20), subscriptions=[])
    assert _values(home["blocks"]) == {
        render_home.ACTION_ABSTRACT: paper.id,
        render_home.ACTION_REMOVE: f"{paper.id} 20 0",
        render_home.ACTION_PAGE: "40 0",
    }
