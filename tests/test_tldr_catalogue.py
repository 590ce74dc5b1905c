"""Every TL;DR the catalogue can show, checked for what a reader must never meet in one, and
the papers where each kind of leftover was met (issue 19).

The catalogue (accepted papers with an abstract, the seed abstracts in place of their copies)
is loaded and summarised once for the module: a few seconds in all.
"""

from __future__ import annotations

import re

import pytest

from bot.papers.corpus import load_corpus
from bot.papers.paper import Paper
from bot.papers.plain import clean_text
from bot.papers.summary import LONGEST_TLDR, paper_tldr, points_back, split_sentences
from bot.render import papers as render


@pytest.fixture(scope="module")
def catalogue() -> tuple[Paper, ...]:
    """The catalogue's papers that have an abstract, each TL;DR made once (it is cached)."""
    papers = tuple(paper for paper in load_corpus("catalogue").papers if paper.abstract)
    assert all(paper.tldr for paper in papers)
    return papers


def _paper(catalogue: tuple[Paper, ...], title_start: str) -> Paper:
    (paper,) = [paper for paper in catalogue if paper.title.startswith(title_start)]
    return paper


def _tldr(catalogue: tuple[Paper, ...], title_start: str) -> str:
    return _paper(catalogue, title_start).tldr


_LEFTOVER = re.compile(r"\\[A-Za-z]+|\ue000|__|\u02cd|\*\*|\$")
"""A macro (a backslash word, or the marker of one nothing names) and Markdown or LaTeX
markup (``__bold__``, its Slack look-alike ``ˍ``, ``**``, a math ``$``)."""


def test_no_tldr_has_a_macro_or_markup_left(catalogue: tuple[Paper, ...]) -> None:
    assert [paper.id for paper in catalogue if _LEFTOVER.search(paper.tldr)] == []


@pytest.mark.parametrize(
    ("title_start", "expected"),
    [
        # \sys and \ours{} name the paper, as its title's part before the colon does.
        ("SqueezeAttention:", "we propose SqueezeAttention to precisely optimize"),
        ("FlashMask:", "We propose FlashMask, an extension of FlashAttention"),
        # \textbf{\model} introduced by "called": the title's name, not the word "Model".
        ("QuaDiM:", "generative model called QuaDiM, designed for"),
        # \dualformer and \mquake{} are spelled as the title spells them.
        ("Dualformer:", "We present Dualformer, a single Transformer model"),
        ("MQuAKE-Remastered:", "up to 33% or 76% of MQuAKE's questions"),
    ],
)
def test_a_macro_is_written_as_the_name_it_stands_for(
    catalogue: tuple[Paper, ...], title_start: str, expected: str
) -> None:
    assert expected in _tldr(catalogue, title_start)


def test_a_sentence_whose_macro_nothing_names_is_passed_over(
    catalogue: tuple[Paper, ...],
) -> None:
    """\\norm in a title without a name (Fine-tuning with Reserved Majority …) and \\OOO are
    not words a reader could look up: another sentence is chosen."""
    for title_start in ("Fine-tuning with Reserved Majority", "On Large Language Model Continual"):
        summary = _tldr(catalogue, title_start)
        assert "norm)" not in summary and "OOO" not in summary


@pytest.mark.parametrize(
    ("abstract", "title", "expected"),
    [
        (r"We propose \sys, a cache.", "Squeeze: KV", "We propose Squeeze, a cache."),
        (r"We propose \ours{}~here.", "Flash: masks", "We propose Flash here."),
        # Defined by the text: brackets after the words the capitals abbreviate.
        (
            r"We bound the Kernel Stein Discrepancy ($\KSD$) of particles.",
            None,
            "We bound the Kernel Stein Discrepancy (KSD) of particles.",
        ),
        # Another system's macro is not the paper's name: that sentence is passed over.
        (
            r"We present Dualformer, a model. It beats the \searchformer baseline.",
            "Dualformer: fast",
            "We present Dualformer, a model.",
        ),
        (r"We write it \ie with a shorthand.", None, "We write it i.e. with a shorthand."),
    ],
)
def test_author_macros_in_an_abstract(abstract: str, title: str | None, expected: str) -> None:
    assert paper_tldr(abstract, clean_text(abstract).plain, title) == expected


@pytest.mark.parametrize(
    ("title_start", "expected"),
    [
        ("Dreamweaver:", "We propose Dreamweaver, a neural architecture"),
        ("Proxy Denoising for Source-Free", "We introduce a novel Proxy Denoising (ProDe)"),
    ],
)
def test_markdown_bold_with_underscores_is_read_as_bold(
    catalogue: tuple[Paper, ...], title_start: str, expected: str
) -> None:
    assert _tldr(catalogue, title_start).startswith(expected)
    card = render.paper_blocks(_paper(catalogue, title_start))[0]["text"]["text"]
    assert "\u02cd" not in card and "__" not in card


