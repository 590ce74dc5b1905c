"""For you: papers like the ones a person saved, as a private message and as a section of the
App Home, and the answer to ``/paper forget me``. Pure functions, no I/O.

Every card says why it is there (the saved paper it is most like), and offers **Not
relevant**, which hides it for good; the answer to that click (and to **Save**, which also
takes a paper out of the suggestions) names the paper and offers **Undo**, as **Save** does
everywhere else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import TYPE_CHECKING, Any

from bot.buttons import HomePlaces, PageCursor, PaperButton, home_page_value, home_paper_value
from bot.papers.paper import Paper
from bot.render import blocks as bk
from bot.render import home as render_home
from bot.render.message import Message
from bot.render.mrkdwn import escape_mrkdwn, fallback_text, mrkdwn_literal, notice_message
from bot.render.papers import (
    ACTION_ABSTRACT,
    ACTION_SAVE,
    ACTION_UNSAVE,
    card_button,
    count_span,
    paging_buttons,
    paper_blocks,
    title_mrkdwn,
)
from bot.search.results import NoVectors, TooFewSaves

if TYPE_CHECKING:
    from bot.search.results import ForYou, Reason, Suggestion

ACTION_DISMISS = "paper_dismiss"
ACTION_UNDISMISS = "paper_undismiss"
ACTION_HOME_SAVE = "home_foryou_save"
ACTION_HOME_DISMISS = "home_foryou_dismiss"
ACTION_HOME_UNDISMISS = "home_foryou_undismiss"
ACTION_HOME_PAGE = "home_foryou_page"
DISMISS_LABEL = "Not relevant"

HOME_PAGE_SIZE = 5
"""Suggestions on the App Home at a time: two blocks each, beside a reading list of up to 40."""

CARD_BUTTONS = (ACTION_ABSTRACT, ACTION_SAVE)
"""The usual buttons of a For you card; **Not relevant** follows them."""


class Change(Enum):
    """What the click before this page did to one paper."""

    SAVED = "saved"
    HIDDEN = "hidden"


@dataclass(frozen=True)
class Changed:
    """The paper a **Save** or **Not relevant** just took out of the suggestions: the page
    says so at its top, with **Undo**."""

    paper: Paper
    change: Change


def why_line(suggestion: Suggestion) -> str:
    """Why a paper is suggested, in a few words."""
    return f"Like *{mrkdwn_literal(suggestion.like.title)}*, which you saved"


def reason_mrkdwn(reason: Reason) -> str:
    """What to do instead, when there is nothing to suggest for a reason."""
    if isinstance(reason, TooFewSaves):
        return (
            f"Save at least {reason.needed} papers (you have {reason.saves}) and I'll suggest "
            "papers like them: search with `/paper WORDS` and press *Save* on the ones you want "
            "to read."
        )
    if isinstance(reason, NoVectors):
        return (
            "I can't suggest papers here: suggestions compare papers by meaning, and this bot "
            "runs without the papers' meaning vectors. Search with `/paper WORDS` instead."
        )
    return "I have nothing to suggest right now. Search with `/paper WORDS` instead."


NOTHING_LEFT = (
    "I have no more papers to suggest: you saved or hid every paper like the ones you saved. "
    "Save a few papers on another topic and I'll suggest papers like those."
)


def _empty_mrkdwn(result: ForYou) -> str:
    return reason_mrkdwn(result.reason) if result.reason is not None else NOTHING_LEFT


def _learned_from(result: ForYou) -> str:
    papers = "paper" if result.saves == 1 else "papers"
    return (
        f"Learned from the {result.saves} {papers} you saved. *{DISMISS_LABEL}* hides a paper "
        "for good and teaches me what you don't want."
    )


def _change_mrkdwn(changed: Changed) -> str:
    if changed.change is Change.SAVED:
        return f"Saved ✓ {title_mrkdwn(changed.paper)} to your reading list."
    return f"Hidden {title_mrkdwn(changed.paper)}: I won't suggest it again."


def _undo_button(changed: Changed, value: str, *, home: bool) -> bk.ButtonElement:
    if changed.change is Change.SAVED:
        return bk.button("Undo", ACTION_UNSAVE, value)
    return bk.button("Undo", ACTION_HOME_UNDISMISS if home else ACTION_UNDISMISS, value)


def _private_card(suggestion: Suggestion, rank: int, this_page: PageCursor) -> list[dict]:
    """A result card with its reason under the title and **Not relevant** after its buttons."""
    paper = suggestion.paper
    first, *facts = paper_blocks(paper, buttons=(), rank=rank, back=this_page)
    elements = [card_button(paper, action, this_page, False) for action in CARD_BUTTONS]
    dismiss = PaperButton(paper.id, this_page).encode()
    elements.append(bk.button(DISMISS_LABEL, ACTION_DISMISS, dismiss))
    return [
        first,
        bk.context(why_line(suggestion)),
        *facts,
        bk.actions(elements, block_id=f"paper:{paper.id}"),
    ]


def for_you_message(
    result: ForYou,
    *,
    this_page: PageCursor,
    next_page: PageCursor | None = None,
    previous_page: PageCursor | None = None,
    changed: Changed | None = None,
) -> Message:
    """``/paper for me``: a page of suggestions, each saying why, with **Next 5** and
    **Previous 5``; ``changed`` is the paper the last click took out, shown with **Undo**."""
    blocks: list[dict[str, Any]] = []
    if changed is not None:
        undo = _undo_button(changed, PaperButton(changed.paper.id, this_page).encode(), home=False)
        blocks += [bk.section(_change_mrkdwn(changed)), bk.actions([undo], block_id="foryou:undo")]
    if not result.suggestions:
        text = _empty_mrkdwn(result)
        blocks.append(bk.section(text))
        lead = f"{fallback_text(_change_mrkdwn(changed))} " if changed else ""
        return bk.message(lead + fallback_text(text), blocks)
    heading = f"*For you* ({count_span(result.offset, len(result.suggestions), result.total)})"
    blocks += [bk.section(heading), bk.context(_learned_from(result))]
    for rank, suggestion in enumerate(result.suggestions, start=result.offset + 1):
        blocks.append(bk.divider())
        blocks.extend(_private_card(suggestion, rank, this_page))
    paging = paging_buttons(previous_page, next_page)
    if paging:
        blocks.append(bk.actions(paging, block_id="results:pages"))
    titles = "; ".join(escape_mrkdwn(s.paper.title) for s in result.suggestions)
    return bk.message(f"{fallback_text(heading)}: {titles}", blocks)


def _home_card(suggestion: Suggestion, places: HomePlaces) -> list[dict[str, Any]]:
    paper = suggestion.paper
    value = home_paper_value(paper.id, places, for_you=True)
    buttons = [
        bk.button("Abstract", render_home.ACTION_ABSTRACT, paper.id),
        bk.button("Save", ACTION_HOME_SAVE, value),
        bk.button(DISMISS_LABEL, ACTION_HOME_DISMISS, value),
    ]
    text = f"{title_mrkdwn(paper)}\n{why_line(suggestion)}"
    return [bk.section(text), bk.actions(buttons, block_id=f"home-foryou:{paper.id}")]


def home_blocks(
    result: ForYou, places: HomePlaces, *, hidden: Paper | None = None
) -> list[dict[str, Any]]:
    """The App Home's For you section: at most ``HOME_PAGE_SIZE`` suggestions (two blocks
    each) and five more blocks, so the tab stays far within its 100. Its buttons carry the
    reading list's place (``places``) so a click here leaves that list where it is."""
    places = replace(places, for_you=result.offset, hidden=None)
    blocks: list[dict[str, Any]] = [bk.header("For you")]
    if hidden is not None:
        changed = Changed(hidden, Change.HIDDEN)
        undo = _undo_button(changed, home_paper_value(hidden.id, places, for_you=True), home=True)
        blocks += [bk.section(_change_mrkdwn(changed)), bk.actions([undo], block_id="home:undo")]
    if not result.suggestions:
        return [*blocks, bk.section(_empty_mrkdwn(result))]
    span = count_span(result.offset, len(result.suggestions), result.total)
    blocks.append(bk.context(f"Papers like the ones you saved · {span}"))
    for suggestion in result.suggestions:
        blocks.extend(_home_card(suggestion, places))
    paging = []
    if result.offset > 0:
        previous = _home_page(places, max(result.offset - HOME_PAGE_SIZE, 0))
        paging.append(bk.button("Previous", ACTION_HOME_PAGE, previous))
    if result.offset + len(result.suggestions) < result.total:
        following = _home_page(places, result.offset + HOME_PAGE_SIZE)
        paging.append(bk.button("More suggestions", ACTION_HOME_PAGE, following))
    if paging:
        blocks.append(bk.actions(paging, block_id="home-foryou:pages"))
    return blocks


def _home_page(places: HomePlaces, offset: int) -> str:
    return home_page_value(replace(places, for_you=offset), for_you=True)


_KIND_WORDS = {
    "dismissals": ("dismissal", "dismissals"),
    "channel signals": ("share into a channel", "shares into channels"),
    "reactions": ("reaction", "reactions"),
}


def _deleted_part(kind: str, count: int) -> str:
    if kind == "saved papers":
        return f"your reading list ({count} paper{'' if count == 1 else 's'})"
    one, many = _KIND_WORDS.get(kind, (kind, kind))
    return f"{count} {escape_mrkdwn(one if count == 1 else many)}"


def _joined(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def forgotten_message(deleted: Mapping[str, int]) -> Message:
    """``/paper forget me``: what was deleted, by kind, and that nothing is kept from now on."""
    parts = [_deleted_part(kind, count) for kind, count in deleted.items() if count > 0]
    after = "paperbot keeps nothing new about you until you save or hide a paper again."
    if not parts:
        return notice_message(f"I kept nothing about you, so there was nothing to delete. {after}")
    return notice_message(f"Deleted {_joined(parts)}. {after}")
