"""What ``/paper for me``, **Not relevant**, its **Undo** and ``/paper forget me`` answer,
against the real index and a SQLite store: the commands parse without taking searches away,
a hidden paper never returns on any page, and Save and Not relevant both say what they did."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from slack_harness import all_text

from bot.answers import Answers, Viewer
from bot.answers.typed import Intent, Request, parse_command
from bot.buttons import PageCursor, PageKind, PaperButton
from bot.render import foryou as render_foryou
from bot.render import papers as render
from bot.render.message import Message
from bot.search.engine import SearchIndex
from bot.search.semantic import ranker_for
from bot.store import Store

VIEWER = Viewer("T1", "U1")
FIRST_PAGE = PageCursor(PageKind.FOR_YOU, "me", 0)


@pytest.mark.parametrize("text", ["for me", "For Me", "foryou", "for you", " for   me "])
def test_for_me_is_a_command_as_the_whole_text(text):
    assert parse_command(text) == Request(Intent.FOR_YOU)


@pytest.mark.parametrize("text", ['"for me"', "papers for me", "for meta learning", "forget"])
def test_other_texts_with_those_words_still_search(text):
    assert parse_command(text).intent is Intent.SEARCH


def test_forget_me_is_a_command_only_as_the_whole_text():
    assert parse_command("forget me") == Request(Intent.FORGET_ME)
    assert parse_command("forget me not").intent is Intent.SEARCH


@pytest.fixture(scope="module")
def index(seed_corpus) -> SearchIndex:
    """The seed corpus with its paper vectors, which suggestions are learned over."""
    return SearchIndex.build(seed_corpus.papers, ranker_for("seeds"))


@pytest.fixture
def answers(index, tmp_path) -> Iterator[Answers]:
    store = Store(f"sqlite:///{tmp_path / 'paperbot.db'}")
    yield Answers(index, store)
    store.close()


def _save_graph_papers(answers: Answers, index, count: int = 5) -> list[str]:
    ids = [hit.paper.id for hit in index.search("graph neural networks", limit=count).hits]
    for paper_id in ids:
        answers.set_saved(PaperButton(paper_id), VIEWER, saved=True)
    return ids


def _suggested(message: Message) -> list[str]:
    return [
        PaperButton.decode(element["value"]).paper_id
        for block in message.blocks
        if block["type"] == "actions"
        for element in block["elements"]
        if element["action_id"] == render_foryou.ACTION_DISMISS
    ]


def test_with_too_few_saves_the_answer_says_how_many_more(answers, index):
    _save_graph_papers(answers, index, 1)
    reply = answers.command(Request(Intent.FOR_YOU), "C1", VIEWER)
    assert "Save at least 3 papers (you have 1)" in reply.text


def test_not_relevant_hides_a_paper_on_every_page_until_undone(answers, index):
    saved = _save_graph_papers(answers, index)
    first = answers.command(Request(Intent.FOR_YOU), "C1", VIEWER)
    shown = _suggested(first)
    assert len(shown) == 5 and not set(shown) & set(saved)
    hidden = shown[1]
    after = answers.set_dismissed(PaperButton(hidden, FIRST_PAGE), VIEWER, dismissed=True)
    assert "I won't suggest it again" in all_text(list(after.blocks))
    every_page = []
    for offset in range(0, 50, render.PAGE_SIZE):
        every_page += _suggested(answers.page(PageCursor(PageKind.FOR_YOU, "me", offset), VIEWER))
    assert hidden not in every_page and every_page[:1] == shown[:1]
    undone = answers.set_dismissed(PaperButton(hidden, FIRST_PAGE), VIEWER, dismissed=False)
    assert _suggested(undone) == shown


def test_save_on_a_suggestion_says_so_and_offers_undo(answers, index):
    _save_graph_papers(answers, index)
    shown = _suggested(answers.command(Request(Intent.FOR_YOU), "C1", VIEWER))
    after = answers.set_saved(PaperButton(shown[0], FIRST_PAGE), VIEWER, saved=True)
    assert "to your reading list" in all_text([after.blocks[0]])
    assert shown[0] not in _suggested(after)
    undone = answers.set_saved(PaperButton(shown[0], FIRST_PAGE), VIEWER, saved=False)
    assert _suggested(undone) == shown


def test_a_page_emptied_by_hiding_shows_the_last_one_left(answers, index):
    _save_graph_papers(answers, index)
    last = answers.page(PageCursor(PageKind.FOR_YOU, "me", 10_000), VIEWER)
    assert _suggested(last)


def test_forget_me_deletes_the_list_and_the_dismissals_and_says_so(answers, index):
    _save_graph_papers(answers, index, 4)
    hidden = _suggested(answers.page(FIRST_PAGE, VIEWER))[0]
    answers.set_dismissed(PaperButton(hidden, FIRST_PAGE), VIEWER, dismissed=True)
    reply = answers.command(Request(Intent.FORGET_ME), "C1", VIEWER)
    assert reply.text.startswith("Deleted your reading list (4 papers) and 1 dismissal.")
    again = answers.command(Request(Intent.FOR_YOU), "C1", VIEWER)
    assert "(you have 0)" in again.text
