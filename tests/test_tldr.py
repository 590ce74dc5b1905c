"""Every seed paper's TL;DR, checked against the table in ``seed_tldrs.md``: what a
researcher sees first, kept where a reviewer can read all 76 at once.

A TL;DR must stand alone. None may open by pointing at context the reader never saw ("To
address this gap, …", "These limitations …", "Such methods …"), and each is made of whole
sentences of the abstract (at most a leading clause or a clause pointing back dropped).
Change the table only after reading the new summaries (``PYTHONPATH=. python3
tests/test_tldr.py`` rewrites it from the code).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.papers.summary import LONGEST_TLDR, points_back, split_sentences, stand_alone, tldr

TABLE = Path(__file__).with_name("seed_tldrs.md")
_HEADER = "| paper | TL;DR |\n| --- | --- |\n"


def _read_table() -> list[tuple[str, str]]:
    rows = TABLE.read_text(encoding="utf-8").removeprefix(_HEADER).splitlines()
    cells = [row.strip("| ").split(" | ", 1) for row in rows if row.startswith("| ")]
    return [(paper_id, text.replace("\\|", "|")) for paper_id, text in cells]


SEED_TLDRS = _read_table() if TABLE.exists() else []

_OPENS_WITH_POINTER = re.compile(
    r"^(?:to (?:this|that) end|to do so"
    r"|to (?:address|tackle|overcome|fill|mitigate|solve) (?:the )?(?:issue|problem|limitation)s?"
    r" of (?:the )?(?:previous|prior|existing)"
    r"|(?:(?:to (?:address|tackle|overcome|fill|mitigate|solve)(?: in)?"
    r"|motivated by|in light of|building on|equipped with|inspired by)\s+)?"
    r"(?:this|these|those|such|the above|the aforementioned)\b(?! paper| work| study))",
    re.IGNORECASE,
)
"""Written apart from ``points_back`` so that the table does not only check the code with
itself."""


def test_the_table_covers_every_seed_paper(seed_corpus) -> None:
    assert sorted(paper.id for paper in seed_corpus.papers) == sorted(i for i, _ in SEED_TLDRS)


@pytest.mark.parametrize(("paper_id", "expected"), SEED_TLDRS, ids=[i for i, _ in SEED_TLDRS])
def test_seed_tldr(seed_corpus, paper_id: str, expected: str) -> None:
    paper = next(paper for paper in seed_corpus.papers if paper.id == paper_id)
    summary = paper.tldr
    assert summary == expected
    assert not _OPENS_WITH_POINTER.match(summary)
    assert not points_back(summary)
    for sentence in split_sentences(summary):
        assert sentence[-1] in ".!?" or paper.plain_abstract.endswith(sentence)
        assert sentence[:1].isupper() or not sentence[:1].isalpha()


@pytest.mark.parametrize(
    ("sentence", "alone"),
    [
        ("To address this gap, we introduce SCBENCH.", "We introduce SCBENCH."),
        ("In this paper, we propose X to address these limitations.", "We propose X."),
        (
            "We propose Drop-Upcycling - a method that effectively addresses this problem.",
            "We propose Drop-Upcycling.",
        ),
        ("Motivated by this, we develop Y, which is fast.", "We develop Y, which is fast."),
        (
            "We then propose Z to tackle such attacks, reaching 90% accuracy.",
            "We propose Z, reaching 90% accuracy.",
        ),
        ("Specifically, to mitigate this issue, we design W.", "We design W."),
        ("To improve annotation, we propose MADGEN.", "To improve annotation, we propose MADGEN."),
        (
            "We introduce a notion of regret for this regime.",
            "We introduce a notion of regret for this regime.",
        ),
        (
            "We introduce DelTA, an agent designed to overcome these limitations.",
            "We introduce DelTA, an agent.",
        ),
        ("Thus we proposed to exploit the context.", "We proposed to exploit the context."),
        ("Also, we introduce a benchmark.", "We introduce a benchmark."),
        ("We address these challenges by introducing X.", "We introduce X."),
        ("This paper addresses this gap by proposing X.", "This paper proposes X."),
        (
            "We resolve this by introducing A, the ability to act, and then developing B.",
            "We introduce A, the ability to act, and then develop B.",
        ),
        (  # "using" says how, not what: no verb is made of it
            "We extend this by using random matrix theory.",
            "We extend this by using random matrix theory.",
        ),
        (  # a long clause says more than where it points: kept
            "We introduce AFLOW, an automated framework that efficiently explores this space "
            "using Monte Carlo Tree Search, refining workflows.",
            "We introduce AFLOW, an automated framework that efficiently explores this space "
            "using Monte Carlo Tree Search, refining workflows.",
        ),
    ],
)
def test_stand_alone_drops_what_points_back(sentence: str, alone: str) -> None:
    assert stand_alone(sentence) == alone


def test_a_contribution_that_still_points_back_brings_the_sentence_before_it() -> None:
    plain = (
        "Synthetic data is popular. Previous work analyzed models trained on synthetic data. "
        "We extend this by using random matrix theory to derive a classifier's performance."
    )
    assert tldr(plain) == (
        "Previous work analyzed models trained on synthetic data. We extend this by using "
        "random matrix theory to derive a classifier's performance."
    )


def test_a_sentence_over_400_characters_is_cut_after_a_clause() -> None:
    long_sentence = "We propose X, " + "a method that is fast, " * 14 + "and simple."
    assert 300 < len(long_sentence) <= LONGEST_TLDR
    assert tldr(long_sentence) == long_sentence
    longer = "We propose X, " + "a method that is fast, " * 20 + "and simple."
    assert tldr(longer) == "We propose X, " + ", ".join(["a method that is fast"] * 16) + "…"
    run_on = "We propose " + "a very long list of things " * 40
    assert tldr(run_on).endswith("…") and len(tldr(run_on)) <= LONGEST_TLDR


def test_a_clause_cut_leaves_no_bracket_open() -> None:
    sentence = "We propose X, a method (" + "a, " * 60 + "b) that is fast, " + "and small " * 30
    assert tldr(sentence).endswith("b) that is fast…")


def test_a_tldr_ends_as_a_sentence_does() -> None:
    """An abstract's last sentence may come without its full stop."""
    assert tldr("Background is long. We propose X, a fast method") == (
        "We propose X, a fast method."
    )


