"""Draw every message of ``docs/messages.py`` as Slack shows it, for people to look at.

Slack's Block Kit Builder is not reachable from where this project is built, so each
message's Block Kit JSON becomes an HTML page styled like a Slack message (the blocks the bot
uses: header, section, context, divider, buttons; mrkdwn with links, mentions, bold, italics
and code), and headless Chromium takes its screenshot::

    apt-get install chromium            # Debian's package; run as root
    python3 docs/screenshots.py         # all messages; --only NAME... for some, --json-only

Written to ``docs/screenshots/``: ``NAME.json`` (what the bot sends), ``NAME.png`` and a
``README.md`` gallery. The JSON and the gallery are checked by the tests (which need no
browser), so a change to what the bot says fails until this script is run again.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
WIDTH = 760
MIN_HEIGHT = 160
"""Headless Chromium paints nothing below its first 50 pixels in a shorter window."""
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
)
_WHERE = {
    "ephemeral": "Only visible to you",
    "channel": "#research",
    "thread": "Reply in a thread in #research",
    "unfurl": "#research",
    "home": "paperbot \u203a Home",
}
_USERS = {"U0ALICE": "Alice", "U0PAPERBOT": "paperbot"}
_CHANNELS = {"C0RESEARCH": "research"}  # as Slack names the ids in docs/messages.py
_EMOJI = {":warning:": "\u26a0"}  # DejaVu draws it; no colour emoji font here

CSS = """
body { margin: 0; background: #fff; color: #1d1c1d;
  font: 15px/1.4667 "Liberation Sans", "Helvetica Neue", Arial, sans-serif; }
.message { display: flex; gap: 8px; padding: 8px 20px 12px; width: %(width)dpx; }
.avatar { flex: 0 0 36px; height: 36px; border-radius: 6px; background: #4a154b; color: #fff;
  font-weight: 700; font-size: 14px; display: flex; align-items: center;
  justify-content: center; margin-top: 2px; }
