"""What the feeds say to people: ``/paper sources`` (and the shell's ``sources``), and the
summary line of ``paperbot ingest``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.render import blocks as bk
from bot.render.message import Message
from bot.render.mrkdwn import escape_mrkdwn


@dataclass(frozen=True)
class SourceLine:
    """One followed feed, as plain values (render reads no store)."""

    kind: str  # "arxiv" or "openreview"
    name: str
    cross: bool
    papers: int
    last_success: datetime | None
    next_run: datetime
    error: str | None
    failures: int


def _moment(instant: datetime) -> str:
    return f"{instant:%Y-%m-%d %H:%M} UTC"


def _papers(count: int) -> str:
    return "1 paper" if count == 1 else f"{count:,} papers"


def _what(line: SourceLine) -> str:
    if line.kind == "arxiv":
        return f"arXiv {line.name}" + (" (with cross-lists)" if line.cross else "")
    return f"OpenReview {line.name}"


def source_text(line: SourceLine) -> str:
    """One feed in a sentence: what it gave, when it last worked, what comes next."""
    last = f"last fetched {_moment(line.last_success)}" if line.last_success else "not fetched yet"
    text = (
        f"*{escape_mrkdwn(_what(line))}*: {_papers(line.papers)}, {last}; "
        f"next {_moment(line.next_run)}."
    )
    if line.error:
        times = "once" if line.failures == 1 else f"{line.failures} times in a row"
        text += f"\n:warning: The last attempt failed ({times}): {escape_mrkdwn(line.error)}"
    return text


def sources_message(lines: Sequence[SourceLine]) -> Message:
    """``/paper sources``: what is followed, how many papers each gave, the last good fetch,
    the next one, and what failed."""
    if not lines:
        text = (
            "The bot follows no feed: it knows the ICLR 2025 papers it ships with. An operator "
            "can follow arXiv categories and OpenReview venues with `PAPERBOT_FEEDS`."
        )
        return bk.message(text, [bk.section(text)])
    head = "New papers come from these sources:"
    body = [source_text(line) for line in lines]
    return bk.message(
        "\n".join([head, *body]), [bk.section(head), *(bk.section(line) for line in body)]
    )


def ingest_summary(
    *, new: int, updated: int, unchanged: int, skipped: int, requests: int, error: str | None
) -> str:
    """``paperbot ingest``'s last line."""
    line = (
        f"{_papers(new)} new, {updated:,} updated, {unchanged:,} already stored, "
        f"{skipped:,} malformed entries skipped; {requests:,} requests"
    )
    return f"{line}; stopped: {error}" if error else line


def reembed_summary(count: int, model: str) -> str:
    """``paperbot embed``'s line about the stored feed papers."""
    return f"{_papers(count)} from the feeds embedded again with model {model[:12]}…"
