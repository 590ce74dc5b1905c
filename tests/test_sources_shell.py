"""``/paper sources`` and the shell's ``sources``, through the real app: what is followed,
each feed's papers, its last good fetch, the next one, and what failed; with no feed, what
the bot searches instead, and not one request to any source. The shell's ``new`` is
``/paper new``, which says where new papers would come from while there are none."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from slack_harness import fixed_clock
from test_ingested_store import preprint

from bot.settings import Settings, parse_feeds
from bot.shell.fake_slack import SlackRecorder
from bot.shell.repl import SHELL_TOKEN, Shell
from bot.slack.client import make_web_client
from bot.store import Store
from bot.wiring.root import build_services


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(database_url=f"sqlite:///{tmp_path / 'shell.db'}", scheduler_enabled=False)


def shell_for(settings: Settings, seed_corpus) -> Iterator[tuple[Shell, Store]]:
    with SlackRecorder() as recorder:
        client = make_web_client(SHELL_TOKEN, recorder.base_url)
        services = build_services(settings, client, clock=fixed_clock, corpus=seed_corpus)
        yield Shell(services, recorder, client), services.store
        services.close()


def test_sources_lists_each_feed_with_its_papers_fetches_and_failures(
    settings: Settings, seed_corpus
) -> None:
    followed = replace(
        settings,
        feeds=parse_feeds("arxiv:cs.LG arxiv:cs.CL+cross openreview:ICLR.cc/2026/Conference"),
    )
    for shell, store in shell_for(followed, seed_corpus):
        store.store_entries([preprint(), preprint("2501.07777")])
        store.record_feed("arxiv:cs.LG", watermark="2025-01-06")
        store.record_feed("openreview:ICLR.cc/2026/Conference", error="127.0.0.1 answered 500")
        text = shell.handle("sources")
        assert "only visible to you" in text
        assert "New papers come from these sources:" in text
        now = fixed_clock()
        assert f"arXiv cs.LG: 2 papers, last fetched {now:%Y-%m-%d %H:%M} UTC; next " in text
        assert "arXiv cs.CL (with cross-lists): 0 papers, not fetched yet; next " in text
        assert "OpenReview ICLR.cc/2026/Conference: 0 papers, not fetched yet" in text
        assert "The last attempt failed (once): 127.0.0.1 answered 500" in text
        assert "cs.LG" in shell.handle("/paper sources")


def test_with_no_feed_sources_says_what_is_searched(settings: Settings, seed_corpus) -> None:
    for shell, _store in shell_for(settings, seed_corpus):
        text = shell.handle("sources")
        assert "The bot follows no feed" in text and "PAPERBOT_FEEDS" in text


def test_new_says_where_new_papers_come_from_while_there_are_none(
    settings: Settings, seed_corpus
) -> None:
    for shell, _store in shell_for(settings, seed_corpus):
        text = shell.handle("new")
        assert "New papers come from the arXiv" in text and "PAPERBOT_FEEDS=arxiv:cs.LG" in text
    for shell, _store in shell_for(
        replace(settings, feeds=parse_feeds("arxiv:cs.LG")), seed_corpus
    ):
        text = shell.handle("new")
        assert "No new papers yet" in text and "/paper sources" in text
