"""Answering while the database cannot be used (issue 20, defects 3 and 4).

A SQLite file whose write lock another connection holds, and PostgreSQL behind a loopback
proxy that refuses or freezes: searches and link previews are answered (paging degrades and
says so), reads go on under another process's write lock, a mention is answered once even
when its delivery cannot be recorded, and no request waits past the store's deadline. The
deadline is made small through the store's constructor, so nothing here sleeps.

No test times a request (a busy machine would fail it; speed lives in ``bench/``). A request
that stopped waiting shows in what happens after: its write, left waiting for the lock,
is rolled back once the lock is free and logged as such; a request that had waited for the
lock instead (SQLite's own 15 s) would have found the write failed, and nothing to roll back.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from postgres_proxy import PostgresProxy
from slack_bolt import App
from slack_harness import all_text
from test_store import throwaway_postgres_database

from bot.answers import Answers, Viewer
from bot.answers.typed import Intent, Request
from bot.digest.service import DigestService
from bot.render.message import Message
from bot.render.papers import RENDER_VERSION
from bot.render.replies import PAGING_UNAVAILABLE, database_unavailable_message
from bot.search.engine import SearchIndex
from bot.settings import Settings
from bot.slack.app import wsgi_app
from bot.slack.health import HEALTH_PATH, READY_PATH, HealthCheck
from bot.store import DatabaseUnavailable, Store, SubscriptionRecord
from handlers import commands, events

DEADLINE = 0.3
"""The store's deadline in these tests: small, so a refused wait costs little."""
SETTLING = 30.0
"""How long a write left waiting may take to finish once the lock is free: a bound, so a
broken store fails the test rather than hanging it, never a measure of speed."""
ROLLED_BACK = "a write was rolled back: its caller stopped waiting for it"
VIEWER = Viewer("T1", "U1")
SEARCH = Request(Intent.SEARCH, "graph")
LOGGER = logging.getLogger("test")


def fixed_clock() -> datetime:
    return datetime(2025, 3, 28, 8, 0, tzinfo=UTC)


class WriteLock:
    """Another process's write transaction on the bot's SQLite file, held until released."""

    def __init__(self, path: Path) -> None:
        self._connection: sqlite3.Connection | None = sqlite3.connect(path, isolation_level=None)
        self._connection.execute("BEGIN IMMEDIATE")
        self._before = set(threading.enumerate())

    def release(self) -> None:
        """Free the lock (once) and let the store's work left waiting on it finish."""
        if self._connection is None:
            return
        self._connection.execute("ROLLBACK")
        self._connection.close()
        self._connection = None
        for stranded in set(threading.enumerate()) - self._before:
            if stranded.name == "database":
                stranded.join(timeout=SETTLING)
                assert not stranded.is_alive()


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[tuple[Store, Path]]:
    path = tmp_path / "paperbot.db"
    store = Store(f"sqlite:///{path}", fixed_clock, deadline=DEADLINE)
    yield store, path
    store.close()


@pytest.fixture
def lock(sqlite_store: tuple[Store, Path], caplog: pytest.LogCaptureFixture) -> Iterator[WriteLock]:
    """Another connection's write lock on the store's file, taken once a paper is saved. The
    paper is saved with the usual deadline: the setting up is not what is tested, and on a
    busy machine it may take longer than the tests' short deadline."""
    _, path = sqlite_store
    with closing(Store(f"sqlite:///{path}", fixed_clock)) as setting_up:
        setting_up.save_paper(VIEWER.team_id, VIEWER.user_id, "a-saved-paper")
    caplog.set_level(logging.INFO, logger="bot.store")
    held = WriteLock(path)
    yield held
    held.release()


@pytest.fixture
def locked(sqlite_store: tuple[Store, Path], lock: WriteLock) -> Store:
    """A store whose file another connection holds the write lock on (a paper is saved)."""
    return sqlite_store[0]


