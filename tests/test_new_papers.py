"""``/paper new [TOPIC]`` against the real index and a SQLite store: the papers of the last
announcement day, by topic or by what the channel or the person engages with, paged; the two
readings of a text starting with "new"; and the answer of a bot with no announced papers."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, date, datetime

import pytest
from slack_harness import all_text

from bot.answers import Answers, Viewer
from bot.answers.typed import Intent, Request, parse_command, parse_mention
from bot.buttons import PageCursor, PageKind, PaperButton
from bot.render import blocks as bk
from bot.render import papers as render
from bot.render.message import Message
from bot.search.engine import SearchIndex
from bot.search.semantic import ranker_for
from bot.store import Store

VIEWER = Viewer("T1", "U1")
FRIDAY = date(2025, 4, 18)
SATURDAY_MORNING = datetime(2025, 4, 19, 8, 0, tzinfo=UTC)
GRAPH_QUERY = "graph neural networks"
OTHER_QUERY = "language models"
SENTENCE = "new methods for graph neural networks"


@pytest.mark.parametrize(
    ("text", "request_"),
    [
        ("new", Request(Intent.NEW)),
        ("New", Request(Intent.NEW)),
        ("new graph pruning", Request(Intent.NEW, "graph pruning")),
        ("new methods for graph pruning", Request(Intent.NEW, "methods for graph pruning")),
        ("new since:2025-04-01", Request(Intent.NEW, "since:2025-04-01")),
        ("nwe", Request(Intent.MISTYPED, "new")),
        ("neww graph pruning", Request(Intent.MISTYPED, "new graph pruning")),
        ('"new" methods', Request(Intent.SEARCH, '"new" methods')),
        ("newton methods", Request(Intent.SEARCH, "newton methods")),
        ("NER tagging", Request(Intent.SEARCH, "NER tagging")),
        ("few shot", Request(Intent.SEARCH, "few shot")),
    ],
)
def test_new_is_a_command_as_the_first_word_and_its_slips_are_caught(text, request_):
    assert parse_command(text) == request_


@pytest.fixture(scope="module")
def announced(seed_corpus) -> tuple[list[str], list[str]]:
    """Four graph papers and five language-model papers of the seeds, announced on Friday."""
    plain = SearchIndex.build(seed_corpus.papers)
    graph = [hit.paper.id for hit in plain.search(GRAPH_QUERY, limit=4).hits]
    other = [hit.paper.id for hit in plain.search(OTHER_QUERY, limit=6).hits]
    return graph, [paper_id for paper_id in other if paper_id not in graph][:5]


@pytest.fixture(scope="module")
def replaced(seed_corpus, announced) -> tuple[str, str]:
    """Two graph papers of the seeds announced again as arXiv replaces (second versions):
    one on Friday beside the new ones, one alone on Saturday."""
    plain = SearchIndex.build(seed_corpus.papers)
    taken = {*announced[0], *announced[1]}
    graph = [hit.paper.id for hit in plain.search(GRAPH_QUERY, limit=10).hits]
    friday, saturday = [paper_id for paper_id in graph if paper_id not in taken][:2]
    return friday, saturday


@pytest.fixture(scope="module")
def index(seed_corpus, announced, replaced) -> SearchIndex:
    """The seeds with their vectors, nine of them a feed's papers announced on Friday, and
    two replaced papers (``replaced``)."""
    ids = {*announced[0], *announced[1]}
    days = {replaced[0]: FRIDAY, replaced[1]: SATURDAY_MORNING.date()}
    papers = [
        replace(paper, announced=FRIDAY)
        if paper.id in ids
        else replace(paper, announced=days[paper.id], arxiv_version=2)
        if paper.id in days
        else paper
        for paper in seed_corpus.papers
    ]
    return SearchIndex.build(papers, ranker_for("seeds"), clock=lambda: SATURDAY_MORNING)


@pytest.fixture
def store(tmp_path) -> Iterator[Store]:
    opened = Store(f"sqlite:///{tmp_path / 'paperbot.db'}")
    yield opened
    opened.close()


@pytest.fixture
def answers(index, store) -> Answers:
    return Answers(index, store, clock=lambda: SATURDAY_MORNING)


def _new(answers: Answers, rest: str = "", channel: str = "C1") -> Message:
    reply = answers.command(parse_command(f"new {rest}".strip()), channel, VIEWER)
    bk.validate(reply)
    return reply


def _text(message: Message) -> str:
    return all_text(list(message.blocks))


def _card_ids(message: Message) -> list[str]:
    return [
        PaperButton.decode(element["value"]).paper_id
        for block in message.blocks
        if block["type"] == "actions"
        for element in block["elements"]
        if element["action_id"] == render.ACTION_ABSTRACT
    ]


def _button(message: Message, action_id: str) -> dict:
    (button,) = (
        element
        for block in message.blocks
        if block["type"] == "actions"
        for element in block["elements"]
        if element["action_id"] == action_id
    )
    return button


def _press(answers: Answers, message: Message, action_id: str) -> Message:
    cursor = PageCursor.decode(_button(message, action_id)["value"])
    reply = answers.page(cursor, VIEWER)
    bk.validate(reply)
    return reply


def test_new_alone_lists_the_last_announcement_day_newest_first_paged(answers, announced):
    first = _new(answers)
    text = _text(first)
    assert "New papers announced Friday 18 April 2025 (1\u20135 of 9)" in text
    assert "Newest first: there is nothing yet to learn from" in text
    assert PageCursor.decode(_button(first, render.ACTION_NEXT_PAGE)["value"]).kind is PageKind.NEW
    second = _press(answers, first, render.ACTION_NEXT_PAGE)
    assert "(6\u20139 of 9)" in _text(second)
    shown = _card_ids(first) + _card_ids(second)
    assert sorted(shown) == sorted(announced[0] + announced[1])


def test_a_replaced_paper_is_not_new_in_any_list_nor_makes_a_day_new(answers, index, replaced):
    """As in the channel's new papers post: a replace is a paper announced before. The
    Saturday that announced only a replace is no announcement day of new papers."""
    lists = [_new(answers), _new(answers, "graph"), _new(answers, "since:2025-04-01")]
    lists.append(_press(answers, lists[0], render.ACTION_NEXT_PAGE))
    for listed in lists:
        assert not set(replaced) & set(_card_ids(listed))
    assert "New papers announced Friday 18 April 2025 (1\u20135 of 9)" in _text(lists[0])
    assert "(4 papers)" in _text(lists[1])
    sentence = _text(_new(answers, SENTENCE.removeprefix("new ")))
    new_matches = [
        paper.id
        for paper in index.results(f"{SENTENCE.removeprefix('new ')} since:2025-04-18")
        if paper.id not in replaced
    ]
    assert f"{len(new_matches)} papers announced since Friday 18 April 2025 match" in sentence
    searched = {paper.id for paper in index.results(f"{GRAPH_QUERY} since:2025-04-18")}
    assert set(replaced) <= searched, "a search still finds them"


def test_in_a_dm_the_persons_saves_put_papers_like_them_first(answers, index, announced):
    graph_paper = next(
        hit.paper.id
        for hit in index.search(GRAPH_QUERY, limit=10).hits
        if hit.paper.id not in announced[0]
    )
    answers.set_saved(PaperButton(graph_paper), VIEWER, saved=True)
    reply = _new(answers, channel="D1")
    text = _text(reply)
    assert "Papers like the ones you saved come first." in text
    assert "which you saved" in text
    assert set(_card_ids(reply)[:4]) == set(announced[0])


def test_a_mention_lists_them_in_its_thread_never_ranked_by_the_askers_saves(
    answers, index, announced
):
    """Everyone in the channel sees a mention's reply; a direct message is the person's."""
    graph_paper = next(
        hit.paper.id
        for hit in index.search(GRAPH_QUERY, limit=10).hits
        if hit.paper.id not in announced[0]
    )
    answers.set_saved(PaperButton(graph_paper), VIEWER, saved=True)

    def mention(channel: str) -> Message:
        request = parse_mention("<@UBOT> new", "UBOT")
        reply = answers.mention(
            request, channel, "1700000000.000100", in_thread=False, viewer=VIEWER
        )
        bk.validate(reply)
        return reply

    public = _text(mention("C1"))
    assert "New papers announced Friday 18 April 2025 (1\u20133 of 9)" in public
    assert "Newest first" in public and "you save" not in public
    assert "Say `@paperbot more` for the next results." in public
    direct = mention("D1")
    assert "Papers like the ones you saved come first." in _text(direct)
    assert set(_card_ids(direct)) <= set(announced[0])


def test_in_a_channel_its_shares_put_papers_like_them_first(answers, store, announced, index):
    other_paper = next(
        hit.paper.id
        for hit in index.search(OTHER_QUERY, limit=10).hits
        if hit.paper.id not in announced[1]
    )
    store.record_share("T1", "C1", "U2", other_paper, "1700000000.000100")
    text = _text(_new(answers, channel="C1"))
    assert "Papers like the ones shared and reacted to in <#C1> come first." in text
    assert set(_card_ids(_new(answers, channel="C1"))[:5]) == set(announced[1])
    quiet = _text(_new(answers, channel="C2"))
    assert "Newest first: there is nothing yet to learn from. Papers like the ones shared" in quiet
    answers.set_saved(PaperButton(other_paper), VIEWER, saved=True)
    text = _text(_new(answers, channel="C2"))
    assert (
        "<#C2> has no shares or reactions to learn from yet, so papers like the ones you " in text
    )


def test_new_and_keywords_lists_the_new_papers_about_them_and_offers_the_search(answers, announced):
    reply = _new(answers, "graph")
    text = _text(reply)
    assert "New papers about “graph” announced Friday 18 April 2025 (4 papers)" in text
    assert set(_card_ids(reply)) == set(announced[0])
    searched = _press(answers, reply, render.ACTION_OTHER_READING)
    assert "Papers for “new graph”" in _text(searched)


def test_new_and_a_sentence_is_a_search_of_every_paper_offering_the_new_ones(answers, announced):
    reply = _new(answers, SENTENCE.removeprefix("new "))
    text = _text(reply)
    assert f"Papers for “{SENTENCE}”" in text
    assert "which reads as a sentence" in text
    assert _card_ids(reply) == _card_ids(answers.search(SENTENCE, VIEWER))
    new_ones = _press(answers, reply, render.ACTION_OTHER_READING)
    listed = _text(new_ones)
    assert "New papers about “methods for graph neural networks”" in listed
    assert set(_card_ids(new_ones)) <= set(announced[0] + announced[1])


def test_keywords_no_new_paper_is_about_are_the_search_saying_so(answers):
    reply = _new(answers, "protein folding")
    text = _text(reply)
    assert "No paper announced since Friday 18 April 2025 is about “protein folding”" in text
    assert "Papers for “new protein folding”" in text


def test_an_explicit_since_sets_the_first_day(answers):
    text = _text(_new(answers, "since:2025-04-01"))
    assert "New papers announced since Tuesday 1 April 2025 (1\u20135 of 9)" in text


def test_a_mistyped_new_is_asked_about_and_changes_nothing(answers):
    text = answers.command(parse_command("nwe graph"), "C1", VIEWER).text
    assert "Did you mean `/paper new graph`?" in text
    assert "Nothing was changed" not in text


def test_without_announced_papers_new_says_where_they_come_from_and_words_search(
    seed_corpus, store
):
    shipped = Answers(SearchIndex.build(seed_corpus.papers), store)
    alone = shipped.command(Request(Intent.NEW), "C1", VIEWER).text
    assert "it follows none" in alone and "PAPERBOT_FEEDS" in alone
    words = shipped.command(parse_command("new graph pruning"), "C1", VIEWER)
    assert words == shipped.search("new graph pruning", VIEWER)


def test_a_forged_or_expired_list_key_says_the_list_expired(answers, store):
    search_key = store.remember_query("graph")
    for key in ("0123456789abcdef", search_key):
        reply = answers.page(PageCursor(PageKind.NEW, key, 5), VIEWER)
        assert reply == render.expired_message()
    garbled = store.remember_query("{not json", "new")
    assert answers.page(PageCursor(PageKind.NEW, garbled), VIEWER) == render.expired_message()
