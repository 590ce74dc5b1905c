"""``python -m bot digest``: posting now, dry runs, due channels, and the claim's "already"."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterator
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from faulty_slack import FaultySlackRecorder, slack_error

from bot.digest.cli import main
from bot.digest.service import DigestService
from bot.papers.corpus import load_corpus
from bot.search.engine import SearchIndex
from bot.settings import Settings
from bot.slack.client import digest_client, make_web_client
from bot.store import Store

BERLIN = ZoneInfo("Europe/Berlin")
FRIDAY_EIGHT = datetime(2025, 3, 28, 8, 0, tzinfo=BERLIN)


@pytest.fixture
def settings(tmp_path, recorder: FaultySlackRecorder) -> Settings:
    recorder.clear()
    return Settings(
        slack_bot_token="xoxb-test",
        slack_api_url=recorder.base_url,
        database_url=f"sqlite:///{tmp_path / 'paperbot.db'}",
        timezone="Europe/Berlin",
        corpus="seeds",
    )


@pytest.fixture(autouse=True)
def frozen() -> Iterator[time_machine.Coordinates]:
    with time_machine.travel(FRIDAY_EIGHT, tick=False) as coordinates:
        yield coordinates


def subscribe(settings: Settings, recorder: FaultySlackRecorder, channel: str, args: str) -> None:
    store = Store(settings.database_url)
    index = SearchIndex.build(load_corpus("seeds").papers)
    DigestService(store, index, make_web_client("x", recorder.base_url), settings).subscribe(
        channel, args
    )
    store.close()


def posted_channels(recorder: FaultySlackRecorder) -> list[str]:
    return [call.args["channel"] for call in recorder.calls_to("chat.postMessage")]


def test_channel_posts_now_then_says_it_already_did(settings, recorder, capsys) -> None:
    assert main(["--channel", "CNOW"], settings, digest_client(settings)) == 0
    first = capsys.readouterr().out
    assert "CNOW 2025-03-28: posted" in first
    assert main(["--channel", "CNOW"], settings, digest_client(settings)) == 0
    second = capsys.readouterr().out
    assert "CNOW 2025-03-28: already posted" in second
    assert posted_channels(recorder) == ["CNOW"]


def test_dry_run_prints_the_post_and_records_nothing(settings, recorder, capsys) -> None:
    assert main(["--channel", "CDRY", "--dry-run"], settings, digest_client(settings)) == 0
    out = capsys.readouterr().out
    assert "not posted (dry run)" in out
    assert "Paper of the day · Friday 28 March 2025" in out
    assert "Paper 1 of 76" in out
    assert recorder.calls_to("chat.postMessage") == []
    store = Store(settings.database_url)
    assert store.digest_claim("CDRY", date(2025, 3, 28)) is None
    store.close()


def test_without_a_channel_only_due_channels_are_served(settings, recorder, capsys, frozen) -> None:
    subscribe(settings, recorder, "CEARLY", "7:30 Europe/Berlin")
    subscribe(settings, recorder, "CLATE", "10:00 Europe/Berlin")
    assert main([], settings, digest_client(settings)) == 0
    assert posted_channels(recorder) == ["CEARLY"]
    assert "CEARLY 2025-03-28: posted" in capsys.readouterr().out
    frozen.move_to(datetime(2025, 3, 28, 10, 0, tzinfo=BERLIN).astimezone(UTC))
    assert main([], settings, digest_client(settings)) == 0
    assert posted_channels(recorder) == ["CEARLY", "CLATE"]
    out = capsys.readouterr().out
    assert "CEARLY 2025-03-28: already posted" in out
    assert "CLATE 2025-03-28: posted" in out


def test_nothing_due_says_so(settings, capsys) -> None:
    assert main([], settings, digest_client(settings)) == 0
    assert "no subscribed channel is due now" in capsys.readouterr().out


def test_posting_needs_a_token(settings, capsys) -> None:
    without_token = Settings(database_url=settings.database_url, corpus="seeds")
    assert main(["--channel", "C1"], without_token, digest_client(without_token)) == 2
    assert "SLACK_BOT_TOKEN" in capsys.readouterr().err
    assert main(["--channel", "C1", "--dry-run"], without_token, digest_client(without_token)) == 0


def test_a_channel_the_bot_left_fails_and_pauses(settings, recorder, capsys) -> None:
    subscribe(settings, recorder, "CGONE", "7:00 Europe/Berlin")
    recorder.fail_next("chat.postMessage", slack_error("not_in_channel"))
    assert main([], settings, digest_client(settings)) == 1
    assert "CGONE 2025-03-28: paused (Slack said not_in_channel)" in capsys.readouterr().out
    assert main([], settings, digest_client(settings)) == 0
    assert len(recorder.calls_to("chat.postMessage")) == 1


def test_a_channel_forced_after_not_in_channel_says_paused_and_how_to_resume(
    settings, recorder, capsys
) -> None:
    recorder.fail_next("chat.postMessage", slack_error("not_in_channel"))
    assert main(["--channel", "CLEFT"], settings, digest_client(settings)) == 1
    capsys.readouterr()
    assert main(["--channel", "CLEFT"], settings, digest_client(settings)) == 1
    again = capsys.readouterr().out
    assert "CLEFT: paused (Slack said not_in_channel)" in again
    assert "/invite @paperbot" in again and "/paper subscribe" in again
    assert len(recorder.calls_to("chat.postMessage")) == 1


def test_the_command_opens_the_index_the_bot_saved(settings, tmp_path, caplog, capsys) -> None:
    saving = dataclasses.replace(settings, index_dir=tmp_path / "indexes", semantic=False)
    with caplog.at_level(logging.INFO, logger="bot.search.snapshot"):
        assert main(["--channel", "CDRY", "--dry-run"], saving, None) == 0
        assert "building the index and saving it" in caplog.text
        built = capsys.readouterr().out
        caplog.clear()
        assert main(["--channel", "CDRY", "--dry-run"], saving, None) == 0
    assert "opened the snapshot" in caplog.text
    assert capsys.readouterr().out == built
    assert "Paper of the day · Friday 28 March 2025" in built