def gave_up_waiting(lock: WriteLock, caplog: pytest.LogCaptureFixture) -> bool:
    """Whether the request answered while its write still waited for the lock: freed now,
    the write finds its caller gone and is rolled back rather than saved behind its back."""
    lock.release()
    return ROLLED_BACK in caplog.messages


def button_labels(message: Message) -> list[str]:
    return [
        element["text"]["text"]
        for block in message.blocks
        if block["type"] == "actions"
        for element in block["elements"]
    ]


def assert_searched_without_paging(message: Message) -> None:
    assert "Next 5" not in button_labels(message)
    assert PAGING_UNAVAILABLE in all_text(list(message.blocks))
    assert "went wrong" not in message.text


def test_a_search_is_answered_without_paging_under_a_write_lock(
    index: SearchIndex, locked, lock, caplog
):
    reply = Answers(index, locked).command(SEARCH, "C1", VIEWER)
    assert_searched_without_paging(reply)
    assert gave_up_waiting(lock, caplog)


def test_a_search_has_its_next_button_when_the_database_is_fine(index, sqlite_store):
    reply = Answers(index, sqlite_store[0]).command(SEARCH, "C1", VIEWER)
    assert "Next 5" in button_labels(reply)
    assert PAGING_UNAVAILABLE not in all_text(list(reply.blocks))


def test_a_link_preview_is_rendered_under_a_write_lock(index: SearchIndex, locked, lock, caplog):
    paper = index.papers[0]
    link = f"https://openreview.net/forum?id={paper.id}"
    unfurls = Answers(index, locked).unfurls([link])
    assert paper.title in all_text(unfurls[link]["blocks"])
    assert gave_up_waiting(lock, caplog)
    assert locked.cached_unfurl(link, RENDER_VERSION) is None


def test_reads_go_on_under_another_process_write_lock(locked):
    """A read that waited for the lock would give up at the deadline and raise."""
    assert locked.saved_papers(VIEWER.team_id, VIEWER.user_id) == ["a-saved-paper"]
    assert locked.subscriptions() == []


def test_subscribing_under_a_write_lock_gives_up_and_is_not_saved_later(locked, lock, caplog):
    """A subscription is a person's request too: ``/paper subscribe`` stops waiting for the
    lock at the deadline (not SQLite's 15 s) and says the records cannot be reached; the write
    left waiting must not save the subscription once the lock is free (no digest job would
    exist)."""
    record = SubscriptionRecord("C1", "09:00", "UTC", "daily", None, "command")
    with pytest.raises(DatabaseUnavailable):
        locked.save_subscription(record)
    assert gave_up_waiting(lock, caplog)
    assert locked.subscription("C1") is None


class Thread:
    """Slack's Web API as far as a mention's reply uses it: the posts, in order."""

    def __init__(self) -> None:
        self.posts: list[dict[str, Any]] = []

    def chat_postMessage(self, **fields: Any) -> dict[str, Any]:
        self.posts.append(fields)
        return {"ok": True}


def test_a_mention_is_answered_once_while_its_delivery_cannot_be_recorded(
    index, locked, lock, caplog
):
    answers, slack = Answers(index, locked), Thread()
    event = {"channel": "C1", "ts": "1.0", "text": "<@UBOT> graph", "user": "U2"}
    context = SimpleNamespace(bot_user_id="UBOT")
    for retry in range(2):
        body = {"event_id": "Ev1", "retry_attempt": retry}
        events.app_mention(answers, event, body, slack, context, LOGGER)
    assert gave_up_waiting(lock, caplog)
    assert len(slack.posts) == 1
    assert slack.posts[0]["thread_ts"] == "1.0"
    assert "Say `@paperbot more`" not in slack.posts[0]["text"] + all_text(slack.posts[0]["blocks"])
    assert "went wrong" not in slack.posts[0]["text"]


