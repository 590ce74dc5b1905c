"""Announcement days: which days brought papers, the last one up to a day, and their papers."""

from __future__ import annotations

from datetime import date

from bot.papers.announcements import (
    announced_on,
    announced_since,
    announcement_days,
    last_announcement_day,
)
from bot.papers.paper import Paper

FRIDAY = date(2026, 11, 27)
MONDAY = date(2026, 11, 30)
TUESDAY = date(2026, 12, 1)


def _paper(number: int, announced: date | None) -> Paper:
    return Paper(
        id=f"p{number}",
        title=f"Paper {number}",
        authors=("Ada Lovelace",),
        status=None,
        url=None,
        abstract=None,
        plain_abstract="",
        code_urls=(),
        links=(),
        title_derived=False,
        source="test",
        announced=announced,
    )


CATALOGUE = _paper(0, None)
PAPERS = (_paper(1, MONDAY), CATALOGUE, _paper(2, FRIDAY), _paper(3, MONDAY), _paper(4, TUESDAY))


def test_days_are_the_distinct_announced_dates_oldest_first_catalogue_papers_have_none() -> None:
    assert announcement_days(PAPERS) == (FRIDAY, MONDAY, TUESDAY)
    assert announcement_days([CATALOGUE]) == ()


def test_last_day_is_the_latest_up_to_today_so_the_weekend_looks_back_to_friday() -> None:
    saturday, sunday = date(2026, 11, 28), date(2026, 11, 29)
    friday_only = [paper for paper in PAPERS if paper.announced in (None, FRIDAY)]
    assert last_announcement_day(friday_only, sunday) == FRIDAY
    assert last_announcement_day(PAPERS, saturday) == FRIDAY
    assert last_announcement_day(PAPERS, MONDAY) == MONDAY
    assert last_announcement_day(PAPERS, date(2026, 12, 9)) == TUESDAY


def test_no_last_day_before_the_first_announcement_or_without_feed_papers() -> None:
    assert last_announcement_day(PAPERS, date(2026, 11, 26)) is None
    assert last_announcement_day([CATALOGUE], TUESDAY) is None
    assert last_announcement_day([], TUESDAY) is None


def test_papers_of_a_day_and_since_a_day_keep_the_order_given() -> None:
    assert [paper.id for paper in announced_on(PAPERS, MONDAY)] == ["p1", "p3"]
    assert announced_on(PAPERS, date(2026, 11, 28)) == ()
    assert [paper.id for paper in announced_since(PAPERS, MONDAY)] == ["p1", "p3", "p4"]
    assert [paper.id for paper in announced_since(PAPERS, FRIDAY, MONDAY)] == ["p1", "p2", "p3"]
