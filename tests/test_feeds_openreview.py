"""An OpenReview venue followed through the loopback fake of API v2, as a guest: submissions
and their decisions from ``content.venueid``, read incrementally by modification, a decision
arriving later updating the paper, a 429's reset time honoured, a malformed note skipped, a
paper also on arXiv linked to its preprint, and no login whatever the environment says."""

from __future__ import annotations

from datetime import timedelta

import pytest
from feed_fakes import Fault, FeedFake, note, paper
from feed_harness import HashEmbedder, SteppedClock, feed_settings, ingester
from test_feeds_arxiv import MONDAY, START, caught_up, clock, fake, store, store_url

from bot.store import Store

VENUE = "ICLR.cc/2026/Conference"
__all__ = ["clock", "fake", "store"]  # fixtures, shared with test_feeds_arxiv


def submission(forum: str, title: str, standing: str, days_ago: int, **extra) -> dict:
    venue_id, label = {
        "accepted": (VENUE, "ICLR 2026 Oral"),
        "rejected": (f"{VENUE}/Rejected_Submission", "Submitted to ICLR 2026"),
        "withdrawn": (f"{VENUE}/Withdrawn_Submission", "ICLR 2026 Conference Withdrawn Submission"),
        "review": (f"{VENUE}/Submission", "Submitted to ICLR 2026"),
    }[standing]
    return note(
        forum,
        title,
        ("Grace Hopper", "Emmy Noether"),
        VENUE,
        venue_id=venue_id,
        venue_label=label,
        tmdate=START - timedelta(days=days_ago),
        **extra,
    )


def test_submissions_and_decisions_come_in_and_a_later_decision_updates_the_paper(
    fake: FeedFake, store: Store, clock: SteppedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENREVIEW_USERNAME", "someone@example.org")
    monkeypatch.setenv("OPENREVIEW_PASSWORD", "never-used")
    settings = feed_settings(fake, f"openreview:{VENUE}", store_url(store))
    fake.notes = [
        submission("Acc1", "Accepted work", "accepted", 3),
        submission("Rej1", "Rejected work", "rejected", 4),
        submission("Wdr1", "Withdrawn work", "withdrawn", 5),
        submission("Rev1", "Pending work", "review", 6),
        {  # no title: skipped and counted
            "id": "Broken",
            "forum": "Broken",
            "tmdate": int((START - timedelta(days=2)).timestamp() * 1000),
            "content": {"authors": {"value": ["Nobody"]}},
            "invitations": [f"{VENUE}/-/Submission"],
        },
    ]
    run = ingester(store, settings, clock, HashEmbedder()).run_openreview(
        settings.feeds[0], "2025-01-06T08"
    )
    assert run.error is None and run.counts.new == 4 and run.skipped == 1
    papers = {p.id: p for p in store.papers_since(0)[0]}
    assert {pid: (p.decision, p.status) for pid, p in papers.items()} == {
        "Acc1": ("accepted", "Oral"),
        "Rej1": ("rejected", "Rejected"),
        "Wdr1": ("withdrawn", "Withdrawn"),
        "Rev1": ("under review", "Under review"),
    }
    assert papers["Acc1"].pages == (
        "https://openreview.net/forum?id=Acc1",
        "https://openreview.net/pdf?id=Acc1",
    )
    assert all("login" not in r.path and "token" not in r.path for r in fake.requests)
    assert fake.requests[0].query["sort"] == "tmdate:desc"
    _, mark = store.papers_since(0)
    fake.notes[3] = submission("Rev1", "Pending work", "accepted", 0)  # its decision arrives
    fake.requests.clear()
    later = ingester(store, settings, clock, HashEmbedder()).run_openreview(
        settings.feeds[0], "2025-01-06T12"
    )
    assert (later.counts.new, later.counts.updated) == (0, 1)
    assert later.requests == 1  # the scan stopped at what the last run had seen
    [changed], _ = store.papers_since(mark)
    assert (changed.id, changed.status) == ("Rev1", "Oral")


def test_a_429_waits_for_its_reset_time(fake: FeedFake, store: Store, clock: SteppedClock) -> None:
    settings = feed_settings(fake, f"openreview:{VENUE}", store_url(store))
    fake.notes = [submission("Acc1", "Accepted work", "accepted", 1)]
    fake.fail_next("notes", Fault(status=429, reset_in=timedelta(seconds=40)))
    run = ingester(store, settings, clock, HashEmbedder()).run_openreview(
        settings.feeds[0], "2025-01-06T08"
    )
    assert run.error is None and run.counts.new == 1
    refused, answered = fake.lane_times("openreview")
    assert answered - refused >= timedelta(seconds=40)


def test_a_paper_on_both_sources_is_one_paper(
    fake: FeedFake, store: Store, clock: SteppedClock
) -> None:
    settings = feed_settings(fake, f"arxiv:cs.LG openreview:{VENUE}", store_url(store))
    caught_up(store, "arxiv:cs.LG")
    preprint = paper(9, authors=("Grace Hopper", "Emmy Noether"))
    fake.announced = [preprint]
    fake.notes = [submission("Both1", preprint.title.upper(), "accepted", 1)]
    running_one = ingester(store, settings, clock, HashEmbedder())
    running_one.run_arxiv("2025-01-06", MONDAY)
    running_one.run_openreview(settings.feeds[1], "2025-01-06T08")
    [both] = store.papers_since(0)[0]
    assert both.id == "arxiv:2501.00009" and both.status == "Oral"
    assert "https://openreview.net/forum?id=Both1" in both.pages