class Unreachable:
    """Answers whose every question needs the database, which does not answer."""

    def command(self, *_args: Any) -> Message:
        raise DatabaseUnavailable(f"no answer within {DEADLINE:g} s")


def test_what_needs_the_database_says_it_cannot_be_reached_now(caplog):
    replies: list[dict[str, Any]] = []
    command = {"text": "saved", "channel_id": "C1", "team_id": "T1", "user_id": "U1"}
    commands.paper_command(Unreachable(), command, None, lambda **r: replies.append(r), LOGGER)
    assert [reply["text"] for reply in replies] == [database_unavailable_message().text]
    assert not any(record.exc_info for record in caplog.records)


@pytest.mark.parametrize("text", ["subscriptions", "today"])
def test_the_digest_commands_say_the_records_cannot_be_reached_when_claims_cannot_be_read(
    index: SearchIndex, sqlite_store, text: str, caplog
):
    """``/paper subscriptions`` and ``/paper today`` read the day's claim too: a database that
    refuses that read gets the same answer as the rest, not an apology with a traceback (the
    claims table is gone here, which fails the read as a refused connection does)."""
    store, path = sqlite_store
    digest = DigestService(store, index, None, Settings())
    digest.subscribe("C1", "9:00 UTC")
    with closing(sqlite3.connect(path, isolation_level=None)) as other_process:
        other_process.execute("DROP TABLE digest_claims")
    replies: list[dict[str, Any]] = []
    command = {"text": text, "channel_id": "C1", "team_id": "T1", "user_id": "U1"}
    answers = Answers(index, store, digest)
    commands.paper_command(answers, command, None, lambda **r: replies.append(r), LOGGER)
    assert [reply["text"] for reply in replies] == [database_unavailable_message().text]
    assert not any(record.exc_info for record in caplog.records)


class Down:
    """A store whose database stopped answering."""

    def answered_last(self) -> bool:
        return False

    def reachable(self) -> bool:
        return False


def test_liveness_holds_and_readiness_fails_while_the_database_is_down():
    app = App(token="xoxb-test", signing_secret="secret", token_verification_enabled=False)
    serve = wsgi_app(app, database=Down())
    statuses: list[str] = []
    answered = {}
    for path in (HEALTH_PATH, READY_PATH):
        body = serve({"PATH_INFO": path, "REQUEST_METHOD": "GET"}, lambda s, _h: statuses.append(s))
        answered[path] = (statuses[-1], json.loads(b"".join(body)))
    assert answered == {
        HEALTH_PATH: ("200 OK", {"status": "ok", "database": "unavailable"}),
        READY_PATH: ("503 Service Unavailable", {"status": "unready", "database": "unavailable"}),
    }


@pytest.mark.postgres
@pytest.mark.parametrize("fault", ["refuse", "freeze"])
def test_postgresql_refusing_or_frozen_is_waited_for_no_longer_than_the_deadline(
    index: SearchIndex, fault: str
):
    with throwaway_postgres_database() as url, closing(PostgresProxy(url)) as proxy:
        store = Store(proxy.url, fixed_clock, deadline=DEADLINE)
        try:
            answers = Answers(index, store)
            assert HealthCheck(store).reply(READY_PATH)[0].startswith("200")
            assert "Next 5" in button_labels(answers.command(SEARCH, "C1", VIEWER))
            getattr(proxy, fault)()
            assert_searched_without_paging(answers.command(SEARCH, "C1", VIEWER))
            link = f"https://openreview.net/forum?id={index.papers[0].id}"
            assert link in answers.unfurls([link])
            with pytest.raises(DatabaseUnavailable):
                answers.saved_list(VIEWER)
            assert HealthCheck(store).reply(READY_PATH)[0].startswith("503")
            assert HealthCheck(store).reply(HEALTH_PATH) == (
                "200 OK",
                b'{"status": "ok", "database": "unavailable"}\n',
            )
        finally:
            proxy.close()
            store.close()
