"""The normal forms of text every part of papers agrees on: whitespace, match keys, tidying."""

from __future__ import annotations

import re
import unicodedata


def normalise_whitespace(text: str) -> str:
    """Collapse every whitespace run (newlines, tabs, NBSP) to one space and strip the ends.

    Most text arrives already normalised, and every whitespace character but the ASCII space
    is unprintable, so a cheap scan can usually return the text as it is (loading a large
    corpus normalises each abstract several times).
    """
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return " ".join(text.split())


def match_key(text: str) -> str:
    """The form two copies of the same text share: NFKC, whitespace collapsed.

    Ids are hashed from it and seed abstracts join catalogue records on it, so it must not
    change between releases: an id built from it is how the team refers to a paper.
    """
    return normalise_whitespace(unicodedata.normalize("NFKC", text))


_SPACE_BEFORE_PUNCTUATION = re.compile(r" (?=[.,;:](?: |$))")


def tidy(text: str) -> str:
    """Collapse whitespace and close the gap a dropped citation leaves ("by \\cite{x}.")."""
    return _SPACE_BEFORE_PUNCTUATION.sub("", normalise_whitespace(text))
