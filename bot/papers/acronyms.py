"""Acronyms and what they abbreviate: one home for the matching rules.

Search expands an acronym an abstract defines (``Multimodal Large Language Models (MLLMs)``)
with Schwartz & Hearst's match (``long_form``): the shortest run of words before the
parenthesis holding the acronym's letters right to left, the first at a word's start. A
paper's derived title names what its "we propose …" clause introduces with a looser rule
(``introduced_phrase``): whole words whose letters spell the acronym in order, or whose
initials include all its capitals in any order (``Multi-Perspective Data Augmentation`` for
MPAD), since a title would rather name the method than leave it out.
"""

from __future__ import annotations

import re

_VOWELS = frozenset("aeiouy")


def fold_acronym_plural(piece: str) -> str:
    """``MLLMs``/``SDEs``/``LoRAs`` → singular; lower-case ``llms`` too (no vowel = acronym)."""
    if len(piece) < 3 or piece[-1] != "s":
        return piece
    stem = piece[:-1]
    if (stem[-1].isupper() or stem[-1].isdigit()) and sum(c.isupper() for c in stem) >= 2:
        return stem
    if stem.islower() and stem.isalpha() and not _VOWELS.intersection(stem):
        return stem
    return piece


def long_form(letters: str, candidate: str) -> str | None:
    """Schwartz & Hearst's match: every acronym letter appears, right to left, in the words
    before the parenthesis, the first letter at the start of a word."""
    position = len(candidate) - 1
    for index in range(len(letters) - 1, -1, -1):
        letter = letters[index]
        while position >= 0 and (
            candidate[position].lower() != letter
            or (index == 0 and position > 0 and candidate[position - 1].isalnum())
        ):
            position -= 1
        if position < 0:
            return None
        position -= 1
    start = candidate.rfind(" ", 0, position + 1) + 1
    long_form = candidate[start:].strip(" ,;:")
    if len(long_form) <= len(letters) or not long_form[:1].isalnum():
        return None
    return long_form


def acronym_letters(written: str) -> str:
    """The letters and digits an acronym abbreviates (``MLLMs`` → ``mllm``)."""
    return "".join(c.lower() for c in fold_acronym_plural(written) if c.isalnum())


def _spells(phrase: str, acronym: str) -> bool:
    """Whether ``phrase`` can be what ``acronym`` abbreviates.

    Either its letters appear in order (``Mixture-of-Graphs`` → MoG) or its capitals are
    initials of the phrase's words in any order (``Multi-Perspective Data Augmentation`` →
    MPAD).
    """
    letters = [char.lower() for char in acronym if char.isalnum()]
    if not letters or phrase[:1].lower() != letters[0]:
        return False
    position = 0
    for char in phrase.lower():
        if position < len(letters) and char == letters[position]:
            position += 1
    if position == len(letters):
        return True
    initials = {word[0].upper() for word in re.split(r"[\s\-]+", phrase) if word}
    capitals = {char for char in acronym if char.isupper()}
    return bool(capitals) and capitals <= initials


def introduced_phrase(words: list[str], acronym: str) -> str | None:
    """The shortest run of words ending ``words`` that ``acronym`` abbreviates."""
    for size in range(1, min(len(words), 8) + 1):
        phrase = " ".join(words[-size:])
        if _spells(phrase, acronym):
            return phrase
    return None