if __name__ == "__main__":
    from bot.papers.corpus import load_corpus

    papers = load_corpus("seeds").papers
    lines = ["| " + paper.id + " | " + paper.tldr.replace("|", "\\|") + " |" for paper in papers]
    TABLE.write_text(_HEADER + "\n".join(lines) + "\n", encoding="utf-8")


def test_a_sentence_announcing_what_follows_is_no_tldr() -> None:
    """From the catalogue (1CIUkpoata): "the following" with nothing after it points ahead."""
    plain = (
        "We present the following contributions. We develop a new method that estimates the "
        "6D pose of any object in the input image without prior knowledge of the object itself."
    )
    assert tldr(plain) == (
        "We develop a new method that estimates the 6D pose of any object in the input image "
        "without prior knowledge of the object itself."
    )
    assert not points_back("We demonstrate the following key properties: (1) speed.")


@pytest.mark.parametrize(
    ("text", "first"),
    [
        (
            "We frame it as a “cake-slicing problem.” Then more.",
            "We frame it as a “cake-slicing problem.”",
        ),
        (
            'We ask: "How should we design rewards?" We answer.',
            'We ask: "How should we design rewards?"',
        ),
        ("It works (see Section 3.) Next we test it.", "It works (see Section 3.)"),
        ("We use X (a new idea. It works.) Next.", "We use X (a new idea."),
    ],
)
def test_a_sentence_keeps_the_quote_or_bracket_it_closes(text: str, first: str) -> None:
    assert split_sentences(text)[0] == first


def test_a_sentence_drops_a_bracket_it_never_opened() -> None:
    assert split_sentences("We use X (a new idea. It works.) Next.")[1] == "It works."


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("It degrades performance.To prevent collapse, we act.", "It degrades performance."),
        ("We write e.g.That and the U.S.Army. Next.", "We write e.g.That and the U.S.Army."),
    ],
)
def test_a_full_stop_without_its_space_ends_a_sentence_after_a_word(text: str, first: str) -> None:
    assert split_sentences(text)[0] == first
