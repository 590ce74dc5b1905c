"""The paper record: the TL;DR derived on first read when not given, and what render shows of it."""

from __future__ import annotations

import pickle
from dataclasses import FrozenInstanceError, replace
from pathlib import Path

import pytest

from bot.papers.corpus import LoadedCorpus, load_corpus
from bot.papers.paper import Paper
from bot.papers.plain import clean_text
from bot.papers.summary import tldr
from bot.render.markup import abstract_mrkdwn
from bot.render.mrkdwn import mrkdwn_literal

ABSTRACT = (
    "Graph neural networks are slow on large graphs. We propose **MoG**, which keeps "
    "$8.67\\%\\sim 50.85\\%$ of the edges <for speed>. Code: https://github.com/x/MoG."
)


def _paper(**given: object) -> Paper:
    cleaned = clean_text(ABSTRACT)
    fields: dict[str, object] = {
        "id": "h0123456789ab",
        "title": "MoG: Graphs* & <Sparsity>",
        "authors": ("Ada Lovelace",),
        "status": "Poster",
        "url": None,
        "abstract": ABSTRACT,
        "plain_abstract": cleaned.plain,
        "code_urls": cleaned.links,
        "links": cleaned.links,
        "title_derived": False,
        "source": "test#1",
    }
    return Paper(**{**fields, **given})


def test_left_out_tldr_is_derived_and_display_text_rendered_from_the_text() -> None:
    paper = _paper()
    assert mrkdwn_literal(paper.title) == "MoG: Graphs\u2217 &amp; &lt;Sparsity&gt;"
    display_abstract = abstract_mrkdwn(paper.abstract)
    assert "*MoG*" in display_abstract
    assert "&lt;for speed&gt;" in display_abstract
    assert "<https://github.com/x/MoG>" in display_abstract
    assert paper.tldr == tldr(paper.plain_abstract)
    assert paper.tldr.startswith("We propose MoG, which keeps 8.67% \u223c 50.85% of the edges")


def test_a_given_tldr_is_kept_as_given() -> None:
    assert _paper(tldr="Short.").tldr == "Short."


def test_a_paper_without_an_abstract_shows_no_abstract_and_no_tldr() -> None:
    paper = _paper(abstract=None, plain_abstract="", code_urls=(), links=())
    assert paper.tldr == ""


def test_derived_fields_behave_like_given_ones() -> None:
    lazy, eager = _paper(), _paper()
    explicit = _paper(tldr=eager.tldr)
    assert lazy == explicit and hash(_paper()) == hash(explicit)
    assert pickle.loads(pickle.dumps(_paper())) == explicit
    assert replace(_paper(), tldr="Other.").tldr == "Other."
    assert replace(_paper(), id="abc").tldr == explicit.tldr
    assert "tldr='We propose MoG" in repr(_paper())
    with pytest.raises(FrozenInstanceError):
        lazy.tldr = "changed"  # type: ignore[misc]
    with pytest.raises(AttributeError, match="no attribute 'summary'"):
        _ = lazy.summary  # type: ignore[attr-defined]


def test_a_loaded_jsonl_paper_shows_its_abstract_rendered_for_slack(tmp_path: Path) -> None:
    path = tmp_path / "papers.jsonl"
    path.write_text(
        '{"id": "abcDEF1234", "title": "Q* search", "authors": ["A B"], "status": "Poster", '
        '"url": "https://openreview.net/forum?id=abcDEF1234", "abstract": "We introduce '
        '\\\\textbf{Q*}, a planner. It is fast: see https://q.example.org/code/."}\n',
        encoding="utf-8",
    )
    corpus: LoadedCorpus = load_corpus(str(path))
    [paper] = corpus.papers
    assert mrkdwn_literal(paper.title) == "Q\u2217 search"
    assert abstract_mrkdwn(paper.abstract) == (
        "We introduce *Q\u2217*, a planner. It is fast: see <https://q.example.org/code>."
    )
    # A sentence holding a URL never makes the TL;DR.
    assert paper.tldr == "We introduce Q*, a planner."
