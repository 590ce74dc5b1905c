"""Channel signals end to end over HTTP, through the real app and the fake Slack: signed
``reaction_added``/``reaction_removed`` events in Slack's shape on the paper of the day change
``store.channel_interest``; a retried delivery counts once, a removed reaction no more, a
bot's reaction never; a Share posted into the channel counts, and reactions on it too."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace

from project import PROJECT_ROOT
from slack_harness import LiveBot, find_button
from test_signals_store import _post_digest

from bot.buttons import PaperButton
from bot.render import papers as render
from bot.shell.fake_slack import RESPONSE_URL
from bot.slack import payloads


def _digest_post(bot: LiveBot) -> tuple[str, str]:
    """The paper of the day as the digest leaves it: a bot message in the channel, and its
    claim marked posted with that message's ``ts``."""
    store, channel = bot.services.store, bot.workspace.channel_id
    paper_id = _any_paper(bot)
    posted = bot.recorder.add_message(
        channel, "Paper of the day", user=bot.workspace.bot_user_id, bot_id=bot.recorder.bot_id
    )
    _post_digest(store, channel, paper_id, posted["ts"])
    return paper_id, posted["ts"]


def _any_paper(bot: LiveBot) -> str:
    bot.slash("graph neural networks")
    bot.drain()
    page = bot.recorder.calls_to(RESPONSE_URL)[-1].blocks
    button, _ = find_button(page, render.ACTION_SAVE)
    return PaperButton.decode(button["value"]).paper_id


def _react(bot: LiveBot, emoji: str, ts: str, *, added: bool = True, **options) -> None:
    event = payloads.reaction(
        options.pop("workspace", bot.workspace), emoji, bot.workspace.channel_id, ts, added=added
    )
    assert bot.event(event, **options).status == 200
    bot.drain()


def test_reactions_on_the_paper_of_the_day_change_the_channels_interest(bot: LiveBot) -> None:
    paper_id, ts = _digest_post(bot)
    interest = bot.services.store.channel_interest
    assert interest(bot.workspace.channel_id) == {}
    _react(bot, "+1", ts, event_id="EvTHUMBSUP")
    assert interest(bot.workspace.channel_id) == {paper_id: 1.0}
    _react(bot, "+1", ts, event_id="EvTHUMBSUP", retry_num=1)
    assert interest(bot.workspace.channel_id) == {paper_id: 1.0}
    _react(bot, "+1", ts, added=False, event_id="EvTAKENBACK")
    assert interest(bot.workspace.channel_id) == {}
    _react(bot, "+1", ts, event_id="EvTHUMBSUP", retry_num=2)
    assert interest(bot.workspace.channel_id) == {}, "a late retry does not bring it back"
    _react(bot, "-1", ts)
    assert interest(bot.workspace.channel_id) == {paper_id: -1.0}


def test_a_bots_reaction_never_counts(bot: LiveBot) -> None:
    _, ts = _digest_post(bot)
    as_the_bot = replace(bot.workspace, user_id=bot.workspace.bot_user_id)
    _react(bot, "tada", ts, workspace=as_the_bot)
    _react(bot, "tada", "1700000099.000001")
    assert bot.services.store.channel_interest(bot.workspace.channel_id) == {}


def test_a_share_and_reactions_on_it_count_for_the_channel(bot: LiveBot) -> None:
    bot.slash("graph neural networks")
    bot.drain()
    page = bot.recorder.calls_to(RESPONSE_URL)[-1].blocks
    button, _ = find_button(page, render.ACTION_SHARE)
    paper_id = button["value"]
    bot.click(page, render.ACTION_SHARE)
    bot.drain()
    shared = bot.recorder.calls_to("chat.postMessage")[-1]
    ts = shared.response["ts"]
    interest = bot.services.store.channel_interest
    assert interest(bot.workspace.channel_id) == {paper_id: 1.0}
    _react(bot, "eyes", ts)
    assert interest(bot.workspace.channel_id) == {paper_id: 1.5}


def test_a_save_on_the_paper_of_the_day_goes_to_the_reading_list_alone(
    bot: LiveBot, tmp_path
) -> None:
    """A reading list is private: a Save clicked on a channel's post leaves no channel signal."""
    paper_id, ts = _digest_post(bot)
    card = render.paper_message(
        bot.services.answers.papers.get(paper_id), buttons=render.PUBLIC_BUTTONS
    )
    bot.click(list(card.blocks), render.ACTION_SAVE, is_ephemeral=False, message_ts=ts)
    bot.drain()
    assert bot.services.store.saved_count(bot.workspace.team_id, bot.workspace.user_id) == 1
    with sqlite3.connect(tmp_path / "paperbot.db") as connection:
        rows = connection.execute("SELECT channel, paper_id, kind FROM channel_signals").fetchall()
    assert rows == []
    assert bot.services.store.channel_interest(bot.workspace.channel_id) == {}


def test_the_manifest_asks_only_reactions_read_for_them() -> None:
    """The reaction events need ``reactions:read`` and nothing more: the bot never reads
    reactions any other way (``reactions.get``) and never adds one."""
    manifest = json.loads((PROJECT_ROOT / "manifest.json").read_text())
    scopes = manifest["oauth_config"]["scopes"]["bot"]
    assert [scope for scope in scopes if scope.startswith("reactions:")] == ["reactions:read"]
