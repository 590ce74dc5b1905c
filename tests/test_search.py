"""What a researcher sees when searching: the right papers, matched words, clear notices."""

from __future__ import annotations

import re
import threading
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import FieldedBM25Okapi, document_tokens

from bot.papers.corpus import LoadedCorpus, load_corpus
from bot.papers.paper import Paper
from bot.search.analyzer import analyze
from bot.search.engine import SearchIndex
from bot.search.planner import QueryPlanner
from bot.search.results import (
    AllExcluded,
    AuthorsNamed,
    NoPhrase,
    NoSuchAuthor,
    SearchResult,
    Truncated,
    UnknownId,
    Unmatched,
)

GRAPH_SPARSIFICATION = "7ANDviElAo"
ATTENTION_SINK = "78Nn4QJTEN"  # writes "auto-regressive"
HART = "q5sOv4xQe4"  # writes "autoregressive"
SNN = "qLh6Ufvnuc"


@pytest.fixture(scope="module")
def catalogue_index() -> SearchIndex:
    """A corpus of thousands, where a page is cut from a sample's floor, not a full sort."""
    return SearchIndex.build(load_corpus("catalogue").papers)


def ids(result: SearchResult) -> list[str]:
    return [hit.paper.id for hit in result.hits]


def text_of(paper: Paper) -> str:
    return " ".join([paper.title, paper.plain_abstract, *paper.authors]).lower()


def test_inflected_words_find_the_paper_and_report_words_as_written(index: SearchIndex) -> None:
    result = index.search("sparsifying graphs")
    assert ids(result)[0] == GRAPH_SPARSIFICATION
    matched = result.hits[0].matched_terms
    assert {"sparsification", "Mixture-of-Graphs", "Graph"} <= set(matched)
    assert result.corrected_query is None and result.reasons == ()


def test_the_word_papers_is_neither_searched_nor_echoed(index: SearchIndex) -> None:
    """Every search finds papers: "papers" says nothing about which, and a reader should not
    be told "showing papers about “papers efficient long-context”"."""
    result = index.search("papers efficient long-context zzqqx")
    assert result.reasons == (Unmatched(("zzqqx",), "efficient long-context", None),)
    assert ids(result) == ids(index.search("efficient long-context zzqqx"))
    assert ids(index.search("paper on sparsifying graphs")) == ids(
        index.search("sparsifying graphs")
    )


def test_hyphenated_and_joined_spellings_find_each_other(index: SearchIndex) -> None:
    hyphenated = ids(index.search("auto-regressive", limit=10))
    joined = ids(index.search("autoregressive", limit=10))
    assert {ATTENTION_SINK, HART} <= set(hyphenated)
    assert hyphenated == joined


def test_acronyms_and_defined_long_forms_find_each_other(index: SearchIndex) -> None:
    by_acronym = index.search("OOD", limit=10)
    assert any("out-of-distribution" in text_of(hit.paper) for hit in by_acronym.hits)
    assert any("Out-of-distribution" in hit.matched_terms for hit in by_acronym.hits)
    by_plural = ids(index.search("MLLMs", limit=5))
    assert by_plural == ids(index.search("MLLM", limit=5))


def test_a_typo_is_corrected_and_said_so(index: SearchIndex) -> None:
    result = index.search("spikng nueral networks")
    assert result.corrected_query == "spiking neural networks"
    assert ids(result) == ids(index.search("spiking neural networks"))
    assert SNN in ids(result)


def test_what_is_built_on_first_use_can_be_built_ahead(seed_corpus: LoadedCorpus) -> None:
    """The bot builds it in the background at start-up, so no first query waits for it."""
    fresh = SearchIndex.build(seed_corpus.papers)
    fresh.prepare()
    assert "speller" in vars(fresh._planner) and "by_token" in vars(fresh._authors)
    assert "_by_deletion" in vars(vars(fresh._planner)["speller"])
    assert fresh.search("spikng nueral networks").corrected_query == "spiking neural networks"


