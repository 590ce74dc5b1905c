"""Announcement days: the days on which a feed brought papers, read from ``Paper.announced``.

arXiv announces on weekdays but not on its holidays, and OpenReview in batches, so "new
papers" cannot mean "papers of the last 24 hours": on a Monday morning they are Friday's,
after a holiday the day before it. Everything that asks "what is new?" (``/paper new``, the
channel's daily post of new papers) reads the days from here, so they agree on which day
that is. Catalogue papers have no announced date and never count.

**New means a first version.** An arXiv ``replace`` is announced too (the stored paper then
carries the day of its new version), but it is a paper announced before: its first version
was in that day's new papers, and arXiv itself lists replacements apart from new
submissions. On a busy category they are a third of a day's announcements and would bury
the new ones. So both the post and ``/paper new`` show first versions only (``is_new``): the
list pages through exactly the papers the post picks its best from, and a replaced paper is
still found by any search.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from bot.papers.paper import Paper


def is_new(paper: Paper) -> bool:
    """Whether a paper counts as new on its announcement day: its first version (a paper
    without an arXiv version, from OpenReview, counts as its first)."""
    return paper.arxiv_version in (None, 1)


def announcement_days(papers: Iterable[Paper]) -> tuple[date, ...]:
    """Every day on which at least one of ``papers`` was announced, oldest first."""
    return tuple(sorted({paper.announced for paper in papers if paper.announced is not None}))


def last_announcement_day(papers: Iterable[Paper], today: date) -> date | None:
    """The latest day up to and including ``today`` with announcements, None when none is.

    A date after ``today`` (a source's clock ahead of ours, or a day in another zone) is not
    yet an announcement day for whoever asks on ``today``.
    """
    days = [day for day in announcement_days(papers) if day <= today]
    return days[-1] if days else None


def announced_on(papers: Iterable[Paper], day: date) -> tuple[Paper, ...]:
    """The papers announced on ``day``, in the order given."""
    return tuple(paper for paper in papers if paper.announced == day)


def announced_since(
    papers: Iterable[Paper], first: date, last: date | None = None
) -> tuple[Paper, ...]:
    """The papers announced on ``first`` or later (to ``last`` when given), in the order given."""
    return tuple(
        paper
        for paper in papers
        if paper.announced is not None
        and paper.announced >= first
        and (last is None or paper.announced <= last)
    )