.body { flex: 1; min-width: 0; }
.where { color: #616061; font-size: 13px; margin: 0 0 2px; }
.name { font-weight: 900; }
.app { background: rgba(29,28,29,.13); color: rgba(29,28,29,.7); font-size: 10px;
  font-weight: 700; padding: 1px 3px; border-radius: 2px; margin: 0 4px; vertical-align: 2px; }
.time { color: #616061; font-size: 12px; }
.section { margin: 4px 0; white-space: normal; overflow-wrap: anywhere; }
.header { font-size: 18px; font-weight: 900; margin: 6px 0 4px; }
.context { color: #616061; font-size: 13px; margin: 4px 0; display: flex; gap: 8px;
  flex-wrap: wrap; }
.divider { border-top: 1px solid #dddddd; margin: 10px 0; }
.actions { display: flex; gap: 8px; flex-wrap: wrap; margin: 8px 0 4px; }
.button { border: 1px solid rgba(29,28,29,.3); border-radius: 4px; padding: 0 12px;
  height: 28px; line-height: 28px; font-size: 13px; font-weight: 700; background: #fff; }
.button.primary { background: #007a5a; border-color: #007a5a; color: #fff; }
a { color: #1264a3; text-decoration: none; }
code { color: #e01e5a; background: rgba(29,28,29,.04); border: 1px solid rgba(29,28,29,.13);
  border-radius: 3px; padding: 1px 3px; font: 12px "DejaVu Sans Mono", monospace; }
.attachment { border-left: 4px solid #dddddd; padding-left: 12px; margin-top: 6px; }
.mention { color: #1264a3; background: rgba(29,155,209,.1); border-radius: 3px;
  padding: 0 2px; }
"""

_LINK = re.compile(r"<([^<>|]+)(?:\|([^<>]*))?>")
_CODE = re.compile(r"`([^`\n]+)`")
_BOLD = re.compile(r"(?<![\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])")
_ITALIC = re.compile(r"(?<![\w_])_(?!\s)([^_\n]+?)(?<!\s)_(?![\w_])")
_STRIKE = re.compile(r"(?<![\w~])~(?!\s)([^~\n]+?)(?<!\s)~(?![\w~])")
_HOLE = re.compile("\x00(\\d+)\x00")


def mrkdwn_html(text: str) -> str:
    """Slack mrkdwn as HTML. Slack's text is already escaped (``&amp; &lt; &gt;``), which
    HTML reads the same way, so only markup is translated."""
    holes: list[str] = []

    def hole(markup: str) -> str:
        holes.append(markup)
        return f"\x00{len(holes) - 1}\x00"

    def link(match: re.Match[str]) -> str:
        target, label = match.group(1), match.group(2)
        if target.startswith("@"):
            name = _USERS.get(target[1:].split("|")[0], target[1:])
            return hole(f'<span class="mention">@{name}</span>')
        if target.startswith("#"):
            channel = target[1:].split("|")[0]
            return hole(f'<span class="mention">#{label or _CHANNELS.get(channel, channel)}</span>')
        if target.startswith("!"):
            return hole(f'<span class="mention">@{target[1:]}</span>')
        return hole(f'<a href="{target}">{label or target}</a>')

    text = _LINK.sub(link, text)
    text = _CODE.sub(lambda match: hole(f"<code>{match.group(1)}</code>"), text)
    for pattern, tag in ((_BOLD, "b"), (_ITALIC, "i"), (_STRIKE, "s")):
        text = pattern.sub(lambda match, tag=tag: f"<{tag}>{match.group(1)}</{tag}>", text)
    for code, emoji in _EMOJI.items():
        text = text.replace(code, emoji)
    text = text.replace("\n", "<br>")
    while _HOLE.search(text):
        text = _HOLE.sub(lambda match: holes[int(match.group(1))], text)
    return text


def _plain(text: dict[str, Any]) -> str:
    return html.escape(text["text"])


def _text(text: dict[str, Any]) -> str:
    return mrkdwn_html(text["text"]) if text["type"] == "mrkdwn" else _plain(text)


def blocks_html(blocks: Iterable[dict[str, Any]]) -> str:
    out: list[str] = []
    for block in blocks:
        kind = block["type"]
        if kind == "header":
            out.append(f'<div class="header">{_plain(block["text"])}</div>')
        elif kind == "section":
            out.append(f'<div class="section">{_text(block["text"])}</div>')
        elif kind == "context":
            items = "".join(f"<span>{_text(item)}</span>" for item in block["elements"])
            out.append(f'<div class="context">{items}</div>')
        elif kind == "divider":
            out.append('<div class="divider"></div>')
        elif kind == "actions":
            buttons = "".join(
                f'<span class="button {element.get("style", "")}">{_plain(element["text"])}</span>'
                for element in block["elements"]
            )
            out.append(f'<div class="actions">{buttons}</div>')
        else:
            raise ValueError(f"no drawing for a {kind!r} block: add one to docs/screenshots.py")
    return "\n".join(out)


def _author_and_blocks(message: dict[str, Any]) -> tuple[str, str, str]:
    """Avatar, name line and body: a link preview sits under the person's own message."""
    blocks = blocks_html(message["blocks"])
    if message["where"] == "unfurl":
        name = '<span class="name">Alice</span> <span class="time">9:00 AM</span>'
        text = mrkdwn_html(html.escape(message["text"], quote=False))
        return "A", name, f'<div class="section">{text}</div><div class="attachment">{blocks}</div>'
    name = '<span class="name">paperbot</span><span class="app">APP</span>'
    if message["where"] != "home":
        name += ' <span class="time">9:00 AM</span>'
    return "pb", name, blocks


def page_html(message: dict[str, Any]) -> str:
    where = html.escape(_WHERE[message["where"]])
    avatar, name, body = _author_and_blocks(message)
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><style>{CSS % {"width": WIDTH}}</style></head>
<body><div class="message" id="message">
<div class="avatar">{avatar}</div>
<div class="body">
<div class="where">{where}</div>
<div>{name}</div>
{body}
</div></div>
<script>document.title = document.getElementById("message").offsetHeight;</script>
</body></html>
"""


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    sys.exit("docs/screenshots.py: no Chromium found (apt-get install chromium)")


def _run(browser: str, profile: Path, *args: str) -> str:
    command = [browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    return done.stdout


def screenshot(page: Path, png: Path, browser: str, profile: Path) -> None:
    """Measure the message (its height is the page's title once laid out), then take a
    screenshot of that size."""
    dom = _run(browser, profile, "--dump-dom", page.as_uri())
    height = int(re.search(r"<title>(\d+)</title>", dom).group(1))  # type: ignore[union-attr]
    size = f"--window-size={WIDTH + 40},{max(height, MIN_HEIGHT)}"
    _run(browser, profile, size, f"--screenshot={png}", page.as_uri())


def gallery(messages: dict[str, dict[str, Any]]) -> str:
    lines = [
        "# What the bot sends",
        "",
        "Every kind of message, built by the bot's own code from the seed papers and drawn as",
        "Slack shows it (`python3 docs/screenshots.py`; the JSON beside each picture is what",
        "the bot sends, and a test fails when it is stale).",
        "",
    ]
    for name, message in messages.items():
        lines += [f"## {message['caption']}", "", f"![{name}]({name}.png)", ""]
    return "\n".join(lines)


def write_json(messages: dict[str, dict[str, Any]]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, message in messages.items():
        (OUT / f"{name}.json").write_text(dump(message), encoding="utf-8")
    (OUT / "README.md").write_text(gallery(messages), encoding="utf-8")


def dump(message: dict[str, Any]) -> str:
    return json.dumps(message, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="draw only these messages")
    parser.add_argument("--json-only", action="store_true", help="write the JSON, draw nothing")
    args = parser.parse_args(argv)
    sys.path[:0] = [str(ROOT), str(ROOT / "docs")]
    from messages import build_all

    messages = build_all()
    write_json(messages)
    if args.json_only:
        return 0
    browser = _chromium()
    names = args.only or list(messages)
    with tempfile.TemporaryDirectory() as scratch:
        profile = Path(scratch) / "profile"
        for name in names:
            page = Path(scratch) / f"{name}.html"
            page.write_text(page_html(messages[name]), encoding="utf-8")
            screenshot(page, OUT / f"{name}.png", browser, profile)
            print(f"docs/screenshots/{name}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
