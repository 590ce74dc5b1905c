"""The renderer: every message for every seed paper is valid Block Kit within Slack's limits,
and nothing a user typed can ping anyone or break the markup."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from slack_harness import all_text

from bot.buttons import FIRST_PAGES, PageCursor, PageKind
from bot.render import blocks as bk
from bot.render import digest as render_digest
from bot.render import home as render_home
from bot.render import papers as render
from bot.render.help_card import help_message
from bot.render.markup import abstract_mrkdwn
from bot.render.message import Message
from bot.render.mrkdwn import mrkdwn_literal
from bot.search.results import Hit, NoKnownWords, NoSuchFullName, SearchResult, UnknownId

HOSTILE = "<!channel> <!here> <@U0VICTIM> &amp; <https://evil.example|click> *bold* `x` >"


def _no_pings(message: Message) -> None:
    blob = message.text + repr(message.blocks)
    for ping in ("<!channel>", "<!here>", "<@U0VICTIM>", "<https://evil.example"):
        assert ping not in blob


def test_every_seed_paper_renders_valid_messages(seed_corpus):
    for paper in seed_corpus.papers:
        for message in (
            render.paper_message(paper),
            render.paper_message(paper, intro="A random paper:", buttons=render.PUBLIC_BUTTONS),
            render.abstract_message(paper),
            render.abstract_message(paper, buttons=render.PUBLIC_BUTTONS),
            render.shared_message(paper, "U0SHARER"),
        ):
            bk.validate(message)
            assert paper.id in repr(message.blocks)


def test_every_seed_title_search_renders_a_valid_results_page(seed_corpus, index):
    for paper in seed_corpus.papers:
        result = index.search(paper.title, limit=5)
        message = render.results_message(result, next_page=PageCursor(PageKind.QUERY, "abc", 5))
        bk.validate(message)
        assert len(message.blocks) <= bk.MAX_BLOCKS


def test_result_card_shows_title_link_status_authors_tldr_and_code(index):
    result = index.search("graph sparsification", limit=5)
    message = render.results_message(result, next_page=PageCursor(PageKind.QUERY, "key", 5))
    text = repr(message.blocks)
    mog = result.hits[0].paper
    assert f"<{mog.url}|{mrkdwn_literal(mog.title)}>" in text
    assert "ICLR 2025 Spotlight" in text
    assert "Authors: Guibin Zhang, Xiangguo Sun, Yanwei Yue +4 more" in text
    assert "not in paper order" not in text
    assert "Code: <https://github.com/yanweiyue/MoG|github.com/yanweiyue/MoG>" in text
    next_button = message.blocks[-1]["elements"][0]
    assert (next_button["text"]["text"], next_button["value"]) == ("Next 5", "q:5:key")


@pytest.mark.parametrize(
    ("code_urls", "line"),
    [
        (("https://github.com/a/b",), "Code: <https://github.com/a/b|github.com/a/b>"),
        (
            ("https://opencausalab.github.io/ADAM",),
            "Website: <https://opencausalab.github.io/ADAM|opencausalab.github.io/ADAM>",
        ),
        (
            ("https://anonymous.4open.science/r/GenRe-BD71", "https://x.github.io"),
            "Code: <https://anonymous.4open.science/r/GenRe-BD71|anonymous.4open.science/r/"
            "GenRe-BD71> · Website: <https://x.github.io|x.github.io>",
        ),
    ],
)
def test_a_project_website_is_labelled_as_one_not_as_code(seed_corpus, code_urls, line):
    mog = next(paper for paper in seed_corpus.papers if paper.id == "7ANDviElAo")
    assert render.code_line(replace(mog, code_urls=code_urls)) == line


def _authors_of(message: Message) -> str:
    return next(
        element["text"]
        for block in message.blocks
        if block["type"] == "context"
        for element in block["elements"]
        if "Author" in element["text"]
    )


def test_a_card_cites_the_first_three_authors_and_a_single_paper_lists_them_all(seed_corpus):
    mog = next(paper for paper in seed_corpus.papers if paper.id == "7ANDviElAo")
    assert mog.authors_in_order and len(mog.authors) == 7
    card = render.results_message(SearchResult("q", (Hit(mog, 1.0),), 1, 0, None, ()))
    assert (
        _authors_of(card)
        == "ICLR 2025 Spotlight · Authors: Guibin Zhang, Xiangguo Sun, Yanwei Yue +4 more"
    )
    assert _authors_of(render.shared_message(mog, "U1")).endswith("Yanwei Yue +4 more")
    every = "Authors: " + ", ".join(mog.authors)
    assert every in _authors_of(render.paper_message(mog))
    assert every in _authors_of(render.abstract_message(mog))
    assert "more" not in _authors_of(render.abstract_message(mog))


def test_an_abstract_the_catalogue_lacks_points_to_openreview(seed_corpus):
    mog = next(paper for paper in seed_corpus.papers if paper.id == "7ANDviElAo")
    bare = replace(mog, abstract=None, plain_abstract="", tldr="")
    text = all_text(list(render.abstract_message(bare).blocks))
    assert "The catalogue the bot reads has no abstract for this paper" in text
    assert "|Read on OpenReview>" in text


def _card_text(paper) -> str:
    return render.paper_blocks(paper)[0]["text"]["text"]


def test_a_followed_paper_says_where_it_stands_in_its_own_sources_words(seed_corpus):
    """A preprint is named by its arXiv id and links to arXiv; a paper of a followed venue
    carries OpenReview's wording of its venue, never the catalogue's "ICLR 2025"."""
    mog = next(paper for paper in seed_corpus.papers if paper.id == "7ANDviElAo")
    preprint = replace(
        mog,
        id="arxiv:2501.01234",
        status=None,
        url="https://arxiv.org/abs/2501.01234",
        arxiv_id="2501.01234",
        arxiv_version=2,
        source="arxiv",
    )
    facts = all_text(list(render.abstract_message(preprint).blocks))
    assert "arXiv 2501.01234v2" in facts
    assert "|Read on arXiv>" in facts and "OpenReview" not in facts
    reviewed = replace(mog, status="Poster", venue="ICLR 2026 Poster", source="openreview")
    card = all_text(render.paper_blocks(reviewed))
    assert "ICLR 2026 · Poster" in card and "ICLR 2025" not in card
    bare = replace(preprint, abstract=None, plain_abstract="", tldr="")
    assert "|Abstract on arXiv \u2197>" in _card_text(bare)


def test_a_card_without_an_abstract_links_to_it_on_openreview(seed_corpus):
    mog = next(paper for paper in seed_corpus.papers if paper.id == "7ANDviElAo")
    bare = replace(mog, abstract=None, plain_abstract="", tldr="", title="Graphs <!channel> & co")
    card = _card_text(bare)
    assert card.endswith(
        "\n<https://openreview.net/forum?id=7ANDviElAo|Abstract on OpenReview \u2197>"
    )
    assert "TL;DR" not in card and "<!channel>" not in card and "&lt;!channel&gt; &amp; co" in card
    for message in (
        render.paper_message(bare),
        render.unfurl_message(bare),
        render.shared_message(bare, "U1"),
        render_digest.digest_post(bare, date(2025, 4, 24), position=1, pool_size=3),
    ):
        bk.validate(message)
        assert "Abstract on OpenReview \u2197" in all_text(list(message.blocks))
    facts = all_text(render.paper_blocks(bare)[1:])
    assert "ICLR 2025 Spotlight" in facts and "Authors: Guibin Zhang" in facts
    assert "|Read on OpenReview>" in facts


def test_a_card_with_neither_abstract_nor_link_says_nothing_in_its_place(seed_corpus):
    mog = next(paper for paper in seed_corpus.papers if paper.id == "7ANDviElAo")
    bare = replace(mog, abstract=None, plain_abstract="", tldr="", url=None)
    assert _card_text(bare) == f"*{mrkdwn_literal(bare.title)}*"
    bk.validate(render.paper_message(bare))


def test_a_card_with_an_abstract_shows_its_tldr_not_the_link(seed_corpus):
    mog = next(paper for paper in seed_corpus.papers if paper.id == "7ANDviElAo")
    assert "*TL;DR:* We introduce Mixture-of-Graphs" in _card_text(mog)
    assert "Abstract on OpenReview" not in _card_text(mog)


def test_the_authors_a_search_named_are_bold_and_shown_even_past_the_first_three(seed_corpus):
    mog = next(paper for paper in seed_corpus.papers if paper.id == "7ANDviElAo")
    last, first = mog.authors[-1], mog.authors[0]
    hit = Hit(mog, 1.0, named_authors=(first, last))
    card = render.results_message(SearchResult("q", (hit,), 1, 0, None, ()))
    assert _authors_of(card) == (
        f"ICLR 2025 Spotlight · Authors: *{first}*, Xiangguo Sun, Yanwei Yue +4 more,"
        f" among them *{last}*"
    )


def test_authors_not_in_paper_order_say_so_and_one_author_is_an_author(seed_corpus):
    paper = seed_corpus.papers[0]
    alphabetical = replace(paper, authors=("Ann A", "Bo B", "Cy C", "Di D"), authors_in_order=False)
    assert (
        render.authors_line(alphabetical)
        == "Authors (not in paper order): Ann A, Bo B, Cy C +1 more"
    )
    assert render.authors_line(replace(alphabetical, authors=("Ann A",))) == "Author: Ann A"
    assert render.authors_line(replace(paper, authors=())) is None


def test_matched_terms_are_bold_in_the_tldr(index):
    hit = index.search("sparsification experts", limit=1).hits[0]
    tldr = render.paper_blocks(hit.paper, tldr=hit.tldr_pieces)[0]["text"]["text"]
    assert "*Mixture-of-Experts*" in tldr or "*experts*" in tldr.lower()


def test_only_words_that_were_typed_are_bold_in_the_tldr(index):
    """Before, a matched hyphenated word spread the bold to its other parts, and from there to
    every word sharing one of them (Mixture-of-Experts, Feature, features)."""
    cards = {
        hit.paper.id: render.paper_blocks(hit.paper, tldr=hit.tldr_pieces)[0]["text"]["text"]
        for hit in index.search("graph sparsification", limit=5).hits
    }
    tldr = cards["7ANDviElAo"].split("*TL;DR:*")[1]
    assert re.findall(r"\*([^*]+)\*", tldr) == ["Graphs"]
    assert "*" not in cards["I9omfcWfMp"].split("*TL;DR:*")[1]


def test_highlight_bolds_the_flagged_pieces():
    pieces = (("Sparse ", False), ("graphs", True), (" & more", False))
    assert render.highlight(pieces) == "Sparse *graphs* &amp; more"
    assert render.highlight([("a * b", False)]) == "a \u2217 b"


def test_hostile_query_is_escaped_everywhere(index, seed_corpus):
    result = index.search(HOSTILE, limit=5)
    _no_pings(render.results_message(result, next_page=PageCursor(PageKind.QUERY, "k", 5)))
    empty = SearchResult(HOSTILE, (), 0, 0, None, (UnknownId(HOSTILE),))
    _no_pings(render.results_message(empty))
    corrected = replace(result, corrected_query=HOSTILE, reasons=(NoSuchFullName(HOSTILE),))
    _no_pings(render.results_message(corrected))
    _no_pings(render.not_found_message(HOSTILE))
    evil = replace(
        seed_corpus.papers[0],
        title=HOSTILE,
        authors=(HOSTILE,),
        tldr=HOSTILE,
        code_urls=("https://github.com/a/b>|<!channel>",),
    )
    for message in (render.paper_message(evil), render.shared_message(evil, "U1")):
        _no_pings(message)
        bk.validate(message)


def test_empty_and_exhausted_results_say_so():
    empty = render.results_message(SearchResult("zzz", (), 0, 0, None, (NoKnownWords(),)))
    assert "I found no papers matching “zzz”" in empty.text
    assert "No paper mentions these words" in repr(empty.blocks)
    assert "/paper random" in repr(empty.blocks)
    done = render.results_message(SearchResult("graph", (), 12, 15, None, ()))
    assert done.text == "You have seen all the papers matching “graph”."


def test_a_corrected_query_heading_has_one_pair_of_brackets(seed_corpus):
    hits = tuple(Hit(paper, 1.0) for paper in seed_corpus.papers[:5])
    result = SearchResult("spikng nueral", hits, 9, 0, "spiking neural", (), counted=False)
    assert render.results_heading(result, shown=5) == (
        "Showing results for “spiking neural” (top 5; you typed “spikng nueral”)"
    )


def test_results_page_of_fifty_hits_still_fits(seed_corpus):
    hits = tuple(Hit(paper, 1.0) for paper in seed_corpus.papers[:50])
    message = render.results_message(
        SearchResult("q", hits, 76, 0, None, (NoKnownWords(),)),
        next_page=PageCursor(PageKind.QUERY, "x", 5),
    )
    bk.validate(message)
    assert len(message.blocks) <= bk.MAX_BLOCKS


def test_help_card_lists_the_commands():
    message = help_message(description="76 papers")
    bk.validate(message)
    for usage in ("/paper WORDS", "/paper random", "/paper subscribe", "@paperbot more"):
        assert usage in repr(message.blocks)


def test_long_abstract_is_split_over_sections_without_losing_text(seed_corpus):
    paper = seed_corpus.papers[0]
    long_abstract = " ".join([paper.abstract] * 8)
    message = render.abstract_message(replace(paper, abstract=long_abstract))
    bk.validate(message)
    shown = " ".join(
        block["text"]["text"] for block in message.blocks[1:] if block["type"] == "section"
    )
    assert shown.split() == abstract_mrkdwn(long_abstract).split()


# --- blocks.py -----------------------------------------------------------------------------


def test_validate_rejects_what_slack_would_reject():
    section = bk.section("x")
    with pytest.raises(bk.BlockLimitError, match="blocks"):
        bk.validate(Message("t", (section,) * 51))
    with pytest.raises(bk.BlockLimitError, match="fallback"):
        bk.validate(Message("", (section,)))
    too_long = {"type": "section", "text": {"type": "mrkdwn", "text": "x" * 3001}}
    with pytest.raises(bk.BlockLimitError):
        bk.validate(Message("t", (too_long,)))
    header = {"type": "header", "text": {"type": "plain_text", "text": "h" * 151}}
    with pytest.raises(bk.BlockLimitError):
        bk.validate(Message("t", (header,)))
    label = bk.actions([bk.button("ok", "a", "v")])
    label["elements"][0]["text"]["text"] = "L" * 76
    with pytest.raises(bk.BlockLimitError):
        bk.validate(Message("t", (label,)))
    unknown = {"type": "section", "text": {"type": "mrkdwn", "text": "x"}, "colour": "red"}
    with pytest.raises(bk.BlockLimitError, match="round-trip"):
        bk.validate(Message("t", (unknown,)))
    with pytest.raises(bk.BlockLimitError, match="duplicate block_id"):
        bk.validate(Message("t", (bk.section("a", block_id="b"), bk.section("c", block_id="b"))))


def test_the_bot_checks_each_message_without_the_round_trip(unchecked_message):
    assemble = unchecked_message
    section = bk.section("x")
    with pytest.raises(bk.BlockLimitError, match="51 blocks"):
        assemble("t", [section] * 51)
    with pytest.raises(bk.BlockLimitError, match="fallback"):
        assemble(" ", [section])
    too_long = {"type": "section", "text": {"type": "mrkdwn", "text": "x" * 3001}}
    with pytest.raises(bk.BlockLimitError, match="3001 characters"):
        assemble("t", [too_long])
    with pytest.raises(bk.BlockLimitError, match="duplicate block_id"):
        assemble("t", [bk.section("a", block_id="b"), bk.section("c", block_id="b")])
    unknown = {"type": "section", "text": {"type": "mrkdwn", "text": "x"}, "colour": "red"}
    assert assemble("t", [unknown]).blocks == (unknown,)  # the builders never make one


def test_a_view_refuses_duplicate_block_ids():
    with pytest.raises(bk.BlockLimitError, match="duplicate block_id"):
        bk.view("home", [bk.section("a", block_id="b"), bk.section("c", block_id="b")])


def test_every_message_a_test_makes_round_trips():
    unknown = {"type": "section", "text": {"type": "mrkdwn", "text": "x"}, "colour": "red"}
    with pytest.raises(bk.BlockLimitError, match="round-trip"):
        bk.message("t", [unknown])


def test_button_value_is_never_cut():
    with pytest.raises(bk.BlockLimitError):
        bk.button("Next", "next", "v" * 2001)
    assert bk.button("Next", "next", "v" * 2000).value == "v" * 2000


def test_builders_cut_long_text_to_the_limits():
    assert len(bk.header("h" * 500)["text"]["text"]) == bk.MAX_HEADER_TEXT
    assert len(bk.section("word " * 1000)["text"]["text"]) <= bk.MAX_SECTION_TEXT
    assert len(bk.button("L" * 200, "a", "v").text.text) <= bk.MAX_BUTTON_LABEL


def test_truncation_never_cuts_a_link_or_an_escape():
    text = "see " + "<https://openreview.net/forum?id=abc|A very long title> &amp; " * 5
    for limit in range(5, len(text)):
        cut = bk.truncate_mrkdwn(text, limit)
        assert len(cut) <= limit
        body = cut.removesuffix(bk.ELLIPSIS)
        assert body.count("<") == body.count(">")
        assert not re.search(r"&[a-z]*$", body)


_PIECES = st.sampled_from(
    ["word", " ", "<https://x.org/a|label>", "&amp;", "&lt;", "*bold*", "<@U123>", "ü", "\n"]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, max_size=80), st.integers(min_value=2, max_value=400))
def test_truncation_keeps_markup_whole(pieces, limit):
    text = "".join(pieces)
    cut = bk.truncate_mrkdwn(text, limit)
    assert len(cut) <= max(limit, 0) or cut == text
    body = cut.removesuffix(bk.ELLIPSIS)
    assert re.fullmatch(r"([^<>&]|<[^<>]*>|&(amp|lt|gt);)*", body)
    for piece in bk.split_mrkdwn(text, max(limit, 30)):
        assert len(piece) <= max(limit, 30)
        assert re.fullmatch(r"([^<>&]|<[^<>]*>|&(amp|lt|gt);)*", piece)


@pytest.mark.parametrize("typed", ["*Jegelka*", "_Jegelka_", "~Jegelka~", "`Jegelka`"])
def test_words_typed_in_a_query_are_echoed_literally_in_its_notes(index, typed):
    message = render.results_message(index.search(f"author:{typed}"))
    notes = [block for block in message.blocks if block["type"] == "context"]
    text = notes[0]["elements"][0]["text"]
    assert text.startswith("Papers with an author named “")
    assert not any(mark in text for mark in "*_~`")


def test_an_empty_result_gives_advice_once_and_only_what_fits(index):
    unknown_word = all_text(list(render.results_message(index.search("RLHF")).blocks)).lower()
    assert unknown_word.count("check the spelling") == 1
    unknown_id = all_text(list(render.results_message(index.search("like:NoSuchId1")).blocks))
    assert "spelling" not in unknown_id and "OpenReview link" in unknown_id
    excluded = all_text(list(render.results_message(index.search("author:Jegelka -graph")).blocks))
    assert "drop quotes or `-excluded` terms" in excluded


def test_a_reading_list_counts_like_search_results(seed_corpus):
    papers = seed_corpus.papers
    one = render.saved_list_message(
        papers[:1], total=1, offset=0, this_page=PageCursor(PageKind.SAVED, "me")
    )
    assert one.blocks[0]["text"]["text"] == "*Your reading list (1 paper)*"
    page = render.saved_list_message(
        papers[:1], total=6, offset=5, this_page=PageCursor(PageKind.SAVED, "me", 5)
    )
    assert page.blocks[0]["text"]["text"] == "*Your reading list (6 of 6)*"
    home = render_home.home_view(papers[:6], total=6, places=FIRST_PAGES, subscriptions=[])
    assert "Newest first · 6 papers" in all_text(home["blocks"])
    assert "None of the channels you can see gets the paper of the day" in all_text(home["blocks"])