def test_a_query_racing_the_background_preparation_does_not_build_twice(
    seed_corpus: LoadedCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = SearchIndex.build(seed_corpus.papers)
    builds = []
    read_frequencies = QueryPlanner._spelling_frequencies
    arrivals = threading.Semaphore(0)

    class ArrivalLock:
        """The speller's lock, telling the builder each time a thread comes to it."""

        def __init__(self) -> None:
            self._lock = threading.Lock()

        def __enter__(self) -> None:
            arrivals.release()
            self._lock.acquire()

        def __exit__(self, *exc_info: object) -> None:
            self._lock.release()

    def slow_frequencies(planner: QueryPlanner) -> dict[str, int]:
        builds.append(threading.current_thread().name)
        for _ in range(4):  # the builder and the three queries: all ask while it builds
            assert arrivals.acquire(timeout=30)
        return read_frequencies(planner)

    monkeypatch.setattr(QueryPlanner.__dict__["speller"], "_lock", ArrivalLock())
    monkeypatch.setattr(QueryPlanner, "_spelling_frequencies", slow_frequencies)
    results = []
    threads = [threading.Thread(target=fresh.prepare)] + [
        threading.Thread(target=lambda: results.append(fresh.search("spikng nueral networks")))
        for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(builds) == 1
    assert [r.corrected_query for r in results] == ["spiking neural networks"] * 3


def test_a_quoted_word_is_searched_as_typed(index: SearchIndex) -> None:
    result = index.search('"spikng"')
    assert result.corrected_query is None
    assert result.hits == () and result.total == 0
    assert result.reasons


def test_quoted_phrases_must_occur_as_phrases(index: SearchIndex) -> None:
    result = index.search('"mixture of experts"', limit=20)
    assert result.total >= 2
    for hit in result.hits:
        assert re.search(r"mixture[- ]of[- ]experts", text_of(hit.paper))
    scrambled = index.search('"experts of mixture"')
    assert scrambled.total == 0
    assert scrambled.reasons == (NoPhrase("experts of mixture"),)


def test_a_phrase_matches_hyphenated_text(index: SearchIndex) -> None:
    assert GRAPH_SPARSIFICATION in ids(index.search('"mixture of graphs"'))
    assert GRAPH_SPARSIFICATION in ids(index.search('"mixture-of-graphs"'))


def test_minus_word_excludes_papers_containing_it(index: SearchIndex) -> None:
    everything = index.search("images", limit=100)
    without = index.search("images -diffusion", limit=100)
    assert 0 < without.total < everything.total
    assert all("diffusion" not in text_of(hit.paper) for hit in without.hits)


def test_excluding_everything_says_so(index: SearchIndex) -> None:
    result = index.search("sparsification -graph")
    assert result.total == 0
    assert result.reasons == (AllExcluded(("graph",)),)


def test_author_filter(index: SearchIndex, seed_corpus: LoadedCorpus) -> None:
    result = index.search('author:"Tianlong Chen"', limit=10)
    assert result.total == 2
    assert all("Tianlong Chen" in hit.paper.authors for hit in result.hits)
    narrowed = index.search("author:chen graph", limit=20)
    assert narrowed.total >= 1
    assert all(
        any("chen" in name.lower().split() for name in hit.paper.authors) for hit in narrowed.hits
    )
    nobody = index.search("author:zzyzx graph")
    assert nobody.total == 0 and isinstance(nobody.reasons[0], NoSuchAuthor)


def test_ids_and_openreview_urls_return_that_paper(index: SearchIndex) -> None:
    for ref in (GRAPH_SPARSIFICATION, f"https://openreview.net/forum?id={GRAPH_SPARSIFICATION}"):
        result = index.search(ref)
        assert ids(result) == [GRAPH_SPARSIFICATION]
        assert result.hits[0].score is None
    assert index.get(GRAPH_SPARSIFICATION.lower()).id == GRAPH_SPARSIFICATION
    unknown = index.search("https://openreview.net/forum?id=doesNotExist")
    assert unknown.hits == () and unknown.reasons == (UnknownId("doesNotExist"),)
    preprint = index.search("<https://arxiv.org/abs/2401.00001v2|the arXiv version>")
    assert preprint.hits == () and preprint.reasons == (UnknownId("arxiv:2401.00001"),)
    elsewhere = index.search("<https://example.org/abs/2401.00001|a copy>")
    assert elsewhere.hits == ()
    assert elsewhere.reasons == (UnknownId("https://example.org/abs/2401.00001"),)


def test_more_like_this_excludes_the_paper_itself(index: SearchIndex) -> None:
    result = index.search(f"like:{GRAPH_SPARSIFICATION}", limit=5)
    assert result.similar_to is not None and result.similar_to.id == GRAPH_SPARSIFICATION
    assert GRAPH_SPARSIFICATION not in ids(result)
    assert result.hits and result.hits[0].score > 0
    # Each shares what the paper is about: graphs, sparsifying by pruning, or a mixture.
    subjects = ("graph", "prun", "mixture")
    assert all(any(s in text_of(hit.paper) for s in subjects) for hit in result.hits)
    assert index.similar(GRAPH_SPARSIFICATION) == result
    missing = index.similar("nope")
    assert missing.hits == () and missing.reasons


def test_related_reads_a_message_as_free_text_not_as_a_query(index: SearchIndex) -> None:
    message = (
        'Has anyone tried "mixture of graphs" for sparsifying graph neural networks? '
        "Not the usual -sparsification tricks; it's a spikng idea"
    )
    result = index.related(message, limit=5)
    assert ids(result)[0] == GRAPH_SPARSIFICATION  # "-sparsification" is not an exclusion
    assert result.corrected_query is None and result.reasons == ()  # no typo correction
    assert "Sparsification" in result.hits[0].matched_terms
    as_query = index.search(message, limit=5)
    assert GRAPH_SPARSIFICATION not in ids(as_query)  # what the query parser made of it


def test_related_pages_follow_each_other_and_empty_text_says_why(index: SearchIndex) -> None:
    message = "Which graph neural network papers talk about sparsification and pruning?"
    first = index.related(message, limit=3)
    second = index.related(message, limit=3, offset=3)
    assert ids(first) + ids(second) == ids(index.related(message, limit=6))
    assert second.total == first.total > 6
    for text in ("", "lol :) the of and", "🙂🚀"):
        nothing = index.related(text)
        assert nothing.hits == () and nothing.total == 0 and nothing.reasons


@pytest.mark.parametrize(
    "query",
    ["", "   ", "the of and what", "?!?! ...", "🙂🚀", "\x00\x01\x02", "-diffusion"],
)
def test_queries_with_nothing_to_search_explain_why(index: SearchIndex, query: str) -> None:
    result = index.search(query)
    assert result.hits == () and result.total == 0
    assert result.reasons


def test_a_ten_thousand_character_query_is_cut_and_answered(index: SearchIndex) -> None:
    result = index.search("graph sparsification " * 500)
    assert ids(result)[0] == GRAPH_SPARSIFICATION
    assert result.reasons == (Truncated(1000),)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_any_text_gives_an_answer_not_an_exception(index: SearchIndex, query: str) -> None:
    result = index.search(query, limit=3)
    assert len(result.hits) <= 3
    assert result.hits or result.reasons or result.usage


def test_pages_follow_each_other(index: SearchIndex) -> None:
    first = index.search("graph neural networks", limit=3)
    second = index.search("graph neural networks", limit=3, offset=3)
    both = index.search("graph neural networks", limit=6)
    assert ids(first) + ids(second) == ids(both)
    assert second.offset == 3 and second.total == both.total
    beyond = index.search("graph neural networks", offset=10_000)
    assert beyond.hits == () and beyond.total == both.total


@pytest.mark.parametrize(
    "query", ["graph neural networks", "diffusion", "sparse attention kv cache", "reward -llm"]
)
def test_a_page_is_the_full_ranking_cut(catalogue_index: SearchIndex, query: str) -> None:
    index = catalogue_index
    ranking = [paper.id for paper in index.results(query)]
    for offset in (0, 7):
        result = index.search(query, limit=10, offset=offset)
        assert ids(result) == ranking[offset : offset + 10]
        assert result.total == len(ranking)


def test_equal_scores_are_ordered_by_paper_id(seed_corpus: LoadedCorpus) -> None:
    original = seed_corpus.papers[0]
    copies = [replace(original, id=paper_id) for paper_id in ("zz9", "aa1", "mm5")]
    index = SearchIndex.build([*copies, *seed_corpus.papers[1:]])
    top = ids(index.search("regretful decisions label noise", limit=3))
    assert top == ["aa1", "mm5", "zz9"]


def test_scores_are_bm25okapi_over_the_indexed_tokens(
    index: SearchIndex, seed_corpus: LoadedCorpus
) -> None:
    query = "regret noisy labels"
    reference = FieldedBM25Okapi.of(index, seed_corpus.papers)
    expected = reference.get_scores(analyze(query))
    for hit in index.search(query, limit=10).hits:
        assert hit.score == expected[seed_corpus.papers.index(hit.paper)]


def test_results_are_every_paper_a_search_pages_through(index: SearchIndex) -> None:
    results = index.results("graph sparsification")
    assert results[0].id == GRAPH_SPARSIFICATION
    assert len(results) == index.search("graph sparsification").total
    assert index.results("") == []


def test_catalogue_author_search_finds_papers_without_abstracts() -> None:
    catalogue = load_corpus("catalogue")
    index = SearchIndex.build(catalogue.papers)
    author = next(p for p in catalogue.papers if not p.abstract).authors[0]
    result = index.search(f'author:"{author}"', limit=50)
    assert result.total >= 1
    assert all(author in hit.paper.authors for hit in result.hits)


def test_authors_are_not_ranked_text(index: SearchIndex, seed_corpus: LoadedCorpus) -> None:
    """BM25 sees title and text (title and abstract) only, so 80 names cannot dilute a
    paper."""
    paper = seed_corpus.papers[0]
    title, abstract = analyze(paper.title), analyze(paper.plain_abstract)
    assert document_tokens(index, paper) == (title, title + abstract)
    crowded = replace(paper, id="crowded", authors=tuple(f"Author{n} Name{n}" for n in range(80)))
    alone = replace(paper, id="alone", authors=("Solo Writer",))
    both = SearchIndex.build([crowded, alone, *seed_corpus.papers[1:]])
    hits = both.search("regretful decisions label noise", limit=2).hits
    assert {hit.paper.id for hit in hits} == {"crowded", "alone"}
    assert hits[0].score == hits[1].score


def test_an_author_s_papers_go_by_their_position_then_oral_spotlight_poster(
    seed_corpus: LoadedCorpus,
) -> None:
    """Equally scored, they used to come by id; ids here run against the expected order."""
    base = seed_corpus.papers
    others = ("Bo Bee", "Cy Sea")

    def by_ada(doc: int, paper_id: str, place: int, status: str, in_order: bool = True) -> Paper:
        authors = (*others[:place], "Ada Quill", *others[place:])
        paper = replace(base[doc], id=paper_id, status=status, authors_in_order=in_order)
        return replace(paper, authors=authors)

    ada = [
        by_ada(0, "a", 0, "Oral", in_order=False),  # her place unknown: after every known one
        by_ada(1, "b", 2, "Poster"),
        by_ada(2, "c", 2, "Spotlight"),
        by_ada(3, "d", 2, "Oral"),
        by_ada(4, "e", 0, "Poster"),  # first author
    ]
    index = SearchIndex.build([*ada, *base[5:]])
    expected = ["e", "d", "c", "b", "a"]
    assert ids(index.search("author:Ada Quill", limit=5)) == expected
    assert ids(index.search("Ada Quill", limit=5)) == expected


def test_a_name_typed_as_a_query_lists_that_author_s_papers_first(index: SearchIndex) -> None:
    by_name = index.search("Tianlong Chen", limit=5)
    assert [hit.paper.id for hit in by_name.hits[:2]] == ids(index.search('author:"Tianlong Chen"'))
    assert by_name.corrected_query is None
    with_topic = index.search("tianlong graph sparsification", limit=3)
    assert ids(with_topic)[0] == GRAPH_SPARSIFICATION
    assert all("Tianlong Chen" in hit.paper.authors for hit in with_topic.hits[:2])


def test_a_first_name_alone_is_no_filter_it_adds_papers(index: SearchIndex) -> None:
    """A topical query naming a person keeps every topical match and puts theirs first."""
    topical = index.search("graph", limit=100)
    named = index.search("graph Tianlong", limit=100)
    assert set(ids(topical)) <= set(ids(named))


@pytest.mark.parametrize("query", ["sea ice", "soap", "language models", "federated learning"])
def test_only_acronyms_typed_as_acronyms_are_expanded(
    index: SearchIndex, seed_corpus: LoadedCorpus, query: str
) -> None:
    """``sea`` and ``soap`` spell acronyms some abstract defines, and ``language models``
    and ``federated learning`` have acronyms (LM, FL): none of that is added to the query."""
    reference = FieldedBM25Okapi.of(index, seed_corpus.papers)
    expected = reference.get_scores(analyze(query))
    for hit in index.search(query, limit=10).hits:
        assert hit.score == expected[seed_corpus.papers.index(hit.paper)]


def test_a_full_name_counts_even_when_its_words_are_common(index: SearchIndex) -> None:
    """``he`` is a stopword, but ``Zhihao He`` is an author: his paper first, then another
    He's (half of the name), and no paper without a He."""
    result = index.search("Zhihao He", limit=5)
    assert "Zhihao He" in result.hits[0].paper.authors
    assert all(any("He" in a.split() for a in hit.paper.authors) for hit in result.hits)


def test_a_capitalised_sentence_start_is_not_taken_for_a_name(index: SearchIndex) -> None:
    """``Glass`` is an author's surname, but a sentence may start with the English word;
    alone, though, a name is all the word can mean."""
    prose = "Dawn of video generation. Glass half full"
    without = "Dawn of video generation. half full"
    assert ids(index.search(prose, limit=10)) == ids(index.search(without, limit=10))
    alone = index.search("glass", limit=5)
    assert alone.hits and all("James R. Glass" in hit.paper.authors for hit in alone.hits)


@pytest.mark.parametrize(
    ("chatty", "plain"),
    [
        (
            "Sorry, I'm after work on graph sparsification",
            "Sorry, after work on graph sparsification",
        ),
        ("I'll need graph sparsification, we're stuck", "need graph sparsification, stuck"),
    ],
)
def test_contractions_in_a_message_are_neither_words_nor_initials(
    catalogue_index: SearchIndex, chatty: str, plain: str
) -> None:
    """``I'm`` is no topic, and the initials I. and M. of many authors name nobody; ``I'll``
    is not ``ill``."""
    result = catalogue_index.search(chatty, limit=10)
    assert result.reasons == ()
    assert [(hit.paper.id, hit.score) for hit in result.hits] == [
        (hit.paper.id, hit.score) for hit in catalogue_index.search(plain, limit=10).hits
    ]


def test_a_surname_some_abstracts_cite_still_names_its_authors(
    catalogue_index: SearchIndex,
) -> None:
    """One abstract cites Bengio, nineteen papers are by a Bengio: typed as a name, the word
    means the people. Typed in capitals it is an acronym, and a name fewer papers carry
    than mention it (``Gaussian``) is a word."""
    hits = catalogue_index.search("Bengio GFlowNets", limit=3).hits
    assert all(any("Bengio" in author for author in hit.paper.authors) for hit in hits)
    assert "GFlowNets" in hits[0].paper.title
    assert catalogue_index._planner.is_cited_name("Zhang")
    assert not catalogue_index._planner.is_cited_name("ZHANG")
    assert not catalogue_index._planner.is_cited_name("Gaussian")


def test_an_unquoted_author_takes_the_words_that_extend_a_known_name(
    catalogue_index: SearchIndex,
) -> None:
    index = catalogue_index
    jegelka = index.parse("author:Stefanie Jegelka graphs")
    assert jegelka.authors == ("Stefanie Jegelka",)
    assert [word.text for word in jegelka.words] == ["graphs"]
    bengio = index.parse("author:Bengio graphs")
    assert bengio.authors == ("Bengio",)
    assert [word.text for word in bengio.words] == ["graphs"]
    assert index.parse("author:Yoshua Bengio").authors == ("Yoshua Bengio",)
    result = index.search("author:Stefanie Jegelka graphs", limit=20)
    assert result.hits and result.reasons == (AuthorsNamed(("Stefanie Jegelka",)),)
    for hit in result.hits:
        assert any("Jegelka" in author for author in hit.paper.authors)


def test_the_count_counts_matches_only_for_one_word_phrase_or_filter(index: SearchIndex) -> None:
    assert index.search("sparsification").counted
    assert index.search('"graph sparsification"').counted
    assert index.search("author:Bengio").counted
    assert not index.search("graph sparsification").counted
    assert not index.search("like:7ANDviElAo").counted
    # A word no paper has adds nothing to count.
    assert index.search("kitchen sparsification").counted


def test_hits_name_the_authors_the_query_asked_for(catalogue_index: SearchIndex) -> None:
    """The person where the paper has them, else whoever shares most of the name."""
    by_him = catalogue_index.search("Kaiming He", limit=1).hits[0]
    assert by_him.named_authors == ("Kaiming He",)
    for hit in catalogue_index.search("author:Bengio", limit=5).hits:
        assert hit.named_authors
        assert all("Bengio" in author for author in hit.named_authors)
    assert catalogue_index.search("graph sparsification", limit=1).hits[0].named_authors == ()


def test_a_full_name_typed_as_words_gives_no_count_of_half_matches(
    catalogue_index: SearchIndex,
) -> None:
    """``Kaiming He`` also lists papers by every other He, after his: counting those as
    matches would overstate his papers tenfold."""
    typed = catalogue_index.search("Kaiming He", limit=5)
    assert not typed.counted
    assert all("Kaiming He" in hit.paper.authors for hit in typed.hits[:2])
    assert catalogue_index.search('author:"Kaiming He"').counted


def test_a_quoted_full_name_filters_by_that_author(index: SearchIndex) -> None:
    quoted = index.search('"Tianlong Chen"', limit=10)
    assert ids(quoted) == ids(index.search('author:"Tianlong Chen"', limit=10))
    assert index.search('"Tianlong Zzyzx"').total == 0  # no such author: a phrase, found nowhere


def test_a_word_typed_without_its_accents_finds_it_written_with_them(
    catalogue_index: SearchIndex,
) -> None:
    """Before, ``Schrodinger bridge`` said no paper mentions “Schrodinger” and ranked bridges."""
    typed = catalogue_index.search("Schrodinger bridge", limit=10)
    assert typed.reasons == ()
    assert all("Schrödinger" in hit.paper.title for hit in typed.hits[:3])
    assert "Schrödinger" in typed.hits[0].matched_terms  # shown as written
    assert ids(typed) == ids(catalogue_index.search("Schrödinger bridge", limit=10))
    phrase = catalogue_index.search('"Schrodinger bridge"')
    assert phrase.total == catalogue_index.search('"Schrödinger bridge"').total > 0


def test_an_author_typed_without_accents_is_found(catalogue_index: SearchIndex) -> None:
    by_name = catalogue_index.search("author:Sebastien")
    assert by_name.total > 0
    written = {a for hit in by_name.hits for a in hit.paper.authors if "bastien" in a}
    assert any("Sébastien" in author for author in written)
    assert ids(by_name) == ids(catalogue_index.search("author:Sébastien"))
