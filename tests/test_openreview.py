"""The one rule for which paper an OpenReview link names, in every form a link arrives in."""

from __future__ import annotations

import pytest

from bot.papers.openreview import openreview_link_id


@pytest.mark.parametrize(
    ("link", "paper_id"),
    [
        ("https://openreview.net/forum?id=7ANDviElAo", "7ANDviElAo"),
        ("http://openreview.net/forum?id=7ANDviElAo", "7ANDviElAo"),
        ("https://www.openreview.net/forum?id=7ANDviElAo", "7ANDviElAo"),
        ("https://OpenReview.net/forum?id=7ANDviElAo", "7ANDviElAo"),
        ("https://openreview.net/pdf?id=abc-12", "abc-12"),
        ("https://openreview.net/forum/?id=a_b", "a_b"),
        (
            "https://openreview.net/attachment?id=7ANDviElAo&name=supplementary_material",
            "7ANDviElAo",
        ),
        ("https://openreview.net/revisions?id=7ANDviElAo", "7ANDviElAo"),
        ("  https://openreview.net/forum?id=7ANDviElAo\n", "7ANDviElAo"),
        # more parameters, in either order, escaped as Slack sends them or not
        ("https://openreview.net/forum?id=M&noteId=abc&referrer=%5Bthe%5D", "M"),
        ("https://openreview.net/forum?noteId=abc&id=M", "M"),
        ("https://openreview.net/forum?noteId=abc&amp;id=M", "M"),
        ("https://openreview.net/pdf?id=D&amp;noteId=xyz", "D"),
        ("https://openreview.net/forum?id=M#discussion", "M"),
        # Slack's wrapping
        ("<https://openreview.net/forum?id=M>", "M"),
        ("<https://openreview.net/pdf?id=abc-12>", "abc-12"),
        ("<https://openreview.net/forum?id=M|MoG: Sparsification>", "M"),
        ("<https://openreview.net/forum?noteId=abc&amp;id=D>", "D"),
        # a sentence's punctuation after the id
        ("https://openreview.net/forum?id=M.", "M"),
        ("https://openreview.net/forum?id=M),", "M"),
        ("https://openreview.net/forum?id=M%29", "M"),
    ],
)
def test_a_paper_link_names_its_id(link: str, paper_id: str) -> None:
    assert openreview_link_id(link) == paper_id


@pytest.mark.parametrize(
    "link",
    [
        "",
        "7ANDviElAo",
        "https://example.org/?id=7ANDviElAo",
        "https://example.com/forum?id=7ANDviElAo",
        "https://openreview.net.evil.example/forum?id=7ANDviElAo",
        "https://evil.example/openreview.net/forum?id=7ANDviElAo",
        "ftp://openreview.net/forum?id=7ANDviElAo",
        "openreview.net/forum?id=7ANDviElAo",
        "https://openreview.net/group?id=ICLR.cc/2025/Conference",
        "https://openreview.net/forum",
        "https://openreview.net/forum?id=",
        "https://openreview.net/forum?id=.",
        "https://openreview.net/forum?noteId=abc",
        "https://openreview.net/forum?id=M and more words",
        "see https://openreview.net/forum?id=M",
        "http://[::1/forum?id=M",
    ],
)
def test_other_links_and_text_name_no_paper(link: str) -> None:
    assert openreview_link_id(link) is None
