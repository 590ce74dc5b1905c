"""What a person reads about the ``.bib`` export of their reading list: in the conversation,
above the file in the direct message, and when Slack will not take the file."""

from __future__ import annotations

from bot.render.message import Message
from bot.render.mrkdwn import escape_mrkdwn, notice_message

EXPORT_TITLE = "Reading list (BibTeX)"
"""The title of the ``.bib`` file in the direct message."""

_REFUSALS = {
    "cannot_dm_bot": "Slack does not let me send a direct message to a bot user",
    "missing_scope": (
        "this app is not allowed to send files by direct message here "
        "(a workspace admin can reinstall it with the `files:write` and `im:write` scopes)"
    ),
}
"""Why Slack refused the file, for the error codes a person can make sense of."""


def _papers_count(count: int) -> str:
    return f"{count} paper" if count == 1 else f"{count} papers"


def export_sent_message(count: int) -> Message:
    return notice_message(
        f"I sent you your reading list ({_papers_count(count)}) as a BibTeX file "
        "in a direct message."
    )


def export_comment(count: int) -> str:
    """The words above the ``.bib`` file in the direct message (plain text)."""
    return f"Your paperbot reading list: {_papers_count(count)}, keyed by OpenReview id."


def export_refused_message(code: str | None) -> Message:
    """Slack refused the file for good (its error ``code``): sending again would be refused
    too, so the person hears what is wrong instead of "try again"."""
    reason = _REFUSALS.get(code or "", f"Slack refused it (`{escape_mrkdwn(code or 'no reason')}`)")
    return notice_message(
        f"I couldn't send you your reading list as a BibTeX file: {reason}. Trying again "
        "won't help; `/paper saved` lists it here instead."
    )


def export_empty_message() -> Message:
    return notice_message(
        "Your reading list is empty, so there is nothing to export. Click *Save* on a paper first."
    )
