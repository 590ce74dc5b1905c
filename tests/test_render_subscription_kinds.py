"""Each kind of subscription speaks of itself (issue 30): the weekly digest names the days
it covers rather than "this week", and the App Home and ``/paper subscriptions`` list the
paper of the day, the weekly digest and the new papers post apart."""

from __future__ import annotations

import json
from datetime import date

from bot.buttons import FIRST_PAGES
from bot.digest.weekly import WEEK
from bot.render import blocks as bk
from bot.render import digest as render_digest
from bot.render import home as render_home
from bot.render import new_papers as render_new
from bot.render import weekly as render_weekly

MONDAY = date(2026, 12, 7)


def _texts(blocks: list[dict]) -> list[str]:
    return [json.dumps(block, ensure_ascii=False) for block in blocks]


def test_a_preview_of_next_mondays_digest_names_the_days_it_covers(index) -> None:
    """A preview read on Thursday 3 December of the digest of Monday 7 December said
    "week of Monday 7 December" over "this week", which then read as the week of the 30th."""
    engaged = [render_weekly.WeekPaper(index.papers[0], 3, 2)]
    for shown in (engaged, []):
        post = render_weekly.weekly_post(
            MONDAY, shown, index.papers[1:3], since=MONDAY - WEEK, picks_follow_channel=False
        )
        preview = render_weekly.weekly_preview("The next weekly digest, coming …:", post)
        text = json.dumps(preview.blocks, ensure_ascii=False)
        assert "this week" not in text.lower() and "week of" not in text
        assert "Team digest · Monday 7 December 2026" in text
        assert "since Monday 30 November 2026" in text
        assert "since Monday 30 November 2026" in preview.text


def test_the_app_home_lists_weekly_digests_under_their_own_heading(index) -> None:
    subscriptions = [
        render_home.SubscribedChannel("CDAILY0001", "09:00 Europe/Berlin, on weekdays", None),
        render_home.SubscribedChannel(
            "CWEEKLY001", "09:30 Europe/Berlin, on Mondays", "graphs", weekly=True
        ),
    ]
    view = render_home.home_view(
        index.papers[:1], total=1, places=FIRST_PAGES, subscriptions=subscriptions
    )
    bk.validate_view(view)
    texts = _texts(view["blocks"])
    daily_at = texts.index(json.dumps(bk.header("Paper of the day"), ensure_ascii=False))
    weekly_at = texts.index(json.dumps(bk.header("Weekly team digest"), ensure_ascii=False))
    between = " ".join(texts[daily_at:weekly_at])
    after = " ".join(texts[weekly_at:])
    assert "CDAILY0001" in between and "CWEEKLY001" not in between
    assert "CWEEKLY001" in after.split("How to use")[0]


def test_an_app_home_with_only_a_weekly_digest_has_no_paper_of_the_day(index) -> None:
    weekly_only = [
        render_home.SubscribedChannel("CWEEKLY001", "09:30 UTC, on Mondays", None, weekly=True)
    ]
    view = render_home.home_view(
        index.papers[:1], total=1, places=FIRST_PAGES, subscriptions=weekly_only
    )
    texts = " ".join(_texts(view["blocks"]))
    paper_of_the_day = texts.split('"Paper of the day"')[1].split('"Weekly team digest"')[0]
    assert "None of the channels you can see gets the paper of the day yet" in paper_of_the_day
    assert "CWEEKLY001" not in paper_of_the_day


def test_paper_subscriptions_gives_each_kind_its_own_section() -> None:
    weekly = render_weekly.subscription_lines(
        "09:30 Europe/Berlin, on Mondays", "graphs", paused_reason=None, next_post="Monday"
    )
    message = render_digest.subscriptions_message(
        "09:00 Europe/Berlin, on weekdays", None, next_post="tomorrow", weekly=weekly
    )
    daily_section, weekly_section = (block["text"]["text"] for block in message.blocks)
    assert daily_section.startswith("*Paper of the day:*") and "Weekly" not in daily_section
    assert "*Topic:* all papers" in daily_section
    assert weekly_section.startswith("*Weekly team digest:*")
    assert "*Weekly picks on:* “graphs”" in weekly_section
    none_daily = render_digest.subscriptions_message(None, None, weekly=weekly)
    assert [block["text"]["text"][:20] for block in none_daily.blocks] == [
        "*Paper of the day:* ",
        "*Weekly team digest:",
    ]


def test_the_app_home_lists_new_papers_after_the_weekly_digests_and_ends_with_more(index) -> None:
    subscriptions = [
        render_home.SubscribedChannel("CDAILY0001", "09:00 UTC, on weekdays", None),
        render_home.SubscribedChannel("CWEEKLY001", "09:30 UTC, on Mondays", None, weekly=True),
        render_home.SubscribedChannel(
            "CNEWPAPERS", "08:30 UTC, on days with new papers", "pruning", new=True
        ),
    ]
    view = render_home.home_view(
        index.papers[:1],
        total=1,
        places=FIRST_PAGES,
        subscriptions=subscriptions,
        more_channels=True,
    )
    bk.validate_view(view)
    texts = " ".join(_texts(view["blocks"]))
    weekly, new = texts.split('"Weekly team digest"')[1].split('"New papers"')
    assert "CWEEKLY001" in weekly and "CNEWPAPERS" not in weekly and "and more" not in weekly
    new = new.split("How to use")[0]
    assert "CNEWPAPERS" in new and "“pruning”" in new and "…and more" in new


def test_paper_subscriptions_says_how_new_papers_reach_the_channel() -> None:
    new = render_new.subscription_lines(
        "08:30 UTC, on days with new papers", None, paused_reason=None, next_post="tomorrow"
    )
    message = render_digest.subscriptions_message(None, None, new=new, follows_feeds=True)
    sections = [block["text"]["text"] for block in message.blocks]
    assert sections[1].startswith("*New papers:* 08:30 UTC, on days with new papers")
    assert "come from the bundled collection" in sections[2]
    quiet = render_digest.subscriptions_message("09:00 UTC, on weekdays", None)
    assert "bundled collection" not in json.dumps(quiet.blocks)
