"""A distributed app end to end over HTTP: two workspaces installed through the OAuth flow,
each answered with its own token, each subscribed channel posted in with its own token
exactly once, a rotating token refreshed before a scheduled post, an uninstall that stops
one workspace and leaves the other, and an Enterprise Grid org-wide install."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta

import pytest
from oauth_harness import ALPHA, BETA, GRID, GRID_WORKSPACE, DistributedBot
from slack_harness import FIXED_NOW
from sqlalchemy import create_engine, text

from bot.digest import cli as digest_cli
from bot.shell.fake_slack import RESPONSE_URL
from bot.slack import payloads
from bot.wiring.root import distributed_clients


class Clock:
    def __init__(self) -> None:
        self.now = FIXED_NOW

    def __call__(self):
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def distributed(seed_corpus, tmp_path, clock) -> Iterator[DistributedBot]:
    live = DistributedBot(seed_corpus, tmp_path, clock=clock)
    yield live
    live.close()


def _installed(bot: DistributedBot) -> list[tuple]:
    engine = create_engine(bot.settings.database_url)
    with engine.connect() as connection:
        rows = connection.execute(
            text("SELECT enterprise_id, team_id, is_enterprise_install FROM slack_bots")
        ).all()
    engine.dispose()
    return sorted(tuple(row) for row in rows)


def _subscribe(bot: DistributedBot, team) -> str:
    bot.as_team(team)
    reply = bot.slash("subscribe 07:00")
    assert reply.status == 200
    bot.drain()
    return bot.workspace.channel_id


def _posts(bot: DistributedBot, channel: str) -> list:
    return [
        call
        for call in bot.recorder.calls_to("chat.postMessage")
        if call.args.get("channel") == channel and call.response.get("ok")
    ]


def test_two_workspaces_installed_are_each_answered_with_their_own_token(distributed):
    for team in (ALPHA, BETA):
        page = distributed.install(team)
        assert page.status == 200 and f"paperbot is added to {team.name}" in page.body
    assert _installed(distributed) == [(None, "T0ALPHA", False), (None, "T0BETA", False)]
    for team in (ALPHA, BETA):
        distributed.as_team(team)
        distributed.recorder.clear()
        assert distributed.slash("graph sparsification").status == 200
        distributed.drain()
        answered = distributed.recorder.wait_for(RESPONSE_URL)
        assert "sparsif" in answered[0].text.lower() or answered[0].blocks
        tokens = {call.token for call in distributed.recorder.calls_to("auth.test")}
        assert tokens == {distributed.recorder.token_of(team)}
        reply, _ = distributed.mention("diffusion models")
        assert reply.status == 200
        distributed.drain()
        posted = distributed.recorder.wait_for("chat.postMessage")
        assert posted[0].token == distributed.recorder.token_of(team)
        assert posted[0].response["ok"]


def test_each_channel_gets_its_paper_of_the_day_with_its_own_token_exactly_once(distributed):
    distributed.install(ALPHA)
    distributed.install(BETA)
    channels = {team: _subscribe(distributed, team) for team in (ALPHA, BETA)}
    distributed.recorder.clear()
    distributed.services.digest.serve_due()
    distributed.services.digest.serve_due()
    for team, channel in channels.items():
        posts = _posts(distributed, channel)
        assert len(posts) == 1
        assert posts[0].token == distributed.recorder.token_of(team)


def test_an_expiring_token_is_refreshed_before_a_scheduled_post(distributed, caplog):
    distributed.recorder.expires_in = 600  # less than the two hours before expiry it refreshes
    distributed.install(ALPHA)
    channel = _subscribe(distributed, ALPHA)
    stale = distributed.recorder.token_of(ALPHA)
    distributed.recorder.expire(ALPHA)
    distributed.recorder.clear()
    with caplog.at_level("DEBUG"):
        [outcome] = distributed.services.digest.serve_due()
    assert outcome.status == "posted"
    assert "oauth.v2.access" in caplog.text  # slack_sdk logged the refresh at DEBUG
    for secret in (stale, distributed.recorder.token_of(ALPHA), "xoxe-1-T0ALPHA", "s3cr3t"):
        assert secret not in caplog.text
    refreshed = distributed.recorder.calls_to("oauth.v2.access")
    assert [call.args.get("grant_type") for call in refreshed] == ["refresh_token"]
    [post] = _posts(distributed, channel)
    assert post.token == distributed.recorder.token_of(ALPHA) != stale


def test_uninstalling_one_workspace_stops_its_posts_and_deletes_it_the_other_goes_on(
    distributed, clock
):
    distributed.install(ALPHA)
    distributed.install(BETA)
    channels = {team: _subscribe(distributed, team) for team in (ALPHA, BETA)}
    distributed.as_team(ALPHA)
    uninstall = payloads.event_callback(distributed.workspace, {"type": "app_uninstalled"})
    assert distributed.signed_post(*payloads.json_body(uninstall)).status == 200
    distributed.drain()
    assert _installed(distributed) == [(None, "T0BETA", False)]
    assert distributed.services.store.subscription(channels[ALPHA]) is None
    clock.now += timedelta(days=1)
    distributed.recorder.clear()
    distributed.services.digest.serve_due()
    assert _posts(distributed, channels[ALPHA]) == []
    [post] = _posts(distributed, channels[BETA])
    assert post.token == distributed.recorder.token_of(BETA)


def test_an_org_wide_install_is_keyed_by_its_organisation(distributed, clock):
    page = distributed.install(GRID)
    assert page.status == 200 and "paperbot is added to Grid" in page.body
    assert _installed(distributed) == [("E0GRID", None, True)]
    distributed.as_team(GRID, workspace=GRID_WORKSPACE)
    reply = distributed.slash("subscribe 07:00")
    assert reply.status == 200
    distributed.drain()
    channel = distributed.workspace.channel_id
    assert distributed.services.store.subscription(channel).team_id == "E0GRID"
    distributed.recorder.clear()
    distributed.services.digest.serve_due()
    [post] = _posts(distributed, channel)
    assert post.token == distributed.recorder.token_of(GRID)
    uninstall = payloads.event_callback(distributed.workspace, {"type": "app_uninstalled"})
    uninstall.update(enterprise_id="E0GRID", is_enterprise_install=True)
    uninstall["authorizations"][0].update(enterprise_id="E0GRID", is_enterprise_install=True)
    assert distributed.signed_post(*payloads.json_body(uninstall)).status == 200
    distributed.drain()
    assert _installed(distributed) == []
    assert distributed.services.store.subscription(channel) is None


def test_a_workspace_without_an_installation_is_not_answered_and_logged_once(distributed, caplog):
    distributed.as_team(ALPHA)
    with caplog.at_level("INFO"):
        for _ in range(3):
            reply, _ = distributed.mention("diffusion models")
            assert reply.status == 200 and reply.body == ""
        distributed.drain()
    assert distributed.recorder.calls_to("chat.postMessage") == []
    notes = [r for r in caplog.records if "no installation" in r.getMessage()]
    assert len(notes) == 1
    assert "Although the app should be installed" not in caplog.text


def test_paperbot_digest_posts_with_each_workspaces_token(distributed, capsys):
    distributed.install(BETA)
    channel = _subscribe(distributed, BETA)
    distributed.recorder.clear()
    settings = replace(distributed.settings, corpus="seeds")
    assert (
        digest_cli.main(["--channel", channel], settings, None, distributed_clients(settings)) == 0
    )
    [post] = _posts(distributed, channel)
    assert post.token == distributed.recorder.token_of(BETA)
    assert ": posted" in capsys.readouterr().out
