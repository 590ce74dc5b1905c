"""The screenshots in ``docs/screenshots/`` show what the bot sends today: every message is
rebuilt by the bot's code and must equal the JSON committed beside its picture (run
``python3 docs/screenshots.py`` after changing what the bot says). No browser is needed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bot.render.blocks import validate
from bot.render.message import Message

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs"))

import messages  # noqa: E402
import screenshots  # noqa: E402


@pytest.fixture(scope="module")
def built() -> dict[str, dict]:
    return messages.build_all()


def test_every_committed_message_is_current(built: dict[str, dict]) -> None:
    stale = [
        name
        for name, message in built.items()
        if not (screenshots.OUT / f"{name}.json").is_file()
        or (screenshots.OUT / f"{name}.json").read_text(encoding="utf-8")
        != screenshots.dump(message)
    ]
    assert not stale, f"run python3 docs/screenshots.py: stale or missing {stale}"


def test_every_message_has_its_picture_and_nothing_else_is_left(built: dict[str, dict]) -> None:
    files = {path.name for path in screenshots.OUT.iterdir()}
    wanted = {f"{name}.{kind}" for name in built for kind in ("json", "png")} | {"README.md"}
    assert files == wanted


def test_the_gallery_and_the_readme_show_them(built: dict[str, dict]) -> None:
    gallery = (screenshots.OUT / "README.md").read_text(encoding="utf-8")
    assert gallery == screenshots.gallery(built)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/screenshots/README.md" in readme
    assert "docs/screenshots/search_results.png" in readme


def test_every_message_is_valid_block_kit_and_every_block_can_be_drawn(
    built: dict[str, dict],
) -> None:
    for message in built.values():
        validate(Message(message["text"], tuple(message["blocks"])))
        assert screenshots.page_html(message).count('class="message"') == 1


def test_mrkdwn_is_drawn_as_slack_shows_it() -> None:
    html = screenshots.mrkdwn_html(
        "*<https://x.io/a?b=1&amp;c=2|A &amp; B>* by <@U0ALICE>: `like:ID` _now_\nnext"
    )
    assert html == (
        '<b><a href="https://x.io/a?b=1&amp;c=2">A &amp; B</a></b> by '
        '<span class="mention">@Alice</span>: <code>like:ID</code> <i>now</i><br>next'
    )
