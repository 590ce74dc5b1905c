"""Links that name no paper the bot has, as Slack delivers them: ``/paper LINK`` names the id
(never the whole URL, never the operator's corpus setting), and a pasted link gets no preview,
which in Slack means no ``chat.unfurl`` call at all."""

from __future__ import annotations

import pytest
from slack_harness import all_text

from bot.render.blocks import validate
from bot.render.message import Message
from bot.shell.fake_slack import RESPONSE_URL

UNKNOWN = "NoSuchPaper1"


@pytest.mark.parametrize(
    "typed",
    [
        f"https://openreview.net/forum?id={UNKNOWN}",
        f"<https://openreview.net/pdf?id={UNKNOWN}>",
        f"<https://www.openreview.net/forum?id={UNKNOWN}&amp;noteId=abc>",
        f"<https://openreview.net/forum?id={UNKNOWN}|the paper we discussed>",
    ],
)
def test_paper_with_an_unknown_openreview_link_names_its_id(bot, typed):
    bot.slash(typed)
    [reply] = bot.recorder.wait_for(RESPONSE_URL)
    text = all_text(reply.blocks)
    assert text == (
        f"I have no paper with the OpenReview id \u201c{UNKNOWN}\u201d.\n"
        "Check the link, or search for the paper's title with `/paper WORDS`."
    )
    validate(Message(reply.text, tuple(reply.blocks)))


@pytest.mark.parametrize(
    "typed",
    ["https://example.org/abs/2401.00001", "https://openreview.net/group?id=ICLR.cc/2025"],
)
def test_paper_with_a_link_to_no_paper_page_says_which_links_it_reads(bot, typed):
    bot.slash(typed)
    [reply] = bot.recorder.wait_for(RESPONSE_URL)
    text = all_text(reply.blocks)
    assert text.startswith("I look papers up by the link to their OpenReview page")
    assert "Papers for" not in text and "sample papers" not in text


def test_a_message_whose_links_name_no_paper_is_not_unfurled(bot):
    links = [
        f"https://openreview.net/forum?id={UNKNOWN}",
        f"https://openreview.net/pdf?id={UNKNOWN}&amp;noteId=x",
        "https://openreview.net/group?id=ICLR.cc/2025",
    ]
    reply, _ = bot.link(links)
    assert reply.status == 200
    bot.drain()
    sent = {"chat.unfurl", "chat.postMessage", "chat.postEphemeral", RESPONSE_URL}
    assert not [call for call in bot.recorder.calls if call.method in sent]
