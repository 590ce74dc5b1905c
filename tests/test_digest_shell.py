"""The shell's digest gestures: ``react N :emoji:`` goes through the bot's reaction listener
as Slack's ``reaction_added`` event, and ``/paper today weekly`` previews the weekly digest."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from slack_harness import fixed_clock

from bot.settings import Settings
from bot.shell.fake_slack import SlackRecorder
from bot.shell.repl import HELP, SHELL_TOKEN, Shell
from bot.slack.client import make_web_client
from bot.wiring.root import Services, build_services


@pytest.fixture
def shell(seed_corpus, tmp_path) -> Iterator[tuple[Shell, Services]]:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'shell.db'}", scheduler_enabled=False)
    with SlackRecorder() as recorder:
        client = make_web_client(SHELL_TOKEN, recorder.base_url)
        services = build_services(settings, client, clock=fixed_clock, corpus=seed_corpus)
        yield Shell(services, recorder, client), services
        services.close()


def test_react_counts_on_the_paper_of_the_day_and_shapes_the_channel(shell) -> None:
    repl, services = shell
    channel = repl.workspace.channel_id
    assert "react N :EMOJI:" in HELP
    assert "has no post 1" in repl.handle("react 1 :+1:")
    repl.handle("/paper subscribe 00:00 UTC daily")
    assert services.digest.serve(channel, force=True).status == "posted"
    assert "Shaped by this channel" not in repl.handle("/paper subscriptions")
    assert "you reacted :+1: on the bot's post 1" in repl.handle("react 1 :+1:")
    assert len(services.store.channel_interest(channel)) == 1
    assert "Shaped by this channel" in repl.handle("/paper subscriptions")
    assert "Write it like" in repl.handle("react one thumbsup")


def test_today_weekly_previews_the_weekly_digest(shell) -> None:
    repl, _services = shell
    assert "no weekly team digest" in repl.handle("/paper today weekly")
    assert "on Mondays" in repl.handle("/paper subscribe weekly monday 9am UTC")
    preview = repl.handle("/paper today weekly")
    assert "The next weekly digest, coming Monday" in preview
    assert "Team digest" in preview and "Picked for this channel" in preview
    listing = repl.handle("/paper subscriptions")
    assert "Weekly team digest" in listing and "no paper of the day" not in listing.lower()
