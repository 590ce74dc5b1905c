"""How ``/paper`` text and mentions are understood: the rules users rely on."""

from __future__ import annotations

import pytest

from bot.answers.typed import Intent, Request, parse_command, parse_mention, slack_to_plain

BOT = "UPAPERBOT"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", Request(Intent.HELP)),
        ("   ", Request(Intent.HELP)),
        ('""', Request(Intent.HELP)),
        ("\u201c \u201d", Request(Intent.HELP)),
        ("help", Request(Intent.HELP)),
        ("HELP", Request(Intent.HELP)),
        ("random", Request(Intent.RANDOM)),
        ("today", Request(Intent.TODAY)),
        ("subscriptions", Request(Intent.SUBSCRIPTIONS)),
        ("unsubscribe", Request(Intent.UNSUBSCRIBE)),
        ("subscribe", Request(Intent.SUBSCRIBE, "")),
        ("subscribe 09:30 Europe/Paris", Request(Intent.SUBSCRIBE, "09:30 Europe/Paris")),
        ("Subscribe  weekdays", Request(Intent.SUBSCRIBE, "weekdays")),
        ("random forests", Request(Intent.SEARCH, "random forests")),
        ("help me find diffusion", Request(Intent.SEARCH, "help me find diffusion")),
        ("today's best papers", Request(Intent.SEARCH, "today's best papers")),
        ("how to subscribe", Request(Intent.SEARCH, "how to subscribe")),
        ('"help"', Request(Intent.SEARCH, '"help"')),
        ('"random"', Request(Intent.SEARCH, '"random"')),
        ("graph  sparsification", Request(Intent.SEARCH, "graph sparsification")),
    ],
)
def test_command_words_only_when_they_are_the_whole_text(text, expected):
    assert parse_command(text) == expected


def test_slack_wire_text_is_turned_back_into_what_was_typed():
    wire = "&lt;b&gt; &amp; <https://openreview.net/forum?id=7ANDviElAo> <!channel> <@U1|bob>"
    assert slack_to_plain(wire) == ("<b> & https://openreview.net/forum?id=7ANDviElAo")
    assert slack_to_plain("<#C123|research> <!subteam^S1|@team> <!here> KV cache") == (
        "#research KV cache"
    )
    assert parse_command("<https://openreview.net/forum?id=X1>") == Request(
        Intent.SEARCH, "https://openreview.net/forum?id=X1"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"<@{BOT}> graph sparsification", Request(Intent.SEARCH, "graph sparsification")),
        (
            f"what about <@{BOT}|paperbot> diffusion?",
            Request(Intent.SEARCH, "what about diffusion?"),
        ),
        (f"<@{BOT}> more", Request(Intent.MORE)),
        (f"<@{BOT}>  MORE ", Request(Intent.MORE)),
        (f"<@{BOT}> more diffusion", Request(Intent.SEARCH, "more diffusion")),
        (f"<@{BOT}>", Request(Intent.THREAD)),
        (f"<@{BOT}> help", Request(Intent.HELP)),
        (f"<@{BOT}> random", Request(Intent.RANDOM)),
        (f"<@{BOT}> new", Request(Intent.NEW)),
        (f"<@{BOT}> New graph pruning", Request(Intent.NEW, "graph pruning")),
        (f"<@{BOT}> new since:7d", Request(Intent.NEW, "since:7d")),
        (f"<@{BOT}> new methods for pruning", Request(Intent.NEW, "methods for pruning")),
        (f'<@{BOT}> "new" methods', Request(Intent.SEARCH, '"new" methods')),
        (f"<@{BOT}> newton methods", Request(Intent.SEARCH, "newton methods")),
        ("new", Request(Intent.NEW)),
        ("graph sparsification", Request(Intent.SEARCH, "graph sparsification")),
        (f"<@{BOT}> nwe", Request(Intent.MISTYPED, "new")),
        (f"<@{BOT}> hlep", Request(Intent.MISTYPED, "help")),
        (f"<@{BOT}> Mroe", Request(Intent.MISTYPED, "more")),
        (f"<@{BOT}> randoom", Request(Intent.MISTYPED, "random")),
        (f"<@{BOT}> nwe results", Request(Intent.SEARCH, "nwe results")),
        (f'<@{BOT}> "nwe"', Request(Intent.SEARCH, '"nwe"')),
        (f"<@{BOT}> mode", Request(Intent.SEARCH, "mode")),
        (f"<@{BOT}> NER", Request(Intent.SEARCH, "NER")),
        (f"<@{BOT}> rnadom", Request(Intent.MISTYPED, "random")),
    ],
)
def test_mentions(text, expected):
    assert parse_mention(text, BOT) == expected


def test_mention_without_a_known_bot_id_strips_the_leading_mention():
    assert parse_mention("<@U999> graphs <@U0OTHER>", None) == Request(Intent.SEARCH, "graphs")


def test_control_and_bidi_characters_never_reach_the_query():
    typed = "\x00graph\x07 sparsi\u200bfication \u202eevil\u202c\ttext"
    assert parse_command(typed) == Request(Intent.SEARCH, "graph sparsification evil text")
