"""When two sources' records are the same paper: the one rule, so the store links them
whichever arrives first.

1. **Ids first.** An OpenReview submission that names its arXiv preprint (``content`` fields
   such as ``arxiv`` or an ``arxiv.org/abs/…`` link) is that preprint; nothing else is
   compared.
2. **Else the normalised title and the first author's surname**, both folded (NFKD without
   accents, case-folded, every run of non-alphanumerics one space, LaTeX markup dropped).
   A title alone is not enough: two different papers share "A Simple Baseline for …" often
   enough, and one word more or less ("Attention Is (Not) All You Need") is another paper.

Records of one source are never merged by title: one source gives each paper one id, so two
ids there are two papers (a resubmission to another venue stays its own record).
"""

from __future__ import annotations

import re
import unicodedata

_NOT_ALNUM = re.compile(r"[^0-9a-z]+")
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")
ARXIV_ID = re.compile(r"(?<![\d.])(\d{4}\.\d{4,5})(?:v(\d+))?(?![\d])")
"""A new-style arXiv id (since 2007), with its version if written."""
_ARXIV_LINK = re.compile(r"arxiv\.org/(?:abs|pdf)/(\d{4}\.\d{4,5})", re.IGNORECASE)

KEY_LENGTH = 255


def _folded(text: str) -> str:
    text = _LATEX_COMMAND.sub(" ", text)
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(char for char in decomposed if not unicodedata.combining(char))
    return _NOT_ALNUM.sub(" ", plain.casefold()).strip()


def match_key(title: str, authors: tuple[str, ...] | list[str]) -> str:
    """Rule 2's key: the folded title, then the first author's folded surname."""
    surname = _folded(authors[0]).rsplit(" ", 1)[-1] if authors else ""
    return f"{_folded(title)}|{surname}"[:KEY_LENGTH]


def arxiv_id_in(*texts: str | None) -> str | None:
    """The arXiv id an OpenReview record names (rule 1): a bare id in a field meant for it,
    or an ``arxiv.org/abs`` or ``/pdf`` link anywhere in the texts given."""
    for text in texts:
        if not text:
            continue
        link = _ARXIV_LINK.search(text)
        if link is not None:
            return link.group(1)
        bare = ARXIV_ID.fullmatch(text.strip().removeprefix("arXiv:").removeprefix("arxiv:"))
        if bare is not None:
            return bare.group(1)
    return None
