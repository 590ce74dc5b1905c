"""A paper the feeds stored is found by ``/paper`` over HTTP, through the real app and the
fake Slack, once the served bot has followed the store (``Services.follow``); a bot that
follows no feed never reads it."""

from __future__ import annotations

from dataclasses import replace

import pytest
from slack_harness import LiveBot, all_text
from test_ingested_store import preprint

from bot.papers.corpus import load_corpus
from bot.render import blocks as bk
from bot.render.message import Message
from bot.settings import parse_feeds
from bot.shell.fake_slack import RESPONSE_URL

TITLE = "Quantum Annealing Schedules for Sparse Tensor Factorisation"


@pytest.fixture
def bot(tmp_path):
    live = LiveBot(load_corpus("seeds"), tmp_path)
    yield live
    live.close()


def _answer(bot: LiveBot, query: str) -> str:
    bot.slash(query)
    bot.drain()
    call = bot.recorder.calls_to(RESPONSE_URL)[-1]
    bk.validate(Message(call.text, tuple(call.blocks)))
    return all_text(call.blocks)


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