_OPENS_ON_A_SENTENCE_NOT_SHOWN = re.compile(
    r"(?:And|But|Or|So|Yet|Also|Moreover|However|Furthermore|Additionally|In addition|Thus"
    r"|Therefore|Hence|Consequently)\b"
    r"|(?:This|These|Those|Such)\b(?!\s+(?:paper|work|study|article|manuscript)\b)"
    r"|It\s+(?!(?:is|was|has been|remains)\s+(?:\w+\s+){0,3}?(?:that|to|whether|how|what)\b)"
    r"|Both\b(?![^.]*\band\b)"
)
"""Openings that lean on the sentence before, which a TL;DR does not show.

A conjunction or connective ("And", "But", "Moreover", "However", "Thus", "Therefore", …)
continues or answers the sentence before. "This", "These", "Those" and "Such" name what was
just said, except "This paper / work / study", which names the paper. "It" is a pronoun for
something said before, except the "It is unclear whether …" that points nowhere. "Both"
points back unless the sentence names the two ("Both A and B …"). "In this paper, we" or
"Here we" are not on the list: they frame, and lean on nothing."""


def test_no_tldr_opens_on_a_sentence_it_does_not_show(catalogue: tuple[Paper, ...]) -> None:
    leaning = [
        paper.id
        for paper in catalogue
        if _OPENS_ON_A_SENTENCE_NOT_SHOWN.match(paper.tldr) or points_back(paper.tldr)
    ]
    assert leaning == []


def test_a_tldr_does_not_lean_on_a_dropped_sentence(catalogue: tuple[Paper, ...]) -> None:
    """LoRA-Pro's "And this low-rank gradient …" leaned on the sentence before it, and
    Counterfactual Realizability's "… provably dominates both" on a dropped clause."""
    assert not _tldr(catalogue, "LoRA-Pro:").startswith("And")
    assert not re.search(r"\bboth\W*$", _tldr(catalogue, "Counterfactual Realizability"))


@pytest.mark.parametrize(
    ("text", "leans"),
    [
        ("And this low-rank gradient can be expressed in terms of A.", True),
        ("It achieves 90% accuracy.", True),
        ("It is unclear what the optimal trade-off is.", False),
        ("Both methods fail.", True),
        ("Both A and B fail.", False),
        ("We show that a counterfactual strategy provably dominates both.", False),
    ],
)
def test_an_opening_that_leans_on_the_sentence_before(text: str, leans: bool) -> None:
    assert points_back(text) is leans


def test_a_bare_both_points_at_what_the_reader_did_not_see() -> None:
    plain = (
        "Agents follow an interventional or an observational strategy. "
        "While these settings follow either, we show that a counterfactual strategy "
        "provably dominates both."
    )
    assert split_sentences(paper_tldr(None, plain, None))[0].startswith("Agents follow")


def test_every_tldr_is_at_most_400_characters_and_ends_as_a_sentence(
    catalogue: tuple[Paper, ...],
) -> None:
    """Twenty TL;DRs ran over 400 characters (one a 70-word sentence), and an abstract's last
    sentence may lack its full stop."""
    assert [paper.id for paper in catalogue if len(paper.tldr) > LONGEST_TLDR] == []
    unfinished = re.compile(r"[.!?\u2026][\"\u201d\u2019)]*$")
    assert [paper.id for paper in catalogue if not unfinished.search(paper.tldr)] == []


def test_a_long_tldr_is_cut_after_a_clause(catalogue: tuple[Paper, ...]) -> None:
    summary = _tldr(catalogue, "MUSE: Machine Unlearning")
    assert summary.endswith("(5) scalability with respect to the size of removal requests…")


@pytest.mark.parametrize(
    ("title_start", "start"),
    [
        # "… along these vector fields" kept it from standing alone, and "We demonstrate …"
        # was chosen over the sentence that names the contribution.
        ("Meta Flow Matching:", "We propose Meta Flow Matching (MFM), a practical approach"),
        ("LoRA-Pro:", "We introduce LoRA-Pro, a method that enhances LoRA's performance"),
    ],
)
def test_the_sentence_that_names_the_contribution_is_preferred(
    catalogue: tuple[Paper, ...], title_start: str, start: str
) -> None:
    assert _tldr(catalogue, title_start).startswith(start)
