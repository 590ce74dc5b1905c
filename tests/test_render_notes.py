"""What a search's reasons say: every sentence of a note or a usage, worded by render from
the reasons search returns (the sentences were search's own before issue 17)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bot.papers.corpus import load_corpus
from bot.render import papers as render
from bot.render.notes import (
    notes_mrkdwn,
    notes_plain,
    result_text,
    sentence,
    usage_mrkdwn,
    usage_plain,
)
from bot.search.authors import AuthorIndex
from bot.search.engine import SearchIndex
from bot.search.results import NearName, NoSharedWords, NoSuchFullName, SearchResult, Source


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


def test_a_misspelt_full_name_says_which_and_offers_the_near_name(
    catalogue_index: SearchIndex,
) -> None:
    """Issue 30: ``author:Sergei Levine`` said "No paper matches all of the query's
    conditions" (there are Sergeis, and abstracts cite Levine); the name nobody has is
    named, with the search for the name the index has, the rest of the query kept."""
    alone = catalogue_index.search("author:Sergei Levine")
    assert alone.total == 0
    assert notice(alone) == (
        "No paper has an author named “Sergei Levine”. "
        'Did you mean `/paper author:"Sergey Levine"`?'
    )
    with_topic = catalogue_index.search("AUTHOR:Sergei Levine robot learning")
    assert 'Did you mean `/paper author:"Sergey Levine" robot learning`?' in notice(with_topic)
    quoted_name = catalogue_index.search('author:"Sergei Levine"')
    assert notice(quoted_name).endswith('Did you mean `/paper author:"Sergey Levine"`?')
    assert catalogue_index.search('author:"Sergey Levine" robot learning').total > 0


def test_a_typo_in_a_surname_offers_the_authors_of_the_near_surname(
    catalogue_index: SearchIndex,
) -> None:
    result = catalogue_index.search("author:Bengoi graphs")
    assert result.total == 0
    assert notice(result) == (
        "No paper has an author named “Bengoi”. Did you mean "
        '`/paper author:"Yoshua Bengio" graphs`, `/paper author:"Emmanuel Bengio" graphs` '
        'or `/paper author:"Samy Bengio" graphs`?'
    )
    # Papers by a Stefanie are found, but not the surname typed: the near full name is
    # offered instead of "no paper mentions Jegleka".
    stefanie = catalogue_index.search("author:Stefanie Jegleka graphs")
    assert notice(stefanie) == (
        "No paper has an author named “Stefanie Jegleka”. Did you mean "
        '`/paper author:"Stefanie Jegelka" graphs`? Papers with an author named “Stefanie”.'
    )


def test_near_names_are_real_names_with_accents_and_transliterations_folded(
    catalogue_index: SearchIndex,
) -> None:
    authors = AuthorIndex(catalogue_index.papers)
    written = {name for paper in catalogue_index.papers for name in paper.authors}
    cases = {
        "Sergei Levine": "Sergey Levine",
        "Aleksandr Madry": "Aleksander Madry",
        "Sebastien Marcell": "Sébastien Marcel",
        "Kaiming Hee": "Kaiming He",
    }
    for typed, meant in cases.items():
        near = authors.near_names(typed)
        assert near[0] == meant and set(near) <= written
    assert len(authors.near_names("Bengoi")) == 3
    # Letters that carry their mark in themselves are folded too: Soren finds Søren.
    assert authors.is_name("Soren") and authors.is_name("Søren")
    assert authors.near_names("Tianlong Kitchen") == ()
    assert authors.near_names("zzyzx") == ()


def test_only_a_first_name_nobody_has_offers_the_near_authors(index: SearchIndex) -> None:
    papers = index.papers
    first = papers[0].authors[0]
    typo = first.split()[0][:-1] + "q" if len(first.split()[0]) > 4 else None
    if typo is None or AuthorIndex(papers).is_name(typo):
        pytest.skip("the seed's first author has too short a first name")
    result = index.search(f"author:{typo}")
    assert result.total == 0
    assert first in {near.name for near in result.reasons[0].near}
    assert "Did you mean `/paper author:" in notice(result)


def test_an_author_with_words_none_of_their_papers_has_offers_the_author_alone(
    catalogue_index: SearchIndex,
) -> None:
    result = catalogue_index.search("author:Sergey Levine kitchen")
    assert result.total == 0
    assert notice(result) == (
        "No paper by “Sergey Levine” matches the rest of the query; "
        '`/paper author:"Sergey Levine"` lists all their papers.'
    )
    together = catalogue_index.search("author:Jegelka author:Bengio")
    assert notice(together) == (
        "No paper has both “Jegelka” and “Bengio” among its authors; try one name at a time."
    )


def test_a_suggested_search_is_code_in_slack_and_its_query_is_escaped() -> None:
    hostile = "<!channel> `x` *y*"
    reason = NoSuchFullName("Sergei <!here>", (NearName("Sergey Levine", f"author:x {hostile}"),))
    note = notes_mrkdwn([reason])
    assert "<!" not in note
    assert note.endswith("Did you mean `/paper author:x &lt;!channel&gt; \u02cbx\u02cb *y*`?")
    message = render.results_message(SearchResult("q", (), 0, 0, None, (reason,)))
    assert "Did you mean" in str(message.blocks)


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
