"""A card says where its paper comes from and when: an arXiv preprint its id, version, the day
it was announced (and updated) and its abstract page and PDF; an OpenReview paper of a
followed venue the venue and its standing there, the day it was published and its forum and
PDF; a paper on both, both. A catalogue paper's card is the one it always was. Every place a
card is shown (results, previews, the daily post, For you, the App Home, the shell) says it."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime

import pytest
from slack_harness import all_text

from bot.buttons import FIRST_PAGES, PageCursor, PageKind
from bot.papers.corpus import feed_paper
from bot.render import blocks as bk
from bot.render import digest as render_digest
from bot.render import foryou as render_foryou
from bot.render import home as render_home
from bot.render import papers as render
from bot.render import terminal
from bot.search.results import ForYou, Hit, SearchResult, Suggestion

ABSTRACT = (
    "Annealing schedules decide how well a quantum annealer factorises a sparse tensor. We "
    "learn the schedule from the tensor's sparsity pattern and halve the error of linear "
    "schedules on three benchmarks. Code: https://github.com/qa-lab/schedules"
)


def arxiv_paper(**changes):
    paper = feed_paper(
        paper_id="arxiv:2501.01234",
        title="Quantum Annealing Schedules for Sparse Tensor Factorisation",
        authors=("Maria Goeppert", "Enrico Fermi", "Lise Meitner", "Otto Hahn"),
        status=None,
        url="https://arxiv.org/abs/2501.01234",
        abstract=ABSTRACT,
        source="arxiv",
        arxiv_id="2501.01234",
        arxiv_version=2,
        announced=date(2026, 12, 2),
        published=datetime(2026, 11, 28, 18, tzinfo=UTC),
        updated=datetime(2026, 12, 1, 18, tzinfo=UTC),
        pages=("https://arxiv.org/abs/2501.01234", "https://arxiv.org/pdf/2501.01234v2"),
    )
    return replace(paper, **changes)


def openreview_paper(**changes):
    paper = feed_paper(
        paper_id="Hk3vQ9xLpA",
        title="Sparse Attention for Long Documents",
        authors=("Ada Lovelace", "Alan Turing"),
        status="Poster",
        url="https://openreview.net/forum?id=Hk3vQ9xLpA",
        abstract="We make attention sparse and prove it keeps what long documents say.",
        source="openreview",
        venue="ICLR 2026 Poster",
        decision="accepted",
        published=datetime(2025, 9, 19, 9, tzinfo=UTC),
        updated=datetime(2026, 1, 26, 14, tzinfo=UTC),
        pages=(
            "https://openreview.net/forum?id=Hk3vQ9xLpA",
            "https://openreview.net/pdf?id=Hk3vQ9xLpA",
        ),
    )
    return replace(paper, **changes)


def both_paper():
    """A preprint whose OpenReview submission the store linked to it (its id stays arXiv's)."""
    return arxiv_paper(
        status="Poster",
        venue="ICLR 2026 Poster",
        decision="accepted",
        pages=(
            "https://arxiv.org/abs/2501.01234",
            "https://arxiv.org/pdf/2501.01234v2",
            "https://openreview.net/forum?id=Hk3vQ9xLpA",
            "https://openreview.net/pdf?id=Hk3vQ9xLpA",
        ),
    )


def _facts(paper) -> list[str]:
    """The card's context lines: where and when with the authors, then where to read it."""
    [context] = [block for block in render.paper_blocks(paper) if block["type"] == "context"]
    return [element["text"] for element in context["elements"]]


def test_an_arxiv_preprint_says_its_id_version_days_and_links_its_page_and_pdf():
    assert _facts(arxiv_paper()) == [
        "arXiv 2501.01234v2 · announced 2 Dec 2026 · "
        "Authors: Maria Goeppert, Enrico Fermi, Lise Meitner +1 more",
        "<https://arxiv.org/abs/2501.01234|Read on arXiv> · "
        "<https://arxiv.org/pdf/2501.01234v2|PDF> · "
        "Code: <https://github.com/qa-lab/schedules|github.com/qa-lab/schedules>",
    ]
    revised = arxiv_paper(updated=datetime(2026, 12, 9, 20, tzinfo=UTC))
    assert _facts(revised)[0].startswith(
        "arXiv 2501.01234v2 · announced 2 Dec 2026, updated 9 Dec 2026 · Authors:"
    )
    from_the_api = arxiv_paper(announced=None)  # the API and OAI-PMH name no announcement
    assert _facts(from_the_api)[0].startswith(
        "arXiv 2501.01234v2 · published 28 Nov 2026, updated 1 Dec 2026 · Authors:"
    )


def test_an_openreview_paper_says_its_venue_standing_and_days_and_links_forum_and_pdf():
    assert _facts(openreview_paper()) == [
        "ICLR 2026 · Poster · published 19 Sep 2025, updated 26 Jan 2026 · "
        "Authors: Ada Lovelace, Alan Turing",
        "<https://openreview.net/forum?id=Hk3vQ9xLpA|Read on OpenReview> · "
        "<https://openreview.net/pdf?id=Hk3vQ9xLpA|PDF>",
    ]


@pytest.mark.parametrize(
    ("venue", "status", "said"),
    [
        ("Submitted to ICLR 2026", "Under review", "ICLR 2026 · Under review"),
        ("Submitted to ICLR 2026", "Rejected", "ICLR 2026 · Rejected"),
        ("ICLR 2026 Conference Withdrawn Submission", "Withdrawn", "ICLR 2026 · Withdrawn"),
        ("ICLR 2026 Oral", "Oral", "ICLR 2026 · Oral"),
        ("TMLR", "Accepted", "TMLR · Accepted"),
    ],
)
def test_an_openreview_paper_says_where_it_stands_at_its_venue(venue, status, said):
    assert _facts(openreview_paper(venue=venue, status=status))[0].startswith(f"{said} · ")


def test_an_openreview_paper_without_a_pdf_links_its_forum_only():
    forum_only = openreview_paper(pages=("https://openreview.net/forum?id=Hk3vQ9xLpA",))
    assert _facts(forum_only)[1] == (
        "<https://openreview.net/forum?id=Hk3vQ9xLpA|Read on OpenReview>"
    )


def test_a_paper_on_arxiv_and_openreview_says_both_its_own_page_first():
    assert _facts(both_paper()) == [
        "ICLR 2026 · Poster · arXiv 2501.01234v2 · announced 2 Dec 2026 · "
        "Authors: Maria Goeppert, Enrico Fermi, Lise Meitner +1 more",
        "<https://arxiv.org/abs/2501.01234|Read on arXiv> · "
        "<https://arxiv.org/pdf/2501.01234v2|PDF> · "
        "<https://openreview.net/forum?id=Hk3vQ9xLpA|Read on OpenReview> · "
        "<https://openreview.net/pdf?id=Hk3vQ9xLpA|PDF> · "
        "Code: <https://github.com/qa-lab/schedules|github.com/qa-lab/schedules>",
    ]
    # A submission naming its preprint, which no arXiv feed brought: arXiv's latest PDF.
    named = openreview_paper(arxiv_id="2501.01234")
    assert "arXiv 2501.01234 · published" in _facts(named)[0]
    assert _facts(named)[1].endswith(
        "<https://arxiv.org/abs/2501.01234|Read on arXiv> · <https://arxiv.org/pdf/2501.01234|PDF>"
    )


def test_a_catalogue_card_is_unchanged(seed_corpus):
    mog = next(paper for paper in seed_corpus.papers if paper.id == "7ANDviElAo")
    assert _facts(mog) == [
        "ICLR 2025 Spotlight · Authors: Guibin Zhang, Xiangguo Sun, Yanwei Yue +4 more",
        "<https://openreview.net/forum?id=7ANDviElAo|Read on OpenReview> · "
        "Code: <https://github.com/yanweiyue/MoG|github.com/yanweiyue/MoG>",
    ]
    assert "PDF" not in all_text(list(render.abstract_message(mog).blocks))


@pytest.mark.parametrize("paper", [arxiv_paper(), openreview_paper(), both_paper()])
def test_every_place_a_card_is_shown_says_where_and_when_in_valid_block_kit(paper):
    origin = render.paper_blocks(paper)[1]["elements"][0]["text"].split(" · Authors")[0]
    hit = Hit(paper, None)
    page = SearchResult("annealing", (hit,), 1, 0, None, ())
    suggestions = ForYou((Suggestion(paper, paper, 0.8),), 1, 0, 3, None)
    messages = [
        render.results_message(page, next_page=PageCursor(PageKind.QUERY, "k", 5)),
        render.paper_message(paper),
        render.unfurl_message(paper),
        render.shared_message(paper, "U0SHARER"),
        render.abstract_message(paper),
        render_digest.digest_post(paper, date(2026, 12, 3), position=1, pool_size=3),
        render_foryou.for_you_message(suggestions, this_page=PageCursor(PageKind.FOR_YOU, "", 0)),
    ]
    for message in messages:
        bk.validate(message)
        assert origin in all_text(list(message.blocks))
    home = render_home.home_view([paper], total=1, places=FIRST_PAGES, subscriptions=[])
    bk.validate_view(home)
    assert origin in all_text(home["blocks"])
    shell = " ".join(terminal.render(render.unfurl_message(paper).blocks).text.split())
    assert f"{origin} · Authors" in shell
    assert "Read on" in shell and "PDF (https://" in shell


def test_a_feed_paper_without_an_abstract_points_to_its_page():
    bare = arxiv_paper(abstract=None, plain_abstract="", tldr="")
    card = all_text(render.paper_blocks(bare)[:1])
    assert card.endswith("<https://arxiv.org/abs/2501.01234|Abstract on arXiv \u2197>")
    whole = all_text(list(render.abstract_message(bare).blocks))
    assert "its arXiv page may" in whole and "catalogue" not in whole
