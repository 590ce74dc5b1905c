"""``/paper since:… TOPIC`` over HTTP: a paper the feeds stored is found by its day and its
category once the served bot follows the store, days back counted on the bot's own clock
(``FIXED_NOW``, 24 Apr 2025), and a filter nothing passes says why."""

from __future__ import annotations

from datetime import date

import pytest
from slack_harness import LiveBot
from test_e2e_following import TITLE, _answer, _follow_once
from test_ingested_store import preprint

from bot.papers.corpus import load_corpus

QUERY = "quantum annealing tensor factorisation"


@pytest.fixture
def bot(tmp_path):
    live = LiveBot(load_corpus("seeds"), tmp_path)
    live.services.store.store_entries(
        [preprint("2504.00001", title=TITLE, announced=date(2025, 4, 23))]
    )
    _follow_once(live, "arxiv:cs.LG")
    yield live
    live.close()


def test_a_paper_announced_yesterday_is_found_since_a_day(bot: LiveBot) -> None:
    assert TITLE in _answer(bot, f"since:2025-04-20 {QUERY}")
    recent = _answer(bot, f"since:7d {QUERY}")
    assert TITLE in recent and "Papers dated 17 Apr 2025 or later" in recent
    assert TITLE in _answer(bot, f"category:cs.LG source:arxiv {QUERY}")
    listed = _answer(bot, "since:yesterday")  # filters alone: every paper they let through
    assert TITLE in listed


def test_a_day_after_the_newest_paper_says_which_is_the_newest(bot: LiveBot) -> None:
    text = _answer(bot, f"since:today {QUERY}")
    assert TITLE not in text
    assert "No paper here is dated 24 Apr 2025 or later (the newest is from 23 Apr 2025)." in text


def test_a_mistyped_date_says_how_to_write_one(bot: LiveBot) -> None:
    text = _answer(bot, f"since:yesterdy {QUERY}")
    assert TITLE not in text
    assert "is not a date" in text and "since:yesterday" in text
