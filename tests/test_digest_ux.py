"""The paper of the day as a person meets it through ``/paper``: refusals that say what to do
instead, errors with an example, and topics echoed harmlessly and briefly everywhere."""

from __future__ import annotations

import json

from slack_harness import LiveBot, all_text

from bot.render.blocks import validate
from bot.render.message import Message
from bot.shell.fake_slack import RESPONSE_URL, RecordedCall


def answer(bot: LiveBot, text: str, *, channel_id: str | None = None) -> RecordedCall:
    """The private reply to ``/paper text``, checked the way Slack would check it."""
    before = len(bot.recorder.calls_to(RESPONSE_URL))
    reply = bot.slash(text, channel_id=channel_id)
    assert reply.status == 200
    call = bot.recorder.wait_for(RESPONSE_URL, before + 1)[before]
    assert call.args["response_type"] == "ephemeral"
    validate(Message(call.text, tuple(call.blocks)))
    assert call.text.strip() and ":warning:" not in call.text
    return call


def test_subscribing_in_a_direct_message_is_refused_with_what_to_do(bot):
    refused = all_text(answer(bot, "subscribe 9am", channel_id="D0ASKER").blocks)
    assert "goes to channels, not direct messages" in refused
    assert "`/invite @paperbot`" in refused
    assert bot.services.digest.subscription("D0ASKER") is None
    for command in ("today", "subscriptions"):
        pointed = all_text(answer(bot, command, channel_id="D0ASKER").blocks)
        assert "`/paper subscribe` in the channel that should get it" in pointed


def test_today_without_a_subscription_explains_how_to_subscribe(bot):
    text = all_text(answer(bot, "today").blocks)
    assert "no paper of the day" in text
    assert "`/paper subscribe 9:30am Europe/Berlin`" in text


def test_bad_time_and_zone_say_what_is_wrong_and_show_an_example(bot):
    cases = (("25:00", "`25:00` is not a time of day"), ("9am Europe/Olympus", "`Europe/Olympus`"))
    for args, problem in cases:
        text = all_text(answer(bot, f"subscribe {args}").blocks)
        assert problem in text
        assert "Example: `/paper subscribe 9:30am Europe/Berlin weekdays" in text
    assert bot.services.digest.subscription(bot.workspace.channel_id) is None


def test_a_subscription_reminds_that_the_bot_must_be_in_the_channel(bot):
    text = all_text(answer(bot, "subscribe 9:30 Europe/Berlin").blocks)
    assert "Subscribed: this channel gets one of the papers" in text
    assert "`/invite @paperbot`" in text


def test_a_pasted_page_as_topic_is_refused(bot):
    text = all_text(answer(bot, "subscribe 9am " + "graph " * 2000).blocks)
    assert "keep it to 200" in text
    assert "Example:" in text
    assert bot.services.digest.subscription(bot.workspace.channel_id) is None


def test_hostile_topics_are_escaped_and_shortened_in_every_echo_and_the_daily_post(bot):
    topic = "&lt;!channel&gt; <!here> <@U0VICTIM> &amp; graph " + "neural " * 25
    subscribed = answer(bot, f"subscribe 07:00 UTC daily {topic}")
    listing = answer(bot, "subscriptions")
    today = answer(bot, "today")
    outcome = bot.services.digest.serve(bot.workspace.channel_id)
    assert outcome.status == "posted", outcome.detail
    [post] = bot.recorder.wait_for("chat.postMessage")
    validate(Message(post.text, tuple(post.blocks)))
    for call in (subscribed, listing, today, post):
        # The post's metadata keeps the topic as typed, for the bot's own reading back
        # (PostTag); Slack never shows metadata, so only what it draws is checked.
        sent = json.dumps({key: value for key, value in call.args.items() if key != "metadata"})
        for ping in ("<!channel>", "<!here>", "<@U0VICTIM>"):
            assert ping not in sent
        text = all_text(call.blocks)
        assert "“&lt;!channel&gt; &amp; graph neural" in text
        assert "neural " * 25 not in text
    assert "`/paper unsubscribe`" in all_text(subscribed.blocks)
