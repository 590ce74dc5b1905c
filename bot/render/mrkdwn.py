"""Slack's mrkdwn and the plain text made from it: escaping (the one place user and paper
text is made safe to show), user text quoted back, the notification text of a message, the
shell's readable text, and the one-section notice.
"""

from __future__ import annotations

import re

from bot.render import blocks as bk
from bot.render.message import Message


def escape_mrkdwn(text: str) -> str:
    """Escape the three characters Slack reserves for its own markup (links, mentions)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def mrkdwn_link(url: str, label: str) -> str:
    """A mrkdwn link; ``label`` must already be escaped."""
    safe_url = escape_mrkdwn(url).replace("|", "%7C")
    return f"<{safe_url}|{label}>"


def unescape_mrkdwn(text: str) -> str:
    """Undo ``escape_mrkdwn`` (and Slack's own escaping of what a person typed)."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


_ASTERISK_OPERATOR = "\u2217"
_PAIRED_MARKS = {
    "_": re.compile(r"(?<![^\W_])_|_(?![^\W_])"),  # at a word's edge: snake_case never opens
    "~": re.compile("~"),
    "`": re.compile("`"),
}
_LOOK_ALIKES = {"_": "\u02cd", "~": "\u223c", "`": "\u02cb"}
"""Modifier letter low macron, tilde operator, modifier letter grave accent."""


def mrkdwn_literal(text: str) -> str:
    """Plain text to show verbatim in Slack: escaped, and with the characters of Slack's
    emphasis swapped for look-alikes, since Slack has no escape for them. Stars always
    (``Q*`` and ``Rodimus*`` in one list, or a typed ``author:*Jegelka*``, would bold the
    text between); ``_``, ``~`` and backticks only where two of them could pair into
    italics, strike-through or code, so ``snake_case`` and ``~5%`` stay as written."""
    text = text.replace("*", _ASTERISK_OPERATOR)
    for mark, edges in _PAIRED_MARKS.items():
        if mark in text and len(edges.findall(text)) > 1:
            text = edges.sub(_LOOK_ALIKES[mark], text)
    return escape_mrkdwn(text)


_AS_TYPED = str.maketrans(
    {look_alike: mark for mark, look_alike in _LOOK_ALIKES.items()} | {_ASTERISK_OPERATOR: "*"}
)
"""``mrkdwn_literal`` undone, where no mrkdwn is read (a terminal): there the look-alike stars
of a typed ``*bold*`` would only look odd: show the characters typed."""


ECHO_CHARS = 120
"""How much of a query, topic or id is quoted back: enough to recognise it, never so much that
a 10,000-character paste pushes the advice after it out of the message."""

_LINK = re.compile(r"<([^<>|]*)\|([^<>]*)>")
_BARE = re.compile(r"<([^<>|]*)>")
_EMPHASIS = re.compile(r"(?<![\w*])[*_~]([^*_~\n]+)[*_~](?![\w*])")


def quoted(text: str) -> str:
    """What a person typed, between curly quotes, cut to ``ECHO_CHARS`` and shown as typed:
    escaped, and with its emphasis characters made literal (``*bold*`` in a topic stays two
    stars). Every echo of user text goes through here."""
    return f"“{mrkdwn_literal(bk.truncate_plain(text, ECHO_CHARS))}”"


def command_code(command: str) -> str:
    """A command to type, as code, cut like ``quoted``: escaped, with its backticks made
    look-alikes so that none closes the code early (stars and underscores are literal in
    code, and stay as typed so that the command can be copied)."""
    text = bk.truncate_plain(command, ECHO_CHARS).replace("`", _LOOK_ALIKES["`"])
    return f"`{escape_mrkdwn(text)}`"


def _is_emoji(word: str) -> bool:
    return len(word) > 2 and word.startswith(":") and word.endswith(":")


def _label_or_mention(match: re.Match[str]) -> str:
    """Mentions (``<@U1>``) must stay markup to notify; bare links become their URL."""
    inner = match.group(1)
    return match.group(0) if inner[:1] in {"@", "#", "!"} else inner


def fallback_text(mrkdwn: str) -> str:
    """A message's notification text from its mrkdwn: link labels kept, emphasis markers and
    emoji codes dropped. Escapes stay escaped, since Slack reads this text as mrkdwn too."""
    text = _LINK.sub(r"\2", mrkdwn)
    text = _BARE.sub(_label_or_mention, text).replace("*", "")
    return " ".join(word for word in text.split(" ") if not _is_emoji(word)).strip()


def _spelled_out_link(match: re.Match[str]) -> str:
    url, label = match.group(1), match.group(2)
    if url.startswith(("@", "#")):
        return f"{url[0]}{label}"
    return f"{label} ({url})" if label and label != url else url


def _spelled_out_bare(match: re.Match[str]) -> str:
    target = match.group(1)
    if target.startswith(("@", "#")):
        return target
    if target.startswith("!"):
        return "@" + target[1:]
    return target


def terminal_text(mrkdwn: str) -> str:
    """Readable text for a terminal: links spelled out, emphasis dropped, escapes undone."""
    text = _LINK.sub(_spelled_out_link, mrkdwn)
    text = _BARE.sub(_spelled_out_bare, text)
    text = _EMPHASIS.sub(r"\1", text)
    return unescape_mrkdwn(text.replace("*", "")).translate(_AS_TYPED)


def notice_message(mrkdwn: str) -> Message:
    """A one-section message whose text is trusted mrkdwn built by the caller (escaped input)."""
    return bk.message(fallback_text(mrkdwn), [bk.section(mrkdwn)])
