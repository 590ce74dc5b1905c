"""The terminal rendering of a Slack message (the shell, ``paperbot digest --dry-run``): what
Slack would show, spelled out for a terminal."""

from __future__ import annotations

import re

from project import PROJECT_ROOT

from bot.render.mrkdwn import quoted
from bot.render.terminal import EMOJI, WIDTH, render

_WRITTEN_EMOJI = re.compile(r"(?<![\w:]):([a-z][a-z0-9_+-]*):(?![\w:])")


def _section(mrkdwn: str) -> dict:
    return {"type": "section", "text": {"type": "mrkdwn", "text": mrkdwn}}


def test_every_emoji_code_the_bot_writes_shows_as_its_character():
    """Sentences are written in bot/render and bot/answers; a new code there needs its
    character here, or the terminal shows ``:code:``."""
    sources = [
        path
        for folder in ("bot/render", "bot/answers")
        for path in sorted((PROJECT_ROOT / folder).rglob("*.py"))
    ]
    written = {code for path in sources for code in _WRITTEN_EMOJI.findall(path.read_text("utf-8"))}
    assert written >= {"warning", "double_vertical_bar"}
    assert written <= EMOJI.keys()
    text = render([_section(":warning: No paper matches."), _section(":double_vertical_bar: x")])
    assert text.text == "\u26a0\ufe0f No paper matches.\n\u23f8\ufe0f x"


def test_an_unknown_emoji_code_and_a_time_stay_as_written():
    assert render([_section("at 10:30:00 :not_an_emoji_we_know:")]).text == (
        "at 10:30:00 :not_an_emoji_we_know:"
    )


def test_a_long_url_is_never_broken_across_lines():
    url = "https://example-lab.github.io/a-project-page-with-a-long-name/and-a-long-path-too/"
    words = "A sentence long enough to reach the edge of the terminal before the link, " * 2
    for text in (f"{words}<{url}|the project page>", f"{words}{url} and then more words"):
        lines = render([_section(text)]).text.splitlines()
        assert any(url in line for line in lines), lines
        assert all(len(line) <= WIDTH or url in line for line in lines)


def test_typed_markup_is_shown_as_typed():
    """In Slack a typed ``*bold*`` is echoed with look-alike stars so it stays literal; a
    terminal reads no markup, so it shows the characters typed."""
    echoed = quoted("*bold* _under_ ~strike~ `code`")
    assert "\u2217" in echoed
    assert render([_section(f"Papers for {echoed}")]).text == (
        "Papers for “*bold* _under_ ~strike~ `code`”"
    )
    assert render([_section("*Paused:* _now_")]).text == "Paused: now"


def test_channels_show_by_name_where_the_name_is_known():
    blocks = [_section("<#C0RESEARCH> · 09:00 UTC and <#C0OTHER>")]
    assert render(blocks, channel_names={"C0RESEARCH": "research"}).text == (
        "#research · 09:00 UTC and #C0OTHER"
    )
