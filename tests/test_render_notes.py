"""What a search's reasons say: every sentence of a note or a usage, worded by render from
the reasons search returns (the sentences were search's own before issue 17)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bot.papers.corpus import load_corpus
from bot.render.notes import notes_plain, result_text, sentence, usage_mrkdwn, usage_plain
from bot.search.engine import SearchIndex
from bot.search.results import NoSharedWords, SearchResult, Source


@pytest.fixture(scope="module")
def catalogue_index() -> SearchIndex:
    return SearchIndex.build(load_corpus("catalogue").papers)


def notice(result: SearchResult) -> str | None:
    return notes_plain(result.reasons)


def test_words_that_match_nothing_are_named(index: SearchIndex) -> None:
    note = notice(index.search("kitchen models"))
    assert note == "No paper mentions “kitchen”; showing papers about “models”."
    none = index.search("zzzq kitchen")
    assert none.total == 0
    assert notice(none).startswith("No paper mentions “zzzq” or “kitchen”.")


def test_unmatched_words_are_named_up_to_three_then_counted(index: SearchIndex) -> None:
    result = index.search("graph sparsification zzqa zzqb zzqc zzqd zzqe")
    assert sentence(result.reasons[0])[1] == ("zzqa", "zzqb", "zzqc", "graph sparsification")
    assert notice(result) == (
        "No paper mentions “zzqa” or “zzqb” or “zzqc” and 2 more words; "
        "showing papers about “graph sparsification”."
    )


def test_a_query_in_another_script_is_told_the_papers_are_in_english(index: SearchIndex) -> None:
    result = index.search("拡散モデル グラフ")
    assert result.total == 0
    assert notice(result).endswith("The papers are in English: try English words.")
    assert notice(index.search("2410.12345")).endswith("Check the spelling or try other words.")
    assert notice(index.search("zzzq")).endswith("Check the spelling or try other words.")


def test_a_bare_field_gets_its_usage_not_a_search(index: SearchIndex) -> None:
    like = index.search("like:")
    assert like.hits == () and like.usage
    assert usage_plain(like.usage).startswith("like:ID finds papers")
    assert usage_plain(index.search("author:").usage).startswith("author:NAME finds papers")


def test_a_usage_shows_its_syntax_as_code(index: SearchIndex) -> None:
    example = index.papers[0].id
    assert usage_mrkdwn(index.search("like:").usage) == (
        f"`like:ID` finds papers like one paper: give its id or OpenReview link, e.g. "
        f"`like:{example}`, or click More like this under a result."
    )
    assert usage_mrkdwn(index.search("author:").usage) == (
        '`author:NAME` finds papers by an author, e.g. `author:Bengio` or `author:"Le Song"`.'
    )


def test_an_author_filter_with_a_surname_no_such_author_has_says_so(index: SearchIndex) -> None:
    """``author:Tianlong Xianyang``: papers by a Tianlong and by a Xianyang exist, but the name
    asked for is nobody's, which is the answer, not "try fewer conditions"."""
    result = index.search("author:Tianlong Xianyang")
    assert result.total == 0
    assert notice(result) == "No paper has an author named “Tianlong Xianyang”."
    # A capitalised topic word after the name is no surname.
    topic = index.search("author:Tianlong Kitchen")
    assert topic.total == 0 and "author named" not in notice(topic)


def test_an_author_filter_whose_papers_an_exclusion_removes_says_so(index: SearchIndex) -> None:
    result = index.search("author:Jegelka -graph")
    assert result.hits == ()
    assert notice(result) == "Every paper that matched was excluded by “-graph”."


def test_an_author_filter_names_the_author(catalogue_index: SearchIndex) -> None:
    result = catalogue_index.search("author:Stefanie Jegelka graphs", limit=20)
    assert notice(result) == "Papers with an author named “Stefanie Jegelka”."


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ('"experts of mixture"', "phrase"),
        ("sparsification -graph", "-graph"),
        ("author:zzyzx graph", "author"),
        ("https://openreview.net/forum?id=doesNotExist", "doesNotExist"),
        ("graph sparsification " * 500, "1,000 characters"),
    ],
)
def test_notes_say_why(index: SearchIndex, query: str, said: str) -> None:
    assert said in (notice(index.search(query)) or "")


def test_the_command_line_prints_the_notice(index: SearchIndex) -> None:
    assert "common words" in result_text(index.search("the of"))


def test_a_paper_or_text_with_no_corpus_word_names_what_it_was() -> None:
    assert sentence(NoSharedWords(Source.PAPER))[0] == (
        "The paper has no words that papers in this corpus use."
    )
    assert sentence(NoSharedWords(Source.TEXT))[0] == (
        "The text has no words that papers in this corpus use."
    )


def test_render_loads_no_analyzer_through_the_results_module() -> None:
    """Render reads only search's results, and results hands hits a marker instead of
    importing the analyzer, so rendering never loads the stemmer."""
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, bot.render.notes, bot.render.papers; "
            "print('bot.search.analyzer' in sys.modules, 'Stemmer' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert loaded.stdout.split() == ["False", "False"]
