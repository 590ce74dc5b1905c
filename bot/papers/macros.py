"""An author's own macros (``\\sys``, ``\\ours``, ``\\model``): what a TL;DR may call them.

Authors write their method's name as a macro their preamble defines, and the abstract
arrives without the preamble, so the plain text says "we propose sys". That word does no
harm in the index, but a sentence shown to a reader must name the thing or not be shown:
the macro is written as the title's word it spells (``\\dualformer`` → "Dualformer"), as the
paper's name when the abstract introduces it with that macro ("we propose \\sys" in
"SqueezeAttention: …"), and otherwise marked ``UNNAMED`` so that the sentence is passed over.
"""

from __future__ import annotations

import re

from bot.papers.acronyms import acronym_letters, long_form
from bot.papers.latex import becomes_word

UNNAMED = "\ue000"
"""Put before a macro's name when nothing says what it stands for (a private-use character:
no abstract has one)."""

# A macro with no argument (an empty group ends it like a space: ``\ours{}``), and the tie
# after it, which would otherwise be left as a literal "~". One with an argument (``\bv{A}``)
# comes out as its argument, so it leaves no name behind.
_MACRO = re.compile(r"\\(?P<name>[a-zA-Z]+)(?![a-zA-Z])(?:\s*\{\s*\}|(?!\s*\{))(?P<tie>~)?")
# Text right before a macro that introduces it as the paper's contribution: "we propose \sys",
# "a model called \textbf{\model}", "we present a new … benchmark \dataset". The words
# between may not compare or relate it to something ("the proposed method against \other").
_RELATING = "against|than|to|with|over|versus|vs|and|or|of|on|in|for|from|by"
_INTRODUCED = re.compile(
    rf"(?i:propose|introduce|present|call|term|name|dub|coin)\w*(?:\s+(?!(?i:{_RELATING})\b)"
    r"[\w-]+){0,6}?\s+(?:\\[a-zA-Z]+\s*\{|\{)*\s*$"
)
_OPENING = re.compile(r"\(\s*\$?\s*$")
"""A bracket opened right before a macro, in text or math: "Discrepancy ($\\KSD$)"."""
_TITLE_WORD = re.compile(r"[^\s:\-\u2013\u2014]+")
_EDGE_PUNCTUATION = re.compile(r"^\W+|\W+$")
_LONGEST_NAME = 3
"""Words a title's part before its colon may have and still be a name ("OptiBench Meets
ReSocratic"); a longer one is a headline ("On the Expressiveness of …: …")."""


def title_name(title: str) -> str | None:
    """The paper's name in its title, the part before a colon ("SqueezeAttention: 2D …")."""
    head, colon, _ = title.partition(":")
    return head.strip() if colon and 0 < len(head.split()) <= _LONGEST_NAME else None


def name_author_macros(abstract: str, title: str | None) -> str:
    """``abstract`` with each author macro written as what it stands for, or marked
    ``UNNAMED`` (the abstract itself when it has none)."""
    if "\\" not in abstract:
        return abstract
    name = title_name(title) if title else None
    # Title words that are names: the title's name ("Dualformer") and words spelled like one
    # ("MQuAKE-Remastered"), not "Model" for ``\model``.
    words = {
        _EDGE_PUNCTUATION.sub("", word).casefold(): word
        for word in _TITLE_WORD.findall(title or "")
        if word == name or any(char.isupper() or char.isdigit() for char in word[1:])
    }
    introduced = {
        match.group("name")
        for match in _MACRO.finditer(abstract)
        if _INTRODUCED.search(abstract, max(0, match.start() - 60), match.start())
    }

    def spelled(match: re.Match[str]) -> str:
        macro = match.group("name")
        if not becomes_word(macro) or _spelled_out_before(abstract, match.start(), macro):
            return match.group()
        known = words.get(macro.casefold()) or (name if macro in introduced else None)
        return (known or UNNAMED + macro) + (" " if match.group("tie") else "")

    return _MACRO.sub(spelled, abstract)


def _spelled_out_before(abstract: str, start: int, macro: str) -> bool:
    """Whether the macro, written in capitals, is in brackets after the words it abbreviates,
    which defines it: "Kernelized Stein Discrepancy ($\\KSD$)"."""
    before = abstract[max(0, start - 80) : start]
    opening = _OPENING.search(before)
    return (
        macro.isupper()
        and opening is not None
        and long_form(acronym_letters(macro), before[: opening.start()]) is not None
    )
