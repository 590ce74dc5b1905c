"""The usage card: what ``/paper`` alone or ``/paper help`` shows, one line per command.

Apart from the paper cards (``bot.render.papers``) because it is a page of its own that
grows with every command, while nothing else reads its lines; the query operators' syntax
and examples come from the query language (``bot.search.results``), so the card never
teaches a form the parser does not read.
"""

from __future__ import annotations

from bot.render import blocks as bk
from bot.render.message import Message
from bot.render.mrkdwn import escape_mrkdwn
from bot.search.results import (
    AUTHOR,
    BEFORE,
    CATEGORY,
    EXCLUSION,
    LIKE,
    PHRASE,
    SINCE,
    SOURCE,
    VENUE,
    written,
)

HELP_LINES = (
    ("/paper WORDS", "search ICLR 2025 papers; typos are corrected"),
    (
        f"/paper {PHRASE.syntax} {EXCLUSION.syntax}",
        "a quoted phrase must appear; a word after - must not",
    ),
    (f"/paper {AUTHOR.syntax}", "papers by an author"),
    (f"/paper {LIKE.syntax}", "papers like the one with that id"),
    (
        f"/paper WORDS {SINCE.syntax} {BEFORE.syntax}",
        "papers announced (or published) on or after a day, or before one: "
        + ", ".join(f"`{written(SINCE, value)}`" for value in SINCE.examples),
    ),
    (
        f"/paper WORDS {SOURCE.syntax} {VENUE.syntax} {CATEGORY.syntax}",
        "papers from arXiv or OpenReview, of a venue or in an arXiv category, e.g. "
        + ", ".join(f"`{written(op, op.examples[0])}`" for op in (SOURCE, VENUE, CATEGORY))
        + "; filters alone list the newest papers",
    ),
    ("/paper random", "a random paper"),
    ("/paper ID", "a paper by its id, or its OpenReview or arXiv id or link"),
    ("/paper today", "today's paper of the day"),
    (
        "/paper subscribe [TIME] [ZONE] [weekdays|daily] [TOPIC]",
        "a paper of the day in this channel, e.g. `/paper subscribe 9:30 Berlin daily "
        "graph neural networks`; a zone is a city, `EST` or `Europe/Berlin`, and what you "
        "leave out stays as it was",
    ),
    (
        "/paper subscribe weekly DAY [TIME] [ZONE]",
        "the weekly team digest here: the workspace's most shared papers and picks for you all, "
        "e.g. `/paper subscribe weekly friday 9am`",
    ),
    (
        "/paper subscribe new [TIME] [ZONE] [TOPIC]",
        "the best of each announcement day's new papers here, e.g. `/paper subscribe new 9am "
        "graph neural networks category:cs.LG`",
    ),
    ("/paper today weekly", "the next weekly digest"),
    (
        "/paper unsubscribe",
        "stop the daily paper here (`/paper unsubscribe weekly`: the digest; "
        "`/paper unsubscribe new`: the new papers post)",
    ),
    ("/paper subscriptions", "what this channel is subscribed to"),
    ("/paper sources", "where new papers come from, and how their last fetch went"),
    (
        "/paper new [TOPIC]",
        "papers announced since the last announcement day (`since:DATE` goes further back), "
        "by TOPIC or by what this channel, or you, engage with; `new` followed by a sentence "
        "(`/paper new methods for graph pruning`) still searches every paper",
    ),
    ("/paper saved", "your reading list (papers you clicked Save on)"),
    ("/paper saved export", "your reading list as a BibTeX file, sent to you directly"),
    ("/paper for me", "papers like the ones you saved, each saying why; only you see them"),
    ("/paper forget me", "delete your reading list and everything else I keep about you"),
    ("@paperbot WORDS", "search, answered in a thread"),
    ("@paperbot new [TOPIC]", "the new papers, as `/paper new` lists them, in a thread"),
    ("@paperbot", "in a thread: papers related to the thread's first message"),
    ("@paperbot more", "in a thread: the next results of the last search or list"),
)


def help_message(*, description: str | None = None, hint: str | None = None) -> Message:
    """The usage card for ``/paper`` alone or ``/paper help``; ``hint`` is trusted mrkdwn."""
    lines = "\n".join(f"`{usage}` {what}" for usage, what in HELP_LINES)
    blocks = [bk.header("paperbot: find ICLR 2025 papers"), bk.section(lines)]
    if hint or description:
        blocks.append(bk.context(hint or escape_mrkdwn(description or "")))
    return bk.message("How to use /paper: /paper WORDS searches; /paper help shows this.", blocks)
