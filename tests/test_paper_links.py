"""Which paper a pasted arXiv link names (the one rule in ``bot.papers.urls``), beside the
OpenReview rule: every page of a paper on arxiv.org, in every version and id style, names the
paper's id without its version; other pages and other sites name none."""

from __future__ import annotations

import pytest

from bot.papers.openreview import venue_name
from bot.papers.urls import arxiv_link_id, is_paper_site, linked_paper_id


@pytest.mark.parametrize(
    ("link", "named"),
    [
        ("https://arxiv.org/abs/2501.01234", "2501.01234"),
        ("https://arxiv.org/abs/2501.01234v2", "2501.01234"),
        ("https://arxiv.org/pdf/2501.01234v1", "2501.01234"),
        ("https://arxiv.org/pdf/2501.01234.pdf", "2501.01234"),
        ("https://arxiv.org/pdf/2501.01234v3.pdf", "2501.01234"),
        ("https://arxiv.org/html/2501.01234v1", "2501.01234"),
        ("http://export.arxiv.org/abs/2501.01234", "2501.01234"),
        ("https://www.arxiv.org/abs/2501.01234/", "2501.01234"),
        ("<https://arxiv.org/abs/2501.01234|the paper>", "2501.01234"),
        ("https://arxiv.org/abs/cs/0112017", "cs/0112017"),
        ("https://arxiv.org/pdf/hep-th/9901001v2", "hep-th/9901001"),
        ("https://arxiv.org/abs/math.GT/0309136", "math/0309136"),
        ("https://arxiv.org/abs/0704.0001", "0704.0001"),
    ],
)
def test_every_page_of_a_paper_on_arxiv_names_it(link, named):
    assert arxiv_link_id(link) == named
    assert linked_paper_id(link) == f"arxiv:{named}"
    assert is_paper_site(link.strip("<>").split("|")[0])


@pytest.mark.parametrize(
    "link",
    [
        "https://arxiv.org/list/cs.LG/new",
        "https://arxiv.org/abs/2501.01234v",
        "https://arxiv.org/abs/2501.01234 and more",
        "https://example.org/abs/2501.01234",
        "https://arxiv.org.example.org/abs/2501.01234",
        "ftp://arxiv.org/abs/2501.01234",
        "2501.01234",
    ],
)
def test_other_pages_and_sites_name_no_arxiv_paper(link):
    assert arxiv_link_id(link) is None


def test_an_openreview_link_names_its_forum_as_before():
    assert linked_paper_id("https://openreview.net/forum?id=7ANDviElAo") == "7ANDviElAo"
    assert not is_paper_site("https://example.org/forum?id=7ANDviElAo")


@pytest.mark.parametrize(
    ("venue", "name"),
    [
        ("ICLR 2026 Poster", "ICLR 2026"),
        ("ICLR 2026 Oral", "ICLR 2026"),
        ("NeurIPS 2025 spotlight", "NeurIPS 2025"),
        ("Submitted to ICLR 2026", "ICLR 2026"),
        ("ICLR 2026 Conference Withdrawn Submission", "ICLR 2026"),
        ("ICLR 2026 Conference Desk Rejected Submission", "ICLR 2026"),
        ("TMLR", "TMLR"),
    ],
)
def test_a_venue_is_named_without_the_standing_in_it(venue, name):
    assert venue_name(venue) == name
