"""The filters every search takes (``since:``, ``before:``, ``source:``, ``venue:``,
``category:``): what they let through, in which order a query of filters alone lists papers,
and what a reader is told when a filter is mistyped or lets nothing through."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from slack_harness import all_text

from bot.papers.corpus import feed_paper, load_corpus
from bot.papers.paper import Paper
from bot.render.help_card import help_message
from bot.render.notes import notes_plain, usage_plain
from bot.search import ranker
from bot.search.cli import _parser
from bot.search.engine import SearchIndex
from bot.search.filtering import read_filter
from bot.search.query import TypedFilter, parse_query
from bot.search.results import FILTERS, OPERATORS, SINCE, BadFilterValue, Filter, written
from bot.shell.repl import HELP

TODAY = datetime(2026, 11, 25, 9, 0, tzinfo=UTC)


def _preprint(number: str, title: str, day: date, *categories: str) -> Paper:
    return feed_paper(
        paper_id=f"arxiv:{number}",
        title=title,
        authors=["Ada Lovelace"],
        status=None,
        url=f"https://arxiv.org/abs/{number}",
        abstract=f"{title}. We study it on graphs.",
        source="arxiv",
        arxiv_id=number,
        arxiv_version=1,
        announced=day,
        categories=categories,
    )


def _submission(forum: str, title: str, published: datetime, venue: str) -> Paper:
    return feed_paper(
        paper_id=forum,
        title=title,
        authors=["Alan Turing"],
        status="Poster",
        url=f"https://openreview.net/forum?id={forum}",
        abstract=f"{title}. We study it on graphs.",
        source="openreview",
        venue=venue,
        decision="accepted",
        published=published,
    )


PRUNING = _preprint("2611.00001", "Graph pruning with sparse masks", date(2026, 11, 20), "cs.LG")
SPECTRAL = _preprint("2611.00002", "Spectral graph pruning", date(2026, 11, 24), "stat.ML", "cs.LG")
WAVELETS = _preprint("2610.00003", "Wavelets for graph signals", date(2026, 10, 30), "eess.SP")
DIFFUSION = _submission(
    "AbCdEf123", "Diffusion on graphs", datetime(2026, 11, 2, 12, tzinfo=UTC), "ICLR 2026 Poster"
)
FEED_PAPERS = (PRUNING, SPECTRAL, WAVELETS, DIFFUSION)


@pytest.fixture(scope="module")
def seeds() -> tuple[Paper, ...]:
    return load_corpus("seeds").papers


@pytest.fixture(scope="module")
def index(seeds) -> SearchIndex:
    return SearchIndex.build([*seeds, *FEED_PAPERS], clock=lambda: TODAY)


def _ids(index: SearchIndex, query: str) -> list[str]:
    return [hit.paper.id for hit in index.search(query, limit=200).hits]


def _note(index: SearchIndex, query: str) -> str | None:
    return notes_plain(index.search(query).reasons)


# --- parsing ----------------------------------------------------------------------------------


def test_filters_are_parsed_with_their_values_and_signs() -> None:
    parsed = parse_query('graph since:2026-11-01 -source:arxiv venue:"ICLR 2026" category:cs.LG')
    assert [span.text for span in parsed.words] == ["graph"]
    assert parsed.filters == (
        TypedFilter("since", "2026-11-01"),
        TypedFilter("source", "arxiv", negated=True),
        TypedFilter("venue", "ICLR 2026"),
        TypedFilter("category", "cs.LG"),
    )


def test_a_misspelt_filter_is_read_as_the_filter_and_the_reader_is_told(index) -> None:
    parsed = parse_query("sinse:2026-11-01 catgory:cs.LG auther:Bengio")
    assert [typed.field for typed in parsed.filters] == ["since", "category"]
    assert parsed.authors == ("Bengio",)
    result = index.search("sinse:2026-11-01 graph")
    assert result.corrected_query == "since:2026-11-01 graph"
    assert {hit.paper.id for hit in result.hits} == {PRUNING.id, SPECTRAL.id, DIFFUSION.id}


def test_a_slip_of_the_finger_in_like_is_read_as_like_and_the_reader_is_told(index) -> None:
    for typed in ("lkie", "liek", "ilke", "likke"):
        parsed = parse_query(f"{typed}:{PRUNING.id} sparse")
        assert parsed.like == PRUNING.id and [span.text for span in parsed.words] == ["sparse"]
        result = index.search(f"{typed}:{PRUNING.id}")
        assert result.corrected_query == f"like:{PRUNING.id}"
        assert result.similar_to == PRUNING and PRUNING not in [hit.paper for hit in result.hits]


def test_words_with_a_colon_that_name_no_filter_stay_words() -> None:
    for query in ("lime:tree", "life:cycle", "line:search", "note:graphs", "ratio:2"):
        parsed = parse_query(query)
        assert parsed.filters == () and [span.text for span in parsed.words] == [query]


def test_dates_are_days_months_years_or_days_back_from_today() -> None:
    today = TODAY.date()

    def day(value: str) -> date | str:
        read = read_filter(TypedFilter("since", value), today)
        return read.value if isinstance(read, Filter) else "bad"

    assert day("2026-11-01") == date(2026, 11, 1)
    assert day("2026-11") == date(2026, 11, 1)
    assert day("2026") == date(2026, 1, 1)
    assert day("7d") == date(2026, 11, 18)
    assert day("2W") == date(2026, 11, 11)
    assert day("today") == today
    assert day("Yesterday") == date(2026, 11, 24)
    for bad in ("2026-13-01", "2026-02-30", "yesterdy", "last week", "100000d", "11/01/2026"):
        assert day(bad) == "bad", bad


def test_a_bad_value_names_the_forms_and_the_nearest_and_searches_nothing(index) -> None:
    result = index.search("since:yesterdy graph")
    assert result.hits == () and result.reasons == (BadFilterValue(SINCE, "yesterdy", "yesterday"),)
    assert notes_plain(result.reasons) == (
        "`since:yesterdy` is not a date: write a day, a month, days or weeks back, or "
        "yesterday (`since:2026-11-01`, `since:2026-11`, `since:7d`, `since:2w` or "
        "`since:yesterday`). Did you mean `since:yesterday`?"
    )
    assert _note(index, "since:2026-13-01") == (
        "`since:2026-13-01` is not a date: write a day, a month, days or weeks back, or "
        "yesterday (`since:2026-11-01`, `since:2026-11`, `since:7d`, `since:2w` or "
        "`since:yesterday`)."
    )
    assert _note(index, "source:arxive") == (
        "`source:arxive` is not a source: write `source:arxiv` or `source:openreview`. "
        "Did you mean `source:arxiv`?"
    )


def test_a_filter_typed_alone_gets_its_usage(index) -> None:
    result = index.search("since:")
    assert result.usage is not None
    assert usage_plain(result.usage) == (
        "since:DATE finds papers announced (or published) on that day or later, e.g. "
        "since:2026-11-01, since:2026-11, since:7d, since:2w or since:yesterday."
    )


# --- what each filter lets through ------------------------------------------------------------


def test_since_counts_the_day_and_before_does_not(index) -> None:
    assert set(_ids(index, "since:2026-11-20")) == {PRUNING.id, SPECTRAL.id}
    assert set(_ids(index, "before:2026-11-20")) == {WAVELETS.id, DIFFUSION.id}
    # An OpenReview paper is dated by when it was published.
    assert set(_ids(index, "since:2026-11-02 before:2026-11-03")) == {DIFFUSION.id}


def test_days_back_count_from_the_index_clock(index, seeds) -> None:
    assert set(_ids(index, "since:7d")) == {PRUNING.id, SPECTRAL.id}
    assert _ids(index, "since:yesterday") == [SPECTRAL.id]
    later = SearchIndex.build(seeds, clock=lambda: datetime(2026, 12, 30, tzinfo=UTC))
    grown = later.extended(FEED_PAPERS)  # a library's addition keeps the clock
    assert _ids(grown, "since:7d") == []
    assert set(_ids(grown, "since:9w")) == {p.id for p in FEED_PAPERS}


def test_catalogue_papers_have_no_date_but_are_iclr_2025_on_openreview(index, seeds) -> None:
    catalogue = {paper.id for paper in seeds}
    assert not catalogue & set(_ids(index, "before:2026-11-01"))
    assert set(_ids(index, "source:openreview")) == catalogue | {DIFFUSION.id}
    assert set(_ids(index, "source:arxiv")) == {PRUNING.id, SPECTRAL.id, WAVELETS.id}
    assert set(_ids(index, "venue:iclr")) == catalogue | {DIFFUSION.id}
    assert set(_ids(index, 'venue:"ICLR 2026"')) == {DIFFUSION.id}
    spotlights = {paper.id for paper in seeds if paper.status == "Spotlight"}
    assert spotlights and set(_ids(index, 'venue:"iclr 2025 spotlight"')) == spotlights


def test_categories_match_whole_or_by_archive(index) -> None:
    assert set(_ids(index, "category:cs.LG")) == {PRUNING.id, SPECTRAL.id}
    assert _ids(index, "category:STAT.ML") == [SPECTRAL.id]
    assert _ids(index, "category:eess") == [WAVELETS.id]
    assert _ids(index, "category:cs.L") == []


def test_a_minus_excludes_what_a_filter_lets_through(index, seeds) -> None:
    assert set(_ids(index, "-source:openreview")) == {PRUNING.id, SPECTRAL.id, WAVELETS.id}
    assert set(_ids(index, "graph -category:cs.LG since:2026-10-01")) == {
        WAVELETS.id,
        DIFFUSION.id,
    }


def test_filters_narrow_a_ranked_search_without_reordering_it(index) -> None:
    ranked = _ids(index, "graph pruning")
    narrowed = _ids(index, "graph pruning since:2026-11-01")
    assert narrowed == [doc for doc in ranked if doc in {PRUNING.id, SPECTRAL.id, DIFFUSION.id}]
    assert index.search("graph pruning since:2026-11-01").total == len(narrowed)


def test_filters_alone_list_papers_newest_first_undated_last(index, seeds) -> None:
    assert _ids(index, "since:2026-10-01") == [SPECTRAL.id, PRUNING.id, DIFFUSION.id, WAVELETS.id]
    result = index.search("-category:cs.LG", limit=3)
    assert [hit.paper.id for hit in result.hits] == [
        DIFFUSION.id,
        WAVELETS.id,
        min(paper.id for paper in seeds),
    ]
    assert result.total == len(seeds) + 2


def test_the_pruned_ranking_is_never_used_under_a_filter(index, monkeypatch) -> None:
    expected = _ids(index, "graph since:2026-11-01")
    monkeypatch.setattr(ranker, "PRUNING_MIN_PAPERS", 0)
    assert _ids(index, "graph since:2026-11-01") == expected


def test_a_topic_subscription_walks_the_filtered_list(index) -> None:
    assert [paper.id for paper in index.results("graph category:cs.LG")] == _ids(
        index, "graph category:cs.LG"
    )
    assert {paper.id for paper in index.results("category:cs.LG")} == {PRUNING.id, SPECTRAL.id}


# --- notes --------------------------------------------------------------------------------------


def test_a_date_nothing_passes_says_the_newest_or_oldest_day(index, seeds) -> None:
    assert _note(index, "since:2026-12-01 graph") == (
        "No paper here is dated 1 Dec 2026 or later (the newest is from 24 Nov 2026)."
    )
    assert _note(index, "before:2026-01-01") == (
        "No paper here is dated before 1 Jan 2026 (the oldest is from 30 Oct 2026)."
    )
    assert _note(SearchIndex.build(seeds), "since:7d") == (
        "No paper here has a date to filter by with `since:7d`: the ICLR 2025 papers have "
        "none, only the papers the arXiv and OpenReview feeds bring do."
    )


def test_a_value_nothing_has_names_the_values_there_are(index, seeds) -> None:
    assert _note(index, "venue:neurips") == (
        "No paper here is from a venue called \u201cneurips\u201d; its venues include "
        '`venue:"ICLR 2025 Poster"`, `venue:"ICLR 2025 Spotlight"` and '
        '`venue:"ICLR 2026 Poster"`.'
    )
    assert _note(index, "category:math.ST") == (
        "No paper here is in the arXiv category \u201cmath.ST\u201d; its categories include "
        "`category:cs.LG`, `category:eess.SP` and `category:stat.ML`."
    )
    catalogue = SearchIndex.build(seeds)
    assert _note(catalogue, "source:arxiv") == (
        "No paper here comes from arXiv; they come from OpenReview."
    )
    assert _note(catalogue, "category:cs.LG") == (
        "No paper here is in the arXiv category \u201ccs.LG\u201d: only papers from the arXiv "
        "feeds have categories."
    )


def test_days_back_say_which_days_they_named(index) -> None:
    assert _note(index, "graph since:2w before:yesterday") == (
        "Papers dated 11 Nov 2026 or later and before 24 Nov 2026 "
        "(`since:2w` and `before:yesterday`)."
    )
    assert _note(index, "graph since:2026-11-01") is None  # the day is as typed


def test_filters_that_empty_a_search_point_to_the_filters_alone(index) -> None:
    assert _note(index, "wavelets since:2026-11-01") == (
        "No paper passing `since:2026-11-01` matches the rest of the query; "
        "`/paper since:2026-11-01` lists the papers that pass."
    )
    assert _note(index, "since:2026-11-21 before:2026-11-22") == (
        "No paper matches all of the query's conditions; try fewer of them."
    )


def test_every_operator_is_in_the_usage_card_the_docs_the_shell_and_the_cli() -> None:
    card = all_text(list(help_message().blocks))
    docs = (Path(__file__).parents[1] / "docs" / "search.md").read_text()
    epilog = " ".join(_parser().epilog.split())
    for operator in OPERATORS:
        assert operator.syntax in epilog, operator
        if operator in FILTERS:
            example = written(operator, operator.examples[0])
            assert operator.syntax in card and operator.syntax in HELP, operator
            assert f"`{example}`" in docs and example in epilog, operator
