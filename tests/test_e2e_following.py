"""A paper the feeds stored is found by ``/paper`` over HTTP, through the real app and the
fake Slack, once the served bot has followed the store (``Services.follow``); a bot that
follows no feed never reads it. A paper announced today is in ``/paper new`` and in
``/paper new TOPIC``, while ``/paper new`` and a sentence stays a search of every paper."""

from __future__ import annotations

from dataclasses import replace

import pytest
from slack_harness import FIXED_NOW, LiveBot, all_text
from test_ingested_store import preprint

from bot.papers.corpus import load_corpus
from bot.render import blocks as bk
from bot.render import papers as render
from bot.render.message import Message
from bot.settings import parse_feeds
from bot.shell.fake_slack import RESPONSE_URL

TITLE = "Quantum Annealing Schedules for Sparse Tensor Factorisation"


@pytest.fixture
def bot(tmp_path):
    live = LiveBot(load_corpus("seeds"), tmp_path)
    yield live
    live.close()


def _reply(bot: LiveBot) -> list[dict]:
    bot.drain()
    call = bot.recorder.calls_to(RESPONSE_URL)[-1]
    bk.validate(Message(call.text, tuple(call.blocks)))
    return call.blocks


def _answer(bot: LiveBot, query: str) -> str:
    bot.slash(query)
    return all_text(_reply(bot))


def _follow_once(bot: LiveBot, feeds: str) -> None:
    """What the served bot does once its index is prepared; the follower's first tick is
    over when its thread, told to stop, has ended."""
    services = bot.services
    services.settings = replace(services.settings, feeds=parse_feeds(feeds))
    services.follow()
    if services.follower is not None:
        services.follower.close()
        services.follower._thread.join(timeout=10)


def test_a_stored_paper_is_found_by_paper_search(bot: LiveBot) -> None:
    bot.services.store.store_entries([preprint("2501.00001", title=TITLE)])
    assert TITLE not in _answer(bot, "quantum annealing tensor factorisation")
    _follow_once(bot, "arxiv:cs.LG")
    assert TITLE in _answer(bot, "quantum annealing tensor factorisation")


def test_without_feeds_stored_papers_are_not_read(bot: LiveBot) -> None:
    bot.services.store.store_entries([preprint("2501.00001", title=TITLE)])
    _follow_once(bot, "")
    assert bot.services.follower is None
    assert TITLE not in _answer(bot, "quantum annealing tensor factorisation")


TODAY = FIXED_NOW.date()
SENTENCE = "new methods for quantum annealing"


def _announced_today(bot: LiveBot) -> None:
    entry = preprint("2504.00001", title=TITLE, announced=TODAY)
    bot.services.store.store_entries([entry])
    _follow_once(bot, "arxiv:cs.LG")


def test_a_paper_announced_today_is_in_paper_new_and_new_topic(bot: LiveBot) -> None:
    _announced_today(bot)
    listed = _answer(bot, "new")
    assert f"New papers announced {TODAY:%A} {TODAY.day} {TODAY:%B %Y} (1 paper)" in listed
    assert TITLE in listed
    about = _answer(bot, "new quantum annealing")
    assert "New papers about “quantum annealing”" in about and TITLE in about
    bot.click(_reply(bot), render.ACTION_OTHER_READING)
    searched = all_text(_reply(bot))
    assert "Papers for “new quantum annealing”" in searched


def test_new_and_a_sentence_is_still_a_search_offering_the_new_papers(bot: LiveBot) -> None:
    _announced_today(bot)
    searched = _answer(bot, SENTENCE)
    assert f"Papers for “{SENTENCE}”" in searched
    assert "which reads as a sentence" in searched
    bot.click(_reply(bot), render.ACTION_OTHER_READING)
    new_only = all_text(_reply(bot))
    assert "New papers about “methods for quantum annealing”" in new_only and TITLE in new_only


def test_without_feeds_new_is_explained_and_new_words_search_as_before(bot: LiveBot) -> None:
    """The shipped-only bot: ``new`` alone says how to follow feeds; with words it searches.
    Followed, the last announcement day is the last one there was, however long ago."""
    bot.services.store.store_entries([preprint("2501.00001", title=TITLE)])
    assert "it follows none" in _answer(bot, "new")
    assert "Papers for “new quantum annealing”" in _answer(bot, "new quantum annealing")
    _follow_once(bot, "arxiv:cs.LG")
    assert "New papers announced Monday 6 January 2025 (1 paper)" in _answer(bot, "new")
